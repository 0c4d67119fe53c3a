//! The memory-bound kernels' baseline: `cuMemcpyDtoD` of the same buffers on the GPU's stream,
//! timed with CUDA events in the same run as the kernels, and the effective bandwidth (bytes
//! read + written over the median time) by which a kernel and the copy are compared.
//!
//! ```
//! use tessel_kernels::{measure::memcpy::gbps, timing::Timing};
//! let t = Timing { median_ms: 2.0, min_ms: 2.0, max_ms: 2.0, repeats: 1 };
//! assert_eq!(gbps(4_000_000, &t), 2.0); // 4 MB in 2 ms
//! ```

use cudarc::driver::CudaSlice;

use crate::device::Gpu;
use crate::error::{GpuResult, cuda};
use crate::measure::timing::{Timing, time_events};

/// One `cuMemcpyDtoD` of `src` into `dst` on the GPU's stream (enqueued, not waited for).
///
/// ```
/// let Ok(gpu) = tessel_kernels::Gpu::open(0) else { return }; // no GPU: nothing to run
/// use tessel_kernels::{exec::download, measure::memcpy::memcpy_dtod};
/// let src = gpu.stream().clone_htod(&[1u32, 2, 3]).unwrap();
/// let mut dst = gpu.stream().alloc_zeros::<u32>(3).unwrap();
/// memcpy_dtod(&gpu, &src, &mut dst).unwrap();
/// assert_eq!(download(&gpu, &dst).unwrap(), [1, 2, 3]);
/// ```
pub fn memcpy_dtod<E>(gpu: &Gpu, src: &CudaSlice<E>, dst: &mut CudaSlice<E>) -> GpuResult<()> {
    cuda("cuMemcpyDtoD", gpu.stream().memcpy_dtod(src, dst))
}

/// [`memcpy_dtod`] of `src` into `dst` timed with CUDA events: `warmup` untimed copies, then the
/// median of `repeats` ([`time_events`]).
///
/// ```
/// let Ok(gpu) = tessel_kernels::Gpu::open(0) else { return }; // no GPU: nothing to run
/// use tessel_kernels::{exec::alloc, measure::memcpy::time_memcpy_dtod};
/// let src = alloc::<u32>(&gpu, 1 << 20).unwrap();
/// let mut dst = alloc::<u32>(&gpu, 1 << 20).unwrap();
/// let t = time_memcpy_dtod(&gpu, &src, &mut dst, 1, 3).unwrap();
/// assert_eq!(t.repeats, 3);
/// ```
pub fn time_memcpy_dtod<E>(
    gpu: &Gpu,
    src: &CudaSlice<E>,
    dst: &mut CudaSlice<E>,
    warmup: usize,
    repeats: usize,
) -> GpuResult<Timing> {
    time_events(gpu, warmup, repeats, || memcpy_dtod(gpu, src, dst))
}

/// Effective bandwidth in GB/s of moving `bytes` in the median time of `t`.
///
/// ```
/// use tessel_kernels::{measure::memcpy::gbps, timing::Timing};
/// let t = Timing { median_ms: 0.5, min_ms: 0.4, max_ms: 0.6, repeats: 3 };
/// assert_eq!(gbps(8192, &t), 8192.0 / 0.5e6);
/// ```
pub fn gbps(bytes: i64, t: &Timing) -> f64 {
    bytes as f64 / (t.median_ms * 1e6)
}
