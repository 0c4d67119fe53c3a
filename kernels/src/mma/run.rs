//! Launching, verifying and timing the tensor-core swizzle kernels (`tessel bench mma`).
//!
//! Each run uploads random fp16 inputs in `[-0.5, 0.5)` ([`super::host::random_f16`]) for a
//! grid of independent problems (one block each), poisons the outputs, launches once, downloads
//! and compares problems with the CPU reference within their error bound ([`super::host`]):
//! every problem up to [`VERIFIED`] of them, else [`VERIFIED`] spread evenly over the grid and
//! the last ([`verified`]); then, when asked, times `repeats` launches with CUDA events. One timing
//! covers one launch: every problem's global loads, shared-memory traffic, tensor-core products
//! and global stores.
//!
//! ```
//! use tessel_kernels::mma::run::{MmaKernel, Problem};
//! let k = MmaKernel::new(Problem::Modes, true, 16).unwrap();
//! assert_eq!(k.name(), "mma_modes_swizzled");
//! assert_eq!(k.traffic().unwrap().excess(), 0);
//! let Ok(gpu) = tessel_kernels::Gpu::open(0) else { return }; // no GPU: nothing to run
//! assert!(k.run(&gpu, None).unwrap().is_none());
//! ```

use std::io::Write;

use half::f16;
use tessel_layout::bank::SmemTraffic;

use super::host::{power_reference, random_f16};
use super::modes::{ModesKind, ModesPlan};
use super::pair::PairPlan;
use super::power::PowerPlan;
use crate::bench::{BenchOptions, Row, io};
use crate::device::Gpu;
use crate::element::Element;
use crate::error::{GpuError, GpuResult};
use crate::exec::{alloc, download, poison};
use crate::kernel::{Arg, Kernel};
use crate::measure::compare::expect_close;
use crate::measure::memcpy::{gbps, time_memcpy_dtod};
use crate::timing::Timing;

/// How many problems of a grid [`MmaKernel::run`] compares with the CPU reference at most (plus
/// the last): the reference of a problem costs far more on the CPU than the kernel on the GPU
/// (problem 3's is 32 products of 16 x 16 x 16 with their error bounds), so checking every one of
/// `tessel bench mma`'s 32768 took minutes.
///
/// ```
/// assert_eq!(tessel_kernels::mma::run::VERIFIED, 1024);
/// ```
pub const VERIFIED: usize = 1024;

/// Whether [`MmaKernel::run`] verifies problem `q` of `problems`: all of them up to
/// [`VERIFIED`], else every `problems / VERIFIED`-th (rounded up) and the last, so that the
/// first and last blocks and blocks spread over the whole grid are compared.
///
/// ```
/// use tessel_kernels::mma::run::verified;
/// assert!((0..100).all(|q| verified(q, 100)));
/// let checked: Vec<usize> = (0..32768).filter(|&q| verified(q, 32768)).collect();
/// assert_eq!((checked.len(), checked[1], *checked.last().unwrap()), (1025, 32, 32767));
/// ```
pub fn verified(q: usize, problems: usize) -> bool {
    let stride = problems.div_ceil(VERIFIED).max(1);
    q.is_multiple_of(stride) || q + 1 == problems
}

/// The power `n` of problem 1 in `tessel bench mma` and the GPU tests.
///
/// ```
/// assert!(tessel_kernels::mma::run::POWER_N > 1);
/// ```
pub const POWER_N: u32 = 4;

/// Which of the four problems.
///
/// ```
/// use tessel_kernels::mma::run::Problem;
/// assert_eq!(Problem::ALL.len(), 4);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Problem {
    /// 1: `A^n`.
    Power,
    /// 2: `A*B` from `M = [A B]`.
    Pair,
    /// 3: two access modes of one shared copy.
    Modes,
    /// 4: two access modes, re-laid out in between.
    Relayout,
}

impl Problem {
    /// The four problems in order.
    ///
    /// ```
    /// assert_eq!(tessel_kernels::mma::run::Problem::ALL[0], tessel_kernels::mma::run::Problem::Power);
    /// ```
    pub const ALL: [Problem; 4] = [
        Problem::Power,
        Problem::Pair,
        Problem::Modes,
        Problem::Relayout,
    ];
}

/// One of the eight kernels (four problems, swizzled or plain) with its plan.
#[derive(Clone, Debug)]
pub enum MmaKernel {
    /// Problem 1.
    Power(PowerPlan),
    /// Problem 2.
    Pair(PairPlan),
    /// Problems 3 and 4 (boxed: the largest plan).
    Modes(Box<ModesPlan>),
}

fn uniform(name: &str, problems: i64, per: usize, seed: u64) -> GpuResult<Vec<f16>> {
    let n = usize::try_from(problems)
        .ok()
        .and_then(|p| p.checked_mul(per))
        .ok_or_else(|| GpuError::InvalidArgument(format!("{name}: {problems} problems")))?;
    Ok(random_f16(n, seed))
}

impl MmaKernel {
    /// The plan of `problem`, swizzled or plain, for `problems` blocks (problem 1 with
    /// [`POWER_N`]).
    ///
    /// ```
    /// use tessel_kernels::mma::run::{MmaKernel, Problem};
    /// assert_eq!(MmaKernel::new(Problem::Power, false, 1).unwrap().name(), "mma_power_plain");
    /// ```
    pub fn new(problem: Problem, swizzled: bool, problems: i64) -> GpuResult<MmaKernel> {
        Ok(match problem {
            Problem::Power => MmaKernel::Power(PowerPlan::new(swizzled, problems, POWER_N)?),
            Problem::Pair => MmaKernel::Pair(PairPlan::new(swizzled, problems)?),
            Problem::Modes => MmaKernel::Modes(Box::new(ModesPlan::new(
                ModesKind::Shared,
                swizzled,
                problems,
            )?)),
            Problem::Relayout => MmaKernel::Modes(Box::new(ModesPlan::new(
                ModesKind::Relayout,
                swizzled,
                problems,
            )?)),
        })
    }

    /// The kernel's name.
    ///
    /// ```
    /// use tessel_kernels::mma::run::{MmaKernel, Problem};
    /// assert_eq!(MmaKernel::new(Problem::Relayout, true, 1).unwrap().name(), "mma_relayout_swizzled");
    /// ```
    pub fn name(&self) -> String {
        match self {
            MmaKernel::Power(p) => p.kernel_name(),
            MmaKernel::Pair(p) => p.kernel_name(),
            MmaKernel::Modes(p) => p.kernel_name(),
        }
    }

    /// The kernel.
    ///
    /// ```
    /// use tessel_kernels::mma::run::{MmaKernel, Problem};
    /// assert_eq!(MmaKernel::new(Problem::Pair, true, 4).unwrap().kernel().unwrap().launch().grid.0, 4);
    /// ```
    pub fn kernel(&self) -> GpuResult<Kernel> {
        match self {
            MmaKernel::Power(p) => p.kernel(),
            MmaKernel::Pair(p) => p.kernel(),
            MmaKernel::Modes(p) => p.kernel(),
        }
    }

    /// The bank model's shared-memory wavefronts of one launch.
    ///
    /// ```
    /// use tessel_kernels::mma::run::{MmaKernel, Problem};
    /// let t = MmaKernel::new(Problem::Pair, false, 1).unwrap().traffic().unwrap();
    /// assert_eq!(t.loads.excess, 24);
    /// ```
    pub fn traffic(&self) -> GpuResult<SmemTraffic> {
        Ok(match self {
            MmaKernel::Power(p) => p.traffic()?,
            MmaKernel::Pair(p) => p.traffic()?,
            MmaKernel::Modes(p) => p.traffic()?,
        })
    }

    /// Problems per launch.
    ///
    /// ```
    /// use tessel_kernels::mma::run::{MmaKernel, Problem};
    /// assert_eq!(MmaKernel::new(Problem::Modes, true, 3).unwrap().problems(), 3);
    /// ```
    pub fn problems(&self) -> i64 {
        match self {
            MmaKernel::Power(p) => p.problems,
            MmaKernel::Pair(p) => p.problems,
            MmaKernel::Modes(p) => p.problems,
        }
    }

    /// Bytes read and written in global memory by one launch.
    ///
    /// ```
    /// use tessel_kernels::mma::run::{MmaKernel, Problem};
    /// // A, B (fp16) in, C1, C2 (fp32) out: 2 * 8 KiB + 2 * 16 KiB per problem.
    /// assert_eq!(MmaKernel::new(Problem::Modes, true, 1).unwrap().bytes(), 49152);
    /// // Problem 4 stores C2 as fp16: 8 KiB less.
    /// assert_eq!(MmaKernel::new(Problem::Relayout, true, 1).unwrap().bytes(), 40960);
    /// ```
    pub fn bytes(&self) -> i64 {
        let per = match self {
            MmaKernel::Power(_) => 2 * 256 * 2,
            MmaKernel::Pair(_) => 512 * 2 + 256 * 4,
            MmaKernel::Modes(p) => match p.kind {
                ModesKind::Shared => 2 * 4096 * 2 + 2 * 4096 * 4,
                ModesKind::Relayout => 2 * 4096 * 2 + 4096 * 4 + 4096 * 2,
            },
        };
        per * self.problems()
    }

    /// Uploads random inputs, launches once, verifies problems against the CPU reference within
    /// their error bound (every one up to [`VERIFIED`], else a spread: [`verified`]), and (with `timing = Some((warmup, repeats))`) times launches on
    /// the same buffers.
    ///
    /// ```
    /// use tessel_kernels::mma::run::{MmaKernel, Problem};
    /// let Ok(gpu) = tessel_kernels::Gpu::open(0) else { return }; // no GPU: nothing to run
    /// let k = MmaKernel::new(Problem::Power, true, 64).unwrap();
    /// assert_eq!(k.run(&gpu, Some((1, 3))).unwrap().unwrap().repeats, 3);
    /// ```
    pub fn run(&self, gpu: &Gpu, timing: Option<(usize, usize)>) -> GpuResult<Option<Timing>> {
        let kernel = self.kernel()?;
        let loaded = kernel.load(gpu)?;
        let name = kernel.name().to_string();
        let p = self.problems();
        let time = |args: &mut [Arg<'_>]| -> GpuResult<Option<Timing>> {
            timing.map(|(w, r)| loaded.time(w, r, args)).transpose()
        };
        match self {
            MmaKernel::Power(plan) => {
                let a = uniform(&name, p, 256, 0x9a11)?;
                let src = crate::error::cuda("cuMemcpyHtoD", gpu.stream().clone_htod(&a))?;
                let mut out = alloc::<f16>(gpu, a.len())?;
                poison(gpu, &mut out)?;
                loaded.launch(&mut [
                    Arg::input(&src),
                    Arg::output(&mut out),
                    Arg::I32(plan.n as i32),
                ])?;
                gpu.synchronize()?;
                let got = download(gpu, &out)?;
                let n = a.len() / 256;
                for (q, (ai, gi)) in a.chunks(256).zip(got.chunks(256)).enumerate() {
                    if !verified(q, n) {
                        continue;
                    }
                    let (want, bound) = power_reference(ai, plan.n)?;
                    let f = |x: &[f16]| x.iter().map(|v| v.to_f32()).collect::<Vec<_>>();
                    expect_close(&format!("{name} problem {q}"), &f(gi), &f(&want), &bound)?;
                }
                time(&mut [
                    Arg::input(&src),
                    Arg::output(&mut out),
                    Arg::I32(plan.n as i32),
                ])
            }
            MmaKernel::Pair(_) => {
                let m = uniform(&name, p, 512, 0x9a12)?;
                let src = crate::error::cuda("cuMemcpyHtoD", gpu.stream().clone_htod(&m))?;
                let mut out = alloc::<u32>(gpu, m.len() / 2)?;
                poison(gpu, &mut out)?;
                loaded.launch(&mut [Arg::input(&src), Arg::output(&mut out)])?;
                gpu.synchronize()?;
                let got = floats(download(gpu, &out)?);
                let n = m.len() / 512;
                for (q, (mi, gi)) in m.chunks(512).zip(got.chunks(256)).enumerate() {
                    if !verified(q, n) {
                        continue;
                    }
                    let (want, bound) = super::pair::reference(mi);
                    expect_close(&format!("{name} problem {q}"), gi, &want, &bound)?;
                }
                time(&mut [Arg::input(&src), Arg::output(&mut out)])
            }
            MmaKernel::Modes(plan) => {
                let a = uniform(&name, p, 4096, 0x9a13)?;
                let b = uniform(&name, p, 4096, 0x9a14)?;
                let da = crate::error::cuda("cuMemcpyHtoD", gpu.stream().clone_htod(&a))?;
                let db = crate::error::cuda("cuMemcpyHtoD", gpu.stream().clone_htod(&b))?;
                let mut c1 = alloc::<u32>(gpu, a.len())?;
                poison(gpu, &mut c1)?;
                // C2: fp32 (problem 3) or fp16 (problem 4) in a buffer of that size.
                let mut c2 = match plan.kind {
                    ModesKind::Shared => C2Buffer::F32(alloc::<u32>(gpu, a.len())?),
                    ModesKind::Relayout => C2Buffer::F16(alloc::<f16>(gpu, a.len())?),
                };
                match &mut c2 {
                    C2Buffer::F32(c) => poison(gpu, c)?,
                    C2Buffer::F16(c) => poison(gpu, c)?,
                }
                loaded.launch(&mut [
                    Arg::input(&da),
                    Arg::input(&db),
                    Arg::output(&mut c1),
                    c2.arg(),
                ])?;
                gpu.synchronize()?;
                let g1 = floats(download(gpu, &c1)?);
                let g2 = match &c2 {
                    C2Buffer::F32(c) => floats(download(gpu, c)?),
                    C2Buffer::F16(c) => download(gpu, c)?.iter().map(|x| x.to_f32()).collect(),
                };
                let n = a.len() / 4096;
                for q in (0..n).filter(|&q| verified(q, n)) {
                    let r = q * 4096..(q + 1) * 4096;
                    let (w1, b1, w2, b2) = plan.kind.reference(&a[r.clone()], &b[r.clone()]);
                    expect_close(&format!("{name} problem {q} C1"), &g1[r.clone()], &w1, &b1)?;
                    expect_close(&format!("{name} problem {q} C2"), &g2[r], &w2, &b2)?;
                }
                time(&mut [
                    Arg::input(&da),
                    Arg::input(&db),
                    Arg::output(&mut c1),
                    c2.arg(),
                ])
            }
        }
    }
}

/// The `C2` output of problems 3 (fp32, as `u32` bits) and 4 (fp16).
enum C2Buffer {
    F32(cudarc::driver::CudaSlice<u32>),
    F16(cudarc::driver::CudaSlice<f16>),
}

impl C2Buffer {
    fn arg(&mut self) -> Arg<'_> {
        match self {
            C2Buffer::F32(c) => Arg::output(c),
            C2Buffer::F16(c) => Arg::output(c),
        }
    }
}

/// fp32 results downloaded as their bits (the outputs are `u32` buffers of the `float`
/// parameters: same size, and `u32` is the crate's 4-byte element type).
fn floats(bits: Vec<u32>) -> Vec<f32> {
    bits.into_iter().map(f32::from_bits).collect()
}

/// `tessel bench mma`: the `memcpy_dtod` reference (timed on 8192 fp16 per problem; left out
/// with `opts.profile`), then every problem, swizzled then plain, over `opts.sizes[0].0`
/// problems (blocks) per launch: verified ([`verified`]), then timed (`opts.repeats`; with
/// `opts.profile` launched once, untimed, and the predictions printed as `predict NAME ld=..
/// ld_ideal=.. st=.. st_ideal=..` lines for `scripts/ncu_conflicts.sh`), the ratio its GB/s over
/// memcpy's. Row size: `(problems, 1)`.
///
/// ```
/// use tessel_kernels::{bench::BenchOptions, mma::run::mma_rows};
/// let Ok(gpu) = tessel_kernels::Gpu::open(0) else { return }; // no GPU: nothing to run
/// let opts = BenchOptions { sizes: vec![(256, 1)], repeats: 2, ..BenchOptions::default() };
/// let rows = mma_rows(&gpu, &opts, &mut Vec::new()).unwrap();
/// assert_eq!(rows.len(), 9);
/// assert_eq!(rows[0].kernel, "memcpy_dtod");
/// ```
pub fn mma_rows(gpu: &Gpu, opts: &BenchOptions, progress: &mut dyn Write) -> GpuResult<Vec<Row>> {
    let problems = opts.sizes.first().map_or(1 << 15, |s| s.0);
    let mut rows = Vec::new();
    // The reference, as in the other kernel suites (`measure::memcpy`): cuMemcpyDtoD timed on a
    // buffer of problem 3's inputs (8192 fp16 per problem); each kernel's ratio is its GB/s over
    // memcpy's.
    let base_gbps = if opts.profile {
        None
    } else {
        let len = usize::try_from(problems)
            .ok()
            .and_then(|p| p.checked_mul(8192))
            .ok_or_else(|| GpuError::InvalidArgument(format!("mma: {problems} problems")))?;
        let mut src = alloc::<f16>(gpu, len)?;
        poison(gpu, &mut src)?;
        let mut dst = alloc::<f16>(gpu, len)?;
        io(writeln!(progress, "[mma {problems}] timing memcpy_dtod"))?;
        let t = time_memcpy_dtod(gpu, &src, &mut dst, 3, opts.repeats)?;
        let bytes = 2 * 2 * len as i64;
        let gbps = gbps(bytes, &t);
        rows.push(Row {
            kernel: "memcpy_dtod".into(),
            dtype: Element::F16,
            size: (problems, 1),
            timing: Some(t),
            bytes,
            gbps: Some(gbps),
            ratio: Some(1.0),
            predicted: None,
        });
        Some(gbps)
    };
    for problem in Problem::ALL {
        for swizzled in [true, false] {
            let k = MmaKernel::new(problem, swizzled, problems)?;
            let name = k.name();
            io(writeln!(
                progress,
                "[mma {problems}] {name}: compile + verify"
            ))?;
            let timing = k.run(gpu, (!opts.profile).then_some((3, opts.repeats)))?;
            let traffic = k.traffic()?;
            if opts.profile {
                crate::bench::print_prediction(progress, &name, Some(traffic))?;
            }
            let gbps = timing.map(|t| gbps(k.bytes(), &t));
            rows.push(Row {
                kernel: name,
                dtype: Element::F16,
                size: (problems, 1),
                timing,
                bytes: k.bytes(),
                gbps,
                ratio: gbps.zip(base_gbps).map(|(g, b)| g / b),
                predicted: Some(traffic),
            });
        }
    }
    Ok(rows)
}
