// tessel-kernels: problem 3 of the tensor-core swizzle problems. Block p (512 threads, 16 warps)
// holds A[p] and B[p] (16x256 fp16, row-major) in shared memory once and reads them in two modes:
//   C1[p][j] = Asub_j * Bsub_j^T  (Asub_j: the 16x16 column block j; warp j)
//   C2[p][i] = Asub_i * Bsub_i^T  (Asub_i: row i viewed as a 16x16 block; warp i)
// The declarations (tessel_kernels::mma::modes::ModesPlan::kernel):
//   copy::chunk, tensor::tile_g / tile_s / regs  16-byte chunks of a tile: global, shared, registers
//   copy::ldsm_a / ldsm_b, tensor::a1 / b1       ldmatrix.x4 of the column blocks (mode 1)
//   tensor::a2 / b2                              ldmatrix.x4 of the rows as 16x16 blocks (mode 2)
//   mma::mma, tensor::frag_a / frag_b / acc      the 16x16x16 product (two mma.sync)
//   copy::store_c, tensor::view_c / c_g          a warp's accumulators as fp32 pairs into its tile
  __shared__ __align__(128) b16 sA[k::TILE];
  __shared__ __align__(128) b16 sB[k::TILE];
  const int t = threadIdx.x, lane = t % 32, warp = t / 32;
  const long long p = blockIdx.x;
  // A's and B's chunks into shared memory.
  auto ra = tensor::regs();
  auto rb = tensor::regs();
  tessel::copy(copy::chunk{}, tensor::tile_g(A + p * k::TILE)(t, _, _, _, _), ra.tensor());
  tessel::copy(copy::chunk{}, tensor::tile_g(B + p * k::TILE)(t, _, _, _, _), rb.tensor());
  tessel::copy(copy::chunk{}, ra.tensor(), tensor::tile_s(sA)(t, _, _, _, _));
  tessel::copy(copy::chunk{}, rb.tensor(), tensor::tile_s(sB)(t, _, _, _, _));
  tessel_sync_block();
  // The warp's product of its slices of A and B (ldmatrix.x4 each), from zero.
  auto product = [&](const auto& tAsA, const auto& tBsB) {
    auto a = tensor::frag_a();
    auto b = tensor::frag_b();
    tessel::copy(copy::ldsm_a{}, tAsA, tensor::view_a(a));
    tessel::copy(copy::ldsm_b{}, tBsB, tensor::view_b(b));
    auto acc = tensor::acc();
    acc.fill(0.0f);
    tessel::gemm(mma::mma{}, a.tensor(), b.tensor(), acc.tensor());
    return acc;
  };
  // Mode 1: warp j's column blocks; mode 2: warp i's rows. Each result to the warp's C tile.
  auto c1 = product(tensor::a1(sA)(lane, _, _, _, _, 0, warp), tensor::b1(sB)(lane, _, _, _, _, 0, warp));
  tessel::copy(copy::store_c{}, tensor::view_c(c1), tensor::c_g(C1 + p * k::TILE)(lane, _, _, _, _, warp));
  auto c2 = product(tensor::a2(sA)(lane, _, _, _, _, warp), tensor::b2(sB)(lane, _, _, _, _, warp));
  tessel::copy(copy::store_c{}, tensor::view_c(c2), tensor::c_g(C2 + p * k::TILE)(lane, _, _, _, _, warp));
