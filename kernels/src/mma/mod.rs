//! The four tensor-core swizzle problems (16x16 fp16 tiles read by `ldmatrix.x4` into
//! `mma.sync.m16n8k16`), solved declaratively: every fragment, `ldmatrix` row address and
//! accumulator position is derived from CuTe's atoms through the tiled MMA and tiled copies of
//! `tessel_layout::tiled`, every shared-memory swizzle is chosen by `tessel_layout::synth`, and
//! the bank model (`tessel_layout::bank`) predicts the wavefronts of every shared-memory
//! instruction of a launch ([`tessel_layout::bank::SmemTraffic`]).
//!
//! The kernels are written with the tensor layer ([`crate::layer`]): each plan declares its
//! tensors (the swizzled shared tiles, their partitions by the `ldmatrix` copies, the fragments)
//! and its tiled copies and MMA ([`device`] holds what the four share, with the host check that
//! every `ldmatrix` feeds the MMA's registers), and the bodies move data with `tessel::copy` and
//! multiply with `tessel::gemm`. Each plan's `smem_tensors` lists the kernel's shared tensor
//! behind each access the bank model counts.
//!
//! | problem | plan | kernel body |
//! |---|---|---|
//! | 1. `A^n` of a 16x16 fp16 `A`, one warp, each product written back to shared memory as fp16 | [`power::PowerPlan`] | `kernels/cuda/mma_power.cu` |
//! | 2. `A*B` with `M = [A B]` one 16x32 row-major tile (`B` through `ldmatrix.trans`) | [`pair::PairPlan`] | `kernels/cuda/mma_pair.cu` |
//! | 3. two 16x256 tiles, 16 warps: `C1` (16x16 column blocks) and `C2` (rows as 16x16 blocks) from one shared copy | [`modes::ModesPlan`] | `kernels/cuda/mma_modes.cu` |
//! | 4. the same with one swizzle per mode and a conflict-free re-layout in between; `C2` (fp16) stored through the second swizzle | [`modes::ModesPlan`] | `kernels/cuda/mma_relayout.cu` |
//!
//! Every problem has an unswizzled twin (the same body and partitions, the identity swizzle), so
//! the conflicts the swizzles remove show in the predictions and in Nsight Compute
//! (`scripts/ncu_conflicts.sh`). One launch solves a grid of independent problems (one block
//! each). [`host`] holds the [PTX ISA 9.0](https://docs.nvidia.com/cuda/archive/13.0.0/parallel-thread-execution/index.html)'s `ldmatrix` and `mma` fragment rules, the references and
//! their error bounds; each plan's `replay` runs one problem on the CPU through the kernel's own
//! declarations with those rules; [`run`] launches, verifies and times on a GPU (`tessel bench
//! mma`).
//!
//! The warp tile is one `SM80_16x8x16_F32F16F16F32_TN` atom with N permuted to 16 (two n8
//! blocks): a 16x16x16 product per warp, A and B each one `ldmatrix.x4`.
//!
//! ```
//! use tessel_kernels::mma::Fragments;
//! let f = Fragments::new().unwrap();
//! assert_eq!(f.mma.tile_size(1).unwrap(), 16);
//! // The A copy's lanes address rows 0..15 of k block 0, then of k block 8 (CuTe's ldmatrix A).
//! assert_eq!(f.copy_a.layout_s_tv().unwrap().to_string(), "((16,2),(8,1)):((1,128),(16,0))");
//! ```

pub mod device;
pub mod host;
pub mod modes;
pub mod pair;
pub mod power;
pub mod run;

use tessel_layout::atom::{copy_atom, mma_atom};
use tessel_layout::bank::{BankReport, SmemOp, analyze, analyze_each};
use tessel_layout::tiled::{
    TiledCopy, TiledMma, make_tiled_copy, make_tiled_copy_a, make_tiled_copy_b, make_tiled_mma,
};
use tessel_layout::{ComposedLayout, Error, Layout, Result, composition};

/// The MMA atom of every kernel here.
///
/// ```
/// assert!(tessel_layout::atom::mma_atom(tessel_kernels::mma::MMA_ATOM).is_ok());
/// ```
pub const MMA_ATOM: &str = "SM80_16x8x16_F32F16F16F32_TN";
/// The `ldmatrix.x4` atom (A, and B read K-contiguous).
///
/// ```
/// assert!(tessel_layout::atom::copy_atom(tessel_kernels::mma::LDSM_N).is_ok());
/// ```
pub const LDSM_N: &str = "SM75_U32x4_LDSM_N";
/// The `ldmatrix.x4.trans` atom (B stored N-contiguous).
///
/// ```
/// assert!(tessel_layout::atom::copy_atom(tessel_kernels::mma::LDSM_T).is_ok());
/// ```
pub const LDSM_T: &str = "SM75_U16x8_LDSM_T";
/// The 128-bit copy atom of the global <-> shared copies and of the re-layout.
///
/// ```
/// assert!(tessel_layout::atom::copy_atom(tessel_kernels::mma::VEC_COPY).is_ok());
/// ```
pub const VEC_COPY: &str = "UniversalCopy<uint128_t>";

/// The warp's tiled MMA (one atom, N permuted to 16: a 16x16x16 product) and the `ldmatrix`
/// tiled copies made from it with CuTe's `make_tiled_copy_A/B`.
///
/// ```
/// use tessel_kernels::mma::Fragments;
/// let f = Fragments::new().unwrap();
/// assert_eq!(f.copy_b.tiler(), &[16, 16]);
/// // The accumulator: lane 0 holds (0,0), (0,1), (8,0), (8,1), then the same of n block 8.
/// assert_eq!(f.c_tv.to_string(), "((4,8),((2,2),(1,2))):((32,1),((16,8),(0,128)))");
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Fragments {
    /// `make_tiled_mma(SM80_16x8x16_F32F16F16F32_TN, 1:0, [_, 16:1])`.
    pub mma: TiledMma,
    /// `make_tiled_copy_A(SM75_U32x4_LDSM_N, mma)`: tile `(m, k)`, 16 x 16.
    pub copy_a: TiledCopy,
    /// `make_tiled_copy_B(SM75_U32x4_LDSM_N, mma)`: tile `(n, k)`, K-contiguous in memory.
    pub copy_b: TiledCopy,
    /// `make_tiled_copy_B(SM75_U16x8_LDSM_T, mma)`: tile `(n, k)`, N-contiguous in memory.
    pub copy_bt: TiledCopy,
    /// CuTe's `get_layoutC_TV`: `(thread, value) -> m + 16 n`, values `((2,2), n block)`.
    pub c_tv: Layout,
}

impl Fragments {
    /// Builds the tiled MMA and copies from the atoms.
    ///
    /// ```
    /// let f = tessel_kernels::mma::Fragments::new().unwrap();
    /// assert_eq!(f.mma.threads(), 32);
    /// ```
    pub fn new() -> Result<Fragments> {
        let atom = mma_atom(MMA_ATOM)?;
        let mma = make_tiled_mma(&atom, &"1:0".parse()?, &[None, Some("16:1".parse()?)])?;
        let ldsm = copy_atom(LDSM_N)?.typed(16)?;
        let ldsm_t = copy_atom(LDSM_T)?.typed(16)?;
        Ok(Fragments {
            copy_a: make_tiled_copy_a(&ldsm, &mma)?,
            copy_b: make_tiled_copy_b(&ldsm, &mma)?,
            copy_bt: make_tiled_copy_b(&ldsm_t, &mma)?,
            c_tv: mma.layout_c_tv()?,
            mma,
        })
    }

    /// `(lane, value, warp) -> m + 16 n + 256 warp`: the accumulators of a block of `warps`
    /// warps, each computing its own 16x16 tile (tiles one after the other).
    ///
    /// ```
    /// let f = tessel_kernels::mma::Fragments::new().unwrap();
    /// let c = f.c_tiles(2).unwrap();
    /// assert_eq!(c.offset(32 * 8).unwrap(), 256); // warp 1's lane 0, value 0: its tile's (0,0)
    /// ```
    pub fn c_tiles(&self, warps: i64) -> Result<Layout> {
        Layout::from_modes([
            self.c_tv.mode(0)?,
            self.c_tv.mode(1)?,
            Layout::vector(warps, 256)?,
        ])
    }
}

/// CuTe's 128-bit tiled copy of a `rows x cols` fp16 tile by `threads` threads, thread order
/// row-major (consecutive threads along a row), 8 halves per thread: `make_tiled_copy(
/// UniversalCopy<uint128_t>, (threads/(cols/8), cols/8):(cols/8, 1), (1,8):(0,1))`.
///
/// ```
/// use tessel_kernels::mma::vec_copy;
/// let c = vec_copy(16, 256, 512).unwrap();
/// assert_eq!(c.tiler(), &[16, 256]);
/// assert!(vec_copy(16, 20, 32).is_err()); // rows of 20 halves are not 16-byte chunks
/// ```
pub fn vec_copy(rows: i64, cols: i64, threads: i64) -> Result<TiledCopy> {
    let per_row = cols / 8;
    if cols % 8 != 0 || per_row < 1 || threads % per_row != 0 || rows % (threads / per_row) != 0 {
        return Err(Error::invalid(format!(
            "a {rows}x{cols} fp16 tile cannot be cut into 16-byte chunks for {threads} threads"
        )));
    }
    let atom = copy_atom(VEC_COPY)?.typed(16)?;
    let thr: Layout = format!("({},{per_row}):({per_row},1)", threads / per_row).parse()?;
    make_tiled_copy(&atom, &thr, &"(1,8):(0,1)".parse()?)
}

/// A partition `(thread, (FrgV, FrgX), (rest...))` (CuTe's `tidfrg_S/D`) flattened to the
/// bank model's `(thread, value, instruction...)`: `(thread, FrgV, FrgX, rest...)`.
///
/// ```
/// use tessel_kernels::mma::flat_tv;
/// let t: tessel_layout::Layout = "((16,2),(8,1),(1,16)):((1,128),(16,0),(0,256))".parse().unwrap();
/// assert_eq!(flat_tv(&t).unwrap().rank(), 5);
/// ```
pub fn flat_tv(part: &Layout) -> Result<Layout> {
    let frg = part.mode(1)?;
    let mut modes = vec![part.mode(0)?, frg.mode(0)?, frg.mode(1)?];
    modes.extend(part.mode(2)?.modes());
    Layout::from_modes(modes)
}

/// A thread mode of a whole block split into the bank model's lanes and warps: `(thread,
/// value, rest...)` becomes `(lane, value, warp, rest...)` (unchanged for 32 threads).
///
/// ```
/// use tessel_kernels::mma::per_warp;
/// let tv: tessel_layout::Layout = "((32,16),8):((128,1),16)".parse().unwrap();
/// assert_eq!(per_warp(&tv).unwrap().to_string(), "(32,8,16):(128,16,1)");
/// ```
pub fn per_warp(tv: &Layout) -> Result<Layout> {
    let thread = tv.mode(0)?;
    let n = thread.size();
    if n == 32 {
        return Ok(tv.clone());
    }
    if n % 32 != 0 {
        return Err(Error::invalid(format!(
            "the thread mode {thread} is not a whole number of warps"
        )));
    }
    let lanes = composition(&thread, &Layout::vector(32, 1)?)?;
    let warps = composition(&thread, &Layout::vector(n / 32, 32)?)?;
    let mut modes = vec![lanes, tv.mode(1)?, warps];
    modes.extend(tv.modes().into_iter().skip(2));
    Layout::from_modes(modes)
}

/// A kernel's shared-memory layout with or without the swizzle chain of `synthesized`.
///
/// ```
/// use tessel_kernels::mma::swizzled_or_plain;
/// let s: tessel_layout::ComposedLayout = "Sw<3,3,5> o (16,256):(256,1)".parse().unwrap();
/// assert_eq!(swizzled_or_plain(&s, false).to_string(), "(16,256):(256,1)");
/// ```
pub fn swizzled_or_plain(synthesized: &ComposedLayout, swizzled: bool) -> ComposedLayout {
    if swizzled {
        synthesized.clone()
    } else {
        ComposedLayout::new(vec![], 0, synthesized.layout().clone())
    }
}

/// One shared-memory access of a kernel for the bank model: which instruction, through which
/// layout, with which TV layout `(lane, value, instruction...)`, how often per block, and
/// whether it loads or stores.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SmemAccess {
    /// What it is (for reports).
    pub what: String,
    /// The instruction.
    pub op: SmemOp,
    /// The shared-memory layout it goes through.
    pub smem: ComposedLayout,
    /// `(lane, value, instruction...)` -> index of `smem`'s domain.
    pub tv: Layout,
    /// How many times per block the instructions of `tv` execute (loop trips, buffers).
    pub times: i64,
    /// Only this instruction of `tv` (in the colexicographic order of its modes after lane and
    /// value) is executed, when given: for a TV that enumerates regions of a tile of which the
    /// kernel reads one.
    pub instruction: Option<usize>,
}

impl SmemAccess {
    /// The bank model of one block's executions of this access.
    ///
    /// ```
    /// use tessel_kernels::mma::SmemAccess;
    /// let a = SmemAccess { what: "column".into(), op: "lds.32".parse().unwrap(),
    ///     smem: "(32,32):(32,1)".parse().unwrap(), tv: "32:1".parse().unwrap(), times: 2, instruction: None };
    /// assert_eq!(a.report(4).unwrap().wavefronts, 64); // 32 wavefronts of a 4-byte column, twice
    /// ```
    pub fn report(&self, elem_bytes: i64) -> Result<BankReport> {
        let once = match self.instruction {
            None => analyze(&self.smem, elem_bytes, self.op, &self.tv)?,
            Some(i) => {
                let each = analyze_each(&self.smem, elem_bytes, self.op, &self.tv)?;
                *each.get(i).ok_or_else(|| {
                    Error::invalid(format!(
                        "instruction {i} of {} instructions of {}",
                        each.len(),
                        self.tv
                    ))
                })?
            }
        };
        Ok(once.scaled(self.times))
    }

    /// Whether the instruction stores.
    ///
    /// ```
    /// use tessel_kernels::mma::SmemAccess;
    /// let a = SmemAccess { what: "w".into(), op: "sts.128".parse().unwrap(),
    ///     smem: "64:1".parse().unwrap(), tv: "(32,8):(8,1)".parse().unwrap(), times: 1, instruction: None };
    /// assert!(a.is_store());
    /// ```
    pub fn is_store(&self) -> bool {
        use tessel_layout::bank::OpKind;
        matches!(self.op.kind(), OpKind::Sts | OpKind::Stsm)
    }
}

/// The bank model of one block's shared-memory accesses, loads and stores apart.
///
/// ```
/// use tessel_kernels::mma::{SmemAccess, traffic};
/// let a = SmemAccess { what: "column".into(), op: "lds.32".parse().unwrap(),
///     smem: "(32,32):(32,1)".parse().unwrap(), tv: "32:1".parse().unwrap(), times: 1, instruction: None };
/// let t = traffic(&[a], 4).unwrap();
/// assert_eq!((t.loads.excess, t.stores.wavefronts), (31, 0));
/// ```
pub fn traffic(
    accesses: &[SmemAccess],
    elem_bytes: i64,
) -> Result<tessel_layout::bank::SmemTraffic> {
    let mut t = tessel_layout::bank::SmemTraffic::default();
    for a in accesses {
        let r = a
            .report(elem_bytes)
            .map_err(|e| e.context(a.what.clone()))?;
        if a.is_store() {
            t.stores += r;
        } else {
            t.loads += r;
        }
    }
    Ok(t)
}

/// Problem `problems` x elements, as a buffer length.
pub(crate) fn len(problems: i64, elements: i64) -> usize {
    usize::try_from(problems.saturating_mul(elements)).unwrap_or(usize::MAX)
}

/// Checks that `problems` is a usable grid size.
pub(crate) fn check_problems(problems: i64) -> Result<u32> {
    u32::try_from(problems)
        .ok()
        .filter(|&p| (1..=1 << 24).contains(&p))
        .ok_or_else(|| {
            Error::invalid(format!(
                "the number of problems {problems} must be in 1..={}",
                1 << 24
            ))
        })
}
