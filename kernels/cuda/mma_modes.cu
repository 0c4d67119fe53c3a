// tessel-kernels: problem 3 of the tensor-core swizzle problems. Block p (512 threads, 16 warps)
// holds A[p] and B[p] (16x256 fp16, row-major) in shared memory once and reads them in two modes:
//   C1[p][j] = Asub_j * Bsub_j^T  (Asub_j: the 16x16 column block j; warp j)
//   C2[p][i] = Asub_i * Bsub_i^T  (Asub_i: row i viewed as a 16x16 block; warp i)
// The pieces (tessel_kernels::mma::modes::ModesPlan):
//   layout::fill_g(t), fill_s(t)       thread t's 16-byte chunk in global memory / shared memory
//   layout::ldsm_a1(t) ... ldsm_b2(t)  the row address thread t gives ldmatrix.x4 in mode 1 / 2
//   layout::c_out_crd(lane, v, warp)   where accumulator value v of the warp's 16x16 tile goes
//   dev::ldsm, dev::mma                ldmatrix.x4 and mma.sync.m16n8k16 (f32 accumulate)
//   dev::mma_tile, dev::store_pairs    the 16x16x16 product of two fragments; its fp32 stores
  __shared__ __align__(128) b16 sA[k::TILE];
  __shared__ __align__(128) b16 sB[k::TILE];
  const int t = threadIdx.x;
  const long long lane = t % 32, warp = t / 32;
  const long long p = blockIdx.x;
  b16 ra[8], rb[8];
  tessel_load<b16, 8>(ra, A + p * k::TILE + layout::fill_g(t));
  tessel_load<b16, 8>(rb, B + p * k::TILE + layout::fill_g(t));
  tessel_store_shared<b16, 8>(sA + layout::fill_s(t), ra);
  tessel_store_shared<b16, 8>(sB + layout::fill_s(t), rb);
  tessel_sync_block();
  const b32 baseA = (b32)__cvta_generic_to_shared(sA);
  const b32 baseB = (b32)__cvta_generic_to_shared(sB);
#pragma unroll
  for (int mode = 0; mode < 2; ++mode) {
    b32 a[4], b[4];
    dev::ldsm(a, tessel_smem_addr<b16>(baseA, mode == 0 ? layout::ldsm_a1(t) : layout::ldsm_a2(t)));
    dev::ldsm(b, tessel_smem_addr<b16>(baseB, mode == 0 ? layout::ldsm_b1(t) : layout::ldsm_b2(t)));
    float acc[k::NB][4];
    dev::mma_tile(acc, a, b);
    dev::store_pairs((mode == 0 ? C1 : C2) + p * k::TILE, acc,
                     [&](int v) { return layout::c_out_crd(lane, v, warp); });
  }
