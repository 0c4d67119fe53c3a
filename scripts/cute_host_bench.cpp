// CuTe C++ on the inputs of layout/benches/algebra.rs, for the host-speed comparison in
// docs/performance.md ("Host algebra: CuTe C++ with dynamic integers").
//
// Every integer is a run-time value (read through a volatile), as in a kernel whose shapes are
// not template arguments, except where CuTe 4.2 refuses dynamic strides (it static_asserts
// "Dynamic-stride complement only for rank-1 layouts" and "Left inverse requires static
// strides"): there the strides are static and the extents dynamic. Prints the case, the best
// of 7 runs of 200000 calls in ns per call, and CuTe's result.
//
// Build with g++ and PyPI wheels only (no CUDA toolkit):
//   pip download nvidia-cutlass nvidia-cuda-runtime-cu12 nvidia-cuda-cccl-cu12 \
//       nvidia-cuda-nvcc-cu12 --no-deps -d W   # and unzip each wheel into W/x
//   g++ -std=c++17 -O3 -march=native -IW/x/cutlass_library/source/include \
//       -IW/x/nvidia/cuda_runtime/include -IW/x/nvidia/cuda_cccl/include \
//       -IW/x/nvidia/cuda_nvcc/include scripts/cute_host_bench.cpp -o cute_host_bench
#include <cute/layout.hpp>
#include <chrono>
#include <cstdio>
using namespace cute;
static volatile int vz = 0;
static inline int D(int x) { return x + vz; }
template <int N> using I = Int<N>;
template <class T> static inline void escape(T const& v) { asm volatile("" : : "g"(&v) : "memory"); }
template <class F> void run(const char* name, F f) {
  auto r = f();
  double best = 1e30;
  for (int rep = 0; rep < 7; ++rep) {
    const int n = 200000;
    auto t0 = std::chrono::steady_clock::now();
    for (int i = 0; i < n; ++i) { auto x = f(); escape(x); }
    auto t1 = std::chrono::steady_clock::now();
    double ns = std::chrono::duration<double, std::nano>(t1 - t0).count() / n;
    if (ns < best) best = ns;
  }
  printf("%s\t%.1f\t", name, best);
  print(r);
  printf("\n");
}
#define L(s, d) make_layout(s, d)
#define S make_shape
#define T make_stride
int main() {
  auto c1a = L(S(D(6), D(2)), T(D(8), D(2)));  auto c1b = L(S(D(4), D(3)), T(D(3), D(1)));
  run("composition/docs_2x2", [&] { escape(c1a); escape(c1b); return composition(c1a, c1b); });
  auto c2a = L(D(20), D(2)); auto c2b = L(S(D(5), D(4)), T(D(4), D(1)));
  run("composition/docs_20_2", [&] { escape(c2a); escape(c2b); return composition(c2a, c2b); });
  auto c3a = L(S(D(128), D(64)), T(D(64), D(1)));
  auto c3b = L(S(S(D(8), D(16)), S(D(8), D(8))), T(T(D(1), D(64)), T(D(8), D(512))));
  run("composition/tile_128x64_rowmajor", [&] { escape(c3a); escape(c3b); return composition(c3a, c3b); });
  auto c4a = L(S(D(16), D(8)), T(D(1), D(16)));
  auto tv = L(S(S(D(4), D(8)), S(D(2), D(2))), T(T(D(32), D(1)), T(D(16), D(8))));
  run("composition/tv_sm80_c", [&] { escape(c4a); escape(tv); return composition(c4a, tv); });
  auto k1 = L(D(4), D(2)); int m24 = D(24);
  run("complement/docs_4_2", [&] { escape(k1); escape(m24); return complement(k1, m24); });
  auto k2 = L(S(D(2), D(2)), T(I<1>{}, I<6>{}));
  run("complement/docs_2x2", [&] { escape(k2); escape(m24); return complement(k2, m24); });
  auto k3 = L(S(S(D(2), D(2)), S(D(4), D(2)), D(2)), T(T(I<1>{}, I<64>{}), T(I<2>{}, I<512>{}), I<4096>{})); int m16 = D(1 << 16);
  run("complement/deep", [&] { escape(k3); escape(m16); return complement(k3, m16); });
  auto d1 = L(S(D(4), D(2), D(3)), T(D(2), D(1), D(8))); auto d1t = L(D(4), D(2));
  run("logical_divide/docs_1d", [&] { escape(d1); escape(d1t); return logical_divide(d1, d1t); });
  auto d2 = L(S(D(9), S(D(4), D(8))), T(D(59), T(D(13), D(1))));
  auto d2t = make_tile(L(D(3), D(3)), L(S(D(2), D(4)), T(I<1>{}, I<8>{})));
  run("logical_divide/docs_2d", [&] { escape(d2); escape(d2t); return logical_divide(d2, d2t); });
  auto d3 = L(S(D(4096), D(4096)), T(D(4096), D(1))); auto d3t = make_tile(L(D(128), D(1)), L(D(64), D(1)));
  run("logical_divide/gemm_tile_128x64", [&] { escape(d3); escape(d3t); return logical_divide(d3, d3t); });
  auto p1 = L(S(D(2), D(2)), T(I<4>{}, I<1>{})); auto p1b = L(D(6), D(1));
  run("logical_product/docs_1d", [&] { escape(p1); escape(p1b); return logical_product(p1, p1b); });
  auto p2 = L(S(D(2), D(5)), T(I<5>{}, I<1>{})); auto p2b = L(S(D(3), D(4)), T(D(1), D(3)));
  run("logical_product/docs_2d", [&] { escape(p2); escape(p2b); return logical_product(p2, p2b); });
  auto z = L(S(D(2), D(2)), T(D(1), D(2))); auto zt = make_tile(L(D(3), D(1)), L(D(2), D(1)));
  run("zipped_product/tile_by_mode", [&] { escape(z); escape(zt); return zipped_product(z, zt); });
  run("blocked_product/docs_2d", [&] { escape(p2); escape(p2b); return blocked_product(p2, p2b); });
  run("raked_product/docs_2d", [&] { escape(p2); escape(p2b); return raked_product(p2, p2b); });
  auto i1 = L(S(D(2), D(4), D(6)), T(I<4>{}, I<1>{}, I<8>{}));
  auto i1d = L(S(D(2), D(4), D(6)), T(D(4), D(1), D(8)));
  auto i2 = L(S(D(4), D(8)), T(I<8>{}, I<1>{}));
  auto i2d = L(S(D(4), D(8)), T(D(8), D(1)));
  auto tvs = L(S(S(D(4), D(8)), S(D(2), D(2))), T(T(I<32>{}, I<1>{}), T(I<16>{}, I<8>{})));
  run("right_inverse/semantics", [&] { escape(i1d); return right_inverse(i1d); });
  run("right_inverse/rowmajor_4x8", [&] { escape(i2d); return right_inverse(i2d); });
  run("right_inverse/tv_sm80_c", [&] { escape(tv); return right_inverse(tv); });
  run("left_inverse/semantics", [&] { escape(i1); return left_inverse(i1); });
  run("left_inverse/rowmajor_4x8", [&] { escape(i2); return left_inverse(i2); });
  run("left_inverse/tv_sm80_c", [&] { escape(tvs); return left_inverse(tvs); });
  auto o1 = L(S(D(2), S(D(1), D(6))), T(D(1), T(D(6), D(2))));
  auto o2 = L(S(D(4), D(3)), T(D(3), D(1)));
  auto o3 = L(S(S(D(8), D(16)), S(D(8), D(8))), T(T(D(1), D(8)), T(D(128), D(1024))));
  run("coalesce/docs", [&] { escape(o1); return coalesce(o1); });
  run("coalesce/rowmajor_4x3", [&] { escape(o2); return coalesce(o2); });
  run("coalesce/tile_8192", [&] { escape(o3); return coalesce(o3); });
  int i5 = D(5), i37 = D(37);
  run("evaluation/offset_rank2", [&] { escape(i2d); escape(i5); return i2d(i5); });
  run("evaluation/offset_rank2_nested", [&] { escape(tv); escape(i37); return tv(i37); });
}
