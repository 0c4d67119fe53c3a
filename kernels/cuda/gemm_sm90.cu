// tessel-kernels: Hopper GEMM C = A * B^T (A: M x K, B: N x K, both K-contiguous, fp16 or bf16;
// C: M x N row-major, fp32 / fp16 / bf16; fp32 accumulation). TMA + wgmma, warp-specialized and
// persistent. The function body; tessel_kernels::hopper declares the pieces and the signature
// (tmap_a, tmap_b: __grid_constant__ tensor maps of A and B; C), 384 threads, one block per SM.
//
//   warpgroup 0        producer: one thread issues the TMA loads of A (128 x 64) and B (256 x 64)
//                      of every k-tile into a ring of k::STAGES stages (full/empty mbarriers)
//   warpgroups 1, 2    consumers: rows 64 c .. 64 c + 63 of the 128 x 256 block tile each, four
//                      wgmma m64n256k16 per stage, accumulators in registers, then the epilogue
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
#pragma unroll 1
      while (next_unit(dp, it, tile, k0, k1)) {
        const long long idx = layout::raster(tile);
        const int m0 = (int)layout::tile_m0(idx) + (int)rank * k::BM;
        const int n0 = (int)layout::tile_n0(idx);
#pragma unroll 1
        for (int kt = k0; kt < k1; ++kt) {
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
    const int c = wg - 1;
    auto release = [](b32 bar) {
      if constexpr (k::CLUSTER > 1) {
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
    unit_t dp = (unit_t)first, it = sk_first, tile = 0;
    int k0 = 0, k1 = 0;
#if TESSEL_SM90_STREAM_K
    // Two copies of the unit loop (a generic lambda instantiated twice): the data-parallel
    // tiles without any fixup code (it would cost every tile's epilogue), then the stream-K
    // units with the fixup on every unit (see below).
    auto units = [&](auto kind) {
    constexpr int sk_phase = decltype(kind)::value;
#pragma unroll 1
    while (sk_phase == 0 ? next_dp(dp, tile, k0, k1) : next_sk(it, tile, k0, k1)) {
#else
#pragma unroll 1
    while (next_unit(dp, it, tile, k0, k1)) {
#endif
#if !TESSEL_SM90_STREAM_K
      const long long idx = layout::raster(tile);
      const long long m0 = layout::tile_m0(idx) + (long long)rank * k::BM;
      const long long n0 = layout::tile_n0(idx);
#endif
      int prev = 0;
      // Every unit has k1 > k0 (a do-while: ptxas keeps the wgmmas asynchronous only when the
      // accumulators cannot bypass the loop).
      int kt = k0;
#pragma unroll 1
      do {
        dev::sm90::wait(bars + 8 * s, phase);
        tessel_sync_warp();  // the .aligned wgmma instructions need the whole warp converged
        dev::sm90::pin<k::ACC>(acc);
        dev::sm90::mma_fence();
        const b32 a0 = sA + s * k::A_STAGE_BYTES + c * k::A_WG_BYTES;
        const b32 b0 = sB + s * k::B_STAGE_BYTES;
#pragma unroll
        for (int kb = 0; kb < k::KB; ++kb) {
          const uint64_t da =
              (uint64_t)k::DESC_A | (uint64_t)(((a0 + kb * k::K_STEP_BYTES) >> 4) & 0x3FFFu);
          const uint64_t db =
              (uint64_t)k::DESC_B | (uint64_t)(((b0 + kb * k::K_STEP_BYTES) >> 4) & 0x3FFFu);
          // scale_d 0 on the unit's first k-step: D = A B, the accumulators start over.
          dev::wgmma<1, 1, 0, 0>(acc, da, db, (kt > k0 || kb > 0) ? 1u : 0u);
        }
        dev::sm90::mma_commit();
        dev::sm90::pin<k::ACC>(acc);
        // The previous k-tile's wgmmas are done: its stage goes back to the producers (one
        // arrival per consumer warp on the barrier of every block of the cluster).
        dev::sm90::mma_wait<1>();
        if (kt > k0 && t % 32 == 0) release(bars + 8 * (k::STAGES + prev));
        if constexpr (k::LAG > 0) {
          if (owed && kt == k::LAG_AT) {
            dev::sm90::bar_arrive(3, 256);
            owed = false;
          }
        }
        prev = s;
        if (++s == k::STAGES) {
          s = 0;
          phase ^= 1u;
        }
      } while (++kt < k1);
      dev::sm90::mma_wait<0>();
      dev::sm90::pin<k::ACC>(acc);
      if (t % 32 == 0) release(bars + 8 * (k::STAGES + prev));
#if TESSEL_SM90_STREAM_K
      if constexpr (sk_phase == 1) {
        // Consumer c's partials of block b: value v of thread t at v * 128 + t of its slot of
        // ACC * 128 floats; 32-bit indices (the workspace holds fewer than 2^31 floats).
        const b32 slot_len = (b32)k::ACC * 128;
        // A unit that stops short of the tile's end (the last unit of this block's range) owes
        // the rest of the tile to block b + 1, whose range starts there: thread 0 acquires
        // b + 1's flag for consumer c and clears it for the next launch, the barrier orders
        // every thread's reads after that, and the partials (which already hold those of
        // b + 2, ... where b + 1's range ends inside the tile too) are added. The adds run on
        // every stream-K unit (zeros where nothing is owed): ptxas keeps the wgmmas asynchronous only
        // when the accumulators are modified alike on every path.
        const bool short_unit = k1 < k::KT;
        if (short_unit) {
          if (t == 0) dev::sm90::flag_wait_clear(FLAGS + 2 * (blockIdx.x + 1) + c);
          dev::sm90::bar_sync(1 + c, 128);
        }
        const float* next = WS + (slot_len * (2u * (blockIdx.x + 1) + c) + t);
#pragma unroll
        for (int v = 0; v < k::ACC; v += 4) {
          dev::sm90::ld_cg4_add(short_unit, next + v * 128, acc[v], acc[v + 1], acc[v + 2],
                                acc[v + 3]);
        }
        if (k0 > 0) {
          // A later part of the tile (the first unit of this block's range): partials to this
          // block's slot; after the warpgroup's barrier, thread 0 publishes them with a
          // release store of the flag (cumulative over the barrier). Block b - 1 adds them.
          float* slot = WS + (slot_len * (2u * blockIdx.x + c) + t);
#pragma unroll
          for (int v = 0; v < k::ACC; v += 4) {
            dev::sm90::st_cg4(slot + v * 128, acc[v], acc[v + 1], acc[v + 2], acc[v + 3]);
          }
          dev::sm90::bar_sync(1 + c, 128);
          if (t == 0) dev::sm90::flag_set(FLAGS + 2 * blockIdx.x + c);
          continue;
        }
      }
      // The tile's origin, computed once the accumulators are complete (registers are short).
      const long long idx = layout::raster(tile);
      const long long m0 = layout::tile_m0(idx) + (long long)rank * k::BM;
      const long long n0 = layout::tile_n0(idx);
#endif
#if TESSEL_SM90_TMA_STORE
      // Epilogue through shared memory, chunk by chunk: values ch * k::C_VALS .. of every thread
      // are the 64 x k::C_COLS chunk ch of the consumer's 64 x 256 tile (checked on the host).
      // Chunk buffers rotate (k::C_CHUNKS is a multiple of k::C_BUFS, so chunk ch of every
      // tile uses buffer ch % k::C_BUFS). Thread 0 issued every store: it waits until the store
      // that last read a buffer is done with it, then the warpgroup syncs, before the buffer
      // is refilled. With 2 barriers per chunk that happens before the chunk's own stores;
      // with 1, at the barrier that follows the stores, for the next chunk's buffer.
#pragma unroll
      for (int ch = 0; ch < k::C_CHUNKS; ++ch) {
        const b32 buf = sC + (k::C_BUFS * c + ch % k::C_BUFS) * k::C_BUF_BYTES;
        if constexpr (k::C_WARP) {
          // Lane 0 issued this warp's stores from the buffer: the one that last read it is done.
          if (t % 32 == 0) dev::sm90::store_wait_read<k::C_BUFS - 1>();
          __syncwarp();
        } else if constexpr (k::C_BARS == 2) {
          if (t == 0) dev::sm90::store_wait_read<k::C_BUFS - 1>();
          dev::sm90::bar_sync(1 + c, 128);
        }
        const long long base = (long long)ch * 64 * k::C_COLS;
        if constexpr (k::OUT == 0) {
          // Two adjacent fp32 columns per st.shared.v2, pair u ^ flip at step u (a selection
          // between two registers of constant index: the array stays in registers).
          // The place of pair v ^ C_FLIP is that of pair v with the offset XOR C_FLIP_XOR
          // (checked on the host), so the address stays the one of the sequential order.
          const bool flip = k::C_FLIP != 0 && ((t >> k::C_FLIP_BIT) & 1) != 0;
          const b32 fx = flip ? 4u * (b32)k::C_FLIP_XOR : 0u;
#pragma unroll
          for (int u = 0; u < k::C_VALS; u += 2) {
            const int v = ch * k::C_VALS + u;
            const int w = v ^ k::C_FLIP;
            const float x = flip ? acc[w] : acc[v];
            const float y = flip ? acc[w + 1] : acc[v + 1];
            const long long idx = layout::c_frag_crd(t, v) - base;
            dev::sm90::sts2((buf + 4 * (b32)layout::c_smem(idx)) ^ fx, x, y);
          }
        } else {
          // stmatrix .x4: matrix i of the four holds values v + 2 i, + 1 of each lane (rows
          // 8 (i % 2) .., columns 8 (i / 2) .. of the warp's 16 rows from value v's); lane l
          // addresses row l % 8 of matrix l / 8, which starts where thread 4 (l % 8) of the
          // warp holds value v + 2 ((l / 8) % 2) + 4 (l / 16).
          const int w = t / 32, l = t % 32;
          const int lead = 32 * w + 4 * (l % 8);
          const int mi = l / 8;
#pragma unroll
          for (int u = 0; u < k::C_VALS; u += 8) {
            const int v = ch * k::C_VALS + u;
            b32 r[4];
#pragma unroll
            for (int i = 0; i < 4; ++i) {
              r[i] = dev::sm90::pack2<k::OUT>(acc[v + 2 * i], acc[v + 2 * i + 1]);
            }
            const long long idx = layout::c_frag_crd(lead, v + 2 * (mi % 2) + 4 * (mi / 2)) - base;
            dev::stsm(buf + 2 * (b32)layout::c_smem(idx), r);
          }
        }
        dev::sm90::fence_proxy_async();
        if constexpr (k::C_WARP) {
          __syncwarp();
          if (t % 32 == 0) {
            const int w = t / 32;
            const b32 src = buf + w * k::C_WARP_BYTES;
            const int c0 = (int)(n0 + ch * k::C_COLS), c1 = (int)(m0 + 64 * c + 16 * w);
            if constexpr (k::L2_HINT >= 1) {
              dev::sm90::tma_store_hint(&tmap_c, src, c0, c1, evict);
            } else {
              dev::sm90::tma_store(&tmap_c, src, c0, c1);
            }
            dev::sm90::store_commit();
          }
        } else {
          if constexpr (k::C_BARS == 1) {
            // Stores up to ch - 1 are issued; the next chunk's buffer was last read by store
            // ch + 1 - C_BUFS: at most C_BUFS - 2 groups may still read.
            if (t == 0) dev::sm90::store_wait_read<k::C_BUFS - 2>();
          }
          dev::sm90::bar_sync(1 + c, 128);
          if (t == 0) {
            const int c0 = (int)(n0 + ch * k::C_COLS), c1 = (int)(m0 + 64 * c);
            if constexpr (k::L2_HINT >= 1) {
              dev::sm90::tma_store_hint(&tmap_c, buf, c0, c1, evict);
            } else {
              dev::sm90::tma_store(&tmap_c, buf, c0, c1);
            }
            dev::sm90::store_commit();
          }
        }
      }
#else
      // Epilogue: values v and v + 1 are adjacent columns of one row (checked on the host).
      const long long r0 = m0 + 64 * c;
#pragma unroll
      for (int v = 0; v < k::ACC; v += 2) {
        const long long off = layout::c_frag_crd(t, v);
        const long long r = r0 + off % k::ATOM_M;
        const long long col = n0 + off / k::ATOM_M;
        if (r < k::M && col < k::N) {
          const bool two = col + 1 < k::N;
          dev::sm90::store2<k::OUT>(C + layout::g_c_crd(r, col), acc[v], acc[v + 1],
                                    k::PAIR != 0 && two, two);
        }
      }
#endif
    }
#if TESSEL_SM90_STREAM_K
    };
    units(dev::sm90::phase<0>{});
    units(dev::sm90::phase<1>{});
#endif
    if (owed) dev::sm90::bar_arrive(3, 256);
#if TESSEL_SM90_TMA_STORE
    // The last stores must finish reading shared memory before the block exits.
    // (Per-warp stores: lane 0 of every warp issued some.)
    if (k::C_WARP ? t % 32 == 0 : t == 0) dev::sm90::store_wait<0>();
#endif
  }
  // No block leaves while another block of its cluster may still arrive on its barriers. The
  // producer warp's idle lanes wait for its issuing lane first (the warp reaches the cluster
  // barrier converged).
  if constexpr (k::CLUSTER > 1) {
    __syncwarp();
    dev::sm90::cluster_sync();
  }
