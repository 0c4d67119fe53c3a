//! `tessel tma`: the shared-memory layout a TMA box writes with a swizzle mode, and whether it
//! is a given operand layout; with `--gmem` and `--smem`, CuTe's `make_tma_copy`: the box, the
//! tensor map and the copy's (CTA, value) layout derived from the layouts.

use std::io::Write;

use serde::Serialize;
use tessel::atom::TmaOp;
use tessel::expr::eval;
use tessel::gmma::{Major, SwizzleMode, check_box_matches, tma_box_layout};
use tessel::tiled::make_tma_copy;
use tessel::{Error, Result};

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
    after_help = "Examples:\n  tessel tma --box 64,128 --elem-bytes 2 --swizzle 128B \\\n    \
--expect 'Sw<3,3,3> o ((8,16),(64,1)):((64,512),(1,8192))'\n  \
tessel tma --gmem '(4096,4096):(4096,1)' --elem-bytes 2 \\\n    \
--smem 'Sw<3,3,3> o ((8,16),(64,1)):((64,512),(1,8192))'"
)]
pub struct Args {
    /// Box extents in elements, innermost first (e.g. 64,128)
    #[arg(
        long = "box",
        value_name = "B0,B1,...",
        required_unless_present = "gmem"
    )]
    pub box_dims: Option<String>,
    /// make_tma_copy: the global tensor's layout in elements (with --smem)
    #[arg(long, value_name = "LAYOUT", requires = "smem", conflicts_with_all = ["box_dims", "expect"])]
    pub gmem: Option<String>,
    /// make_tma_copy: one stage of the shared tile (its swizzle is the tensor map's)
    #[arg(long, value_name = "LAYOUT", requires = "gmem")]
    pub smem: Option<String>,
    /// make_tma_copy: the CTA tile (a tiler; default: the shared layout's shape)
    #[arg(long, value_name = "TILER", requires = "gmem")]
    pub tile: Option<String>,
    /// make_tma_copy: SM90_TMA_LOAD, SM90_TMA_LOAD_MULTICAST or SM90_TMA_STORE
    #[arg(
        long,
        value_name = "OP",
        default_value = "SM90_TMA_LOAD",
        requires = "gmem"
    )]
    pub op: String,
    /// make_tma_copy: CTAs of a multicast cluster
    #[arg(long, value_name = "N", default_value_t = 1, requires = "gmem")]
    pub cluster: i64,
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

/// `tessel tma --gmem ... --json`.
#[derive(Debug, Serialize)]
pub struct TmaCopyJson {
    /// The operation.
    pub op: String,
    /// `globalDim`, innermost first.
    pub global_dims: Vec<i64>,
    /// `globalStrides` in bytes (dimensions 1..).
    pub global_strides: Vec<i64>,
    /// `boxDim`, innermost first.
    pub box_dims: Vec<i64>,
    /// `elementStrides`.
    pub element_strides: Vec<i64>,
    /// Always `none`.
    pub interleave: &'static str,
    /// The swizzle mode.
    pub swizzle: String,
    /// For each tensor-map dimension, the flat global modes it covers.
    pub dim_modes: Vec<Vec<usize>>,
    /// For each flat global mode, `[dim, scale]` of the coordinate tensor, or null.
    pub coord_basis: Vec<Option<(usize, i64)>>,
    /// Bytes one box moves.
    pub box_bytes: i64,
    /// The shared layout one box writes.
    pub box_layout: String,
    /// Tiler_MN.
    pub tiler: Vec<i64>,
    /// TiledLayout_TV: (CTA, value) -> tile index.
    pub layout_tv: String,
}

/// Prints the box layout and the comparison, or the derived TMA copy.
pub fn run(args: &Args, out: &mut dyn Write) -> Result<()> {
    if let Some(gmem) = &args.gmem {
        return tma_copy(args, gmem, out);
    }
    let dims = parse_dims("--box", args.box_dims.as_deref().unwrap_or_default())?;
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

/// `tessel tma --gmem G --smem S`: CuTe's make_tma_copy.
fn tma_copy(args: &Args, gmem: &str, out: &mut dyn Write) -> Result<()> {
    let op = TmaOp::from_name(&args.op).ok_or_else(|| {
        Error::invalid(format!(
            "--op '{}' is not SM90_TMA_LOAD, SM90_TMA_LOAD_MULTICAST or SM90_TMA_STORE",
            args.op
        ))
    })?;
    let g = values::layout("--gmem", gmem)?;
    let s = values::composed("--smem", args.smem.as_deref().unwrap_or_default())?;
    let tile = match &args.tile {
        Some(text) => Some(
            eval(text)
                .map_err(|e| values::in_option("--tile", e))?
                .as_tiler()
                .ok_or_else(|| Error::invalid(format!("--tile '{text}' is not a tiler")))??,
        ),
        None => None,
    };
    let copy = make_tma_copy(op, &g, &s, tile.as_ref(), args.cluster, 8 * args.elem_bytes)?;
    let tma = copy
        .atom()
        .atom()
        .tma()
        .ok_or_else(|| Error::invalid("the TMA copy has no tensor map"))?;
    let map = tma.tensor_map();
    let box_layout = map.box_layout()?.to_string();
    if args.json {
        return print_json(
            out,
            &TmaCopyJson {
                op: op.name().to_string(),
                global_dims: map.dims().to_vec(),
                global_strides: map.strides().to_vec(),
                box_dims: map.box_dims().to_vec(),
                element_strides: map.element_strides().to_vec(),
                interleave: "none",
                swizzle: map.swizzle().to_string(),
                dim_modes: tma.dim_modes().to_vec(),
                coord_basis: tma.coord_basis().to_vec(),
                box_bytes: map.box_bytes(),
                box_layout,
                tiler: copy.tiler().to_vec(),
                layout_tv: copy.layout_tv().to_string(),
            },
        );
    }
    let list = |v: &[i64]| {
        let parts: Vec<String> = v.iter().map(i64::to_string).collect();
        format!("({})", parts.join(","))
    };
    let dim_modes: Vec<String> = tma.dim_modes().iter().map(|m| format!("{m:?}")).collect();
    let basis: Vec<String> = tma
        .coord_basis()
        .iter()
        .map(|b| b.map_or_else(|| "_".into(), |(d, k)| format!("{k}@{d}")))
        .collect();
    let text = format!(
        "{} of {gmem} into {s}, checked on every element\n  \
         globalDim:      {}\n  \
         globalStrides:  {} bytes\n  \
         boxDim:         {} ({} bytes)\n  \
         elementStrides: {}\n  \
         interleave:     none\n  \
         swizzle:        {}\n  \
         dims of modes:  {}\n  \
         coord bases:    ({})\n  \
         box layout:     {box_layout}\n  \
         Tiler_MN:       {}\n  \
         TiledLayout_TV: {}\n",
        op.name(),
        list(map.dims()),
        list(map.strides()),
        list(map.box_dims()),
        map.box_bytes(),
        list(map.element_strides()),
        map.swizzle(),
        dim_modes.join(" "),
        basis.join(","),
        list(copy.tiler()),
        copy.layout_tv()
    );
    print(out, &text)
}
