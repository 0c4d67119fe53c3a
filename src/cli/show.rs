//! `tessel show 'EXPR' [--svg FILE]`: the 2-D table of offsets (CuTe's print_layout).

use std::io::Write;

use tessel::expr::{Value, eval};
use tessel::render::Table;
use tessel::{Error, Result};

use super::{Command, expression, print, svg};

pub const COMMAND: Command = Command {
    name: "show",
    usage: "'EXPR' [--svg FILE]",
    summary: "print the table of offsets of a layout (rows = mode 0, columns = mode 1)",
    help: "Evaluates EXPR (see 'tessel help eval') to a layout of rank 1 or 2 and prints the\n\
        offset of every coordinate: row r, column c holds L(r, c), with hierarchical modes\n\
        indexed by their 1-D index; a rank-1 layout is one column.\n\n\
        --svg FILE       also write the layout as an SVG picture\n\
        --elem-bytes N   colour the picture's cells by shared-memory bank (N-byte elements)\n\
        --tv RxC         draw EXPR as a TV layout over an R x C tile, cells labelled T{t}V{v}",
    run,
};

/// Parsed arguments of `show`.
struct Options {
    expr: String,
    svg: Option<String>,
    picture: svg::SvgOptions,
}

fn options(args: &[String]) -> Result<Options> {
    let mut words = Vec::new();
    let mut svg = None;
    let mut picture = svg::SvgOptions::default();
    let mut it = args.iter();
    while let Some(arg) = it.next() {
        if arg == "--svg" {
            let file = it
                .next()
                .ok_or_else(|| Error::invalid("--svg needs a file name: --svg FILE"))?;
            svg = Some(file.clone());
        } else if let Some(file) = arg.strip_prefix("--svg=") {
            svg = Some(file.to_string());
        } else if picture.take(arg, &mut it)? {
        } else {
            words.push(arg.clone());
        }
    }
    if svg.is_none() && picture.any() {
        return Err(Error::invalid(
            "--elem-bytes and --tv only apply with --svg FILE",
        ));
    }
    Ok(Options {
        expr: expression("show", &words)?,
        svg,
        picture,
    })
}

fn run(args: &[String], out: &mut dyn Write) -> Result<()> {
    let opts = options(args)?;
    let value = eval(&opts.expr)?;
    let table = table(&value)?;
    if let Some(path) = &opts.svg {
        svg::write(&value, path, &opts.picture)?;
    }
    print(out, &table.render())
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
