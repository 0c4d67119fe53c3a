// tessel-kernels: problem 1 of the tensor-core swizzle problems: P[p] = A[p]^n for a 16x16 fp16
// A[p] (row-major), one warp per problem. A is read once into registers (ldmatrix.x4, the mma's A
// fragment); each step reads the current product P from shared memory as the B operand
// (ldmatrix.x4.trans: B(n, k) = P[k][n]), computes A * P on the tensor cores (fp32 accumulate)
// and writes it back to shared memory as fp16 through the same swizzled layout.
// The pieces (tessel_kernels::mma::power::PowerPlan):
//   layout::fill_g(t), fill_s(t)  thread t's 16-byte chunk in global / shared memory
//   layout::ldsm_a(t), ldsm_p(t)  the row address thread t gives ldmatrix for A / for P (.trans)
//   layout::c_smem_crd(t, v)      shared offset of accumulator value v (v, v+1: one 32-bit word)
//   dev::ldsm, dev::ldsm_t, dev::mma, dev::mma_tile, dev::pack_half2
  __shared__ __align__(128) b16 sA[k::TILE];
  __shared__ __align__(128) b16 sP[k::TILE];
  const int t = threadIdx.x;
  const long long p = blockIdx.x;
  b16 r[8];
  tessel_load<b16, 8>(r, A + p * k::TILE + layout::fill_g(t));
  tessel_store_shared<b16, 8>(sA + layout::fill_s(t), r);
  tessel_store_shared<b16, 8>(sP + layout::fill_s(t), r);
  tessel_sync_warp();
  const b32 baseA = (b32)__cvta_generic_to_shared(sA);
  const b32 baseP = (b32)__cvta_generic_to_shared(sP);
  b32 a[4];
  dev::ldsm(a, tessel_smem_addr<b16>(baseA, layout::ldsm_a(t)));
#pragma unroll 1
  for (int step = 1; step < n; ++step) {
    b32 b[4];
    dev::ldsm_t(b, tessel_smem_addr<b16>(baseP, layout::ldsm_p(t)));
    float acc[k::NB][4];
    dev::mma_tile(acc, a, b);
    tessel_sync_warp();  // every lane has read P before it is overwritten
#pragma unroll
    for (int j = 0; j < k::NB; ++j)
#pragma unroll
      for (int v = 0; v < 4; v += 2)
        *reinterpret_cast<b32*>(sP + layout::c_smem_crd(t, v + 4 * j)) = dev::pack_half2(acc[j][v], acc[j][v + 1]);
    tessel_sync_warp();
  }
  tessel_load<b16, 8>(r, sP + layout::fill_s(t));
  tessel_store_global<b16, 8>(P + p * k::TILE + layout::fill_g(t), r);
