// tessel-kernels: FlashAttention forward on Hopper (sm_90a), written with tessel's tensor layer.
// O = softmax(scale Q K^T) V and LSE = log(sum exp(scale Q K^T)) per row; Q, K, V, O laid out
// (batch, seq, heads, dim) with run-time strides (in the tensor maps), fp16 or bf16, fp32
// accumulation. tessel_kernels::attention declares every tensor, copy and MMA named here and
// proves them on the host: the TMA boxes write the swizzled tiles the wgmma descriptors read,
// P is converted in registers to the A operand the register-sourced wgmma reads, the row
// reductions cover each row once, the epilogue puts every value in its place without bank
// conflicts.
//
// One block of 384 threads per 128 query rows of one head of one sequence:
//   warpgroup 0     producer: one thread loads Q once, then K and V block by block (from the
//                   last block of keys to the first) into two rings of k::STAGES stages;
//   warpgroups 1-2  consumers: rows 64 c .. 64 c + 63 of the block each: S = Q K^T, the
//                   online softmax, O += P V, then the epilogue.
// The main loop overlaps the softmax with the matrix products (FlashAttention-3's
// intra-warpgroup pipelining, arXiv 2407.08608 section 3.2): each step issues S(n) = Q K(n)^T
// and then O += P(n + 1) V(n + 1) as two wgmma groups, waits for the first (wait_group 1),
// runs the softmax of S(n) while the second runs, and waits for it (wait_group 0) before P is
// rewritten. O's rescale by a step's softmax is applied just before the next P V is issued.
  extern __shared__ __align__(1024) unsigned char smem_raw[];
  // Swizzled tiles start at multiples of 1024 bytes (the 128B pattern's repeat).
  const b32 sQ = ((b32)__cvta_generic_to_shared(smem_raw) + 1023u) & ~1023u;  // Q, then O
  const b32 sK = sQ + k::Q_BYTES;
  const b32 sV = sK + k::STAGES * k::KV_BYTES;
  const b32 bars = sV + k::STAGES * k::KV_BYTES;
  const tessel::sm90::Pipeline<k::STAGES> kpipe{bars};
  const tessel::sm90::Pipeline<k::STAGES> vpipe{bars + 16u * k::STAGES};
  const b32 qbar = bars + 32u * k::STAGES;
  const int wg = threadIdx.x / 128, t = threadIdx.x % 128;
  const float NEG_INF = __int_as_float(0xff800000);

  // The block's rows: query rows m0 .. m0 + BM - 1 of head h of sequence b, reading KV head
  // h / q_per_kv. Causal blocks run the longest rows first.
  const int m_block = k::CAUSAL ? (int)gridDim.x - 1 - (int)blockIdx.x : (int)blockIdx.x;
  const int h = blockIdx.y, b = blockIdx.z, hk = h / q_per_kv;
  int q_start = 0, k_start = 0, len_q = seqlen_q, len_k = seqlen_k;
  if constexpr (k::VARLEN) {
    q_start = cu_q[b];
    len_q = cu_q[b + 1] - q_start;
    k_start = cu_k[b];
    len_k = cu_k[b + 1] - k_start;
  }
  const int m0 = m_block * k::BM;
  if (m0 >= len_q) return;  // the whole block: this sequence is shorter
  // Blocks of keys: all of them, or (causal, bottom-right aligned: row i sees key j <= i + len_k
  // - len_q) those left of the diagonal of the block's last row.
  int n_blocks = (len_k + k::BN - 1) / k::BN;
  if constexpr (k::CAUSAL) {
    const int seen = min(m0 + k::BM, len_q) + len_k - len_q;  // keys the last row sees
    n_blocks = min(n_blocks, seen <= 0 ? 0 : (seen + k::BN - 1) / k::BN);
  }
  const int bq = k::VARLEN ? 0 : b;  // the batch coordinate of the tensor maps

  if (threadIdx.x == 0) {
    kpipe.init(8);  // a stage is free once each of the 8 consumer warps released it
    vpipe.init(8);
    tessel::sm90::mbar_init(qbar, 1);
    tessel::sm90::fence_barrier_init();
  }
  __syncthreads();

  // One box of a (dim, seq, heads[, batch]) tensor map: 64 columns from `col`, rows from `row`.
  auto load = [&](const tessel_tensor_map* map, b32 dst, int col, int row, int head, b32 bar) {
    if constexpr (k::VARLEN) {
      tessel::sm90::tma_load(map, dst, col, row, head, bar);
    } else {
      tessel::sm90::tma_load(map, dst, col, row, head, bq, bar);
    }
  };

  // A consumer's work, written once per index (c a constant).
  auto consume = [&](auto consumer) {
    constexpr int c = decltype(consumer)::value;
    mma::qk qk;
    mma::pv pv;
    // The descriptors of this consumer's blocks: Q (k-block), K (k-block, stage), V^T (k-block,
    // stage), sliced at the consumer's first thread of the two-warpgroup MMAs.
    const auto tSrQ = tensor::dq(sQ)(128 * c, _, _, _);
    const auto tSrK = tensor::dk(sK)(128 * c, _, _, _, _);
    const auto tOrV = tensor::dv(sV)(128 * c, _, _, _, _);
    auto s = tensor::acc_s();   // this thread's share of S (64 x BN per consumer)
    auto o = tensor::acc_o();   // and of O (64 x D)
    auto p = tensor::frag_p();  // P in the element type, as the A operand of pv
    // S and O by rows: (values of a row, rows of the thread); a row's other values are in the
    // lanes l ^ m, m made of the bits of k::ROW_LANES.
    const auto srow = tensor::s_rows(s);
    const auto orow = tensor::o_rows(o);
    constexpr int ROWS = (int)decltype(srow)::template extent<1>();
    constexpr int SCOLS = (int)decltype(srow)::template extent<0>();
    constexpr int OCOLS = (int)decltype(orow)::template extent<0>();
    // Each value's row and column in the block's 128 x BN tile of S.
    const auto crow = tensor::s_row()(128 * c + t, _, _);
    const auto ccol = tensor::s_col()(128 * c + t, _, _);
    float row_max[ROWS], row_sum[ROWS];
#pragma unroll
    for (int r = 0; r < ROWS; ++r) {
      row_max[r] = NEG_INF;
      row_sum[r] = 0.f;
    }
    o.fill(0.f);

    // S = Q K^T of the stage's keys, issued (one committed group, not waited for).
    auto issue_s = [&](int stage) {
      __syncwarp();  // the .aligned wgmma instructions need the whole warp converged
      tessel::sm90::fence_operand(s);
      tessel::sm90::warpgroup_fence();
      qk.scale_d = 0u;
      tessel::gemm(qk, tSrQ, tSrK(_, _, _, stage), s.tensor());
      tessel::sm90::warpgroup_commit();
    };
    // O += P V of the stage's values, issued likewise.
    auto issue_pv = [&](int stage) {
      __syncwarp();
      tessel::sm90::fence_operand(p);
      tessel::sm90::fence_operand(o);
      tessel::sm90::warpgroup_fence();
      tessel::gemm(pv, p.tensor(), tOrV(_, _, _, stage), o.tensor());
      tessel::sm90::warpgroup_commit();
    };
    // The diagonal: key j (of the block) is visible from row i (of the 128-row tile) when
    // j <= i + diag - n * BN.
    const int diag = m0 + len_k - len_q;
    // The mask of block n: keys past the sequence, and (causal) keys right of the diagonal, only
    // in the blocks that reach them (warpgroup-uniform test).
    auto mask = [&](int n) {
      const int col0 = n * k::BN;
      const bool past_end = col0 + k::BN > len_k;
      const bool crosses = k::CAUSAL && col0 + k::BN - 1 > diag + 64 * c;
      if (past_end || crosses) {
        const int limit = len_k - col0, shift = diag - col0;
#pragma unroll
        for (int r = 0; r < ROWS; ++r) {
#pragma unroll
          for (int j = 0; j < SCOLS; ++j) {
            const int i = (int)crow(j, r), jj = (int)ccol(j, r);
            if (jj >= limit || (k::CAUSAL && jj > i + shift)) srow(j, r) = NEG_INF;
          }
        }
      }
    };
    // The online softmax of S, row by row: the new running max (over the thread's values, then
    // its row's lanes), the rescale of the running sum, S = exp2(scale log2(e) S - max) and its
    // row sum (kept per thread; the lanes are summed once at the end). O's rescale is returned in
    // o_scale, to be applied before the next P V accumulates into O (the P V in flight still
    // writes O under the previous max).
    float o_scale[ROWS];
    auto softmax = [&]() {
#pragma unroll
      for (int r = 0; r < ROWS; ++r) {
        float mx = row_max[r];
#pragma unroll
        for (int j = 0; j < SCOLS; ++j) mx = fmaxf(mx, srow(j, r));
        mx = tessel::lanes_max<k::ROW_LANES>(mx);
        // A row that saw only masked keys keeps -inf: subtract 0, not -inf, from it.
        const float base = (mx == NEG_INF ? 0.f : mx) * scale_log2;
        o_scale[r] = tessel::sm90::exp2_approx(row_max[r] * scale_log2 - base);
        row_max[r] = mx;
        row_sum[r] *= o_scale[r];
        float sum = 0.f;
#pragma unroll
        for (int j = 0; j < SCOLS; ++j) {
          const float e = tessel::sm90::exp2_approx(fmaf(srow(j, r), scale_log2, -base));
          srow(j, r) = e;
          sum += e;
        }
        row_sum[r] += sum;
      }
    };
    auto rescale_o = [&]() {
#pragma unroll
      for (int r = 0; r < ROWS; ++r) {
#pragma unroll
        for (int j = 0; j < OCOLS; ++j) orow(j, r) *= o_scale[r];
      }
    };
    // P in the element type, value by value in the A operand's order (the host proved that
    // p_from_s(s)[i] is the element the register-sourced wgmma reads as A value i).
    auto to_p = [&]() { tessel::convert<k::DT>(tensor::p_from_s(s), p.tensor()); };

    if (n_blocks > 0) {
      tessel::sm90::wait(qbar, 0u);
      // Intra-warpgroup overlap: while the softmax of block n runs on the CUDA cores, the tensor
      // cores compute P V of block n + 1 (the previous one: blocks run from the last down).
      // Groups complete in order, so wait_group 1 after issuing S(n) then P V(n + 1) waits for
      // S(n) alone, and wait_group 0 for P V(n + 1) before P is overwritten.
      tessel::sm90::PipelineState sk, sv;  // K's stage (block n), V's (block n + 1)
      int n = n_blocks - 1;
      kpipe.consumer_wait(sk);
      issue_s(sk.index);
      tessel::sm90::warpgroup_wait<0>();
      tessel::sm90::fence_operand(s);
      if (t % 32 == 0) kpipe.consumer_release(sk.index);
      sk.advance<k::STAGES>();
      mask(n);
      softmax();
      to_p();
      for (--n; n >= 0; --n) {
        kpipe.consumer_wait(sk);
        issue_s(sk.index);
        rescale_o();
        vpipe.consumer_wait(sv);
        issue_pv(sv.index);
        tessel::sm90::warpgroup_wait<1>();  // S(n)
        tessel::sm90::fence_operand(s);
        if (t % 32 == 0) kpipe.consumer_release(sk.index);
        sk.advance<k::STAGES>();
        mask(n);
        softmax();
        tessel::sm90::warpgroup_wait<0>();  // P V(n + 1): P and O are free
        tessel::sm90::fence_operand(p);
        tessel::sm90::fence_operand(o);
        if (t % 32 == 0) vpipe.consumer_release(sv.index);
        sv.advance<k::STAGES>();
        to_p();
      }
      // The last P V (block 0).
      rescale_o();
      vpipe.consumer_wait(sv);
      issue_pv(sv.index);
      tessel::sm90::warpgroup_wait<0>();
      tessel::sm90::fence_operand(o);
      if (t % 32 == 0) vpipe.consumer_release(sv.index);
    }

    // O / sum and LSE = max * scale + log(sum) per row; a row that saw no key: O = 0, LSE = -inf.
    float lse[ROWS];
#pragma unroll
    for (int r = 0; r < ROWS; ++r) {
      const float sum = tessel::lanes_sum<k::ROW_LANES>(row_sum[r]);
      const bool empty = sum == 0.f || sum != sum;
      const float inv = empty ? 0.f : 1.f / sum;
      lse[r] = empty ? NEG_INF : row_max[r] * scale + __logf(sum);
#pragma unroll
      for (int j = 0; j < OCOLS; ++j) orow(j, r) *= inv;
    }
    // The LSE of each row, by the first of its lanes.
    if (((t % 32) & k::ROW_LANES) == 0) {
#pragma unroll
      for (int r = 0; r < ROWS; ++r) {
        const int row = m0 + (int)crow(0, r);
        if (row < len_q) LSE[(long long)b * lse_batch + (long long)h * lse_head + q_start + row] = lse[r];
      }
    }

    // The epilogue: O in the element type through this consumer's rows of the Q buffer (its
    // last wgmma reading them is complete): stmatrix by the tiled copy o_st, then TMA stores of
    // its 64-column blocks (fixed lengths: the map clips rows past the sequence), or 16-byte
    // loads and predicated stores of the rows below len_q (varlen).
    auto half = tensor::o_half();
    tessel::convert<k::DT>(o.tensor(), half.tensor());
    tessel::copy(copy::o_st{}, tensor::o_regs(half)(_, _, _, _), tensor::o_tiles(sQ)(t, _, _, _, _, c, 0));
    tessel::sm90::fence_proxy_async();
    tessel::sm90::bar_sync(1 + c, 128);
    const int row0 = m0 + 64 * c;
    if constexpr (!k::VARLEN) {
      if (t == 0 && row0 < len_q) {
#pragma unroll
        for (int j = 0; j < k::COL_BLOCKS; ++j) {
          tessel::sm90::tma_store(&tmap_o, sQ + c * k::O_ROWS_BYTES + j * k::Q_BLOCK_BYTES, 64 * j, row0, h, bq);
        }
        tessel::sm90::store_commit();
        tessel::sm90::store_wait<0>();  // the stores read shared memory until they complete
      }
    } else {
      auto v = tensor::o_vec();
      tessel::copy(copy::o_ld{}, tensor::o_lds(sQ)(t, _, _, _, _, c, 0), v.tensor());
      const auto vrow = tensor::o_vrow()(t, _, _, _, _, c, 0);
      const auto vcol = tensor::o_vcol()(t, _, _, _, _, c, 0);
      const auto vv = v.tensor();
      constexpr int VECS = (int)(decltype(vv)::size() / copy::o_ld::values);
#pragma unroll
      for (int a = 0; a < VECS; ++a) {
        const int row = m0 + (int)vrow.rest(a)[0];
        if (row < len_q) {
          b16* dst = O + (long long)(q_start + row) * o_seq + (long long)h * o_head + vcol.rest(a)[0];
          tessel::store_vector(tessel::gmem<b16>{dst}, 0, tessel::load_slice<uint4>(vv.rest(a)));
        }
      }
    }
  };

  if (wg == 0) {
    // The producer.
    tessel::sm90::regs_dec<k::PRODUCER_REGS>();
    if (t == 0 && n_blocks > 0) {
      tessel::sm90::prefetch_map(&tmap_q);
      tessel::sm90::prefetch_map(&tmap_k);
      tessel::sm90::prefetch_map(&tmap_v);
      tessel::sm90::arrive_expect_tx(qbar, k::Q_BYTES);
#pragma unroll
      for (int j = 0; j < k::COL_BLOCKS; ++j) load(&tmap_q, sQ + j * k::Q_BLOCK_BYTES, 64 * j, q_start + m0, h, qbar);
      tessel::sm90::PipelineState st;
      for (int n = n_blocks - 1; n >= 0; --n) {
        const int row = k_start + n * k::BN;
        const b32 kfull = kpipe.producer_acquire(st, k::KV_BYTES);
#pragma unroll
        for (int j = 0; j < k::COL_BLOCKS; ++j) {
          load(&tmap_k, sK + st.index * k::KV_BYTES + j * k::KV_BLOCK_BYTES, 64 * j, row, hk, kfull);
        }
        const b32 vfull = vpipe.producer_acquire(st, k::KV_BYTES);
#pragma unroll
        for (int j = 0; j < k::COL_BLOCKS; ++j) {
          load(&tmap_v, sV + st.index * k::KV_BYTES + j * k::KV_BLOCK_BYTES, 64 * j, row, hk, vfull);
        }
        st.advance<k::STAGES>();
      }
    }
  } else {
    // The consumers.
    tessel::sm90::regs_inc<k::CONSUMER_REGS>();
    if (wg == 1) {
      consume(tessel::Int<0>{});
    } else {
      consume(tessel::Int<1>{});
    }
  }
