//! Every attention configuration compiles for sm_90a with NVRTC, through ptxas to a CUBIN (no
//! GPU needed; skipped with a reason when libnvrtc cannot be loaded, failing instead under
//! `TESSEL_REQUIRE_NVRTC=1`): no stack frame, no spills, no ptxas warning (the wgmmas stay
//! asynchronous, `setmaxnreg` is honoured). Where `TESSEL_NVDISASM` names an `nvdisasm`, the
//! SASS holds the tensor-core instructions the design relies on.

mod common;

use common::nvrtc_or_skip;
use tessel_kernels::Arch;
use tessel_kernels::attention::{AttnConfig, AttnPlan, Problem};
use tessel_kernels::element::Element;
use tessel_kernels::hopper::INPUTS;

/// The short-sequence tile of head dimension 64 (two blocks per SM, fixed lengths).
fn short_tile(dtype: Element, causal: bool) -> AttnConfig {
    let p = Problem::new(1, 512, 512, 1, 1, 64).causal(causal);
    AttnConfig::for_problem(&p, dtype).unwrap()
}

/// The configurations compiled: under `TESSEL_LONG_TESTS=1` every one the API selects (head dims
/// 64, 128, 256; fp16 and bf16; causal or not; fixed or variable lengths, the default tile of each
/// head dimension and head dimension 64's short-sequence tile), else five that take each head
/// dimension, each type, causal and not, fixed and variable lengths and both tiles of head
/// dimension 64 at least once.
fn configs() -> Vec<AttnConfig> {
    if !common::long_tests() {
        let mut out: Vec<AttnConfig> = [
            (64, Element::F16, false, false),
            (128, Element::BF16, true, false),
            (256, Element::F16, true, true),
            (128, Element::F16, false, true),
        ]
        .into_iter()
        .map(|(d, dtype, causal, varlen)| AttnConfig::new(d, dtype, causal, varlen).unwrap())
        .collect();
        out.push(short_tile(Element::BF16, true));
        return out;
    }
    let mut out = Vec::new();
    for d in [64, 128, 256] {
        for dtype in INPUTS {
            for causal in [false, true] {
                for varlen in [false, true] {
                    out.push(AttnConfig::new(d, dtype, causal, varlen).unwrap());
                    if d == 64 && !varlen {
                        out.push(short_tile(dtype, causal));
                    }
                }
            }
        }
    }
    out
}

#[test]
#[cfg_attr(
    not(tessel_nvrtc),
    ignore = "needs libnvrtc: see the README's Testing section"
)]
fn every_attention_kernel_compiles_for_sm90a_clean() {
    if !nvrtc_or_skip("attention_nvrtc") {
        return;
    }
    let nvdisasm = std::env::var("TESSEL_NVDISASM").ok();
    if nvdisasm.is_none() {
        eprintln!("attention_nvrtc: SASS checks skipped: TESSEL_NVDISASM is not set");
    }
    for config in configs() {
        let plan = AttnPlan::new(config).unwrap();
        let kernel = plan.kernel().unwrap();
        let name = config.kernel_name();
        let c = common::verbose_cubin(kernel.source(), &name, Arch::SM90A);
        assert!(!c.bytes.is_empty(), "{name}: empty CUBIN");
        assert!(c.log.contains("for 'sm_90a'"), "{name}: {}", c.log);
        common::assert_no_spills(&name, &c.log);
        common::assert_ptxas_log_clean(&name, &c.log);
        let Some(nvdisasm) = &nvdisasm else { continue };
        let sass = common::sass_of(nvdisasm, &c.bytes, "attention_nvrtc");
        let lines = |f: &dyn Fn(&str) -> bool| sass.lines().filter(|l| f(l)).count();
        let (d, bn) = (config.head_dim, config.block_n);
        // Each consumer's code is written once per consumer index: two copies. S = Q K^T is
        // D / 16 wgmmas 64 x BN x 16 with A from shared memory (a descriptor); O += P V is
        // BN / 16 wgmmas 64 x D x 16 with A in registers (PTX ISA, wgmma.mma_async: the
        // register form of A). The overlapped main loop issues each product at two sites: S in
        // the first block and in the loop, P V in the loop and after it (the last block).
        let copies = 2;
        let sites = 2;
        let hgmma = |n: i64, registers: bool| {
            let op = format!("HGMMA.64x{n}x16.F32");
            lines(&|l: &str| {
                l.contains(&op) && {
                    let a = l.split(',').nth(1).unwrap_or("").trim();
                    if registers {
                        a.starts_with('R')
                    } else {
                        a.starts_with("gdesc")
                    }
                }
            })
        };
        assert_eq!(
            hgmma(bn, false),
            (copies * sites * d / 16) as usize,
            "{name}: {sass}"
        );
        assert_eq!(
            hgmma(d, true),
            (copies * sites * bn / 16) as usize,
            "{name}: {sass}"
        );
        assert_eq!(lines(&|l: &str| l.contains("HMMA")), 0, "{name}: HMMA");
        // Q, K and V by TMA (one box per 64-column block), O by TMA stores (fixed lengths) or
        // 16-byte global stores (varlen); the register budgets moved; no local memory.
        let rank = if config.varlen { "3D" } else { "4D" };
        let blocks = (d / 64) as usize;
        assert_eq!(
            lines(&|l: &str| l.contains(&format!("UTMALDG.{rank}"))),
            3 * blocks,
            "{name}: {sass}"
        );
        let stores = lines(&|l: &str| l.contains("UTMASTG"));
        if config.varlen {
            assert_eq!(stores, 0, "{name}");
            assert!(
                lines(&|l: &str| l.contains("STG.E.128")) > 0,
                "{name}: {sass}"
            );
        } else {
            assert_eq!(stores, copies as usize * blocks, "{name}: {sass}");
        }
        assert!(
            lines(&|l: &str| l.contains("STSM")) > 0,
            "{name}: no stmatrix"
        );
        assert_eq!(lines(&|l: &str| l.contains("USETMAXREG")), 2, "{name}");
        for local in ["LDL", "STL"] {
            let dotted = format!("{local}.");
            let n = lines(&|l: &str| {
                l.split_whitespace()
                    .any(|w| w == local || w.starts_with(&dotted))
            });
            assert_eq!(n, 0, "{name}: {local} in the SASS");
        }
    }
}
