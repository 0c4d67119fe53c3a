// tessel-kernels: tiled copy / transpose without shared memory (the naive transposes): each
// thread loads its values of the tile into registers and stores them straight to the
// destination. The same pieces as tiled_copy.cu, less the shared tile and the register
// permutation; the store partition layout::tv_st is the load partition layout::tv_ld.
  const long long t = threadIdx.x;
  const long long tile = layout::raster((long long)blockIdx.x);
  const long long m0 = layout::tile_m0(tile);
  const long long n0 = layout::tile_n0(tile);
  const ty::T* __restrict__ src0 = src + layout::g_src_crd(m0, n0);
  ty::T* __restrict__ dst0 = dst + layout::g_dst_crd(m0, n0);
  const bool full = (m0 + k::TM <= k::M) && (n0 + k::TN <= k::N);
  __align__(16) ty::T reg[k::LV];
  dev::load_tile(reg, src0, t, m0, n0, full);
  dev::store_tile(dst0, reg, t, m0, n0, full);
