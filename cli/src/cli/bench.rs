//! `tessel bench`: the GPU benchmarks of tessel-kernels (the kernels, their verification and
//! timing live in `tessel_kernels::bench` and `tessel_kernels::gemm::run`, which return rows;
//! this file parses the options, picks the kernels of the suite, shows progress and formats the
//! rows as a table or JSON). A `tessel` built without the `kernels` feature says so and exits 0.

use std::io::Write;

use serde::Serialize;
use tessel_kit::{Element, Error, Result};

use super::json::print_json;
use super::{Failure, print};

/// The architecture `bench gemm --shapes --arch` compiles the library GEMM for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum GemmArch {
    /// The mma.sync path for every call, as on an sm_80 GPU (16-bit inputs)
    #[value(name = "sm_80")]
    Sm80,
    /// The mma.sync path for every call, as on an sm_89 GPU (16- and 8-bit inputs)
    #[value(name = "sm_89")]
    Sm89,
    /// The Hopper GEMM where TMA loads the operands (the default on an sm_90 GPU)
    #[value(name = "sm_90a")]
    Sm90a,
}

/// Which kernels `tessel bench` runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Suite {
    /// The tiled copy
    Copy,
    /// The transpose ladder
    Transpose,
    /// The bank-conflict microkernels
    Conflicts,
    /// Copy, transposes and microkernels
    All,
    /// The tensor-core GEMM next to cuBLAS
    Gemm,
    /// The four tensor-core swizzle problems, swizzled and plain (--size N: N problems)
    Mma,
    /// The SIMT SGEMM ladder next to cuBLAS SGEMM (--size N: N^3; --m/--n/--k: one shape)
    Sgemm,
    /// FlashAttention forward on Hopper (--seqlen, --head-dim, --causal, --attn-dtype, --dump)
    Attention,
}

/// The element types of the copy and transpose kernels (`tessel_kernels::tiled::COPY_ELEMENTS`).
const COPY_ELEMENTS: [Element; 2] = [Element::F32, Element::F16];

/// `--dtype`: an [`Element`] (any of its spellings) that the copy ladder moves.
fn parse_copy_element(text: &str) -> std::result::Result<Element, String> {
    text.parse::<Element>()
        .and_then(|e| e.require(&COPY_ELEMENTS, "the copy ladder"))
        .map_err(|e| e.message().to_string())
}

/// Options of `tessel bench`.
#[derive(Debug, clap::Args)]
#[command(
    about = "Verify and time the GPU kernels against cudaMemcpy device-to-device",
    long_about = "Runs the tiled copy, the transpose ladder and the bank-conflict \
microkernels on GPU 0. Each kernel is first checked element by element against a CPU reference \
(random non-zero input, poisoned output), then timed with CUDA events (median of --repeats) next \
to cuMemcpyDtoD on the same buffers: the table gives time, effective GB/s (bytes read + written) \
and the ratio to memcpy. Default sizes 8192^2 and 16384^2, both dtypes. 'gemm' verifies the \
tensor-core GEMM against the CPU and cuBLAS and times both (default 4096^3 and 8192^3; --size N \
runs N^3; on sm_90 GPUs it adds the Hopper GEMM (TMA + wgmma) in four input/output type pairs, \
each next to cuBLAS with the same types). 'mma' verifies and times the four tensor-core swizzle problems (ldmatrix + \
mma.sync on 16x16 fp16 tiles, swizzles chosen by synthesis) and their unswizzled twins, over a \
grid of N independent problems (--size N, default 32768; up to 1024 of them, spread over the grid, \
checked against the CPU), next to cudaMemcpy, with the predicted excess shared-memory \
wavefronts. 'attention' verifies (64 rows per shape against an f64 CPU reference) and times the \
FlashAttention forward kernel on sm_90 over --seqlen (default 512 to 16384; batch 16384 / S, heads \
2048 / D), --head-dim (64, 128, 256), --causal and --attn-dtype (fp16, bf16), in TFLOP/s counting \
4 B H S^2 D (halved when causal); scripts/sdpa_compare.py times PyTorch's SDPA on the same shapes. \
'sgemm' verifies and times the SIMT SGEMM ladder (eight fp32 rungs, naive to \
tuned) next to cuBLAS SGEMM on the same row-major operands (default 4096^3, 8192^3 and 4096x2048x8192; --size N runs \
N^3, --m/--n/--k one shape), with each rung's predicted shared-memory wavefronts. Progress goes \
to stderr. Without a GPU (or in a tessel built without the 'kernels' \
feature) it says so and exits 0."
)]
pub struct Args {
    /// Which kernels
    #[arg(value_enum, value_name = "SUITE", default_value = "all")]
    pub suite: Suite,
    /// Matrix size: N (square) or RxC, 1 <= N <= 65536
    #[arg(long, value_name = "N|RxC", value_parser = parse_size)]
    pub size: Option<(i64, i64)>,
    /// copy, transpose, all: element type (default: both)
    #[arg(long, value_name = "f32|f16", value_parser = parse_copy_element)]
    pub dtype: Option<Element>,
    /// Timed repeats per kernel (default 30)
    #[arg(long, value_name = "K", value_parser = clap::value_parser!(u16).range(1..=10_000))]
    pub repeats: Option<u16>,
    /// Launch each kernel once, untimed, and print the bank-model predictions (for
    /// scripts/ncu_conflicts.sh; every suite but gemm and attention, without --repeats)
    #[arg(long)]
    pub profile: bool,
    /// Print the results as JSON (schema: docs/cli.md)
    #[arg(long)]
    pub json: bool,
    /// sgemm: rows of C (with --n/--k: one shape; a missing one is 4096)
    #[arg(long, value_name = "M", value_parser = clap::value_parser!(i64).range(1..=65536))]
    pub m: Option<i64>,
    /// sgemm: columns of C
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(i64).range(1..=65536))]
    pub n: Option<i64>,
    /// sgemm: the inner dimension
    #[arg(long, value_name = "K", value_parser = clap::value_parser!(i64).range(1..=65536))]
    pub k: Option<i64>,
    /// gemm: the library GEMM (sm_90) next to cuBLAS on these shapes instead of the default
    /// rows: MxNxK, comma-separated, or @FILE (shapes separated by commas or whitespace)
    #[arg(long, value_name = "MxNxK,...|@FILE", value_parser = parse_shapes)]
    pub shapes: Option<Shapes>,
    /// gemm --shapes: the orders of A and B, comma-separated (r row-major, c column-major;
    /// default rc)
    #[arg(long, value_name = "rc,rr,cc,cr")]
    pub orders: Option<String>,
    /// gemm --shapes: input-output types, comma-separated (default: f16-f32,bf16-f32,f16-f16,bf16-bf16,f16-bf16,bf16-f16;
    /// 8-bit inputs e4m3 and e5m2, e.g. e4m3-bf16, run TN only and next to cuBLASLt)
    #[arg(long, value_name = "IN-OUT,...")]
    pub types: Option<String>,
    /// gemm --shapes: the architecture the library compiles for (sm_80, sm_89: every call on the
    /// mma.sync path, as on those GPUs; default: the GPU's own)
    #[arg(long, value_enum, value_name = "sm_80|sm_89|sm_90a")]
    pub arch: Option<GemmArch>,
    /// The options of the attention suite.
    #[command(flatten)]
    pub attn: super::bench_attention::AttnArgs,
}

/// The `(M, N, K)` list of `--shapes`: one option value (clap would take a bare `Vec` as one
/// element per occurrence of the option).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Shapes(pub Vec<(i64, i64, i64)>);

/// Parses the value of `--shapes`: `MxNxK` shapes separated by commas or whitespace, or
/// `@FILE` holding them; every extent in `1..=2^20`.
fn parse_shapes(text: &str) -> std::result::Result<Shapes, String> {
    let owned;
    let list = match text.strip_prefix('@') {
        Some(path) => {
            owned = std::fs::read_to_string(path)
                .map_err(|e| format!("cannot read the shapes file {path}: {e}"))?;
            owned.as_str()
        }
        None => text,
    };
    let one = |t: &str| {
        t.parse::<i64>()
            .ok()
            .filter(|v| (1..=1 << 20).contains(v))
            .ok_or_else(|| format!("expected MxNxK with 1 <= extents <= 2^20, got '{t}'"))
    };
    let shapes: Vec<_> = list
        .split(|c: char| c == ',' || c.is_whitespace())
        .filter(|t| !t.is_empty())
        .map(|t| {
            let e: Vec<&str> = t.split('x').collect();
            match e.as_slice() {
                [m, n, k] => Ok((one(m)?, one(n)?, one(k)?)),
                _ => Err(format!("expected MxNxK, got '{t}'")),
            }
        })
        .collect::<std::result::Result<_, _>>()?;
    if shapes.is_empty() {
        return Err("no shapes given".into());
    }
    Ok(Shapes(shapes))
}

impl Suite {
    /// The suite's name on the command line.
    fn name(self) -> String {
        clap::ValueEnum::to_possible_value(&self)
            .map_or_else(String::new, |v| v.get_name().to_string())
    }
}

/// Refuses an option the suite does not use (docs/cli.md: an option that does not apply to the
/// chosen mode is an error, never ignored). Checked before anything runs, with or without a GPU.
fn check_options(args: &Args) -> Result<()> {
    use Suite::*;
    let suite = args.suite;
    let given = [
        (
            "--size",
            args.size.is_some(),
            matches!(suite, Copy | Transpose | All | Gemm | Mma | Sgemm),
        ),
        (
            "--dtype",
            args.dtype.is_some(),
            matches!(suite, Copy | Transpose | All),
        ),
        (
            "--profile",
            args.profile,
            !matches!(suite, Gemm | Attention),
        ),
        ("--m", args.m.is_some(), suite == Sgemm),
        ("--n", args.n.is_some(), suite == Sgemm),
        ("--k", args.k.is_some(), suite == Sgemm),
        ("--shapes", args.shapes.is_some(), suite == Gemm),
        ("--orders", args.orders.is_some(), args.shapes.is_some()),
        ("--types", args.types.is_some(), args.shapes.is_some()),
        ("--arch", args.arch.is_some(), args.shapes.is_some()),
        ("--seqlen", args.attn.seqlen.is_some(), suite == Attention),
        (
            "--head-dim",
            args.attn.head_dim.is_some(),
            suite == Attention,
        ),
        ("--causal", args.attn.causal.is_some(), suite == Attention),
        (
            "--attn-dtype",
            args.attn.attn_dtype.is_some(),
            suite == Attention,
        ),
        ("--dump", args.attn.dump.is_some(), suite == Attention),
    ];
    for (option, present, applies) in given {
        if present && !applies {
            return Err(Error::invalid(format!(
                "{option} does not apply to 'bench {}' (see 'tessel help bench')",
                suite.name()
            )));
        }
    }
    if args.profile && args.repeats.is_some() {
        return Err(Error::invalid(
            "--repeats does not apply with --profile, which launches each kernel once, untimed",
        ));
    }
    if suite == Mma && args.size.is_some_and(|(r, c)| r != c) {
        return Err(Error::invalid(
            "'bench mma --size' takes N, the number of problems, not RxC",
        ));
    }
    if suite == Sgemm
        && args.size.is_some()
        && (args.m.is_some() || args.n.is_some() || args.k.is_some())
    {
        return Err(Error::invalid(
            "'bench sgemm' takes its shape from --size or from --m/--n/--k, not from both",
        ));
    }
    Ok(())
}

/// Parses `N` or `RxC`, the value of `--size`.
fn parse_size(text: &str) -> std::result::Result<(i64, i64), String> {
    let one = |t: &str| {
        t.parse::<i64>()
            .ok()
            .filter(|v| (1..=65536).contains(v))
            .ok_or_else(|| format!("expected N or RxC with 1 <= N <= 65536, got '{text}'"))
    };
    match text.split_once('x') {
        Some((r, c)) => Ok((one(r)?, one(c)?)),
        None => one(text).map(|v| (v, v)),
    }
}

/// `tessel bench --json`: the device and one result per kernel (`device` is null and `skipped`
/// says why when nothing ran).
#[derive(Debug, Serialize)]
pub struct BenchJson {
    /// The GPU's name, or null.
    pub device: Option<String>,
    /// Its architecture (`sm_90`), or null.
    pub arch: Option<String>,
    /// Why nothing ran, or null.
    pub skipped: Option<String>,
    /// The measured kernels.
    pub results: Vec<Result_>,
}

/// One measured kernel of `bench --json`.
#[derive(Debug, Serialize)]
#[serde(untagged)]
#[cfg_attr(not(feature = "kernels"), allow(dead_code))]
pub enum Result_ {
    /// A copy, transpose or microkernel (or the memcpy reference).
    Kernel(KernelJson),
    /// A GEMM configuration next to cuBLAS.
    Gemm(GemmJson),
    /// A rung of the SIMT SGEMM ladder next to cuBLAS SGEMM.
    Sgemm(SgemmJson),
}

/// A rung of the SGEMM ladder (`bench sgemm --json`).
#[derive(Debug, Serialize)]
pub struct SgemmJson {
    /// `sgemm_<rung>`, e.g. `sgemm_warp_tiled`.
    pub kernel: String,
    /// The rung, e.g. `warp-tiled`.
    pub rung: String,
    /// M.
    pub m: i64,
    /// N.
    pub n: i64,
    /// K.
    pub k: i64,
    /// Median time in ms.
    pub median_ms: f64,
    /// GFLOP/s at the median.
    pub gflops: f64,
    /// cuBLAS SGEMM's GFLOP/s in the same run (null without libcublas).
    pub cublas_gflops: Option<f64>,
    /// `gflops / cublas_gflops` (null without libcublas).
    pub ratio_to_cublas: Option<f64>,
    /// cuBLAS SGEMM's GFLOP/s on the same problem in its `A B^T` operand layout (the `cublas-abt`
    /// line of the table; null without libcublas).
    pub cublas_abt_gflops: Option<f64>,
    /// Largest error over its bound `gamma_K sum |a b|` among the checked elements (<= 1).
    pub err_over_bound: f64,
    /// The bank model's shared-memory wavefronts per launch.
    pub predicted_wavefronts: Predicted,
}

/// A copy, transpose or microkernel result.
#[derive(Debug, Serialize)]
pub struct KernelJson {
    /// Kernel name (`memcpy_dtod` for the reference).
    pub kernel: String,
    /// `f32` or `f16`.
    pub dtype: String,
    /// Matrix rows.
    pub rows: i64,
    /// Matrix columns.
    pub cols: i64,
    /// Median time in ms (null with --profile).
    pub median_ms: Option<f64>,
    /// Fastest repeat in ms.
    pub min_ms: Option<f64>,
    /// Timed repeats (0 with --profile).
    pub repeats: usize,
    /// Bytes read + written per run (0 for microkernels).
    pub bytes: i64,
    /// Effective bandwidth in GB/s.
    pub gbps: Option<f64>,
    /// Bandwidth over memcpy's in the same run.
    pub ratio_to_memcpy: Option<f64>,
    /// The bank model's shared-memory wavefronts per launch.
    pub predicted_wavefronts: Option<Predicted>,
}

/// Predicted wavefronts of a kernel's shared-memory loads and stores.
#[derive(Debug, Serialize)]
pub struct Predicted {
    /// Load wavefronts.
    pub ld: i64,
    /// Load wavefronts without conflicts.
    pub ld_ideal: i64,
    /// Store wavefronts.
    pub st: i64,
    /// Store wavefronts without conflicts.
    pub st_ideal: i64,
}

/// A GEMM result.
#[derive(Debug, Serialize)]
pub struct GemmJson {
    /// `gemm_tn_f16_f32` (SM80), or `gemm_sm90_tn_{in}_{out}` (Hopper).
    pub kernel: String,
    /// Block tile and stages, e.g. `128x128x32s3`.
    pub config: String,
    /// M.
    pub m: i64,
    /// N.
    pub n: i64,
    /// K.
    pub k: i64,
    /// Median time of tessel's kernel in ms.
    pub median_ms: f64,
    /// Its TFLOP/s.
    pub tflops: f64,
    /// Median time of cuBLAS in ms.
    pub cublas_median_ms: f64,
    /// cuBLAS's TFLOP/s.
    pub cublas_tflops: f64,
    /// `tflops / cublas_tflops`.
    pub ratio_to_cublas: f64,
    /// Relative error against the CPU reference.
    pub rel_err_cpu: f64,
    /// Relative difference from cuBLAS.
    pub rel_err_cublas: f64,
    /// The library's rows (`--shapes`): ranges of K each output tile was split into.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub splits: Option<i64>,
}

/// The line (and JSON `skipped`) of a run where nothing can be benchmarked.
fn skipped(out: &mut dyn Write, json: bool, reason: String) -> Result<()> {
    if json {
        return print_json(
            out,
            &BenchJson {
                device: None,
                arch: None,
                skipped: Some(reason),
                results: Vec::new(),
            },
        );
    }
    print(out, &format!("{reason}; nothing to benchmark\n"))
}

/// Runs the benchmarks.
#[cfg(not(feature = "kernels"))]
pub fn run(args: &Args, out: &mut dyn Write) -> std::result::Result<(), Failure> {
    check_options(args)?;
    if args.suite == Suite::Attention {
        return super::bench_attention::run(&args.attn, args.repeats, args.json, out);
    }
    Ok(skipped(
        out,
        args.json,
        "this tessel was built without the 'kernels' feature".to_string(),
    )?)
}

/// Sorts a kernels-crate error into [`Failure::Input`] or [`Failure::Gpu`] (shared with
/// `bench attention`).
#[cfg(feature = "kernels")]
pub(super) use with_kernels::{DEFAULT_REPEATS, gpu_error};

/// Runs the benchmarks: bad options are [`Failure::Input`], a failed GPU run [`Failure::Gpu`].
#[cfg(feature = "kernels")]
pub fn run(args: &Args, out: &mut dyn Write) -> std::result::Result<(), Failure> {
    check_options(args)?;
    if args.suite == Suite::Attention {
        return super::bench_attention::run(&args.attn, args.repeats, args.json, out);
    }
    with_kernels::run(args, out)
}

#[cfg(feature = "kernels")]
mod with_kernels {
    use std::io::Write;

    use tessel_kit::Error;
    use tessel_kit::kernels::bench::{self as kb, BenchOptions, Row};
    use tessel_kit::kernels::blas::Order;
    use tessel_kit::kernels::blas::bench::{self as blas_bench, BlasRow};
    use tessel_kit::kernels::gemm::GemmPlan;
    use tessel_kit::kernels::gemm::run::{self as gemm, GemmRow, VsCublas};
    use tessel_kit::kernels::hopper::run::{self as hopper, Sm90Row};
    use tessel_kit::kernels::tiled::TiledKind;
    use tessel_kit::kernels::{Arch, Gpu, GpuError};

    use super::super::json::print_json;
    use super::super::{print, progress};
    use super::{
        Args, BenchJson, COPY_ELEMENTS, Element, Failure, GemmJson, KernelJson, Predicted, Result_,
        SgemmJson, Suite,
    };
    use tessel_kit::kernels::sgemm::run::{Ladder, LadderOptions, LadderRow, ladder};
    use tessel_kit::kernels::sgemm::{Major, Rung};

    /// Timed repeats per kernel without `--repeats`.
    pub(in crate::cli) const DEFAULT_REPEATS: u16 = 30;

    /// A run's outcome: a failure of the input or of the GPU.
    type Outcome<T> = std::result::Result<T, Failure>;

    /// Sorts a kernels-crate error: arguments and layouts the runtime refuses are the input's
    /// fault; a driver call, NVRTC or a wrong result is the GPU run's.
    pub(in crate::cli) fn gpu_error(e: GpuError) -> Failure {
        match e {
            GpuError::InvalidArgument(m) => Failure::Input(Error::invalid(m)),
            GpuError::Layout(e) => Failure::Input(e),
            other => Failure::Gpu(other.to_string()),
        }
    }

    /// The kernels crate's options.
    fn options(args: &Args) -> BenchOptions {
        let default_sizes = if args.suite == Suite::Gemm {
            vec![(4096, 4096), (8192, 8192)]
        } else if args.suite == Suite::Mma {
            vec![(1 << 15, 1)]
        } else {
            BenchOptions::default().sizes
        };
        BenchOptions {
            sizes: args.size.map_or(default_sizes, |s| vec![s]),
            dtypes: match args.dtype {
                None => COPY_ELEMENTS.to_vec(),
                Some(e) => vec![e],
            },
            profile: args.profile,
            repeats: usize::from(args.repeats.unwrap_or(DEFAULT_REPEATS)),
        }
    }

    /// The tiled kernels of a suite (none for the microkernels and the GEMM).
    fn tiled_kinds(suite: Suite) -> Vec<TiledKind> {
        let mut kinds = Vec::new();
        if matches!(suite, Suite::Copy | Suite::All) {
            kinds.push(TiledKind::Copy);
        }
        if matches!(suite, Suite::Transpose | Suite::All) {
            kinds.extend(TiledKind::LADDER);
        }
        kinds
    }

    /// What one run measured.
    enum Rows {
        Kernels(Vec<Row>),
        /// The SM80 GEMM's rows, then the Hopper GEMM's (sm_90 devices only), then a note per
        /// size the SM80 kernel does not take.
        Gemm(Vec<GemmRow>, Vec<Sm90Row>, Vec<String>),
        /// One SGEMM ladder per shape `(M, N, K)`.
        Sgemm(Vec<((i64, i64, i64), Ladder)>),
        /// The library GEMM next to cuBLAS (`bench gemm --shapes`).
        Blas(Vec<BlasRow>),
    }

    /// The shapes of `bench sgemm`: `--m/--n/--k` (a missing one 4096), else `--size N` (N^3) or
    /// `RxC` (`R x C x C`), else 4096^3, 8192^3 and 4096 x 2048 x 8192.
    fn sgemm_shapes(args: &Args) -> Vec<(i64, i64, i64)> {
        if args.m.is_some() || args.n.is_some() || args.k.is_some() {
            let d = |x: Option<i64>| x.unwrap_or(4096);
            return vec![(d(args.m), d(args.n), d(args.k))];
        }
        match args.size {
            Some((r, c)) => vec![(r, c, c)],
            None => vec![(4096, 4096, 4096), (8192, 8192, 8192), (4096, 2048, 8192)],
        }
    }

    /// Input and output types of the Hopper GEMM rows.
    const SM90_TYPES: [(Element, Element); 4] = [
        (Element::F16, Element::F32),
        (Element::BF16, Element::F32),
        (Element::F16, Element::F16),
        (Element::BF16, Element::BF16),
    ];

    /// Input and output type.
    type TypePair = (Element, Element);
    /// Orders of A and B.
    type OrderPair = (Order, Order);

    /// The type pairs and orders of `bench gemm --shapes`.
    fn blas_variants(args: &Args) -> Outcome<(Vec<TypePair>, Vec<OrderPair>)> {
        let types = match &args.types {
            None => BLAS_TYPES.to_vec(),
            Some(t) => t
                .split(',')
                .map(|pair| {
                    let parsed = pair.split_once('-').and_then(|(i, o)| {
                        Some((i.parse::<Element>().ok()?, o.parse::<Element>().ok()?))
                    });
                    parsed.ok_or_else(|| {
                        Failure::Input(Error::invalid(format!(
                            "--types: expected IN-OUT (e.g. f16-f32), got '{pair}'"
                        )))
                    })
                })
                .collect::<Outcome<_>>()?,
        };
        let orders = args
            .orders
            .as_deref()
            .unwrap_or("rc")
            .split(',')
            .map(|o| blas_bench::parse_orders(o).map_err(gpu_error))
            .collect::<Outcome<_>>()?;
        Ok((types, orders))
    }

    /// Input and output types of `bench gemm --shapes` by default.
    const BLAS_TYPES: [(Element, Element); 6] = [
        (Element::F16, Element::F32),
        (Element::BF16, Element::F32),
        (Element::F16, Element::F16),
        (Element::BF16, Element::BF16),
        (Element::F16, Element::BF16),
        (Element::BF16, Element::F16),
    ];

    fn measure(gpu: &Gpu, args: &Args, progress: &mut dyn Write) -> Outcome<Rows> {
        let opts = options(args);
        if let (Suite::Gemm, Some(shapes)) = (args.suite, &args.shapes) {
            let (types, orders) = blas_variants(args)?;
            let target = args.arch.map(|a| match a {
                super::GemmArch::Sm80 => Arch::SM80,
                super::GemmArch::Sm89 => Arch::SM89,
                super::GemmArch::Sm90a => Arch::SM90A,
            });
            let rows = blas_bench::bench(
                gpu,
                target,
                &shapes.0,
                &types,
                &orders,
                opts.repeats,
                progress,
            );
            return rows.map(Rows::Blas).map_err(gpu_error);
        }
        if args.suite == Suite::Gemm {
            let sizes: Vec<_> = opts.sizes.iter().map(|&(r, c)| (r, c, c)).collect();
            let configs = gemm::bench_configs(gpu).map_err(gpu_error)?;
            // A size the SM80 kernel rejects skips its rows (with a note), not the Hopper ones.
            let mut notes = Vec::new();
            let sm80_sizes: Vec<_> = sizes
                .iter()
                .copied()
                .filter(|&(m, n, k)| match GemmPlan::new(m, n, k) {
                    Ok(_) => true,
                    Err(e) => {
                        notes.push(format!("gemm (fp16->fp32) {m}x{n}x{k} skipped: {e}"));
                        false
                    }
                })
                .collect();
            for note in &notes {
                let _ = writeln!(progress, "{note}");
            }
            let rows = gemm::bench(gpu, &sm80_sizes, &configs, opts.repeats, progress);
            let rows = rows.map_err(gpu_error)?;
            let sm90 = if hopper::supported(gpu) {
                hopper::bench(gpu, &sizes, &SM90_TYPES, opts.repeats, progress)
                    .map_err(gpu_error)?
            } else {
                Vec::new()
            };
            return Ok(Rows::Gemm(rows, sm90, notes));
        }
        if args.suite == Suite::Sgemm {
            let mut out = Vec::new();
            for (m, n, k) in sgemm_shapes(args) {
                let _ = writeln!(
                    progress,
                    "sgemm {m}x{n}x{k}: verifying and timing the ladder"
                );
                if args.profile {
                    // One verified launch per rung (what ncu measures) and the bank model's
                    // prediction for it on stderr (scripts/ncu_conflicts.sh sgemm).
                    for rung in Rung::ALL {
                        let traffic = tessel_kit::kernels::sgemm::run::profile_rung(
                            gpu,
                            rung,
                            (m, n, k),
                            (Major::Row, Major::Row),
                        )
                        .map_err(gpu_error)?;
                        let _ = writeln!(
                            progress,
                            "predict sgemm_{} ld={} ld_ideal={} st={} st_ideal={}",
                            rung.name().replace('-', "_"),
                            traffic.loads.wavefronts,
                            traffic.loads.ideal,
                            traffic.stores.wavefronts,
                            traffic.stores.ideal
                        );
                    }
                    continue;
                }
                let opts = LadderOptions {
                    m,
                    n,
                    k,
                    a_major: Major::Row,
                    b_major: Major::Row,
                    rungs: Rung::ALL.to_vec(),
                    warmup: 2,
                    repeats: opts.repeats,
                    samples: 256,
                };
                out.push(((m, n, k), ladder(gpu, &opts).map_err(gpu_error)?));
            }
            return Ok(Rows::Sgemm(out));
        }
        if args.suite == Suite::Mma {
            let rows = tessel_kit::kernels::mma::run::mma_rows(gpu, &opts, progress);
            return rows.map(Rows::Kernels).map_err(gpu_error);
        }
        let kinds = tiled_kinds(args.suite);
        let mut rows = Vec::new();
        if !kinds.is_empty() {
            rows.extend(kb::matrix_rows(gpu, &opts, &kinds, progress).map_err(gpu_error)?);
        }
        if matches!(args.suite, Suite::Conflicts | Suite::All) {
            rows.extend(kb::micro_rows(gpu, &opts, progress).map_err(gpu_error)?);
        }
        Ok(Rows::Kernels(rows))
    }

    pub fn run(args: &Args, out: &mut dyn Write) -> Outcome<()> {
        let mut lines = progress::Lines::new("tessel bench: opening GPU 0");
        let result = run_with(args, out, &mut lines);
        lines.finish();
        result
    }

    fn run_with(args: &Args, out: &mut dyn Write, progress: &mut dyn Write) -> Outcome<()> {
        let gpu = match Gpu::open(0) {
            Ok(g) => g,
            Err(e) if e.is_unavailable() => {
                return Ok(super::skipped(out, args.json, format!("no GPU: {e}"))?);
            }
            Err(e) => return Err(gpu_error(e)),
        };
        let _ = writeln!(progress, "device: {}", gpu.describe());
        let rows = measure(&gpu, args, progress)?;
        if args.json {
            return Ok(print_json(out, &json(&gpu, rows))?);
        }
        let table = match rows {
            Rows::Kernels(rows) => kernel_table(&gpu.describe(), &rows),
            Rows::Gemm(rows, sm90, notes) => {
                let notes: String = notes.iter().map(|n| format!("{n}\n")).collect();
                gemm_table(&gpu.describe(), &rows) + &notes + &sm90_table(&sm90)
            }
            Rows::Sgemm(ladders) => sgemm_table(&gpu.describe(), &ladders),
            Rows::Blas(rows) => blas_table(&gpu.describe(), &rows),
        };
        Ok(print(out, &table)?)
    }

    fn opt(x: Option<f64>, digits: usize) -> String {
        x.map_or("-".into(), |v| format!("{v:.digits$}"))
    }

    /// One line per kernel: time, bandwidth, ratio to memcpy, predicted excess wavefronts.
    fn kernel_table(device: &str, rows: &[Row]) -> String {
        let mut s = format!("device: {device}\n");
        s.push_str(&format!(
            "{:<30} {:>5} {:>11} {:>10} {:>9} {:>9} {:>14}\n",
            "kernel", "dtype", "size", "time_ms", "GB/s", "x_memcpy", "smem_excess"
        ));
        for r in rows {
            let excess = r
                .predicted
                .map_or("-".into(), |p| format!("{}", p.excess()));
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

    /// The header of a GEMM table: `title` over the sizes, `label` over the variants.
    fn gemm_header(title: &str, label: &str) -> String {
        format!(
            "{:<18} {:<14} {:>10} {:>9} {:>12} {:>9} {:>9} {:>10} {:>10}\n",
            title,
            label,
            "ms",
            "TFLOP/s",
            "cublas_ms",
            "TFLOP/s",
            "x_cublas",
            "err_cpu",
            "err_cublas"
        )
    }

    /// One line of a GEMM table: size, variant, and the measurement next to cuBLAS.
    fn gemm_line(size: (i64, i64, i64), label: &str, r: &VsCublas) -> String {
        format!(
            "{:<18} {:<14} {:>10.4} {:>9.1} {:>12.4} {:>9.1} {:>9.3} {:>10.2e} {:>10.2e}\n",
            format!("{}x{}x{}", size.0, size.1, size.2),
            label,
            r.ours.median_ms,
            r.ours_tflops,
            r.cublas.median_ms,
            r.cublas_tflops,
            r.ratio(),
            r.rel_err_cpu,
            r.rel_err_cublas
        )
    }

    /// One line per GEMM size and configuration, next to cuBLAS.
    fn gemm_table(device: &str, rows: &[GemmRow]) -> String {
        let mut s = format!("device: {device}\n") + &gemm_header("gemm (fp16->fp32)", "tile");
        for r in rows {
            s += &gemm_line(r.size, &r.cfg.to_string(), &r.result);
        }
        s
    }

    /// The library GEMM's rows: types and orders of A and B, the measurement, the kernel.
    fn blas_table(device: &str, rows: &[BlasRow]) -> String {
        let mut s =
            format!("device: {device}\n") + gemm_header("library gemm", "in->out ab").trim_end();
        s += "  kernel\n";
        for r in rows {
            let label = format!(
                "{}->{} {}",
                r.input,
                r.output,
                blas_bench::orders_name(r.a, r.b)
            );
            s += gemm_line(r.size, &label, &r.result).trim_end();
            let baseline = if r.input.is_fp8() {
                " (vs cuBLASLt)"
            } else {
                ""
            };
            s += &format!("  {}{baseline}\n", r.kernel);
        }
        s
    }

    /// The Hopper GEMM's rows, under their own header (nothing when there are none).
    fn sm90_table(rows: &[Sm90Row]) -> String {
        if rows.is_empty() {
            return String::new();
        }
        let mut s = gemm_header("sm90 (TMA+wgmma)", "in->out");
        for r in rows {
            s += &gemm_line(r.size, &format!("{}->{}", r.input, r.output), &r.result);
        }
        s
    }

    /// One line per shape and rung: GFLOP/s, ratio to cuBLAS SGEMM on the same row-major A and B
    /// (`cublas`), the bank model's wavefronts (loads/stores) and their excess; per shape a
    /// `cublas` line and a `cublas-abt` line (cuBLAS in its `A B^T` layout, ratio to `cublas`).
    fn sgemm_table(device: &str, ladders: &[((i64, i64, i64), Ladder)]) -> String {
        let mut s = format!("device: {device}\n");
        s.push_str(&format!(
            "{:<16} {:<16} {:>10} {:>9} {:>9} {:>24} {:>11}\n",
            "sgemm (row-major)",
            "rung",
            "ms",
            "GFLOP/s",
            "x_cublas",
            "smem_wavefronts_ld/st",
            "smem_excess"
        ));
        for ((m, n, k), l) in ladders {
            let size = format!("{m}x{n}x{k}");
            s.push_str(&format!(
                "{:<16} {:<16} {:>10} {:>9} {:>9} {:>24} {:>11}\n",
                size,
                "cublas",
                "-",
                opt(l.cublas_gflops, 0),
                "1.000",
                "-",
                "-"
            ));
            s.push_str(&format!(
                "{:<16} {:<16} {:>10} {:>9} {:>9} {:>24} {:>11}\n",
                size,
                "cublas-abt",
                "-",
                opt(l.cublas_tn_gflops, 0),
                opt(
                    l.cublas_tn_gflops
                        .and_then(|t| l.cublas_gflops.map(|c| t / c)),
                    3
                ),
                "-",
                "-"
            ));
            for r in &l.rows {
                s.push_str(&format!(
                    "{:<16} {:<16} {:>10.4} {:>9.0} {:>9} {:>24} {:>11}\n",
                    size,
                    r.rung.name(),
                    r.timing.median_ms,
                    r.gflops,
                    opt(l.cublas_gflops.map(|_| r.vs_cublas), 3),
                    format!(
                        "{}/{}",
                        r.traffic.loads.wavefronts, r.traffic.stores.wavefronts
                    ),
                    r.traffic.excess()
                ));
            }
        }
        s
    }

    /// One rung of one shape as `--json` reports it, with the shape's cuBLAS figures.
    fn sgemm_json((m, n, k): (i64, i64, i64), l: &Ladder, r: &LadderRow) -> Result_ {
        Result_::Sgemm(SgemmJson {
            kernel: format!("sgemm_{}", r.rung.name().replace('-', "_")),
            rung: r.rung.name().to_string(),
            m,
            n,
            k,
            median_ms: r.timing.median_ms,
            gflops: r.gflops,
            cublas_gflops: l.cublas_gflops,
            ratio_to_cublas: l.cublas_gflops.map(|_| r.vs_cublas),
            cublas_abt_gflops: l.cublas_tn_gflops,
            err_over_bound: r.check.worst_ratio,
            predicted_wavefronts: Predicted {
                ld: r.traffic.loads.wavefronts,
                ld_ideal: r.traffic.loads.ideal,
                st: r.traffic.stores.wavefronts,
                st_ideal: r.traffic.stores.ideal,
            },
        })
    }

    /// A GEMM measurement as `--json` reports it.
    fn gemm_json(
        kernel: String,
        config: String,
        size: (i64, i64, i64),
        r: &VsCublas,
        splits: Option<i64>,
    ) -> Result_ {
        Result_::Gemm(GemmJson {
            kernel,
            config,
            m: size.0,
            n: size.1,
            k: size.2,
            median_ms: r.ours.median_ms,
            tflops: r.ours_tflops,
            cublas_median_ms: r.cublas.median_ms,
            cublas_tflops: r.cublas_tflops,
            ratio_to_cublas: r.ratio(),
            rel_err_cpu: r.rel_err_cpu,
            rel_err_cublas: r.rel_err_cublas,
            splits,
        })
    }

    fn json(gpu: &Gpu, rows: Rows) -> BenchJson {
        let results = match rows {
            Rows::Sgemm(ladders) => ladders
                .iter()
                .flat_map(|(size, l)| l.rows.iter().map(move |r| sgemm_json(*size, l, r)))
                .collect(),
            Rows::Blas(rows) => rows
                .iter()
                .map(|r| {
                    let variant = format!(
                        "{}->{} {}",
                        r.input,
                        r.output,
                        blas_bench::orders_name(r.a, r.b)
                    );
                    gemm_json(r.kernel.clone(), variant, r.size, &r.result, Some(r.splits))
                })
                .collect(),
            Rows::Gemm(rows, sm90, _) => rows
                .iter()
                .map(|r| {
                    gemm_json(
                        "gemm_tn_f16_f32".into(),
                        r.cfg.to_string(),
                        r.size,
                        &r.result,
                        None,
                    )
                })
                .chain(sm90.iter().map(|r| {
                    let kernel = format!("gemm_sm90_tn_{}_{}", r.input, r.output);
                    let variant = "128x256x64s4".to_string();
                    gemm_json(kernel, variant, r.size, &r.result, None)
                }))
                .collect(),
            Rows::Kernels(rows) => rows
                .into_iter()
                .map(|r| {
                    Result_::Kernel(KernelJson {
                        kernel: r.kernel,
                        dtype: r.dtype.to_string(),
                        rows: r.size.0,
                        cols: r.size.1,
                        median_ms: r.timing.map(|t| t.median_ms),
                        min_ms: r.timing.map(|t| t.min_ms),
                        repeats: r.timing.map_or(0, |t| t.repeats),
                        bytes: r.bytes,
                        gbps: r.gbps,
                        ratio_to_memcpy: r.ratio,
                        predicted_wavefronts: r.predicted.map(|p| Predicted {
                            ld: p.loads.wavefronts,
                            ld_ideal: p.loads.ideal,
                            st: p.stores.wavefronts,
                            st_ideal: p.stores.ideal,
                        }),
                    })
                })
                .collect(),
        };
        BenchJson {
            device: Some(gpu.name().to_string()),
            arch: Some(gpu.arch().to_string()),
            skipped: None,
            results,
        }
    }

    #[cfg(test)]
    mod tests {
        use super::*;
        use tessel_kit::kernels::timing::Timing;

        #[test]
        fn gemm_shapes_take_type_pairs_and_orders() {
            let args = |types: Option<&str>, orders: &str| Args {
                suite: Suite::Gemm,
                size: None,
                dtype: None,
                repeats: None,
                profile: false,
                json: false,
                m: None,
                n: None,
                k: None,
                shapes: Some(super::super::Shapes(vec![(128, 4096, 4096)])),
                orders: Some(orders.into()),
                types: types.map(Into::into),
                arch: None,
                attn: crate::cli::bench_attention::default_args(),
            };
            let (types, orders) = blas_variants(&args(None, "rc")).unwrap();
            assert_eq!(
                (types.len(), orders),
                (6, vec![(Order::RowMajor, Order::ColMajor)])
            );
            let (types, orders) = blas_variants(&args(Some("bf16-f32,f16-f16"), "rr,cc")).unwrap();
            assert_eq!(
                types,
                [(Element::BF16, Element::F32), (Element::F16, Element::F16)]
            );
            assert_eq!(
                orders,
                [
                    (Order::RowMajor, Order::RowMajor),
                    (Order::ColMajor, Order::ColMajor)
                ]
            );
            let input = |f: Failure| match f {
                Failure::Input(e) => e.to_string(),
                Failure::Gpu(g) => panic!("not an input error: {g}"),
            };
            let e = input(blas_variants(&args(Some("f16"), "rc")).unwrap_err());
            assert!(e.contains("--types: expected IN-OUT"), "{e}");
            let e = input(blas_variants(&args(None, "tn")).unwrap_err());
            assert!(e.contains("got 'tn'"), "{e}");
        }

        #[test]
        fn suites_pick_their_kernels() {
            assert_eq!(tiled_kinds(Suite::Copy), [TiledKind::Copy]);
            assert_eq!(tiled_kinds(Suite::Transpose), TiledKind::LADDER);
            assert_eq!(tiled_kinds(Suite::All).len(), 1 + TiledKind::LADDER.len());
            assert!(
                tiled_kinds(Suite::Conflicts).is_empty() && tiled_kinds(Suite::Gemm).is_empty()
            );
        }

        #[test]
        fn the_sgemm_table_has_a_cublas_line_and_one_line_per_rung() {
            use tessel_kit::bank::{BankReport, SmemTraffic};
            use tessel_kit::kernels::sgemm::host::Check;
            use tessel_kit::kernels::sgemm::run::LadderRow;
            let timing = Timing {
                median_ms: 2.0,
                min_ms: 1.9,
                max_ms: 2.1,
                repeats: 3,
            };
            let loads = BankReport {
                wavefronts: 30,
                ideal: 10,
                excess: 20,
            };
            let row = LadderRow {
                rung: Rung::Reg2d,
                timing,
                gflops: 1000.0,
                vs_cublas: 0.5,
                traffic: SmemTraffic {
                    loads,
                    stores: BankReport::default(),
                },
                check: Check {
                    checked: 4,
                    worst_ratio: 0.1,
                    max_rel: 1e-7,
                },
            };
            let ladder = Ladder {
                cublas_gflops: Some(2000.0),
                cublas_tn_gflops: Some(2500.0),
                rows: vec![row],
            };
            let shapes = [((64, 32, 16), ladder)];
            let table = sgemm_table("H100", &shapes);
            let lines: Vec<&str> = table.lines().collect();
            assert_eq!(lines.len(), 5, "{table}");
            assert!(
                lines[2].starts_with("64x32x16")
                    && lines[2].contains("cublas")
                    && lines[2].contains("2000")
            );
            let abt: Vec<&str> = lines[3].split_whitespace().collect();
            assert_eq!(abt[..5], ["64x32x16", "cublas-abt", "-", "2500", "1.250"]);
            let rung: Vec<&str> = lines[4].split_whitespace().collect();
            assert_eq!(
                rung,
                [
                    "64x32x16", "reg-2d", "2.0000", "1000", "0.500", "30/0", "20"
                ]
            );
            let (size, ladder) = &shapes[0];
            let json = serde_json::to_value(sgemm_json(*size, ladder, &ladder.rows[0])).unwrap();
            assert_eq!(json["kernel"], "sgemm_reg_2d");
            assert_eq!(
                (json["m"].as_i64(), json["k"].as_i64()),
                (Some(64), Some(16))
            );
            assert_eq!(json["cublas_gflops"], 2000.0);
            assert_eq!(json["ratio_to_cublas"], 0.5);
            assert_eq!(json["cublas_abt_gflops"], 2500.0);
            assert_eq!(json["predicted_wavefronts"]["ld"], 30);
            let args = |m: Option<i64>, size: Option<(i64, i64)>| Args {
                suite: Suite::Sgemm,
                size,
                dtype: None,
                repeats: Some(1),
                profile: false,
                json: false,
                m,
                n: None,
                k: None,
                shapes: None,
                orders: None,
                types: None,
                arch: None,
                attn: crate::cli::bench_attention::default_args(),
            };
            assert_eq!(sgemm_shapes(&args(Some(100), None)), [(100, 4096, 4096)]);
            assert_eq!(
                sgemm_shapes(&args(None, Some((512, 256)))),
                [(512, 256, 256)]
            );
            assert_eq!(sgemm_shapes(&args(None, None)).len(), 3);
        }

        #[test]
        fn library_rows_report_their_split_and_other_gemm_rows_do_not() {
            let t = Timing {
                median_ms: 1.0,
                min_ms: 1.0,
                max_ms: 1.0,
                repeats: 1,
            };
            let r = VsCublas::new(2e9, t, t, 0.0, 0.0);
            let with = |splits| {
                serde_json::to_value(gemm_json(
                    "k".into(),
                    "f16->f32 rc".into(),
                    (16, 4096, 4096),
                    &r,
                    splits,
                ))
                .unwrap()
            };
            assert_eq!(with(Some(4))["splits"], 4);
            assert!(with(None).get("splits").is_none());
            assert_eq!(with(None)["ratio_to_cublas"], 1.0);
        }

        #[test]
        fn the_sm90_table_has_a_header_and_one_line_per_row() {
            assert_eq!(sm90_table(&[]), "");
            let t = Timing {
                median_ms: 2.0,
                min_ms: 1.9,
                max_ms: 2.1,
                repeats: 3,
            };
            let row = Sm90Row {
                size: (4096, 4096, 4096),
                input: Element::BF16,
                output: Element::BF16,
                kernel: "gemm_sm90_tn_bf16_bf16_4096x4096x4096".into(),
                result: VsCublas::new(
                    2.0 * 4096f64.powi(3),
                    t,
                    Timing {
                        median_ms: 1.0,
                        ..t
                    },
                    1e-3,
                    2e-3,
                ),
            };
            let table = sm90_table(&[row]);
            let lines: Vec<&str> = table.lines().collect();
            assert_eq!(lines.len(), 2, "{table}");
            assert!(lines[0].starts_with("sm90 (TMA+wgmma)"), "{table}");
            // ours at half cuBLAS's rate: ratio 0.500.
            assert!(
                lines[1].contains("bf16->bf16") && lines[1].contains("0.500"),
                "{table}"
            );
        }

        #[test]
        fn the_kernel_table_has_one_line_per_row() {
            let t = Timing {
                median_ms: 0.5,
                min_ms: 0.4,
                max_ms: 0.6,
                repeats: 3,
            };
            let row = Row {
                kernel: "memcpy_dtod".into(),
                dtype: Element::F16,
                size: (64, 32),
                timing: Some(t),
                bytes: 8192,
                gbps: Some(8192.0 / 0.5e6),
                ratio: Some(1.0),
                predicted: None,
            };
            let table = kernel_table("test device", &[row]);
            let lines: Vec<&str> = table.lines().collect();
            assert_eq!(lines.len(), 3, "{table}");
            assert_eq!(lines[0], "device: test device");
            assert!(lines[1].starts_with("kernel") && lines[1].ends_with("smem_excess"));
            // 0.5 ms, 8192 bytes: 0.016384 GB/s printed with one decimal.
            assert!(
                lines[2].contains("64x32")
                    && lines[2].contains("0.5000")
                    && lines[2].contains("1.000"),
                "{table}"
            );
        }
    }
}

#[cfg(test)]
mod element_options {
    use super::{Element, parse_copy_element};

    #[test]
    fn dtype_takes_every_spelling_of_the_copy_elements_and_names_the_set_otherwise() {
        // The spellings `--dtype` took before it parsed into `Element` (f32, f16) and the
        // older ones of `DType` (fp32, fp16).
        for (text, e) in [
            ("f32", Element::F32),
            ("fp32", Element::F32),
            ("f16", Element::F16),
            ("fp16", Element::F16),
        ] {
            assert_eq!(parse_copy_element(text).unwrap(), e, "{text}");
        }
        let e = parse_copy_element("bf16").unwrap_err();
        assert_eq!(e, "the copy ladder takes f32 or f16, not bf16");
        assert!(
            parse_copy_element("f64")
                .unwrap_err()
                .contains("unknown element type")
        );
    }
}

#[cfg(test)]
mod shape_lists {
    use super::parse_shapes;

    #[test]
    fn shapes_parse_from_a_list_or_a_file_and_bad_ones_are_named() {
        assert_eq!(
            parse_shapes("4096x4096x4096,128x4096x4096").unwrap().0,
            [(4096, 4096, 4096), (128, 4096, 4096)]
        );
        let file = std::env::temp_dir().join(format!("tessel_shapes_{}", std::process::id()));
        std::fs::write(&file, "1x4096x14336\n1000x3000x520, 2048x2048x2048\n").unwrap();
        let got = parse_shapes(&format!("@{}", file.display()));
        std::fs::remove_file(&file).unwrap();
        assert_eq!(
            got.unwrap().0,
            [(1, 4096, 14336), (1000, 3000, 520), (2048, 2048, 2048)]
        );
        assert!(
            parse_shapes("4096x4096")
                .unwrap_err()
                .contains("expected MxNxK, got '4096x4096'")
        );
        assert!(parse_shapes("0x1x1").unwrap_err().contains("got '0'"));
        assert!(parse_shapes(",").unwrap_err().contains("no shapes"));
        assert!(
            parse_shapes("@/nonexistent/shapes")
                .unwrap_err()
                .contains("cannot read")
        );
    }
}

/// Run by `cargo test -p tessel-cli --no-default-features --bin tessel`.
#[cfg(all(test, not(feature = "kernels")))]
mod without_kernels {
    use clap::Parser;

    use super::super::{Cli, Subcommand};

    #[test]
    fn bench_says_it_was_built_without_kernels() {
        let Subcommand::Bench(args) = Cli::parse_from(["tessel", "bench", "--json"]).command else {
            panic!("not bench");
        };
        let mut out = Vec::new();
        super::run(&args, &mut out).unwrap();
        let v: serde_json::Value = serde_json::from_slice(&out).unwrap();
        assert_eq!(v["device"], serde_json::Value::Null);
        assert_eq!(
            v["skipped"],
            "this tessel was built without the 'kernels' feature"
        );
        assert_eq!(v["results"], serde_json::json!([]));
    }
}

#[cfg(all(test, feature = "kernels"))]
mod failures {
    use tessel_kit::kernels::GpuError;

    use super::Failure;
    use super::with_kernels::gpu_error;

    #[test]
    fn a_failed_gpu_run_is_not_bad_input() {
        // Exit status 1 (the machine) for a driver call, NVRTC or a wrong result ...
        for e in [
            GpuError::Cuda("cuLaunchKernel: CUDA_ERROR_ILLEGAL_ADDRESS".into()),
            GpuError::Compile("gemm: ptxas error".into()),
            GpuError::Verify("c[3] = 1, want 2".into()),
        ] {
            assert!(matches!(gpu_error(e), Failure::Gpu(_)));
        }
        // ... exit status 2 (the input) for what the runtime refuses to run.
        let e = gpu_error(GpuError::InvalidArgument("size 0".into()));
        assert!(matches!(e, Failure::Input(_)));
    }
}
