//! The GPU benchmarks behind `tessel bench`: verify, then time, every kernel next to
//! cudaMemcpy device-to-device, and return one [`Row`] per kernel (the CLI formats them as a
//! table or JSON and owns the argument parsing).
//!
//! For each dtype and size: random non-zero input larger than L2, the output poisoned and every
//! element checked against a CPU replay before anything is timed; then CUDA-event medians of
//! the kernel and of `cuMemcpyDtoD` on the same buffers ([`crate::measure::memcpy`]), and the
//! ratio of their bandwidths (bytes read + written).
//!
//! ```
//! use tessel_kernels::{bench::{BenchOptions, micro_rows}, Gpu};
//! let opts = BenchOptions { profile: true, ..BenchOptions::default() };
//! let Ok(gpu) = Gpu::open(0) else { return }; // no GPU: nothing to run
//! let rows = micro_rows(&gpu, &opts, &mut Vec::new()).unwrap();
//! assert_eq!(rows.len(), 5);
//! ```

use std::io::Write;

use half::f16;
use tessel_layout::bank::SmemTraffic;

use crate::bits::{BitsElement, same_bits};
use crate::device::Gpu;
use crate::element::Element;
use crate::error::{GpuError, GpuResult};
use crate::exec::{alloc, run_poisoned, upload_random};
use crate::kernel::Arg;
use crate::measure::memcpy::{gbps, memcpy_dtod, time_memcpy_dtod};
use crate::micro::{MicroKind, MicroPlan};
use crate::tiled::{COPY_ELEMENTS, TiledKind, TiledPlan};
use crate::timing::Timing;

/// What to measure and how.
///
/// ```
/// use tessel_kernels::{Element, bench::BenchOptions};
/// let o = BenchOptions::default();
/// assert_eq!(o.sizes, [(8192, 8192), (16384, 16384)]);
/// assert_eq!(o.dtypes, [Element::F32, Element::F16]);
/// assert_eq!((o.profile, o.repeats), (false, 30));
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BenchOptions {
    /// `(rows, cols)` of the matrices (the GEMM reads `(M, K)` and takes N = K).
    pub sizes: Vec<(i64, i64)>,
    /// Element types of the copy and transposes.
    pub dtypes: Vec<Element>,
    /// Launch each kernel once (verified) and print bank-model predictions; no timing. For
    /// profilers (`scripts/ncu_conflicts.sh`).
    pub profile: bool,
    /// Timed repeats per kernel.
    pub repeats: usize,
}

impl Default for BenchOptions {
    fn default() -> BenchOptions {
        BenchOptions {
            sizes: vec![(8192, 8192), (16384, 16384)],
            dtypes: vec![Element::F32, Element::F16],
            profile: false,
            repeats: 30,
        }
    }
}

/// One measured kernel.
///
/// ```
/// use tessel_kernels::{Element, bench::Row, micro::{MicroKind, MicroPlan}};
/// let plan = MicroPlan::new(MicroKind::Column).unwrap();
/// let row = Row {
///     kernel: plan.kind.to_string(),
///     dtype: Element::F32,
///     size: (32, 32),
///     timing: None,
///     bytes: 0,
///     gbps: None,
///     ratio: None,
///     predicted: Some(plan.predict(1).unwrap()),
/// };
/// // The column read wastes 31 wavefronts; the row-by-row stores none.
/// let p = row.predicted.unwrap();
/// assert_eq!((p.loads.excess, p.stores.excess), (31, 0));
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct Row {
    /// Kernel name (`memcpy_dtod` for the reference).
    pub kernel: String,
    /// Element type.
    pub dtype: Element,
    /// Rows x columns.
    pub size: (i64, i64),
    /// Median time (None in profile mode).
    pub timing: Option<Timing>,
    /// Bytes read + written per run (0 for microkernels).
    pub bytes: i64,
    /// Effective bandwidth in GB/s.
    pub gbps: Option<f64>,
    /// Bandwidth over memcpy's in the same run.
    pub ratio: Option<f64>,
    /// Predicted shared-memory wavefronts of the loads and the stores of one launch.
    pub predicted: Option<SmemTraffic>,
}

/// Verifies and times the tiled kernels `kinds` for every dtype and size of `opts`, each size
/// after the `memcpy_dtod` reference; one [`Row`] per kernel.
///
/// ```
/// use tessel_kernels::{Element, bench::{BenchOptions, matrix_rows}, tiled::TiledKind};
/// let Ok(gpu) = tessel_kernels::Gpu::open(0) else { return }; // no GPU: nothing to run
/// let opts = BenchOptions { sizes: vec![(100, 70)], dtypes: vec![Element::F16], repeats: 2,
///                           ..BenchOptions::default() };
/// let rows = matrix_rows(&gpu, &opts, &[TiledKind::Swizzled], &mut Vec::new()).unwrap();
/// assert_eq!(rows[0].kernel, "memcpy_dtod");
/// assert_eq!(rows[1].kernel, "transpose_swizzled_f16");
/// ```
pub fn matrix_rows(
    gpu: &Gpu,
    opts: &BenchOptions,
    kinds: &[TiledKind],
    progress: &mut dyn Write,
) -> GpuResult<Vec<Row>> {
    let mut rows = Vec::new();
    for &dtype in &opts.dtypes {
        for &size in &opts.sizes {
            match dtype.require(&COPY_ELEMENTS, "the copy ladder")? {
                Element::F16 => rows.extend(matrix_suite::<f16>(gpu, opts, kinds, size, progress)?),
                _ => rows.extend(matrix_suite::<u32>(gpu, opts, kinds, size, progress)?),
            }
        }
    }
    Ok(rows)
}

/// A failed write of progress output as the crate's error (the benchmarks write progress lines
/// to a caller's `Write`).
pub(crate) fn io(r: std::io::Result<()>) -> GpuResult<()> {
    r.map_err(|e| GpuError::InvalidArgument(format!("cannot write output: {e}")))
}

fn matrix_suite<E: BitsElement>(
    gpu: &Gpu,
    args: &BenchOptions,
    kinds: &[TiledKind],
    (m, n): (i64, i64),
    progress: &mut dyn Write,
) -> GpuResult<Vec<Row>> {
    let dtype = E::ELEMENT;
    let len = usize::try_from(m * n)
        .map_err(|_| GpuError::InvalidArgument(format!("size {m} x {n} too large")))?;
    let bytes = 2 * m * n * dtype.bytes();
    io(writeln!(
        progress,
        "[{dtype} {m}x{n}] uploading {} MiB of random data",
        (bytes / 2) >> 20
    ))?;
    let (host, src) = upload_random::<E>(gpu, len, 0x7e55e1 ^ ((m as u64) << 20) ^ n as u64)?;
    let mut dst = alloc::<E>(gpu, len)?;
    let mut rows = Vec::new();

    // The reference: cuMemcpyDtoD, verified like a kernel.
    if !same_bits(
        &run_poisoned(gpu, &mut dst, |dst| memcpy_dtod(gpu, &src, dst))?,
        &host,
    ) {
        return Err(GpuError::Verify(
            "cuMemcpyDtoD result differs from its input".into(),
        ));
    }
    let memcpy = if args.profile {
        None
    } else {
        io(writeln!(progress, "[{dtype} {m}x{n}] timing memcpy_dtod"))?;
        Some(time_memcpy_dtod(gpu, &src, &mut dst, 3, args.repeats)?)
    };
    let base_gbps = memcpy.map(|t| gbps(bytes, &t));
    rows.push(Row {
        kernel: "memcpy_dtod".into(),
        dtype,
        size: (m, n),
        timing: memcpy,
        bytes,
        gbps: base_gbps,
        ratio: base_gbps.map(|_| 1.0),
        predicted: None,
    });

    for &kind in kinds {
        let plan = TiledPlan::new(kind, dtype, m, n)?;
        io(writeln!(
            progress,
            "[{dtype} {m}x{n}] {}: compile + verify",
            plan.kernel_name()
        ))?;
        let kernel = crate::tiled::run_and_verify(gpu, &plan, &host, &src, &mut dst)?;
        io(writeln!(
            progress,
            "[{dtype} {m}x{n}] {}: {}, raster {}",
            plan.kernel_name(),
            kernel.info(),
            plan.raster
        ))?;
        let timing = if args.profile {
            None
        } else {
            io(writeln!(
                progress,
                "[{dtype} {m}x{n}] {}: timing",
                plan.kernel_name()
            ))?;
            Some(kernel.time(
                3,
                args.repeats,
                &mut [Arg::input(&src), Arg::output(&mut dst)],
            )?)
        };
        let gbps = timing.map(|t| gbps(bytes, &t));
        let predicted = plan.predict()?;
        if args.profile {
            print_prediction(progress, &plan.kernel_name(), predicted)?;
        }
        rows.push(Row {
            kernel: plan.kernel_name(),
            dtype,
            size: (m, n),
            timing,
            bytes,
            gbps,
            ratio: gbps.zip(base_gbps).map(|(g, b)| g / b),
            predicted,
        });
    }
    // memcpy again after the kernels: the reference is the faster of the two medians, so a
    // slow first measurement cannot flatter the kernels' ratios.
    if !args.profile {
        io(writeln!(
            progress,
            "[{dtype} {m}x{n}] timing memcpy_dtod again"
        ))?;
        let again = time_memcpy_dtod(gpu, &src, &mut dst, 3, args.repeats)?;
        if let Some(first) = rows.first().and_then(|r| r.timing) {
            io(writeln!(
                progress,
                "[{dtype} {m}x{n}] memcpy_dtod medians {:.4} ms and {:.4} ms; using the faster",
                first.median_ms, again.median_ms
            ))?;
            if again.median_ms < first.median_ms {
                let base = gbps(bytes, &again);
                for r in rows.iter_mut() {
                    r.ratio = r.gbps.map(|g| g / base);
                }
                if let Some(r) = rows.first_mut() {
                    r.timing = Some(again);
                    r.gbps = Some(base);
                    r.ratio = Some(1.0);
                }
            }
        }
    }
    Ok(rows)
}

/// Prints a kernel's predicted shared-memory wavefronts as the `predict NAME ld=.. ld_ideal=..
/// st=.. st_ideal=..` line that `scripts/ncu_conflicts.sh` reads (nothing for `None`).
pub(crate) fn print_prediction(
    progress: &mut dyn Write,
    name: &str,
    p: Option<SmemTraffic>,
) -> GpuResult<()> {
    if let Some(p) = p {
        io(writeln!(
            progress,
            "predict {name} ld={} ld_ideal={} st={} st_ideal={}",
            p.loads.wavefronts, p.loads.ideal, p.stores.wavefronts, p.stores.ideal
        ))?;
    }
    Ok(())
}

/// Verifies and times (or, with `profile`, runs once) the bank-conflict microkernels; one
/// [`Row`] per kernel with its predicted wavefronts.
///
/// ```
/// use tessel_kernels::bench::{BenchOptions, micro_rows};
/// let Ok(gpu) = tessel_kernels::Gpu::open(0) else { return }; // no GPU: nothing to run
/// let opts = BenchOptions { profile: true, ..BenchOptions::default() };
/// let rows = micro_rows(&gpu, &opts, &mut Vec::new()).unwrap();
/// assert!(rows.iter().all(|r| r.predicted.is_some() && r.timing.is_none()));
/// ```
pub fn micro_rows(gpu: &Gpu, args: &BenchOptions, progress: &mut dyn Write) -> GpuResult<Vec<Row>> {
    let mut out = alloc::<u32>(gpu, 32)?;
    let mut rows = Vec::new();
    let reps: i32 = if args.profile { 1 } else { 1 << 14 };
    for kind in MicroKind::with_patterns() {
        let plan = MicroPlan::new(kind)?;
        io(writeln!(progress, "[conflicts] {kind}: compile + verify"))?;
        let kernel = crate::micro::run_and_verify(gpu, &plan, &mut out, reps)?;
        let timing = if args.profile {
            None
        } else {
            Some(kernel.time(
                2,
                args.repeats,
                &mut [Arg::output(&mut out), Arg::I32(reps)],
            )?)
        };
        let predicted = plan.predict(i64::from(reps))?;
        if args.profile {
            print_prediction(progress, kind.name(), Some(predicted))?;
        }
        rows.push(Row {
            kernel: kind.name().into(),
            dtype: Element::F32,
            size: (32, 32),
            timing,
            bytes: 0,
            gbps: None,
            ratio: None,
            predicted: Some(predicted),
        });
    }
    Ok(rows)
}
