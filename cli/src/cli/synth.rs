//! `tessel synth`: search the swizzle that makes a shared-memory tile conflict-free.

use std::io::Write;

use serde::Serialize;
use tessel_kit::bank::BankReport;
use tessel_kit::expr::eval;
use tessel_kit::synth::{Access, Options, synthesize};
use tessel_kit::{Error, Layout, Result};

use super::json::{Report, print_json};
use super::{print, progress, values};

/// Options of `tessel synth`.
#[derive(Debug, clap::Args)]
#[command(
    about = "Find the swizzle (one or two layers) that makes every access conflict-free",
    long_about = "Searches Sw<B,M,S> and chains of two that keep the tile a bijection and \
minimise the total wavefronts of the accesses (see 'tessel help conflicts' for OP and TV), then \
proves the winner with the bank analyzer. Ties go to fewer layers, then fewer swizzle bits.",
    after_help = "Example (the 32x32 fp32 transpose tile, row writes and column reads):\n  \
tessel synth --tile '(32,32):(32,1)' --elem-bytes 4 \\\n    \
--access 'sts.32 (32,1,32):(32,0,1)' --access 'lds.32 (32,1,32):(1,0,32)'"
)]
pub struct Args {
    /// The unswizzled shared-memory tile: domain index -> element offset
    #[arg(long, value_name = "LAYOUT", required = true)]
    pub tile: String,
    /// Element size in bytes
    #[arg(long, value_name = "N", required = true)]
    pub elem_bytes: i64,
    /// An instruction and its TV layout; repeat for several access patterns
    #[arg(long, value_name = "OP TV", required = true)]
    pub access: Vec<String>,
    /// Longest chain to try: 0, 1 or 2
    #[arg(long, value_name = "K", default_value_t = 2, value_parser = clap::value_parser!(u8).range(0..=2))]
    pub layers: u8,
    /// Print the result as JSON (schema: docs/cli.md)
    #[arg(long)]
    pub json: bool,
}

/// `tessel synth --json`: the swizzled tile, the totals with and without the swizzle, and the
/// same per access.
#[derive(Debug, Serialize)]
pub struct SynthJson {
    /// The tile with the chosen swizzle chain, in CuTe notation.
    pub layout: String,
    /// The swizzles of the chain, outermost first (empty when none helps).
    pub swizzles: Vec<String>,
    /// Total wavefronts with the swizzle.
    pub wavefronts: i64,
    /// Total ideal wavefronts.
    pub ideal: i64,
    /// Total excess with the swizzle.
    pub excess: i64,
    /// The totals of the unswizzled tile.
    pub without_swizzle: Report,
    /// One entry per `--access`, in the order given.
    pub accesses: Vec<AccessJson>,
    /// How many candidate chains were evaluated.
    pub candidates: usize,
}

/// One access of `synth --json`.
#[derive(Debug, Serialize)]
pub struct AccessJson {
    /// The instruction.
    pub op: String,
    /// Its TV layout in CuTe notation.
    pub tv: String,
    /// The report with the swizzle.
    pub report: Report,
    /// The report of the unswizzled tile.
    pub without_swizzle: Report,
}

/// Parses `OP TV`.
fn access(text: &str) -> Result<Access> {
    let (op, tv) = text.trim().split_once(char::is_whitespace).ok_or_else(|| {
        Error::invalid(format!(
            "--access '{text}' needs an instruction and a TV layout, e.g. 'lds.32 32:1'"
        ))
    })?;
    let tv: Layout = eval(tv)
        .map_err(|e| values::in_option(&format!("--access '{text}'"), e))?
        .as_layout()
        .ok_or_else(|| Error::invalid(format!("--access '{text}': TV is not a layout")))??;
    Ok(Access::new(op.parse()?, tv))
}

/// Searches and prints.
pub fn run(args: &Args, out: &mut dyn Write) -> Result<()> {
    let tile = values::layout("--tile", &args.tile)?;
    let accesses = args
        .access
        .iter()
        .map(|a| access(a))
        .collect::<Result<Vec<_>>>()?;
    let options = Options {
        max_layers: usize::from(args.layers),
    };
    let found = progress::while_working(
        &format!("synth: searching swizzles for {tile}"),
        tile.size() >= progress::LARGE_TILE,
        || synthesize(&tile, args.elem_bytes, &accesses, options),
    )?;
    let total = found.total();
    if args.json {
        let before = found.baseline_total();
        return print_json(
            out,
            &SynthJson {
                layout: found.layout.to_string(),
                swizzles: found
                    .layout
                    .swizzles()
                    .iter()
                    .map(|s| s.to_string())
                    .collect(),
                wavefronts: total.wavefronts,
                ideal: total.ideal,
                excess: total.excess,
                without_swizzle: before.into(),
                accesses: accesses
                    .iter()
                    .zip(found.reports.iter().zip(&found.baseline))
                    .map(|(a, (r, b))| AccessJson {
                        op: a.op.to_string(),
                        tv: a.tv.to_string(),
                        report: (*r).into(),
                        without_swizzle: (*b).into(),
                    })
                    .collect(),
                candidates: found.candidates,
            },
        );
    }
    let mut text = format!("{}\n", found.layout);
    for (k, (a, (r, before))) in accesses
        .iter()
        .zip(found.reports.iter().zip(&found.baseline))
        .enumerate()
    {
        text.push_str(&format!("  access {} {a}: {}\n", k + 1, compare(r, before)));
    }
    text.push_str(&format!(
        "  total: {}\n  {} candidates searched\n",
        compare(&total, &found.baseline_total()),
        found.candidates
    ));
    print(out, &text)
}

fn compare(now: &BankReport, before: &BankReport) -> String {
    format!("{now} (without swizzle: {before})")
}
