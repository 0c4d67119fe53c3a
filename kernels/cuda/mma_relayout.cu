// tessel-kernels: problem 4 of the tensor-core swizzle problems: problem 3 (mma_modes.cu) with one
// swizzle per mode. A[p] and B[p] are loaded into shared memory through the first mode's layout
// (tile_s1), C1 is computed and stored to global memory (fp32), the block re-lays both tiles out
// in place into the second mode's layout (16-byte chunks read through tile_s1, a barrier, written
// through tile_s2), and C2 is computed from that. C2 is stored through the second layout too:
// after a barrier (every warp's mode-2 ldmatrix of sA is done) each warp writes its accumulators
// into sA as fp16 pairs (c2_s: its C fragment in mode 2's view of the tile), and after another
// the block copies sA out in 16-byte chunks (tile_s2 -> tile_g), the way the inputs came in.
// The declarations (tessel_kernels::mma::modes::ModesPlan::kernel) are those of mma_modes.cu with
// tile_s1 / tile_s2 for tile_s, and copy::store_h, tensor::acc_h / view_h / c2_s for C2.
  __shared__ __align__(128) b16 sA[k::TILE];
  __shared__ __align__(128) b16 sB[k::TILE];
  const int t = threadIdx.x, lane = t % 32, warp = t / 32;
  const long long p = blockIdx.x;
  // A's and B's chunks into shared memory, first layout.
  auto ra = tensor::regs();
  auto rb = tensor::regs();
  tessel::copy(copy::chunk{}, tensor::tile_g(A + p * k::TILE)(t, _, _, _, _), ra.tensor());
  tessel::copy(copy::chunk{}, tensor::tile_g(B + p * k::TILE)(t, _, _, _, _), rb.tensor());
  tessel::copy(copy::chunk{}, ra.tensor(), tensor::tile_s1(sA)(t, _, _, _, _));
  tessel::copy(copy::chunk{}, rb.tensor(), tensor::tile_s1(sB)(t, _, _, _, _));
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
  // Mode 1: warp j's column blocks; C1 to the warp's tile in global memory.
  auto c1 = product(tensor::a1(sA)(lane, _, _, _, _, 0, warp), tensor::b1(sB)(lane, _, _, _, _, 0, warp));
  tessel::copy(copy::store_c{}, tensor::view_c(c1), tensor::c_g(C1 + p * k::TILE)(lane, _, _, _, _, warp));
  // The re-layout: every thread takes its chunks out of the first layout, waits for the whole
  // block (all mode-1 reads and re-layout reads are done), and puts them into the second.
  tessel::copy(copy::chunk{}, tensor::tile_s1(sA)(t, _, _, _, _), ra.tensor());
  tessel::copy(copy::chunk{}, tensor::tile_s1(sB)(t, _, _, _, _), rb.tensor());
  tessel_sync_block();
  tessel::copy(copy::chunk{}, ra.tensor(), tensor::tile_s2(sA)(t, _, _, _, _));
  tessel::copy(copy::chunk{}, rb.tensor(), tensor::tile_s2(sB)(t, _, _, _, _));
  tessel_sync_block();
  // Mode 2: warp i's rows; C2 in fp16 into sA once every warp has read it, then out in chunks.
  auto c2 = product(tensor::a2(sA)(lane, _, _, _, _, warp), tensor::b2(sB)(lane, _, _, _, _, warp));
  auto c2_h = tensor::acc_h();
  tessel::convert<1>(c2.tensor(), c2_h.tensor());
  tessel_sync_block();
  tessel::copy(copy::store_h{}, tensor::view_h(c2_h), tensor::c2_s(sA)(lane, _, _, _, _, warp));
  tessel_sync_block();
  tessel::copy(copy::chunk{}, tensor::tile_s2(sA)(t, _, _, _, _), ra.tensor());
  tessel::copy(copy::chunk{}, ra.tensor(), tensor::tile_g(C2 + p * k::TILE)(t, _, _, _, _));
