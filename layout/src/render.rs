//! Text rendering of a layout as a 2-D table of offsets, in the manner of CuTe's `print_layout`.
//!
//! Rows are the (1-D) coordinates of mode 0, columns those of mode 1; a rank-1 layout is one
//! column. Hierarchical modes are indexed by their 1-D index, so the cell at row `r`, column `c`
//! holds the offset of the domain index `r + c * rows`.

use std::fmt::Write;

use crate::composed::ComposedLayout;
use crate::error::{Error, Result};
use crate::layout::Layout;

/// The most cells a table may have.
///
/// ```
/// use tessel_layout::render::{MAX_CELLS, Table};
/// let big = tessel_layout::Layout::vector(MAX_CELLS + 1, 1).unwrap();
/// assert!(Table::of_layout(&big).is_err());
/// ```
pub const MAX_CELLS: i64 = 1 << 16;

/// The offsets of a rank-1 or rank-2 layout arranged as rows (mode 0) by columns (mode 1).
///
/// ```
/// use tessel_layout::render::Table;
/// let t = Table::of_layout(&"(2,3):(3,1)".parse().unwrap()).unwrap();
/// assert_eq!((t.rows(), t.cols()), (2, 3));
/// assert_eq!(t.get(1, 2), Some(5));
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Table {
    title: String,
    rows: usize,
    cols: usize,
    /// Column-major: the cell (r, c) is `cells[r + c * rows]`.
    cells: Vec<i64>,
}

impl Table {
    /// The table of a plain layout.
    ///
    /// ```
    /// use tessel_layout::render::Table;
    /// let err = Table::of_layout(&"(2,2,2):(1,2,4)".parse().unwrap()).unwrap_err();
    /// assert!(err.to_string().contains("rank 3"));
    /// ```
    pub fn of_layout(layout: &Layout) -> Result<Table> {
        let (rows, cols) = grid(layout)?;
        Ok(Table {
            title: layout.to_string(),
            rows,
            cols,
            cells: layout.offsets(),
        })
    }

    /// The table of a swizzled layout (the grid is that of its inner layout).
    ///
    /// ```
    /// use tessel_layout::{ComposedLayout, Layout, Swizzle, render::Table};
    /// let l: Layout = "(8,64):(64,1)".parse().unwrap();
    /// let c = ComposedLayout::new(vec![Swizzle::new(3, 3, 3).unwrap()], 0, l);
    /// let t = Table::of_composed(&c).unwrap();
    /// assert_eq!(t.get(1, 0), Some(72));
    /// assert_eq!(t.get(7, 63), Some(455));
    /// ```
    pub fn of_composed(composed: &ComposedLayout) -> Result<Table> {
        let (rows, cols) = grid(composed.layout())?;
        Ok(Table {
            title: composed.to_string(),
            rows,
            cols,
            cells: composed.offsets(),
        })
    }

    /// Number of rows (the size of mode 0).
    ///
    /// ```
    /// let t = tessel_layout::render::Table::of_layout(&"8:1".parse().unwrap()).unwrap();
    /// assert_eq!(t.rows(), 8);
    /// ```
    pub fn rows(&self) -> usize {
        self.rows
    }

    /// Number of columns (the size of mode 1; 1 for a rank-1 layout).
    ///
    /// ```
    /// let t = tessel_layout::render::Table::of_layout(&"8:1".parse().unwrap()).unwrap();
    /// assert_eq!(t.cols(), 1);
    /// ```
    pub fn cols(&self) -> usize {
        self.cols
    }

    /// The layout the table shows, in CuTe notation.
    ///
    /// ```
    /// let t = tessel_layout::render::Table::of_layout(&"8:1".parse().unwrap()).unwrap();
    /// assert_eq!(t.title(), "8:1");
    /// ```
    pub fn title(&self) -> &str {
        &self.title
    }

    /// The offset at row `row`, column `col`.
    ///
    /// ```
    /// let t = tessel_layout::render::Table::of_layout(&"(4,8):(8,1)".parse().unwrap()).unwrap();
    /// assert_eq!(t.get(3, 7), Some(31));
    /// assert_eq!(t.get(4, 0), None);
    /// ```
    pub fn get(&self, row: usize, col: usize) -> Option<i64> {
        if row >= self.rows || col >= self.cols {
            return None;
        }
        self.cells.get(row + col * self.rows).copied()
    }

    /// The table as text: the layout, then a grid with column indices on top and row indices
    /// on the left.
    ///
    /// ```
    /// let t = tessel_layout::render::Table::of_layout(&"(2,2):(2,1)".parse().unwrap()).unwrap();
    /// let text = t.render();
    /// assert!(text.starts_with("(2,2):(2,1)\n"));
    /// assert!(text.contains("| 0 | 1 |"));
    /// assert!(text.contains("| 2 | 3 |"));
    /// ```
    pub fn render(&self) -> String {
        let digits = |v: i64| v.to_string().len();
        let widest_cell = self.cells.iter().map(|&v| digits(v)).max().unwrap_or(1);
        let widest_col = digits(self.cols.saturating_sub(1) as i64);
        let width = widest_cell.max(widest_col);
        let label = digits(self.rows.saturating_sub(1) as i64);
        let rule = {
            let mut r = " ".repeat(label + 1);
            for _ in 0..self.cols {
                r.push('+');
                r.push_str(&"-".repeat(width + 2));
            }
            r.push('+');
            r
        };
        let mut out = String::new();
        let _ = writeln!(out, "{}", self.title);
        let mut header = " ".repeat(label + 1);
        for c in 0..self.cols {
            let _ = write!(header, "  {c:>width$} ");
        }
        let _ = writeln!(out, "{}", header.trim_end());
        for r in 0..self.rows {
            let _ = writeln!(out, "{rule}");
            let _ = write!(out, "{r:>label$} ");
            for c in 0..self.cols {
                let v = self.get(r, c).unwrap_or_default();
                let _ = write!(out, "| {v:>width$} ");
            }
            out.push_str("|\n");
        }
        let _ = writeln!(out, "{rule}");
        out
    }
}

/// `(rows, cols)` of a layout's table; rank 0 is one cell, rank 1 one column.
fn grid(layout: &Layout) -> Result<(usize, usize)> {
    let (rows, cols) = match layout.rank() {
        0 => (1, 1),
        1 => (layout.size(), 1),
        2 => (layout.mode(0)?.size(), layout.mode(1)?.size()),
        r => {
            return Err(Error::invalid(format!(
                "a table shows layouts of rank 1 or 2, but {layout} has rank {r} \
                 (group modes first, e.g. with a tuple of layouts)"
            )));
        }
    };
    if layout.size() > MAX_CELLS {
        return Err(Error::invalid(format!(
            "{layout} has {rows}x{cols} = {} cells; a table shows at most {MAX_CELLS}",
            layout.size()
        )));
    }
    let to_usize = |n: i64| usize::try_from(n).map_err(|_| Error::invalid("negative extent"));
    Ok((to_usize(rows)?, to_usize(cols)?))
}

/// The table of `layout` as text (CuTe's `print_layout`).
///
/// ```
/// let text = tessel_layout::render::print_layout(&"(2,3):(3,1)".parse().unwrap()).unwrap();
/// assert!(text.contains("| 3 | 4 | 5 |"));
/// ```
pub fn print_layout(layout: &Layout) -> Result<String> {
    Table::of_layout(layout).map(|t| t.render())
}
