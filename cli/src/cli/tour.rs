//! `tessel tour`: a guided tour of the algebra, every example computed live by the evaluator.
//!
//! The tour is a list of [`Chapter`]s; each chapter is a list of [`Step`]s. Another part of the
//! tool adds a chapter by defining a `Chapter` constant and listing it in [`chapters`].

use std::io::Write;

use serde::Serialize;
use tessel_kit::expr::eval;
use tessel_kit::{Error, Result};

use super::json::print_json;
use super::print;
use super::show::table;

/// Options of `tessel tour`.
#[derive(Debug, clap::Args)]
#[command(
    about = "A guided tour of the layout algebra with live examples",
    long_about = "Prints every chapter of the tour, or only chapter CHAPTER (a number from \
--list). Every result shown is computed by 'tessel eval' / 'tessel show' / 'tessel conflicts' as \
the tour runs."
)]
pub struct Args {
    /// Print only this chapter
    #[arg(
        value_name = "CHAPTER",
        conflicts_with = "list",
        allow_negative_numbers = true
    )]
    pub chapter: Option<usize>,
    /// List the chapters
    #[arg(long)]
    pub list: bool,
    /// Print the chapters (or the list) as JSON (schema: docs/cli.md)
    #[arg(long)]
    pub json: bool,
}

/// `tessel tour --list --json`: the chapters.
#[derive(Debug, Serialize)]
pub struct ListJson {
    /// Every chapter, in order.
    pub chapters: Vec<ChapterTitle>,
}

/// A chapter's number and title.
#[derive(Debug, Serialize)]
pub struct ChapterTitle {
    /// The number `tessel tour N` takes.
    pub number: usize,
    /// The title.
    pub title: String,
}

/// `tessel tour [N] --json`: the chapters with their computed steps.
#[derive(Debug, Serialize)]
pub struct TourJson {
    /// The chapters shown.
    pub chapters: Vec<ChapterJson>,
}

/// One chapter of `tour --json`.
#[derive(Debug, Serialize)]
pub struct ChapterJson {
    /// The number `tessel tour N` takes.
    pub number: usize,
    /// The title.
    pub title: String,
    /// The introduction.
    pub intro: String,
    /// The examples.
    pub steps: Vec<StepJson>,
}

/// One example of `tour --json`.
#[derive(Debug, Serialize)]
pub struct StepJson {
    /// What the example shows.
    pub note: String,
    /// The command line that computes it (`tessel eval '...'`).
    pub command: String,
    /// What that command prints (an error line for a rejected expression).
    pub output: String,
}

/// What a step does with its expression.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Action {
    /// `tessel eval`: print the value.
    Eval,
    /// `tessel show`: print the table.
    Show,
    /// `tessel eval` of an expression that must be rejected: print the error.
    Reject,
    /// `tessel conflicts`: `expr` is `SMEM | ELEM_BYTES | OP | TV`.
    Conflicts,
}

/// One example: a note saying what it shows, then the command and its live output.
#[derive(Clone, Copy, Debug)]
pub struct Step {
    /// What to do with `expr`.
    pub action: Action,
    /// The expression.
    pub expr: &'static str,
    /// One line explaining the result.
    pub note: &'static str,
}

/// A titled group of steps.
#[derive(Clone, Copy, Debug)]
pub struct Chapter {
    /// The chapter title.
    pub title: &'static str,
    /// A short introduction.
    pub intro: &'static str,
    /// The examples.
    pub steps: &'static [Step],
}

const fn eval_step(expr: &'static str, note: &'static str) -> Step {
    Step {
        action: Action::Eval,
        expr,
        note,
    }
}

const fn show_step(expr: &'static str, note: &'static str) -> Step {
    Step {
        action: Action::Show,
        expr,
        note,
    }
}

const fn reject_step(expr: &'static str, note: &'static str) -> Step {
    Step {
        action: Action::Reject,
        expr,
        note,
    }
}

/// Every chapter, in order. Add a chapter with one line here.
pub fn chapters() -> Vec<Chapter> {
    vec![
        LAYOUTS,
        COALESCE,
        COMPOSITION,
        COMPLEMENT,
        DIVIDE,
        PRODUCT,
        INVERSE,
        SWIZZLE,
        super::conflicts::CHAPTER,
        super::tour_atoms::CHAPTER,
        super::tour_mma::CHAPTER,
    ]
}

const LAYOUTS: Chapter = Chapter {
    title: "Layouts and coordinates",
    intro: "A layout Shape:Stride maps coordinates to offsets. Coordinates are colexicographic:\n\
        the first mode varies fastest. A layout takes 1-D, flat or nested coordinates.",
    steps: &[
        eval_step(
            "(4,(2,3)):(1,(8,16))",
            "a rank-2 layout whose second mode is itself (2,3):(8,16)",
        ),
        eval_step("size((4,(2,3)):(1,(8,16)))", "24 coordinates: 4 * 2 * 3"),
        eval_step(
            "cosize((4,(2,3)):(1,(8,16)))",
            "one past the largest offset 3 + 8 + 2*16 = 43",
        ),
        eval_step("rank((4,(2,3)):(1,(8,16)))", "two top-level modes"),
        eval_step(
            "depth((4,(2,3)):(1,(8,16)))",
            "nested one level deeper than a flat layout",
        ),
        eval_step(
            "at((4,(2,3)):(1,(8,16)), 5)",
            "1-D index 5 is coordinate (1,(1,0)): 1 + 8",
        ),
        eval_step(
            "at((4,(2,3)):(1,(8,16)), (1,3))",
            "flat coordinate (1,3) splits 3 as (1,1): 1 + 8 + 16",
        ),
        eval_step(
            "at((4,(2,3)):(1,(8,16)), (1,(1,1)))",
            "the same point as a nested coordinate",
        ),
        show_step(
            "(4,8):(8,1)",
            "row-major 4x8: rows are mode 0, columns mode 1",
        ),
        eval_step(
            "coalesce((4,8))",
            "a bare shape where a layout is expected is compact column-major: (4,8):(1,4) is 32:1",
        ),
        eval_step(
            "at(((4,8),(2,2)):((32,1),(16,8)), (1,0))",
            "the SM80 16x8 accumulator TV layout: thread 1's first value is (m,n) = (0,2)",
        ),
        reject_step(
            "(4,8):(1,4,2)",
            "shape and stride must have the same nesting",
        ),
    ],
};

const COALESCE: Chapter = Chapter {
    title: "Coalesce",
    intro: "coalesce keeps the function from 1-D index to offset and merges modes where it can.",
    steps: &[
        eval_step(
            "coalesce((2,(1,6)):(1,(6,2)))",
            "size-1 modes vanish and 2:1 ++ 6:2 is one mode 12:1",
        ),
        eval_step(
            "coalesce((2,(1,6)):(1,(6,2)), (1,1))",
            "with a profile, each top-level mode is coalesced on its own",
        ),
        eval_step(
            "filter((4,2):(1,0))",
            "filter also drops stride-0 (broadcast) modes",
        ),
    ],
};

const COMPOSITION: Chapter = Chapter {
    title: "Composition",
    intro: "A o B is the layout R with R(c) = A(B(c)) for every c in B's domain. tessel checks\n\
        CuTe's divisibility conditions and rejects compositions it cannot express exactly.",
    steps: &[
        eval_step(
            "(6,2):(8,2) o (4,3):(3,1)",
            "the example from the CuTe documentation",
        ),
        eval_step(
            "20:2 o (5,4):(4,1)",
            "B reshapes A: a 5x4 row-major view of a strided vector",
        ),
        eval_step(
            "(4,6,8,10):(2,3,5,7) o 6:12",
            "the stride 12 skips the 4- and the 3-mode",
        ),
        eval_step(
            "composition((12,(4,8)):(59,(13,1)), [3:4, 8:2])",
            "a by-mode tiler composes each mode with its own layout",
        ),
        eval_step(
            "composition((12,(4,8)):(59,(13,1)), (3,8))",
            "a shape as tiler means 3:1 and 8:1 per mode",
        ),
        reject_step(
            "composition((4,6,8):(2,3,5), 6:3)",
            "CuTe C++ returns (2,3):(6,3) here, wrong at index 2 (CUTLASS #3177)",
        ),
    ],
};

const COMPLEMENT: Chapter = Chapter {
    title: "Complement",
    intro: "complement(A, M) is the ordered layout that, next to A, fills 0..M with distinct offsets.",
    steps: &[
        eval_step("complement(4:1, 24)", "4:1 repeated 6 times"),
        eval_step("complement(6:4, 24)", "fills the holes of 6:4"),
        eval_step(
            "complement(4:2, 24)",
            "first the hole 2:1, then 3 repeats at 8",
        ),
        eval_step(
            "complement((2,4):(1,6), 24)",
            "((2,4),3):((1,6),2) covers 0..24 exactly once",
        ),
        eval_step(
            "complement((2,2):(1,6), 24)",
            "the last example of the CuTe documentation",
        ),
    ],
};

const DIVIDE: Chapter = Chapter {
    title: "Divides",
    intro: "logical_divide(A, B) = A o (B, complement(B, size A)): mode 0 is the tile B picks out,\n\
        mode 1 enumerates the tiles. zipped/tiled/flat_divide regroup the same modes.",
    steps: &[
        eval_step(
            "logical_divide((4,2,3):(2,1,8), 4:2)",
            "tiles of 4 elements at stride 2 in a 24-element layout",
        ),
        eval_step(
            "logical_divide((12,(4,8)):(59,(13,1)), [3:4, 8:2])",
            "a by-mode tiler divides each mode",
        ),
        eval_step(
            "zipped_divide((8,8):(1,8), (4,4))",
            "4x4 tiles of an 8x8 matrix: (tile, grid of tiles)",
        ),
        eval_step(
            "tiled_divide((8,8):(1,8), (4,4))",
            "the same with the grid of tiles spread over modes 1 and 2",
        ),
        eval_step(
            "flat_divide((8,8):(1,8), (4,4))",
            "tile modes first, then grid modes, all flat",
        ),
        show_step(
            "zipped_divide((4,4):(1,4), (2,2))",
            "each column is one 2x2 tile of a 4x4 matrix, each row one position in the tiles",
        ),
    ],
};

const PRODUCT: Chapter = Chapter {
    title: "Products",
    intro: "logical_product(A, B) = (A, complement(A, size(A)*cosize(B)) o B): B's arrangement of\n\
        copies of A. blocked_product and raked_product pair up the modes of A and B.",
    steps: &[
        eval_step(
            "logical_product((2,2):(4,1), 6:1)",
            "six copies of a 2x2 tile",
        ),
        eval_step(
            "blocked_product((2,5):(5,1), (3,4):(1,3))",
            "a 2x5 row-major block in a 3x4 arrangement",
        ),
        eval_step(
            "raked_product((2,5):(5,1), (3,4):(1,3))",
            "the same elements, interleaved instead of blocked",
        ),
        show_step(
            "blocked_product((2,2):(1,2), (2,3):(1,2))",
            "a 2x2 tile (offsets 0-3 top left) repeated as a 2x3 grid of blocks",
        ),
        show_step(
            "raked_product((2,2):(1,2), (2,3):(1,2))",
            "the tile's elements 0-3 now sit 2 rows and 3 columns apart",
        ),
    ],
};

const INVERSE: Chapter = Chapter {
    title: "Inverses",
    intro: "right_inverse(L) is R with L(R(i)) = i; left_inverse(L) is R with R(L(i)) = i.",
    steps: &[
        eval_step(
            "right_inverse((2,4,6):(4,1,8))",
            "offsets back to coordinates",
        ),
        eval_step(
            "coalesce((2,4,6):(4,1,8) o right_inverse((2,4,6):(4,1,8)))",
            "L o R is the identity 48:1",
        ),
        eval_step(
            "coalesce(left_inverse((2,4,6):(4,1,8)) o (2,4,6):(4,1,8))",
            "R o L is the identity 48:1",
        ),
        eval_step(
            "is_bijective((2,4,6):(4,1,8))",
            "every offset 0..48 is hit exactly once",
        ),
        eval_step(
            "is_injective(4:0)",
            "a broadcast mode maps four coordinates to one offset",
        ),
    ],
};

const SWIZZLE: Chapter = Chapter {
    title: "Swizzled layouts",
    intro: "Sw<B,M,S> XORs the B bits above M+S into the B bits above M. Sw o offset o L applies\n\
        the layout, adds the offset, then swizzles.",
    steps: &[
        eval_step(
            "Sw<3,3,3> o (8,64):(64,1)",
            "the classic 128-byte swizzle of a row-major 8x64 fp16 tile",
        ),
        eval_step(
            "at(Sw<3,3,3> o (8,64):(64,1), (1,0))",
            "row 1 flips chunk bit 3: 64 becomes 72",
        ),
        eval_step(
            "at(Sw<3,3,3> o (8,64):(64,1), (7,63))",
            "row 7, column 63: 511 becomes 455",
        ),
        show_step(
            "Sw<3,0,3> o (8,8):(8,1)",
            "bits 3-5 (the row) flip bits 0-2 (the column): cell (r,c) holds 8r + (c XOR r)",
        ),
    ],
};

/// Prints the tour, one chapter, or the list.
pub fn run(args: &Args, out: &mut dyn Write) -> Result<()> {
    let chapters = chapters();
    if args.list {
        if args.json {
            let chapters = chapters
                .iter()
                .enumerate()
                .map(|(i, c)| ChapterTitle {
                    number: i + 1,
                    title: c.title.to_string(),
                })
                .collect();
            return print_json(out, &ListJson { chapters });
        }
        let mut text = String::new();
        for (i, c) in chapters.iter().enumerate() {
            text.push_str(&format!("{:>2}. {}\n", i + 1, c.title));
        }
        return print(out, &text);
    }
    let selected: Vec<(usize, &Chapter)> = match args.chapter {
        None => chapters
            .iter()
            .enumerate()
            .map(|(i, c)| (i + 1, c))
            .collect(),
        Some(k) if (1..=chapters.len()).contains(&k) => vec![(k, &chapters[k - 1])],
        Some(k) => {
            return Err(Error::invalid(format!(
                "tour takes a chapter number from 1 to {} or --list, got '{k}'",
                chapters.len()
            )));
        }
    };
    if args.json {
        let chapters = selected
            .iter()
            .map(|&(number, c)| chapter_json(number, c))
            .collect();
        return print_json(out, &TourJson { chapters });
    }
    if args.chapter.is_none() {
        print(
            out,
            "A tour of tessel's layout algebra. Every result below is computed as you read it.\n\
             Run any line yourself: tessel eval '...' or tessel show '...'.\n\n",
        )?;
    }
    for (number, c) in selected {
        print(out, &render_chapter(number, c))?;
    }
    Ok(())
}

/// A chapter with its steps computed, for `--json`.
fn chapter_json(number: usize, chapter: &Chapter) -> ChapterJson {
    let steps = chapter
        .steps
        .iter()
        .map(|step| {
            // The rendered step is "  # NOTE", "  $ COMMAND", then the output lines.
            let text = render_step(step);
            let mut lines = text.lines().map(|l| l.strip_prefix("  ").unwrap_or(l));
            let note = lines
                .next()
                .unwrap_or("")
                .trim_start_matches("# ")
                .to_string();
            let command = lines
                .next()
                .unwrap_or("")
                .trim_start_matches("$ ")
                .to_string();
            let output: Vec<&str> = lines.collect();
            StepJson {
                note,
                command,
                output: output.join("\n"),
            }
        })
        .collect();
    ChapterJson {
        number,
        title: chapter.title.to_string(),
        intro: chapter.intro.to_string(),
        steps,
    }
}

/// The marker printed in front of a result that is not what the tour promises (a bug).
pub const UNEXPECTED: &str = "!! unexpected";

fn render_chapter(number: usize, chapter: &Chapter) -> String {
    let heading = format!("{number}. {}", chapter.title);
    let mut text = format!(
        "{heading}\n{}\n\n{}\n\n",
        "=".repeat(heading.len()),
        chapter.intro
    );
    for step in chapter.steps {
        text.push_str(&render_step(step));
        text.push('\n');
    }
    text
}

fn render_step(step: &Step) -> String {
    let command = match step.action {
        Action::Show => "show",
        Action::Eval | Action::Reject => "eval",
        Action::Conflicts => return super::conflicts::render_tour_step(step),
    };
    let mut text = format!("  # {}\n  $ tessel {command} '{}'\n", step.note, step.expr);
    let outcome = eval(step.expr).and_then(|v| match step.action {
        Action::Show => table(&v).map(|t| t.render()),
        Action::Eval | Action::Reject | Action::Conflicts => Ok(format!("{v}\n")),
    });
    let result = match (step.action, outcome) {
        (Action::Reject, Ok(v)) => format!("{UNEXPECTED} success: {v}"),
        (Action::Reject, Err(e)) => format!("error: {e}\n"),
        (_, Ok(v)) => v,
        (_, Err(e)) => format!("{UNEXPECTED} error: {e}\n"),
    };
    for line in result.lines() {
        text.push_str("  ");
        text.push_str(line);
        text.push('\n');
    }
    text
}
