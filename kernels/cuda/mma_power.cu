// tessel-kernels: problem 1 of the tensor-core swizzle problems: P[p] = A[p]^n for a 16x16 fp16
// A[p] (row-major), one warp per problem. A is read once into registers (ldmatrix.x4, the mma's A
// fragment); each step reads the current product P from shared memory as the B operand
// (ldmatrix.x4.trans: B(n, k) = P[k][n]), computes A * P on the tensor cores (fp32 accumulate)
// and writes it back to shared memory as fp16 through the same swizzled layout.
// The declarations (tessel_kernels::mma::power::PowerPlan::kernel):
//   copy::chunk, tensor::tile_g / tile_s / regs    16-byte chunks of a tile: global, shared, registers
//   copy::ldsm_a, tensor::a_s                      ldmatrix.x4 of A
//   copy::ldsm_b, tensor::p_s                      ldmatrix.x4.trans of P as the B operand
//   mma::mma, tensor::frag_a / frag_b / acc        the 16x16x16 product (two mma.sync)
//   copy::store_h, tensor::acc_h / view_h / c_s    the fp16 accumulators as pairs into P
  __shared__ __align__(128) b16 sA[k::TILE];
  __shared__ __align__(128) b16 sP[k::TILE];
  const int t = threadIdx.x;
  const long long p = blockIdx.x;
  // A's chunks into both tiles: P = A^1.
  auto regs = tensor::regs();
  tessel::copy(copy::chunk{}, tensor::tile_g(A + p * k::TILE)(t, _, _, _, _), regs.tensor());
  tessel::copy(copy::chunk{}, regs.tensor(), tensor::tile_s(sA)(t, _, _, _, _));
  tessel::copy(copy::chunk{}, regs.tensor(), tensor::tile_s(sP)(t, _, _, _, _));
  tessel_sync_warp();
  // A's fragment, once.
  auto a = tensor::frag_a();
  tessel::copy(copy::ldsm_a{}, tensor::a_s(sA)(t, _, _, _, _), tensor::view_a(a));
#pragma unroll 1
  for (int step = 1; step < n; ++step) {
    // acc = A P, P the B operand.
    auto b = tensor::frag_b();
    tessel::copy(copy::ldsm_b{}, tensor::p_s(sP)(t, _, _, _, _), tensor::view_b(b));
    auto acc = tensor::acc();
    acc.fill(0.0f);
    tessel::gemm(mma::mma{}, a.tensor(), b.tensor(), acc.tensor());
    // P = acc in fp16, once every lane has read P.
    auto acc_h = tensor::acc_h();
    tessel::convert<1>(acc.tensor(), acc_h.tensor());
    tessel_sync_warp();
    tessel::copy(copy::store_h{}, tensor::view_h(acc_h), tensor::c_s(sP)(t, _, _, _, _));
    tessel_sync_warp();
  }
  // P's chunks out to global memory.
  tessel::copy(copy::chunk{}, tensor::tile_s(sP)(t, _, _, _, _), regs.tensor());
  tessel::copy(copy::chunk{}, regs.tensor(), tensor::tile_g(P + p * k::TILE)(t, _, _, _, _));
