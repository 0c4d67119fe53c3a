//! Device buffers for kernel runs: random uploads, allocation, poisoning and download (the
//! launch itself is [`crate::kernel::Loaded`]'s, for every kernel).
//!
//! ```
//! let Ok(gpu) = tessel_kernels::Gpu::open(0) else { return }; // no GPU: nothing to run
//! use tessel_kernels::{Element, exec::*, tiled::{run_and_verify, TiledKind, TiledPlan}};
//! let plan = TiledPlan::new(TiledKind::Copy, Element::F32, 1000, 1001).unwrap();
//! let (host, src) = upload_random::<u32>(&gpu, 1000 * 1001, 3).unwrap();
//! let mut dst = alloc::<u32>(&gpu, 1000 * 1001).unwrap();
//! run_and_verify(&gpu, &plan, &host, &src, &mut dst).unwrap();
//! ```

use cudarc::driver::{CudaFunction, CudaSlice, DevicePtrMut, DeviceRepr};

use crate::bits::{BitsElement, random_data};
use crate::device::Gpu;
use crate::error::{GpuResult, cuda};

/// Uploads `len` random non-zero elements; returns the host copy and the device buffer.
///
/// ```
/// let Ok(gpu) = tessel_kernels::Gpu::open(0) else { return }; // no GPU: nothing to run
/// use half::f16;
/// use tessel_kernels::{bits::{random_data, same_bits}, exec::{download, upload_random}};
/// let (host, dev) = upload_random::<f16>(&gpu, 1000, 7).unwrap();
/// assert!(same_bits(&host, &random_data::<f16>(1000, 7)));
/// assert!(same_bits(&download(&gpu, &dev).unwrap(), &host));
/// ```
pub fn upload_random<E: BitsElement>(
    gpu: &Gpu,
    len: usize,
    seed: u64,
) -> GpuResult<(Vec<E>, CudaSlice<E>)> {
    let host = random_data::<E>(len, seed);
    let dev = cuda("cuMemcpyHtoD", gpu.stream().clone_htod(&host))?;
    Ok((host, dev))
}

/// Allocates `len` elements on the device (contents undefined until poisoned or written).
///
/// ```
/// let Ok(gpu) = tessel_kernels::Gpu::open(0) else { return }; // no GPU: nothing to run
/// use tessel_kernels::exec::alloc;
/// assert_eq!(alloc::<u32>(&gpu, 100).unwrap().len(), 100);
/// ```
pub fn alloc<E: BitsElement>(gpu: &Gpu, len: usize) -> GpuResult<CudaSlice<E>> {
    // SAFETY: the buffer is poisoned or fully written before it is read.
    cuda("cuMemAlloc", unsafe { gpu.stream().alloc::<E>(len) })
}

/// Fills `buf` with 0xFF bytes (the [`BitsElement::POISON`] NaN pattern of both dtypes; any element
/// type).
///
/// ```
/// let Ok(gpu) = tessel_kernels::Gpu::open(0) else { return }; // no GPU: nothing to run
/// use half::f16;
/// use tessel_kernels::{bits::BitsElement, exec::{alloc, download, poison}};
/// let mut buf = alloc::<f16>(&gpu, 10).unwrap();
/// poison(&gpu, &mut buf).unwrap();
/// assert!(download(&gpu, &buf).unwrap().iter().all(|&x| x.bits() == f16::POISON.bits()));
/// ```
pub fn poison<T: DeviceRepr>(gpu: &Gpu, buf: &mut CudaSlice<T>) -> GpuResult<()> {
    let bytes = buf.num_bytes();
    let stream = gpu.stream().clone();
    let (ptr, _guard) = buf.device_ptr_mut(&stream);
    // SAFETY: ptr is valid for `bytes` bytes on this stream.
    cuda("cuMemsetD8Async", unsafe {
        cudarc::driver::result::memset_d8_async(ptr, 0xFF, bytes, stream.cu_stream())
    })
}

/// Downloads a device buffer.
///
/// ```
/// let Ok(gpu) = tessel_kernels::Gpu::open(0) else { return }; // no GPU: nothing to run
/// use tessel_kernels::exec::download;
/// let dev = gpu.stream().clone_htod(&[5u32, 6]).unwrap();
/// assert_eq!(download(&gpu, &dev).unwrap(), [5, 6]);
/// ```
pub fn download<E: BitsElement>(gpu: &Gpu, buf: &CudaSlice<E>) -> GpuResult<Vec<E>> {
    cuda("cuMemcpyDtoH", gpu.stream().clone_dtoh(buf))
}

/// Poisons `out`, runs `launch` on it, waits for the GPU and downloads `out`: every verified run
/// (kernels and the memcpy reference) before its comparison.
pub(crate) fn run_poisoned<E: BitsElement>(
    gpu: &Gpu,
    out: &mut CudaSlice<E>,
    launch: impl FnOnce(&mut CudaSlice<E>) -> GpuResult<()>,
) -> GpuResult<Vec<E>> {
    poison(gpu, out)?;
    launch(out)?;
    gpu.synchronize()?;
    download(gpu, out)
}

/// Registers, local memory and resident blocks per SM of a compiled kernel, for progress lines.
///
/// ```
/// let Ok(gpu) = tessel_kernels::Gpu::open(0) else { return }; // no GPU: nothing to run
/// use tessel_kernels::exec::function_info;
/// let func = gpu.function("extern \"C\" __global__ void k(int* x) { x[0] = 1; }", "k").unwrap();
/// let info = function_info(&func, 32);
/// assert!(info.contains(" regs, ") && info.contains(" B local, "), "{info}");
/// ```
pub fn function_info(func: &CudaFunction, threads: u32) -> String {
    let regs = func.num_regs().map_or("?".into(), |r| r.to_string());
    let local = func
        .local_size_bytes()
        .map_or("?".into(), |r| r.to_string());
    let blocks = func
        .occupancy_max_active_blocks_per_multiprocessor(threads, 0, None)
        .map_or("?".into(), |r| r.to_string());
    format!("{regs} regs, {local} B local, {blocks} blocks/SM")
}
