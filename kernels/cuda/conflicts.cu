// tessel-kernels: a bank-conflict microkernel. One warp fills a 32x32 b32 tile row by row
// (tile_crd / tile: the generated tile layout by coordinate / by tile index r + 32 c), then
// repeats one shared-memory read pattern:
// lane `lane` at step `it` reads the vector of VW elements starting at tile index
// access(lane + 32 * (it % STEPS)) (r + 32 * c). Small and single-purpose so that Nsight Compute
// can count its wavefronts.
{{HEADER}}
{{COMMON}}
#define VW {{VW}}
#define STEPS {{STEPS}}
{{FUNCS}}
extern "C" __global__ void __launch_bounds__(32) {{KERNEL}}(b32* __restrict__ out, int reps) {
  __shared__ __align__(16) b32 smem[{{SMEM_SIZE}}];
  const long long lane = threadIdx.x;
  for (int r = 0; r < 32; ++r) smem[tile_crd(r, lane)] = (b32)(r * 32 + lane + 1);
  __syncwarp();
  b32 acc = 0;
  for (int it = 0; it < reps; ++it) {
    const long long idx = access(lane + 32LL * (it % STEPS));
    __align__(16) b32 v[VW];
    tessel_load<b32, VW>(v, &smem[tile(idx)]);
#pragma unroll
    for (int e = 0; e < VW; ++e) acc += v[e];
  }
  out[lane] = acc;
}
