//! The tensor-core swizzle kernels on a GPU (`#[ignore]`d: run with `TESSEL_REQUIRE_GPU=1 cargo
//! test -p tessel-kernels --test gpu_mma -- --ignored`): every problem, swizzled and plain,
//! verified against its CPU reference within the error bound of `tessel_kernels::mma::host`
//! (problem 4's `C2`, stored as fp16 through shared memory, against the reference rounded to fp16
//! with `host::round_to_f16`'s bound), and `tessel bench mma`'s rows.

mod common;

use common::gpu_or_skip;
use tessel_kernels::bench::BenchOptions;
use tessel_kernels::mma::run::{MmaKernel, Problem, mma_rows};

#[test]
#[ignore = "needs a GPU: run with TESSEL_REQUIRE_GPU=1 cargo test -p tessel-kernels --test gpu_mma -- --ignored"]
fn every_mma_kernel_and_its_twin_match_the_reference() {
    let Some(gpu) = gpu_or_skip("gpu_mma") else {
        return;
    };
    for problems in [1, 37, 1024] {
        for problem in Problem::ALL {
            for swizzled in [true, false] {
                let k = MmaKernel::new(problem, swizzled, problems).unwrap();
                k.run(&gpu, None)
                    .unwrap_or_else(|e| panic!("{} x {problems}: {e}", k.name()));
            }
        }
    }
}

#[test]
#[ignore = "needs a GPU: run with TESSEL_REQUIRE_GPU=1 cargo test -p tessel-kernels --test gpu_mma -- --ignored"]
fn bench_mma_times_eight_kernels_and_predicts_their_conflicts() {
    let Some(gpu) = gpu_or_skip("gpu_mma") else {
        return;
    };
    let opts = BenchOptions {
        sizes: vec![(2048, 1)],
        repeats: 3,
        ..BenchOptions::default()
    };
    let rows = mma_rows(&gpu, &opts, &mut Vec::new()).unwrap();
    // The memcpy_dtod reference first, then the eight kernels with their ratio to it.
    assert_eq!(rows.len(), 9);
    assert_eq!(
        (rows[0].kernel.as_str(), rows[0].ratio),
        ("memcpy_dtod", Some(1.0))
    );
    for r in &rows[1..] {
        assert!(r.ratio.is_some_and(|x| x > 0.0), "{}", r.kernel);
        let p = r.predicted.unwrap();
        let excess = p.excess();
        assert_eq!(
            excess == 0,
            r.kernel.ends_with("swizzled"),
            "{}: {p:?}",
            r.kernel
        );
        assert!(r.timing.is_some_and(|t| t.median_ms > 0.0), "{}", r.kernel);
    }
    let profiled = BenchOptions {
        profile: true,
        ..opts
    };
    let mut progress = Vec::new();
    let rows = mma_rows(&gpu, &profiled, &mut progress).unwrap();
    assert_eq!(rows.len(), 8); // no reference when profiling
    assert!(rows.iter().all(|r| r.timing.is_none()));
    let text = String::from_utf8(progress).unwrap();
    assert_eq!(text.matches("predict mma_").count(), 8, "{text}");
}
