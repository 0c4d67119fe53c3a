// Loads thread t's k::LV values of the tile whose origin is (m0, n0) (src0: its first element)
// into reg, value v from tile element layout::tv_ld(t + NT * v): whole k::GVL-element vectors
// when the tile lies inside the matrix (full), else one element at a time with the edge
// predicate (0 outside the matrix).
__device__ __forceinline__ void load_tile(ty::T* reg, const ty::T* __restrict__ src0, long long t, long long m0,
                                          long long n0, bool full) {
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
}
