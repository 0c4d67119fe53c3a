  // Rung Naive: one thread per element of C, dot product straight from global memory.
  // layout::blk_m/blk_n: the block's tile origin; layout::thr_m/thr_n: the thread's element in it.
  const long long t = threadIdx.x, blk = blockIdx.x;
  const long long m = layout::blk_m(blk) + layout::thr_m(t), n = layout::blk_n(blk) + layout::thr_n(t);
  if (m < k::M && n < k::N) {
    float acc = 0.f;
    for (long long kk = 0; kk < k::K; ++kk) acc += a[layout::ga_crd(m, kk)] * b[layout::gb_crd(kk, n)];
    c[layout::gc_crd(m, n)] = acc;
  }
