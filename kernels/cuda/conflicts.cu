// tessel-kernels: a bank-conflict microkernel (the function body; tessel_kernels::micro declares
// the pieces and the signature (b32* out, int reps)). One warp fills a 32x32 b32 tile row by row
// (layout::tile_crd / layout::tile: the tile layout by coordinate / by tile index r + 32 c),
// then repeats one shared-memory read pattern: lane `lane` at step `it` reads the vector of k::VW
// elements starting at tile index layout::access(lane + 32 * (it % k::STEPS)) (r + 32 * c).
// With k::STORE the pattern is first stored (vectors of (1 << 20) + lane * k::VW + e), then read.
// Small and single-purpose so that Nsight Compute can count its wavefronts.
  __shared__ __align__(16) b32 smem[k::SMEM_SIZE];
  const long long lane = threadIdx.x;
  for (int r = 0; r < 32; ++r) smem[layout::tile_crd(r, lane)] = (b32)(r * 32 + lane + 1);
  tessel_sync_warp();
  if (k::STORE) {
    // A store pattern: the same vectors are first written (distinct words), then read back.
    for (int it = 0; it < reps; ++it) {
      const long long idx = layout::access(lane + 32LL * (it % k::STEPS));
      __align__(16) b32 w[k::VW];
#pragma unroll
      for (int e = 0; e < k::VW; ++e) w[e] = (b32)((1 << 20) + lane * k::VW + e);
      tessel_store_shared<b32, k::VW>(&smem[layout::tile(idx)], w);
    }
    tessel_sync_warp();
  }
  b32 acc = 0;
  for (int it = 0; it < reps; ++it) {
    const long long idx = layout::access(lane + 32LL * (it % k::STEPS));
    __align__(16) b32 v[k::VW];
    tessel_load<b32, k::VW>(v, &smem[layout::tile(idx)]);
#pragma unroll
    for (int e = 0; e < k::VW; ++e) acc += v[e];
  }
  out[lane] = acc;
