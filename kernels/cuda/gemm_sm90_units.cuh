// tessel-kernels: the consumers' unit loop of the Hopper GEMM (kernels/cuda/gemm_sm90.cu, where
// hopper::Sm90Plan::kernel inserts it): once with TESSEL_SM90_SK_PHASE 0 over the data-parallel
// tiles (every tile without stream-K), and with stream-K once more with TESSEL_SM90_SK_PHASE 1
// over the stream-K units, which alone carry the fixup (it would cost every tile's epilogue, and
// ptxas keeps the wgmmas asynchronous only when a loop modifies the accumulators alike on every
// path: two copies instead of a branch).
#if TESSEL_SM90_SK_PHASE == 0
#pragma unroll 1
    while (next_dp(dp, tile, k0, k1)) {
#else
#pragma unroll 1
    while (next_sk(it, tile, k0, k1)) {
#endif
#if TESSEL_SM90_SK_PHASE == 0
      if constexpr (k::PINGPONG) {
        // The block's next tile is the other consumer's. Main loops take turns: this one
        // starts once the other consumer has issued its main loop of the block's previous
        // tile (consumer 0's first tile has none).
        dp += step;
        if (c == 1 || tile != (unit_t)first) dev::sm90::bar_sync(4 + c, 256);
      }
      const long long idx = layout::raster(tile);
      const long long m0 = layout::tile_m0(idx) + (long long)rank * k::BM;
      const long long n0 = layout::tile_n0(idx);
#endif
      int prev = 0;
#if TESSEL_SM90_TRACE
      // The tile's timeline (thread 0 writes it after the epilogue): start, first stage in,
      // last wgmma done, epilogue done.
      const uint64_t tr_ns0 = dev::sm90::globaltimer();
      const uint64_t tr_c0 = dev::sm90::cycles();
      uint64_t tr_c1 = 0;
#endif
      // Every unit has k1 > k0 (a do-while: ptxas keeps the wgmmas asynchronous only when the
      // accumulators cannot bypass the loop).
      int kt = k0;
#if TESSEL_SM90_SK_PHASE == 0 && TESSEL_SM90_KUNROLL > 1
      // Whole tiles of a multiple of STAGES k-tiles start at stage 0 (they do already; saying
      // so lets the compiler fold the stage of each unrolled copy into constants).
      s = 0;
      TESSEL_SM90_UNROLL(TESSEL_SM90_KUNROLL)
#else
#pragma unroll 1
#endif
      do {
        dev::sm90::wait(bars + 8 * s, phase);
#if TESSEL_SM90_TRACE
        if (kt == k0) tr_c1 = dev::sm90::cycles();
#endif
        tessel_sync_warp();  // the .aligned wgmma instructions need the whole warp converged
        dev::sm90::pin<k::ACC>(acc);
        dev::sm90::mma_fence();
        const b32 a0 = sA + s * k::A_STAGE_BYTES + c * k::A_WG_BYTES;
        const b32 b0 = sB + s * k::B_STAGE_BYTES;
        // k::LEAN_DESC: the descriptors' low words as one add per k-step onto the stage's
        // (every operand's address >> 4 is below 2^14, checked on the host: the start field
        // never carries into the LBO).
        const b32 a_lo = desc_a_lo + s * (k::A_STAGE_BYTES >> 4);
        const b32 b_lo = desc_b_lo + s * (k::B_STAGE_BYTES >> 4);
#pragma unroll
        for (int kb = 0; kb < k::KB; ++kb) {
          const uint64_t da =
              k::LEAN_DESC
                  ? dev::sm90::desc(a_lo + kb * (k::K_STEP_BYTES >> 4), (b32)(k::DESC_A >> 32))
                  : (uint64_t)k::DESC_A |
                        (uint64_t)(((a0 + kb * k::K_STEP_BYTES) >> 4) & 0x3FFFu);
          const uint64_t db =
              k::LEAN_DESC
                  ? dev::sm90::desc(b_lo + kb * (k::K_STEP_BYTES >> 4), (b32)(k::DESC_B >> 32))
                  : (uint64_t)k::DESC_B |
                        (uint64_t)(((b0 + kb * k::K_STEP_BYTES) >> 4) & 0x3FFFu);
          // scale_d 0 on the unit's first k-step: D = A B, the accumulators start over.
          dev::wgmma<1, 1, 0, 0>(acc, da, db, (kt > k0 || kb > 0) ? 1u : 0u);
        }
        dev::sm90::mma_commit();
        dev::sm90::pin<k::ACC>(acc);
        // The previous k-tile's wgmmas are done: its stage goes back to the producers (one
        // arrival per consumer warp on the barrier of every block of the cluster).
        dev::sm90::mma_wait<1>();
#if TESSEL_SM90_PARK
        // With two parked stages the second-to-last k-tile's stage stays (parked below).
        if (kt > k0 && releaser && !(k::PARK_STAGES == 2 && kt == k1 - 1)) {
          release(bars + 8 * (k::STAGES + prev));
        }
        // The stages the previous tile's epilogue parked C in go back to the producer (its
        // loads of this tile's k-tiles 2 and 3 wait for them) once thread 0's stores that read
        // them are done: chunks 0 .. PARK_BUFS - 1 from park_a, the next PARK_BUFS from
        // park_b; at most the later chunks' groups may still be reading. This tile's k-tile
        // is already issued, so the tensor cores have work while thread 0 waits.
        if (kt == k0 && park_a >= 0) {
          if (t == 0) {
            dev::sm90::store_wait_read<k::C_CHUNKS - k::PARK_BUFS>();
            dev::sm90::arrive_count(bars + 8 * (k::STAGES + park_a), 4);
          }
          park_a = -1;
        }
        if (k::PARK_STAGES == 2 && kt == k0 + 1 && park_b >= 0) {
          if (t == 0) {
            dev::sm90::store_wait_read<k::C_CHUNKS - 2 * k::PARK_BUFS>();
            dev::sm90::arrive_count(bars + 8 * (k::STAGES + park_b), 4);
          }
          park_b = -1;
        }
#else
        if (kt > k0 && releaser) release(bars + 8 * (k::STAGES + prev));
#endif
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
#if TESSEL_SM90_SK_PHASE == 0
      if constexpr (k::PINGPONG) {
        // Every wgmma of this tile is issued: the other consumer may start its main loop (on
        // the block's next tile, where there is one: each arrival meets one bar_sync).
        if (tile + step < dp_tiles) dev::sm90::bar_arrive(4 + (1 - c), 256);
      }
#endif
      dev::sm90::mma_wait<0>();
      dev::sm90::pin<k::ACC>(acc);
#if TESSEL_SM90_TRACE
      const uint64_t tr_c2 = dev::sm90::cycles();
#endif
#if TESSEL_SM90_PARK
      // The last k-tile's stage (and with two, the one before) is parked, not released. The
      // other consumer may still be reading its B half: both consumers' wgmmas are done
      // before either writes C there (named barrier 6 over both).
      park_a = k::PARK_STAGES == 2 ? (prev + k::STAGES - 1) % k::STAGES : prev;
      park_b = k::PARK_STAGES == 2 ? prev : -1;
      dev::sm90::bar_sync(6, 256);
#else
      if (releaser) release(bars + 8 * (k::STAGES + prev));
#endif
      if constexpr (k::PINGPONG) skip_tile();
#if TESSEL_SM90_SK_PHASE == 1
      {
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
      // Epilogue through shared memory: values ch * k::C_VALS .. of every thread are the
      // 64 x k::C_COLS chunk ch of the consumer's 64 x 256 tile (checked on the host), written
      // into a buffer by write_chunk and stored from there by thread 0's TMA store.
      auto write_chunk = [&](const int ch, const b32 buf) {
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
      };
      // Thread 0 stores chunk ch from buf (rows of this consumer, columns of the chunk), as
      // one bulk group.
      auto store_chunk = [&](const int ch, const b32 buf) {
        const int c0 = (int)(n0 + ch * k::C_COLS), c1 = (int)(m0 + k::C_ROW * c);
        if constexpr (k::L2_HINT >= 1) {
          dev::sm90::tma_store_hint(&tmap_c, buf, c0, c1, evict);
        } else {
          dev::sm90::tma_store(&tmap_c, buf, c0, c1);
        }
        dev::sm90::store_commit();
      };
#if TESSEL_SM90_PARK
      // Parked: every chunk has a buffer of its own, so they are written in batches, one
      // batch per parked stage (its PARK_BUFS chunks: this consumer's 64 rows of A, then its
      // half of B) and one of the own buffers, with one fence and barrier per batch instead
      // of per chunk; thread 0 then stores the batch's chunks. The own buffers were last read
      // by the previous tile's last chunks: at most PARKED groups (this tile's) may still be
      // reading when they are rewritten.
      constexpr int parked = k::PARK_STAGES * k::PARK_BUFS;
      auto slot = [&](const int ch) -> b32 {
        const int pj = ch % k::PARK_BUFS;
        const int pst = ch < k::PARK_BUFS ? park_a : park_b;
        return ch >= parked ? sC + (k::C_BUFS * c + (ch - parked)) * k::C_BUF_BYTES
               : pj == 0    ? sA + pst * k::A_STAGE_BYTES + c * k::A_WG_BYTES
                            : sB + pst * k::B_STAGE_BYTES + (2 * c + pj - 1) * k::C_BUF_BYTES;
      };
#pragma unroll
      for (int first = 0; first < k::C_CHUNKS; first += k::PARK_BUFS) {
        const int last = first + k::PARK_BUFS < k::C_CHUNKS ? first + k::PARK_BUFS : k::C_CHUNKS;
        if (first >= parked) {
          if (t == 0) dev::sm90::store_wait_read<parked>();
          dev::sm90::bar_sync(1 + c, 128);
        }
#pragma unroll
        for (int ch = first; ch < last; ++ch) write_chunk(ch, slot(ch));
        dev::sm90::fence_proxy_async();
        dev::sm90::bar_sync(1 + c, 128);
        if (t == 0) {
#pragma unroll
          for (int ch = first; ch < last; ++ch) store_chunk(ch, slot(ch));
        }
      }
#else
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
        write_chunk(ch, buf);
        dev::sm90::fence_proxy_async();
        if constexpr (k::C_WARP) {
          __syncwarp();
          if (t % 32 == 0) {
            const int w = t / 32;
            const b32 src = buf + w * k::C_WARP_BYTES;
            const int c0 = (int)(n0 + ch * k::C_COLS), c1 = (int)(m0 + k::C_ROW * c + 16 * w);
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
          if (t == 0) store_chunk(ch, buf);
        }
      }
#endif
#else
      // Epilogue: values v and v + 1 are adjacent columns of one row (checked on the host).
      const long long r0 = m0 + k::C_ROW * c;
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
#if TESSEL_SM90_TRACE && TESSEL_SM90_SK_PHASE == 0
      if (t == 0 && tr_tile < k::TRACE_TILES) {
        const uint64_t tr_c3 = dev::sm90::cycles();
        uint64_t* r = TRACE + ((blockIdx.x * 2ull + c) * k::TRACE_TILES + tr_tile) * 8ull;
        r[0] = tr_ns0;
        r[1] = dev::sm90::globaltimer();
        r[2] = tr_c0;
        r[3] = tr_c1;
        r[4] = tr_c2;
        r[5] = tr_c3;
        r[6] = dev::sm90::smid();
        r[7] = 0;
      }
      ++tr_tile;
#endif
    }
