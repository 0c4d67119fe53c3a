//! Launching generated kernels: buffers, poisoning, launch, download and verification.
//!
//! ```
//! let Ok(gpu) = tessel_kernels::Gpu::open(0) else { return }; // no GPU: nothing to run
//! use tessel_kernels::{DType, exec::*, tiled::{TiledKind, TiledPlan}};
//! let plan = TiledPlan::new(TiledKind::Copy, DType::F32, 1000, 1001).unwrap();
//! let (host, src) = upload_random::<u32>(&gpu, 1000 * 1001, 3).unwrap();
//! let mut dst = alloc::<u32>(&gpu, 1000 * 1001).unwrap();
//! run_and_verify_tiled(&gpu, &plan, &host, &src, &mut dst).unwrap();
//! ```

use cudarc::driver::{CudaFunction, CudaSlice, DevicePtrMut, LaunchConfig, PushKernelArg};

use crate::device::Gpu;
use crate::dtype::{Elem, random_data};
use crate::error::{GpuError, GpuResult, cuda};
use crate::micro::MicroPlan;
use crate::tiled::TiledPlan;

/// Uploads `len` random non-zero elements; returns the host copy and the device buffer.
///
/// ```
/// let Ok(gpu) = tessel_kernels::Gpu::open(0) else { return }; // no GPU: nothing to run
/// use half::f16;
/// use tessel_kernels::{dtype::{random_data, same_bits}, exec::{download, upload_random}};
/// let (host, dev) = upload_random::<f16>(&gpu, 1000, 7).unwrap();
/// assert!(same_bits(&host, &random_data::<f16>(1000, 7)));
/// assert!(same_bits(&download(&gpu, &dev).unwrap(), &host));
/// ```
pub fn upload_random<E: Elem>(
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
pub fn alloc<E: Elem>(gpu: &Gpu, len: usize) -> GpuResult<CudaSlice<E>> {
    // SAFETY: the buffer is poisoned or fully written before it is read.
    cuda("cuMemAlloc", unsafe { gpu.stream().alloc::<E>(len) })
}

/// Fills `buf` with 0xFF bytes (the [`Elem::POISON`] NaN pattern of both dtypes).
///
/// ```
/// let Ok(gpu) = tessel_kernels::Gpu::open(0) else { return }; // no GPU: nothing to run
/// use half::f16;
/// use tessel_kernels::{dtype::Elem, exec::{alloc, download, poison}};
/// let mut buf = alloc::<f16>(&gpu, 10).unwrap();
/// poison(&gpu, &mut buf).unwrap();
/// assert!(download(&gpu, &buf).unwrap().iter().all(|&x| x.bits() == f16::POISON.bits()));
/// ```
pub fn poison<E: Elem>(gpu: &Gpu, buf: &mut CudaSlice<E>) -> GpuResult<()> {
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
pub fn download<E: Elem>(gpu: &Gpu, buf: &CudaSlice<E>) -> GpuResult<Vec<E>> {
    cuda("cuMemcpyDtoH", gpu.stream().clone_dtoh(buf))
}

/// Poisons `out`, runs `launch` on it, waits for the GPU and downloads `out`: every verified run
/// (kernels and the memcpy reference) before its comparison.
pub(crate) fn run_poisoned<E: Elem>(
    gpu: &Gpu,
    out: &mut CudaSlice<E>,
    launch: impl FnOnce(&mut CudaSlice<E>) -> GpuResult<()>,
) -> GpuResult<Vec<E>> {
    poison(gpu, out)?;
    launch(out)?;
    gpu.synchronize()?;
    download(gpu, out)
}

/// Compiles (cached) and returns the plan's kernel.
///
/// ```
/// let Ok(gpu) = tessel_kernels::Gpu::open(0) else { return }; // no GPU: nothing to run
/// use tessel_kernels::{DType, exec::{function_info, tiled_function}, tiled::{TiledKind, TiledPlan}};
/// let plan = TiledPlan::new(TiledKind::Swizzled, DType::F32, 64, 64).unwrap();
/// let func = tiled_function(&gpu, &plan).unwrap();
/// assert!(function_info(&func, 256).ends_with("blocks/SM"));
/// ```
pub fn tiled_function(gpu: &Gpu, plan: &TiledPlan) -> GpuResult<CudaFunction> {
    gpu.function(&plan.source()?, &plan.kernel_name())
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

/// Launches a tiled kernel `src -> dst` (both `m * n` elements).
///
/// ```
/// let Ok(gpu) = tessel_kernels::Gpu::open(0) else { return }; // no GPU: nothing to run
/// use tessel_kernels::{DType, exec::*, tiled::{TiledKind, TiledPlan}};
/// let plan = TiledPlan::new(TiledKind::Vectorized, DType::F32, 100, 70).unwrap();
/// let func = tiled_function(&gpu, &plan).unwrap();
/// let (host, src) = upload_random::<u32>(&gpu, 100 * 70, 1).unwrap();
/// let mut dst = alloc::<u32>(&gpu, 100 * 70).unwrap();
/// launch_tiled(&gpu, &func, &plan, &src, &mut dst).unwrap();
/// gpu.synchronize().unwrap();
/// verify_tiled(&plan, &host, &download(&gpu, &dst).unwrap()).unwrap();
/// // Buffers of the wrong element type are refused before launching.
/// let half = alloc::<half::f16>(&gpu, 100 * 70).unwrap();
/// let mut half_dst = alloc::<half::f16>(&gpu, 100 * 70).unwrap();
/// assert!(launch_tiled(&gpu, &func, &plan, &half, &mut half_dst).is_err());
/// ```
pub fn launch_tiled<E: Elem>(
    gpu: &Gpu,
    func: &CudaFunction,
    plan: &TiledPlan,
    src: &CudaSlice<E>,
    dst: &mut CudaSlice<E>,
) -> GpuResult<()> {
    let need = usize::try_from(plan.m * plan.n).unwrap_or(usize::MAX);
    if src.len() < need || dst.len() < need || E::DTYPE != plan.dtype {
        return Err(GpuError::InvalidArgument(format!(
            "{}: buffers of {} / {} {} elements for a {} x {} {} kernel",
            plan.kernel_name(),
            src.len(),
            dst.len(),
            E::DTYPE,
            plan.m,
            plan.n,
            plan.dtype
        )));
    }
    let (gx, gy) = plan.grid();
    let cfg = LaunchConfig {
        grid_dim: (gx, gy, 1),
        block_dim: (u32::try_from(plan.threads).unwrap_or(0), 1, 1),
        shared_mem_bytes: 0,
    };
    let mut builder = gpu.stream().launch_builder(func);
    builder.arg(src).arg(dst);
    // SAFETY: the kernel takes (const T*, T*) of at least m*n elements, checked above.
    cuda(&format!("cuLaunchKernel({})", plan.kernel_name()), unsafe {
        builder.launch(cfg)
    })?;
    Ok(())
}

/// Checks every element of `out` against the CPU reference of `plan` applied to `src`
/// (copy: `out = src`; transpose: `out[n * M + m] = src[m * N + n]`).
///
/// ```
/// use tessel_kernels::{DType, dtype::random_data, exec::verify_tiled, tiled::{TiledKind, TiledPlan}};
/// let (m, n) = (3, 5);
/// let src: Vec<u32> = random_data(m * n, 1);
/// let copy = TiledPlan::new(TiledKind::Copy, DType::F32, 3, 5).unwrap();
/// verify_tiled(&copy, &src, &src).unwrap();
/// let transpose = TiledPlan::new(TiledKind::Padded, DType::F32, 3, 5).unwrap();
/// let mut out = vec![0u32; m * n];
/// for r in 0..m {
///     for c in 0..n {
///         out[c * m + r] = src[r * n + c];
///     }
/// }
/// verify_tiled(&transpose, &src, &out).unwrap();
/// // The untransposed input is wrong almost everywhere.
/// let err = verify_tiled(&transpose, &src, &src).unwrap_err();
/// assert!(err.to_string().contains("transpose_padded_f32 on 3 x 5"), "{err}");
/// ```
pub fn verify_tiled<E: Elem>(plan: &TiledPlan, src: &[E], out: &[E]) -> GpuResult<()> {
    let (m, n) = (plan.m as usize, plan.n as usize);
    if src.len() != m * n || out.len() != m * n {
        return Err(GpuError::InvalidArgument(
            "verify: buffer sizes differ from the plan".into(),
        ));
    }
    let transpose = plan.kind.is_transpose();
    // Output row `o` of the reference: copy -> src row o; transpose -> src column o.
    let (out_rows, out_cols) = if transpose { (n, m) } else { (m, n) };
    let expected = |o: usize, j: usize| {
        if transpose {
            src[j * n + o]
        } else {
            src[o * n + j]
        }
    };
    let threads = std::thread::available_parallelism()
        .map(|p| p.get())
        .unwrap_or(1)
        .min(16);
    let chunk = out_rows.div_ceil(threads).max(1);
    let results: Vec<(usize, usize, Vec<String>)> = std::thread::scope(|s| {
        let handles: Vec<_> = out
            .chunks(chunk * out_cols)
            .enumerate()
            .map(|(k, rows)| {
                s.spawn(move || {
                    let (mut bad, mut poisoned, mut examples) = (0usize, 0usize, Vec::new());
                    for (i, row) in rows.chunks(out_cols).enumerate() {
                        let o = k * chunk + i;
                        for (j, &got) in row.iter().enumerate() {
                            let want = expected(o, j);
                            if got.bits() != want.bits() {
                                bad += 1;
                                if got.bits() == E::POISON.bits() {
                                    poisoned += 1;
                                }
                                if examples.len() < 4 {
                                    examples.push(format!(
                                        "out[{o}][{j}] = {got:?}, expected {want:?}"
                                    ));
                                }
                            }
                        }
                    }
                    (bad, poisoned, examples)
                })
            })
            .collect();
        handles.into_iter().filter_map(|h| h.join().ok()).collect()
    });
    let bad: usize = results.iter().map(|r| r.0).sum();
    let poisoned: usize = results.iter().map(|r| r.1).sum();
    if bad > 0 {
        let examples: Vec<String> = results.into_iter().flat_map(|r| r.2).take(6).collect();
        return Err(GpuError::Verify(format!(
            "{} on {} x {}: {bad} of {} elements wrong ({poisoned} never written); {}",
            plan.kernel_name(),
            plan.m,
            plan.n,
            m * n,
            examples.join("; ")
        )));
    }
    Ok(())
}

/// Compiles, launches (poisoned output) and verifies one tiled kernel on `src`; returns the
/// compiled function for timing.
///
/// ```
/// let Ok(gpu) = tessel_kernels::Gpu::open(0) else { return }; // no GPU: nothing to run
/// use tessel_kernels::{DType, exec::*, tiled::{TiledKind, TiledPlan}};
/// let (host, src) = upload_random::<half::f16>(&gpu, 1000 * 1001, 2).unwrap();
/// let mut dst = alloc::<half::f16>(&gpu, 1000 * 1001).unwrap();
/// for kind in TiledKind::LADDER {
///     let plan = TiledPlan::new(kind, DType::F16, 1000, 1001).unwrap();
///     run_and_verify_tiled(&gpu, &plan, &host, &src, &mut dst).unwrap();
/// }
/// ```
pub fn run_and_verify_tiled<E: Elem>(
    gpu: &Gpu,
    plan: &TiledPlan,
    host_src: &[E],
    src: &CudaSlice<E>,
    dst: &mut CudaSlice<E>,
) -> GpuResult<CudaFunction> {
    let func = tiled_function(gpu, plan)?;
    let out = run_poisoned(gpu, dst, |dst| launch_tiled(gpu, &func, plan, src, dst))?;
    let n = host_src.len().min(out.len());
    verify_tiled(plan, &host_src[..n], &out[..n])?;
    Ok(func)
}

/// Launches a microkernel with `reps` reads per lane into `out` (32 words).
///
/// ```
/// let Ok(gpu) = tessel_kernels::Gpu::open(0) else { return }; // no GPU: nothing to run
/// use tessel_kernels::{exec::*, micro::{MicroKind, MicroPlan}};
/// let plan = MicroPlan::new(MicroKind::ColumnPadded).unwrap();
/// let func = gpu.function(&plan.source().unwrap(), plan.kind.name()).unwrap();
/// let mut out = alloc::<u32>(&gpu, 32).unwrap();
/// launch_micro(&gpu, &func, &mut out, 3).unwrap();
/// gpu.synchronize().unwrap();
/// assert_eq!(download(&gpu, &out).unwrap(), plan.expected(3).unwrap());
/// // Fewer than 32 output words is refused.
/// let mut short = alloc::<u32>(&gpu, 31).unwrap();
/// assert!(launch_micro(&gpu, &func, &mut short, 1).is_err());
/// ```
pub fn launch_micro(
    gpu: &Gpu,
    func: &CudaFunction,
    out: &mut CudaSlice<u32>,
    reps: i32,
) -> GpuResult<()> {
    if out.len() < 32 {
        return Err(GpuError::InvalidArgument(
            "microkernel output needs 32 words".into(),
        ));
    }
    let cfg = LaunchConfig {
        grid_dim: (1, 1, 1),
        block_dim: (32, 1, 1),
        shared_mem_bytes: 0,
    };
    let mut builder = gpu.stream().launch_builder(func);
    builder.arg(out).arg(&reps);
    // SAFETY: the kernel takes (b32*, int) and writes 32 words.
    cuda("cuLaunchKernel(microkernel)", unsafe {
        builder.launch(cfg)
    })?;
    Ok(())
}

/// Compiles, runs and verifies a microkernel with `reps` reads; returns the function.
///
/// ```
/// let Ok(gpu) = tessel_kernels::Gpu::open(0) else { return }; // no GPU: nothing to run
/// use tessel_kernels::{exec::{alloc, run_and_verify_micro}, micro::{MicroKind, MicroPlan}};
/// let mut out = alloc::<u32>(&gpu, 32).unwrap();
/// for kind in MicroKind::ALL {
///     run_and_verify_micro(&gpu, &MicroPlan::new(kind).unwrap(), &mut out, 7).unwrap();
/// }
/// ```
pub fn run_and_verify_micro(
    gpu: &Gpu,
    plan: &MicroPlan,
    out: &mut CudaSlice<u32>,
    reps: i32,
) -> GpuResult<CudaFunction> {
    let func = gpu.function(&plan.source()?, plan.kind.name())?;
    let got = run_poisoned(gpu, out, |out| launch_micro(gpu, &func, out, reps))?;
    let want = plan.expected(i64::from(reps))?;
    if got.get(..32) != Some(&want[..]) {
        return Err(GpuError::Verify(format!(
            "{}: lanes read {:?}, expected {:?}",
            plan.kind,
            got.get(..4),
            want.get(..4)
        )));
    }
    Ok(func)
}
