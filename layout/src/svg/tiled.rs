//! Pictures of tiled copies and tiled MMAs: every element of the tile is a cell labelled
//! `T{thread}V{value}` by the TV layout that reaches it, coloured by thread (the eight colours
//! of [`tv_svg`](super::tv_svg)).
//!
//! A tiled copy is drawn as its source tile (left) and destination tile (right); a tiled MMA
//! as CuTe's `print_svg(TiledMMA)` arranges it: C (`M x N`) in the middle, A (`M x K`) to its
//! left sharing its rows, B (`K x N`, k down) above it sharing its columns. A tile too large for
//! a readable picture (a rank-1 tile of 256 elements is one column of 256 cells) is folded into
//! blocks like a layout's grid ([`MAX_WIDTH`](super::MAX_WIDTH) across,
//! [`MAX_HEIGHT`](super::MAX_HEIGHT) down per block); then the tiles are drawn one below the
//! other (source above destination; A, B, C), each under its caption.
//!
//! Each cell's label is a `<text>` element carrying `data-op` (`S`, `D`, `A`, `B` or `C`),
//! `data-row` and `data-col` (the cell's coordinate in the drawn panel), so a picture can be
//! checked element by element.
//!
//! ```
//! use tessel_layout::{atom::mma_atom, tiled::make_tiled_mma, svg::tiled_mma_svg};
//! let mma = make_tiled_mma(&mma_atom("SM80_16x8x8_F16F16F16F16_TN").unwrap(),
//!                          &"1:0".parse().unwrap(), &[]).unwrap();
//! let svg = tiled_mma_svg(&mma).unwrap();
//! // PTX ISA 9.0 mma.m16n8k8 C fragment: lane 4 holds c0 at row groupID = 1, column 0.
//! assert!(svg.contains(r#"data-op="C" data-row="1" data-col="0">T4V0<"#));
//! ```

use std::fmt::Write;

use super::fold::Fold;
use super::{MAX_CELLS, MAX_WIDTH, THREAD_COLORS, escape};
use crate::error::{Error, Result};
use crate::layout::Layout;
use crate::tiled::{TiledCopy, TiledMma};

const MARGIN: i64 = 16;
const TITLE_H: i64 = 30;
/// Room for a panel's caption and its column numbers above it, and its row numbers left of it.
const CAPTION_H: i64 = 20;
const INDEX_H: i64 = 16;
const INDEX_W: i64 = 30;
const GAP: i64 = 24;
const CELL_H: i64 = 20;
const CHAR_W: i64 = 7;

/// One tile to draw: `tv` maps `(thread, value)` to an index `i`, drawn at row
/// `i % index_rows`, column `i / index_rows`, transposed when `transpose` is set.
struct Panel<'a> {
    op: &'static str,
    caption: String,
    tv: &'a Layout,
    /// Rows of the index space (`i = row + index_rows * col`).
    index_rows: i64,
    index_cols: i64,
    transpose: bool,
}

impl Panel<'_> {
    /// Rows and columns as drawn.
    fn drawn(&self) -> (i64, i64) {
        if self.transpose {
            (self.index_cols, self.index_rows)
        } else {
            (self.index_rows, self.index_cols)
        }
    }

    /// The label and thread of every drawn cell, row-major; empty where no pair lands.
    fn cells(&self) -> Result<Vec<Option<(i64, i64)>>> {
        let (rows, cols) = self.drawn();
        let total = self.index_rows * self.index_cols;
        let threads = if self.tv.shape().is_int() {
            self.tv.size()
        } else {
            self.tv.mode(0)?.size()
        };
        let values = self.tv.size() / threads.max(1);
        if self.tv.size() > MAX_CELLS * 16 {
            return Err(Error::invalid(format!(
                "the {} TV layout {} has {} (thread, value) pairs: too many to draw",
                self.op,
                self.tv,
                self.tv.size()
            )));
        }
        let mut cells = vec![None; (rows * cols) as usize];
        for t in 0..threads {
            for v in 0..values {
                let index = self.tv.offset(t + threads * v)?;
                if !(0..total).contains(&index) {
                    return Err(Error::invalid(format!(
                        "the {} TV layout {}: thread {t} value {v} maps to index {index}, outside \
                         the {}x{} tile",
                        self.op, self.tv, self.index_rows, self.index_cols
                    )));
                }
                let (r, c) = (index % self.index_rows, index / self.index_rows);
                let (r, c) = if self.transpose { (c, r) } else { (r, c) };
                let slot = &mut cells[(r * cols + c) as usize];
                if slot.is_none() {
                    *slot = Some((t, v));
                }
            }
        }
        Ok(cells)
    }
}

/// The picture of a tiled copy: the source tile (`get_layoutS_TV`) and the destination tile
/// (`get_layoutD_TV`) side by side, each cell labelled `T{t}V{v}`.
///
/// ```
/// use tessel_layout::{atom::copy_atom, tiled::make_tiled_copy, svg::tiled_copy_svg};
/// let atom = copy_atom("UniversalCopy<uint32_t>").unwrap().typed(32).unwrap();
/// let copy = make_tiled_copy(&atom, &"(2,2):(2,1)".parse().unwrap(),
///                            &"(1,2):(0,1)".parse().unwrap()).unwrap();
/// let svg = tiled_copy_svg(&copy).unwrap();
/// // Threads are row-major over the 2x4 tile, two values along each row.
/// assert!(svg.contains(r#"data-op="S" data-row="0" data-col="2">T1V0<"#));
/// assert!(svg.contains(r#"data-op="D" data-row="1" data-col="3">T3V1<"#));
/// ```
pub fn tiled_copy_svg(copy: &TiledCopy) -> Result<String> {
    let tiler = copy.tiler();
    let rows = tiler.first().copied().unwrap_or(1);
    let cols = tiler.iter().skip(1).try_fold(1i64, |acc, &n| {
        acc.checked_mul(n)
            .ok_or_else(|| Error::invalid("the tile's size overflows"))
    })?;
    let (s, d) = (copy.layout_s_tv()?, copy.layout_d_tv()?);
    let panel = |op, what: &str, tv| Panel {
        op,
        caption: format!("{what} ({rows}x{cols})"),
        tv,
        index_rows: rows,
        index_cols: cols,
        transpose: false,
    };
    let panels = [panel("S", "source S", &s), panel("D", "destination D", &d)];
    check_cells(&panels)?;
    let w = width_of(&panels);
    let folds = panels.each_ref().map(|p| fold(p, w));
    let (s_w, s_h) = folds[0].size();
    let top = MARGIN + TITLE_H + CAPTION_H;
    // Side by side when both fit across, else the destination below the source.
    let second = if folds.iter().all(Fold::is_whole)
        && 2 * MARGIN + s_w + GAP + folds[1].size().0 <= MAX_WIDTH
    {
        (MARGIN + s_w + GAP, top)
    } else {
        (MARGIN, top + s_h + GAP + CAPTION_H)
    };
    let title = value_title(&format!(
        "TiledCopy of {}: Tiler_MN {}, TiledLayout_TV {}",
        copy.atom(),
        crate::IntTuple::from_ints(tiler.iter().copied()),
        copy.layout_tv()
    ));
    draw(
        &title,
        &[
            (&panels[0], folds[0], (MARGIN, top)),
            (&panels[1], folds[1], second),
        ],
        w,
    )
}

/// The picture of a tiled MMA as CuTe's `print_svg` arranges it: C (`M x N`) with A (`M x K`)
/// on its left and B (drawn `K x N`) above it, each cell labelled `T{t}V{v}`.
///
/// ```
/// use tessel_layout::{atom::mma_atom, tiled::make_tiled_mma, svg::tiled_mma_svg};
/// let mma = make_tiled_mma(&mma_atom("SM80_16x8x16_F32F16F16F32_TN").unwrap(),
///                          &"1:0".parse().unwrap(), &[]).unwrap();
/// let svg = tiled_mma_svg(&mma).unwrap();
/// assert_eq!(svg.matches(r#"data-op="C""#).count(), 16 * 8);
/// assert_eq!(svg.matches(r#"data-op="A""#).count(), 16 * 16);
/// assert_eq!(svg.matches(r#"data-op="B""#).count(), 16 * 8);
/// ```
pub fn tiled_mma_svg(mma: &TiledMma) -> Result<String> {
    let (m, n, k) = (mma.tile_size(0)?, mma.tile_size(1)?, mma.tile_size(2)?);
    let (a, b, c) = (mma.layout_a_tv()?, mma.layout_b_tv()?, mma.layout_c_tv()?);
    let panels = [
        Panel {
            op: "A",
            caption: format!("A ({m}x{k})"),
            tv: &a,
            index_rows: m,
            index_cols: k,
            transpose: false,
        },
        Panel {
            op: "B",
            caption: format!("B ({k}x{n}, k down)"),
            tv: &b,
            index_rows: n,
            index_cols: k,
            transpose: true,
        },
        Panel {
            op: "C",
            caption: format!("C ({m}x{n})"),
            tv: &c,
            index_rows: m,
            index_cols: n,
            transpose: false,
        },
    ];
    check_cells(&panels)?;
    let w = width_of(&panels);
    let folds = panels.each_ref().map(|p| fold(p, w));
    let title = value_title(&format!(
        "TiledMMA of {}: ThrLayoutVMNK {}, tile {m}x{n}x{k}",
        mma.atom(),
        mma.thr_layout_vmnk()
    ));
    // CuTe's arrangement (A's rows beside C's, B's columns above C's) where the tiles fit
    // whole and the picture is not wider than MAX_WIDTH; else A, B and C one below the other.
    let top = MARGIN + TITLE_H + CAPTION_H;
    let (a_w, _) = folds[0].size();
    let (b_w, b_h) = folds[1].size();
    let c_x = MARGIN + a_w + GAP;
    let places = if folds.iter().all(Fold::is_whole) && c_x + b_w + MARGIN <= MAX_WIDTH {
        let c_y = top + b_h + GAP + CAPTION_H;
        [(MARGIN, c_y), (c_x, top), (c_x, c_y)]
    } else {
        let mut y = top;
        folds.map(|f| {
            let at = (MARGIN, y);
            y += f.size().1 + GAP + CAPTION_H;
            at
        })
    };
    draw(
        &title,
        &[
            (&panels[0], folds[0], places[0]),
            (&panels[1], folds[1], places[1]),
            (&panels[2], folds[2], places[2]),
        ],
        w,
    )
}

/// The title, cut to a readable length.
fn value_title(text: &str) -> String {
    const LIMIT: usize = 160;
    if text.len() <= LIMIT {
        return text.to_string();
    }
    let mut cut = LIMIT;
    while !text.is_char_boundary(cut) {
        cut -= 1;
    }
    format!("{}...", &text[..cut])
}

/// Refuses pictures with more than [`MAX_CELLS`] cells in all.
fn check_cells(panels: &[Panel<'_>]) -> Result<()> {
    let mut total = 0i64;
    for p in panels {
        let (r, c) = p.drawn();
        let cells = r.checked_mul(c).filter(|&n| r >= 1 && c >= 1 && n >= 1);
        total = cells
            .and_then(|n| total.checked_add(n))
            .filter(|&t| t <= MAX_CELLS)
            .ok_or_else(|| {
                Error::invalid(format!(
                    "a picture of tiles {}: needs positive extents and at most {MAX_CELLS} \
                     cells in all",
                    panels
                        .iter()
                        .map(|p| format!("{}x{}", p.drawn().0, p.drawn().1))
                        .collect::<Vec<_>>()
                        .join(", ")
                ))
            })?;
    }
    Ok(())
}

/// The cell width: room for the longest label, `T{threads-1}V{values-1}` of some panel.
fn width_of(panels: &[Panel<'_>]) -> i64 {
    let longest = panels
        .iter()
        .map(|p| {
            let threads = if p.tv.shape().is_int() {
                p.tv.size()
            } else {
                p.tv.mode(0).map_or(p.tv.size(), |m| m.size())
            };
            let values = p.tv.size() / threads.max(1);
            format!("T{}V{}", threads - 1, values - 1).len() as i64
        })
        .max()
        .unwrap_or(4);
    (longest * CHAR_W + 8).max(30)
}

/// The fold of a panel's drawn grid into readable blocks.
fn fold(panel: &Panel<'_>, cell_w: i64) -> Fold {
    Fold::new(
        panel.drawn(),
        (cell_w, CELL_H),
        (INDEX_W, INDEX_H),
        2 * MARGIN,
    )
}

/// Draws the panels, each folded, its blocks' area starting at the given point (its caption
/// above it).
fn draw(title: &str, placed: &[(&Panel<'_>, Fold, (i64, i64))], cell_w: i64) -> Result<String> {
    let mut width = MARGIN * 2 + title.len() as i64 * 8;
    let mut height = MARGIN + TITLE_H;
    for (_, fold, (x, y)) in placed {
        let (w, h) = fold.size();
        width = width.max(x + w + MARGIN);
        height = height.max(y + h + MARGIN);
    }
    let mut s = String::new();
    // Writing to a String cannot fail.
    let _ = writeln!(
        s,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" viewBox="0 0 {width} {height}" font-family="monospace" font-size="10">"#
    );
    let _ = writeln!(s, "<title>{}</title>", escape(title));
    let _ = writeln!(
        s,
        r##"<rect x="0" y="0" width="{width}" height="{height}" fill="#ffffff"/>"##
    );
    let _ = writeln!(
        s,
        r#"<text x="{MARGIN}" y="{}" font-size="13" font-weight="bold">{}</text>"#,
        MARGIN + 14,
        escape(title)
    );
    for (p, fold, (px, py)) in placed {
        let cols = p.drawn().1;
        let cells = p.cells()?;
        let blocks = fold.blocks();
        let _ = writeln!(s, r#"<g class="panel-{}">"#, p.op);
        let _ = writeln!(
            s,
            r#"<text x="{}" y="{}" font-size="12" font-weight="bold">{}</text>"#,
            px + INDEX_W,
            py - 6,
            escape(&p.caption)
        );
        // The top-left corner of drawn cell (r, c) of block b.
        let origin = |b: &super::fold::Block, r: i64, c: i64| {
            (
                px + b.x + (c - b.cols.0) * cell_w,
                py + b.y + (r - b.rows.0) * CELL_H,
            )
        };
        let _ = writeln!(s, r##"<g fill="#555555" text-anchor="middle">"##);
        for b in &blocks {
            for c in b.cols.0..b.cols.1 {
                let (x, y) = origin(b, b.rows.0, c);
                let _ = writeln!(
                    s,
                    r#"<text x="{}" y="{}">{c}</text>"#,
                    x + cell_w / 2,
                    y - 4
                );
            }
            for r in b.rows.0..b.rows.1 {
                let (x, y) = origin(b, r, b.cols.0);
                let _ = writeln!(
                    s,
                    r#"<text x="{}" y="{}">{r}</text>"#,
                    x - INDEX_W / 2,
                    y + CELL_H / 2 + 4
                );
            }
        }
        let _ = writeln!(s, "</g>");
        let _ = writeln!(s, r##"<g stroke="#333333" stroke-width="1">"##);
        for b in &blocks {
            for r in b.rows.0..b.rows.1 {
                for c in b.cols.0..b.cols.1 {
                    let fill = match cells[(r * cols + c) as usize] {
                        Some((t, _)) => THREAD_COLORS[t.rem_euclid(8) as usize],
                        None => "#ffffff",
                    };
                    let (x, y) = origin(b, r, c);
                    let _ = writeln!(
                        s,
                        r#"<rect x="{x}" y="{y}" width="{cell_w}" height="{CELL_H}" fill="{fill}"/>"#
                    );
                }
            }
        }
        let _ = writeln!(s, "</g>");
        let _ = writeln!(s, r#"<g text-anchor="middle">"#);
        for b in &blocks {
            for r in b.rows.0..b.rows.1 {
                for c in b.cols.0..b.cols.1 {
                    if let Some((t, v)) = cells[(r * cols + c) as usize] {
                        let (x, y) = origin(b, r, c);
                        let _ = writeln!(
                            s,
                            r#"<text x="{}" y="{}" data-op="{}" data-row="{r}" data-col="{c}">T{t}V{v}</text>"#,
                            x + cell_w / 2,
                            y + CELL_H / 2 + 4,
                            p.op
                        );
                    }
                }
            }
        }
        let _ = writeln!(s, "</g>");
        let _ = writeln!(s, "</g>");
    }
    s.push_str("</svg>\n");
    Ok(s)
}
