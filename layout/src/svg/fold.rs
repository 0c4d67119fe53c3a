//! Folding a grid of cells into blocks that fit a picture of readable size, whatever the
//! layout's rank: a grid wider than [`MAX_WIDTH`] is cut into blocks of columns, one taller than
//! [`MAX_HEIGHT`] into blocks of rows (a rank-1 layout of 256 elements is one column of 256
//! rows). The blocks follow each other in column-major order (the rows of one block of columns
//! first), left to right, starting a new band below when the next block would pass
//! [`MAX_WIDTH`]. Every block carries its own row and column numbers.

use super::{MAX_HEIGHT, MAX_WIDTH};

/// Space between two blocks, across and down.
pub(super) const BLOCK_GAP: i64 = 20;

/// One block of a folded grid: rows `rows.0..rows.1` and columns `cols.0..cols.1`, its first
/// cell at `(x, y)` from the folded grid's top-left corner.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Block {
    pub rows: (i64, i64),
    pub cols: (i64, i64),
    pub x: i64,
    pub y: i64,
}

/// A `rows x cols` grid of `cell_w x cell_h` cells cut into blocks; each block has a gutter of
/// `gutter` pixels on its left (row numbers) and a band of `band` pixels above (column numbers).
#[derive(Clone, Copy, Debug)]
pub(super) struct Fold {
    rows: i64,
    cols: i64,
    cell_w: i64,
    cell_h: i64,
    gutter: i64,
    band: i64,
    block_rows: i64,
    block_cols: i64,
    per_band: i64,
}

/// The largest power of two `<= fit` (at least 1), or `all` when `all <= fit`.
fn block_extent(all: i64, fit: i64) -> i64 {
    let fit = fit.max(1);
    if all <= fit {
        return all;
    }
    let mut block = 1;
    while block * 2 <= fit {
        block *= 2;
    }
    block
}

impl Fold {
    /// The fold of a `rows x cols` grid (`rows, cols >= 1`) within `MAX_WIDTH - reserved`
    /// pixels across.
    pub fn new(
        (rows, cols): (i64, i64),
        (cell_w, cell_h): (i64, i64),
        (gutter, band): (i64, i64),
        reserved: i64,
    ) -> Fold {
        let room = MAX_WIDTH - reserved;
        let block_cols = block_extent(cols, (room - gutter) / cell_w);
        let block_rows = block_extent(rows, (MAX_HEIGHT - band) / cell_h);
        let block_w = gutter + block_cols * cell_w;
        let per_band = ((room + BLOCK_GAP) / (block_w + BLOCK_GAP)).max(1);
        Fold {
            rows,
            cols,
            cell_w,
            cell_h,
            gutter,
            band,
            block_rows,
            block_cols,
            per_band,
        }
    }

    fn row_blocks(&self) -> i64 {
        (self.rows + self.block_rows - 1) / self.block_rows
    }

    fn blocks_total(&self) -> i64 {
        self.row_blocks() * ((self.cols + self.block_cols - 1) / self.block_cols)
    }

    fn block_w(&self) -> i64 {
        self.gutter + self.block_cols * self.cell_w
    }

    fn block_h(&self) -> i64 {
        self.band + self.block_rows * self.cell_h
    }

    /// Whether the grid is drawn as one block (nothing folded).
    pub fn is_whole(&self) -> bool {
        self.blocks_total() == 1
    }

    /// The blocks, in the order they are placed.
    pub fn blocks(&self) -> Vec<Block> {
        let row_blocks = self.row_blocks();
        (0..self.blocks_total())
            .map(|q| {
                let (i, j) = (q % row_blocks, q / row_blocks);
                let (band, pos) = (q / self.per_band, q % self.per_band);
                let r0 = i * self.block_rows;
                let c0 = j * self.block_cols;
                Block {
                    rows: (r0, (r0 + self.block_rows).min(self.rows)),
                    cols: (c0, (c0 + self.block_cols).min(self.cols)),
                    x: pos * (self.block_w() + BLOCK_GAP) + self.gutter,
                    y: band * (self.block_h() + BLOCK_GAP) + self.band,
                }
            })
            .collect()
    }

    /// The folded grid's width and height in pixels, gutters and bands included.
    pub fn size(&self) -> (i64, i64) {
        let total = self.blocks_total();
        let across = total.min(self.per_band);
        let bands = (total + self.per_band - 1) / self.per_band;
        (
            across * self.block_w() + (across - 1) * BLOCK_GAP,
            bands * self.block_h() + (bands - 1) * BLOCK_GAP,
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_small_grid_is_one_block() {
        let f = Fold::new((4, 8), (34, 26), (36, 36), 32);
        assert!(f.is_whole());
        assert_eq!(
            f.blocks(),
            vec![Block {
                rows: (0, 4),
                cols: (0, 8),
                x: 36,
                y: 36
            }]
        );
        assert_eq!(f.size(), (36 + 8 * 34, 36 + 4 * 26));
    }

    #[test]
    fn a_long_column_is_cut_into_blocks_of_rows_side_by_side() {
        // 256 rows of 20 px: blocks of 32 rows (32 * 20 + 16 <= 1280 < 64 * 20 + 16).
        let f = Fold::new((256, 1), (60, 20), (30, 16), 32);
        let blocks = f.blocks();
        assert_eq!(blocks.len(), 8);
        assert_eq!(blocks[1].rows, (32, 64));
        assert_eq!(blocks[1].x - blocks[0].x, 30 + 60 + BLOCK_GAP);
        let (w, h) = f.size();
        assert!(w <= MAX_WIDTH - 32 && h <= MAX_HEIGHT, "{w}x{h}");
        // Every row is in exactly one block.
        let covered: i64 = blocks.iter().map(|b| b.rows.1 - b.rows.0).sum();
        assert_eq!(covered, 256);
    }

    #[test]
    fn a_wide_grid_is_cut_into_blocks_of_columns_stacked_down() {
        let f = Fold::new((8, 64), (34, 26), (36, 36), 32);
        let blocks = f.blocks();
        assert_eq!(blocks.len(), 2);
        assert_eq!((blocks[0].cols, blocks[1].cols), ((0, 32), (32, 64)));
        assert_eq!(blocks[0].x, blocks[1].x);
        assert!(blocks[1].y > blocks[0].y);
        assert!(f.size().0 <= MAX_WIDTH - 32);
    }
}
