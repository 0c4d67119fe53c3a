//! The Hopper GEMM compiles for sm_90a with NVRTC, through ptxas to a CUBIN (no GPU needed;
//! skipped with a reason when libnvrtc cannot be loaded, failing instead under
//! `TESSEL_REQUIRE_NVRTC=1`), and its PTX holds the instructions the design relies on.

mod common;

use common::nvrtc_or_skip;
use tessel_kernels::Arch;
use tessel_kernels::Element;
use tessel_kernels::hopper::{Epilogue, Sm90Config, Sm90Plan, Sm90Tile};
use tessel_kernels::hopper::{INPUTS, OUTPUTS};
use tessel_layout::gmma::Major;

/// NVRTC's CUBIN of `source` for `arch` and the program log (ptxas warnings included).
fn cubin_and_log(source: &str, name: &str, arch: Arch) -> (Vec<u8>, String) {
    let c = common::verbose_cubin(source, name, arch);
    (c.bytes, c.log)
}

/// Asserts that the PTX of kernel `name` holds every instruction of `ops`.
fn assert_ptx_has(ptx: &str, name: &str, ops: &[&str]) {
    for op in ops {
        assert!(ptx.contains(op), "{name}: no {op} in the PTX");
    }
}

/// Compiles kernel `name` to a CUBIN and asserts what ptxas reports: no stack frame, no spills,
/// the wgmmas kept asynchronous (ptxas warns "Potential Performance Loss: wgmma ...
/// serialized" otherwise), setmaxnreg honoured (warning C7508 otherwise), no other warning.
/// Returns the CUBIN.
fn assert_ptxas_clean(source: &str, name: &str) -> Vec<u8> {
    let (cubin, log) = cubin_and_log(source, name, Arch::SM90A);
    assert!(!cubin.is_empty(), "{name}: empty CUBIN");
    eprintln!("{name}: CUBIN {} bytes; log:\n{log}", cubin.len());
    assert!(log.contains("for 'sm_90a'"), "{name}: {log}");
    common::assert_no_spills(name, &log);
    common::assert_ptxas_log_clean(name, &log);
    cubin
}

/// The configurations compiled by the tests (eighteen): the default (both operands K-major, the
/// large tile, the TMA store) for three type pairs that take each input and each output type
/// and the 128 x 192 tile for two of them,
/// every other pair of majors and the small tile (f16 in, f32 out), the direct epilogue and the
/// read of C once each, the narrow tiles as transposed calls use them (five) and writing a
/// 16-bit D (two: the 64-column tile by TMA, the 32-column one transposed, reading C); every
/// configuration the plan takes under `TESSEL_LONG_TESTS=1`.
fn configurations() -> Vec<Sm90Config> {
    let mut all = Vec::new();
    for input in INPUTS {
        for output in OUTPUTS {
            for a_major in [Major::K, Major::MN] {
                for b_major in [Major::K, Major::MN] {
                    for tile in Sm90Tile::ALL {
                        for epilogue in [Epilogue::TmaStore, Epilogue::Direct] {
                            for source in [false, true] {
                                all.push(Sm90Config {
                                    input,
                                    input_b: input,
                                    output,
                                    a_major,
                                    b_major,
                                    tile,
                                    epilogue,
                                    source,
                                });
                            }
                        }
                    }
                }
            }
        }
    }
    if common::long_tests() {
        // The 32-column tile takes a K-major B only (the plan refuses the others).
        return all
            .into_iter()
            .filter(|c| c.tile != Sm90Tile::T128x32 || c.b_major == Major::K)
            .collect();
    }
    let chosen: Vec<Sm90Config> = all
        .into_iter()
        .filter(|c| {
            let kk = c.a_major == Major::K && c.b_major == Major::K;
            let plain = c.epilogue == Epilogue::TmaStore && !c.source;
            // The default configuration for three type pairs (each input and each output type).
            let default = kk
                && c.tile == Sm90Tile::T128x256
                && plain
                && matches!(
                    (c.input, c.output),
                    (Element::F16, Element::F32)
                        | (Element::BF16, Element::BF16)
                        | (Element::F16, Element::F16)
                );
            // The other pairs of majors (and the small tile once), f16 in, f32 out.
            let majors = c.input == Element::F16
                && c.output == Element::F32
                && plain
                && (if kk {
                    c.tile == Sm90Tile::T128x128
                } else {
                    c.tile == Sm90Tile::T128x256
                });
            // The direct epilogue and the read of C, once each.
            let epilogues = c.input == Element::BF16
                && c.output == Element::BF16
                && c.a_major == Major::K
                && c.b_major == Major::MN
                && c.tile == Sm90Tile::T128x128
                && (c.epilogue == Epilogue::Direct) != c.source;
            // The tiles transposed calls use: fp32 partial sums, the 32-column tile with both
            // epilogues and K-major and M-major A, and the 64-column one for an N-major B (the
            // kernel's B is D's few rows).
            let narrow = c.input == Element::F16
                && c.output == Element::F32
                && !c.source
                && ((c.tile == Sm90Tile::T128x32 && c.b_major == Major::K)
                    || (c.tile == Sm90Tile::T128x64
                        && c.b_major == Major::MN
                        && c.a_major == Major::K
                        && c.epilogue == Epilogue::Direct));
            // The narrow tiles writing a 16-bit D themselves (one epilogue chunk, one buffer;
            // the 32-column tile's chunk is 64 bytes), reading C.
            let narrow_16 = c.input == Element::BF16
                && c.output == Element::BF16
                && kk
                && c.source
                && match c.tile {
                    Sm90Tile::T128x64 => c.epilogue == Epilogue::TmaStore,
                    Sm90Tile::T128x32 => c.epilogue == Epilogue::Direct,
                    _ => false,
                };
            // The 192-column tile (three 16-bit chunks through three buffers), two pairs.
            let three_quarters = kk
                && c.tile == Sm90Tile::T128x192
                && plain
                && matches!(
                    (c.input, c.output),
                    (Element::F16, Element::F32) | (Element::BF16, Element::BF16)
                );
            default || majors || epilogues || narrow || narrow_16 || three_quarters
        })
        .collect();
    assert_eq!(
        chosen.len(),
        18,
        "the configurations the doc comment counts"
    );
    chosen
}

#[test]
#[cfg_attr(
    not(tessel_nvrtc),
    ignore = "needs libnvrtc: see the README's Testing section"
)]
fn hopper_gemm_compiles_for_sm90a_through_ptxas() {
    if !nvrtc_or_skip("sm90_nvrtc") {
        return;
    }
    for config in configurations() {
        let plan = Sm90Plan::for_config(config).unwrap();
        let kernel = plan.kernel().unwrap();
        let ptx = kernel.ptx(Arch::SM90A).unwrap();
        let name = config.kernel_name();
        assert!(ptx.contains(".target sm_90a"), "{name}");
        // wgmma's transpose immediates (PTX ISA, wgmma.mma_async: imm-trans-a, imm-trans-b; 1
        // for an MN-major operand) follow the majors.
        let wgmma = format!(
            "wgmma.mma_async.sync.aligned.m64n{}k16.f32",
            config.tile.bn()
        );
        assert_ptx_has(
            &ptx,
            &name,
            &[
                &wgmma,
                "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes",
                "setmaxnreg.dec.sync.aligned.u32 40",
                "setmaxnreg.inc.sync.aligned.u32 232",
                "mbarrier.try_wait.parity",
                "mbarrier.arrive.expect_tx",
                "wgmma.wait_group.sync.aligned 1",
                "fence.mbarrier_init",
            ],
        );
        let tnsp = |m: Major| i32::from(m == Major::MN);
        let imm = format!(
            "p, 1, 1, {}, {};",
            tnsp(config.a_major),
            tnsp(config.b_major)
        );
        assert!(
            ptx.lines()
                .filter(|l| l.contains(&wgmma))
                .all(|l| l.trim_end().ends_with(&imm)),
            "{name}: wgmma without the immediates {imm}"
        );
        if config.epilogue == Epilogue::TmaStore {
            // Shared-memory chunks (stmatrix for 16-bit outputs, 64-bit st.shared for fp32)
            // stored by TMA in bulk groups, after the proxy fence; a buffer is refilled once
            // at most c_bufs - 1 later stores may still read the others.
            let wait_read = format!("cp.async.bulk.wait_group.read {}", plan.c_bufs() - 1);
            let chunk_store = if config.output == Element::F32 {
                "st.shared.v2.b32"
            } else {
                "stmatrix.sync.aligned.m8n8.x4.shared.b16"
            };
            assert_ptx_has(
                &ptx,
                &name,
                &[
                    "cp.async.bulk.tensor.2d.global.shared::cta.bulk_group",
                    "cp.async.bulk.commit_group",
                    &wait_read,
                    "cp.async.bulk.wait_group 0",
                    "fence.proxy.async.shared::cta",
                    "bar.sync",
                    chunk_store,
                ],
            );
            assert!(
                !ptx.lines()
                    .any(|l| l.contains("st.global") && !l.contains(SLAB_STORE)),
                "{name}: direct stores in the PTX"
            );
        } else {
            // Predicated stores from the registers, no TMA store.
            assert!(
                ptx.lines()
                    .any(|l| l.contains("st.global.") && !l.contains(SLAB_STORE)),
                "{name}"
            );
            assert!(!ptx.contains("bulk_group"), "{name}");
        }
        // Split-K in every configuration: the unit's partial sums stored and the tile's
        // slabs read through L2 (.cg), the arrival counted and the counter reset atomically,
        // and the warpgroup told by a reducing barrier whether its unit arrived last.
        assert_ptx_has(
            &ptx,
            &name,
            &[
                SLAB_STORE,
                SLAB_LOAD,
                "atom.global.add.u32",
                "atom.global.exch.b32",
                "bar.red.or.pred",
            ],
        );
        assert_eq!(
            ptx.lines()
                .any(|l| l.contains("ld.global.") && !l.contains(SLAB_LOAD)),
            config.source,
            "{name}: reads of C"
        );
        assert!(!ptx.contains(".local"), "{name} uses local memory");
        assert_ptxas_clean(kernel.source(), &name);
    }
}

/// The split-K partial sums' stores and loads (`__stcg` / `__ldcg` of a `float2`).
const SLAB_STORE: &str = "st.global.cg.v2.f32";
const SLAB_LOAD: &str = "ld.global.cg.v2.f32";

/// The SASS, where `nvdisasm` is available (`TESSEL_NVDISASM=/path/to/nvdisasm`, e.g. from the
/// `nvidia-cuda-nvdisasm` wheel; skipped otherwise): the tensor cores run `HGMMA` (not `HMMA`),
/// four per k-tile with one wait between k-tiles (in each consumer's copy of the code), the loads are TMA (`UTMALDG`), the register
/// budgets are reassigned (`USETMAXREG`), nothing goes to local memory, and the wgmma
/// descriptors are formed in uniform registers (not moved there by `R2UR` between a k-tile's `HGMMA`s); the
/// epilogue is eight TMA stores.
#[test]
#[cfg_attr(
    not(all(tessel_nvrtc, tessel_nvdisasm)),
    ignore = "needs libnvrtc and nvdisasm (TESSEL_NVDISASM): see the README's Testing section"
)]
fn hopper_gemm_sass_uses_hgmma_and_tma() {
    if !nvrtc_or_skip("sm90_nvrtc") {
        return;
    }
    let Ok(nvdisasm) = std::env::var("TESSEL_NVDISASM") else {
        eprintln!("sm90_nvrtc: SASS check skipped: TESSEL_NVDISASM is not set");
        return;
    };
    let plan = Sm90Plan::new(4096, 4096, 4096, Element::F16, Element::F32).unwrap();
    let kernel = plan.kernel().unwrap();
    let (cubin, _) = cubin_and_log(kernel.source(), &plan.kernel_name(), Arch::SM90A);
    let sass = common::sass_of(&nvdisasm, &cubin, "sm90_nvrtc");
    let count = |op: &str| sass.matches(op).count();
    // The consumer's code is written once per consumer index (a constant): the
    // consumers' instructions appear twice.
    let copies = 2;
    assert_eq!(count("HGMMA.64x256x16.F32"), 4 * copies, "{sass}");
    assert_eq!(count("HMMA"), 0);
    assert_eq!(count("WARPGROUP.DEPBAR.LE gsb0, 0x1"), copies, "{sass}");
    assert_eq!(count("UTMALDG.2D"), 2);
    // The epilogue: one TMA store per chunk (8 chunks of 64 x 32 fp32, unrolled).
    assert_eq!(count("UTMASTG.2D"), 8 * copies, "{sass}");
    assert!(count("USETMAXREG") >= 2, "{sass}");
    for local in ["LDL", "STL"] {
        assert_eq!(count(local), 0, "{local} in the SASS");
    }
    common::assert_gmma_descriptors_uniform(&plan.kernel_name(), &sass, "HGMMA");
}
