//! The FP8 configurations of the Hopper GEMM (e4m3/e5m2 A and B, any mix; both K-major; the
//! 128 x 128 tile with K-block 128 the library chooses for them) compile for sm_90a with NVRTC
//! through ptxas without spills, and their SASS runs the FP8 tensor-core instruction `QGMMA`
//! (the 16-bit one is `HGMMA`; skipped with a reason
//! when libnvrtc or nvdisasm is missing; failing instead under `TESSEL_REQUIRE_NVRTC=1`).

mod common;

use common::nvrtc_or_skip;
use tessel_kernels::Arch;
use tessel_kernels::Element;
use tessel_kernels::compile::compile_cubin;
use tessel_kernels::hopper::{Epilogue, FP8_INPUTS, OUTPUTS, Sm90Config, Sm90Plan, Sm90Tile};

/// Every (A, B) pair of 8-bit formats.
fn pairs() -> Vec<(Element, Element)> {
    FP8_INPUTS
        .iter()
        .flat_map(|&a| FP8_INPUTS.iter().map(move |&b| (a, b)))
        .collect()
}

/// Every FP8 configuration the library builds ([`tessel_kernels::blas::plan_sm90`]): each type
/// pair, output type, epilogue and read of C, TN, the 128 x 128 tile. By default each pair
/// with each output type once, the epilogue and the read of C taken in turn; all of them under
/// `TESSEL_LONG_TESTS=1`.
fn configurations() -> Vec<Sm90Config> {
    let variants = [
        (Epilogue::TmaStore, false),
        (Epilogue::Direct, false),
        (Epilogue::TmaStore, true),
        (Epilogue::Direct, true),
    ];
    let mut all = Vec::new();
    let mut i = 0;
    for (a, b) in pairs() {
        for output in OUTPUTS {
            for (epilogue, source) in common::in_turn(&variants, i) {
                all.push(Sm90Config {
                    tile: Sm90Tile::T128x128,
                    epilogue,
                    source,
                    ..Sm90Config::tn_pair(a, b, output)
                });
            }
            i += 1;
        }
    }
    all
}

/// The PTX ISA's type names of a configuration's pair (`wgmma.mma_async ... .f32.e4m3.e5m2`).
fn ptx_types(c: &Sm90Config) -> String {
    format!("{}.{}", c.input.ptx(), c.input_b.ptx())
}

#[test]
#[cfg_attr(
    not(tessel_nvrtc),
    ignore = "needs libnvrtc: see the README's Testing section"
)]
fn fp8_gemm_compiles_for_sm90a_without_spills() {
    if !nvrtc_or_skip("fp8_nvrtc") {
        return;
    }
    for config in configurations() {
        let name = config.kernel_name();
        let plan = Sm90Plan::for_config(config).unwrap();
        assert_eq!(plan.bk(), 128, "{name}");
        let kernel = plan.kernel().unwrap();
        let ptx = kernel.ptx(Arch::SM90A).unwrap();
        // PTX ISA, wgmma.mma_async: ".kind ... m64nNk32 ... .dtype.atype.btype" for .e4m3/.e5m2,
        // with the immediates scale-d, imm-scale-a, imm-scale-b and no transposes.
        let wgmma = format!(
            "wgmma.mma_async.sync.aligned.m64n128k32.f32.{}",
            ptx_types(&config)
        );
        assert!(ptx.contains(&wgmma), "{name}: no {wgmma}");
        assert!(
            ptx.lines()
                .filter(|l| l.contains("wgmma.mma_async"))
                .all(|l| l.contains(&wgmma) && l.trim_end().ends_with("p, 1, 1;")),
            "{name}: a wgmma of another shape or with other immediates"
        );
        // The promotion keeps one k-tile in flight (two accumulators take alternate k-tiles:
        // wait for all but the newest group) and waits for the last one.
        assert!(ptx.contains("wgmma.wait_group.sync.aligned 0"), "{name}");
        assert!(ptx.contains("wgmma.wait_group.sync.aligned 1"), "{name}");
        assert!(!ptx.contains(".local"), "{name} uses local memory");
        let c = common::verbose_cubin(kernel.source(), &name, Arch::SM90A);
        eprintln!("{name}: CUBIN {} bytes; log:\n{}", c.bytes.len(), c.log);
        common::assert_no_spills(&name, &c.log);
        common::assert_ptxas_log_clean(&name, &c.log);
    }
}

/// The SASS of each type pair (TMA store, f32 out): the FP8 tensor-core instruction
/// `QGMMA.64x128x32.F32.<A>.<B>` (as nvdisasm of CUDA 13.0 prints it) four times per k-tile in
/// each of the three places each consumer's copy of the code issues a k-tile, no 16-bit `HGMMA` and
/// no `HMMA`, waits that keep one k-tile in flight (`WARPGROUP.DEPBAR.LE gsb0, 0x1`) and drain
/// the last (`0x0`), TMA loads, nothing in local memory, and descriptors formed in uniform
/// registers (not moved there by `R2UR` between a k-tile's `QGMMA`s).
#[test]
#[cfg_attr(
    not(all(tessel_nvrtc, tessel_nvdisasm)),
    ignore = "needs libnvrtc and nvdisasm (TESSEL_NVDISASM): see the README's Testing section"
)]
fn fp8_gemm_sass_runs_fp8_qgmma() {
    if !nvrtc_or_skip("fp8_nvrtc") {
        return;
    }
    let Ok(nvdisasm) = std::env::var("TESSEL_NVDISASM") else {
        eprintln!("fp8_nvrtc: SASS check skipped: TESSEL_NVDISASM is not set");
        return;
    };
    for (a, b) in pairs() {
        let config = Sm90Config {
            tile: Sm90Tile::T128x128,
            ..Sm90Config::tn_pair(a, b, Element::F32)
        };
        let name = config.kernel_name();
        let kernel = Sm90Plan::for_config(config).unwrap().kernel().unwrap();
        let c = compile_cubin(kernel.source(), &name, Arch::SM90A, &[])
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        let sass = common::sass_of(&nvdisasm, &c.bytes, "fp8_nvrtc");
        let count = |op: &str| sass.matches(op).count();
        let qgmma = format!(
            "QGMMA.64x128x32.F32.{}.{}",
            a.ptx().to_uppercase(),
            b.ptx().to_uppercase()
        );
        // The consumer's code is written once per consumer index, and each issues a k-tile's
        // four wgmmas at three places: the first k-tile, then into each of the two alternating
        // accumulators.
        let copies = 2 * 3;
        assert_eq!(count(&qgmma), 4 * copies, "{name}: {qgmma}\n{sass}");
        assert_eq!(count("QGMMA"), 4 * copies, "{name}: other QGMMAs\n{sass}");
        assert_eq!(count("HGMMA"), 0, "{name}: 16-bit HGMMAs\n{sass}");
        assert_eq!(count("HMMA"), 0, "{name}");
        // Per consumer copy: two waits that leave the newest k-tile in flight, two for the
        // last k-tile of a tile.
        assert!(
            count("WARPGROUP.DEPBAR.LE gsb0, 0x0") >= 2 * 2,
            "{name}\n{sass}"
        );
        assert!(
            count("WARPGROUP.DEPBAR.LE gsb0, 0x1") >= 2 * 2,
            "{name}\n{sass}"
        );
        assert!(count("UTMALDG.2D") >= 2, "{name}");
        for local in ["LDL", "STL"] {
            assert_eq!(count(local), 0, "{name}: {local} in the SASS");
        }
        common::assert_gmma_descriptors_uniform(&name, &sass, "QGMMA");
    }
}
