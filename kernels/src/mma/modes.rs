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
//! loads and stores, which the syntheses include too. `C1` goes from registers to global memory
//! (fp32); `C2` is stored through the second layout: each warp writes its accumulators as fp16
//! pairs (`sts.32`) into the 16x256 shared tile of `A` (after a barrier), at the positions of its
//! C fragment in mode 2's view ([`ModesPlan::c2_smem`]), and after another barrier the block
//! copies the tile to global memory in 16-byte chunks (`fill_s2` -> `fill_g`). The second
//! synthesis includes both of these accesses.
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
    /// The shared layout mode 2 reads (`smem1` in problem 3); in problem 4 also the layout
    /// `C2` is written through and read out of.
    pub smem2: ComposedLayout,
    /// The syntheses behind `smem1` (and `smem2`), also kept for the twin.
    pub synthesis: Vec<Synthesis>,
}

/// Row `i` of the tile as a row-major 16x16 block, `(r, c, i) -> i + 16 (16 r + c)`: mode 2's
/// view of the tile's domain (`(16,256)` column-major).
fn rows_view() -> Result<Layout> {
    "(16,16,16):(256,16,1)".parse()
}

/// `(lane, value, warp)` -> domain index of `C2`'s accumulators in the tile: warp `i`'s C
/// fragment ([`Fragments::c_tiles`]) seen through mode 2's view, so `C2_i[m][n]` lies where
/// `Asub_i[m][n]` does (row `i`, column `16 m + n`).
fn c2_domain(frags: &Fragments) -> Result<Layout> {
    composition(&rows_view()?, &frags.c_tiles(WARPS)?)
}

/// `(lane, half, pair, warp)` -> domain index of the `sts.32` stores that write `C2` as fp16
/// pairs (accumulators `v`, `v + 1` of a lane in one word; 4 stores per warp).
fn c2_write(frags: &Fragments) -> Result<Layout> {
    composition(&c2_domain(frags)?, &"(32,2,4,16):(1,32,64,256)".parse()?)
}

fn ldsm_access(what: &str, smem: &ComposedLayout, part: &Layout) -> Result<SmemAccess> {
    Ok(SmemAccess {
        what: what.into(),
        op: "ldsm.x4".parse()?,
        smem: smem.clone(),
        tv: flat_tv(part)?,
        times: 1,
        instruction: None,
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
        let rows = rows_view()?;
        let fill = vec_copy(ROWS, COLS, 32 * WARPS)?.tidfrg_s(&coords)?;
        let mode1_a = frags.copy_a.tidfrg_s(&coords)?;
        let mode1_b = frags.copy_b.tidfrg_s(&coords)?;
        let mode2_a = frags.copy_a.tidfrg_s(&rows)?;
        let mode2_b = frags.copy_b.tidfrg_s(&rows)?;
        let fill_tv = per_warp(&flat_tv(&fill)?)?;
        let ldsm = |part: &Layout| -> Result<Access> {
            Ok(Access::new("ldsm.x4".parse()?, flat_tv(part)?))
        };
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
                vec![sts.clone(), ldsm(&mode1_a)?, ldsm(&mode1_b)?, lds.clone()],
                vec![
                    sts,
                    ldsm(&mode2_a)?,
                    ldsm(&mode2_b)?,
                    Access::new("sts.32".parse()?, c2_write(&frags)?),
                    lds,
                ],
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
    /// `B`, mode 1's `ldmatrix` of both, (problem 4: the re-layout's loads and stores), mode 2's,
    /// (problem 4: `C2`'s `sts.32` fp16 pairs into the second layout and its 128-bit read-out).
    ///
    /// ```
    /// use tessel_kernels::mma::modes::{ModesKind, ModesPlan};
    /// let plan = ModesPlan::new(ModesKind::Relayout, false, 1).unwrap();
    /// assert_eq!(plan.accesses().unwrap().len(), 9);
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
                instruction: None,
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
        v.push(ldsm_access(
            "mode 2 ldmatrix A",
            &self.smem2,
            &self.mode2_a,
        )?);
        v.push(ldsm_access(
            "mode 2 ldmatrix B",
            &self.smem2,
            &self.mode2_b,
        )?);
        if self.kind == ModesKind::Relayout {
            v.push(SmemAccess {
                what: "C2 write (fp16 pairs)".into(),
                op: "sts.32".parse()?,
                smem: self.smem2.clone(),
                tv: c2_write(&self.frags)?,
                times: 1,
                instruction: None,
            });
            v.push(SmemAccess {
                times: 1,
                ..vec("C2 read-out", "lds.128", &self.smem2)?
            });
        }
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
    /// row-major 16x16 tiles, warp `w`'s at `256 w`): where problem 3 writes both and problem
    /// 4 writes `C1` (fp32, from registers).
    ///
    /// ```
    /// use tessel_kernels::mma::modes::{ModesKind, ModesPlan};
    /// let c = ModesPlan::new(ModesKind::Shared, true, 1).unwrap().c_out().unwrap();
    /// assert_eq!(c.offset(4).unwrap(), 16); // lane 4: row 1
    /// ```
    pub fn c_out(&self) -> Result<Layout> {
        composition(
            &"(16,16,16):(16,1,256)".parse()?,
            &self.frags.c_tiles(WARPS)?,
        )
    }

    /// `(lane, value, warp)` -> offset in the second shared layout ([`ModesPlan::smem2`]) of a
    /// `C2` accumulator, which problem 4 writes there as fp16 (`layout::c2_smem_crd`): the C
    /// fragment of warp `i` seen through mode 2's view (row `i` as a 16x16 block), composed with
    /// `smem2`. The read-out then moves it through `fill_s2` to `fill_g`, i.e. to the offset
    /// [`ModesPlan::c_out`] gives.
    ///
    /// ```
    /// use tessel_kernels::mma::modes::{ModesKind, ModesPlan};
    /// let plain = ModesPlan::new(ModesKind::Relayout, false, 1).unwrap().c2_smem().unwrap();
    /// assert_eq!(plain.offset(4).unwrap(), 16); // lane 4: C2_0[1][0], row 0, column 16
    /// assert_eq!(plain.offset(32 * 8).unwrap(), 256); // warp 1's (0,0): row 1
    /// ```
    pub fn c2_smem(&self) -> Result<ComposedLayout> {
        self.smem2.compose(&c2_domain(&self.frags)?)
    }

    /// `(lane, half, pair, warp)` -> domain index of problem 4's `sts.32` writes of `C2` (one
    /// fp16 pair of adjacent accumulators per lane and store, 4 stores per warp): the TV the
    /// bank model and the second synthesis see.
    ///
    /// ```
    /// use tessel_kernels::mma::modes::{ModesKind, ModesPlan};
    /// let w = ModesPlan::new(ModesKind::Relayout, true, 1).unwrap().c2_write().unwrap();
    /// assert_eq!(w.size(), 4096);
    /// assert_eq!(w.offset(32).unwrap(), 16); // lane 0's second half: C2_0[0][1], column 1
    /// ```
    pub fn c2_write(&self) -> Result<Layout> {
        c2_write(&self.frags)
    }

    /// `thread -> offset` of the row thread `t` gives `ldmatrix` through `part` in `smem` (the
    /// partition's value 0): `layout::ldsm_a1` and the others.
    ///
    /// ```
    /// use tessel_kernels::mma::modes::{ModesKind, ModesPlan};
    /// let plan = ModesPlan::new(ModesKind::Shared, false, 1).unwrap();
    /// let rows = ModesPlan::ldsm_rows(&plan.smem1, &plan.mode1_a).unwrap();
    /// assert_eq!(rows.offset(1).unwrap(), 256); // lane 1: row 1 of column block 0
    /// assert_eq!(rows.offset(32).unwrap(), 16); // warp 1: column block 1
    /// ```
    pub fn ldsm_rows(smem: &ComposedLayout, part: &Layout) -> Result<ComposedLayout> {
        smem.compose(&starts(part)?)
    }

    /// `thread -> offset` of thread `t`'s 16-byte chunk of `A` or `B` in global memory (from
    /// the problem's origin): `layout::fill_g`.
    ///
    /// ```
    /// use tessel_kernels::mma::modes::{ModesKind, ModesPlan};
    /// let g = ModesPlan::new(ModesKind::Shared, true, 1).unwrap().fill_g().unwrap();
    /// assert_eq!((g.offset(1).unwrap(), g.offset(32).unwrap()), (8, 256));
    /// ```
    pub fn fill_g(&self) -> Result<Layout> {
        composition(&self.tile, &starts(&self.fill)?)
    }

    /// `thread -> offset` of thread `t`'s chunk in `smem`: `layout::fill_s` (`fill_s1`,
    /// `fill_s2`).
    ///
    /// ```
    /// use tessel_kernels::mma::modes::{ModesKind, ModesPlan};
    /// let plan = ModesPlan::new(ModesKind::Shared, false, 1).unwrap();
    /// assert_eq!(plan.fill_s(&plan.smem1).unwrap().offset(33).unwrap(), 264);
    /// ```
    pub fn fill_s(&self, smem: &ComposedLayout) -> Result<ComposedLayout> {
        smem.compose(&starts(&self.fill)?)
    }

    /// The kernel: parameters `(const b16* A, const b16* B, float* C1, float* C2)` (problem 4:
    /// `b16* C2`, fp16), each `problems x 4096` elements, one block of 512 threads per problem.
    ///
    /// ```
    /// use tessel_kernels::mma::modes::{ModesKind, ModesPlan};
    /// let k = ModesPlan::new(ModesKind::Shared, true, 8).unwrap().kernel().unwrap();
    /// assert_eq!((k.launch().grid.0, k.launch().block.0), (8, 512));
    /// assert!(k.source().contains("Sw<1,3,3>"));
    /// let k = ModesPlan::new(ModesKind::Relayout, true, 8).unwrap().kernel().unwrap();
    /// assert!(k.source().contains("c2_smem_crd(") && k.source().contains("b16* __restrict__ C2"));
    /// ```
    pub fn kernel(&self) -> GpuResult<Kernel> {
        let fill_g = self.fill_g()?;
        let body = match self.kind {
            ModesKind::Shared => BODY_SHARED,
            ModesKind::Relayout => BODY_RELAYOUT,
        };
        let n = len(self.problems, ROWS * COLS);
        let b = KernelBuilder::new(&self.kernel_name(), body)
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
        use ptx::Instruction::{Ldsm, Mma, MmaTile, PackHalf2, StorePairs};
        let (b, c2_type) = match self.kind {
            ModesKind::Shared => (
                ptx::with(
                    b.composed_layout("fill_s", &self.fill_s(&self.smem1)?),
                    &[Ldsm, Mma, MmaTile, StorePairs],
                )?,
                CType::F32,
            ),
            ModesKind::Relayout => (
                ptx::with(
                    b.composed_layout("fill_s1", &self.fill_s(&self.smem1)?)
                        .composed_layout("fill_s2", &self.fill_s(&self.smem2)?)
                        .composed_layout("c2_smem", &self.c2_smem()?),
                    &[Ldsm, Mma, PackHalf2, MmaTile, StorePairs],
                )?,
                CType::B16,
            ),
        };
        b.composed_layout("ldsm_a1", &Self::ldsm_rows(&self.smem1, &self.mode1_a)?)
            .composed_layout("ldsm_b1", &Self::ldsm_rows(&self.smem1, &self.mode1_b)?)
            .composed_layout("ldsm_a2", &Self::ldsm_rows(&self.smem2, &self.mode2_a)?)
            .composed_layout("ldsm_b2", &Self::ldsm_rows(&self.smem2, &self.mode2_b)?)
            .coord_layout("c_out", &self.c_out()?)
            .param(Param::input("A", CType::B16.into()).len(n))
            .param(Param::input("B", CType::B16.into()).len(n))
            .param(Param::output("C1", CType::F32.into()).len(n))
            .param(Param::output("C2", c2_type.into()).len(n))
            .threads(u32::try_from(32 * WARPS).unwrap_or(0))
            .grid(check_problems(self.problems)?, 1, 1)
            .build()
    }
}

impl ModesKind {
    /// The reference of one problem of this kind: [`reference()`], and for problem 4 (which
    /// stores `C2` as fp16) with `C2` rounded to fp16 and its bound widened by both roundings
    /// ([`super::host::round_to_f16`]).
    ///
    /// ```
    /// use tessel_kernels::mma::{host::random_f16, modes::{reference, ModesKind}};
    /// let (a, b) = (random_f16(4096, 5), random_f16(4096, 6));
    /// let (_, _, c2, b2) = reference(&a, &b);
    /// let (_, _, r2, rb2) = ModesKind::Relayout.reference(&a, &b);
    /// assert!(r2.iter().all(|x| half::f16::from_f32(*x).to_f32() == *x));
    /// assert!(rb2.iter().zip(&b2).all(|(r, b)| r > b));
    /// assert_eq!(ModesKind::Shared.reference(&a, &b).2, c2);
    /// ```
    pub fn reference(
        self,
        a: &[half::f16],
        b: &[half::f16],
    ) -> (Vec<f32>, Vec<f32>, Vec<f32>, Vec<f32>) {
        let (c1, b1, c2, b2) = reference(a, b);
        match self {
            ModesKind::Shared => (c1, b1, c2, b2),
            ModesKind::Relayout => {
                let (c2, b2) = super::host::round_to_f16(&c2, &b2);
                (c1, b1, c2, b2)
            }
        }
    }
}

/// The reference of one problem: `(C1, bound of C1, C2, bound of C2)`, each 16 row-major 16x16
/// fp32 tiles ([`super::host::dot16`]); `a`, `b` are the 16x256 row-major tiles. (Problem 4's
/// `C2` is fp16: [`ModesKind::reference`].)
///
/// ```
/// use half::f16;
/// use tessel_kernels::mma::modes::reference;
/// let a = vec![f16::ONE; 4096];
/// let (c1, _, c2, _) = reference(&a, &a);
/// assert_eq!((c1[0], c2[4095]), (16.0, 16.0));
/// ```
pub fn reference(a: &[half::f16], b: &[half::f16]) -> (Vec<f32>, Vec<f32>, Vec<f32>, Vec<f32>) {
    let at = |x: &[half::f16], r: usize, c: usize| x[r * COLS as usize + c].to_f32();
    let (mut c1, mut b1, mut c2, mut b2) = (vec![], vec![], vec![], vec![]);
    for w in 0..WARPS as usize {
        let (c, bound) =
            super::host::dot16(|m, k| at(a, m, 16 * w + k), |n, k| at(b, n, 16 * w + k));
        c1.extend(c);
        b1.extend(bound);
        let (c, bound) =
            super::host::dot16(|m, k| at(a, w, 16 * m + k), |n, k| at(b, w, 16 * n + k));
        c2.extend(c);
        b2.extend(bound);
    }
    (c1, b1, c2, b2)
}

impl ModesPlan {
    /// Replays one problem on the CPU the way the kernel runs it, through the layouts it is
    /// emitted from: the 16-byte fill chunks ([`ModesPlan::fill_g`], [`ModesPlan::fill_s`]), the
    /// `ldmatrix.x4` rows of every warp ([`ModesPlan::ldsm_rows`]) and the [PTX ISA 9.0](https://docs.nvidia.com/cuda/archive/13.0.0/parallel-thread-execution/index.html)'s `ldmatrix`
    /// and `mma` rules ([`super::host`]), (problem 4: the re-layout), and the accumulators'
    /// positions ([`ModesPlan::c_out`]; problem 4's `C2`: rounded to fp16, written into `sA`
    /// through [`ModesPlan::c2_smem`] and copied out through `fill_s2` / `fill_g`). Returns
    /// `(C1, C2)` (problem 4's `C2` holds fp16 values); unwritten outputs are NaN.
    ///
    /// ```
    /// use tessel_kernels::mma::{host::{expect_close, random_f16}, modes::{ModesKind, ModesPlan}};
    /// let plan = ModesPlan::new(ModesKind::Relayout, true, 1).unwrap();
    /// let (a, b) = (random_f16(4096, 1), random_f16(4096, 2));
    /// let (c1, c2) = plan.replay(&a, &b).unwrap();
    /// let (w1, b1, w2, b2) = ModesKind::Relayout.reference(&a, &b);
    /// expect_close("replay C1", &c1, &w1, &b1).unwrap();
    /// expect_close("replay C2", &c2, &w2, &b2).unwrap();
    /// ```
    pub fn replay(&self, a: &[half::f16], b: &[half::f16]) -> GpuResult<(Vec<f32>, Vec<f32>)> {
        use super::host::{ldmatrix_x4, mma_m16n8k16};
        let tile = (ROWS * COLS) as usize;
        let threads = 32 * WARPS;
        let (fill_g, fill_s1, fill_s2) = (
            self.fill_g()?,
            self.fill_s(&self.smem1)?,
            self.fill_s(&self.smem2)?,
        );
        let idx = |l: &dyn Fn(i64) -> Result<i64>, i: i64| -> GpuResult<usize> {
            Ok(usize::try_from(l(i)?).unwrap_or(usize::MAX))
        };
        let fill = |src: &[half::f16], smem: &ComposedLayout| -> GpuResult<Vec<half::f16>> {
            let mut s = vec![half::f16::NAN; tile];
            let to = self.fill_s(smem)?;
            for t in 0..threads {
                let (g, o) = (idx(&|i| fill_g.offset(i), t)?, idx(&|i| to.offset(i), t)?);
                s[o..o + 8].copy_from_slice(&src[g..g + 8]);
            }
            Ok(s)
        };
        let mut sa = fill(a, &self.smem1)?;
        let mut sb = fill(b, &self.smem1)?;
        let c_out = self.c_out()?;
        let mut outs = [vec![f32::NAN; tile], vec![f32::NAN; tile]];
        for (mode, out) in outs.iter_mut().enumerate() {
            if mode == 1 && self.kind == ModesKind::Relayout {
                for s in [&mut sa, &mut sb] {
                    let mut moved = vec![half::f16::NAN; tile];
                    for t in 0..threads {
                        let from = idx(&|i| fill_s1.offset(i), t)?;
                        let to = idx(&|i| fill_s2.offset(i), t)?;
                        moved[to..to + 8].copy_from_slice(&s[from..from + 8]);
                    }
                    *s = moved;
                }
            }
            let (smem, pa, pb) = if mode == 0 {
                (&self.smem1, &self.mode1_a, &self.mode1_b)
            } else {
                (&self.smem2, &self.mode2_a, &self.mode2_b)
            };
            let (ra, rb) = (Self::ldsm_rows(smem, pa)?, Self::ldsm_rows(smem, pb)?);
            // The accumulators of every warp, (lane, value, warp) colexicographic.
            let mut acc = vec![f32::NAN; tile];
            for w in 0..WARPS {
                let rows = |l: &ComposedLayout| -> GpuResult<[i64; 32]> {
                    let mut r = [0i64; 32];
                    for (lane, x) in r.iter_mut().enumerate() {
                        *x = l.offset(32 * w + lane as i64)?;
                    }
                    Ok(r)
                };
                let fa = ldmatrix_x4(&sa, &rows(&ra)?, false)?;
                let fb = ldmatrix_x4(&sb, &rows(&rb)?, false)?;
                for j in 0..2 {
                    let bj: [[u32; 2]; 32] =
                        std::array::from_fn(|l| [fb[l][2 * j], fb[l][2 * j + 1]]);
                    let d = mma_m16n8k16(&fa, &bj, &[[0.0; 4]; 32]);
                    for (lane, vals) in d.iter().enumerate() {
                        for (v, &x) in vals.iter().enumerate() {
                            let i = lane as i64 + 32 * ((v + 4 * j) as i64 + 8 * w);
                            acc[usize::try_from(i).unwrap_or(usize::MAX)] = x;
                        }
                    }
                }
            }
            if mode == 1 && self.kind == ModesKind::Relayout {
                // After a barrier C2 goes as fp16 into sA through the second layout, then (after
                // another) out through the 16-byte chunks of fill_s2 / fill_g.
                let c2_smem = self.c2_smem()?;
                for (i, &x) in acc.iter().enumerate() {
                    sa[idx(&|i| c2_smem.offset(i), i as i64)?] = half::f16::from_f32(x);
                }
                for t in 0..threads {
                    let (g, s) = (
                        idx(&|i| fill_g.offset(i), t)?,
                        idx(&|i| fill_s2.offset(i), t)?,
                    );
                    for (o, x) in out[g..g + 8].iter_mut().zip(&sa[s..s + 8]) {
                        *o = x.to_f32();
                    }
                }
            } else {
                for (i, &x) in acc.iter().enumerate() {
                    out[idx(&|i| c_out.offset(i), i as i64)?] = x;
                }
            }
        }
        let [c1, c2] = outs;
        Ok((c1, c2))
    }
}
