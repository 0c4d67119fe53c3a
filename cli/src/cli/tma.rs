//! `tessel tma`: the shared-memory layout a TMA box writes with a swizzle mode, and whether it
//! is a given operand layout.

use std::io::Write;

use serde::Serialize;
use tessel_kit::gmma::{Major, SwizzleMode, check_box_matches, tma_box_layout};
use tessel_kit::{Error, Result};

use super::gmma::parse_dims;
use super::json::print_json;
use super::{print, values};

/// Options of `tessel tma`.
#[derive(Debug, clap::Args)]
#[command(
    about = "Print the shared-memory layout a TMA box writes, and check it against a layout",
    long_about = "A TMA box of extents B0,B1,... elements (innermost first, as \
cuTensorMapEncodeTiled's boxDim) lands in shared memory densely, innermost first, with the \
tensor map's swizzle (none, 32B, 64B, 128B: Sw<B,4,3> on byte addresses). Prints that layout in \
elements. With --expect LAYOUT (an operand: mode 0 MN, mode 1 K) it says whether the box writes \
every element where LAYOUT keeps it, or names the first one it does not; --major says which \
operand mode is the box's innermost (K: box (k,mn); MN: box (mn,k)).",
    after_help = "Example:\n  tessel tma --box 64,128 --elem-bytes 2 --swizzle 128B \\\n    \
--expect 'Sw<3,3,3> o ((8,16),(64,1)):((64,512),(1,8192))'"
)]
pub struct Args {
    /// Box extents in elements, innermost first (e.g. 64,128)
    #[arg(long = "box", value_name = "B0,B1,...", required = true)]
    pub box_dims: String,
    /// Element size in bytes (1, 2, 4 or 8)
    #[arg(long, value_name = "N", required = true)]
    pub elem_bytes: i64,
    /// none, 32B, 64B or 128B
    #[arg(long, value_name = "MODE", default_value = "none")]
    pub swizzle: String,
    /// An operand layout (mode 0 MN, mode 1 K) to compare with
    #[arg(long, value_name = "LAYOUT")]
    pub expect: Option<String>,
    /// With --expect: K (box innermost is K) or MN
    #[arg(long, value_name = "MAJOR", default_value = "K", requires = "expect")]
    pub major: String,
    /// Print as JSON (schema: docs/cli.md)
    #[arg(long)]
    pub json: bool,
}

/// `tessel tma --json`.
#[derive(Debug, Serialize)]
pub struct TmaJson {
    /// The box extents, innermost first.
    #[serde(rename = "box")]
    pub box_dims: Vec<i64>,
    /// Element size in bytes.
    pub elem_bytes: i64,
    /// The swizzle mode.
    pub swizzle: String,
    /// The shared layout the box writes, in elements.
    pub layout: String,
    /// The `--expect` layout, or null.
    pub expect: Option<String>,
    /// Whether the box writes `expect` (null without `--expect`).
    pub matches: Option<bool>,
    /// Why not, when it does not.
    pub mismatch: Option<String>,
}

/// Prints the box layout and the comparison.
pub fn run(args: &Args, out: &mut dyn Write) -> Result<()> {
    let dims = parse_dims("--box", &args.box_dims)?;
    let mode: SwizzleMode = args.swizzle.parse()?;
    let boxed = tma_box_layout(&dims, args.elem_bytes, mode)?;
    let expect = match &args.expect {
        Some(text) => Some(values::composed("--expect", text)?),
        None => None,
    };
    let verdict = match &expect {
        Some(e) => {
            let major: Major = args.major.parse()?;
            if boxed.layout().rank() != 2 {
                return Err(Error::invalid(format!(
                    "--expect compares a rank-2 box with an operand, the box has rank {}",
                    dims.len()
                )));
            }
            Some(check_box_matches(&boxed, e, major).map_err(|e| e.message().to_string()))
        }
        None => None,
    };
    if args.json {
        return print_json(
            out,
            &TmaJson {
                box_dims: dims,
                elem_bytes: args.elem_bytes,
                swizzle: mode.to_string(),
                layout: boxed.to_string(),
                expect: expect.as_ref().map(ToString::to_string),
                matches: verdict.as_ref().map(|v| v.is_ok()),
                mismatch: verdict.and_then(|v| v.err()),
            },
        );
    }
    let mut text = format!("{boxed}\n");
    match (&expect, verdict) {
        (Some(e), Some(Ok(()))) => text += &format!("matches {e}: every element\n"),
        (Some(_), Some(Err(why))) => text += &format!("does not match: {why}\n"),
        _ => {}
    }
    print(out, &text)
}
