//! CuTe's partitioners on layouts: `local_tile` (one tile of a tiling, CuTe's
//! `inner_partition`) and `local_partition` (one thread's elements of every tile, CuTe's
//! `outer_partition` driven by a thread layout).
//!
//! Both split the layout with [`zipped_divide`] into `(tile, rest)` and then slice one of the
//! two modes, so each returns the sub-layout and the offset where it starts, like
//! [`Layout::slice`] (CuTe's `slice_and_offset`). In tessel notation a layout at an offset is
//! `OFFSET o LAYOUT`.
//!
//! ```
//! use tessel_layout::{local_tile, Layout, SliceCoord, Tiler};
//! // CuTe media/docs/cpp/cute/03_tensor.md (CUTLASS v4.2.1): an 8x24 tensor in 4x8 tiles, tile (1,2).
//! let a: Layout = "(8,24):(1,8)".parse().unwrap();
//! let tiler: Tiler = Tiler::ByMode(vec![Some("4:1".parse::<Layout>().unwrap().into()),
//!                                       Some("8:1".parse::<Layout>().unwrap().into())]);
//! let coord = SliceCoord::from(&"(1,2)".parse().unwrap());
//! let (tile, offset) = local_tile(&a, &tiler, &coord).unwrap();
//! assert_eq!(tile.to_string(), "(4,8):(1,8)");
//! assert_eq!(offset, 4 + 16 * 8);
//! ```

use super::{Tiler, zipped_divide};
use crate::{Error, IntTuple, Layout, Result, SliceCoord};

/// CuTe's `repeat<R>(_)`: `_` for one mode, a tuple of `R` underscores otherwise.
pub(crate) fn keep_all(rank: usize) -> SliceCoord {
    if rank == 1 {
        SliceCoord::All
    } else {
        SliceCoord::Tuple(vec![SliceCoord::All; rank])
    }
}

/// CuTe's `append<R>(coord, _)` for a tuple coordinate (pads it with `_` up to `rank`
/// modes); an integer coordinate is a 1-D index into the whole mode and stays as it is.
pub(crate) fn pad_coord(coord: &SliceCoord, rank: usize, what: &str) -> Result<SliceCoord> {
    match coord {
        SliceCoord::Tuple(parts) if parts.len() > rank => Err(Error::invalid(format!(
            "{what}: the coordinate {coord} has {} modes but the mode it indexes has only {rank}",
            parts.len()
        ))),
        SliceCoord::Tuple(parts) if rank > 1 || parts.len() != 1 => {
            let mut parts = parts.clone();
            parts.resize(rank, SliceCoord::All);
            Ok(SliceCoord::Tuple(parts))
        }
        // A rank-1 tuple against a rank-1 mode: its only entry indexes that mode.
        SliceCoord::Tuple(parts) => Ok(parts[0].clone()),
        other => Ok(other.clone()),
    }
}

/// CuTe's `local_tile(L, tiler, coord)` (`inner_partition`) on a layout: the tile `coord` of
/// `zipped_divide(L, tiler) = (tile, rest)`, i.e. `slice((_..., coord), zipped)`. Returns the
/// tile's layout (the tile modes, then the rest modes that `coord` leaves as `_`) and the
/// offset of its first element.
///
/// `coord` indexes the rest mode: an integer is a 1-D index over all tiles; a tuple gives one
/// entry per rest mode (missing trailing entries are `_`, as CuTe's `append<R>(coord, _)`), and
/// a `_` entry keeps that rest mode (`(m, _)` gives the tiles `(m, k)` for every `k`). As in
/// CuTe, a tiler that does not divide `L` gives last tiles that run past `L`'s domain.
///
/// ```
/// use tessel_layout::{local_tile, Layout, SliceCoord, Tiler};
/// // CuTe media/docs/cpp/cute/0x_gemm_tutorial.md (CUTLASS v4.2.1): gA = local_tile(mA, (BLK_M,BLK_K), (m,_))
/// // has shape (BLK_M,BLK_K,k).
/// let m_a: Layout = "(256,64):(1,256)".parse().unwrap();
/// let tiler = Tiler::ByMode(vec![Some(Layout::vector(128, 1).unwrap().into()),
///                                Some(Layout::vector(8, 1).unwrap().into())]);
/// let coord = SliceCoord::Tuple(vec![SliceCoord::Index(1), SliceCoord::All]);
/// let (g_a, offset) = local_tile(&m_a, &tiler, &coord).unwrap();
/// assert_eq!(g_a.shape().to_string(), "(128,8,8)");
/// assert_eq!(g_a.to_string(), "(128,8,8):(1,256,2048)");
/// assert_eq!(offset, 128);
/// ```
pub fn local_tile(layout: &Layout, tiler: &Tiler, coord: &SliceCoord) -> Result<(Layout, i64)> {
    local_tile_in(layout, tiler, coord, None)
}

/// CuTe's `local_tile(L, tiler, coord, step)`: [`local_tile`] with the tiler and the coordinate
/// projected by `step` (CuTe's `dice(step, tiler)` and `dice(step, coord)`, see
/// [`projection`](super::projection)), the form every CuTe GEMM uses to cut A, B and C with one
/// CTA tiler: `Step<_1, X, _1>` keeps modes 0 and 2 for A's `(M, K)`.
///
/// ```
/// use tessel_layout::{local_tile_projected, Layout, SliceCoord::{All, Index, Tuple}, Tiler};
/// // CuTe include/cute/tensor_impl.hpp: ctaB = local_tile(dataB, cta_tiler, cta_coord,
/// // Step< X,_1,_1>{}) is (_64,_4,k) for the tiler (32,64,4).
/// let data_b: Layout = "(128,16):(1,128)".parse().unwrap(); // (N,K)
/// let tiler = Tiler::ByMode([32, 64, 4].iter().map(|&n| Some(Tiler::Layout(Layout::vector(n, 1).unwrap()))).collect());
/// let coord = Tuple(vec![Index(0), Index(1), All]);
/// let step = Tuple(vec![All, Index(1), Index(1)]);
/// let (cta_b, offset) = local_tile_projected(&data_b, &tiler, &coord, &step).unwrap();
/// assert_eq!(cta_b.to_string(), "(64,4,4):(1,128,512)");
/// assert_eq!(offset, 64);
/// ```
pub fn local_tile_projected(
    layout: &Layout,
    tiler: &Tiler,
    coord: &SliceCoord,
    step: &SliceCoord,
) -> Result<(Layout, i64)> {
    local_tile_in(layout, tiler, coord, Some(step))
}

fn local_tile_in(
    layout: &Layout,
    tiler: &Tiler,
    coord: &SliceCoord,
    step: Option<&SliceCoord>,
) -> Result<(Layout, i64)> {
    let what = match step {
        None => format!("local_tile of {layout} by {tiler} at {coord}"),
        Some(s) => format!("local_tile of {layout} by {tiler} at {coord} projected by {s}"),
    };
    let inner = || -> Result<(Layout, i64)> {
        let (tiler, coord) = match step {
            None => (tiler.clone(), coord.clone()),
            Some(s) => (
                super::projection::dice_tiler(s, tiler)?,
                super::projection::dice_coord(s, coord)?,
            ),
        };
        let zipped = zipped_divide(layout, &tiler)?;
        let tile_rank = zipped.mode(0)?.rank();
        let rest_rank = zipped.mode(1)?.rank();
        let rest = pad_coord(&coord, rest_rank, "the tile coordinate")?;
        zipped.slice(&SliceCoord::Tuple(vec![keep_all(tile_rank), rest]))
    };
    inner().map_err(|e| e.context(what))
}

/// The coordinate CuTe's `get_flat_coord(index)` gives in `thr`: per leaf `(index / d) % s`
/// (CuTe's `idx2crd(index, shape, stride)`, extent-1 leaves give 0), then per top-level mode
/// the 1-D index of that mode's coordinate. CuTe states it only for compact layouts; here the
/// coordinate must map back to `index` (`thr(coord) == index`), else it is an error.
pub(crate) fn thread_coord(thr: &Layout, index: i64) -> Result<SliceCoord> {
    let crd = thr.shape().map_leaves(&mut |_| Ok(0))?;
    let mut leaves = Vec::new();
    for (s, d) in thr.flat_modes() {
        let c = if s == 1 {
            0
        } else if d == 0 {
            return Err(Error::invalid(format!(
                "the thread layout {thr} has a stride-0 mode of extent {s}: the thread index \
                 {index} has no unique coordinate (CuTe's get_flat_coord needs a compact layout)"
            )));
        } else {
            index.checked_div(d).map_or(-1, |q| q.rem_euclid(s))
        };
        leaves.push(c);
    }
    let crd = crd
        .with_leaves(&leaves)
        .ok_or_else(|| Error::invalid("internal: leaf count mismatch"))?;
    if thr.crd2idx(&crd).ok() != Some(index) {
        return Err(Error::invalid(format!(
            "the thread index {index} is not an offset of the thread layout {thr} (its \
             coordinate {crd} maps to another offset; CuTe's get_flat_coord needs a compact \
             layout)"
        )));
    }
    // Per top-level mode: the 1-D (colexicographic) index of its coordinate in its shape.
    let flat = |c: &IntTuple, s: &IntTuple| -> Result<i64> {
        let compact = Layout::col_major(s)?;
        compact.crd2idx(c)
    };
    match thr.shape() {
        IntTuple::Int(_) => Ok(SliceCoord::Index(flat(&crd, thr.shape())?)),
        IntTuple::Tuple(shapes) => shapes
            .iter()
            .zip(crd.modes())
            .map(|(s, c)| flat(&c, &s).map(SliceCoord::Index))
            .collect::<Result<Vec<_>>>()
            .map(SliceCoord::Tuple),
    }
}

/// CuTe's `local_partition(L, thr, index)` on a layout: the elements of thread `index` in
/// every tile, where the tiles have the top-level shape of the thread layout `thr`. With
/// `tiler = product_each(shape(thr))`, it slices the tile mode of
/// `zipped_divide(L, tiler) = (tile, rest)` at `thr`'s coordinate of `index` (CuTe's
/// `outer_partition`) and keeps the rest. Returns that layout and the offset of its first
/// element.
///
/// The coordinate of `index` is the one `thr` maps to `index` (CuTe's `get_flat_coord`,
/// defined for compact layouts): so a row-major `thr` hands out threads row by row. An `index`
/// that `thr` does not reach (or reaches ambiguously) is an error.
///
/// ```
/// use tessel_layout::{local_partition, Layout};
/// // CuTe include/cute/tensor_impl.hpp (CUTLASS v4.2.1): a (16,64) tensor partitioned over a (2,16) thread
/// // layout gives each thread an (8,4) layout.
/// let data: Layout = "(16,64):(1,16)".parse().unwrap();
/// let thr: Layout = "(2,16):(1,2)".parse().unwrap();
/// let (part, offset) = local_partition(&data, &thr, 3).unwrap();
/// assert_eq!(part.to_string(), "(8,4):(2,256)");
/// assert_eq!(offset, 1 + 16); // thread 3 is (1,1) in thr
/// ```
pub fn local_partition(layout: &Layout, thr: &Layout, index: i64) -> Result<(Layout, i64)> {
    let what = format!("local_partition of {layout} over the threads {thr} for thread {index}");
    let inner = || -> Result<(Layout, i64)> {
        let coord = thread_coord(thr, index)?;
        outer_partition(layout, thr, &coord)
    };
    inner().map_err(|e| e.context(what))
}

/// CuTe's `local_partition(L, thr, index, step)`: [`local_partition`] over the thread layout
/// projected by `step` (CuTe's `dice(step, thr)`, see [`projection`](super::projection)), so
/// the threads that differ only in a mode the step drops (`X`) get the same elements. Thread
/// `index`'s coordinate is taken in the whole `thr` (which must reach `index` once, as for
/// [`local_partition`]) and projected with it: CuTe's `get_flat_coord` of the projected layout
/// computes each kept mode's coordinate alike.
///
/// ```
/// use tessel_layout::{local_partition_projected, Layout, SliceCoord::{All, Index, Tuple}};
/// // CuTe include/cute/tensor_impl.hpp: thr_layout (_2,_16,_1):(_16,_1,_0);
/// // thrA = local_partition(dataA, thr_layout, thr_idx, Step<_1, X,_1>{}) is (M/2,K/1).
/// let thr: Layout = "(2,16,1):(16,1,0)".parse().unwrap();
/// let data_a: Layout = "(64,8):(1,64)".parse().unwrap();
/// let step = Tuple(vec![Index(1), All, Index(1)]);
/// let (thr_a, offset) = local_partition_projected(&data_a, &thr, 17, &step).unwrap();
/// assert_eq!(thr_a.to_string(), "(32,8):(2,64)");
/// assert_eq!(offset, 1); // thread 17 is (1,1,0): row 1 of every 2
/// ```
pub fn local_partition_projected(
    layout: &Layout,
    thr: &Layout,
    index: i64,
    step: &SliceCoord,
) -> Result<(Layout, i64)> {
    let what = format!(
        "local_partition of {layout} over the threads {thr} for thread {index} projected by \
         the step {step}"
    );
    let inner = || -> Result<(Layout, i64)> {
        let coord = thread_coord(thr, index)?;
        let projected = super::projection::dice_layout(step, thr)?;
        let coord = super::projection::dice_coord(step, &coord)?;
        outer_partition(layout, &projected, &coord)
    };
    inner().map_err(|e| e.context(what))
}

/// CuTe's `outer_partition(L, product_each(shape(thr)), coord)`: slices the tile mode of
/// `zipped_divide(L, tiler)` at `coord` and keeps the rest.
fn outer_partition(layout: &Layout, thr: &Layout, coord: &SliceCoord) -> Result<(Layout, i64)> {
    {
        let tiler = match thr.shape().product_each()? {
            IntTuple::Int(n) => Tiler::Layout(Layout::vector(n, 1)?),
            IntTuple::Tuple(sizes) => Tiler::ByMode(
                sizes
                    .iter()
                    .map(|n| Ok(Some(Tiler::Layout(Layout::vector(n.product()?, 1)?))))
                    .collect::<Result<Vec<_>>>()?,
            ),
        };
        let zipped = zipped_divide(layout, &tiler)?;
        let tile_rank = zipped.mode(0)?.rank();
        let rest_rank = zipped.mode(1)?.rank();
        let tile = pad_coord(coord, tile_rank, "the thread coordinate")?;
        zipped.slice(&SliceCoord::Tuple(vec![tile, keep_all(rest_rank)]))
    }
}
