//! Products: reproduce a layout according to another.
//!
//! ```
//! use tessel_layout::{blocked_product, raked_product, Layout};
//! // CuTe docs: blocked and raked products of (2,5):(5,1) by (3,4):(1,3).
//! let a: Layout = "(2,5):(5,1)".parse().unwrap();
//! let b: Layout = "(3,4):(1,3)".parse().unwrap();
//! assert_eq!(blocked_product(&a, &b).unwrap().to_string(), "((2,3),(5,4)):((5,10),(1,30))");
//! assert_eq!(raked_product(&a, &b).unwrap().to_string(), "((3,2),(4,5)):((10,5),(30,1))");
//! ```

use super::Tiler;
use super::coalesce::filtered_modes;
use super::complement::complement_of_modes;
use super::composition::{Built, Extended, Node, compose_extended};
use super::flat::{Mode, Modes, ceil_div, modes_fit, modes_of, pad_to_rank};
use super::tiler::{Grouping, by_mode, regroup};
use super::{complement, composition};
use crate::layout::Bounds;
use crate::{Layout, Result, checked_mul};

/// CuTe's `logical_product(A, B) = (A, complement(A, size(A)*cosize(B)) o B)`: mode 0 is `A`,
/// mode 1 is `B` with every element replaced by a unique repetition of `A`. With a by-mode
/// tiler each mode `i` of `A` is multiplied by `Ti` (`None` keeps the mode).
///
/// tessel checks what makes the repetitions unique (an
/// [`ErrorKind::Inadmissible`](crate::ErrorKind) error otherwise): `B`'s strides are
/// non-negative, and the complement has room for all of `B` — `cosize(B) <= size(complement)`,
/// or the complement's last mode lies above all of `A`'s offsets. That fails only where the
/// complement rounded a gap of `A` down (CuTe returns overlapping copies there, e.g. for
/// `(2,3):(20,4)` and `5:1`). The result has size `size(A)*size(B)`.
///
/// ```
/// use tessel_layout::{logical_product, Layout, Tiler};
/// // CuTe docs (02_layout_algebra.md), 1-D example.
/// let a: Layout = "(2,2):(4,1)".parse().unwrap();
/// let b = Tiler::Layout("6:1".parse().unwrap());
/// assert_eq!(logical_product(&a, &b).unwrap().to_string(), "((2,2),(2,3)):((4,1),(2,8))");
/// // The complement of (2,3):(20,4) under 30 is 4:1: a fifth copy would overlap A.
/// let a: Layout = "(2,3):(20,4)".parse().unwrap();
/// assert!(logical_product(&a, &Tiler::Layout("5:1".parse().unwrap())).is_err());
/// ```
pub fn logical_product(a: &Layout, b: &Tiler) -> Result<Layout> {
    match b {
        Tiler::Layout(b) => product_by_layout(a, b)
            .map_err(|e| e.context(format!("logical_product of {a} and {b}"))),
        Tiler::ByMode(parts) => by_mode(a, parts, "logical_product", logical_product),
    }
}

fn product_by_layout(a: &Layout, b: &Layout) -> Result<Layout> {
    let copies = product_copies(a, b)?;
    pair_of(a, &copies)
}

/// The halves `(A, copies)` of [`logical_product`] by the layout `b`, with its errors: what
/// [`unzip`](super::tiler::unzip) takes apart, without building the pair.
pub(crate) fn product_halves(a: &Layout, b: &Layout) -> Result<(Layout, Layout)> {
    let copies =
        product_copies(a, b).map_err(|e| e.context(format!("logical_product of {a} and {b}")))?;
    Ok((a.clone(), copies))
}

/// The second mode of `(A, complement(A, size(A)*cosize(B)) o B)`, after every check of the
/// product: `(A, copies)` is a valid layout of size `size(A)*size(B)`.
fn product_copies(a: &Layout, b: &Layout) -> Result<Layout> {
    if let Some((s, d)) = modes_of(b).into_iter().find(|m| m.0 > 1 && m.1 < 0) {
        return Err(crate::Error::inadmissible(format!(
            "the mode {s}:{d} of B has a negative stride (a product needs B's strides \
             non-negative)"
        )));
    }
    let b_cosize = b.cosize();
    let cotarget = checked_mul(a.size(), b_cosize, "size(A)*cosize(B)")?;
    // The same steps on flat mode lists; where any of them fails, the steps below run again on
    // layouts and report the failure with its operands.
    if let Ok(copies) = copies_on_modes(a, b, cotarget, b_cosize) {
        return Ok(copies);
    }
    let rest = complement(a, cotarget)?;
    check_copies_disjoint(a, b, &rest)?;
    let product = Layout::from_modes([a.clone(), composition(&rest, b)?])?;
    check_product_size(a, b, &product)?;
    product.mode(1)
}

/// The layout `(a, b)` of two layouts whose pair the caller has checked, written straight into
/// its structure codes and leaves.
fn pair_of(a: &Layout, b: &Layout) -> Result<Layout> {
    let mut out = Built::default();
    out.push_layout(a)?;
    out.push_layout(b)?;
    let (shape, stride) = out.finish(2);
    Ok(Layout::from_checked_parts(shape, stride))
}

/// The steps of [`product_copies`] after its cotarget on flat mode lists: the complement
/// without building its layout, composed with `B` directly, and the checks of the pair
/// `(A, copies)` on its leaves. Fails (with an unspecific error) exactly where they fail.
/// `b_cosize` is `cosize(B)`.
fn copies_on_modes(a: &Layout, b: &Layout, cotarget: i64, b_cosize: i64) -> Result<Layout> {
    if cotarget < 1 {
        return Err(crate::Error::invalid("the cotarget must be at least 1"));
    }
    let a_filtered = filtered_modes(a);
    let rest: Modes = complement_of_modes(a_filtered.clone(), |covered| {
        Ok(ceil_div(cotarget, covered))
    })?;
    let rest_or_unit: &[Mode] = if rest.is_empty() { &[(1, 0)] } else { &rest };
    if !modes_fit(rest_or_unit) {
        return Err(crate::Error::invalid("the complement does not fit"));
    }
    let rest_size = rest_or_unit.iter().map(|m| m.0).product::<i64>();
    let rest_last_stride = rest_or_unit.last().map_or(0, |m| m.1);
    if copies_overlap(&a_filtered, b_cosize, rest_size, rest_last_stride) {
        return Err(crate::Error::inadmissible("the copies of A overlap"));
    }
    let copies = compose_extended(
        &Extended::of_modes(rest_or_unit.iter().copied().collect()),
        &[Node::Tree(b.shape(), b.stride())],
    )?;
    // The checks of `Layout::from_modes([A, copies])` and of the product's size.
    let bounds = Bounds::of_modes(a.leaf_modes().chain(copies.leaf_modes()));
    let expected = a.size().checked_mul(b.size());
    match bounds {
        Some(acc) if acc.fits() && Some(acc.size) == expected => Ok(copies),
        _ => Err(crate::Error::invalid("the product does not fit")),
    }
}

/// Whether the copies of `A` overlap (see [`check_copies_disjoint`]), from the modes of
/// `filter(A)`, `cosize(B)` and the size and last stride of the complement.
fn copies_overlap(a_filtered: &[Mode], b_cosize: i64, rest_size: i64, last_stride: i64) -> bool {
    let above_a = a_filtered
        .iter()
        .map(|&(s, d)| s.saturating_mul(d))
        .max()
        .unwrap_or(1);
    b_cosize > rest_size && last_stride < above_a
}

/// The copies of `A` at the offsets `rest(B(c))` are disjoint when `B` stays inside the domain
/// of `rest = complement(A, size(A)*cosize(B))`, or when `rest`'s last mode lies above all of
/// `A`'s offsets (so its extension past `size(rest)` does too). Neither holds only when the
/// complement rounded a gap of `A` down and then had no room left for a last mode, e.g.
/// `A = (2,3):(20,4)`, `B = 5:1`: the complement is `4:1`, and `B(4) = 4` would land on `A(0,1)`.
fn check_copies_disjoint(a: &Layout, b: &Layout, rest: &Layout) -> Result<()> {
    let last_stride = rest.flat_modes().last().map_or(0, |m| m.1);
    if copies_overlap(&filtered_modes(a), b.cosize(), rest.size(), last_stride) {
        return Err(crate::Error::inadmissible(format!(
            "the copies of A overlap: B reaches offset {} but complement(A, size(A)*cosize(B)) = \
             {rest} has only {} elements and no mode above A's offsets to run on in (A has a gap \
             the complement only partly fills)",
            b.cosize() - 1,
            rest.size()
        )));
    }
    Ok(())
}

/// A product holds one copy of `A` per element of `B`: its size must be `size(A)*size(B)`.
fn check_product_size(a: &Layout, b: &Layout, product: &Layout) -> Result<()> {
    let expected = checked_mul(a.size(), b.size(), "size(A)*size(B)")?;
    if product.size() != expected {
        return Err(crate::Error::inadmissible(format!(
            "the product has size {} but must have size(A)*size(B) = {expected} (one copy of \
             A per element of B): {product}",
            product.size()
        )));
    }
    Ok(())
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
    regroup(a, b, "zipped_product", &product_halves, Grouping::Zipped)
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
    regroup(a, b, "tiled_product", &product_halves, Grouping::Tiled)
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
    regroup(a, b, "flat_product", &product_halves, Grouping::Flat)
}

/// The rank-matched product of CuTe's `blocked_product` / `raked_product`: both operands padded
/// with `1:0` modes to the larger rank, multiplied as 1-D layouts, and mode `i` of each half
/// paired up (`block_first` puts `A`'s part first).
fn rank_matched_product(a: &Layout, b: &Layout, block_first: bool, name: &str) -> Result<Layout> {
    let inner = || -> Result<Layout> {
        let rank = a.rank().max(b.rank());
        let (pa, pb) = (padded(a, rank)?, padded(b, rank)?);
        // The product is (A, tiles): its first half is A itself.
        let tiles = product_copies(&pa, &pb)?;
        let block: &Layout = &pa;
        // Mode i of each half is the part that came from mode i of its operand. A rank-1
        // operand that is a single leaf (`3:2`) is one mode as a whole, although the half built
        // from it may be a tuple (`complement o 4:1` can be `(2,2):(1,6)`).
        let mode_of = |half: &Layout, operand: &Layout, i: usize| {
            if operand.shape().is_int() {
                Ok(half.clone())
            } else {
                half.mode(i)
            }
        };
        let pair = |i: usize| -> Result<(Layout, Layout)> {
            let (x, y) = (mode_of(block, &pa, i)?, mode_of(&tiles, &pb, i)?);
            Ok(if block_first { (x, y) } else { (y, x) })
        };
        if let Some(product) = pairs_flat(rank, pair)? {
            check_product_size(a, b, &product)?;
            return Ok(product);
        }
        let pairs = (0..rank)
            .map(|i| pair(i).and_then(|(x, y)| Layout::from_modes([x, y])))
            .collect::<Result<smallvec::SmallVec<[Layout; 4]>>>()?;
        let product = Layout::from_modes(pairs)?;
        check_product_size(a, b, &product)?;
        Ok(product)
    };
    inner().map_err(|e| e.context(format!("{name} of {a} and {b}")))
}

/// The layout `((x0,y0),(x1,y1),...)` of the `rank` pairs `pair(i)`, written straight into its
/// structure codes and leaves; `None` when a pair fails or the result is not a valid layout (the
/// pairs are then built as layouts, which report the failure).
fn pairs_flat(
    rank: usize,
    pair: impl Fn(usize) -> Result<(Layout, Layout)>,
) -> Result<Option<Layout>> {
    let mut out = Built::default();
    for i in 0..rank {
        // A failing pair is reported by the layouts, in their order.
        let Ok((x, y)) = pair(i) else {
            return Ok(None);
        };
        crate::int_tuple::store::push_node_code(&mut out.codes, 2);
        out.push_layout(&x)?;
        out.push_layout(&y)?;
    }
    Ok(out.into_checked_layout(rank))
}

/// `layout` padded with `1:0` modes to `rank` modes, borrowed when it has them.
fn padded(layout: &Layout, rank: usize) -> Result<std::borrow::Cow<'_, Layout>> {
    Ok(if layout.rank() == rank {
        std::borrow::Cow::Borrowed(layout)
    } else {
        std::borrow::Cow::Owned(pad_to_rank(layout, rank)?)
    })
}

/// CuTe's `blocked_product`: reproduces the block `A` over the layout of blocks `B`, mode by
/// mode. Both are padded to the same rank `R`; mode `i` of the result is `(A_i, B*_i)` where
/// `B*` is `B` with each element replaced by a repetition of `A`. The result has rank `R`.
///
/// The modes are not coalesced, as in the CuTe documentation's example below and in
/// `include/cute/layout.hpp` since CUTLASS 3.8 (earlier versions coalesced each mode with
/// `coalesce(.., (1,...,1))`: the same function with the same mode sizes, which
/// [`coalesce_profile`](crate::coalesce_profile) with a profile of ones gives). A rank-1
/// operand that is a single leaf is one mode as a whole, so the result of two such operands
/// has rank 1 and size `size(A)*size(B)`.
///
/// ```
/// use tessel_layout::{blocked_product, coalesce_profile, IntTuple, Layout};
/// // CuTe docs (docs/semantics.md): a 2x5 row-major block tiled 3x4 column-major.
/// let a: Layout = "(2,5):(5,1)".parse().unwrap();
/// let b: Layout = "(3,4):(1,3)".parse().unwrap();
/// let r = blocked_product(&a, &b).unwrap();
/// assert_eq!(r.to_string(), "((2,3),(5,4)):((5,10),(1,30))");
/// // The coalesced form of CUTLASS before 3.8: mode 0 continues itself (2*5 = 10), 6:5.
/// let by_mode = coalesce_profile(&r, &IntTuple::from_ints([1, 1])).unwrap();
/// assert_eq!(by_mode.to_string(), "(6,(5,4)):(5,(1,30))");
/// // Rank 1: four copies of 3:2 at the offsets of complement(3:2, 12) = (2,2):(1,6).
/// let r = blocked_product(&"3:2".parse().unwrap(), &"4:1".parse().unwrap()).unwrap();
/// assert_eq!(r.to_string(), "((3,(2,2))):((2,(1,6)))");
/// assert_eq!(r.size(), 12);
/// ```
pub fn blocked_product(a: &Layout, b: &Layout) -> Result<Layout> {
    rank_matched_product(a, b, true, "blocked_product")
}

/// CuTe's `raked_product`: like [`blocked_product`] but each mode pairs `B`'s part first, so
/// the repetitions of `A` are interleaved ("raked", a cyclic distribution). Its modes are not
/// coalesced either (see [`blocked_product`]).
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
