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
//   dev::sm90                             mbarrier, TMA, fences, setmaxnreg, wgmma sync, stores
  extern __shared__ __align__(1024) unsigned char tessel_smem[];
  // Swizzled stages must start at multiples of 1024 bytes (the 128B pattern's repeat).
  const b32 raw = (b32)__cvta_generic_to_shared(tessel_smem);
  const b32 sA = (raw + 1023u) & ~1023u;
  const b32 sB = sA + k::STAGES * k::A_STAGE_BYTES;
  const b32 bars = sB + k::STAGES * k::B_STAGE_BYTES;  // full[s] = bars + 8 s, empty[s] after
  const int wg = threadIdx.x / 128;
  const int t = threadIdx.x % 128;
  if (threadIdx.x == 0) {
#pragma unroll
    for (int s = 0; s < k::STAGES; ++s) {
      dev::sm90::mbar_init(bars + 8 * s, 1);
      dev::sm90::mbar_init(bars + 8 * (k::STAGES + s), k::EMPTY_ARRIVALS);
    }
    dev::sm90::fence_barrier_init();
  }
  __syncthreads();
  if (wg == 0) {
    dev::sm90::regs_dec<k::PRODUCER_REGS>();
    if (t == 0) {
      dev::sm90::prefetch_map(&tmap_a);
      dev::sm90::prefetch_map(&tmap_b);
      int s = 0;
      b32 phase = 0;
#pragma unroll 1
      for (long long tile = blockIdx.x; tile < k::TILES; tile += gridDim.x) {
        const long long idx = layout::raster(tile);
        const int m0 = (int)layout::tile_m0(idx);
        const int n0 = (int)layout::tile_n0(idx);
#pragma unroll 1
        for (int kt = 0; kt < k::KT; ++kt) {
          // A fresh barrier counts as having completed the phase before its first: the first
          // pass over the ring does not wait.
          dev::sm90::wait(bars + 8 * (k::STAGES + s), phase ^ 1u);
          const b32 full = bars + 8 * s;
          dev::sm90::arrive_expect_tx(full, k::TX_BYTES);
          dev::sm90::tma_load(sA + s * k::A_STAGE_BYTES, &tmap_a, kt * k::BK, m0, full);
          dev::sm90::tma_load(sB + s * k::B_STAGE_BYTES, &tmap_b, kt * k::BK, n0, full);
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
    float acc[k::ACC];
#pragma unroll
    for (int i = 0; i < k::ACC; ++i) acc[i] = 0.0f;
    int s = 0;
    b32 phase = 0;
#pragma unroll 1
    for (long long tile = blockIdx.x; tile < k::TILES; tile += gridDim.x) {
      const long long idx = layout::raster(tile);
      const long long m0 = layout::tile_m0(idx);
      const long long n0 = layout::tile_n0(idx);
      int prev = 0;
#pragma unroll 1
      for (int kt = 0; kt < k::KT; ++kt) {
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
          // scale_d 0 on the tile's first k-step: D = A B, the accumulators start over.
          dev::wgmma<1, 1, 0, 0>(acc, da, db, (kt > 0 || kb > 0) ? 1u : 0u);
        }
        dev::sm90::mma_commit();
        dev::sm90::pin<k::ACC>(acc);
        // The previous k-tile's wgmmas are done: its stage goes back to the producer (one
        // arrival per consumer warp).
        dev::sm90::mma_wait<1>();
        if (kt > 0 && t % 32 == 0) dev::sm90::arrive(bars + 8 * (k::STAGES + prev));
        prev = s;
        if (++s == k::STAGES) {
          s = 0;
          phase ^= 1u;
        }
      }
      dev::sm90::mma_wait<0>();
      dev::sm90::pin<k::ACC>(acc);
      if (t % 32 == 0) dev::sm90::arrive(bars + 8 * (k::STAGES + prev));
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
    }
  }
