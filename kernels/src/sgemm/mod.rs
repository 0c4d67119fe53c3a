//! The SIMT SGEMM ladder: fp32 `C = A B` on CUDA cores, one rung per classic optimisation, every
//! rung a declaration of the tensor layer.
//!
//! A rung ([`Rung`]) fixes a [`Tiling`]: the block tile `BM x BN` marched along K in `BK` steps,
//! the thread count, the tiled FMA that gives each thread its elements of C (CuTe's
//! `make_tiled_mma` of `UniversalFMA` with permuted M and N modes: for the warp-tiled rungs a
//! lane's 8 rows are two groups of 4 half a warp tile apart), the shared tiles of A (stored
//! K-major `[m][k]` or transposed `[k][m]`) and B, the vector widths of the global loads and of
//! the shared fragment reads, and the pipeline. [`SgemmPlan`] adds the problem (`M`, `N`, `K`
//! and a [`Major`] per operand; C is row-major) and declares its kernel ([`decl`]): tiled
//! copies global -> registers -> shared -> fragments, the tiled FMA, the epilogue, and the
//! predicates of a problem that is not whole tiles, all partitioned and checked on the host. The
//! bodies are `kernels/cuda/sgemm_naive.cu` ([`Rung::Naive`]), `sgemm_tiled.cu` (one shared
//! stage) and `sgemm_double_buffered.cu` (two stages, the next tile prefetched into registers).
//! Any `M, N, K >= 1` works.
//!
//! [`host`] is the CPU reference and its tolerance, [`bank`] the bank-model prediction of every
//! rung's shared accesses, [`run`] the GPU measurement against cuBLAS.
//!
//! ```
//! use tessel_kernels::sgemm::{Major, Rung, SgemmPlan};
//! let plan = SgemmPlan::new(Rung::Vectorized, 257, 129, 67, Major::Row, Major::Row).unwrap();
//! let kernel = plan.kernel().unwrap();
//! assert!(kernel.source().contains("namespace tensor {"));
//! assert_eq!(kernel.launch().block, (256, 1, 1));
//! ```

pub mod bank;
pub mod decl;
pub mod host;
pub mod run;
mod tiling;

use std::fmt;

use tessel_layout::Layout;

use crate::error::{GpuError, GpuResult};
use crate::kernel::{CType, Elem, Kernel, KernelBuilder, Param};

pub use tiling::{TUNED, Tiling, WarpTiling};

/// The body of [`Rung::Naive`].
pub const NAIVE_BODY: &str = include_str!("../../cuda/sgemm_naive.cu");
/// The body of the rungs with one shared stage.
pub const TILED_BODY: &str = include_str!("../../cuda/sgemm_tiled.cu");
/// The body of the rungs with two shared stages and a register prefetch.
pub const DOUBLE_BUFFERED_BODY: &str = include_str!("../../cuda/sgemm_double_buffered.cu");

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
/// assert_eq!(Rung::ALL.len(), 8);
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
    /// The top rung: the fastest [`WarpTiling`] of `kernels/examples/sgemm_sweep.rs` on an H100
    /// that keeps two blocks per SM by its launch bound ([`TUNED`]): double-buffered as the rung
    /// below, with BK = 16, lanes interleaved by 2 (every fragment read 2 wavefronts), an
    /// unpadded B tile, every bounds check compiled out for whole tiles.
    Tuned,
}

impl Rung {
    /// Every rung, bottom to top.
    pub const ALL: [Rung; 8] = [
        Rung::Naive,
        Rung::SmemBlock,
        Rung::Reg1d,
        Rung::Reg2d,
        Rung::Vectorized,
        Rung::WarpTiled,
        Rung::DoubleBuffered,
        Rung::Tuned,
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
            Rung::Tuned => "tuned",
        }
    }

    /// The rung's tiling.
    ///
    /// ```
    /// use tessel_kernels::sgemm::Rung;
    /// let t = Rung::WarpTiled.tiling();
    /// assert_eq!((t.bm, t.bn, t.bk, t.threads, t.tm(), t.tn()), (128, 128, 8, 256, 8, 8));
    /// ```
    pub fn tiling(self) -> Tiling {
        // The warp-tiled rungs: 2 x 4 warps of 8 x 4 lanes, BK 8, pads 4 and 4, no launch bound.
        let warp = WarpTiling {
            bk: 8,
            stages: 1,
            pad: 4,
            pad_b: 4,
            min_blocks: None,
            lane_interleave: 1,
            ..WarpTiling::TUNED
        };
        let checked = |w: WarpTiling| Tiling {
            unchecked_whole_tiles: false,
            ..w.tiling()
                .expect("the ladder's warp tilings fit their block tiles")
        };
        match self {
            Rung::Naive => Tiling::naive(),
            Rung::SmemBlock => Tiling::smem_block(),
            Rung::Reg1d => Tiling::reg_1d(),
            Rung::Reg2d => Tiling::reg_2d(),
            Rung::Vectorized => Tiling {
                a_transposed: true,
                vector: 4,
                frag_vector: 4,
                pad: 4,
                pad_b: 4,
                ..Tiling::reg_2d()
            },
            Rung::WarpTiled => checked(warp),
            Rung::DoubleBuffered => checked(WarpTiling { stages: 2, ..warp }),
            Rung::Tuned => TUNED
                .tiling()
                .expect("the tuned tiling fits its block tile"),
        }
    }
}

impl fmt::Display for Rung {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
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

    /// A plan of `rung`'s kernel with another tiling (a candidate of a sweep); the tiling must
    /// give every thread the same number of load vectors, which [`kernel`](Self::kernel) checks.
    ///
    /// ```
    /// use tessel_kernels::sgemm::{Major, Rung, SgemmPlan, WarpTiling};
    /// let t = WarpTiling { bk: 8, ..WarpTiling::TUNED }.tiling().unwrap();
    /// let p = SgemmPlan::with_tiling(Rung::Tuned, t, 512, 512, 512, Major::Row, Major::Row).unwrap();
    /// assert_eq!(p.tiling.bk, 8);
    /// assert!(p.kernel().is_ok());
    /// ```
    pub fn with_tiling(
        rung: Rung,
        tiling: Tiling,
        m: i64,
        n: i64,
        k: i64,
        a_major: Major,
        b_major: Major,
    ) -> GpuResult<SgemmPlan> {
        if rung == Rung::Naive || tiling.threads % 32 != 0 || tiling.threads > 1024 {
            return Err(GpuError::InvalidArgument(format!(
                "sgemm: a custom tiling needs a tiled rung and a whole number of warps (at most \
                 1024 threads), not {rung} with {} threads",
                tiling.threads
            )));
        }
        let mut plan = SgemmPlan::new(rung, m, n, k, a_major, b_major)?;
        plan.tiling = tiling;
        Ok(plan)
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

    /// The kernel of this launch: its [`declare`](Self::declare)d tensors, copies and tiled
    /// FMA over the rung's body.
    ///
    /// ```
    /// use tessel_kernels::sgemm::{Major, Rung, SgemmPlan};
    /// let k = SgemmPlan::new(Rung::Naive, 5, 6, 7, Major::Row, Major::Col).unwrap().kernel().unwrap();
    /// assert!(k.source().contains("sgemm_naive"));
    /// ```
    pub fn kernel(&self) -> GpuResult<Kernel> {
        let t = &self.tiling;
        let (tiles_m, tiles_n) = self.tiles();
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
        let body = match (self.rung, t.stages) {
            (Rung::Naive, _) => NAIVE_BODY,
            (_, 1) => TILED_BODY,
            (_, 2) => DOUBLE_BUFFERED_BODY,
            (_, s) => {
                return Err(GpuError::InvalidArgument(format!(
                    "sgemm {}: {s} shared stages (1 or 2)",
                    self.rung
                )));
            }
        };
        let declaration = self.declare()?;
        if let decl::Mainloop::Staged { a, b } = &declaration.mainloop {
            let bytes = 4 * (a.smem.cosize()? + b.smem.cosize()?);
            if bytes > 48 * 1024 {
                return Err(GpuError::InvalidArgument(format!(
                    "sgemm {}: {} stages of the A and B tiles take {bytes} bytes of shared \
                     memory, over the 48 KiB of a block's static shared memory",
                    self.rung, t.stages
                )));
            }
        }
        let b = KernelBuilder::new(&name, body)
            .comment(&comment)
            // The block's tile of C: tiles_m along M first (blockIdx.x = tile_m + tiles_m tile_n).
            .index_layout("tile_m", &parse(&format!("({tiles_m},{tiles_n}):(1,0)"))?)
            .index_layout("tile_n", &parse(&format!("({tiles_m},{tiles_n}):(0,1)"))?)
            // The bounds the coordinate tensors are compared with (tessel::elem_less).
            .long("M", self.m)
            .long("N", self.n)
            .param(Param::input("a", Elem::Type(CType::F32)).len((self.m * self.k) as usize))
            .param(Param::input("b", Elem::Type(CType::F32)).len((self.k * self.n) as usize))
            .param(Param::output("c", Elem::Type(CType::F32)).len((self.m * self.n) as usize))
            .threads(t.threads as u32)
            .min_blocks(t.min_blocks)
            .grid(self.grid_blocks() as u32, 1, 1);
        // K bounds the staged loads only (the naive rung's loop runs over the k-tiles of A).
        let b = match declaration.mainloop {
            decl::Mainloop::Staged { .. } => b.long("K", self.k),
            decl::Mainloop::Direct { .. } => b,
        };
        declaration.add_to(b).build()
    }

    /// The leading dimensions of A and B: the distance between consecutive rows (row-major) or
    /// columns (column-major).
    fn leading_dims(&self) -> (i64, i64) {
        let a_ld = match self.a_major {
            Major::Row => self.k,
            Major::Col => self.m,
        };
        let b_ld = match self.b_major {
            Major::Row => self.n,
            Major::Col => self.k,
        };
        (a_ld, b_ld)
    }

    /// Whether the problem is a whole number of block tiles and K steps with every global vector
    /// aligned: then a tiling with [`Tiling::unchecked_whole_tiles`] declares its predicates
    /// proven true (and the kernel has no bounds checks).
    ///
    /// ```
    /// use tessel_kernels::sgemm::{Major, Rung, SgemmPlan};
    /// let even = |m, n, k| SgemmPlan::new(Rung::Tuned, m, n, k, Major::Row, Major::Row).unwrap().even();
    /// assert!(even(512, 256, 64) && !even(512, 256, 65) && !even(500, 256, 64));
    /// ```
    pub fn even(&self) -> bool {
        let t = &self.tiling;
        let (a_ld, b_ld) = self.leading_dims();
        self.rung != Rung::Naive
            && self.m % t.bm == 0
            && self.n % t.bn == 0
            && self.k % t.bk == 0
            && a_ld % t.vector == 0
            && b_ld % t.vector == 0
    }

    /// Columns of C written per store in the epilogue: 4 (one `st.global.v4`) from the
    /// vectorized rung up where the host proves every thread's columns in aligned groups of 4
    /// consecutive ones (`N % 4 == 0` keeps the rows of C 16-byte aligned), else 1.
    ///
    /// ```
    /// use tessel_kernels::sgemm::{Major, Rung, SgemmPlan};
    /// let at = |rung, n| SgemmPlan::new(rung, 64, n, 64, Major::Row, Major::Row).unwrap().c_vector().unwrap();
    /// assert_eq!((at(Rung::WarpTiled, 512), at(Rung::WarpTiled, 129), at(Rung::Reg2d, 512)), (4, 1, 1));
    /// ```
    pub fn c_vector(&self) -> GpuResult<i64> {
        let d = self.declare()?;
        Ok(d.store_c.value_bits() * d.global_c.extents()[1] / 32)
    }
}

/// A layout parsed, as a [`GpuError`].
pub(crate) fn parse(text: &str) -> GpuResult<Layout> {
    text.parse()
        .map_err(|e| GpuError::InvalidArgument(format!("sgemm layout {text}: {e}")))
}
