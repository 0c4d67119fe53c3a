// tessel-kernels: the Hopper instructions of the SM90 GEMM besides wgmma itself (which is
// generated from its MMA atom), as static members of dev::sm90. PTX ISA 8.x: mbarrier
// (init, arrive, arrive.expect_tx, try_wait.parity), fence.mbarrier_init, cp.async.bulk.tensor
// (2-D tile load completing on an mbarrier), prefetch.tensormap, setmaxnreg, wgmma.fence /
// commit_group / wait_group, cvt to fp16 / bf16, and the shared-memory epilogue's TMA store
// (cp.async.bulk.tensor shared::cta -> global, bulk_group commit / wait_group.read,
// fence.proxy.async.shared::cta, named barriers). Shared-memory operands are 32-bit
// shared::cta addresses; a tensor map is the generic address of the __grid_constant__ param.
// `#pragma unroll N` with N a macro (TESSEL_SM90_KUNROLL: the main loop's unroll factor).
#define TESSEL_SM90_PRAGMA(x) _Pragma(#x)
#define TESSEL_SM90_UNROLL(n) TESSEL_SM90_PRAGMA(unroll n)
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
  // `count` arrivals at once (a parked stage released by one thread for its 4 warps).
  static __device__ __forceinline__ void arrive_count(b32 bar, b32 count) {
    asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0], %1;\n" ::"r"(bar), "r"(count)
                 : "memory");
  }
  // Waits until the phase of parity `parity` has completed. With TESSEL_SM90_WAIT_HINT > 0,
  // each try_wait may suspend the thread up to that many nanoseconds (PTX ISA, mbarrier
  // try_wait's suspendTimeHint) instead of the system's default limit.
  static __device__ __forceinline__ void wait(b32 bar, b32 parity) {
    b32 done = 0;
    do {
#if TESSEL_SM90_WAIT_HINT > 0
      asm volatile(
          "{\n"
          ".reg .pred p;\n"
          "mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2, %3;\n"
          "selp.b32 %0, 1, 0, p;\n"
          "}\n"
          : "=r"(done)
          : "r"(bar), "r"(parity), "n"(TESSEL_SM90_WAIT_HINT)
          : "memory");
#else
      asm volatile(
          "{\n"
          ".reg .pred p;\n"
          "mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\n"
          "selp.b32 %0, 1, 0, p;\n"
          "}\n"
          : "=r"(done)
          : "r"(bar), "r"(parity)
          : "memory");
#endif
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
  // Prefetches the box of `map` at coordinates (c0 innermost, c1) into L2 (no shared memory,
  // no barrier; PTX ISA cp.async.bulk.prefetch.tensor).
  static __device__ __forceinline__ void tma_prefetch(const tessel_tensor_map* map, int c0,
                                                      int c1) {
    asm volatile("cp.async.bulk.prefetch.tensor.2d.L2.global.tile [%0, {%1, %2}];\n" ::"l"(
                     (unsigned long long)map),
                 "r"(c0), "r"(c1)
                 : "memory");
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
  // A wgmma descriptor from its two 32-bit words (lo: start address >> 4 and LBO; hi: SBO,
  // base offset and swizzle mode).
  static __device__ __forceinline__ uint64_t desc(b32 lo, b32 hi) {
    uint64_t d;
    asm("mov.b64 %0, {%1, %2};\n" : "=l"(d) : "r"(lo), "r"(hi));
    return d;
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
  // Two values converted to the 16-bit output type and packed (x in the low half, y in the
  // high half: the lower column first, as stmatrix stores a register's halves).
  template <int OUT> static __device__ __forceinline__ b32 pack2(float x, float y) {
    b32 d;
    if constexpr (OUT == 1) {
      asm("cvt.rn.f16x2.f32 %0, %1, %2;\n" : "=r"(d) : "f"(y), "f"(x));
    } else {
      asm("cvt.rn.bf16x2.f32 %0, %1, %2;\n" : "=r"(d) : "f"(y), "f"(x));
    }
    return d;
  }
  // Two fp32 values at shared address `addr` (8-byte aligned).
  static __device__ __forceinline__ void sts2(b32 addr, float x, float y) {
    asm volatile("st.shared.v2.b32 [%0], {%1, %2};\n" ::"r"(addr), "r"(__float_as_uint(x)),
                 "r"(__float_as_uint(y))
                 : "memory");
  }
  // Orders this thread's ordinary shared-memory writes before later async-proxy (TMA) reads.
  static __device__ __forceinline__ void fence_proxy_async() {
    asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
  }
  // Named barrier `id` over `threads` threads (a multiple of 32).
  static __device__ __forceinline__ void bar_sync(int id, int threads) {
    asm volatile("bar.sync %0, %1;\n" ::"r"(id), "r"(threads) : "memory");
  }
  // Arrives on named barrier `id` over `threads` threads without waiting.
  static __device__ __forceinline__ void bar_arrive(int id, int threads) {
    asm volatile("bar.arrive %0, %1;\n" ::"r"(id), "r"(threads) : "memory");
  }
  // The box at shared address `src` to the tensor at coordinates (c0 innermost, c1); TMA drops
  // the elements outside the tensor.
  static __device__ __forceinline__ void tma_store(const tessel_tensor_map* map, b32 src, int c0,
                                                   int c1) {
    asm volatile(
        "cp.async.bulk.tensor.2d.global.shared::cta.bulk_group [%0, {%2, %3}], [%1];\n" ::"l"(
            (unsigned long long)map),
        "r"(src), "r"(c0), "r"(c1)
        : "memory");
  }
  // L2 cache policies (PTX ISA "createpolicy"): every access it is given is evicted first /
  // last from L2.
  static __device__ __forceinline__ uint64_t policy_evict_first() {
    uint64_t p;
    asm volatile("createpolicy.fractional.L2::evict_first.b64 %0, 1.0;\n" : "=l"(p));
    return p;
  }
  static __device__ __forceinline__ uint64_t policy_evict_last() {
    uint64_t p;
    asm volatile("createpolicy.fractional.L2::evict_last.b64 %0, 1.0;\n" : "=l"(p));
    return p;
  }
  // tma_load with an L2 cache policy.
  static __device__ __forceinline__ void tma_load_hint(b32 dst, const tessel_tensor_map* map,
                                                       int c0, int c1, b32 bar, uint64_t policy) {
    asm volatile(
        "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes"
        ".L2::cache_hint [%0], [%1, {%3, %4}], [%2], %5;\n" ::"r"(dst),
        "l"((unsigned long long)map), "r"(bar), "r"(c0), "r"(c1), "l"(policy)
        : "memory");
  }
  // tma_store with an L2 cache policy.
  static __device__ __forceinline__ void tma_store_hint(const tessel_tensor_map* map, b32 src,
                                                        int c0, int c1, uint64_t policy) {
    asm volatile(
        "cp.async.bulk.tensor.2d.global.shared::cta.bulk_group.L2::cache_hint"
        " [%0, {%2, %3}], [%1], %4;\n" ::"l"((unsigned long long)map),
        "r"(src), "r"(c0), "r"(c1), "l"(policy)
        : "memory");
  }
  // Closes this thread's bulk stores issued so far into one group.
  static __device__ __forceinline__ void store_commit() {
    asm volatile("cp.async.bulk.commit_group;\n" ::: "memory");
  }
  // Waits until at most N of this thread's store groups still read shared memory.
  template <int N> static __device__ __forceinline__ void store_wait_read() {
    asm volatile("cp.async.bulk.wait_group.read %0;\n" ::"n"(N) : "memory");
  }
  // Waits until at most N of this thread's store groups are incomplete (writes done).
  template <int N> static __device__ __forceinline__ void store_wait() {
    asm volatile("cp.async.bulk.wait_group %0;\n" ::"n"(N) : "memory");
  }
  // Thread-block clusters (k::CLUSTER > 1). This block's rank in its cluster.
  static __device__ __forceinline__ b32 cluster_rank() {
    b32 r;
    asm volatile("mov.u32 %0, %%cluster_ctarank;\n" : "=r"(r));
    return r;
  }
  // The cluster's index in the grid and the number of clusters (1-D grids).
  static __device__ __forceinline__ b32 cluster_id() {
    b32 r;
    asm volatile("mov.u32 %0, %%clusterid.x;\n" : "=r"(r));
    return r;
  }
  static __device__ __forceinline__ b32 clusters() {
    b32 r;
    asm volatile("mov.u32 %0, %%nclusterid.x;\n" : "=r"(r));
    return r;
  }
  // The trace (TESSEL_SM90_TRACE): the GPU-wide nanosecond timer, this SM's cycle counter and
  // its index (volatile: each read stays where it is written).
  static __device__ __forceinline__ uint64_t globaltimer() {
    uint64_t r;
    asm volatile("mov.u64 %0, %%globaltimer;\n" : "=l"(r));
    return r;
  }
  static __device__ __forceinline__ uint64_t cycles() {
    uint64_t r;
    asm volatile("mov.u64 %0, %%clock64;\n" : "=l"(r));
    return r;
  }
  static __device__ __forceinline__ b32 smid() {
    b32 r;
    asm volatile("mov.u32 %0, %%smid;\n" : "=r"(r));
    return r;
  }
  // Every thread of every block of the cluster arrives, then waits for all (release / acquire:
  // barrier initializations before it are visible to the other blocks after it).
  static __device__ __forceinline__ void cluster_sync() {
    asm volatile("barrier.cluster.arrive.release;\n" ::: "memory");
    asm volatile("barrier.cluster.wait.acquire;\n" ::: "memory");
  }
  // The shared::cluster address of `addr` (a shared::cta address) in block `rank` of the
  // cluster.
  static __device__ __forceinline__ b32 map_rank(b32 addr, b32 rank) {
    b32 r;
    asm volatile("mapa.shared::cluster.u32 %0, %1, %2;\n" : "=r"(r) : "r"(addr), "r"(rank));
    return r;
  }
  // One arrival on the barrier at shared::cluster address `bar` (another block's), with the
  // default semantics (release at CTA scope): the stage's wgmma reads are complete
  // (wgmma.wait_group) before it, and the other block's TMA overwrites the stage only after
  // observing the barrier's phase.
  static __device__ __forceinline__ void arrive_cluster(b32 bar) {
    asm volatile("mbarrier.arrive.shared::cluster.b64 _, [%0];\n" ::"r"(bar) : "memory");
  }
  // tma_load into the same shared offset of every block in `mask`, completing the bytes on the
  // barrier at the same offset in each of them.
  static __device__ __forceinline__ void tma_load_multicast(b32 dst, const tessel_tensor_map* map,
                                                            int c0, int c1, b32 bar, b16 mask) {
    asm volatile(
        "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes"
        ".multicast::cluster [%0], [%1, {%3, %4}], [%2], %5;\n" ::"r"(dst),
        "l"((unsigned long long)map), "r"(bar), "r"(c0), "r"(c1), "h"(mask)
        : "memory");
  }
  // Stream-K (TESSEL_SM90_STREAM_K): tiles given to the stream-K part of a grid of `blocks` blocks,
  // as hopper::Sm90Plan::stream_k_tiles computes them: none when the tiles fill whole waves;
  // else the partial last wave, plus one full wave when that remainder is under half the grid
  // (so that every block's share stays near a tile or more; always adding a wave was slower
  // on an H100: 0.85x cuBLAS at 4096^3 against 0.91x, docs/performance.md); none when their
  // k-iterations (k_tiles each) would leave a block without one.
  static __device__ __forceinline__ long long sk_tiles(long long tiles, long long blocks,
                                                       long long k_tiles) {
    const long long rem = tiles % blocks;
    if (rem == 0) return 0;
    const long long sk = rem + (tiles >= blocks && 2 * rem < blocks ? blocks : 0);
    return sk * k_tiles >= blocks ? sk : 0;
  }
  // Four fp32 values to global memory at p, p + 128, p + 256, p + 384 (floats), cached in L2
  // only (the partials of stream-K: value v of consumer thread t at v * 128 + t, so that a
  // warp's stores are contiguous).
  static __device__ __forceinline__ void st_cg4(float* p, float a, float b, float c, float d) {
    asm volatile(
        "st.global.cg.f32 [%0], %1;\n"
        "st.global.cg.f32 [%0+512], %2;\n"
        "st.global.cg.f32 [%0+1024], %3;\n"
        "st.global.cg.f32 [%0+1536], %4;\n" ::"l"(p),
        "f"(a), "f"(b), "f"(c), "f"(d)
        : "memory");
  }
  // Where `on`, adds the four fp32 values at p, p + 128, p + 256, p + 384 (floats), read
  // through L2 (not L1), to a, b, c, d; else adds zeros (the same instructions on every path:
  // ptxas keeps the wgmmas asynchronous only when the accumulators are modified alike on
  // every path). Four loads in flight per call (the owner's fixup is bound by L2 latency)
  // in four scalar registers (a vector of four leaves ptxas short of registers).
  static __device__ __forceinline__ void ld_cg4_add(bool on, const float* p, float& a, float& b,
                                                    float& c, float& d) {
    asm volatile(
        "{\n"
        ".reg .pred q;\n"
        ".reg .f32 x, y, z, w;\n"
        "setp.ne.b32 q, %5, 0;\n"
        "mov.b32 x, 0;\n"
        "mov.b32 y, 0;\n"
        "mov.b32 z, 0;\n"
        "mov.b32 w, 0;\n"
        "@q ld.global.cg.f32 x, [%4];\n"
        "@q ld.global.cg.f32 y, [%4+512];\n"
        "@q ld.global.cg.f32 z, [%4+1024];\n"
        "@q ld.global.cg.f32 w, [%4+1536];\n"
        "add.f32 %0, %0, x;\n"
        "add.f32 %1, %1, y;\n"
        "add.f32 %2, %2, z;\n"
        "add.f32 %3, %3, w;\n"
        "}\n"
        : "+f"(a), "+f"(b), "+f"(c), "+f"(d)
        : "l"(p), "r"((b32)on)
        : "memory");
  }
  // Sets a stream-K flag to 1 with release semantics at GPU scope: this thread's writes, and
  // those ordered before it by a barrier, are visible to a thread that acquires the 1.
  static __device__ __forceinline__ void flag_set(b32* p) {
    asm volatile("st.release.gpu.global.u32 [%0], %1;\n" ::"l"(p), "r"(1u) : "memory");
  }
  // Spins until the flag reads 1 (acquire at GPU scope), then clears it for the next launch
  // (its only reader in this launch is this thread).
  static __device__ __forceinline__ void flag_wait_clear(b32* p) {
    b32 v = 0;
    do {
      asm volatile("ld.acquire.gpu.global.u32 %0, [%1];\n" : "=r"(v) : "l"(p) : "memory");
    } while (v == 0);
    asm volatile("st.relaxed.gpu.global.u32 [%0], %1;\n" ::"l"(p), "r"(0u) : "memory");
  }
};
