// dev::mma_tile: acc[j] = a * (n-block j of b) for j < k::NB, one 16 x 8 NB x 16 product from
// ldmatrix.x4 fragments (n-block j of B is registers k::B_REGS * j ..; the plans check the
// fragment order). The accumulators start from zero.
__device__ __forceinline__ void mma_tile(float (&acc)[k::NB][4], const b32* a, const b32* b) {
#pragma unroll
  for (int j = 0; j < k::NB; ++j) {
    const float zero[4] = {0.0f, 0.0f, 0.0f, 0.0f};
    dev::mma(acc[j], a, &b[k::B_REGS * j], zero);
  }
}
