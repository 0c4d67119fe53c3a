//! Divides: split a layout into the elements a tiler selects and the layout of the tiles.
//!
//! ```
//! use tessel_layout::{logical_divide, zipped_divide, Layout, Tiler};
//! // CuTe docs: logical_divide((4,2,3):(2,1,8), 4:2) = ((2,2),(2,3)):((4,1),(2,8)).
//! let a: Layout = "(4,2,3):(2,1,8)".parse().unwrap();
//! let t = Tiler::Layout("4:2".parse().unwrap());
//! assert_eq!(logical_divide(&a, &t).unwrap().to_string(), "((2,2),(2,3)):((4,1),(2,8))");
//! // A rank-2 logical divide is already zipped: (tile, rest).
//! assert_eq!(zipped_divide(&a, &t).unwrap(), logical_divide(&a, &t).unwrap());
//! ```

use super::Tiler;
use super::built::Built;
use super::coalesce::filtered_modes;
use super::complement::{complement_in_place, flat_ceil_div_size};
use super::composition::{Composer, Extended, Node, compose_extended, compose_nodes_into};
use super::flat::{
    LeafSlices, Mode, Modes, Scratch, filter_leaves_into, layout_of_modes, leaf_slices, modes_fit,
};
use super::tiler::{Grouping, by_mode, for_each_top_mode, halves_of, regroup, tree_parts};
use super::{coalesce, complement_to_shape, composition};
use crate::layout::Bounds;
use crate::{Error, Layout, Result, checked_mul};

/// CuTe's `logical_divide(A, B) = A o (B, complement(B, shape(coalesce(A))))`: mode 0 of the
/// result is `A o B` (one tile), mode 1 iterates over the tiles. With a by-mode tiler
/// `[T0, T1, ...]` each mode `i` of `A` is divided by `Ti` (`None` keeps the mode); modes past
/// the tiler are kept.
///
/// When `size(B)` does not divide `size(A)` the complement is rounded up
/// ([`complement_to_shape`]), so the last tiles run past `A`'s
/// domain (CuTe's convention; composition extends `A`'s last mode). tessel checks that the
/// tiles cover `A`'s domain exactly once: the modes of `filter(B)` and of the complement must
/// form a bijection onto `0..n` with `n >= size(A)` ([`ErrorKind::Inadmissible`](crate::ErrorKind)
/// otherwise, e.g. for `B = (4,2):(1,10)`, whose complement leaves the offsets 8 and 9 out).
/// Stride-0 modes of `B` repeat elements within a tile, as in CuTe.
///
/// ```
/// use tessel_layout::{logical_divide, Layout, Tiler};
/// // CuTe docs (media/docs/cpp/cute/02_layout_algebra.md, CUTLASS v4.2.1), 1-D example.
/// let a: Layout = "(4,2,3):(2,1,8)".parse().unwrap();
/// let b = Tiler::Layout("4:2".parse().unwrap());
/// assert_eq!(logical_divide(&a, &b).unwrap().to_string(), "((2,2),(2,3)):((4,1),(2,8))");
/// // The complement of (4,2):(1,10) skips the offsets 8 and 9: no tiling of 0..16.
/// let b = Tiler::Layout("(4,2):(1,10)".parse().unwrap());
/// assert!(logical_divide(&"16:1".parse().unwrap(), &b).is_err());
/// ```
pub fn logical_divide(a: &Layout, tiler: &Tiler) -> Result<Layout> {
    match tiler {
        Tiler::Layout(b) => {
            divide_by_layout(a, b).map_err(|e| e.context(format!("logical_divide of {a} by {b}")))
        }
        Tiler::ByMode(parts) => divide_by_modes_flat(a, parts)
            .or_else(|_| by_mode(a, parts, "logical_divide", logical_divide)),
    }
}

/// [`logical_divide`] by a by-mode tiler whose parts are layouts or `None`, computed on flat
/// mode lists: each divided mode is composed straight into the result's structure codes and
/// leaves, the kept modes are copied. Fails (with an unspecific error) wherever the by-mode
/// divide on layouts may fail, which then runs and reports the failure with its operands.
fn divide_by_modes_flat(a: &Layout, parts: &[Option<Tiler>]) -> Result<Layout> {
    let unspecific = || Error::invalid("the flat by-mode divide does not apply");
    let top = tree_parts(a).ok_or_else(unspecific)?;
    let rank = top.0;
    if parts.len() > rank {
        return Err(unspecific());
    }
    let mut out = Built::default();
    for_each_top_mode(top, |i, mode_codes, mode_shapes, mode_strides| {
        match parts.get(i) {
            Some(Some(Tiler::Layout(b))) => {
                out.push_node_code(2);
                with_divide_parts((mode_shapes, mode_strides), b, |ext, rest| {
                    compose_nodes_into(
                        ext,
                        &[Node::Tree(b.shape(), b.stride()), Node::Flat(rest)],
                        &mut out,
                    )
                })?;
            }
            Some(Some(Tiler::ByMode(_))) => return Err(unspecific()),
            _ => out.push_raw(mode_codes, mode_shapes, mode_strides),
        }
        Ok(())
    })?;
    out.checked_layout(rank).ok_or_else(unspecific)
}

/// The halves `(tile, rest)` of [`logical_divide`] by the layout `b`, with its errors.
fn divide_halves(a: &Layout, b: &Layout) -> Result<(Layout, Layout)> {
    let r =
        divide_by_layout(a, b).map_err(|e| e.context(format!("logical_divide of {a} by {b}")))?;
    halves_of(r)
}

/// [`divide_halves`] written into builders: the tile `A o B` appended to `tiles`, the rest
/// `A o complement` to `rests`. Fails (with an unspecific error) exactly where
/// [`divide_halves`] fails.
fn divide_halves_into(a: &Layout, b: &Layout, tiles: &mut Built, rests: &mut Built) -> Result<()> {
    with_divide_parts(leaf_slices(a), b, |ext, rest| {
        Composer::run(ext, Bounds::EMPTY, |composer| {
            composer.node_into(Node::Tree(b.shape(), b.stride()), tiles)?;
            composer.node_into(Node::Flat(rest), rests)?;
            match composer.finish()? {
                Some(acc) if acc.fits() => Ok(()),
                _ => Err(Error::invalid("the divide's halves are not a layout")),
            }
        })
    })
}

fn divide_by_layout(a: &Layout, b: &Layout) -> Result<Layout> {
    // The same steps on flat mode lists; where any of them fails, the steps below run again on
    // layouts and report the failure with its operands.
    if let Ok(quotient) = divide_on_modes(a, b) {
        return Ok(quotient);
    }
    let cotarget = coalesce(a)?.shape().clone();
    let rest = complement_to_shape(b, &cotarget)?;
    check_tiles_cover(a, b, &rest)?;
    composition(a, &Layout::from_modes([b.clone(), rest])?)
}

/// [`divide_by_layout`] computed on flat mode lists: the cotarget, the complement and the
/// checks without building their layouts, and `A o (B, rest)` without building `(B, rest)`.
/// Fails (with an unspecific error) exactly where [`divide_by_layout`] fails.
fn divide_on_modes(a: &Layout, b: &Layout) -> Result<Layout> {
    with_divide_parts(leaf_slices(a), b, |ext, rest| {
        compose_extended(ext, &[Node::Tree(b.shape(), b.stride()), Node::Flat(rest)])
    })
}

/// The operands of the composition `A o (B, rest)` of a divide of the layout with the leaves
/// `a_leaves` by `b`, handed to `then`: `A` extended and the modes of
/// `rest = complement(B, shape(coalesce(A)))`, after the checks of [`divide_by_layout`] (failing
/// with an unspecific error where they fail). One coalescing of `A` gives both the extended `A`
/// and the cotarget; `then` borrows both where they were built (no move of the mode lists).
#[inline]
fn with_divide_parts<T>(
    a_leaves: LeafSlices<'_>,
    b: &Layout,
    then: impl FnOnce(&Extended, &[Mode]) -> Result<T>,
) -> Result<T> {
    // size(A): the product of the extents of a valid layout fits in i64.
    let a_size = a_leaves.0.iter().fold(1i64, |p, &s| p.saturating_mul(s));
    let mut ext = Extended::unit();
    ext.fill_leaves(a_leaves);
    // shape(coalesce(A)) as the cotarget.
    let cotarget = |covered| flat_ceil_div_size(ext.coalesced_extents(), covered);
    // Sorted by stride here, so the complement's own sort finds them in order and the cover
    // check reads them in order.
    // Scratch lists in place of returned mode lists, which would be moved right after they
    // were written (see `Composer::run`).
    let b_leaves = leaf_slices(b);
    let (mut filtered, mut complement): (Scratch, Scratch) = (Scratch::new(), Scratch::new());
    let filtered = filtered.list(b_leaves.0.len());
    let filtered_len = filter_leaves_into(b_leaves, filtered);
    let b_filtered = &mut filtered[..filtered_len];
    b_filtered.sort_by_key(|m| m.1);
    let complement = complement.list(filtered_len + 1);
    complement[..filtered_len].copy_from_slice(b_filtered);
    let rest_len = complement_in_place(complement, filtered_len, cotarget)?;
    let rest = &complement[..rest_len];
    let rest_or_unit: &[Mode] = if rest.is_empty() { &[(1, 0)] } else { rest };
    // The layouts `rest` and `(B, rest)` must be valid layouts: `(B, rest)` folds the bounds of
    // `rest` on those of `B`.
    // Two plain loops rather than `Bounds::of_modes` over a chained iterator (30-70 more
    // instructions per divide, callgrind).
    let (b_shapes, b_strides) = (b.shape().iter_leaves(), b.stride().iter_leaves());
    let mut b_and_rest = Some(Bounds::EMPTY);
    for (&s, &d) in b_shapes.zip(b_strides) {
        b_and_rest = b_and_rest.and_then(|acc| acc.add(s, Some(d)));
    }
    for &(s, d) in rest_or_unit {
        b_and_rest = b_and_rest.and_then(|acc| acc.add(s, Some(d)));
    }
    if !modes_fit(rest_or_unit) || !b_and_rest.is_some_and(|acc| acc.fits()) {
        return Err(Error::invalid("the divide's complement does not fit"));
    }
    tiles_cover_sorted(a_size, b_filtered, rest_or_unit).map_err(|_| Error::inadmissible(""))?;
    then(&ext, rest)
}

/// The divide re-indexes `A`'s domain by `(B, rest)`: the modes of `filter(B)` and `rest`,
/// sorted by stride, must be the compact chain `1, s0, s0*s1, ...` (a bijection onto `0..n`),
/// with `n >= size(A)`. A complement that skipped part of a gap of `B` leaves indices of `A`
/// in no tile.
fn check_tiles_cover(a: &Layout, b: &Layout, rest: &Layout) -> Result<()> {
    let mut b_filtered = filtered_modes(b);
    b_filtered.sort_by_key(|m| m.1);
    tiles_cover_sorted(a.size(), &b_filtered, &rest.flat_modes())
}

/// [`check_tiles_cover`] for `size(A)`, the modes of `filter(B)` sorted by stride (a stable
/// sort) and the flat modes of `rest`.
///
/// The complement's modes come sorted by stride (its strides increase), so the two lists are
/// merged in stride order (ties: `B`'s first, as a stable sort of `B` followed by `rest` puts
/// them) instead of sorting their union; an unsorted `rest` is sorted first.
fn tiles_cover_sorted(a_size: i64, b_filtered: &[Mode], rest: &[Mode]) -> Result<()> {
    let rest_sorted: Modes;
    let rest = if rest.is_sorted_by_key(|m| m.1) {
        rest
    } else {
        rest_sorted = sorted_by_stride(rest.iter().copied());
        &rest_sorted
    };
    let (mut i, mut j) = (0, 0);
    let mut next = 1i64;
    loop {
        while j < rest.len() && rest[j].0 <= 1 {
            j += 1;
        }
        let (s, d) = match (b_filtered.get(i), rest.get(j)) {
            (Some(&bm), Some(&rm)) if rm.1 < bm.1 => {
                j += 1;
                rm
            }
            (Some(&bm), _) => {
                i += 1;
                bm
            }
            (None, Some(&rm)) => {
                j += 1;
                rm
            }
            (None, None) => break,
        };
        if d != next {
            let modes = sorted_by_stride(
                b_filtered
                    .iter()
                    .copied()
                    .chain(rest.iter().copied().filter(|m| m.0 > 1)),
            );
            return Err(Error::inadmissible(format!(
                "the tiles do not cover A's domain: (filter(B), complement) = {} must be a \
                 bijection onto 0..n with n >= size(A) = {}, but sorted by stride its mode {s}:{d} \
                 does not continue at {next} (B has a gap that is not a whole number of copies of \
                 its lower modes)",
                layout_of_modes(&modes)?,
                a_size
            )));
        }
        next = checked_mul(s, d, "the size of the tiles")?;
    }
    if next < a_size {
        return Err(Error::inadmissible(format!(
            "the tiles do not cover A's domain: they reach 0..{next}, short of size(A) = {a_size}"
        )));
    }
    Ok(())
}

/// The modes sorted by stride (a stable sort).
fn sorted_by_stride(modes: impl IntoIterator<Item = Mode>) -> Modes {
    let mut modes: Modes = modes.into_iter().collect();
    modes.sort_by_key(|m| m.1);
    modes
}

/// CuTe's `zipped_divide`: [`logical_divide`], then the tiles of all divided modes are gathered
/// into mode 0 and the rests (followed by the modes the tiler did not reach) into mode 1:
/// `((TileM,TileN), (RestM,RestN,L,...))`. A `None` (`_`) tiler entry takes its mode, which must
/// have rank 2, apart as `(tile, rest)`, as CuTe's `tile_unzip` does. Mode 0 is always `A o B`
/// for a layout tiler.
///
/// ```
/// use tessel_layout::{zipped_divide, Layout, Tiler};
/// // CuTe docs (media/docs/cpp/cute/02_layout_algebra.md, CUTLASS v4.2.1): shape ((3,8),(3,4)).
/// let a: Layout = "(9,(4,8)):(59,(13,1))".parse().unwrap();
/// let t = Tiler::ByMode(vec![
///     Some(Tiler::Layout("3:3".parse().unwrap())),
///     Some(Tiler::Layout("(2,4):(1,8)".parse().unwrap())),
/// ]);
/// let z = zipped_divide(&a, &t).unwrap();
/// assert_eq!(z.mode(0).unwrap().to_string(), "(3,(2,4)):(177,(13,2))");
/// assert_eq!(z.mode(0).unwrap().size(), 24);
/// assert_eq!(z.mode(1).unwrap().size(), 12);
/// // CuTe: a `_` entry splits its rank-2 mode into (tile, rest). (CuTe's tiler `1` is the
/// // static layout `_1:_0`.)
/// let a: Layout = "(2,(4,3)):(1,(12,2))".parse().unwrap();
/// let t = Tiler::ByMode(vec![Some(Tiler::Layout("1:0".parse().unwrap())), None]);
/// assert_eq!(zipped_divide(&a, &t).unwrap().to_string(), "((1,4),(2,3)):((0,12),(1,2))");
/// ```
pub fn zipped_divide(a: &Layout, tiler: &Tiler) -> Result<Layout> {
    regroup(
        a,
        tiler,
        "zipped_divide",
        &divide_halves,
        &divide_halves_into,
        Grouping::Zipped,
    )
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
    regroup(
        a,
        tiler,
        "tiled_divide",
        &divide_halves,
        &divide_halves_into,
        Grouping::Tiled,
    )
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
    regroup(
        a,
        tiler,
        "flat_divide",
        &divide_halves,
        &divide_halves_into,
        Grouping::Flat,
    )
}
