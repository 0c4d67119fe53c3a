//! Every SGEMM rung compiles with NVRTC for sm_80 and sm_90, for both storage orders of A and B
//! and for aligned and ragged shapes (ignored, with the reason, when the build found no
//! libnvrtc: `cfg(tessel_nvrtc)`, `kernels/build.rs`; every order at both sizes under
//! `TESSEL_LONG_TESTS=1`). The PTX is checked for what each rung relies
//! on: 128-bit global loads and 128-bit shared fragment reads from the vectorized rung up, no
//! local memory anywhere. Every element is 32 bits, so a `.v4` access of any 32-bit type
//! (`.f32`, or `.u32`/`.b32` from the `UniversalCopy<uint128_t>` atom) is 128 bits.

mod common;

use common::nvrtc_or_skip;
use tessel_kernels::Arch;
use tessel_kernels::compile::{compile_cubin, compile_ptx};
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

/// Whether to compile every order at both sizes (`TESSEL_LONG_TESTS=1`) or, by default, the
/// row-major orders at 512^3 and the column-major ones at the ragged size (NVRTC takes seconds
/// per kernel: the layer's fully unrolled index math is folded by the NVVM optimizer).
fn long_tests() -> bool {
    std::env::var("TESSEL_LONG_TESTS").as_deref() == Ok("1")
}

fn compile_all(arch: Arch) {
    for rung in Rung::ALL {
        for (am, bm) in MAJORS {
            // 512^3: every vector path taken; 257 x 129 x 67: ragged tiles, odd leading dimensions.
            for (m, n, k) in [(512, 512, 512), (257, 129, 67)] {
                let want = if m == 512 { Major::Row } else { Major::Col };
                let default = (am, bm) == (want, want);
                if !default && !long_tests() {
                    continue;
                }
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
                        text.contains("ld.shared.v4."),
                        "{what}: no 128-bit shared load"
                    );
                }
                if vectorized && aligned {
                    assert!(text.contains("st.global.v4."), "{what}: no 128-bit C store");
                }
                if vectorized && aligned {
                    assert!(
                        text.contains("ld.global.v4.") || text.contains("ld.global.nc.v4."),
                        "{what}: no 128-bit global load"
                    );
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
    assert!(ptx(&plan, Arch::new(8, 0).unwrap()).contains("st.shared.v4."));
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
            "{rung}: {fmas} fma.rn.f32, {} ld.shared.v4",
            text.matches("ld.shared.v4.").count()
        );
        assert!(fmas >= 512, "{rung}: only {fmas} fma.rn.f32");
    }
}

#[test]
#[cfg_attr(
    not(tessel_nvrtc),
    ignore = "needs libnvrtc: see the README's Testing section"
)]
fn register_tiled_rungs_fit_two_blocks_per_sm_without_spills() {
    if !nvrtc_or_skip("sgemm_nvrtc") {
        return;
    }
    // ptxas's report (NVRTC's own ptxas, sm_90): from reg-2d up a thread holds 64 accumulators
    // and its fragments in registers; at most 128 a thread keeps two 256-thread blocks on an SM
    // (64 K registers), the tuned rung's launch bound. No spill stores or loads, no stack frame.
    for rung in [
        Rung::Reg2d,
        Rung::Vectorized,
        Rung::WarpTiled,
        Rung::DoubleBuffered,
        Rung::Tuned,
    ] {
        let plan = SgemmPlan::new(rung, 4096, 4096, 4096, Major::Row, Major::Row).unwrap();
        let kernel = plan.kernel().unwrap();
        let cubin = compile_cubin(
            kernel.source(),
            kernel.name(),
            Arch::new(9, 0).unwrap(),
            &["--ptxas-options=--verbose"],
        )
        .unwrap();
        let log = &cubin.log;
        let used = log
            .split("Used ")
            .nth(1)
            .and_then(|s| s.split(' ').next())
            .and_then(|s| s.parse::<u32>().ok())
            .unwrap_or_else(|| panic!("{rung}: no register count in {log}"));
        println!("{rung}: {used} registers");
        assert!(used <= 128, "{rung}: {used} registers");
        assert!(
            log.contains("0 bytes spill stores, 0 bytes spill loads"),
            "{rung}: {log}"
        );
        assert!(log.contains("0 bytes stack frame"), "{rung}: {log}");
    }
}
