// tessel_sm90.cuh: the Hopper components of tessel's tensor layer (sm_90a kernels include it
// after tessel_tensor.cuh): the TMA + mbarrier pipeline, warpgroup register reallocation, the
// wgmma ordering fences, and the TMA loads and stores a warp-specialized kernel is made of.
// PTX ISA 8.x: mbarrier (init, arrive, arrive.expect_tx, try_wait.parity),
// fence.mbarrier_init, cp.async.bulk.tensor (tile loads completing on an mbarrier, stores in
// bulk groups), prefetch.tensormap, setmaxnreg, wgmma.fence / commit_group / wait_group,
// fence.proxy.async, named barriers. Shared-memory operands are 32-bit shared::cta addresses.
namespace tessel {
namespace sm90 {

// ---- mbarriers
__device__ __forceinline__ void mbar_init(b32 bar, b32 count) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;\n" ::"r"(bar), "r"(count) : "memory");
}
// Makes initialized barriers visible to the async proxy (TMA) and to the other threads.
__device__ __forceinline__ void fence_barrier_init() {
  asm volatile("fence.mbarrier_init.release.cluster;\n" ::: "memory");
}
__device__ __forceinline__ void arrive(b32 bar) {
  asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];\n" ::"r"(bar) : "memory");
}
// One arrival that also announces `bytes` of transactions (the TMA loads of one stage).
__device__ __forceinline__ void arrive_expect_tx(b32 bar, b32 bytes) {
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;\n" ::"r"(bar), "r"(bytes) : "memory");
}
// Whether the phase of parity `parity` has completed (one poll; the hardware may suspend the
// thread a while before answering false).
__device__ __forceinline__ bool try_wait(b32 bar, b32 parity) {
  b32 done;
  asm volatile(
      "{\n"
      ".reg .pred p;\n"
      "mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\n"
      "selp.b32 %0, 1, 0, p;\n"
      "}\n"
      : "=r"(done)
      : "r"(bar), "r"(parity)
      : "memory");
  return done != 0;
}
// Waits until the phase of parity `parity` has completed.
__device__ __forceinline__ void wait(b32 bar, b32 parity) {
  while (!try_wait(bar, parity)) {
  }
}
// The same, polled by every lane of a warp, which leaves the loop as one (converged, as the
// .aligned wgmma instructions after it need, without a __syncwarp): a lane that saw the phase
// complete polls again until all have (the phase stays complete while the caller holds it).
__device__ __forceinline__ void wait_warp(b32 bar, b32 parity) {
  while (!__all_sync(0xffffffffu, try_wait(bar, parity))) {
  }
}

// ---- the pipeline: STAGES slots, each with a `full` barrier (one producer arrival plus the
// stage's TMA bytes) and an `empty` barrier (one arrival per consumer warp). A State walks the
// ring: slot index and the parity of its current phase.
struct PipelineState {
  int index = 0;
  b32 phase = 0;
  template <int STAGES> __device__ __forceinline__ void advance() {
    if (++index == STAGES) {
      index = 0;
      phase ^= 1u;
    }
  }
};
template <int STAGES> struct Pipeline {
  b32 bars;  // full[s] at bars + 8 s, empty[s] at bars + 8 (STAGES + s)
  __device__ __forceinline__ b32 full(int s) const { return bars + 8u * (b32)s; }
  __device__ __forceinline__ b32 empty(int s) const { return bars + 8u * (b32)(STAGES + s); }
  // One thread, before the block's first barrier sync.
  __device__ __forceinline__ void init(b32 consumer_arrivals) const {
#pragma unroll
    for (int s = 0; s < STAGES; ++s) {
      mbar_init(full(s), 1);
      mbar_init(empty(s), consumer_arrivals);
    }
    fence_barrier_init();
  }
  // Producer: waits for the slot to be free (a fresh barrier counts as having completed the
  // phase before its first, so the first pass does not wait), announces `bytes` of loads on
  // its full barrier, and returns that barrier for the loads to complete on.
  __device__ __forceinline__ b32 producer_acquire(const PipelineState& st, b32 bytes) const {
    wait(empty(st.index), st.phase ^ 1u);
    arrive_expect_tx(full(st.index), bytes);
    return full(st.index);
  }
  // Consumer: waits for the slot's loads.
  __device__ __forceinline__ void consumer_wait(const PipelineState& st) const { wait(full(st.index), st.phase); }
  // Consumer: the same by every lane of the warp at once (wait_warp: converged afterwards).
  __device__ __forceinline__ void consumer_wait_warp(const PipelineState& st) const { wait_warp(full(st.index), st.phase); }
  // Consumer: one arrival (per consumer warp: lane 0) frees the slot.
  __device__ __forceinline__ void consumer_release(int s) const { arrive(empty(s)); }
};

// ---- warpgroup register budgets (the kernel's __launch_bounds__(threads, 1) caps them at entry)
template <int N> __device__ __forceinline__ void regs_dec() { asm volatile("setmaxnreg.dec.sync.aligned.u32 %0;\n" ::"n"(N)); }
template <int N> __device__ __forceinline__ void regs_inc() { asm volatile("setmaxnreg.inc.sync.aligned.u32 %0;\n" ::"n"(N)); }

// ---- wgmma ordering: fence before the first wgmma touching registers written otherwise, commit
// the wgmmas issued so far as a group, wait until at most N groups are pending; fence_operand
// keeps the compiler from moving an accumulator's accesses across the asynchronous wgmmas.
__device__ __forceinline__ void warpgroup_fence() { asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory"); }
__device__ __forceinline__ void warpgroup_commit() { asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory"); }
template <int N> __device__ __forceinline__ void warpgroup_wait() {
  asm volatile("wgmma.wait_group.sync.aligned %0;\n" ::"n"(N) : "memory");
}
__device__ __forceinline__ void fence_register(float& x) { asm volatile("" : "+f"(x)::"memory"); }
__device__ __forceinline__ void fence_register(b32& x) { asm volatile("" : "+r"(x)::"memory"); }
__device__ __forceinline__ void fence_register(b16& x) { asm volatile("" : "+h"(x)::"memory"); }
template <class F> __device__ __forceinline__ void fence_operand(F& frag) {
#pragma unroll
  for (int i = 0; i < (int)sizeof(frag.r) / (int)sizeof(frag.r[0]); ++i) fence_register(frag.r[i]);
}

// ---- TMA: 2-D boxes of a tensor map (c0 the innermost coordinate)
__device__ __forceinline__ void prefetch_map(const tessel_tensor_map* map) {
  asm volatile("prefetch.tensormap [%0];\n" ::"l"((unsigned long long)map) : "memory");
}
// The box at (c0, c1) into shared memory at `dst`, completing its bytes on `bar`; elements
// outside the tensor are zeros.
__device__ __forceinline__ void tma_load(const tessel_tensor_map* map, b32 dst, int c0, int c1, b32 bar) {
  asm volatile(
      "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes"
      " [%0], [%1, {%3, %4}], [%2];\n" ::"r"(dst),
      "l"((unsigned long long)map), "r"(bar), "r"(c0), "r"(c1)
      : "memory");
}
// The same for 3- and 4-dimensional tensor maps (c0 innermost; the box is 1 beyond the first two
// dimensions: one head, one sequence of an attention operand).
__device__ __forceinline__ void tma_load(const tessel_tensor_map* map, b32 dst, int c0, int c1, int c2, b32 bar) {
  asm volatile(
      "cp.async.bulk.tensor.3d.shared::cluster.global.mbarrier::complete_tx::bytes"
      " [%0], [%1, {%3, %4, %5}], [%2];\n" ::"r"(dst),
      "l"((unsigned long long)map), "r"(bar), "r"(c0), "r"(c1), "r"(c2)
      : "memory");
}
__device__ __forceinline__ void tma_load(const tessel_tensor_map* map, b32 dst, int c0, int c1, int c2, int c3, b32 bar) {
  asm volatile(
      "cp.async.bulk.tensor.4d.shared::cluster.global.mbarrier::complete_tx::bytes"
      " [%0], [%1, {%3, %4, %5, %6}], [%2];\n" ::"r"(dst),
      "l"((unsigned long long)map), "r"(bar), "r"(c0), "r"(c1), "r"(c2), "r"(c3)
      : "memory");
}
// The box at shared address `src` to (c0, c1); TMA drops the elements outside the tensor.
__device__ __forceinline__ void tma_store(const tessel_tensor_map* map, b32 src, int c0, int c1) {
  asm volatile("cp.async.bulk.tensor.2d.global.shared::cta.bulk_group [%0, {%2, %3}], [%1];\n" ::"l"(
                   (unsigned long long)map),
               "r"(src), "r"(c0), "r"(c1)
               : "memory");
}
__device__ __forceinline__ void tma_store(const tessel_tensor_map* map, b32 src, int c0, int c1, int c2) {
  asm volatile("cp.async.bulk.tensor.3d.global.shared::cta.bulk_group [%0, {%2, %3, %4}], [%1];\n" ::"l"(
                   (unsigned long long)map),
               "r"(src), "r"(c0), "r"(c1), "r"(c2)
               : "memory");
}
__device__ __forceinline__ void tma_store(const tessel_tensor_map* map, b32 src, int c0, int c1, int c2, int c3) {
  asm volatile("cp.async.bulk.tensor.4d.global.shared::cta.bulk_group [%0, {%2, %3, %4, %5}], [%1];\n" ::"l"(
                   (unsigned long long)map),
               "r"(src), "r"(c0), "r"(c1), "r"(c2), "r"(c3)
               : "memory");
}
// Closes this thread's bulk stores issued so far into one group.
__device__ __forceinline__ void store_commit() { asm volatile("cp.async.bulk.commit_group;\n" ::: "memory"); }
// Waits until at most N of this thread's store groups still read shared memory / are incomplete.
template <int N> __device__ __forceinline__ void store_wait_read() {
  asm volatile("cp.async.bulk.wait_group.read %0;\n" ::"n"(N) : "memory");
}
template <int N> __device__ __forceinline__ void store_wait() {
  asm volatile("cp.async.bulk.wait_group %0;\n" ::"n"(N) : "memory");
}
// Orders this thread's ordinary shared-memory writes before later async-proxy (TMA) reads.
__device__ __forceinline__ void fence_proxy_async() { asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory"); }
// Named barrier `id` over `threads` threads (a multiple of 32).
__device__ __forceinline__ void bar_sync(int id, int threads) {
  asm volatile("bar.sync %0, %1;\n" ::"r"(id), "r"(threads) : "memory");
}
// Named barrier `id` over `threads` threads that also tells every one of them whether any passed
// `pred` true (PTX ISA "bar.red": .or reduction of a predicate).
__device__ __forceinline__ bool bar_any(int id, int threads, bool pred) {
  b32 any;
  asm volatile(
      "{\n .reg .pred p, q;\n setp.ne.u32 p, %1, 0;\n bar.red.or.pred q, %2, %3, p;\n selp.u32 %0, 1, 0, q;\n}\n"
      : "=r"(any)
      : "r"((b32)pred), "r"(id), "r"(threads)
      : "memory");
  return any != 0;
}

// ---- output conversions (OUT: 0 fp32, 1 fp16, 2 bf16; round to nearest even): pack2 and convert
// are tessel::'s (tessel_tensor.cuh).
template <int OUT> __device__ __forceinline__ b32 bits(float x) {
  if constexpr (OUT == 0) {
    return __float_as_uint(x);
  } else {
    return pack2<OUT>(x, 0.0f) & 0xFFFFu;
  }
}
// Two values converted to the output type into dst[0], dst[1] (fp32: as they are).
template <int OUT, class T> __device__ __forceinline__ void convert2(T* dst, float x, float y) {
  if constexpr (OUT == 0) {
    dst[0] = x;
    dst[1] = y;
  } else {
    *reinterpret_cast<b32*>(dst) = pack2<OUT>(x, y);
  }
}
// 2^x by the special function unit (PTX ISA ex2.approx.ftz.f32; subnormal results flush to 0).
__device__ __forceinline__ float exp2_approx(float x) {
  float y;
  asm("ex2.approx.ftz.f32 %0, %1;\n" : "=f"(y) : "f"(x));
  return y;
}

// Two fp32 values at shared address `addr` (8-byte aligned).
__device__ __forceinline__ void sts2(b32 addr, float x, float y) {
  asm volatile("st.shared.v2.b32 [%0], {%1, %2};\n" ::"r"(addr), "r"(__float_as_uint(x)), "r"(__float_as_uint(y)) : "memory");
}
// x at p[0] and, when `two`, y at p[step]; one vector store when `vec` (step 1, p aligned to two
// elements).
template <int OUT, typename T> __device__ __forceinline__ void store2(T* p, long long step, float x, float y, bool vec, bool two) {
  if constexpr (OUT == 0) {
    if (vec) {
      asm volatile("st.global.v2.b32 [%0], {%1, %2};\n" ::"l"(p), "r"(bits<0>(x)), "r"(bits<0>(y)) : "memory");
    } else {
      asm volatile("st.global.b32 [%0], %1;\n" ::"l"(p), "r"(bits<0>(x)) : "memory");
      if (two) asm volatile("st.global.b32 [%0], %1;\n" ::"l"(p + step), "r"(bits<0>(y)) : "memory");
    }
  } else {
    const b32 both = pack2<OUT>(x, y);
    if (vec) {
      asm volatile("st.global.b32 [%0], %1;\n" ::"l"(p), "r"(both) : "memory");
    } else {
      asm volatile("st.global.b16 [%0], %1;\n" ::"l"(p), "h"((b16)(both & 0xFFFFu)) : "memory");
      if (two) asm volatile("st.global.b16 [%0], %1;\n" ::"l"(p + step), "h"((b16)(both >> 16)) : "memory");
    }
  }
}

// The value of 16-bit output bits as fp32.
template <int OUT> __device__ __forceinline__ float unbits(b16 h) {
  if constexpr (OUT == 1) {
    float x;
    asm("cvt.f32.f16 %0, %1;\n" : "=f"(x) : "h"(h));
    return x;
  } else {
    return __uint_as_float((b32)h << 16);
  }
}
// x = p[0] and, when `two`, y = p[step] (else y is left as it is), as fp32; one vector load when
// `vec` (step 1, p aligned to two elements).
template <int OUT, typename T> __device__ __forceinline__ void load2(const T* p, long long step, float& x, float& y, bool vec, bool two) {
  if constexpr (OUT == 0) {
    b32 a, b;
    if (vec) {
      asm volatile("ld.global.v2.b32 {%0, %1}, [%2];\n" : "=r"(a), "=r"(b) : "l"(p) : "memory");
      x = __uint_as_float(a);
      y = __uint_as_float(b);
    } else {
      asm volatile("ld.global.b32 %0, [%1];\n" : "=r"(a) : "l"(p) : "memory");
      x = __uint_as_float(a);
      if (two) {
        asm volatile("ld.global.b32 %0, [%1];\n" : "=r"(b) : "l"(p + step) : "memory");
        y = __uint_as_float(b);
      }
    }
  } else {
    if (vec) {
      b32 both;
      asm volatile("ld.global.b32 %0, [%1];\n" : "=r"(both) : "l"(p) : "memory");
      x = unbits<OUT>((b16)(both & 0xFFFFu));
      y = unbits<OUT>((b16)(both >> 16));
    } else {
      b16 a, b;
      asm volatile("ld.global.b16 %0, [%1];\n" : "=h"(a) : "l"(p) : "memory");
      x = unbits<OUT>(a);
      if (two) {
        asm volatile("ld.global.b16 %0, [%1];\n" : "=h"(b) : "l"(p + step) : "memory");
        y = unbits<OUT>(b);
      }
    }
  }
}

}  // namespace sm90
}  // namespace tessel
