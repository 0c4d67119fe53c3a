//! Every SGEMM rung compiles with NVRTC for sm_80 and sm_90, for both storage orders of A and B
//! and for aligned and ragged shapes (ignored, with the reason, when the build found
//! no libnvrtc: `cfg(tessel_nvrtc)`, `kernels/build.rs`). The PTX is checked for what each rung relies
//! on: 128-bit global loads (cp.async copies for the tuned rung) and 128-bit shared fragment
//! reads from the vectorized rung up, no local memory anywhere. By default each rung is compiled
//! with one order of the operands (the four in turn); `TESSEL_LONG_TESTS=1` compiles all four.

mod common;

use common::nvrtc_or_skip;
use tessel_kernels::Arch;
use tessel_kernels::compile::compile_ptx;
use tessel_kernels::sgemm::{Major, Rung, SgemmPlan};

const MAJORS: [(Major, Major); 4] = [
    (Major::Row, Major::Row),
    (Major::Col, Major::Row),
    (Major::Row, Major::Col),
    (Major::Col, Major::Col),
];

fn ptx(plan: &SgemmPlan, arch: Arch) -> String {
    let kernel = plan.kernel().unwrap();
    compile_ptx(kernel.source(), kernel.name(), arch)
        .unwrap_or_else(|e| panic!("{} {:?}: {e}", kernel.name(), (plan.a_major, plan.b_major)))
        .to_src()
}

fn compile_all(arch: Arch) {
    // Every rung in both shapes, with the operand orders in turn (all four under
    // TESSEL_LONG_TESTS=1).
    for (i, rung) in Rung::ALL.into_iter().enumerate() {
        for (am, bm) in common::in_turn(&MAJORS, i) {
            // 512^3: every vector path taken; 257 x 129 x 67: ragged tiles, odd leading dimensions.
            for (m, n, k) in [(512, 512, 512), (257, 129, 67)] {
                let plan = SgemmPlan::new(rung, m, n, k, am, bm).unwrap();
                let text = ptx(&plan, arch);
                let what = format!("{rung} {am:?}/{bm:?} {m}x{n}x{k}");
                assert!(text.contains(&format!(".target {arch}")), "{what}");
                assert!(!text.contains(".local"), "{what} uses local memory");
                let aligned = m == 512;
                let vectorized = rung.tiling().vector == 4;
                if vectorized {
                    // Fragment reads from the transposed A tile and from B: ld.shared.v4.
                    assert!(
                        text.contains("ld.shared.v4.f32"),
                        "{what}: no 128-bit shared load"
                    );
                }
                if vectorized && aligned {
                    assert!(
                        text.contains("st.global.v4.f32"),
                        "{what}: no 128-bit C store"
                    );
                }
                let async_copy = rung.tiling().async_copy;
                if vectorized && aligned && !async_copy {
                    assert!(
                        text.contains("ld.global.v4.f32") || text.contains("ld.global.nc.v4.f32"),
                        "{what}: no 128-bit global load"
                    );
                }
                if async_copy {
                    // Global -> shared without registers; a vector landing whole in the shared
                    // tile (B row-major, A column-major) is one 16-byte copy where aligned.
                    // Scalar (4-byte) copies: a vector that does not land whole (A row-major,
                    // B column-major), and the ragged edges.
                    if !aligned || am == Major::Row || bm == Major::Col {
                        assert!(
                            text.contains("cp.async.ca.shared.global"),
                            "{what}: no 4-byte cp.async"
                        );
                    }
                    assert!(
                        text.contains("cp.async.wait_group"),
                        "{what}: no wait_group"
                    );
                    if aligned && (am == Major::Col || bm == Major::Row) {
                        assert!(
                            text.contains("cp.async.cg.shared.global"),
                            "{what}: no 16-byte cp.async"
                        );
                    }
                }
            }
        }
    }
}

#[test]
#[cfg_attr(
    not(tessel_nvrtc),
    ignore = "needs libnvrtc: see the README's Testing section"
)]
fn every_rung_compiles_for_sm80() {
    if nvrtc_or_skip("sgemm_nvrtc") {
        compile_all(Arch::new(8, 0).unwrap());
    }
}

#[test]
#[cfg_attr(
    not(tessel_nvrtc),
    ignore = "needs libnvrtc: see the README's Testing section"
)]
fn every_rung_compiles_for_sm90() {
    if nvrtc_or_skip("sgemm_nvrtc") {
        compile_all(Arch::new(9, 0).unwrap());
    }
}

#[test]
#[cfg_attr(
    not(tessel_nvrtc),
    ignore = "needs libnvrtc: see the README's Testing section"
)]
fn row_major_b_tiles_are_stored_with_st_shared_v4() {
    if !nvrtc_or_skip("sgemm_nvrtc") {
        return;
    }
    let plan = SgemmPlan::new(Rung::WarpTiled, 512, 512, 512, Major::Row, Major::Row).unwrap();
    assert!(ptx(&plan, Arch::new(8, 0).unwrap()).contains("st.shared.v4.f32"));
}

#[test]
#[cfg_attr(
    not(tessel_nvrtc),
    ignore = "needs libnvrtc: see the README's Testing section"
)]
fn register_tiles_are_fully_unrolled() {
    if !nvrtc_or_skip("sgemm_nvrtc") {
        return;
    }
    // A K step of an 8x8 thread tile is BK x 64 = 512 FMAs; rolled loops would leave far fewer
    // in the PTX (and put the accumulators in local memory, which compile_all rules out).
    for rung in [
        Rung::Reg2d,
        Rung::Vectorized,
        Rung::WarpTiled,
        Rung::DoubleBuffered,
        Rung::Tuned,
    ] {
        let plan = SgemmPlan::new(rung, 512, 512, 512, Major::Row, Major::Row).unwrap();
        let text = ptx(&plan, Arch::new(9, 0).unwrap());
        let fmas = text.matches("fma.rn.f32").count();
        println!(
            "{rung}: {fmas} fma.rn.f32, {} ld.shared.v4.f32",
            text.matches("ld.shared.v4.f32").count()
        );
        assert!(fmas >= 512, "{rung}: only {fmas} fma.rn.f32");
    }
}
