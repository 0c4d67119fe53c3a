// tessel-kernels: tiled copy / transpose through shared memory, described entirely by layouts
// (the function body; tessel_kernels::tiled declares the pieces and the signature
// (const ty::T* src, ty::T* dst)).
//
//   layout::raster(b)                 block b -> tile ty + TY * tx (the order blocks visit tiles)
//   layout::tile_m0(k), tile_n0(k)    tile k -> its first row / column
//   layout::g_src_crd(m, n), g_dst_crd(m, n)  global offsets of matrix element (m, n)
//   layout::g_src_tile(i), g_dst_tile(i)      offset of tile element i = r + TM * c from the origin
//   layout::tile_r(i), tile_c(i)      row / column of tile element i (edge predicates)
//   layout::smem(i)                   shared-memory offset of tile element i
//   layout::tv_ld(t + NT * v), tv_st  (thread, value) -> tile element i
//   layout::reg_w(e + SW * q)         which register is element e of shared-memory write vector q
//   k::M, k::N (matrix), k::TM, k::TN (tile), k::NT (threads), k::LV (values per thread),
//   k::GVL, k::SW, k::SR, k::GVS (vector widths: global load, smem write, smem read, global store)
//   dev::load_tile, dev::store_tile  the global loads through tv_ld and stores through tv_st,
//                                    vectorized for full tiles, predicated at the edges
  __shared__ __align__(16) ty::T tile_smem[k::SMEM_SIZE];
  const long long t = threadIdx.x;
  const long long tile = layout::raster((long long)blockIdx.x);
  const long long m0 = layout::tile_m0(tile);
  const long long n0 = layout::tile_n0(tile);
  const ty::T* __restrict__ src0 = src + layout::g_src_crd(m0, n0);
  ty::T* __restrict__ dst0 = dst + layout::g_dst_crd(m0, n0);
  const bool full = (m0 + k::TM <= k::M) && (n0 + k::TN <= k::N);
  __align__(16) ty::T reg[k::LV];
  dev::load_tile(reg, src0, t, m0, n0, full);
#pragma unroll
  for (int q = 0; q < k::LV / k::SW; ++q) {
    __align__(16) ty::T w[k::SW];
#pragma unroll
    for (int e = 0; e < k::SW; ++e) w[e] = reg[layout::reg_w(e + k::SW * q)];
    const long long idx = layout::tv_ld(t + k::NT * layout::reg_w(k::SW * q));
    tessel_store_shared<ty::T, k::SW>(&tile_smem[layout::smem(idx)], w);
  }
  tessel_sync_block();
#pragma unroll
  for (int q = 0; q < k::LV / k::SR; ++q) {
    const long long idx = layout::tv_st(t + k::NT * (long long)(q * k::SR));
    tessel_load<ty::T, k::SR>(&reg[q * k::SR], &tile_smem[layout::smem(idx)]);
  }
  dev::store_tile(dst0, reg, t, m0, n0, full);
