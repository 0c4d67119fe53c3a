//! `tessel bench`: verify, then time, every kernel next to cudaMemcpy device-to-device.
//!
//! For each dtype and size: random non-zero input larger than L2, the output poisoned and every
//! element checked against a CPU reference before anything is timed; then CUDA-event medians of
//! the kernel and of `cuMemcpyDtoD` on the same buffers, and the ratio of their bandwidths
//! (bytes read + written).
//!
//! ```
//! use tessel_kernels::bench::{parse_args, Suite};
//! let a = parse_args(&["copy".into(), "--dtype".into(), "f16".into()]).unwrap();
//! assert_eq!((a.suite, a.dtypes.len()), (Suite::Copy, 1));
//! ```

use std::io::Write;

use cudarc::driver::CudaSlice;
use half::f16;

use crate::device::Gpu;
use crate::dtype::{DType, Elem, same_bits};
use crate::error::{GpuError, GpuResult, cuda};
use crate::exec::{alloc, run_poisoned, upload_random};
use crate::kernel::Arg;
use crate::micro::{MicroKind, MicroPlan};
use crate::tiled::{TiledKind, TiledPlan};
use crate::timing::{Timing, time_events};

/// Which kernels to run.
///
/// ```
/// use tessel_kernels::bench::{parse_args, Suite};
/// assert_eq!(parse_args(&["conflicts".into()]).unwrap().suite, Suite::Conflicts);
/// assert_eq!(parse_args(&[]).unwrap().suite, Suite::All);
/// // The GEMM suite has its own default sizes.
/// let g = parse_args(&["gemm".into()]).unwrap();
/// assert_eq!((g.suite, g.sizes), (Suite::Gemm, vec![(4096, 4096), (8192, 8192)]));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Suite {
    /// The tiled copy.
    Copy,
    /// The transpose ladder.
    Transpose,
    /// The bank-conflict microkernels.
    Conflicts,
    /// Everything.
    All,
    /// The tensor-core GEMM next to cuBLAS (`--size N` runs N^3, `RxC` runs M=R, N=K=C).
    Gemm,
}

/// Parsed `tessel bench` arguments.
///
/// ```
/// use tessel_kernels::{DType, bench::parse_args};
/// let a = parse_args(&[]).unwrap();
/// assert_eq!(a.sizes, [(8192, 8192), (16384, 16384)]);
/// assert_eq!(a.dtypes, [DType::F32, DType::F16]);
/// assert_eq!((a.profile, a.repeats, a.raster, a.min_blocks), (false, 30, None, None));
/// let b = parse_args(&["--size".into(), "1000x1001".into(), "--raster".into(), "0".into()]).unwrap();
/// assert_eq!((b.sizes, b.raster), (vec![(1000, 1001)], Some(0)));
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BenchArgs {
    /// Which kernels.
    pub suite: Suite,
    /// Square sizes (rows = columns) or `(rows, cols)` pairs.
    pub sizes: Vec<(i64, i64)>,
    /// Element types.
    pub dtypes: Vec<DType>,
    /// Launch each kernel once (verified) and print bank-model predictions; no timing. For
    /// profilers (`scripts/ncu_conflicts.sh`).
    pub profile: bool,
    /// Timed repeats per kernel.
    pub repeats: usize,
    /// Raster group of the transposes' block order (None: the tuned default).
    pub raster: Option<i64>,
    /// Minimum blocks per SM for every tiled kernel's `__launch_bounds__` (None: the default).
    pub min_blocks: Option<i64>,
}

/// Usage text.
///
/// ```
/// use tessel_kernels::bench::{parse_args, USAGE};
/// assert!(USAGE.starts_with("usage: tessel bench"));
/// // Argument errors end with the usage text.
/// assert!(parse_args(&["--bogus".into()]).unwrap_err().ends_with(USAGE));
/// ```
pub const USAGE: &str = "usage: tessel bench [copy|transpose|conflicts|all|gemm] [--size N|RxC] \
[--dtype f32|f16] [--repeats K] [--raster G] [--min-blocks B] [--profile]";

fn parse_size(s: &str) -> Result<(i64, i64), String> {
    let one = |t: &str| {
        t.parse::<i64>()
            .ok()
            .filter(|&v| (1..=65536).contains(&v))
            .ok_or_else(|| format!("--size {s}: expected N or RxC with 1 <= N <= 65536"))
    };
    match s.split_once('x') {
        Some((r, c)) => Ok((one(r)?, one(c)?)),
        None => one(s).map(|v| (v, v)),
    }
}

/// The integer `value` of `flag` when it lies in `range`, else `"FLAG VALUE: expected A..=B"`.
fn bounded<T>(flag: &str, value: &str, range: std::ops::RangeInclusive<T>) -> Result<T, String>
where
    T: std::str::FromStr + PartialOrd + std::fmt::Debug,
{
    value
        .parse()
        .ok()
        .filter(|v| range.contains(v))
        .ok_or_else(|| format!("{flag} {value}: expected {range:?}"))
}

/// Parses the arguments after `bench`.
///
/// ```
/// use tessel_kernels::bench::{parse_args, Suite};
/// let a = parse_args(&["transpose".into(), "--size".into(), "4096".into()]).unwrap();
/// assert_eq!((a.suite, a.sizes.clone()), (Suite::Transpose, vec![(4096, 4096)]));
/// assert!(parse_args(&["--dtype".into(), "f64".into()]).is_err());
/// let err = |flag: &str, v: &str| parse_args(&[flag.into(), v.into()]).unwrap_err();
/// assert_eq!(err("--repeats", "0"), "--repeats 0: expected 1..=10000");
/// assert_eq!(err("--raster", "65"), "--raster 65: expected 0..=64");
/// assert_eq!(err("--min-blocks", "x"), "--min-blocks x: expected 1..=32");
/// ```
pub fn parse_args(args: &[String]) -> Result<BenchArgs, String> {
    let mut a = BenchArgs {
        suite: Suite::All,
        sizes: vec![(8192, 8192), (16384, 16384)],
        dtypes: vec![DType::F32, DType::F16],
        profile: false,
        repeats: 30,
        raster: None,
        min_blocks: None,
    };
    let mut it = args.iter();
    let mut suite_seen = false;
    let mut size_seen = false;
    while let Some(arg) = it.next() {
        let mut value = |flag: &str| {
            it.next()
                .cloned()
                .ok_or_else(|| format!("{flag} needs a value; {USAGE}"))
        };
        match arg.as_str() {
            "copy" | "transpose" | "conflicts" | "all" | "gemm" if !suite_seen => {
                suite_seen = true;
                a.suite = match arg.as_str() {
                    "copy" => Suite::Copy,
                    "transpose" => Suite::Transpose,
                    "conflicts" => Suite::Conflicts,
                    "gemm" => Suite::Gemm,
                    _ => Suite::All,
                };
            }
            "--size" => {
                a.sizes = vec![parse_size(&value("--size")?)?];
                size_seen = true;
            }
            "--dtype" => {
                a.dtypes = vec![
                    value("--dtype")?
                        .parse()
                        .map_err(|e: GpuError| e.to_string())?,
                ]
            }
            "--profile" => a.profile = true,
            "--repeats" => a.repeats = bounded("--repeats", &value("--repeats")?, 1..=10_000)?,
            "--raster" => a.raster = Some(bounded("--raster", &value("--raster")?, 0..=64)?),
            "--min-blocks" => {
                a.min_blocks = Some(bounded("--min-blocks", &value("--min-blocks")?, 1..=32)?)
            }
            other => return Err(format!("unexpected argument {other:?}; {USAGE}")),
        }
    }
    if a.suite == Suite::Gemm && !size_seen {
        a.sizes = vec![(4096, 4096), (8192, 8192)];
    }
    Ok(a)
}

/// One measured kernel.
///
/// ```
/// use tessel_kernels::{DType, bench::Row, micro::{MicroKind, MicroPlan}};
/// let plan = MicroPlan::new(MicroKind::Column).unwrap();
/// let row = Row {
///     kernel: plan.kind.to_string(),
///     dtype: DType::F32,
///     size: (32, 32),
///     timing: None,
///     bytes: 0,
///     gbps: None,
///     ratio: None,
///     predicted: Some(plan.predict(1).unwrap()),
/// };
/// // The column read wastes 31 wavefronts; the row-by-row stores none.
/// let p = row.predicted.unwrap();
/// assert_eq!((p.ld - p.ld_ideal, p.st - p.st_ideal), (31, 0));
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct Row {
    /// Kernel name (`memcpy_dtod` for the reference).
    pub kernel: String,
    /// Element type.
    pub dtype: DType,
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
    /// Predicted shared-memory wavefronts (ld, ld ideal, st, st ideal) per launch.
    pub predicted: Option<crate::bank::Prediction>,
}

/// Runs the benchmark; the table goes to `out`, progress lines to `progress`.
/// Without a GPU it writes one line saying why and returns `Ok`.
///
/// ```
/// use tessel_kernels::bench::{parse_args, run};
/// let args = parse_args(&["conflicts".into(), "--profile".into()]).unwrap();
/// let (mut out, mut progress) = (Vec::new(), Vec::new());
/// run(&args, &mut out, &mut progress).unwrap();
/// let text = String::from_utf8(out).unwrap();
/// // With a GPU: the verified microkernels and their predictions; without: why not.
/// assert!(text.contains("conflict_vec128_strided_f32") || text.starts_with("no GPU: "), "{text}");
/// ```
pub fn run(args: &BenchArgs, out: &mut dyn Write, progress: &mut dyn Write) -> GpuResult<()> {
    let gpu = match Gpu::open(0) {
        Ok(g) => g,
        Err(e) if e.is_unavailable() => {
            io(writeln!(out, "no GPU: {e}; nothing to benchmark"))?;
            return Ok(());
        }
        Err(e) => return Err(e),
    };
    io(writeln!(progress, "device: {}", gpu.describe()))?;
    if args.suite == Suite::Gemm {
        let sizes: Vec<_> = args.sizes.iter().map(|&(r, c)| (r, c, c)).collect();
        let configs = crate::gemm::run::bench_configs(&gpu)?;
        crate::gemm::run::bench(&gpu, &sizes, &configs, args.repeats, out, progress)?;
        return Ok(());
    }
    let rows = measure(&gpu, args, progress)?;
    io(write!(out, "{}", to_table(&gpu, &rows)))
}

/// Verifies and times the copy, transpose and microkernel suites `args` selects (not
/// [`Suite::Gemm`]: see `gemm::run::bench`) on `gpu` and returns one [`Row`] per kernel.
///
/// ```
/// use tessel_kernels::bench::{measure, parse_args};
/// let Ok(gpu) = tessel_kernels::Gpu::open(0) else { return }; // no GPU: nothing to run
/// let args = parse_args(&["conflicts".into(), "--profile".into()]).unwrap();
/// let rows = measure(&gpu, &args, &mut Vec::new()).unwrap();
/// assert!(rows.iter().all(|r| r.predicted.is_some()));
/// ```
pub fn measure(gpu: &Gpu, args: &BenchArgs, progress: &mut dyn Write) -> GpuResult<Vec<Row>> {
    let mut rows = Vec::new();
    for &dtype in &args.dtypes {
        if matches!(args.suite, Suite::Copy | Suite::Transpose | Suite::All) {
            for &size in &args.sizes {
                match dtype {
                    DType::F32 => rows.extend(matrix_suite::<u32>(gpu, args, size, progress)?),
                    DType::F16 => rows.extend(matrix_suite::<f16>(gpu, args, size, progress)?),
                }
            }
        }
    }
    if matches!(args.suite, Suite::Conflicts | Suite::All) {
        rows.extend(micro_suite(gpu, args, progress)?);
    }
    Ok(rows)
}

fn io(r: std::io::Result<()>) -> GpuResult<()> {
    r.map_err(|e| GpuError::InvalidArgument(format!("cannot write output: {e}")))
}

/// The reference copy every kernel's bandwidth is compared with.
fn memcpy_dtod<E: Elem>(gpu: &Gpu, src: &CudaSlice<E>, dst: &mut CudaSlice<E>) -> GpuResult<()> {
    cuda("cuMemcpyDtoD", gpu.stream().memcpy_dtod(src, dst))
}

/// Effective bandwidth in GB/s of moving `bytes` in the median time of `t`.
fn gbps(bytes: i64, t: &Timing) -> f64 {
    bytes as f64 / (t.median_ms * 1e6)
}

fn matrix_suite<E: Elem>(
    gpu: &Gpu,
    args: &BenchArgs,
    (m, n): (i64, i64),
    progress: &mut dyn Write,
) -> GpuResult<Vec<Row>> {
    let dtype = E::DTYPE;
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
        Some(time_events(gpu, 3, args.repeats, || {
            memcpy_dtod(gpu, &src, &mut dst)
        })?)
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

    let mut kinds = Vec::new();
    if matches!(args.suite, Suite::Copy | Suite::All) {
        kinds.push(TiledKind::Copy);
    }
    if matches!(args.suite, Suite::Transpose | Suite::All) {
        kinds.extend(TiledKind::LADDER);
    }
    for kind in kinds {
        let mut plan = TiledPlan::new(kind, dtype, m, n)?;
        if let (Some(g), true) = (args.raster, kind.is_transpose()) {
            plan.set_raster_group(g)?;
        }
        if args.min_blocks.is_some() {
            plan.min_blocks = args.min_blocks;
        }
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
        let again = time_events(gpu, 3, args.repeats, || memcpy_dtod(gpu, &src, &mut dst))?;
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

fn print_prediction(
    progress: &mut dyn Write,
    name: &str,
    p: Option<crate::bank::Prediction>,
) -> GpuResult<()> {
    if let Some(p) = p {
        io(writeln!(
            progress,
            "predict {name} ld={} ld_ideal={} st={} st_ideal={}",
            p.ld, p.ld_ideal, p.st, p.st_ideal
        ))?;
    }
    Ok(())
}

fn micro_suite(gpu: &Gpu, args: &BenchArgs, progress: &mut dyn Write) -> GpuResult<Vec<Row>> {
    let mut out = alloc::<u32>(gpu, 32)?;
    let mut rows = Vec::new();
    let reps: i32 = if args.profile { 1 } else { 1 << 14 };
    for kind in MicroKind::ALL {
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
            dtype: DType::F32,
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

fn opt(x: Option<f64>, digits: usize) -> String {
    x.map_or("-".into(), |v| format!("{v:.digits$}"))
}

/// The result table: one line per kernel.
///
/// ```
/// let Ok(gpu) = tessel_kernels::Gpu::open(0) else { return }; // no GPU: nothing to run
/// use tessel_kernels::{DType, bench::{to_table, Row}};
/// let row = Row { kernel: "memcpy_dtod".into(), dtype: DType::F16, size: (64, 32), timing: None,
///                 bytes: 8192, gbps: None, ratio: None, predicted: None };
/// let table = to_table(&gpu, &[row]);
/// assert!(table.starts_with(&format!("device: {}\n", gpu.describe())));
/// assert_eq!(table.lines().count(), 3); // device, header, one row
/// assert!(table.lines().nth(2).unwrap().contains("64x32"));
/// ```
pub fn to_table(gpu: &Gpu, rows: &[Row]) -> String {
    let mut s = format!("device: {}\n", gpu.describe());
    s.push_str(&format!(
        "{:<30} {:>5} {:>11} {:>10} {:>9} {:>9} {:>14}\n",
        "kernel", "dtype", "size", "time_ms", "GB/s", "x_memcpy", "smem_excess"
    ));
    for r in rows {
        let excess = r.predicted.map_or("-".into(), |p| {
            format!("{}", (p.ld - p.ld_ideal) + (p.st - p.st_ideal))
        });
        s.push_str(&format!(
            "{:<30} {:>5} {:>11} {:>10} {:>9} {:>9} {:>14}\n",
            r.kernel,
            r.dtype.to_string(),
            format!("{}x{}", r.size.0, r.size.1),
            opt(r.timing.map(|t| t.median_ms), 4),
            opt(r.gbps, 1),
            opt(r.ratio, 3),
            excess
        ));
    }
    s
}

/// Entry point for the CLI: parses `args` (after `bench`), runs, and returns the exit status
/// (0 on success and when no GPU is present, 2 on bad arguments, 1 on a failed run).
///
/// ```
/// use tessel_kernels::bench::main_with_args;
/// assert_eq!(main_with_args(&["--repeats".into(), "0".into()]), 2);
/// assert_eq!(main_with_args(&["copy".into(), "transpose".into()]), 2); // one suite at most
/// ```
pub fn main_with_args(args: &[String]) -> i32 {
    let parsed = match parse_args(args) {
        Ok(a) => a,
        Err(e) => {
            eprintln!("error: {e}");
            return 2;
        }
    };
    let stdout = std::io::stdout();
    let stderr = std::io::stderr();
    match run(&parsed, &mut stdout.lock(), &mut stderr.lock()) {
        Ok(()) => 0,
        Err(e) => {
            eprintln!("error: {e}");
            1
        }
    }
}
