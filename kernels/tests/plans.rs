//! Host-side checks of the kernel plans (no GPU): every plan validates at many sizes, the
//! bank-model predictions say which kernels are conflict-free, and vector widths follow the
//! matrix layouts.

use tessel_kernels::Element;
use tessel_kernels::micro::{MicroKind, MicroPlan};
use tessel_kernels::tiled::{TiledKind, TiledPlan};

fn kinds() -> Vec<TiledKind> {
    let mut k = vec![TiledKind::Copy];
    k.extend(TiledKind::LADDER);
    k
}

#[test]
fn every_plan_validates_and_generates_complete_source() {
    for dtype in [Element::F32, Element::F16] {
        for (m, n) in [
            (1, 1),
            (7, 3),
            (64, 64),
            (100, 70),
            (1000, 1001),
            (8192, 8192),
            (333, 4096),
        ] {
            for kind in kinds() {
                let plan = TiledPlan::new(kind, dtype, m, n)
                    .unwrap_or_else(|e| panic!("{kind} {dtype} {m}x{n}: {e}"));
                // The assembler refuses a body referring to a piece the plan did not give, and
                // a piece the body never uses.
                let kernel = plan
                    .kernel()
                    .unwrap_or_else(|e| panic!("{kind} {dtype} {m}x{n}: {e}"));
                let src = kernel.source();
                assert!(src.contains(&format!("enum : long long {{ M = {m}LL }};")));
                assert_eq!(kernel.name(), plan.kernel_name());
            }
        }
    }
}

#[test]
fn tiled_predictions_equal_the_nsight_compute_measurements() {
    // docs/journal.md, "Shared-memory wavefronts: Nsight Compute vs. prediction": load and
    // store wavefronts of one launch at 1024^2 measured on an H200 (runs 4 and 7).
    let measured = [
        (TiledKind::Copy, Element::F32, 32768, 32768),
        (TiledKind::Smem, Element::F32, 1048576, 32768),
        (TiledKind::Padded, Element::F32, 32768, 32768),
        (TiledKind::Swizzled, Element::F32, 32768, 32768),
        (TiledKind::Vectorized, Element::F32, 32768, 32768),
        (TiledKind::Copy, Element::F16, 16384, 16384),
        (TiledKind::Smem, Element::F16, 524288, 32768),
        (TiledKind::Padded, Element::F16, 32768, 32768),
        (TiledKind::Swizzled, Element::F16, 32768, 32768),
        (TiledKind::Vectorized, Element::F16, 16384, 16384),
    ];
    for (kind, dtype, ld, st) in measured {
        let p = TiledPlan::new(kind, dtype, 1024, 1024)
            .unwrap()
            .predict()
            .unwrap()
            .unwrap();
        assert_eq!(
            (p.loads.wavefronts, p.stores.wavefronts),
            (ld, st),
            "{kind} {dtype}"
        );
    }
}

#[test]
fn conflict_free_kernels_predict_zero_excess() {
    for dtype in [Element::F32, Element::F16] {
        for kind in [TiledKind::Copy, TiledKind::Vectorized] {
            let p = TiledPlan::new(kind, dtype, 4096, 4096)
                .unwrap()
                .predict()
                .unwrap()
                .unwrap();
            assert_eq!(
                (p.loads.wavefronts, p.stores.wavefronts),
                (p.loads.ideal, p.stores.ideal),
                "{kind} {dtype}"
            );
        }
    }
    for kind in [TiledKind::Padded, TiledKind::Swizzled] {
        let p = TiledPlan::new(kind, Element::F32, 4096, 4096)
            .unwrap()
            .predict()
            .unwrap()
            .unwrap();
        assert_eq!(
            (p.loads.wavefronts, p.stores.wavefronts),
            (p.loads.ideal, p.stores.ideal),
            "{kind}"
        );
    }
    let p = TiledPlan::new(TiledKind::Smem, Element::F32, 4096, 4096)
        .unwrap()
        .predict()
        .unwrap()
        .unwrap();
    assert_eq!(
        p.loads.wavefronts,
        32 * p.loads.ideal,
        "row-major tile: 32-way conflicting column reads"
    );
    assert_eq!(p.stores.wavefronts, p.stores.ideal);
    assert!(
        TiledPlan::new(TiledKind::NaiveRead, Element::F32, 64, 64)
            .unwrap()
            .predict()
            .unwrap()
            .is_none()
    );
}

#[test]
fn microkernel_predictions_follow_the_bank_model() {
    // docs/bank-model.md: ideal 1 wavefront for 32-bit, 4 for 128-bit accesses.
    let want = [
        (MicroKind::Column, 32, 1),
        (MicroKind::ColumnPadded, 1, 1),
        (MicroKind::ColumnSwizzled, 1, 1),
        (MicroKind::Vec128, 4, 4),
        (MicroKind::Vec128Strided, 32, 4),
    ];
    for (kind, ld, ideal) in want {
        let p = MicroPlan::new(kind).unwrap().predict(1).unwrap();
        assert_eq!((p.loads.wavefronts, p.loads.ideal), (ld, ideal), "{kind}");
        assert_eq!(
            (p.stores.wavefronts, p.stores.ideal),
            (32, 32),
            "{kind}: row-wise fill is conflict-free"
        );
        let p10 = MicroPlan::new(kind).unwrap().predict(10).unwrap();
        assert_eq!(p10.loads.wavefronts, 10 * ld);
    }
}

#[test]
fn bank_model_counts_broadcast_once() {
    // The kernels' predictions go through analyze_indices: 32 lanes reading one word are one
    // broadcast; 32 lanes on every other word put two distinct words in each of 16 banks.
    use tessel_layout::bank::analyze_indices;
    let words: tessel_layout::Layout = "64:1".parse().unwrap();
    let lds = "lds.32".parse().unwrap();
    let wavefronts = |indices: &[i64]| {
        let r = analyze_indices(&words, 4, lds, indices).unwrap()[0];
        (r.wavefronts, r.ideal)
    };
    let same: Vec<i64> = (0..32).map(|_| 0).collect();
    assert_eq!(wavefronts(&same), (1, 1));
    let two_way: Vec<i64> = (0..32).map(|l| l * 2).collect();
    assert_eq!(wavefronts(&two_way), (2, 1));
}

#[test]
fn vector_widths_follow_alignment() {
    // [global load, shared write, shared read, global store], elements per instruction.
    let p = TiledPlan::new(TiledKind::Copy, Element::F16, 4096, 4096).unwrap();
    assert_eq!(p.vector_widths(), [8, 8, 8, 8]);
    let p = TiledPlan::new(TiledKind::Copy, Element::F16, 4096, 4100).unwrap();
    assert_eq!(
        p.vector_widths(),
        [4, 8, 8, 4],
        "rows of 4100 halves are 8-byte aligned only"
    );
    let p = TiledPlan::new(TiledKind::Vectorized, Element::F16, 1001, 4096).unwrap();
    assert_eq!(
        p.vector_widths(),
        [8, 8, 8, 1],
        "transposed rows of 1001 halves are unaligned"
    );
    let p = TiledPlan::new(TiledKind::NaiveRead, Element::F32, 64, 64).unwrap();
    assert_eq!(p.vector_widths(), [1, 0, 0, 1]);
    let p = TiledPlan::new(TiledKind::Padded, Element::F16, 64, 64).unwrap();
    assert_eq!(p.vector_widths(), [1, 1, 1, 1]);
}

#[test]
fn bad_sizes_are_errors_not_panics() {
    assert!(TiledPlan::new(TiledKind::Copy, Element::F32, 0, 5).is_err());
    // Tall matrices need no special case: the grid is linear.
    let p = TiledPlan::new(TiledKind::Smem, Element::F32, 32 * 70000, 1).unwrap();
    assert_eq!(p.grid(), (70000, 1));
}

#[test]
fn raster_layouts_visit_every_tile_once() {
    use tessel_kernels::tiled::raster_layout;
    for (ty, tx) in [(1, 1), (4, 6), (128, 128), (3, 5), (16, 8), (256, 64)] {
        for g in [0, 1, 2, 8, 16] {
            let r = raster_layout(ty, tx, g).unwrap();
            let mut seen = r.offsets();
            seen.sort();
            assert_eq!(
                seen,
                (0..ty * tx).collect::<Vec<_>>(),
                "{ty}x{tx} group {g}: {r}"
            );
        }
    }
}

/// The run-time raster (what a kernel with run-time tile counts computes) is the layout
/// `raster_layout` for every shape: every tile count up to 40 x 40, ragged and even, and the
/// counts of large problems, with every group a kernel uses.
#[test]
fn the_run_time_raster_is_the_raster_layout() {
    use tessel_kernels::tiled::{GroupedRaster, raster_layout};
    let mut shapes: Vec<(i64, i64)> = (1..=40)
        .flat_map(|ty| (1..=40).map(move |tx| (ty, tx)))
        .collect();
    shapes.extend([
        (32, 16),
        (128, 56),
        (64, 64),
        (1, 112),
        (112, 1),
        (8, 24),
        (48, 48),
    ]);
    for (ty, tx) in shapes {
        for group in [1, 2, 4, 8, 16] {
            let layout = raster_layout(ty, tx, group).unwrap();
            let r = GroupedRaster::new(ty, tx, group).unwrap();
            assert_eq!(r.tiles(), layout.size());
            for i in 0..r.tiles() {
                let (ym, xn) = r.tile(i);
                assert!(ym < ty && xn < tx, "{ty}x{tx}/{group}: {i} -> ({ym},{xn})");
                assert_eq!(
                    ym + ty * xn,
                    layout.offset(i).unwrap(),
                    "{ty}x{tx} group {group}: iteration {i} of {layout}"
                );
            }
        }
    }
    assert!(GroupedRaster::new(4, 4, 0).is_err());
    assert!(GroupedRaster::new(1 << 16, 1 << 16, 8).is_err());
}

#[test]
fn global_vectors_are_contiguous_and_aligned_exhaustively() {
    // Independent of max_common_vector: evaluate the layouts element by element on tile (0,0).
    for dtype in [Element::F32, Element::F16] {
        for (m, n) in [(256, 256), (1000, 1001), (4096, 4100), (130, 2048)] {
            for kind in kinds() {
                let p = TiledPlan::new(kind, dtype, m, n).unwrap();
                let [gvl, _, _, gvs] = p.vector_widths();
                let (tv_ld, tv_st) = (p.tv_load().unwrap(), p.tv_store().unwrap());
                for (tv, g, w) in [(&tv_ld, &p.g_src, gvl), (&tv_st, &p.g_dst, gvs)] {
                    for t in 0..p.threads {
                        for q in 0..p.values_per_thread() / w {
                            let offs: Vec<i64> = (0..w)
                                .map(|e| {
                                    let idx = tv.offset(t + p.threads * (q * w + e)).unwrap();
                                    let crd = tessel_layout::IntTuple::from_ints([
                                        idx % p.tm,
                                        idx / p.tm,
                                    ]);
                                    g.crd2idx(&crd).unwrap()
                                })
                                .collect();
                            assert_eq!(offs[0] % w, 0, "{kind} {dtype} {m}x{n}: misaligned");
                            assert!(
                                offs.windows(2).all(|x| x[1] == x[0] + 1),
                                "{kind} {dtype} {m}x{n}"
                            );
                        }
                    }
                }
            }
        }
    }
}

#[test]
fn microkernel_predictions_agree_with_the_shared_bank_model() {
    // tessel_layout::bank (the model behind `tessel conflicts`) on the same layouts, for the
    // first read instruction: lanes from the access layout's lane mode, each lane's values
    // along its row (tile index stride 32).
    use tessel_layout::Layout;
    use tessel_layout::bank::analyze;
    for kind in MicroKind::ALL {
        let plan = MicroPlan::new(kind).unwrap();
        let lanes = plan.access.mode(0).unwrap();
        let tv = Layout::from_modes([lanes, Layout::vector(plan.vw, 32).unwrap()]).unwrap();
        let op = if plan.vw == 1 { "lds.32" } else { "lds.128" }
            .parse()
            .unwrap();
        let report = analyze(&plan.smem, 4, op, &tv).unwrap();
        let ours = plan.predict(1).unwrap();
        assert_eq!(
            (report.wavefronts, report.ideal),
            (ours.loads.wavefronts, ours.loads.ideal),
            "{kind}"
        );
    }
}

#[test]
fn launch_bounds_are_the_block_size_only() {
    // `__launch_bounds__(256, B)` was measured and not chosen (docs/decisions.md).
    let p = TiledPlan::new(TiledKind::Vectorized, Element::F16, 256, 256).unwrap();
    assert!(
        p.source()
            .unwrap()
            .contains("__launch_bounds__(256) transpose_vec128_f16(")
    );
}

#[test]
fn a_mismatched_declaration_is_a_build_error() {
    use tessel_kernels::tiled::Arrangement;
    // Column vectors written into a row-major tile are not contiguous: the write copy's
    // partition of the shared tile is refused.
    let mut p = TiledPlan::new(TiledKind::Vectorized, Element::F32, 256, 256).unwrap();
    p.shared.as_mut().unwrap().layout = "(64,64):(64,1)".parse().unwrap();
    let err = p.kernel().unwrap_err().to_string();
    assert!(
        err.starts_with("invalid argument: write: ") && err.contains("not 4 consecutive elements"),
        "{err}"
    );
    // A write whose threads own other blocks than the load's would read other threads'
    // registers: the retile between the two copies is refused.
    let mut p = TiledPlan::new(TiledKind::Vectorized, Element::F32, 256, 256).unwrap();
    p.shared.as_mut().unwrap().write = Arrangement::ColsRaked
        .tiled_copy(Element::F32, 64, 64, 4, 256)
        .unwrap();
    let err = p.kernel().unwrap_err().to_string();
    assert!(err.contains("another thread"), "{err}");
    // 128-bit loads of rows of 1001 floats would be misaligned: a load of that width is
    // refused, which is why the plan falls back to one element per load.
    let mut p = TiledPlan::new(TiledKind::Copy, Element::F32, 64, 1001).unwrap();
    assert_eq!(p.vector_widths()[0], 1);
    p.load = Arrangement::RowsRaked
        .tiled_copy(Element::F32, 64, 64, 4, 256)
        .unwrap();
    let err = p.kernel().unwrap_err().to_string();
    assert!(err.starts_with("invalid argument: load: "), "{err}");
}

#[test]
fn every_microkernel_is_built_from_its_copy() {
    // The access partition reaches exactly the words the bank model counts (checked when the
    // kernel is built), for every named kernel and pattern.
    for kind in MicroKind::with_patterns() {
        let k = MicroPlan::new(kind).unwrap().kernel().unwrap();
        assert!(k.source().contains("struct access {"), "{kind}");
    }
}

/// The tiled kernels' partitions (CuTe make_tiled_copy arrangements, `tiled::Arrangement`)
/// against their closed forms, value `v = e + vec k` of thread `t`, tile index `r + TM c`:
/// - rows raked (loads of the copy and the transposes, `vec` columns per thread, `TN / vec`
///   threads per row): `r = t / (TN/vec) + (threads / (TN/vec)) k`, `c = vec (t % (TN/vec)) + e`;
/// - cols raked (the transposes' stores): `r = vec (t % (TM/vec)) + e`,
///   `c = t / (TM/vec) + (threads / (TM/vec)) k`;
/// - blocks (vectorized loads, a `vec x vec` block per thread, values row-major):
///   `r = vec (t / (TN/vec)) + v / vec`, `c = vec (t % (TN/vec)) + v % vec`.
#[test]
fn tiled_partitions_have_their_closed_forms() {
    for dtype in [Element::F32, Element::F16] {
        for kind in kinds() {
            let p = TiledPlan::new(kind, dtype, 256, 256).unwrap();
            let (tm, tn, nt) = (p.tm, p.tn, p.threads);
            let vec = dtype.per_128_bits();
            let rows = |vec: i64, t: i64, v: i64| {
                let (e, k) = (v % vec, v / vec);
                let per_row = tn / vec;
                (t / per_row + nt / per_row * k) + tm * (vec * (t % per_row) + e)
            };
            let cols = |vec: i64, t: i64, v: i64| {
                let (e, k) = (v % vec, v / vec);
                let per_col = tm / vec;
                (vec * (t % per_col) + e) + tm * (t / per_col + nt / per_col * k)
            };
            let blocks = |t: i64, v: i64| {
                let per_row = tn / vec;
                (vec * (t / per_row) + v / vec) + tm * (vec * (t % per_row) + v % vec)
            };
            let (tv_ld, tv_st) = (p.tv_load().unwrap(), p.tv_store().unwrap());
            for t in 0..nt {
                for v in 0..p.values_per_thread() {
                    let (ld, st) = (
                        tv_ld.offset(t + nt * v).unwrap(),
                        tv_st.offset(t + nt * v).unwrap(),
                    );
                    let (want_ld, want_st) = match kind {
                        TiledKind::Copy => (rows(vec, t, v), rows(vec, t, v)),
                        TiledKind::NaiveRead => (rows(1, t, v), rows(1, t, v)),
                        TiledKind::NaiveWrite => (cols(1, t, v), cols(1, t, v)),
                        TiledKind::Vectorized => (blocks(t, v), cols(vec, t, v)),
                        _ => (rows(1, t, v), cols(1, t, v)),
                    };
                    assert_eq!((ld, st), (want_ld, want_st), "{kind} {dtype} t{t} v{v}");
                }
            }
        }
    }
}

#[test]
fn pattern_microkernels_predict_the_h100_measurements() {
    // Nsight Compute on an H100 (docs/bank-model.md, "Evidence for wide accesses"): load and
    // store wavefronts of one launch (32 row stores fill the tile, then one pattern store for
    // the `conflict_s*` kernels, then one pattern load).
    let measured: [(&str, i64, i64); 47] = [
        ("conflict_p128_docs", 8, 32),
        ("conflict_p128_a_warptiled", 4, 32),
        ("conflict_p128_b_warptiled", 2, 32),
        ("conflict_p128_a_vectorized", 2, 32),
        ("conflict_p128_b_vectorized", 8, 32),
        ("conflict_p128_same", 2, 32),
        ("conflict_p128_mod4", 4, 32),
        ("conflict_p128_mod16", 4, 32),
        ("conflict_p128_div2", 2, 32),
        ("conflict_p128_div4", 2, 32),
        ("conflict_p128_div16", 2, 32),
        ("conflict_p128_stride2", 8, 32),
        ("conflict_p128_halfsame", 4, 32),
        ("conflict_p128_qalt", 2, 32),
        ("conflict_p128_a_conflict", 32, 32),
        ("conflict_p128_b_conflict", 4, 32),
        ("conflict_p128_mod2", 2, 32),
        ("conflict_p128_merge_conflict", 8, 32),
        ("conflict_p128_pair_conflict", 8, 32),
        ("conflict_p128_mod2x", 2, 32),
        ("conflict_p64_contig", 2, 32),
        ("conflict_p64_same", 1, 32),
        ("conflict_p64_mod16", 2, 32),
        ("conflict_p64_mod8", 2, 32),
        ("conflict_p64_div2", 1, 32),
        ("conflict_p64_div8", 1, 32),
        ("conflict_p64_div16", 1, 32),
        ("conflict_p64_s32b_mod16", 8, 32),
        ("conflict_p64_s32b", 8, 32),
        ("conflict_p64_docs", 4, 32),
        ("conflict_p64_a_conflict", 32, 32),
        ("conflict_p64_qdup", 2, 32),
        ("conflict_p64_qalt", 1, 32),
        ("conflict_p64_mod2", 1, 32),
        ("conflict_p64_mod4", 2, 32),
        ("conflict_p64_merge_conflict", 4, 32),
        ("conflict_p64_pair_conflict", 4, 32),
        ("conflict_p32_mod8", 1, 32),
        ("conflict_p32_div8", 1, 32),
        ("conflict_s128_contig", 4, 36),
        ("conflict_s128_docs", 8, 40),
        ("conflict_s128_qconflict", 32, 64),
        ("conflict_s128_stride2", 8, 40),
        ("conflict_s64_docs", 4, 36),
        ("conflict_s64_contig", 2, 34),
        ("conflict_p64_epilogue_sm90", 4, 32),
        ("conflict_s64_epilogue_sm90", 4, 36),
    ];
    assert_eq!(measured.len(), tessel_kernels::micro::PATTERNS.len());
    for (i, (name, ld, st)) in measured.into_iter().enumerate() {
        let kind = MicroKind::Pattern(i);
        assert_eq!(kind.name(), name);
        let p = MicroPlan::new(kind).unwrap().predict(1).unwrap();
        assert_eq!(
            (p.loads.wavefronts, p.stores.wavefronts),
            (ld, st),
            "{name}"
        );
        assert!(p.loads.excess >= 0 && p.stores.excess >= 0, "{name}");
    }
}
