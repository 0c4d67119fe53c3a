//! The library's mma.sync GEMM (`tessel_kernels::blas::Sm80Config`) compiles with NVRTC for
//! sm_80 in every configuration the dispatch can pick (no GPU needed; skipped with a reason
//! when libnvrtc cannot be loaded, failing instead under `TESSEL_REQUIRE_NVRTC=1`): ptxas
//! reports no stack and no spills, the PTX has the instructions of its copy widths, and, where
//! `nvdisasm` is available (`TESSEL_NVDISASM=/path/to/nvdisasm`), the SASS has `HMMA`s.

mod common;

use common::nvrtc_or_skip;
use tessel_kernels::Arch;
use tessel_kernels::Element;
use tessel_kernels::blas::Sm80Config;
use tessel_kernels::compile::compile_cubin;
use tessel_layout::gmma::Major;

/// Every order of A and B with f16 -> f32; bf16 -> bf16 reading C; every copy width on one
/// operand each; fp16 out.
fn configurations() -> Vec<Sm80Config> {
    let mut v = Vec::new();
    for a_major in [Major::K, Major::MN] {
        for b_major in [Major::K, Major::MN] {
            for (input, output, source) in [
                (Element::F16, Element::F32, false),
                (Element::BF16, Element::BF16, true),
            ] {
                v.push(Sm80Config {
                    input,
                    output,
                    a_major,
                    b_major,
                    a_width: 8,
                    b_width: 8,
                    source,
                });
            }
            for (aw, bw) in [(1, 4), (2, 1)] {
                v.push(Sm80Config {
                    input: Element::F16,
                    output: Element::F16,
                    a_major,
                    b_major,
                    a_width: aw,
                    b_width: bw,
                    source: true,
                });
            }
        }
    }
    v
}

#[test]
#[cfg_attr(
    not(tessel_nvrtc),
    ignore = "needs libnvrtc: see the README's Testing section"
)]
fn every_configuration_compiles_for_sm80_without_spills() {
    if !nvrtc_or_skip("sm80_nvrtc") {
        return;
    }
    let arch = Arch::new(8, 0).unwrap();
    for cfg in configurations() {
        let name = cfg.kernel_name();
        let kernel = cfg.kernel().unwrap_or_else(|e| panic!("{name}: {e}"));
        let c = compile_cubin(kernel.source(), &name, arch, &["--ptxas-options=--verbose"])
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        assert!(
            c.log
                .contains("0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads"),
            "{name}: {}",
            c.log
        );
        let ptx = kernel.ptx(arch).unwrap();
        // 128 x 32 elements of each operand per k tile over 128 threads: 32 elements each.
        for (width, what) in [(cfg.a_width, "A"), (cfg.b_width, "B")] {
            let op = match width {
                8 => "cp.async.cg.shared.global",
                1 => "st.shared.b16",
                _ => "cp.async.ca.shared.global",
            };
            assert!(ptx.contains(op), "{name}: {what} has no {op}");
        }
        let trans = ptx.contains("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16");
        assert_eq!(
            trans,
            cfg.a_major == Major::MN || cfg.b_major == Major::MN,
            "{name}: ldmatrix.trans for MN-major operands only"
        );
        assert!(
            ptx.contains("mma.sync.aligned.m16n8k16.row.col.f32"),
            "{name}"
        );
        if let Ok(nvdisasm) = std::env::var("TESSEL_NVDISASM") {
            let sass = common::sass_of(&nvdisasm, &c.bytes, "sm80_nvrtc");
            assert!(
                sass.contains("HMMA.16816.F32"),
                "{name}: no HMMA in the SASS"
            );
        }
    }
}
