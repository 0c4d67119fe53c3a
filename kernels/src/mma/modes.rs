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
//! C fragment in mode 2's view ([`ModesDeclarations::c2_s`]), and after another barrier the
//! block copies the tile to global memory in 16-byte chunks (`tile_s2` -> `tile_g`). The second
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

use super::device::{
    BOperand, WarpProduct, accumulator_stores, both_sides, chunks, copy_all, ldmatrix_rows, store_c,
};
use super::{
    Fragments, SmemAccess, check_problems, flat_tv, len, per_warp, swizzled_or_plain, traffic,
    vec_copy,
};
use crate::error::GpuResult;
use crate::kernel::{CType, Kernel, KernelBuilder, Param};
use crate::layer::{DeviceCopy, DeviceTensor};

/// The body of problem 3.
///
/// ```
/// assert!(tessel_kernels::mma::modes::BODY_SHARED.contains("tessel::gemm(mma::mma{}"));
/// ```
pub const BODY_SHARED: &str = include_str!("../../cuda/mma_modes.cu");
/// The body of problem 4.
///
/// ```
/// assert!(tessel_kernels::mma::modes::BODY_RELAYOUT.contains("tensor::tile_s2(sA)"));
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

    /// The kernel body of this problem.
    ///
    /// ```
    /// use tessel_kernels::mma::modes::{BODY_RELAYOUT, ModesKind};
    /// assert_eq!(ModesKind::Relayout.body(), BODY_RELAYOUT);
    /// ```
    pub fn body(self) -> &'static str {
        match self {
            ModesKind::Shared => BODY_SHARED,
            ModesKind::Relayout => BODY_RELAYOUT,
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

    /// The kernel's declarations in the tensor layer (every partition checked on the host).
    /// Problem 3 reads `tile_s2` as `tile_s` (one layout); `store_h`, `acc_h`, `view_h` and
    /// `c2_s` are problem 4's `C2` path.
    ///
    /// ```
    /// use tessel_kernels::mma::modes::{ModesKind, ModesPlan};
    /// let d = ModesPlan::new(ModesKind::Relayout, true, 1).unwrap().declarations().unwrap();
    /// // (lane, values, atoms, MMA_M, MMA_K, 1, column blocks): warp j slices (.., 0, j).
    /// assert_eq!(d.a1.extents(), vec![32, 8, 1, 1, 1, 1, 16]);
    /// // (lane, values, atoms, MMA_M, MMA_K, rows): warp i slices (.., i).
    /// assert_eq!(d.a2.extents(), vec![32, 8, 1, 1, 1, 16]);
    /// ```
    pub fn declarations(&self) -> GpuResult<ModesDeclarations> {
        let chunk = chunks("chunk", ROWS, COLS, 32 * WARPS)?;
        let tile_g = both_sides(&chunk, &DeviceTensor::global(CType::B16, self.tile.clone()))?;
        let (s1, s2) = (
            DeviceTensor::shared(CType::B16, self.smem1.clone()),
            DeviceTensor::shared(CType::B16, self.smem2.clone()),
        );
        // Mode 2's view of the tile: row i as a 16x16 block, (r, c, i).
        let rows = DeviceTensor::shared(CType::B16, self.smem2.compose(&rows_view()?)?);
        let warp = WarpProduct::new(&self.frags, BOperand::KMajor)?;
        let blocks = s1.local_tile(&[16, 16])?;
        let store_h = store_c(&self.frags, "store_h", CType::B16)?;
        let store_c = store_c(&self.frags, "store_c", CType::F32)?;
        let acc_h = warp.mma.partition_fragment('C', &[16, 16], CType::B16)?;
        let c = DeviceTensor::global(CType::F32, "(16,16,16):(16,1,256)".parse()?);
        Ok(ModesDeclarations {
            regs: tile_g.fragment_like(1..5)?,
            tile_s1: both_sides(&chunk, &s1)?,
            tile_s2: both_sides(&chunk, &s2)?,
            a1: warp.ldsm_a.partition_s(&blocks)?,
            b1: warp.ldsm_b.partition_s(&blocks)?,
            a2: warp.ldsm_a.partition_s(&rows)?,
            b2: warp.ldsm_b.partition_s(&rows)?,
            view_c: store_c.retile_s(&warp.acc)?,
            c_g: store_c.partition_d(&c)?,
            view_h: store_h.retile_s(&acc_h)?,
            c2_s: store_h.partition_d(&rows)?,
            acc_h,
            store_h,
            store_c,
            chunk,
            tile_g,
            warp,
        })
    }

    /// The kernel's shared tensor behind each of [`ModesPlan::accesses`], in order.
    ///
    /// ```
    /// use tessel_kernels::mma::modes::{ModesKind, ModesPlan};
    /// let plan = ModesPlan::new(ModesKind::Relayout, true, 1).unwrap();
    /// assert_eq!(plan.smem_tensors().unwrap().len(), plan.accesses().unwrap().len());
    /// ```
    pub fn smem_tensors(&self) -> GpuResult<Vec<DeviceTensor>> {
        let d = self.declarations()?;
        let mut v = vec![d.tile_s1.clone(), d.a1, d.b1];
        if self.kind == ModesKind::Relayout {
            v.extend([d.tile_s1, d.tile_s2.clone()]);
        }
        v.extend([d.a2, d.b2]);
        if self.kind == ModesKind::Relayout {
            v.extend([d.c2_s, d.tile_s2]);
        }
        Ok(v)
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
    /// assert!(k.source().contains("struct c2_s_layout") && k.source().contains("b16* __restrict__ C2"));
    /// ```
    pub fn kernel(&self) -> GpuResult<Kernel> {
        let d = self.declarations()?;
        let n = len(self.problems, ROWS * COLS);
        let b = d
            .warp
            .declare(KernelBuilder::new(&self.kernel_name(), self.kind.body()))
            .comment(&format!(
                "tessel-kernels mma {}: shared layouts {} / {}",
                self.kind.name(),
                self.smem1,
                self.smem2
            ))
            .int("TILE", ROWS * COLS)
            .tiled_copy(&d.chunk)
            .tiled_copy(&d.store_c)
            .tensor("tile_g", &d.tile_g)
            .tensor("regs", &d.regs)
            .tensor("a1", &d.a1)
            .tensor("b1", &d.b1)
            .tensor("a2", &d.a2)
            .tensor("b2", &d.b2)
            .tensor("view_c", &d.view_c)
            .tensor("c_g", &d.c_g);
        let (b, c2_type) = match self.kind {
            ModesKind::Shared => (b.tensor("tile_s", &d.tile_s1), CType::F32),
            ModesKind::Relayout => (
                b.tensor("tile_s1", &d.tile_s1)
                    .tensor("tile_s2", &d.tile_s2)
                    .tiled_copy(&d.store_h)
                    .tensor("acc_h", &d.acc_h)
                    .tensor("view_h", &d.view_h)
                    .tensor("c2_s", &d.c2_s),
                CType::B16,
            ),
        };
        b.param(Param::input("A", CType::B16.into()).len(n))
            .param(Param::input("B", CType::B16.into()).len(n))
            .param(Param::output("C1", CType::F32.into()).len(n))
            .param(Param::output("C2", c2_type.into()).len(n))
            .threads(u32::try_from(32 * WARPS).unwrap_or(0))
            .grid(check_problems(self.problems)?, 1, 1)
            .build()
    }
}

/// The tensor-layer declarations of [`ModesPlan::kernel`] (names as in the bodies).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ModesDeclarations {
    /// The warp's product, B through `ldmatrix` (`mma::mma`, `copy::ldsm_a/b`, ...).
    pub warp: WarpProduct,
    /// `copy::chunk`: 16-byte chunks of a 16x256 tile, one per thread.
    pub chunk: DeviceCopy,
    /// `tensor::tile_g`: the chunks of a tile in global memory (`A`, `B`, problem 4's `C2`).
    pub tile_g: DeviceTensor,
    /// `tensor::tile_s` (problem 3), `tile_s1` (problem 4): the chunks in the first layout.
    pub tile_s1: DeviceTensor,
    /// `tensor::tile_s2` (problem 4): the chunks in the second layout.
    pub tile_s2: DeviceTensor,
    /// `tensor::regs`: one thread's chunk in registers.
    pub regs: DeviceTensor,
    /// `tensor::a1`: `ldmatrix` rows of `A`'s column blocks (mode 1).
    pub a1: DeviceTensor,
    /// `tensor::b1`: the same of `B`.
    pub b1: DeviceTensor,
    /// `tensor::a2`: `ldmatrix` rows of `A`'s rows as 16x16 blocks (mode 2, second layout).
    pub a2: DeviceTensor,
    /// `tensor::b2`: the same of `B`.
    pub b2: DeviceTensor,
    /// `copy::store_c`: fp32 accumulator pairs, one `float2` each.
    pub store_c: DeviceCopy,
    /// `tensor::view_c`: `store_c`'s view of the accumulators.
    pub view_c: DeviceTensor,
    /// `tensor::c_g`: where `store_c` writes warp `w`'s accumulators (its 16x16 tile of `C1` or
    /// `C2`, at `256 w`).
    pub c_g: DeviceTensor,
    /// `copy::store_h` (problem 4): fp16 accumulator pairs, one 32-bit word each.
    pub store_h: DeviceCopy,
    /// `tensor::acc_h` (problem 4): the accumulators in fp16.
    pub acc_h: DeviceTensor,
    /// `tensor::view_h` (problem 4): `store_h`'s view of `acc_h`.
    pub view_h: DeviceTensor,
    /// `tensor::c2_s` (problem 4): where `store_h` writes `C2` in `sA`: warp `i`'s C fragment in
    /// mode 2's view of the tile (`C2_i[m][n]` where `Asub_i[m][n]` is), second layout.
    pub c2_s: DeviceTensor,
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
    /// Replays one problem on the CPU the way the kernel runs it, through its declarations: the
    /// 16-byte chunks into the first layout ([`super::device::copy_all`]), every warp's
    /// `ldmatrix.x4` rows and product ([`WarpProduct::replay`], the [PTX ISA 9.0](https://docs.nvidia.com/cuda/archive/13.0.0/parallel-thread-execution/index.html)'s rules), the stores of
    /// its accumulators, and for problem 4 the re-layout and `C2`'s way out (rounded to fp16,
    /// written into `sA` through `c2_s`, copied out through `tile_s2` / `tile_g`). Returns `(C1,
    /// C2)` (problem 4's `C2` holds fp16 values); unwritten outputs are NaN.
    ///
    /// ```
    /// use tessel_kernels::measure::compare::expect_close;
    /// use tessel_kernels::mma::{host::random_f16, modes::{ModesKind, ModesPlan}};
    /// let plan = ModesPlan::new(ModesKind::Relayout, true, 1).unwrap();
    /// let (a, b) = (random_f16(4096, 1), random_f16(4096, 2));
    /// let (c1, c2) = plan.replay(&a, &b).unwrap();
    /// let (w1, b1, w2, b2) = ModesKind::Relayout.reference(&a, &b);
    /// expect_close("replay C1", &c1, &w1, &b1).unwrap();
    /// expect_close("replay C2", &c2, &w2, &b2).unwrap();
    /// ```
    pub fn replay(&self, a: &[half::f16], b: &[half::f16]) -> GpuResult<(Vec<f32>, Vec<f32>)> {
        let tile = (ROWS * COLS) as usize;
        let d = self.declarations()?;
        let fill = |src: &[half::f16]| -> GpuResult<Vec<half::f16>> {
            let mut s = vec![half::f16::NAN; tile];
            copy_all(&d.tile_g, src, &d.tile_s1, &mut s)?;
            Ok(s)
        };
        let (mut sa, mut sb) = (fill(a)?, fill(b)?);
        let mut outs = [vec![f32::NAN; tile], vec![f32::NAN; tile]];
        for (mode, out) in outs.iter_mut().enumerate() {
            let relayout = mode == 1 && self.kind == ModesKind::Relayout;
            if relayout {
                for s in [&mut sa, &mut sb] {
                    let mut moved = vec![half::f16::NAN; tile];
                    copy_all(&d.tile_s1, s, &d.tile_s2, &mut moved)?;
                    *s = moved;
                }
            }
            // Every warp's accumulators (the kernel's barriers keep the C2 stores after all reads).
            let mut accs = Vec::with_capacity(WARPS as usize);
            for w in 0..WARPS {
                let (rows_a, rows_b) = if mode == 0 {
                    let rest = [0, 0, 0, 0, w];
                    (ldmatrix_rows(&d.a1, &rest)?, ldmatrix_rows(&d.b1, &rest)?)
                } else {
                    let rest = [0, 0, 0, w];
                    (ldmatrix_rows(&d.a2, &rest)?, ldmatrix_rows(&d.b2, &rest)?)
                };
                accs.push(d.warp.replay(&sa, &rows_a, &sb, &rows_b)?);
            }
            for (w, acc) in (0..WARPS).zip(&accs) {
                if relayout {
                    for (o, x) in accumulator_stores(&d.view_h, &d.c2_s, &[0, 0, w], acc)? {
                        sa[o] = half::f16::from_f32(x);
                    }
                } else {
                    for (o, x) in accumulator_stores(&d.view_c, &d.c_g, &[0, 0, w], acc)? {
                        out[o] = x;
                    }
                }
            }
            if relayout {
                let mut c2 = vec![half::f16::NAN; tile];
                copy_all(&d.tile_s2, &sa, &d.tile_g, &mut c2)?;
                *out = c2.iter().map(|x| x.to_f32()).collect();
            }
        }
        let [c1, c2] = outs;
        Ok((c1, c2))
    }
}
