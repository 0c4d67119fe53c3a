//! The tensor-core GEMM: CPU proofs of its layouts (bank conflicts, bijectivity, a full CPU
//! replay of the kernel's data movement) run everywhere; the GPU runs (every element against an
//! f64 CPU reference, and against cuBLAS) skip without a GPU (enforced with
//! `TESSEL_REQUIRE_GPU=1`).

mod common;

use tessel_kernels::gemm::host::{compare, random_f16, reference_rows, simulate, tolerance};
use tessel_kernels::gemm::run::{
    GemmBuffers, cublas, cublas_present, run_and_compare_cublas, run_and_verify,
};
use tessel_kernels::gemm::{BK, BM, GemmPlan, STAGES, THREADS};
use tessel_layout::verify;

#[test]
fn swizzled_tiles_are_conflict_free_and_the_plain_tile_is_not() {
    let plan = GemmPlan::new(256, 384, 96).unwrap();
    let (st, a, b) = plan.bank_reports(&plan.smem()).unwrap();
    // One K slice per block: 4 warps x 4 cp.async of 512 bytes (ideal 4 wavefronts each) and
    // 4 warps x 2 k steps x 4 ldmatrix.x4 per operand (ideal 4 each).
    assert_eq!(
        (st.wavefronts, st.ideal, st.excess),
        (64, 64, 0),
        "cp.async: {st}"
    );
    assert_eq!(
        (a.wavefronts, a.ideal, a.excess),
        (128, 128, 0),
        "ldmatrix A: {a}"
    );
    assert_eq!(
        (b.wavefronts, b.ideal, b.excess),
        (128, 128, 0),
        "ldmatrix B: {b}"
    );
    // The same accesses on the unswizzled K-major tile: rows at a 64-byte pitch, so the 8 rows
    // of every ldmatrix matrix fall into 2 groups of banks (4-way conflicts).
    let plain = plan.smem_plain().unwrap();
    let (st, a, b) = plan.bank_reports(&plain).unwrap();
    assert_eq!(
        st.excess, 0,
        "row-contiguous 16-byte stores do not conflict: {st}"
    );
    assert_eq!(
        (a.wavefronts, a.excess),
        (4 * 128, 3 * 128),
        "ldmatrix A plain: {a}"
    );
    assert_eq!(
        (b.wavefronts, b.excess),
        (4 * 128, 3 * 128),
        "ldmatrix B plain: {b}"
    );
}

#[test]
fn layouts_are_bijections_onto_their_tiles() {
    let plan = GemmPlan::new(512, 256, 64).unwrap();
    // The swizzled shared tile is a bijection onto 3 stages of 128 x 32.
    assert!(verify::is_bijective(&plan.smem()).unwrap());
    // cp.async covers each tile element exactly once.
    assert!(tessel_layout::is_bijective(&plan.ld_tv).unwrap());
    assert_eq!(plan.ld_tv.size(), BM * BK);
    // The C partition covers the 128 x 128 block tile exactly once, and the fragment is the
    // published SM80 16x8x16 C layout (DESIGN.md).
    assert_eq!(plan.c_frag.to_string(), "((4,8),(2,2)):((32,1),(16,8))");
    assert!(tessel_layout::is_bijective(&plan.c_frag).unwrap());
    assert!(tessel_layout::is_bijective(&plan.c_tv).unwrap());
    assert_eq!(plan.c_tv.size(), BM * 128);
    // Raster visits every tile once.
    assert!(tessel_layout::is_bijective(&plan.raster).unwrap());
    // The cp.async shared offsets of all threads, chunks and stages: distinct 16-byte chunks.
    let ld = plan.ld_smem().unwrap();
    let mut starts: Vec<i64> = ld.offsets();
    assert!(starts.iter().all(|o| o % 8 == 0));
    starts.sort_unstable();
    starts.dedup();
    assert_eq!(starts.len() as i64, THREADS * 4 * STAGES);
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
fn the_source_names_every_layout() {
    let plan = GemmPlan::new(128, 128, 32).unwrap();
    let src = plan.source().unwrap();
    for f in [
        "raster(",
        "ld_global_crd(",
        "ld_smem_crd(",
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
fn gpu_gemm_matches_cpu_reference() {
    let Some(gpu) = common::gpu_or_skip("gpu_gemm_matches_cpu_reference") else {
        return;
    };
    for (m, n, k) in GPU_SIZES {
        let plan = GemmPlan::new(m, n, k).unwrap();
        let mut bufs = GemmBuffers::new(&gpu, &plan, (m + n + k) as u64).unwrap();
        // Every row (and so every element) against the f64 reference.
        let (_, cmp) = run_and_verify(&gpu, &plan, &mut bufs, m as usize)
            .unwrap_or_else(|e| panic!("{m}x{n}x{k}: {e}"));
        assert!(cmp.rel_err < 1e-5, "{m}x{n}x{k}: {cmp:?}");
        eprintln!(
            "gemm {m}x{n}x{k}: rel err {:.2e}, max |diff| {:.2e}",
            cmp.rel_err, cmp.max_abs
        );
    }
}

#[test]
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
fn gpu_bench_gemm_runs_small() {
    let Some(_gpu) = common::gpu_or_skip("gpu_bench_gemm_runs_small") else {
        return;
    };
    if !cublas_present() {
        return;
    }
    let args = tessel_kernels::bench::parse_args(&[
        "gemm".into(),
        "--size".into(),
        "512".into(),
        "--repeats".into(),
        "3".into(),
    ])
    .unwrap();
    let (mut out, mut progress) = (Vec::new(), Vec::new());
    tessel_kernels::bench::run(&args, &mut out, &mut progress).unwrap();
    let table = String::from_utf8(out).unwrap();
    assert!(
        table.contains("512x512x512") && table.contains("x_cublas"),
        "{table}"
    );
}
