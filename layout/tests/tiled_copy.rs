//! Tiled copies against their definition (CuTe `include/cute/atom/copy_atom.hpp`,
//! `make_tiled_copy`: thread `thr_layout(c_t)`, value `val_layout(c_v)` holds the tile
//! coordinate whose per-mode coordinate is `c_v + shape(val) * c_t`, the raked arrangement),
//! evaluated here from the thread and value layouts alone, and against the three thread
//! arrangements the tiled kernels used before they were built with `make_tiled_copy` (written
//! out by formula here, so the construction is checked against what the kernels were verified
//! with).

use tessel_layout::atom::{TypedCopyAtom, copy_atom, mma_atom};
use tessel_layout::tiled::{
    TiledCopy, make_tiled_copy, make_tiled_copy_a, make_tiled_copy_b, make_tiled_mma,
};
use tessel_layout::{IntTuple, Layout};

fn l(s: &str) -> Layout {
    s.parse().unwrap()
}

fn universal(bits: u32, value_bits: i64) -> TypedCopyAtom {
    copy_atom(&format!("UniversalCopy<uint{bits}_t>"))
        .unwrap()
        .typed(value_bits)
        .unwrap()
}

/// Per-mode extents of a rank-2 layout.
fn extents(x: &Layout) -> [i64; 2] {
    [x.mode(0).unwrap().size(), x.mode(1).unwrap().size()]
}

/// The definition of make_tiled_copy's TV layout, by enumeration of the tile.
fn check_raked(copy: &TiledCopy, thr: &Layout, val: &Layout) {
    let ([mt, nt], [mv, nv]) = (extents(thr), extents(val));
    let (big_m, big_n) = (mt * mv, nt * nv);
    assert_eq!(copy.tiler(), &[big_m, big_n]);
    let tv = copy.layout_tv();
    let threads = thr.size();
    let mut seen = vec![false; (big_m * big_n) as usize];
    for n in 0..big_n {
        for m in 0..big_m {
            let t = thr.crd2idx(&IntTuple::from_ints([m / mv, n / nv])).unwrap();
            let v = val.crd2idx(&IntTuple::from_ints([m % mv, n % nv])).unwrap();
            let got = tv.offset(t + threads * v).unwrap();
            assert_eq!(got, m + big_m * n, "{thr} {val}: thread {t} value {v}");
            assert!(!std::mem::replace(&mut seen[got as usize], true));
        }
    }
    assert_eq!(tv.size(), big_m * big_n);
}

#[test]
fn make_tiled_copy_is_the_raked_arrangement() {
    let cases = [
        (universal(128, 32), "(32,8):(1,32)", "(4,1):(1,0)"), // CuTe 0x_gemm_tutorial.md
        (universal(128, 32), "(32,8):(8,1)", "(1,4):(0,1)"),
        (universal(128, 16), "(16,8):(8,1)", "(1,8):(0,1)"),
        (universal(64, 16), "(4,8):(1,4)", "(2,2):(1,2)"),
        (universal(32, 32), "(8,32):(32,1)", "(1,1):(0,0)"),
        (universal(32, 16), "(2,16):(1,2)", "(2,2):(2,1)"),
        (universal(16, 16), "(4,4):(4,1)", "(3,2):(2,1)"),
    ];
    for (atom, thr, val) in cases {
        let (thr, val) = (l(thr), l(val));
        let copy = make_tiled_copy(&atom, &thr, &val).unwrap();
        check_raked(&copy, &thr, &val);
        // Source and destination TV layouts of a one-thread atom are the TV layout itself.
        assert_eq!(
            copy.layout_s_tv().unwrap().offsets(),
            copy.layout_tv().offsets()
        );
        assert_eq!(
            copy.layout_d_tv().unwrap().offsets(),
            copy.layout_tv().offsets()
        );
    }
}

#[test]
fn make_tiled_copy_errors_name_the_condition() {
    // 3 values cannot be whole 128-bit (4-float) atoms: CuTe's TiledNumVal % AtomNumVal.
    let err = make_tiled_copy(&universal(128, 32), &l("32:1"), &l("3:1")).unwrap_err();
    assert!(err.message().contains("AtomNumVal"), "{err}");
    // A thread layout that skips indices leaves (thread, value) pairs unreached.
    let err = make_tiled_copy(&universal(32, 32), &l("4:2"), &l("1:0")).unwrap_err();
    assert!(err.message().contains("not a bijection"), "{err}");
    // Partitioning a layout of lower rank than the tile.
    let copy = make_tiled_copy(&universal(32, 32), &l("(4,4):(4,1)"), &l("1:0")).unwrap();
    assert!(copy.tidfrg_s(&l("64:1")).is_err());
    assert!(copy.get_slice(16).is_err());
}

/// Every thread's partition of `data`: partition index `v + V * (rm + RM * rn)` is the data at
/// tile coordinate `tv(t, v)` of tile `(rm, rn)`.
fn check_partition(copy: &TiledCopy, data: &Layout) {
    let [tm, tn] = [copy.tiler()[0], copy.tiler()[1]];
    let [dm, dn] = extents(data);
    let (rm, rn) = (dm / tm, dn / tn);
    let (threads, values) = (copy.threads(), copy.values());
    let tv = copy.layout_tv();
    let mut touched = vec![0u32; data.cosize() as usize];
    for t in 0..threads {
        let (s, s_off) = copy.get_slice(t).unwrap().partition_s(data).unwrap();
        let (d, d_off) = copy.get_slice(t).unwrap().partition_d(data).unwrap();
        assert_eq!(s.size(), values * rm * rn);
        for j in 0..rn {
            for i in 0..rm {
                for v in 0..values {
                    let c = tv.offset(t + threads * v).unwrap();
                    let (m, n) = (c % tm + tm * i, c / tm + tn * j);
                    let want = data.crd2idx(&IntTuple::from_ints([m, n])).unwrap();
                    let idx = v + values * (i + rm * j);
                    assert_eq!(
                        s_off + s.offset(idx).unwrap(),
                        want,
                        "thread {t} index {idx}"
                    );
                    assert_eq!(d_off + d.offset(idx).unwrap(), want);
                    touched[want as usize] += 1;
                }
            }
        }
    }
    assert!(touched.iter().all(|&k| k == 1));
}

#[test]
fn partitions_follow_the_tv_layout_over_every_tile() {
    let copy =
        make_tiled_copy(&universal(128, 32), &l("(32,8):(1,32)"), &l("(4,1):(1,0)")).unwrap();
    check_partition(&copy, &l("(256,16):(1,256)"));
    check_partition(&copy, &l("(128,24):(24,1)"));
    let copy = make_tiled_copy(&universal(64, 16), &l("(4,8):(8,1)"), &l("(2,2):(2,1)")).unwrap();
    check_partition(&copy, &l("(16,32):(32,1)"));
}

#[test]
fn tutorial_copy_partitions_four_floats_per_thread() {
    // CuTe media/docs/cpp/cute/0x_gemm_tutorial.md (sgemm_2): a 32x8 m-major thread layout,
    // 4x1 values, UniversalCopy<uint128_t> of floats: the CPY mode holds 4 elements.
    let copy =
        make_tiled_copy(&universal(128, 32), &l("(32,8):(1,32)"), &l("(4,1):(1,0)")).unwrap();
    let g_a = l("(128,8,4):(1,128,1024)"); // (BLK_M, BLK_K, k)
    let (part, _) = copy.get_slice(0).unwrap().partition_s(&g_a).unwrap();
    assert_eq!(part.mode(0).unwrap().size(), 4); // CPY
    assert_eq!(part.rank(), 4); // (CPY, CPY_M, CPY_K, k)
    assert_eq!(part.mode(3).unwrap().size(), 4);
}

#[test]
fn ldmatrix_copies_deliver_the_mma_fragments() {
    // CuTe make_tiled_copy_A/B: the copy's destination (register) TV layout is the tiled MMA's
    // A (B) TV layout; each ldmatrix source row is 8 consecutive K elements of one M (N) row.
    let mma = make_tiled_mma(
        &mma_atom("SM80_16x8x16_F32F16F16F32_TN").unwrap(),
        &l("(2,2,1):(1,2,0)"),
        &[],
    )
    .unwrap();
    let cases = [
        (
            make_tiled_copy_a(
                &copy_atom("SM75_U32x4_LDSM_N").unwrap().typed(16).unwrap(),
                &mma,
            ),
            mma.layout_a_tv().unwrap(),
        ),
        (
            make_tiled_copy_b(
                &copy_atom("SM75_U32x2_LDSM_N").unwrap().typed(16).unwrap(),
                &mma,
            ),
            mma.layout_b_tv().unwrap(),
        ),
    ];
    for (copy, frag) in cases {
        let copy = copy.unwrap();
        let rows = copy.tiler()[0];
        let (d, s) = (copy.layout_d_tv().unwrap(), copy.layout_s_tv().unwrap());
        let threads = copy.threads();
        let values = copy.values();
        assert_eq!(d.size(), frag.size());
        for t in 0..threads {
            let mut got: Vec<i64> = (0..values)
                .map(|v| d.offset(t + threads * v).unwrap())
                .collect();
            let mut want: Vec<i64> = (0..values)
                .map(|v| frag.offset(t + threads * v).unwrap())
                .collect();
            got.sort_unstable();
            want.sort_unstable();
            assert_eq!(got, want, "thread {t}");
            // Source: groups of 8 values are one row of 8 consecutive K.
            for g in 0..values / 8 {
                let first = s.offset(t + threads * 8 * g).unwrap();
                for e in 1..8 {
                    assert_eq!(
                        s.offset(t + threads * (8 * g + e)).unwrap(),
                        first + rows * e
                    );
                }
            }
        }
        // The source covers the tile evenly: warps along the other MMA mode load the same
        // fragment (A is shared by the atoms along N, B by those along M), and the upper 16
        // lanes of ldmatrix.x2 repeat the addresses of the lower 16.
        let tile = copy.tiler()[0] * copy.tiler()[1];
        let mut count = vec![0i64; tile as usize];
        for o in s.offsets() {
            count[o as usize] += 1;
        }
        assert!(count.iter().all(|&c| c == s.size() / tile), "{count:?}");
    }
}

// ---- The tiled kernels' earlier TV layouts, written out by formula. ----
// (thread, value) -> r + TM * c, domain index t + threads * v.

fn layout2(shape: [[i64; 2]; 2], stride: [[i64; 2]; 2]) -> Layout {
    let tup =
        |x: [[i64; 2]; 2]| IntTuple::tuple([IntTuple::from_ints(x[0]), IntTuple::from_ints(x[1])]);
    Layout::new(tup(shape), tup(stride)).unwrap()
}

/// Lanes along columns, `vec` columns per thread, rows raked by thread rows.
fn rows_raked(tm: i64, tn: i64, vec: i64, threads: i64) -> Layout {
    let tc = tn / vec;
    let tr = threads / tc;
    let k = tm / tr;
    layout2([[tc, tr], [vec, k]], [[vec * tm, 1], [tm, tr]])
}

/// Lanes along rows, `vec` rows per thread, columns raked.
fn cols_raked(tm: i64, tn: i64, vec: i64, threads: i64) -> Layout {
    let tr = tm / vec;
    let tc = threads / tr;
    let k = tn / tc;
    layout2([[tr, tc], [vec, k]], [[vec, tm], [1, tc * tm]])
}

/// Each thread a `vec x vec` block, values column-fastest.
fn blocks(tm: i64, tn: i64, vec: i64) -> Layout {
    let (tc, tr) = (tn / vec, tm / vec);
    layout2([[tc, tr], [vec, vec]], [[vec * tm, vec], [tm, 1]])
}

/// The per-thread partition of the column-major `tm x tn` tile by `copy`, as a TV function.
fn partitioned_tv(copy: &TiledCopy, tm: i64, tn: i64, threads: i64) -> Vec<i64> {
    let tile = Layout::new(IntTuple::from_ints([tm, tn]), IntTuple::from_ints([1, tm])).unwrap();
    let per_thread = tm * tn / threads;
    let mut out = vec![0; (tm * tn) as usize];
    for t in 0..threads {
        let (p, off) = copy.get_slice(t).unwrap().partition_s(&tile).unwrap();
        assert_eq!(p.size(), per_thread);
        for i in 0..per_thread {
            out[(t + threads * i) as usize] = off + p.offset(i).unwrap();
        }
    }
    out
}

fn atom_for(vec: i64, value_bits: i64) -> TypedCopyAtom {
    let bits = (vec * value_bits) as u32;
    universal(bits, value_bits)
}

#[test]
fn rows_raked_is_a_row_major_thread_grid_repeated_down_the_tile() {
    // kernels/src/tiled.rs: Copy uses rows_raked(64, 16*vec, vec, 256) (vec = 4 for f32, 8 for
    // f16); NaiveRead and the transposes' loads use rows_raked(32, 32, 1, 256).
    for (tm, tn, vec, bits) in [
        (64, 64, 4, 32),
        (64, 128, 8, 16),
        (32, 32, 1, 32),
        (32, 32, 1, 16),
    ] {
        let threads = 256;
        let tc = tn / vec;
        let tr = threads / tc;
        let copy = make_tiled_copy(
            &atom_for(vec, bits),
            &l(&format!("({tr},{tc}):({tc},1)")),
            &l(&format!("(1,{vec}):(0,1)")),
        )
        .unwrap();
        assert_eq!(copy.tiler(), &[tr, tn]);
        assert_eq!(
            partitioned_tv(&copy, tm, tn, threads),
            rows_raked(tm, tn, vec, threads).offsets()
        );
    }
}

#[test]
fn cols_raked_is_a_column_major_thread_grid_repeated_across_the_tile() {
    // kernels/src/tiled.rs: NaiveWrite and the transposes' stores use cols_raked(32, 32, 1, 256);
    // Vectorized stores cols_raked(16*vec, 16*vec, vec, 256).
    for (tm, tn, vec, bits) in [
        (32, 32, 1, 32),
        (32, 32, 1, 16),
        (64, 64, 4, 32),
        (128, 128, 8, 16),
    ] {
        let threads = 256;
        let tr = tm / vec;
        let tc = threads / tr;
        let copy = make_tiled_copy(
            &atom_for(vec, bits),
            &l(&format!("({tr},{tc}):(1,{tr})")),
            &l(&format!("({vec},1):(1,0)")),
        )
        .unwrap();
        assert_eq!(copy.tiler(), &[tm, tc]);
        assert_eq!(
            partitioned_tv(&copy, tm, tn, threads),
            cols_raked(tm, tn, vec, threads).offsets()
        );
    }
}

#[test]
fn blocks_is_one_make_tiled_copy() {
    // kernels/src/tiled.rs: Vectorized loads blocks(16*vec, 16*vec, vec): a 16x16 row-major
    // thread grid, each thread a vec x vec row-major block of values.
    for (tm, vec, bits) in [(64, 4, 32), (128, 8, 16)] {
        let t = tm / vec;
        let copy = make_tiled_copy(
            &atom_for(vec, bits),
            &l(&format!("({t},{t}):({t},1)")),
            &l(&format!("({vec},{vec}):({vec},1)")),
        )
        .unwrap();
        assert_eq!(copy.tiler(), &[tm, tm]);
        assert_eq!(copy.layout_tv().offsets(), blocks(tm, tm, vec).offsets());
        assert_eq!(
            partitioned_tv(&copy, tm, tm, 256),
            blocks(tm, tm, vec).offsets()
        );
    }
}

#[test]
fn retile_views_the_mma_fragment_in_the_copys_value_order() {
    // CuTe's use: smem_thr_copy_A.retile_D(tCrA), the registers of partition_fragment_A seen as
    // (copy values, copies...). It is a re-indexing: the same registers, each once.
    let mma = make_tiled_mma(
        &mma_atom("SM80_16x8x16_F32F16F16F32_TN").unwrap(),
        &l("(2,2,1):(1,2,0)"),
        &[],
    )
    .unwrap();
    let copy = make_tiled_copy_a(
        &copy_atom("SM75_U32x4_LDSM_N").unwrap().typed(16).unwrap(),
        &mma,
    )
    .unwrap();
    for shape in [[32, 16], [64, 32]] {
        let frag_shape = mma.partition_shape_a(&shape).unwrap();
        let frag = Layout::col_major(&frag_shape).unwrap();
        let view = copy.get_slice(0).unwrap().retile_d(&frag).unwrap();
        assert_eq!(view.size(), frag.size(), "{frag} -> {view}");
        assert_eq!(view.mode(0).unwrap().size(), 8); // one ldmatrix.x4: 8 halves per lane
        let mut offs = view.offsets();
        offs.sort_unstable();
        assert_eq!(
            offs,
            (0..frag.size()).collect::<Vec<_>>(),
            "{frag} -> {view}"
        );
    }
}

fn compact(extents: [i64; 2], row_major: bool) -> Layout {
    let shape = IntTuple::from_ints(extents);
    if row_major {
        Layout::row_major(&shape).unwrap()
    } else {
        Layout::col_major(&shape).unwrap()
    }
}

proptest::proptest! {
    #[test]
    fn make_tiled_copy_is_raked_for_any_compact_layouts(
        tm in 0u32..4, tn in 0u32..4, vm in 1i64..5, vn in 1i64..5,
        thr_rows: bool, val_rows: bool,
    ) {
        // One 16-bit value per atom, so any value count is whole atoms.
        let atom = universal(16, 16);
        let thr = compact([1 << tm, 1 << tn], thr_rows);
        let val = compact([vm, vn], val_rows);
        let copy = make_tiled_copy(&atom, &thr, &val).unwrap();
        check_raked(&copy, &thr, &val);
    }
}

#[test]
fn the_gemm_ldmatrix_addresses_are_make_tiled_copy_a() {
    // The SM80 GEMM's ldmatrix.x4 reads of A as it first spelled them by hand (BM = 128, BK = 32,
    // 2 x 2 warps of 64 x 64): lane l of warp (wm, wn) addresses the 8 halves of row
    // l % 16 + 64 wm + 16 mi at columns 8 (l / 16) + 16 kk + j. Re-derived here; it is the
    // source partition of make_tiled_copy_A(SM75_U32x4_LDSM_N, the GEMM's tiled MMA).
    let mma = make_tiled_mma(
        &mma_atom("SM80_16x8x16_F32F16F16F32_TN").unwrap(),
        &l("(2,2):(1,2)"),
        &[Some(l("(16,2,4):(1,64,16)")), Some(l("(8,2,8):(1,64,8)"))],
    )
    .unwrap();
    let ldsm = copy_atom("SM75_U32x4_LDSM_N").unwrap().typed(16).unwrap();
    let copy = make_tiled_copy_a(&ldsm, &mma).unwrap();
    let tile = l("(128,32):(1,128)");
    for t in 0..128 {
        let (lane, w) = (t % 32, t / 32);
        let wm = w % 2;
        let (p, off) = copy.get_slice(t).unwrap().partition_s(&tile).unwrap();
        assert_eq!(p.size(), 8 * 4 * 2);
        for kk in 0..2 {
            for mi in 0..4 {
                for j in 0..8 {
                    let row = lane % 16 + 64 * wm + 16 * mi;
                    let col = 8 * (lane / 16) + 16 * kk + j;
                    let idx = j + 8 * (mi + 4 * kk);
                    assert_eq!(
                        off + p.offset(idx).unwrap(),
                        row + 128 * col,
                        "t{t} j{j} mi{mi} kk{kk}"
                    );
                }
            }
        }
    }
}

#[test]
fn the_gemm_ldmatrix_addresses_of_b_are_make_tiled_copy_b() {
    // The same GEMM's reads of B (BN = 128): lane l of warp (wm, wn) addresses the 8 halves of
    // row l % 8 + 8 (l / 16) + 64 wn + 16 nj at columns 8 ((l / 8) % 2) + 16 kk + j.
    let mma = make_tiled_mma(
        &mma_atom("SM80_16x8x16_F32F16F16F32_TN").unwrap(),
        &l("(2,2):(1,2)"),
        &[Some(l("(16,2,4):(1,64,16)")), Some(l("(8,2,8):(1,64,8)"))],
    )
    .unwrap();
    let ldsm = copy_atom("SM75_U32x4_LDSM_N").unwrap().typed(16).unwrap();
    let copy = make_tiled_copy_b(&ldsm, &mma).unwrap();
    let tile = l("(128,32):(1,128)");
    for t in 0..128 {
        let (lane, w) = (t % 32, t / 32);
        let wn = w / 2;
        let (p, off) = copy.get_slice(t).unwrap().partition_s(&tile).unwrap();
        assert_eq!(p.size(), 8 * 4 * 2);
        for kk in 0..2 {
            for nj in 0..4 {
                for j in 0..8 {
                    let row = lane % 8 + 8 * (lane / 16) + 64 * wn + 16 * nj;
                    let col = 8 * ((lane / 8) % 2) + 16 * kk + j;
                    let idx = j + 8 * (nj + 4 * kk);
                    assert_eq!(
                        off + p.offset(idx).unwrap(),
                        row + 128 * col,
                        "t{t} j{j} nj{nj} kk{kk}"
                    );
                }
            }
        }
    }
}

#[test]
fn thread_and_value_layouts_must_be_bijections() {
    // CuTe copy_atom.hpp, make_tiled_copy: thr_layout maps (m,n) to a thread index and
    // val_layout (m,n) to a value index, each onto 0..size. (2,1):(2,1) maps its two
    // coordinates to threads 0 and 2: thread 1 has no coordinate, yet the raked product's
    // right inverse still reaches all 4 (thread, value) pairs, and the copy gave thread 1
    // data. Every thread's data is checked against the definition below.
    let atom = universal(32, 32);
    let err = make_tiled_copy(&atom, &l("(2,1):(2,1)"), &l("(2,1):(1,1)")).unwrap_err();
    assert!(
        err.message()
            .contains("thread layout (2,1):(2,1) is not a bijection"),
        "{err}"
    );
    let err = make_tiled_copy(&atom, &l("(2,1):(1,1)"), &l("(2,2):(0,1)")).unwrap_err();
    assert!(
        err.message()
            .contains("value layout (2,2):(0,1) is not a bijection"),
        "{err}"
    );
    // A bijective permuted thread layout is accepted; thread t holds exactly the tile
    // coordinates thr_layout maps to t (the raked definition, checked by enumeration).
    let (thr, val) = (l("(2,2):(2,1)"), l("(2,1):(1,0)"));
    let copy = make_tiled_copy(&atom, &thr, &val).unwrap();
    check_raked(&copy, &thr, &val);
    // The same in the expression language, as the finding was written.
    let text = "make_tiled_copy(UniversalCopy<uint32_t>, (2,1):(2,1), (2,1):(1,1), 32)";
    let err = tessel_layout::expr::eval(text).unwrap_err();
    assert!(err.message().contains("not a bijection"), "{err}");
}
