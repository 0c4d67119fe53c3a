//! GPU checks of the SGEMM ladder (`#[ignore]`d: run with `cargo test -p tessel-kernels --test
//! gpu_sgemm -- --ignored` on a machine with a GPU). Every rung, launched through its plan, is
//! compared element by element with the f64 CPU reference within `gamma_K sum |a b|`
//! ([`tessel_kernels::sgemm::host`]), with C poisoned with NaN before each launch.

use tessel_kernels::Gpu;
use tessel_kernels::sgemm::run::{LadderOptions, SgemmBuffers, ladder, verify};
use tessel_kernels::sgemm::{Major, Rung, SgemmPlan, WarpTiling};

fn gpu() -> Gpu {
    Gpu::open(0).expect("a GPU (these tests are #[ignore]d for machines without one)")
}

fn verify_all(gpu: &Gpu, (m, n, k): (i64, i64, i64), majors: &[(Major, Major)]) {
    for &(am, bm) in majors {
        let mut bufs = SgemmBuffers::new(gpu, m, n, k, (m * 31 + n * 7 + k) as u64).unwrap();
        for rung in Rung::ALL {
            let plan = SgemmPlan::new(rung, m, n, k, am, bm).unwrap();
            let r = verify(gpu, &plan, &mut bufs, None)
                .unwrap_or_else(|e| panic!("{rung} {am:?}/{bm:?} {m}x{n}x{k}: {e}"));
            assert_eq!(r.checked, (m * n) as usize);
            assert!(r.worst_ratio <= 1.0);
        }
    }
}

const ALL_MAJORS: [(Major, Major); 4] = [
    (Major::Row, Major::Row),
    (Major::Col, Major::Row),
    (Major::Row, Major::Col),
    (Major::Col, Major::Col),
];

#[test]
#[ignore = "needs a GPU: run with TESSEL_REQUIRE_GPU=1 cargo test -p tessel-kernels --test gpu_sgemm -- --ignored"]
fn every_rung_at_a_ragged_size_all_layouts() {
    // Partial tiles in M, N and K; odd leading dimensions (the vector paths fall back to scalars).
    verify_all(&gpu(), (257, 129, 67), &ALL_MAJORS);
}

#[test]
#[ignore = "needs a GPU: run with TESSEL_REQUIRE_GPU=1 cargo test -p tessel-kernels --test gpu_sgemm -- --ignored"]
fn every_rung_at_512_cubed_all_layouts() {
    // Whole tiles, aligned leading dimensions: every 128-bit path.
    verify_all(&gpu(), (512, 512, 512), &ALL_MAJORS);
}

#[test]
#[ignore = "needs a GPU: run with TESSEL_REQUIRE_GPU=1 cargo test -p tessel-kernels --test gpu_sgemm -- --ignored"]
fn every_rung_at_aligned_but_ragged_sizes() {
    // Leading dimensions multiples of 4 (vector loads on) with partial tiles: the vector
    // predicate at the edges.
    verify_all(
        &gpu(),
        (132, 260, 36),
        &[(Major::Row, Major::Row), (Major::Col, Major::Col)],
    );
    verify_all(&gpu(), (1, 1, 1), &[(Major::Row, Major::Row)]);
}

#[test]
#[ignore = "needs a GPU: run with TESSEL_REQUIRE_GPU=1 cargo test -p tessel-kernels --test gpu_sgemm -- --ignored"]
fn the_ladder_verifies_then_times_every_rung() {
    let opts = LadderOptions {
        m: 1024,
        n: 768,
        k: 512,
        a_major: Major::Row,
        b_major: Major::Row,
        rungs: Rung::ALL.to_vec(),
        warmup: 1,
        repeats: 3,
        samples: 128,
    };
    let l = ladder(&gpu(), &opts).unwrap();
    assert_eq!(l.rows.len(), Rung::ALL.len());
    for r in &l.rows {
        assert!(r.gflops > 0.0 && r.check.worst_ratio <= 1.0, "{}", r.rung);
    }
}

#[test]
#[ignore = "needs a GPU: run with TESSEL_REQUIRE_GPU=1 cargo test -p tessel-kernels --test gpu_sgemm -- --ignored"]
fn warp_tiling_options_at_ragged_and_whole_sizes() {
    // The sweep's candidates beside the tuned rung: lanes not interleaved, 4 x 8 interleaved
    // lanes without a launch bound, BK 8; every element checked at ragged sizes (bounds checks
    // on) and at 512^3 (checks compiled out).
    let gpu = gpu();
    let tuned = WarpTiling::TUNED;
    let options = [
        WarpTiling {
            lane_interleave: 1,
            ..tuned
        },
        WarpTiling {
            warps_m: 4,
            warps_n: 2,
            lanes_m: 4,
            min_blocks: None,
            ..tuned
        },
        WarpTiling { bk: 8, ..tuned },
    ];
    for w in options {
        for (m, n, k) in [(257, 129, 67), (132, 260, 36), (512, 512, 512)] {
            for (am, bm) in ALL_MAJORS {
                let mut bufs =
                    SgemmBuffers::new(&gpu, m, n, k, (m + 3 * n + 7 * k) as u64).unwrap();
                let plan =
                    SgemmPlan::with_tiling(Rung::Tuned, w.tiling().unwrap(), m, n, k, am, bm)
                        .unwrap();
                let r = verify(&gpu, &plan, &mut bufs, None)
                    .unwrap_or_else(|e| panic!("{} {am:?}/{bm:?} {m}x{n}x{k}: {e}", w.name()));
                assert_eq!(r.checked, (m * n) as usize);
                assert!(r.worst_ratio <= 1.0);
            }
        }
    }
}
