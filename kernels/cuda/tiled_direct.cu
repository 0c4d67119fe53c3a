// tessel-kernels: tiled copy / transpose without shared memory (the naive transposes): each
// thread loads its values of the tile into registers and stores them straight to the
// destination. The same pieces as tiled_copy.cu, less the shared tile, the store partition and
// the register permutation (one partition layout::tv_ld for both sides).
  const long long t = threadIdx.x;
  const long long tile = layout::raster((long long)blockIdx.x);
  const long long m0 = layout::tile_m0(tile);
  const long long n0 = layout::tile_n0(tile);
  const ty::T* __restrict__ src0 = src + layout::g_src_crd(m0, n0);
  ty::T* __restrict__ dst0 = dst + layout::g_dst_crd(m0, n0);
  const bool full = (m0 + k::TM <= k::M) && (n0 + k::TN <= k::N);
  __align__(16) ty::T reg[k::LV];
  if (full) {
#pragma unroll
    for (int q = 0; q < k::LV / k::GVL; ++q) {
      const long long idx = layout::tv_ld(t + k::NT * (long long)(q * k::GVL));
      tessel_load<ty::T, k::GVL>(&reg[q * k::GVL], src0 + layout::g_src_tile(idx));
    }
  } else {
#pragma unroll
    for (int v = 0; v < k::LV; ++v) {
      const long long idx = layout::tv_ld(t + k::NT * (long long)v);
      const bool in = m0 + layout::tile_r(idx) < k::M && n0 + layout::tile_c(idx) < k::N;
      reg[v] = in ? src0[layout::g_src_tile(idx)] : (ty::T)0;
    }
  }
  if (full) {
#pragma unroll
    for (int q = 0; q < k::LV / k::GVS; ++q) {
      const long long idx = layout::tv_ld(t + k::NT * (long long)(q * k::GVS));
      tessel_store_global<ty::T, k::GVS>(dst0 + layout::g_dst_tile(idx), &reg[q * k::GVS]);
    }
  } else {
#pragma unroll
    for (int v = 0; v < k::LV; ++v) {
      const long long idx = layout::tv_ld(t + k::NT * (long long)v);
      if (m0 + layout::tile_r(idx) < k::M && n0 + layout::tile_c(idx) < k::N) dst0[layout::g_dst_tile(idx)] = reg[v];
    }
  }
