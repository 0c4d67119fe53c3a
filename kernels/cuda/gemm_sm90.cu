// tessel-kernels: Hopper GEMM C = A B^T (A: M x K, B: N x K, both K-contiguous, fp16 or bf16;
// C: M x N row-major, fp32, fp16 or bf16; fp32 accumulation), written with tessel's tensor
// layer. tessel_kernels::hopper declares every tensor, copy and MMA named here and proves them
// on the host: the TMA boxes write the swizzled stages, every wgmma descriptor addresses its
// block, the epilogue's stores are free of bank conflicts and put every value in its place.
//
// Warp-specialized and persistent, one block of 384 threads per SM:
//   warpgroup 0     producer: one thread loads each 64-wide k-tile of A (128 x 64) and of B
//                   (256 x 64) with TMA into a ring of k::STAGES shared-memory stages;
//   warpgroups 1-2  consumers: rows 64 c .. 64 c + 63 of the block's 128 x 256 tile each, four
//                   wgmma m64n256k16 per stage, then the epilogue.
// Tiles are visited in the host's grouped raster order (tensor::tile_m0 / tile_n0).
  extern __shared__ __align__(1024) unsigned char smem_raw[];
  // Swizzled stages start at multiples of 1024 bytes (the 128B pattern's repeat).
  const b32 sA = ((b32)__cvta_generic_to_shared(smem_raw) + 1023u) & ~1023u;
  const b32 sB = sA + k::STAGES * k::A_STAGE_BYTES;
  const b32 sC = sB + k::STAGES * k::B_STAGE_BYTES;  // k::C_BUFS epilogue buffers per consumer
  const tessel::sm90::Pipeline<k::STAGES> pipe{sC + 2 * k::C_BUFS * k::C_BUF_BYTES};
  const int wg = threadIdx.x / 128, t = threadIdx.x % 128;
  if (threadIdx.x == 0) pipe.init(8);  // a stage is free once each of the 8 consumer warps released it
  __syncthreads();

  // A consumer's work, written once per index (c a constant: addresses that depend on it fold
  // into constant offsets).
  auto consume = [&](auto consumer) {
    constexpr int c = decltype(consumer)::value;
    mma::wgmma mma;
    auto acc = tensor::acc();  // this thread's share of the 64 x 256 accumulator
    // The descriptors of this consumer's blocks of A and of B: (k-block, stage).
    const auto tCrA = tensor::da(sA)(128 * c, _, _, _, _);
    const auto tCrB = tensor::db(sB)(128 * c, _, _, _, _);
    tessel::sm90::PipelineState st;
    for (long long tile = blockIdx.x; tile < k::TILES; tile += gridDim.x) {
      // The main loop: one k-tile of wgmmas in flight; a stage goes back to the producer once
      // the wgmmas that read it are done.
      mma.scale_d = 0u;
      int prev = 0, kt = 0;
      do {
        pipe.consumer_wait(st);
        __syncwarp();  // the .aligned wgmma instructions need the whole warp converged
        tessel::sm90::fence_operand(acc);
        tessel::sm90::warpgroup_fence();
        tessel::gemm(mma, tCrA(_, _, _, st.index), tCrB(_, _, _, st.index), acc.tensor());
        tessel::sm90::warpgroup_commit();
        tessel::sm90::fence_operand(acc);
        tessel::sm90::warpgroup_wait<1>();
        if (kt > 0 && t % 32 == 0) pipe.consumer_release(prev);
        prev = st.index;
        st.advance<k::STAGES>();
      } while (++kt < k::KT);
      tessel::sm90::warpgroup_wait<0>();
      tessel::sm90::fence_operand(acc);
      if (t % 32 == 0) pipe.consumer_release(prev);

      // The epilogue. The tile's origin is computed once the accumulators are complete
      // (registers are short during the main loop).
      const int m0 = (int)tensor::tile_m0()(tile) + 64 * c, n0 = (int)tensor::tile_n0()(tile);
      if constexpr (k::TMA_STORE) {
        // Through shared memory, chunk by chunk (64 x C_COLS, values ch * C_VALS .. of every
        // thread: tensor::h is that share converted to the output type): the tiled copy cw
        // writes it into buffer ch % C_BUFS, thread 0's TMA store takes it from there. Thread 0
        // waits until the store that last read the buffer is done with it before the refill.
        // fp32 (st.shared.v2 of column pairs): threads with bit C_FLIP_BIT set take the pairs
        // in the order r ^ C_FLIP_STEP, which the host found free of bank conflicts.
        const b32 bufs = sC + c * k::C_BUFS * k::C_BUF_BYTES;
        const bool flip = k::C_FLIP != 0 && ((t >> k::C_FLIP_BIT) & 1) != 0;
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
        // Where TMA cannot address C: predicated stores of value pairs (adjacent columns)
        // straight from the registers, at the coordinates the identity tensors give them.
        const auto rows = tensor::crow()(t, _, 0, 0);
        const auto cols = tensor::ccol()(t, _, 0, 0);
        auto gC = tensor::gc(C);
#pragma unroll
        for (int v = 0; v < k::ACC; v += 2) {
          const long long r = m0 + rows[v], col = n0 + cols[v];
          if (r < k::M && col < k::N) {
            const bool two = col + 1 < k::N;
            tessel::sm90::store2<k::OUT>(&gC(r, col), acc[v], acc[v + 1], k::PAIR != 0 && two, two);
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
      for (long long tile = blockIdx.x; tile < k::TILES; tile += gridDim.x) {
        const int m0 = (int)tensor::tile_m0()(tile), n0 = (int)tensor::tile_n0()(tile);
        for (int kt = 0; kt < k::KT; ++kt) {
          const b32 full = pipe.producer_acquire(st, k::TX_BYTES);
          tessel::sm90::tma_load(&tmap_a, sA + st.index * k::A_STAGE_BYTES, kt * k::BK, m0, full);
          tessel::sm90::tma_load(&tmap_b, sB + st.index * k::B_STAGE_BYTES, kt * k::BK, n0, full);
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
