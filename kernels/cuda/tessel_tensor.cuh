// tessel_tensor.cuh: the device side of tessel's tensor layer. A tensor is an engine (global
// memory, shared memory, registers, or coordinates) and a layout the host built and checked with
// tessel's algebra and emitted as a type (tessel_kernels::device): rank, extent(i), and the
// offset of a coordinate with one entry per mode (the emitted index math). Here a tensor is only
// evaluated and sliced; every layout operation (local_tile, partition_S/D/A/B/C, retile) ran on
// the host, and the copy and gemm algorithms below loop over the modes the host laid out,
// calling one atom instruction per slice of mode 0.
namespace tessel {

// `_` keeps a mode when slicing: t(_, 3) is column 3 of a rank-2 tensor.
struct Underscore {};
// A compile-time integer (a kernel body's consumer index, say): decltype(x)::value.
template <int N> struct Int {
  static constexpr int value = N;
  __host__ __device__ constexpr operator int() const { return N; }
};
// f(Int<I>{}) for every I in [B, E), in order, as straight-line code: a body's loop over a
// compile-time trip count whose iterations hold unrolled copies and products (a k-slice loop
// of an SGEMM), which NVVM's unroller, costing the loop before its inner loops fold, may
// leave rolled under #pragma unroll. The binary split keeps the template depth at log2(E - B).
template <int B, int E, class F> __device__ __forceinline__ void static_for(const F& f) {
  if constexpr (E - B == 1) {
    f(Int<B>{});
  } else if constexpr (E - B > 1) {
    static_for<B, B + (E - B) / 2>(f);
    static_for<B + (E - B) / 2, E>(f);
  }
}

__host__ __device__ constexpr int popcount(unsigned x) {
  int n = 0;
  for (; x != 0u; x >>= 1) n += (int)(x & 1u);
  return n;
}
// The position of the n-th set bit of x (n from 0), -1 when there is none.
__host__ __device__ constexpr int nth_bit(unsigned x, int n) {
  for (int i = 0; i < 32; ++i) {
    if ((x >> i) & 1u) {
      if (n == 0) return i;
      --n;
    }
  }
  return -1;
}
template <class A> struct is_underscore { static constexpr bool value = false; };
template <> struct is_underscore<Underscore> { static constexpr bool value = true; };
// The modes of FREE that stay free when the free modes are given the arguments A...
template <unsigned FREE, class... A> __host__ __device__ constexpr unsigned kept_modes() {
  const bool under[] = {is_underscore<A>::value..., false};
  unsigned kept = 0u;
  for (int j = 0; j < (int)sizeof...(A); ++j) {
    if (under[j]) kept |= 1u << nth_bit(FREE, j);
  }
  return kept;
}
__device__ __forceinline__ void set_coord(long long* c, int i, Underscore) {}
template <class I> __device__ __forceinline__ void set_coord(long long* c, int i, I v) { c[i] = (long long)v; }

// ---- engines: where a tensor's elements live. Each has ref(o) (an lvalue of element o), ptr(o)
// and advance(o) (the engine whose element 0 is element o); shared memory also addr(o), its
// 32-bit shared-window address.
template <class T> struct gmem {
  typedef T value_type;
  T* p;
  __device__ __forceinline__ T& ref(long long o) const { return p[o]; }
  __device__ __forceinline__ T* ptr(long long o) const { return p + o; }
  __device__ __forceinline__ gmem advance(long long o) const { return {p + o}; }
};
template <class T> struct smem {
  typedef T value_type;
  T* p;
  __device__ __forceinline__ T& ref(long long o) const { return p[o]; }
  __device__ __forceinline__ T* ptr(long long o) const { return p + o; }
  __device__ __forceinline__ b32 addr(long long o) const { return (b32)__cvta_generic_to_shared(p + o); }
  __device__ __forceinline__ smem advance(long long o) const { return {p + o}; }
};
// Shared memory by 32-bit shared-window address (kernels that carve dynamic shared memory by
// address): element o is at base + o * sizeof(T); accessed through addr(o) by instructions
// that take shared addresses, and by ld/st.shared.
template <class T> struct saddr {
  typedef T value_type;
  b32 base;
  __device__ __forceinline__ b32 addr(long long o) const { return base + (b32)(o * (long long)sizeof(T)); }
  __device__ __forceinline__ saddr advance(long long o) const { return {addr(o)}; }
};
// Registers: a view of a fragment's array (kept in registers when every offset is a constant,
// as in the unrolled loops of copy and gemm).
template <class T> struct rmem {
  typedef T value_type;
  T* p;
  __device__ __forceinline__ T& ref(long long o) const { return p[o]; }
  __device__ __forceinline__ T* ptr(long long o) const { return p + o; }
  __device__ __forceinline__ rmem advance(long long o) const { return {p + o}; }
};
// Coordinates (an identity tensor): the "element" at offset o is o itself; identity layouts are
// emitted per coordinate mode, so an identity tensor of rank r is r tensors of this engine.
struct counting {
  typedef long long value_type;
  long long base;
  __device__ __forceinline__ long long ref(long long o) const { return base + o; }
  __device__ __forceinline__ counting advance(long long o) const { return {base + o}; }
};
// A coordinate tensor the host proved below its bound everywhere (DeviceTensor::unchecked):
// elem_less skips its comparison.
struct always {
  typedef bool value_type;
  __device__ __forceinline__ bool ref(long long) const { return true; }
  __device__ __forceinline__ always advance(long long) const { return {}; }
};

// wgmma matrix descriptors (PTX ISA "Matrix Descriptor Format"): element o is the descriptor
// whose start field is lo + o (16-byte units; the host keeps every shared address below 2^18,
// so the add never carries into the leading byte offset) and whose high word is hi. TNSP is the
// operand's transpose immediate of wgmma (1 for an MN-major operand), from the host's
// descriptor.
template <int TNSP> struct descriptors {
  typedef uint64_t value_type;
  static constexpr int tnsp = TNSP;
  b32 lo, hi;
  __device__ __forceinline__ uint64_t ref(long long o) const {
    uint64_t d;
    asm("mov.b64 %0, {%1, %2};\n" : "=l"(d) : "r"(lo + (b32)o), "r"(hi));
    return d;
  }
  __device__ __forceinline__ descriptors advance(long long o) const { return {lo + (b32)o, hi}; }
};
template <class E> struct is_smem { static constexpr bool value = false; };
template <class T> struct is_smem<smem<T>> { static constexpr bool value = true; };
template <class E> struct is_always { static constexpr bool value = false; };
template <> struct is_always<always> { static constexpr bool value = true; };
template <class E> struct is_rmem { static constexpr bool value = false; };
template <class T> struct is_rmem<rmem<T>> { static constexpr bool value = true; };
// The bit of the first mode of FREE (0 when FREE is empty: no mode is left).
__host__ __device__ constexpr unsigned first_mode(unsigned free) { return free == 0u ? 0u : 1u << nth_bit(free, 0); }

// ---- a tensor: engine E, layout L (emitted by the host), and the coordinates fixed by slicing
// (the modes not in FREE). Coordinates of the free modes are given in order. The layout is an
// object: empty for a layout known on the host (its functions are static), holding the run-time
// strides of a global tensor whose strides are kernel values (DeviceTensor::global_strided).
//
// Slicing a tensor in memory whose layout is affine (L::affine: no swizzle, so the offset is a sum
// of one term per mode) moves the fixed coordinates into the engine, as CuTe's slicing advances
// the pointer: a thread's or a block's part of an address is computed once, where it is sliced.
// (Register fragments keep their coordinates: their offsets are constants in unrolled loops.)
//
// A shared-memory tensor whose offset the host split (L::hoisted: the modes computed together,
// mode 0 -- the thread -- among them; the offset is L::base of those plus L::terms of the others,
// proven exact for every coordinate) keeps, once its thread is fixed, the shared address of the
// base for every coordinate of the other hoisted modes (L::hoist_count of them, computed at that
// slice: before a main loop; only the one of the given coordinates when the slice fixes every
// hoisted mode). addr() then adds the other terms (constants in unrolled loops, a
// pipeline stage) to one of them, instead of computing the swizzle at every access.
template <class E, class L, unsigned FREE = (1u << L::rank) - 1u> struct Tensor {
  typedef typename E::value_type value_type;
  typedef L layout_type;
  typedef E engine_type;
  static constexpr int rank = popcount(FREE);
  static constexpr bool cached = is_smem<E>::value && (L::hoisted & 1u) != 0u && (FREE & 1u) == 0u;
  // Every hoisted mode fixed (a warp's tile sliced with its thread, say): one base address,
  // hoist[0], kept whatever the coordinates (run-time ones too: no array indexed at run time).
  static constexpr bool settled = cached && (FREE & L::hoisted) == 0u;
  E engine;
  L layout;
  long long fixed[L::rank];
  b32 hoist[L::hoist_count];

  // The extent of free mode I.
  template <int I> __host__ __device__ static constexpr long long extent() {
    static_assert(I >= 0 && I < rank, "tessel: mode index out of range");
    return L::extent(nth_bit(FREE, I));
  }
  // Elements over the free modes.
  __host__ __device__ static constexpr long long size() {
    long long s = 1;
    for (int i = 0; i < L::rank; ++i) {
      if ((FREE >> i) & 1u) s *= L::extent(i);
    }
    return s;
  }
  // The coordinate of 1-D index i over the free modes (colexicographic: the first free mode
  // fastest), the fixed modes at their coordinates.
  __device__ __forceinline__ void coords(long long i, long long* c) const {
#pragma unroll
    for (int m = 0; m < L::rank; ++m) {
      if ((FREE >> m) & 1u) {
        c[m] = i % L::extent(m);
        i /= L::extent(m);
      } else {
        c[m] = fixed[m];
      }
    }
  }
  // The offset of 1-D index i over the free modes.
  __device__ __forceinline__ long long offset(long long i) const {
    long long c[L::rank];
    coords(i, c);
    return layout.offset(c);
  }
  // Element i of the free modes (1-D, colexicographic).
  __device__ __forceinline__ decltype(auto) operator[](long long i) const { return engine.ref(offset(i)); }
  __device__ __forceinline__ auto ptr(long long i = 0) const { return engine.ptr(offset(i)); }
  __device__ __forceinline__ b32 addr(long long i = 0) const {
    if constexpr (settled) {
      long long c[L::rank];
      coords(i, c);
      return hoist[0] + (b32)(sizeof(value_type) * L::terms(c));
    } else if constexpr (cached) {
      long long c[L::rank];
      coords(i, c);
      return hoist[L::hoist_index(c)] + (b32)(sizeof(value_type) * L::terms(c));
    } else {
      return engine.addr(offset(i));
    }
  }
  // The hoisted addresses of a tensor whose thread was just fixed (see above).
  __device__ __forceinline__ void fill_hoist() {
#pragma unroll
    for (int j = 0; j < L::hoist_count; ++j) {
      long long c[L::rank];
#pragma unroll
      for (int m = 0; m < L::rank; ++m) c[m] = fixed[m];
      L::set_hoist(c, j);
      hoist[j] = engine.addr(L::base(c));
    }
  }
  // An affine tensor's fixed coordinates moved into its engine (see above).
  __device__ __forceinline__ void fold() {
    long long c[L::rank], z[L::rank];
#pragma unroll
    for (int m = 0; m < L::rank; ++m) {
      c[m] = ((FREE >> m) & 1u) ? 0 : fixed[m];
      z[m] = 0;
    }
    engine = engine.advance(layout.offset(c) - layout.offset(z));
#pragma unroll
    for (int m = 0; m < L::rank; ++m) fixed[m] = 0;
  }
  template <unsigned F> __device__ __forceinline__ void take_hoist(const Tensor<E, L, F>& from) {
    if constexpr (settled) {
      if constexpr (Tensor<E, L, F>::settled) {
        hoist[0] = from.hoist[0];
      } else if constexpr (Tensor<E, L, F>::cached) {
        hoist[0] = from.hoist[L::hoist_index(fixed)];
      } else {
        hoist[0] = engine.addr(L::base(fixed));
      }
    } else if constexpr (Tensor<E, L, F>::cached) {
#pragma unroll
      for (int j = 0; j < L::hoist_count; ++j) hoist[j] = from.hoist[j];
    } else if constexpr (cached) {
      fill_hoist();
    }
  }


  // One coordinate or `_` per free mode: an element when every mode is given, else the tensor
  // of the modes given `_`.
  template <class... A> __device__ __forceinline__ decltype(auto) operator()(A... a) const {
    static_assert(sizeof...(A) == rank, "tessel: index a tensor with one coordinate or _ per mode");
    constexpr unsigned kept = kept_modes<FREE, A...>();
    Tensor<E, L, kept> t{engine, layout, {}};
#pragma unroll
    for (int m = 0; m < L::rank; ++m) t.fixed[m] = fixed[m];
    int j = 0;
    ((set_coord(t.fixed, nth_bit(FREE, j++), a)), ...);
    t.take_hoist(*this);
    if constexpr (kept == 0u) {
      return engine.ref(layout.offset(t.fixed));
    } else {
      if constexpr (L::affine && !is_rmem<E>::value) t.fold();
      return t;
    }
  }
  // Mode 0 with the other free modes at 1-D index r (colexicographic over them): the slice one
  // atom call of copy and gemm works on.
  __device__ __forceinline__ Tensor<E, L, first_mode(FREE)> rest(long long r) const {
    constexpr unsigned first = first_mode(FREE);
    Tensor<E, L, first> t{engine, layout, {}};
#pragma unroll
    for (int m = 0; m < L::rank; ++m) {
      if (((FREE & ~first) >> m) & 1u) {
        t.fixed[m] = r % L::extent(m);
        r /= L::extent(m);
      } else {
        t.fixed[m] = fixed[m];
      }
    }
    t.take_hoist(*this);
    return t;
  }
};

template <class E, class L> __device__ __forceinline__ Tensor<E, L> make_tensor(E e, L l = L{}) {
  Tensor<E, L> t{e, l, {}};
#pragma unroll
  for (int m = 0; m < L::rank; ++m) t.fixed[m] = 0;
  return t;
}

// A register fragment: its own array, sized from its layout (cosize), and the tensor over it.
template <class T, class L> struct Fragment {
  T r[L::cosize];
  __device__ __forceinline__ Tensor<rmem<T>, L> tensor() { return make_tensor<rmem<T>, L>(rmem<T>{r}); }
  template <class... A> __device__ __forceinline__ decltype(auto) operator()(A... a) { return tensor()(a...); }
  __device__ __forceinline__ T& operator[](long long i) { return r[tensor().offset(i)]; }
  __host__ __device__ static constexpr long long size() { return Tensor<rmem<T>, L>::size(); }
  __device__ __forceinline__ void fill(T v) {
#pragma unroll
    for (int i = 0; i < L::cosize; ++i) r[i] = v;
  }
};

// ---- one vector of BYTES bytes between two tensors' first elements, each in memory or in
// registers (built by value so the access stays one instruction). In memory the host proved the
// slice consecutive (DeviceCopy::partition_s/d); in registers it is gathered element by element,
// so a register view may step through its fragment in any order (a retile that permutes the
// registers): with the constant indices of the unrolled copy loops that is register renaming.
template <class V, class T> __device__ __forceinline__ V load_vector(const gmem<T>& e, long long o) {
  return *reinterpret_cast<const V*>(e.ptr(o));
}
template <class V, class T> __device__ __forceinline__ V load_vector(const smem<T>& e, long long o) {
  return *reinterpret_cast<const V*>(e.ptr(o));
}
template <class T> __device__ __forceinline__ void store_vector(const gmem<T>& e, long long o, const uint4& v) {
  asm volatile("st.global.v4.b32 [%0], {%1, %2, %3, %4};" ::"l"(e.ptr(o)), "r"(v.x), "r"(v.y), "r"(v.z), "r"(v.w) : "memory");
}
template <class T> __device__ __forceinline__ void store_vector(const gmem<T>& e, long long o, const uint2& v) {
  asm volatile("st.global.v2.b32 [%0], {%1, %2};" ::"l"(e.ptr(o)), "r"(v.x), "r"(v.y) : "memory");
}
template <class T> __device__ __forceinline__ void store_vector(const gmem<T>& e, long long o, const b32& v) {
  asm volatile("st.global.b32 [%0], %1;" ::"l"(e.ptr(o)), "r"(v) : "memory");
}
template <class T> __device__ __forceinline__ void store_vector(const gmem<T>& e, long long o, const b16& v) {
  *reinterpret_cast<b16*>(e.ptr(o)) = v;
}
template <class V, class T> __device__ __forceinline__ V load_vector(const saddr<T>& e, long long o) {
  V v;
  if constexpr (sizeof(V) == 16) {
    asm volatile("ld.shared.v4.b32 {%0, %1, %2, %3}, [%4];" : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w) : "r"(e.addr(o)) : "memory");
  } else if constexpr (sizeof(V) == 8) {
    asm volatile("ld.shared.v2.b32 {%0, %1}, [%2];" : "=r"(v.x), "=r"(v.y) : "r"(e.addr(o)) : "memory");
  } else if constexpr (sizeof(V) == 4) {
    asm volatile("ld.shared.b32 %0, [%1];" : "=r"(v) : "r"(e.addr(o)) : "memory");
  } else {
    asm volatile("ld.shared.b16 %0, [%1];" : "=h"(v) : "r"(e.addr(o)) : "memory");
  }
  return v;
}
template <class T> __device__ __forceinline__ void store_vector(const saddr<T>& e, long long o, const uint4& v) {
  asm volatile("st.shared.v4.b32 [%0], {%1, %2, %3, %4};" ::"r"(e.addr(o)), "r"(v.x), "r"(v.y), "r"(v.z), "r"(v.w) : "memory");
}
template <class T> __device__ __forceinline__ void store_vector(const saddr<T>& e, long long o, const uint2& v) {
  asm volatile("st.shared.v2.b32 [%0], {%1, %2};" ::"r"(e.addr(o)), "r"(v.x), "r"(v.y) : "memory");
}
template <class T> __device__ __forceinline__ void store_vector(const saddr<T>& e, long long o, const b32& v) {
  asm volatile("st.shared.b32 [%0], %1;" ::"r"(e.addr(o)), "r"(v) : "memory");
}
template <class T> __device__ __forceinline__ void store_vector(const saddr<T>& e, long long o, const b16& v) {
  asm volatile("st.shared.b16 [%0], %1;" ::"r"(e.addr(o)), "h"(v) : "memory");
}
template <class T> __device__ __forceinline__ void store_vector(const smem<T>& e, long long o, const uint4& v) {
  asm volatile("st.shared.v4.b32 [%0], {%1, %2, %3, %4};" ::"r"(e.addr(o)), "r"(v.x), "r"(v.y), "r"(v.z), "r"(v.w) : "memory");
}
template <class T> __device__ __forceinline__ void store_vector(const smem<T>& e, long long o, const uint2& v) {
  asm volatile("st.shared.v2.b32 [%0], {%1, %2};" ::"r"(e.addr(o)), "r"(v.x), "r"(v.y) : "memory");
}
template <class T> __device__ __forceinline__ void store_vector(const smem<T>& e, long long o, const b32& v) {
  asm volatile("st.shared.b32 [%0], %1;" ::"r"(e.addr(o)), "r"(v) : "memory");
}
template <class T> __device__ __forceinline__ void store_vector(const smem<T>& e, long long o, const b16& v) {
  *reinterpret_cast<b16*>(e.ptr(o)) = v;
}
template <class V, class S> __device__ __forceinline__ V load_slice(const S& s) {
  return load_vector<V>(s.engine, s.offset(0));
}
template <class V, class T, class L, unsigned F> __device__ __forceinline__ V load_slice(const Tensor<rmem<T>, L, F>& s) {
  T r[sizeof(V) / sizeof(T)];
#pragma unroll
  for (int i = 0; i < (int)(sizeof(V) / sizeof(T)); ++i) r[i] = s[i];
  V v;
  tessel_pack(v, r);
  return v;
}
template <class D, class V> __device__ __forceinline__ void store_slice(const D& d, const V& v) {
  store_vector(d.engine, d.offset(0), v);
}
template <class T, class L, unsigned F, class V> __device__ __forceinline__ void store_slice(const Tensor<rmem<T>, L, F>& d, const V& v) {
  T r[sizeof(V) / sizeof(T)];
  tessel_unpack(r, v);
#pragma unroll
  for (int i = 0; i < (int)(sizeof(V) / sizeof(T)); ++i) d[i] = r[i];
}
template <int BYTES, class S, class D> __device__ __forceinline__ void vector_copy(const S& s, const D& d) {
  typedef typename TesselVec<BYTES>::type V;
  store_slice(d, load_slice<V>(s));
}

template <class S, class D> __host__ __device__ constexpr bool same_extents() {
  if (S::rank != D::rank || S::size() != D::size()) return false;
  return true;
}

// copy(atom, src, dst): one call of the atom per slice of mode 0; the other modes repeat it.
// The host proved, when it partitioned both tensors with the same tiled copy, that mode 0 of
// each is what the atom's instruction moves (tessel_kernels::device).
template <class Atom, class S, class D> __device__ __forceinline__ void copy(const Atom&, const S& src, const D& dst) {
  static_assert(same_extents<S, D>(), "tessel: copy between tensors of different shapes");
  static_assert(S::template extent<0>() == Atom::values, "tessel: mode 0 is not one atom's values");
  constexpr long long n = S::size() / S::template extent<0>();
#pragma unroll
  for (long long r = 0; r < n; ++r) Atom::call(src.rest(r), dst.rest(r));
}
// copy_if(atom, pred, src, dst): copy where pred(r) holds for the r-th slice of mode 0.
template <class Atom, class P, class S, class D>
__device__ __forceinline__ void copy_if(const Atom&, const P& pred, const S& src, const D& dst) {
  static_assert(same_extents<S, D>(), "tessel: copy between tensors of different shapes");
  static_assert(S::template extent<0>() == Atom::values, "tessel: mode 0 is not one atom's values");
  constexpr long long n = S::size() / S::template extent<0>();
#pragma unroll
  for (long long r = 0; r < n; ++r) {
    if (pred(r)) Atom::call(src.rest(r), dst.rest(r));
  }
}

// copy_xor_order(atom, src, dst, swap, Int<M>, addr_xor): copy(atom, src, dst) with the atom
// calls of the threads where `swap` holds taken in the order r ^ M: at step r they move source
// slice r ^ M (a choice between two register slices of constant index) to the address of
// destination slice r XOR-ed with `addr_xor`, which the host proved is that of slice r ^ M.
// Every slice is moved once either way; the order decides which addresses a warp's lanes hit
// together (a lane-dependent order makes an epilogue's stores free of bank conflicts).
template <class Atom, int M, class S, class D>
__device__ __forceinline__ void copy_xor_order(const Atom& atom, const S& src, const D& dst, bool swap, Int<M>, b32 addr_xor) {
  if constexpr (M == 0) {
    copy(atom, src, dst);
  } else {
    static_assert(Atom::vector, "tessel: a permuted order needs a plain vector copy atom");
    static_assert(same_extents<S, D>(), "tessel: copy between tensors of different shapes");
    static_assert(S::template extent<0>() == Atom::values, "tessel: mode 0 is not one atom's values");
    constexpr long long n = S::size() / S::template extent<0>();
    static_assert(M > 0 && n % (2 * M) == 0 && (M & (M - 1)) == 0, "tessel: the order r ^ M must permute the steps");
    typedef typename TesselVec<Atom::values * (int)sizeof(typename S::value_type)>::type V;
#pragma unroll
    for (long long r = 0; r < n; ++r) {
      const V mine = load_slice<V>(src.rest(r)), other = load_slice<V>(src.rest(r ^ M));
      const auto d = dst.rest(r);
      store_vector(saddr<typename D::value_type>{d.addr(0) ^ (swap ? addr_xor : 0u)}, 0, swap ? other : mine);
    }
  }
}

// ---- the predicate of copy_if: elem_less(c0, b0, c1, b1, ...) holds for slice r of mode 0 when
// the first element of slice r of every coordinate tensor c_i (an identity tensor partitioned
// like the data) is below b_i (CuTe's elem_less of that element's coordinate and the shape). The
// host proved that a slice lies below a bound or not as a whole (DeviceCopy::check_predicate),
// or, for a coordinate tensor emitted as `always`, that every slice does (DeviceTensor::unchecked).
struct Everywhere {
  __device__ __forceinline__ bool operator()(long long) const { return true; }
};
template <class C, class Next> struct ElemLess {
  C crd;
  long long bound;
  Next next;
  __device__ __forceinline__ bool operator()(long long r) const {
    if constexpr (is_always<typename C::engine_type>::value) {
      return next(r);  // every coordinate below the bound, proven on the host
    } else {
      return crd.rest(r)[0] < bound && next(r);
    }
  }
};
__device__ __forceinline__ Everywhere elem_less() { return {}; }
template <class C, class... R> __device__ __forceinline__ auto elem_less(const C& crd, long long bound, const R&... rest) {
  return ElemLess<C, decltype(elem_less(rest...))>{crd, bound, elem_less(rest...)};
}

// ---- row reductions across lanes: x combined over the lanes l ^ m for every m made of the bits of
// MASK (a row's lanes: tessel_kernels::layer::RowView::lane_mask, proved on the host to hold the
// rest of the row), after each thread reduced its own values of the row.
template <int MASK> __device__ __forceinline__ float lanes_max(float x) {
  static_assert(MASK >= 0 && MASK < 32, "tessel: a lane mask has bits 0 to 4");
#pragma unroll
  for (int b = 1; b < 32; b <<= 1) {
    if (MASK & b) x = fmaxf(x, __shfl_xor_sync(0xffffffffu, x, b));
  }
  return x;
}
template <int MASK> __device__ __forceinline__ float lanes_sum(float x) {
  static_assert(MASK >= 0 && MASK < 32, "tessel: a lane mask has bits 0 to 4");
#pragma unroll
  for (int b = 1; b < 32; b <<= 1) {
    if (MASK & b) x += __shfl_xor_sync(0xffffffffu, x, b);
  }
  return x;
}

// The order in which gemm visits the (m, n) calls of one k step. m_n: m outer, n inner.
// n_m_snake: n outer (the accumulators' colexicographic order, m fastest), m walked backwards on
// odd n, so the call after one column's last reads the same A operand again (for one-value
// atoms, a reuse-cache hit). Both make the same calls (each accumulator's k sum in the same
// order); only the schedule ptxas starts from differs (the tiled SGEMM body takes n_m_snake:
// decisions.md, SIMT SGEMM ladder).
enum class GemmOrder { m_n, n_m_snake };

template <GemmOrder O, int M, int N, class F> __device__ __forceinline__ void gemm_for_mn(const F& f) {
  if constexpr (O == GemmOrder::n_m_snake) {
#pragma unroll
    for (int n = 0; n < N; ++n)
#pragma unroll
      for (int j = 0; j < M; ++j) f((n & 1) ? M - 1 - j : j, n);
  } else {
#pragma unroll
    for (int m = 0; m < M; ++m)
#pragma unroll
      for (int n = 0; n < N; ++n) f(m, n);
  }
}

// gemm(mma, a, b, c): c(_, m, n) += a(_, m, k) b(_, n, k) over every (m, n, k) of the
// fragments' modes 1 and 2, or over every (m, n) for one k step (a: (V, M), b: (V, N)); mode 0 of
// each is one atom's operand (the host checked the fragments against the tiled MMA's partitions).
// k outer; the (m, n) calls of a k step in order O.
template <GemmOrder O = GemmOrder::m_n, class Mma, class A, class B, class C>
__device__ __forceinline__ void gemm(const Mma& mma, const A& a, const B& b, const C& c) {
  static_assert(C::rank == 3 && A::rank == B::rank && (A::rank == 2 || A::rank == 3),
                "tessel: gemm takes (V, M, K), (V, N, K), (V, M, N) or (V, M), (V, N), (V, M, N)");
  static_assert(A::template extent<1>() == C::template extent<1>(), "tessel: gemm: A and C disagree on M");
  static_assert(B::template extent<1>() == C::template extent<2>(), "tessel: gemm: B and C disagree on N");
  constexpr int M = (int)A::template extent<1>(), N = (int)B::template extent<1>();
  if constexpr (A::rank == 2) {
    gemm_for_mn<O, M, N>([&](int m, int n) { mma.call(c(Underscore{}, m, n), a(Underscore{}, m), b(Underscore{}, n)); });
  } else {
    static_assert(A::template extent<2>() == B::template extent<2>(), "tessel: gemm: A and B disagree on K");
#pragma unroll
    for (int k = 0; k < (int)A::template extent<2>(); ++k)
      gemm_for_mn<O, M, N>([&](int m, int n) { mma.call(c(Underscore{}, m, n), a(Underscore{}, m, k), b(Underscore{}, n, k)); });
  }
}

// A register-only accumulator of one atom call (N fp32 values): the zeroed partial sum of
// gemm_promoted, handed to the atom's call as its C and D.
template <int N> struct Partial {
  mutable float r[N];
  __device__ __forceinline__ float* ptr() const { return r; }
};

// gemm_promoted(mma, a, b, c): c(_) += sum over k of a(_, k) b(_, k) for one atom's fragments
// (a: (V, K), b: (V, K), c: (V)), the k sum formed in a zeroed fp32 partial and added to c with
// one fp32 add per value (CUTLASS's "staged accumulation"): the tensor cores' accumulation of
// 8-bit products keeps fewer bits than fp32, so the products of one call are summed there and
// the running total in fp32.
template <class Mma, class A, class B, class C> __device__ __forceinline__ void gemm_promoted(const Mma& mma, const A& a, const B& b, const C& c) {
  static_assert(A::rank == 2 && B::rank == 2 && C::rank == 1, "tessel: gemm_promoted takes (V, K), (V, K), (V)");
  static_assert(A::template extent<1>() == B::template extent<1>(), "tessel: gemm_promoted: A and B disagree on K");
  constexpr int V = (int)C::template extent<0>();
  Partial<V> part;
#pragma unroll
  for (int v = 0; v < V; ++v) part.r[v] = 0.0f;
#pragma unroll
  for (int k = 0; k < (int)A::template extent<1>(); ++k) mma.call(part, a(Underscore{}, k), b(Underscore{}, k));
#pragma unroll
  for (int v = 0; v < V; ++v) c[v] += part.r[v];
}

// ---- the grouped tile order of a persistent kernel with run-time tile counts: iteration i ->
// tile (ym, xn), the decomposition of tiled::raster_layout's ((g,g),(ty/g,tx/g)):((1,ty),(g,g ty))
// (tessel_kernels::tiled::GroupedRaster, its host twin, is tested against the layout).
struct GroupedRaster {
  int ty;        // tile rows
  int log2g;     // log2 of the group g
  int groups_y;  // ty / g
  __device__ __forceinline__ GroupedRaster(int ty_, int log2g_) : ty(ty_), log2g(log2g_), groups_y(ty_ >> log2g_) {}
  __device__ __forceinline__ void tile(int i, int& ym, int& xn) const {
    const int g = 1 << log2g;
    const int i0 = i & (g - 1), r = i >> log2g;
    const int i1 = r & (g - 1), q = r >> log2g;
    // Unsigned (i >= 0): the division needs no sign corrections.
    const int i2 = (int)((unsigned)q % (unsigned)groups_y), i3 = (int)((unsigned)q / (unsigned)groups_y);
    ym = i0 + (i2 << log2g);
    xn = i1 + (i3 << log2g);
  }
};

// ---- conversions to a 16-bit type OUT (1 fp16, 2 bf16; round to nearest even).
// Two values as OUT's bits packed into one register, x in the low half (cvt.rn.{f16,bf16}x2.f32
// puts its first source in the upper half, PTX ISA "cvt"): the lower column first, as stmatrix
// and a 32-bit store write a register's halves.
template <int OUT> __device__ __forceinline__ b32 pack2(float x, float y) {
  static_assert(OUT == 1 || OUT == 2, "tessel: pack to fp16 (1) or bf16 (2)");
  b32 d;
  if constexpr (OUT == 1) {
    asm("cvt.rn.f16x2.f32 %0, %1, %2;\n" : "=r"(d) : "f"(y), "f"(x));
  } else {
    asm("cvt.rn.bf16x2.f32 %0, %1, %2;\n" : "=r"(d) : "f"(y), "f"(x));
  }
  return d;
}
// convert<OUT>(src, dst): dst[i] = src[i] in OUT for i in 1-D order over the free modes, two
// values per 32-bit register: dst's values i and i + 1 (i even) are the low and high halves of
// one register, the packing an MMA reads its register A operand in (one cvt per pair). dst is a
// register fragment whose values i, i + 1 are adjacent (partition_fragment); the host proved
// that src[i] holds the element dst[i] stands for (DeviceMma::retile_a_from_c, or the same C
// fragment in another type).
template <int OUT, class S, class D> __device__ __forceinline__ void convert(const S& src, const D& dst) {
  static_assert(OUT == 1 || OUT == 2, "tessel: convert to fp16 (1) or bf16 (2)");
  static_assert(S::size() == D::size() && S::size() % 2 == 0, "tessel: convert pairs of values");
  static_assert(sizeof(typename D::value_type) == 2, "tessel: convert writes 16-bit elements");
#pragma unroll
  for (int i = 0; i < (int)S::size(); i += 2) *reinterpret_cast<b32*>(&dst[i]) = pack2<OUT>(src[i], src[i + 1]);
}

// copy_zfill<BYTES>(g, ld, o0, i0, oe, ie, co, ci, dst): a tile of a matrix in global memory
// (element (o, i) at g[o * ld + i], i contiguous, oe x ie elements) into shared memory, BYTES per
// call of mode 0 (cp.async of 16, 8 or 4 bytes; a 2- or 1-byte load and store). co and ci are the
// identity tensors of the tile (rows, columns) partitioned like dst, o0 and i0 the tile's origin:
// slice r covers elements (o0 + co, i0 + ci ..), and the part of it past the matrix's edge is
// written as zeros (cp.async's source size; CuTe's copy_if with a zero-filled destination), so a
// ragged tile needs no second pass. The host proved each slice of dst consecutive and aligned to
// BYTES in shared memory; the caller chose BYTES so that g, ld and i0 keep every slice aligned in
// global memory (tessel_kernels::blas::copy_width). A slice the edge cuts is copied element by
// element, so no access reaches past the matrix's last element.
template <int BYTES, class T, class CO, class CI, class D>
__device__ __forceinline__ void copy_zfill(const T* g, long long ld, int o0, int i0, int oe, int ie, const CO& co, const CI& ci,
                                           const D& dst) {
  constexpr int VALS = BYTES / (int)sizeof(T);
  static_assert(BYTES == 16 || BYTES == 8 || BYTES == 4 || BYTES == 2 || BYTES == 1, "tessel: copy_zfill moves 16, 8, 4, 2 or 1 bytes");
  static_assert(VALS >= 1, "tessel: copy_zfill moves whole elements");
  static_assert(same_extents<CO, D>() && same_extents<CI, D>(), "tessel: copy_zfill: coordinates and destination differ");
  static_assert(D::template extent<0>() == VALS, "tessel: mode 0 is not one copy's values");
  constexpr long long n = D::size() / VALS;
  auto one = [&](long long r) {
    const int o = o0 + (int)co.rest(r)[0], i = i0 + (int)ci.rest(r)[0];
    const int left = ie - i;
    const int valid = o < oe && left > 0 ? (left < VALS ? left : VALS) : 0;
    const T* src = valid > 0 ? g + (long long)o * ld + i : g;
    const b32 s = dst.rest(r).addr(0);
    if (BYTES >= 4 && (valid == VALS || valid == 0)) {
      // A whole chunk, or none (all zeros, nothing read): one cp.async.
      if constexpr (BYTES == 16) {
        asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(s), "l"(src), "r"(valid * (int)sizeof(T)) : "memory");
      } else if constexpr (BYTES >= 4) {
        asm volatile("cp.async.ca.shared.global [%0], [%1], %2, %3;\n" ::"r"(s), "l"(src), "n"(BYTES), "r"(valid * (int)sizeof(T)) : "memory");
      }
    } else if (BYTES == 2 && valid == VALS) {
      // A whole 2-byte chunk (one 16-bit element, or two 8-bit ones): one load and one store.
      const b16 v = *reinterpret_cast<const b16*>(src);
      asm volatile("st.shared.b16 [%0], %1;\n" ::"r"(s), "h"(v) : "memory");
    } else {
      // 1-byte copies, and a chunk the matrix's edge cuts: element by element, zeros past the
      // edge (a cp.async of the whole chunk would address bytes past the last element, outside
      // the buffer on its last row).
      static_assert(sizeof(T) == 2 || sizeof(T) == 1, "tessel: copy_zfill's element copies move 16- or 8-bit elements");
#pragma unroll
      for (int j = 0; j < VALS; ++j) {
        if constexpr (sizeof(T) == 2) {
          b16 v = 0;
          if (j < valid) v = *reinterpret_cast<const b16*>(src + j);
          asm volatile("st.shared.b16 [%0], %1;\n" ::"r"(s + 2u * (b32)j), "h"(v) : "memory");
        } else {
          b32 v = 0;
          if (j < valid) v = *reinterpret_cast<const unsigned char*>(src + j);
          asm volatile("st.shared.b8 [%0], %1;\n" ::"r"(s + (b32)j), "r"(v) : "memory");
        }
      }
    }
  };
  if constexpr (BYTES == 1) {
    // One byte per copy (an operand at an odd address or pitch): 64 copies per thread and k
    // tile, unrolled by 8 only, which keeps their addresses out of the accumulators' registers.
#pragma unroll 8
    for (long long r = 0; r < n; ++r) one(r);
  } else {
#pragma unroll
    for (long long r = 0; r < n; ++r) one(r);
  }
}
// to_float<OUT>(x) and from_float<OUT>(x): one element of an output type (OUT 0 fp32, 1 fp16,
// 2 bf16, as convert) to and from fp32, rounding to nearest even.
template <int OUT, class T> __device__ __forceinline__ float to_float(T x) {
  if constexpr (OUT == 0) {
    return x;
  } else if constexpr (OUT == 1) {
    float f;
    asm("cvt.f32.f16 %0, %1;\n" : "=f"(f) : "h"(x));
    return f;
  } else {
    return __uint_as_float((b32)x << 16);
  }
}
template <int OUT, class T> __device__ __forceinline__ T from_float(float x) {
  if constexpr (OUT == 0) {
    return x;
  } else {
    b16 h;
    if constexpr (OUT == 1) {
      asm("cvt.rn.f16.f32 %0, %1;\n" : "=h"(h) : "f"(x));
    } else {
      asm("cvt.rn.bf16.f32 %0, %1;\n" : "=h"(h) : "f"(x));
    }
    return h;
  }
}

}  // namespace tessel
