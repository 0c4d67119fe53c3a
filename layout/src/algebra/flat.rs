//! Shared helpers on flat `(extent, stride)` mode lists (private to the algebra).

use smallvec::SmallVec;

use super::buf::Buf;

use crate::int_tuple::store;
use crate::layout::Bounds;
use crate::{Error, IntTuple, Layout, Result};

/// One flat mode: `(extent, stride)`.
pub(crate) type Mode = (i64, i64);

/// A list of flat modes, on the stack for up to six modes (112 bytes, moved without a call to
/// `memcpy`): the algebra works on these and builds the result's tree once at the end.
pub(crate) type Modes = SmallVec<[Mode; 6]>;

/// The flat `(extent, stride)` modes of `layout`, left to right, without allocating.
#[inline]
pub(crate) fn modes_of(layout: &Layout) -> Modes {
    let mut out = Modes::new();
    layout.for_each_mode(|s, d| out.push((s, d)));
    out
}

/// A scratch list of modes (or of other small records, `T`), inline for up to `N` (eight
/// unless given): the algebra's one-shot results (coalesce, filter, complement, the inverses)
/// are computed in such a list ([`Buf::list`]), in place, and written out once: a [`Modes`]
/// would check where its storage is on every access and be moved through every return.
pub(crate) type Scratch<T = Mode, const N: usize = 8> = Buf<T, N>;

/// Room for one mode per leaf of a layout whose leaves are held inline (coalesce and filter
/// write at most that many).
pub(crate) type LeafScratch = Scratch<Mode, { store::LEAVES }>;

/// The extents and the strides of the leaves of a layout, in order: two slices of one length.
pub(crate) type LeafSlices<'a> = (&'a [i64], &'a [i64]);

/// The [`LeafSlices`] of `layout` (read without walking its structure codes).
#[inline]
pub(crate) fn leaf_slices(layout: &Layout) -> LeafSlices<'_> {
    (layout.shape().leaf_slice(), layout.stride().leaf_slice())
}

/// Writes the coalesced modes of the leaves `(extents, strides)` whose stride `keep` accepts
/// into `list` (one slot per leaf at least) and returns their number (see [`push_coalesced`]).
#[inline]
fn coalesce_kept_leaves_into(
    (extents, strides): LeafSlices<'_>,
    list: &mut [Mode],
    keep: impl Fn(i64) -> bool,
) -> usize {
    let mut len = 0usize;
    for (&s, &d) in extents.iter().zip(strides) {
        if keep(d) {
            len = push_coalesced_at(list, len, (s, d));
        }
    }
    len
}

/// Writes the flat modes of `coalesce` of the layout with the leaves `leaves` into `list` (one
/// slot per leaf at least) and returns their number.
#[inline]
pub(crate) fn coalesce_leaves_into(leaves: LeafSlices<'_>, list: &mut [Mode]) -> usize {
    coalesce_kept_leaves_into(leaves, list, |_| true)
}

/// Writes the flat modes of `filter` of the layout with the leaves `leaves` (those with a
/// non-zero stride, coalesced) into `list` (one slot per leaf at least) and returns their
/// number.
#[inline]
pub(crate) fn filter_leaves_into(leaves: LeafSlices<'_>, list: &mut [Mode]) -> usize {
    coalesce_kept_leaves_into(leaves, list, |d| d != 0)
}

/// `ceil(a / b)` for `a >= 0`, `b > 0`.
#[inline]
pub(crate) fn ceil_div(a: i64, b: i64) -> i64 {
    a / b + i64::from(a % b != 0)
}

/// Whether mode `next` continues `prev` contiguously (`next.stride == prev.extent * prev.stride`).
#[inline]
pub(crate) fn continues(prev: Mode, next_stride: i64) -> bool {
    prev.0.checked_mul(prev.1) == Some(next_stride)
}

/// The coalescing rule for one mode after the coalesced modes ending in `last`: whether `mode`
/// is absorbed (an extent-1 mode is dropped, a mode that continues `last` merges into it);
/// `false` when it must be appended.
#[inline]
fn absorbed(last: Option<&mut Mode>, (s, d): Mode) -> bool {
    if s == 1 {
        return true;
    }
    match last {
        // The merged extent is at most the product of the input extents, which a valid
        // layout keeps within i64.
        Some(prev) if continues(*prev, d) => {
            prev.0 = prev.0.saturating_mul(s);
            true
        }
        _ => false,
    }
}

/// Appends `mode` to the coalesced list `out` the way [`coalesce_modes`] does: an extent-1 mode
/// is dropped, a mode that continues the last one merges into it.
#[inline]
pub(crate) fn push_coalesced(out: &mut Modes, mode: Mode) {
    if !absorbed(out.last_mut(), mode) {
        out.push(mode);
    }
}

/// CuTe's coalesce on flat modes: drop extent-1 modes, merge `s0:d0 ++ s1:s0*d0` into
/// `s0*s1:d0`. The result never contains an extent-1 mode (it may be empty).
pub(crate) fn coalesce_modes(modes: impl IntoIterator<Item = Mode>) -> Modes {
    let mut out = Modes::new();
    for m in modes {
        push_coalesced(&mut out, m);
    }
    out
}

/// Writes `mode` after the coalesced prefix `list[..kept]` the way [`push_coalesced`] appends
/// it, and returns the new length of the prefix; the slot `list[kept]` must be free (`kept` at
/// most the index of `mode` when `list` is rewritten in place).
#[inline]
pub(crate) fn push_coalesced_at(list: &mut [Mode], kept: usize, mode: Mode) -> usize {
    let last = match kept {
        0 => None,
        _ => Some(&mut list[kept - 1]),
    };
    if absorbed(last, mode) {
        kept
    } else {
        list[kept] = mode;
        kept + 1
    }
}

/// Whether the flat modes pass the checks of [`Layout::new`] for a layout with these leaves:
/// extents at least 1, size and offsets within `i64` ([`Bounds`], the one definition).
#[inline]
pub(crate) fn modes_fit(modes: &[Mode]) -> bool {
    // A plain loop rather than `Bounds::of_modes` (an iterator fold the optimizer keeps out of
    // line): this runs on every result of the algebra built from flat modes.
    let mut acc = Bounds::EMPTY;
    for &(s, d) in modes {
        match acc.add(s, Some(d)) {
            Some(next) => acc = next,
            None => return false,
        }
    }
    acc.fits()
}

/// The layout of flat modes: `1:0` when empty, `s:d` for one mode, a flat tuple otherwise.
/// The checks of [`Layout::new`] run on the list, and [`Layout::new`] itself only to report a
/// failure.
#[inline(always)]
pub(crate) fn layout_of_modes(modes: &[Mode]) -> Result<Layout> {
    layout_of_modes_or(modes, |e| e)
}

/// The layout of flat modes computed from a valid layout's leaves by dropping extent-1 or
/// stride-0 modes and merging contiguous ones (coalesce and filter): like [`layout_of_modes`],
/// without its checks, which hold by construction. The result's size is at most the input's
/// (equal for coalesce), a merged mode `s0*s1:d0` reaches exactly as far as the two modes
/// `s0:d0` and `s1:s0*d0` it replaces, and a dropped mode reaches nowhere, so its lowest and
/// highest offsets are the input's, which fit in `i64`. (Debug builds check them again, in
/// [`Layout::from_checked_parts`].)
#[inline(always)]
pub(crate) fn layout_of_coalesced_modes(modes: &[Mode]) -> Layout {
    with_node_of_modes(modes, Layout::from_checked_parts)
}

/// [`layout_of_modes`], passing its error (only) through `context`: a `map_err` on its result
/// would move the result through a test of the `Result`. Always inlined, so that the layout is
/// written straight into the caller's result.
#[inline(always)]
pub(crate) fn layout_of_modes_or(
    modes: &[Mode],
    context: impl FnOnce(Error) -> Error,
) -> Result<Layout> {
    if !modes_fit(modes) {
        return layout_of_failed_modes(modes).map_err(context);
    }
    with_node_of_modes(modes, |shape, stride| {
        Ok(Layout::from_checked_parts(shape, stride))
    })
}

/// The error of [`Layout::new`] on flat modes that fail its checks (kept out of line, so that
/// the result of [`layout_of_modes`] is written straight into its place).
#[cold]
#[inline(never)]
fn layout_of_failed_modes(modes: &[Mode]) -> Result<Layout> {
    let (shape, stride) = node_of_modes(modes);
    Layout::new(shape, stride)
}

/// `(shape, stride)` of a node whose leaves are the given modes: a leaf for one mode, a flat
/// tuple otherwise (an empty list is `1:0`).
pub(crate) fn node_of_modes(modes: &[Mode]) -> (IntTuple, IntTuple) {
    with_node_of_modes(modes, |shape, stride| (shape, stride))
}

/// `then` of the `(shape, stride)` of [`node_of_modes`], called in each case: the value it
/// builds from the two tuples is written straight into its place instead of the tuples being
/// moved there from where the cases meet.
#[inline(always)]
fn with_node_of_modes<R>(modes: &[Mode], then: impl FnOnce(IntTuple, IntTuple) -> R) -> R {
    match modes {
        [] => then(IntTuple::Int(1), IntTuple::Int(0)),
        &[(s, d)] => then(IntTuple::Int(s), IntTuple::Int(d)),
        _ if modes.len() <= store::LEAVES => {
            // The leaves gathered first, then both tuples built without a loop: the first one
            // is not built aside while the second one is (and then moved).
            let (mut shape, mut stride) = ([0; store::LEAVES], [0; store::LEAVES]);
            for (k, &(s, d)) in modes.iter().enumerate() {
                (shape[k], stride[k]) = (s, d);
            }
            then(
                IntTuple::flat_array(modes.len(), shape),
                IntTuple::flat_array(modes.len(), stride),
            )
        }
        _ => then(
            IntTuple::flat_with(modes.len(), |i| modes[i].0),
            IntTuple::flat_with(modes.len(), |i| modes[i].1),
        ),
    }
}

/// The two top-level modes of a rank-2 layout (copies of their tokens, no allocation); `None`
/// for any other rank.
pub(crate) fn into_two_modes(layout: Layout) -> Option<(Layout, Layout)> {
    let (IntTuple::Tuple(shapes), IntTuple::Tuple(strides)) = (layout.shape(), layout.stride())
    else {
        return None;
    };
    if shapes.len() != 2 || strides.len() != 2 {
        return None;
    }
    let (mut ss, mut ds) = (shapes.views(), strides.views());
    let (s0, s1) = (ss.next()?.to_int_tuple(), ss.next()?.to_int_tuple());
    let (d0, d1) = (ds.next()?.to_int_tuple(), ds.next()?.to_int_tuple());
    // A mode of a valid layout is valid: its size divides the whole's, its offsets lie
    // between the whole's.
    Some((
        Layout::from_checked_parts(s0, d0),
        Layout::from_checked_parts(s1, d1),
    ))
}

/// Pads `layout` with trailing `1:0` modes up to `rank` top-level modes (CuTe's `append<R>`);
/// a layout that already has `rank` modes is returned unchanged.
pub(crate) fn pad_to_rank(layout: &Layout, rank: usize) -> Result<Layout> {
    if layout.rank() == rank {
        return Ok(layout.clone());
    }
    if layout.rank() > rank {
        return Err(Error::invalid(format!(
            "{layout} has rank {} > {rank}",
            layout.rank()
        )));
    }
    let mut modes = layout.modes();
    modes.resize(rank, Layout::vector(1, 0)?);
    Layout::from_modes(modes)
}

/// Builds a layout whose shape and stride have the structure of `shape`, with leaves from a
/// per-leaf function of `(extent, stride)` returning the new `(extent, stride)`.
pub(crate) fn map_modes(
    layout: &Layout,
    mut f: impl FnMut(i64, i64) -> Result<Mode>,
) -> Result<Layout> {
    let mut shapes: SmallVec<[i64; 8]> = SmallVec::new();
    let mut strides: SmallVec<[i64; 8]> = SmallVec::new();
    for (s, d) in modes_of(layout) {
        let (s2, d2) = f(s, d)?;
        shapes.push(s2);
        strides.push(d2);
    }
    let internal = || Error::invalid("internal: leaf count mismatch");
    let shape = layout.shape().with_leaves(&shapes).ok_or_else(internal)?;
    let stride = layout.stride().with_leaves(&strides).ok_or_else(internal)?;
    Layout::new(shape, stride)
}

/// The layout with every stride negated (checked: `i64::MIN` has no negation).
pub(crate) fn negate_strides(layout: &Layout) -> Result<Layout> {
    map_modes(layout, |s, d| {
        d.checked_neg()
            .map(|n| (s, n))
            .ok_or_else(|| Error::overflow(format!("the stride {d} of {layout} cannot be negated")))
    })
}
