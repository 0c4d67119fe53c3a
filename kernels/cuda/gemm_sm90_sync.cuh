// tessel-kernels: the Hopper instructions of the SM90 GEMM besides wgmma itself (which is
// generated from its MMA atom), as static members of dev::sm90. PTX ISA 8.x: mbarrier
// (init, arrive, arrive.expect_tx, try_wait.parity), fence.mbarrier_init, cp.async.bulk.tensor
// (2-D tile load completing on an mbarrier), prefetch.tensormap, setmaxnreg, wgmma.fence /
// commit_group / wait_group, cvt to fp16 / bf16. Shared-memory operands are 32-bit
// shared::cta addresses; a tensor map is the generic address of the __grid_constant__ param.
struct sm90 {
  // An mbarrier expecting `count` arrivals per phase.
  static __device__ __forceinline__ void mbar_init(b32 bar, b32 count) {
    asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;\n" ::"r"(bar), "r"(count) : "memory");
  }
  // Makes the initialized barriers visible to the async proxy (TMA) and the other threads.
  static __device__ __forceinline__ void fence_barrier_init() {
    asm volatile("fence.mbarrier_init.release.cluster;\n" ::: "memory");
  }
  // One arrival that also announces `bytes` of transactions (the TMA loads of one stage).
  static __device__ __forceinline__ void arrive_expect_tx(b32 bar, b32 bytes) {
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;\n" ::"r"(bar), "r"(bytes)
                 : "memory");
  }
  // One arrival.
  static __device__ __forceinline__ void arrive(b32 bar) {
    asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];\n" ::"r"(bar) : "memory");
  }
  // Waits until the phase of parity `parity` has completed.
  static __device__ __forceinline__ void wait(b32 bar, b32 parity) {
    b32 done = 0;
    do {
      asm volatile(
          "{\n"
          ".reg .pred p;\n"
          "mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\n"
          "selp.b32 %0, 1, 0, p;\n"
          "}\n"
          : "=r"(done)
          : "r"(bar), "r"(parity)
          : "memory");
    } while (done == 0);
  }
  // The box of `map` at coordinates (c0 innermost, c1) into shared memory at `dst`, completing
  // `bytes` transactions on `bar`. Out-of-bounds elements are filled with zeros.
  static __device__ __forceinline__ void tma_load(b32 dst, const tessel_tensor_map* map, int c0,
                                                  int c1, b32 bar) {
    asm volatile(
        "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes"
        " [%0], [%1, {%3, %4}], [%2];\n" ::"r"(dst),
        "l"((unsigned long long)map), "r"(bar), "r"(c0), "r"(c1)
        : "memory");
  }
  static __device__ __forceinline__ void prefetch_map(const tessel_tensor_map* map) {
    asm volatile("prefetch.tensormap [%0];\n" ::"l"((unsigned long long)map) : "memory");
  }
  // Warpgroup register budgets (the kernel's __launch_bounds__(384, 1) caps them at entry).
  template <int N> static __device__ __forceinline__ void regs_dec() {
    asm volatile("setmaxnreg.dec.sync.aligned.u32 %0;\n" ::"n"(N));
  }
  template <int N> static __device__ __forceinline__ void regs_inc() {
    asm volatile("setmaxnreg.inc.sync.aligned.u32 %0;\n" ::"n"(N));
  }
  // wgmma ordering: fence before the first wgmma touching registers written otherwise, commit
  // the wgmmas issued so far as a group, wait until at most N groups are pending.
  static __device__ __forceinline__ void mma_fence() {
    asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory");
  }
  static __device__ __forceinline__ void mma_commit() {
    asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory");
  }
  template <int N> static __device__ __forceinline__ void mma_wait() {
    asm volatile("wgmma.wait_group.sync.aligned %0;\n" ::"n"(N) : "memory");
  }
  // Keeps the compiler from moving accumulator accesses across the asynchronous wgmmas.
  template <int N> static __device__ __forceinline__ void pin(float* r) {
#pragma unroll
    for (int i = 0; i < N; ++i) asm volatile("" : "+f"(r[i])::"memory");
  }
  // One output element (OUT: 0 fp32, 1 fp16, 2 bf16, round to nearest even).
  template <int OUT> static __device__ __forceinline__ b32 bits(float x) {
    if constexpr (OUT == 0) {
      return __float_as_uint(x);
    } else if constexpr (OUT == 1) {
      b16 h;
      asm("cvt.rn.f16.f32 %0, %1;\n" : "=h"(h) : "f"(x));
      return (b32)h;
    } else {
      b16 h;
      asm("cvt.rn.bf16.f32 %0, %1;\n" : "=h"(h) : "f"(x));
      return (b32)h;
    }
  }
  // Stores x at p[0] and, when `two`, y at p[1]; one vector store when `vec` (p[0] aligned to
  // two elements).
  template <int OUT, typename T>
  static __device__ __forceinline__ void store2(T* p, float x, float y, bool vec, bool two) {
    if constexpr (OUT == 0) {
      if (vec) {
        asm volatile("st.global.v2.b32 [%0], {%1, %2};\n" ::"l"(p), "r"(bits<0>(x)), "r"(bits<0>(y))
                     : "memory");
      } else {
        asm volatile("st.global.b32 [%0], %1;\n" ::"l"(p), "r"(bits<0>(x)) : "memory");
        if (two) asm volatile("st.global.b32 [%0], %1;\n" ::"l"(p + 1), "r"(bits<0>(y)) : "memory");
      }
    } else {
      const b32 lo = bits<OUT>(x), hi = bits<OUT>(y);
      if (vec) {
        asm volatile("st.global.b32 [%0], %1;\n" ::"l"(p), "r"(lo | (hi << 16)) : "memory");
      } else {
        asm volatile("st.global.b16 [%0], %1;\n" ::"l"(p), "h"((b16)lo) : "memory");
        if (two) asm volatile("st.global.b16 [%0], %1;\n" ::"l"(p + 1), "h"((b16)hi) : "memory");
      }
    }
  }
};
