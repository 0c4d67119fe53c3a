//! Inverses and the nullspace of a layout.
//!
//! ```
//! use tessel_layout::{right_inverse, Layout};
//! // docs/semantics.md: right_inverse((2,4,6):(4,1,8)) = (4,2,6):(2,1,8).
//! let l: Layout = "(2,4,6):(4,1,8)".parse().unwrap();
//! let r = right_inverse(&l).unwrap();
//! assert_eq!(r.to_string(), "(4,2,6):(2,1,8)");
//! assert!((0..r.size()).all(|i| l.offset(r.offset(i).unwrap()).unwrap() == i));
//! ```

use super::flat::{
    LeafSlices, Mode, Scratch, continues, layout_of_modes, leaf_slices, negate_strides,
    push_coalesced_at,
};
use crate::{Error, IntTuple, Layout, Result, checked_mul};

/// A flat mode of `coalesce(layout)` and its domain stride (the product of the extents of the
/// modes before it).
type ModeAt = (Mode, i64);

/// Writes the flat modes of `coalesce` of the layout with the leaves `leaves`, paired with their
/// domain strides, into `list` (one slot per leaf at least) and returns their number: one pass
/// over the leaves, coalescing as [`coalesce_leaves_into`] does. A mode's domain stride is the
/// product of the extents of the leaves before its first one (the coalesced extents before it
/// are products of those leaves, the dropped ones have extent 1).
#[inline]
fn coalesced_with_domain_strides((extents, strides): LeafSlices<'_>, list: &mut [ModeAt]) -> usize {
    let mut len = 0usize;
    let mut running = 1i64;
    for (&s, &d) in extents.iter().zip(strides) {
        if s != 1 {
            match len.checked_sub(1).map(|k| &mut list[k]) {
                // The merged extent is at most the layout's size, which fits in i64.
                Some(((ps, pd), _)) if continues((*ps, *pd), d) => *ps = ps.saturating_mul(s),
                _ => {
                    list[len] = ((s, d), running);
                    len += 1;
                }
            }
        }
        // The product of the extents is the layout's size, which fits in i64.
        running = running.saturating_mul(s);
    }
    len
}

/// The flat modes of `coalesce(layout)` with their domain strides, written into `modes` (one
/// slot per leaf of `layout`), and their indices in increasing stride order (a stable sort),
/// written into `order`.
///
/// The indices are sorted rather than the modes: a mode is written as three words and read
/// back soon after, and moving it whole reads it with wider loads than it was written with,
/// which the processor cannot serve from its pending stores (a stall of some 15 cycles).
#[inline]
fn by_stride<'m, 'o>(
    layout: &Layout,
    modes: &'m mut Scratch<ModeAt>,
    order: &'o mut Scratch<usize>,
) -> (&'m [ModeAt], &'o [usize]) {
    let leaves = leaf_slices(layout);
    let list = modes.list(leaves.0.len());
    let len = coalesced_with_domain_strides(leaves, list);
    let modes = &list[..len];
    let order = order.list(len);
    for (k, slot) in order.iter_mut().enumerate() {
        *slot = k;
    }
    order.sort_by_key(|&k| modes[k].0.1);
    (modes, order)
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
/// // docs/semantics.md, reference values
/// let a: Layout = "(2,4,6):(4,1,8)".parse().unwrap();
/// let r = right_inverse(&a).unwrap();
/// assert_eq!(r.to_string(), "(4,2,6):(2,1,8)");
/// for i in 0..r.size() {
///     assert_eq!(a.offset(r.offset(i).unwrap()).unwrap(), i);
/// }
/// ```
pub fn right_inverse(layout: &Layout) -> Result<Layout> {
    let (mut modes, mut order, mut out): (_, _, Scratch) =
        (Scratch::new(), Scratch::new(), Scratch::new());
    let (modes, order) = by_stride(layout, &mut modes, &mut order);
    // The result, coalesced as it is written.
    let out = out.list(modes.len());
    let mut out_len = 0usize;
    let mut next = 1i64; // the next offset the chain must reach
    for &k in order {
        let ((s, d), domain_stride) = modes[k];
        if d == next {
            out_len = push_coalesced_at(out, out_len, (s, domain_stride));
            next = checked_mul(s, d, "right_inverse")?;
        }
    }
    layout_of_modes(&out[..out_len])
}

/// CuTe's `left_inverse`: a layout `L` with `layout(L(layout(i))) == layout(i)` for every `i`
/// in the domain, so `L(layout(i)) == i` when the layout is injective.
///
/// Stride-0 modes are skipped: `L` sends an offset to the domain index whose coordinates in the
/// stride-0 modes are 0. The other modes, after coalescing and sorting by stride, must have
/// strides that are each a multiple of the previous stride and at least the previous
/// `extent*stride` (the left inverse divisibility condition, which makes them injective;
/// [`ErrorKind::Inadmissible`](crate::ErrorKind) otherwise).
///
/// Canonical form (C++ CuTe's): with those sorted modes `(a0,...,an):(d0,...,dn)` and their
/// domain strides `p_k`, `L = coalesce((d0, d1/d0, ..., dn/d(n-1), an) : (0, p0, ..., pn))`
/// (`an:0` for the extent of the last sorted mode when every stride is 0). Offsets that the
/// layout never produces map wherever this formula sends them (the leading stride-0 mode sends
/// offsets below `d0` to 0). [pycute](https://github.com/NVIDIA/cutlass/blob/v4.2.1/python/pycute/layout.py) instead returns `right_inverse((layout, complement(layout)))`,
/// which differs off the image; both satisfy the defining property.
///
/// **Negative strides.** If every non-zero stride is negative, the layout's offsets are
/// negative and `L` is evaluated at negative offsets the way CuTe evaluates a layout at a
/// negative index (C++ truncating division: `L(-x) == -L(x)`); `L` is the left inverse of the
/// layout with its strides negated, with its own strides negated (`4:-1` gives `4:-1`; CuTe
/// writes the same function with a negative extent, `(-1,4):(0,1)`, which tessel's shapes do
/// not allow). Strides of both signs are rejected: no layout inverts them under that
/// evaluation (CuTe's own tests leave them out).
///
/// ```
/// use tessel_layout::{left_inverse, Layout};
/// let a: Layout = "4:2".parse().unwrap();
/// let inv = left_inverse(&a).unwrap();
/// assert_eq!(inv.to_string(), "(2,4):(0,1)");
/// for i in 0..a.size() {
///     assert_eq!(inv.offset(a.offset(i).unwrap()).unwrap(), i);
/// }
/// // CuTe test/unit/cute/core/inverse_left.cpp (CUTLASS v4.2.1): stride-0 modes are skipped.
/// let a: Layout = "(2,4):(0,2)".parse().unwrap();
/// let inv = left_inverse(&a).unwrap();
/// assert_eq!(inv.to_string(), "(2,4):(0,2)");
/// for i in 0..a.size() {
///     let back = inv.offset(a.offset(i).unwrap()).unwrap();
///     assert_eq!(a.offset(back).unwrap(), a.offset(i).unwrap());
/// }
/// assert_eq!(left_inverse(&"4:-1".parse().unwrap()).unwrap().to_string(), "4:-1");
/// ```
pub fn left_inverse(layout: &Layout) -> Result<Layout> {
    left_inverse_named(layout, layout)
}

/// [`left_inverse`] of `layout`, naming `shown` (the caller's operand) in errors.
fn left_inverse_named(layout: &Layout, shown: &Layout) -> Result<Layout> {
    let (mut modes, mut order, mut out): (_, _, Scratch) =
        (Scratch::new(), Scratch::new(), Scratch::new());
    let (modes, order) = by_stride(layout, &mut modes, &mut order);
    let len = modes.len();
    let sorted = || order.iter().map(|&k| modes[k]);
    let fail = |why: String| {
        Err(Error::inadmissible(format!(
            "left_inverse of {shown}: the modes with a non-zero stride must be injective with \
             coalesced strides that, sorted, are each a multiple of the previous stride and at \
             least the previous extent*stride (left inverse divisibility condition); {why}"
        )))
    };
    // Sorted by stride: a negative stride is the first one.
    let negative = sorted().next().is_some_and(|m| m.0.1 < 0);
    if negative {
        if let Some(((s, d), _)) = sorted().find(|m| m.0.1 > 0) {
            return fail(format!(
                "the mode {s}:{d} has a positive stride and another mode a negative one (strides \
                 of both signs have no left inverse)"
            ));
        }
        return negate_strides(&left_inverse_named(&negate_strides(layout)?, shown)?);
    }
    let Some(((last_extent, _), _)) = sorted().next_back() else {
        return Layout::vector(1, 0);
    };
    // Mode k of the result is (the k-th extent, the (k-1)-th domain stride), the first one's
    // stride being 0; coalesced as it is written, with one more slot for the last mode.
    let out = out.list(len + 1);
    let mut out_len = 0usize;
    let mut stride_before = 0i64;
    let mut prev: Option<Mode> = None;
    for ((s, d), domain_stride) in sorted().filter(|m| m.0.1 != 0) {
        let (below, reach) = match prev {
            None => (1, 1),
            Some((ps, pd)) => (pd, checked_mul(ps, pd, "left_inverse")?),
        };
        if d % below != 0 || d < reach {
            return fail(format!(
                "the stride {d} is not a multiple of {below} at least {reach}"
            ));
        }
        out_len = push_coalesced_at(out, out_len, (d / below, stride_before));
        stride_before = domain_stride;
        prev = Some((s, d));
    }
    out_len = push_coalesced_at(out, out_len, (last_extent, stride_before));
    layout_of_modes(&out[..out_len])
}

/// The nullspace (kernel) of a layout: an injective layout `K` whose image is exactly the set of
/// domain indices `i` with `layout(i) == 0`, so `layout(K(j)) == 0` for every `j` and
/// `size(K)` is the number of such indices.
///
/// `K` has one mode per stride-0 leaf (its extent, and the leaf's 1-D domain stride), as CuTe's
/// `nullspace` builds it; then `size(K) == size(layout) / size(filter(layout))`. When the
/// non-zero strides have both signs, other coordinates can cancel out too (`(3,4):(-1,2)` maps
/// the coordinate `(2,1)` to 0), which CuTe's construction misses. tessel finds those by
/// enumerating the modes with a non-zero stride (at most
/// [`INJECTIVITY_ENUMERATION_LIMIT`](crate::INJECTIVITY_ENUMERATION_LIMIT) coordinates,
/// [`ErrorKind::InvalidArgument`](crate::ErrorKind) beyond) and appends the modes of the
/// layout they form; if they do not form the image of a layout, the result is an
/// [`ErrorKind::Inadmissible`](crate::ErrorKind) error. `1:0` when only index 0 maps to 0.
///
/// ```
/// use tessel_layout::{nullspace, Layout};
/// let a: Layout = "(2,3,4):(0,1,0)".parse().unwrap();
/// let k = nullspace(&a).unwrap();
/// assert_eq!(k.to_string(), "(2,4):(1,6)");
/// for i in 0..k.size() {
///     assert_eq!(a.offset(k.offset(i).unwrap()).unwrap(), 0);
/// }
/// // -2 + 2*1 = 0: index 2 + 3*1 = 5 is in the kernel as well as 0.
/// let a: Layout = "(3,4):(-1,2)".parse().unwrap();
/// assert_eq!(nullspace(&a).unwrap().to_string(), "2:5");
/// ```
pub fn nullspace(layout: &Layout) -> Result<Layout> {
    let modes = layout.flat_modes();
    let domain_strides: Vec<i64> = IntTuple::from_ints(modes.iter().map(|m| m.0))
        .prefix_product()?
        .leaves()
        .into_iter()
        .collect();
    let mut kernel: Vec<Mode> = Vec::new();
    let mut moving: Vec<(Mode, i64)> = Vec::new(); // non-zero stride leaves with their domain stride
    for (&(s, d), &p) in modes.iter().zip(&domain_strides) {
        if d == 0 {
            kernel.push((s, p));
        } else if s > 1 {
            moving.push(((s, d), p));
        }
    }
    let mixed = moving.iter().any(|m| m.0.1 > 0) && moving.iter().any(|m| m.0.1 < 0);
    if mixed {
        let zeros =
            cancelling_indices(&moving).map_err(|e| e.context(format!("nullspace of {layout}")))?;
        let extra = layout_of_set(&zeros).ok_or_else(|| {
            Error::inadmissible(format!(
                "nullspace of {layout}: the {} domain indices whose non-zero-stride coordinates \
                 cancel out to offset 0 are not the image of a layout (the kernel must be a \
                 layout)",
                zeros.len()
            ))
        })?;
        kernel.extend(extra);
    }
    layout_of_modes(&kernel)
}

/// The sorted domain indices (as sums of coordinate times domain stride) of the coordinates of
/// `moving` whose offsets add up to 0, by enumeration.
fn cancelling_indices(moving: &[(Mode, i64)]) -> Result<Vec<i64>> {
    let count = moving
        .iter()
        .try_fold(1i64, |acc, m| acc.checked_mul(m.0.0))
        .filter(|&n| n <= crate::INJECTIVITY_ENUMERATION_LIMIT)
        .ok_or_else(|| {
            Error::invalid(format!(
                "the modes with a non-zero stride have strides of both signs and more than {} \
                 coordinates, too many to enumerate for the offsets that cancel out",
                crate::INJECTIVITY_ENUMERATION_LIMIT
            ))
        })?;
    crate::budget::charge(count, "the nullspace's search for cancelling offsets")?;
    let mut zeros = Vec::new();
    for i in 0..count {
        let (mut rest, mut offset, mut index) = (i, 0i64, 0i64);
        for &((s, d), p) in moving {
            let c = rest % s;
            rest /= s;
            // Every term is bounded by the layout's offsets and domain, which fit in i64.
            offset = offset.saturating_add(c.saturating_mul(d));
            index = index.saturating_add(c.saturating_mul(p));
        }
        if offset == 0 {
            zeros.push(index);
        }
    }
    zeros.sort_unstable();
    Ok(zeros)
}

/// Flat modes of an injective layout whose image is exactly `set` (sorted, starting at 0), found
/// greedily: the smallest element not yet reached becomes the next stride, with the largest
/// extent that stays inside the set. `None` when that does not reach the whole set.
fn layout_of_set(set: &[i64]) -> Option<Vec<Mode>> {
    use std::collections::BTreeSet;
    let members: BTreeSet<i64> = set.iter().copied().collect();
    let mut reached: BTreeSet<i64> = BTreeSet::from([0]);
    let mut modes = Vec::new();
    while reached.len() < members.len() {
        let step = *members.iter().find(|x| !reached.contains(x))?;
        let mut extent = 1i64;
        loop {
            let shift = step.checked_mul(extent)?;
            let next: Option<Vec<i64>> = reached.iter().map(|x| x.checked_add(shift)).collect();
            let next = next?;
            if !next
                .iter()
                .all(|x| members.contains(x) && !reached.contains(x))
            {
                break;
            }
            extent += 1;
            if extent > members.len() as i64 {
                return None;
            }
        }
        if extent < 2 {
            return None;
        }
        let mut grown = BTreeSet::new();
        for j in 0..extent {
            for x in &reached {
                if !grown.insert(x + j * step) {
                    return None; // not injective
                }
            }
        }
        reached = grown;
        modes.push((extent, step));
    }
    (reached == members).then_some(modes)
}

#[cfg(test)]
mod tests {
    use super::super::flat::{Mode, coalesce_leaves_into, layout_of_modes, negate_strides};
    use super::{left_inverse, push_coalesced_at, right_inverse};
    use crate::{Error, IntTuple, Layout, Result, checked_mul};

    /// The coalesced modes of `layout` with their domain strides, sorted by stride (stable):
    /// the definition, by sorting the modes themselves.
    fn sorted_reference(layout: &Layout) -> Vec<(Mode, i64)> {
        let (extents, strides) = (layout.shape().leaf_slice(), layout.stride().leaf_slice());
        let mut modes = vec![(0, 0); extents.len()];
        let len = coalesce_leaves_into((extents, strides), &mut modes);
        let mut running = 1i64;
        let mut sorted: Vec<(Mode, i64)> = Vec::new();
        for &m in &modes[..len] {
            sorted.push((m, running));
            running = running.saturating_mul(m.0);
        }
        sorted.sort_by_key(|&((_, d), _)| d);
        sorted
    }

    fn right_reference(layout: &Layout) -> Result<Layout> {
        let sorted = sorted_reference(layout);
        let mut out = vec![(0, 0); sorted.len()];
        let (mut out_len, mut next) = (0, 1i64);
        for &((s, d), p) in &sorted {
            if d == next {
                out_len = push_coalesced_at(&mut out, out_len, (s, p));
                next = checked_mul(s, d, "right_inverse")?;
            }
        }
        layout_of_modes(&out[..out_len])
    }

    fn left_reference(layout: &Layout, shown: &Layout) -> Result<Layout> {
        let sorted = sorted_reference(layout);
        let fail = |why: String| {
            Err(Error::inadmissible(format!(
                "left_inverse of {shown}: the modes with a non-zero stride must be injective with \
                 coalesced strides that, sorted, are each a multiple of the previous stride and at \
                 least the previous extent*stride (left inverse divisibility condition); {why}"
            )))
        };
        if sorted.first().is_some_and(|m| m.0.1 < 0) {
            if let Some(&((s, d), _)) = sorted.iter().find(|m| m.0.1 > 0) {
                return fail(format!(
                    "the mode {s}:{d} has a positive stride and another mode a negative one \
                     (strides of both signs have no left inverse)"
                ));
            }
            return negate_strides(&left_reference(&negate_strides(layout)?, shown)?);
        }
        let Some(&((last_extent, _), _)) = sorted.last() else {
            return Layout::vector(1, 0);
        };
        let mut out = vec![(0, 0); sorted.len() + 1];
        let (mut out_len, mut stride_before) = (0, 0i64);
        let mut prev: Option<Mode> = None;
        for &((s, d), p) in sorted.iter().filter(|m| m.0.1 != 0) {
            let (below, reach) = match prev {
                None => (1, 1),
                Some((ps, pd)) => (pd, checked_mul(ps, pd, "left_inverse")?),
            };
            if d % below != 0 || d < reach {
                return fail(format!(
                    "the stride {d} is not a multiple of {below} at least {reach}"
                ));
            }
            out_len = push_coalesced_at(&mut out, out_len, (d / below, stride_before));
            stride_before = p;
            prev = Some((s, d));
        }
        out_len = push_coalesced_at(&mut out, out_len, (last_extent, stride_before));
        layout_of_modes(&out[..out_len])
    }

    /// Layouts of one to five leaves (flat, and with the first two leaves nested) with
    /// extents 1..=4 and strides -6..=12, drawn by a fixed generator, and some past the
    /// inline capacity.
    fn layouts() -> Vec<Layout> {
        let mut rng = crate::test_draw::Draw::new(0x9e37_79b9_7f4a_7c15);
        let mut draw = |n: u64| rng.below(n);
        let mut out = Vec::new();
        for _ in 0..20_000 {
            let rank = 1 + draw(5) as usize;
            let extents: Vec<i64> = (0..rank).map(|_| 1 + draw(4) as i64).collect();
            let strides: Vec<i64> = (0..rank).map(|_| draw(19) as i64 - 6).collect();
            out.push(Layout::new(
                IntTuple::from_ints(extents.clone()),
                IntTuple::from_ints(strides.clone()),
            ));
            if rank >= 3 {
                let nest = |v: &[i64]| {
                    IntTuple::tuple(
                        std::iter::once(IntTuple::from_ints([v[0], v[1]]))
                            .chain(v[2..].iter().map(|&x| IntTuple::Int(x))),
                    )
                };
                out.push(Layout::new(nest(&extents), nest(&strides)));
            }
        }
        // Past the inline capacity: the chain 2^k, shuffled by a rotation.
        for n in [9usize, 12] {
            for r in 0..n {
                let strides: Vec<i64> = (0..n).map(|k| 1i64 << ((k + r) % n)).collect();
                out.push(Layout::new(
                    IntTuple::from_ints(vec![2; n]),
                    IntTuple::from_ints(strides),
                ));
            }
        }
        out.into_iter().filter_map(|l| l.ok()).collect()
    }

    /// The inverses sort the indices of the modes, not the modes: the same answers (and
    /// errors) as sorting the modes themselves.
    #[test]
    fn inverses_match_the_sorted_mode_definition() {
        for layout in layouts() {
            assert_eq!(right_inverse(&layout), right_reference(&layout), "{layout}");
            assert_eq!(
                left_inverse(&layout),
                left_reference(&layout, &layout),
                "{layout}"
            );
        }
    }
}
