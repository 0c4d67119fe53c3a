// tessel-kernels: Hopper GEMM D = alpha A B + beta C (A: M x K, K-major or M-major; B: K x N,
// K-major or N-major; fp16 or bf16, or 8-bit e4m3/e5m2 with both K-major; D and C: M x N
// row-major, fp32, fp16 or bf16; fp32 accumulation, promoted every k-tile for 8-bit inputs), written with tessel's tensor layer. tessel_kernels::hopper declares every
// tensor, copy and MMA named here and proves them on the host: the TMA boxes write the swizzled
// stages, every wgmma descriptor addresses its block, the epilogue's stores are free of bank
// conflicts and put every value in its place. The problem (extents, leading dimensions, tile
// counts, split, alpha and beta) is the run-time struct `args`: one compiled kernel serves every
// shape of its configuration.
//
// Warp-specialized and persistent, one block of 384 threads per SM:
//   warpgroup 0     producer: one thread loads each 64-wide k-tile of A (128 x 64) and of B
//                   (BN x 64) with TMA (k::A_BOXES and k::B_BOXES boxes) into a ring of
//                   k::STAGES shared-memory stages;
//   warpgroups 1-2  consumers: rows 64 c .. 64 c + 63 of the block's 128 x BN tile each, four
//                   wgmma m64nBNk16 per stage, then the epilogue.
// Units of work are (tile, split) pairs: tiles in the grouped raster of the run-time tile counts
// (tessel::GroupedRaster), each tile's k-tiles in args.splits ranges (split-K: each unit leaves
// its fp32 partial sums in the workspace args.partials, and the unit that finishes a tile last
// adds them up and runs the epilogue).
  extern __shared__ __align__(1024) unsigned char smem_raw[];
  // Swizzled stages start at multiples of 1024 bytes (the 128B pattern's repeat).
  const b32 sA = ((b32)__cvta_generic_to_shared(smem_raw) + 1023u) & ~1023u;
  const b32 sB = sA + k::STAGES * k::A_STAGE_BYTES;
  const b32 sC = sB + k::STAGES * k::B_STAGE_BYTES;  // k::C_BUFS epilogue buffers per consumer
  const tessel::sm90::Pipeline<k::STAGES> pipe{sC + 2 * k::C_BUFS * k::C_BUF_BYTES};
  // The warpgroup index through a shuffle: provably the same in every lane of a warp, so that
  // ptxas keeps what the roles compute from it (stage indices, wgmma descriptors) in uniform
  // registers instead of moving each descriptor there with R2UR before every wgmma.
  const int wg = __shfl_sync(0xffffffffu, (int)(threadIdx.x / 128), 0), t = threadIdx.x % 128;
  if (threadIdx.x == 0) pipe.init(8);  // a stage is free once each of the 8 consumer warps released it
  __syncthreads();

  const int tiles = args.tiles_m * args.tiles_n, units = tiles * args.splits;
  const tessel::GroupedRaster raster(args.tiles_m, args.log2_group);
  // Unit u: tile u % tiles, split u / tiles, whose k-tiles are s KT / S .. (s + 1) KT / S (the
  // host makes every range non-empty). Without split (S = 1, a uniform branch) the unit is the
  // tile and its k-tiles are all KT: the divisions (the 64-bit ones a call) run per unit only
  // in split calls, whose units the planner fits in one wave.
  auto split_of = [&](int unit, int& tile, int& split, int& kt0, int& kt1) {
    if (args.splits == 1) {
      tile = unit;
      split = 0;
      kt0 = 0;
      kt1 = args.k_tiles;
      return;
    }
    tile = unit % tiles;
    split = unit / tiles;
    kt0 = (int)((long long)split * args.k_tiles / args.splits);
    kt1 = (int)((long long)(split + 1) * args.k_tiles / args.splits);
  };

  // A consumer's work, written once per index (c a constant: addresses that depend on it fold
  // into constant offsets).
  auto consume = [&](auto consumer) {
    constexpr int c = decltype(consumer)::value;
    mma::wgmma mma;
    auto acc = tensor::acc();  // this thread's share of the 64 x BN accumulator
    // k::PROMOTE (8-bit inputs): the fp32 fragment the accumulators of each k-tile are added
    // into (the wgmma accumulation of 8-bit products keeps fewer bits than fp32; one k-tile of
    // 128 products per promotion, as CUTLASS's FP8 kernels and DeepGEMM). Unused otherwise.
    auto total = tensor::acc();
    // The descriptors of this consumer's blocks of A and of B: (k-block, stage).
    const auto tCrA = tensor::da(sA)(128 * c, _, _, _, _);
    const auto tCrB = tensor::db(sB)(128 * c, _, _, _, _);
    tessel::sm90::PipelineState st;
    for (int unit = blockIdx.x; unit < units; unit += gridDim.x) {
      int tile, split, kt, kt1;
      split_of(unit, tile, split, kt, kt1);
      if constexpr (k::PROMOTE) {
        // 8-bit inputs: k-tiles alternate between acc and acc2, so that the wgmmas of one
        // k-tile run while the sum of the previous one is added into total (its stage then
        // goes back to the producer). A k-tile's first wgmma overwrites its accumulator.
        auto acc2 = tensor::acc();
        auto issue = [&](auto& into) {
          pipe.consumer_wait_warp(st);  // the whole warp leaves it at once: converged for wgmma
          tessel::sm90::fence_operand(into);
          tessel::sm90::warpgroup_fence();
          mma.scale_d = 0u;
          const int s = __shfl_sync(0xffffffffu, st.index, 0);  // warp-uniform: descriptors in uniform registers
          tessel::gemm(mma, tCrA(_, _, _, s), tCrB(_, _, _, s), into.tensor());
          tessel::sm90::warpgroup_commit();
          tessel::sm90::fence_operand(into);
        };
        auto retire = [&](auto& done, int stage) {
          tessel::sm90::fence_operand(done);
          if (t % 32 == 0) pipe.consumer_release(stage);
#pragma unroll
          for (int i = 0; i < k::ACC; ++i) total[i] += done[i];
        };
#pragma unroll
        for (int i = 0; i < k::ACC; ++i) total[i] = 0.0f;
        int prev = st.index;
        issue(acc);
        st.advance<k::STAGES>();
        // One k-tile: issue `next`, then promote `done` (the previous k-tile's) once it is
        // complete; false after the last k-tile was promoted.
        auto step = [&](auto& next, auto& done) {
          if (++kt == kt1) {
            tessel::sm90::warpgroup_wait<0>();
            retire(done, prev);
            return false;
          }
          const int stage = st.index;
          issue(next);
          tessel::sm90::warpgroup_wait<1>();
          retire(done, prev);
          prev = stage;
          st.advance<k::STAGES>();
          return true;
        };
        while (step(acc2, acc) && step(acc, acc2)) {
        }
#pragma unroll
        for (int i = 0; i < k::ACC; ++i) acc[i] = total[i];
      } else {
        // The main loop: one k-tile of wgmmas in flight; a stage goes back to the producer
        // once the wgmmas that read it are done.
        mma.scale_d = 0u;
        int prev = 0;
        const int kt0 = kt;
        do {
          pipe.consumer_wait_warp(st);  // the whole warp leaves it at once: converged for wgmma
          tessel::sm90::fence_operand(acc);
          tessel::sm90::warpgroup_fence();
          const int s = __shfl_sync(0xffffffffu, st.index, 0);  // warp-uniform: descriptors in uniform registers
          tessel::gemm(mma, tCrA(_, _, _, s), tCrB(_, _, _, s), acc.tensor());
          tessel::sm90::warpgroup_commit();
          tessel::sm90::fence_operand(acc);
          tessel::sm90::warpgroup_wait<1>();
          if (kt > kt0 && t % 32 == 0) pipe.consumer_release(prev);
          prev = st.index;
          st.advance<k::STAGES>();
        } while (++kt < kt1);
        tessel::sm90::warpgroup_wait<0>();
        tessel::sm90::fence_operand(acc);
        if (t % 32 == 0) pipe.consumer_release(prev);
      }

      // Split-K (a uniform branch): every unit stores its partial sums in its own slab of the
      // workspace (tensor::part: value pair i of thread t at pair 128 i + t, so that each store
      // instruction of the warpgroup writes 1 KiB in one piece) and then counts itself in at
      // the tile's counter (one per consumer half of the tile). The unit that arrives last
      // adds the tile's slabs in split order (the same order whichever unit arrives last, so
      // the sum is deterministic), sets the counter back to 0 for the next call and runs the
      // epilogue; the others go on to their next unit. No unit waits for another: any order
      // in which the units run completes.
      if (args.splits > 1) {
        float2* const slabs = reinterpret_cast<float2*>(args.partials) + c * (32 * k::BN);
        constexpr long long SLAB = 64 * k::BN;  // column pairs of a unit's 128 x BN slab
        auto mine = tensor::part(slabs + unit * SLAB)(t, _);
#pragma unroll
        for (int i = 0; i < k::ACC / 2; ++i) __stcg(&mine(i), make_float2(acc[2 * i], acc[2 * i + 1]));
        __threadfence();  // this thread's stores are complete before the barrier
        tessel::sm90::bar_sync(1 + c, 128);
        bool last = false;
        if (t == 0) {
          // Release (the warpgroup's slab, ordered before by the barrier, precedes the count)
          // and acquire (the other units' slabs, which their counts announced, are read after).
          __threadfence();
          last = atomicAdd(args.arrivals + 2 * tile + c, 1u) == (b32)(args.splits - 1);
          __threadfence();
          if (last) atomicExch(args.arrivals + 2 * tile + c, 0u);  // zero for the next call
        }
        if (!tessel::sm90::bar_any(1 + c, 128, last)) continue;
#pragma unroll
        for (int v = 0; v < k::ACC; ++v) acc[v] = 0.0f;
        for (int s = 0; s < args.splits; ++s) {
          const auto slab = tensor::part(slabs + (s * tiles + tile) * SLAB)(t, _);
#pragma unroll
          for (int i = 0; i < k::ACC / 2; ++i) {
            const float2 p = __ldcg(&slab(i));
            acc[2 * i] += p.x;
            acc[2 * i + 1] += p.y;
          }
        }
      }

      // The epilogue. The tile's origin is computed once the accumulators are complete
      // (registers are short during the main loop).
      int ym, xn;
      raster.tile(tile, ym, xn);
      const int m0 = ym * k::BM + 64 * c, n0 = xn * k::BN;
      // D = alpha acc + beta C where the configuration reads C, at each accumulator's place:
      // pairs of adjacent columns, as the identity tensors crow and ccol give them. Element
      // (r, c) of the tiles of C and D is at their layout functions' offsets (layout::gsrc_crd,
      // layout::gd_crd: both strides run-time, the rows' the leading dimension and the
      // columns' 1, or the other way round where the kernel writes D's transpose); tensor
      // objects of them, held across the unrolled loops where the accumulators take the
      // registers, made ptxas spill.
      const auto rows = tensor::crow()(t, _, 0, 0);
      const auto cols = tensor::ccol()(t, _, 0, 0);
      // Without C (beta = 0: the host reads C exactly where beta != 0) D = alpha acc, scaled
      // here only where alpha is not 1 (a uniform branch: most calls have alpha 1 and need no
      // multiply per value).
      if constexpr (!k::SOURCE) {
        if (args.alpha != 1.0f) {
#pragma unroll
          for (int v = 0; v < k::ACC; ++v) acc[v] *= args.alpha;
        }
      }
      if constexpr (k::TMA_STORE) {
        // Through shared memory, chunk by chunk (64 x C_COLS, values ch * C_VALS .. of every
        // thread: tensor::h is that share converted to the output type): the tiled copy cw
        // writes it into buffer ch % C_BUFS, thread 0's TMA store takes it from there. Thread 0
        // waits until the store that last read the buffer is done with it before the refill.
        // fp32 (st.shared.v2 of column pairs): threads with bit C_FLIP_BIT set take the pairs
        // in the order r ^ C_FLIP_STEP, which the host found free of bank conflicts.
        const b32 bufs = sC + c * k::C_BUFS * k::C_BUF_BYTES;
        const bool flip = k::C_FLIP != 0 && ((t >> k::C_FLIP_BIT) & 1) != 0;
        if constexpr (k::SOURCE) {
#pragma unroll
          for (int v = 0; v < k::ACC; v += 2) {
            float c0 = 0.0f, c1 = 0.0f;
            if (m0 + rows[v] < args.m && n0 + cols[v] < args.n) {
              const bool two = n0 + cols[v] + 1 < args.n;
              tessel::sm90::load2<k::OUT>(args.c + m0 * args.ldc + n0 * args.c_col + layout::gsrc_crd(rows[v], cols[v], args.ldc, args.c_col), args.c_col, c0, c1, args.c_pair != 0 && two, two);
            }
            acc[v] = args.alpha * acc[v] + args.beta * c0;
            acc[v + 1] = args.alpha * acc[v + 1] + args.beta * c1;
          }
        }
#pragma unroll
        for (int ch = 0; ch < k::C_CHUNKS; ++ch) {
          if (t == 0) tessel::sm90::store_wait_read<k::C_BUFS - 1>();
          tessel::sm90::bar_sync(1 + c, 128);
          auto h = tensor::h();
#pragma unroll
          for (int i = 0; i < k::C_VALS; i += 2) {
            tessel::sm90::convert2<k::OUT>(&h.r[i], acc[ch * k::C_VALS + i], acc[ch * k::C_VALS + i + 1]);
          }
          tessel::copy_xor_order(copy::cw{}, tensor::hs(h)(_, _, _, 0), tensor::ct(bufs)(t, _, _, _, ch), flip,
                                 tessel::Int<k::C_FLIP_STEP>{}, (b32)(sizeof(ty::TC) * k::C_FLIP_XOR));
          tessel::sm90::fence_proxy_async();
          tessel::sm90::bar_sync(1 + c, 128);
          if (t == 0) {
            tessel::sm90::tma_store(&tmap_c, bufs + (ch % k::C_BUFS) * k::C_BUF_BYTES, n0 + ch * k::C_COLS, m0);
            tessel::sm90::store_commit();
          }
        }
      } else {
        // Where TMA cannot address D: predicated stores of value pairs (adjacent columns)
        // straight from the registers (each pair of C read just before).
#pragma unroll
        for (int v = 0; v < k::ACC; v += 2) {
          if (m0 + rows[v] < args.m && n0 + cols[v] < args.n) {
            const bool two = n0 + cols[v] + 1 < args.n;
            float d0 = acc[v], d1 = acc[v + 1];
            if constexpr (k::SOURCE) {
              float c0 = 0.0f, c1 = 0.0f;
              tessel::sm90::load2<k::OUT>(args.c + m0 * args.ldc + n0 * args.c_col + layout::gsrc_crd(rows[v], cols[v], args.ldc, args.c_col), args.c_col, c0, c1, args.c_pair != 0 && two, two);
              d0 = args.alpha * d0 + args.beta * c0;
              d1 = args.alpha * d1 + args.beta * c1;
            }
            tessel::sm90::store2<k::OUT>(args.d + m0 * args.ldd + n0 * args.d_col + layout::gd_crd(rows[v], cols[v], args.ldd, args.d_col), args.d_col, d0, d1, args.d_pair != 0 && two, two);
          }
        }
      }
    }
    // The last stores must finish reading shared memory before the block exits.
    if (k::TMA_STORE && t == 0) tessel::sm90::store_wait<0>();
  };
  if (wg == 0) {
    // The producer.
    tessel::sm90::regs_dec<k::PRODUCER_REGS>();
    if (t == 0) {
      tessel::sm90::prefetch_map(&tmap_a);
      tessel::sm90::prefetch_map(&tmap_b);
      tessel::sm90::PipelineState st;
      for (int unit = blockIdx.x; unit < units; unit += gridDim.x) {
        int tile, split, kt0, kt1;
        split_of(unit, tile, split, kt0, kt1);
        int ym, xn;
        raster.tile(tile, ym, xn);
        const int m0 = ym * k::BM, n0 = xn * k::BN;
        for (int kt = kt0; kt < kt1; ++kt) {
          const b32 full = pipe.producer_acquire(st, k::TX_BYTES);
          const b32 a = sA + st.index * k::A_STAGE_BYTES, b = sB + st.index * k::B_STAGE_BYTES;
          // A K-major operand is one box (K innermost); an MN-major one a box per MN_BOX rows
          // of MN (MN innermost).
#pragma unroll
          for (int j = 0; j < k::A_BOXES; ++j) {
            if constexpr (k::A_MN) {
              tessel::sm90::tma_load(&tmap_a, a + j * k::A_BOX_BYTES, m0 + j * k::MN_BOX, kt * k::BK, full);
            } else {
              tessel::sm90::tma_load(&tmap_a, a, kt * k::BK, m0, full);
            }
          }
#pragma unroll
          for (int j = 0; j < k::B_BOXES; ++j) {
            if constexpr (k::B_MN) {
              tessel::sm90::tma_load(&tmap_b, b + j * k::B_BOX_BYTES, n0 + j * k::MN_BOX, kt * k::BK, full);
            } else {
              tessel::sm90::tma_load(&tmap_b, b, kt * k::BK, n0, full);
            }
          }
          st.advance<k::STAGES>();
        }
      }
    }
  } else {
    // The consumers.
    tessel::sm90::regs_inc<k::CONSUMER_REGS>();
    if (wg == 1) {
      consume(tessel::Int<0>{});
    } else {
      consume(tessel::Int<1>{});
    }
  }
