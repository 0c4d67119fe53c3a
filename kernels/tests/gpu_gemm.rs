//! The tensor-core GEMM: CPU proofs of its layouts (bank conflicts, bijectivity, a full CPU
//! replay of the kernel's data movement) run everywhere; the GPU runs (every element against an
//! f64 CPU reference, and against cuBLAS) skip without a GPU (enforced with
//! `TESSEL_REQUIRE_GPU=1`).

mod common;

use tessel_kernels::gemm::host::{random_f16, reference_rows, simulate};
use tessel_kernels::gemm::run::{
    GemmBuffers, cublas, cublas_present, run_and_compare_cublas, run_and_verify,
};
use tessel_kernels::gemm::{
    BM, BODY, CP_ASYNC_HOISTED, GemmConfig, GemmPlan, LDSM_HOISTED, RASTER_GROUP, TENSORS,
};
use tessel_kernels::kernel::CType;
use tessel_kernels::layer::DeviceTensor;
use tessel_kernels::measure::{bound::tolerance, compare::compare};
use tessel_layout::verify;

/// The smallest problem every configuration supports.
fn small(cfg: GemmConfig) -> GemmPlan {
    GemmPlan::with_config(256, 2 * cfg.bn, 3 * cfg.bk, cfg).unwrap()
}

#[test]
fn swizzled_tiles_are_conflict_free_and_the_plain_tile_is_not() {
    let plan = GemmPlan::new(256, 384, 96).unwrap();
    let r = plan.bank_reports(true).unwrap();
    // One K slice (BK 32) per block: 4 warps x 4 cp.async of 512 bytes per operand (ideal 4
    // wavefronts each) and 4 warps x 2 k steps x 4 ldmatrix.x4 per operand (ideal 4 each).
    for (what, rep, ideal) in [
        ("cp.async A", r.store_a, 64),
        ("cp.async B", r.store_b, 64),
        ("ldmatrix A", r.ldsm_a, 128),
        ("ldmatrix B", r.ldsm_b, 128),
    ] {
        assert_eq!(
            (rep.wavefronts, rep.ideal, rep.excess),
            (ideal, ideal, 0),
            "{what}: {rep}"
        );
    }
    // The same accesses on the unswizzled K-major tile: rows at a 64-byte pitch, so the 8 rows
    // of every ldmatrix matrix fall into 2 groups of banks (4-way conflicts).
    let r = plan.bank_reports(false).unwrap();
    assert_eq!(
        r.store_a.excess, 0,
        "row-contiguous 16-byte stores do not conflict"
    );
    assert_eq!(
        (r.ldsm_a.wavefronts, r.ldsm_a.excess),
        (4 * 128, 3 * 128),
        "{}",
        r.ldsm_a
    );
    assert_eq!(
        (r.ldsm_b.wavefronts, r.ldsm_b.excess),
        (4 * 128, 3 * 128),
        "{}",
        r.ldsm_b
    );
}

#[test]
fn every_configuration_is_conflict_free_only_with_its_swizzle() {
    for cfg in GemmConfig::all() {
        let plan = small(cfg);
        let r = plan.bank_reports(true).unwrap();
        assert_eq!(r.excess(), 0, "{cfg}: {r:?}");
        assert!(r.ldsm_a.ideal > 0 && r.store_b.ideal > 0, "{cfg}");
        let plain = plan.bank_reports(false).unwrap();
        // 128-byte rows (BK 64): 8-way; 64-byte rows (BK 32): 4-way.
        let ways = if cfg.bk == 64 { 8 } else { 4 };
        assert_eq!(plain.ldsm_a.wavefronts, ways * plain.ldsm_a.ideal, "{cfg}");
        assert_eq!(plain.ldsm_b.wavefronts, ways * plain.ldsm_b.ideal, "{cfg}");
    }
}

/// The kernel computes each swizzled shared address once per thread (per k step for
/// `ldmatrix`) and adds the fragment and stage parts: the layer proves the split for every
/// configuration, its terms agree with the whole offset at every coordinate, and hoisting the
/// thread alone (leaving out the k step, whose chunk bits the swizzle moves) is refused.
#[test]
fn hoisted_shared_offsets_split_exactly() {
    for cfg in GemmConfig::all() {
        let plan = small(cfg);
        for (name, want, rows) in [
            ("tXsA", LDSM_HOISTED, BM),
            ("tXsB", LDSM_HOISTED, cfg.bn),
            ("tAsA", CP_ASYNC_HOISTED, BM),
            ("tBsB", CP_ASYNC_HOISTED, cfg.bn),
        ] {
            let t = plan.tensor(name).unwrap();
            assert_eq!(
                t.hoisted_modes().unwrap().as_deref(),
                Some(want),
                "{cfg} {name}"
            );
            let f = t.device_offset().unwrap();
            // The defining property: the emitted base (over the hoisted modes) plus the emitted
            // terms (one per other mode) is the offset, at every coordinate.
            let ext = t.extents();
            let whole = t.layout().offsets();
            let base = f.base().unwrap().offsets();
            let terms: Vec<(usize, Vec<i64>)> =
                f.terms().iter().map(|(m, l)| (*m, l.offsets())).collect();
            let hoisted_ext: Vec<i64> = want.iter().map(|&m| ext[m]).collect();
            for (i, &offset) in whole.iter().enumerate() {
                let crd = colex(i as i64, &ext);
                let h: Vec<i64> = want.iter().map(|&m| crd[m]).collect();
                let mut sum = base[index(&h, &hoisted_ext) as usize];
                for (m, term) in &terms {
                    sum += term[crd[*m] as usize];
                }
                assert_eq!(sum, offset, "{cfg} {name} {crd:?}");
                // The host twin of the emitted offset agrees.
                if i % 101 == 0 {
                    assert_eq!(f.at(&crd).unwrap(), offset, "{cfg} {name} {crd:?}");
                }
            }
            // The stage part is the plain stage stride.
            let mut stage = vec![0; ext.len()];
            stage[ext.len() - 1] = 1;
            assert_eq!(f.at(&stage).unwrap(), rows * cfg.bk, "{cfg} {name}");
        }
        let err = plan
            .tensor("tXsA")
            .unwrap()
            .check_split(&[0])
            .unwrap_err()
            .to_string();
        assert!(err.contains("share bits"), "{cfg}: {err}");
    }
}

/// The index of coordinate `crd` of a tensor with mode extents `ext` (colexicographic).
fn index(crd: &[i64], ext: &[i64]) -> i64 {
    crd.iter()
        .zip(ext)
        .rev()
        .fold(0, |acc, (&c, &e)| acc * e + c)
}

/// The coordinate of index `i` of a tensor with mode extents `ext` (colexicographic).
fn colex(mut i: i64, ext: &[i64]) -> Vec<i64> {
    ext.iter()
        .map(|&e| {
            let c = i % e;
            i /= e;
            c
        })
        .collect()
}

#[test]
fn layouts_are_bijections_onto_their_tiles() {
    for cfg in GemmConfig::all() {
        let plan = small(cfg);
        // The cp.async partitions of the stages write every element of every stage once.
        for name in ["tAsA", "tBsB"] {
            let t = plan.tensor(name).unwrap();
            assert!(verify::is_bijective(t.layout()).unwrap(), "{cfg} {name}");
            let last = t.layout().offsets().into_iter().max().unwrap();
            assert_eq!(last + 1, t.size(), "{cfg} {name}");
        }
        // One block tile of A and one k tile, and one block tile of C: every element once.
        for (name, tiles) in [("tAgA", 2), ("tDgC", 2)] {
            let t = plan.tensor(name).unwrap();
            let ext = t.extents();
            let per_tile: i64 = ext[..ext.len() - tiles].iter().product();
            let mut offsets: Vec<i64> = (0..per_tile)
                .map(|i| t.layout().offset(i).unwrap())
                .collect();
            offsets.sort_unstable();
            offsets.dedup();
            assert_eq!(offsets.len() as i64, per_tile, "{cfg} {name}");
        }
        // The MMA's C fragment is the published SM80 16x8x16 C layout (CuTe
        // include/cute/atom/mma_traits_sm80.hpp, CUTLASS v4.2.1; docs/semantics.md).
        let c_frag = plan.mma.atom().c_layout();
        assert_eq!(c_frag.to_string(), "((4,8),(2,2)):((32,1),(16,8))");
        assert!(tessel_layout::is_bijective(c_frag).unwrap());
        assert!(tessel_layout::is_bijective(&plan.raster).unwrap());
    }
}

/// The block order is the grouped raster of the hand-written kernel (`tiled::raster_layout`'s
/// definition: 8 x 8 groups of tiles, column-major inside a group, groups down the tile rows
/// first): block `b` computes tile `(bm, bn)` with `w = b % 64`, `g = b / 64`,
/// `bm = 8 (g % (TM / 8)) + w % 8`, `bn = 8 (g / (TM / 8)) + w / 8`, at the sizes and tiles
/// `tessel bench gemm` times (the order decides which operand rows the resident blocks share in
/// L2).
#[test]
fn blocks_visit_the_tiles_in_eight_by_eight_groups_down_the_tile_rows() {
    for (size, cfg) in [
        (4096, GemmConfig::DEFAULT),
        (8192, GemmConfig::DEFAULT),
        (4096, GemmConfig::LARGE),
        (8192, GemmConfig::LARGE),
    ] {
        let plan = GemmPlan::with_config(size, size, size, cfg).unwrap();
        let (tm, tn) = (size / BM, size / cfg.bn);
        assert_eq!(i64::from(plan.blocks()), tm * tn, "{cfg} {size}");
        let g = RASTER_GROUP;
        for b in 0..tm * tn {
            let (w, group) = (b % (g * g), b / (g * g));
            let want = (
                g * (group % (tm / g)) + w % g,
                g * (group / (tm / g)) + w / g,
            );
            let tile = plan.raster.offset(b).unwrap();
            let got = (
                plan.tile_m.offset(tile).unwrap(),
                plan.tile_n.offset(tile).unwrap(),
            );
            assert_eq!(got, want, "{cfg} {size}: block {b}");
        }
    }
}

#[test]
fn unsupported_sizes_are_clear_errors() {
    for (m, n, k) in [
        (100, 128, 32),
        (128, 200, 32),
        (128, 128, 48),
        (0, 128, 32),
        (128, 128, -32),
    ] {
        let err = GemmPlan::new(m, n, k).unwrap_err().to_string();
        assert!(err.contains("is not a multiple of"), "{m}x{n}x{k}: {err}");
        assert!(err.contains(&format!("gemm {m}x{n}x{k}")), "{err}");
    }
    assert!(GemmPlan::new(128, 128, 32).is_ok());
}

#[test]
fn cpu_replay_of_the_kernel_matches_the_reference() {
    // Two block rows x three block columns (the grouped raster), three K slices (every stage).
    let plan = GemmPlan::new(256, 384, 96).unwrap();
    let (m, n, k) = (256, 384, 96);
    let a = random_f16(m * k, 1);
    let b = random_f16(n * k, 2);
    let c = simulate(&plan, &a, &b).unwrap();
    let rows: Vec<usize> = (0..m).collect();
    let (want, scale) = reference_rows(&a, &b, n, k, &rows);
    let cmp = compare(
        &c,
        &want,
        |i| tolerance(k, scale[i]),
        |i| format!("C[{}][{}]", i / n, i % n),
    );
    assert!(cmp.ok(), "{cmp:?}");
    // A wrong partition is caught: lanes 16-31 of each warp hand ldmatrix the rows of the
    // first k half of A (the k-half stride 8 of the thread mode set to 0).
    let mut broken = plan.clone();
    let bad: tessel_layout::ComposedLayout =
        "Sw<2,3,3> o ((16,2,2,2),8,4,1,2,3):((32,0,2048,0),1,512,0,16,4096)"
            .parse()
            .unwrap();
    assert_eq!(
        broken.tensor("tXsA").unwrap().layout().to_string(),
        "Sw<2,3,3> o ((16,2,2,2),8,4,1,2,3):((32,8,2048,0),1,512,0,16,4096)"
    );
    for (name, t) in &mut broken.tensors {
        if name == "tXsA" {
            *t = DeviceTensor::shared(CType::B16, bad.clone());
        }
    }
    let c = simulate(&broken, &a, &b).unwrap();
    let cmp = compare(&c, &want, |i| tolerance(k, scale[i]), |_| String::new());
    assert!(!cmp.ok() && cmp.bad > m * n / 2, "{}", cmp.bad);
}

#[test]
fn cpu_replay_of_every_other_configuration() {
    for cfg in GemmConfig::all() {
        if cfg == GemmConfig::DEFAULT {
            continue;
        }
        let plan = GemmPlan::with_config(128, cfg.bn, 2 * cfg.bk, cfg).unwrap();
        let (m, n, k) = (128, cfg.bn as usize, 2 * cfg.bk as usize);
        let a = random_f16(m * k, 3);
        let b = random_f16(n * k, 4);
        let (want, scale) = reference_rows(&a, &b, n, k, &(0..m).collect::<Vec<_>>());
        let c = simulate(&plan, &a, &b).unwrap();
        let cmp = compare(&c, &want, |i| tolerance(k, scale[i]), |i| format!("{i}"));
        assert!(cmp.ok(), "{cfg}: {cmp:?}");
    }
}

/// The kernel is the tensor layer's: every tensor, copy and the MMA declared, the swizzled
/// partitions emitted as a split (a base over the hoisted modes plus terms), the atoms'
/// instructions generated; the body holds no index math, no preprocessor switch and fits the
/// size of CuTe's tutorial kernel.
#[test]
fn the_source_declares_every_tensor_and_the_body_only_slices_them() {
    let plan = GemmPlan::new(128, 128, 32).unwrap();
    let src = plan.source().unwrap();
    for t in TENSORS {
        assert!(src.contains(&format!("struct {t}_layout {{")), "{t}");
    }
    for c in ["g2s", "s2r_a", "s2r_b", "r2g", "mma"] {
        assert!(src.contains(&format!("struct {c} {{")), "{c}");
    }
    for f in ["tXsA_h_crd(", "tXsB_h_crd(", "tAsA_h_crd(", "tBsB_h_crd("] {
        assert!(src.contains(&format!("TESSEL_FN long long {f}")), "{f}");
    }
    assert!(src.contains("Sw<2,3,3>"));
    assert!(
        src.contains("cp.async.cg.shared.global") && src.contains("ldmatrix.sync.aligned.m8n8.x4")
    );
    let code: Vec<&str> = BODY
        .lines()
        .map(|l| l.split("//").next().unwrap_or("").trim())
        .filter(|l| !l.is_empty())
        .collect();
    assert!(code.len() <= 60, "{} lines of code in the body", code.len());
    assert!(
        BODY.lines().count() <= 120,
        "{} lines",
        BODY.lines().count()
    );
    assert!(
        BODY.lines()
            .all(|l| !l.trim_start().starts_with("#if") && !l.trim_start().starts_with("#define"))
    );
    // Only the block raster is a layout function in the body; every data access is a tensor.
    let layout_calls: Vec<&str> = BODY.matches("layout::").collect();
    assert_eq!(layout_calls.len(), 3, "{BODY}");
}

const GPU_SIZES: [(i64, i64, i64); 4] = [
    (128, 128, 32),
    (256, 384, 96),
    (384, 256, 160),
    (1024, 1024, 1024),
];

#[test]
#[ignore = "needs a GPU: run with TESSEL_REQUIRE_GPU=1 cargo test -p tessel-kernels --test gpu_gemm -- --ignored"]
fn gpu_gemm_matches_cpu_reference() {
    let Some(gpu) = common::gpu_or_skip("gpu_gemm_matches_cpu_reference") else {
        return;
    };
    let mut cases: Vec<_> = GPU_SIZES
        .iter()
        .map(|&(m, n, k)| GemmPlan::new(m, n, k).unwrap())
        .collect();
    for cfg in GemmConfig::all() {
        cases.push(small(cfg));
        cases.push(GemmPlan::with_config(1024, 1024, 1024, cfg).unwrap());
    }
    for plan in cases {
        let (m, n, k) = (plan.m, plan.n, plan.k);
        let mut bufs = GemmBuffers::new(&gpu, &plan, (m + n + k) as u64).unwrap();
        // Every row (and so every element) against the f64 reference.
        let (_, cmp) = run_and_verify(&gpu, &plan, &mut bufs, m as usize)
            .unwrap_or_else(|e| panic!("{}: {e}", plan.kernel_name()));
        assert!(cmp.rel_err < 1e-5, "{m}x{n}x{k}: {cmp:?}");
        eprintln!(
            "gemm {m}x{n}x{k}: rel err {:.2e}, max |diff| {:.2e}",
            cmp.rel_err, cmp.max_abs
        );
    }
}

#[test]
#[ignore = "needs a GPU: run with TESSEL_REQUIRE_GPU=1 cargo test -p tessel-kernels --test gpu_gemm -- --ignored"]
fn gpu_gemm_matches_cublas() {
    let Some(gpu) = common::gpu_or_skip("gpu_gemm_matches_cublas") else {
        return;
    };
    if !cublas_present() {
        assert!(
            std::env::var("TESSEL_REQUIRE_GPU").as_deref() != Ok("1"),
            "TESSEL_REQUIRE_GPU=1 but libcublas cannot be loaded"
        );
        eprintln!("gpu_gemm_matches_cublas: skipped: no libcublas");
        return;
    }
    let blas = cublas(&gpu).unwrap();
    for (m, n, k) in [(256, 384, 96), (1024, 1024, 1024), (2048, 1024, 512)] {
        let plan = GemmPlan::new(m, n, k).unwrap();
        let mut bufs = GemmBuffers::new(&gpu, &plan, 7).unwrap();
        run_and_verify(&gpu, &plan, &mut bufs, 64).unwrap();
        let ours = bufs.c_host(&gpu).unwrap();
        let cmp = run_and_compare_cublas(&gpu, &blas, &plan, &mut bufs, &ours)
            .unwrap_or_else(|e| panic!("{m}x{n}x{k}: {e}"));
        eprintln!("gemm {m}x{n}x{k} vs cuBLAS: rel diff {:.2e}", cmp.rel_err);
    }
}

#[test]
#[ignore = "needs a GPU: run with TESSEL_REQUIRE_GPU=1 cargo test -p tessel-kernels --test gpu_gemm -- --ignored"]
fn gpu_bench_gemm_runs_small() {
    let Some(gpu) = common::gpu_or_skip("gpu_bench_gemm_runs_small") else {
        return;
    };
    if !cublas_present() {
        return;
    }
    // What `tessel bench gemm --size 512 --repeats 3` measures.
    let configs = tessel_kernels::gemm::run::bench_configs(&gpu).unwrap();
    let rows =
        tessel_kernels::gemm::run::bench(&gpu, &[(512, 512, 512)], &configs, 3, &mut Vec::new())
            .unwrap();
    assert_eq!(rows[0].size, (512, 512, 512));
    assert_eq!(rows[0].cfg.to_string(), "128x128x32s3");
    for r in &rows {
        assert!(
            r.result.ours_tflops > 0.0 && r.result.cublas_tflops > 0.0,
            "{r:?}"
        );
        assert!(
            r.result.rel_err_cpu < 1e-5 && r.result.rel_err_cublas < 1e-3,
            "{r:?}"
        );
    }
}

/// The partitions the plan derives from the atoms (make_tiled_mma, make_tiled_copy_A/B/C,
/// make_tiled_copy of cp.async, through the tensor layer) against their closed forms, for every
/// configuration: lane `l` of warp `w` at warp tile `(w % 2, w / 2)`.
/// - ldmatrix.x4 of A: the 8 halves of row `l % 16 + 64 (w % 2) + 16 mi` at columns
///   `8 (l / 16) + 16 kk + j` (PTX ISA, ldmatrix: lanes 8i..8i+7 address matrix i's rows; the
///   A fragment of mma.m16n8k16 is matrices (rows 0-7, k 0-7), (rows 8-15, k 0-7), (rows 0-7,
///   k 8-15), (rows 8-15, k 8-15));
/// - ldmatrix.x4 of B: row `l % 8 + 8 (l / 16) + 64 (w / 2) + 16 nj` at columns
///   `8 ((l / 8) % 2) + 16 kk + j` (two n8 B fragments, k 0-7 and 8-15 each);
/// - both in the stage `(rows, BK)` K-major under the swizzle: offset `Sw(row BK + col)` plus
///   the stage;
/// - the accumulators: value `v` of fragment `(mi, ni)` is row `l / 4 + 8 (v / 2)`, column
///   `2 (l % 4) + v % 2` of the 16 x 8 tile (PTX ISA, mma.m16n8k16 C/D fragment layout), at
///   `(64 (w % 2) + 16 mi, 64 (w / 2) + 8 ni)`: the epilogue stores the register of `(v, mi,
///   ni)` in `tCrC` there;
/// - cp.async: thread `t` moves the 8 halves of row `t / (BK/8) + (threads / (BK/8)) i` at
///   columns `8 (t % (BK/8)) + j`.
#[test]
fn partitions_from_the_atoms_have_their_closed_forms() {
    for cfg in GemmConfig::all() {
        let plan = small(cfg);
        let (threads, bk, bn) = (cfg.threads(), cfg.bk, cfg.bn);
        let (kk_n, chunks) = (bk / 16, bk / 8);
        // Each tensor's offset at a coordinate, through the table of all its offsets.
        struct Table(Vec<i64>, Vec<i64>);
        impl Table {
            fn at(&self, crd: &[i64]) -> i64 {
                self.1[index(crd, &self.0) as usize]
            }
        }
        let t = |name: &str| {
            let t = plan.tensor(name).unwrap();
            Table(t.extents(), t.layout().offsets())
        };
        let (xsa, xsb, asa, aga) = (t("tXsA"), t("tXsB"), t("tAsA"), t("tAgA"));
        let (drc, dgc) = (t("tDrC"), t("tDgC"));
        let crc = plan.tensor("tCrC").unwrap();
        let sw = |x: i64| plan.swizzle.apply(x);
        for th in 0..threads {
            let (l, w) = (th % 32, th / 32);
            for kk in 0..kk_n {
                for f in 0..4 {
                    for j in 0..8 {
                        for s in [0, cfg.stages - 1] {
                            let row = l % 16 + 64 * (w % 2) + 16 * f;
                            let col = 8 * (l / 16) + 16 * kk + j;
                            let want = sw(row * bk + col) + s * BM * bk;
                            assert_eq!(xsa.at(&[th, j, f, 0, kk, s]), want, "{cfg}");
                            let row = l % 8 + 8 * (l / 16) + 64 * (w / 2) + 16 * f;
                            let col = 8 * ((l / 8) % 2) + 16 * kk + j;
                            let want = sw(row * bk + col) + s * bn * bk;
                            assert_eq!(xsb.at(&[th, j, f, 0, kk, s]), want, "{cfg}");
                        }
                    }
                }
            }
            // The epilogue: register e + 2 r of tDrC goes to element (e, r) of tDgC.
            let n = plan.n;
            for r in 0..64 {
                for e in 0..2 {
                    let reg = drc.at(&[e, r, 0, 0]);
                    let dst = dgc.at(&[th, e, r, 0, 0, 0, 0]);
                    // The accumulator in register `reg`: (v, mi, ni) of the compact tCrC.
                    let (v, mi, ni) = (reg % 4, (reg / 4) % 4, reg / 16);
                    assert_eq!(crc.layout().offset(v + 4 * mi + 16 * ni).unwrap(), reg);
                    let row = l / 4 + 8 * (v / 2) + 64 * (w % 2) + 16 * mi;
                    let col = 2 * (l % 4) + v % 2 + 64 * (w / 2) + 8 * ni;
                    assert_eq!(dst, row * n + col, "{cfg}: thread {th} register {reg}");
                }
            }
            for i in 0..BM * chunks / threads {
                for j in 0..8 {
                    let row = th / chunks + threads / chunks * i;
                    let col = 8 * (th % chunks) + j;
                    assert_eq!(aga.at(&[th, j, 0, i, 0, 0, 0]), row * plan.k + col, "{cfg}");
                    assert_eq!(
                        asa.at(&[th, j, 0, i, 0, 1]),
                        sw(row * bk + col) + BM * bk,
                        "{cfg}"
                    );
                }
            }
        }
    }
}

/// The layer refuses declarations the kernel cannot run: an `ldmatrix` copy made for another
/// tiled MMA (here without the warp-tile permutations) fills registers the plan's MMA reads as
/// other elements of A; an epilogue copy made for that MMA stores accumulators to the wrong
/// elements of C; a cp.async copy of fp16 chunks does not fit fp32 memory.
#[test]
fn mismatched_declarations_are_refused() {
    use tessel_kernels::layer::DeviceCopy;
    use tessel_layout::atom::{copy_atom, mma_atom};
    use tessel_layout::tiled::{make_tiled_copy_a, make_tiled_copy_c, make_tiled_mma};
    let plan = GemmPlan::new(128, 128, 32).unwrap();
    let plain = make_tiled_mma(
        &mma_atom(tessel_kernels::gemm::MMA).unwrap(),
        &"(2,2):(1,2)".parse().unwrap(),
        &[],
    )
    .unwrap();
    let ldsm = copy_atom(tessel_kernels::gemm::LDSM)
        .unwrap()
        .typed(16)
        .unwrap();
    let wrong_a = DeviceCopy::new("s2r_a", make_tiled_copy_a(&ldsm, &plain).unwrap());
    let frag = plan.tensor("tCrA").unwrap();
    let err = wrong_a
        .retile_d(frag)
        .and_then(|view| plan.mma.check_fed_by('A', &wrong_a, &[BM, 32], &view, frag))
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("the copy s2r_a writes element") && err.contains("operand A of the MMA"),
        "{err}"
    );
    let store = copy_atom(tessel_kernels::gemm::STORE_C)
        .unwrap()
        .typed(32)
        .unwrap();
    let wrong_c = DeviceCopy::new("r2g", make_tiled_copy_c(&store, &plain).unwrap());
    let acc = plan.tensor("tCrC").unwrap();
    let err = wrong_c
        .retile_s(acc)
        .and_then(|view| plan.mma.check_fed_by('C', &wrong_c, &[BM, 128], &view, acc))
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("the copy r2g writes element") && err.contains("operand C of the MMA"),
        "{err}"
    );
    let fp32 = DeviceTensor::global(CType::F32, "(128,32):(32,1)".parse().unwrap());
    let err = plan.g2s.partition_s(&fp32).unwrap_err().to_string();
    assert!(
        err.contains("32-bit elements but the copy moves 16-bit values"),
        "{err}"
    );
}
