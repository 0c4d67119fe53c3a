//! The kernel of `examples/custom_kernel.rs`, written with the tensor layer: assembled on the
//! host (its partitions checked and its shared accesses proven conflict-free on the way), then
//! compiled by NVRTC for sm_80 and sm_90 where NVRTC is present (skipped with the reason
//! otherwise; `TESSEL_REQUIRE_NVRTC=1` makes a missing NVRTC fail).

#[path = "../examples/custom_kernel.rs"]
#[allow(dead_code)]
mod example;

use tessel_kit::kernels::Arch;

#[test]
fn the_example_kernel_assembles_on_the_host() {
    let k = example::transpose_kernel(256).unwrap();
    assert_eq!(k.name(), "transpose32_swizzled");
    assert_eq!(k.launch().grid, (64, 1, 1));
    assert!(k.source().contains("Sw<5,0,5>"), "{}", k.source());
    // The body is the tensor layer's: copies between partitioned tensors, no index math.
    let body = k.source().split("extern \"C\"").nth(1).unwrap();
    assert!(body.contains("tessel::copy(copy::load{}"), "{body}");
    assert_eq!(
        body.matches("layout::").count(),
        2,
        "the tile coordinates only: {body}"
    );
    // The example handles whole tiles only, and says so.
    for n in [0, 100] {
        let e = example::transpose_kernel(n).unwrap_err().to_string();
        assert!(e.contains("n must be 32 k, k >= 1"), "{n}: {e}");
    }
}

#[test]
#[cfg_attr(
    not(tessel_nvrtc),
    ignore = "needs libnvrtc: see the README's Testing section"
)]
fn the_example_kernel_compiles_with_nvrtc() {
    let k = example::transpose_kernel(256).unwrap();
    for arch in [Arch::new(8, 0).unwrap(), Arch::new(9, 0).unwrap()] {
        match k.ptx(arch) {
            Ok(ptx) => {
                assert!(ptx.contains(".entry transpose32_swizzled("), "{ptx}");
                assert!(!ptx.contains(".local"), "local memory in {arch}");
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
