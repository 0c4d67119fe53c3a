// tessel-kernels: the library GEMM on sm_80 and later, D = alpha A B + beta C, every extent,
// leading dimension and pointer a run-time value of `args` (tessel_kernels::blas::sm80 declares
// the tensors and proves the hand-offs). One block computes a 128 x 128 tile of D through a
// cp.async pipeline of k::PIPE stages of k::BK elements (64 bytes) of each row, ldmatrix fragment
// loads (.trans for an MN-major operand) and mma.sync (m16n8k16 for 16-bit inputs, m16n8k32 for
// 8-bit ones) into fp32 accumulators (for 8-bit inputs each k tile's products are summed in a
// zeroed partial per fragment and added to them: tessel::gemm_promoted):
//   tessel::copy_zfill   a k tile of A or B, k::A_BYTES / k::B_BYTES per copy, zeros past the edge
//   copy::s2r_a, s2r_b   ldmatrix.x4 (shared stage -> the MMA's A / B registers)
//   mma::mma             mma.sync, fp32 accumulators
// A stage holds an operand in its global order: (rows, k) for a K-major one, (k, rows) for an
// MN-major one; the copies address it as (outer, inner) with inner contiguous in memory. ty::TAB
// is the inputs' storage type (16 or 8 bits).
  extern __shared__ __align__(128) ty::TAB tessel_smem[];
  ty::TAB* sA = tessel_smem;  // A's stages, then B's
  ty::TAB* sB = tessel_smem + k::SMEM_A;
  const int t = threadIdx.x;
  const int m0 = blockIdx.x * k::BM, n0 = blockIdx.y * k::BN;

  // The cp.async destinations (CPY, CPY atoms, CPY_OUTER, CPY_INNER, PIPE) and the coordinates
  // of their first elements in the tile (outer, inner), this thread's.
  auto tAsA = tensor::tAsA(sA)(t, _, _, _, _, _);
  auto tBsB = tensor::tBsB(sB)(t, _, _, _, _, _);
  const auto tAcA_o = tensor::tAcA_o()(t, _, _, _, _);
  const auto tAcA_i = tensor::tAcA_i()(t, _, _, _, _);
  const auto tBcB_o = tensor::tBcB_o()(t, _, _, _, _);
  const auto tBcB_i = tensor::tBcB_i()(t, _, _, _, _);
  // ldmatrix: the rows this thread addresses in the stages, and the MMA fragments they fill.
  auto tXsA = tensor::tXsA(sA)(t, _, _, _, _, _);  // (CPY, MMA_M, 1, MMA_K, PIPE)
  auto tXsB = tensor::tXsB(sB)(t, _, _, _, _, _);
  auto tCrA = tensor::tCrA();  // (MMA, MMA_M, MMA_K) registers
  auto tCrB = tensor::tCrB();  // (MMA, MMA_N, MMA_K)
  auto tCrC = tensor::tCrC();  // (MMA, MMA_M, MMA_N) accumulators
  auto tXrA = tensor::tXrA(tCrA);
  auto tXrB = tensor::tXrB(tCrB);
  tCrC.fill(0.0f);

  // k tile kt of A and B into stage s: the tile's origin and the matrix's extents in the
  // operand's (outer, inner) order.
  auto load = [&](int kt, int s) {
    const int k0 = kt * k::BK;
    if constexpr (k::A_MN) {
      tessel::copy_zfill<k::A_BYTES>(args.a, args.lda, k0, m0, args.k, args.m, tAcA_o, tAcA_i, tAsA(_, _, _, _, s));
    } else {
      tessel::copy_zfill<k::A_BYTES>(args.a, args.lda, m0, k0, args.m, args.k, tAcA_o, tAcA_i, tAsA(_, _, _, _, s));
    }
    if constexpr (k::B_MN) {
      tessel::copy_zfill<k::B_BYTES>(args.b, args.ldb, k0, n0, args.k, args.n, tBcB_o, tBcB_i, tBsB(_, _, _, _, s));
    } else {
      tessel::copy_zfill<k::B_BYTES>(args.b, args.ldb, n0, k0, args.n, args.k, tBcB_o, tBcB_i, tBsB(_, _, _, _, s));
    }
  };

  // Prologue: k tiles 0 .. PIPE-2 in flight, one commit group each.
  const int kts = (args.k - 1) / k::BK + 1;  // k >= 1; no overflow near 2^31
#pragma unroll
  for (int s = 0; s < k::PIPE - 1; ++s) {
    if (s < kts) load(s, s);
    tessel_cp_async_commit();
  }
  int read = 0;             // the stage of k tile kt (kt % PIPE)
  int write = k::PIPE - 1;  // the stage of k tile kt + PIPE - 1, prefetched in this iteration
#pragma unroll 1
  for (int kt = 0; kt < kts; ++kt) {
    tessel_cp_async_wait<k::PIPE - 2>();  // k tile kt has landed (this thread's copies) ...
    tessel_sync_block();                   // ... every thread's, and stage `write` is free
    if (kt + k::PIPE - 1 < kts) load(kt + k::PIPE - 1, write);
    tessel_cp_async_commit();
    if constexpr (k::PROMOTE) {
      // 8-bit inputs: B's fragments of the k tile, then per row of MMAs A's and, for each
      // accumulator fragment, the k tile's products summed from zero and added to it (promotion
      // every k tile; A loaded row by row keeps the registers under the limit).
#pragma unroll
      for (int kb = 0; kb < k::KB; ++kb) tessel::copy(copy::s2r_b{}, tXsB(_, _, _, kb, read), tXrB(_, _, _, kb));
#pragma unroll
      for (int m = 0; m < (int)decltype(tCrA.tensor())::extent<1>(); ++m) {
#pragma unroll
        for (int kb = 0; kb < k::KB; ++kb) tessel::copy(copy::s2r_a{}, tXsA(_, m, _, kb, read), tXrA(_, m, _, kb));
#pragma unroll
        for (int n = 0; n < (int)decltype(tCrB.tensor())::extent<1>(); ++n)
          tessel::gemm_promoted(mma::mma{}, tCrA(_, m, _), tCrB(_, n, _), tCrC(_, m, n));
      }
    } else {
#pragma unroll
      for (int kb = 0; kb < k::KB; ++kb) {  // each k step of the MMA: fragments, then the MMAs
        tessel::copy(copy::s2r_a{}, tXsA(_, _, _, kb, read), tXrA(_, _, _, kb));
        tessel::copy(copy::s2r_b{}, tXsB(_, _, _, kb, read), tXrB(_, _, _, kb));
        tessel::gemm(mma::mma{}, tCrA(_, _, kb), tCrB(_, _, kb), tCrC.tensor());
      }
    }
    read = read + 1 == k::PIPE ? 0 : read + 1;
    write = write + 1 == k::PIPE ? 0 : write + 1;
  }
  tessel_cp_async_wait<0>();

  // Epilogue: D = alpha acc + beta C at each accumulator's row and column (the identity tensors
  // crow and ccol partitioned like the accumulators), inside the matrix only; element (r, c) of
  // C and D at r * rs + c * cs (the strides of their order).
  const auto rows = tensor::crow()(t, _, _, _);
  const auto cols = tensor::ccol()(t, _, _, _);
#pragma unroll
  for (int i = 0; i < k::ACC; ++i) {
    const int r = m0 + (int)rows[i], c = n0 + (int)cols[i];
    if (r < args.m && c < args.n) {
      float v = args.alpha * tCrC[i];
      if constexpr (k::SOURCE) v += args.beta * tessel::to_float<k::OUT>(args.c[r * args.c_rs + c * args.c_cs]);
      args.d[r * args.d_rs + c * args.d_cs] = tessel::from_float<k::OUT, ty::TC>(v);
    }
  }
