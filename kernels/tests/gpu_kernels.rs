//! Every kernel on the GPU, verified element by element against the CPU reference, at sizes
//! that are and are not multiples of the tiles. Skipped without a GPU (enforced with
//! `TESSEL_REQUIRE_GPU=1`).

mod common;

use half::f16;
use tessel_kernels::bits::BitsElement;
use tessel_kernels::exec::{alloc, upload_random};
use tessel_kernels::micro::{self, MicroKind, MicroPlan};
use tessel_kernels::tiled::{self, TiledKind, TiledPlan};
use tessel_kernels::{Element, Gpu};

const SIZES: [(i64, i64); 7] = [
    (1, 1),
    (64, 64),
    (100, 70),
    (1000, 1001),
    (1024, 2048),
    (333, 4096),
    (2048, 130),
];

fn check_all<E: BitsElement>(gpu: &Gpu, kinds: &[TiledKind]) {
    for &(m, n) in &SIZES {
        let len = (m * n) as usize;
        let (host, src) = upload_random::<E>(gpu, len, (m * 31 + n) as u64).unwrap();
        let mut dst = alloc::<E>(gpu, len).unwrap();
        for &kind in kinds {
            let plan = TiledPlan::new(kind, E::ELEMENT, m, n).unwrap();
            if let Err(e) = tiled::run_and_verify(gpu, &plan, &host, &src, &mut dst) {
                panic!("{} {m}x{n}: {e}", plan.kernel_name());
            }
        }
    }
}

#[test]
#[ignore = "needs a GPU: run with TESSEL_REQUIRE_GPU=1 cargo test -p tessel-kernels --test gpu_kernels -- --ignored"]
fn gpu_copy_f32_and_f16() {
    let Some(gpu) = common::gpu_or_skip("gpu_copy_f32_and_f16") else {
        return;
    };
    check_all::<u32>(&gpu, &[TiledKind::Copy]);
    check_all::<f16>(&gpu, &[TiledKind::Copy]);
}

#[test]
#[ignore = "needs a GPU: run with TESSEL_REQUIRE_GPU=1 cargo test -p tessel-kernels --test gpu_kernels -- --ignored"]
fn gpu_transpose_ladder_f32() {
    let Some(gpu) = common::gpu_or_skip("gpu_transpose_ladder_f32") else {
        return;
    };
    check_all::<u32>(&gpu, &TiledKind::LADDER);
}

#[test]
#[ignore = "needs a GPU: run with TESSEL_REQUIRE_GPU=1 cargo test -p tessel-kernels --test gpu_kernels -- --ignored"]
fn gpu_transpose_ladder_f16() {
    let Some(gpu) = common::gpu_or_skip("gpu_transpose_ladder_f16") else {
        return;
    };
    check_all::<f16>(&gpu, &TiledKind::LADDER);
}

#[test]
#[ignore = "needs a GPU: run with TESSEL_REQUIRE_GPU=1 cargo test -p tessel-kernels --test gpu_kernels -- --ignored"]
fn gpu_conflict_microkernels() {
    let Some(gpu) = common::gpu_or_skip("gpu_conflict_microkernels") else {
        return;
    };
    let mut out = alloc::<u32>(&gpu, 32).unwrap();
    for kind in MicroKind::ALL {
        let plan = MicroPlan::new(kind).unwrap();
        for reps in [1, 7, 100] {
            if let Err(e) = micro::run_and_verify(&gpu, &plan, &mut out, reps) {
                panic!("{kind} reps {reps}: {e}");
            }
        }
    }
}

#[test]
#[ignore = "needs a GPU: run with TESSEL_REQUIRE_GPU=1 cargo test -p tessel-kernels --test gpu_kernels -- --ignored"]
fn gpu_module_cache_reuses_compiled_source() {
    let Some(gpu) = common::gpu_or_skip("gpu_module_cache") else {
        return;
    };
    let plan = TiledPlan::new(TiledKind::Padded, Element::F32, 96, 96).unwrap();
    let src = plan.source().unwrap();
    gpu.function(&src, &plan.kernel_name()).unwrap();
    let before = gpu.cached_modules();
    gpu.function(&src, &plan.kernel_name()).unwrap();
    assert_eq!(gpu.cached_modules(), before);
    // A broken source surfaces the NVRTC log.
    let err = gpu
        .function("extern \"C\" __global__ void k() { nope; }", "k")
        .unwrap_err();
    assert!(err.to_string().contains("nope"), "{err}");
}

#[test]
#[ignore = "needs a GPU: run with TESSEL_REQUIRE_GPU=1 cargo test -p tessel-kernels --test gpu_kernels -- --ignored"]
fn gpu_bench_runs_small() {
    let Some(gpu) = common::gpu_or_skip("gpu_bench_runs_small") else {
        return;
    };
    let opts = tessel_kernels::bench::BenchOptions {
        sizes: vec![(1000, 1001)],
        repeats: 3,
        ..Default::default()
    };
    let rows = common::bench_rows(&gpu, &opts);
    let names: Vec<&str> = rows.iter().map(|r| r.kernel.as_str()).collect();
    for want in [
        "memcpy_dtod",
        "copy_f32",
        "transpose_vec128_f16",
        "conflict_vec128_f32",
    ] {
        assert!(names.contains(&want), "{want} missing from {names:?}");
    }
    // Every timed kernel row has a bandwidth and a ratio to memcpy; microkernels move no bytes.
    for r in &rows {
        assert!(r.timing.is_some(), "{r:?}");
        assert_eq!(r.ratio.is_some(), r.bytes > 0, "{r:?}");
    }
}
