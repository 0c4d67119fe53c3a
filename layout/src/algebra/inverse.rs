//! Inverses and the nullspace of a layout.

use super::flat::{Mode, coalesce_modes, layout_of_modes};
use crate::{Error, IntTuple, Layout, Result, checked_mul};

/// The flat modes of `coalesce(layout)` paired with the exclusive prefix product of their
/// extents (the domain index stride of each mode), sorted by stride (stable).
fn sorted_with_domain_strides(layout: &Layout) -> Vec<(Mode, i64)> {
    let modes = coalesce_modes(layout.flat_modes());
    let mut running = 1i64;
    let mut out: Vec<(Mode, i64)> = modes
        .into_iter()
        .map(|m| {
            let here = running;
            // The product of the extents is the layout's size, which fits in i64.
            running = running.saturating_mul(m.0);
            (m, here)
        })
        .collect();
    out.sort_by_key(|&((_, d), _)| d);
    out
}

/// CuTe's `right_inverse`: the largest layout `R` of the form CuTe builds with
/// `layout(R(i)) == i` for every `i < size(R)`.
///
/// `R` follows the modes of `coalesce(layout)` in increasing stride order as long as they form
/// the contiguous chain `1, s0, s0*s1, ...` of offsets, mapping each offset back to its 1-D
/// domain index. Modes off the chain (stride 0, negative, or past a gap) are skipped, so
/// `size(R)` is the length of the contiguous run `0..n` of offsets the layout reaches in this
/// way (`1:0` when offset 1 is not reached).
///
/// ```
/// use tessel_layout::{right_inverse, Layout};
/// // DESIGN.md
/// let a: Layout = "(2,4,6):(4,1,8)".parse().unwrap();
/// let r = right_inverse(&a).unwrap();
/// assert_eq!(r.to_string(), "(4,2,6):(2,1,8)");
/// for i in 0..r.size() {
///     assert_eq!(a.offset(r.offset(i).unwrap()).unwrap(), i);
/// }
/// ```
pub fn right_inverse(layout: &Layout) -> Result<Layout> {
    let mut out: Vec<Mode> = Vec::new();
    let mut next = 1i64; // the next offset the chain must reach
    for ((s, d), domain_stride) in sorted_with_domain_strides(layout) {
        if d == next {
            out.push((s, domain_stride));
            next = checked_mul(s, d, "right_inverse")?;
        }
    }
    layout_of_modes(&coalesce_modes(out))
}

/// A left inverse: a layout `L` with `L(layout(i)) == i` for every `i` in the domain. The
/// layout must be injective in CuTe's sense: after coalescing and sorting by stride, the strides
/// are positive and each is a multiple of the previous stride and at least the previous
/// `extent*stride` ([`ErrorKind::Inadmissible`](crate::ErrorKind) otherwise).
///
/// Canonical form (C++ CuTe's): with the sorted coalesced modes `(a0,...,an):(d0,...,dn)` and
/// their domain strides `p_k`, `L = coalesce((d0, d1/d0, ..., dn/d(n-1), an) : (0, p0, ..., pn))`.
/// Offsets that the layout never produces map wherever this formula sends them (the leading
/// stride-0 mode sends offsets below `d0` to 0). pycute instead returns
/// `right_inverse((layout, complement(layout)))`, which differs off the image; both satisfy the
/// defining property. `size(L) = dn*an >= cosize(layout)`.
///
/// ```
/// use tessel_layout::{left_inverse, Layout};
/// let a: Layout = "4:2".parse().unwrap();
/// let inv = left_inverse(&a).unwrap();
/// assert_eq!(inv.to_string(), "(2,4):(0,1)");
/// for i in 0..a.size() {
///     assert_eq!(inv.offset(a.offset(i).unwrap()).unwrap(), i);
/// }
/// ```
pub fn left_inverse(layout: &Layout) -> Result<Layout> {
    let sorted = sorted_with_domain_strides(layout);
    let fail = |why: String| {
        Err(Error::inadmissible(format!(
            "left_inverse of {layout}: the layout must be injective with coalesced strides that, \
             sorted, are positive and each a multiple of the previous stride and at least the \
             previous extent*stride (left inverse divisibility condition); {why}"
        )))
    };
    let Some(&((last_extent, _), _)) = sorted.last() else {
        return Layout::vector(1, 0);
    };
    let mut shapes: Vec<i64> = Vec::with_capacity(sorted.len() + 1);
    let mut strides: Vec<i64> = vec![0];
    let mut prev: Option<Mode> = None;
    for &((s, d), domain_stride) in &sorted {
        if d <= 0 {
            return fail(format!(
                "the mode {s}:{d} has a stride that is not positive"
            ));
        }
        let (below, reach) = match prev {
            None => (1, 1),
            Some((ps, pd)) => (pd, checked_mul(ps, pd, "left_inverse")?),
        };
        if d % below != 0 || d < reach {
            return fail(format!(
                "the stride {d} is not a multiple of {below} at least {reach}"
            ));
        }
        shapes.push(d / below);
        strides.push(domain_stride);
        prev = Some((s, d));
    }
    shapes.push(last_extent);
    layout_of_modes(&coalesce_modes(shapes.into_iter().zip(strides)))
}

/// CuTe's `nullspace`: a layout `K` over the stride-0 leaves of `layout` with
/// `layout(K(i)) == 0` for every `i`. `K` has one mode per stride-0 leaf (its extent, and the
/// leaf's 1-D domain stride), so it is injective and
/// `size(K) == size(layout) / size(filter(layout))`; `1:0` when no leaf has stride 0.
///
/// ```
/// use tessel_layout::{nullspace, Layout};
/// let a: Layout = "(2,3,4):(0,1,0)".parse().unwrap();
/// let k = nullspace(&a).unwrap();
/// assert_eq!(k.to_string(), "(2,4):(1,6)");
/// for i in 0..k.size() {
///     assert_eq!(a.offset(k.offset(i).unwrap()).unwrap(), 0);
/// }
/// ```
pub fn nullspace(layout: &Layout) -> Result<Layout> {
    let modes = layout.flat_modes();
    let domain_strides = IntTuple::from_ints(modes.iter().map(|m| m.0)).prefix_product()?;
    let kernel: Vec<Mode> = modes
        .iter()
        .zip(domain_strides.leaves())
        .filter(|((_, d), _)| *d == 0)
        .map(|(&(s, _), p)| (s, p))
        .collect();
    layout_of_modes(&kernel)
}
