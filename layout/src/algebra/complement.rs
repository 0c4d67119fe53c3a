//! complement: the layout of the "rest" of the codomain that a layout does not touch.
//!
//! ```
//! use tessel_layout::{complement, Layout};
//! // CuTe docs (media/docs/cpp/cute/02_layout_algebra.md, CUTLASS v4.2.1): complement(4:2, 24) = (2,3):(1,8).
//! let l: Layout = "4:2".parse().unwrap();
//! assert_eq!(complement(&l, 24).unwrap().to_string(), "(2,3):(1,8)");
//! ```

use super::flat::{
    LeafSlices, Mode, Scratch, ceil_div, filter_leaves_into, layout_of_modes_or, leaf_slices,
    push_coalesced_at,
};
use crate::{Error, IntTuple, Layout, Result, checked_mul};

/// CuTe's `complement(A, cotarget)`: a layout `R` that "fills the holes" of `A` and repeats it
/// up to `cotarget`.
///
/// With `filter(A) = (a0,a1,...,an):(d0,d1,...,dn)` sorted by stride, `R` is the coalesced
/// `(d0, d1/(a0*d0), ..., dn/(a(n-1)*d(n-1)), ceil(cotarget/(an*dn))) : (1, a0*d0, ..., an*dn)`
/// where every quotient is rounded down (CuTe's definition). Then
/// - `R` is ordered: its strides increase and `R(i) < R(i+1)`;
/// - `R`'s image meets `A`'s image only at 0, and `(A, R)` is injective;
/// - `size(filter(A)) * size(R) >= cotarget` and `cosize(R)` is at most `cotarget` rounded up
///   to a multiple of `cosize(A)`.
///
/// When every sorted stride is a multiple of the previous `extent*stride` (no quotient is
/// rounded), `(filter(A), R)` is moreover a bijection onto `0..size(filter(A))*size(R)`; when a
/// quotient is rounded (`A` has a gap that is not a whole number of its lower modes, e.g.
/// `(4,2):(1,10)`), the offsets of the gap that no whole copy of the lower modes fits into stay
/// uncovered. The divides check which case they got (see
/// [`logical_divide`](crate::logical_divide)).
///
/// Preconditions (checked, [`ErrorKind::Inadmissible`](crate::ErrorKind) otherwise): the strides
/// of `A` are non-negative, and after sorting the modes of `filter(A)` by stride every stride is
/// at least the previous mode's `extent*stride` (otherwise the modes overlap and there is no hole
/// to fill; CuTe's "non-injective layout" assertion). `cotarget` must be at least 1.
///
/// ```
/// use tessel_layout::{complement, Layout};
/// // CuTe docs (media/docs/cpp/cute/02_layout_algebra.md, CUTLASS v4.2.1).
/// let c = |l: &str, m| complement(&l.parse::<Layout>().unwrap(), m).unwrap().to_string();
/// assert_eq!(c("4:1", 24), "6:4");
/// assert_eq!(c("6:4", 24), "4:1");
/// assert_eq!(c("(4,6):(1,4)", 24), "1:0");
/// assert_eq!(c("4:2", 24), "(2,3):(1,8)");
/// assert_eq!(c("(2,4):(1,6)", 24), "3:2");
/// assert_eq!(c("(2,2):(1,6)", 24), "(3,2):(2,12)");
/// // A gap of 10-4 = 6 offsets holds one more copy of the 4 lower ones (CuTe rounds down).
/// assert_eq!(c("(4,2):(1,10)", 14), "2:4");
/// ```
pub fn complement(layout: &Layout, cotarget: i64) -> Result<Layout> {
    complement_to_shape(layout, &IntTuple::Int(cotarget))
}

/// CuTe's `complement(A, cotarget)` with a shape as the cotarget: like [`complement`], with the
/// last mode's extent `ceil(cotarget / (an*dn))` computed by CuTe's `ceil_div` of a shape by an
/// integer. That divides the shape's modes from the left, `ceil(s0/m)`, then `s1` by
/// `ceil(m/s0)`, and so on; its product is the extent. It can exceed
/// `ceil(size(cotarget) / (an*dn))`: `(3,3)` divided by 2 is `(2,3)`, 6 rather than 5. An
/// integer cotarget is the same as [`complement`].
///
/// [`logical_divide`](crate::logical_divide) takes the complement of the tiler with the shape of
/// the coalesced layout as the cotarget, as CuTe does.
///
/// ```
/// use tessel_layout::{complement_to_shape, IntTuple, Layout};
/// // CuTe test/unit/cute/core/complement.cpp (CUTLASS v4.2.1): complement(4:2, (2,2)).
/// let l: Layout = "4:2".parse().unwrap();
/// let r = complement_to_shape(&l, &IntTuple::from_ints([2, 2])).unwrap();
/// assert_eq!(r.to_string(), "2:1");
/// // (3,3) divided by 2 is (2,3): 6 copies of 2:1.
/// let l: Layout = "2:1".parse().unwrap();
/// let r = complement_to_shape(&l, &IntTuple::from_ints([3, 3])).unwrap();
/// assert_eq!(r.to_string(), "6:2");
/// ```
pub fn complement_to_shape(layout: &Layout, cotarget: &IntTuple) -> Result<Layout> {
    let context = |e: Error| e.context(format!("complement of {layout} with cotarget {cotarget}"));
    // One slot per leaf, and one for the last mode.
    let leaves = leaf_slices(layout);
    let mut scratch: Scratch = Scratch::new();
    let list = scratch.list(leaves.0.len() + 1);
    match complement_into(leaves, cotarget, list) {
        Ok(len) => layout_of_modes_or(&list[..len], context),
        Err(e) => Err(context(e)),
    }
}

/// CuTe's `ceil_div(shape, m)` for a shape and a positive integer, as the product of the
/// resulting shape: the modes are divided from the left, each by what the previous ones left
/// of `m`.
fn shape_ceil_div_size(shape: &IntTuple, m: i64) -> Result<i64> {
    if let IntTuple::Int(s) = shape {
        return Ok(ceil_div(*s, m));
    }
    fn go(shape: &IntTuple, m: i64) -> Result<i64> {
        match shape {
            IntTuple::Int(s) => Ok(ceil_div(*s, m)),
            IntTuple::Tuple(items) => {
                let mut rest = m;
                let mut size = 1i64;
                for item in items {
                    size = checked_mul(size, go(&item, rest)?, "the complement's extent")?;
                    rest = ceil_div(rest, item.product()?);
                }
                Ok(size)
            }
        }
    }
    go(shape, m)
}

/// [`shape_ceil_div_size`] of a flat shape (or an integer) given by its extents: the same
/// loop, without building the shape.
pub(crate) fn flat_ceil_div_size(extents: impl IntoIterator<Item = i64>, m: i64) -> Result<i64> {
    let mut rest = m;
    let mut size = 1i64;
    for s in extents {
        size = checked_mul(size, ceil_div(s, rest), "the complement's extent")?;
        rest = ceil_div(rest, s);
    }
    Ok(size)
}

/// Writes the coalesced flat modes of the complement of the layout with the leaves `leaves`
/// into `list` (one slot per leaf and one more) and returns their number.
#[inline]
fn complement_into(
    leaves: LeafSlices<'_>,
    cotarget: &IntTuple,
    list: &mut [Mode],
) -> Result<usize> {
    if let Some(&bad) = cotarget.iter_leaves().find(|&&v| v < 1) {
        return Err(Error::invalid(format!(
            "the cotarget {cotarget} has the extent {bad}; its extents must be at least 1"
        )));
    }
    let len = filter_leaves_into(leaves, list);
    complement_in_place(list, len, |covered| shape_ceil_div_size(cotarget, covered))
}

/// The coalesced flat modes of the complement of a layout whose `filter`ed modes are
/// `list[..len]`, rewritten in place (`list` has one more slot, for the last mode): returns the
/// number of modes of the complement. `last_extent(covered)` is the extent of the last mode,
/// the cotarget divided by what the modes cover. Errors as [`complement`] (whose cotarget check
/// the caller has made).
#[inline]
pub(crate) fn complement_in_place(
    list: &mut [Mode],
    len: usize,
    last_extent: impl FnOnce(i64) -> Result<i64>,
) -> Result<usize> {
    let modes = &mut list[..len];
    if let Some(&(s, d)) = modes.iter().find(|m| m.1 < 0) {
        return Err(Error::inadmissible(format!(
            "the mode {s}:{d} has a negative stride (complement needs non-negative strides)"
        )));
    }
    modes.sort_by_key(|m| m.1);
    // Rewritten in place and coalesced as it goes: mode k of the result only needs modes k-1
    // and k of the input, and the coalesced prefix `list[..kept]` never runs ahead of `k`.
    let mut covered = 1i64; // extent*stride of the previous mode: the codomain filled so far
    let mut kept = 0usize;
    for k in 0..len {
        let (s, d) = list[k];
        if d < covered {
            return Err(Error::inadmissible(format!(
                "the complement condition fails: sorted by stride, the modes of filter(A) must \
                 each have a stride at least the previous mode's extent*stride, but stride {d} \
                 (mode {s}:{d}) is below {covered}, so the modes overlap (A is not injective in \
                 this form) and leave no hole to fill"
            )));
        }
        kept = push_coalesced_at(list, kept, (d / covered, covered));
        covered = checked_mul(s, d, "the complement's strides")?;
    }
    Ok(push_coalesced_at(
        list,
        kept,
        (last_extent(covered)?, covered),
    ))
}
