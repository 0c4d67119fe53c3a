//! `tessel gmma`: the wgmma matrix descriptor of a shared-memory operand layout, or why none
//! exists; `--atom` prints CuTe's GMMA layout atoms (tiled with `--tile`).

use std::io::Write;

use serde::Serialize;
use tessel_kit::gmma::{GmmaDescriptor, Major, SwizzleMode, gmma_descriptor, smem_atom};
use tessel_kit::{ComposedLayout, Error, IntTuple, Result};

use super::json::print_json;
use super::{print, values};

/// Options of `tessel gmma`.
#[derive(Debug, clap::Args)]
#[command(
    about = "Derive the wgmma descriptor of a shared-memory operand layout, or print a GMMA atom",
    long_about = "LAYOUT is one wgmma operand in shared memory: mode 0 is M (or N), mode 1 is K \
spanning 32 bytes (16 fp16/bf16, 8 tf32, 32 8-bit elements), mapping (mn,k) to an element offset, \
maybe swizzled. Prints the descriptor's fields (PTX ISA matrix descriptor: start address, leading \
and stride byte offsets, base offset, layout type) after checking every element against the \
canonical layout those fields define; a layout no descriptor expresses is an error naming the \
first element it puts elsewhere.\n\n\
With --atom MODE instead of LAYOUT, prints CuTe's GMMA::Layout_{K,MN}_{INTER,SW32,SW64,SW128}_Atom \
for the element size, tiled to --tile MN,K (tile_to_shape) when given.",
    after_help = "Examples:\n  tessel gmma 'Sw<3,3,3> o ((8,8),16):((64,512),1)' --elem-bytes 2\n  \
tessel gmma --atom 128B --major K --elem-bytes 2 --tile 128,64"
)]
pub struct Args {
    /// The operand layout (quote it for the shell)
    #[arg(
        value_name = "LAYOUT",
        required_unless_present = "atom",
        conflicts_with = "atom"
    )]
    pub layout: Option<String>,
    /// Element size in bytes (1, 2 or 4)
    #[arg(long, value_name = "N", required = true)]
    pub elem_bytes: i64,
    /// K or MN; without it, K-major is tried first, then MN-major
    #[arg(long, value_name = "MAJOR")]
    pub major: Option<String>,
    /// Shared-memory byte address of the layout's offset 0 (not with --atom)
    #[arg(
        long,
        value_name = "BYTES",
        default_value_t = 0,
        conflicts_with = "atom"
    )]
    pub base: i64,
    /// Print a GMMA layout atom of this swizzle mode (none, 32B, 64B, 128B)
    #[arg(long, value_name = "MODE")]
    pub atom: Option<String>,
    /// With --atom: tile the atom to MN,K elements
    // `requires` alone does not refuse it next to LAYOUT (clap skips a requirement that
    // conflicts with a present argument), hence the explicit conflict.
    #[arg(
        long,
        value_name = "MN,K",
        requires = "atom",
        conflicts_with = "layout"
    )]
    pub tile: Option<String>,
    /// Print as JSON (schema: docs/cli.md)
    #[arg(long)]
    pub json: bool,
}

/// `tessel gmma LAYOUT --json`: the descriptor's fields.
#[derive(Debug, Serialize)]
pub struct DescriptorJson {
    /// The operand layout in CuTe notation.
    pub layout: String,
    /// Element size in bytes.
    pub elem_bytes: i64,
    /// `K` or `MN`.
    pub major: String,
    /// `none`, `32B`, `64B` or `128B`.
    pub swizzle: String,
    /// The 2-bit layout-type field (0 none, 1 128B, 2 64B, 3 32B).
    pub layout_type: u64,
    /// Start address in bytes.
    pub start_address: i64,
    /// Leading dimension byte offset in bytes.
    pub leading_byte_offset: i64,
    /// Stride dimension byte offset in bytes.
    pub stride_byte_offset: i64,
    /// The 3-bit base offset.
    pub base_offset: u32,
    /// The 64-bit descriptor, as `0x` and 16 hex digits.
    pub descriptor: String,
}

/// `tessel gmma --atom MODE --json`: the atom (and its tiling).
#[derive(Debug, Serialize)]
pub struct AtomJson {
    /// `K` or `MN`.
    pub major: String,
    /// The swizzle mode.
    pub swizzle: String,
    /// Element size in bytes.
    pub elem_bytes: i64,
    /// The atom in elements.
    pub atom: String,
    /// The atom tiled to `--tile`, or null.
    pub tiled: Option<String>,
}

/// Derives and prints the descriptor, or prints the atom.
pub fn run(args: &Args, out: &mut dyn Write) -> Result<()> {
    let major = args.major.as_deref().map(str::parse::<Major>).transpose()?;
    if let Some(mode) = &args.atom {
        return atom(args, mode.parse()?, major.unwrap_or(Major::K), out);
    }
    if args.base < 0 {
        return Err(Error::invalid(format!(
            "--base takes a shared-memory byte address (at least 0), got {}",
            args.base
        )));
    }
    let text = args.layout.as_deref().unwrap_or_default();
    let layout = values::composed("LAYOUT", text)?;
    let d = gmma_descriptor(&layout, args.elem_bytes, args.base, major)?;
    let bits = d.encode()?;
    if args.json {
        return print_json(out, &descriptor_json(&layout, args.elem_bytes, &d, bits));
    }
    let field = |bytes: i64| bytes >> 4;
    print(
        out,
        &format!(
            "wgmma descriptor of {layout} ({}-byte elements), checked on all {} elements\n  \
             major:               {}\n  \
             swizzle:             {} (layout type {})\n  \
             start address:       {} bytes (field {})\n  \
             leading byte offset: {} bytes (field {})\n  \
             stride byte offset:  {} bytes (field {})\n  \
             base offset:         {}\n  \
             descriptor:          {bits:#018x}\n",
            args.elem_bytes,
            layout.layout().size(),
            d.major,
            d.mode,
            d.mode.descriptor_code(),
            d.start_address,
            field(d.start_address),
            d.leading_byte_offset,
            field(d.leading_byte_offset),
            d.stride_byte_offset,
            field(d.stride_byte_offset),
            d.base_offset,
        ),
    )
}

fn descriptor_json(
    layout: &ComposedLayout,
    elem_bytes: i64,
    d: &GmmaDescriptor,
    bits: u64,
) -> DescriptorJson {
    DescriptorJson {
        layout: layout.to_string(),
        elem_bytes,
        major: d.major.to_string(),
        swizzle: d.mode.to_string(),
        layout_type: d.mode.descriptor_code(),
        start_address: d.start_address,
        leading_byte_offset: d.leading_byte_offset,
        stride_byte_offset: d.stride_byte_offset,
        base_offset: d.base_offset,
        descriptor: format!("{bits:#018x}"),
    }
}

/// `--atom`: the atom and its tiling.
fn atom(args: &Args, mode: SwizzleMode, major: Major, out: &mut dyn Write) -> Result<()> {
    let atom = smem_atom(major, mode, 8 * args.elem_bytes)?;
    let tiled = match &args.tile {
        Some(text) => {
            let dims = parse_dims("--tile", text)?;
            if dims.len() != 2 {
                return Err(Error::invalid(format!(
                    "--tile takes MN,K (two extents), got '{text}'"
                )));
            }
            Some(atom.tile_to_shape(&IntTuple::from_ints(dims))?)
        }
        None => None,
    };
    if args.json {
        return print_json(
            out,
            &AtomJson {
                major: major.to_string(),
                swizzle: mode.to_string(),
                elem_bytes: args.elem_bytes,
                atom: atom.to_string(),
                tiled: tiled.as_ref().map(ToString::to_string),
            },
        );
    }
    let mut text = format!(
        "{major}-major {mode} GMMA atom of {}-byte elements: {atom}\n",
        args.elem_bytes
    );
    if let Some(t) = tiled {
        text += &format!(
            "tiled to {}: {t}\n",
            args.tile.as_deref().unwrap_or_default()
        );
    }
    print(out, &text)
}

/// Comma-separated positive extents, e.g. `64,128`.
pub fn parse_dims(flag: &str, text: &str) -> Result<Vec<i64>> {
    text.split(',')
        .map(|part| {
            part.trim()
                .parse::<i64>()
                .ok()
                .filter(|&v| v >= 1)
                .ok_or_else(|| {
                    Error::invalid(format!(
                        "{flag} takes positive integers separated by commas, got '{text}'"
                    ))
                })
        })
        .collect()
}
