// tessel-kernels: problem 2 of the tensor-core swizzle problems: C[p] = A * B for the two 16x16
// fp16 blocks of M[p] = [A B] (one 16x32 row-major tile), one warp per problem. A's fragment comes
// from ldmatrix.x4 on the left half; B's from ldmatrix.x4.trans on the right half (the mma's B
// operand is B(n, k) = M[k][16 + n], rows of M are k). C is 16x16 fp32, row-major.
// The declarations (tessel_kernels::mma::pair::PairPlan::kernel):
//   copy::chunk, tensor::tile_g / tile_s / regs  16-byte chunks of M: global, shared, registers
//   copy::ldsm_a, tensor::a_s                    ldmatrix.x4 of the halves of M as A (m, k, h)
//   copy::ldsm_b, tensor::b_s                    ldmatrix.x4.trans of the halves as B (n, k, h)
//   mma::mma, tensor::frag_a / frag_b / acc      the 16x16x16 product (two mma.sync)
//   copy::store_c, tensor::view_c / c_g          the accumulators as fp32 pairs into C
  __shared__ __align__(128) b16 sM[k::TILE];
  const int t = threadIdx.x;
  const long long p = blockIdx.x;
  // M's chunks into shared memory.
  auto regs = tensor::regs();
  tessel::copy(copy::chunk{}, tensor::tile_g(M + p * k::TILE)(t, _, _, _, _), regs.tensor());
  tessel::copy(copy::chunk{}, regs.tensor(), tensor::tile_s(sM)(t, _, _, _, _));
  tessel_sync_warp();
  // A from half 0, B from half 1, acc = A B.
  auto a = tensor::frag_a();
  auto b = tensor::frag_b();
  tessel::copy(copy::ldsm_a{}, tensor::a_s(sM)(t, _, _, _, _, 0, 0), tensor::view_a(a));
  tessel::copy(copy::ldsm_b{}, tensor::b_s(sM)(t, _, _, _, _, 1, 0), tensor::view_b(b));
  auto acc = tensor::acc();
  acc.fill(0.0f);
  tessel::gemm(mma::mma{}, a.tensor(), b.tensor(), acc.tensor());
  tessel::copy(copy::store_c{}, tensor::view_c(acc), tensor::c_g(C + p * k::OUT)(t, _, _, _, _));
