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
use super::coalesce::filtered_modes;
use super::complement::{complement_of_modes, flat_ceil_div_size};
use super::composition::{Built, Extended, Node, compose_extended, compose_nodes_into};
use super::flat::{Mode, Modes, coalesce_modes, layout_of_modes, modes_fit, modes_of};
use super::tiler::{Grouping, by_mode, halves_of, regroup};
use super::{coalesce, complement_to_shape, composition};
use crate::int_tuple::store;
use crate::layout::Bounds;
use crate::{Error, IntTuple, Layout, Result, checked_mul};

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
/// // CuTe docs (02_layout_algebra.md), 1-D example.
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
    let (rank, codes, shapes, strides) = tree_parts(a).ok_or_else(unspecific)?;
    if parts.len() > rank {
        return Err(unspecific());
    }
    let mut out = Built::default();
    let (mut k, mut leaf) = (0, 0);
    for i in 0..rank {
        let (end, n_leaves) = store::skip(codes, k, 1);
        let (mode_shapes, mode_strides) = (
            &shapes[leaf..leaf + n_leaves],
            &strides[leaf..leaf + n_leaves],
        );
        match parts.get(i) {
            Some(Some(Tiler::Layout(b))) => {
                let mut a_modes = Modes::new();
                for (&s, &d) in mode_shapes.iter().zip(mode_strides) {
                    a_modes.push((s, d));
                }
                let (ext, rest) = divide_parts(a_modes, b)?;
                store::push_node_code(&mut out.codes, 2);
                compose_nodes_into(
                    &ext,
                    &[Node::Tree(b.shape(), b.stride()), Node::Flat(&rest)],
                    &mut out,
                )?;
            }
            Some(Some(Tiler::ByMode(_))) => return Err(unspecific()),
            _ => {
                out.codes.extend_from_slice(&codes[k..end]);
                out.shapes.extend_from_slice(mode_shapes);
                out.strides.extend_from_slice(mode_strides);
            }
        }
        (k, leaf) = (end, leaf + n_leaves);
    }
    out.into_checked_layout(rank).ok_or_else(unspecific)
}

/// A layout's top-level modes: its rank, their structure codes, their extents and strides.
type TopModes<'a> = (usize, &'a [u8], &'a [i64], &'a [i64]);

/// The rank of `a` and the structure codes and leaves of its top-level modes (one leaf mode for
/// a leaf layout); `None` where shape and stride are not congruent (never for a valid layout).
fn tree_parts(a: &Layout) -> Option<TopModes<'_>> {
    match (a.shape(), a.stride()) {
        (IntTuple::Tuple(ss), IntTuple::Tuple(ds)) if ss.codes() == ds.codes() => {
            Some((ss.len(), ss.codes(), ss.leaf_slice(), ds.leaf_slice()))
        }
        (IntTuple::Int(s), IntTuple::Int(d)) => Some((
            1,
            &[store::LEAF],
            std::slice::from_ref(s),
            std::slice::from_ref(d),
        )),
        _ => None,
    }
}

/// The halves `(tile, rest)` of [`logical_divide`] by the layout `b`, with its errors.
fn divide_halves(a: &Layout, b: &Layout) -> Result<(Layout, Layout)> {
    let r =
        divide_by_layout(a, b).map_err(|e| e.context(format!("logical_divide of {a} by {b}")))?;
    halves_of(r)
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
    let (ext, rest) = divide_parts(modes_of(a), b)?;
    compose_extended(
        &ext,
        &[Node::Tree(b.shape(), b.stride()), Node::Flat(&rest)],
    )
}

/// The operands of the composition `A o (B, rest)` of a divide of the layout with the flat modes
/// `a_modes` by `b`: `A` extended and the modes of `rest = complement(B, shape(coalesce(A)))`,
/// after the checks of [`divide_by_layout`] (failing with an unspecific error where they fail).
fn divide_parts(a_modes: Modes, b: &Layout) -> Result<(Extended, Modes)> {
    // size(A): the product of the extents of a valid layout fits in i64.
    let a_size = a_modes.iter().fold(1i64, |p, m| p.saturating_mul(m.0));
    // shape(coalesce(A)): its extents, `1` when every extent is 1.
    let coalesced = coalesce_modes(a_modes.iter().copied());
    let cotarget = |covered| match coalesced.as_slice() {
        [] => flat_ceil_div_size([1], covered),
        modes => flat_ceil_div_size(modes.iter().map(|m| m.0), covered),
    };
    let b_filtered = filtered_modes(b);
    let rest = complement_of_modes(b_filtered.clone(), cotarget)?;
    let rest_or_unit: &[Mode] = if rest.is_empty() { &[(1, 0)] } else { &rest };
    // The layouts `rest` and `(B, rest)` must be valid layouts: `(B, rest)` folds the bounds of
    // `rest` on those of `B`.
    let b_and_rest = Bounds::of_modes(b.leaf_modes().chain(rest_or_unit.iter().copied()));
    if !modes_fit(rest_or_unit) || !b_and_rest.is_some_and(|acc| acc.fits()) {
        return Err(Error::invalid("the divide's complement does not fit"));
    }
    tiles_cover(a_size, b_filtered, rest_or_unit).map_err(|_| Error::inadmissible(""))?;
    Ok((Extended::of_modes(a_modes), rest))
}

/// The divide re-indexes `A`'s domain by `(B, rest)`: the modes of `filter(B)` and `rest`,
/// sorted by stride, must be the compact chain `1, s0, s0*s1, ...` (a bijection onto `0..n`),
/// with `n >= size(A)`. A complement that skipped part of a gap of `B` leaves indices of `A`
/// in no tile.
fn check_tiles_cover(a: &Layout, b: &Layout, rest: &Layout) -> Result<()> {
    tiles_cover(a.size(), filtered_modes(b), &rest.flat_modes())
}

/// [`check_tiles_cover`] for `size(A)`, the modes of `filter(B)` and the flat modes of `rest`.
fn tiles_cover(a_size: i64, b_filtered: super::flat::Modes, rest: &[Mode]) -> Result<()> {
    let mut modes = b_filtered;
    for &m in rest {
        if m.0 > 1 {
            modes.push(m);
        }
    }
    modes.sort_by_key(|m| m.1);
    let mut next = 1i64;
    for &(s, d) in &modes {
        if d != next {
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
    regroup(a, tiler, "zipped_divide", &divide_halves, Grouping::Zipped)
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
    regroup(a, tiler, "tiled_divide", &divide_halves, Grouping::Tiled)
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
    regroup(a, tiler, "flat_divide", &divide_halves, Grouping::Flat)
}
