//! The tensor-core GEMM: CPU proofs of its layouts (bank conflicts, bijectivity, a full CPU
//! replay of the kernel's data movement) run everywhere; the GPU runs (every element against an
//! f64 CPU reference, and against cuBLAS) skip without a GPU (enforced with
//! `TESSEL_REQUIRE_GPU=1`).

mod common;

use tessel_kernels::gemm::host::{compare, random_f16, reference_rows, simulate, tolerance};
use tessel_kernels::gemm::run::{
    GemmBuffers, cublas, cublas_present, run_and_compare_cublas, run_and_verify,
};
use tessel_kernels::gemm::{
    BM, GemmConfig, GemmPlan, LD_SMEM_HOISTED, LDSM_HOISTED, check_split, split_offset,
};
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

/// The kernel computes each swizzled shared offset once per thread and adds the fragment and
/// stage parts: legal for every configuration, and caught when the split is wrong (hoisting
/// only the thread mode of `ldmatrix` leaves the k step, whose chunk bits the swizzle moves).
#[test]
fn hoisted_shared_offsets_split_exactly() {
    for cfg in GemmConfig::all() {
        let plan = small(cfg);
        let ldsm_a = plan.ldsm(&plan.a, &plan.ldsm_a_tv).unwrap();
        let ldsm_b = plan.ldsm(&plan.b, &plan.ldsm_b_tv).unwrap();
        check_split(&ldsm_a, LDSM_HOISTED).unwrap();
        check_split(&ldsm_b, LDSM_HOISTED).unwrap();
        check_split(&plan.ld_smem(&plan.a).unwrap(), LD_SMEM_HOISTED).unwrap();
        check_split(&plan.ld_smem(&plan.b).unwrap(), LD_SMEM_HOISTED).unwrap();
        let err = check_split(&ldsm_a, &[0]).unwrap_err().to_string();
        assert!(err.contains("does not split"), "{cfg}: {err}");
        // The stage part is the plain stage stride.
        let stage = split_offset(&ldsm_b, &[0, 0, 0, 1], LDSM_HOISTED).unwrap();
        assert_eq!(stage, plan.b.rows * cfg.bk, "{cfg}");
    }
}

#[test]
fn layouts_are_bijections_onto_their_tiles() {
    for cfg in GemmConfig::all() {
        let plan = small(cfg);
        for op in [&plan.a, &plan.b] {
            // The swizzled shared tile is a bijection onto its stages.
            assert!(verify::is_bijective(&plan.smem(op)).unwrap(), "{cfg}");
            // cp.async covers each tile element exactly once.
            assert!(tessel_layout::is_bijective(&op.ld_tv).unwrap(), "{cfg}");
            assert_eq!(op.ld_tv.size(), op.rows * cfg.bk);
            // The shared offsets of all chunks of all stages are distinct 16-byte chunks.
            let mut starts = plan.ld_smem(op).unwrap().offsets();
            assert!(starts.iter().all(|o| o % 8 == 0));
            let count = starts.len();
            starts.sort_unstable();
            starts.dedup();
            assert_eq!(starts.len(), count, "{cfg}");
            assert_eq!(count as i64, op.rows * cfg.bk * cfg.stages / 8);
        }
        // The C partition covers the block tile exactly once; the fragment is the published
        // SM80 16x8x16 C layout (CuTe mma_traits_sm80.hpp; docs/semantics.md#reference-values).
        assert_eq!(plan.c_frag.to_string(), "((4,8),(2,2)):((32,1),(16,8))");
        assert!(tessel_layout::is_bijective(&plan.c_frag).unwrap());
        assert!(tessel_layout::is_bijective(&plan.c_tv).unwrap(), "{cfg}");
        assert_eq!(plan.c_tv.size(), BM * cfg.bn);
        assert!(tessel_layout::is_bijective(&plan.raster).unwrap());
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
    // A wrong layout is caught: swapping the two halves of the A lanes' k offsets.
    let mut broken = plan.clone();
    broken.ldsm_a_tv = "(((16,2),(2,2)),8,4,2):(((1,0),(64,0)),128,16,2048)"
        .parse()
        .unwrap();
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

#[test]
fn the_source_names_every_layout() {
    let plan = GemmPlan::new(128, 128, 32).unwrap();
    let src = plan.source().unwrap();
    for f in [
        "raster(",
        "ld_a_global_crd(",
        "ld_b_smem_crd(",
        "ldsm_a_crd(",
        "ldsm_b_crd(",
        "c_out_crd(",
    ] {
        assert!(src.contains(&format!("TESSEL_FN long long {f}")), "{f}");
    }
    assert!(src.contains("Sw<2,3,3>"));
    assert!(
        src.contains("cp.async.cg.shared.global") && src.contains("ldmatrix.sync.aligned.m8n8.x4")
    );
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

/// The partitions the plan derives from the atoms (make_tiled_mma, make_tiled_copy_A/B,
/// make_tiled_copy of cp.async) against their closed forms, for every configuration: lane `l`
/// of warp `w` at warp tile `(w % 2, w / 2)`.
/// - ldmatrix.x4 of A: the 8 halves of row `l % 16 + 64 (w % 2) + 16 mi` at columns
///   `8 (l / 16) + 16 kk + j` (PTX ISA, ldmatrix: lanes 8i..8i+7 address matrix i's rows; the
///   A fragment of mma.m16n8k16 is matrices (rows 0-7, k 0-7), (rows 8-15, k 0-7), (rows 0-7,
///   k 8-15), (rows 8-15, k 8-15));
/// - ldmatrix.x4 of B: row `l % 8 + 8 (l / 16) + 64 (w / 2) + 16 nj` at columns
///   `8 ((l / 8) % 2) + 16 kk + j` (two n8 B fragments, k 0-7 and 8-15 each);
/// - the accumulators: value `v` of fragment `(mi, ni)` is row `l / 4 + 8 (v / 2)`, column
///   `2 (l % 4) + v % 2` of the 16 x 8 tile (PTX ISA, mma.m16n8k16 C/D fragment layout), at
///   `(64 (w % 2) + 16 mi, 64 (w / 2) + 8 ni)`;
/// - cp.async: thread `t` moves the 8 halves of row `t / (BK/8) + (threads / (BK/8)) i` at
///   columns `8 (t % (BK/8)) + j`.
#[test]
fn partitions_from_the_atoms_have_their_closed_forms() {
    for cfg in GemmConfig::all() {
        let plan = small(cfg);
        let threads = cfg.threads();
        let (kk_n, chunks) = (cfg.bk / 16, cfg.bk / 8);
        let at = |tv: &tessel_layout::Layout, crd: &[i64]| {
            let sizes: Vec<i64> = tv.modes().iter().map(|m| m.size()).collect();
            let (mut idx, mut step) = (0, 1);
            for (c, n) in crd.iter().zip(&sizes) {
                idx += c * step;
                step *= n;
            }
            tv.offset(idx).unwrap()
        };
        for t in 0..threads {
            let (l, w) = (t % 32, t / 32);
            for kk in 0..kk_n {
                for f in 0..4 {
                    for j in 0..8 {
                        let row = l % 16 + 64 * (w % 2) + 16 * f;
                        let col = 8 * (l / 16) + 16 * kk + j;
                        assert_eq!(at(&plan.ldsm_a_tv, &[t, j, f, kk]), row + BM * col, "{cfg}");
                        let row = l % 8 + 8 * (l / 16) + 64 * (w / 2) + 16 * f;
                        let col = 8 * ((l / 8) % 2) + 16 * kk + j;
                        assert_eq!(
                            at(&plan.ldsm_b_tv, &[t, j, f, kk]),
                            row + cfg.bn * col,
                            "{cfg}"
                        );
                    }
                }
            }
            for mi in 0..4 {
                for ni in 0..8 {
                    for v in 0..4 {
                        let row = l / 4 + 8 * (v / 2) + 64 * (w % 2) + 16 * mi;
                        let col = 2 * (l % 4) + v % 2 + 64 * (w / 2) + 8 * ni;
                        assert_eq!(at(&plan.c_tv, &[t, v, mi, ni]), row + BM * col, "{cfg}");
                    }
                }
            }
            for op in [&plan.a, &plan.b] {
                for i in 0..op.rows * chunks / threads {
                    for j in 0..8 {
                        let row = t / chunks + threads / chunks * i;
                        let col = 8 * (t % chunks) + j;
                        assert_eq!(at(&op.ld_tv, &[t, j, i]), row + op.rows * col, "{cfg}");
                    }
                }
            }
        }
    }
}
