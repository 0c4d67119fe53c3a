// tessel-kernels: problem 4 of the tensor-core swizzle problems: problem 3 (mma_modes.cu) with one
// swizzle per mode. A[p] and B[p] are loaded into shared memory through the first mode's layout
// (layout::fill_s1), C1 is computed and stored to global memory (fp32, layout::c_out_crd), the
// block re-lays both tiles out in place into the second mode's layout (16-byte chunks read through
// fill_s1, a barrier, written through fill_s2), and C2 is computed from that. C2 is stored through
// the second layout too: after a barrier (every warp's mode-2 ldmatrix of sA is done) each warp
// writes its accumulators into sA as fp16 pairs (layout::c2_smem_crd, the C fragment in mode 2's
// view of the tile), and after another the block copies sA out in 16-byte chunks (fill_s2 ->
// fill_g), the way the inputs came in. The pieces are those of mma_modes.cu plus
// layout::fill_s1 / fill_s2, layout::c2_smem_crd(lane, v, warp) and dev::pack_half2.
  __shared__ __align__(128) b16 sA[k::TILE];
  __shared__ __align__(128) b16 sB[k::TILE];
  const int t = threadIdx.x;
  const long long lane = t % 32, warp = t / 32;
  const long long p = blockIdx.x;
  b16 ra[8], rb[8];
  tessel_load<b16, 8>(ra, A + p * k::TILE + layout::fill_g(t));
  tessel_load<b16, 8>(rb, B + p * k::TILE + layout::fill_g(t));
  tessel_store_shared<b16, 8>(sA + layout::fill_s1(t), ra);
  tessel_store_shared<b16, 8>(sB + layout::fill_s1(t), rb);
  tessel_sync_block();
  const b32 baseA = (b32)__cvta_generic_to_shared(sA);
  const b32 baseB = (b32)__cvta_generic_to_shared(sB);
#pragma unroll
  for (int mode = 0; mode < 2; ++mode) {
    if (mode == 1) {
      // The re-layout: every thread takes its chunk out of the first layout, waits for the whole
      // block (all mode-1 reads and re-layout reads are done), and puts it into the second.
      tessel_load<b16, 8>(ra, sA + layout::fill_s1(t));
      tessel_load<b16, 8>(rb, sB + layout::fill_s1(t));
      tessel_sync_block();
      tessel_store_shared<b16, 8>(sA + layout::fill_s2(t), ra);
      tessel_store_shared<b16, 8>(sB + layout::fill_s2(t), rb);
      tessel_sync_block();
    }
    b32 a[4], b[4];
    dev::ldsm(a, tessel_smem_addr<b16>(baseA, mode == 0 ? layout::ldsm_a1(t) : layout::ldsm_a2(t)));
    dev::ldsm(b, tessel_smem_addr<b16>(baseB, mode == 0 ? layout::ldsm_b1(t) : layout::ldsm_b2(t)));
    float acc[k::NB][4];
    dev::mma_tile(acc, a, b);
    if (mode == 0) {
      dev::store_pairs(C1 + p * k::TILE, acc,
                       [&](int v) { return layout::c_out_crd(lane, v, warp); });
    } else {
      tessel_sync_block();  // every warp has read sA before C2 overwrites it
#pragma unroll
      for (int j = 0; j < k::NB; ++j)
#pragma unroll
        for (int v = 0; v < 4; v += 2)
          *reinterpret_cast<b32*>(sA + layout::c2_smem_crd(lane, v + 4 * j, warp)) =
              dev::pack_half2(acc[j][v], acc[j][v + 1]);
      tessel_sync_block();
      tessel_load<b16, 8>(ra, sA + layout::fill_s2(t));
      tessel_store_global<b16, 8>(C2 + p * k::TILE + layout::fill_g(t), ra);
    }
  }
