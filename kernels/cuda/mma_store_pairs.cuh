// dev::store_pairs: the accumulators to global memory as fp32 pairs; values v and v + 1 of
// n-block j are adjacent columns (the plans check it) and go to out + at(v + 4 j).
template <class At>
__device__ __forceinline__ void store_pairs(float* __restrict__ out, const float (&acc)[k::NB][4],
                                            At at) {
#pragma unroll
  for (int j = 0; j < k::NB; ++j)
#pragma unroll
    for (int v = 0; v < 4; v += 2) {
      float2 pair;
      pair.x = acc[j][v];
      pair.y = acc[j][v + 1];
      *reinterpret_cast<float2*>(out + at(v + 4 * j)) = pair;
    }
}
