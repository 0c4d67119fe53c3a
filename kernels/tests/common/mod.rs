//! Shared by the GPU tests: open the GPU or explain the skip.

/// The GPU, or `None` after printing why the test is skipped. Panics (fails the test) when
/// `TESSEL_REQUIRE_GPU=1` and no GPU is available.
pub fn gpu_or_skip(test: &str) -> Option<tessel_kernels::Gpu> {
    match tessel_kernels::Gpu::open(0) {
        Ok(gpu) => {
            eprintln!("{test}: running on {}", gpu.describe());
            Some(gpu)
        }
        Err(e) => {
            if std::env::var("TESSEL_REQUIRE_GPU").as_deref() == Ok("1") {
                panic!("{test}: TESSEL_REQUIRE_GPU=1 but {e}");
            }
            eprintln!("{test}: skipped: {e}");
            None
        }
    }
}
