//! The SIMT SGEMM ladder: fp32 `C = A B` on CUDA cores, one rung per classic optimisation, every
//! rung's indexing given by tessel layouts.
//!
//! A rung ([`Rung`]) fixes a [`Tiling`]: the block tile `BM x BN` marched along K in `BK` steps,
//! the thread count, the thread tile `TM x TN`, where a thread's elements lie in the block tile
//! (`thr_m/thr_n` over the thread index, `val_m/val_n` over its values: for the warp-tiled rungs a
//! lane's 8 rows are two groups of 4 half a warp tile apart), the shared layouts of the A and B
//! tiles (A stored K-major `[m][k]` or transposed `[k][m]`) and the vector widths of the global
//! loads and of the shared fragment reads. [`SgemmPlan`] adds the problem (`M`, `N`, `K` and a
//! [`Major`] per operand; C is row-major) and assembles the kernel: `kernels/cuda/sgemm_naive.cu`
//! for [`Rung::Naive`], `kernels/cuda/sgemm_tiled.cu` for every other rung, with the layouts
//! emitted as pieces (`layout::blk_m`, `thr_m`, `val_m`, `sa`, `sb`, `lda_m`, `ga`, ...). Every
//! global access is predicated, so any `M, N, K >= 1` works.
//!
//! [`host`] is the CPU reference and its tolerance, [`bank`] the bank-model prediction of every
//! rung's shared accesses, [`run`] the GPU measurement against cuBLAS.
//!
//! ```
//! use tessel_kernels::sgemm::{Major, Rung, SgemmPlan};
//! let plan = SgemmPlan::new(Rung::Vectorized, 257, 129, 67, Major::Row, Major::Row).unwrap();
//! let kernel = plan.kernel().unwrap();
//! assert!(kernel.source().contains("namespace layout {"));
//! assert_eq!(kernel.launch().block, (256, 1, 1));
//! ```

pub mod bank;
pub mod host;
pub mod run;

use std::fmt;

use tessel_layout::{ComposedLayout, Layout};

use crate::error::{GpuError, GpuResult};
use crate::kernel::{CType, Elem, Kernel, KernelBuilder, Param};

/// The body of [`Rung::Naive`].
pub const NAIVE_BODY: &str = include_str!("../../cuda/sgemm_naive.cu");
/// The body of every tiled rung.
pub const TILED_BODY: &str = include_str!("../../cuda/sgemm_tiled.cu");

/// Vector loads and shared vector stores of fp32 registers (the `tessel.cuh` helpers move 32-bit
/// words, not floats); one instruction of `W * 4` bytes each.
const VECTOR_FNS: &str = r#"template <int W> __device__ __forceinline__ void vload(float* r, const float* p);
template <> __device__ __forceinline__ void vload<1>(float* r, const float* p) { r[0] = *p; }
template <> __device__ __forceinline__ void vload<2>(float* r, const float* p) {
  const float2 v = *reinterpret_cast<const float2*>(p); r[0] = v.x; r[1] = v.y;
}
template <> __device__ __forceinline__ void vload<4>(float* r, const float* p) {
  const float4 v = *reinterpret_cast<const float4*>(p); r[0] = v.x; r[1] = v.y; r[2] = v.z; r[3] = v.w;
}"#;
const VSTORE_FNS: &str = r#"template <int W> __device__ __forceinline__ void vstore_shared(float* p, const float* r);
template <> __device__ __forceinline__ void vstore_shared<1>(float* p, const float* r) { *p = r[0]; }
template <> __device__ __forceinline__ void vstore_shared<4>(float* p, const float* r) {
  asm volatile("st.shared.v4.f32 [%0], {%1, %2, %3, %4};" ::"r"((unsigned)__cvta_generic_to_shared(p)),
               "f"(r[0]), "f"(r[1]), "f"(r[2]), "f"(r[3]) : "memory");
}"#;
const VSTORE_GLOBAL_FNS: &str = r#"template <int W> __device__ __forceinline__ void vstore_global(float* p, const float* r);
template <> __device__ __forceinline__ void vstore_global<1>(float* p, const float* r) { *p = r[0]; }
template <> __device__ __forceinline__ void vstore_global<4>(float* p, const float* r) {
  asm volatile("st.global.v4.f32 [%0], {%1, %2, %3, %4};" ::"l"(p), "f"(r[0]), "f"(r[1]), "f"(r[2]),
               "f"(r[3]) : "memory");
}"#;

/// The storage order of an operand: `Row` (the second index contiguous) or `Col`.
///
/// ```
/// use tessel_kernels::sgemm::Major;
/// assert_eq!(Major::Row.layout(2, 3).unwrap().to_string(), "(2,3):(3,1)");
/// assert_eq!(Major::Col.layout(2, 3).unwrap().to_string(), "(2,3):(1,2)");
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Major {
    /// Row-major.
    Row,
    /// Column-major.
    Col,
}

impl Major {
    /// The `rows x cols` matrix layout of this order.
    ///
    /// ```
    /// use tessel_kernels::sgemm::Major;
    /// // Index 9 of a 4 x 8 shape is coordinate (1, 2): offset 1 * 8 + 2.
    /// assert_eq!(Major::Row.layout(4, 8).unwrap().offset(9).unwrap(), 10);
    /// ```
    pub fn layout(self, rows: i64, cols: i64) -> GpuResult<Layout> {
        let text = match self {
            Major::Row => format!("({rows},{cols}):({cols},1)"),
            Major::Col => format!("({rows},{cols}):(1,{rows})"),
        };
        parse(&text)
    }

    /// `"row"` or `"col"`.
    ///
    /// ```
    /// assert_eq!(tessel_kernels::sgemm::Major::Col.name(), "col");
    /// ```
    pub fn name(self) -> &'static str {
        match self {
            Major::Row => "row",
            Major::Col => "col",
        }
    }
}

/// The rungs of the ladder, in order.
///
/// ```
/// use tessel_kernels::sgemm::Rung;
/// assert_eq!(Rung::ALL.len(), 7);
/// assert_eq!(Rung::DoubleBuffered.name(), "double-buffered");
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Rung {
    /// One thread per element of C, straight from global memory.
    Naive,
    /// 32x32 block tiles staged through shared memory, one element per thread.
    SmemBlock,
    /// 64x64 tiles, each thread a column of 8 elements (1-D register tiling).
    Reg1d,
    /// 128x128 tiles, each thread an 8x8 register tile (2-D register tiling).
    Reg2d,
    /// Reg2d with 128-bit global loads, a transposed A tile and 128-bit shared fragment reads.
    Vectorized,
    /// Vectorized with warps owning 64x32 sub-tiles and lanes 2x2 groups of 4x4 elements.
    WarpTiled,
    /// WarpTiled with two shared stages and the next tile prefetched into registers.
    DoubleBuffered,
}

impl Rung {
    /// Every rung, bottom to top.
    pub const ALL: [Rung; 7] = [
        Rung::Naive,
        Rung::SmemBlock,
        Rung::Reg1d,
        Rung::Reg2d,
        Rung::Vectorized,
        Rung::WarpTiled,
        Rung::DoubleBuffered,
    ];

    /// The rung's short name.
    ///
    /// ```
    /// assert_eq!(tessel_kernels::sgemm::Rung::Reg2d.name(), "reg-2d");
    /// ```
    pub fn name(self) -> &'static str {
        match self {
            Rung::Naive => "naive",
            Rung::SmemBlock => "smem-block",
            Rung::Reg1d => "reg-1d",
            Rung::Reg2d => "reg-2d",
            Rung::Vectorized => "vectorized",
            Rung::WarpTiled => "warp-tiled",
            Rung::DoubleBuffered => "double-buffered",
        }
    }

    /// The rung's tiling.
    ///
    /// ```
    /// use tessel_kernels::sgemm::Rung;
    /// let t = Rung::WarpTiled.tiling();
    /// assert_eq!((t.bm, t.bn, t.bk, t.threads, t.tm, t.tn), (128, 128, 8, 256, 8, 8));
    /// ```
    pub fn tiling(self) -> Tiling {
        // Reg2d: a 16 x 16 grid of threads, thread (r, c) at rows 8r.., columns 8c.. .
        let reg2d = Tiling {
            bm: 128,
            bn: 128,
            bk: 8,
            threads: 256,
            tm: 8,
            tn: 8,
            thr_m: "(16,16):(0,8)",
            thr_n: "(16,16):(8,0)",
            val_m: "8:1",
            val_n: "8:1",
            a_transposed: false,
            vector: 1,
            frag_vector: 1,
            stages: 1,
            pad: 0,
        };
        let vectorized = Tiling {
            a_transposed: true,
            vector: 4,
            frag_vector: 4,
            pad: 4,
            ..reg2d
        };
        // Lane l = lm + 8 ln (8 x 4 lanes), warp w = wm + 2 wn (2 x 4 warps): a warp owns 64 x 32,
        // a lane rows 4 lm + {0..3} + {0, 32} and columns 4 ln + {0..3} + {0, 16} of it.
        let warp = Tiling {
            thr_m: "(8,4,2,4):(4,0,64,0)",
            thr_n: "(8,4,2,4):(0,4,0,32)",
            val_m: "(4,2):(1,32)",
            val_n: "(4,2):(1,16)",
            ..vectorized
        };
        match self {
            Rung::Naive => Tiling {
                bm: 16,
                bn: 16,
                bk: 1,
                threads: 256,
                tm: 1,
                tn: 1,
                thr_m: "(16,16):(0,1)",
                thr_n: "(16,16):(1,0)",
                val_m: "1:0",
                val_n: "1:0",
                a_transposed: false,
                vector: 1,
                frag_vector: 1,
                stages: 1,
                pad: 0,
            },
            Rung::SmemBlock => Tiling {
                bm: 32,
                bn: 32,
                bk: 32,
                threads: 1024,
                tm: 1,
                tn: 1,
                thr_m: "(32,32):(0,1)",
                thr_n: "(32,32):(1,0)",
                val_m: "1:0",
                val_n: "1:0",
                ..reg2d
            },
            Rung::Reg1d => Tiling {
                bm: 64,
                bn: 64,
                bk: 8,
                threads: 512,
                tm: 8,
                tn: 1,
                thr_m: "(64,8):(0,8)",
                thr_n: "(64,8):(1,0)",
                val_m: "8:1",
                val_n: "1:0",
                ..reg2d
            },
            Rung::Reg2d => reg2d,
            Rung::Vectorized => vectorized,
            Rung::WarpTiled => warp,
            Rung::DoubleBuffered => Tiling { stages: 2, ..warp },
        }
    }
}

impl fmt::Display for Rung {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// The tile shapes and thread arrangement of a rung (layouts in CuTe notation).
///
/// ```
/// use tessel_kernels::sgemm::Rung;
/// let t = Rung::Reg2d.tiling();
/// assert_eq!(t.thread_layouts().unwrap().0.to_string(), "(16,16):(0,8)");
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Tiling {
    /// Block tile rows.
    pub bm: i64,
    /// Block tile columns.
    pub bn: i64,
    /// K step.
    pub bk: i64,
    /// Threads per block.
    pub threads: i64,
    /// Rows per thread.
    pub tm: i64,
    /// Columns per thread.
    pub tn: i64,
    /// Thread index -> row of its first element in the block tile.
    pub thr_m: &'static str,
    /// Thread index -> column of its first element.
    pub thr_n: &'static str,
    /// Value index `0..TM` -> row offset from the thread's first row.
    pub val_m: &'static str,
    /// Value index `0..TN` -> column offset.
    pub val_n: &'static str,
    /// The A tile stored `[k][m]` (m contiguous) instead of `[m][k]`.
    pub a_transposed: bool,
    /// Elements per global load (along each operand's contiguous dimension).
    pub vector: i64,
    /// Elements per shared fragment read.
    pub frag_vector: i64,
    /// Shared stages (2: double buffering with a register prefetch).
    pub stages: i64,
    /// Elements of padding after each k-row of the transposed A tile and of the B tile (a
    /// multiple of 4 keeps 16-byte vectors aligned; 4 moves the k-rows 4 and 4 + 4 apart by 16
    /// banks, so scalar stores of two k-rows no longer collide).
    pub pad: i64,
}

impl Tiling {
    /// `(thr_m, thr_n, val_m, val_n)` parsed.
    ///
    /// ```
    /// use tessel_kernels::sgemm::Rung;
    /// let (_, _, vm, _) = Rung::WarpTiled.tiling().thread_layouts().unwrap();
    /// assert_eq!(vm.offset(4).unwrap(), 32);
    /// ```
    pub fn thread_layouts(&self) -> GpuResult<(Layout, Layout, Layout, Layout)> {
        Ok((
            parse(self.thr_m)?,
            parse(self.thr_n)?,
            parse(self.val_m)?,
            parse(self.val_n)?,
        ))
    }

    /// Shared A tile as a function of `(m, k)`: `(BM,BK):(BK,1)` or, transposed,
    /// `(BM,BK):(1,BM+pad)`.
    ///
    /// ```
    /// use tessel_kernels::sgemm::Rung;
    /// assert_eq!(Rung::Vectorized.tiling().smem_a().unwrap().to_string(), "(128,8):(1,132)");
    /// ```
    pub fn smem_a(&self) -> GpuResult<ComposedLayout> {
        let (bm, bk) = (self.bm, self.bk);
        if self.a_transposed {
            parse_composed(&format!("({bm},{bk}):(1,{})", bm + self.pad))
        } else {
            parse_composed(&format!("({bm},{bk}):({bk},1)"))
        }
    }

    /// Shared B tile as a function of `(k, n)`: `(BK,BN):(BN+pad,1)`.
    ///
    /// ```
    /// use tessel_kernels::sgemm::Rung;
    /// assert_eq!(Rung::Reg2d.tiling().smem_b().unwrap().to_string(), "(8,128):(128,1)");
    /// assert_eq!(Rung::WarpTiled.tiling().smem_b().unwrap().to_string(), "(8,128):(132,1)");
    /// ```
    pub fn smem_b(&self) -> GpuResult<ComposedLayout> {
        let (bk, bn) = (self.bk, self.bn);
        parse_composed(&format!("({bk},{bn}):({},1)", bn + self.pad))
    }
}

fn parse(text: &str) -> GpuResult<Layout> {
    text.parse()
        .map_err(|e| GpuError::InvalidArgument(format!("sgemm layout {text}: {e}")))
}

fn parse_composed(text: &str) -> GpuResult<ComposedLayout> {
    text.parse()
        .map_err(|e| GpuError::InvalidArgument(format!("sgemm layout {text}: {e}")))
}

/// How a tile is loaded from global memory: vector `j` of the tile starts at tile coordinate
/// `(first(j), second(j))` and runs along the operand's contiguous dimension.
#[derive(Clone, Debug, PartialEq)]
pub struct TileLoad {
    /// Vector index -> row coordinate in the tile (m for A, k for B).
    pub rows: Layout,
    /// Vector index -> column coordinate in the tile (k for A, n for B).
    pub cols: Layout,
    /// The vector runs along the tile's columns (A: along k; B: along n).
    pub along_cols: bool,
    /// Elements per vector.
    pub vector: i64,
    /// Vectors per thread.
    pub per_thread: i64,
}

impl TileLoad {
    /// The load of a `rows x cols` tile of an operand stored `major`, `vector` elements at a time
    /// by `threads` threads: consecutive vectors go along the contiguous dimension (coalesced).
    ///
    /// ```
    /// use tessel_kernels::sgemm::{Major, TileLoad};
    /// let l = TileLoad::new(128, 8, Major::Row, 4, 256).unwrap();
    /// assert_eq!((l.rows.to_string(), l.cols.to_string()), ("(2,128):(0,1)".into(), "(2,128):(4,0)".into()));
    /// assert!(TileLoad::new(128, 8, Major::Row, 4, 1000).is_err());
    /// ```
    pub fn new(
        rows: i64,
        cols: i64,
        major: Major,
        vector: i64,
        threads: i64,
    ) -> GpuResult<TileLoad> {
        let (along_cols, (rows_l, cols_l)) = match major {
            Major::Row => {
                let v = cols / vector;
                (
                    true,
                    (
                        format!("({v},{rows}):(0,1)"),
                        format!("({v},{rows}):({vector},0)"),
                    ),
                )
            }
            Major::Col => {
                let v = rows / vector;
                (
                    false,
                    (
                        format!("({v},{cols}):({vector},0)"),
                        format!("({v},{cols}):(0,1)"),
                    ),
                )
            }
        };
        let count = rows * cols / vector;
        let along = if along_cols { cols } else { rows };
        if along % vector != 0 || count % threads != 0 {
            return Err(GpuError::InvalidArgument(format!(
                "sgemm tile {rows}x{cols} ({} major) does not split into vectors of {vector} \
                 elements shared evenly by {threads} threads",
                major.name()
            )));
        }
        Ok(TileLoad {
            rows: parse(&rows_l)?,
            cols: parse(&cols_l)?,
            along_cols,
            vector,
            per_thread: count / threads,
        })
    }
}

/// One SGEMM launch: a rung, the problem `M x N x K` and the operands' storage orders (C is
/// row-major).
///
/// ```
/// use tessel_kernels::sgemm::{Major, Rung, SgemmPlan};
/// let p = SgemmPlan::new(Rung::Reg2d, 300, 200, 100, Major::Col, Major::Row).unwrap();
/// assert_eq!(p.grid_blocks(), 3 * 2);
/// assert!(SgemmPlan::new(Rung::Naive, 0, 1, 1, Major::Row, Major::Row).is_err());
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct SgemmPlan {
    /// The rung.
    pub rung: Rung,
    /// Rows of A and C.
    pub m: i64,
    /// Columns of B and C.
    pub n: i64,
    /// Columns of A, rows of B.
    pub k: i64,
    /// A's storage order.
    pub a_major: Major,
    /// B's storage order.
    pub b_major: Major,
    /// The rung's tiling.
    pub tiling: Tiling,
}

impl SgemmPlan {
    /// A plan; `M, N, K` in `1..=2^20`.
    ///
    /// ```
    /// use tessel_kernels::sgemm::{Major, Rung, SgemmPlan};
    /// assert!(SgemmPlan::new(Rung::Naive, 1, 1, 1 << 21, Major::Row, Major::Row).is_err());
    /// ```
    pub fn new(
        rung: Rung,
        m: i64,
        n: i64,
        k: i64,
        a_major: Major,
        b_major: Major,
    ) -> GpuResult<SgemmPlan> {
        for (name, v) in [("M", m), ("N", n), ("K", k)] {
            if !(1..=1 << 20).contains(&v) {
                return Err(GpuError::InvalidArgument(format!(
                    "sgemm: {name} = {v} is outside 1..=2^20"
                )));
            }
        }
        Ok(SgemmPlan {
            rung,
            m,
            n,
            k,
            a_major,
            b_major,
            tiling: rung.tiling(),
        })
    }

    /// Block tiles along M and N.
    ///
    /// ```
    /// use tessel_kernels::sgemm::{Major, Rung, SgemmPlan};
    /// let p = SgemmPlan::new(Rung::SmemBlock, 33, 64, 1, Major::Row, Major::Row).unwrap();
    /// assert_eq!(p.tiles(), (2, 2));
    /// ```
    pub fn tiles(&self) -> (i64, i64) {
        let t = &self.tiling;
        ((self.m + t.bm - 1) / t.bm, (self.n + t.bn - 1) / t.bn)
    }

    /// Blocks per launch.
    ///
    /// ```
    /// use tessel_kernels::sgemm::{Major, Rung, SgemmPlan};
    /// assert_eq!(SgemmPlan::new(Rung::Naive, 16, 17, 1, Major::Row, Major::Row).unwrap().grid_blocks(), 2);
    /// ```
    pub fn grid_blocks(&self) -> i64 {
        let (a, b) = self.tiles();
        a * b
    }

    /// The floating-point operations of one launch, `2 M N K`.
    ///
    /// ```
    /// use tessel_kernels::sgemm::{Major, Rung, SgemmPlan};
    /// assert_eq!(SgemmPlan::new(Rung::Naive, 2, 3, 4, Major::Row, Major::Row).unwrap().flops(), 48.0);
    /// ```
    pub fn flops(&self) -> f64 {
        2.0 * self.m as f64 * self.n as f64 * self.k as f64
    }

    /// The global loads of the A (`BM x BK`) and B (`BK x BN`) tiles.
    ///
    /// ```
    /// use tessel_kernels::sgemm::{Major, Rung, SgemmPlan};
    /// let p = SgemmPlan::new(Rung::Vectorized, 64, 64, 64, Major::Row, Major::Col).unwrap();
    /// let (a, b) = p.tile_loads().unwrap();
    /// assert!(a.along_cols && !b.along_cols && a.vector == 4);
    /// ```
    pub fn tile_loads(&self) -> GpuResult<(TileLoad, TileLoad)> {
        let t = &self.tiling;
        Ok((
            TileLoad::new(t.bm, t.bk, self.a_major, t.vector, t.threads)?,
            TileLoad::new(t.bk, t.bn, self.b_major, t.vector, t.threads)?,
        ))
    }

    /// The kernel of this launch, its layouts emitted as pieces. Checks on the host that every
    /// shared vector access (fragment reads, vector stores) is aligned and contiguous.
    ///
    /// ```
    /// use tessel_kernels::sgemm::{Major, Rung, SgemmPlan};
    /// let k = SgemmPlan::new(Rung::Naive, 5, 6, 7, Major::Row, Major::Col).unwrap().kernel().unwrap();
    /// assert!(k.source().contains("sgemm_naive"));
    /// ```
    pub fn kernel(&self) -> GpuResult<Kernel> {
        let t = &self.tiling;
        let (tiles_m, tiles_n) = self.tiles();
        let (thr_m, thr_n, val_m, val_n) = t.thread_layouts()?;
        let name = format!("sgemm_{}", self.rung.name().replace('-', "_"));
        let comment = format!(
            "SGEMM rung {}: C({}x{}, row) = A({}x{}, {}) B({}x{}, {})",
            self.rung,
            self.m,
            self.n,
            self.m,
            self.k,
            self.a_major.name(),
            self.k,
            self.n,
            self.b_major.name()
        );
        let body = if self.rung == Rung::Naive {
            NAIVE_BODY
        } else {
            TILED_BODY
        };
        let mut b = KernelBuilder::new(&name, body)
            .comment(&comment)
            .int("M", self.m)
            .int("N", self.n)
            .int("K", self.k)
            .index_layout(
                "blk_m",
                &parse(&format!("({tiles_m},{tiles_n}):({},0)", t.bm))?,
            )
            .index_layout(
                "blk_n",
                &parse(&format!("({tiles_m},{tiles_n}):(0,{})", t.bn))?,
            )
            .index_layout("thr_m", &thr_m)
            .index_layout("thr_n", &thr_n)
            .coord_layout("ga", &self.a_major.layout(self.m, self.k)?)
            .coord_layout("gb", &self.b_major.layout(self.k, self.n)?)
            .coord_layout("gc", &Major::Row.layout(self.m, self.n)?)
            .param(Param::input("a", Elem::Type(CType::F32)).len((self.m * self.k) as usize))
            .param(Param::input("b", Elem::Type(CType::F32)).len((self.k * self.n) as usize))
            .param(Param::output("c", Elem::Type(CType::F32)).len((self.m * self.n) as usize))
            .threads(t.threads as u32)
            .grid(self.grid_blocks() as u32, 1, 1);
        if self.rung != Rung::Naive {
            let (la, lb) = self.tile_loads()?;
            let (sa, sb) = (t.smem_a()?, t.smem_b()?);
            let a_ld = match self.a_major {
                Major::Row => self.k,
                Major::Col => self.m,
            };
            let b_ld = match self.b_major {
                Major::Row => self.n,
                Major::Col => self.k,
            };
            let (a_st_vec, b_st_vec) = self.store_vectors()?;
            self.check_fragments(&sa, &sb)?;
            b = b
                .int("NT", t.threads)
                .int("BK", t.bk)
                .int("TM", t.tm)
                .int("TN", t.tn)
                .int("STAGES", t.stages)
                .int("SA_SIZE", sa.layout().cosize())
                .int("SB_SIZE", sb.layout().cosize())
                .int("LA", la.per_thread)
                .int("LB", lb.per_thread)
                .int("VA", la.vector)
                .int("VB", lb.vector)
                .int("VSA", t.frag_vector)
                .int("VSB", t.frag_vector)
                .int("A_ALONG_K", la.along_cols as i64)
                .int("B_ALONG_N", lb.along_cols as i64)
                .int("A_VEC_OK", (a_ld % la.vector == 0) as i64)
                .int("B_VEC_OK", (b_ld % lb.vector == 0) as i64)
                .int("A_ST_VEC", a_st_vec as i64)
                .int("B_ST_VEC", b_st_vec as i64)
                .index_layout("val_m", &val_m)
                .index_layout("val_n", &val_n)
                .index_layout("lda_m", &la.rows)
                .index_layout("lda_k", &la.cols)
                .index_layout("ldb_k", &lb.rows)
                .index_layout("ldb_n", &lb.cols)
                .composed_layout("sa", &sa)
                .composed_layout("sb", &sb)
                .device_fn("vload", VECTOR_FNS)
                .device_fn("vstore_shared", VSTORE_FNS)
                .device_fn("vstore_global", VSTORE_GLOBAL_FNS)
                .int("VC", self.c_vector()?);
        }
        b.build()
    }

    /// Columns of C written per store in the epilogue: 4 (one `st.global.v4`) when every
    /// thread's columns come in aligned groups of 4 consecutive ones (`val_n` and `thr_n`
    /// checked here) and `N % 4 == 0` (rows of C start 16-byte aligned), else 1.
    ///
    /// ```
    /// use tessel_kernels::sgemm::{Major, Rung, SgemmPlan};
    /// let at = |rung, n| SgemmPlan::new(rung, 64, n, 64, Major::Row, Major::Row).unwrap().c_vector().unwrap();
    /// assert_eq!((at(Rung::WarpTiled, 512), at(Rung::WarpTiled, 129), at(Rung::Reg2d, 512)), (4, 1, 1));
    /// ```
    pub fn c_vector(&self) -> GpuResult<i64> {
        let t = &self.tiling;
        if t.frag_vector != 4 || t.tn % 4 != 0 || self.n % 4 != 0 {
            return Ok(1);
        }
        let (_, thr_n, _, val_n) = t.thread_layouts()?;
        for th in 0..t.threads {
            for j in (0..t.tn).step_by(4) {
                let first = eval(&thr_n, th)? + eval(&val_n, j)?;
                for e in 1..4 {
                    if eval(&thr_n, th)? + eval(&val_n, j + e)? != first + e || first % 4 != 0 {
                        return Ok(1);
                    }
                }
            }
        }
        Ok(4)
    }

    /// Whether the A and B tiles are stored to shared memory one vector per instruction (every
    /// vector of the global load lands contiguous and aligned in the shared tile).
    pub(crate) fn store_vectors(&self) -> GpuResult<(bool, bool)> {
        let t = &self.tiling;
        let (la, lb) = self.tile_loads()?;
        Ok((
            self.vector_store_ok(&la, &t.smem_a()?, t.bm)?,
            self.vector_store_ok(&lb, &t.smem_b()?, t.bk)?,
        ))
    }

    /// Whether every vector of `load` lands contiguous and aligned in `smem` (then it is stored
    /// with one `st.shared` of `vector * 4` bytes).
    fn vector_store_ok(
        &self,
        load: &TileLoad,
        smem: &ComposedLayout,
        rows: i64,
    ) -> GpuResult<bool> {
        if load.vector == 1 {
            return Ok(false);
        }
        let total = load.per_thread * self.tiling.threads;
        for j in 0..total {
            let (r, c) = (eval(&load.rows, j)?, eval(&load.cols, j)?);
            let first = smem_offset(smem, rows, r, c)?;
            if first % load.vector != 0 {
                return Ok(false);
            }
            for e in 1..load.vector {
                let (r2, c2) = if load.along_cols {
                    (r, c + e)
                } else {
                    (r + e, c)
                };
                if smem_offset(smem, rows, r2, c2)? != first + e {
                    return Ok(false);
                }
            }
        }
        Ok(true)
    }

    /// Every thread's fragment vectors must be contiguous and aligned in the shared tiles.
    fn check_fragments(&self, sa: &ComposedLayout, sb: &ComposedLayout) -> GpuResult<()> {
        let t = &self.tiling;
        let (thr_m, thr_n, val_m, val_n) = t.thread_layouts()?;
        let w = t.frag_vector;
        if t.tm % w != 0 || t.tn % w != 0 {
            return Err(GpuError::InvalidArgument(format!(
                "sgemm {}: thread tile {}x{} not a multiple of the fragment vector {w}",
                self.rung, t.tm, t.tn
            )));
        }
        for th in 0..t.threads {
            for kk in 0..t.bk {
                for (is_a, count, thr, val) in
                    [(true, t.tm, &thr_m, &val_m), (false, t.tn, &thr_n, &val_n)]
                {
                    for i in (0..count).step_by(w as usize) {
                        let base = eval(thr, th)? + eval(val, i)?;
                        let at = |e: i64| -> GpuResult<i64> {
                            let x = eval(thr, th)? + eval(val, i + e)?;
                            if is_a {
                                smem_offset(sa, t.bm, x, kk)
                            } else {
                                smem_offset(sb, t.bk, kk, x)
                            }
                        };
                        let first = at(0)?;
                        let bad = first % w != 0 || (1..w).any(|e| at(e).ok() != Some(first + e));
                        if bad {
                            return Err(GpuError::InvalidArgument(format!(
                                "sgemm {}: thread {th}'s {} fragment at {base} is not {w} contiguous aligned elements",
                                self.rung,
                                if is_a { "A" } else { "B" }
                            )));
                        }
                    }
                }
            }
        }
        Ok(())
    }
}

fn lay_err(e: tessel_layout::Error) -> GpuError {
    GpuError::InvalidArgument(format!("sgemm: {e}"))
}

/// `layout(i)`.
pub(crate) fn eval(layout: &Layout, i: i64) -> GpuResult<i64> {
    layout.offset(i).map_err(lay_err)
}

/// The element offset of tile coordinate `(r, c)` in a shared layout of shape `(R, C)`.
pub(crate) fn smem_offset(smem: &ComposedLayout, rows: i64, r: i64, c: i64) -> GpuResult<i64> {
    smem.offset(r + rows * c).map_err(lay_err)
}
