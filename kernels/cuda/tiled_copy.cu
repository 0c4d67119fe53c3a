// tessel-kernels: tiled copy through shared memory, described entirely by layouts.
//
// Every index below comes from a generated function (see {{KERNEL}}'s header comment):
//   raster(b)                         block b -> tile ty + TY * tx (the order blocks visit tiles)
//   tile_m0(k), tile_n0(k)            tile k -> its first row / column
//   g_src_crd(m, n), g_dst_crd(m, n)  global offsets of matrix element (m, n) (tile origins)
//   g_src_tile(i), g_dst_tile(i)      offset of tile element i = r + TM * c from the tile origin
//   tile_r(i), tile_c(i)              row / column of tile element i (edge predicates)
//   smem(i)                           shared-memory offset of tile element i
//   tv_ld(t + NT * v), tv_st(...)     (thread, value) -> tile element i
//   reg_w(e + SW * q)                 which register is element e of shared-memory write vector q
// Template parameters are substituted by tessel_kernels::tiled.
{{HEADER}}
{{COMMON}}
typedef {{T}} T;
#define M {{M}}LL
#define N {{N}}LL
#define TM {{TM}}LL
#define TN {{TN}}LL
#define NT {{NT}}
#define LV {{LV}}
#define GVL {{GVL}}
#define SW {{SW}}
#define SR {{SR}}
#define GVS {{GVS}}
#define USE_SMEM {{USE_SMEM}}
{{FUNCS}}
extern "C" __global__ void __launch_bounds__({{LAUNCH_BOUNDS}}) {{KERNEL}}(const T* __restrict__ src, T* __restrict__ dst) {
#if USE_SMEM
  __shared__ __align__(16) T tile_smem[{{SMEM_SIZE}}];
#endif
  const long long t = threadIdx.x;
  const long long tile = raster((long long)blockIdx.x);
  const long long m0 = tile_m0(tile);
  const long long n0 = tile_n0(tile);
  const T* __restrict__ src0 = src + g_src_crd(m0, n0);
  T* __restrict__ dst0 = dst + g_dst_crd(m0, n0);
  const bool full = (m0 + TM <= M) && (n0 + TN <= N);
  __align__(16) T reg[LV];
  if (full) {
#pragma unroll
    for (int q = 0; q < LV / GVL; ++q) {
      const long long idx = tv_ld(t + NT * (long long)(q * GVL));
      tessel_load<T, GVL>(&reg[q * GVL], src0 + g_src_tile(idx));
    }
  } else {
#pragma unroll
    for (int v = 0; v < LV; ++v) {
      const long long idx = tv_ld(t + NT * (long long)v);
      const bool in = m0 + tile_r(idx) < M && n0 + tile_c(idx) < N;
      reg[v] = in ? src0[g_src_tile(idx)] : (T)0;
    }
  }
#if USE_SMEM
#pragma unroll
  for (int q = 0; q < LV / SW; ++q) {
    __align__(16) T w[SW];
#pragma unroll
    for (int e = 0; e < SW; ++e) w[e] = reg[reg_w(e + SW * q)];
    const long long idx = tv_ld(t + NT * reg_w(SW * q));
    tessel_store_shared<T, SW>(&tile_smem[smem(idx)], w);
  }
  __syncthreads();
#pragma unroll
  for (int q = 0; q < LV / SR; ++q) {
    const long long idx = tv_st(t + NT * (long long)(q * SR));
    tessel_load<T, SR>(&reg[q * SR], &tile_smem[smem(idx)]);
  }
#define TV_OUT tv_st
#else
#define TV_OUT tv_ld
#endif
  if (full) {
#pragma unroll
    for (int q = 0; q < LV / GVS; ++q) {
      const long long idx = TV_OUT(t + NT * (long long)(q * GVS));
      tessel_store_global<T, GVS>(dst0 + g_dst_tile(idx), &reg[q * GVS]);
    }
  } else {
#pragma unroll
    for (int v = 0; v < LV; ++v) {
      const long long idx = TV_OUT(t + NT * (long long)v);
      if (m0 + tile_r(idx) < M && n0 + tile_c(idx) < N) dst0[g_dst_tile(idx)] = reg[v];
    }
  }
}
