//! coalesce and filter: simplify a layout without changing it as a function on its domain.
//!
//! ```
//! use tessel_layout::{coalesce, filter, Layout};
//! // CuTe docs (media/docs/cpp/cute/02_layout_algebra.md, CUTLASS v4.2.1): (2,(1,6)):(1,(6,2)) coalesces to 12:1.
//! let l: Layout = "(2,(1,6)):(1,(6,2))".parse().unwrap();
//! assert_eq!(coalesce(&l).unwrap().to_string(), "12:1");
//! // filter also drops stride-0 modes: 4 distinct offsets remain of the 8 indices.
//! let l: Layout = "(4,2):(1,0)".parse().unwrap();
//! assert_eq!(filter(&l).unwrap().to_string(), "4:1");
//! ```

use super::flat::{
    LeafScratch, LeafSlices, Mode, Modes, coalesce_leaves_into, filter_leaves_into,
    layout_of_coalesced_modes, leaf_slices,
};
use crate::{Error, IntTuple, Layout, Result};

/// CuTe's `coalesce`: flattens the layout, drops extent-1 modes and merges adjacent modes
/// `s0:d0 ++ s1:d1` with `d1 == s0*d0` into `s0*s1:d0`.
///
/// The result has the same size and the same value at every 1-D index of the domain. It is a
/// rank-1 layout `s:d` when one mode remains, a flat tuple otherwise, and `1:0` when every mode
/// has extent 1.
///
/// ```
/// use tessel_layout::{coalesce, Layout};
/// // CuTe docs (media/docs/cpp/cute/02_layout_algebra.md, CUTLASS v4.2.1): (2,(1,6)):(1,(6,2)) coalesces to 12:1.
/// let l: Layout = "(2,(1,6)):(1,(6,2))".parse().unwrap();
/// assert_eq!(coalesce(&l).unwrap().to_string(), "12:1");
/// let l: Layout = "(4,3):(3,1)".parse().unwrap();
/// assert_eq!(coalesce(&l).unwrap().to_string(), "(4,3):(3,1)");
/// ```
pub fn coalesce(layout: &Layout) -> Result<Layout> {
    Ok(simplified(layout, coalesce_leaves_into))
}

/// The layout of the modes that `simplify` (coalescing, or filtering) writes from the leaves of
/// `layout` into a scratch list of one slot per leaf.
#[inline(always)]
fn simplified(
    layout: &Layout,
    simplify: impl FnOnce(LeafSlices<'_>, &mut [Mode]) -> usize,
) -> Layout {
    let leaves = leaf_slices(layout);
    let mut scratch = LeafScratch::new();
    let list = scratch.list(leaves.0.len());
    let len = simplify(leaves, list);
    layout_of_coalesced_modes(&list[..len])
}

/// CuTe's `coalesce(layout, profile)`: coalesces by mode. Where `profile` is an integer the
/// corresponding (sub)layout is coalesced as a whole; where it is a tuple of rank `r`, the first
/// `r` modes are coalesced recursively by the tuple's elements and the remaining modes are kept
/// as they are. The profile's rank may not exceed the layout's.
///
/// ```
/// use tessel_layout::{coalesce_profile, IntTuple, Layout};
/// // CuTe docs (media/docs/cpp/cute/02_layout_algebra.md, CUTLASS v4.2.1): by-mode coalesce with the profile (1,1).
/// let l: Layout = "(2,(1,6)):(1,(6,2))".parse().unwrap();
/// let r = coalesce_profile(&l, &IntTuple::from_ints([1, 1])).unwrap();
/// assert_eq!(r.to_string(), "(2,6):(1,2)");
/// ```
pub fn coalesce_profile(layout: &Layout, profile: &IntTuple) -> Result<Layout> {
    let IntTuple::Tuple(parts) = profile else {
        return coalesce(layout);
    };
    if parts.len() > layout.rank() {
        return Err(Error::invalid(format!(
            "coalesce of {layout} by the profile {profile}: the profile has rank {} but the \
             layout only {} modes (profile rank must not exceed layout rank)",
            parts.len(),
            layout.rank()
        )));
    }
    let mut modes = layout.modes();
    for (mode, part) in modes.iter_mut().zip(parts) {
        *mode = coalesce_profile(mode, &part)?;
    }
    Layout::from_modes(modes)
}

/// CuTe's `filter`: drops every stride-0 mode and every extent-1 mode, then coalesces. The
/// result has the same image (set of offsets) as the input, visited without repetitions caused
/// by stride-0 modes; `1:0` when nothing remains.
///
/// ```
/// use tessel_layout::{filter, Layout};
/// let l: Layout = "(4,(2,3)):(0,(1,2))".parse().unwrap();
/// assert_eq!(filter(&l).unwrap().to_string(), "6:1");
/// let l: Layout = "(4,1):(0,7)".parse().unwrap();
/// assert_eq!(filter(&l).unwrap().to_string(), "1:0");
/// ```
pub fn filter(layout: &Layout) -> Result<Layout> {
    Ok(simplified(layout, filter_leaves_into))
}

/// The flat modes of `filter(layout)`.
pub(crate) fn filtered_modes(layout: &Layout) -> Modes {
    let leaves = leaf_slices(layout);
    let mut out: Modes = smallvec::smallvec![(0, 0); leaves.0.len()];
    let len = filter_leaves_into(leaves, &mut out);
    out.truncate(len);
    out
}

#[cfg(test)]
mod tests {
    use super::{coalesce, filter};
    use crate::Layout;

    /// coalesce and filter build their results without the checks of `Layout::new` (they hold
    /// by construction): rebuild them through `Layout::new` for layouts whose size and offsets
    /// come close to `i64::MAX`, merged and dropped modes included.
    #[test]
    fn results_pass_the_checks_of_layout_new() {
        let big = 1i64 << 61;
        let cases = [
            // Merges into 4:2^61, whose highest offset 3*2^61 is the input's.
            Layout::new(
                crate::IntTuple::from_ints([2, 2]),
                crate::IntTuple::from_ints([big, 2 * big]),
            ),
            // Negative strides, an extent-1 mode and a stride-0 mode.
            Layout::new(
                crate::IntTuple::from_ints([2, 1, 3, 2]),
                crate::IntTuple::from_ints([-big, 7, 0, -2 * big]),
            ),
            // Size 2^62 in one merged mode.
            Layout::new(
                crate::IntTuple::from_ints([1 << 31, 1 << 31]),
                crate::IntTuple::from_ints([1, 1 << 31]),
            ),
        ];
        for layout in cases {
            let layout = layout.unwrap();
            for result in [coalesce(&layout).unwrap(), filter(&layout).unwrap()] {
                let rebuilt = Layout::new(result.shape().clone(), result.stride().clone());
                assert_eq!(rebuilt.as_ref(), Ok(&result), "{layout} gave {result}");
            }
            // coalesce keeps the function: same value at every index (sampled at the ends).
            let r = coalesce(&layout).unwrap();
            for i in [0, 1, layout.size() / 2, layout.size() - 1] {
                assert_eq!(r.offset(i).unwrap(), layout.offset(i).unwrap());
            }
        }
    }
}
