//! `tessel show 'EXPR' [--svg FILE]`: the 2-D table of offsets (CuTe's print_layout).

use std::io::Write;

use serde::Serialize;
use tessel::expr::{Value, eval};
use tessel::render::Table;
use tessel::{Error, Result};

use super::json::print_json;
use super::{expression, print, svg};

/// Options of `tessel show`.
#[derive(Debug, clap::Args)]
#[command(
    about = "Print the table of offsets of a layout (rows = mode 0, columns = mode 1)",
    long_about = "Evaluates EXPR (see 'tessel help eval') to a layout of rank 1 or 2 and \
prints the offset of every coordinate: row r, column c holds L(r, c), with hierarchical modes \
indexed by their 1-D index; a rank-1 layout is one column.\n\n\
A tiled copy, a tiled MMA or an MMA atom (make_tiled_copy(...), make_tiled_mma(...)) is printed \
on one line; --svg draws it: a tiled copy as its source and destination tiles side by side, a \
tiled MMA as C with A on its left and B above it, every cell labelled T<thread>V<value> and \
coloured by thread."
)]
pub struct Args {
    /// The expression (quote it for the shell)
    #[arg(value_name = "EXPR", allow_negative_numbers = true)]
    pub expr: Vec<String>,
    /// Also write the layout as an SVG picture to FILE
    #[arg(long, value_name = "FILE")]
    pub svg: Option<String>,
    /// Colour the picture's cells by shared-memory bank of N-byte elements, numbered
    #[arg(long, value_name = "N", requires = "svg")]
    pub elem_bytes: Option<i64>,
    /// Draw EXPR as a TV layout over an R x C tile, cells labelled T{t}V{v}
    #[arg(long, value_name = "RxC", requires = "svg", conflicts_with = "elem_bytes", value_parser = svg::parse_tile)]
    pub tv: Option<(i64, i64)>,
    /// Print the table as JSON (schema: docs/cli.md)
    #[arg(long)]
    pub json: bool,
}

/// `tessel show --json`: the layout and its offsets, one array per row.
#[derive(Debug, Serialize)]
pub struct ShowJson {
    /// The layout in CuTe notation (the table's title).
    pub layout: String,
    /// Number of rows (the size of mode 0).
    pub rows: usize,
    /// Number of columns (the size of mode 1; 1 for rank 1).
    pub cols: usize,
    /// `offsets[r][c]` = L(r, c).
    pub offsets: Vec<Vec<i64>>,
}

impl ShowJson {
    /// The JSON of a table.
    pub fn of(table: &Table) -> ShowJson {
        ShowJson {
            layout: table.title().to_string(),
            rows: table.rows(),
            cols: table.cols(),
            offsets: (0..table.rows())
                .map(|r| {
                    (0..table.cols())
                        .map(|c| table.get(r, c).unwrap_or_default())
                        .collect()
                })
                .collect(),
        }
    }
}

/// Evaluates, writes the picture if asked, prints the table.
pub fn run(args: &Args, out: &mut dyn Write) -> Result<()> {
    let text = expression("show", &args.expr)?;
    let value = eval(&text)?;
    // A typed layout is drawn by its values; a coordinate layout has no offsets to draw.
    let value = if value.is_typed() {
        value.to_plain().map_err(|_| {
            Error::invalid(format!(
                "show draws layouts of integer offsets, and {} maps to coordinates",
                value.describe()
            ))
        })?
    } else {
        value
    };
    if svg::is_tiled(&value) {
        return tiled(args, &value, out);
    }
    let table = table(&value)?;
    if let Some(path) = &args.svg {
        let picture = svg::SvgOptions {
            elem_bytes: args.elem_bytes,
            tv_tile: args.tv,
        };
        svg::write(&value, path, &picture)?;
    }
    if args.json {
        return print_json(out, &ShowJson::of(&table));
    }
    print(out, &table.render())
}

/// `show` of a tiled copy, a tiled MMA or an MMA atom: the value on one line (as `eval` prints
/// it) and, with `--svg`, its picture.
fn tiled(args: &Args, value: &Value, out: &mut dyn Write) -> Result<()> {
    if args.json {
        return Err(Error::invalid(format!(
            "show --json prints the table of a layout, not of {}; 'tessel eval --json' gives its \
             facts",
            value.describe()
        )));
    }
    if let Some(path) = &args.svg {
        let picture = svg::SvgOptions {
            elem_bytes: args.elem_bytes,
            tv_tile: args.tv,
        };
        svg::write(value, path, &picture)?;
    }
    print(out, &format!("{value}\n"))
}

/// The table of a layout-like value.
pub fn table(value: &Value) -> Result<Table> {
    match value {
        Value::Composed(c) => Table::of_composed(c),
        other => match other.as_layout() {
            Some(layout) => Table::of_layout(&layout?),
            None => Err(Error::invalid(format!(
                "show needs a layout, got {}",
                value.describe()
            ))),
        },
    }
}
