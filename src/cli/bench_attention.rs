//! `tessel bench attention`: the FlashAttention forward kernel of
//! `tessel_kernels::attention` over sequence lengths, head dimensions, masks and element types
//! (each shape verified against the f64 CPU reference, then timed with CUDA events; TFLOP/s
//! count `4 B H S^2 D`, halved when causal). `scripts/sdpa_compare.py` runs PyTorch's SDPA
//! backends on the same shapes in the same device call and prints the ratios.

use std::io::Write;

use serde::Serialize;
use tessel::{Error, Result};

/// Which masks `bench attention` measures.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Causal {
    /// Full attention only
    No,
    /// Causal only
    Yes,
    /// Both
    Both,
}

/// Element types of `bench attention`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum AttnDtype {
    /// fp16
    F16,
    /// bf16
    Bf16,
}

/// The options of `tessel bench attention` (ignored by the other suites).
#[derive(Debug, clap::Args)]
pub struct AttnArgs {
    /// attention: sequence lengths (queries = keys; batch 16384 / S, heads 2048 / D)
    #[arg(long, value_name = "S,..", value_delimiter = ',',
          default_values_t = [512, 1024, 2048, 4096, 8192, 16384],
          value_parser = clap::value_parser!(i64).range(1..=65536))]
    pub seqlen: Vec<i64>,
    /// attention: head dimensions (64, 128, 256)
    #[arg(long, value_name = "D,..", value_delimiter = ',', default_values_t = [64, 128, 256])]
    pub head_dim: Vec<i64>,
    /// attention: masks
    #[arg(long, value_enum, value_name = "no|yes|both", default_value = "both")]
    pub causal: Causal,
    /// attention: element types (default: both)
    #[arg(long, value_enum, value_name = "f16|bf16", value_delimiter = ',')]
    pub attn_dtype: Vec<AttnDtype>,
    /// attention: write each shape's Q, K, V, O and LSE under DIR/<shape>/ (for
    /// scripts/sdpa_compare.py --dump DIR; large shapes take 1/4 GiB each)
    #[arg(long, value_name = "DIR")]
    pub dump: Option<std::path::PathBuf>,
}

/// `bench attention --json`: the device and one result per shape (`device` null and `skipped`
/// saying why when nothing ran).
#[derive(Debug, Serialize)]
pub struct AttnBenchJson {
    /// The GPU's name, or null.
    pub device: Option<String>,
    /// Its architecture (`sm_90`), or null.
    pub arch: Option<String>,
    /// Why nothing ran, or null.
    pub skipped: Option<String>,
    /// The measured shapes.
    pub results: Vec<AttnJson>,
}

/// One measured shape of `bench attention --json`.
#[derive(Debug, Serialize)]
pub struct AttnJson {
    /// The kernel, e.g. `attention_sm90_f16_d128_causal_fixed_n128s2`.
    pub kernel: String,
    /// `f16` or `bf16`.
    pub dtype: String,
    /// Sequences.
    pub batch: i64,
    /// Query heads (= KV heads).
    pub heads: i64,
    /// Query and key rows per sequence.
    pub seqlen: i64,
    /// Head dimension.
    pub head_dim: i64,
    /// Causal mask.
    pub causal: bool,
    /// Median time in ms.
    pub median_ms: f64,
    /// Fastest repeat in ms.
    pub min_ms: f64,
    /// TFLOP/s at the median (`4 B H S^2 D`, halved when causal).
    pub tflops: f64,
    /// Relative error of O against the CPU reference on the checked rows.
    pub rel_err_cpu: f64,
}

/// The head dimensions, masks and types asked for, checked (bad input is an error).
fn grid(args: &AttnArgs) -> Result<(Vec<i64>, Vec<bool>, Vec<AttnDtype>)> {
    if let Some(d) = args.head_dim.iter().find(|d| ![64, 128, 256].contains(*d)) {
        return Err(Error::invalid(format!(
            "--head-dim {d}: the attention kernel supports 64, 128 and 256"
        )));
    }
    let causal = match args.causal {
        Causal::No => vec![false],
        Causal::Yes => vec![true],
        Causal::Both => vec![false, true],
    };
    let dtypes = if args.attn_dtype.is_empty() {
        vec![AttnDtype::F16, AttnDtype::Bf16]
    } else {
        args.attn_dtype.clone()
    };
    Ok((args.head_dim.clone(), causal, dtypes))
}

/// Runs the attention benchmark.
#[cfg(not(feature = "kernels"))]
pub fn run(args: &AttnArgs, _repeats: u16, json: bool, out: &mut dyn Write) -> Result<()> {
    grid(args)?;
    skipped(
        out,
        json,
        "this tessel was built without the 'kernels' feature".into(),
    )
}

/// Runs the attention benchmark.
#[cfg(feature = "kernels")]
pub fn run(args: &AttnArgs, repeats: u16, json: bool, out: &mut dyn Write) -> Result<()> {
    let (dims, masks, dtypes) = grid(args)?;
    let mut lines = super::progress::Lines::new("tessel bench attention: opening GPU 0");
    let result = with_kernels::run(
        args,
        (&dims, &masks, &dtypes),
        repeats,
        json,
        out,
        &mut lines,
    );
    lines.finish();
    result
}

/// The line (and JSON `skipped`) of a run where nothing can be benchmarked.
fn skipped(out: &mut dyn Write, json: bool, reason: String) -> Result<()> {
    if json {
        return super::json::print_json(
            out,
            &AttnBenchJson {
                device: None,
                arch: None,
                skipped: Some(reason),
                results: Vec::new(),
            },
        );
    }
    super::print(out, &format!("{reason}; nothing to benchmark\n"))
}

#[cfg(feature = "kernels")]
mod with_kernels {
    use std::io::Write;

    use tessel::kernels::attention::run::{self as attn, AttnRow, BenchShape};
    use tessel::kernels::hopper::InType;
    use tessel::kernels::{Gpu, GpuError};
    use tessel::{Error, Result};

    use super::{AttnArgs, AttnBenchJson, AttnDtype, AttnJson};

    fn gpu_error(e: GpuError) -> Error {
        Error::invalid(e.to_string())
    }

    pub fn run(
        args: &AttnArgs,
        (dims, masks, dtypes): (&[i64], &[bool], &[AttnDtype]),
        repeats: u16,
        json: bool,
        out: &mut dyn Write,
        progress: &mut dyn Write,
    ) -> Result<()> {
        let gpu = match Gpu::open(0) {
            Ok(g) => g,
            Err(e) if e.is_unavailable() => {
                return super::skipped(out, json, format!("no GPU: {e}"));
            }
            Err(e) => return Err(gpu_error(e)),
        };
        if !attn::supported(&gpu) {
            let why = format!(
                "{} is {}, the attention kernel needs sm_90",
                gpu.name(),
                gpu.arch()
            );
            return super::skipped(out, json, why);
        }
        let _ = writeln!(progress, "device: {}", gpu.describe());
        let mut shapes = Vec::new();
        for &dtype in dtypes {
            let dtype = match dtype {
                AttnDtype::F16 => InType::F16,
                AttnDtype::Bf16 => InType::BF16,
            };
            for &d in dims {
                for &causal in masks {
                    for &s in &args.seqlen {
                        shapes.push(BenchShape::standard(s, d, dtype, causal));
                    }
                }
            }
        }
        let rows = attn::bench(
            &gpu,
            &shapes,
            usize::from(repeats),
            args.dump.as_deref(),
            progress,
        )
        .map_err(gpu_error)?;
        if json {
            let results = rows.iter().map(row_json).collect();
            return super::super::json::print_json(
                out,
                &AttnBenchJson {
                    device: Some(gpu.name().to_string()),
                    arch: Some(gpu.arch().to_string()),
                    skipped: None,
                    results,
                },
            );
        }
        super::super::print(out, &table(&gpu.describe(), &rows))
    }

    fn row_json(r: &AttnRow) -> AttnJson {
        AttnJson {
            kernel: r.kernel.clone(),
            dtype: r.shape.dtype.to_string(),
            batch: r.shape.batch,
            heads: r.shape.heads,
            seqlen: r.shape.seqlen,
            head_dim: r.shape.head_dim,
            causal: r.shape.causal,
            median_ms: r.timing.median_ms,
            min_ms: r.timing.min_ms,
            tflops: r.tflops,
            rel_err_cpu: r.rel_err,
        }
    }

    fn table(device: &str, rows: &[AttnRow]) -> String {
        let mut t = format!(
            "device: {device}\n{:<46} {:>5} {:>3} {:>6} {:>4} {:>6} {:>10} {:>8} {:>9}\n",
            "kernel", "dtype", "B", "S", "H", "causal", "median ms", "TFLOP/s", "rel err"
        );
        for r in rows {
            t += &format!(
                "{:<46} {:>5} {:>3} {:>6} {:>4} {:>6} {:>10.4} {:>8.1} {:>9.2e}\n",
                r.kernel,
                r.shape.dtype.to_string(),
                r.shape.batch,
                r.shape.seqlen,
                r.shape.heads,
                if r.shape.causal { "yes" } else { "no" },
                r.timing.median_ms,
                r.tflops,
                r.rel_err
            );
        }
        t
    }
}

/// The options as an empty command line sets them.
#[cfg(test)]
pub fn default_args() -> AttnArgs {
    #[derive(clap::Parser)]
    struct Only {
        #[command(flatten)]
        attn: AttnArgs,
    }
    <Only as clap::Parser>::try_parse_from(["tessel"])
        .map(|o| o.attn)
        .unwrap_or_else(|e| panic!("{e}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_defaults_are_the_issue_grid() {
        let a = default_args();
        assert_eq!(a.seqlen, [512, 1024, 2048, 4096, 8192, 16384]);
        assert_eq!((a.head_dim, a.causal), (vec![64, 128, 256], Causal::Both));
        assert!(a.attn_dtype.is_empty() && a.dump.is_none());
    }

    fn args(head_dim: Vec<i64>, causal: Causal) -> AttnArgs {
        AttnArgs {
            seqlen: vec![512],
            head_dim,
            causal,
            attn_dtype: Vec::new(),
            dump: None,
        }
    }

    #[test]
    fn the_grid_is_checked_and_expanded() {
        let (dims, masks, dtypes) = grid(&args(vec![64, 256], Causal::Both)).unwrap();
        assert_eq!((dims, masks), (vec![64, 256], vec![false, true]));
        assert_eq!(dtypes, vec![AttnDtype::F16, AttnDtype::Bf16]);
        let err = grid(&args(vec![96], Causal::No)).unwrap_err().to_string();
        assert!(err.contains("--head-dim 96"), "{err}");
    }
}
