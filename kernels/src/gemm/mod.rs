//! A tensor-core GEMM (`cp.async` + `ldmatrix` + `mma.sync.m16n8k16`) written with the tensor
//! layer ([`crate::layer`]).
//!
//! Computes `C = A * B^T` with
//! - `A`: M x K fp16, row-major (`(M,K):(K,1)`),
//! - `B`: N x K fp16, row-major (`(N,K):(K,1)`: the "TN" convention, both operands K-contiguous),
//! - `C`: M x N fp32, row-major (`(M,N):(N,1)`), fp32 accumulation.
//!
//! One block computes a 128 x BN tile of C (BN 128 with 4 warps or 256 with 8 warps, 2 x BN/64,
//! a 64 x 64 warp tile each), stepping through K in BK-wide slices (32 or 64) held in a 3- or
//! 4-stage `cp.async` pipeline ([`GemmConfig`]; the default is 128 x 128 x 32, 3 stages). Both
//! shared-memory tiles are K-major `(rows,BK,stages):(BK,1,rows BK)` under the swizzle
//! `Sw<2,3,3>` (BK 32) or `Sw<3,3,3>` (BK 64): the 16-byte chunk index XOR-ed with the row bits
//! above one 128-byte line, so that the 16-byte `cp.async` stores and the `ldmatrix.x4` reads are
//! free of bank conflicts ([`GemmPlan::bank_reports`] proves it with
//! `tessel_layout::bank::analyze_copy`).
//!
//! The kernel is declared the way CuTe's `sgemm_sm80` tutorial writes it, every step on the
//! host with the algebra ([`GemmPlan::tensors`]): `local_tile` of A, B and C; the `cp.async`
//! tiled copy ([`GemmConfig::cp_async_copy`]) partitions the global tiles and the shared stages
//! (`tAgA`, `tAsA`, ...); the tiled MMA ([`GemmConfig::tiled_mma`]) sizes the register fragments
//! (`tCrA`, `tCrB`, `tCrC`); the `ldmatrix` copies `make_tiled_copy_A/B` partition the stages and
//! `retile_D` the fragments (`tXsA`, `tXrA`, ...); an epilogue copy `make_tiled_copy_C` of 8-byte
//! vectors stores the accumulators (`tDrC`, `tDgC`). [`GemmPlan::validate`] checks every
//! fragment hand-off with [`DeviceMma::check_fed_by`] and that the swizzled partitions split
//! into a per-thread base plus constant and per-stage terms (the layer's offset split, so the
//! main loop adds immediates instead of re-applying the swizzle). The body ([`BODY`]) slices the
//! tensors at its thread, block and stage and calls `tessel::copy` and `tessel::gemm`.
//! [`host::simulate`] replays the kernel on the CPU through the same tensors and the PTX
//! fragment rules.
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
    TiledCopy, TiledMma, make_tiled_copy, make_tiled_copy_a, make_tiled_copy_b, make_tiled_copy_c,
    make_tiled_mma,
};
use tessel_layout::{ComposedLayout, IntTuple, Layout, Result, Swizzle};

use crate::error::{GpuError, GpuResult};
use crate::kernel::{CType, Kernel, KernelBuilder, Param};
use crate::layer::{DeviceCopy, DeviceMma, DeviceTensor};
use crate::tiled::raster_layout;

/// The device body of the GEMM: the tensors sliced at the thread, block and stage, and the
/// main loop of `tessel::copy` and `tessel::gemm`.
///
/// ```
/// use tessel_kernels::gemm::BODY;
/// assert!(BODY.contains("tessel::gemm(mma::mma{}") && BODY.contains("tessel::copy(copy::g2s{}"));
/// ```
pub const BODY: &str = include_str!("../../cuda/gemm_mma.cu");

/// The MMA atom of the kernel (CuTe's name): `mma.sync.aligned.m16n8k16`, fp16 inputs, fp32
/// accumulators.
///
/// ```
/// use tessel_kernels::gemm::MMA;
/// assert_eq!(tessel_layout::atom::mma_atom(MMA).unwrap().shape_mnk(), [16, 8, 16]);
/// ```
pub const MMA: &str = "SM80_16x8x16_F32F16F16F32_TN";
/// The copy atom of the fragment loads: `ldmatrix.x4`.
///
/// ```
/// use tessel_kernels::gemm::LDSM;
/// assert_eq!(tessel_layout::atom::copy_atom(LDSM).unwrap().threads(), 32);
/// ```
pub const LDSM: &str = "SM75_U32x4_LDSM_N";
/// The copy atom of the stage loads: a 16-byte `cp.async.cg`.
///
/// ```
/// use tessel_kernels::gemm::CP_ASYNC;
/// let atom = tessel_layout::atom::copy_atom(CP_ASYNC).unwrap();
/// assert_eq!(atom.asm_template().unwrap(), "cp.async.cg.shared.global [%0], [%1], 16;");
/// ```
pub const CP_ASYNC: &str = "SM80_CP_ASYNC_CACHEGLOBAL<uint128_t>";
/// The copy atom of the epilogue: two fp32 accumulators (8 bytes) per store.
///
/// ```
/// use tessel_kernels::gemm::STORE_C;
/// assert_eq!(tessel_layout::atom::copy_atom(STORE_C).unwrap().threads(), 1);
/// ```
pub const STORE_C: &str = "UniversalCopy<uint64_t>";

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
        self.tiled_mma_of(MMA)
    }

    /// [`GemmConfig::tiled_mma`] of another `m16n8k16` atom (e.g. the bf16 one): the same
    /// warps and permutations.
    ///
    /// ```
    /// use tessel_kernels::gemm::GemmConfig;
    /// let mma = GemmConfig::DEFAULT.tiled_mma_of("SM80_16x8x16_F32BF16BF16F32_TN").unwrap();
    /// assert_eq!(mma.threads(), 128);
    /// ```
    pub fn tiled_mma_of(&self, atom: &str) -> Result<TiledMma> {
        let wn = self.bn / WARP_TILE;
        make_tiled_mma(
            &mma_atom(atom)?,
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

    /// The epilogue's copy of the accumulators to C: CuTe's `make_tiled_copy_C(`[`STORE_C`]`, `
    /// tiled MMA`)` on fp32, two consecutive accumulators (one 8-byte store) per atom.
    ///
    /// ```
    /// use tessel_kernels::gemm::GemmConfig;
    /// let copy = GemmConfig::DEFAULT.store_c_copy().unwrap();
    /// assert_eq!((copy.threads(), copy.tiler()), (128, &[128, 128][..]));
    /// ```
    pub fn store_c_copy(&self) -> Result<TiledCopy> {
        make_tiled_copy_c(&copy_atom(STORE_C)?.typed(32)?, &self.tiled_mma()?)
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

/// The names of the kernel's tensors, in the order the body meets them.
///
/// ```
/// use tessel_kernels::gemm::{GemmPlan, TENSORS};
/// let plan = GemmPlan::new(128, 128, 32).unwrap();
/// assert!(TENSORS.iter().all(|name| plan.tensor(name).is_ok()));
/// ```
pub const TENSORS: [&str; 13] = [
    "tAgA", "tAsA", "tBgB", "tBsB", "tXsA", "tXsB", "tCrA", "tCrB", "tCrC", "tXrA", "tXrB", "tDrC",
    "tDgC",
];

/// Every layout, copy and tensor the GEMM kernel is generated from.
///
/// ```
/// use tessel_kernels::gemm::GemmPlan;
/// let plan = GemmPlan::new(256, 128, 64).unwrap();
/// // The cp.async partition of A: (thread, 8 halves, atoms, CPY_M, CPY_K, tiles M, k tiles).
/// assert_eq!(plan.tensor("tAgA").unwrap().extents(), vec![128, 8, 1, 4, 1, 2, 2]);
/// assert_eq!(plan.swizzle.to_string(), "Sw<2,3,3>");
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
    /// Block id -> tile index `tm + TM * tn` (grouped raster).
    pub raster: Layout,
    /// Tile index -> the tile's row of tiles `tm`.
    pub tile_m: Layout,
    /// Tile index -> the tile's column of tiles `tn`.
    pub tile_n: Layout,
    /// The swizzle of both shared-memory tiles: `Sw<2,3,3>` for 64-byte rows (BK 32),
    /// `Sw<3,3,3>` for 128-byte rows (BK 64): the 16-byte chunk index XOR the row bits above
    /// one 128-byte line.
    pub swizzle: Swizzle,
    /// The tiled MMA (`mma::mma` in the body).
    pub mma: DeviceMma,
    /// The `cp.async` copy of a K slice into a stage (`copy::g2s`).
    pub g2s: DeviceCopy,
    /// The `ldmatrix` copy of A's fragments (`copy::s2r_a`).
    pub s2r_a: DeviceCopy,
    /// The `ldmatrix` copy of B's fragments (`copy::s2r_b`).
    pub s2r_b: DeviceCopy,
    /// The epilogue's copy of the accumulators to C (`copy::r2g`).
    pub r2g: DeviceCopy,
    /// The kernel's tensors by name ([`TENSORS`]), as the body uses them (`tensor::NAME`):
    /// - `tAgA`, `tBgB`: `cp.async` source partitions of the block tiles of A and B
    ///   `(thread, CPY, CPY atoms, CPY_M, CPY_K, tiles, k tiles)`;
    /// - `tAsA`, `tBsB`: its destination partitions of the shared stages
    ///   `(thread, CPY, CPY atoms, CPY_M, CPY_K, stage)`;
    /// - `tXsA`, `tXsB`: the `ldmatrix` source partitions of the stages
    ///   `(thread, CPY, MMA_M or MMA_N / 2, 1, MMA_K, stage)`;
    /// - `tCrA`, `tCrB`, `tCrC`: the MMA's register fragments `(MMA, MMA_M or MMA_N, MMA_K or
    ///   MMA_N)`; `tXrA`, `tXrB`: `tCrA`, `tCrB` as the `ldmatrix` copies' destinations;
    /// - `tDrC`: `tCrC` as the epilogue copy's source; `tDgC`: its destination partition of
    ///   the block tiles of C `(thread, CPY, CPY atoms, CPY_M, CPY_N, tiles M, tiles N)`.
    pub tensors: Vec<(String, DeviceTensor)>,
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

/// The modes of the `ldmatrix` partitions (`tXsA`, `tXsB`) that the layer's offset split must
/// hoist, and no more: the thread and the k step (the swizzle mixes the thread's row bits with
/// the k step's chunk bits), so that each thread keeps one shared address per k step and the
/// fragment and stage parts are added (an immediate and one add per K slice).
///
/// ```
/// use tessel_kernels::gemm::{GemmPlan, LDSM_HOISTED};
/// let plan = GemmPlan::new(128, 128, 32).unwrap();
/// let t = plan.tensor("tXsA").unwrap();
/// assert_eq!(t.hoisted_modes().unwrap().as_deref(), Some(LDSM_HOISTED));
/// assert!(t.check_split(&[0]).is_err()); // the k step's chunk bits are swizzled
/// ```
pub const LDSM_HOISTED: &[usize] = &[0, 4];
/// The modes of the `cp.async` shared partitions (`tAsA`, `tBsB`) the split hoists: the thread
/// only (every chunk and the stage are added).
///
/// ```
/// use tessel_kernels::gemm::{GemmPlan, CP_ASYNC_HOISTED};
/// let plan = GemmPlan::new(128, 128, 32).unwrap();
/// let t = plan.tensor("tBsB").unwrap();
/// assert_eq!(t.hoisted_modes().unwrap().as_deref(), Some(CP_ASYNC_HOISTED));
/// ```
pub const CP_ASYNC_HOISTED: &[usize] = &[0];

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
        Self::build(m, n, k, cfg)
    }

    fn build(m: i64, n: i64, k: i64, cfg: GemmConfig) -> GpuResult<GemmPlan> {
        let (bn, bk, pipe) = (cfg.bn, cfg.bk, cfg.stages);
        let (tm, tn) = (m / BM, n / bn);
        let swizzle = Swizzle::new(if bk == 32 { 2 } else { 3 }, 3, 3)?;
        let mma = DeviceMma::new("mma", cfg.tiled_mma()?);
        let g2s = DeviceCopy::new("g2s", cfg.cp_async_copy()?);
        let s2r_a = DeviceCopy::new("s2r_a", cfg.ldsm_copy_a()?);
        let s2r_b = DeviceCopy::new("s2r_b", cfg.ldsm_copy_b()?);
        let r2g = DeviceCopy::new("r2g", cfg.store_c_copy()?);
        // The operands in global memory, divided into the block tiles: (BM, BK, tiles M, k
        // tiles), (BN, BK, tiles N, k tiles), (BM, BN, tiles M, tiles N).
        let row_major = |r: i64, c: i64| Layout::new(ints([r, c]), ints([c, 1]));
        let g_a = DeviceTensor::global(CType::B16, row_major(m, k)?).local_tile(&[BM, bk])?;
        let g_b = DeviceTensor::global(CType::B16, row_major(n, k)?).local_tile(&[bn, bk])?;
        let g_c = DeviceTensor::global(CType::F32, row_major(m, n)?).local_tile(&[BM, bn])?;
        // The shared stages, K-major and swizzled: (rows, BK, stage).
        let stages = |rows: i64| -> GpuResult<DeviceTensor> {
            let inner = Layout::new(ints([rows, bk, pipe]), ints([bk, 1, rows * bk]))?;
            Ok(DeviceTensor::shared(
                CType::B16,
                ComposedLayout::new(vec![swizzle], 0, inner),
            ))
        };
        let (s_a, s_b) = (stages(BM)?, stages(bn)?);
        // The MMA's register fragments of one block tile.
        let tc_ra = mma.partition_fragment('A', &[BM, bk], CType::B16)?;
        let tc_rb = mma.partition_fragment('B', &[bn, bk], CType::B16)?;
        let tc_rc = mma.partition_fragment('C', &[BM, bn], CType::F32)?;
        let tensors = vec![
            ("tAgA", g2s.partition_s(&g_a)?),
            ("tAsA", g2s.partition_d(&s_a)?),
            ("tBgB", g2s.partition_s(&g_b)?),
            ("tBsB", g2s.partition_d(&s_b)?),
            ("tXsA", s2r_a.partition_s(&s_a)?),
            ("tXsB", s2r_b.partition_s(&s_b)?),
            ("tXrA", s2r_a.retile_d(&tc_ra)?),
            ("tXrB", s2r_b.retile_d(&tc_rb)?),
            ("tDrC", r2g.retile_s(&tc_rc)?),
            ("tDgC", r2g.partition_d(&g_c)?),
            ("tCrA", tc_ra),
            ("tCrB", tc_rb),
            ("tCrC", tc_rc),
        ];
        let mut tensors: Vec<(String, DeviceTensor)> = tensors
            .into_iter()
            .map(|(n, t)| (n.to_string(), t))
            .collect();
        tensors.sort_by_key(|(n, _)| TENSORS.iter().position(|x| x == n));
        Ok(GemmPlan {
            m,
            n,
            k,
            cfg,
            raster: raster_layout(tm, tn, RASTER_GROUP)?,
            tile_m: Layout::new(ints([tm, tn]), ints([1, 0]))?,
            tile_n: Layout::new(ints([tm, tn]), ints([0, 1]))?,
            swizzle,
            mma,
            g2s,
            s2r_a,
            s2r_b,
            r2g,
            tensors,
        })
    }

    /// The tensor `name` (one of [`TENSORS`]).
    ///
    /// ```
    /// use tessel_kernels::gemm::GemmPlan;
    /// let plan = GemmPlan::new(128, 128, 32).unwrap();
    /// assert_eq!(plan.tensor("tCrC").unwrap().layout().to_string(), "((2,2),4,8):((1,2),4,16)");
    /// assert!(plan.tensor("tZzZ").is_err());
    /// ```
    pub fn tensor(&self, name: &str) -> GpuResult<&DeviceTensor> {
        self.tensors
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, t)| t)
            .ok_or_else(|| {
                GpuError::InvalidArgument(format!("{}: no tensor {name}", self.kernel_name()))
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

    /// One stage of an operand tile of `rows` rows, `(row, k)` -> element, swizzled or plain.
    ///
    /// ```
    /// use tessel_kernels::gemm::GemmPlan;
    /// let plan = GemmPlan::new(128, 128, 32).unwrap();
    /// assert_eq!(plan.stage_tile(128, false).unwrap().offset(2).unwrap(), 64);
    /// assert_eq!(plan.stage_tile(128, true).unwrap().offset(2).unwrap(), 72);
    /// ```
    pub fn stage_tile(&self, rows: i64, swizzled: bool) -> Result<ComposedLayout> {
        let plain = Layout::new(ints([rows, self.cfg.bk]), ints([self.cfg.bk, 1]))?;
        let swizzles = if swizzled { vec![self.swizzle] } else { vec![] };
        Ok(ComposedLayout::new(swizzles, 0, plain))
    }

    /// The bank model (`tessel_layout::bank::analyze_copy` of the tiled copies) of one block's
    /// shared-memory traffic per K slice: every warp's `cp.async` 16-byte stores and
    /// `ldmatrix.x4` reads of both operands, on the swizzled tiles or (for comparison) on the
    /// plain K-major ones.
    ///
    /// ```
    /// use tessel_kernels::gemm::GemmPlan;
    /// let plan = GemmPlan::new(128, 128, 32).unwrap();
    /// assert_eq!(plan.bank_reports(true).unwrap().excess(), 0);
    /// assert!(plan.bank_reports(false).unwrap().ldsm_a.excess > 0);
    /// ```
    pub fn bank_reports(&self, swizzled: bool) -> Result<GemmBanks> {
        let sa = self.stage_tile(BM, swizzled)?;
        let sb = self.stage_tile(self.cfg.bn, swizzled)?;
        let sum = |reports: Vec<BankReport>| reports.into_iter().sum::<BankReport>();
        Ok(GemmBanks {
            store_a: sum(analyze_copy(self.g2s.tiled(), &sa, SmemSide::Destination)?),
            store_b: sum(analyze_copy(self.g2s.tiled(), &sb, SmemSide::Destination)?),
            ldsm_a: sum(analyze_copy(self.s2r_a.tiled(), &sa, SmemSide::Source)?),
            ldsm_b: sum(analyze_copy(self.s2r_b.tiled(), &sb, SmemSide::Source)?),
        })
    }

    /// Checks what the kernel relies on beyond the layer's own checks of each partition
    /// (element widths, one atom's values per thread, 16-byte `cp.async` and `ldmatrix` rows
    /// and 8-byte C stores consecutive and aligned): the bank model of the shared tiles; that
    /// the `ldmatrix` copies fill the registers where the MMA reads A and B, and that the
    /// epilogue copy stores each accumulator where the MMA computed it
    /// ([`DeviceMma::check_fed_by`]); and that the swizzled partitions split with the hoisted
    /// modes [`LDSM_HOISTED`] and [`CP_ASYNC_HOISTED`] (the stage and fragment parts added).
    ///
    /// ```
    /// use tessel_kernels::gemm::GemmPlan;
    /// assert!(GemmPlan::new(256, 256, 64).unwrap().validate().is_ok());
    /// ```
    pub fn validate(&self) -> GpuResult<()> {
        self.bank_reports(true)?;
        let (bn, bk) = (self.cfg.bn, self.cfg.bk);
        let t = |name: &str| self.tensor(name);
        self.mma
            .check_fed_by('A', &self.s2r_a, &[BM, bk], t("tXrA")?, t("tCrA")?)?;
        self.mma
            .check_fed_by('B', &self.s2r_b, &[bn, bk], t("tXrB")?, t("tCrB")?)?;
        self.mma
            .check_fed_by('C', &self.r2g, &[BM, bn], t("tDrC")?, t("tCrC")?)?;
        for (name, want) in [
            ("tXsA", LDSM_HOISTED),
            ("tXsB", LDSM_HOISTED),
            ("tAsA", CP_ASYNC_HOISTED),
            ("tBsB", CP_ASYNC_HOISTED),
        ] {
            let got = t(name)?.hoisted_modes()?;
            if got.as_deref() != Some(want) {
                return Err(GpuError::InvalidArgument(format!(
                    "{}: the offsets of {name} split with the hoisted modes {got:?}, not \
                     {want:?}: the main loop would recompute the swizzle",
                    self.kernel_name()
                )));
            }
        }
        Ok(())
    }

    /// The kernel: the tensors, copies and MMA of the plan through the tensor layer, the block
    /// raster as `layout::` functions, the trip counts as `k::` constants and the body
    /// [`BODY`]; parameters `(const b16* A, const b16* B, float* C)`, one block per C tile, the
    /// stages in dynamic shared memory (A's, then B's from element `k::SMEM_A`). Validates the
    /// plan first.
    ///
    /// ```
    /// use tessel_kernels::gemm::GemmPlan;
    /// let k = GemmPlan::new(128, 128, 32).unwrap().kernel().unwrap();
    /// assert_eq!(k.launch().dynamic_smem, 48 * 1024);
    /// assert!(k.source().contains("struct tXsA_layout"));
    /// ```
    pub fn kernel(&self) -> GpuResult<Kernel> {
        self.validate()?;
        let header = format!(
            "gemm C = A * B^T, fp16 in, fp32 out, {} x {} x {}, block tile {}: generated by \
             tessel-kernels.",
            self.m, self.n, self.k, self.cfg
        );
        let len = |x: i64, y: i64| usize::try_from(x * y).unwrap_or(usize::MAX);
        let mut builder = KernelBuilder::new(&self.kernel_name(), BODY)
            .comment(&header)
            .int("KT", self.k_tiles())
            .int("PIPE", self.cfg.stages)
            .int("KB", self.cfg.bk / 16)
            .int("SMEM_A", BM * self.cfg.bk * self.cfg.stages)
            .index_layout("raster", &self.raster)
            .index_layout("tile_m", &self.tile_m)
            .index_layout("tile_n", &self.tile_n)
            .tiled_copy(&self.g2s)
            .tiled_copy(&self.s2r_a)
            .tiled_copy(&self.s2r_b)
            .tiled_copy(&self.r2g)
            .tiled_mma(&self.mma);
        for (name, t) in &self.tensors {
            builder = builder.tensor(name, t);
        }
        builder
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
    /// assert!(src.contains("tessel::gemm(mma::mma{}"));
    /// ```
    pub fn source(&self) -> GpuResult<String> {
        Ok(self.kernel()?.source().to_string())
    }
}
