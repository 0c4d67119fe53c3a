//! Common vectors of two layouts, and injectivity / bijectivity.

use super::flat::{Mode, coalesce_modes};
use super::{coalesce, composition, right_inverse};
use crate::{Error, ErrorKind, Layout, Result};

/// The largest number of leading elements an undecided part of a layout may have before
/// [`is_injective`] gives up (it then enumerates at most this many offsets).
///
/// ```
/// use tessel_layout::{is_injective, Layout, INJECTIVITY_ENUMERATION_LIMIT};
/// assert_eq!(INJECTIVITY_ENUMERATION_LIMIT, 1 << 22);
/// // Overlapping strides over 2^24 elements cannot be decided without enumerating them all.
/// assert!(is_injective(&"(4096,4096):(1,1)".parse::<Layout>().unwrap()).is_err());
/// ```
pub const INJECTIVITY_ENUMERATION_LIMIT: i64 = 1 << 22;

/// The identity run of `a o right_inverse(b)`, with the right inverse: `(n, inv_b)`.
fn common_run(a: &Layout, b: &Layout) -> Result<(i64, Layout)> {
    let inv_b = right_inverse(b)?;
    let mut composed: Vec<Mode> = Vec::new();
    for mode in inv_b.modes() {
        match composition(a, &mode) {
            Ok(r) => composed.extend(r.flat_modes()),
            // Past an inadmissible mode the common vector cannot be described as a layout;
            // the run found so far is still common.
            Err(e) if e.kind() == ErrorKind::Inadmissible => break,
            Err(e) => return Err(e),
        }
    }
    let run = match coalesce_modes(composed).first() {
        Some(&(s, 1)) => s,
        _ => 1,
    };
    Ok((run, inv_b))
}

/// CuTe's `max_common_vector(a, b)`: the largest `n` such that the offsets `0..n` are reached by
/// `b` at domain indices where `a` gives the same offsets — computed as the leading stride-1
/// extent of `coalesce(a o right_inverse(b))` (at least 1). For every `j < n`,
/// `a(right_inverse(b)(j)) == j == b(right_inverse(b)(j))`. Where that composition is
/// inadmissible for some mode, only the modes before it count (the result is then a lower bound).
///
/// ```
/// use tessel_layout::{max_common_vector, Layout};
/// let a: Layout = "(8,4):(1,8)".parse().unwrap();
/// let b: Layout = "(8,4):(1,16)".parse().unwrap();
/// assert_eq!(max_common_vector(&a, &b).unwrap(), 8);
/// let c: Layout = "(8,4):(4,1)".parse().unwrap();
/// assert_eq!(max_common_vector(&a, &c).unwrap(), 1);
/// ```
pub fn max_common_vector(a: &Layout, b: &Layout) -> Result<i64> {
    common_run(a, b)
        .map(|(n, _)| n)
        .map_err(|e| e.context(format!("max_common_vector of {a} and {b}")))
}

/// CuTe's `max_common_layout(a, b)`: the layout `R = right_inverse(b) o n:1` of the
/// [`max_common_vector`] `n`, so `a(R(i)) == i` and `b(R(i)) == i` for every `i < size(R)`;
/// `1:0` when `n == 1`. It gives the domain indices of the common contiguous vector.
///
/// ```
/// use tessel_layout::{max_common_layout, Layout};
/// let a: Layout = "(4,8):(8,1)".parse().unwrap();
/// let b: Layout = "(4,8):(8,1)".parse().unwrap();
/// assert_eq!(max_common_layout(&a, &b).unwrap().to_string(), "(8,4):(4,1)");
/// ```
pub fn max_common_layout(a: &Layout, b: &Layout) -> Result<Layout> {
    let inner = || -> Result<Layout> {
        let (n, inv_b) = common_run(a, b)?;
        if n == 1 {
            return Layout::vector(1, 0);
        }
        coalesce(&composition(&inv_b, &Layout::vector(n, 1)?)?)
    };
    inner().map_err(|e| e.context(format!("max_common_layout of {a} and {b}")))
}

/// Whether no two coordinates of the layout map to the same offset.
///
/// Decided analytically where possible: a stride-0 mode of extent > 1 is a collision; modes
/// (coalesced, strides taken by absolute value and sorted) whose stride exceeds the largest
/// offset reachable by all smaller modes can never collide. Whatever remains is decided by
/// enumerating its offsets; if that part has more than [`INJECTIVITY_ENUMERATION_LIMIT`]
/// elements the result is an [`ErrorKind::InvalidArgument`] error ("too large to decide").
///
/// ```
/// use tessel_layout::{is_injective, Layout};
/// let ok = |s: &str| is_injective(&s.parse::<Layout>().unwrap()).unwrap();
/// assert!(ok("(4,8):(8,1)"));
/// assert!(!ok("(2,2):(1,1)"));
/// assert!(ok("(3,2):(2,3)")); // offsets 0,2,4,3,5,7
/// assert!(!ok("(4,2):(1,0)"));
/// ```
pub fn is_injective(layout: &Layout) -> Result<bool> {
    let mut modes: Vec<Mode> = coalesce_modes(layout.flat_modes());
    if modes.iter().any(|m| m.1 == 0) {
        return Ok(false);
    }
    // Injectivity does not change when a stride is negated (it mirrors that mode's offsets).
    for m in &mut modes {
        m.1 = m.1.saturating_abs();
    }
    modes.sort_by_key(|m| m.1);
    // Modes from `undecided` on each exceed everything below them.
    let mut undecided = 0usize;
    let mut reach: Option<i64> = Some(0); // largest offset of the modes below, None = overflow
    for (k, &(s, d)) in modes.iter().enumerate() {
        if reach.is_none_or(|r| d <= r) {
            undecided = k + 1;
        }
        reach = reach.and_then(|r| (s - 1).checked_mul(d).and_then(|x| x.checked_add(r)));
    }
    let head = &modes[..undecided];
    let size = head
        .iter()
        .try_fold(1i64, |acc, m| acc.checked_mul(m.0))
        .filter(|&n| n <= INJECTIVITY_ENUMERATION_LIMIT)
        .ok_or_else(|| {
            Error::invalid(format!(
                "is_injective of {layout}: deciding needs enumerating more than {} offsets \
                 (too large to decide)",
                INJECTIVITY_ENUMERATION_LIMIT
            ))
        })?;
    // i128: the sum of absolute offsets may exceed i64 even when the layout's offsets fit.
    let mut offsets: Vec<i128> = Vec::with_capacity(usize::try_from(size).unwrap_or(0));
    offsets.push(0);
    for &(s, d) in head {
        let prev = std::mem::take(&mut offsets);
        for k in 0..s {
            offsets.extend(prev.iter().map(|&o| o + i128::from(k) * i128::from(d)));
        }
    }
    offsets.sort_unstable();
    Ok(offsets.windows(2).all(|w| w[0] != w[1]))
}

/// Whether the layout is a bijection from its domain onto `0..size`: its coalesced modes,
/// sorted by stride, have strides `1, s0, s0*s1, ...` (a permutation of a compact layout).
///
/// ```
/// use tessel_layout::{is_bijective, Layout};
/// let ok = |s: &str| is_bijective(&s.parse::<Layout>().unwrap()).unwrap();
/// assert!(ok("(4,8):(8,1)"));
/// assert!(!ok("(4,8):(1,8)"));
/// assert!(!ok("(3,2):(2,3)"));
/// ```
pub fn is_bijective(layout: &Layout) -> Result<bool> {
    let mut modes: Vec<Mode> = coalesce_modes(layout.flat_modes());
    modes.sort_by_key(|m| m.1);
    let mut next = 1i64;
    for (s, d) in modes {
        if d != next {
            return Ok(false);
        }
        next = s.saturating_mul(d);
    }
    Ok(true)
}
