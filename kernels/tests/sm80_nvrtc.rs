//! The library's mma.sync GEMM (`tessel_kernels::blas::Sm80Config`) compiles with NVRTC for
//! sm_80 in the configurations the dispatch picks (no GPU needed; skipped with a reason
//! when libnvrtc cannot be loaded, failing instead under `TESSEL_REQUIRE_NVRTC=1`): ptxas
//! reports no stack and no spills, the PTX has the instructions of its copy widths, and, where
//! `nvdisasm` is available (`TESSEL_NVDISASM=/path/to/nvdisasm`), the SASS has `HMMA`s.

mod common;

use common::nvrtc_or_skip;
use tessel_kernels::Arch;
use tessel_kernels::Element;
use tessel_kernels::blas::Sm80Config;
use tessel_layout::gmma::Major;

/// Every order of A and B, each with one type pair (f16 -> f32; bf16 -> bf16 and f16 -> f16
/// reading C) and one pair of copy widths (16-byte to 2-byte copies) in turn; every
/// combination under `TESSEL_LONG_TESTS=1`.
fn configurations() -> Vec<Sm80Config> {
    let types = [
        (Element::F16, Element::F32, false),
        (Element::BF16, Element::BF16, true),
        (Element::F16, Element::F16, true),
    ];
    let widths = [(8, 8), (1, 4), (2, 1), (4, 2)];
    let mut v = Vec::new();
    let orders = [
        (Major::K, Major::K),
        (Major::K, Major::MN),
        (Major::MN, Major::K),
        (Major::MN, Major::MN),
    ];
    for (i, (a_major, b_major)) in orders.into_iter().enumerate() {
        for (input, output, source) in common::in_turn(&types, i) {
            for (a_width, b_width) in common::in_turn(&widths, i) {
                v.push(Sm80Config {
                    input,
                    output,
                    a_major,
                    b_major,
                    a_width,
                    b_width,
                    source,
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
        let c = common::verbose_cubin(kernel.source(), &name, arch);
        common::assert_no_spills(&name, &c.log);
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
        // 16-bit products accumulate in the mma.sync accumulators (no promotion adds).
        let adds = ptx.matches("add.f32").count();
        assert!(adds < 128, "{name}: {adds} add.f32");
        if let Ok(nvdisasm) = std::env::var("TESSEL_NVDISASM") {
            let sass = common::sass_of(&nvdisasm, &c.bytes, "sm80_nvrtc");
            assert!(
                sass.contains("HMMA.16816.F32"),
                "{name}: no HMMA in the SASS"
            );
        }
    }
}

#[test]
#[cfg_attr(
    not(tessel_nvrtc),
    ignore = "needs libnvrtc: see the README's Testing section"
)]
fn eight_bit_configurations_compile_for_sm89_without_spills() {
    if !nvrtc_or_skip("sm80_nvrtc") {
        return;
    }
    // e4m3 and e5m2, K-major A and B, copies of 16 bytes to 1 byte; the kernel's own target.
    for (input, output, source, a_width, b_width) in [
        (Element::E4M3, Element::F32, false, 16, 16),
        (Element::E5M2, Element::BF16, true, 1, 4),
        (Element::E4M3, Element::F16, false, 8, 2),
    ] {
        let cfg = Sm80Config {
            input,
            output,
            a_major: Major::K,
            b_major: Major::K,
            a_width,
            b_width,
            source,
        };
        let name = cfg.kernel_name();
        let arch = cfg.arch();
        assert_eq!(arch, Arch::SM89, "{name}");
        let kernel = cfg.kernel().unwrap_or_else(|e| panic!("{name}: {e}"));
        let c = common::verbose_cubin(kernel.source(), &name, arch);
        common::assert_no_spills(&name, &c.log);
        let ptx = kernel.ptx(arch).unwrap();
        for (width, what) in [(a_width, "A"), (b_width, "B")] {
            let op = match width {
                16 => "cp.async.cg.shared.global",
                1 => "st.shared.b8",
                2 => "st.shared.b16",
                _ => "cp.async.ca.shared.global",
            };
            assert!(ptx.contains(op), "{name}: {what} has no {op}");
        }
        // PTX ISA 9.0, "mma": the 8-bit floating-point form of sm_89.
        let mma = format!("mma.sync.aligned.m16n8k32.row.col.f32.{input}.{input}.f32");
        assert!(ptx.contains(&mma), "{name}: no {mma}");
        assert!(
            ptx.contains("ldmatrix.sync.aligned.m8n8.x4.shared.b16"),
            "{name}"
        );
        // Promotion: each k tile's partial sums are added to the 128 accumulators of the
        // thread (64 x 64 per warp / 32 lanes), one add.f32 each in the unrolled loop.
        let adds = ptx.matches("add.f32").count();
        assert!(
            adds >= 128,
            "{name}: {adds} add.f32, not one per accumulator"
        );
        if let Ok(nvdisasm) = std::env::var("TESSEL_NVDISASM") {
            let sass = common::sass_of(&nvdisasm, &c.bytes, "sm80_nvrtc");
            // nvdisasm 13.0 prints the 8-bit form QMMA.16832.F32.E4M3.E4M3.
            let want = format!(
                "QMMA.16832.F32.{}.{}",
                input.cute_token(),
                input.cute_token()
            );
            assert!(sass.contains(&want), "{name}: no {want} in the SASS");
        }
    }
}
