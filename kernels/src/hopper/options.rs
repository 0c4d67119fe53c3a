//! [`Sm90Options`]: the variants of the Hopper GEMM, their kernel-name tags, and which
//! combinations a plan accepts.

use std::fmt;

use super::{BK, BM, BN, Epilogue, RASTER_GROUP, STAGES, ceil_div};
use crate::error::{GpuError, GpuResult};

/// The variant of the Hopper GEMM: epilogue, raster group, grid, clusters, and the shared-memory
/// epilogue's details (pair order, barriers per chunk, stages and buffers).
///
/// ```
/// use tessel_kernels::hopper::{Epilogue, Sm90Options};
/// let d = Sm90Options::default();
/// assert_eq!((d.epilogue, d.raster_group, d.persistent), (Epilogue::TmaStore, 16, true));
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
    /// in a permuted order ([`Sm90Plan::c_flip`](super::Sm90Plan::c_flip)) so that each half-warp's `st.shared.v2`
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
    /// k-iterations of the remaining tiles ([`Sm90Plan::stream_k_tiles`](super::Sm90Plan::stream_k_tiles)) split evenly over all
    /// blocks in contiguous ranges ([`Sm90Plan::stream_k_units`](super::Sm90Plan::stream_k_units)); a block that computes a later
    /// part of a tile leaves its fp32 partials in a global workspace and sets a flag, the
    /// block that computed the tile's first part adds them and writes C. The grid is one block
    /// per SM (also when there are fewer tiles). Needs `persistent`, no clusters, no lag.
    /// Measured slower than the default at 4096^3 (docs/performance.md, "Stream-K"), faster
    /// where few tiles meet a long K.
    pub stream_k: bool,
    /// Ping-pong consumers: the block tile is one consumer's 64 x 256 ([`Sm90Plan::block_m`](super::Sm90Plan::block_m)),
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
    /// `mbarrier.try_wait` with a suspend-time hint of [`WAIT_HINT_NS`] ([PTX ISA 9.0](https://docs.nvidia.com/cuda/archive/13.0.0/parallel-thread-execution/index.html)), so that a
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
    /// tile's k-tiles are a multiple of the stages ([`Sm90Plan::k_unroll`](super::Sm90Plan::k_unroll); not with
    /// stream-K).
    pub unroll_stages: bool,
    /// Clusters: each consumer warp releases a stage with one arrival per lane, lane `r`
    /// (below the cluster size) on block `r`'s `empty` barrier, at a shared::cluster address
    /// mapped once per consumer (as CUTLASS's `ClusterBarrier::arrive(cta_id, pred)` in
    /// [`include/cutlass/arch/barrier.h`](https://github.com/NVIDIA/cutlass/blob/v4.2.1/include/cutlass/arch/barrier.h)), instead of lane 0 arriving on every block's barrier
    /// in turn and reading its rank and mapping the address at every release. No effect
    /// without clusters.
    pub lean_release: bool,
    /// A timeline for diagnosis: thread 0 of each consumer records, for each of its first
    /// [`TRACE_TILES`](super::TRACE_TILES) tiles, when the tile started, when its first stage arrived, when its
    /// last wgmma finished and when its epilogue issued its last store ([`TraceRecord`](super::TraceRecord)),
    /// into an extra kernel argument `TRACE` (`run::Sm90Buffers::trace`). Needs a
    /// persistent grid without stream-K or ping-pong. Not for timing: the records cost a few
    /// instructions per tile.
    pub trace: bool,
    /// The epilogue parks C in the stages of the tile's last k-tiles ([`Sm90Plan::park_stages`](super::Sm90Plan::park_stages):
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
    /// let o = Sm90Options { raster_group: 8, ..Sm90Options::default() };
    /// assert_eq!(o.tag(), "_g8");
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

impl Sm90Options {
    /// `InvalidArgument` naming the first option out of its range, or the first combination
    /// the kernel does not implement, for an `m x n x k` GEMM.
    pub(super) fn check(&self, m: i64, n: i64, k: i64) -> GpuResult<()> {
        if !(1..=2).contains(&self.cluster) {
            return Err(GpuError::InvalidArgument(format!(
                "Hopper GEMM: clusters of {} blocks (1 or 2 supported)",
                self.cluster
            )));
        }
        if !(1..=2).contains(&self.chunk_barriers) {
            return Err(GpuError::InvalidArgument(format!(
                "Hopper GEMM: {} named barriers per epilogue chunk (1 or 2 supported)",
                self.chunk_barriers
            )));
        }
        if !(0..=3).contains(&self.lag) {
            return Err(GpuError::InvalidArgument(format!(
                "Hopper GEMM: consumer lag of {} k-tiles (0 ..= 3 supported)",
                self.lag
            )));
        }
        if self.stream_k
            && (ceil_div(m, BM) * ceil_div(n, BN))
                .checked_mul(ceil_div(k, BK))
                .is_none_or(|x| x >= 1 << 31)
        {
            return Err(GpuError::InvalidArgument(format!(
                "Hopper GEMM: stream-K needs tiles x k-tiles below 2^31 (its 32-bit schedule), \
                 {m} x {n} x {k} has more"
            )));
        }
        if self.stream_k && (self.cluster != 1 || self.lag != 0 || !self.persistent) {
            return Err(GpuError::InvalidArgument(format!(
                "Hopper GEMM: stream-K needs a persistent grid without clusters or lag (given \
                 {self})"
            )));
        }
        if self.trace && (self.stream_k || self.pingpong || !self.persistent) {
            return Err(GpuError::InvalidArgument(format!(
                "Hopper GEMM: the trace needs a persistent grid without stream-K or ping-pong \
                 (given {self})"
            )));
        }
        if self.park
            && (self.epilogue != Epilogue::TmaStore
                || self.warp_stores
                || self.chunk_barriers != 2
                || self.stages != 4
                || !self.persistent
                || self.cluster != 1
                || self.stream_k
                || self.pingpong
                || self.lag != 0
                || self.unroll_stages)
        {
            return Err(GpuError::InvalidArgument(format!(
                "Hopper GEMM: parking C in the stages needs the shared-memory epilogue of \
                 warpgroup stores with 2 barriers per chunk, 4 stages and a persistent grid \
                 without clusters, stream-K, ping-pong, lag or unrolled loop (given {self})"
            )));
        }
        if self.pingpong && (self.stream_k || self.lag != 0 || !self.persistent) {
            return Err(GpuError::InvalidArgument(format!(
                "Hopper GEMM: ping-pong consumers need a persistent grid without stream-K or lag \
                 (given {self})"
            )));
        }
        if !(0..=16).contains(&self.prefetch) || (self.prefetch > 0 && self.stream_k) {
            return Err(GpuError::InvalidArgument(format!(
                "Hopper GEMM: L2 prefetch of {} k-tiles (0 ..= 16, without stream-K)",
                self.prefetch
            )));
        }
        if !(0..=2).contains(&self.l2_hint) {
            return Err(GpuError::InvalidArgument(format!(
                "Hopper GEMM: L2 hint {} (0, 1 or 2 supported)",
                self.l2_hint
            )));
        }
        if !(3..=4).contains(&self.stages) {
            return Err(GpuError::InvalidArgument(format!(
                "Hopper GEMM: {} pipeline stages (3 or 4 supported)",
                self.stages
            )));
        }
        if !(1..=64).contains(&self.raster_group) {
            return Err(GpuError::InvalidArgument(format!(
                "Hopper GEMM: raster group {} is outside 1..=64",
                self.raster_group
            )));
        }
        Ok(())
    }
}
