//! The split-K reduction of the library GEMM (`tessel_kernels::blas::split`) compiles for sm_90a
//! with NVRTC through ptxas for every output type, with and without C, without spills or local
//! memory (skipped with a reason when libnvrtc is missing; failing instead under
//! `TESSEL_REQUIRE_NVRTC=1`).

mod common;

use common::nvrtc_or_skip;
use tessel_kernels::Arch;
use tessel_kernels::blas::split::reduce_kernel;
use tessel_kernels::hopper::OUTPUTS;

#[test]
#[cfg_attr(
    not(tessel_nvrtc),
    ignore = "needs libnvrtc: see the README's Testing section"
)]
fn every_reduction_compiles_for_sm90a_without_spills() {
    if !nvrtc_or_skip("splitk_nvrtc") {
        return;
    }
    for output in OUTPUTS {
        let mut loads = Vec::new();
        for source in [false, true] {
            let kernel = reduce_kernel(output, source).unwrap();
            let name = kernel.name().to_string();
            let ptx = kernel.ptx(Arch::SM90A).unwrap();
            assert!(!ptx.contains(".local"), "{name} uses local memory");
            loads.push(ptx.matches("ld.global").count());
            let c = common::verbose_cubin(kernel.source(), &name, Arch::SM90A);
            common::assert_no_spills(&name, &c.log);
            common::assert_ptxas_log_clean(&name, &c.log);
        }
        // C is read only by the configurations that read it.
        assert!(
            loads[1] > loads[0],
            "{output}: loads without and with C {loads:?}"
        );
    }
}
