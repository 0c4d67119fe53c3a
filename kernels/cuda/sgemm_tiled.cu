  // Rungs SmemBlock .. DoubleBuffered: a BM x BN block tile of C (layout::blk_m/blk_n), marched
  // along K in BK steps through shared tiles sA (layout::sa_crd(m, k)) and sB (layout::sb_crd(k, n)).
  // Global -> shared: vector j of the A tile (VA elements along k if k::A_ALONG_K, else along m)
  // starts at tile coordinate (layout::lda_m(j), layout::lda_k(j)); likewise B with VB, ldb_*.
  // Thread t computes the TM x TN elements (layout::thr_m(t) + layout::val_m(i),
  // layout::thr_n(t) + layout::val_n(j)); it reads its A (B) fragment from shared memory in vectors
  // of k::VSA (k::VSB) elements. Every global access is predicated on M, N, K, unless k::EVEN (the
  // problem is whole tiles with aligned vectors: every check would pass).
  // Static shared tiles, or (k::ASYNC) dynamic ones: the cp.async stages may pass 48 KiB.
  __shared__ __align__(16) float sA_static[k::ASYNC ? 1 : k::STAGES][k::SA_SIZE];
  __shared__ __align__(16) float sB_static[k::ASYNC ? 1 : k::STAGES][k::SB_SIZE];
  extern __shared__ __align__(16) float smem_dynamic[];
  float (*const sA)[k::SA_SIZE] =
      k::ASYNC ? reinterpret_cast<float (*)[k::SA_SIZE]>(smem_dynamic) : sA_static;
  float (*const sB)[k::SB_SIZE] =
      k::ASYNC ? reinterpret_cast<float (*)[k::SB_SIZE]>(smem_dynamic + k::STAGES * k::SA_SIZE)
               : sB_static;
  const long long t = threadIdx.x, blk = blockIdx.x;
  const long long m0 = layout::blk_m(blk), n0 = layout::blk_n(blk);
  float ra[k::LA][k::VA];  // this thread's share of the next A tile, in registers
  float rb[k::LB][k::VB];
  float acc[k::TM][k::TN];
  #pragma unroll
  for (int i = 0; i < k::TM; ++i)
    #pragma unroll
    for (int j = 0; j < k::TN; ++j) acc[i][j] = 0.f;

  // Global tile k0 -> registers (zeros outside the matrix).
  auto load_global_a = [&](long long k0) {
    #pragma unroll
    for (int v = 0; v < k::LA; ++v) {
      const long long j = t + k::NT * v;
      const long long gm = m0 + layout::lda_m(j), gk = k0 + layout::lda_k(j);
      const long long last_m = k::A_ALONG_K ? gm : gm + k::VA - 1;
      const long long last_k = k::A_ALONG_K ? gk + k::VA - 1 : gk;
      if (k::EVEN || (k::A_VEC_OK && last_m < k::M && last_k < k::K)) {
        dev::vload<k::VA>(ra[v], &a[layout::ga_crd(gm, gk)]);
      } else {
        #pragma unroll
        for (int e = 0; e < k::VA; ++e) {
          const long long em = k::A_ALONG_K ? gm : gm + e, ek = k::A_ALONG_K ? gk + e : gk;
          ra[v][e] = (em < k::M && ek < k::K) ? a[layout::ga_crd(em, ek)] : 0.f;
        }
      }
    }
  };
  auto load_global_b = [&](long long k0) {
    #pragma unroll
    for (int v = 0; v < (k::B_ASYNC ? 0 : k::LB); ++v) {
      const long long j = t + k::NT * v;
      const long long gk = k0 + layout::ldb_k(j), gn = n0 + layout::ldb_n(j);
      const long long last_k = k::B_ALONG_N ? gk : gk + k::VB - 1;
      const long long last_n = k::B_ALONG_N ? gn + k::VB - 1 : gn;
      if (k::EVEN || (k::B_VEC_OK && last_k < k::K && last_n < k::N)) {
        dev::vload<k::VB>(rb[v], &b[layout::gb_crd(gk, gn)]);
      } else {
        #pragma unroll
        for (int e = 0; e < k::VB; ++e) {
          const long long ek = k::B_ALONG_N ? gk : gk + e, en = k::B_ALONG_N ? gn + e : gn;
          rb[v][e] = (ek < k::K && en < k::N) ? b[layout::gb_crd(ek, en)] : 0.f;
        }
      }
    }
  };
  auto load_global = [&](long long k0) {
    load_global_a(k0);
    load_global_b(k0);
  };
  // Registers -> shared stage s: one vector store where the vector runs along the shared tile's
  // contiguous mode (k::A_ST_VEC), else VA scalar stores.
  auto store_a = [&](int s) {
    #pragma unroll
    for (int v = 0; v < k::LA; ++v) {
      const long long j = t + k::NT * v;
      const long long tm = layout::lda_m(j), tk = layout::lda_k(j);
      if (k::A_ST_VEC) {
        dev::vstore_shared<k::VA>(&sA[s][layout::sa_crd(tm, tk)], ra[v]);
      } else {
        #pragma unroll
        for (int e = 0; e < k::VA; ++e)
          sA[s][layout::sa_crd(k::A_ALONG_K ? tm : tm + e, k::A_ALONG_K ? tk + e : tk)] = ra[v][e];
      }
    }
  };
  auto store_b = [&](int s) {
    #pragma unroll
    for (int v = 0; v < (k::B_ASYNC ? 0 : k::LB); ++v) {
      const long long j = t + k::NT * v;
      const long long tk = layout::ldb_k(j), tn = layout::ldb_n(j);
      if (k::B_ST_VEC) {
        dev::vstore_shared<k::VB>(&sB[s][layout::sb_crd(tk, tn)], rb[v]);
      } else {
        #pragma unroll
        for (int e = 0; e < k::VB; ++e)
          sB[s][layout::sb_crd(k::B_ALONG_N ? tk : tk + e, k::B_ALONG_N ? tn + e : tn)] = rb[v][e];
      }
    }
  };
  auto store_shared = [&](int s) {
    store_a(s);
    store_b(s);
  };
  // The thread's outer products over one shared stage.
  const long long tm0 = layout::thr_m(t), tn0 = layout::thr_n(t);
  auto load_frags = [&](int s, int kk, float* fa, float* fb) {
    #pragma unroll
    for (int i = 0; i < k::TM; i += k::VSA)
      dev::vload<k::VSA>(&fa[i], &sA[s][layout::sa_crd(tm0 + layout::val_m(i), kk)]);
    #pragma unroll
    for (int j = 0; j < k::TN; j += k::VSB)
      dev::vload<k::VSB>(&fb[j], &sB[s][layout::sb_crd(kk, tn0 + layout::val_n(j))]);
  };
  auto outer = [&](const float* fa, const float* fb) {
    #pragma unroll
    for (int i = 0; i < k::TM; ++i)
      #pragma unroll
      for (int j = 0; j < k::TN; ++j) acc[i][j] += fa[i] * fb[j];
  };
  // The outer products of k-slices [k0, k1) of stage s (constants where it is called).
  auto compute_slices = [&](int s, int k0, int k1) {
    #pragma unroll
    for (int kk = k0; kk < k1; ++kk) {
      float fa[k::TM], fb[k::TN];
      load_frags(s, kk, fa, fb);
      outer(fa, fb);
    }
  };
  auto compute = [&](int s) {
    #pragma unroll
    for (int kk = 0; kk < k::BK; ++kk) {
      float fa[k::TM], fb[k::TN];
      load_frags(s, kk, fa, fb);
      outer(fa, fb);
    }
  };

  // cp.async of tile k0 into stage s (k::ASYNC: both operands; k::B_ASYNC: B only): each vector
  // lands where store_shared would put it; out-of-bounds elements are zero-filled (source size 0).
  auto issue_a = [&](long long k0, int s) {
    #pragma unroll
    for (int v = 0; v < k::LA; ++v) {
      const long long j = t + k::NT * v;
      const long long tm = layout::lda_m(j), tk = layout::lda_k(j);
      const long long gm = m0 + tm, gk = k0 + tk;
      const long long last_m = k::A_ALONG_K ? gm : gm + k::VA - 1;
      const long long last_k = k::A_ALONG_K ? gk + k::VA - 1 : gk;
      const bool whole = k::EVEN || (k::A_VEC_OK && last_m < k::M && last_k < k::K);
      if (k::A_ST_VEC && whole) {
        dev::cp_async<16>(&sA[s][layout::sa_crd(tm, tk)], &a[layout::ga_crd(gm, gk)], 16);
      } else {
        #pragma unroll
        for (int e = 0; e < k::VA; ++e) {
          const long long em = k::A_ALONG_K ? gm : gm + e, ek = k::A_ALONG_K ? gk + e : gk;
          const bool in = k::EVEN || (em < k::M && ek < k::K);
          dev::cp_async<4>(&sA[s][layout::sa_crd(k::A_ALONG_K ? tm : tm + e, k::A_ALONG_K ? tk + e : tk)],
                           in ? &a[layout::ga_crd(em, ek)] : a, in ? 4 : 0);
        }
      }
    }
  };
  auto issue_b = [&](long long k0, int s) {
    #pragma unroll
    for (int v = 0; v < k::LB; ++v) {
      const long long j = t + k::NT * v;
      const long long tk = layout::ldb_k(j), tn = layout::ldb_n(j);
      const long long gk = k0 + tk, gn = n0 + tn;
      const long long last_k = k::B_ALONG_N ? gk : gk + k::VB - 1;
      const long long last_n = k::B_ALONG_N ? gn + k::VB - 1 : gn;
      const bool whole = k::EVEN || (k::B_VEC_OK && last_k < k::K && last_n < k::N);
      if (k::B_ST_VEC && whole) {
        dev::cp_async<16>(&sB[s][layout::sb_crd(tk, tn)], &b[layout::gb_crd(gk, gn)], 16);
      } else {
        #pragma unroll
        for (int e = 0; e < k::VB; ++e) {
          const long long ek = k::B_ALONG_N ? gk : gk + e, en = k::B_ALONG_N ? gn + e : gn;
          const bool in = k::EVEN || (ek < k::K && en < k::N);
          dev::cp_async<4>(&sB[s][layout::sb_crd(k::B_ALONG_N ? tk : tk + e, k::B_ALONG_N ? tn + e : tn)],
                           in ? &b[layout::gb_crd(ek, en)] : b, in ? 4 : 0);
        }
      }
    }
  };
  const long long tiles = (k::K + k::BK - 1) / k::BK;
  if (k::ASYNC) {
    // k::STAGES shared stages filled by cp.async straight from global memory (no registers).
    // One barrier per step: the stage refilled at step t was last read at step t - 1, before this
    // step's barrier.
    auto issue = [&](long long k0, int s) {
      issue_a(k0, s);
      issue_b(k0, s);
    };
    #pragma unroll
    for (int s = 0; s < k::STAGES - 1; ++s) {
      if (s < tiles) issue(s * k::BK, s);
      tessel_cp_async_commit();
    }
    int s = 0;
    for (long long tile = 0; tile < tiles; ++tile) {
      tessel_cp_async_wait<k::STAGES - 2>();
      tessel_sync_block();
      const long long next = tile + k::STAGES - 1;
      if (next < tiles) issue(next * k::BK, (s + k::STAGES - 1) % k::STAGES);
      tessel_cp_async_commit();
      compute(s);
      s = s + 1 == k::STAGES ? 0 : s + 1;
    }
  } else if (k::STAGES == 2 && k::FRAG_PF) {
    // Double buffering with fragment prefetch: two fragment buffers; slice kk + 1 is read
    // before the outer product of slice kk. At the last slice the next tile is stored to stage
    // s ^ 1 (last read before the previous barrier), the block waits, and slice 0 of stage
    // s ^ 1 is read before the last outer product of stage s (BK is even: it lands in buffer 0).
    float fa[2][k::TM], fb[2][k::TN];
    load_global(0);
    if (k::B_ASYNC) issue_b(0, 0), tessel_cp_async_commit();
    store_shared(0);
    if (k::B_ASYNC) tessel_cp_async_wait<0>();
    tessel_sync_block();
    load_frags(0, 0, fa[0], fb[0]);
    for (long long tile = 0; tile < tiles; ++tile) {
      const int s = (int)(tile & 1);
      const bool more = tile + 1 < tiles;
      if (more) {
        load_global((tile + 1) * k::BK);
        if (k::B_ASYNC) issue_b((tile + 1) * k::BK, s ^ 1), tessel_cp_async_commit();
      }
      #pragma unroll
      for (int kk = 0; kk < k::BK; ++kk) {
        if (kk + 1 < k::BK) {
          load_frags(s, kk + 1, fa[(kk + 1) & 1], fb[(kk + 1) & 1]);
        } else if (more) {
          store_shared(s ^ 1);
          if (k::B_ASYNC) tessel_cp_async_wait<0>();
          tessel_sync_block();
          load_frags(s ^ 1, 0, fa[0], fb[0]);
        }
        outer(fa[kk & 1], fb[kk & 1]);
      }
    }
  } else if (k::STAGES == 2 && k::SPLIT_LOADS) {
    // Double buffering with the next tile's loads split in two: A's global loads are issued
    // before the first half of the k-slices and stored to stage s ^ 1 (last read before the
    // previous barrier) after it, then B's are issued and stored after the second half, so the
    // A and B prefetch registers are never live together.
    load_global(0);
    store_shared(0);
    tessel_sync_block();
    for (long long tile = 0; tile < tiles; ++tile) {
      const int s = (int)(tile & 1);
      const bool more = tile + 1 < tiles;
      if (more) load_global_a((tile + 1) * k::BK);
      compute_slices(s, 0, k::BK / 2);
      if (more) {
        store_a(s ^ 1);
        load_global_b((tile + 1) * k::BK);
      }
      compute_slices(s, k::BK / 2, k::BK);
      if (more) store_b(s ^ 1);
      tessel_sync_block();
    }
  } else if (k::STAGES == 2) {
    // Double buffering: the next tile's global loads are in flight while this stage computes;
    // one barrier per step (stage s ^ 1 was last read before the previous barrier).
    // With k::B_ASYNC the B tile skips the registers: cp.async into stage s ^ 1 (last read
    // before the previous barrier), waited for before the barrier.
    load_global(0);
    if (k::B_ASYNC) issue_b(0, 0), tessel_cp_async_commit();
    store_shared(0);
    if (k::B_ASYNC) tessel_cp_async_wait<0>();
    tessel_sync_block();
    for (long long tile = 0; tile < tiles; ++tile) {
      const int s = (int)(tile & 1);
      if (tile + 1 < tiles) {
        load_global((tile + 1) * k::BK);
        if (k::B_ASYNC) issue_b((tile + 1) * k::BK, s ^ 1), tessel_cp_async_commit();
      }
      compute(s);
      if (tile + 1 < tiles) {
        store_shared(s ^ 1);
        if (k::B_ASYNC) tessel_cp_async_wait<0>();
      }
      tessel_sync_block();
    }
  } else {
    for (long long tile = 0; tile < tiles; ++tile) {
      load_global(tile * k::BK);
      store_shared(0);
      tessel_sync_block();
      compute(0);
      tessel_sync_block();
    }
  }
  #pragma unroll
  // Epilogue: groups of k::VC columns (contiguous in C, aligned when k::N % 4 == 0) are written
  // with one vector store where the whole group lies inside C, else element by element.
  for (int i = 0; i < k::TM; ++i) {
    const long long m = m0 + tm0 + layout::val_m(i);
    if (!k::EVEN && m >= k::M) continue;
    #pragma unroll
    for (int j = 0; j < k::TN; j += k::VC) {
      const long long n = n0 + tn0 + layout::val_n(j);
      if (k::VC > 1 && (k::EVEN || n + k::VC - 1 < k::N)) {
        dev::vstore_global<k::VC>(&c[layout::gc_crd(m, n)], &acc[i][j]);
      } else {
        #pragma unroll
        for (int e = 0; e < k::VC; ++e)
          if (n + e < k::N) c[layout::gc_crd(m, n + e)] = acc[i][j + e];
      }
    }
  }
