//! A tensor-core GEMM (`cp.async` + `ldmatrix` + `mma.sync.m16n8k16`) built from tessel layouts.
//!
//! Computes `C = A * B^T` with
//! - `A`: M x K fp16, row-major (`(M,K):(K,1)`),
//! - `B`: N x K fp16, row-major (`(N,K):(K,1)`: the "TN" convention, both operands K-contiguous),
//! - `C`: M x N fp32, row-major (`(M,N):(N,1)`), fp32 accumulation.
//!
//! One block computes a 128 x 128 tile of C with 4 warps (2 x 2, a 64 x 64 warp tile each),
//! stepping through K in 32-wide slices held in a 3-stage `cp.async` pipeline. Both shared-memory
//! tiles are K-major `(128,32):(32,1)` under the swizzle `Sw<2,3,3>` (the 16-byte chunk index
//! XOR-ed with bits 1-2 of the row), so that the 16-byte `cp.async` stores and the `ldmatrix.x4`
//! reads are free of bank conflicts ([`GemmPlan::bank_reports`] proves it with
//! `tessel_layout::bank::analyze`).
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
//! assert_eq!(plan.kernel_name(), "gemm_tn_f16_f32_256x384x96");
//! assert!(plan.source().unwrap().contains("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32"));
//! assert!(GemmPlan::new(100, 128, 32).is_err()); // M not a multiple of 128
//! ```

pub mod host;
pub mod run;

use tessel_layout::bank::{BankReport, analyze};
use tessel_layout::{ComposedLayout, IntTuple, Layout, Result, Swizzle, composition};

use crate::emit::{PRELUDE, composed_fns, coord_fn, index_fn};
use crate::error::{GpuError, GpuResult};
use crate::tiled::{COMMON, raster_layout};

/// The CUDA template of the GEMM.
pub const TEMPLATE: &str = include_str!("../../cuda/gemm_mma.cu");

/// Block tile rows (of A and C).
pub const BM: i64 = 128;
/// Block tile columns (rows of B, columns of C).
pub const BN: i64 = 128;
/// K slice per pipeline stage.
pub const BK: i64 = 32;
/// Pipeline stages (3 x 16 KiB of shared memory).
pub const STAGES: i64 = 3;
/// Threads per block (4 warps).
pub const THREADS: i64 = 128;
/// Block raster group (tiles visited in 8 x 8 groups for L2 reuse).
pub const RASTER_GROUP: i64 = 8;
/// Accumulator fragments per warp: 4 (m16) x 8 (n8).
pub const MI: i64 = 4;
/// n8 fragments per warp.
pub const NI: i64 = 8;

fn parse(text: &str) -> Result<Layout> {
    text.parse()
}

fn ints<const N: usize>(x: [i64; N]) -> IntTuple {
    IntTuple::from_ints(x)
}

/// Every layout the GEMM kernel is generated from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GemmPlan {
    /// Rows of A and C.
    pub m: i64,
    /// Columns of C (rows of B).
    pub n: i64,
    /// The reduction extent (columns of A and B).
    pub k: i64,
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
    /// The shared-memory tile of one operand without the swizzle: `(row, k, stage)` ->
    /// element, `(128,32,3):(32,1,4096)` (K-major, stages one after the other).
    pub smem_inner: Layout,
    /// The swizzle of both shared-memory tiles, `Sw<2,3,3>`.
    pub swizzle: Swizzle,
    /// `cp.async` partition: `(thread, value, iteration)` -> index `r + 128 k` of a 128 x 32 tile;
    /// each thread moves 4 chunks of 8 consecutive k (16 bytes).
    pub ld_tv: Layout,
    /// `ldmatrix.x4` partition of A: `(thread, value, mi, kk)` -> tile index (lane `l` addresses
    /// row `l % 16`, k `8 (l / 16)` of the 16 x 16 fragment `mi`, k step `kk`; warps 2 x 2).
    pub ldsm_a_tv: Layout,
    /// `ldmatrix.x4` partition of B: `(thread, value, nj, kk)` -> tile index (lane `l` addresses
    /// n `l % 8 + 8 (l / 16)`, k `8 ((l / 8) % 2)` of the n16 x k16 pair `nj`).
    pub ldsm_b_tv: Layout,
    /// The SM80 16x8x16 C fragment `((4,8),(2,2)):((32,1),(16,8))`: (lane, value) -> `m + 16 n`.
    pub c_frag: Layout,
    /// `(thread, value, mi, ni)` -> index `m + 128 n` of the block's C tile.
    pub c_tv: Layout,
}

impl GemmPlan {
    /// The plan for `C (m x n) = A (m x k) * B (n x k)^T`; `m`, `n` must be multiples of 128 and
    /// `k` a multiple of 32 (each at most 65536).
    ///
    /// ```
    /// use tessel_kernels::gemm::GemmPlan;
    /// let err = GemmPlan::new(128, 128, 40).unwrap_err().to_string();
    /// assert!(err.contains("K = 40 is not a multiple of 32"), "{err}");
    /// ```
    pub fn new(m: i64, n: i64, k: i64) -> GpuResult<GemmPlan> {
        for (name, v, tile) in [("M", m, BM), ("N", n, BN), ("K", k, BK)] {
            if !(1..=65536).contains(&v) || v % tile != 0 {
                return Err(GpuError::InvalidArgument(format!(
                    "gemm {m}x{n}x{k}: {name} = {v} is not a multiple of {tile} in \
                     {tile}..=65536 (the kernel has no edge handling: M, N must be multiples \
                     of {BM}, K of {BK})"
                )));
            }
        }
        Ok(Self::build(m, n, k)?)
    }

    fn build(m: i64, n: i64, k: i64) -> Result<GemmPlan> {
        let (ty, tx) = (m / BM, n / BN);
        let tile = BM * BK; // elements of one operand tile per stage
        let smem_inner = Layout::new(ints([BM, BK, STAGES]), ints([BK, 1, tile]))?;
        // cp.async: thread t -> (k chunk t % 4, row t / 4); value = 8 consecutive k;
        // iteration j -> rows + 32 j.
        let chunks_per_row = BK / 8;
        let rows_per_iter = THREADS / chunks_per_row;
        let ld_tv = parse(&format!(
            "(({chunks_per_row},{rows_per_iter}),8,{}):((1024,1),{BM},{rows_per_iter})",
            BM / rows_per_iter
        ))?;
        // ldmatrix.x4 (warps 2 x 2: warp w -> rows 64 (w % 2) of A, columns 64 (w / 2) of B).
        let k8 = 8 * BM; // tile-index step of 8 k
        let ldsm_a_tv = parse(&format!(
            "(((16,2),(2,2)),8,{MI},2):(((1,{k8}),(64,0)),{BM},16,{})",
            2 * k8
        ))?;
        let ldsm_b_tv = parse(&format!(
            "(((8,2,2),(2,2)),8,{},2):(((1,{k8},8),(0,64)),{BM},16,{})",
            NI / 2,
            2 * k8
        ))?;
        // The C fragment (DESIGN.md / CuTe SM80_16x8x16_F32F16F16F32_TN), lifted into the block
        // tile by composing with the embedding of a 16 x 8 tile into the 128 x 128 one.
        let c_frag = parse("((4,8),(2,2)):((32,1),(16,8))")?;
        let embed = parse(&format!("(16,8):(1,{BM})"))?;
        let frag = composition(&embed, &c_frag)?;
        let thread =
            Layout::from_modes([frag.mode(0)?, parse(&format!("(2,2):(64,{})", 64 * BM))?])?;
        let c_tv = Layout::from_modes([
            thread,
            frag.mode(1)?,
            parse(&format!("{MI}:16"))?,
            parse(&format!("{NI}:{}", 8 * BM))?,
        ])?;
        Ok(GemmPlan {
            m,
            n,
            k,
            g_a: Layout::new(ints([m, k]), ints([k, 1]))?,
            g_b: Layout::new(ints([n, k]), ints([k, 1]))?,
            g_c: Layout::new(ints([m, n]), ints([n, 1]))?,
            raster: raster_layout(ty, tx, RASTER_GROUP)?,
            tile_m0: Layout::new(ints([ty, tx]), ints([BM, 0]))?,
            tile_n0: Layout::new(ints([ty, tx]), ints([0, BN]))?,
            smem_inner,
            swizzle: Swizzle::new(2, 3, 3)?,
            ld_tv,
            ldsm_a_tv,
            ldsm_b_tv,
            c_frag,
            c_tv,
        })
    }

    /// Kernel name, e.g. `gemm_tn_f16_f32_4096x4096x4096`.
    pub fn kernel_name(&self) -> String {
        format!("gemm_tn_f16_f32_{}x{}x{}", self.m, self.n, self.k)
    }

    /// Number of blocks (one per 128 x 128 tile of C).
    pub fn blocks(&self) -> u32 {
        u32::try_from((self.m / BM) * (self.n / BN)).unwrap_or(u32::MAX)
    }

    /// Floating-point operations of one GEMM (`2 M N K`).
    pub fn flops(&self) -> f64 {
        2.0 * self.m as f64 * self.n as f64 * self.k as f64
    }

    /// Number of K slices.
    pub fn k_tiles(&self) -> i64 {
        self.k / BK
    }

    /// The swizzled shared-memory tile `(row, k, stage)` -> element offset.
    pub fn smem(&self) -> ComposedLayout {
        ComposedLayout::new(vec![self.swizzle], 0, self.smem_inner.clone())
    }

    /// `(row, k)` of one stage without the swizzle (the unswizzled comparison tile).
    pub fn smem_plain(&self) -> Result<Layout> {
        Layout::new(ints([BM, BK]), ints([BK, 1]))
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

    /// `(thread, iteration, stage)` -> swizzled shared offset of the first element of a chunk.
    pub fn ld_smem(&self) -> Result<ComposedLayout> {
        let starts =
            Self::starts(&self.ld_tv)?.append(&parse(&format!("{STAGES}:{}", BM * BK))?)?;
        Ok(ComposedLayout::new(
            vec![self.swizzle],
            0,
            composition(&self.smem_inner, &starts)?,
        ))
    }

    /// `(thread, iteration, k tile)` -> global offset (from the block's tile origin) of a chunk;
    /// the same layout serves A and B (both K-contiguous with leading dimension K).
    pub fn ld_global(&self) -> Result<Layout> {
        let tile = Layout::new(ints([BM, BK, self.k_tiles()]), ints([self.k, 1, BK]))?;
        let starts = Self::starts(&self.ld_tv)?.append(&parse(&format!(
            "{}:{}",
            self.k_tiles(),
            BM * BK
        ))?)?;
        composition(&tile, &starts)
    }

    /// `(thread, mi|nj, kk, stage)` -> swizzled shared offset of the row this thread's lane
    /// hands to `ldmatrix.x4`.
    pub fn ldsm(&self, tv: &Layout) -> Result<ComposedLayout> {
        let starts = Self::starts(tv)?.append(&parse(&format!("{STAGES}:{}", BM * BK))?)?;
        Ok(ComposedLayout::new(
            vec![self.swizzle],
            0,
            composition(&self.smem_inner, &starts)?,
        ))
    }

    /// `(thread, value, mi, ni)` -> global offset of an accumulator from the C tile origin.
    pub fn c_out(&self) -> Result<Layout> {
        let tile = Layout::new(ints([BM, BN]), ints([self.n, 1]))?;
        composition(&tile, &self.c_tv)
    }

    /// Bank-model reports of one block's shared-memory traffic per K slice (one stage):
    /// `(cp.async 16-byte stores, ldmatrix.x4 of A, ldmatrix.x4 of B)` on `smem`, a layout of the
    /// domain `(row, k)` of one stage.
    ///
    /// ```
    /// use tessel_kernels::gemm::GemmPlan;
    /// let plan = GemmPlan::new(128, 128, 32).unwrap();
    /// let swizzled = plan.smem();
    /// let (st, a, b) = plan.bank_reports(&swizzled).unwrap();
    /// assert_eq!((st.excess, a.excess, b.excess), (0, 0, 0));
    /// let (_, a, _) = plan.bank_reports(&plan.smem_plain().unwrap()).unwrap();
    /// assert!(a.excess > 0);
    /// ```
    pub fn bank_reports(
        &self,
        smem: &impl tessel_layout::composed::OffsetMap,
    ) -> Result<(BankReport, BankReport, BankReport)> {
        let st = analyze(smem, 2, "sts.128".parse()?, &Self::per_warp(&self.ld_tv)?)?;
        let a = analyze(
            smem,
            2,
            "ldsm.x4".parse()?,
            &Self::per_warp(&self.ldsm_a_tv)?,
        )?;
        let b = analyze(
            smem,
            2,
            "ldsm.x4".parse()?,
            &Self::per_warp(&self.ldsm_b_tv)?,
        )?;
        Ok((st, a, b))
    }

    /// `(lane, value, warp, further modes...)`: the thread mode of `tv` split into 32 lanes and
    /// the warps (the lane mode of the bank model).
    fn per_warp(tv: &Layout) -> Result<Layout> {
        let thread = tv.mode(0)?;
        let lanes = composition(&thread, &parse("32:1")?)?;
        let warps = composition(&thread, &parse(&format!("{}:32", THREADS / 32))?)?;
        let mut modes = vec![lanes, tv.mode(1)?, warps];
        modes.extend(tv.modes().into_iter().skip(2));
        Layout::from_modes(modes)
    }

    /// Checks the vector accesses the kernel relies on: every `cp.async` chunk is 8 contiguous,
    /// 16-byte aligned elements in both global and (swizzled) shared memory; every `ldmatrix`
    /// row is 8 contiguous aligned elements; the accumulator pairs `(v, v+1)` are contiguous and
    /// 8-byte aligned in C.
    pub fn validate(&self) -> Result<()> {
        self.bank_reports(&self.smem())?; // rejects non-contiguous / misaligned vectors
        let g = Layout::new(ints([BM, BK]), ints([self.k, 1]))?;
        let chunks = composition(&g, &self.ld_tv)?;
        let values = chunks.mode(1)?;
        if values.to_string() != "8:1" || self.k % 8 != 0 {
            return Err(tessel_layout::Error::invalid(format!(
                "cp.async chunks are not 8 contiguous elements in global memory: {chunks}"
            )));
        }
        let c = self.c_out()?;
        let pairs = c.mode(1)?;
        let first = pairs.mode(0)?;
        if first.to_string() != "2:1" || self.n % 2 != 0 {
            return Err(tessel_layout::Error::invalid(format!(
                "accumulator pairs are not contiguous in C: {c}"
            )));
        }
        Ok(())
    }

    /// The CUDA C++ source of the kernel.
    pub fn source(&self) -> GpuResult<String> {
        self.validate()?;
        let mut funcs = String::new();
        let mut add = |name: &str, text: String, src: String| {
            funcs.push_str(&format!("// {name} = {text}\n"));
            funcs.push_str(&src);
        };
        add(
            "raster",
            self.raster.to_string(),
            index_fn("raster", &self.raster)?,
        );
        add(
            "tile_m0",
            self.tile_m0.to_string(),
            index_fn("tile_m0", &self.tile_m0)?,
        );
        add(
            "tile_n0",
            self.tile_n0.to_string(),
            index_fn("tile_n0", &self.tile_n0)?,
        );
        add("g_a", self.g_a.to_string(), coord_fn("g_a", &self.g_a)?);
        add("g_b", self.g_b.to_string(), coord_fn("g_b", &self.g_b)?);
        add("g_c", self.g_c.to_string(), coord_fn("g_c", &self.g_c)?);
        let ld_smem = self.ld_smem()?;
        add(
            "ld_smem",
            ld_smem.to_string(),
            composed_fns("ld_smem", &ld_smem)?,
        );
        let ld_global = self.ld_global()?;
        add(
            "ld_global",
            ld_global.to_string(),
            coord_fn("ld_global", &ld_global)?,
        );
        let ldsm_a = self.ldsm(&self.ldsm_a_tv)?;
        add(
            "ldsm_a",
            ldsm_a.to_string(),
            composed_fns("ldsm_a", &ldsm_a)?,
        );
        let ldsm_b = self.ldsm(&self.ldsm_b_tv)?;
        add(
            "ldsm_b",
            ldsm_b.to_string(),
            composed_fns("ldsm_b", &ldsm_b)?,
        );
        let c_out = self.c_out()?;
        add(
            "c_out",
            format!("{} o c_tv {} (c_frag {})", c_out, self.c_tv, self.c_frag),
            coord_fn("c_out", &c_out)?,
        );
        let header = format!(
            "// gemm C = A * B^T, fp16 in, fp32 out, {} x {} x {}: generated by tessel-kernels.",
            self.m, self.n, self.k
        );
        let replacements: [(&str, String); 12] = [
            ("{{HEADER}}", header),
            ("{{COMMON}}", format!("{PRELUDE}{COMMON}")),
            ("{{FUNCS}}", funcs),
            ("{{KERNEL}}", self.kernel_name()),
            ("{{NT}}", THREADS.to_string()),
            ("{{KT}}", self.k_tiles().to_string()),
            ("{{STAGES}}", STAGES.to_string()),
            ("{{LD_ITERS}}", self.ld_tv.mode(2)?.size().to_string()),
            ("{{MI}}", MI.to_string()),
            ("{{NI}}", NI.to_string()),
            ("{{KK}}", (BK / 16).to_string()),
            ("{{SMEM}}", (BM * BK * STAGES).to_string()),
        ];
        let mut src = TEMPLATE.to_string();
        for (key, value) in replacements {
            src = src.replace(key, &value);
        }
        Ok(src)
    }
}
