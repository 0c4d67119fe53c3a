//! Divides: split a layout into the elements a tiler selects and the layout of the tiles.

use super::Tiler;
use super::tiler::{by_mode, unzip};
use super::{complement, composition};
use crate::{Layout, Result};

/// CuTe's `logical_divide(A, B) = A o (B, complement(B, size(A)))`: mode 0 of the result is
/// `A o B` (one tile), mode 1 iterates over the tiles. With a by-mode tiler `[T0, T1, ...]` each
/// mode `i` of `A` is divided by `Ti` (`None` keeps the mode); modes past the tiler are kept.
///
/// When `size(B)` does not divide `size(A)` the complement is rounded up, so the last tiles
/// run past `A`'s domain (CuTe's convention; composition extends `A`'s last mode).
///
/// ```
/// use tessel_layout::{logical_divide, Layout, Tiler};
/// // CuTe docs (02_layout_algebra.md), 1-D example.
/// let a: Layout = "(4,2,3):(2,1,8)".parse().unwrap();
/// let b = Tiler::Layout("4:2".parse().unwrap());
/// assert_eq!(logical_divide(&a, &b).unwrap().to_string(), "((2,2),(2,3)):((4,1),(2,8))");
/// ```
pub fn logical_divide(a: &Layout, tiler: &Tiler) -> Result<Layout> {
    match tiler {
        Tiler::Layout(b) => {
            divide_by_layout(a, b).map_err(|e| e.context(format!("logical_divide of {a} by {b}")))
        }
        Tiler::ByMode(parts) => by_mode(a, parts, "logical_divide", logical_divide),
    }
}

fn divide_by_layout(a: &Layout, b: &Layout) -> Result<Layout> {
    let rest = complement(b, a.size())?;
    composition(a, &Layout::from_modes([b.clone(), rest])?)
}

/// CuTe's `zipped_divide`: [`logical_divide`], then the tiles of all divided modes are gathered
/// into mode 0 and the rests (followed by the modes the tiler did not reach) into mode 1:
/// `((TileM,TileN), (RestM,RestN,L,...))`. A `None` tiler entry contributes the tile `1:0` and
/// keeps its whole mode as a rest. Mode 0 is always `A o B` for a layout tiler.
///
/// ```
/// use tessel_layout::{zipped_divide, Layout, Tiler};
/// // CuTe docs (02_layout_algebra.md): shape ((3,8),(3,4)).
/// let a: Layout = "(9,(4,8)):(59,(13,1))".parse().unwrap();
/// let t = Tiler::ByMode(vec![
///     Some(Tiler::Layout("3:3".parse().unwrap())),
///     Some(Tiler::Layout("(2,4):(1,8)".parse().unwrap())),
/// ]);
/// let z = zipped_divide(&a, &t).unwrap();
/// assert_eq!(z.mode(0).unwrap().to_string(), "(3,(2,4)):(177,(13,2))");
/// assert_eq!(z.mode(0).unwrap().size(), 24);
/// assert_eq!(z.mode(1).unwrap().size(), 12);
/// ```
pub fn zipped_divide(a: &Layout, tiler: &Tiler) -> Result<Layout> {
    let (tile, rest) = unzip(a, tiler, "zipped_divide", &logical_divide)?;
    Layout::from_modes([tile, rest])
}

/// CuTe's `tiled_divide`: like [`zipped_divide`] with the rest mode unpacked:
/// `((TileM,TileN), RestM, RestN, L, ...)`.
///
/// ```
/// use tessel_layout::{tiled_divide, Layout, Tiler};
/// let a: Layout = "(8,8):(1,8)".parse().unwrap();
/// let t = Tiler::ByMode(vec![
///     Some(Tiler::Layout("2:1".parse().unwrap())),
///     Some(Tiler::Layout("4:1".parse().unwrap())),
/// ]);
/// assert_eq!(tiled_divide(&a, &t).unwrap().to_string(), "((2,4),4,2):((1,8),2,32)");
/// ```
pub fn tiled_divide(a: &Layout, tiler: &Tiler) -> Result<Layout> {
    let (tile, rest) = unzip(a, tiler, "tiled_divide", &logical_divide)?;
    Layout::from_modes(std::iter::once(tile).chain(rest.modes()))
}

/// CuTe's `flat_divide`: like [`zipped_divide`] with both modes unpacked:
/// `(TileM, TileN, RestM, RestN, L, ...)`.
///
/// ```
/// use tessel_layout::{flat_divide, Layout, Tiler};
/// let a: Layout = "(8,8):(1,8)".parse().unwrap();
/// let t = Tiler::ByMode(vec![
///     Some(Tiler::Layout("2:1".parse().unwrap())),
///     Some(Tiler::Layout("4:1".parse().unwrap())),
/// ]);
/// assert_eq!(flat_divide(&a, &t).unwrap().to_string(), "(2,4,4,2):(1,8,2,32)");
/// ```
pub fn flat_divide(a: &Layout, tiler: &Tiler) -> Result<Layout> {
    let (tile, rest) = unzip(a, tiler, "flat_divide", &logical_divide)?;
    Layout::from_modes(tile.modes().into_iter().chain(rest.modes()))
}
