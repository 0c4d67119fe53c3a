//! `tessel synth`: search the swizzle that makes a shared-memory tile conflict-free.

use std::io::Write;

use tessel::bank::BankReport;
use tessel::expr::eval;
use tessel::synth::{Access, Options, synthesize};
use tessel::{Error, Layout, Result};

use super::flags::Flags;
use super::{Command, print};

pub const COMMAND: Command = Command {
    name: "synth",
    usage: "--tile 'LAYOUT' --elem-bytes N --access 'OP TV' [--access ...] [--layers K] [--json]",
    summary: "find the swizzle (one or two layers) that makes every access conflict-free",
    help: "Searches Sw<B,M,S> and chains of two that keep the tile a bijection and minimise the\n\
        total wavefronts of the accesses (see 'tessel help conflicts' for OP and TV), then proves\n\
        the winner with the bank analyzer. Ties go to fewer layers, then fewer swizzle bits.\n\n\
        --tile 'LAYOUT'   the unswizzled shared-memory tile: domain index -> element offset\n\
        --elem-bytes N    element size in bytes\n\
        --access 'OP TV'  an instruction and its TV layout; repeat for several access patterns\n\
        --layers K        longest chain to try: 0, 1 or 2 (default 2)\n\
        --json            print {\"layout\":\"...\",\"wavefronts\":W,\"ideal\":I,\"excess\":E}\n\n\
        Example (the 32x32 fp32 transpose tile, row writes and column reads):\n\n\
        \x20 tessel synth --tile '(32,32):(32,1)' --elem-bytes 4 \\\n\
        \x20   --access 'sts.32 (32,1,32):(32,0,1)' --access 'lds.32 (32,1,32):(1,0,32)'",
    run,
};

/// Parses `OP TV`.
fn access(text: &str) -> Result<Access> {
    let (op, tv) = text.trim().split_once(char::is_whitespace).ok_or_else(|| {
        Error::invalid(format!(
            "--access '{text}' needs an instruction and a TV layout, e.g. 'lds.32 32:1'"
        ))
    })?;
    let tv: Layout = eval(tv)
        .map_err(|e| e.context(format!("--access '{text}'")))?
        .as_layout()
        .ok_or_else(|| Error::invalid(format!("--access '{text}': TV is not a layout")))??;
    Ok(Access::new(op.parse()?, tv))
}

fn run(args: &[String], out: &mut dyn Write) -> Result<()> {
    let flags = Flags::parse_repeating(
        "synth",
        args,
        &["tile", "elem-bytes", "access", "layers"],
        &["access"],
        &["json"],
    )?;
    if let Some(word) = flags.positional().first() {
        return Err(Error::invalid(format!(
            "synth takes only options, got '{word}' (see 'tessel help synth')"
        )));
    }
    let tile_text = flags.required("tile")?;
    let tile = eval(tile_text)
        .map_err(|e| e.context("--tile"))?
        .as_layout()
        .ok_or_else(|| Error::invalid(format!("--tile '{tile_text}' is not a plain layout")))??;
    let elem_bytes = flags
        .int("elem-bytes")?
        .ok_or_else(|| Error::invalid("synth needs --elem-bytes (see 'tessel help synth')"))?;
    let accesses = flags
        .values("access")
        .into_iter()
        .map(access)
        .collect::<Result<Vec<_>>>()?;
    if accesses.is_empty() {
        return Err(Error::invalid("synth needs at least one --access 'OP TV'"));
    }
    let max_layers = match flags.int("layers")? {
        None => 2,
        Some(k @ 0..=2) => k as usize,
        Some(k) => {
            return Err(Error::invalid(format!(
                "synth: --layers takes 0, 1 or 2, got {k}"
            )));
        }
    };
    let found = synthesize(&tile, elem_bytes, &accesses, Options { max_layers })?;
    let total = found.total();
    if flags.switch("json") {
        return print(
            out,
            &format!(
                "{{\"layout\":\"{}\",\"wavefronts\":{},\"ideal\":{},\"excess\":{}}}\n",
                found.layout, total.wavefronts, total.ideal, total.excess
            ),
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
