  // Rung naive: one thread per element of C, its dot product straight from global memory.
  const int tid = threadIdx.x;
  const int bm = layout::tile_m(blockIdx.x), bn = layout::tile_n(blockIdx.x);
  // This thread's row of A and column of B along every k (the tiled FMA's partitions), and its
  // element of C with its coordinates (compared with M and N: inside C).
  auto tCgA = tensor::tCgA(a)(tid, _, _, _, bm, _);  // (FMA, M, K, k)
  auto tCgB = tensor::tCgB(b)(tid, _, _, _, bn, _);  // (FMA, N, K, k)
  auto inside = tessel::elem_less(tensor::tCpC_m()(tid, _, _, _, _, bm, bn), k::M,
                                  tensor::tCpC_n()(tid, _, _, _, _, bm, bn), k::N);
  auto tCrC = tensor::tCrC();
  tCrC.fill(0.f);
  if (inside(0)) {
    for (int k = 0; k < (int)decltype(tCgA)::extent<3>(); ++k)
      tessel::gemm(mma::fma{}, tCgA(_, _, _, k), tCgB(_, _, _, k), tCrC.tensor());
    tessel::copy(copy::st_c{}, tensor::tCrC_st(tCrC), tensor::tCgC(c)(tid, _, _, _, _, bm, bn));
  }
