//! `tessel swizzle B M S [--rows R --cols C]`: the permutation table of a swizzle.

use std::io::Write;

use tessel::render::Table;
use tessel::{ComposedLayout, Error, IntTuple, Layout, Result, Swizzle};

use super::flags::Flags;
use super::{Command, print};

pub const COMMAND: Command = Command {
    name: "swizzle",
    usage: "B M S [--rows R --cols C]",
    summary: "print the permutation table of Sw<B,M,S>",
    help: "Prints Sw<B,M,S>(x) for x = 0, 1, ... laid out row-major in R rows of C columns: cell\n\
        (r, c) holds the image of r*C + c. By default the B highest bits the swizzle touches pick\n\
        the row (R = 2^B) and the bits below them the column (C = 2^(M+|S|)), so the whole\n\
        permuted block is shown. Example: tessel swizzle 3 0 3",
    run,
};

fn run(args: &[String], out: &mut dyn Write) -> Result<()> {
    let flags = Flags::parse("swizzle", args, &["rows", "cols"], &[])?;
    let numbers = flags
        .positional()
        .iter()
        .map(|w| {
            w.parse::<i64>().map_err(|_| {
                Error::invalid(format!("swizzle takes three integers B M S, got '{w}'"))
            })
        })
        .collect::<Result<Vec<i64>>>()?;
    let [b, m, s] = numbers[..] else {
        return Err(Error::invalid(format!(
            "swizzle takes three integers B M S, got {} (e.g. tessel swizzle 3 3 3)",
            numbers.len()
        )));
    };
    let sw = Swizzle::new(b, m, s)?;
    let span = sw.bit_span().max(1);
    let default_rows = 1i64 << sw.bits().min(span);
    let rows = flags.int("rows")?.unwrap_or(default_rows);
    let default_cols = (1i64 << span.min(40)) / default_rows.max(1);
    let cols = flags.int("cols")?.unwrap_or(default_cols);
    if rows < 1 || cols < 1 {
        return Err(Error::invalid(format!(
            "swizzle: --rows and --cols must be positive, got {rows} and {cols}"
        )));
    }
    if rows
        .checked_mul(cols)
        .is_none_or(|n| n > tessel::render::MAX_CELLS)
    {
        return Err(Error::invalid(format!(
            "swizzle: a {rows}x{cols} table is larger than {} cells; choose --rows and --cols",
            tessel::render::MAX_CELLS
        )));
    }
    let grid = Layout::row_major(&IntTuple::from_ints([rows, cols]))?;
    let table = Table::of_composed(&ComposedLayout::new(vec![sw], 0, grid))?;
    print(
        out,
        &format!("{sw} on {rows}x{cols} (row-major input x = r*{cols} + c)\n"),
    )?;
    print(out, &table.render())
}
