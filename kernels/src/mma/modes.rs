//! Problems 3 and 4: two 16x256 fp16 tiles `A`, `B` per block of 16 warps, read in two modes
//! from shared memory.
//!
//! - Mode 1 (column blocks): warp `j` computes `C1_j = Asub_j * Bsub_j^T`, `Asub_j` the 16x16
//!   block of columns `16j..16j+15`.
//! - Mode 2 (rows as blocks): warp `i` computes `C2_i = Asub_i * Bsub_i^T`, `Asub_i` row `i`
//!   viewed as a row-major 16x16 block (`Asub_i[r][c] = A[i][16r + c]`).
//!
//! The operands come from `ldmatrix.x4` through the tiled copies of [`Fragments`] applied to the
//! tile's coordinates (`(16,256)` column-major, i.e. domain index `r + 16c` of the shared layout
//! `(16,256):(256,1)`): in mode 1 the column blocks are the copy's rest mode, in mode 2 the
//! tile is viewed as `(r, c, i) -> i + 16 (16r + c)`, `(16,16,16):(256,16,1)`.
//!
//! Problem 3 ([`ModesKind::Shared`]): one shared copy, the swizzle found by
//! `tessel_layout::synth` for the 128-bit fill stores and both modes' `ldmatrix` reads of both
//! operands (a two-layer chain: no single swizzle is conflict-free for both modes). Problem 4
//! ([`ModesKind::Relayout`]): the first layout's swizzle is synthesized for the fill and mode 1,
//! the second's for mode 2; in between the block re-lays the tiles out in place with 128-bit
//! loads and stores, which the syntheses include too.
//!
//! ```
//! use tessel_kernels::mma::modes::{ModesKind, ModesPlan};
//! let plan = ModesPlan::new(ModesKind::Shared, true, 4).unwrap();
//! assert_eq!(plan.smem1.swizzles().len(), 2);
//! assert_eq!(plan.traffic().unwrap().excess(), 0);
//! let twin = ModesPlan::new(ModesKind::Shared, false, 4).unwrap();
//! assert!(twin.traffic().unwrap().loads.excess > 0);
//! ```

use tessel_layout::bank::SmemTraffic;
use tessel_layout::synth::{Access, Options, Synthesis, synthesize};
use tessel_layout::{ComposedLayout, Layout, Result, composition};

use super::{
    Fragments, SmemAccess, check_problems, flat_tv, len, per_warp, ptx, starts, swizzled_or_plain,
    traffic, vec_copy,
};
use crate::error::GpuResult;
use crate::kernel::{CType, Kernel, KernelBuilder, Param};

/// The body of problem 3.
///
/// ```
/// assert!(tessel_kernels::mma::modes::BODY_SHARED.contains("dev::ldsm(a"));
/// ```
pub const BODY_SHARED: &str = include_str!("../../cuda/mma_modes.cu");
/// The body of problem 4.
///
/// ```
/// assert!(tessel_kernels::mma::modes::BODY_RELAYOUT.contains("layout::fill_s2(t)"));
/// ```
pub const BODY_RELAYOUT: &str = include_str!("../../cuda/mma_relayout.cu");

/// Rows of `A` and `B`.
///
/// ```
/// assert_eq!(tessel_kernels::mma::modes::ROWS * tessel_kernels::mma::modes::COLS, 4096);
/// ```
pub const ROWS: i64 = 16;
/// Columns of `A` and `B`.
///
/// ```
/// assert_eq!(tessel_kernels::mma::modes::COLS / 16, tessel_kernels::mma::modes::WARPS);
/// ```
pub const COLS: i64 = 256;
/// Warps per block (one 16x16 product each per mode).
///
/// ```
/// assert_eq!(tessel_kernels::mma::modes::WARPS, 16);
/// ```
pub const WARPS: i64 = 16;

/// Problem 3 or 4.
///
/// ```
/// use tessel_kernels::mma::modes::ModesKind;
/// assert_eq!(ModesKind::Relayout.name(), "relayout");
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ModesKind {
    /// Problem 3: one shared copy read in both modes.
    Shared,
    /// Problem 4: one layout per mode, re-laid out in between.
    Relayout,
}

impl ModesKind {
    /// `modes` or `relayout` (kernel names: `mma_modes_swizzled`, `mma_relayout_plain`, ...).
    ///
    /// ```
    /// assert_eq!(tessel_kernels::mma::modes::ModesKind::Shared.name(), "modes");
    /// ```
    pub fn name(self) -> &'static str {
        match self {
            ModesKind::Shared => "modes",
            ModesKind::Relayout => "relayout",
        }
    }
}

/// Every layout of problem 3 or 4.
///
/// ```
/// use tessel_kernels::mma::modes::{ModesKind, ModesPlan};
/// let plan = ModesPlan::new(ModesKind::Relayout, true, 1).unwrap();
/// assert_eq!(plan.kernel_name(), "mma_relayout_swizzled");
/// assert_eq!(plan.smem1.swizzles().len(), 1);
/// assert_eq!(plan.smem2.swizzles().len(), 1);
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ModesPlan {
    /// Problem 3 or 4.
    pub kind: ModesKind,
    /// Synthesized swizzles, or the identity (the twin).
    pub swizzled: bool,
    /// Independent problems (blocks) per launch.
    pub problems: i64,
    /// The tiled MMA and `ldmatrix` copies.
    pub frags: Fragments,
    /// `A` and `B` in global memory and (before the swizzle) in shared memory: `(16,256):(256,1)`.
    pub tile: Layout,
    /// The 128-bit copy's partition of the tile `(thread, (FrgV, FrgX), rest)` -> domain index.
    pub fill: Layout,
    /// `ldmatrix` partition of `A` in mode 1, `(thread, (FrgV, FrgX), (warp...))` -> index.
    pub mode1_a: Layout,
    /// The same of `B` in mode 1.
    pub mode1_b: Layout,
    /// `A` in mode 2.
    pub mode2_a: Layout,
    /// `B` in mode 2.
    pub mode2_b: Layout,
    /// The shared layout the fill writes and mode 1 reads.
    pub smem1: ComposedLayout,
    /// The shared layout mode 2 reads (`smem1` in problem 3).
    pub smem2: ComposedLayout,
    /// The syntheses behind `smem1` (and `smem2`), also kept for the twin.
    pub synthesis: Vec<Synthesis>,
}

fn ldsm_access(what: &str, smem: &ComposedLayout, part: &Layout) -> Result<SmemAccess> {
    Ok(SmemAccess {
        what: what.into(),
        op: "ldsm.x4".parse()?,
        smem: smem.clone(),
        tv: flat_tv(part)?,
        times: 1,
    })
}

impl ModesPlan {
    /// The plan of `kind`, swizzled (synthesis) or plain, for `problems` blocks.
    ///
    /// ```
    /// use tessel_kernels::mma::modes::{ModesKind, ModesPlan};
    /// assert!(ModesPlan::new(ModesKind::Shared, true, 0).is_err());
    /// ```
    pub fn new(kind: ModesKind, swizzled: bool, problems: i64) -> Result<ModesPlan> {
        check_problems(problems)?;
        let frags = Fragments::new()?;
        let tile: Layout = format!("({ROWS},{COLS}):({COLS},1)").parse()?;
        let coords: Layout = format!("({ROWS},{COLS}):(1,{ROWS})").parse()?;
        // Row i of the tile as a row-major 16x16 block: (r, c, i) -> i + 16 (16 r + c).
        let rows: Layout = "(16,16,16):(256,16,1)".parse()?;
        let fill = vec_copy(ROWS, COLS, 32 * WARPS)?.tidfrg_s(&coords)?;
        let mode1_a = frags.copy_a.tidfrg_s(&coords)?;
        let mode1_b = frags.copy_b.tidfrg_s(&coords)?;
        let mode2_a = frags.copy_a.tidfrg_s(&rows)?;
        let mode2_b = frags.copy_b.tidfrg_s(&rows)?;
        let fill_tv = per_warp(&flat_tv(&fill)?)?;
        let ldsm = |part: &Layout| -> Result<Access> { Ok(Access::new("ldsm.x4".parse()?, flat_tv(part)?)) };
        let sts = Access::new("sts.128".parse()?, fill_tv.clone());
        let lds = Access::new("lds.128".parse()?, fill_tv);
        let sets: Vec<Vec<Access>> = match kind {
            ModesKind::Shared => vec![vec![
                sts,
                ldsm(&mode1_a)?,
                ldsm(&mode1_b)?,
                ldsm(&mode2_a)?,
                ldsm(&mode2_b)?,
            ]],
            ModesKind::Relayout => vec![
                vec![sts.clone(), ldsm(&mode1_a)?, ldsm(&mode1_b)?, lds],
                vec![sts, ldsm(&mode2_a)?, ldsm(&mode2_b)?],
            ],
        };
        let synthesis = sets
            .iter()
            .map(|accesses| synthesize(&tile, 2, accesses, Options::default()))
            .collect::<Result<Vec<_>>>()?;
        let smem1 = swizzled_or_plain(&synthesis[0].layout, swizzled);
        let smem2 = swizzled_or_plain(&synthesis[synthesis.len() - 1].layout, swizzled);
        Ok(ModesPlan {
            kind,
            swizzled,
            problems,
            frags,
            tile,
            fill,
            mode1_a,
            mode1_b,
            mode2_a,
            mode2_b,
            smem1,
            smem2,
            synthesis,
        })
    }

    /// `mma_{modes|relayout}_{swizzled|plain}`.
    ///
    /// ```
    /// use tessel_kernels::mma::modes::{ModesKind, ModesPlan};
    /// assert_eq!(ModesPlan::new(ModesKind::Shared, false, 1).unwrap().kernel_name(), "mma_modes_plain");
    /// ```
    pub fn kernel_name(&self) -> String {
        let s = if self.swizzled { "swizzled" } else { "plain" };
        format!("mma_{}_{s}", self.kind.name())
    }

    /// Every shared-memory access of one block, in program order: the fill stores of `A` and
    /// `B`, mode 1's `ldmatrix` of both, (problem 4: the re-layout's loads and stores), mode 2's.
    ///
    /// ```
    /// use tessel_kernels::mma::modes::{ModesKind, ModesPlan};
    /// let plan = ModesPlan::new(ModesKind::Relayout, false, 1).unwrap();
    /// assert_eq!(plan.accesses().unwrap().len(), 8);
    /// ```
    pub fn accesses(&self) -> Result<Vec<SmemAccess>> {
        let fill_tv = per_warp(&flat_tv(&self.fill)?)?;
        let vec = |what: &str, op: &str, smem: &ComposedLayout| -> Result<SmemAccess> {
            Ok(SmemAccess {
                what: what.into(),
                op: op.parse()?,
                smem: smem.clone(),
                tv: fill_tv.clone(),
                times: 2, // A and B
            })
        };
        let mut v = vec![
            vec("fill (A and B)", "sts.128", &self.smem1)?,
            ldsm_access("mode 1 ldmatrix A", &self.smem1, &self.mode1_a)?,
            ldsm_access("mode 1 ldmatrix B", &self.smem1, &self.mode1_b)?,
        ];
        if self.kind == ModesKind::Relayout {
            v.push(vec("re-layout loads (A and B)", "lds.128", &self.smem1)?);
            v.push(vec("re-layout stores (A and B)", "sts.128", &self.smem2)?);
        }
        v.push(ldsm_access("mode 2 ldmatrix A", &self.smem2, &self.mode2_a)?);
        v.push(ldsm_access("mode 2 ldmatrix B", &self.smem2, &self.mode2_b)?);
        Ok(v)
    }

    /// The bank model of every shared-memory instruction of one launch (all blocks).
    ///
    /// ```
    /// use tessel_kernels::mma::modes::{ModesKind, ModesPlan};
    /// let one = ModesPlan::new(ModesKind::Shared, false, 1).unwrap().traffic().unwrap();
    /// let ten = ModesPlan::new(ModesKind::Shared, false, 10).unwrap().traffic().unwrap();
    /// assert_eq!(one.scaled(10), ten);
    /// ```
    pub fn traffic(&self) -> Result<SmemTraffic> {
        Ok(traffic(&self.accesses()?, 2)?.scaled(self.problems))
    }

    /// `(lane, value, warp)` -> offset of an accumulator in one problem's `C1` or `C2` (16
    /// row-major 16x16 fp32 tiles, warp `w`'s at `256 w`).
    ///
    /// ```
    /// use tessel_kernels::mma::modes::{ModesKind, ModesPlan};
    /// let c = ModesPlan::new(ModesKind::Shared, true, 1).unwrap().c_out().unwrap();
    /// assert_eq!(c.offset(4).unwrap(), 16); // lane 4: row 1
    /// ```
    pub fn c_out(&self) -> Result<Layout> {
        composition(&"(16,16,16):(16,1,256)".parse()?, &self.frags.c_tiles(WARPS)?)
    }

    /// `thread -> offset` of a thread's `ldmatrix` row in `smem` (the partition's value 0).
    fn ldsm_rows(smem: &ComposedLayout, part: &Layout) -> Result<ComposedLayout> {
        smem.compose(&starts(part)?)
    }

    /// The kernel: parameters `(const b16* A, const b16* B, float* C1, float* C2)`, each
    /// `problems x 4096` elements, one block of 512 threads per problem.
    ///
    /// ```
    /// use tessel_kernels::mma::modes::{ModesKind, ModesPlan};
    /// let k = ModesPlan::new(ModesKind::Shared, true, 8).unwrap().kernel().unwrap();
    /// assert_eq!((k.launch().grid.0, k.launch().block.0), (8, 512));
    /// assert!(k.source().contains("Sw<1,3,3>"));
    /// ```
    pub fn kernel(&self) -> GpuResult<Kernel> {
        let fill_start = starts(&self.fill)?;
        let fill_g = composition(&self.tile, &fill_start)?;
        let (ldsm_name, ldsm_code) = ptx::ldsm();
        let (mma_name, mma_code) = ptx::mma();
        let body = match self.kind {
            ModesKind::Shared => BODY_SHARED,
            ModesKind::Relayout => BODY_RELAYOUT,
        };
        let n = len(self.problems, ROWS * COLS);
        let mut b = KernelBuilder::new(&self.kernel_name(), body)
            .comment(&format!(
                "tessel-kernels mma {}: shared layouts {} / {}",
                self.kind.name(),
                self.smem1,
                self.smem2
            ))
            .int("TILE", ROWS * COLS)
            .int("NB", 2)
            .int("B_REGS", 2)
            .index_layout("fill_g", &fill_g);
        b = match self.kind {
            ModesKind::Shared => b.composed_layout("fill_s", &self.smem1.compose(&fill_start)?),
            ModesKind::Relayout => b
                .composed_layout("fill_s1", &self.smem1.compose(&fill_start)?)
                .composed_layout("fill_s2", &self.smem2.compose(&fill_start)?),
        };
        b.composed_layout("ldsm_a1", &Self::ldsm_rows(&self.smem1, &self.mode1_a)?)
            .composed_layout("ldsm_b1", &Self::ldsm_rows(&self.smem1, &self.mode1_b)?)
            .composed_layout("ldsm_a2", &Self::ldsm_rows(&self.smem2, &self.mode2_a)?)
            .composed_layout("ldsm_b2", &Self::ldsm_rows(&self.smem2, &self.mode2_b)?)
            .coord_layout("c_out", &self.c_out()?)
            .device_fn(ldsm_name, ldsm_code)
            .device_fn(mma_name, mma_code)
            .param(Param::input("A", CType::B16.into()).len(n))
            .param(Param::input("B", CType::B16.into()).len(n))
            .param(Param::output("C1", CType::F32.into()).len(n))
            .param(Param::output("C2", CType::F32.into()).len(n))
            .threads(u32::try_from(32 * WARPS).unwrap_or(0))
            .grid(check_problems(self.problems)?, 1, 1)
            .build()
    }
}
