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

use std::borrow::Cow;
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

/// `cp.async` (SM80+) of 4 or 16 bytes with a source size (0 zero-fills); its commit and wait
/// are `tessel.cuh`'s `tessel_cp_async_commit` / `tessel_cp_async_wait`.
const CP_ASYNC_FNS: &str = r#"template <int B> __device__ __forceinline__ void cp_async(float* dst, const float* src, int src_bytes);
template <> __device__ __forceinline__ void cp_async<16>(float* dst, const float* src, int src_bytes) {
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;" ::"r"((unsigned)__cvta_generic_to_shared(dst)),
               "l"(src), "r"(src_bytes) : "memory");
}
template <> __device__ __forceinline__ void cp_async<4>(float* dst, const float* src, int src_bytes) {
  asm volatile("cp.async.ca.shared.global [%0], [%1], 4, %2;" ::"r"((unsigned)__cvta_generic_to_shared(dst)),
               "l"(src), "r"(src_bytes) : "memory");
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
            thr_m: "(16,16):(0,8)".into(),
            thr_n: "(16,16):(8,0)".into(),
            val_m: "8:1".into(),
            val_n: "8:1".into(),
            a_transposed: false,
            vector: 1,
            frag_vector: 1,
            stages: 1,
            pad: 0,
            pad_b: 0,
            a_swizzle: None,
            b_swizzle: None,
            min_blocks: None,
            async_copy: false,
            b_async: false,
            unchecked_whole_tiles: false,
            a_run: 0,
            frag_prefetch: false,
            split_loads: false,
        };
        let vectorized = Tiling {
            a_transposed: true,
            vector: 4,
            frag_vector: 4,
            pad: 4,
            pad_b: 4,
            ..reg2d.clone()
        };
        // Lane l = lm + 8 ln (8 x 4 lanes), warp w = wm + 2 wn (2 x 4 warps): a warp owns 64 x 32,
        // a lane rows 4 lm + {0..3} + {0, 32} and columns 4 ln + {0..3} + {0, 16} of it.
        let warp = Tiling {
            thr_m: "(8,4,2,4):(4,0,64,0)".into(),
            thr_n: "(8,4,2,4):(0,4,0,32)".into(),
            val_m: "(4,2):(1,32)".into(),
            val_n: "(4,2):(1,16)".into(),
            ..vectorized.clone()
        };
        match self {
            Rung::Naive => Tiling {
                bm: 16,
                bn: 16,
                bk: 1,
                threads: 256,
                tm: 1,
                tn: 1,
                thr_m: "(16,16):(0,1)".into(),
                thr_n: "(16,16):(1,0)".into(),
                val_m: "1:0".into(),
                val_n: "1:0".into(),
                ..reg2d
            },
            Rung::SmemBlock => Tiling {
                bm: 32,
                bn: 32,
                bk: 32,
                threads: 1024,
                tm: 1,
                tn: 1,
                thr_m: "(32,32):(0,1)".into(),
                thr_n: "(32,32):(1,0)".into(),
                val_m: "1:0".into(),
                val_n: "1:0".into(),
                ..reg2d
            },
            Rung::Reg1d => Tiling {
                bm: 64,
                bn: 64,
                bk: 8,
                threads: 512,
                tm: 8,
                tn: 1,
                thr_m: "(64,8):(0,8)".into(),
                thr_n: "(64,8):(1,0)".into(),
                val_m: "8:1".into(),
                val_n: "1:0".into(),
                ..reg2d
            },
            Rung::Reg2d => reg2d,
            Rung::Vectorized => vectorized,
            Rung::WarpTiled => warp,
            Rung::DoubleBuffered => Tiling { stages: 2, ..warp },
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

/// The tile shapes and thread arrangement of a rung (layouts in CuTe notation).
///
/// ```
/// use tessel_kernels::sgemm::Rung;
/// let t = Rung::Reg2d.tiling();
/// assert_eq!(t.thread_layouts().unwrap().0.to_string(), "(16,16):(0,8)");
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
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
    pub thr_m: Cow<'static, str>,
    /// Thread index -> column of its first element.
    pub thr_n: Cow<'static, str>,
    /// Value index `0..TM` -> row offset from the thread's first row.
    pub val_m: Cow<'static, str>,
    /// Value index `0..TN` -> column offset.
    pub val_n: Cow<'static, str>,
    /// The A tile stored `[k][m]` (m contiguous) instead of `[m][k]`.
    pub a_transposed: bool,
    /// Elements per global load (along each operand's contiguous dimension).
    pub vector: i64,
    /// Elements per shared fragment read.
    pub frag_vector: i64,
    /// Shared stages (2: double buffering with a register prefetch).
    pub stages: i64,
    /// Elements of padding after each k-row of the transposed A tile (a multiple of 4 keeps
    /// 16-byte vectors aligned; 4 moves the k-rows 4 and 4 + 4 apart by 16 banks, so scalar
    /// stores of two k-rows no longer collide).
    pub pad: i64,
    /// Elements of padding after each k-row of the B tile.
    pub pad_b: i64,
    /// `Some((B, M, S))`: the A tile is `Sw<B,M,S> o` its layout (CuTe's `Swizzle<B,M,S>`: bits
    /// `[M, M+B)` of an offset XOR bits `[M+S, M+S+B)`), instead of (or besides) padding.
    pub a_swizzle: Option<(i64, i64, i64)>,
    /// `Some((B, M, S))`: the B tile is `Sw<B,M,S> o` its layout.
    pub b_swizzle: Option<(i64, i64, i64)>,
    /// Minimum resident blocks per SM asked of ptxas (`__launch_bounds__(threads, B)`).
    pub min_blocks: Option<i64>,
    /// Fill the shared stages with `cp.async` (SM80+) straight from global memory, `stages`
    /// (2 to 8) deep, instead of through registers.
    pub async_copy: bool,
    /// With two register-prefetched stages (`stages == 2`, no `async_copy`): the B tile goes by
    /// `cp.async` straight into the next stage, only A through registers.
    pub b_async: bool,
    /// Compile the bounds checks out when the problem is whole tiles with aligned vectors
    /// ([`SgemmPlan::even`]). Off for the ladder's rungs up to double-buffered: on an H100 it
    /// cost `vectorized` and `warp-tiled` (no launch bound, one shared stage) a third of their
    /// speed (docs/performance.md).
    pub unchecked_whole_tiles: bool,
    /// Vectors of a row-major A's tile row that consecutive load vectors take before moving to
    /// the next row (0: the whole row, `BK / vector`). With BK = 16 and 128-bit loads, 2 makes a
    /// warp load 16 rows x 32 bytes (whole sectors) whose scalar stores into the padded
    /// transposed tile hit 32 distinct banks, where whole rows (8 rows x 64 bytes) put two k-rows
    /// 8 apart in the same bank ([`TileLoad::with_run`], `kernels/tests/sgemm_plans.rs`).
    pub a_run: i64,
    /// With two register-prefetched stages (`stages == 2`, no `async_copy`, even BK): the thread
    /// keeps two fragment buffers, reads the fragments of k-slice `kk + 1` before the outer
    /// product of `kk`, and at the last slice stores the next tile, waits at the barrier and
    /// reads slice 0 of the next stage before its last outer product.
    pub frag_prefetch: bool,
    /// With two register-prefetched stages (`stages == 2`, no `async_copy`, no `b_async`): the
    /// next tile's A is loaded before the first half of the k-slices and stored after it, then
    /// its B is loaded and stored after the second half, so the two operands' prefetch
    /// registers are never live at once.
    pub split_loads: bool,
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
            parse(&self.thr_m)?,
            parse(&self.thr_n)?,
            parse(&self.val_m)?,
            parse(&self.val_n)?,
        ))
    }

    /// Shared A tile as a function of `(m, k)`: `(BM,BK):(BK,1)` or, transposed,
    /// `(BM,BK):(1,BM+pad)`, composed with `Sw<B,M,S>` when [`a_swizzle`](Self::a_swizzle) is set.
    ///
    /// ```
    /// use tessel_kernels::sgemm::{Rung, WarpTiling};
    /// assert_eq!(Rung::Vectorized.tiling().smem_a().unwrap().to_string(), "(128,8):(1,132)");
    /// assert_eq!(Rung::Tuned.tiling().smem_a().unwrap().to_string(), "(128,16):(1,132)");
    /// let sw = WarpTiling { swizzle: true, pad: 0, ..WarpTiling::TUNED }.tiling().unwrap();
    /// assert_eq!(sw.smem_a().unwrap().to_string(), "Sw<2,3,6> o (128,16):(1,128)");
    /// ```
    pub fn smem_a(&self) -> GpuResult<ComposedLayout> {
        let (bm, bk) = (self.bm, self.bk);
        let inner = if self.a_transposed {
            format!("({bm},{bk}):(1,{})", bm + self.pad)
        } else {
            format!("({bm},{bk}):({bk},1)")
        };
        match self.a_swizzle {
            Some((b, m, s)) => parse_composed(&format!("Sw<{b},{m},{s}> o {inner}")),
            None => parse_composed(&inner),
        }
    }

    /// Shared B tile as a function of `(k, n)`: `(BK,BN):(BN+pad_b,1)`, composed with `Sw<B,M,S>`
    /// when [`b_swizzle`](Self::b_swizzle) is set.
    ///
    /// ```
    /// use tessel_kernels::sgemm::Rung;
    /// assert_eq!(Rung::Reg2d.tiling().smem_b().unwrap().to_string(), "(8,128):(128,1)");
    /// assert_eq!(Rung::WarpTiled.tiling().smem_b().unwrap().to_string(), "(8,128):(132,1)");
    /// ```
    pub fn smem_b(&self) -> GpuResult<ComposedLayout> {
        let (bk, bn) = (self.bk, self.bn);
        let inner = format!("({bk},{bn}):({},1)", bn + self.pad_b);
        match self.b_swizzle {
            Some((b, m, s)) => parse_composed(&format!("Sw<{b},{m},{s}> o {inner}")),
            None => parse_composed(&inner),
        }
    }
}

/// A warp-tiled [`Tiling`] given by numbers: `warps_m x warps_n` warps each own a
/// `BM / warps_m x BN / warps_n` warp tile; its `lanes_m x (32 / lanes_m)` lanes (lane
/// `l = lm + lanes_m ln`) each own `TM / 4 x TN / 4` groups of `4 x 4` elements, lane `lm`'s rows
/// `4 lm + {0..3}` repeated every `4 lanes_m` rows (columns likewise). Every fragment read is
/// one 128-bit shared load. The A tile is transposed (`[k][m]`); with `swizzle` the A and B tiles
/// are XOR-swizzled ([`WarpTiling::a_swizzle`], [`WarpTiling::b_swizzle`]) so that the scalar
/// stores of a row-major A (a column-major B) do not collide.
///
/// ```
/// use tessel_kernels::sgemm::{Rung, Tiling, WarpTiling};
/// let w = WarpTiling { bk: 8, stages: 1, async_copy: false, swizzle: false, swizzle_b: false, pad: 4, pad_b: 4,
///     min_blocks: None, lane_interleave: 1, a_run: 0, frag_prefetch: false, split_loads: false,
///     ..WarpTiling::TUNED };
/// // The warp-tiled rung is this tiling (which keeps its bounds checks).
/// let t = Tiling { unchecked_whole_tiles: false, ..w.tiling().unwrap() };
/// assert_eq!(t, Rung::WarpTiled.tiling());
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct WarpTiling {
    /// Block tile rows.
    pub bm: i64,
    /// Block tile columns.
    pub bn: i64,
    /// K step.
    pub bk: i64,
    /// Warps along M.
    pub warps_m: i64,
    /// Warps along N.
    pub warps_n: i64,
    /// Lanes along M (`32 / lanes_m` along N).
    pub lanes_m: i64,
    /// Rows per thread (a multiple of 4).
    pub tm: i64,
    /// Columns per thread (a multiple of 4).
    pub tn: i64,
    /// Shared stages (1 or 2).
    pub stages: i64,
    /// XOR-swizzle the A tile.
    pub swizzle: bool,
    /// XOR-swizzle the B tile.
    pub swizzle_b: bool,
    /// Padding after each k-row of the A tile.
    pub pad: i64,
    /// Padding after each k-row of the B tile.
    pub pad_b: i64,
    /// `__launch_bounds__` minimum blocks per SM.
    pub min_blocks: Option<i64>,
    /// `cp.async` stages ([`Tiling::async_copy`]).
    pub async_copy: bool,
    /// B by `cp.async` in the register-prefetch pipeline ([`Tiling::b_async`]).
    pub b_async: bool,
    /// Lanes interleaved along N within the warp: `1` numbers the lanes `l = lm + lanes_m ln`;
    /// `I > 1` numbers them `l = (ln % I) + I lm + I lanes_m (ln / I)`, so every 4-lane group
    /// holds `4 / I` rows and `I` columns of lanes. With `I = 2` and `8 x 4` lanes a half-warp
    /// asks for 8 A vectors and 2 B vectors, each 4-lane group for 2 of each: both fragment
    /// reads pack into one wavefront per half-warp (2 per `lds.128` instead of 4 for A;
    /// docs/bank-model.md).
    pub lane_interleave: i64,
    /// [`Tiling::a_run`].
    pub a_run: i64,
    /// [`Tiling::frag_prefetch`].
    pub frag_prefetch: bool,
    /// [`Tiling::split_loads`].
    pub split_loads: bool,
}

/// The top rung's tiling ([`Rung::Tuned`]).
pub const TUNED: WarpTiling = WarpTiling::TUNED;

impl WarpTiling {
    /// The top rung: 128 x 128 x 16 blocks of 2 x 4 warps of 8 x 4 lanes, 8 x 8 per thread,
    /// two stages with the next tile prefetched into registers, the transposed A tile padded by
    /// 4 elements per k-row, B unpadded, two blocks per SM (at most 128 registers a thread). The
    /// fastest candidate of `kernels/examples/sgemm_sweep.rs` on an H100 with that launch bound
    /// (docs/performance.md). Its lanes are interleaved by 2 ([`lane_interleave`](Self::lane_interleave)):
    /// a 4-lane group holds 2 rows and 2 columns of lanes, so both fragment reads take 2
    /// wavefronts a warp instead of 4 for A (0.883x -> 0.924x cuBLAS at 4096^3). The swizzled,
    /// `cp.async`, fragment-prefetch and A-load-run candidates came out slower; without the launch
    /// bound the A-load-run one was faster, by the one register the JIT has to spare.
    ///
    /// ```
    /// let t = tessel_kernels::sgemm::WarpTiling::TUNED;
    /// assert_eq!((t.bm, t.bn, t.bk, t.threads(), t.stages, t.pad), (128, 128, 16, 256, 2, 4));
    /// assert_eq!((t.lane_interleave, t.a_run, t.min_blocks), (2, 0, Some(2)));
    /// ```
    pub const TUNED: WarpTiling = WarpTiling {
        bm: 128,
        bn: 128,
        bk: 16,
        warps_m: 2,
        warps_n: 4,
        lanes_m: 8,
        tm: 8,
        tn: 8,
        stages: 2,
        swizzle: false,
        swizzle_b: false,
        pad: 4,
        pad_b: 0,
        min_blocks: Some(2),
        async_copy: false,
        b_async: false,
        lane_interleave: 2,
        a_run: 0,
        frag_prefetch: false,
        split_loads: false,
    };

    /// Threads per block.
    ///
    /// ```
    /// assert_eq!(tessel_kernels::sgemm::WarpTiling::TUNED.threads(), 256);
    /// ```
    pub fn threads(&self) -> i64 {
        32 * self.warps_m * self.warps_n
    }

    /// A short name, e.g. `128x128x16 w2x4 l8x4 t8x8 s2 p4/0 mb2` (`l8x4i2`: lanes interleaved
    /// by 2; `s2`: two register prefetched stages, `s2+bA`: B by `cp.async`, `+fp`: fragment
    /// prefetch, `async3`: three `cp.async` stages; `sw`: both tiles swizzled, `swA` only A;
    /// `p4/0`: the pads of A and B; `r2`: the A load run; `mb2`: two blocks per SM).
    ///
    /// ```
    /// use tessel_kernels::sgemm::WarpTiling;
    /// assert_eq!(WarpTiling::TUNED.name(), "128x128x16 w2x4 l8x4i2 t8x8 s2 p4/0 mb2");
    /// let w = WarpTiling { async_copy: true, stages: 3, swizzle: true, pad: 0, ..WarpTiling::TUNED };
    /// assert_eq!(w.name(), "128x128x16 w2x4 l8x4i2 t8x8 async3 swA p0/0 mb2");
    /// ```
    pub fn name(&self) -> String {
        format!(
            "{}x{}x{} w{}x{} l{}x{}{} t{}x{} {}{}{}{}{} p{}/{}{} mb{}",
            self.bm,
            self.bn,
            self.bk,
            self.warps_m,
            self.warps_n,
            self.lanes_m,
            32 / self.lanes_m.max(1),
            if self.lane_interleave > 1 {
                format!("i{}", self.lane_interleave)
            } else {
                String::new()
            },
            self.tm,
            self.tn,
            if self.async_copy { "async" } else { "s" },
            self.stages,
            if self.b_async && !self.async_copy {
                "+bA"
            } else {
                ""
            },
            match (self.frag_prefetch, self.split_loads) {
                (true, _) => "+fp",
                (false, true) => "+split",
                _ => "",
            },
            match (self.swizzle, self.swizzle_b) {
                (true, true) => " sw",
                (true, false) => " swA",
                (false, true) => " swB",
                (false, false) => "",
            },
            self.pad,
            self.pad_b,
            if self.a_run > 0 {
                format!(" r{}", self.a_run)
            } else {
                String::new()
            },
            self.min_blocks.unwrap_or(0)
        )
    }

    /// The swizzle `(B, M, S)` that spreads the scalar stores of a row-major A over the banks:
    /// a warp stores `128 / BK` consecutive rows (offset bits `[0, M)`, `M = log2(128 / BK)`) at
    /// `BK / 4` k-columns `4 j + e` (`B = log2(BK / 4)` bits of k from bit 2 on, i.e. offset bit
    /// `log2(BM + pad) + 2` on, which `S` brings down to bit `M`). `None` unless `swizzle`, or when
    /// `BM + pad` is not a power of two.
    ///
    /// ```
    /// use tessel_kernels::sgemm::WarpTiling;
    /// let sw = WarpTiling { swizzle: true, pad: 0, ..WarpTiling::TUNED };
    /// assert_eq!(sw.a_swizzle(), Some((2, 3, 6)));
    /// assert_eq!(WarpTiling { bk: 8, ..sw }.a_swizzle(), Some((1, 4, 5)));
    /// assert_eq!(WarpTiling::TUNED.a_swizzle(), None); // padded instead
    /// ```
    pub fn a_swizzle(&self) -> Option<(i64, i64, i64)> {
        self.swizzle_for(self.swizzle, self.bm + self.pad)
    }

    /// The same for the B tile `[k][n]` (pitch `BN + pad_b`, when `swizzle_b`), whose scalar stores (a
    /// column-major B, k-contiguous) cover `128 / BK` columns at `BK / 4` k-rows `4 j + e`.
    ///
    /// ```
    /// use tessel_kernels::sgemm::WarpTiling;
    /// let sw = WarpTiling { swizzle_b: true, ..WarpTiling::TUNED };
    /// assert_eq!(sw.b_swizzle(), Some((2, 3, 6)));
    /// assert_eq!(WarpTiling { bn: 256, ..sw }.b_swizzle(), Some((2, 3, 7)));
    /// ```
    pub fn b_swizzle(&self) -> Option<(i64, i64, i64)> {
        self.swizzle_for(self.swizzle_b, self.bn + self.pad_b)
    }

    /// `M = log2(128 / BK) >= 2` keeps 4-element vectors whole: BK is 8, 16 or 32.
    fn swizzle_for(&self, on: bool, pitch: i64) -> Option<(i64, i64, i64)> {
        let pow2 = |x: i64| x > 0 && x & (x - 1) == 0;
        if !on || !pow2(pitch) || !pow2(self.bk) || self.bk < 8 || self.bk > 32 || pitch < 32 {
            return None;
        }
        let log = |x: i64| 63 - x.leading_zeros() as i64;
        let (b, m) = (log(self.bk / 4), log(128 / self.bk));
        Some((b, m, log(pitch) + 2 - m))
    }

    /// The [`Tiling`] (errors when the warp, lane and thread tiles do not fit the block tile).
    ///
    /// ```
    /// use tessel_kernels::sgemm::WarpTiling;
    /// let t = WarpTiling::TUNED.tiling().unwrap();
    /// assert_eq!((&*t.thr_m, &*t.val_n), ("(2,8,2,2,4):(0,4,0,64,0)", "(4,2):(1,16)"));
    /// // Lane 1 (ln = 1) starts 4 columns right of lane 0, lane 2 (lm = 1) 4 rows down.
    /// assert_eq!(t.thread_layouts().unwrap().1.offset(1).unwrap(), 4);
    /// assert_eq!(t.thread_layouts().unwrap().0.offset(2).unwrap(), 4);
    /// let plain = WarpTiling { lane_interleave: 1, ..WarpTiling::TUNED }.tiling().unwrap();
    /// assert_eq!(&*plain.thr_m, "(8,4,2,4):(4,0,64,0)");
    /// assert!(WarpTiling { tm: 12, ..WarpTiling::TUNED }.tiling().is_err());
    /// ```
    pub fn tiling(&self) -> GpuResult<Tiling> {
        let w = self;
        let lanes_n = 32 / w.lanes_m.max(1);
        let fits = w.lanes_m >= 1
            && w.lanes_m * lanes_n == 32
            && w.warps_m >= 1
            && w.warps_n >= 1
            && w.tm % 4 == 0
            && w.tn % 4 == 0
            && w.tm >= 4
            && w.tn >= 4
            && w.lane_interleave >= 1
            && lanes_n % w.lane_interleave == 0
            && (!w.frag_prefetch || (w.stages == 2 && !w.async_copy && w.bk % 2 == 0))
            && (!w.split_loads
                || (w.stages == 2 && !w.async_copy && !w.b_async && !w.frag_prefetch))
            && w.bm == w.warps_m * w.tm * w.lanes_m
            && w.bn == w.warps_n * w.tn * lanes_n
            && if w.async_copy {
                (2..=8).contains(&w.stages)
            } else {
                (1..=2).contains(&w.stages)
            };
        if !fits {
            return Err(GpuError::InvalidArgument(format!(
                "sgemm warp tiling {}: {} x {} warps of {} x {lanes_n} lanes with {} x {} per lane \
                 do not cover the {} x {} block tile",
                w.name(),
                w.warps_m,
                w.warps_n,
                w.lanes_m,
                w.tm,
                w.tn,
                w.bm,
                w.bn
            )));
        }
        let (wtm, wtn) = (w.bm / w.warps_m, w.bn / w.warps_n);
        let (rm, rn) = (w.tm / 4, w.tn / 4);
        let (lm, wm, wn) = (w.lanes_m, w.warps_m, w.warps_n);
        let il = w.lane_interleave;
        let (thr_m, thr_n) = if il == 1 {
            (
                format!("({lm},{lanes_n},{wm},{wn}):(4,0,{wtm},0)"),
                format!("({lm},{lanes_n},{wm},{wn}):(0,4,0,{wtn})"),
            )
        } else {
            let hi = lanes_n / il;
            (
                format!("({il},{lm},{hi},{wm},{wn}):(0,4,0,{wtm},0)"),
                format!("({il},{lm},{hi},{wm},{wn}):(4,0,{},0,{wtn})", 4 * il),
            )
        };
        Ok(Tiling {
            bm: w.bm,
            bn: w.bn,
            bk: w.bk,
            threads: w.threads(),
            tm: w.tm,
            tn: w.tn,
            thr_m: thr_m.into(),
            thr_n: thr_n.into(),
            val_m: format!("(4,{rm}):(1,{})", 4 * lm).into(),
            val_n: format!("(4,{rn}):(1,{})", 4 * lanes_n).into(),
            a_transposed: true,
            vector: 4,
            frag_vector: 4,
            stages: w.stages,
            pad: w.pad,
            pad_b: w.pad_b,
            a_swizzle: self.a_swizzle(),
            b_swizzle: self.b_swizzle(),
            min_blocks: w.min_blocks,
            async_copy: w.async_copy,
            b_async: w.b_async && !w.async_copy && w.stages == 2,
            unchecked_whole_tiles: true,
            a_run: w.a_run,
            frag_prefetch: w.frag_prefetch,
            split_loads: w.split_loads,
        })
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
        TileLoad::with_run(rows, cols, major, vector, threads, 0)
    }

    /// As [`new`](Self::new), but consecutive vectors take only `run` vectors of a line (a row of
    /// a row-major operand, a column of a column-major one) before moving to the next line, and
    /// the line's next `run` vectors come after every line's first ones: vector
    /// `j = r + run (line + lines q)` covers part `r + run q` of its line. `run` 0 (or the whole
    /// line) is [`new`](Self::new)'s order.
    ///
    /// ```
    /// use tessel_kernels::sgemm::{Major, TileLoad};
    /// // A 128 x 16 row-major A tile, 2 vectors of a row at a time: a warp covers rows 0..16.
    /// let l = TileLoad::with_run(128, 16, Major::Row, 4, 256, 2).unwrap();
    /// assert_eq!(l.rows.to_string(), "(2,128,2):(0,1,0)");
    /// assert_eq!(l.cols.to_string(), "(2,128,2):(4,0,8)");
    /// assert_eq!((l.rows.offset(31).unwrap(), l.cols.offset(31).unwrap()), (15, 4));
    /// // Column-major: the lines are columns; vector 31 is column 15, rows 4..8.
    /// let c = TileLoad::with_run(16, 128, Major::Col, 4, 256, 2).unwrap();
    /// assert_eq!((c.rows.offset(31).unwrap(), c.cols.offset(31).unwrap()), (4, 15));
    /// assert_eq!((c.rows.offset(256).unwrap(), c.cols.offset(256).unwrap()), (8, 0));
    /// assert!(TileLoad::with_run(128, 16, Major::Row, 4, 256, 3).is_err());
    /// ```
    pub fn with_run(
        rows: i64,
        cols: i64,
        major: Major,
        vector: i64,
        threads: i64,
        run: i64,
    ) -> GpuResult<TileLoad> {
        let along = match major {
            Major::Row => cols,
            Major::Col => rows,
        };
        let per_line = along / vector.max(1);
        let run = if run == 0 { per_line } else { run };
        if run < 1 || per_line % run != 0 {
            return Err(GpuError::InvalidArgument(format!(
                "sgemm tile {rows}x{cols} ({} major): a run of {run} vectors does not divide the \
                 {per_line} vectors of a line",
                major.name()
            )));
        }
        let (along_cols, (rows_l, cols_l)) = match major {
            Major::Row if run < per_line => {
                let q = per_line / run;
                (
                    true,
                    (
                        format!("({run},{rows},{q}):(0,1,0)"),
                        format!("({run},{rows},{q}):({vector},0,{})", vector * run),
                    ),
                )
            }
            Major::Col if run < per_line => {
                let q = per_line / run;
                (
                    false,
                    (
                        format!("({run},{cols},{q}):({vector},0,{})", vector * run),
                        format!("({run},{cols},{q}):(0,1,0)"),
                    ),
                )
            }
            _ => match major {
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
            },
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
        // The A run only reorders a row-major A (the scalar stores into the transposed tile).
        let a_run = match self.a_major {
            Major::Row => t.a_run,
            Major::Col => 0,
        };
        Ok((
            TileLoad::with_run(t.bm, t.bk, self.a_major, t.vector, t.threads, a_run)?,
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
            .min_blocks(t.min_blocks)
            .grid(self.grid_blocks() as u32, 1, 1);
        if self.rung != Rung::Naive {
            let (la, lb) = self.tile_loads()?;
            let (sa, sb) = (t.smem_a()?, t.smem_b()?);
            let (a_ld, b_ld) = self.leading_dims();
            let (a_st_vec, b_st_vec) = self.store_vectors()?;
            let (sa_size, sb_size) = (
                crate::emit::storage(&sa).map_err(lay_err)?,
                crate::emit::storage(&sb).map_err(lay_err)?,
            );
            let smem_bytes = 4 * t.stages * (sa_size + sb_size);
            // Static shared memory stops at 48 KiB; the cp.async stages are dynamic (up to the
            // 227 KiB an SM80 / SM90 block may opt into).
            let limit = if t.async_copy { 227 * 1024 } else { 48 * 1024 };
            if smem_bytes > limit {
                return Err(GpuError::InvalidArgument(format!(
                    "sgemm {}: {} stages of the A and B tiles take {smem_bytes} bytes of shared \
                     memory, over the {limit} bytes a block may use",
                    self.rung, t.stages
                )));
            }
            if t.async_copy {
                b = b.dynamic_smem(smem_bytes as u32);
            }
            self.check_fragments(&sa, &sb)?;
            b = b
                .int("NT", t.threads)
                .int("BK", t.bk)
                .int("TM", t.tm)
                .int("TN", t.tn)
                .int("STAGES", t.stages)
                .int("SA_SIZE", sa_size)
                .int("SB_SIZE", sb_size)
                .int("EVEN", (t.unchecked_whole_tiles && self.even()) as i64)
                .int("ASYNC", t.async_copy as i64)
                .int(
                    "SPLIT_LOADS",
                    (t.split_loads
                        && t.stages == 2
                        && !t.async_copy
                        && !t.b_async
                        && !t.frag_prefetch) as i64,
                )
                .int(
                    "FRAG_PF",
                    (t.frag_prefetch && t.stages == 2 && !t.async_copy && t.bk % 2 == 0) as i64,
                )
                .int(
                    "B_ASYNC",
                    (t.b_async && !t.async_copy && t.stages == 2) as i64,
                )
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
                .device_fn("cp_async", CP_ASYNC_FNS)
                .int("VC", self.c_vector()?);
        }
        b.build()
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
    /// aligned: then a tiling with [`Tiling::unchecked_whole_tiles`] skips every bounds check
    /// (`k::EVEN`).
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
