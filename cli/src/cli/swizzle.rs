//! `tessel swizzle B M S [--rows R --cols C]`: the permutation table of a swizzle, folded into
//! blocks of columns that fit the width of the terminal.

use std::io::{IsTerminal, Write};

use serde::Serialize;
use tessel_kit::render::Table;
use tessel_kit::{ComposedLayout, Error, IntTuple, Layout, Result, Swizzle};

use super::json::print_json;
use super::print;

/// The width tables are folded to when stdout is not a terminal.
pub const DEFAULT_WIDTH: usize = 100;

/// Options of `tessel swizzle`.
#[derive(Debug, clap::Args)]
#[command(
    about = "Print the permutation table of Sw<B,M,S>",
    long_about = "Prints Sw<B,M,S>(x) for x = 0, 1, ... laid out row-major in R rows of C \
columns: cell (r, c) holds the image of r*C + c. By default the B highest bits the swizzle \
touches pick the row (R = 2^B) and the bits below them the column (C = 2^(M+|S|)), so the whole \
permuted block is shown. A table wider than the terminal (100 columns when stdout is not a \
terminal, or --width) is folded into blocks of columns.",
    after_help = "Example:\n  tessel swizzle 3 0 3"
)]
pub struct Args {
    /// Number of bits in the XOR mask
    #[arg(value_name = "B", allow_negative_numbers = true)]
    pub bits: i64,
    /// Number of least-significant bits kept constant
    #[arg(value_name = "M", allow_negative_numbers = true)]
    pub base: i64,
    /// Distance to shift the mask (negative: left)
    #[arg(value_name = "S", allow_negative_numbers = true)]
    pub shift: i64,
    /// Rows of the table (default 2^B)
    #[arg(long, value_name = "R")]
    pub rows: Option<i64>,
    /// Columns of the table (default 2^(M+|S|))
    #[arg(long, value_name = "C")]
    pub cols: Option<i64>,
    /// Fold the table to this many characters per line (default: the terminal's width, or 100)
    #[arg(long, value_name = "W", conflicts_with = "json")]
    pub width: Option<usize>,
    /// Print the table as JSON (schema: docs/cli.md)
    #[arg(long)]
    pub json: bool,
}

/// `tessel swizzle --json`: the swizzle and its table.
#[derive(Debug, Serialize)]
pub struct SwizzleJson {
    /// `Sw<B,M,S>`.
    pub swizzle: String,
    /// B.
    pub bits: u32,
    /// M.
    pub base: u32,
    /// S.
    pub shift: i32,
    /// Rows R.
    pub rows: i64,
    /// Columns C.
    pub cols: i64,
    /// `table[r][c]` = Sw(r*C + c).
    pub table: Vec<Vec<i64>>,
}

/// Builds the table and prints it.
pub fn run(args: &Args, out: &mut dyn Write) -> Result<()> {
    let sw = Swizzle::new(args.bits, args.base, args.shift)?;
    let span = sw.bit_span().max(1);
    let default_rows = 1i64 << sw.bits().min(span);
    let rows = args.rows.unwrap_or(default_rows);
    let default_cols = (1i64 << span.min(40)) / default_rows.max(1);
    let cols = args.cols.unwrap_or(default_cols);
    if rows < 1 || cols < 1 {
        return Err(Error::invalid(format!(
            "swizzle: --rows and --cols must be positive, got {rows} and {cols}"
        )));
    }
    if rows
        .checked_mul(cols)
        .is_none_or(|n| n > tessel_kit::render::MAX_CELLS)
    {
        return Err(Error::invalid(format!(
            "swizzle: a {rows}x{cols} table is larger than {} cells; choose --rows and --cols",
            tessel_kit::render::MAX_CELLS
        )));
    }
    let grid = Layout::row_major(&IntTuple::from_ints([rows, cols]))?;
    let table = Table::of_composed(&ComposedLayout::new(vec![sw], 0, grid))?;
    let cells: Vec<Vec<i64>> = (0..table.rows())
        .map(|r| {
            (0..table.cols())
                .map(|c| table.get(r, c).unwrap_or_default())
                .collect()
        })
        .collect();
    if args.json {
        return print_json(
            out,
            &SwizzleJson {
                swizzle: sw.to_string(),
                bits: sw.bits(),
                base: sw.base(),
                shift: sw.shift(),
                rows,
                cols,
                table: cells,
            },
        );
    }
    let width = args.width.unwrap_or_else(terminal_width);
    print(
        out,
        &format!("{sw} on {rows}x{cols} (row-major input x = r*{cols} + c)\n"),
    )?;
    print(out, &render_folded(&cells, width))
}

/// The width of the terminal on stdout, or [`DEFAULT_WIDTH`].
fn terminal_width() -> usize {
    if !std::io::stdout().is_terminal() {
        return DEFAULT_WIDTH;
    }
    console::Term::stdout()
        .size_checked()
        .map_or(DEFAULT_WIDTH, |(_, cols)| usize::from(cols).max(20))
}

/// The table in boxes like `tessel show`, split into blocks of columns of at most `width`
/// characters per line (at least one column per block), blocks separated by a blank line.
pub fn render_folded(cells: &[Vec<i64>], width: usize) -> String {
    let rows = cells.len();
    let cols = cells.first().map_or(0, Vec::len);
    let digits = |v: i64| v.to_string().len();
    let cell = cells
        .iter()
        .flatten()
        .map(|&v| digits(v))
        .max()
        .unwrap_or(1)
        .max(digits(cols.saturating_sub(1) as i64));
    let label = digits(rows.saturating_sub(1) as i64);
    // A line is the row label, a space, `| v ` per column and the closing `|`.
    let per_block = ((width.saturating_sub(label + 2)) / (cell + 3)).max(1);
    let mut text = String::new();
    let mut first = 0;
    while first < cols {
        let last = (first + per_block).min(cols);
        if first > 0 {
            text.push('\n');
        }
        let rule = format!(
            "{}{}+\n",
            " ".repeat(label + 1),
            format!("+{}", "-".repeat(cell + 2)).repeat(last - first)
        );
        let mut header = " ".repeat(label + 1);
        for c in first..last {
            header.push_str(&format!("  {c:>cell$} "));
        }
        text.push_str(header.trim_end());
        text.push('\n');
        for (r, row) in cells.iter().enumerate() {
            text.push_str(&rule);
            text.push_str(&format!("{r:>label$} "));
            for v in &row[first..last] {
                text.push_str(&format!("| {v:>cell$} "));
            }
            text.push_str("|\n");
        }
        text.push_str(&rule);
        first = last;
    }
    text
}

#[cfg(test)]
mod tests {
    use super::render_folded;

    #[test]
    fn a_narrow_table_is_one_block_like_tessel_show() {
        let text = render_folded(&[vec![0, 1], vec![3, 2]], 100);
        assert_eq!(
            text,
            "    0   1\n  +---+---+\n0 | 0 | 1 |\n  +---+---+\n1 | 3 | 2 |\n  +---+---+\n"
        );
    }

    #[test]
    fn a_wide_table_folds_into_blocks_that_fit() {
        let row: Vec<i64> = (0..64).collect();
        let text = render_folded(&[row.clone(), row], 40);
        assert!(text.lines().all(|l| l.len() <= 40), "{text}");
        // Every column index appears once in a header, in order.
        let headers: Vec<i64> = text
            .lines()
            .filter(|l| !l.contains('|') && !l.contains('+') && !l.trim().is_empty())
            .flat_map(|l| l.split_whitespace().map(|w| w.parse::<i64>().unwrap()))
            .collect();
        assert_eq!(headers, (0..64).collect::<Vec<_>>());
    }
}
