//! Running the GEMM: launch, cuBLAS reference, verification and the `tessel bench gemm` driver.
//!
//! ```
//! use tessel_kernels::gemm::{run, GemmPlan};
//! let Ok(gpu) = tessel_kernels::Gpu::open(0) else { return };
//! let plan = GemmPlan::new(128, 128, 32).unwrap();
//! let mut bufs = run::GemmBuffers::new(&gpu, &plan, 1).unwrap();
//! let (_func, cmp) = run::run_and_verify(&gpu, &plan, &mut bufs, 128).unwrap();
//! assert!(cmp.ok());
//! ```

use std::io::Write;

use cudarc::cublas::CudaBlas;
use cudarc::driver::{CudaSlice, DevicePtr, DevicePtrMut};
use half::f16;

use super::host::{random_f16, reference_rows};
use super::{GemmConfig, GemmPlan};
use crate::bench::io;
use crate::device::Gpu;
use crate::element::Element;
use crate::error::{GpuError, GpuResult, cuda};
use crate::exec::{alloc, download, poison};
use crate::kernel::{Arg, Loaded};
use crate::measure::bound::tolerance;
use crate::measure::compare::{Comparison, compare_relative, compare_rows};
use crate::measure::cublas::gemm_tn;
/// The cuBLAS handle and its probe, defined with the cuBLAS baseline ([`crate::measure::cublas`]).
pub use crate::measure::cublas::{cublas, cublas_present};
use crate::timing::{Side, Timing, time_events, time_pair};

/// The operands and output of one GEMM on the device (C as fp32 bit patterns).
///
/// ```
/// use tessel_kernels::gemm::{run::GemmBuffers, GemmPlan};
/// let Ok(gpu) = tessel_kernels::Gpu::open(0) else { return };
/// let plan = GemmPlan::new(128, 128, 32).unwrap();
/// let bufs = GemmBuffers::new(&gpu, &plan, 7).unwrap();
/// assert_eq!((bufs.a.len(), bufs.c.len()), (128 * 32, 128 * 128));
/// ```
pub struct GemmBuffers {
    /// Host copy of A (fp16, M x K).
    pub a_host: Vec<f16>,
    /// Host copy of B (fp16, N x K).
    pub b_host: Vec<f16>,
    /// A on the device.
    pub a: CudaSlice<f16>,
    /// B on the device.
    pub b: CudaSlice<f16>,
    /// C on the device (fp32 bit patterns, M x N).
    pub c: CudaSlice<u32>,
}

fn len(x: i64, y: i64) -> GpuResult<usize> {
    usize::try_from(x * y).map_err(|_| GpuError::InvalidArgument(format!("{x} x {y} too large")))
}

impl GemmBuffers {
    /// Random fp16 A and B in [-1, 1] (uploaded) and an uninitialized C for `plan`.
    ///
    /// ```
    /// use tessel_kernels::gemm::{run::GemmBuffers, GemmPlan};
    /// let Ok(gpu) = tessel_kernels::Gpu::open(0) else { return };
    /// let plan = GemmPlan::new(128, 256, 64).unwrap();
    /// let bufs = GemmBuffers::new(&gpu, &plan, 7).unwrap();
    /// assert_eq!(bufs.b_host.len(), 256 * 64);
    /// ```
    pub fn new(gpu: &Gpu, plan: &GemmPlan, seed: u64) -> GpuResult<GemmBuffers> {
        let a_host = random_f16(len(plan.m, plan.k)?, seed);
        let b_host = random_f16(len(plan.n, plan.k)?, seed ^ 0xB0B);
        let a = cuda("cuMemcpyHtoD", gpu.stream().clone_htod(&a_host))?;
        let b = cuda("cuMemcpyHtoD", gpu.stream().clone_htod(&b_host))?;
        let c = alloc::<u32>(gpu, len(plan.m, plan.n)?)?;
        Ok(GemmBuffers {
            a_host,
            b_host,
            a,
            b,
            c,
        })
    }

    /// C downloaded as fp32.
    ///
    /// ```
    /// use tessel_kernels::gemm::{run, GemmPlan};
    /// let Ok(gpu) = tessel_kernels::Gpu::open(0) else { return };
    /// let plan = GemmPlan::new(128, 128, 32).unwrap();
    /// let mut bufs = run::GemmBuffers::new(&gpu, &plan, 7).unwrap();
    /// run::run_and_verify(&gpu, &plan, &mut bufs, 128).unwrap();
    /// assert!(bufs.c_host(&gpu).unwrap().iter().all(|x| x.is_finite()));
    /// ```
    pub fn c_host(&self, gpu: &Gpu) -> GpuResult<Vec<f32>> {
        Ok(download(gpu, &self.c)?
            .into_iter()
            .map(f32::from_bits)
            .collect())
    }
}

fn check_buffers(plan: &GemmPlan, bufs: &GemmBuffers) -> GpuResult<()> {
    if bufs.a.len() < len(plan.m, plan.k)?
        || bufs.b.len() < len(plan.n, plan.k)?
        || bufs.c.len() < len(plan.m, plan.n)?
    {
        return Err(GpuError::InvalidArgument(format!(
            "{}: buffers of {} / {} / {} elements are too small",
            plan.kernel_name(),
            bufs.a.len(),
            bufs.b.len(),
            bufs.c.len()
        )));
    }
    Ok(())
}

/// Compiles (cached) and loads the plan's kernel ([`GemmPlan::kernel`]; the runtime allows it
/// the dynamic shared memory it declares).
///
/// ```
/// use tessel_kernels::gemm::{run, GemmConfig, GemmPlan};
/// let Ok(gpu) = tessel_kernels::Gpu::open(0) else { return };
/// let plan = GemmPlan::with_config(128, 128, 64, GemmConfig { bn: 128, bk: 64, stages: 4 }).unwrap();
/// assert!(run::function(&gpu, &plan).is_ok()); // 128 KiB of dynamic shared memory
/// ```
pub fn function<'g>(gpu: &'g Gpu, plan: &GemmPlan) -> GpuResult<Loaded<'g>> {
    plan.kernel()?.load(gpu)
}

/// The kernel's arguments `(A, B, C)` from `bufs`.
fn args(bufs: &mut GemmBuffers) -> [Arg<'_>; 3] {
    [
        Arg::input(&bufs.a),
        Arg::input(&bufs.b),
        Arg::output(&mut bufs.c),
    ]
}

/// Launches the loaded GEMM kernel on `bufs` (the runtime checks the buffers against the
/// kernel's parameters).
///
/// ```
/// use tessel_kernels::gemm::{run, GemmPlan};
/// let Ok(gpu) = tessel_kernels::Gpu::open(0) else { return };
/// let plan = GemmPlan::new(128, 128, 32).unwrap();
/// let mut bufs = run::GemmBuffers::new(&gpu, &plan, 7).unwrap();
/// let kernel = run::function(&gpu, &plan).unwrap();
/// run::launch(&kernel, &mut bufs).unwrap();
/// gpu.synchronize().unwrap();
/// ```
pub fn launch(kernel: &Loaded<'_>, bufs: &mut GemmBuffers) -> GpuResult<()> {
    kernel.launch(&mut args(bufs))
}

/// The same GEMM with cuBLAS (`cublasGemmEx`, fp16 inputs, fp32 output, fp32 compute) into
/// `bufs.c`. Row-major `C = A B^T` is column-major `C^T = B A^T`: `op(B) = T` (B is K x N
/// column-major with ld K), `op(A) = N` (A^T is K x M column-major with ld K), ldc = N.
///
/// ```
/// use tessel_kernels::gemm::{run, GemmPlan};
/// let Ok(gpu) = tessel_kernels::Gpu::open(0) else { return };
/// let Ok(blas) = run::cublas(&gpu) else { return };
/// let plan = GemmPlan::new(128, 128, 32).unwrap();
/// let mut bufs = run::GemmBuffers::new(&gpu, &plan, 7).unwrap();
/// run::launch_cublas(&gpu, &blas, &plan, &mut bufs).unwrap();
/// gpu.synchronize().unwrap();
/// ```
pub fn launch_cublas(
    gpu: &Gpu,
    blas: &CudaBlas,
    plan: &GemmPlan,
    bufs: &mut GemmBuffers,
) -> GpuResult<()> {
    check_buffers(plan, bufs)?;
    let stream = gpu.stream();
    let (pa, _ra) = bufs.a.device_ptr(stream);
    let (pb, _rb) = bufs.b.device_ptr(stream);
    let (pc, _rc) = bufs.c.device_ptr_mut(stream);
    // SAFETY: the pointers are valid device buffers of the sizes `check_buffers` checked, on the
    // handle's stream.
    unsafe {
        gemm_tn(
            blas,
            (plan.m, plan.n, plan.k),
            (pa, pb, Element::F16),
            (pc, Element::F32),
        )
    }
}

/// Rows checked against the CPU: all of them up to `max_rows`, else `max_rows` spread rows.
fn checked_rows(m: usize, max_rows: usize) -> Vec<usize> {
    if m <= max_rows {
        return (0..m).collect();
    }
    let step = m / max_rows;
    (0..max_rows).map(|i| i * step + (i * 37) % step).collect()
}

/// Compares the rows `rows` of `c` (M x N) with the f64 CPU reference, each element within
/// [`tolerance`] of its `sum_k |a_ik b_jk|`.
///
/// ```
/// use tessel_kernels::gemm::{run, GemmPlan};
/// let Ok(gpu) = tessel_kernels::Gpu::open(0) else { return };
/// let plan = GemmPlan::new(128, 128, 32).unwrap();
/// let mut bufs = run::GemmBuffers::new(&gpu, &plan, 7).unwrap();
/// run::run_and_verify(&gpu, &plan, &mut bufs, 1).unwrap();
/// let c = bufs.c_host(&gpu).unwrap();
/// assert!(run::verify_rows(&plan, &bufs, &c, &[0, 127]).ok());
/// ```
pub fn verify_rows(plan: &GemmPlan, bufs: &GemmBuffers, c: &[f32], rows: &[usize]) -> Comparison {
    verify_rows_of(plan, &bufs.a_host, &bufs.b_host, c, rows)
}

fn verify_rows_of(plan: &GemmPlan, a: &[f16], b: &[f16], c: &[f32], rows: &[usize]) -> Comparison {
    let (n, k) = (plan.n as usize, plan.k as usize);
    let (want, scale) = reference_rows(a, b, n, k, rows);
    let got: Vec<f32> = rows
        .iter()
        .flat_map(|&r| c.get(r * n..(r + 1) * n).unwrap_or(&[]).iter().copied())
        .collect();
    let tol: Vec<f64> = scale.iter().map(|&s| tolerance(k, s)).collect();
    compare_rows(&got, &want, &tol, "C", n, rows)
}

fn verified(what: &str, plan: &GemmPlan, cmp: &Comparison) -> GpuResult<()> {
    if cmp.ok() {
        return Ok(());
    }
    Err(cmp.failure(&plan.kernel_name(), what))
}

/// Runs the kernel once on poisoned C and checks it against the CPU reference on up to
/// `max_rows` rows (every row when M <= max_rows). Returns the loaded kernel and the comparison.
///
/// ```
/// use tessel_kernels::gemm::{run, GemmPlan};
/// let Ok(gpu) = tessel_kernels::Gpu::open(0) else { return };
/// let plan = GemmPlan::new(256, 128, 64).unwrap();
/// let mut bufs = run::GemmBuffers::new(&gpu, &plan, 7).unwrap();
/// let (_kernel, cmp) = run::run_and_verify(&gpu, &plan, &mut bufs, 256).unwrap();
/// assert!(cmp.ok());
/// ```
pub fn run_and_verify<'g>(
    gpu: &'g Gpu,
    plan: &GemmPlan,
    bufs: &mut GemmBuffers,
    max_rows: usize,
) -> GpuResult<(Loaded<'g>, Comparison)> {
    let kernel = function(gpu, plan)?;
    let (a_host, b_host) = (bufs.a_host.clone(), bufs.b_host.clone());
    let cmp = kernel.run_verified(&mut args(bufs), 2, |c: &[u32]| {
        let c: Vec<f32> = c.iter().map(|&x| f32::from_bits(x)).collect();
        let rows = checked_rows(plan.m as usize, max_rows);
        let cmp = verify_rows_of(plan, &a_host, &b_host, &c, &rows);
        verified("vs CPU reference", plan, &cmp)?;
        Ok(cmp)
    })?;
    Ok((kernel, cmp))
}

/// Runs cuBLAS once on poisoned C and compares every element with `ours` within
/// `1e-4 (1 + |y|)` ([`compare_relative`]).
///
/// ```
/// use tessel_kernels::gemm::{run, GemmPlan};
/// let Ok(gpu) = tessel_kernels::Gpu::open(0) else { return };
/// let Ok(blas) = run::cublas(&gpu) else { return };
/// let plan = GemmPlan::new(128, 128, 32).unwrap();
/// let mut bufs = run::GemmBuffers::new(&gpu, &plan, 7).unwrap();
/// run::run_and_verify(&gpu, &plan, &mut bufs, 8).unwrap();
/// let ours = bufs.c_host(&gpu).unwrap();
/// assert!(run::run_and_compare_cublas(&gpu, &blas, &plan, &mut bufs, &ours).unwrap().ok());
/// ```
pub fn run_and_compare_cublas(
    gpu: &Gpu,
    blas: &CudaBlas,
    plan: &GemmPlan,
    bufs: &mut GemmBuffers,
    ours: &[f32],
) -> GpuResult<Comparison> {
    poison(gpu, &mut bufs.c)?;
    launch_cublas(gpu, blas, plan, bufs)?;
    gpu.synchronize()?;
    let theirs = bufs.c_host(gpu)?;
    let cmp = compare_relative(ours, &theirs, 1e-4, plan.n as usize);
    verified("vs cuBLAS", plan, &cmp)?;
    Ok(cmp)
}

/// Largest dynamic shared memory a block may opt in to on this GPU, in bytes.
///
/// ```
/// let Ok(gpu) = tessel_kernels::Gpu::open(0) else { return };
/// assert!(tessel_kernels::gemm::run::max_smem_optin(&gpu).unwrap() >= 48 * 1024);
/// ```
pub fn max_smem_optin(gpu: &Gpu) -> GpuResult<i64> {
    cuda(
        "cuDeviceGetAttribute (max shared memory per block, opt-in)",
        gpu.context().attribute(
            cudarc::driver::sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN,
        ),
    )
    .map(i64::from)
}

/// The configurations `tessel bench gemm` times: the default, and [`GemmConfig::LARGE`] where
/// the GPU allows its shared memory.
///
/// ```
/// use tessel_kernels::gemm::{run, GemmConfig};
/// let Ok(gpu) = tessel_kernels::Gpu::open(0) else { return };
/// assert_eq!(run::bench_configs(&gpu).unwrap()[0], GemmConfig::DEFAULT);
/// ```
pub fn bench_configs(gpu: &Gpu) -> GpuResult<Vec<GemmConfig>> {
    let limit = max_smem_optin(gpu)?;
    Ok([GemmConfig::DEFAULT, GemmConfig::LARGE]
        .into_iter()
        .filter(|c| c.smem_bytes() <= limit)
        .collect())
}

/// A GEMM kernel measured next to cuBLAS with the same operands in the same process: both
/// timings, both rates, and how far ours is from the CPU reference and from cuBLAS. Shared by
/// the SM80 rows ([`GemmRow`]) and the Hopper rows (`hopper::run::Sm90Row`).
///
/// ```
/// use tessel_kernels::{gemm::run::VsCublas, timing::Timing};
/// let t = |ms| Timing { median_ms: ms, min_ms: ms, max_ms: ms, repeats: 1 };
/// // 2e9 operations in 4 ms and in 2 ms: 0.5 and 1 TFLOP/s.
/// let v = VsCublas::new(2e9, t(4.0), t(2.0), 1e-6, 2e-6);
/// assert_eq!((v.ours_tflops, v.cublas_tflops, v.ratio()), (0.5, 1.0, 0.5));
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct VsCublas {
    /// Our kernel's timing.
    pub ours: Timing,
    /// cuBLAS's timing.
    pub cublas: Timing,
    /// Our TFLOP/s.
    pub ours_tflops: f64,
    /// cuBLAS's TFLOP/s.
    pub cublas_tflops: f64,
    /// Relative error of ours against the CPU reference (checked rows).
    pub rel_err_cpu: f64,
    /// Relative difference of ours from cuBLAS (every element).
    pub rel_err_cublas: f64,
}

impl VsCublas {
    /// The measurement of a GEMM of `flops` floating-point operations from the two median
    /// timings and the two comparisons.
    ///
    /// ```
    /// use tessel_kernels::{gemm::run::VsCublas, timing::Timing};
    /// let t = Timing { median_ms: 1.0, min_ms: 1.0, max_ms: 1.0, repeats: 1 };
    /// assert_eq!(VsCublas::new(1e9, t, t, 0.0, 0.0).ours_tflops, 1.0);
    /// ```
    pub fn new(
        flops: f64,
        ours: Timing,
        cublas: Timing,
        rel_err_cpu: f64,
        rel_err_cublas: f64,
    ) -> VsCublas {
        let tflops = |t: &Timing| flops / (t.median_ms * 1e9);
        VsCublas {
            ours_tflops: tflops(&ours),
            cublas_tflops: tflops(&cublas),
            ours,
            cublas,
            rel_err_cpu,
            rel_err_cublas,
        }
    }

    /// Our rate over cuBLAS's.
    ///
    /// ```
    /// use tessel_kernels::{gemm::run::VsCublas, timing::Timing};
    /// let t = |ms| Timing { median_ms: ms, min_ms: ms, max_ms: ms, repeats: 1 };
    /// assert_eq!(VsCublas::new(1e9, t(2.0), t(1.0), 0.0, 0.0).ratio(), 0.5);
    /// ```
    pub fn ratio(&self) -> f64 {
        self.ours_tflops / self.cublas_tflops
    }
}

/// One size and configuration of `tessel bench gemm`.
///
/// ```
/// use tessel_kernels::gemm::{run, GemmConfig};
/// let Ok(gpu) = tessel_kernels::Gpu::open(0) else { return };
/// if !run::cublas_present() { return }
/// let rows = run::bench(&gpu, &[(128, 128, 32)], &[GemmConfig::DEFAULT], 2, &mut Vec::new())
///     .unwrap();
/// assert_eq!(rows[0].size, (128, 128, 32));
/// assert!(rows[0].result.ours_tflops > 0.0);
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct GemmRow {
    /// M, N, K.
    pub size: (i64, i64, i64),
    /// Block tile and stages.
    pub cfg: GemmConfig,
    /// The measurement.
    pub result: VsCublas,
}

/// `tessel bench gemm`: for each `(M, N, K)` and configuration, verify ours against the CPU (64
/// spread rows) and cuBLAS (every element), then time both with CUDA events (3 warm-ups, median
/// of `repeats`; cuBLAS is timed again for every configuration, in the same run). Returns one
/// [`GemmRow`] per measurement (the CLI formats them).
///
/// ```
/// use tessel_kernels::gemm::{run, GemmConfig};
/// let Ok(gpu) = tessel_kernels::Gpu::open(0) else { return };
/// if !run::cublas_present() { return }
/// let rows = run::bench(&gpu, &[(256, 256, 64)], &[GemmConfig::DEFAULT], 2, &mut Vec::new())
///     .unwrap();
/// assert!(rows[0].result.rel_err_cublas < 1e-3);
/// ```
pub fn bench(
    gpu: &Gpu,
    sizes: &[(i64, i64, i64)],
    configs: &[GemmConfig],
    repeats: usize,
    progress: &mut dyn Write,
) -> GpuResult<Vec<GemmRow>> {
    let blas = cublas(gpu)?;
    let mut rows = Vec::new();
    for (&(m, n, k), &cfg) in sizes
        .iter()
        .flat_map(|s| configs.iter().map(move |c| (s, c)))
    {
        let plan = match GemmPlan::with_config(m, n, k, cfg) {
            Ok(p) => p,
            Err(e) if cfg != GemmConfig::DEFAULT => {
                io(writeln!(
                    progress,
                    "[gemm {m}x{n}x{k}] skipping tile {cfg}: {e}"
                ))?;
                continue;
            }
            Err(e) => return Err(e),
        };
        let name = plan.kernel_name();
        io(writeln!(
            progress,
            "[gemm {m}x{n}x{k}] upload, compile, verify"
        ))?;
        let mut bufs = GemmBuffers::new(gpu, &plan, 0x6e44 ^ (m as u64) << 16 ^ k as u64)?;
        let (kernel, cpu) = run_and_verify(gpu, &plan, &mut bufs, 64)?;
        let ours_c = bufs.c_host(gpu)?;
        let vs = run_and_compare_cublas(gpu, &blas, &plan, &mut bufs, &ours_c)?;
        io(writeln!(
            progress,
            "[gemm {m}x{n}x{k}] {name}: {}; rel err vs CPU {:.2e}, vs cuBLAS {:.2e}",
            kernel.info(),
            cpu.rel_err,
            vs.rel_err
        ))?;
        // Balanced order (ours, cuBLAS, cuBLAS, ours; docs/journal.md, "Where the cycles go").
        let (ours, theirs) = time_pair(|side| match side {
            Side::Ours => kernel.time(3, repeats, &mut args(&mut bufs)),
            Side::Theirs => time_events(gpu, 3, repeats, || {
                launch_cublas(gpu, &blas, &plan, &mut bufs)
            }),
        })?;
        rows.push(GemmRow {
            size: (m, n, k),
            cfg,
            result: VsCublas::new(plan.flops(), ours, theirs, cpu.rel_err, vs.rel_err),
        });
    }
    Ok(rows)
}
