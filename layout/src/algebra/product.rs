//! Products: reproduce a layout according to another.

use super::Tiler;
use super::flat::pad_to_rank;
use super::tiler::{by_mode, unzip};
use super::{complement, composition};
use crate::{Layout, Result, checked_mul};

/// CuTe's `logical_product(A, B) = (A, complement(A, size(A)*cosize(B)) o B)`: mode 0 is `A`,
/// mode 1 is `B` with every element replaced by a unique repetition of `A`. With a by-mode
/// tiler each mode `i` of `A` is multiplied by `Ti` (`None` keeps the mode).
///
/// ```
/// use tessel_layout::{logical_product, Layout, Tiler};
/// // CuTe docs (02_layout_algebra.md), 1-D example.
/// let a: Layout = "(2,2):(4,1)".parse().unwrap();
/// let b = Tiler::Layout("6:1".parse().unwrap());
/// assert_eq!(logical_product(&a, &b).unwrap().to_string(), "((2,2),(2,3)):((4,1),(2,8))");
/// ```
pub fn logical_product(a: &Layout, b: &Tiler) -> Result<Layout> {
    match b {
        Tiler::Layout(b) => product_by_layout(a, b)
            .map_err(|e| e.context(format!("logical_product of {a} and {b}"))),
        Tiler::ByMode(parts) => by_mode(a, parts, "logical_product", logical_product),
    }
}

fn product_by_layout(a: &Layout, b: &Layout) -> Result<Layout> {
    let cotarget = checked_mul(a.size(), b.cosize(), "size(A)*cosize(B)")?;
    let rest = complement(a, cotarget)?;
    Layout::from_modes([a.clone(), composition(&rest, b)?])
}

/// CuTe's `zipped_product`: [`logical_product`] with the modes regrouped as
/// `((M,N), (TileM,TileN,L,...))`.
///
/// ```
/// use tessel_layout::{zipped_product, Layout, Tiler};
/// let a: Layout = "(2,2):(1,2)".parse().unwrap();
/// let t = Tiler::ByMode(vec![
///     Some(Tiler::Layout("3:1".parse().unwrap())),
///     Some(Tiler::Layout("2:1".parse().unwrap())),
/// ]);
/// assert_eq!(zipped_product(&a, &t).unwrap().to_string(), "((2,2),(3,2)):((1,2),(2,1))");
/// ```
pub fn zipped_product(a: &Layout, b: &Tiler) -> Result<Layout> {
    let (tile, rest) = unzip(a, b, "zipped_product", &logical_product)?;
    Layout::from_modes([tile, rest])
}

/// CuTe's `tiled_product`: [`zipped_product`] with the second mode unpacked:
/// `((M,N), TileM, TileN, L, ...)`.
///
/// ```
/// use tessel_layout::{tiled_product, Layout, Tiler};
/// let a: Layout = "(2,2):(1,2)".parse().unwrap();
/// let t = Tiler::ByMode(vec![
///     Some(Tiler::Layout("3:1".parse().unwrap())),
///     Some(Tiler::Layout("2:1".parse().unwrap())),
/// ]);
/// assert_eq!(tiled_product(&a, &t).unwrap().to_string(), "((2,2),3,2):((1,2),2,1)");
/// ```
pub fn tiled_product(a: &Layout, b: &Tiler) -> Result<Layout> {
    let (tile, rest) = unzip(a, b, "tiled_product", &logical_product)?;
    Layout::from_modes(std::iter::once(tile).chain(rest.modes()))
}

/// CuTe's `flat_product`: [`zipped_product`] with both modes unpacked:
/// `(M, N, TileM, TileN, L, ...)`.
///
/// ```
/// use tessel_layout::{flat_product, Layout, Tiler};
/// let a: Layout = "(2,2):(1,2)".parse().unwrap();
/// let t = Tiler::ByMode(vec![
///     Some(Tiler::Layout("3:1".parse().unwrap())),
///     Some(Tiler::Layout("2:1".parse().unwrap())),
/// ]);
/// assert_eq!(flat_product(&a, &t).unwrap().to_string(), "(2,2,3,2):(1,2,2,1)");
/// ```
pub fn flat_product(a: &Layout, b: &Tiler) -> Result<Layout> {
    let (tile, rest) = unzip(a, b, "flat_product", &logical_product)?;
    Layout::from_modes(tile.modes().into_iter().chain(rest.modes()))
}

/// The rank-matched product of CuTe's `blocked_product` / `raked_product`: both operands padded
/// with `1:0` modes to the larger rank, multiplied as 1-D layouts, and mode `i` of each half
/// paired up (`block_first` puts `A`'s part first).
fn rank_matched_product(a: &Layout, b: &Layout, block_first: bool, name: &str) -> Result<Layout> {
    let inner = || -> Result<Layout> {
        let rank = a.rank().max(b.rank());
        let pa = pad_to_rank(a, rank)?;
        let pb = pad_to_rank(b, rank)?;
        let product = product_by_layout(&pa, &pb)?;
        let (block, tiles) = (product.mode(0)?, product.mode(1)?);
        let pairs = (0..rank)
            .map(|i| {
                let (x, y) = (block.mode(i)?, tiles.mode(i)?);
                if block_first {
                    Layout::from_modes([x, y])
                } else {
                    Layout::from_modes([y, x])
                }
            })
            .collect::<Result<Vec<_>>>()?;
        Layout::from_modes(pairs)
    };
    inner().map_err(|e| e.context(format!("{name} of {a} and {b}")))
}

/// CuTe's `blocked_product`: reproduces the block `A` over the layout of blocks `B`, mode by
/// mode. Both are padded to the same rank `R`; mode `i` of the result is `(A_i, B*_i)` where
/// `B*` is `B` with each element replaced by a repetition of `A`. The result has rank `R`.
///
/// ```
/// use tessel_layout::{blocked_product, Layout};
/// // DESIGN.md / CuTe docs: a 2x5 row-major block tiled 3x4 column-major.
/// let a: Layout = "(2,5):(5,1)".parse().unwrap();
/// let b: Layout = "(3,4):(1,3)".parse().unwrap();
/// assert_eq!(blocked_product(&a, &b).unwrap().to_string(), "((2,3),(5,4)):((5,10),(1,30))");
/// ```
pub fn blocked_product(a: &Layout, b: &Layout) -> Result<Layout> {
    rank_matched_product(a, b, true, "blocked_product")
}

/// CuTe's `raked_product`: like [`blocked_product`] but each mode pairs `B`'s part first, so
/// the repetitions of `A` are interleaved ("raked", a cyclic distribution).
///
/// ```
/// use tessel_layout::{raked_product, Layout};
/// let a: Layout = "(2,5):(5,1)".parse().unwrap();
/// let b: Layout = "(3,4):(1,3)".parse().unwrap();
/// assert_eq!(raked_product(&a, &b).unwrap().to_string(), "((3,2),(4,5)):((10,5),(30,1))");
/// ```
pub fn raked_product(a: &Layout, b: &Layout) -> Result<Layout> {
    rank_matched_product(a, b, false, "raked_product")
}
