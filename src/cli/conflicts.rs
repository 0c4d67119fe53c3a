//! `tessel conflicts`: the shared-memory bank model of `docs/bank-model.md` for one access.

use std::io::Write;

use serde::Serialize;
use tessel::Result;
use tessel::bank::{SmemOp, analyze};

use super::json::{Report, print_json};
use super::tour::{Chapter, Step};
use super::{print, values};

/// Options of `tessel conflicts`.
#[derive(Debug, clap::Args)]
#[command(
    about = "Count shared-memory wavefronts and bank conflicts of a warp access",
    long_about = "Runs the bank model (32 banks x 4 bytes, broadcast of identical words) for one \
or more warp-wide instructions and prints wavefronts, the ideal and the excess (conflicts). A \
vector that is not contiguous and aligned after the layout is an error.",
    after_help = "Example:\n  tessel conflicts --smem '(32,32):(32,1)' --elem-bytes 4 --op lds.32 --access '32:1'"
)]
pub struct Args {
    /// Shared-memory layout, maybe swizzled: domain index -> element offset
    #[arg(long, value_name = "LAYOUT", required = true)]
    pub smem: String,
    /// Element size in bytes (a power of two)
    #[arg(long, value_name = "N", required = true)]
    pub elem_bytes: i64,
    /// lds.8 lds.16 lds.32 lds.64 lds.128 sts.8 ... sts.128 ldsm.x1 ldsm.x2 ldsm.x4 stsm.x1
    /// stsm.x2 stsm.x4 (ldsm/stsm optionally with .trans)
    #[arg(long, value_name = "OP", required = true)]
    pub op: String,
    /// (lane, value, instruction...) -> index into the smem domain. lds/sts: 32 lanes, each
    /// lane's values are its one vector. ldsm/stsm: lane l gives row l%8 of matrix l/8, its
    /// values are the row's 16 bytes. Further modes enumerate instructions; their wavefronts add
    /// up
    #[arg(long, value_name = "TV", required = true)]
    pub access: String,
    /// Print the result as JSON (schema: docs/cli.md)
    #[arg(long)]
    pub json: bool,
}

/// `tessel conflicts --json`: the request (normalised) and the bank report.
#[derive(Debug, Serialize)]
pub struct ConflictsJson {
    /// The shared-memory layout in CuTe notation.
    pub smem: String,
    /// Element size in bytes.
    pub elem_bytes: i64,
    /// The instruction.
    pub op: String,
    /// The TV layout in CuTe notation.
    pub access: String,
    /// Wavefronts the instructions take.
    pub wavefronts: i64,
    /// Wavefronts without conflicts.
    pub ideal: i64,
    /// `wavefronts - ideal`.
    pub excess: i64,
}

/// Analyzes and prints.
pub fn run(args: &Args, out: &mut dyn Write) -> Result<()> {
    let smem = values::composed("--smem", &args.smem)?;
    let op: SmemOp = args.op.parse()?;
    let access = values::layout("--access", &args.access)?;
    let report = analyze(&smem, args.elem_bytes, op, &access)?;
    if args.json {
        let r = Report::from(report);
        return print_json(
            out,
            &ConflictsJson {
                smem: smem.to_string(),
                elem_bytes: args.elem_bytes,
                op: op.to_string(),
                access: access.to_string(),
                wavefronts: r.wavefronts,
                ideal: r.ideal,
                excess: r.excess,
            },
        );
    }
    print(out, &format!("{report}\n"))
}

/// A tour step running `conflicts`: `expr` is `SMEM | ELEM_BYTES | OP | TV`.
pub fn render_tour_step(step: &Step) -> String {
    let parts: Vec<&str> = step.expr.split(" | ").collect();
    let [smem, elem, op, tv] = parts[..] else {
        return format!(
            "  {} bad tour step {}\n",
            super::tour::UNEXPECTED,
            step.expr
        );
    };
    let mut text = format!(
        "  # {}\n  $ tessel conflicts --smem '{smem}' --elem-bytes {elem} --op {op} --access '{tv}'\n",
        step.note
    );
    let Ok(elem_bytes) = elem.parse() else {
        return format!("  {} bad element size {elem}\n", super::tour::UNEXPECTED);
    };
    let args = Args {
        smem: smem.to_string(),
        elem_bytes,
        op: op.to_string(),
        access: tv.to_string(),
        json: false,
    };
    // The step runs the subcommand itself, so the tour shows exactly what `tessel conflicts` prints.
    let mut printed = Vec::new();
    match run(&args, &mut printed) {
        Ok(()) => text.push_str(&format!("  {}", String::from_utf8_lossy(&printed))),
        Err(e) => text.push_str(&format!("  {} error: {e}\n", super::tour::UNEXPECTED)),
    }
    text
}

const fn conflicts_step(expr: &'static str, note: &'static str) -> Step {
    Step {
        action: super::tour::Action::Conflicts,
        expr,
        note,
    }
}

/// The tour chapter on bank conflicts, verification and synthesis.
pub const CHAPTER: Chapter = Chapter {
    title: "Bank conflicts, verified swizzles",
    intro: "Shared memory has 32 banks of 4 bytes. One warp instruction takes as many wavefronts as\n\
        the busiest bank has distinct words (and at least one per 128 bytes requested); ldmatrix\n\
        counts each 8x8 matrix separately. A swizzle must stay a bijection and make every access\n\
        conflict-free: tessel checks both.",
    steps: &[
        conflicts_step(
            "(32,32):(32,1) | 4 | lds.32 | 32:1",
            "a warp reads column 0 of a row-major 32x32 fp32 tile: all 32 words in bank 0",
        ),
        conflicts_step(
            "(32,32):(33,1) | 4 | lds.32 | 32:1",
            "padding each row by one word spreads the column over all banks",
        ),
        conflicts_step(
            "Sw<5,0,5> o (32,32):(32,1) | 4 | lds.32 | 32:1",
            "so does XORing the column bits with the row bits, without wasting memory",
        ),
        Step {
            action: super::tour::Action::Eval,
            expr: "is_bijective(Sw<5,0,5> o (32,32):(32,1))",
            note: "and the swizzled tile still holds every element exactly once (GF(2) rank)",
        },
        conflicts_step(
            "(8,64):(64,1) | 2 | ldsm.x1 | (8,8):(1,8)",
            "ldmatrix of 8 fp16 rows at a 128-byte pitch: 8 wavefronts instead of 1",
        ),
        conflicts_step(
            "Sw<3,3,3> o (8,64):(64,1) | 2 | ldsm.x1 | (8,8):(1,8)",
            "Sw<3,3,3> XORs the 16-byte chunk index with the row: the ideal",
        ),
        conflicts_step(
            "(16,256):(256,1) | 2 | ldsm.x4 | ((8,2,2),8,16):((256,2048,128),16,1)",
            "each 512-byte row of a 16x256 fp16 tile read as a 16x16 block: 2 rows share a bank",
        ),
        conflicts_step(
            "Sw<3,3,5> o (16,256):(256,1) | 2 | ldsm.x4 | ((8,2,2),8,16):((256,2048,128),16,1)",
            "the chunk-by-row swizzle that fixes 16x16 blocks along the row does not fix that",
        ),
        conflicts_step(
            "Sw<1,3,3> o Sw<3,3,5> o (16,256):(256,1) | 2 | ldsm.x4 | ((8,2,2),8,16):((256,2048,128),16,1)",
            "a second layer (found by tessel synth) flips the chunk by the 128-byte line",
        ),
        conflicts_step(
            "Sw<1,3,3> o Sw<3,3,5> o (16,256):(256,1) | 2 | ldsm.x4 | ((8,2,2),8,16):((1,8,128),16,256)",
            "and the 16x16 blocks along the row stay conflict-free",
        ),
    ],
};
