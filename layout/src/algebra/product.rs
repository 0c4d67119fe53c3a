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
use super::built::Built;
use super::coalesce::filtered_modes;
use super::complement::complement_in_place;
use super::composition::{Composer, Extended, Node};
use super::flat::{
    Mode, Scratch, ceil_div, filter_leaves_into, leaf_slices, modes_of, pad_to_rank,
};
use super::tiler::{Grouping, TopModes, by_mode, regroup, top_mode, tree_parts};
use super::{complement, composition};
use crate::int_tuple::store;
use crate::layout::Bounds;
use crate::{Layout, Result, checked_mul};

/// CuTe's `logical_product(A, B) = (A, complement(A, size(A)*cosize(B)) o B)`: mode 0 is `A`,
/// mode 1 is `B` with every element replaced by a unique repetition of `A`. With a by-mode
/// tiler each mode `i` of `A` is multiplied by `Ti` (`None` keeps the mode).
///
/// tessel checks what makes the repetitions unique (an
/// [`ErrorKind::Inadmissible`](crate::ErrorKind) error otherwise): `B`'s moving strides have
/// one sign (the sign condition; with negative strides the cotarget is taken with `|B|`, the
/// layout of their magnitudes, and the copies land at the negated offsets, as in CuTe), and
/// the complement has room for all of `|B|` — `cosize(|B|) <= size(complement)`, or the
/// complement's last mode lies above all of `A`'s offsets. That fails only where the
/// complement rounded a gap of `A` down (CuTe returns overlapping copies there, e.g. for
/// `(2,3):(20,4)` and `5:1`). The result has size `size(A)*size(B)`.
///
/// ```
/// use tessel_layout::{logical_product, Layout, Tiler};
/// // CuTe docs (media/docs/cpp/cute/02_layout_algebra.md, CUTLASS v4.2.1), 1-D example.
/// let a: Layout = "(2,2):(4,1)".parse().unwrap();
/// let b = Tiler::Layout("6:1".parse().unwrap());
/// assert_eq!(logical_product(&a, &b).unwrap().to_string(), "((2,2),(2,3)):((4,1),(2,8))");
/// // The complement of (2,3):(20,4) under 30 is 4:1: a fifth copy would overlap A.
/// let a: Layout = "(2,3):(20,4)".parse().unwrap();
/// assert!(logical_product(&a, &Tiler::Layout("5:1".parse().unwrap())).is_err());
/// // A negative stride in B puts the copy of A below it, as CuTe does.
/// let r = logical_product(&"4:1".parse().unwrap(), &Tiler::Layout("2:-4".parse().unwrap()));
/// assert_eq!(r.unwrap().to_string(), "(4,2):(1,-16)");
/// ```
pub fn logical_product(a: &Layout, b: &Tiler) -> Result<Layout> {
    match b {
        Tiler::Layout(b) => product_by_layout(a, b)
            .map_err(|e| e.context(format!("logical_product of {a} and {b}"))),
        Tiler::ByMode(parts) => by_mode(a, parts, "logical_product", logical_product),
    }
}

fn product_by_layout(a: &Layout, b: &Layout) -> Result<Layout> {
    // `(A, copies)` written straight into its codes and leaves; where that fails, the steps run
    // again on layouts and report the failure with its operands.
    let mut out = Built::new();
    out.push_layout(a)?;
    if copies_into(a, b, &mut out).is_ok() {
        let (shape, stride) = out.finish(2);
        return Ok(Layout::from_checked_parts(shape, stride));
    }
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

/// [`product_halves`] written into builders: `A` appended to `tiles`, the copies to `rests`.
/// Fails (with an unspecific error) exactly where [`product_halves`] fails.
pub(crate) fn product_halves_into(
    a: &Layout,
    b: &Layout,
    tiles: &mut Built,
    rests: &mut Built,
) -> Result<()> {
    tiles.push_layout(a)?;
    copies_into(a, b, rests)
}

/// The second mode of `(A, complement(A, size(A)*cosize(B)) o B)`, after every check of the
/// product: `(A, copies)` is a valid layout of size `size(A)*size(B)`.
fn product_copies(a: &Layout, b: &Layout) -> Result<Layout> {
    let mut out = Built::new();
    if copies_into(a, b, &mut out).is_ok() {
        let (shape, stride) = out.single();
        return Ok(Layout::from_checked_parts(shape, stride));
    }
    // The same steps on layouts, which report the failure with its operands.
    let magnitude = magnitude_of(b)?;
    let cotarget = checked_mul(a.size(), magnitude.cosize(), "size(A)*cosize(|B|)")?;
    let rest = complement(a, cotarget)?;
    check_copies_disjoint(a, &magnitude, &rest)?;
    let product = Layout::from_modes([a.clone(), composition(&rest, b)?])?;
    check_product_size(a, b, &product)?;
    product.mode(1)
}

/// `|B|`: `B` itself when no mode of extent above 1 has a negative stride, else `B` with its
/// strides negated, which must then leave none negative (the sign condition of a product).
///
/// CuTe composes the complement of `A` with `B` as it is, and a leaf with a negative stride
/// gives the copies of `A` at the negated offsets (`logical_product(4:1, 2:-4) =
/// (4,2):(1,-16)`). When every moving stride of `B` is negative they are the copies that `|B|`
/// places, negated, and they are disjoint exactly when those are; with strides of both signs,
/// a negative and a positive offset of the complement can meet inside `A`'s gaps, so tessel
/// refuses them.
fn magnitude_of(b: &Layout) -> Result<Layout> {
    let moving = modes_of(b);
    let negative = moving.iter().find(|m| m.0 > 1 && m.1 < 0).copied();
    let Some((ns, nd)) = negative else {
        return Ok(b.clone());
    };
    if let Some(&(ps, pd)) = moving.iter().find(|m| m.0 > 1 && m.1 > 0) {
        return Err(crate::Error::inadmissible(format!(
            "the sign condition fails: B has the mode {ns}:{nd} with a negative and the mode \
             {ps}:{pd} with a positive stride (a product needs B's strides of one sign, so that \
             the copies of A at negative and positive offsets of the complement cannot meet)"
        )));
    }
    super::flat::negate_strides(b)
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

/// The steps of [`product_copies`] on flat mode lists, appending the copies to `out` as one
/// element: the checks of `B`, its size and cosize in one pass over its leaves, the complement
/// without building its layout, composed with `B` straight into `out`, and the checks of the
/// pair `(A, copies)` folded onto the bounds of `A`. Fails (with an unspecific error) exactly
/// where [`product_copies`] fails.
fn copies_into(a: &Layout, b: &Layout, out: &mut Built) -> Result<()> {
    let unspecific = || crate::Error::invalid("the flat product does not apply");
    let mut b_bounds = Bounds::EMPTY;
    for (s, d) in b.leaf_modes() {
        if s > 1 && d < 0 {
            return Err(unspecific());
        }
        b_bounds = b_bounds.add(s, Some(d)).ok_or_else(unspecific)?;
    }
    // cosize(B) and size(A), as `Layout::cosize` and `Layout::size` give them.
    let b_cosize = b_bounds.hi.checked_add(1).ok_or_else(unspecific)?;
    let a_bounds = Bounds::of_modes(a.leaf_modes()).ok_or_else(unspecific)?;
    let cotarget = a_bounds
        .size
        .checked_mul(b_cosize)
        .filter(|&c| c >= 1)
        .ok_or_else(unspecific)?;
    // `filter(A)` and then its complement in one scratch list, rewritten in place (a returned
    // list would be moved right after it was written, see `Composer::run`).
    let a_leaves = leaf_slices(a);
    let mut scratch: Scratch = Scratch::new();
    let list = scratch.list(a_leaves.0.len() + 1);
    let filtered_len = filter_leaves_into(a_leaves, list);
    let above_a = above(&list[..filtered_len]);
    let rest_len = complement_in_place(list, filtered_len, |covered| {
        Ok(ceil_div(cotarget, covered))
    })?;
    let rest = &list[..rest_len];
    let rest_or_unit: &[Mode] = if rest.is_empty() { &[(1, 0)] } else { rest };
    // The complement must be a valid layout ([`Bounds`]); its size comes with the check.
    let rest_size = Bounds::of_modes(rest_or_unit.iter().copied())
        .filter(|b| b.fits())
        .ok_or_else(unspecific)?
        .size;
    let rest_last_stride = rest_or_unit.last().map_or(0, |m| m.1);
    if copies_overlap(above_a, b_cosize, rest_size, rest_last_stride) {
        return Err(unspecific());
    }
    let mut ext = Extended::unit();
    ext.fill_mode_slice(rest_or_unit);
    Composer::run(&ext, a_bounds, |composer| {
        composer.node_into(Node::Tree(b.shape(), b.stride()), out)?;
        // The checks of `(A, copies)` as a layout and of the product's size.
        match composer.finish()? {
            Some(acc)
                if acc.fits() && a_bounds.size.checked_mul(b_bounds.size) == Some(acc.size) =>
            {
                Ok(())
            }
            _ => Err(unspecific()),
        }
    })
}

/// One past the highest offset of the modes of `filter(A)`: `max(s*d)` (1 for none).
fn above(a_filtered: &[Mode]) -> i64 {
    a_filtered
        .iter()
        .map(|&(s, d)| s.saturating_mul(d))
        .max()
        .unwrap_or(1)
}

/// Whether the copies of `A` overlap (see [`check_copies_disjoint`]), from [`above`] of
/// `filter(A)`, `cosize(B)` and the size and last stride of the complement.
fn copies_overlap(above_a: i64, b_cosize: i64, rest_size: i64, last_stride: i64) -> bool {
    b_cosize > rest_size && last_stride < above_a
}

/// The copies of `A` at the offsets `rest(B(c))` are disjoint when `B` stays inside the domain
/// of `rest = complement(A, size(A)*cosize(B))`, or when `rest`'s last mode lies above all of
/// `A`'s offsets (so its extension past `size(rest)` does too). Neither holds only when the
/// complement rounded a gap of `A` down and then had no room left for a last mode, e.g.
/// `A = (2,3):(20,4)`, `B = 5:1`: the complement is `4:1`, and `B(4) = 4` would land on `A(0,1)`.
fn check_copies_disjoint(a: &Layout, b: &Layout, rest: &Layout) -> Result<()> {
    let last_stride = rest.flat_modes().last().map_or(0, |m| m.1);
    if copies_overlap(
        above(&filtered_modes(a)),
        b.cosize(),
        rest.size(),
        last_stride,
    ) {
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
    regroup(
        a,
        b,
        "zipped_product",
        &product_halves,
        &product_halves_into,
        Grouping::Zipped,
    )
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
    regroup(
        a,
        b,
        "tiled_product",
        &product_halves,
        &product_halves_into,
        Grouping::Tiled,
    )
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
    regroup(
        a,
        b,
        "flat_product",
        &product_halves,
        &product_halves_into,
        Grouping::Flat,
    )
}

/// The rank-matched product of CuTe's `blocked_product` / `raked_product`: both operands padded
/// with `1:0` modes to the larger rank, multiplied as 1-D layouts, and mode `i` of each half
/// paired up (`block_first` puts `A`'s part first).
fn rank_matched_product(a: &Layout, b: &Layout, block_first: bool, name: &str) -> Result<Layout> {
    let inner = || -> Result<Layout> {
        let rank = a.rank().max(b.rank());
        let (pa, pb) = (padded(a, rank)?, padded(b, rank)?);
        match rank_matched_flat(&pa, &pb, rank, block_first, a, b) {
            Some(product) => Ok(product),
            None => rank_matched_on_layouts(&pa, &pb, rank, block_first, a, b),
        }
    };
    inner().map_err(|e| e.context(format!("{name} of {a} and {b}")))
}

/// [`rank_matched_product`] of the operands `pa` and `pb` padded to `rank` modes (from `a` and
/// `b`), on layouts: the halves and their modes built as layouts, then paired. Reports a
/// failure with its operands.
fn rank_matched_on_layouts(
    pa: &Layout,
    pb: &Layout,
    rank: usize,
    block_first: bool,
    a: &Layout,
    b: &Layout,
) -> Result<Layout> {
    // The product is (A, tiles): its first half is A itself.
    let tiles = product_copies(pa, pb)?;
    let block: &Layout = pa;
    // Mode i of each half is the part that came from mode i of its operand, as CuTe's
    // `zip(first, second)` pairs them. When the first half (A for blocked, the copies for
    // raked) is a single leaf, zip pairs it with the whole second half: `((4,(4)))` for the
    // copies `(4):(4)` of `4:1`. A rank-1 operand that is a single leaf (`3:2`) is one mode
    // as a whole, although the half built from it may be a tuple (`complement o 4:1` can be
    // `(2,2):(1,6)`).
    let first = if block_first { block } else { &tiles };
    let first_is_leaf = first.shape().is_int();
    let mode_of = |half: &Layout, operand: &Layout, i: usize| {
        if first_is_leaf || operand.shape().is_int() {
            Ok(half.clone())
        } else {
            half.mode(i)
        }
    };
    let pair = |i: usize| -> Result<(Layout, Layout)> {
        let (x, y) = (mode_of(block, pa, i)?, mode_of(&tiles, pb, i)?);
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
}

/// [`rank_matched_product`] of the operands `pa` and `pb` padded to `rank` modes (from `a`
/// and `b`), written straight into the result's structure codes and leaves: the copies are
/// composed into a builder, and mode `i` of each half is copied from there and from `pa` as
/// slices (no layout is built for a half or a mode). `None` wherever the steps on layouts
/// may fail, which then run and report the failure.
fn rank_matched_flat(
    pa: &Layout,
    pb: &Layout,
    rank: usize,
    block_first: bool,
    a: &Layout,
    b: &Layout,
) -> Option<Layout> {
    let mut copies = Built::new();
    copies_into(pa, pb, &mut copies).ok()?;
    let (codes, shapes, strides) = (
        copies.codes.as_slice(),
        copies.shapes.as_slice(),
        copies.strides.as_slice(),
    );
    // The copies as a layout: a leaf, or a node whose elements follow its code.
    let (copies_top, copies_is_leaf): (TopModes<'_>, bool) = match store::read_code(codes, 0) {
        (None, _) => ((1, codes, shapes, strides), true),
        (Some(arity), body) => ((arity, &codes[body..], shapes, strides), false),
    };
    let block_top = tree_parts(pa)?;
    // As in `rank_matched_product`: a half is taken whole when the first half is a leaf or its
    // operand is one, mode `i` of it otherwise.
    let first_is_leaf = if block_first {
        pa.shape().is_int()
    } else {
        copies_is_leaf
    };
    let block_whole = first_is_leaf || pa.shape().is_int();
    let copies_whole = first_is_leaf || pb.shape().is_int();
    let mut out = Built::new();
    for i in 0..rank {
        out.push_node_code(2);
        for block in [block_first, !block_first] {
            if block {
                if block_whole {
                    out.push_layout(pa).ok()?;
                } else {
                    let (c, s, d) = top_mode(block_top, i)?;
                    out.push_raw(c, s, d);
                }
            } else if copies_whole {
                out.push_raw(codes, shapes, strides);
            } else {
                let (c, s, d) = top_mode(copies_top, i)?;
                out.push_raw(c, s, d);
            }
        }
    }
    let product = out.checked_layout(rank)?;
    // The size check of `check_product_size`.
    let expected = a.size().checked_mul(b.size())?;
    (product.size() == expected).then_some(product)
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
        out.push_node_code(2);
        out.push_layout(&x)?;
        out.push_layout(&y)?;
    }
    Ok(out.checked_layout(rank))
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
/// [`include/cute/layout.hpp`](https://github.com/NVIDIA/cutlass/blob/v4.2.1/include/cute/layout.hpp) since CUTLASS 3.8 (earlier versions coalesced each mode with
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

#[cfg(test)]
mod tests {
    use super::{padded, rank_matched_flat, rank_matched_on_layouts};
    use crate::Layout;

    /// Layouts of rank 1 to 3 (leaves, flat tuples, a nested first mode, a rank-1 tuple) with
    /// small extents and strides, drawn by a fixed generator.
    fn operands() -> Vec<Layout> {
        let mut rng = crate::test_draw::Draw::new(0x2545_f491_4f6c_dd1d);
        let mut draw = |n: u64| rng.below(n);
        let mut out = Vec::new();
        for _ in 0..600 {
            let (s0, s1, s2) = (1 + draw(4), 1 + draw(4), 1 + draw(3));
            let (d0, d1, d2) = (draw(9) as i64 - 1, draw(9) as i64, draw(13) as i64);
            let text = match draw(5) {
                0 => format!("{s0}:{d0}"),
                1 => format!("({s0}):({d0})"),
                2 => format!("({s0},{s1}):({d0},{d1})"),
                3 => format!("(({s0},{s1}),{s2}):(({d0},{d1}),{d2})"),
                _ => format!("({s0},{s1},{s2}):({d0},{d1},{d2})"),
            };
            out.push(text.parse().expect("a valid layout"));
        }
        out
    }

    /// The blocked and raked products written into one builder give what building the halves
    /// and their modes as layouts gives, wherever they give a layout.
    #[test]
    fn flat_rank_matched_product_matches_the_layouts() {
        let ops = operands();
        let mut flat = 0;
        for (k, a) in ops.iter().enumerate() {
            for b in ops.iter().skip(k % 7).step_by(7) {
                let rank = a.rank().max(b.rank());
                let (pa, pb) = (padded(a, rank).unwrap(), padded(b, rank).unwrap());
                for block_first in [true, false] {
                    let general = rank_matched_on_layouts(&pa, &pb, rank, block_first, a, b);
                    if let Some(fast) = rank_matched_flat(&pa, &pb, rank, block_first, a, b) {
                        assert_eq!(Ok(fast), general, "{a} and {b}, block first: {block_first}");
                        flat += 1;
                    }
                }
            }
        }
        assert!(flat > 10_000, "the flat path ran {flat} times");
    }
}
