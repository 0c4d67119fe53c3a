// tessel-kernels: problem 2 of the tensor-core swizzle problems: C[p] = A * B for the two 16x16
// fp16 blocks of M[p] = [A B] (one 16x32 row-major tile), one warp per problem. A's fragment comes
// from ldmatrix.x4 on the left half; B's from ldmatrix.x4.trans on the right half (the mma's B
// operand is B(n, k) = M[k][16 + n], rows of M are k). C is 16x16 fp32, row-major.
// The pieces (tessel_kernels::mma::pair::PairPlan):
//   layout::fill_g(t + 32 i), fill_s(t + 32 i)  thread t's i-th 16-byte chunk of M
//   layout::ldsm_a_crd(t, h), ldsm_b_crd(t, h)    ldmatrix row of thread t in column half h
//   layout::c_out_crd(t, v)                       global offset of accumulator value v
//   dev::mma_tile, dev::store_pairs               the product of the fragments; its fp32 stores
  __shared__ __align__(128) b16 sM[k::TILE];
  const int t = threadIdx.x;
  const long long p = blockIdx.x;
#pragma unroll
  for (int i = 0; i < k::FILL; ++i) {
    b16 r[8];
    tessel_load<b16, 8>(r, M + p * k::TILE + layout::fill_g(t + 32 * i));
    tessel_store_shared<b16, 8>(sM + layout::fill_s(t + 32 * i), r);
  }
  tessel_sync_warp();
  const b32 base = (b32)__cvta_generic_to_shared(sM);
  b32 a[4], b[4];
  dev::ldsm(a, tessel_smem_addr<b16>(base, layout::ldsm_a_crd(t, 0)));
  dev::ldsm_t(b, tessel_smem_addr<b16>(base, layout::ldsm_b_crd(t, 1)));
  float acc[k::NB][4];
  dev::mma_tile(acc, a, b);
  dev::store_pairs(C + p * k::OUT, acc, [&](int v) { return layout::c_out_crd(t, v); });
