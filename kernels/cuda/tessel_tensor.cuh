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
// A compile-time index: what static_for passes its function.
template <long long V> struct Int {
  static constexpr long long value = V;
  __host__ __device__ constexpr operator long long() const { return V; }
};
// f(Int<I>{}) for every I in [B, E), in order, as straight-line code: every index is a constant
// when the front end emits the calls, so the index math of each call folds before any loop
// optimization weighs the code (a #pragma unroll loop of copies or products is costed before
// that and may stay rolled). The binary split keeps the template depth at log2(E - B).
template <long long B, long long E, class F> __device__ __forceinline__ void static_for(const F& f) {
  if constexpr (E - B == 1) {
    f(Int<B>{});
  } else if constexpr (E - B > 1) {
    static_for<B, B + (E - B) / 2>(f);
    static_for<B + (E - B) / 2, E>(f);
  }
}


// ---- engines: where a tensor's elements live. Each has ref(o) (an lvalue of element o) and
// ptr(o); shared memory also addr(o), its 32-bit shared-window address.
template <class T> struct gmem {
  typedef T value_type;
  T* p;
  __device__ __forceinline__ T& ref(long long o) const { return p[o]; }
  __device__ __forceinline__ T* ptr(long long o) const { return p + o; }
  __device__ __forceinline__ gmem advance(long long d) const { return {p + d}; }
};
template <class T> struct smem {
  typedef T value_type;
  T* p;
  __device__ __forceinline__ T& ref(long long o) const { return p[o]; }
  __device__ __forceinline__ T* ptr(long long o) const { return p + o; }
  __device__ __forceinline__ smem advance(long long d) const { return {p + d}; }
  __device__ __forceinline__ b32 addr(long long o) const { return (b32)__cvta_generic_to_shared(p + o); }
};
// Registers: a view of a fragment's array (kept in registers when every offset is a constant,
// as in the unrolled loops of copy and gemm).
template <class T> struct rmem {
  typedef T value_type;
  T* p;
  __device__ __forceinline__ T& ref(long long o) const { return p[o]; }
  __device__ __forceinline__ T* ptr(long long o) const { return p + o; }
  __device__ __forceinline__ rmem advance(long long d) const { return {p + d}; }
};
// Coordinates (an identity tensor): the "element" at offset o is o itself; identity layouts are
// emitted per coordinate mode, so an identity tensor of rank r is r tensors of this engine.
struct counting {
  typedef long long value_type;
  long long base;
  __device__ __forceinline__ long long ref(long long o) const { return base + o; }
  __device__ __forceinline__ counting advance(long long d) const { return {base + d}; }
};
// A predicate: an identity tensor's coordinate compared with a bound (element o is base + o < bound).
struct below {
  typedef bool value_type;
  long long bound, base;
  __device__ __forceinline__ bool ref(long long o) const { return base + o < bound; }
  __device__ __forceinline__ below advance(long long d) const { return {bound, base + d}; }
};
// A predicate the host proved true everywhere (tessel_kernels::layer::DeviceTensor::unchecked).
struct always {
  typedef bool value_type;
  __device__ __forceinline__ bool ref(long long) const { return true; }
  __device__ __forceinline__ always advance(long long) const { return {}; }
};

// ---- a tensor: engine E, layout L (emitted by the host), and the coordinates fixed by slicing
// (the modes not in FREE). Coordinates of the free modes are given in order.
template <class E, class L, unsigned FREE = (1u << L::rank) - 1u> struct Tensor {
  typedef typename E::value_type value_type;
  typedef L layout_type;
  static constexpr int rank = popcount(FREE);
  E engine;
  long long fixed[L::rank];

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
  // The offset of 1-D index i over the free modes (colexicographic: the first free mode fastest).
  __device__ __forceinline__ long long offset(long long i) const {
    long long c[L::rank];
    static_for<0, L::rank>([&](auto m) {
      if constexpr ((FREE >> m) & 1u) {
        c[m] = i % L::extent(m);
        i /= L::extent(m);
      } else {
        c[m] = fixed[m];
      }
    });
    return L::offset(c);
  }
  // Element i of the free modes (1-D, colexicographic).
  __device__ __forceinline__ decltype(auto) operator[](long long i) const { return engine.ref(offset(i)); }
  __device__ __forceinline__ auto ptr(long long i = 0) const { return engine.ptr(offset(i)); }
  __device__ __forceinline__ b32 addr(long long i = 0) const { return engine.addr(offset(i)); }


  // The offset coordinate c of mode m adds: an affine layout's modes add up (L::offset of the
  // coordinate alone, less the offset of the origin).
  __device__ __forceinline__ static long long mode_offset(int m, long long c) {
    long long at[L::rank], origin[L::rank];
    static_for<0, L::rank>([&](auto i) {
      at[i] = (i == m) ? c : 0;
      origin[i] = 0;
    });
    return L::offset(at) - L::offset(origin);
  }
  // Fixes mode m at coordinate c. On an affine layout the coordinate's offset moves the engine
  // (a pointer or a base) once, so a thread's part of every address is computed once and the
  // offsets of the modes left free, constants in unrolled code, become immediate offsets.
  __device__ __forceinline__ void fix(int m, Underscore) {}
  template <class I> __device__ __forceinline__ void fix(int m, I c) {
    if constexpr (L::affine) {
      engine = engine.advance(mode_offset(m, (long long)c));
      fixed[m] = 0;
    } else {
      fixed[m] = (long long)c;
    }
  }

  // One coordinate or `_` per free mode: an element when every mode is given, else the tensor
  // of the modes given `_`.
  template <class... A> __device__ __forceinline__ decltype(auto) operator()(A... a) const {
    static_assert(sizeof...(A) == rank, "tessel: index a tensor with one coordinate or _ per mode");
    constexpr unsigned kept = kept_modes<FREE, A...>();
    Tensor<E, L, kept> t{engine, {}};
    static_for<0, L::rank>([&](auto m) { t.fixed[m] = fixed[m]; });
    int j = 0;
    ((t.fix(nth_bit(FREE, j++), a)), ...);
    if constexpr (kept == 0u) {
      return t.engine.ref(L::offset(t.fixed));
    } else {
      return t;
    }
  }
  // Mode 0 with the other free modes at 1-D index r (colexicographic over them): the slice one
  // atom call of copy and gemm works on.
  __device__ __forceinline__ Tensor<E, L, 1u << nth_bit(FREE, 0)> rest(long long r) const {
    constexpr unsigned first = 1u << nth_bit(FREE, 0);
    Tensor<E, L, first> t{engine, {}};
    static_for<0, L::rank>([&](auto m) {
      if constexpr (((FREE & ~first) >> m) & 1u) {
        t.fix(m, r % L::extent(m));
        r /= L::extent(m);
      } else {
        t.fixed[m] = fixed[m];
      }
    });
    return t;
  }
};

template <class E, class L> __device__ __forceinline__ Tensor<E, L> make_tensor(E e) {
  Tensor<E, L> t{e, {}};
  static_for<0, L::rank>([&](auto m) { t.fixed[m] = 0; });
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
    static_for<0, L::cosize>([&](auto i) { r[i] = v; });
  }
};

// ---- one vector of BYTES bytes between the atom values (free mode 0) of two tensors. In memory the
// host proved the values consecutive and aligned (tessel_kernels::layer), so the vector is read or
// written at the first value's address with one instruction; in registers each value is taken
// where the layout puts it (a register view need not be contiguous: the epilogue's view of an
// accumulator, say), and the vector is built by value.
template <class V, class T, class L, unsigned F> __device__ __forceinline__ V load_vector(const Tensor<gmem<T>, L, F>& t) {
  return *reinterpret_cast<const V*>(t.ptr(0));
}
template <class V, class T, class L, unsigned F> __device__ __forceinline__ V load_vector(const Tensor<smem<T>, L, F>& t) {
  return *reinterpret_cast<const V*>(t.ptr(0));
}
template <class V, class T, class L, unsigned F> __device__ __forceinline__ V load_vector(const Tensor<rmem<T>, L, F>& t) {
  constexpr int n = (int)(sizeof(V) / sizeof(T));
  T r[n];
  static_for<0, n>([&](auto i) { r[i] = t[i]; });
  V v;
  tessel_pack(v, r);
  return v;
}
template <class T, class L, unsigned F> __device__ __forceinline__ void store_vector(const Tensor<gmem<T>, L, F>& t, const uint4& v) {
  asm volatile("st.global.v4.b32 [%0], {%1, %2, %3, %4};" ::"l"(t.ptr(0)), "r"(v.x), "r"(v.y), "r"(v.z), "r"(v.w) : "memory");
}
template <class T, class L, unsigned F> __device__ __forceinline__ void store_vector(const Tensor<gmem<T>, L, F>& t, const uint2& v) {
  asm volatile("st.global.v2.b32 [%0], {%1, %2};" ::"l"(t.ptr(0)), "r"(v.x), "r"(v.y) : "memory");
}
template <class T, class L, unsigned F> __device__ __forceinline__ void store_vector(const Tensor<gmem<T>, L, F>& t, const b32& v) {
  asm volatile("st.global.b32 [%0], %1;" ::"l"(t.ptr(0)), "r"(v) : "memory");
}
template <class T, class L, unsigned F> __device__ __forceinline__ void store_vector(const Tensor<gmem<T>, L, F>& t, const b16& v) {
  *reinterpret_cast<b16*>(t.ptr(0)) = v;
}
template <class T, class L, unsigned F> __device__ __forceinline__ void store_vector(const Tensor<smem<T>, L, F>& t, const uint4& v) {
  asm volatile("st.shared.v4.b32 [%0], {%1, %2, %3, %4};" ::"r"(t.addr(0)), "r"(v.x), "r"(v.y), "r"(v.z), "r"(v.w) : "memory");
}
template <class T, class L, unsigned F> __device__ __forceinline__ void store_vector(const Tensor<smem<T>, L, F>& t, const uint2& v) {
  asm volatile("st.shared.v2.b32 [%0], {%1, %2};" ::"r"(t.addr(0)), "r"(v.x), "r"(v.y) : "memory");
}
template <class T, class L, unsigned F> __device__ __forceinline__ void store_vector(const Tensor<smem<T>, L, F>& t, const b32& v) {
  asm volatile("st.shared.b32 [%0], %1;" ::"r"(t.addr(0)), "r"(v) : "memory");
}
template <class T, class L, unsigned F> __device__ __forceinline__ void store_vector(const Tensor<smem<T>, L, F>& t, const b16& v) {
  *reinterpret_cast<b16*>(t.ptr(0)) = v;
}
template <class V, class T, class L, unsigned F> __device__ __forceinline__ void store_vector(const Tensor<rmem<T>, L, F>& t, const V& v) {
  constexpr int n = (int)(sizeof(V) / sizeof(T));
  T r[n];
  tessel_unpack(r, v);
  static_for<0, n>([&](auto i) { t[i] = r[i]; });
}
template <int BYTES, class S, class D> __device__ __forceinline__ void vector_copy(const S& s, const D& d) {
  typedef typename TesselVec<BYTES>::type V;
  store_vector(d, load_vector<V>(s));
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
  static_for<0, n>([&](auto r) { Atom::call(src.rest(r), dst.rest(r)); });
}
// copy_if(atom, pred, src, dst): copy where pred(r) holds for the r-th slice of mode 0.
template <class Atom, class P, class S, class D>
__device__ __forceinline__ void copy_if(const Atom&, const P& pred, const S& src, const D& dst) {
  static_assert(same_extents<S, D>(), "tessel: copy between tensors of different shapes");
  static_assert(S::template extent<0>() == Atom::values, "tessel: mode 0 is not one atom's values");
  constexpr long long n = S::size() / S::template extent<0>();
  static_for<0, n>([&](auto r) {
    if (pred(r)) Atom::call(src.rest(r), dst.rest(r));
  });
}

// all_of(p...): the predicate of copy_if that holds for the r-th atom call when every predicate
// tensor p (partitioned and sliced like the copy's source) holds at that call's first value (the
// host checked that an atom call's values are all inside or all outside each bound).
template <class... P> __device__ __forceinline__ auto all_of(const P&... p) {
  return [=](long long r) { return (p.rest(r)[0] && ...); };
}

// gemm(mma, a, b, c): c(_, m, n) += a(_, m, k) b(_, n, k) over every (m, n, k) of the
// fragments' modes 1 and 2 (k outermost, n innermost); mode 0 of each is one atom's operand
// (the host checked the fragments against the tiled MMA's partitions).
template <class Mma, class A, class B, class C> __device__ __forceinline__ void gemm(const Mma&, const A& a, const B& b, const C& c) {
  static_assert(A::rank == 3 && B::rank == 3 && C::rank == 3, "tessel: gemm takes (V, M, K), (V, N, K), (V, M, N)");
  static_assert(A::template extent<1>() == C::template extent<1>(), "tessel: gemm: A and C disagree on M");
  static_assert(B::template extent<1>() == C::template extent<2>(), "tessel: gemm: B and C disagree on N");
  static_assert(A::template extent<2>() == B::template extent<2>(), "tessel: gemm: A and B disagree on K");
  constexpr long long M = A::template extent<1>(), N = B::template extent<1>(), K = A::template extent<2>();
  static_for<0, M * N * K>([&](auto i) {
    constexpr long long n = decltype(i)::value % N, m = decltype(i)::value / N % M, k = decltype(i)::value / (N * M);
    Mma::call(c(Underscore{}, m, n), a(Underscore{}, m, k), b(Underscore{}, n, k));
  });
}

}  // namespace tessel
