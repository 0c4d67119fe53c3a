// The fragments of k step kk of the stage whose ldmatrix byte offsets are soA / soB: one
// ldmatrix.x4 (dev::ldsm, the SM75_U32x4_LDSM_N atom) per m16 fragment of A and per n16 pair of
// B, at the thread's hoisted row address
// thrA[kk] / thrB[kk] plus the fragment's constant offset.
__device__ __forceinline__ void load_frags(b32 (*a)[4], b32 (*b)[4], const b32* thrA, const b32* thrB, b32 soA,
                                           b32 soB, int kk) {
#pragma unroll
  for (int i = 0; i < k::MI; ++i) dev::ldsm(a[i], tessel_smem_addr<b16>(thrA[kk] + soA, layout::ldsm_a_crd(0, i, 0, 0)));
#pragma unroll
  for (int j = 0; j < k::NI / 2; ++j) dev::ldsm(b[j], tessel_smem_addr<b16>(thrB[kk] + soB, layout::ldsm_b_crd(0, j, 0, 0)));
}
