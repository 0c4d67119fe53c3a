// Stores thread t's k::LV values from reg to the destination tile whose origin is (m0, n0) (dst0:
// its first element), value v to tile element layout::tv_st(t + NT * v): whole k::GVS-element
// vectors when the tile lies inside the matrix (full), else one element at a time where the edge
// predicate holds.
__device__ __forceinline__ void store_tile(ty::T* __restrict__ dst0, const ty::T* reg, long long t, long long m0,
                                           long long n0, bool full) {
  if (full) {
#pragma unroll
    for (int q = 0; q < k::LV / k::GVS; ++q) {
      const long long idx = layout::tv_st(t + k::NT * (long long)(q * k::GVS));
      tessel_store_global<ty::T, k::GVS>(dst0 + layout::g_dst_tile(idx), &reg[q * k::GVS]);
    }
  } else {
#pragma unroll
    for (int v = 0; v < k::LV; ++v) {
      const long long idx = layout::tv_st(t + k::NT * (long long)v);
      if (m0 + layout::tile_r(idx) < k::M && n0 + layout::tile_c(idx) < k::N) dst0[layout::g_dst_tile(idx)] = reg[v];
    }
  }
}
