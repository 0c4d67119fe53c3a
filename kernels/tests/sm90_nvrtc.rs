//! The Hopper GEMM compiles for sm_90a with NVRTC, through ptxas to a CUBIN (no GPU needed;
//! ignored, with the reason, when the build found no libnvrtc: `cfg(tessel_nvrtc)`,
//! `kernels/build.rs`), and its PTX holds the instructions the design relies on. Each variant is
//! compiled for three input/output type pairs that cover every type; `TESSEL_LONG_TESTS=1`
//! compiles every pair.

mod common;

use common::nvrtc_or_skip;
use tessel_kernels::Arch;
use tessel_kernels::compile::compile_cubin;
use tessel_kernels::hopper::{Epilogue, InType, OutType, Sm90Options, Sm90Plan};

/// The input/output type pairs compiled for a variant: every pair under `TESSEL_LONG_TESTS=1`,
/// else three that take each input type and each output type at least once.
fn type_pairs() -> Vec<(InType, OutType)> {
    if common::long_tests() {
        InType::ALL
            .into_iter()
            .flat_map(|i| OutType::ALL.into_iter().map(move |o| (i, o)))
            .collect()
    } else {
        vec![
            (InType::F16, OutType::F32),
            (InType::BF16, OutType::BF16),
            (InType::F16, OutType::F16),
        ]
    }
}

/// NVRTC's CUBIN of `source` for `arch` and the program log (ptxas warnings included).
fn cubin_and_log(source: &str, name: &str, arch: Arch) -> (Vec<u8>, String) {
    let c = compile_cubin(source, name, arch, &["--ptxas-options=--verbose"])
        .unwrap_or_else(|e| panic!("{name}: {e}"));
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
    assert!(
        log.contains("0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads"),
        "{name}: {log}"
    );
    for bad in ["Performance Loss", "serialized", "C7508", "warning"] {
        assert!(!log.contains(bad), "{name}: ptxas says {bad}: {log}");
    }
    cubin
}

/// The SASS of `cubin` by `nvdisasm -c`, through a file in `dir` (removed afterwards).
fn sass_of(nvdisasm: &str, cubin: &[u8], dir: &std::path::Path) -> String {
    std::fs::create_dir_all(dir).unwrap();
    let file = dir.join("gemm_sm90.cubin");
    std::fs::write(&file, cubin).unwrap();
    let out = std::process::Command::new(nvdisasm)
        .arg("-c")
        .arg(&file)
        .output()
        .unwrap_or_else(|e| panic!("cannot run {nvdisasm}: {e}"));
    let _ = std::fs::remove_dir_all(dir);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
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
    for (input, output) in type_pairs() {
        let plan = Sm90Plan::new(1000, 1000, 1000, input, output).unwrap();
        let kernel = plan.kernel().unwrap();
        let ptx = kernel.ptx(Arch::SM90A).unwrap();
        let name = plan.kernel_name();
        assert!(ptx.contains(".target sm_90a"), "{name}");
        assert_ptx_has(
            &ptx,
            &name,
            &[
                "wgmma.mma_async.sync.aligned.m64n256k16.f32",
                "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes",
                "setmaxnreg.dec.sync.aligned.u32 40",
                "setmaxnreg.inc.sync.aligned.u32 232",
                "mbarrier.try_wait.parity",
                "mbarrier.arrive.expect_tx",
                "wgmma.wait_group.sync.aligned 1",
                "fence.mbarrier_init",
            ],
        );
        // The default epilogue: shared-memory chunks (stmatrix for 16-bit outputs, 64-bit
        // st.shared for fp32) stored by TMA in bulk groups, after the proxy fence.
        let chunk_store = if output == OutType::F32 {
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
                "cp.async.bulk.wait_group.read 1",
                "cp.async.bulk.wait_group 0",
                "fence.proxy.async.shared::cta",
                "bar.sync",
                chunk_store,
            ],
        );
        assert!(
            !ptx.contains("st.global"),
            "{name}: direct stores left in the PTX"
        );
        assert!(!ptx.contains(".local"), "{name} uses local memory");
        assert_ptxas_clean(kernel.source(), &name);
    }
    // C parked in the last k-tiles' stages: two stages for fp32, one for 16-bit outputs
    // (chunks 0-2 in it, chunk 3 in an own buffer: waits for 1 and 3 groups).
    let pk = Sm90Options {
        park: true,
        ..Sm90Options::default()
    };
    for (input, output) in [(InType::BF16, OutType::F32), (InType::F16, OutType::BF16)] {
        let plan = Sm90Plan::with_options(1000, 1000, 1000, input, output, pk).unwrap();
        let kernel = plan.kernel().unwrap();
        let name = plan.kernel_name();
        let ptx = kernel.ptx(Arch::SM90A).unwrap();
        let waits: &[&str] = if output == OutType::F32 {
            &[
                "wait_group.read 6",
                "wait_group.read 5",
                "wait_group.read 2",
            ]
        } else {
            &["wait_group.read 3", "wait_group.read 1"]
        };
        assert_ptx_has(&ptx, &name, waits);
        assert!(!ptx.contains(".local"), "{name} uses local memory");
        assert_ptxas_clean(kernel.source(), &name);
    }
    // Clusters of two along M: B multicast, remote releases of the stages, cluster barriers.
    let c2 = Sm90Options {
        cluster: 2,
        ..Sm90Options::default()
    };
    for (input, output) in [(InType::F16, OutType::F32), (InType::BF16, OutType::BF16)] {
        let plan = Sm90Plan::with_options(1000, 1000, 1000, input, output, c2).unwrap();
        let kernel = plan.kernel().unwrap();
        let name = plan.kernel_name();
        assert!(name.ends_with("_c2"), "{name}");
        let ptx = kernel.ptx(Arch::SM90A).unwrap();
        assert_ptx_has(
            &ptx,
            &name,
            &[
                ".multicast::cluster",
                "mapa.shared::cluster.u32",
                "mbarrier.arrive.shared::cluster.b64",
                "barrier.cluster.arrive.release",
                "barrier.cluster.wait.acquire",
                "%cluster_ctarank",
            ],
        );
        assert_ptxas_clean(kernel.source(), &name);
    }
    // The epilogue variants: the same pair order in every lane, one barrier per chunk, three
    // stages with four buffers per consumer, stores per warp. The default fp32 epilogue's lane-dependent pair
    // order selects between registers of constant index: no local memory (checked above), and
    // none here either.
    for opts in [
        Sm90Options {
            pair_order: false,
            ..Sm90Options::default()
        },
        Sm90Options {
            chunk_barriers: 1,
            ..Sm90Options::default()
        },
        Sm90Options {
            stages: 3,
            ..Sm90Options::default()
        },
        Sm90Options {
            warp_stores: true,
            ..Sm90Options::default()
        },
        Sm90Options {
            l2_hint: 2,
            ..Sm90Options::default()
        },
        Sm90Options {
            lag: 3,
            ..Sm90Options::default()
        },
        Sm90Options {
            lean_desc: false,
            wait_hint: true,
            ..Sm90Options::default()
        },
        Sm90Options {
            prefetch: 4,
            cluster: 2,
            ..Sm90Options::default()
        },
        Sm90Options {
            cluster: 2,
            lean_release: false,
            ..Sm90Options::default()
        },
        Sm90Options {
            uniform_consumer: false,
            ..Sm90Options::default()
        },
        Sm90Options {
            pingpong: true,
            unroll_stages: true,
            ..Sm90Options::default()
        },
        Sm90Options {
            unroll_stages: true,
            ..Sm90Options::default()
        },
        Sm90Options {
            trace: true,
            ..Sm90Options::default()
        },
        Sm90Options {
            park: true,
            ..Sm90Options::default()
        },
    ] {
        let plan =
            Sm90Plan::with_options(1000, 1000, 1000, InType::F16, OutType::F32, opts).unwrap();
        let kernel = plan.kernel().unwrap();
        let name = plan.kernel_name();
        let ptx = kernel.ptx(Arch::SM90A).unwrap();
        let wait = match (opts.chunk_barriers, opts.stages) {
            (1, _) => "cp.async.bulk.wait_group.read 0",
            (_, 3) => "cp.async.bulk.wait_group.read 3",
            _ if opts.pingpong => "cp.async.bulk.wait_group.read 3",
            // Parked fp32 C: the own buffers wait until only this tile's 6 parked chunks pend,
            // the parked stages for their 3 and 6 first chunks (checked below).
            _ if opts.park => "cp.async.bulk.wait_group.read 6",
            _ => "cp.async.bulk.wait_group.read 1",
        };
        assert!(ptx.contains(wait), "{name}: no {wait}");
        if opts.park {
            for w in ["read 5", "read 2"] {
                assert!(ptx.contains(w), "{name}: no {w}");
            }
            assert!(!ptx.contains("read 1;"), "{name}: waits as without parking");
        }
        if opts.l2_hint == 2 {
            for op in [
                "createpolicy.fractional.L2::evict_first.b64",
                "createpolicy.fractional.L2::evict_last.b64",
                "bulk_group.L2::cache_hint",
                "complete_tx::bytes.L2::cache_hint",
            ] {
                assert!(ptx.contains(op), "{name}: no {op}");
            }
        }
        if opts.prefetch > 0 {
            let op = "cp.async.bulk.prefetch.tensor.2d.L2.global.tile";
            assert!(ptx.contains(op), "{name}: no {op}");
        } else {
            assert!(!ptx.contains("prefetch.tensor."), "{name}: prefetches");
        }
        if opts.wait_hint {
            // The suspend-time hint is the try_wait's fourth operand.
            let hint = format!(", {};", tessel_kernels::hopper::WAIT_HINT_NS);
            assert!(
                ptx.lines()
                    .any(|l| l.contains("mbarrier.try_wait.parity") && l.contains(&hint)),
                "{name}: no try_wait with the hint"
            );
        }
        if opts.cluster > 1 {
            // Lean release: one `mapa` per consumer (before its loop: two with the code written
            // once per consumer) and no rank read in the consumers (the producer reads it once);
            // the serial form reads the rank and maps the address at each of the two release
            // sites of each consumer.
            let mapa = ptx.matches("mapa.shared::cluster.u32").count();
            let rank = ptx.matches("%cluster_ctarank").count();
            if opts.lean_release {
                assert_eq!(
                    (mapa, rank),
                    (2, 1),
                    "{name}: {mapa} mapa, {rank} rank reads"
                );
            } else {
                assert!(
                    mapa >= 4 && rank >= 5,
                    "{name}: {mapa} mapa, {rank} rank reads"
                );
            }
        }
        // The trace reads both clocks and writes its records; nothing else does.
        let timers = ["%globaltimer", "%clock64", "%smid"];
        for op in timers {
            assert_eq!(ptx.contains(op), opts.trace, "{name}: {op}");
        }
        assert!(!ptx.contains(".local"), "{name} uses local memory");
        assert_ptxas_clean(kernel.source(), &name);
    }
    // The direct epilogue (also the fallback where TMA cannot address C: N = 1001 fp32
    // columns are 4004-byte rows) stores from registers and has no TMA store.
    let direct = Sm90Options {
        epilogue: Epilogue::Direct,
        ..Sm90Options::default()
    };
    for plan in [
        Sm90Plan::with_options(1000, 1000, 1000, InType::F16, OutType::F32, direct).unwrap(),
        Sm90Plan::new(1000, 1001, 1000, InType::BF16, OutType::F32).unwrap(),
    ] {
        let kernel = plan.kernel().unwrap();
        let name = plan.kernel_name();
        assert!(name.ends_with("_direct"), "{name}");
        let ptx = kernel.ptx(Arch::SM90A).unwrap();
        assert!(ptx.contains("st.global."), "{name}");
        assert!(!ptx.contains("bulk_group"), "{name}");
        assert_ptxas_clean(kernel.source(), &name);
    }
}

/// The SASS, where `nvdisasm` is available (`TESSEL_NVDISASM=/path/to/nvdisasm`, e.g. from the
/// `nvidia-cuda-nvdisasm` wheel; skipped otherwise): the tensor cores run `HGMMA` (not `HMMA`),
/// four per k-tile with one wait between k-tiles (in each consumer's copy of the code), the loads are TMA (`UTMALDG`), the register
/// budgets are reassigned (`USETMAXREG`), and nothing goes to local memory; the epilogue is
/// eight TMA stores, and clusters of two multicast B and release stages without GPU-wide fences.
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
    let plan = Sm90Plan::new(4096, 4096, 4096, InType::F16, OutType::F32).unwrap();
    let kernel = plan.kernel().unwrap();
    let (cubin, _) = cubin_and_log(kernel.source(), &plan.kernel_name(), Arch::SM90A);
    let dir = std::env::temp_dir().join(format!("tessel_sm90_sass_{}", std::process::id()));
    let sass = sass_of(&nvdisasm, &cubin, &dir);
    let count = |op: &str| sass.matches(op).count();
    // The default writes the consumer's code once per consumer (uniform_consumer): the
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
    // Clusters of two: one multicast B load, and the remote stage releases are bare arrivals.
    // `mbarrier.arrive.release.cluster` put a MEMBAR.ALL.GPU before each of them (0.43x of
    // cuBLAS, docs/performance.md); only the two cluster barriers (start, exit) may have one.
    let c2 = Sm90Options {
        cluster: 2,
        ..Sm90Options::default()
    };
    let plan = Sm90Plan::with_options(4096, 4096, 4096, InType::F16, OutType::F32, c2).unwrap();
    let kernel = plan.kernel().unwrap();
    let (cubin, _) = cubin_and_log(kernel.source(), &plan.kernel_name(), Arch::SM90A);
    let sass = sass_of(&nvdisasm, &cubin, &dir);
    let count = |op: &str| sass.matches(op).count();
    assert_eq!(count("UTMALDG.2D.MULTICAST"), 1, "{sass}");
    assert_eq!(count("MEMBAR.ALL.GPU"), 2, "{sass}");
    assert!(count("SYNCS.ARRIVE.TRANS64.RED") >= 2, "{sass}");
}

/// The stream-K variant, for every type pair: its PTX holds the flag protocol (a release store,
/// an acquiring spin) and the L2-only partial stores and loads, uses no local memory, and
/// ptxas spills nothing; the default kernel has none of the flag instructions.
#[test]
#[cfg_attr(
    not(tessel_nvrtc),
    ignore = "needs libnvrtc: see the README's Testing section"
)]
fn hopper_gemm_stream_k_compiles_without_spills() {
    if !nvrtc_or_skip("sm90_nvrtc") {
        return;
    }
    let sk = Sm90Options {
        stream_k: true,
        ..Sm90Options::default()
    };
    for (input, output) in type_pairs() {
        let plan = Sm90Plan::with_options(1000, 2000, 520, input, output, sk).unwrap();
        let kernel = plan.kernel().unwrap();
        let name = plan.kernel_name();
        assert!(name.ends_with("_sk"), "{name}");
        let ptx = kernel.ptx(Arch::SM90A).unwrap();
        assert_ptx_has(
            &ptx,
            &name,
            &[
                "st.release.gpu.global.u32",
                "ld.acquire.gpu.global.u32",
                "st.global.cg.f32",
                "ld.global.cg.f32",
                "wgmma.mma_async.sync.aligned.m64n256k16.f32",
            ],
        );
        assert!(!ptx.contains(".local"), "{name} uses local memory");
        assert_ptxas_clean(kernel.source(), &name);
    }
    let plan = Sm90Plan::new(1000, 2000, 520, InType::F16, OutType::F32).unwrap();
    let ptx = plan.kernel().unwrap().ptx(Arch::SM90A).unwrap();
    assert!(!ptx.contains("ld.acquire.gpu") && !ptx.contains("st.release.gpu"));
}

/// The ping-pong variant, for every type pair and with clusters of two: its PTX holds the
/// consumers' turn-taking (`bar.arrive` on the named barriers 4 and 5, a `bar.sync` on each)
/// and the four-buffer epilogue's wait (`wait_group.read 3`), uses no local memory, and ptxas
/// keeps the wgmmas asynchronous and spills nothing; the default kernel has no such barrier.
#[test]
#[cfg_attr(
    not(tessel_nvrtc),
    ignore = "needs libnvrtc: see the README's Testing section"
)]
fn hopper_gemm_pingpong_compiles_without_spills() {
    if !nvrtc_or_skip("sm90_nvrtc") {
        return;
    }
    let pp = Sm90Options {
        pingpong: true,
        ..Sm90Options::default()
    };
    let pp_c2 = Sm90Options { cluster: 2, ..pp };
    let mut cases: Vec<(InType, OutType, Sm90Options)> = Vec::new();
    for (input, output) in type_pairs() {
        cases.push((input, output, pp));
    }
    cases.push((InType::F16, OutType::F32, pp_c2));
    for (input, output, opts) in cases {
        let plan = Sm90Plan::with_options(1000, 2000, 520, input, output, opts).unwrap();
        let kernel = plan.kernel().unwrap();
        let name = plan.kernel_name();
        assert!(name.ends_with("_pp"), "{name}");
        let ptx = kernel.ptx(Arch::SM90A).unwrap();
        assert_ptx_has(
            &ptx,
            &name,
            &[
                "wgmma.mma_async.sync.aligned.m64n256k16.f32",
                "bar.arrive",
                "cp.async.bulk.wait_group.read 3",
            ],
        );
        assert!(!ptx.contains(".local"), "{name} uses local memory");
        assert_ptxas_clean(kernel.source(), &name);
    }
    let plan = Sm90Plan::new(1000, 2000, 520, InType::F16, OutType::F32).unwrap();
    let ptx = plan.kernel().unwrap().ptx(Arch::SM90A).unwrap();
    assert!(
        !ptx.contains("bar.arrive"),
        "the default has no turn-taking barrier"
    );
}
