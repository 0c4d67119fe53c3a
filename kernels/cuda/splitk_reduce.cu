// tessel-kernels: the split-K reduction of the library GEMM on sm_90, D = alpha sum_s W_s + beta C.
// W holds args.splits slabs of fp32 partial sums, each the product of one range of k-tiles
// (args.slab elements apart), element (r, c) of D's m x n view at r w_rs + c w_cs (row-major,
// or its transpose for a swapped call); C and D are the GEMM's own, in D's row-major view (D^T
// for a column-major D; row strides ldc and ldd). One thread per pair of adjacent columns,
// grid-stride; a pair is one vector where its address allows (the *_pair flags).
  const int half = (args.n + 1) / 2;
  const long long pairs = (long long)args.m * half;
  for (long long p = blockIdx.x * (long long)blockDim.x + threadIdx.x; p < pairs; p += (long long)gridDim.x * blockDim.x) {
    const int r = (int)(p / half), col = 2 * (int)(p % half);
    const bool two = col + 1 < args.n;
    const float* w = args.w + (long long)r * args.w_rs + (long long)col * args.w_cs;
    float x = 0.0f, y = 0.0f;
    for (int s = 0; s < args.splits; ++s) {
      float a = 0.0f, b = 0.0f;
      if (args.w_cs == 1) {
        tessel::sm90::load2<0>(w + s * args.slab, 1, a, b, args.w_pair != 0 && two, two);
      } else {
        a = w[s * args.slab];
        if (two) b = w[s * args.slab + args.w_cs];
      }
      x += a;
      y += b;
    }
    float c0 = 0.0f, c1 = 0.0f;
    if constexpr (k::SOURCE) {
      tessel::sm90::load2<k::OUT>(args.c + (long long)r * args.ldc + col, 1, c0, c1, args.c_pair != 0 && two, two);
    }
    tessel::sm90::store2<k::OUT>(args.d + (long long)r * args.ldd + col, 1, args.alpha * x + args.beta * c0, args.alpha * y + args.beta * c1,
                                 args.d_pair != 0 && two, two);
  }
