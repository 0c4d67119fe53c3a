// Issues the cp.async copies (dev::cp, the SM80_CP_ASYNC_CACHEGLOBAL<uint128_t> atom) of K slice kt of both operands into stage s. stA/stB: the thread's
// hoisted shared byte addresses (layout::ld_*_smem_crd(t, 0, 0)), gA/gB its global chunk pointers
// (layout::ld_*_global_crd(t, 0, 0)); iteration and stage offsets are added (GemmPlan::validate
// proves ld_*_smem_crd(t, j, s) = ld_*_smem_crd(t, 0, 0) + ld_*_smem_crd(0, j, 0) + ld_*_smem_crd(0, 0, s)).
__device__ __forceinline__ void load_stage(b32 stA, b32 stB, const b16* gA, const b16* gB, int s, int kt) {
  const b32 sa = tessel_smem_addr<b16>(stA, layout::ld_a_smem_crd(0, 0, s));
  const b32 sb = tessel_smem_addr<b16>(stB, layout::ld_b_smem_crd(0, 0, s));
#pragma unroll
  for (int j = 0; j < k::LD_A_ITERS; ++j)
    dev::cp(tessel_smem_addr<b16>(sa, layout::ld_a_smem_crd(0, j, 0)), gA + layout::ld_a_global_crd(0, j, kt));
#pragma unroll
  for (int j = 0; j < k::LD_B_ITERS; ++j)
    dev::cp(tessel_smem_addr<b16>(sb, layout::ld_b_smem_crd(0, j, 0)), gB + layout::ld_b_global_crd(0, j, kt));
}
