//! The numbers and layouts of a rung ([`Tiling`]), and the warp-tiled rungs given by numbers
//! ([`WarpTiling`]).

use tessel_layout::{ComposedLayout, Layout};

use super::parse;
use crate::error::{GpuError, GpuResult};

/// A rung's declaration: the block tile `BM x BN` marched along K in `BK` steps by `threads`
/// threads, the tiled FMA that gives each thread its elements of C (CuTe's `make_tiled_mma` of
/// `UniversalFMA` over the atom layout `thr_layout`, with the M and N modes permuted by
/// `perm_m` and `perm_n`), the shared tiles of A (`[m][k]`, or transposed `[k][m]`) and B
/// (`[k][n]`), the vector widths of the global loads and of the fragment reads, and the
/// pipeline (one shared stage, or two with the next tile prefetched into registers).
///
/// ```
/// use tessel_kernels::sgemm::Rung;
/// let t = Rung::Reg2d.tiling();
/// // Thread t = 16 r + c holds rows 8 r .. 8 r + 8 and columns 8 c .. 8 c + 8.
/// assert_eq!(t.thr_layout.to_string(), "(16,16):(16,1)");
/// assert_eq!((t.perm_m.to_string(), t.tm(), t.tn()), ("(16,8):(8,1)".to_string(), 8, 8));
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
    /// The tiled FMA's atom layout (CuTe's `AtomLayoutMNK` of one-thread `UniversalFMA` atoms):
    /// `(M thread, N thread) -> thread index`, modes possibly hierarchical (warps of lanes).
    pub thr_layout: Layout,
    /// The permutation of M (CuTe's `PermutationMNK`): M thread `i`'s value `v` is row
    /// `perm_m(i + (M threads) v)` of the block tile.
    pub perm_m: Layout,
    /// The permutation of N, likewise.
    pub perm_n: Layout,
    /// The A tile stored `[k][m]` (m contiguous) instead of `[m][k]`.
    pub a_transposed: bool,
    /// Elements per global load (along each operand's contiguous dimension), where the
    /// matrix's leading dimension keeps them aligned (else one at a time).
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
    /// Minimum resident blocks per SM asked of ptxas (`__launch_bounds__(threads, B)`).
    pub min_blocks: Option<i64>,
    /// Drop the bounds checks (the predicates are proven true on the host) when the problem is
    /// whole tiles with aligned vectors ([`SgemmPlan::even`](super::SgemmPlan::even)). Off for
    /// the ladder's rungs up to double-buffered: on an H100 it cost `vectorized` and
    /// `warp-tiled` (no launch bound, one shared stage) a third of their speed
    /// (docs/performance.md).
    pub unchecked_whole_tiles: bool,
}

/// A layout literal of this module (every one is tested through the rungs).
fn lay(text: &str) -> Layout {
    text.parse()
        .unwrap_or_else(|e| panic!("sgemm layout literal {text}: {e}"))
}

impl Tiling {
    /// A rung without warps: a `thr_m x thr_n` grid of threads, thread `t` at M position
    /// `t / thr_n` and N position `t % thr_n`, each holding `tm x tn` consecutive rows and
    /// columns; scalar loads, `[m][k]` A tile, one stage.
    fn grid(
        (bm, bn, bk): (i64, i64, i64),
        (thr_m, thr_n): (i64, i64),
        (tm, tn): (i64, i64),
    ) -> Tiling {
        let perm = |threads: i64, values: i64| {
            if values == 1 {
                lay(&format!("{threads}:1"))
            } else {
                lay(&format!("({threads},{values}):({values},1)"))
            }
        };
        Tiling {
            bm,
            bn,
            bk,
            threads: thr_m * thr_n,
            thr_layout: lay(&format!("({thr_m},{thr_n}):({thr_n},1)")),
            perm_m: perm(thr_m, tm),
            perm_n: perm(thr_n, tn),
            a_transposed: false,
            vector: 1,
            frag_vector: 1,
            stages: 1,
            pad: 0,
            pad_b: 0,
            min_blocks: None,
            unchecked_whole_tiles: false,
        }
    }

    /// The naive rung: 16 x 16 threads, one element of C each.
    pub(crate) fn naive() -> Tiling {
        Tiling::grid((16, 16, 1), (16, 16), (1, 1))
    }

    /// 32 x 32 block tiles, one element per thread.
    pub(crate) fn smem_block() -> Tiling {
        Tiling::grid((32, 32, 32), (32, 32), (1, 1))
    }

    /// 64 x 64 tiles, each of 8 x 64 threads a column of 8 elements.
    pub(crate) fn reg_1d() -> Tiling {
        Tiling::grid((64, 64, 8), (8, 64), (8, 1))
    }

    /// 128 x 128 tiles, each of 16 x 16 threads an 8 x 8 block.
    pub(crate) fn reg_2d() -> Tiling {
        Tiling::grid((128, 128, 8), (16, 16), (8, 8))
    }

    /// Rows of C per thread.
    ///
    /// ```
    /// assert_eq!(tessel_kernels::sgemm::Rung::Reg1d.tiling().tm(), 8);
    /// ```
    pub fn tm(&self) -> i64 {
        self.perm_m.size() / self.thr_layout.mode(0).map_or(1, |m| m.size()).max(1)
    }

    /// Columns of C per thread.
    ///
    /// ```
    /// assert_eq!(tessel_kernels::sgemm::Rung::Reg1d.tiling().tn(), 1);
    /// ```
    pub fn tn(&self) -> i64 {
        self.perm_n.size() / self.thr_layout.mode(1).map_or(1, |m| m.size()).max(1)
    }

    /// One stage of the shared A tile as a function of `(m, k)`: `(BM,BK):(BK,1)` or,
    /// transposed, `(BM,BK):(1,BM+pad)`.
    ///
    /// ```
    /// use tessel_kernels::sgemm::Rung;
    /// assert_eq!(Rung::Vectorized.tiling().smem_a().unwrap().to_string(), "(128,8):(1,132)");
    /// assert_eq!(Rung::Tuned.tiling().smem_a().unwrap().to_string(), "(128,16):(1,132)");
    /// ```
    pub fn smem_a(&self) -> GpuResult<ComposedLayout> {
        let (bm, bk) = (self.bm, self.bk);
        let inner = if self.a_transposed {
            format!("({bm},{bk}):(1,{})", bm + self.pad)
        } else {
            format!("({bm},{bk}):({bk},1)")
        };
        Ok(parse(&inner)?.into())
    }

    /// One stage of the shared B tile as a function of `(n, k)` (CuTe's `(N, K)` view of B):
    /// `(BN,BK):(1,BN+pad_b)`, a k-row of BN contiguous elements then the padding.
    ///
    /// ```
    /// use tessel_kernels::sgemm::Rung;
    /// assert_eq!(Rung::Reg2d.tiling().smem_b().unwrap().to_string(), "(128,8):(1,128)");
    /// assert_eq!(Rung::WarpTiled.tiling().smem_b().unwrap().to_string(), "(128,8):(1,132)");
    /// ```
    pub fn smem_b(&self) -> GpuResult<ComposedLayout> {
        let (bk, bn) = (self.bk, self.bn);
        Ok(parse(&format!("({bn},{bk}):(1,{})", bn + self.pad_b))?.into())
    }
}

/// A warp-tiled [`Tiling`] given by numbers: `warps_m x warps_n` warps each own a
/// `BM / warps_m x BN / warps_n` warp tile; its `lanes_m x (32 / lanes_m)` lanes each own
/// `TM / 4 x TN / 4` groups of `4 x 4` elements, lane `(lm, ln)`'s rows `4 lm + {0..3}` repeated
/// every `4 lanes_m` rows (columns likewise). Every fragment read is one 128-bit shared load; the
/// A tile is transposed (`[k][m]`).
///
/// ```
/// use tessel_kernels::sgemm::{Rung, Tiling, WarpTiling};
/// let w = WarpTiling { bk: 8, stages: 1, pad: 4, pad_b: 4, min_blocks: None,
///     lane_interleave: 1, ..WarpTiling::TUNED };
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
    /// Padding after each k-row of the A tile.
    pub pad: i64,
    /// Padding after each k-row of the B tile.
    pub pad_b: i64,
    /// `__launch_bounds__` minimum blocks per SM.
    pub min_blocks: Option<i64>,
    /// Lanes interleaved along N within the warp: `1` numbers the lanes `l = lm + lanes_m ln`;
    /// `I > 1` numbers them `l = (ln % I) + I lm + I lanes_m (ln / I)`, so every 4-lane group
    /// holds `4 / I` rows and `I` columns of lanes. With `I = 2` and `8 x 4` lanes a half-warp
    /// asks for 8 A vectors and 2 B vectors, each 4-lane group for 2 of each: both fragment
    /// reads pack into one wavefront per half-warp (2 per `lds.128` instead of 4 for A;
    /// docs/bank-model.md).
    pub lane_interleave: i64,
}

/// The top rung's tiling ([`Rung::Tuned`](super::Rung::Tuned)).
pub const TUNED: WarpTiling = WarpTiling::TUNED;

impl WarpTiling {
    /// The top rung: 128 x 128 x 16 blocks of 2 x 4 warps of 8 x 4 lanes, 8 x 8 per thread,
    /// two stages with the next tile prefetched into registers, the transposed A tile padded by
    /// 4 elements per k-row, B unpadded, two blocks per SM (at most 128 registers a thread). The
    /// fastest candidate of `kernels/examples/sgemm_sweep.rs` on an H100 with that launch bound
    /// (docs/performance.md). Its lanes are interleaved by 2 ([`lane_interleave`](Self::lane_interleave)):
    /// a 4-lane group holds 2 rows and 2 columns of lanes, so both fragment reads take 2
    /// wavefronts a warp instead of 4 for A (0.883x -> 0.924x cuBLAS at 4096^3). The designs
    /// measured slower are listed in docs/decisions.md.
    ///
    /// ```
    /// let t = tessel_kernels::sgemm::WarpTiling::TUNED;
    /// assert_eq!((t.bm, t.bn, t.bk, t.threads(), t.stages, t.pad), (128, 128, 16, 256, 2, 4));
    /// assert_eq!((t.lane_interleave, t.min_blocks), (2, Some(2)));
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
        pad: 4,
        pad_b: 0,
        min_blocks: Some(2),
        lane_interleave: 2,
    };

    /// Threads per block.
    ///
    /// ```
    /// assert_eq!(tessel_kernels::sgemm::WarpTiling::TUNED.threads(), 256);
    /// ```
    pub fn threads(&self) -> i64 {
        32 * self.warps_m * self.warps_n
    }

    /// A short name, e.g. `128x128x16 w2x4 l8x4i2 t8x8 s2 p4/0 mb2` (`l8x4i2`: lanes interleaved
    /// by 2; `s2`: two register prefetched stages; `p4/0`: the pads of A and B; `mb2`: two
    /// blocks per SM).
    ///
    /// ```
    /// use tessel_kernels::sgemm::WarpTiling;
    /// assert_eq!(WarpTiling::TUNED.name(), "128x128x16 w2x4 l8x4i2 t8x8 s2 p4/0 mb2");
    /// let w = WarpTiling { lane_interleave: 1, min_blocks: None, ..WarpTiling::TUNED };
    /// assert_eq!(w.name(), "128x128x16 w2x4 l8x4 t8x8 s2 p4/0 mb0");
    /// ```
    pub fn name(&self) -> String {
        format!(
            "{}x{}x{} w{}x{} l{}x{}{} t{}x{} s{} p{}/{} mb{}",
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
            self.stages,
            self.pad,
            self.pad_b,
            self.min_blocks.unwrap_or(0)
        )
    }

    /// The [`Tiling`] (errors when the warp, lane and thread tiles do not fit the block tile).
    /// Thread `t = lane + 32 (wm + warps_m wn)`; its M position is `(lm, wm)` and its N position
    /// `(ln, wn)` in the tiled FMA's atom layout, and the permutations place its values: row
    /// `4 lm + (BM / warps_m) wm + e + 4 lanes_m r` for its value `e + 4 r`.
    ///
    /// ```
    /// use tessel_kernels::sgemm::WarpTiling;
    /// let t = WarpTiling::TUNED.tiling().unwrap();
    /// assert_eq!(t.thr_layout.to_string(), "((8,2),(2,2,4)):((2,32),(1,16,64))");
    /// assert_eq!(t.perm_m.to_string(), "(8,2,4,2):(4,64,1,32)");
    /// let plain = WarpTiling { lane_interleave: 1, ..WarpTiling::TUNED }.tiling().unwrap();
    /// assert_eq!(plain.thr_layout.to_string(), "((8,2),(4,4)):((1,32),(8,64))");
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
            && w.bm == w.warps_m * w.tm * w.lanes_m
            && w.bn == w.warps_n * w.tn * lanes_n
            && (1..=2).contains(&w.stages);
        if !fits {
            return Err(GpuError::InvalidArgument(format!(
                "sgemm warp tiling {}: {} x {} warps of {} x {lanes_n} lanes with {} x {} per lane \
                 (stages 1 or 2) do not cover the {} x {} block tile",
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
        let (lm, wm, wn, il) = (w.lanes_m, w.warps_m, w.warps_n, w.lane_interleave);
        // Lane l = (ln % I) + I lm + I lanes_m (ln / I); warp = wm + warps_m wn.
        let n_mode = if il == 1 {
            format!("({lanes_n},{wn}):({lm},{})", 32 * wm)
        } else {
            format!("({il},{},{wn}):(1,{},{})", lanes_n / il, il * lm, 32 * wm)
        };
        let thr_layout =
            Layout::from_modes([parse(&format!("({lm},{wm}):({il},32)"))?, parse(&n_mode)?])?;
        Ok(Tiling {
            bm: w.bm,
            bn: w.bn,
            bk: w.bk,
            threads: w.threads(),
            thr_layout,
            perm_m: parse(&format!(
                "({lm},{wm},4,{}):(4,{wtm},1,{})",
                w.tm / 4,
                4 * lm
            ))?,
            perm_n: parse(&format!(
                "({lanes_n},{wn},4,{}):(4,{wtn},1,{})",
                w.tn / 4,
                4 * lanes_n
            ))?,
            a_transposed: true,
            vector: 4,
            frag_vector: 4,
            stages: w.stages,
            pad: w.pad,
            pad_b: w.pad_b,
            min_blocks: w.min_blocks,
            unchecked_whole_tiles: true,
        })
    }
}
