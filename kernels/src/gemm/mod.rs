//! A tensor-core GEMM (`cp.async` + `ldmatrix` + `mma.sync.m16n8k16`) built from tessel layouts.
//!
//! Computes `C = A * B^T` with
//! - `A`: M x K fp16, row-major (`(M,K):(K,1)`),
//! - `B`: N x K fp16, row-major (`(N,K):(K,1)`: the "TN" convention, both operands K-contiguous),
//! - `C`: M x N fp32, row-major (`(M,N):(N,1)`), fp32 accumulation.
//!
//! One block computes a 128 x BN tile of C (BN 128 with 4 warps or 256 with 8 warps, 2 x BN/64,
//! a 64 x 64 warp tile each), stepping through K in BK-wide slices (32 or 64) held in a 3- or
//! 4-stage `cp.async` pipeline ([`GemmConfig`]; the default is 128 x 128 x 32, 3 stages). Both
//! shared-memory tiles are K-major `(rows,BK):(BK,1)` under the swizzle `Sw<2,3,3>` (BK 32) or
//! `Sw<3,3,3>` (BK 64): the 16-byte chunk index XOR-ed with the row bits above one 128-byte
//! line, so that the 16-byte `cp.async` stores and the `ldmatrix.x4` reads are free of bank
//! conflicts ([`GemmPlan::bank_reports`] proves it with `tessel_layout::bank::analyze_copy`).
//!
//! The thread arrangements come from CuTe's constructions on the atoms, not from layouts spelled
//! by hand: the tiled MMA ([`GemmConfig::tiled_mma`], `make_tiled_mma` of [`MMA`]), the
//! `ldmatrix` copies `make_tiled_copy_A/B` of [`LDSM`] and the `cp.async` stage copy
//! ([`GemmConfig::cp_async_copy`], `make_tiled_copy` of [`CP_ASYNC`]); the instructions are
//! device functions generated from the same atoms (`dev::cp`, `dev::ldsm`, `dev::mma`).
//!
//! Every index the kernel computes is a generated function of a layout in [`GemmPlan`]: the block
//! raster, the tile origins, the global and shared offsets of every `cp.async`, the row address
//! each lane hands to `ldmatrix` and the global offset of every accumulator (the SM80 C fragment
//! `((4,8),(2,2)):((32,1),(16,8))` lifted into the block tile). [`host::simulate`] replays the
//! kernel's data movement on the CPU through the same layouts and the PTX fragment rules.
//!
//! ```
//! use tessel_kernels::gemm::GemmPlan;
//! let plan = GemmPlan::new(256, 384, 96).unwrap();
//! assert_eq!(plan.kernel_name(), "gemm_tn_f16_f32_256x384x96_128x128x32s3");
//! assert!(plan.source().unwrap().contains("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32"));
//! assert!(GemmPlan::new(100, 128, 32).is_err()); // M not a multiple of 128
//! ```

pub mod host;
pub mod run;

use tessel_layout::atom::{SmemSide, copy_atom, mma_atom};
use tessel_layout::bank::{BankReport, analyze_copy};
use tessel_layout::tiled::{
    TiledCopy, TiledMma, make_tiled_copy, make_tiled_copy_a, make_tiled_copy_b, make_tiled_mma,
};
use tessel_layout::{
    ComposedLayout, IntTuple, Layout, Result, Swizzle, checked_add, checked_mul, composition,
};

use crate::error::{GpuError, GpuResult};
use crate::kernel::{CType, Kernel, KernelBuilder, Param};
use crate::tiled::raster_layout;

/// The device body of the GEMM.
///
/// ```
/// use tessel_kernels::gemm::BODY;
/// assert!(BODY.contains("dev::mma(") && BODY.contains("dev::load_stage"));
/// ```
pub const BODY: &str = include_str!("../../cuda/gemm_mma.cu");
/// The device function `dev::load_stage`: one K slice of both operands into a pipeline stage
/// with `cp.async`, through the hoisted `layout::ld_*` offsets.
///
/// ```
/// use tessel_kernels::gemm::LOAD_STAGE;
/// assert!(LOAD_STAGE.contains("void load_stage(") && LOAD_STAGE.contains("dev::cp("));
/// ```
pub const LOAD_STAGE: &str = include_str!("../../cuda/gemm_load_stage.cuh");
/// The device function `dev::load_frags`: the `ldmatrix.x4` fragment loads of one k step.
///
/// ```
/// use tessel_kernels::gemm::LOAD_FRAGS;
/// assert!(LOAD_FRAGS.contains("void load_frags(") && LOAD_FRAGS.contains("dev::ldsm("));
/// ```
pub const LOAD_FRAGS: &str = include_str!("../../cuda/gemm_load_frags.cuh");

/// The MMA atom of the kernel (CuTe's name): `mma.sync.aligned.m16n8k16`, fp16 inputs, fp32
/// accumulators; its device function is `dev::mma(d, a, b, c)`.
///
/// ```
/// use tessel_kernels::gemm::MMA;
/// assert_eq!(tessel_layout::atom::mma_atom(MMA).unwrap().shape_mnk(), [16, 8, 16]);
/// ```
pub const MMA: &str = "SM80_16x8x16_F32F16F16F32_TN";
/// The copy atom of the fragment loads: `ldmatrix.x4` (`dev::ldsm(dst, smem)`).
///
/// ```
/// use tessel_kernels::gemm::LDSM;
/// assert_eq!(tessel_layout::atom::copy_atom(LDSM).unwrap().threads(), 32);
/// ```
pub const LDSM: &str = "SM75_U32x4_LDSM_N";
/// The copy atom of the stage loads: a 16-byte `cp.async.cg` (`dev::cp(smem, gmem)`).
///
/// ```
/// use tessel_kernels::gemm::CP_ASYNC;
/// let atom = tessel_layout::atom::copy_atom(CP_ASYNC).unwrap();
/// assert_eq!(atom.asm_template().unwrap(), "cp.async.cg.shared.global [%0], [%1], 16;");
/// ```
pub const CP_ASYNC: &str = "SM80_CP_ASYNC_CACHEGLOBAL<uint128_t>";

/// Block tile rows (of A and C).
///
/// ```
/// use tessel_kernels::gemm::{BM, GemmPlan};
/// assert_eq!(BM, 128);
/// assert!(GemmPlan::new(BM + 64, 128, 32).is_err());
/// ```
pub const BM: i64 = 128;
/// Warp tile rows and columns (2 x BN/64 warps per block).
///
/// ```
/// use tessel_kernels::gemm::{GemmConfig, BM, WARP_TILE};
/// // 4 warps of 64 x 64 cover the default 128 x 128 block tile.
/// assert_eq!(GemmConfig::DEFAULT.threads() / 32, (BM / WARP_TILE) * (128 / WARP_TILE));
/// ```
pub const WARP_TILE: i64 = 64;
/// Block raster group (tiles visited in 8 x 8 groups for L2 reuse).
///
/// ```
/// use tessel_kernels::gemm::{GemmPlan, RASTER_GROUP};
/// let plan = GemmPlan::new(16 * 128, 16 * 128, 32).unwrap();
/// // Consecutive blocks walk down a group of RASTER_GROUP tile rows first.
/// let first: Vec<i64> = (0..RASTER_GROUP).map(|b| plan.raster.offset(b).unwrap()).collect();
/// assert_eq!(first, (0..RASTER_GROUP).collect::<Vec<_>>());
/// ```
pub const RASTER_GROUP: i64 = 8;
/// Accumulator fragments per warp: 4 (m16) x 8 (n8).
///
/// ```
/// use tessel_kernels::gemm::{MI, WARP_TILE};
/// assert_eq!(MI * 16, WARP_TILE); // m16 fragments down the warp tile
/// ```
pub const MI: i64 = 4;
/// n8 fragments per warp.
///
/// ```
/// use tessel_kernels::gemm::{NI, WARP_TILE};
/// assert_eq!(NI * 8, WARP_TILE); // n8 fragments across the warp tile
/// ```
pub const NI: i64 = 8;

/// The modes of an `ldmatrix` offset function `(thread, fragment, kk, stage)` the kernel
/// evaluates together, once per thread, before the main loop (the swizzle mixes the thread's
/// row bits with the k step's chunk bits); the fragment and stage modes are added to that base
/// as constants ([`split_offset`], proven by [`check_split`] in [`GemmPlan::validate`]).
///
/// ```
/// use tessel_kernels::gemm::{check_split, GemmPlan, LDSM_HOISTED};
/// let plan = GemmPlan::new(128, 128, 32).unwrap();
/// assert!(check_split(&plan.ldsm(&plan.a, &plan.ldsm_a_tv).unwrap(), LDSM_HOISTED).is_ok());
/// ```
pub const LDSM_HOISTED: &[usize] = &[0, 2];
/// The modes of a `cp.async` shared offset function `(thread, iteration, stage)` evaluated once
/// per thread; iteration and stage are added.
///
/// ```
/// use tessel_kernels::gemm::{check_split, GemmPlan, LD_SMEM_HOISTED};
/// let plan = GemmPlan::new(128, 128, 32).unwrap();
/// assert!(check_split(&plan.ld_smem(&plan.b).unwrap(), LD_SMEM_HOISTED).is_ok());
/// ```
pub const LD_SMEM_HOISTED: &[usize] = &[0];

/// The offset of `crd` (one entry per top-level mode) the way the kernel computes it: `layout`
/// at `crd` with every mode outside `hoisted` set to 0 (the per-thread base, computed once),
/// plus, for each mode `m` outside `hoisted`, `layout` at `crd[m]` alone (a constant or the
/// stage offset). Equal to the plain offset exactly when [`check_split`] holds.
///
/// ```
/// use tessel_kernels::gemm::split_offset;
/// use tessel_layout::{ComposedLayout, Swizzle};
/// // Sw<1,3,3> XORs bit 3 with bit 6: rows (stride 64) and the stage (stride 1024) add.
/// let l = ComposedLayout::new(vec![Swizzle::new(1, 3, 3).unwrap()], 0,
///                             "(2,8,2):(64,8,1024)".parse().unwrap());
/// assert_eq!(split_offset(&l, &[1, 1, 1], &[0, 1]).unwrap(), l.offset(1 + 2 + 16).unwrap());
/// ```
pub fn split_offset(layout: &ComposedLayout, crd: &[i64], hoisted: &[usize]) -> Result<i64> {
    let at = |keep: &dyn Fn(usize) -> bool| -> Result<i64> {
        let modes = layout.layout().modes();
        if modes.len() != crd.len() {
            return Err(tessel_layout::Error::invalid(format!(
                "{} coordinates for the rank-{} layout {layout}",
                crd.len(),
                modes.len()
            )));
        }
        let (mut index, mut step) = (0i64, 1i64);
        for (m, (mode, &c)) in modes.iter().zip(crd).enumerate() {
            if keep(m) {
                index = checked_add(index, checked_mul(c, step, "split index")?, "split index")?;
            }
            step = checked_mul(step, mode.size(), "split index")?;
        }
        layout.offset(index)
    };
    let mut total = at(&|m| hoisted.contains(&m))?;
    for m in (0..crd.len()).filter(|m| !hoisted.contains(m)) {
        total = checked_add(total, at(&|x| x == m)?, "split offset")?;
    }
    Ok(total)
}

/// Proves, by evaluating every coordinate, that [`split_offset`] equals the offset of `layout`:
/// the kernel may compute the `hoisted` modes once and add the others. `Err` names the first
/// coordinate where the swizzle does not split.
///
/// ```
/// use tessel_kernels::gemm::check_split;
/// use tessel_layout::{ComposedLayout, Swizzle};
/// let l = ComposedLayout::new(vec![Swizzle::new(1, 3, 3).unwrap()], 0,
///                             "(2,8,2):(64,8,1024)".parse().unwrap());
/// assert!(check_split(&l, &[0, 1]).is_ok());
/// assert!(check_split(&l, &[1]).is_err()); // the row (mode 0) feeds the swizzle
/// ```
pub fn check_split(layout: &ComposedLayout, hoisted: &[usize]) -> Result<()> {
    let sizes: Vec<i64> = layout.layout().modes().iter().map(Layout::size).collect();
    let mut crd = vec![0i64; sizes.len()];
    for index in 0..layout.layout().size() {
        let mut rest = index;
        for (c, &n) in crd.iter_mut().zip(&sizes) {
            *c = rest % n;
            rest /= n;
        }
        let (whole, split) = (layout.offset(index)?, split_offset(layout, &crd, hoisted)?);
        if whole != split {
            return Err(tessel_layout::Error::invalid(format!(
                "{layout} does not split into modes {hoisted:?} plus the others at {crd:?}: \
                 {whole} != {split}"
            )));
        }
    }
    Ok(())
}

/// The tunable shape of the kernel: block tile columns, K slice and pipeline depth.
///
/// ```
/// use tessel_kernels::gemm::GemmConfig;
/// let c = GemmConfig::DEFAULT;
/// assert_eq!(c.threads(), 32 * 2 * c.bn / 64);
/// assert!(GemmConfig { bn: 192, bk: 32, stages: 3 }.check().is_err());
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct GemmConfig {
    /// Block tile columns: 128 (4 warps) or 256 (8 warps).
    pub bn: i64,
    /// K slice per stage: 32 (64-byte rows, `Sw<2,3,3>`) or 64 (128-byte rows, `Sw<3,3,3>`).
    pub bk: i64,
    /// Pipeline stages, 2..=5.
    pub stages: i64,
}

impl GemmConfig {
    /// The default: 128 x 128 x 32, 3 stages, 48 KiB of shared memory (fits every sm_80+
    /// GPU); within 2% of the fastest configuration on the H100 (docs/performance.md).
    ///
    /// ```
    /// use tessel_kernels::gemm::GemmConfig;
    /// assert_eq!(GemmConfig::DEFAULT.smem_bytes(), 48 * 1024);
    /// ```
    pub const DEFAULT: GemmConfig = GemmConfig {
        bn: 128,
        bk: 32,
        stages: 3,
    };

    /// The fastest configuration measured on the H100: 128 x 256 x 64, 4 stages, 8 warps,
    /// 192 KiB of shared memory (needs a GPU that allows that much per block, e.g. Hopper).
    ///
    /// ```
    /// use tessel_kernels::gemm::GemmConfig;
    /// assert_eq!(GemmConfig::LARGE.smem_bytes(), 192 * 1024);
    /// assert_eq!(GemmConfig::LARGE.threads(), 256);
    /// ```
    pub const LARGE: GemmConfig = GemmConfig {
        bn: 256,
        bk: 64,
        stages: 4,
    };

    /// Every configuration the kernel supports.
    ///
    /// ```
    /// use tessel_kernels::gemm::GemmConfig;
    /// let all = GemmConfig::all();
    /// assert_eq!(all.len(), 8);
    /// assert!(all.contains(&GemmConfig::DEFAULT) && all.iter().all(|c| c.check().is_ok()));
    /// ```
    pub fn all() -> Vec<GemmConfig> {
        let mut v = Vec::new();
        for bn in [128, 256] {
            for bk in [32, 64] {
                for stages in [3, 4] {
                    v.push(GemmConfig { bn, bk, stages });
                }
            }
        }
        v
    }

    /// Threads per block.
    ///
    /// ```
    /// use tessel_kernels::gemm::GemmConfig;
    /// assert_eq!(GemmConfig::DEFAULT.threads(), 128);
    /// ```
    pub fn threads(&self) -> i64 {
        32 * 2 * (self.bn / WARP_TILE)
    }

    /// Dynamic shared memory in bytes (both operands, all stages).
    ///
    /// ```
    /// use tessel_kernels::gemm::GemmConfig;
    /// // (128 + 128) rows x 32 halves x 2 bytes x 3 stages.
    /// assert_eq!(GemmConfig::DEFAULT.smem_bytes(), 256 * 32 * 2 * 3);
    /// ```
    pub fn smem_bytes(&self) -> i64 {
        2 * (BM + self.bn) * self.bk * self.stages
    }

    /// The kernel's tiled MMA: CuTe's `make_tiled_mma` of [`MMA`] over `2 x BN/64` warps
    /// (warp `w` at `(w % 2, w / 2)`), with the M and N permutations that give each warp a
    /// 64 x 64 tile: M index `a + 16 w + 32 i` is row `a + 64 w + 16 i` (`(16,2,MI):(1,64,16)`),
    /// N index `b + 8 w + 8 (BN/64) j` is column `b + 64 w + 8 j`.
    ///
    /// ```
    /// use tessel_kernels::gemm::GemmConfig;
    /// let mma = GemmConfig::DEFAULT.tiled_mma().unwrap();
    /// assert_eq!((mma.threads(), mma.tile_size(0).unwrap(), mma.tile_size(1).unwrap()), (128, 128, 128));
    /// ```
    pub fn tiled_mma(&self) -> Result<TiledMma> {
        let wn = self.bn / WARP_TILE;
        make_tiled_mma(
            &mma_atom(MMA)?,
            &parse(&format!("(2,{wn}):(1,2)"))?,
            &[
                Some(parse(&format!("(16,2,{MI}):(1,64,16)"))?),
                Some(parse(&format!("(8,{wn},{NI}):(1,64,8)"))?),
            ],
        )
    }

    /// The `ldmatrix.x4` copy of A's fragments: CuTe's `make_tiled_copy_A(`[`LDSM`]`, `
    /// [`GemmConfig::tiled_mma`]`)` on fp16 (its destination is the MMA's A fragment).
    ///
    /// ```
    /// use tessel_kernels::gemm::GemmConfig;
    /// let copy = GemmConfig::DEFAULT.ldsm_copy_a().unwrap();
    /// assert_eq!((copy.threads(), copy.values()), (128, 32)); // 4 ldmatrix.x4 of 8 halves
    /// ```
    pub fn ldsm_copy_a(&self) -> Result<TiledCopy> {
        make_tiled_copy_a(&copy_atom(LDSM)?.typed(16)?, &self.tiled_mma()?)
    }

    /// The `ldmatrix.x4` copy of B's fragments: `make_tiled_copy_B(`[`LDSM`]`, tiled MMA)`.
    ///
    /// ```
    /// use tessel_kernels::gemm::GemmConfig;
    /// let copy = GemmConfig::DEFAULT.ldsm_copy_b().unwrap();
    /// assert_eq!(copy.tiler()[0], 128); // the block tile's N extent
    /// ```
    pub fn ldsm_copy_b(&self) -> Result<TiledCopy> {
        make_tiled_copy_b(&copy_atom(LDSM)?.typed(16)?, &self.tiled_mma()?)
    }

    /// The `cp.async` copy of one K slice into a stage: `make_tiled_copy(`[`CP_ASYNC`]`, thr,
    /// val)` on fp16 with the threads row-major over `(threads / (BK/8), BK/8)` 16-byte chunks
    /// (`val (1,8)`): thread `t` moves chunk `t % (BK/8)` of row `t / (BK/8)`, the copy repeated
    /// down the operand's rows.
    ///
    /// ```
    /// use tessel_kernels::gemm::GemmConfig;
    /// let copy = GemmConfig::DEFAULT.cp_async_copy().unwrap();
    /// assert_eq!(copy.tiler(), &[32, 32]); // 128 threads: 32 rows of 4 chunks
    /// ```
    pub fn cp_async_copy(&self) -> Result<TiledCopy> {
        let chunks = self.bk / 8;
        let rows = self.threads() / chunks;
        make_tiled_copy(
            &copy_atom(CP_ASYNC)?.typed(16)?,
            &parse(&format!("({rows},{chunks}):({chunks},1)"))?,
            &parse("(1,8):(0,1)")?,
        )
    }

    /// `Err` unless the configuration is one the kernel supports.
    ///
    /// ```
    /// use tessel_kernels::gemm::GemmConfig;
    /// assert!(GemmConfig::DEFAULT.check().is_ok());
    /// assert!(GemmConfig { bn: 256, bk: 64, stages: 5 }.check().is_err()); // 240 KiB
    /// ```
    pub fn check(&self) -> GpuResult<()> {
        let ok = matches!(self.bn, 128 | 256)
            && matches!(self.bk, 32 | 64)
            && (2..=5).contains(&self.stages)
            && self.smem_bytes() <= 227 * 1024;
        if ok {
            Ok(())
        } else {
            Err(GpuError::InvalidArgument(format!(
                "gemm configuration {self}: needs BN in {{128, 256}}, BK in {{32, 64}}, 2..=5 \
                 stages and at most 227 KiB of shared memory"
            )))
        }
    }
}

impl std::fmt::Display for GemmConfig {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}x{}x{}s{}", BM, self.bn, self.bk, self.stages)
    }
}

fn parse(text: &str) -> Result<Layout> {
    text.parse()
}

fn ints<const N: usize>(x: [i64; N]) -> IntTuple {
    IntTuple::from_ints(x)
}

/// One operand's shared-memory tile and `cp.async` partition.
///
/// ```
/// use tessel_kernels::gemm::GemmPlan;
/// let plan = GemmPlan::new(128, 256, 32).unwrap();
/// assert_eq!((plan.a.rows, plan.b.rows), (128, 128));
/// assert_eq!(plan.a.smem_inner.to_string(), "(128,32,3):(32,1,4096)");
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OperandTile {
    /// Rows of the tile (128 for A, BN for B).
    pub rows: i64,
    /// `(row, k, stage)` -> element without the swizzle: `(rows,BK,S):(BK,1,rows BK)`
    /// (K-major, stages one after the other).
    pub smem_inner: Layout,
    /// `cp.async` partition `(thread, value, iteration)` -> index `r + rows k` of one stage:
    /// thread `t` moves 16-byte chunk `t % (BK/8)` of row `t / (BK/8)`; iterations step rows
    /// (CuTe's `tidfrg_S` of [`GemmConfig::cp_async_copy`] over the `rows x BK` stage).
    pub ld_tv: Layout,
}

/// Every layout the GEMM kernel is generated from.
///
/// ```
/// use tessel_kernels::gemm::GemmPlan;
/// let plan = GemmPlan::new(256, 128, 64).unwrap();
/// assert_eq!(plan.g_a.to_string(), "(256,64):(64,1)");
/// assert_eq!(plan.c_frag.to_string(), "((4,8),(2,2)):((32,1),(16,8))");
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GemmPlan {
    /// Rows of A and C.
    pub m: i64,
    /// Columns of C (rows of B).
    pub n: i64,
    /// The reduction extent (columns of A and B).
    pub k: i64,
    /// Tile shape and pipeline depth.
    pub cfg: GemmConfig,
    /// `A`: `(M,K):(K,1)`.
    pub g_a: Layout,
    /// `B` (N x K): `(N,K):(K,1)`.
    pub g_b: Layout,
    /// `C`: `(M,N):(N,1)`.
    pub g_c: Layout,
    /// Block id -> tile index `ty + TY * tx` (grouped raster).
    pub raster: Layout,
    /// Tile index -> first row of the block's C tile.
    pub tile_m0: Layout,
    /// Tile index -> first column of the block's C tile.
    pub tile_n0: Layout,
    /// The swizzle of both shared-memory tiles: `Sw<2,3,3>` for 64-byte rows (BK 32),
    /// `Sw<3,3,3>` for 128-byte rows (BK 64): the 16-byte chunk index XOR the row bits above
    /// one 128-byte line.
    pub swizzle: Swizzle,
    /// A's shared tile.
    pub a: OperandTile,
    /// B's shared tile.
    pub b: OperandTile,
    /// `ldmatrix.x4` partition of A: `(thread, value, mi, kk)` -> tile index (lane `l` addresses
    /// row `l % 16`, k `8 (l / 16)` of the 16 x 16 fragment `mi`; warp `w` rows `64 (w % 2)`):
    /// `tidfrg_S` of [`GemmConfig::ldsm_copy_a`] over the `128 x BK` tile.
    pub ldsm_a_tv: Layout,
    /// `ldmatrix.x4` partition of B: `(thread, value, nj, kk)` -> tile index (lane `l` addresses
    /// n `l % 8 + 8 (l / 16)`, k `8 ((l / 8) % 2)` of the n16 x k16 pair `nj`; warp `w`
    /// columns `64 (w / 2)`): `tidfrg_S` of [`GemmConfig::ldsm_copy_b`] over the `BN x BK` tile.
    pub ldsm_b_tv: Layout,
    /// The SM80 16x8x16 C fragment `((4,8),(2,2)):((32,1),(16,8))`: (lane, value) -> `m + 16 n`
    /// (the C layout of the [`MMA`] atom).
    pub c_frag: Layout,
    /// `(thread, value, mi, ni)` -> index `m + 128 n` of the block's C tile: `thrfrg_C` of
    /// [`GemmConfig::tiled_mma`] over the `128 x BN` tile.
    pub c_tv: Layout,
}

/// Bank-model reports of one K slice of one block (see [`GemmPlan::bank_reports`]).
///
/// ```
/// use tessel_kernels::gemm::GemmPlan;
/// let banks = GemmPlan::new(128, 128, 32).unwrap().bank_reports(true).unwrap();
/// assert_eq!(banks.ldsm_b.excess, 0);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct GemmBanks {
    /// The `cp.async` 16-byte stores of A.
    pub store_a: BankReport,
    /// The `cp.async` 16-byte stores of B.
    pub store_b: BankReport,
    /// The `ldmatrix.x4` reads of A.
    pub ldsm_a: BankReport,
    /// The `ldmatrix.x4` reads of B.
    pub ldsm_b: BankReport,
}

impl GemmBanks {
    /// Total excess wavefronts.
    ///
    /// ```
    /// use tessel_kernels::gemm::GemmPlan;
    /// let plan = GemmPlan::new(128, 128, 32).unwrap();
    /// assert_eq!(plan.bank_reports(true).unwrap().excess(), 0);
    /// assert!(plan.bank_reports(false).unwrap().excess() > 0);
    /// ```
    pub fn excess(&self) -> i64 {
        self.store_a.excess + self.store_b.excess + self.ldsm_a.excess + self.ldsm_b.excess
    }
}

fn operand_tile(rows: i64, cfg: GemmConfig) -> Result<OperandTile> {
    let smem_inner = Layout::new(
        ints([rows, cfg.bk, cfg.stages]),
        ints([cfg.bk, 1, rows * cfg.bk]),
    )?;
    let copy = cfg.cp_async_copy()?;
    let iterations = rows / copy.tiler()[0];
    let ld_tv = thread_values(&copy.tidfrg_s(&col_major(rows, cfg.bk)?)?, &[iterations])?;
    Ok(OperandTile {
        rows,
        smem_inner,
        ld_tv,
    })
}

/// The column-major index layout of a `rows x cols` tile: `r + rows c`.
fn col_major(rows: i64, cols: i64) -> Result<Layout> {
    Layout::col_major(&ints([rows, cols]))
}

/// A partition `(thread, (atom values, atoms), (tiles...))` (CuTe's `tidfrg_S` of a copy, or
/// `thrfrg_C` of an MMA with its thread and value modes) as `(thread, atom values, r0, r1, ...)`:
/// the atoms of a thread and the tiles, enumerated together (atoms fastest), split into modes
/// of the extents `repeats`.
fn thread_values(partition: &Layout, repeats: &[i64]) -> Result<Layout> {
    let (threads, values) = (partition.mode(0)?, partition.mode(1)?);
    let (atom_values, mut others) = if values.rank() >= 2 {
        (values.mode(0)?, vec![values.mode(1)?])
    } else {
        (values, Vec::new())
    };
    if partition.rank() > 2 {
        others.push(partition.mode(2)?);
    }
    let others = Layout::from_modes(others)?;
    let wanted: i64 = repeats.iter().product();
    if others.size() != wanted {
        return Err(tessel_layout::Error::invalid(format!(
            "the partition {partition} has {} atoms and tiles per thread, not {repeats:?}",
            others.size()
        )));
    }
    let split = composition(
        &others,
        &Layout::col_major(&IntTuple::from_ints(repeats.to_vec()))?,
    )?;
    let mut modes = vec![threads, atom_values];
    modes.extend(split.modes());
    Layout::from_modes(modes)
}

impl GemmPlan {
    /// The plan for `C (m x n) = A (m x k) * B (n x k)^T` with the default configuration;
    /// `m` must be a multiple of 128, `n` of 128 and `k` of 32 (each at most 65536).
    ///
    /// ```
    /// use tessel_kernels::gemm::GemmPlan;
    /// let err = GemmPlan::new(128, 128, 40).unwrap_err().to_string();
    /// assert!(err.contains("K = 40 is not a multiple of 32"), "{err}");
    /// ```
    pub fn new(m: i64, n: i64, k: i64) -> GpuResult<GemmPlan> {
        Self::with_config(m, n, k, GemmConfig::DEFAULT)
    }

    /// The plan with configuration `cfg`: `m` a multiple of 128, `n` of `cfg.bn`, `k` of
    /// `cfg.bk`.
    ///
    /// ```
    /// use tessel_kernels::gemm::{GemmConfig, GemmPlan};
    /// let cfg = GemmConfig { bn: 256, bk: 64, stages: 4 };
    /// assert!(GemmPlan::with_config(256, 512, 128, cfg).is_ok());
    /// assert!(GemmPlan::with_config(256, 384, 128, cfg).is_err());
    /// ```
    pub fn with_config(m: i64, n: i64, k: i64, cfg: GemmConfig) -> GpuResult<GemmPlan> {
        cfg.check()?;
        for (name, v, tile) in [("M", m, BM), ("N", n, cfg.bn), ("K", k, cfg.bk)] {
            if !(1..=65536).contains(&v) || v % tile != 0 {
                return Err(GpuError::InvalidArgument(format!(
                    "gemm {m}x{n}x{k}: {name} = {v} is not a multiple of {tile} in \
                     {tile}..=65536 (the kernel has no edge handling: M must be a multiple \
                     of {BM}, N of {}, K of {})",
                    cfg.bn, cfg.bk
                )));
            }
        }
        Ok(Self::build(m, n, k, cfg)?)
    }

    fn build(m: i64, n: i64, k: i64, cfg: GemmConfig) -> Result<GemmPlan> {
        let (bn, bk) = (cfg.bn, cfg.bk);
        let (ty, tx) = (m / BM, n / bn);
        // ldmatrix.x4 partitions (thread, value, fragment, k step): CuTe's tidfrg_S of the
        // make_tiled_copy_A/B copies over the block's (rows, BK) tiles.
        let ldsm_a_tv = thread_values(
            &cfg.ldsm_copy_a()?.tidfrg_s(&col_major(BM, bk)?)?,
            &[MI, bk / 16],
        )?;
        let ldsm_b_tv = thread_values(
            &cfg.ldsm_copy_b()?.tidfrg_s(&col_major(bn, bk)?)?,
            &[NI / 2, bk / 16],
        )?;
        // The accumulators (thread, value, mi, ni): CuTe's thrfrg_C of the tiled MMA over the
        // 128 x BN block tile; c_frag is the atom's C layout (SM80_16x8x16_F32F16F16F32_TN).
        let mma = cfg.tiled_mma()?;
        let c_frag = mma.atom().c_layout().clone();
        let thrfrg = mma.thrfrg_c(&col_major(BM, bn)?)?;
        let c_tv = thread_values(
            &Layout::from_modes([
                thrfrg.mode(0)?,
                Layout::from_modes([thrfrg.mode(1)?.mode(0)?, thrfrg.mode(1)?.mode(1)?])?,
            ])?,
            &[MI, NI],
        )?;
        let swizzle = if bk == 32 {
            Swizzle::new(2, 3, 3)?
        } else {
            Swizzle::new(3, 3, 3)?
        };
        Ok(GemmPlan {
            m,
            n,
            k,
            cfg,
            g_a: Layout::new(ints([m, k]), ints([k, 1]))?,
            g_b: Layout::new(ints([n, k]), ints([k, 1]))?,
            g_c: Layout::new(ints([m, n]), ints([n, 1]))?,
            raster: raster_layout(ty, tx, RASTER_GROUP)?,
            tile_m0: Layout::new(ints([ty, tx]), ints([BM, 0]))?,
            tile_n0: Layout::new(ints([ty, tx]), ints([0, bn]))?,
            swizzle,
            a: operand_tile(BM, cfg)?,
            b: operand_tile(bn, cfg)?,
            ldsm_a_tv,
            ldsm_b_tv,
            c_frag,
            c_tv,
        })
    }

    /// Kernel name, e.g. `gemm_tn_f16_f32_4096x4096x4096_128x128x32s3`.
    ///
    /// ```
    /// use tessel_kernels::gemm::{GemmConfig, GemmPlan};
    /// let plan = GemmPlan::with_config(128, 256, 64, GemmConfig::LARGE).unwrap();
    /// assert_eq!(plan.kernel_name(), "gemm_tn_f16_f32_128x256x64_128x256x64s4");
    /// ```
    pub fn kernel_name(&self) -> String {
        format!(
            "gemm_tn_f16_f32_{}x{}x{}_{}x{}x{}s{}",
            self.m, self.n, self.k, BM, self.cfg.bn, self.cfg.bk, self.cfg.stages
        )
    }

    /// Number of blocks (one per 128 x BN tile of C).
    ///
    /// ```
    /// use tessel_kernels::gemm::GemmPlan;
    /// assert_eq!(GemmPlan::new(256, 384, 32).unwrap().blocks(), 2 * 3);
    /// ```
    pub fn blocks(&self) -> u32 {
        u32::try_from((self.m / BM) * (self.n / self.cfg.bn)).unwrap_or(u32::MAX)
    }

    /// Threads per block.
    ///
    /// ```
    /// use tessel_kernels::gemm::GemmPlan;
    /// assert_eq!(GemmPlan::new(128, 128, 32).unwrap().threads(), 128);
    /// ```
    pub fn threads(&self) -> u32 {
        u32::try_from(self.cfg.threads()).unwrap_or(0)
    }

    /// Floating-point operations of one GEMM (`2 M N K`).
    ///
    /// ```
    /// use tessel_kernels::gemm::GemmPlan;
    /// assert_eq!(GemmPlan::new(128, 128, 32).unwrap().flops(), 2.0 * 128.0 * 128.0 * 32.0);
    /// ```
    pub fn flops(&self) -> f64 {
        2.0 * self.m as f64 * self.n as f64 * self.k as f64
    }

    /// Number of K slices.
    ///
    /// ```
    /// use tessel_kernels::gemm::GemmPlan;
    /// assert_eq!(GemmPlan::new(128, 128, 96).unwrap().k_tiles(), 3);
    /// ```
    pub fn k_tiles(&self) -> i64 {
        self.k / self.cfg.bk
    }

    /// The swizzled shared-memory tile of an operand, `(row, k, stage)` -> element offset.
    ///
    /// ```
    /// use tessel_kernels::gemm::GemmPlan;
    /// let plan = GemmPlan::new(128, 128, 32).unwrap();
    /// let smem = plan.smem(&plan.a);
    /// // Row 2, chunk 0 of stage 0 lands in chunk 0 XOR (row bits above one 128-byte line = 1).
    /// assert_eq!(smem.offset(2).unwrap(), 2 * 32 + 8);
    /// ```
    pub fn smem(&self, op: &OperandTile) -> ComposedLayout {
        ComposedLayout::new(vec![self.swizzle], 0, op.smem_inner.clone())
    }

    /// `tv` without its value mode (mode 1): the per-vector start indices.
    fn starts(tv: &Layout) -> Result<Layout> {
        let modes = tv.modes();
        Layout::from_modes(
            modes
                .iter()
                .enumerate()
                .filter(|(i, _)| *i != 1)
                .map(|(_, m)| m.clone()),
        )
    }

    fn stage_mode(&self, op: &OperandTile) -> Result<Layout> {
        parse(&format!("{}:{}", self.cfg.stages, op.rows * self.cfg.bk))
    }

    /// `(thread, iteration, stage)` -> swizzled shared offset of the first element of a chunk.
    ///
    /// ```
    /// use tessel_kernels::gemm::GemmPlan;
    /// let plan = GemmPlan::new(128, 128, 32).unwrap();
    /// let st = plan.ld_smem(&plan.a).unwrap();
    /// assert_eq!(st.offset(0).unwrap(), 0);
    /// assert_eq!(st.offset(1).unwrap(), 8); // thread 1: the second 16-byte chunk of row 0
    /// ```
    pub fn ld_smem(&self, op: &OperandTile) -> Result<ComposedLayout> {
        let starts = Self::starts(&op.ld_tv)?.append(&self.stage_mode(op)?)?;
        Ok(ComposedLayout::new(
            vec![self.swizzle],
            0,
            composition(&op.smem_inner, &starts)?,
        ))
    }

    /// `(thread, iteration, k tile)` -> global offset (from the block's tile origin) of a chunk
    /// (A and B are both K-contiguous with leading dimension K).
    ///
    /// ```
    /// use tessel_kernels::gemm::GemmPlan;
    /// let plan = GemmPlan::new(128, 128, 64).unwrap();
    /// let g = plan.ld_global(&plan.a).unwrap();
    /// assert_eq!(g.offset(1).unwrap(), 8); // thread 1: the second chunk of row 0
    /// assert_eq!(g.offset(4).unwrap(), 64); // thread 4: row 1 (4 chunks of BK 32; K = 64)
    /// ```
    pub fn ld_global(&self, op: &OperandTile) -> Result<Layout> {
        let bk = self.cfg.bk;
        let tile = Layout::new(ints([op.rows, bk, self.k_tiles()]), ints([self.k, 1, bk]))?;
        let starts = Self::starts(&op.ld_tv)?.append(&parse(&format!(
            "{}:{}",
            self.k_tiles(),
            op.rows * bk
        ))?)?;
        composition(&tile, &starts)
    }

    /// `(thread, mi|nj, kk, stage)` -> swizzled shared offset of the row this thread's lane
    /// hands to `ldmatrix.x4` (`tv` is [`GemmPlan::ldsm_a_tv`] on A or `ldsm_b_tv` on B).
    ///
    /// ```
    /// use tessel_kernels::gemm::GemmPlan;
    /// let plan = GemmPlan::new(128, 128, 32).unwrap();
    /// let l = plan.ldsm(&plan.a, &plan.ldsm_a_tv).unwrap();
    /// assert_eq!(l.offset(0).unwrap(), 0);
    /// assert_eq!(l.offset(1).unwrap(), 32); // lane 1 addresses row 1 (no swizzle below 4 rows)
    /// ```
    pub fn ldsm(&self, op: &OperandTile, tv: &Layout) -> Result<ComposedLayout> {
        let starts = Self::starts(tv)?.append(&self.stage_mode(op)?)?;
        Ok(ComposedLayout::new(
            vec![self.swizzle],
            0,
            composition(&op.smem_inner, &starts)?,
        ))
    }

    /// `(thread, value, mi, ni)` -> global offset of an accumulator from the C tile origin.
    ///
    /// ```
    /// use tessel_kernels::gemm::GemmPlan;
    /// let plan = GemmPlan::new(128, 256, 32).unwrap();
    /// let c = plan.c_out().unwrap();
    /// assert_eq!(c.offset(0).unwrap(), 0);
    /// assert_eq!(c.offset(4).unwrap(), 256); // lane 4 holds row 1 (leading dimension N = 256)
    /// ```
    pub fn c_out(&self) -> Result<Layout> {
        let tile = Layout::new(ints([BM, self.cfg.bn]), ints([self.n, 1]))?;
        composition(&tile, &self.c_tv)
    }

    /// One stage of an operand tile, `(row, k)` -> element, swizzled or plain.
    ///
    /// ```
    /// use tessel_kernels::gemm::GemmPlan;
    /// let plan = GemmPlan::new(128, 128, 32).unwrap();
    /// assert_eq!(plan.stage_tile(&plan.a, false).unwrap().offset(2).unwrap(), 64);
    /// assert_eq!(plan.stage_tile(&plan.a, true).unwrap().offset(2).unwrap(), 72);
    /// ```
    pub fn stage_tile(&self, op: &OperandTile, swizzled: bool) -> Result<ComposedLayout> {
        let plain = Layout::new(ints([op.rows, self.cfg.bk]), ints([self.cfg.bk, 1]))?;
        let swizzles = if swizzled { vec![self.swizzle] } else { vec![] };
        Ok(ComposedLayout::new(swizzles, 0, plain))
    }

    /// The bank model (`tessel_layout::bank::analyze_copy` of the tiled copies) of one block's
    /// shared-memory traffic per
    /// K slice: every warp's `cp.async` 16-byte stores and `ldmatrix.x4` reads of both
    /// operands, on the swizzled tiles or (for comparison) on the plain K-major ones.
    ///
    /// ```
    /// use tessel_kernels::gemm::GemmPlan;
    /// let plan = GemmPlan::new(128, 128, 32).unwrap();
    /// assert_eq!(plan.bank_reports(true).unwrap().excess(), 0);
    /// assert!(plan.bank_reports(false).unwrap().ldsm_a.excess > 0);
    /// ```
    pub fn bank_reports(&self, swizzled: bool) -> Result<GemmBanks> {
        let sa = self.stage_tile(&self.a, swizzled)?;
        let sb = self.stage_tile(&self.b, swizzled)?;
        let (cp, cfg) = (self.cfg.cp_async_copy()?, self.cfg);
        let sum = |reports: Vec<BankReport>| reports.into_iter().sum::<BankReport>();
        Ok(GemmBanks {
            store_a: sum(analyze_copy(&cp, &sa, SmemSide::Destination)?),
            store_b: sum(analyze_copy(&cp, &sb, SmemSide::Destination)?),
            ldsm_a: sum(analyze_copy(&cfg.ldsm_copy_a()?, &sa, SmemSide::Source)?),
            ldsm_b: sum(analyze_copy(&cfg.ldsm_copy_b()?, &sb, SmemSide::Source)?),
        })
    }

    /// Checks the vector accesses the kernel relies on: every `cp.async` chunk is 8 contiguous,
    /// 16-byte aligned elements in global and (swizzled) shared memory; every `ldmatrix` row is 8
    /// contiguous aligned elements (both through the bank model, which rejects anything else);
    /// the accumulator pairs `(v, v+1)` are contiguous in C.
    /// Also proves the kernel's hoisting ([`check_split`]) for every `ldmatrix` and `cp.async`
    /// shared offset function.
    ///
    /// ```
    /// use tessel_kernels::gemm::GemmPlan;
    /// assert!(GemmPlan::new(256, 256, 64).unwrap().validate().is_ok());
    /// ```
    pub fn validate(&self) -> Result<()> {
        self.bank_reports(true)?;
        check_split(&self.ldsm(&self.a, &self.ldsm_a_tv)?, LDSM_HOISTED)?;
        check_split(&self.ldsm(&self.b, &self.ldsm_b_tv)?, LDSM_HOISTED)?;
        check_split(&self.ld_smem(&self.a)?, LD_SMEM_HOISTED)?;
        check_split(&self.ld_smem(&self.b)?, LD_SMEM_HOISTED)?;
        for op in [&self.a, &self.b] {
            let g = Layout::new(ints([op.rows, self.cfg.bk]), ints([self.k, 1]))?;
            let chunks = composition(&g, &op.ld_tv)?;
            if chunks.mode(1)?.to_string() != "8:1" || self.k % 8 != 0 {
                return Err(tessel_layout::Error::invalid(format!(
                    "cp.async chunks are not 8 contiguous elements in global memory: {chunks}"
                )));
            }
        }
        let c = self.c_out()?;
        if c.mode(1)?.mode(0)?.to_string() != "2:1" || self.n % 2 != 0 {
            return Err(tessel_layout::Error::invalid(format!(
                "accumulator pairs are not contiguous in C: {c}"
            )));
        }
        Ok(())
    }

    /// The kernel: every layout of the plan as `layout::` functions, the tile shape as `k::`
    /// constants, the stage copy and fragment loads as device functions
    /// ([`LOAD_STAGE`], [`LOAD_FRAGS`]) and the body [`BODY`]; parameters
    /// `(const b16* A, const b16* B, float* C)`, one block per C tile, the stages in dynamic
    /// shared memory. Validates the plan first.
    ///
    /// ```
    /// use tessel_kernels::gemm::GemmPlan;
    /// let k = GemmPlan::new(128, 128, 32).unwrap().kernel().unwrap();
    /// assert_eq!(k.launch().dynamic_smem, 48 * 1024);
    /// assert!(k.source().contains("TESSEL_FN long long ldsm_a_crd("));
    /// ```
    pub fn kernel(&self) -> GpuResult<Kernel> {
        self.validate()?;
        let header = format!(
            "gemm C = A * B^T, fp16 in, fp32 out, {} x {} x {}, block tile {}: generated by \
             tessel-kernels.",
            self.m, self.n, self.k, self.cfg
        );
        let ldsm_a = self.ldsm(&self.a, &self.ldsm_a_tv)?;
        let ldsm_b = self.ldsm(&self.b, &self.ldsm_b_tv)?;
        let c_out = self.c_out()?;
        let len = |x: i64, y: i64| usize::try_from(x * y).unwrap_or(usize::MAX);
        KernelBuilder::new(&self.kernel_name(), BODY)
            .comment(&header)
            .int("KT", self.k_tiles())
            .int("STAGES", self.cfg.stages)
            .int("LD_A_ITERS", self.a.ld_tv.mode(2)?.size())
            .int("LD_B_ITERS", self.b.ld_tv.mode(2)?.size())
            .int("MI", MI)
            .int("NI", NI)
            .int("KK", self.cfg.bk / 16)
            .int("SMEM_A", BM * self.cfg.bk * self.cfg.stages)
            .index_layout("raster", &self.raster)
            .index_layout("tile_m0", &self.tile_m0)
            .index_layout("tile_n0", &self.tile_n0)
            .coord_layout("g_a", &self.g_a)
            .coord_layout("g_b", &self.g_b)
            .coord_layout("g_c", &self.g_c)
            .composed_layout("ld_a_smem", &self.ld_smem(&self.a)?)
            .coord_layout("ld_a_global", &self.ld_global(&self.a)?)
            .composed_layout("ld_b_smem", &self.ld_smem(&self.b)?)
            .coord_layout("ld_b_global", &self.ld_global(&self.b)?)
            .composed_layout("ldsm_a", &ldsm_a)
            .composed_layout("ldsm_b", &ldsm_b)
            .coord_layout("c_out", &c_out)
            .copy_atom("cp", &copy_atom(CP_ASYNC)?)
            .copy_atom("ldsm", &copy_atom(LDSM)?)
            .mma_atom("mma", &mma_atom(MMA)?)
            .device_fn("load_stage", LOAD_STAGE)
            .device_fn("load_frags", LOAD_FRAGS)
            .param(Param::input("A", CType::B16.into()).len(len(self.m, self.k)))
            .param(Param::input("B", CType::B16.into()).len(len(self.n, self.k)))
            .param(Param::output("C", CType::F32.into()).len(len(self.m, self.n)))
            .threads(self.threads())
            .grid(self.blocks(), 1, 1)
            .dynamic_smem(u32::try_from(self.cfg.smem_bytes()).unwrap_or(u32::MAX))
            .build()
    }

    /// The CUDA C++ source of the kernel ([`GemmPlan::kernel`]).
    ///
    /// ```
    /// use tessel_kernels::gemm::GemmPlan;
    /// let src = GemmPlan::new(128, 128, 32).unwrap().source().unwrap();
    /// assert!(src.contains("layout::ldsm_a_crd(t, 0, kk, 0)"));
    /// ```
    pub fn source(&self) -> GpuResult<String> {
        Ok(self.kernel()?.source().to_string())
    }
}
