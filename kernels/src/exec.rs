//! Launching generated kernels: buffers, poisoning, launch, download and verification.

use cudarc::driver::{CudaFunction, CudaSlice, DevicePtrMut, LaunchConfig, PushKernelArg};

use crate::device::Gpu;
use crate::dtype::{Elem, random_data};
use crate::error::{GpuError, GpuResult, cuda};
use crate::micro::MicroPlan;
use crate::tiled::TiledPlan;

/// Uploads `len` random non-zero elements; returns the host copy and the device buffer.
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
pub fn alloc<E: Elem>(gpu: &Gpu, len: usize) -> GpuResult<CudaSlice<E>> {
    // SAFETY: the buffer is poisoned or fully written before it is read.
    cuda("cuMemAlloc", unsafe { gpu.stream().alloc::<E>(len) })
}

/// Fills `buf` with 0xFF bytes (the [`Elem::POISON`] NaN pattern of both dtypes).
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
pub fn download<E: Elem>(gpu: &Gpu, buf: &CudaSlice<E>) -> GpuResult<Vec<E>> {
    cuda("cuMemcpyDtoH", gpu.stream().clone_dtoh(buf))
}

/// Compiles (cached) and returns the plan's kernel.
pub fn tiled_function(gpu: &Gpu, plan: &TiledPlan) -> GpuResult<CudaFunction> {
    gpu.function(&plan.source()?, &plan.kernel_name())
}

/// Registers, local memory and resident blocks per SM of a compiled kernel, for progress lines.
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
                            if got != want {
                                bad += 1;
                                if got == E::POISON {
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
pub fn run_and_verify_tiled<E: Elem>(
    gpu: &Gpu,
    plan: &TiledPlan,
    host_src: &[E],
    src: &CudaSlice<E>,
    dst: &mut CudaSlice<E>,
) -> GpuResult<CudaFunction> {
    let func = tiled_function(gpu, plan)?;
    poison(gpu, dst)?;
    launch_tiled(gpu, &func, plan, src, dst)?;
    gpu.synchronize()?;
    let out = download(gpu, dst)?;
    let n = host_src.len().min(out.len());
    verify_tiled(plan, &host_src[..n], &out[..n])?;
    Ok(func)
}

/// Launches a microkernel with `reps` reads per lane into `out` (32 words).
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
pub fn run_and_verify_micro(
    gpu: &Gpu,
    plan: &MicroPlan,
    out: &mut CudaSlice<u32>,
    reps: i32,
) -> GpuResult<CudaFunction> {
    let func = gpu.function(&plan.source()?, plan.kind.name())?;
    poison(gpu, out)?;
    launch_micro(gpu, &func, out, reps)?;
    gpu.synchronize()?;
    let got = download(gpu, out)?;
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
