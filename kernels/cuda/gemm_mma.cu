// tessel-kernels: tensor-core GEMM C = A * B^T (A: M x K, B: N x K, both fp16 and K-contiguous;
// C: M x N fp32, row-major), cp.async pipeline + ldmatrix.x4 + mma.sync.m16n8k16. The function
// body; tessel_kernels::gemm declares the pieces and the signature (const b16* A, const b16* B,
// float* C), with the plan's dynamic shared memory: A's stages, then B's (k::SMEM_A elements).
//
//   layout::raster(b)                  block b -> tile index
//   layout::tile_m0(i), tile_n0(i)     tile index -> first row / column of the block's C tile
//   layout::g_a_crd, g_b_crd, g_c_crd  global offsets of a matrix element (tile origins)
//   layout::ld_a_global_crd(t, j, kt)  global offset of thread t's j-th 16-byte chunk of A's K slice kt
//   layout::ld_a_smem_crd(t, j, s)     its swizzled shared offset in stage s (ld_b_*: the same for B)
//   layout::ldsm_a_crd(t, mi, kk, s)   the row address thread t's lane gives ldmatrix.x4 (A, fragment mi)
//   layout::ldsm_b_crd(t, nj, kk, s)   the same for B (n16 pair nj)
//   layout::c_out_crd(t, v, mi, ni)    global offset of accumulator value v of fragment (mi, ni)
//   dev::load_stage, dev::load_frags   the cp.async stage copy and the ldmatrix fragment loads
//   dev::cp, dev::ldsm, dev::mma       the atoms' instructions (cp.async 16 B, ldmatrix.x4, mma.sync
//                                      m16n8k16; d = a b + c, here with d and c the same accumulators)
  extern __shared__ __align__(128) b16 tessel_smem[];
  const b32 sA = (b32)__cvta_generic_to_shared(tessel_smem);
  const b32 sB = tessel_smem_addr<b16>(sA, k::SMEM_A);
  const long long t = threadIdx.x;
  const long long tile = layout::raster((long long)blockIdx.x);
  const long long m0 = layout::tile_m0(tile);
  const long long n0 = layout::tile_n0(tile);
  const b16* __restrict__ gA = A + layout::g_a_crd(m0, 0) + layout::ld_a_global_crd(t, 0, 0);
  const b16* __restrict__ gB = B + layout::g_b_crd(n0, 0) + layout::ld_b_global_crd(t, 0, 0);
  float* __restrict__ gC = C + layout::g_c_crd(m0, n0);
  // Per-thread hoisted shared addresses (GemmPlan::validate proves the split
  // ldsm_*_crd(t, i, kk, s) = ldsm_*_crd(t, 0, kk, 0) + ldsm_*_crd(0, i, 0, 0) + ldsm_*_crd(0, 0, 0, s)).
  const b32 stA = tessel_smem_addr<b16>(sA, layout::ld_a_smem_crd(t, 0, 0));
  const b32 stB = tessel_smem_addr<b16>(sB, layout::ld_b_smem_crd(t, 0, 0));
  b32 thrA[k::KK], thrB[k::KK];
#pragma unroll
  for (int kk = 0; kk < k::KK; ++kk) {
    thrA[kk] = tessel_smem_addr<b16>(sA, layout::ldsm_a_crd(t, 0, kk, 0));
    thrB[kk] = tessel_smem_addr<b16>(sB, layout::ldsm_b_crd(t, 0, kk, 0));
  }

  float acc[k::MI][k::NI][4];
#pragma unroll
  for (int i = 0; i < k::MI; ++i)
#pragma unroll
    for (int j = 0; j < k::NI; ++j)
#pragma unroll
      for (int v = 0; v < 4; ++v) acc[i][j][v] = 0.0f;

#pragma unroll
  for (int s = 0; s < k::STAGES - 1; ++s) {
    if (s < k::KT) dev::load_stage(stA, stB, gA, gB, s, s);
    tessel_cp_async_commit();
  }
  int s = 0;                // stage read in this iteration (kt % STAGES)
  int ps = k::STAGES - 1;   // stage written by this iteration's prefetch ((kt + STAGES - 1) % STAGES)
#pragma unroll 1
  for (int kt = 0; kt < k::KT; ++kt) {
    tessel_cp_async_wait<k::STAGES - 2>();
    tessel_sync_block();
    const int pf = kt + k::STAGES - 1;
    if (pf < k::KT) dev::load_stage(stA, stB, gA, gB, ps, pf);
    tessel_cp_async_commit();
    const b32 soA = (b32)sizeof(b16) * (b32)layout::ldsm_a_crd(0, 0, 0, s);
    const b32 soB = (b32)sizeof(b16) * (b32)layout::ldsm_b_crd(0, 0, 0, s);
#pragma unroll
    for (int kk = 0; kk < k::KK; ++kk) {
      b32 a[k::MI][4];
      b32 b[k::NI / 2][4];
      dev::load_frags(a, b, thrA, thrB, soA, soB, kk);
#pragma unroll
      for (int i = 0; i < k::MI; ++i)
#pragma unroll
        for (int j = 0; j < k::NI; ++j) dev::mma(acc[i][j], a[i], &b[j / 2][2 * (j % 2)], acc[i][j]);
    }
    s = (s + 1 == k::STAGES) ? 0 : s + 1;
    ps = (ps + 1 == k::STAGES) ? 0 : ps + 1;
  }
  tessel_cp_async_wait<0>();

#pragma unroll
  for (int i = 0; i < k::MI; ++i)
#pragma unroll
    for (int j = 0; j < k::NI; ++j)
#pragma unroll
      for (int v = 0; v < 4; v += 2) {
        float2 pair;
        pair.x = acc[i][j][v];
        pair.y = acc[i][j][v + 1];
        *reinterpret_cast<float2*>(gC + layout::c_out_crd(t, v, i, j)) = pair;
      }
