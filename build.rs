//! Passes the NVRTC probe of `tessel-kernels` (its `build.rs`) on to this package's NVRTC
//! tests as `cfg(tessel_nvrtc)`: without libnvrtc they are reported as ignored, with the reason.

fn main() {
    println!("cargo::rustc-check-cfg=cfg(tessel_nvrtc)");
    println!("cargo::rerun-if-changed=build.rs");
    // Set by cargo from `tessel-kernels`' `cargo::metadata=nvrtc=...` (feature `kernels`).
    if std::env::var("DEP_TESSEL_KERNELS_NVRTC").as_deref() == Ok("1") {
        println!("cargo::rustc-cfg=tessel_nvrtc");
    }
}
