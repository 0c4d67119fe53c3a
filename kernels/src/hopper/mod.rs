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
//! consumer code per consumer index, the k-loop unrolling, a try_wait hint and L2 prefetch);
//! `kernels/examples/sm90_sweep.rs` times them against cuBLAS in one process
//! (docs/performance.md, "Hopper").
//!
//! Every shared layout is `smem_atom(Major::K, SwizzleMode::B128, 16)` tiled over the stage
//! with `tile_to_shape`. [`Sm90Plan::new`] proves on the host that the TMA boxes write exactly
//! those layouts ([`crate::tma::TmaPlan`]) and derives the wgmma descriptors of every k-block
//! of every consumer's operands with `gmma_descriptor` (verified element by element); the
//! kernel gets their constant fields and adds the stage address, `+32` bytes per k-step.
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

pub mod run;

use std::fmt;

use tessel_layout::atom::{copy_atom, mma_atom};
use tessel_layout::bank::{BankReport, SmemOp, analyze_indices};
use tessel_layout::gmma::{GmmaDescriptor, Major, SwizzleMode, gmma_descriptor, smem_atom};
use tessel_layout::{ComposedLayout, IntTuple, Layout, composition};

use crate::Arch;
use crate::error::{GpuError, GpuResult};
use crate::kernel::{CType, Elem, Kernel, KernelBuilder, Param};
use crate::tiled::raster_layout;
use crate::tma::{TmaElem, TmaMatrix, TmaPlan};

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
/// Tile groups of the raster (8 x 8 tiles).
///
/// ```
/// assert_eq!(tessel_kernels::hopper::RASTER_GROUP, 8);
/// ```
pub const RASTER_GROUP: i64 = 8;

/// Input element type of the Hopper GEMM.
///
/// ```
/// use tessel_kernels::hopper::InType;
/// assert_eq!(InType::BF16.atom(), "SM90_64x256x16_F32BF16BF16_SS");
/// assert_eq!("bf16".parse::<InType>().unwrap(), InType::BF16);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum InType {
    /// IEEE half.
    F16,
    /// bfloat16.
    BF16,
}

impl InType {
    /// Both input types.
    ///
    /// ```
    /// assert_eq!(tessel_kernels::hopper::InType::ALL.len(), 2);
    /// ```
    pub const ALL: [InType; 2] = [InType::F16, InType::BF16];

    /// The GMMA atom (CuTe's name) of a 64 x 256 x 16 step with fp32 accumulators.
    ///
    /// ```
    /// assert_eq!(tessel_kernels::hopper::InType::F16.atom(), "SM90_64x256x16_F32F16F16_SS");
    /// ```
    pub fn atom(self) -> &'static str {
        match self {
            InType::F16 => "SM90_64x256x16_F32F16F16_SS",
            InType::BF16 => "SM90_64x256x16_F32BF16BF16_SS",
        }
    }

    /// The tensor-map element type.
    ///
    /// ```
    /// use tessel_kernels::{hopper::InType, tma::TmaElem};
    /// assert_eq!(InType::BF16.tma(), TmaElem::BF16);
    /// ```
    pub fn tma(self) -> TmaElem {
        match self {
            InType::F16 => TmaElem::F16,
            InType::BF16 => TmaElem::BF16,
        }
    }
}

impl fmt::Display for InType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            InType::F16 => "f16",
            InType::BF16 => "bf16",
        })
    }
}

impl std::str::FromStr for InType {
    type Err = GpuError;
    fn from_str(s: &str) -> GpuResult<InType> {
        match s {
            "f16" | "fp16" => Ok(InType::F16),
            "bf16" => Ok(InType::BF16),
            _ => Err(GpuError::InvalidArgument(format!(
                "unknown GEMM input type {s:?} (expected f16 or bf16)"
            ))),
        }
    }
}

/// Output element type of the Hopper GEMM (converted from the fp32 accumulators, rounding to
/// nearest even).
///
/// ```
/// use tessel_kernels::hopper::OutType;
/// assert_eq!((OutType::F32.bytes(), OutType::BF16.bytes()), (4, 2));
/// assert_eq!(OutType::F16.to_string(), "f16");
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum OutType {
    /// fp32.
    F32,
    /// IEEE half.
    F16,
    /// bfloat16.
    BF16,
}

impl OutType {
    /// Every output type.
    ///
    /// ```
    /// assert_eq!(tessel_kernels::hopper::OutType::ALL.len(), 3);
    /// ```
    pub const ALL: [OutType; 3] = [OutType::F32, OutType::F16, OutType::BF16];

    /// Bytes per element.
    ///
    /// ```
    /// assert_eq!(tessel_kernels::hopper::OutType::F16.bytes(), 2);
    /// ```
    pub fn bytes(self) -> usize {
        match self {
            OutType::F32 => 4,
            OutType::F16 | OutType::BF16 => 2,
        }
    }

    /// The tensor-map element type (C's map of the TMA-store epilogue).
    ///
    /// ```
    /// use tessel_kernels::{hopper::OutType, tma::TmaElem};
    /// assert_eq!(OutType::F32.tma(), TmaElem::F32);
    /// ```
    pub fn tma(self) -> TmaElem {
        match self {
            OutType::F32 => TmaElem::F32,
            OutType::F16 => TmaElem::F16,
            OutType::BF16 => TmaElem::BF16,
        }
    }

    /// The kernel's `k::OUT` code (0 fp32, 1 fp16, 2 bf16; `dev::sm90::bits<OUT>`).
    ///
    /// ```
    /// assert_eq!(tessel_kernels::hopper::OutType::BF16.code(), 2);
    /// ```
    pub fn code(self) -> i64 {
        match self {
            OutType::F32 => 0,
            OutType::F16 => 1,
            OutType::BF16 => 2,
        }
    }

    /// Unit roundoff of the type (half an ulp at 1): the relative error of one conversion.
    ///
    /// ```
    /// assert_eq!(tessel_kernels::hopper::OutType::BF16.unit_roundoff(), 2f64.powi(-8));
    /// ```
    pub fn unit_roundoff(self) -> f64 {
        match self {
            OutType::F32 => 2f64.powi(-24),
            OutType::F16 => 2f64.powi(-11),
            OutType::BF16 => 2f64.powi(-8),
        }
    }
}

impl fmt::Display for OutType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            OutType::F32 => "f32",
            OutType::F16 => "f16",
            OutType::BF16 => "bf16",
        })
    }
}

/// How the consumers write C.
///
/// ```
/// use tessel_kernels::hopper::Epilogue;
/// assert_eq!(Epilogue::TmaStore.to_string(), "tma");
/// assert_eq!("direct".parse::<Epilogue>().unwrap(), Epilogue::Direct);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Epilogue {
    /// Predicated `st.global` from the accumulator registers, two columns per store.
    Direct,
    /// `st.shared` / `stmatrix` into a swizzled shared chunk, then a TMA store
    /// (`cp.async.bulk.tensor` shared -> global); needs C's row pitch (`N` times the output
    /// size) to be a multiple of 16 bytes, else the plan falls back to [`Epilogue::Direct`].
    TmaStore,
}

impl fmt::Display for Epilogue {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Epilogue::Direct => "direct",
            Epilogue::TmaStore => "tma",
        })
    }
}

impl std::str::FromStr for Epilogue {
    type Err = GpuError;
    fn from_str(s: &str) -> GpuResult<Epilogue> {
        match s {
            "direct" => Ok(Epilogue::Direct),
            "tma" | "tma-store" => Ok(Epilogue::TmaStore),
            _ => Err(GpuError::InvalidArgument(format!(
                "unknown Hopper epilogue {s:?} (expected direct or tma)"
            ))),
        }
    }
}

/// The variant of the Hopper GEMM: epilogue, raster group, grid, clusters, and the shared-memory
/// epilogue's details (pair order, barriers per chunk, stages and buffers).
///
/// ```
/// use tessel_kernels::hopper::{Epilogue, Sm90Options};
/// let d = Sm90Options::default();
/// assert_eq!((d.epilogue, d.raster_group, d.persistent), (Epilogue::TmaStore, 8, true));
/// assert_eq!((d.pair_order, d.chunk_barriers, d.stages, d.warp_stores), (true, 2, 4, false));
/// assert_eq!(d.tag(), "");
/// let o = Sm90Options {
///     epilogue: Epilogue::Direct,
///     raster_group: 4,
///     persistent: false,
///     cluster: 2,
///     pair_order: false,
///     chunk_barriers: 1,
///     stages: 3,
///     warp_stores: true,
///     l2_hint: 1,
///     lag: 2,
///     stream_k: false,
///     pingpong: false,
///     lean_desc: true,
///     wait_hint: false,
///     prefetch: 0,
///     uniform_consumer: true,
///     unroll_stages: false,
///     lean_release: true,
///     trace: false,
///     park: false,
/// };
/// assert_eq!(o.tag(), "_direct_g4_np_c2_seq_b1_s3_ws_h1_l2");
/// assert_eq!(o.to_string(), "direct g4 non-persistent c2 seq b1 s3 ws h1 l2");
/// let sk = Sm90Options { stream_k: true, ..Sm90Options::default() };
/// assert_eq!((sk.tag().as_str(), sk.to_string().ends_with(" sk")), ("_sk", true));
/// let pp = Sm90Options { pingpong: true, ..Sm90Options::default() };
/// assert_eq!((pp.tag().as_str(), pp.to_string().ends_with(" pp")), ("_pp", true));
/// let lw = Sm90Options { lean_desc: false, wait_hint: true, prefetch: 4, ..Sm90Options::default() };
/// assert_eq!(lw.tag(), "_od_wh_pf4");
/// let sr = Sm90Options { cluster: 2, lean_release: false, ..Sm90Options::default() };
/// assert_eq!((sr.tag().as_str(), sr.to_string().ends_with(" sr")), ("_c2_sr", true));
/// let tr = Sm90Options { trace: true, ..Sm90Options::default() };
/// assert_eq!((tr.tag().as_str(), tr.to_string().ends_with(" tr")), ("_tr", true));
/// let pk = Sm90Options { park: true, ..Sm90Options::default() };
/// assert_eq!((pk.tag().as_str(), pk.to_string().ends_with(" pk")), ("_pk", true));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Sm90Options {
    /// How C is written.
    pub epilogue: Epilogue,
    /// Tiles per raster group side ([`crate::tiled::raster_layout`]).
    pub raster_group: i64,
    /// One block per SM looping over the tiles (`true`), or one block per tile.
    pub persistent: bool,
    /// Blocks per thread-block cluster along M (1 or 2): the blocks of a cluster compute
    /// adjacent M-tiles of one N-tile, and each loads `BN / cluster` rows of the shared B tile
    /// and multicasts them to all (`cp.async.bulk.tensor ... .multicast::cluster`).
    pub cluster: i64,
    /// fp32 shared-memory epilogue: the lanes of odd accumulator rows store their column pairs
    /// in a permuted order ([`Sm90Plan::c_flip`]) so that each half-warp's `st.shared.v2`
    /// covers all 32 banks (2 wavefronts per store instead of 4); `false` keeps the same order
    /// in every lane.
    pub pair_order: bool,
    /// Named barriers per epilogue chunk (1 or 2). With 2, a consumer syncs before writing a
    /// chunk buffer (after thread 0 waited for the buffer's previous TMA store to read it) and
    /// after writing it; with 1 only after writing, thread 0 having waited beforehand for the
    /// store that last read the *next* chunk's buffer.
    pub chunk_barriers: i64,
    /// Pipeline stages of 48 KiB (3 or 4); with 3 the shared memory freed holds 4 epilogue
    /// buffers per consumer instead of 2.
    pub stages: i64,
    /// Shared-memory epilogue per warp: each warp writes its 16 rows of a chunk into its own
    /// 2 KiB quarter of the buffer and its lane 0 stores them with a TMA box of 16 rows,
    /// synchronizing with `__syncwarp` instead of the warpgroup's named barriers
    /// (`chunk_barriers` then does not apply).
    pub warp_stores: bool,
    /// L2 cache policies (`createpolicy`, `.L2::cache_hint`): 0 none; 1 C's TMA stores evict
    /// first (C is not read again, A's and B's panels stay); 2 also A's and B's loads evict
    /// last (without clusters).
    pub l2_hint: i64,
    /// k-tiles (0 ..= 3) by which consumer 1 starts behind consumer 0: it waits on a named
    /// barrier until consumer 0 has issued that many k-tiles of its first tile, so the two
    /// consumers' epilogues stop coinciding and one's epilogue overlaps the other's last
    /// k-tiles (the stage ring, 4 deep, keeps them at most 3 apart).
    pub lag: i64,
    /// Hybrid data-parallel + stream-K schedule: whole tiles for the full waves, and the
    /// k-iterations of the remaining tiles ([`Sm90Plan::stream_k_tiles`]) split evenly over all
    /// blocks in contiguous ranges ([`Sm90Plan::stream_k_units`]); a block that computes a later
    /// part of a tile leaves its fp32 partials in a global workspace and sets a flag, the
    /// block that computed the tile's first part adds them and writes C. The grid is one block
    /// per SM (also when there are fewer tiles). Needs `persistent`, no clusters, no lag.
    /// Measured slower than the default at 4096^3 (docs/performance.md, "Stream-K"), faster
    /// where few tiles meet a long K.
    pub stream_k: bool,
    /// Ping-pong consumers: the block tile is one consumer's 64 x 256 ([`Sm90Plan::block_m`]),
    /// the block's tiles go to its two consumers in turn, and their main loops take turns
    /// (named barriers 4 and 5: a consumer starts its next main loop once the other has issued
    /// its own), so that one consumer's epilogue overlaps the other's main loop. Stages hold
    /// 64 rows of A (40 KiB) and each consumer has 4 epilogue buffers. Needs `persistent`,
    /// no stream-K and no lag.
    pub pingpong: bool,
    /// The wgmma descriptors' low words by one 32-bit add per k-step from a per-consumer base
    /// (the start field never carries: every shared address is below 2^18, checked), instead
    /// of a 64-bit OR of each masked address: fewer instructions per k-tile (53 instead of 74
    /// in the SASS of the main loop; the default, faster in every type pair at 4096^3 and
    /// 8192^3, docs/performance.md).
    pub lean_desc: bool,
    /// `mbarrier.try_wait` with a suspend-time hint of [`WAIT_HINT_NS`] (PTX ISA), so that a
    /// waiting thread may sleep until the phase completes rather than the system's default
    /// limit: fewer spin iterations.
    pub wait_hint: bool,
    /// The producer also prefetches into L2 (`cp.async.bulk.prefetch.tensor`) the A and B
    /// boxes of the k-tile this many loads ahead of each load, across the block's tiles
    /// (0 ..= 16; 0: none). Needs whole tiles (no stream-K).
    pub prefetch: i64,
    /// The consumers' code written once per consumer, with its index a constant (addresses
    /// that depend on it become constant offsets in the uniform datapath): fewer instructions
    /// per k-tile (about 45 instead of 53 in the main loop's SASS), twice the consumer code.
    /// The default (faster at 4096^3 in every type pair, docs/performance.md).
    pub uniform_consumer: bool,
    /// The consumers' k-tile loop unrolled by the stage count, so that each copy reads a
    /// constant stage (barrier and descriptor addresses fold into immediates), where every
    /// tile's k-tiles are a multiple of the stages ([`Sm90Plan::k_unroll`]; not with
    /// stream-K).
    pub unroll_stages: bool,
    /// Clusters: each consumer warp releases a stage with one arrival per lane, lane `r`
    /// (below the cluster size) on block `r`'s `empty` barrier, at a shared::cluster address
    /// mapped once per consumer (as CUTLASS's `ClusterBarrier::arrive(cta_id, pred)` in
    /// `include/cutlass/arch/barrier.h`), instead of lane 0 arriving on every block's barrier
    /// in turn and reading its rank and mapping the address at every release. No effect
    /// without clusters.
    pub lean_release: bool,
    /// A timeline for diagnosis: thread 0 of each consumer records, for each of its first
    /// [`TRACE_TILES`] tiles, when the tile started, when its first stage arrived, when its
    /// last wgmma finished and when its epilogue issued its last store ([`TraceRecord`]),
    /// into an extra kernel argument `TRACE` (`run::Sm90Buffers::trace`). Needs a
    /// persistent grid without stream-K or ping-pong. Not for timing: the records cost a few
    /// instructions per tile.
    pub trace: bool,
    /// The epilogue parks C in the stages of the tile's last k-tiles ([`Sm90Plan::park_stages`]:
    /// two for fp32, one for 16-bit outputs) besides its own buffers, so that the whole tile's
    /// C is written to shared memory without waiting for earlier TMA stores to drain; those
    /// stages go back to the producer during the next tile's first k-tiles, once the stores
    /// that read them are done (the next tile's loads of k-tiles 2 and 3 wait for them). Needs
    /// the shared-memory epilogue of warpgroup stores with 2 barriers per chunk, 4 stages, a
    /// persistent grid, no clusters, stream-K, ping-pong, lag or unrolled loop. Measured
    /// 1.3-2.3% slower than the default at 4096^3: the epilogue stays bound by the stores
    /// leaving the SM, and the parked stages come back late (docs/performance.md, "Where the
    /// cycles go").
    pub park: bool,
}

/// Tiles per consumer that [`Sm90Options::trace`] records (later tiles are not recorded).
///
/// ```
/// assert_eq!(tessel_kernels::hopper::TRACE_TILES, 16);
/// ```
pub const TRACE_TILES: i64 = 16;

/// One consumer's record of one tile under [`Sm90Options::trace`]: `%globaltimer`
/// (nanoseconds, one clock for the whole GPU) at the tile's start and at its end, and the SM's
/// `clock64` cycles at the tile's start, when its first stage had arrived, when its last wgmma
/// had finished, and when its epilogue had issued its last store; `sm` is `%smid`.
///
/// ```
/// use tessel_kernels::hopper::TraceRecord;
/// let r = TraceRecord::from_words(&[1000, 48_000, 10, 250, 70_250, 74_000, 7, 0]);
/// assert_eq!((r.wait_cycles(), r.main_cycles(), r.epilogue_cycles()), (240, 70_000, 3_750));
/// assert_eq!(r.sm, 7);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TraceRecord {
    /// `%globaltimer` at the tile's start (ns).
    pub start_ns: u64,
    /// `%globaltimer` after the epilogue (ns).
    pub end_ns: u64,
    /// `clock64` at the tile's start, after its first stage's wait, after its last wgmma, and
    /// after the epilogue.
    pub cycles: [u64; 4],
    /// The SM that ran it.
    pub sm: u64,
}

impl TraceRecord {
    /// 64-bit words per record in the `TRACE` buffer.
    pub const WORDS: usize = 8;

    /// A record from its [`TraceRecord::WORDS`] words as the kernel writes them.
    ///
    /// ```
    /// let _ = tessel_kernels::hopper::TraceRecord::from_words; // see TraceRecord
    /// ```
    pub fn from_words(w: &[u64]) -> TraceRecord {
        TraceRecord {
            start_ns: w[0],
            end_ns: w[1],
            cycles: [w[2], w[3], w[4], w[5]],
            sm: w[6],
        }
    }

    /// Cycles from the tile's start until its first stage had arrived.
    ///
    /// ```
    /// let _ = tessel_kernels::hopper::TraceRecord::wait_cycles; // see TraceRecord
    /// ```
    pub fn wait_cycles(&self) -> u64 {
        self.cycles[1].wrapping_sub(self.cycles[0])
    }

    /// Cycles from the first stage's arrival to the last wgmma's completion.
    ///
    /// ```
    /// let _ = tessel_kernels::hopper::TraceRecord::main_cycles; // see TraceRecord
    /// ```
    pub fn main_cycles(&self) -> u64 {
        self.cycles[2].wrapping_sub(self.cycles[1])
    }

    /// Cycles of the epilogue (last wgmma done to last store issued).
    ///
    /// ```
    /// let _ = tessel_kernels::hopper::TraceRecord::epilogue_cycles; // see TraceRecord
    /// ```
    pub fn epilogue_cycles(&self) -> u64 {
        self.cycles[3].wrapping_sub(self.cycles[2])
    }
}

/// The suspend-time hint of [`Sm90Options::wait_hint`], in nanoseconds.
///
/// ```
/// assert_eq!(tessel_kernels::hopper::WAIT_HINT_NS, 1_000_000);
/// ```
pub const WAIT_HINT_NS: i64 = 1_000_000;

impl Default for Sm90Options {
    fn default() -> Sm90Options {
        Sm90Options {
            epilogue: Epilogue::TmaStore,
            raster_group: RASTER_GROUP,
            persistent: true,
            cluster: 1,
            pair_order: true,
            chunk_barriers: 2,
            stages: STAGES,
            warp_stores: false,
            l2_hint: 0,
            lag: 0,
            stream_k: false,
            pingpong: false,
            lean_desc: true,
            wait_hint: false,
            prefetch: 0,
            uniform_consumer: true,
            unroll_stages: false,
            lean_release: true,
            trace: false,
            park: false,
        }
    }
}

impl Sm90Options {
    /// The kernel-name suffix of the options that differ from the default (empty for it).
    ///
    /// ```
    /// use tessel_kernels::hopper::{Epilogue, Sm90Options};
    /// let o = Sm90Options { raster_group: 16, ..Sm90Options::default() };
    /// assert_eq!(o.tag(), "_g16");
    /// ```
    pub fn tag(&self) -> String {
        let d = Sm90Options::default();
        let mut s = String::new();
        if self.epilogue != d.epilogue {
            s += &format!("_{}", self.epilogue);
        }
        if self.raster_group != d.raster_group {
            s += &format!("_g{}", self.raster_group);
        }
        if self.persistent != d.persistent {
            s += if self.persistent { "_p" } else { "_np" };
        }
        if self.cluster != d.cluster {
            s += &format!("_c{}", self.cluster);
        }
        if self.pair_order != d.pair_order {
            s += if self.pair_order { "_xor" } else { "_seq" };
        }
        if self.chunk_barriers != d.chunk_barriers {
            s += &format!("_b{}", self.chunk_barriers);
        }
        if self.stages != d.stages {
            s += &format!("_s{}", self.stages);
        }
        if self.warp_stores != d.warp_stores {
            s += if self.warp_stores { "_ws" } else { "_wg" };
        }
        if self.l2_hint != d.l2_hint {
            s += &format!("_h{}", self.l2_hint);
        }
        if self.lag != d.lag {
            s += &format!("_l{}", self.lag);
        }
        if self.stream_k != d.stream_k {
            s += if self.stream_k { "_sk" } else { "_dp" };
        }
        if self.pingpong != d.pingpong {
            s += if self.pingpong { "_pp" } else { "_coop" };
        }
        if self.lean_desc != d.lean_desc {
            s += if self.lean_desc { "_ld" } else { "_od" };
        }
        if self.wait_hint != d.wait_hint {
            s += if self.wait_hint { "_wh" } else { "_nwh" };
        }
        if self.prefetch != d.prefetch {
            s += &format!("_pf{}", self.prefetch);
        }
        if self.uniform_consumer != d.uniform_consumer {
            s += if self.uniform_consumer { "_uc" } else { "_vc" };
        }
        if self.unroll_stages != d.unroll_stages {
            s += if self.unroll_stages { "_us" } else { "_ur1" };
        }
        if self.lean_release != d.lean_release {
            s += if self.lean_release { "_lr" } else { "_sr" };
        }
        if self.trace != d.trace {
            s += if self.trace { "_tr" } else { "_ntr" };
        }
        if self.park != d.park {
            s += if self.park { "_pk" } else { "_npk" };
        }
        s
    }
}

impl fmt::Display for Sm90Options {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} g{} {} c{} {} b{} s{}{} h{} l{}{}{}{}{}{}{}{}{}{}{}",
            self.epilogue,
            self.raster_group,
            if self.persistent {
                "persistent"
            } else {
                "non-persistent"
            },
            self.cluster,
            if self.pair_order { "xor" } else { "seq" },
            self.chunk_barriers,
            self.stages,
            if self.warp_stores { " ws" } else { "" },
            self.l2_hint,
            self.lag,
            if self.stream_k { " sk" } else { "" },
            if self.pingpong { " pp" } else { "" },
            if self.lean_desc { "" } else { " od" },
            if self.wait_hint { " wh" } else { "" },
            if self.prefetch > 0 {
                format!(" pf{}", self.prefetch)
            } else {
                String::new()
            },
            if self.uniform_consumer { "" } else { " vc" },
            if self.unroll_stages { " us" } else { "" },
            if self.lean_release { "" } else { " sr" },
            if self.trace { " tr" } else { "" },
            if self.park { " pk" } else { "" }
        )
    }
}

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
        if !(1..=2).contains(&options.cluster) {
            return Err(GpuError::InvalidArgument(format!(
                "Hopper GEMM: clusters of {} blocks (1 or 2 supported)",
                options.cluster
            )));
        }
        if !(1..=2).contains(&options.chunk_barriers) {
            return Err(GpuError::InvalidArgument(format!(
                "Hopper GEMM: {} named barriers per epilogue chunk (1 or 2 supported)",
                options.chunk_barriers
            )));
        }
        if !(0..=3).contains(&options.lag) {
            return Err(GpuError::InvalidArgument(format!(
                "Hopper GEMM: consumer lag of {} k-tiles (0 ..= 3 supported)",
                options.lag
            )));
        }
        if options.stream_k
            && (ceil_div(m, BM) * ceil_div(n, BN))
                .checked_mul(ceil_div(k, BK))
                .is_none_or(|x| x >= 1 << 31)
        {
            return Err(GpuError::InvalidArgument(format!(
                "Hopper GEMM: stream-K needs tiles x k-tiles below 2^31 (its 32-bit schedule), \
                 {m} x {n} x {k} has more"
            )));
        }
        if options.stream_k && (options.cluster != 1 || options.lag != 0 || !options.persistent) {
            return Err(GpuError::InvalidArgument(format!(
                "Hopper GEMM: stream-K needs a persistent grid without clusters or lag (given \
                 {options})"
            )));
        }
        if options.trace && (options.stream_k || options.pingpong || !options.persistent) {
            return Err(GpuError::InvalidArgument(format!(
                "Hopper GEMM: the trace needs a persistent grid without stream-K or ping-pong \
                 (given {options})"
            )));
        }
        if options.park
            && (options.epilogue != Epilogue::TmaStore
                || options.warp_stores
                || options.chunk_barriers != 2
                || options.stages != 4
                || !options.persistent
                || options.cluster != 1
                || options.stream_k
                || options.pingpong
                || options.lag != 0
                || options.unroll_stages)
        {
            return Err(GpuError::InvalidArgument(format!(
                "Hopper GEMM: parking C in the stages needs the shared-memory epilogue of \
                 warpgroup stores with 2 barriers per chunk, 4 stages and a persistent grid \
                 without clusters, stream-K, ping-pong, lag or unrolled loop (given {options})"
            )));
        }
        if options.pingpong && (options.stream_k || options.lag != 0 || !options.persistent) {
            return Err(GpuError::InvalidArgument(format!(
                "Hopper GEMM: ping-pong consumers need a persistent grid without stream-K or lag \
                 (given {options})"
            )));
        }
        if !(0..=16).contains(&options.prefetch) || (options.prefetch > 0 && options.stream_k) {
            return Err(GpuError::InvalidArgument(format!(
                "Hopper GEMM: L2 prefetch of {} k-tiles (0 ..= 16, without stream-K)",
                options.prefetch
            )));
        }
        if !(0..=2).contains(&options.l2_hint) {
            return Err(GpuError::InvalidArgument(format!(
                "Hopper GEMM: L2 hint {} (0, 1 or 2 supported)",
                options.l2_hint
            )));
        }
        if !(3..=4).contains(&options.stages) {
            return Err(GpuError::InvalidArgument(format!(
                "Hopper GEMM: {} pipeline stages (3 or 4 supported)",
                options.stages
            )));
        }
        if !(1..=64).contains(&options.raster_group) {
            return Err(GpuError::InvalidArgument(format!(
                "Hopper GEMM: raster group {} is outside 1..=64",
                options.raster_group
            )));
        }
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

    /// The body with the consumer's code (between `//@CONSUMER` and `//@CONSUMER_END`, which
    /// starts with `const int c = wg - 1;`) written once for each consumer with `c` a
    /// constant ([`Sm90Options::uniform_consumer`]).
    fn consumer_per_index(body: &str) -> GpuResult<String> {
        let (begin, end, first) = (
            "    //@CONSUMER\n",
            "    //@CONSUMER_END\n",
            "    const int c = wg - 1;\n",
        );
        let missing = || {
            GpuError::InvalidArgument(
                "the Hopper GEMM body has no //@CONSUMER .. //@CONSUMER_END region starting with \
                 the consumer index"
                    .into(),
            )
        };
        let i = body.find(begin).ok_or_else(missing)?;
        let j = body[i..].find(end).ok_or_else(missing)? + i;
        let region = &body[i + begin.len()..j];
        let rest = region.strip_prefix(first).ok_or_else(missing)?;
        Ok(format!(
            "{}    if (wg == 1) {{\n    const int c = 0;\n{rest}    }} else {{\n    const int c = 1;\n\
             {rest}    }}\n{}",
            &body[..i],
            &body[j + end.len()..]
        ))
    }

    /// The TMA store of the epilogue's chunks (box `C_COLS x rows` of C, 128B swizzle, proven
    /// to read `c_box`, whose rows it takes from mode 0), or `None` where TMA cannot address C:
    /// its row pitch is not a multiple of 16 bytes.
    pub(crate) fn c_store_tma(
        m: i64,
        n: i64,
        output: OutType,
        c_box: &ComposedLayout,
    ) -> GpuResult<Option<TmaPlan>> {
        let elem = output.tma();
        if (n * elem.bytes()) % 16 != 0 {
            return Ok(None);
        }
        let matrix = TmaMatrix {
            rows: m,
            cols: n,
            ld: n,
            elem,
        };
        let rows = c_box.layout().mode(0)?.size();
        let tma = TmaPlan::new(
            matrix,
            [Self::c_cols(output), rows],
            SwizzleMode::B128,
            c_box,
            Major::K,
        )?;
        Ok(Some(tma))
    }

    /// Bytes between the two consumers' rows in an A stage (64 rows of 128 bytes).
    ///
    /// ```
    /// assert_eq!(tessel_kernels::hopper::Sm90Plan::A_WG_BYTES, 64 * 128);
    /// ```
    pub const A_WG_BYTES: i64 = 64 * BK * 2;

    /// The epilogue stores values `v` and `v + 1` (even `v`) of a thread as two adjacent
    /// columns of one row, and the fragment covers the 64 x 256 tile once.
    fn check_c_frag(&self) -> GpuResult<()> {
        let f = &self.c_frag;
        let (threads, values) = (f.mode(0)?.size(), f.mode(1)?.size());
        let mut seen = vec![false; (64 * BN) as usize];
        for t in 0..threads {
            for v in 0..values {
                let off = f.offset(t + threads * v)?;
                let slot = seen.get_mut(off as usize).ok_or_else(|| {
                    GpuError::InvalidArgument(format!("C fragment offset {off} outside 64 x {BN}"))
                })?;
                if *slot {
                    return Err(GpuError::InvalidArgument(format!(
                        "C fragment offset {off} is held twice"
                    )));
                }
                *slot = true;
                if v % 2 == 1 && off != f.offset(t + threads * (v - 1))? + 64 {
                    return Err(GpuError::InvalidArgument(format!(
                        "C fragment values {} and {v} of thread {t} are not adjacent columns",
                        v - 1
                    )));
                }
            }
        }
        if threads != 128 || seen.iter().any(|s| !s) {
            return Err(GpuError::InvalidArgument(format!(
                "the C fragment {f} does not cover the 64 x {BN} tile with 128 threads"
            )));
        }
        Ok(())
    }

    /// Columns of one epilogue chunk: 128 bytes of the output type (32 fp32, 64 fp16/bf16).
    ///
    /// ```
    /// use tessel_kernels::hopper::{OutType, Sm90Plan};
    /// assert_eq!((Sm90Plan::c_cols(OutType::F32), Sm90Plan::c_cols(OutType::BF16)), (32, 64));
    /// ```
    pub fn c_cols(output: OutType) -> i64 {
        128 / output.bytes() as i64
    }

    /// Accumulator values of one thread per epilogue chunk (`ACC / (BN / c_cols)`).
    fn c_vals(&self) -> i64 {
        self.c_frag.mode(1).map_or(0, |m| m.size()) * Self::c_cols(self.output) / BN
    }

    /// The shared-memory element index (of [`Sm90Plan::c_smem`]'s domain) of value `v` of
    /// consumer thread `t` in chunk `ch`, as the kernel computes it.
    fn c_index(&self, t: i64, v: i64, ch: i64) -> GpuResult<i64> {
        Ok(self.c_frag.offset(t + 128 * v)? - ch * 64 * Self::c_cols(self.output))
    }

    /// The first of the two fp32 values thread `t` stores at step `u` (even, `0 .. C_VALS`) of
    /// chunk `ch`: `(ch * C_VALS + u) ^ mask` where bit `bit` of `t` is set (`c_flip`), else
    /// `ch * C_VALS + u`, as the kernel selects it.
    fn c_pair_value(&self, t: i64, ch: i64, u: i64) -> i64 {
        let (mask, bit) = self.c_flip;
        let flip = if (t >> bit) & 1 == 1 { mask } else { 0 };
        (ch * self.c_vals() + u) ^ flip
    }

    /// Domain indices of every epilogue store instruction of one warpgroup into one chunk, as
    /// the bank model takes them (`[instruction][lane][value]`), with the op: `sts.64` (two
    /// fp32 columns per lane, in the lane's pair order [`Sm90Plan::c_flip`]) or `stsm.x4`
    /// (lane `l` addresses the 8 columns of row `l % 8` of matrix `l / 8`, which starts where
    /// thread `4 (l % 8)` of the warp holds value `v + 2 (l / 8)`).
    ///
    /// ```
    /// use tessel_kernels::hopper::{InType, OutType, Sm90Plan};
    /// let p = Sm90Plan::new(128, 256, 64, InType::F16, OutType::F16).unwrap();
    /// let (op, idx) = p.epilogue_accesses(0).unwrap();
    /// assert_eq!(op.to_string(), "stsm.x4");
    /// assert_eq!(idx.len(), 4 * 4 * 32 * 8); // 4 warps x 4 stmatrix x 32 lanes x 8 halves
    /// ```
    pub fn epilogue_accesses(&self, ch: i64) -> GpuResult<(SmemOp, Vec<i64>)> {
        let vals = self.c_vals();
        let mut idx = Vec::new();
        if self.output == OutType::F32 {
            for w in 0..4 {
                for u in (0..vals).step_by(2) {
                    for l in 0..32 {
                        let t = 32 * w + l;
                        let i = self.c_index(t, self.c_pair_value(t, ch, u), ch)?;
                        idx.extend([i, i + 64]);
                    }
                }
            }
            Ok(("sts.64".parse()?, idx))
        } else {
            for w in 0..4 {
                for u in (0..vals).step_by(8) {
                    for l in 0..32 {
                        let i =
                            self.c_index(32 * w + 4 * (l % 8), ch * vals + u + 2 * (l / 8), ch)?;
                        idx.extend((0..8).map(|e| i + 64 * e));
                    }
                }
            }
            Ok(("stsm.x4".parse()?, idx))
        }
    }

    /// The bank model of one warpgroup's epilogue stores into one chunk: one report per
    /// instruction (the kernel's chunks are alike).
    ///
    /// ```
    /// use tessel_kernels::hopper::{InType, OutType, Sm90Plan};
    /// for out in OutType::ALL {
    ///     let p = Sm90Plan::new(128, 256, 64, InType::F16, out).unwrap();
    ///     // sts.64: 2 wavefronts per store (the lane-dependent pair order); stsm.x4: 4.
    ///     assert!(p.epilogue_banks().unwrap().iter().all(|r| r.excess == 0));
    /// }
    /// ```
    pub fn epilogue_banks(&self) -> GpuResult<Vec<BankReport>> {
        let (op, idx) = self.epilogue_accesses(0)?;
        Ok(analyze_indices(
            &self.c_smem,
            self.output.bytes() as i64,
            op,
            &idx,
        )?)
    }

    /// Proves the shared-memory epilogue: the values `ch * C_VALS ..` of every thread are
    /// exactly chunk `ch`'s columns; every store puts each value where `c_smem` places its
    /// element (`st.shared.v2`: the pair is contiguous; `stmatrix`: lane `L`'s register `i`
    /// lands at column `2 (L % 4)` of row `L / 4` of matrix `i`, PTX ISA "stmatrix"); the fp32
    /// pair order stores each value of the chunk exactly once; the stores are free of bank
    /// conflicts (fp32 with `pair_order: false` excepted: 2-way, measured).
    fn check_c_chunks(&self) -> GpuResult<()> {
        let bad = |what: String| Err(GpuError::InvalidArgument(format!("epilogue: {what}")));
        let cols = Self::c_cols(self.output);
        let vals = self.c_vals();
        let chunks = BN / cols;
        let sm = |i: i64| self.c_smem.offset(i);
        for ch in 0..chunks {
            for t in 0..128 {
                for u in 0..vals {
                    let v = ch * vals + u;
                    let i = self.c_index(t, v, ch)?;
                    if !(0..64 * cols).contains(&i) {
                        return bad(format!("value {v} of thread {t} is outside chunk {ch}"));
                    }
                }
            }
            for w in 0..4 {
                for u in (0..vals).step_by(8) {
                    for l in 0..32 {
                        for i in 0..4 {
                            let v = ch * vals + u + 2 * i;
                            for e in 0..2 {
                                let here = sm(self.c_index(32 * w + l, v + e, ch)?)?;
                                let pair = sm(self.c_index(32 * w + l, v, ch)?)? + e;
                                let row = sm(self.c_index(32 * w + 4 * (l / 4), v, ch)?)?;
                                if here != pair
                                    || (self.output != OutType::F32
                                        && here != row + 2 * (l % 4) + e)
                                {
                                    return bad(format!(
                                        "value {} of thread {} is not where the store puts it",
                                        v + e,
                                        32 * w + l
                                    ));
                                }
                            }
                            // stmatrix rows: 8 contiguous 16-bit columns.
                            let first = self.c_index(32 * w + 4 * (l % 8), v, ch)?;
                            for e in 0..8 {
                                if self.output != OutType::F32
                                    && sm(first + 64 * e)? != sm(first)? + e
                                {
                                    return bad(format!(
                                        "the stmatrix row of value {v} is not contiguous"
                                    ));
                                }
                            }
                        }
                    }
                }
            }
        }
        // fp32: the kernel stores, at step u, values c_pair_value(t, ch, u) and + 1 at the
        // place of the first (checked above for every pair): the steps must visit every pair
        // of the chunk once.
        if self.output == OutType::F32 {
            if self.c_flip != (0, 0) && self.flip_xor()? != Some(self.c_flip_xor) {
                return bad(format!(
                    "the pair order {:?} does not move every value by the offset XOR {}",
                    self.c_flip, self.c_flip_xor
                ));
            }
            for ch in 0..chunks {
                for t in 0..128 {
                    let mut seen = vec![false; vals as usize];
                    for u in (0..vals).step_by(2) {
                        let v = self.c_pair_value(t, ch, u);
                        let slot = (v - ch * vals) as usize;
                        if v % 2 != 0 || slot >= seen.len() || seen[slot] {
                            return bad(format!(
                                "thread {t} stores value {v} at step {u} of chunk {ch}: not a \
                                 permutation of the chunk's pairs"
                            ));
                        }
                        seen[slot] = true;
                    }
                }
            }
        }
        // With the same pair order in every lane, the fp32 `st.shared.v2` stores take 4
        // wavefronts, not 2: each half-warp writes rows g and g ^ 1 into the same banks of the
        // 128B swizzle (docs/bank-model.md, conflict_s64_epilogue_sm90, measured). That
        // variant is allowed; every other epilogue must be conflict-free.
        let banks = self.epilogue_banks()?;
        let seq = self.output == OutType::F32 && self.c_flip == (0, 0);
        if let Some(r) = banks.iter().find(|r| r.excess != 0 && !seq) {
            return bad(format!(
                "a store into {} has bank conflicts ({r})",
                self.c_smem
            ));
        }
        Ok(())
    }

    /// The fp32 pair order: the first `(mask, bit)` (bit of the thread index 2 .. 4, the
    /// accumulator row bits of a lane; mask an even value index below `C_VALS`) whose stores
    /// the bank model finds conflict-free, or `(0, 0)` (the same order in every lane) for
    /// 16-bit outputs, the direct epilogue, `pair_order: false`, or when no candidate is free.
    fn choose_c_flip(&self) -> GpuResult<((i64, i64), i64)> {
        if self.output != OutType::F32
            || self.epilogue != Epilogue::TmaStore
            || !self.options.pair_order
        {
            return Ok(((0, 0), 0));
        }
        let mut trial = self.clone();
        for bit in 2..5 {
            for mask in (2..self.c_vals()).step_by(2) {
                trial.c_flip = (mask, bit);
                if let Some(x) = trial.flip_xor()?
                    && trial.epilogue_banks()?.iter().all(|r| r.excess == 0)
                {
                    return Ok(((mask, bit), x));
                }
            }
        }
        Ok(((0, 0), 0))
    }

    /// The one element-offset XOR `X` with `c_smem(value v ^ mask) == c_smem(value v) ^ X` for
    /// every thread that flips, every chunk and every pair, below 256 elements (the kernel
    /// XORs byte addresses of 1024-byte aligned buffers); `None` where there is none.
    fn flip_xor(&self) -> GpuResult<Option<i64>> {
        let (mask, bit) = self.c_flip;
        let vals = self.c_vals();
        let mut x = None;
        for ch in 0..BN / Self::c_cols(self.output) {
            for t in (0..128).filter(|t| (t >> bit) & 1 == 1) {
                for u in (0..vals).step_by(2) {
                    let v = ch * vals + u;
                    let here = self.c_smem.offset(self.c_index(t, v, ch)?)?;
                    let there = self.c_smem.offset(self.c_index(t, v ^ mask, ch)?)?;
                    let d = here ^ there;
                    if *x.get_or_insert(d) != d || d >= 256 {
                        return Ok(None);
                    }
                }
            }
        }
        Ok(x)
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
        let chunks = BN / Self::c_cols(self.output);
        let stages = ceil_div(chunks - self.c_bufs(), Self::PARK_BUFS);
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

    /// Stream-K: the tiles (the last ones of the raster order) whose k-iterations a grid of
    /// `blocks` blocks splits, as the kernel computes them (`dev::sm90::sk_tiles`): none when
    /// the tiles fill whole waves, else the partial last wave, plus one full wave when that
    /// remainder is under half the grid; none when their k-iterations are fewer than the
    /// blocks (every block's range holds one). 0 without [`Sm90Options::stream_k`].
    ///
    /// ```
    /// use tessel_kernels::hopper::{InType, OutType, Sm90Options, Sm90Plan};
    /// let o = Sm90Options { stream_k: true, ..Sm90Options::default() };
    /// let p = Sm90Plan::with_options(4096, 4096, 4096, InType::F16, OutType::F32, o).unwrap();
    /// assert_eq!(p.stream_k_tiles(132), 116); // 3 data-parallel waves, 116 tiles split
    /// let p = Sm90Plan::with_options(128 * 34, 1024, 4096, InType::F16, OutType::F32, o).unwrap();
    /// assert_eq!(p.stream_k_tiles(132), 132 + 4); // 136 tiles: 4 left over, one wave joins them
    /// let p = Sm90Plan::with_options(128 * 34, 1024, 64, InType::F16, OutType::F32, o).unwrap();
    /// assert_eq!(p.stream_k_tiles(200), 0); // 136 k-iterations for 200 blocks: no split
    /// assert_eq!(Sm90Plan::new(4096, 4096, 64, InType::F16, OutType::F32).unwrap().stream_k_tiles(132), 0);
    /// ```
    pub fn stream_k_tiles(&self, blocks: i64) -> i64 {
        let tiles = self.cluster_tiles();
        if !self.options.stream_k || blocks < 1 {
            return 0;
        }
        let rem = tiles % blocks;
        let sk = if rem == 0 {
            0
        } else if tiles >= blocks && 2 * rem < blocks {
            rem + blocks
        } else {
            rem
        };
        if sk * self.k_tiles() >= blocks { sk } else { 0 }
    }

    /// Stream-K: the work units `(tile, k0, k1)` (tile index in raster order, k-tiles
    /// `k0 .. k1`) of each of `blocks` blocks, in the order the kernel runs them: its
    /// data-parallel tiles (every `blocks`-th of the first ones), then its contiguous range
    /// `b T / blocks .. (b + 1) T / blocks` of the `T` split k-iterations. Without stream-K,
    /// whole tiles only.
    ///
    /// ```
    /// use tessel_kernels::hopper::{InType, OutType, Sm90Options, Sm90Plan};
    /// let o = Sm90Options { stream_k: true, ..Sm90Options::default() };
    /// // 2 tiles of 4 k-tiles over 3 blocks: 8 iterations cut at 2 and 5.
    /// let p = Sm90Plan::with_options(256, 256, 256, InType::F16, OutType::F32, o).unwrap();
    /// assert_eq!(
    ///     p.stream_k_units(3),
    ///     vec![vec![(0, 0, 2)], vec![(0, 2, 4), (1, 0, 1)], vec![(1, 1, 4)]]
    /// );
    /// ```
    pub fn stream_k_units(&self, blocks: i64) -> Vec<Vec<(i64, i64, i64)>> {
        let tiles = self.cluster_tiles();
        let kt = self.k_tiles();
        let sk = self.stream_k_tiles(blocks);
        let dp = tiles - sk;
        let total = sk * kt;
        (0..blocks.max(0))
            .map(|b| {
                let mut units: Vec<(i64, i64, i64)> = (b..dp)
                    .step_by(blocks as usize)
                    .map(|t| (t, 0, kt))
                    .collect();
                let (mut it, end) = (b * total / blocks, (b + 1) * total / blocks);
                while it < end {
                    let (l, k0) = (it / kt, it % kt);
                    let k1 = kt.min(k0 + end - it);
                    units.push((dp + l, k0, k1));
                    it += k1 - k0;
                }
                units
            })
            .collect()
    }

    /// Stream-K workspace for a grid of `blocks` blocks: fp32 partials (one 128 x 256 tile per
    /// block: a block contributes to at most one tile it does not own) and flags (one per
    /// consumer of each block, zero between launches).
    ///
    /// ```
    /// use tessel_kernels::hopper::{InType, OutType, Sm90Plan};
    /// let p = Sm90Plan::new(8, 8, 8, InType::F16, OutType::F32).unwrap();
    /// assert_eq!(p.stream_k_workspace(132), (132 * 128 * 256, 132 * 2));
    /// ```
    pub fn stream_k_workspace(&self, blocks: i64) -> (usize, usize) {
        let b = usize::try_from(blocks.max(0)).unwrap_or(0);
        (b * (BM * BN) as usize, b * CONSUMERS as usize)
    }

    /// The kernel, for `sm_90a`, launched over one block per tile, in clusters of
    /// `options.cluster` ([`run`] launches at most as many as fit on the GPU with
    /// [`Kernel::with_grid`]).
    ///
    /// ```
    /// use tessel_kernels::{Arch, hopper::{InType, OutType, Sm90Plan}};
    /// let k = Sm90Plan::new(1000, 1000, 1000, InType::F16, OutType::BF16).unwrap().kernel().unwrap();
    /// assert_eq!(k.target(), Some(Arch::SM90A));
    /// assert!(k.source().contains("__launch_bounds__(384, 1)"));
    /// assert!(k.source().contains("const __grid_constant__ tessel_tensor_map tmap_a"));
    /// ```
    pub fn kernel(&self) -> GpuResult<Kernel> {
        let header = format!(
            "Hopper GEMM C = A * B^T, {} in, {} out, {} x {} x {}, tile {} x {BN} x {BK}, {} \
             stages{}: generated by tessel-kernels.",
            self.input,
            self.output,
            self.m,
            self.n,
            self.k,
            self.block_m(),
            self.options.stages,
            if self.options.pingpong {
                ", ping-pong consumers"
            } else {
                ""
            }
        );
        let pingpong = self.options.pingpong;
        let out = match self.output {
            OutType::F32 => CType::F32,
            OutType::F16 | OutType::BF16 => CType::B16,
        };
        let len = usize::try_from(self.m * self.n).unwrap_or(usize::MAX);
        let tma_store = self.epilogue == Epilogue::TmaStore;
        let stream_k = self.options.stream_k;
        let sync = format!(
            "#define TESSEL_SM90_TMA_STORE {}\n#define TESSEL_SM90_STREAM_K {}\n\
             #define TESSEL_SM90_WAIT_HINT {}\n#define TESSEL_SM90_KUNROLL {}\n\
             #define TESSEL_SM90_TRACE {}\n#define TESSEL_SM90_PARK {}\n{SYNC}",
            i64::from(tma_store),
            i64::from(stream_k),
            if self.options.wait_hint {
                WAIT_HINT_NS
            } else {
                0
            },
            self.k_unroll(),
            i64::from(self.options.trace),
            self.park_stages()
        );
        // The lean descriptors add k-steps to the start field (address >> 4, 14 bits): every
        // shared address (after the 1 KiB the driver reserves per block) must stay below 2^18.
        if self.options.lean_desc && self.smem_bytes() + 1024 >= 1 << 18 {
            return Err(GpuError::InvalidArgument(format!(
                "Hopper GEMM: lean descriptors need shared addresses below 2^18, {} bytes has more",
                self.smem_bytes()
            )));
        }
        let cols = Self::c_cols(self.output);
        let phases: &[i64] = if stream_k { &[0, 1] } else { &[0] };
        let loops: String = phases
            .iter()
            .map(|p| {
                format!("#define TESSEL_SM90_SK_PHASE {p}\n{UNITS}#undef TESSEL_SM90_SK_PHASE\n")
            })
            .collect();
        let body = BODY.replacen("    //@UNITS\n", &loops, 1);
        if body.len() == BODY.len() {
            return Err(GpuError::InvalidArgument(
                "the Hopper GEMM body has no //@UNITS line for the unit loop".into(),
            ));
        }
        let body = if self.options.uniform_consumer {
            Self::consumer_per_index(&body)?
        } else {
            body
        };
        let mut b = KernelBuilder::new(&self.kernel_name(), &body)
            .comment(&header)
            .alias("TC", out)
            .long("M", self.m)
            .long("N", self.n)
            .int("TILES", self.cluster_tiles())
            .int("CLUSTER", self.options.cluster)
            .int("BM", self.block_m())
            .int("B_ROWS", BN / self.options.cluster)
            .int("B_BOX_BYTES", self.b_tma.box_bytes())
            .int("KT", self.k_tiles())
            .int("BK", BK)
            .int("KB", BK / WGMMA_K)
            .int("STAGES", self.options.stages)
            .int("A_STAGE_BYTES", self.a_tma.box_bytes())
            .int("B_STAGE_BYTES", self.b_stage_bytes())
            .int("TX_BYTES", self.stage_bytes())
            .int("A_WG_BYTES", if pingpong { 0 } else { Self::A_WG_BYTES })
            .int("K_STEP_BYTES", Self::K_STEP_BYTES)
            .int(
                "EMPTY_ARRIVALS",
                if pingpong { 1 } else { CONSUMERS } * 4 * self.options.cluster,
            )
            .int("PINGPONG", i64::from(pingpong))
            .int("LEAN_DESC", i64::from(self.options.lean_desc))
            .int("LEAN_RELEASE", i64::from(self.options.lean_release))
            .int("PREFETCH", self.options.prefetch)
            .int("C_ROW", if pingpong { 0 } else { 64 })
            .int("PRODUCER_REGS", PRODUCER_REGS)
            .int("CONSUMER_REGS", CONSUMER_REGS)
            .int("ACC", self.c_frag.mode(1)?.size())
            .int("ATOM_M", 64)
            .int("OUT", self.output.code())
            .int("PAIR", i64::from(self.n % 2 == 0))
            .long("DESC_A", Self::desc_bits(&self.desc_a[0])? as i64)
            .long("DESC_B", Self::desc_bits(&self.desc_b[0])? as i64)
            .index_layout("raster", &self.raster)
            .index_layout("tile_m0", &self.tile_m0)
            .index_layout("tile_n0", &self.tile_n0)
            .coord_layout("c_frag", &self.c_frag)
            .coord_layout("g_c", &self.g_c)
            .composed_layout("c_smem", &self.c_smem)
            .int("C_COLS", cols)
            .int("C_CHUNKS", BN / cols)
            .int("C_VALS", self.c_vals())
            .int("C_BUF_BYTES", self.c_buf_bytes())
            .int("C_BUFS", self.c_bufs())
            .int("C_BARS", self.options.chunk_barriers)
            .int("C_FLIP", self.c_flip.0)
            .int("C_FLIP_BIT", self.c_flip.1)
            .int("C_FLIP_XOR", self.c_flip_xor)
            .int("C_WARP", i64::from(self.options.warp_stores))
            .int("L2_HINT", self.options.l2_hint)
            .int("LAG", self.options.lag)
            .int("LAG_AT", self.options.lag.min(self.k_tiles()) - 1)
            .int("STREAM_K", i64::from(stream_k))
            .int("C_WARP_BYTES", 16 * 128)
            .int("TRACE_TILES", TRACE_TILES)
            .int("PARK_STAGES", self.park_stages())
            .int("PARK_BUFS", Self::PARK_BUFS)
            .mma_atom("wgmma", &mma_atom(self.input.atom())?)
            .copy_atom("stsm", &copy_atom("SM90_U32x4_STSM_N")?)
            .device_fn("sm90", &sync)
            .param(Param::tensor_map("tmap_a"))
            .param(Param::tensor_map("tmap_b"));
        if tma_store {
            b = b.param(Param::tensor_map("tmap_c"));
        }
        b = b.param(Param::output("C", Elem::alias("TC")).len(len));
        if stream_k {
            // Sized for the launch's grid by hopper::run (Sm90Buffers' workspace).
            b = b
                .param(Param::output("WS", CType::F32.into()))
                .param(Param::output("FLAGS", CType::B32.into()));
        }
        if self.options.trace {
            // TRACE_TILES records per consumer of each block (hopper::run sizes it).
            b = b.param(Param::output("TRACE", CType::new("uint64_t", 8).into()));
        }
        b.threads(384)
            .min_blocks(Some(1))
            .grid(
                u32::try_from(self.cluster_tiles() * self.options.cluster).unwrap_or(u32::MAX),
                1,
                1,
            )
            .dynamic_smem(u32::try_from(self.smem_bytes()).unwrap_or(u32::MAX))
            .target(Arch::SM90A)
            .build()
    }
}
