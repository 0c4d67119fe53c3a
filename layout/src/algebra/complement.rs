//! complement: the layout of the "rest" of the codomain that a layout does not touch.

use super::coalesce::filtered_modes;
use super::flat::{Mode, ceil_div, coalesce_modes, layout_of_modes};
use crate::{Error, Layout, Result, checked_mul};

/// CuTe's `complement(A, cotarget)`: a layout `R` that "fills the holes" of `A` and repeats it
/// up to `cotarget`.
///
/// With `filter(A) = (a0,a1,...):(d0,d1,...)` sorted by stride, `R` is the coalesced
/// `(d0, d1/(a0*d0), ..., ceil(cotarget/(a_n*d_n))) : (1, a0*d0, ..., a_n*d_n)`. Then
/// - `R` is ordered: its strides increase and `R(i) < R(i+1)`;
/// - `R`'s image meets `A`'s image only at 0, and `(A, R)` is injective — in fact a bijection
///   from its domain onto `0..size(filter(A))*size(R)`;
/// - `size(filter(A)) * size(R) >= cotarget`.
///
/// Preconditions (checked, [`ErrorKind::Inadmissible`](crate::ErrorKind) otherwise): the strides
/// of `A` are non-negative, and after sorting the modes of `filter(A)` by stride every stride is
/// a multiple of the previous mode's `extent*stride` (the complement divisibility condition,
/// which implies that `A` is injective). `cotarget` must be at least 1. (CuTe C++ also accepts
/// strides that are not such multiples, rounding the hole sizes down; tessel rejects them so that
/// `(A, R)` always tiles its codomain exactly.)
///
/// ```
/// use tessel_layout::{complement, Layout};
/// // CuTe docs (02_layout_algebra.md).
/// let c = |l: &str, m| complement(&l.parse::<Layout>().unwrap(), m).unwrap().to_string();
/// assert_eq!(c("4:1", 24), "6:4");
/// assert_eq!(c("6:4", 24), "4:1");
/// assert_eq!(c("(4,6):(1,4)", 24), "1:0");
/// assert_eq!(c("4:2", 24), "(2,3):(1,8)");
/// assert_eq!(c("(2,4):(1,6)", 24), "3:2");
/// assert_eq!(c("(2,2):(1,6)", 24), "(3,2):(2,12)");
/// ```
pub fn complement(layout: &Layout, cotarget: i64) -> Result<Layout> {
    let context = |e: Error| e.context(format!("complement of {layout} with cotarget {cotarget}"));
    complement_modes(layout, cotarget)
        .and_then(|modes| layout_of_modes(&modes))
        .map_err(context)
}

/// The coalesced flat modes of the complement.
fn complement_modes(layout: &Layout, cotarget: i64) -> Result<Vec<Mode>> {
    if cotarget < 1 {
        return Err(Error::invalid(format!(
            "the cotarget {cotarget} must be at least 1"
        )));
    }
    let mut modes = filtered_modes(layout);
    if let Some(&(s, d)) = modes.iter().find(|m| m.1 < 0) {
        return Err(Error::inadmissible(format!(
            "the mode {s}:{d} has a negative stride (complement needs non-negative strides)"
        )));
    }
    modes.sort_by_key(|m| m.1);
    let mut out: Vec<Mode> = Vec::with_capacity(modes.len() + 1);
    let mut covered = 1i64; // extent*stride of the previous mode: the codomain filled so far
    for &(s, d) in &modes {
        if d % covered != 0 {
            let why = if d < covered {
                "it overlaps the modes below it, so A is not injective in this form"
            } else {
                "the hole below it cannot be filled by a layout"
            };
            return Err(Error::inadmissible(format!(
                "the complement divisibility condition fails: sorted by stride, the modes of \
                 filter(A) must each have a stride that is a multiple of the previous mode's \
                 extent*stride, but stride {d} (mode {s}:{d}) is not a multiple of {covered}; {why}"
            )));
        }
        out.push((d / covered, covered));
        covered = checked_mul(s, d, "the complement's strides")?;
    }
    out.push((ceil_div(cotarget, covered), covered));
    Ok(coalesce_modes(out))
}
