// tessel.cuh: the device primitives every tessel kernel body is written with (no headers needed
// by NVRTC). The assembler (tessel_kernels::kernel) places it after the TESSEL_FN prelude and
// before the generated declarations (namespaces ty, k, layout, dev).
typedef unsigned int b32;
typedef unsigned short b16;
// NVRTC has no <cstdint>: the 64-bit register type of generated atom functions ("l" operands).
typedef unsigned long long uint64_t;

template <int BYTES> struct TesselVec;
template <> struct TesselVec<16> { typedef uint4 type; };
template <> struct TesselVec<8> { typedef uint2 type; };
template <> struct TesselVec<4> { typedef b32 type; };
template <> struct TesselVec<2> { typedef b16 type; };

// 32-bit word k of a register array, and its inverse.
__device__ __forceinline__ b32 tessel_word(const b32* r, int k) { return r[k]; }
__device__ __forceinline__ b32 tessel_word(const b16* r, int k) {
  return (b32)r[2 * k] | ((b32)r[2 * k + 1] << 16);
}
__device__ __forceinline__ void tessel_set_word(b32* r, int k, b32 w) { r[k] = w; }
__device__ __forceinline__ void tessel_set_word(b16* r, int k, b32 w) {
  r[2 * k] = (b16)(w & 0xFFFFu);
  r[2 * k + 1] = (b16)(w >> 16);
}
__device__ __forceinline__ b32 tessel_word(const float* r, int k) { return __float_as_uint(r[k]); }
__device__ __forceinline__ void tessel_set_word(float* r, int k, b32 w) { r[k] = __uint_as_float(w); }
// Packing registers into one vector value (built by value so the access stays one instruction).
template <typename T> __device__ __forceinline__ void tessel_pack(uint4& v, const T* r) {
  v.x = tessel_word(r, 0); v.y = tessel_word(r, 1); v.z = tessel_word(r, 2); v.w = tessel_word(r, 3);
}
template <typename T> __device__ __forceinline__ void tessel_pack(uint2& v, const T* r) {
  v.x = tessel_word(r, 0); v.y = tessel_word(r, 1);
}
template <typename T> __device__ __forceinline__ void tessel_pack(b32& v, const T* r) { v = tessel_word(r, 0); }
__device__ __forceinline__ void tessel_pack(b16& v, const b16* r) { v = r[0]; }
template <typename T> __device__ __forceinline__ void tessel_unpack(T* r, const uint4& v) {
  tessel_set_word(r, 0, v.x); tessel_set_word(r, 1, v.y); tessel_set_word(r, 2, v.z); tessel_set_word(r, 3, v.w);
}
template <typename T> __device__ __forceinline__ void tessel_unpack(T* r, const uint2& v) {
  tessel_set_word(r, 0, v.x); tessel_set_word(r, 1, v.y);
}
template <typename T> __device__ __forceinline__ void tessel_unpack(T* r, const b32& v) { tessel_set_word(r, 0, v); }
__device__ __forceinline__ void tessel_unpack(b16* r, const b16& v) { r[0] = v; }

// Loads W consecutive elements at p into registers r[0..W) with one access of W*sizeof(T) bytes.
template <typename T, int W>
__device__ __forceinline__ void tessel_load(T* r, const T* p) {
  typedef typename TesselVec<W * sizeof(T)>::type V;
  const V v = *reinterpret_cast<const V*>(p);
  tessel_unpack(r, v);
}
// Stores registers r[0..W) to W consecutive elements at p with one st instruction (inline PTX:
// a plain C++ vector store of a register-built value is split into scalar stores by the
// optimizer). SPACE is "global" or "shared"; shared addresses are converted to the shared window.
template <int BYTES> struct TesselSt;
template <> struct TesselSt<16> {
  template <typename T> static __device__ __forceinline__ void global(T* p, const T* r) {
    asm volatile("st.global.v4.b32 [%0], {%1, %2, %3, %4};" ::"l"(p), "r"(tessel_word(r, 0)),
                 "r"(tessel_word(r, 1)), "r"(tessel_word(r, 2)), "r"(tessel_word(r, 3)) : "memory");
  }
  template <typename T> static __device__ __forceinline__ void shared(T* p, const T* r) {
    asm volatile("st.shared.v4.b32 [%0], {%1, %2, %3, %4};" ::"r"((b32)__cvta_generic_to_shared(p)),
                 "r"(tessel_word(r, 0)), "r"(tessel_word(r, 1)), "r"(tessel_word(r, 2)),
                 "r"(tessel_word(r, 3)) : "memory");
  }
};
template <> struct TesselSt<8> {
  template <typename T> static __device__ __forceinline__ void global(T* p, const T* r) {
    asm volatile("st.global.v2.b32 [%0], {%1, %2};" ::"l"(p), "r"(tessel_word(r, 0)),
                 "r"(tessel_word(r, 1)) : "memory");
  }
  template <typename T> static __device__ __forceinline__ void shared(T* p, const T* r) {
    asm volatile("st.shared.v2.b32 [%0], {%1, %2};" ::"r"((b32)__cvta_generic_to_shared(p)),
                 "r"(tessel_word(r, 0)), "r"(tessel_word(r, 1)) : "memory");
  }
};
template <> struct TesselSt<4> {
  template <typename T> static __device__ __forceinline__ void global(T* p, const T* r) {
    asm volatile("st.global.b32 [%0], %1;" ::"l"(p), "r"(tessel_word(r, 0)) : "memory");
  }
  template <typename T> static __device__ __forceinline__ void shared(T* p, const T* r) {
    asm volatile("st.shared.b32 [%0], %1;" ::"r"((b32)__cvta_generic_to_shared(p)),
                 "r"(tessel_word(r, 0)) : "memory");
  }
};
template <> struct TesselSt<2> {
  static __device__ __forceinline__ void global(b16* p, const b16* r) { *p = r[0]; }
  static __device__ __forceinline__ void shared(b16* p, const b16* r) { *p = r[0]; }
};
template <typename T, int W> __device__ __forceinline__ void tessel_store_global(T* p, const T* r) {
  TesselSt<W * sizeof(T)>::global(p, r);
}
template <typename T, int W> __device__ __forceinline__ void tessel_store_shared(T* p, const T* r) {
  TesselSt<W * sizeof(T)>::shared(p, r);
}

// Shared-memory barrier of the whole block, and of one warp.
__device__ __forceinline__ void tessel_sync_block() { __syncthreads(); }
__device__ __forceinline__ void tessel_sync_warp() { __syncwarp(); }

// Shared byte address of element offset o (elements of E) from the shared byte address base.
template <typename E, typename O> __device__ __forceinline__ b32 tessel_smem_addr(b32 base, O o) {
  return base + (b32)sizeof(E) * (b32)(o);
}

// cp.async groups: commit the copies issued so far, wait until at most N groups are pending. (The
// copies themselves, like ldmatrix and mma.sync, are device functions generated from their atoms:
// tessel_kernels::kernel::atom.)
__device__ __forceinline__ void tessel_cp_async_commit() { asm volatile("cp.async.commit_group;\n" ::: "memory"); }
template <int N> __device__ __forceinline__ void tessel_cp_async_wait() {
  asm volatile("cp.async.wait_group %0;\n" ::"n"(N) : "memory");
}
