//! The GEMM of `examples/tiled_gemm.rs`: its host part (declaring, partitioning and checking the
//! tensors, assembling the kernel; on a GPU also the run against the CPU) and its NVRTC
//! compilation for sm_80 and sm_90 where NVRTC is present (skipped with the reason otherwise;
//! `TESSEL_REQUIRE_NVRTC=1` makes a missing NVRTC fail).

#[path = "../examples/tiled_gemm.rs"]
#[allow(dead_code)]
mod example;

use tessel_kit::kernels::Arch;

#[test]
fn the_example_runs_its_host_part() {
    // No GPU: it says what it built; a GPU: it verifies against the CPU (both end in Ok).
    let said = example::run().unwrap();
    assert!(
        said.starts_with("no GPU: tiled_gemm built") || said.starts_with("tiled_gemm verified"),
        "{said}"
    );
    let k = example::tiled_gemm(128, 192, 64).unwrap();
    assert_eq!(
        (k.launch().grid, k.launch().block),
        ((2, 3, 1), (128, 1, 1))
    );
    // The body is the tensor layer's: every tensor declared, the swizzled tiles split.
    for t in ["tAgA", "tSs", "tXsA", "tXrB", "tCgC", "tCrC"] {
        assert!(k.source().contains(&format!("struct {t}_layout")), "{t}");
    }
    assert!(
        k.source().contains("tSs_h_crd("),
        "the shared tile's offset is not split"
    );
}

#[test]
fn sizes_the_tiles_do_not_divide_are_errors() {
    for (m, n, k) in [(100, 64, 32), (64, 96, 32), (64, 64, 48), (0, 64, 32)] {
        let e = example::tiled_gemm(m, n, k).unwrap_err().to_string();
        assert!(
            e.contains("does not divide") || e.contains("extent"),
            "{m}x{n}x{k}: {e}"
        );
    }
}

#[test]
#[cfg_attr(
    not(tessel_nvrtc),
    ignore = "needs libnvrtc: see the README's Testing section"
)]
fn the_example_kernel_compiles_with_nvrtc() {
    let k = example::tiled_gemm(256, 192, 128).unwrap();
    for arch in [Arch::new(8, 0).unwrap(), Arch::new(9, 0).unwrap()] {
        match k.ptx(arch) {
            Ok(ptx) => {
                assert!(!ptx.contains(".local"), "local memory in {arch}");
                // Per k tile: 2 + 2 cp.async of 16 bytes per thread (64 x 32 halves of A and of
                // B by 128 threads), 2 ldmatrix.x4 for A and 2 for B... for every k step of 16,
                // and 2 x 4 m16n8k16 MMAs per k step (the warp's 32 x 32 of C).
                let count = |op: &str| ptx.matches(op).count();
                assert_eq!(count("cp.async.cg.shared.global [%"), 4, "{arch}");
                assert_eq!(count("mma.sync.aligned.m16n8k16"), 2 * 2 * 4, "{arch}");
                assert!(count("ldmatrix.sync.aligned.m8n8.x4") > 0, "{arch}");
            }
            Err(e) if e.is_unavailable() => {
                assert!(
                    std::env::var("TESSEL_REQUIRE_NVRTC").as_deref() != Ok("1"),
                    "TESSEL_REQUIRE_NVRTC=1 but {e}"
                );
                eprintln!("the_example_kernel_compiles_with_nvrtc: skipped: {e}");
                return;
            }
            Err(e) => panic!("{arch}: {e}"),
        }
    }
}
