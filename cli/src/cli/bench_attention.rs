//! `tessel bench attention`: the FlashAttention forward kernel of
//! `tessel_kernels::attention` over sequence lengths, head dimensions, masks and element types
//! (each shape verified against the f64 CPU reference, then timed with CUDA events; TFLOP/s
//! count `4 B H S^2 D`, halved when causal). `scripts/sdpa_compare.py` runs PyTorch's SDPA
//! backends on the same shapes in the same device call and prints the ratios.

use std::io::Write;

use serde::Serialize;
use tessel_kit::{Element, Error, Result};

use super::Failure;

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

/// The element types of the attention kernel (`tessel_kernels::hopper::INPUTS`).
const ATTN_ELEMENTS: [Element; 2] = [Element::F16, Element::BF16];

/// `--attn-dtype`: an [`Element`] (any of its spellings) that the attention kernel takes.
fn parse_attn_element(text: &str) -> std::result::Result<Element, String> {
    text.parse::<Element>()
        .and_then(|e| e.require(&ATTN_ELEMENTS, "attention"))
        .map_err(|e| e.message().to_string())
}

/// The options of `tessel bench attention` (refused by the other suites; unset options take
/// the defaults of [`grid`]).
#[derive(Debug, clap::Args)]
pub struct AttnArgs {
    /// attention: sequence lengths (queries = keys; batch 16384 / S, heads 2048 / D; default
    /// 512,1024,2048,4096,8192,16384)
    #[arg(long, value_name = "S,..", value_delimiter = ',',
          value_parser = clap::value_parser!(i64).range(1..=65536))]
    pub seqlen: Option<Vec<i64>>,
    /// attention: head dimensions (64, 128, 256; default all three)
    #[arg(long, value_name = "D,..", value_delimiter = ',')]
    pub head_dim: Option<Vec<i64>>,
    /// attention: masks (default both)
    #[arg(long, value_enum, value_name = "no|yes|both")]
    pub causal: Option<Causal>,
    /// attention: element types (default: both)
    #[arg(long, value_name = "f16|bf16", value_delimiter = ',', value_parser = parse_attn_element)]
    pub attn_dtype: Option<Vec<Element>>,
    /// attention: write each shape's Q, K, V, O and LSE under DIR/SHAPE/ (for
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

/// The shapes `bench attention` measures: sequence lengths, head dimensions, masks and element
/// types, each defaulted and checked.
#[derive(Debug, PartialEq)]
struct Grid {
    seqlens: Vec<i64>,
    dims: Vec<i64>,
    masks: Vec<bool>,
    dtypes: Vec<Element>,
}

/// The grid asked for, with the defaults (sequences 512 to 16384, head dims 64, 128
/// and 256, both masks, both types), checked (bad input is an error).
fn grid(args: &AttnArgs) -> Result<Grid> {
    let dims = args.head_dim.clone().unwrap_or_else(|| vec![64, 128, 256]);
    if let Some(d) = dims.iter().find(|d| ![64, 128, 256].contains(*d)) {
        return Err(Error::invalid(format!(
            "--head-dim {d}: the attention kernel supports 64, 128 and 256"
        )));
    }
    let masks = match args.causal.unwrap_or(Causal::Both) {
        Causal::No => vec![false],
        Causal::Yes => vec![true],
        Causal::Both => vec![false, true],
    };
    Ok(Grid {
        seqlens: (args.seqlen.clone()).unwrap_or_else(|| vec![512, 1024, 2048, 4096, 8192, 16384]),
        dims,
        masks,
        dtypes: (args.attn_dtype.clone()).unwrap_or_else(|| ATTN_ELEMENTS.to_vec()),
    })
}

/// Runs the attention benchmark.
#[cfg(not(feature = "kernels"))]
pub fn run(
    args: &AttnArgs,
    _repeats: Option<u16>,
    json: bool,
    out: &mut dyn Write,
) -> std::result::Result<(), Failure> {
    grid(args)?;
    Ok(skipped(
        out,
        json,
        "this tessel was built without the 'kernels' feature".into(),
    )?)
}

/// Runs the attention benchmark: bad options are [`Failure::Input`], a failed GPU run
/// [`Failure::Gpu`].
#[cfg(feature = "kernels")]
pub fn run(
    args: &AttnArgs,
    repeats: Option<u16>,
    json: bool,
    out: &mut dyn Write,
) -> std::result::Result<(), Failure> {
    let grid = grid(args)?;
    let repeats = repeats.unwrap_or(super::bench::DEFAULT_REPEATS);
    let mut lines = super::progress::Lines::new("tessel bench attention: opening GPU 0");
    let result = with_kernels::run(args, &grid, repeats, json, out, &mut lines);
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

    use tessel_kit::kernels::Gpu;
    use tessel_kit::kernels::attention::run::{self as attn, AttnRow, BenchShape};

    use super::super::bench::gpu_error;
    use super::{AttnArgs, AttnBenchJson, AttnJson, Failure, Grid};

    pub fn run(
        args: &AttnArgs,
        grid: &Grid,
        repeats: u16,
        json: bool,
        out: &mut dyn Write,
        progress: &mut dyn Write,
    ) -> std::result::Result<(), Failure> {
        let gpu = match Gpu::open(0) {
            Ok(g) => g,
            Err(e) if e.is_unavailable() => {
                return Ok(super::skipped(out, json, format!("no GPU: {e}"))?);
            }
            Err(e) => return Err(gpu_error(e)),
        };
        if !attn::supported(&gpu) {
            let why = format!(
                "{} is {}, the attention kernel needs sm_90",
                gpu.name(),
                gpu.arch()
            );
            return Ok(super::skipped(out, json, why)?);
        }
        let _ = writeln!(progress, "device: {}", gpu.describe());
        let mut shapes = Vec::new();
        for &dtype in &grid.dtypes {
            for &d in &grid.dims {
                for &causal in &grid.masks {
                    for &s in &grid.seqlens {
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
            return Ok(super::super::json::print_json(
                out,
                &AttnBenchJson {
                    device: Some(gpu.name().to_string()),
                    arch: Some(gpu.arch().to_string()),
                    skipped: None,
                    results,
                },
            )?);
        }
        Ok(super::super::print(out, &table(&gpu.describe(), &rows))?)
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
    fn attn_dtype_takes_the_spellings_of_f16_and_bf16_and_names_the_set_otherwise() {
        // `fp16`/`f16` and `bf16` were the spellings before the option parsed into `Element`.
        for (text, e) in [
            ("f16", Element::F16),
            ("fp16", Element::F16),
            ("bf16", Element::BF16),
        ] {
            assert_eq!(parse_attn_element(text).unwrap(), e, "{text}");
        }
        assert_eq!(
            parse_attn_element("f32").unwrap_err(),
            "attention takes f16 or bf16, not f32"
        );
    }

    #[test]
    fn the_defaults_are_the_issue_grid() {
        let a = default_args();
        assert!(a.seqlen.is_none() && a.head_dim.is_none() && a.causal.is_none());
        assert!(a.attn_dtype.is_none() && a.dump.is_none());
        // The default grid: sequences 512 to 16384, head dims 64/128/256, causal or not,
        // fp16 and bf16.
        let g = grid(&a).unwrap();
        assert_eq!(g.seqlens, [512, 1024, 2048, 4096, 8192, 16384]);
        assert_eq!((g.dims, g.masks), (vec![64, 128, 256], vec![false, true]));
        assert_eq!(g.dtypes, vec![Element::F16, Element::BF16]);
    }

    fn args(head_dim: Vec<i64>, causal: Causal) -> AttnArgs {
        AttnArgs {
            seqlen: Some(vec![512]),
            head_dim: Some(head_dim),
            causal: Some(causal),
            attn_dtype: None,
            dump: None,
        }
    }

    #[test]
    fn the_grid_is_checked_and_expanded() {
        let g = grid(&args(vec![64, 256], Causal::Yes)).unwrap();
        assert_eq!(
            (g.seqlens, g.dims, g.masks),
            (vec![512], vec![64, 256], vec![true])
        );
        let err = grid(&args(vec![96], Causal::No)).unwrap_err().to_string();
        assert!(err.contains("--head-dim 96"), "{err}");
    }
}
