  // Rungs smem-block .. warp-tiled: a BM x BN tile of C per block, marched along K one BK-wide
  // tile at a time through one shared stage.
  const int tid = threadIdx.x;
  const int bm = layout::tile_m(blockIdx.x), bn = layout::tile_n(blockIdx.x);
  __shared__ __align__(16) float smem_a[tensor::sA_layout::cosize];
  __shared__ __align__(16) float smem_b[tensor::sB_layout::cosize];
  // The tiles by 32-bit shared-window address: a generic pointer would keep every stage's and
  // slice's address in 64-bit registers (48 bytes of spills under the tuned rung's bound).
  const b32 sa_a = (b32)__cvta_generic_to_shared(smem_a), sa_b = (b32)__cvta_generic_to_shared(smem_b);
  // Global -> registers: this thread's share of every k-tile of A and B, and the coordinates
  // of its loads (compared with M, N and K).
  auto tAgA = tensor::tAgA(a)(tid, _, _, _, _, bm, _);  // (CPY, CPY_M, CPY_K, k)
  auto tApA_m = tensor::tApA_m()(tid, _, _, _, _, bm, _);
  auto tApA_k = tensor::tApA_k()(tid, _, _, _, _, bm, _);
  auto tBgB = tensor::tBgB(b)(tid, _, _, _, _, bn, _);  // (CPY, CPY_N, CPY_K, k)
  auto tBpB_n = tensor::tBpB_n()(tid, _, _, _, _, bn, _);
  auto tBpB_k = tensor::tBpB_k()(tid, _, _, _, _, bn, _);
  auto tArA = tensor::tArA();
  auto tBrB = tensor::tBrB();
  // Registers -> a shared stage, and a shared stage -> the fragments of the tiled FMA.
  auto tAsA = tensor::tAsA(sa_a)(tid, _, _, _, _, _);  // (CPY, CPY_M, CPY_K, stage)
  auto tBsB = tensor::tBsB(sa_b)(tid, _, _, _, _, _);
  auto tCsA = tensor::tCsA(sa_a)(tid, _, _, _, _, _);  // (CPY, CPY_M, K, stage)
  auto tCsB = tensor::tCsB(sa_b)(tid, _, _, _, _, _);
  auto tCrC = tensor::tCrC();  // the accumulators
  tCrC.fill(0.f);

  // k-tile k of A and B into registers (zeros outside the matrices).
  auto load = [&](int k) {
    tArA.fill(0.f);
    tBrB.fill(0.f);
    tessel::copy_if(copy::ld_a{}, tessel::elem_less(tApA_m(_, _, _, _, k), k::M, tApA_k(_, _, _, _, k), k::K),
                    tAgA(_, _, _, _, k), tArA.tensor());
    tessel::copy_if(copy::ld_b{}, tessel::elem_less(tBpB_n(_, _, _, _, k), k::N, tBpB_k(_, _, _, _, k), k::K),
                    tBgB(_, _, _, _, k), tBrB.tensor());
  };
  // The registers into shared stage s.
  auto store = [&](int s) {
    tessel::copy(copy::st_a{}, tensor::tArA_st(tArA), tAsA(_, _, _, _, s));
    tessel::copy(copy::st_b{}, tensor::tBrB_st(tBrB), tBsB(_, _, _, _, s));
  };
  // The outer products of stage s, one k-slice at a time: its fragments (B's first), then the
  // FMAs, n outer and m snaking (tessel::GemmOrder::n_m_snake). In this order ptxas overlaps
  // most of the next slice's shared reads with this slice's FMAs (decisions.md, SIMT SGEMM
  // ladder: the vectorized and warp-tiled rungs 4% and 10% faster than m outer, A first).
  auto compute = [&](int s) {
    tessel::static_for<0, (int)decltype(tCsA)::extent<3>()>([&](auto kk) {
      auto tCrA = tensor::tCrA();
      auto tCrB = tensor::tCrB();
      tessel::copy(copy::frag_b{}, tCsB(_, _, _, kk, s), tensor::tCrB_cp(tCrB));
      tessel::copy(copy::frag_a{}, tCsA(_, _, _, kk, s), tensor::tCrA_cp(tCrA));
      tessel::gemm<tessel::GemmOrder::n_m_snake>(mma::fma{}, tCrA.tensor(), tCrB.tensor(), tCrC.tensor());
    });
  };
  const int k_tiles = decltype(tAgA)::extent<4>();
  for (int k = 0; k < k_tiles; ++k) {
    load(k);
    store(0);
    __syncthreads();
    compute(0);
    __syncthreads();  // every thread is done with the stage before the next tile overwrites it
  }
  // The accumulators to C, inside C.
  tessel::copy_if(copy::st_c{},
                  tessel::elem_less(tensor::tCpC_m()(tid, _, _, _, _, bm, bn), k::M,
                                    tensor::tCpC_n()(tid, _, _, _, _, bm, bn), k::N),
                  tensor::tCrC_st(tCrC), tensor::tCgC(c)(tid, _, _, _, _, bm, bn));
