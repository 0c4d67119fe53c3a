// tessel-kernels: Hopper GEMM C = A * B^T (A: M x K, B: N x K, both K-contiguous, fp16 or bf16;
// C: M x N row-major, fp32 / fp16 / bf16; fp32 accumulation). TMA + wgmma, warp-specialized and
// persistent. The function body; tessel_kernels::hopper declares the pieces and the signature
// (tmap_a, tmap_b: __grid_constant__ tensor maps of A and B; C), 384 threads, one block per SM.
//
//   warpgroup 0        producer: one thread issues the TMA loads of A (128 x 64) and B (256 x 64)
//                      of every k-tile into a ring of k::STAGES stages (full/empty mbarriers)
//   warpgroups 1, 2    consumers: rows 64 c .. 64 c + 63 of the 128 x 256 block tile each, four
//                      wgmma m64n256k16 per stage, accumulators in registers, then the epilogue
//   k::LEAN_DESC       1: the wgmma descriptors' low words by 32-bit adds from per-consumer
//                      bases (one add per k-step) instead of a 64-bit OR of the masked address
//   TESSEL_SM90_WAIT_HINT  > 0: mbarrier try_wait with that suspend-time hint (nanoseconds)
//   k::PREFETCH        k-tiles by which the producer's L2 prefetches (TMA prefetch of the
//                      same boxes) run ahead of its loads; 0: none
//   TESSEL_SM90_KUNROLL    the consumers' k-tile loop unrolled by STAGES (each copy at a
//                      constant stage) where every tile's k-tiles are a multiple of it; else 1
//   //@CONSUMER .. //@CONSUMER_END  the consumer's body; Sm90Options::uniform_consumer writes
//                      it once per consumer with c a constant (hopper::Sm90Plan::kernel)
//   k::LEAN_RELEASE    clusters: each consumer warp's lanes 0 .. CLUSTER - 1 release a stage
//                      on one block's barrier each, at an address mapped once per consumer
//   k::PINGPONG        1: block tiles of 64 x 256 (k::BM = 64, A boxes of 64 rows), taken by
//                      the consumers in turn (tiles c, c + 2, ... of the block); main loops
//                      alternate (named barriers 4 + c), epilogues overlap the other's main
//                      loop; k::C_ROW (64, or 0) is consumer c's row offset in the block tile
//   layout::raster(i), tile_m0, tile_n0   tile order (grouped for L2) and tile origins
//   layout::c_frag_crd(t, v)              the GMMA atom's C layout: (thread, value) -> m + 64 n
//   layout::g_c_crd(r, c)                 C's row-major offsets
//   k::DESC_A, k::DESC_B                  the wgmma descriptors' constant fields (LBO, SBO, 128B
//                                         swizzle) derived and verified on the host; the kernel
//                                         adds the shared address >> 4 (k-step k::K_STEP_BYTES)
//   dev::wgmma                            wgmma.mma_async m64n256k16, generated from the atom
//   dev::stsm                             stmatrix .x4 (16-bit outputs), generated from the atom
//   dev::sm90                             mbarrier, TMA, fences, setmaxnreg, wgmma sync, stores
//   TESSEL_SM90_TMA_STORE                 1: the epilogue goes through shared memory (chunks of
//                                         64 x k::C_COLS in layout::c_smem, 128-byte rows,
//                                         k::C_BUFS buffers per consumer) and a TMA store of
//                                         tmap_c; 0: predicated direct stores to C
//   k::C_FLIP, k::C_FLIP_BIT              fp32 pair order: threads with that bit set store
//                                         value pair u ^ C_FLIP at step u (bank-conflict free)
//   k::C_BARS                             named barriers per epilogue chunk (1 or 2)
//   k::L2_HINT                            1: C's TMA stores evict first from L2; 2: also A's and
//                                         B's loads evict last (clusters: B plain)
//   k::LAG, k::LAG_AT                     consumer 1 starts once consumer 0 has issued k-tile
//                                         LAG_AT (= min(LAG, KT) - 1) of its first tile (named
//                                         barrier 3): their epilogues no longer coincide
//   k::C_WARP                             1: each warp stores its own 16 rows of a chunk
//                                         (k::C_WARP_BYTES of the buffer, a 16-row box of
//                                         tmap_c) and syncs with __syncwarp only
//   TESSEL_SM90_TRACE                     1: thread 0 of each consumer records the timeline
//                                         of its first k::TRACE_TILES tiles into TRACE
//                                         (hopper::TraceRecord: 8 words per tile)
//   TESSEL_SM90_PARK                      k::PARK_STAGES > 0 (Sm90Options::park): the
//                                         epilogue writes C's first chunks into the stages of
//                                         the tile's last PARK_STAGES k-tiles (not released
//                                         after the main loop; k::PARK_BUFS chunk buffers of
//                                         each per consumer), the rest into its own buffers;
//                                         thread 0 releases those stages during the next
//                                         tile's first k-tiles, once their stores have read them
//   TESSEL_SM90_STREAM_K                  1: hybrid data-parallel + stream-K schedule (below);
//                                         WS (fp32 partials) and FLAGS are parameters
  extern __shared__ __align__(1024) unsigned char tessel_smem[];
  // Swizzled stages must start at multiples of 1024 bytes (the 128B pattern's repeat).
  const b32 raw = (b32)__cvta_generic_to_shared(tessel_smem);
  const b32 sA = (raw + 1023u) & ~1023u;
  const b32 sB = sA + k::STAGES * k::A_STAGE_BYTES;
  // Epilogue buffers (k::C_BUFS per consumer, k::C_BUF_BYTES each; none for direct stores).
  const b32 sC = sB + k::STAGES * k::B_STAGE_BYTES;
  const b32 bars = sC + 2 * k::C_BUFS * k::C_BUF_BYTES;  // full[s] = bars + 8 s, empty[s] after
  const int wg = threadIdx.x / 128;
  const int t = threadIdx.x % 128;
  // Clusters of k::CLUSTER blocks along M share each B tile: block `rank` loads rows
  // rank * B_ROWS .. of it and multicasts them to the cluster; a stage is free again when the
  // consumers of every block of the cluster have released it. The persistent loop runs over
  // cluster tiles (k::CLUSTER M-tiles by one N-tile).
  const b32 rank = k::CLUSTER > 1 ? dev::sm90::cluster_rank() : 0u;
  const long long first = k::CLUSTER > 1 ? (long long)dev::sm90::cluster_id() : blockIdx.x;
  const long long step = k::CLUSTER > 1 ? (long long)dev::sm90::clusters() : gridDim.x;
  // Work units: (tile, k-tiles k0 .. k1). Data-parallel tiles first, `step` apart from
  // `first`, each whole. Stream-K (TESSEL_SM90_STREAM_K): the last `sk_tiles` tiles (the
  // partial last wave, plus one full wave where that remainder is under half the grid) are
  // k::KT k-iterations each; their sk_tiles * KT iterations are cut into gridDim.x contiguous
  // ranges of equal length (+-1), block b taking iterations sk_start(b) .. sk_start(b + 1).
  // A block's first unit may start inside a tile (k0 > 0); every later unit starts at k0 = 0.
  // A unit that ends inside a tile (k1 < KT; only a range's last unit) waits (acquire) for
  // the flag of block b + 1, whose range starts there, and adds its fp32 partials from WS. A
  // unit with k0 > 0 then writes its partials (its own part and all after it) to its slot of
  // WS and sets its FLAGS entry (release); a unit with k0 = 0 owns the tile and runs the
  // epilogue. Waits go from block b to b + 1 only, on b + 1's first stream-K unit, which only
  // b + 1's data-parallel tiles (which never wait) precede and which waits only on b + 2's
  // first stream-K unit (when b + 1's whole range lies inside the tile): no cycle. Spinning is safe because every block is resident at once: the
  // stream-K grid is one block per SM (hopper::run::function launches gridDim.x = the SM
  // count) and one block fits per SM (384 threads of 168 registers fill the register file;
  // over half an SM's shared memory); no clusters.
  static_assert(k::STREAM_K == TESSEL_SM90_STREAM_K, "the stream-K switch and its constant agree");
#if TESSEL_SM90_STREAM_K
  // 32-bit schedule (the host keeps the split iterations below 2^31): the consumers hold 128
  // accumulators and ptxas budgets every warpgroup's registers at 168.
  using unit_t = int;
  const int grid = (int)step;
  const int dp_tiles = k::TILES - (int)dev::sm90::sk_tiles(k::TILES, step, k::KT);
  const int sk_total = (k::TILES - dp_tiles) * k::KT;
  const int sk_end = (int)((long long)(blockIdx.x + 1) * sk_total / grid);
  const int sk_first = (int)((long long)blockIdx.x * sk_total / grid);
  // Every range holds at least one iteration (sk_tiles: sk_total >= gridDim.x).
#else
  using unit_t = long long;
  const long long dp_tiles = k::TILES;
  const long long sk_end = 0, sk_first = 0;
#endif
  // The next unit of this block after (dp: its next data-parallel tile, it: its next stream-K
  // iteration); false when there is none. next_dp and next_sk: of one kind only.
  auto next_dp = [&](unit_t& dp, unit_t& tile, int& k0, int& k1) {
    if (dp < dp_tiles) {
      tile = dp;
      k0 = 0;
      k1 = k::KT;
      dp += step;
      return true;
    }
    return false;
  };
  auto next_sk = [&](unit_t& it, unit_t& tile, int& k0, int& k1) {
    if (it < sk_end) {
      const unit_t l = it / k::KT;
      k0 = (int)(it - l * k::KT);
      k1 = sk_end - it < (unit_t)(k::KT - k0) ? k0 + (int)(sk_end - it) : k::KT;
      tile = dp_tiles + l;
      it += k1 - k0;
      return true;
    }
    return false;
  };
  auto next_unit = [&](unit_t& dp, unit_t& it, unit_t& tile, int& k0, int& k1) {
    return next_dp(dp, tile, k0, k1) || next_sk(it, tile, k0, k1);
  };
  if (threadIdx.x == 0) {
#pragma unroll
    for (int s = 0; s < k::STAGES; ++s) {
      dev::sm90::mbar_init(bars + 8 * s, 1);
      dev::sm90::mbar_init(bars + 8 * (k::STAGES + s), k::EMPTY_ARRIVALS);
    }
    dev::sm90::fence_barrier_init();
  }
  if constexpr (k::CLUSTER > 1) {
    dev::sm90::cluster_sync();
  } else {
    __syncthreads();
  }
  if (wg == 0) {
    dev::sm90::regs_dec<k::PRODUCER_REGS>();
    if (t == 0) {
      dev::sm90::prefetch_map(&tmap_a);
      dev::sm90::prefetch_map(&tmap_b);
      const uint64_t keep = k::L2_HINT >= 2 ? dev::sm90::policy_evict_last() : 0;
      int s = 0;
      b32 phase = 0;
      unit_t dp = (unit_t)first, it = sk_first, tile = 0;
      int k0 = 0, k1 = 0;
      // k::PREFETCH > 0 (whole tiles only): the k-tile PREFETCH loads ahead of this one in
      // the block's order (the j-th of its tiles holds k-tiles j * KT ..) is prefetched into
      // L2 as this one is loaded; the first PREFETCH ones before the loop.
      long long pos = 0;
      auto prefetch = [&](long long p) {
        const long long j = p / k::KT;
        const long long t = (long long)first + j * step;
        if (t < (long long)dp_tiles) {
          const long long pidx = layout::raster(t);
          const int pk = (int)(p - j * k::KT) * k::BK;
          dev::sm90::tma_prefetch(&tmap_a, pk, (int)layout::tile_m0(pidx) + (int)rank * k::BM);
          dev::sm90::tma_prefetch(&tmap_b, pk, (int)layout::tile_n0(pidx) +
                                                   (k::CLUSTER > 1 ? (int)rank * k::B_ROWS : 0));
        }
      };
      if constexpr (k::PREFETCH > 0) {
#pragma unroll 1
        for (long long p = 0; p < k::PREFETCH; ++p) prefetch(p);
      }
#pragma unroll 1
      while (next_unit(dp, it, tile, k0, k1)) {
        const long long idx = layout::raster(tile);
        const int m0 = (int)layout::tile_m0(idx) + (int)rank * k::BM;
        const int n0 = (int)layout::tile_n0(idx);
#pragma unroll 1
        for (int kt = k0; kt < k1; ++kt) {
          if constexpr (k::PREFETCH > 0) prefetch(pos++ + k::PREFETCH);
          // A fresh barrier counts as having completed the phase before its first: the first
          // pass over the ring does not wait.
          dev::sm90::wait(bars + 8 * (k::STAGES + s), phase ^ 1u);
          const b32 full = bars + 8 * s;
          dev::sm90::arrive_expect_tx(full, k::TX_BYTES);
          if constexpr (k::L2_HINT >= 2) {
            dev::sm90::tma_load_hint(sA + s * k::A_STAGE_BYTES, &tmap_a, kt * k::BK, m0, full,
                                     keep);
          } else {
            dev::sm90::tma_load(sA + s * k::A_STAGE_BYTES, &tmap_a, kt * k::BK, m0, full);
          }
          if constexpr (k::CLUSTER > 1) {
            dev::sm90::tma_load_multicast(sB + s * k::B_STAGE_BYTES + rank * k::B_BOX_BYTES,
                                          &tmap_b, kt * k::BK, n0 + (int)rank * k::B_ROWS, full,
                                          (b16)((1u << k::CLUSTER) - 1u));
          } else if constexpr (k::L2_HINT >= 2) {
            dev::sm90::tma_load_hint(sB + s * k::B_STAGE_BYTES, &tmap_b, kt * k::BK, n0, full,
                                     keep);
          } else {
            dev::sm90::tma_load(sB + s * k::B_STAGE_BYTES, &tmap_b, kt * k::BK, n0, full);
          }
          if (++s == k::STAGES) {
            s = 0;
            phase ^= 1u;
          }
        }
      }
    }
  } else {
    dev::sm90::regs_inc<k::CONSUMER_REGS>();
    // The consumer's body, up to //@CONSUMER_END; with uniform_consumer, hopper::Sm90Plan::kernel
    // writes it twice, under `if (wg == 1)` with c = 0 and else with c = 1, so that every
    // address that depends on c is a constant offset.
    //@CONSUMER
    const int c = wg - 1;
    // k::LEAN_RELEASE (clusters): lane r < CLUSTER of every consumer warp releases a stage on
    // block r's barrier, through this block's barrier addresses mapped to block r once here
    // (lane r % CLUSTER: every lane maps a valid rank); otherwise lane 0 arrives on every
    // block's barrier in turn, reading its rank and mapping the address at each release.
    constexpr bool lean_release = k::CLUSTER > 1 && k::LEAN_RELEASE != 0;
    const b32 peer_bars =
        lean_release ? dev::sm90::map_rank(bars, (b32)(t % k::CLUSTER)) : 0u;
    const bool releaser = lean_release ? t % 32 < k::CLUSTER : t % 32 == 0;
    auto release = [&](b32 bar) {
      if constexpr (lean_release) {
        dev::sm90::arrive_cluster(peer_bars + (bar - bars));
      } else if constexpr (k::CLUSTER > 1) {
        const b32 me = dev::sm90::cluster_rank();
#pragma unroll
        for (b32 r = 0; r < (b32)k::CLUSTER; ++r) {
          if (r == me) {
            dev::sm90::arrive(bar);
          } else {
            dev::sm90::arrive_cluster(dev::sm90::map_rank(bar, r));
          }
        }
      } else {
        dev::sm90::arrive(bar);
      }
    };
#if TESSEL_SM90_TMA_STORE
    const uint64_t evict = k::L2_HINT >= 1 ? dev::sm90::policy_evict_first() : 0;
#endif
    float acc[k::ACC];
#pragma unroll
    for (int i = 0; i < k::ACC; ++i) acc[i] = 0.0f;
    int s = 0;
    b32 phase = 0;
    // Consumer 0 owes consumer 1 its start signal (once; also with no tile at all).
    bool owed = k::LAG > 0 && c == 0;
    if constexpr (k::LAG > 0) {
      if (c == 1) dev::sm90::bar_sync(3, 256);
    }
    unit_t dp = (unit_t)first, tile = 0;
    // The descriptors' low words at stage 0 (k::LEAN_DESC): DESC_* low word + address >> 4.
    const b32 desc_a_lo = (b32)k::DESC_A + ((sA + c * k::A_WG_BYTES) >> 4);
    const b32 desc_b_lo = (b32)k::DESC_B + (sB >> 4);
    // Ping-pong (k::PINGPONG): consumer c computes the block's tiles c, c + 2, ...; between
    // two of them the ring passes the other consumer's KT k-tiles, which this one skips.
    auto skip_tile = [&]() {
      s += k::KT % k::STAGES;
      if ((k::KT / k::STAGES) % 2 == 1) phase ^= 1u;
      if (s >= k::STAGES) {
        s -= k::STAGES;
        phase ^= 1u;
      }
    };
    if constexpr (k::PINGPONG) {
      if (c == 1) {
        dp += step;
        skip_tile();
      }
    }
#if TESSEL_SM90_STREAM_K
    unit_t it = sk_first;
#endif
    int k0 = 0, k1 = 0;
#if TESSEL_SM90_TRACE
    int tr_tile = 0;  // this consumer's tiles so far (Sm90Options::trace)
#endif
#if TESSEL_SM90_PARK
    // The stages the previous tile's epilogue parked C in (-1: none), released in this order
    // at this tile's first k-tiles once the stores that read them are done.
    int park_a = -1, park_b = -1;
#endif
    // The unit loop (kernels/cuda/gemm_sm90_units.cuh), inserted by hopper::Sm90Plan::kernel.
    //@UNITS
    if (owed) dev::sm90::bar_arrive(3, 256);
#if TESSEL_SM90_TMA_STORE
    // The last stores must finish reading shared memory before the block exits.
    // (Per-warp stores: lane 0 of every warp issued some.)
    if (k::C_WARP ? t % 32 == 0 : t == 0) dev::sm90::store_wait<0>();
#endif
    //@CONSUMER_END
  }
  // No block leaves while another block of its cluster may still arrive on its barriers. The
  // producer warp's idle lanes wait for its issuing lane first (the warp reaches the cluster
  // barrier converged).
  if constexpr (k::CLUSTER > 1) {
    __syncwarp();
    dev::sm90::cluster_sync();
  }
