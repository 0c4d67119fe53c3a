//! Running the ladder on a GPU: upload random operands, verify every rung against the CPU
//! reference ([`super::host`]) before timing it, and time cuBLAS SGEMM on the same shape in the
//! same run, twice: [`time_cublas_same`] (`cublasSgemm` on the ladder's own operand layouts, its
//! result verified like a rung's; the ratios use it) and [`time_cublas`] (`cublasGemmEx` fp32 in
//! cuBLAS's `A B^T` layout, the figure the ladder was first compared with).
//!
//! ```
//! use tessel_kernels::sgemm::{Major, Rung, run::{LadderOptions, ladder}};
//! let Ok(gpu) = tessel_kernels::Gpu::open(0) else { return };
//! let opts = LadderOptions { m: 256, n: 256, k: 64, a_major: Major::Row, b_major: Major::Row,
//!     rungs: vec![Rung::Naive], warmup: 1, repeats: 2, samples: 64 };
//! let out = ladder(&gpu, &opts).unwrap();
//! assert_eq!(out.rows.len(), 1);
//! ```

use cudarc::driver::{CudaSlice, DevicePtr, DevicePtrMut};

use super::bank::per_launch;
use super::host::{Check, check, random, sample};
use super::{Major, Rung, SgemmPlan};
use crate::blas::Order;
use crate::device::Gpu;
use crate::error::{GpuResult, cuda};
use crate::exec::poison;
use crate::kernel::Arg;
use crate::measure::cublas;
use crate::timing::{Timing, time_events};
use tessel_layout::bank::SmemTraffic;

/// Operands on the host and the device, and C on the device.
pub struct SgemmBuffers {
    /// A on the host.
    pub ha: Vec<f32>,
    /// B on the host.
    pub hb: Vec<f32>,
    /// A on the device.
    pub a: CudaSlice<f32>,
    /// B on the device.
    pub b: CudaSlice<f32>,
    /// C on the device.
    pub c: CudaSlice<f32>,
}

impl SgemmBuffers {
    /// Random A (`M x K`) and B (`K x N`) in `[-1, 1)` from `seed`, and an `M x N` C.
    ///
    /// ```
    /// let Ok(gpu) = tessel_kernels::Gpu::open(0) else { return };
    /// let b = tessel_kernels::sgemm::run::SgemmBuffers::new(&gpu, 4, 5, 6, 1).unwrap();
    /// assert_eq!((b.a.len(), b.b.len(), b.c.len()), (24, 30, 20));
    /// ```
    pub fn new(gpu: &Gpu, m: i64, n: i64, k: i64, seed: u64) -> GpuResult<SgemmBuffers> {
        let (m, n, k) = (m as usize, n as usize, k as usize);
        let ha = random(m * k, seed);
        let hb = random(k * n, seed ^ 0x5151);
        let stream = gpu.stream();
        let a = cuda("cuMemcpyHtoD", stream.clone_htod(&ha))?;
        let b = cuda("cuMemcpyHtoD", stream.clone_htod(&hb))?;
        let c = cuda("cuMemAlloc", stream.alloc_zeros::<f32>(m * n))?;
        Ok(SgemmBuffers { ha, hb, a, b, c })
    }

    /// A rung's kernel arguments `(A, B, C)`.
    ///
    /// ```
    /// let Ok(gpu) = tessel_kernels::Gpu::open(0) else { return };
    /// let mut b = tessel_kernels::sgemm::run::SgemmBuffers::new(&gpu, 4, 5, 6, 1).unwrap();
    /// assert_eq!(b.args().len(), 3);
    /// ```
    pub fn args(&mut self) -> [Arg<'_>; 3] {
        [
            Arg::input(&self.a),
            Arg::input(&self.b),
            Arg::output(&mut self.c),
        ]
    }
}

/// Launches a rung once, downloads C and checks it against the CPU reference at `elements`
/// (every element when `None`). C is first filled with NaN so unwritten elements fail.
///
/// ```
/// use tessel_kernels::sgemm::{Major, Rung, SgemmPlan, run::{SgemmBuffers, verify}};
/// let Ok(gpu) = tessel_kernels::Gpu::open(0) else { return };
/// let plan = SgemmPlan::new(Rung::Reg2d, 65, 33, 17, Major::Col, Major::Row).unwrap();
/// let mut bufs = SgemmBuffers::new(&gpu, 65, 33, 17, 3).unwrap();
/// assert!(verify(&gpu, &plan, &mut bufs, None).unwrap().worst_ratio <= 1.0);
/// ```
pub fn verify(
    gpu: &Gpu,
    plan: &SgemmPlan,
    bufs: &mut SgemmBuffers,
    elements: Option<&[(usize, usize)]>,
) -> GpuResult<Check> {
    let kernel = plan.kernel()?;
    let loaded = kernel.load(gpu)?;
    poison(gpu, &mut bufs.c)?;
    loaded.launch(&mut bufs.args())?;
    gpu.synchronize()?;
    let got = cuda("cuMemcpyDtoH", gpu.stream().clone_dtoh(&bufs.c))?;
    let dims = (plan.m as usize, plan.n as usize, plan.k as usize);
    check(
        &got,
        &bufs.ha,
        plan.a_major,
        &bufs.hb,
        plan.b_major,
        dims,
        elements,
    )
}

/// Times cuBLAS SGEMM of the same `M x N x K` (row-major A times column-major B into row-major
/// C: [`crate::measure::cublas::gemm_tn`] with fp32 inputs). Only the time is used: the
/// operands are the ladder's buffers read as that layout.
///
/// ```
/// use tessel_kernels::sgemm::run::{SgemmBuffers, time_cublas};
/// let Ok(gpu) = tessel_kernels::Gpu::open(0) else { return };
/// let Ok(blas) = tessel_kernels::gemm::run::cublas(&gpu) else { return };
/// let mut bufs = SgemmBuffers::new(&gpu, 64, 64, 64, 1).unwrap();
/// assert!(time_cublas(&gpu, &blas, (64, 64, 64), &mut bufs, 1, 2).unwrap().median_ms > 0.0);
/// ```
pub fn time_cublas(
    gpu: &Gpu,
    blas: &cudarc::cublas::CudaBlas,
    (m, n, k): (i64, i64, i64),
    bufs: &mut SgemmBuffers,
    warmup: usize,
    repeats: usize,
) -> GpuResult<Timing> {
    let stream = gpu.stream().clone();
    time_events(gpu, warmup, repeats, || {
        let (pa, _ra) = bufs.a.device_ptr(&stream);
        let (pb, _rb) = bufs.b.device_ptr(&stream);
        let (pc, _rc) = bufs.c.device_ptr_mut(&stream);
        // SAFETY: A holds M K, B K N (= N K) and C M N fp32 elements on the handle's stream.
        unsafe {
            cublas::gemm_tn(
                blas,
                (m, n, k),
                (pa, pb, crate::Element::F32),
                (pc, crate::Element::F32),
            )
        }
    })
}

/// The library's spelling of an operand order.
fn order(major: Major) -> Order {
    match major {
        Major::Row => Order::RowMajor,
        Major::Col => Order::ColMajor,
    }
}

/// Runs `cublasSgemm` on the ladder's operands ([`crate::measure::cublas::sgemm`], A and B in
/// the ladder's orders) once into `bufs.c` (poisoned with NaN first) and checks C against the
/// CPU reference at `elements`, then times it: cuBLAS SGEMM on the ladder's own operand layouts.
///
/// ```
/// use tessel_kernels::sgemm::{Major, host::sample, run::{SgemmBuffers, time_cublas_same}};
/// let Ok(gpu) = tessel_kernels::Gpu::open(0) else { return };
/// let Ok(blas) = tessel_kernels::gemm::run::cublas(&gpu) else { return };
/// let mut bufs = SgemmBuffers::new(&gpu, 64, 48, 40, 1).unwrap();
/// let at = sample(64, 48, 32, 1);
/// let (t, check) = time_cublas_same(&gpu, &blas, (64, 48, 40), (Major::Col, Major::Row), &mut bufs, &at, 1, 2).unwrap();
/// assert!(t.median_ms > 0.0 && check.worst_ratio <= 1.0);
/// ```
#[allow(clippy::too_many_arguments)]
pub fn time_cublas_same(
    gpu: &Gpu,
    blas: &cudarc::cublas::CudaBlas,
    (m, n, k): (i64, i64, i64),
    majors: (Major, Major),
    bufs: &mut SgemmBuffers,
    elements: &[(usize, usize)],
    warmup: usize,
    repeats: usize,
) -> GpuResult<(Timing, Check)> {
    let stream = gpu.stream().clone();
    poison(gpu, &mut bufs.c)?;
    let run = |bufs: &mut SgemmBuffers| {
        let (pa, _ra) = bufs.a.device_ptr(&stream);
        let (pb, _rb) = bufs.b.device_ptr(&stream);
        let (pc, _rc) = bufs.c.device_ptr_mut(&stream);
        // SAFETY: A holds M K, B K N and C M N fp32 elements on the handle's stream.
        unsafe {
            cublas::sgemm(
                blas,
                (m, n, k),
                (pa, order(majors.0)),
                (pb, order(majors.1)),
                pc,
            )
        }
    };
    run(bufs)?;
    gpu.synchronize()?;
    let got = cuda("cuMemcpyDtoH", stream.clone_dtoh(&bufs.c))?;
    let dims = (m as usize, n as usize, k as usize);
    let checked = check(
        &got,
        &bufs.ha,
        majors.0,
        &bufs.hb,
        majors.1,
        dims,
        Some(elements),
    )?;
    let timing = time_events(gpu, warmup, repeats, || run(bufs))?;
    Ok((timing, checked))
}

/// What [`ladder`] measures.
#[derive(Clone, Debug, PartialEq)]
pub struct LadderOptions {
    /// Rows of C.
    pub m: i64,
    /// Columns of C.
    pub n: i64,
    /// Inner dimension.
    pub k: i64,
    /// A's order.
    pub a_major: Major,
    /// B's order.
    pub b_major: Major,
    /// The rungs to run.
    pub rungs: Vec<Rung>,
    /// Untimed launches first.
    pub warmup: usize,
    /// Timed launches (at most 5 for the two slowest rungs, naive and smem-block, whose
    /// launches at 8192^3 take seconds).
    pub repeats: usize,
    /// Elements of C checked against the CPU (plus the corners).
    pub samples: usize,
}

/// One rung's measurement.
#[derive(Clone, Debug, PartialEq)]
pub struct LadderRow {
    /// The rung.
    pub rung: Rung,
    /// Its timing.
    pub timing: Timing,
    /// GFLOP/s at the median.
    pub gflops: f64,
    /// `gflops / cuBLAS gflops` (NaN without cuBLAS).
    pub vs_cublas: f64,
    /// The bank model's prediction for the launch.
    pub traffic: SmemTraffic,
    /// The CPU check before timing.
    pub check: Check,
}

/// The ladder of one shape.
#[derive(Clone, Debug, PartialEq)]
pub struct Ladder {
    /// cuBLAS SGEMM GFLOP/s on the ladder's own operand layouts ([`time_cublas_same`]; None
    /// without libcublas): the rungs' `vs_cublas` divides by it.
    pub cublas_gflops: Option<f64>,
    /// cuBLAS SGEMM GFLOP/s in its `A B^T` layout ([`time_cublas`]).
    pub cublas_tn_gflops: Option<f64>,
    /// One row per rung.
    pub rows: Vec<LadderRow>,
}

/// Verifies then times every rung of `opts` and cuBLAS SGEMM on one shape.
///
/// ```
/// use tessel_kernels::sgemm::{Major, Rung, run::{LadderOptions, ladder}};
/// let Ok(gpu) = tessel_kernels::Gpu::open(0) else { return };
/// let opts = LadderOptions { m: 128, n: 96, k: 40, a_major: Major::Col, b_major: Major::Row,
///     rungs: Rung::ALL.to_vec(), warmup: 1, repeats: 2, samples: 32 };
/// assert!(ladder(&gpu, &opts).unwrap().rows.iter().all(|r| r.check.worst_ratio <= 1.0));
/// ```
pub fn ladder(gpu: &Gpu, opts: &LadderOptions) -> GpuResult<Ladder> {
    let (m, n, k) = (opts.m, opts.n, opts.k);
    let mut bufs = SgemmBuffers::new(gpu, m, n, k, 0x5EED)?;
    let flops = 2.0 * m as f64 * n as f64 * k as f64;
    let gflops = |t: &Timing| flops / (t.median_ms * 1e6);
    let elements = sample(m as usize, n as usize, opts.samples, 7);
    let (cublas_gflops, cublas_tn_gflops) = match cublas::cublas(gpu) {
        Ok(blas) => {
            let (same, _) = time_cublas_same(
                gpu,
                &blas,
                (m, n, k),
                (opts.a_major, opts.b_major),
                &mut bufs,
                &elements,
                opts.warmup,
                opts.repeats,
            )?;
            let tn = time_cublas(gpu, &blas, (m, n, k), &mut bufs, opts.warmup, opts.repeats)?;
            (Some(gflops(&same)), Some(gflops(&tn)))
        }
        Err(_) => (None, None),
    };
    let mut rows = Vec::new();
    for &rung in &opts.rungs {
        let plan = SgemmPlan::new(rung, m, n, k, opts.a_major, opts.b_major)?;
        let check = verify(gpu, &plan, &mut bufs, Some(&elements))?;
        let kernel = plan.kernel()?;
        let loaded = kernel.load(gpu)?;
        let repeats = match rung {
            Rung::Naive | Rung::SmemBlock => opts.repeats.min(5),
            _ => opts.repeats,
        };
        let timing = loaded.time(opts.warmup.min(repeats), repeats, &mut bufs.args())?;
        let g = gflops(&timing);
        rows.push(LadderRow {
            rung,
            timing,
            gflops: g,
            vs_cublas: cublas_gflops.map_or(f64::NAN, |c| g / c),
            traffic: per_launch(&plan)?,
            check,
        });
    }
    Ok(Ladder {
        cublas_gflops,
        cublas_tn_gflops,
        rows,
    })
}

/// One verified launch of `rung` on random operands (every element checked for problems up to
/// 2^24 elements of C, else 256 samples) and the bank model's prediction for that launch: what
/// `tessel bench sgemm --profile` runs under Nsight Compute (`scripts/ncu_conflicts.sh sgemm`).
///
/// ```
/// use tessel_kernels::sgemm::{Major, Rung, run::profile_rung};
/// let Ok(gpu) = tessel_kernels::Gpu::open(0) else { return };
/// let t = profile_rung(&gpu, Rung::Tuned, (256, 256, 64), (Major::Row, Major::Row)).unwrap();
/// assert_eq!(t.excess(), 0);
/// ```
pub fn profile_rung(
    gpu: &Gpu,
    rung: Rung,
    (m, n, k): (i64, i64, i64),
    (a_major, b_major): (Major, Major),
) -> GpuResult<SmemTraffic> {
    let plan = SgemmPlan::new(rung, m, n, k, a_major, b_major)?;
    let mut bufs = SgemmBuffers::new(gpu, m, n, k, 0x9F0F)?;
    let elements = (m * n > 1 << 24).then(|| sample(m as usize, n as usize, 256, 5));
    verify(gpu, &plan, &mut bufs, elements.as_deref())?;
    per_launch(&plan)
}
