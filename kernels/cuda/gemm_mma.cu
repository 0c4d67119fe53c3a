// tessel-kernels: tensor-core GEMM C = A * B^T (A: M x K, B: N x K, fp16, K-contiguous; C: M x N
// fp32, row-major): a cp.async pipeline of k::PIPE shared stages, ldmatrix.x4 fragment loads and
// mma.sync m16n8k16, in the shape of CuTe's sgemm_sm80 tutorial. tessel_kernels::gemm declares
// every tensor below and partitions it on the host (GemmPlan::tensors); this body slices them at
// its thread, block tile and stage and calls the copies and the MMA:
//   copy::g2s          cp.async of 16 bytes (global -> shared stage)
//   copy::s2r_a, s2r_b ldmatrix.x4 (shared stage -> the MMA's A / B registers)
//   mma::mma           mma.sync m16n8k16, fp32 accumulators
//   copy::r2g          two accumulators (8 bytes) -> C
  extern __shared__ __align__(128) b16 tessel_smem[];
  b16* sA = tessel_smem;               // A's stages, then B's
  b16* sB = tessel_smem + k::SMEM_A;
  const int t = threadIdx.x;
  // This block's tile of C (grouped raster order).
  const long long tile = layout::raster((long long)blockIdx.x);
  const long long bm = layout::tile_m(tile), bn = layout::tile_n(tile);

  // cp.async: this thread's chunks of the block's rows of A and B, every k tile, and of the stages.
  // The block tile is sliced first and the thread second: the block's (uniform) pointers and the
  // thread's offset, the same for A and B, stay apart, so ptxas keeps one per-thread offset and
  // the loop counters in uniform registers, and has the registers to double-buffer B's ldmatrix
  // fragments (slicing both at once costs 5 registers there and exposes the ldmatrix latency).
  auto tAgA = tensor::tAgA(A)(_, _, _, _, _, bm, _)(t, _, _, _, _, _);  // (CPY, CPY atoms, CPY_M, CPY_K, k)
  auto tAsA = tensor::tAsA(sA)(t, _, _, _, _, _);     // (CPY, CPY atoms, CPY_M, CPY_K, PIPE)
  auto tBgB = tensor::tBgB(B)(_, _, _, _, _, bn, _)(t, _, _, _, _, _);
  auto tBsB = tensor::tBsB(sB)(t, _, _, _, _, _);
  // ldmatrix: the rows this thread addresses in the stages, and the MMA fragments they fill.
  auto tXsA = tensor::tXsA(sA)(t, _, _, _, _, _);     // (CPY, MMA_M, 1, MMA_K, PIPE)
  auto tXsB = tensor::tXsB(sB)(t, _, _, _, _, _);     // (CPY, MMA_N / 2, 1, MMA_K, PIPE)
  auto tCrA = tensor::tCrA();                         // (MMA, MMA_M, MMA_K) registers
  auto tCrB = tensor::tCrB();                         // (MMA, MMA_N, MMA_K)
  auto tCrC = tensor::tCrC();                         // (MMA, MMA_M, MMA_N) accumulators
  auto tXrA = tensor::tXrA(tCrA);                     // tCrA as the ldmatrix destination
  auto tXrB = tensor::tXrB(tCrB);
  tCrC.fill(0.0f);

  // Prologue: k tiles 0 .. PIPE-2 in flight, one commit group each.
#pragma unroll
  for (int s = 0; s < k::PIPE - 1; ++s) {
    if (s < k::KT) {
      tessel::copy(copy::g2s{}, tAgA(_, _, _, _, s), tAsA(_, _, _, _, s));
      tessel::copy(copy::g2s{}, tBgB(_, _, _, _, s), tBsB(_, _, _, _, s));
    }
    tessel_cp_async_commit();
  }
  int read = 0;              // the stage of k tile kt (kt % PIPE)
  int write = k::PIPE - 1;   // the stage of k tile kt + PIPE - 1, prefetched in this iteration
#pragma unroll 1
  for (int kt = 0; kt < k::KT; ++kt) {
    tessel_cp_async_wait<k::PIPE - 2>();  // k tile kt has landed (this thread's copies) ...
    tessel_sync_block();                   // ... every thread's, and stage `write` is free
    if (kt + k::PIPE - 1 < k::KT) {
      tessel::copy(copy::g2s{}, tAgA(_, _, _, _, kt + k::PIPE - 1), tAsA(_, _, _, _, write));
      tessel::copy(copy::g2s{}, tBgB(_, _, _, _, kt + k::PIPE - 1), tBsB(_, _, _, _, write));
    }
    tessel_cp_async_commit();
#pragma unroll
    for (int kb = 0; kb < k::KB; ++kb) {  // each 16-wide k step: fragments, then the MMAs
      tessel::copy(copy::s2r_a{}, tXsA(_, _, _, kb, read), tXrA(_, _, _, kb));
      tessel::copy(copy::s2r_b{}, tXsB(_, _, _, kb, read), tXrB(_, _, _, kb));
      tessel::gemm(mma::mma{}, tCrA(_, _, kb), tCrB(_, _, kb), tCrC.tensor());
    }
    read = read + 1 == k::PIPE ? 0 : read + 1;
    write = write + 1 == k::PIPE ? 0 : write + 1;
  }
  tessel_cp_async_wait<0>();

  // Epilogue: the accumulators to the block's tile of C.
  tessel::copy(copy::r2g{}, tensor::tDrC(tCrC), tensor::tDgC(C)(t, _, _, _, _, bm, bn));
