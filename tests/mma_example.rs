//! The kernel of `examples/swizzle_problem3.rs`: derived step by step in the example, it is the
//! very kernel `tessel_kernels::mma::modes::ModesPlan` builds (same source), and it compiles with
//! NVRTC for sm_80 and sm_90 where NVRTC is present (skipped with the reason otherwise;
//! `TESSEL_REQUIRE_NVRTC=1` makes a missing NVRTC fail).

#[path = "../examples/swizzle_problem3.rs"]
#[allow(dead_code)]
mod example;

use tessel_kit::kernels::Arch;
use tessel_kit::kernels::mma::modes::{ModesKind, ModesPlan};

#[test]
fn the_example_builds_the_plans_kernel() {
    let k = example::problem3_kernel(64).unwrap();
    let plan = ModesPlan::new(ModesKind::Shared, true, 64)
        .unwrap()
        .kernel()
        .unwrap();
    assert_eq!(k.source(), plan.source());
    assert_eq!(k.launch(), plan.launch());
}

#[test]
#[cfg_attr(
    not(tessel_nvrtc),
    ignore = "needs libnvrtc: see the README's Testing section"
)]
fn the_example_kernel_compiles_with_nvrtc() {
    match tessel_kit::kernels::device::require_nvrtc() {
        Ok(()) => {}
        Err(e) => {
            assert_ne!(
                std::env::var("TESSEL_REQUIRE_NVRTC").as_deref(),
                Ok("1"),
                "{e}"
            );
            eprintln!("skipped: {e}");
            return;
        }
    }
    let k = example::problem3_kernel(8).unwrap();
    for arch in [Arch::new(8, 0).unwrap(), Arch::new(9, 0).unwrap()] {
        let ptx = tessel_kit::kernels::compile::compile_ptx(k.source(), k.name(), arch).unwrap();
        assert!(
            ptx.to_src()
                .contains("ldmatrix.sync.aligned.m8n8.x4.shared.b16")
        );
    }
}
