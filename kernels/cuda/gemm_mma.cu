// tessel-kernels: tensor-core GEMM C = A * B^T (A: M x K, B: N x K, both fp16 and K-contiguous;
// C: M x N fp32, row-major), cp.async pipeline + ldmatrix.x4 + mma.sync.m16n8k16.
//
// Every index below comes from a generated function (the layouts are in the comments above each):
//   raster(b)                       block b -> tile index
//   tile_m0(i), tile_n0(i)          tile index -> first row / column of the block's C tile
//   g_a_crd, g_b_crd, g_c_crd       global offsets of a matrix element (tile origins)
//   ld_a_global_crd(t, j, kt)       global offset of thread t's j-th 16-byte chunk of A's K slice kt
//   ld_a_smem_crd(t, j, s)          its swizzled shared offset in stage s (ld_b_*: the same for B)
//                                   (evaluated once per thread at (t, 0, 0); iteration and stage
//                                   parts are added: GemmPlan::validate proves the split)
//   ldsm_a_crd(t, mi, kk, s)        the row address thread t's lane gives ldmatrix.x4 (A, fragment mi)
//   ldsm_b_crd(t, nj, kk, s)        the same for B (n16 pair nj)
//   c_out_crd(t, v, mi, ni)         global offset of accumulator value v of fragment (mi, ni)
// Template parameters are substituted by tessel_kernels::gemm.
{{HEADER}}
{{COMMON}}
#define NT {{NT}}
#define KT {{KT}}
#define STAGES {{STAGES}}
#define LD_A_ITERS {{LD_A_ITERS}}
#define LD_B_ITERS {{LD_B_ITERS}}
#define MI {{MI}}
#define NI {{NI}}
#define KK {{KK}}
{{FUNCS}}
__device__ __forceinline__ void tessel_cp_async16(b32 smem, const b16* gmem) {
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(smem), "l"(gmem) : "memory");
}
__device__ __forceinline__ void tessel_cp_async_commit() { asm volatile("cp.async.commit_group;\n" ::: "memory"); }
template <int N> __device__ __forceinline__ void tessel_cp_async_wait() {
  asm volatile("cp.async.wait_group %0;\n" ::"n"(N) : "memory");
}
__device__ __forceinline__ void tessel_ldsm_x4(b32* r, b32 addr) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];\n"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
               : "r"(addr) : "memory");
}
// Not volatile: a pure function of registers, so the compiler may schedule it freely.
__device__ __forceinline__ void tessel_mma16816(float* c, const b32* a, const b32* b) {
  asm("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, "
      "{%8, %9}, {%0, %1, %2, %3};\n"
      : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
}
// Shared byte address of element offset o from base (16-bit elements).
#define TESSEL_SMEM(base, o) ((base) + (b32)sizeof(b16) * (b32)(o))

// Issues the cp.async copies of K slice kt of both operands into stage s. stA/stB: the thread's
// hoisted shared byte addresses (ld_*_smem_crd(t, 0, 0)), gA/gB its global chunk pointers
// (ld_*_global_crd(t, 0, 0)); iteration and stage offsets are added (GemmPlan::validate proves
// ld_*_smem_crd(t, j, s) = ld_*_smem_crd(t, 0, 0) + ld_*_smem_crd(0, j, 0) + ld_*_smem_crd(0, 0, s)).
__device__ __forceinline__ void tessel_load_stage(b32 stA, b32 stB, const b16* gA, const b16* gB, int s,
                                                  int kt) {
  const b32 sa = TESSEL_SMEM(stA, ld_a_smem_crd(0, 0, s));
  const b32 sb = TESSEL_SMEM(stB, ld_b_smem_crd(0, 0, s));
#pragma unroll
  for (int j = 0; j < LD_A_ITERS; ++j)
    tessel_cp_async16(TESSEL_SMEM(sa, ld_a_smem_crd(0, j, 0)), gA + ld_a_global_crd(0, j, kt));
#pragma unroll
  for (int j = 0; j < LD_B_ITERS; ++j)
    tessel_cp_async16(TESSEL_SMEM(sb, ld_b_smem_crd(0, j, 0)), gB + ld_b_global_crd(0, j, kt));
}

// The fragments of k step kk of the stage whose ldmatrix byte offsets are soA / soB.
__device__ __forceinline__ void tessel_load_frags(b32 (*a)[4], b32 (*b)[4], const b32* thrA, const b32* thrB,
                                                  b32 soA, b32 soB, int kk) {
#pragma unroll
  for (int i = 0; i < MI; ++i) tessel_ldsm_x4(a[i], TESSEL_SMEM(thrA[kk] + soA, ldsm_a_crd(0, i, 0, 0)));
#pragma unroll
  for (int j = 0; j < NI / 2; ++j) tessel_ldsm_x4(b[j], TESSEL_SMEM(thrB[kk] + soB, ldsm_b_crd(0, j, 0, 0)));
}

extern "C" __global__ void __launch_bounds__(NT) {{KERNEL}}(const b16* __restrict__ A,
                                                           const b16* __restrict__ B,
                                                           float* __restrict__ C) {
  // {{SMEM_BYTES}} bytes of dynamic shared memory: A's stages, then B's.
  extern __shared__ __align__(128) b16 tessel_smem[];
  const b32 sA = (b32)__cvta_generic_to_shared(tessel_smem);
  const b32 sB = TESSEL_SMEM(sA, {{SMEM_A}});
  const long long t = threadIdx.x;
  const long long tile = raster((long long)blockIdx.x);
  const long long m0 = tile_m0(tile);
  const long long n0 = tile_n0(tile);
  const b16* __restrict__ gA = A + g_a_crd(m0, 0) + ld_a_global_crd(t, 0, 0);
  const b16* __restrict__ gB = B + g_b_crd(n0, 0) + ld_b_global_crd(t, 0, 0);
  float* __restrict__ gC = C + g_c_crd(m0, n0);
  // Per-thread hoisted shared addresses (GemmPlan::validate proves the split
  // ldsm_*_crd(t, i, kk, s) = ldsm_*_crd(t, 0, kk, 0) + ldsm_*_crd(0, i, 0, 0) + ldsm_*_crd(0, 0, 0, s)).
  const b32 stA = TESSEL_SMEM(sA, ld_a_smem_crd(t, 0, 0));
  const b32 stB = TESSEL_SMEM(sB, ld_b_smem_crd(t, 0, 0));
  b32 thrA[KK], thrB[KK];
#pragma unroll
  for (int kk = 0; kk < KK; ++kk) {
    thrA[kk] = TESSEL_SMEM(sA, ldsm_a_crd(t, 0, kk, 0));
    thrB[kk] = TESSEL_SMEM(sB, ldsm_b_crd(t, 0, kk, 0));
  }

  float acc[MI][NI][4];
#pragma unroll
  for (int i = 0; i < MI; ++i)
#pragma unroll
    for (int j = 0; j < NI; ++j)
#pragma unroll
      for (int v = 0; v < 4; ++v) acc[i][j][v] = 0.0f;

#pragma unroll
  for (int s = 0; s < STAGES - 1; ++s) {
    if (s < KT) tessel_load_stage(stA, stB, gA, gB, s, s);
    tessel_cp_async_commit();
  }
  int s = 0;               // stage read in this iteration (kt % STAGES)
  int ps = STAGES - 1;     // stage written by this iteration's prefetch ((kt + STAGES - 1) % STAGES)
#pragma unroll 1
  for (int kt = 0; kt < KT; ++kt) {
    tessel_cp_async_wait<STAGES - 2>();
    __syncthreads();
    const int pf = kt + STAGES - 1;
    if (pf < KT) tessel_load_stage(stA, stB, gA, gB, ps, pf);
    tessel_cp_async_commit();
    const b32 soA = (b32)sizeof(b16) * (b32)ldsm_a_crd(0, 0, 0, s);
    const b32 soB = (b32)sizeof(b16) * (b32)ldsm_b_crd(0, 0, 0, s);
#pragma unroll
    for (int kk = 0; kk < KK; ++kk) {
      b32 a[MI][4];
      b32 b[NI / 2][4];
      tessel_load_frags(a, b, thrA, thrB, soA, soB, kk);
#pragma unroll
      for (int i = 0; i < MI; ++i)
#pragma unroll
        for (int j = 0; j < NI; ++j) tessel_mma16816(acc[i][j], a[i], &b[j / 2][2 * (j % 2)]);
    }
    s = (s + 1 == STAGES) ? 0 : s + 1;
    ps = (ps + 1 == STAGES) ? 0 : ps + 1;
  }
  tessel_cp_async_wait<0>();

#pragma unroll
  for (int i = 0; i < MI; ++i)
#pragma unroll
    for (int j = 0; j < NI; ++j)
#pragma unroll
      for (int v = 0; v < 4; v += 2) {
        float2 pair;
        pair.x = acc[i][j][v];
        pair.y = acc[i][j][v + 1];
        *reinterpret_cast<float2*>(gC + c_out_crd(t, v, i, j)) = pair;
      }
}
