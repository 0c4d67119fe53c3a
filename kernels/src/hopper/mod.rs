//! A Hopper (sm_90a) GEMM built from tessel layouts: TMA loads, `wgmma.mma_async`, mbarrier
//! pipelines, warp specialization and a persistent tile scheduler.
//!
//! Computes `C = A * B^T` ("TN", as [`crate::gemm`]): `A` is `M x K` and `B` is `N x K`, both
//! row-major (K-contiguous), fp16 or bf16 ([`InType`]); `C` is `M x N` row-major, fp32, fp16 or
//! bf16 ([`OutType`]); accumulation in fp32. Any `M`, `N` >= 1; `K` a multiple of 8 (TMA needs
//! 16-byte row pitches).
//!
//! Design (the kernel body is `kernels/cuda/gemm_sm90.cu`):
//! - a block of 384 threads computes 128 x 256 tiles of C, one block per SM, looping over the
//!   tiles in a grouped order ([`crate::tiled::raster_layout`], groups of [`RASTER_GROUP`]);
//! - warpgroup 0 is the producer: one thread loads each 64-wide k-tile of A (a 128 x 64 box)
//!   and B (256 x 64) with `cp.async.bulk.tensor` into a ring of [`STAGES`] stages, signalled
//!   by `full`/`empty` mbarriers; it gives up registers (`setmaxnreg.dec` to
//!   [`PRODUCER_REGS`]);
//! - warpgroups 1 and 2 are consumers (`setmaxnreg.inc` to [`CONSUMER_REGS`]): each owns 64
//!   rows of the tile and issues four `wgmma m64n256k16` per stage on descriptors of the
//!   stage, keeping one k-tile of wgmmas in flight, then writes its 64 x 256 accumulators
//!   (the GMMA atom's C layout) to C: by default ([`Epilogue::TmaStore`]) through shared
//!   memory, in chunks of 64 rows x 128 bytes (`st.shared.v2` for fp32, its lanes taking the
//!   column pairs in a lane-dependent order, [`Sm90Plan::c_flip`]; `stmatrix` for 16-bit
//!   outputs) into a 128B-swizzled buffer ([`Sm90Plan::c_smem`], proven conflict-free by the
//!   bank model) that a TMA store copies to C (clipping ragged `M`, `N`), two buffers per
//!   consumer; or ([`Epilogue::Direct`]) with predicated stores from the registers.
//!
//! [`Sm90Options`] selects the variant (epilogue, raster group, persistent grid, clusters of
//! two blocks along M that multicast the shared B tile with TMA, and the shared-memory
//! epilogue's pair order, barriers per chunk, stages, per-warp stores, L2 hints, consumer lag,
//! a stream-K schedule for the last wave, ping-pong consumers, the descriptor arithmetic, the
//! consumer code per consumer index, the k-loop unrolling, a try_wait hint, L2 prefetch, C
//! parked in the pipeline's stages, and a per-tile timeline for diagnosis);
//! `kernels/examples/sm90_sweep.rs` times them against cuBLAS in one process
//! (docs/performance.md, "Hopper").
//!
//! Every shared layout is `smem_atom(Major::K, SwizzleMode::B128, 16)` tiled over the stage
//! with `tile_to_shape`. [`Sm90Plan::new`] proves on the host that the TMA boxes write exactly
//! those layouts ([`crate::tma::TmaPlan`]) and derives the wgmma descriptors of every k-block
//! of every consumer's operands with `gmma_descriptor` (verified element by element); the
//! kernel gets their constant fields and adds the stage address, `+32` bytes per k-step.
//!
//! Where things are: [`Sm90Options`] (`options.rs`) names a variant and the combinations a plan
//! accepts; [`Sm90Plan`] (here) derives and proves the stages, boxes and descriptors, its
//! epilogue (`epilogue.rs`) the chunks, their bank behaviour and the TMA store of C, and its
//! stream-K schedule `stream_k.rs`; `source.rs` writes the CUDA source; [`run`] launches and
//! verifies the kernel next to cuBLAS; [`TraceRecord`] (`trace.rs`) reads the timeline of
//! [`Sm90Options::trace`].
//!
//! ```
//! use tessel_kernels::hopper::{InType, OutType, Sm90Plan};
//! let plan = Sm90Plan::new(1000, 1000, 1000, InType::F16, OutType::F32).unwrap();
//! assert_eq!(plan.kernel_name(), "gemm_sm90_tn_f16_f32_1000x1000x1000");
//! assert_eq!(plan.tiles(), 8 * 4);
//! let d = plan.desc_b()[1];
//! assert_eq!((d.start_address, d.leading_byte_offset, d.stride_byte_offset), (32, 16, 1024));
//! assert!(Sm90Plan::new(128, 256, 100, InType::F16, OutType::F32).is_err()); // K % 8 != 0
//! ```

mod epilogue;
mod options;
pub mod run;
mod source;
mod stream_k;
mod trace;
mod types;

pub use options::{Sm90Options, WAIT_HINT_NS};
pub use trace::{TRACE_TILES, TraceRecord};
pub use types::{Epilogue, InType, OutType};

use tessel_layout::atom::mma_atom;
use tessel_layout::gmma::{GmmaDescriptor, Major, SwizzleMode, gmma_descriptor, smem_atom};
use tessel_layout::{ComposedLayout, IntTuple, Layout, composition};

use crate::error::{GpuError, GpuResult};
use crate::tiled::raster_layout;
use crate::tma::{TmaMatrix, TmaPlan};

/// The device body ([`Sm90Plan::kernel`] declares its pieces and inserts [`UNITS`]).
///
/// ```
/// assert!(tessel_kernels::hopper::BODY.contains("dev::sm90::tma_load("));
/// ```
pub const BODY: &str = include_str!("../../cuda/gemm_sm90.cu");
/// The device struct `dev::sm90`: mbarrier, TMA, fence, `setmaxnreg`, wgmma-sync and store
/// instructions.
///
/// ```
/// assert!(tessel_kernels::hopper::SYNC.contains("struct sm90"));
/// ```
pub const SYNC: &str = include_str!("../../cuda/gemm_sm90_sync.cuh");
/// The consumers' unit loop (main loop, stream-K fixup, epilogue), which [`Sm90Plan::kernel`]
/// inserts into [`BODY`] at its `//@UNITS` line: once over the data-parallel tiles, and with
/// [`Sm90Options::stream_k`] once more over the stream-K units.
///
/// ```
/// use tessel_kernels::hopper::{BODY, UNITS};
/// assert!(UNITS.contains("dev::wgmma<1, 1, 0, 0>(") && BODY.contains("//@UNITS"));
/// ```
pub const UNITS: &str = include_str!("../../cuda/gemm_sm90_units.cuh");

/// Block tile rows (two consumer warpgroups of 64).
///
/// ```
/// assert_eq!(tessel_kernels::hopper::BM, 2 * 64);
/// ```
pub const BM: i64 = 128;
/// Block tile columns (the N of one wgmma).
///
/// ```
/// assert_eq!(tessel_kernels::hopper::BN, 256);
/// ```
pub const BN: i64 = 256;
/// K per stage: one 128-byte swizzled row of fp16/bf16.
///
/// ```
/// assert_eq!(tessel_kernels::hopper::BK * 2, 128);
/// ```
pub const BK: i64 = 64;
/// K per wgmma.
///
/// ```
/// assert_eq!(tessel_kernels::hopper::BK / tessel_kernels::hopper::WGMMA_K, 4);
/// ```
pub const WGMMA_K: i64 = 16;
/// Pipeline stages (4 x 48 KiB of shared memory).
///
/// ```
/// assert_eq!(tessel_kernels::hopper::STAGES, 4);
/// ```
pub const STAGES: i64 = 4;
/// Consumer warpgroups.
///
/// ```
/// assert_eq!(tessel_kernels::hopper::CONSUMERS * 64, tessel_kernels::hopper::BM);
/// ```
pub const CONSUMERS: i64 = 2;
/// Registers per thread of the producer warpgroup after `setmaxnreg.dec`.
///
/// ```
/// use tessel_kernels::hopper::{CONSUMER_REGS, CONSUMERS, PRODUCER_REGS};
/// // The register file of one SM (64K) holds all three warpgroups.
/// assert!(128 * (PRODUCER_REGS + CONSUMERS * CONSUMER_REGS) <= 65536);
/// ```
pub const PRODUCER_REGS: i64 = 40;
/// Registers per thread of a consumer warpgroup after `setmaxnreg.inc`.
///
/// ```
/// assert_eq!(tessel_kernels::hopper::CONSUMER_REGS % 8, 0); // setmaxnreg takes multiples of 8
/// ```
pub const CONSUMER_REGS: i64 = 232;
/// Tile groups of the raster (16 x 16 tiles: the 132 tiles of a wave cover about 16 tile rows
/// by 8 tile columns, 2048 rows of A and of B; faster than groups of 8 at 4096^3 in every type
/// pair, docs/performance.md).
///
/// ```
/// assert_eq!(tessel_kernels::hopper::RASTER_GROUP, 16);
/// ```
pub const RASTER_GROUP: i64 = 16;

/// Everything the Hopper kernel computes, derived and checked on the host.
///
/// ```
/// use tessel_kernels::hopper::{InType, OutType, Sm90Plan};
/// let p = Sm90Plan::new(128, 256, 64, InType::BF16, OutType::BF16).unwrap();
/// assert_eq!((p.a_stage.layout().size(), p.b_stage.layout().size()), (128 * 64, 256 * 64));
/// assert_eq!(p.a_tma.box_layout().to_string(), "Sw<3,3,3> o (64,128):(1,64)");
/// assert_eq!(p.kernel().unwrap().launch().threads(), 384);
/// ```
#[derive(Clone, Debug)]
pub struct Sm90Plan {
    /// Rows of A and C.
    pub m: i64,
    /// Rows of B, columns of C.
    pub n: i64,
    /// The reduction extent.
    pub k: i64,
    /// Input type.
    pub input: InType,
    /// Output type.
    pub output: OutType,
    /// One stage of A: `smem_atom(K, 128B, 16)` tiled over `(BM, BK)` (mode 0 M, mode 1 K).
    pub a_stage: ComposedLayout,
    /// One stage of B, tiled over `(BN, BK)`.
    pub b_stage: ComposedLayout,
    /// A's tensor map recipe (box 64 x 128), proven to write `a_stage`.
    pub a_tma: TmaPlan,
    /// B's tensor map recipe (box 64 x 256), proven to write `b_stage`.
    pub b_tma: TmaPlan,
    /// Block tile order: iteration `i` of the persistent loop -> tile index `ty + TY * tx`.
    pub raster: Layout,
    /// Tile index -> first row.
    pub tile_m0: Layout,
    /// Tile index -> first column.
    pub tile_n0: Layout,
    /// The GMMA atom's C layout: (thread, value) -> `m + 64 n` in the 64 x 256 tile.
    pub c_frag: Layout,
    /// C's row-major offsets `(M, N):(N, 1)`.
    pub g_c: Layout,
    /// The requested variant.
    pub options: Sm90Options,
    /// The epilogue the kernel uses: `options.epilogue`, or [`Epilogue::Direct`] where TMA
    /// cannot address C.
    pub epilogue: Epilogue,
    /// One epilogue chunk in shared memory: `smem_atom(K, 128B, bits)` tiled over
    /// `(64, C_COLS)` (mode 0 row, mode 1 column; 128-byte rows).
    pub c_smem: ComposedLayout,
    /// C's tensor map recipe (box `C_COLS x 64`), proven to read `c_smem`; `None` for the
    /// direct epilogue.
    pub c_tma: Option<TmaPlan>,
    /// The fp32 epilogue's pair order `(mask, bit)`: at step `u` (an even value index of the
    /// chunk) thread `t` stores its values `u ^ mask` and `u ^ mask + 1` when bit `bit` of `t`
    /// is set, `u` and `u + 1` otherwise. Chosen with the bank model ([`Sm90Plan::new`]:
    /// the first candidate whose stores are conflict-free); `(0, 0)` for 16-bit outputs,
    /// the direct epilogue and `pair_order: false`.
    pub c_flip: (i64, i64),
    /// With a pair order, the element-offset XOR that takes the place of value `v` to that of
    /// value `v ^ mask` for every thread that flips (the kernel XORs the address instead of
    /// recomputing it); 0 without one.
    pub c_flip_xor: i64,
    desc_a: Vec<GmmaDescriptor>,
    desc_b: Vec<GmmaDescriptor>,
}

/// `ceil(x / d)` for positive `x` and `d`.
fn ceil_div(x: i64, d: i64) -> i64 {
    (x + d - 1) / d
}

/// The operand of one wgmma: rows `row0 .. row0 + rows` and k-block `kb` of a stage whose mode
/// 0 has `total` rows, as a layout of its own (mode 0 MN, mode 1 K), checked element by element
/// against the stage.
fn operand(
    stage: &ComposedLayout,
    total: i64,
    row0: i64,
    rows: i64,
    kb: i64,
) -> GpuResult<ComposedLayout> {
    let pick: Layout = format!("({rows},{WGMMA_K}):(1,{total})").parse()?;
    let inner = composition(stage.layout(), &pick)?;
    let first = row0 + total * WGMMA_K * kb;
    let shift = stage.layout().offset(first)?;
    let op = ComposedLayout::new(
        stage.swizzles().to_vec(),
        stage.base_offset() + shift,
        inner,
    );
    for j in 0..WGMMA_K {
        for i in 0..rows {
            let want = stage.offset(first + i + total * j)?;
            if op.offset(i + rows * j)? != want {
                return Err(GpuError::InvalidArgument(format!(
                    "the wgmma operand {op} of rows {row0}.. and k-block {kb} of {stage} misplaces \
                     element ({i},{j})"
                )));
            }
        }
    }
    Ok(op)
}

/// The descriptors of every k-block of `rows` rows at `row0` of a stage, and the constant
/// fields they share; errors when a field other than the start address varies or the start
/// address does not advance by [`Sm90Plan::K_STEP_BYTES`] per k-block.
fn descriptors(
    stage: &ComposedLayout,
    total: i64,
    row0: i64,
    rows: i64,
    elem_bytes: i64,
) -> GpuResult<Vec<GmmaDescriptor>> {
    let mut out = Vec::new();
    for kb in 0..BK / WGMMA_K {
        let op = operand(stage, total, row0, rows, kb)?;
        let d = gmma_descriptor(&op, elem_bytes, 0, Some(Major::K))?;
        let first = out.first().copied().unwrap_or(d);
        let want_start = first.start_address + kb * Sm90Plan::K_STEP_BYTES;
        if (d.mode, d.leading_byte_offset, d.stride_byte_offset)
            != (
                first.mode,
                first.leading_byte_offset,
                first.stride_byte_offset,
            )
            || d.start_address != want_start
        {
            return Err(GpuError::InvalidArgument(format!(
                "k-block {kb} of rows {row0}.. has the descriptor {d:?}; the kernel assumes \
                 {first:?} with the start advanced to {want_start}"
            )));
        }
        out.push(d);
    }
    Ok(out)
}

impl Sm90Plan {
    /// Bytes between the start addresses of consecutive k-blocks (16 fp16/bf16 elements)
    /// inside a 128-byte swizzled row.
    ///
    /// ```
    /// assert_eq!(tessel_kernels::hopper::Sm90Plan::K_STEP_BYTES, 32);
    /// ```
    pub const K_STEP_BYTES: i64 = 32;

    /// The plan of `C (M x N) = A (M x K) * B^T (N x K)`. Errors: `M` or `N` outside
    /// `1..2^31`, `K` not a positive multiple of 8 below `2^31`, or any layout check failing.
    ///
    /// ```
    /// use tessel_kernels::hopper::{InType, OutType, Sm90Plan};
    /// let err = Sm90Plan::new(64, 64, 12, InType::F16, OutType::F32).unwrap_err();
    /// assert!(err.to_string().contains("multiple of 8"), "{err}");
    /// assert!(Sm90Plan::new(129, 257, 72, InType::BF16, OutType::F16).is_ok());
    /// ```
    pub fn new(m: i64, n: i64, k: i64, input: InType, output: OutType) -> GpuResult<Sm90Plan> {
        Self::with_options(m, n, k, input, output, Sm90Options::default())
    }

    /// The plan of the variant `options` ([`Sm90Plan::new`] takes the default). Errors as
    /// `new`, and for a raster group outside `1..=64` or a cluster size other than 1 or 2.
    ///
    /// ```
    /// use tessel_kernels::hopper::{Epilogue, InType, OutType, Sm90Options, Sm90Plan};
    /// let o = Sm90Options { epilogue: Epilogue::Direct, ..Sm90Options::default() };
    /// let p = Sm90Plan::with_options(256, 256, 64, InType::F16, OutType::F32, o).unwrap();
    /// assert_eq!(p.kernel_name(), "gemm_sm90_tn_f16_f32_256x256x64_direct");
    /// // N = 257 fp32 columns are 1028-byte rows: TMA cannot store them, the plan falls back.
    /// let p = Sm90Plan::new(256, 257, 64, InType::F16, OutType::F32).unwrap();
    /// assert_eq!((p.epilogue, p.c_tma.is_none()), (Epilogue::Direct, true));
    /// ```
    pub fn with_options(
        m: i64,
        n: i64,
        k: i64,
        input: InType,
        output: OutType,
        options: Sm90Options,
    ) -> GpuResult<Sm90Plan> {
        options.check(m, n, k)?;
        let limit = 1i64 << 31;
        for (name, v) in [("M", m), ("N", n), ("K", k)] {
            if !(1..limit).contains(&v) {
                return Err(GpuError::InvalidArgument(format!(
                    "Hopper GEMM: {name} = {v} is outside 1..2^31"
                )));
            }
        }
        if k % 8 != 0 {
            return Err(GpuError::InvalidArgument(format!(
                "Hopper GEMM: K = {k} must be a multiple of 8 (TMA needs rows of A and B at \
                 16-byte pitches)"
            )));
        }
        let atom = smem_atom(Major::K, SwizzleMode::B128, 16)?;
        let bm = Self::block_m_of(&options);
        let a_stage = atom.tile_to_shape(&IntTuple::from_ints([bm, BK]))?;
        let b_stage = atom.tile_to_shape(&IntTuple::from_ints([BN, BK]))?;
        let elem = input.tma();
        let a_tma = TmaPlan::new(
            TmaMatrix {
                rows: m,
                cols: k,
                ld: k,
                elem,
            },
            [BK, bm],
            SwizzleMode::B128,
            &a_stage,
            Major::K,
        )?;
        // B's box: the rows one block of the cluster loads (all of them without clusters),
        // proven to write `b_box`, which is rows `r * B_ROWS ..` of the stage for every rank r.
        let cluster = options.cluster;
        let b_rows = BN / cluster;
        let b_box = atom.tile_to_shape(&IntTuple::from_ints([b_rows, BK]))?;
        for r in 0..cluster {
            for kk in 0..BK {
                for row in 0..b_rows {
                    let want = b_stage.offset(r * b_rows + row + BN * kk)?;
                    if b_box.offset(row + b_rows * kk)? + r * b_rows * BK != want {
                        return Err(GpuError::InvalidArgument(format!(
                            "B rows {}.. of the stage {b_stage} are not the box {b_box} at \
                             {} elements",
                            r * b_rows,
                            r * b_rows * BK
                        )));
                    }
                }
            }
        }
        let b_tma = TmaPlan::new(
            TmaMatrix {
                rows: n,
                cols: k,
                ld: k,
                elem,
            },
            [BK, b_rows],
            SwizzleMode::B128,
            &b_box,
            Major::K,
        )?;
        let eb = elem.bytes();
        let mut desc_a = Vec::new();
        // The consumers' row blocks of an A stage: two of 64 rows, or (ping-pong) one that
        // both consumers read in turn.
        for c in 0..bm / 64 {
            desc_a.extend(descriptors(&a_stage, bm, 64 * c, 64, eb)?);
        }
        let desc_b = descriptors(&b_stage, BN, 0, BN, eb)?;
        // Consumer c's rows start A_WG_BYTES * c into the stage (cooperative).
        let per_wg = match desc_a.get((BK / WGMMA_K) as usize) {
            Some(d) => d.start_address - desc_a[0].start_address,
            None => Self::A_WG_BYTES,
        };
        if per_wg != Self::A_WG_BYTES
            || desc_a[0].start_address != 0
            || desc_b[0].start_address != 0
        {
            return Err(GpuError::InvalidArgument(format!(
                "the consumers' operands start at bytes {} and {} of the A stage (B at {}); the \
                 kernel assumes 0, {} and 0",
                desc_a[0].start_address,
                desc_a[0].start_address + per_wg,
                desc_b[0].start_address,
                Self::A_WG_BYTES
            )));
        }
        let atom = mma_atom(input.atom())?;
        let c_frag = atom.c_layout().clone();
        let (ty, tx) = (ceil_div(m, bm), ceil_div(n, BN));
        // Cluster tiles: `cluster` M-tiles by one N-tile.
        let cy = ceil_div(ty, options.cluster);
        let c_cols = Self::c_cols(output);
        let c_smem = smem_atom(Major::K, SwizzleMode::B128, 8 * output.tma().bytes())?
            .tile_to_shape(&IntTuple::from_ints([64, c_cols]))?;
        // Per-warp stores read 16-row boxes: rows 16 w .. of the chunk, 16 w * C_COLS
        // elements (2 KiB) into it.
        let box_rows = if options.warp_stores { 16 } else { 64 };
        let c_box = smem_atom(Major::K, SwizzleMode::B128, 8 * output.tma().bytes())?
            .tile_to_shape(&IntTuple::from_ints([box_rows, c_cols]))?;
        for w in 0..64 / box_rows {
            for col in 0..c_cols {
                for r in 0..box_rows {
                    let want = c_smem.offset(w * box_rows + r + 64 * col)?;
                    if c_box.offset(r + box_rows * col)? + w * box_rows * c_cols != want {
                        return Err(GpuError::InvalidArgument(format!(
                            "rows {}.. of the epilogue chunk {c_smem} are not the box {c_box}",
                            w * box_rows
                        )));
                    }
                }
            }
        }
        let c_tma = match options.epilogue {
            Epilogue::TmaStore => Self::c_store_tma(m, n, output, &c_box)?,
            Epilogue::Direct => None,
        };
        let epilogue = if c_tma.is_some() {
            Epilogue::TmaStore
        } else {
            Epilogue::Direct
        };
        let mut plan = Sm90Plan {
            m,
            n,
            k,
            input,
            output,
            a_stage,
            b_stage,
            a_tma,
            b_tma,
            raster: raster_layout(cy, tx, options.raster_group)?,
            tile_m0: Layout::new(
                IntTuple::from_ints([cy, tx]),
                IntTuple::from_ints([cluster * bm, 0]),
            )?,
            tile_n0: Layout::new(IntTuple::from_ints([cy, tx]), IntTuple::from_ints([0, BN]))?,
            c_frag,
            g_c: Layout::new(IntTuple::from_ints([m, n]), IntTuple::from_ints([n, 1]))?,
            options,
            epilogue,
            c_smem,
            c_tma,
            c_flip: (0, 0),
            c_flip_xor: 0,
            desc_a,
            desc_b,
        };
        plan.check_c_frag()?;
        (plan.c_flip, plan.c_flip_xor) = plan.choose_c_flip()?;
        plan.check_c_chunks()?;
        Ok(plan)
    }

    /// The descriptors of A's operands: consumer `c`, k-block `kb` at index `4 c + kb`, start
    /// addresses relative to the stage.
    ///
    /// ```
    /// use tessel_kernels::hopper::{InType, OutType, Sm90Plan};
    /// let p = Sm90Plan::new(128, 256, 64, InType::F16, OutType::F32).unwrap();
    /// assert_eq!(p.desc_a()[4].start_address, Sm90Plan::A_WG_BYTES);
    /// ```
    pub fn desc_a(&self) -> &[GmmaDescriptor] {
        &self.desc_a
    }

    /// The descriptors of B's operands, one per k-block.
    ///
    /// ```
    /// use tessel_kernels::hopper::{InType, OutType, Sm90Plan};
    /// let p = Sm90Plan::new(128, 256, 64, InType::F16, OutType::F32).unwrap();
    /// assert_eq!(p.desc_b().len(), 4);
    /// ```
    pub fn desc_b(&self) -> &[GmmaDescriptor] {
        &self.desc_b
    }

    /// The constant fields of a descriptor (start address 0), as the kernel's `k::DESC_*`.
    ///
    /// ```
    /// use tessel_kernels::hopper::{InType, OutType, Sm90Plan};
    /// let p = Sm90Plan::new(128, 256, 64, InType::F16, OutType::F32).unwrap();
    /// // 128B swizzle (1 << 62), SBO 1024 >> 4 = 64 (bits 32-45), LBO 16 >> 4 = 1 (bits 16-29).
    /// assert_eq!(Sm90Plan::desc_bits(&p.desc_a()[0]).unwrap(), 1 << 62 | 64 << 32 | 1 << 16);
    /// ```
    pub fn desc_bits(d: &GmmaDescriptor) -> GpuResult<u64> {
        Ok(GmmaDescriptor {
            start_address: 0,
            ..*d
        }
        .encode()?)
    }

    /// `gemm_sm90_tn_{in}_{out}_{M}x{N}x{K}`.
    ///
    /// ```
    /// use tessel_kernels::hopper::{InType, OutType, Sm90Plan};
    /// let p = Sm90Plan::new(128, 256, 64, InType::BF16, OutType::F16).unwrap();
    /// assert_eq!(p.kernel_name(), "gemm_sm90_tn_bf16_f16_128x256x64");
    /// ```
    pub fn kernel_name(&self) -> String {
        let eff = Sm90Options {
            epilogue: self.epilogue,
            ..self.options
        };
        format!(
            "gemm_sm90_tn_{}_{}_{}x{}x{}{}",
            self.input,
            self.output,
            self.m,
            self.n,
            self.k,
            eff.tag()
        )
    }

    /// Output tiles ([`Sm90Plan::block_m`] x 256).
    ///
    /// ```
    /// use tessel_kernels::hopper::{InType, OutType, Sm90Options, Sm90Plan};
    /// assert_eq!(Sm90Plan::new(4096, 4096, 64, InType::F16, OutType::F32).unwrap().tiles(), 512);
    /// let pp = Sm90Options { pingpong: true, ..Sm90Options::default() };
    /// let p = Sm90Plan::with_options(4096, 4096, 64, InType::F16, OutType::F32, pp).unwrap();
    /// assert_eq!(p.tiles(), 1024);
    /// ```
    pub fn tiles(&self) -> i64 {
        ceil_div(self.m, self.block_m()) * ceil_div(self.n, BN)
    }

    /// Rows of a block tile: [`BM`] (two consumers of 64 rows), or 64 with
    /// [`Sm90Options::pingpong`] (each consumer computes whole tiles of its own).
    ///
    /// ```
    /// use tessel_kernels::hopper::{BM, InType, OutType, Sm90Options, Sm90Plan};
    /// let pp = Sm90Options { pingpong: true, ..Sm90Options::default() };
    /// let p = Sm90Plan::with_options(256, 256, 64, InType::F16, OutType::F32, pp).unwrap();
    /// assert_eq!((p.block_m(), p.a_tma.box_dims()), (64, [64, 64]));
    /// assert_eq!(Sm90Plan::new(256, 256, 64, InType::F16, OutType::F32).unwrap().block_m(), BM);
    /// ```
    pub fn block_m(&self) -> i64 {
        Self::block_m_of(&self.options)
    }

    fn block_m_of(options: &Sm90Options) -> i64 {
        if options.pingpong { 64 } else { BM }
    }

    /// k-tiles (64 wide; the last one zero-filled past K by TMA).
    ///
    /// ```
    /// use tessel_kernels::hopper::{InType, OutType, Sm90Plan};
    /// assert_eq!(Sm90Plan::new(128, 256, 72, InType::F16, OutType::F32).unwrap().k_tiles(), 2);
    /// ```
    pub fn k_tiles(&self) -> i64 {
        ceil_div(self.k, BK)
    }

    /// The unroll factor of the consumers' k-tile loop: the stage count with
    /// [`Sm90Options::unroll_stages`] where every tile's k-tiles are a multiple of it (and no
    /// stream-K), else 1.
    ///
    /// ```
    /// use tessel_kernels::hopper::{InType, OutType, Sm90Options, Sm90Plan};
    /// let us = Sm90Options { unroll_stages: true, ..Sm90Options::default() };
    /// let p = Sm90Plan::with_options(256, 256, 4096, InType::F16, OutType::F32, us).unwrap();
    /// assert_eq!(p.k_unroll(), 4); // 64 k-tiles
    /// let p = Sm90Plan::with_options(256, 256, 4104, InType::F16, OutType::F32, us).unwrap();
    /// assert_eq!(p.k_unroll(), 1); // 65 k-tiles
    /// ```
    pub fn k_unroll(&self) -> i64 {
        let stages = self.options.stages;
        if self.options.unroll_stages && !self.options.stream_k && self.k_tiles() % stages == 0 {
            stages
        } else {
            1
        }
    }

    /// Bytes one stage receives (A box + B box): the transaction count of its `full` barrier.
    ///
    /// ```
    /// use tessel_kernels::hopper::{InType, OutType, Sm90Plan};
    /// assert_eq!(Sm90Plan::new(8, 8, 8, InType::F16, OutType::F32).unwrap().stage_bytes(), 48 * 1024);
    /// ```
    pub fn stage_bytes(&self) -> i64 {
        self.a_tma.box_bytes() + self.b_stage_bytes()
    }

    /// Bytes of B per stage (the whole 256 x 64 tile; with clusters, several boxes).
    fn b_stage_bytes(&self) -> i64 {
        self.b_tma.box_bytes() * self.options.cluster
    }

    /// Cluster tiles: `cluster` M-tiles by one N-tile (the tiles without clusters); the
    /// persistent loop's iteration count over all clusters.
    ///
    /// ```
    /// use tessel_kernels::hopper::{InType, OutType, Sm90Options, Sm90Plan};
    /// let o = Sm90Options { cluster: 2, ..Sm90Options::default() };
    /// let p = Sm90Plan::with_options(384, 512, 64, InType::F16, OutType::F32, o).unwrap();
    /// assert_eq!((p.tiles(), p.cluster_tiles()), (3 * 2, 2 * 2)); // 3 M-tiles: 2 clusters
    /// ```
    pub fn cluster_tiles(&self) -> i64 {
        ceil_div(ceil_div(self.m, self.block_m()), self.options.cluster) * ceil_div(self.n, BN)
    }

    /// Dynamic shared memory: the stages, the epilogue buffers, 1 KiB to align them to the
    /// swizzle's repeat, and the `full` and `empty` barriers.
    ///
    /// ```
    /// use tessel_kernels::hopper::{Epilogue, InType, OutType, Sm90Options, Sm90Plan};
    /// let p = Sm90Plan::new(8, 8, 8, InType::F16, OutType::F32).unwrap();
    /// assert_eq!(p.smem_bytes(), 4 * 49152 + 4 * 8192 + 1024 + 64);
    /// let direct = Sm90Options { epilogue: Epilogue::Direct, ..Sm90Options::default() };
    /// let d = Sm90Plan::with_options(8, 8, 8, InType::F16, OutType::F32, direct).unwrap();
    /// assert_eq!(d.smem_bytes(), 4 * 49152 + 1024 + 64);
    /// // 3 stages: 4 buffers per consumer.
    /// let s3 = Sm90Options { stages: 3, ..Sm90Options::default() };
    /// let p3 = Sm90Plan::with_options(8, 8, 8, InType::F16, OutType::F32, s3).unwrap();
    /// assert_eq!(p3.smem_bytes(), 3 * 49152 + 8 * 8192 + 1024 + 48);
    /// ```
    pub fn smem_bytes(&self) -> i64 {
        let stages = self.options.stages;
        stages * self.stage_bytes()
            + CONSUMERS * self.c_bufs() * self.c_buf_bytes()
            + 1024
            + 2 * stages * 8
    }

    /// Stages whose shared memory the epilogue borrows with [`Sm90Options::park`]: those of
    /// the tile's last `park_stages` k-tiles, 3 chunk buffers of each per consumer (its 64 rows
    /// of A and half of B), enough with its own [`Sm90Plan::c_bufs`] for every chunk of its
    /// tile: 2 for fp32 (8 chunks), 1 for 16-bit outputs (4 chunks). 0 without parking, where
    /// the epilogue falls back to direct stores, or where a tile has fewer k-tiles than that.
    ///
    /// ```
    /// use tessel_kernels::hopper::{InType, OutType, Sm90Options, Sm90Plan};
    /// let pk = Sm90Options { park: true, ..Sm90Options::default() };
    /// let f32 = Sm90Plan::with_options(256, 256, 256, InType::F16, OutType::F32, pk).unwrap();
    /// let f16 = Sm90Plan::with_options(256, 256, 64, InType::F16, OutType::F16, pk).unwrap();
    /// let short = Sm90Plan::with_options(256, 256, 64, InType::F16, OutType::F32, pk).unwrap();
    /// assert_eq!((f32.park_stages(), f16.park_stages(), short.park_stages()), (2, 1, 0));
    /// ```
    pub fn park_stages(&self) -> i64 {
        if !self.options.park || self.epilogue != Epilogue::TmaStore {
            return 0;
        }
        let stages = ceil_div(self.c_chunks() - self.c_bufs(), Self::PARK_BUFS);
        if self.k_tiles() < stages { 0 } else { stages }
    }

    /// Chunk buffers a consumer takes from each parked stage: its 64 rows of A and half of B.
    const PARK_BUFS: i64 = 3;

    /// Epilogue buffers per consumer: 2 with 4 stages, 4 with 3 (where the shared memory of
    /// the fourth stage holds them) or with ping-pong consumers (whose stages are 8 KiB
    /// smaller).
    ///
    /// ```
    /// use tessel_kernels::hopper::{InType, OutType, Sm90Options, Sm90Plan};
    /// assert_eq!(Sm90Plan::new(8, 8, 8, InType::F16, OutType::F32).unwrap().c_bufs(), 2);
    /// let pp = Sm90Options { pingpong: true, ..Sm90Options::default() };
    /// let p = Sm90Plan::with_options(8, 8, 8, InType::F16, OutType::F32, pp).unwrap();
    /// assert_eq!((p.c_bufs(), p.smem_bytes()), (4, 4 * 40960 + 8 * 8192 + 1024 + 64));
    /// assert!(p.smem_bytes() <= 227 * 1024);
    /// ```
    pub fn c_bufs(&self) -> i64 {
        if self.options.stages == 3 || self.options.pingpong {
            4
        } else {
            2
        }
    }

    /// Bytes of one epilogue buffer (64 rows of 128 bytes; 0 for the direct epilogue). Each
    /// consumer has [`Sm90Plan::c_bufs`].
    ///
    /// ```
    /// use tessel_kernels::hopper::{InType, OutType, Sm90Plan};
    /// let p = Sm90Plan::new(4096, 4096, 64, InType::F16, OutType::F32).unwrap();
    /// assert_eq!(p.c_buf_bytes(), 8192);
    /// assert!(p.smem_bytes() <= 227 * 1024); // the H100's opt-in limit per block
    /// ```
    pub fn c_buf_bytes(&self) -> i64 {
        match self.epilogue {
            Epilogue::Direct => 0,
            Epilogue::TmaStore => 64 * 128,
        }
    }

    /// Floating-point operations (`2 M N K`).
    ///
    /// ```
    /// use tessel_kernels::hopper::{InType, OutType, Sm90Plan};
    /// assert_eq!(Sm90Plan::new(2, 3, 8, InType::F16, OutType::F32).unwrap().flops(), 96.0);
    /// ```
    pub fn flops(&self) -> f64 {
        2.0 * self.m as f64 * self.n as f64 * self.k as f64
    }
}
