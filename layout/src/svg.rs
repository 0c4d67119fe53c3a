//! Pictures of layouts as SVG text (no dependency): the 2-D grid of offsets (CuTe's
//! `print_layout`) coloured by shared-memory bank, each cell also naming its bank (`b7`), and
//! TV layouts labelled `T{t}V{v}` per cell (CuTe's `print_latex`). Every picture is folded to a
//! readable size, whatever the layout's rank: a grid wider than [`MAX_WIDTH`] pixels is drawn in
//! blocks of columns stacked top to bottom, one taller than [`MAX_HEIGHT`] in blocks of rows side
//! by side (a rank-1 layout is one long column).
//!
//! ```
//! use tessel_layout::{svg::layout_svg, Layout};
//! let l: Layout = "(4,8):(8,1)".parse().unwrap();
//! let picture = layout_svg(&l, Some(4)).unwrap();
//! assert!(picture.starts_with("<svg") && picture.trim_end().ends_with("</svg>"));
//! ```
//!
//! Tiled copies and tiled MMAs are drawn by [`tiled_copy_svg`] and [`tiled_mma_svg`].

mod fold;
mod tiled;

pub use tiled::{tiled_copy_svg, tiled_mma_svg};

use std::fmt::Write;

use crate::bank::{BANK_BYTES, BANKS};
use crate::composed::OffsetMap;
use crate::error::{Error, Result};
use crate::layout::Layout;
use fold::Fold;

/// Pictures with more cells than this are refused (a browser would not show them usefully).
///
/// ```
/// use tessel_layout::{svg::{layout_svg, MAX_CELLS}, Layout};
/// assert_eq!(MAX_CELLS, 256 * 256);
/// let too_big: Layout = "(257,256):(1,257)".parse().unwrap();
/// let err = layout_svg(&too_big, None).unwrap_err();
/// assert!(err.to_string().contains(&format!("at most {MAX_CELLS} cells")), "{err}");
/// ```
pub const MAX_CELLS: i64 = 1 << 16;

/// Pictures are wrapped to at most this many pixels across (unless one block of columns, the
/// title or the legend needs more).
///
/// ```
/// use tessel_layout::{svg::{layout_svg, MAX_WIDTH}, ComposedLayout};
/// // An 8x64 fp16 tile: 64 columns are drawn as two blocks of 32.
/// let c: ComposedLayout = "Sw<3,3,3> o (8,64):(64,1)".parse().unwrap();
/// let svg = layout_svg(&c, Some(2)).unwrap();
/// let width: i64 = svg.split("width=\"").nth(1).unwrap().split('"').next().unwrap().parse().unwrap();
/// assert!(width <= MAX_WIDTH, "{width}");
/// ```
pub const MAX_WIDTH: i64 = 1280;

/// Blocks of rows are at most this many pixels high (unless one row needs more): a taller grid
/// is folded into blocks of rows placed side by side, wrapped at [`MAX_WIDTH`].
///
/// ```
/// use tessel_layout::{svg::{layout_svg, MAX_HEIGHT, MAX_WIDTH}, Layout};
/// // One column of 1024 offsets: 26-pixel rows, folded into blocks of 32 rows.
/// let l: Layout = "1024:1".parse().unwrap();
/// let svg = layout_svg(&l, None).unwrap();
/// let size = |key: &str| -> i64 {
///     svg.split(&format!("{key}=\"")).nth(1).unwrap().split('"').next().unwrap().parse().unwrap()
/// };
/// assert!(size("width") <= MAX_WIDTH, "{}", size("width"));
/// assert!(size("height") < 1024 * 26 / 4, "{}", size("height"));
/// assert!(svg.contains(">1023<"));
/// # let _ = MAX_HEIGHT;
/// ```
pub const MAX_HEIGHT: i64 = 1280;

const CELL_H: i64 = 26;
/// Cell height when a cell has a second line (its bank).
const CELL_H_TWO_LINES: i64 = 36;
const HEADER: i64 = 36;
const MARGIN: i64 = 16;
const TITLE_H: i64 = 30;
const CHAR_W: i64 = 8;

/// Eight thread colours, as in CuTe's `print_latex`.
const THREAD_COLORS: [&str; 8] = [
    "#afafff", "#afffaf", "#ffafaf", "#ffffaf", "#afffff", "#ffafff", "#d7d7d7", "#ffd7af",
];

/// The grid of a layout: rows = mode 0, columns = the rest (a rank-1 layout is one column);
/// each cell shows the offset. With `elem_bytes`, each cell is coloured by the bank of its
/// element (`offset * elem_bytes / 4 mod 32`) and names it under the offset (`b3`), and a
/// legend lists the banks' colours.
///
/// ```
/// use tessel_layout::{ComposedLayout, svg::layout_svg};
/// let c: ComposedLayout = "Sw<1,0,1> o (2,2):(2,1)".parse().unwrap();
/// let svg = layout_svg(&c, Some(4)).unwrap();
/// assert!(svg.starts_with("<svg"));
/// assert!(svg.contains("Sw&lt;1,0,1&gt;"));
/// assert!(svg.contains(">bank 3<"));
/// // Offset 3 (the cell (1,0) after the swizzle) is in bank 3.
/// assert!(svg.contains(">b3<"));
/// ```
pub fn layout_svg(layout: &impl OffsetMap, elem_bytes: Option<i64>) -> Result<String> {
    let c = layout.to_composed();
    if let Some(b) = elem_bytes {
        if b < 1 {
            return Err(Error::invalid(format!(
                "element size {b} bytes: must be at least 1"
            )));
        }
    }
    let (rows, cols) = grid_shape(c.layout())?;
    let offsets = c.offsets();
    let labels: Vec<String> = offsets.iter().map(i64::to_string).collect();
    let sublabels: Vec<String> = match elem_bytes {
        Some(b) => offsets
            .iter()
            .map(|&o| format!("b{}", bank_of(o, b)))
            .collect(),
        None => Vec::new(),
    };
    let fills: Vec<String> = offsets
        .iter()
        .map(|&o| match elem_bytes {
            Some(b) => bank_color(bank_of(o, b)),
            None => "#f4f4f4".to_string(),
        })
        .collect();
    let title = match elem_bytes {
        Some(b) => format!("{c}  ({b}-byte elements; cell: offset, bN = bank N)"),
        None => c.to_string(),
    };
    let legend: Vec<(String, String)> = if elem_bytes.is_some() {
        (0..BANKS)
            .map(|k| (bank_color(k), format!("bank {k}")))
            .collect()
    } else {
        Vec::new()
    };
    Ok(draw(&Grid {
        title,
        rows,
        cols,
        labels,
        sublabels,
        fills,
        legend,
    }))
}

/// A TV layout over a `rows x cols` tile: `tv` maps `(thread, value)` to a column-major index
/// of the tile; the cell it lands on shows `T{thread}V{value}`, coloured by thread (8 colours).
/// Mode 0 of `tv` is the thread, all other modes together the value. Cells no pair reaches are
/// blank; where several pairs land on one cell the first (lowest thread, then value) is shown.
///
/// ```
/// use tessel_layout::{Layout, svg::tv_svg};
/// // SM80 16x8x16 C fragment (CuTe mma_traits_sm80.hpp (CUTLASS v4.2.1)): ((4,8),(2,2)):((32,1),(16,8)), 16x8.
/// let tv: Layout = "((4,8),(2,2)):((32,1),(16,8))".parse().unwrap();
/// let svg = tv_svg(&tv, 16, 8).unwrap();
/// assert!(svg.contains(">T0V0<") && svg.contains(">T31V3<"));
/// ```
pub fn tv_svg(tv: &Layout, rows: i64, cols: i64) -> Result<String> {
    let cells = tile_cells(rows, cols)?;
    let threads = if tv.shape().is_int() {
        tv.size()
    } else {
        tv.mode(0)?.size()
    };
    if tv.size() > MAX_CELLS * 16 {
        return Err(Error::invalid(format!(
            "TV layout {tv} has {} (thread, value) pairs: too many to draw",
            tv.size()
        )));
    }
    let values = tv.size() / threads;
    let mut labels = vec![String::new(); cells as usize];
    let mut fills = vec!["#ffffff".to_string(); cells as usize];
    for t in 0..threads {
        for v in 0..values {
            let index = tv.offset(t + threads * v)?;
            if !(0..cells).contains(&index) {
                return Err(Error::invalid(format!(
                    "TV layout {tv}: thread {t} value {v} maps to index {index}, outside the \
                     {rows}x{cols} tile"
                )));
            }
            let cell = index as usize;
            if labels[cell].is_empty() {
                labels[cell] = format!("T{t}V{v}");
                fills[cell] = THREAD_COLORS[(t % 8) as usize].to_string();
            }
        }
    }
    Ok(draw(&Grid {
        title: format!("{tv}  (thread, value) -> {rows}x{cols} tile"),
        rows,
        cols,
        labels,
        sublabels: Vec::new(),
        fills,
        legend: Vec::new(),
    }))
}

/// The bank of element offset `offset` with `elem_bytes`-byte elements.
///
/// ```
/// assert_eq!(tessel_layout::svg::bank_of(33, 4), 1);
/// assert_eq!(tessel_layout::svg::bank_of(3, 2), 1);
/// ```
pub fn bank_of(offset: i64, elem_bytes: i64) -> i64 {
    offset
        .wrapping_mul(elem_bytes)
        .div_euclid(BANK_BYTES)
        .rem_euclid(BANKS)
}

/// 32 distinguishable pastel colours; neighbouring banks get distant hues.
fn bank_color(bank: i64) -> String {
    let hue = (bank * 13).rem_euclid(BANKS) * 360 / BANKS;
    let light = if bank % 2 == 0 { 78 } else { 88 };
    format!("hsl({hue},70%,{light}%)")
}

fn grid_shape(layout: &Layout) -> Result<(i64, i64)> {
    let size = layout.size();
    let rows = if layout.shape().is_int() {
        size
    } else {
        layout.mode(0)?.size()
    };
    let cols = size / rows.max(1);
    tile_cells(rows, cols)?;
    Ok((rows, cols))
}

fn tile_cells(rows: i64, cols: i64) -> Result<i64> {
    match rows.checked_mul(cols) {
        Some(n) if rows >= 1 && cols >= 1 && n <= MAX_CELLS => Ok(n),
        _ => Err(Error::invalid(format!(
            "a {rows}x{cols} picture: needs positive extents and at most {MAX_CELLS} cells"
        ))),
    }
}

/// What to draw: labels, second-line labels (none when empty) and fills in column-major cell
/// order.
struct Grid {
    title: String,
    rows: i64,
    cols: i64,
    labels: Vec<String>,
    sublabels: Vec<String>,
    fills: Vec<String>,
    legend: Vec<(String, String)>,
}

fn draw(g: &Grid) -> String {
    let longest = g.labels.iter().map(String::len).max().unwrap_or(1) as i64;
    let cell_w = (longest * CHAR_W + 12).max(34);
    let cell_h = if g.sublabels.is_empty() {
        CELL_H
    } else {
        CELL_H_TWO_LINES
    };
    let fold = Fold::new(
        (g.rows, g.cols),
        (cell_w, cell_h),
        (HEADER, HEADER),
        2 * MARGIN,
    );
    let blocks = fold.blocks();
    let (grid_w, grid_h) = fold.size();
    let top = MARGIN + TITLE_H;
    let legend_cols = 8;
    let legend_rows = (g.legend.len() as i64 + legend_cols - 1) / legend_cols;
    let legend_top = top + grid_h + MARGIN;
    let width = (MARGIN + grid_w + MARGIN)
        .max(if g.legend.is_empty() {
            0
        } else {
            MARGIN * 2 + legend_cols * 84
        })
        .max(MARGIN * 2 + g.title.len() as i64 * 9); // 14px bold monospace: about 9px a character
    let height = legend_top + legend_rows * 22 + MARGIN;
    // The top-left corner of cell (m, n) of block b.
    let origin = |b: &fold::Block, m: i64, n: i64| {
        (
            MARGIN + b.x + (n - b.cols.0) * cell_w,
            top + b.y + (m - b.rows.0) * cell_h,
        )
    };
    // Every cell of the grid, block by block, columns outer (column-major).
    let cells = || {
        blocks.iter().flat_map(move |b| {
            (b.cols.0..b.cols.1).flat_map(move |n| (b.rows.0..b.rows.1).map(move |m| (b, m, n)))
        })
    };
    let mut s = String::new();
    // Writing to a String cannot fail.
    let _ = writeln!(
        s,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" viewBox="0 0 {width} {height}" font-family="monospace" font-size="12">"#
    );
    let _ = writeln!(s, "<title>{}</title>", escape(&g.title));
    let _ = writeln!(
        s,
        r##"<rect x="0" y="0" width="{width}" height="{height}" fill="#ffffff"/>"##
    );
    let _ = writeln!(
        s,
        r#"<text x="{MARGIN}" y="{}" font-size="14" font-weight="bold">{}</text>"#,
        MARGIN + 14,
        escape(&g.title)
    );
    let _ = writeln!(s, r##"<g fill="#555555" text-anchor="middle">"##);
    for b in &blocks {
        for n in b.cols.0..b.cols.1 {
            let (x, y) = origin(b, b.rows.0, n);
            let _ = writeln!(
                s,
                r#"<text x="{}" y="{}">{n}</text>"#,
                x + cell_w / 2,
                y - 10
            );
        }
    }
    for b in &blocks {
        for m in b.rows.0..b.rows.1 {
            let (x, y) = origin(b, m, b.cols.0);
            let _ = writeln!(
                s,
                r#"<text x="{}" y="{}">{m}</text>"#,
                x - 16,
                y + CELL_H / 2 + 4
            );
        }
    }
    let _ = writeln!(s, "</g>");
    let _ = writeln!(s, r##"<g stroke="#333333" stroke-width="1">"##);
    for (b, m, n) in cells() {
        let cell = (m + g.rows * n) as usize;
        let (x, y) = origin(b, m, n);
        let _ = writeln!(
            s,
            r#"<rect x="{x}" y="{y}" width="{cell_w}" height="{cell_h}" fill="{}"/>"#,
            g.fills.get(cell).map_or("#ffffff", String::as_str)
        );
    }
    let _ = writeln!(s, "</g>");
    let _ = writeln!(s, r#"<g text-anchor="middle">"#);
    for (b, m, n) in cells() {
        let cell = (m + g.rows * n) as usize;
        let label = g.labels.get(cell).map_or("", String::as_str);
        let (x, y) = origin(b, m, n);
        if !label.is_empty() {
            let _ = writeln!(
                s,
                r#"<text x="{}" y="{}">{}</text>"#,
                x + cell_w / 2,
                y + CELL_H / 2 + 4,
                escape(label)
            );
        }
    }
    let _ = writeln!(s, "</g>");
    if !g.sublabels.is_empty() {
        let _ = writeln!(
            s,
            r##"<g class="bank" text-anchor="middle" font-size="9" fill="#333333">"##
        );
        for (b, m, n) in cells() {
            let cell = (m + g.rows * n) as usize;
            let label = g.sublabels.get(cell).map_or("", String::as_str);
            let (x, y) = origin(b, m, n);
            if !label.is_empty() {
                let _ = writeln!(
                    s,
                    r#"<text x="{}" y="{}">{}</text>"#,
                    x + cell_w / 2,
                    y + cell_h - 6,
                    escape(label)
                );
            }
        }
        let _ = writeln!(s, "</g>");
    }
    if !g.legend.is_empty() {
        let _ = writeln!(s, r#"<g class="legend">"#);
        for (k, (fill, name)) in g.legend.iter().enumerate() {
            let k = k as i64;
            let x = MARGIN + (k % legend_cols) * 84;
            let y = legend_top + (k / legend_cols) * 22;
            let _ = writeln!(
                s,
                r##"<rect x="{x}" y="{y}" width="16" height="16" fill="{fill}" stroke="#333333"/>"##
            );
            let _ = writeln!(
                s,
                r#"<text x="{}" y="{}">{}</text>"#,
                x + 20,
                y + 12,
                escape(name)
            );
        }
        let _ = writeln!(s, "</g>");
    }
    s.push_str("</svg>\n");
    s
}

/// Escapes text for XML content and attribute values.
///
/// ```
/// assert_eq!(tessel_layout::svg::escape("Sw<3,3,3> & \"x\""), "Sw&lt;3,3,3&gt; &amp; &quot;x&quot;");
/// ```
pub fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for ch in text.chars() {
        match ch {
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '&' => out.push_str("&amp;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            c => out.push(c),
        }
    }
    out
}
