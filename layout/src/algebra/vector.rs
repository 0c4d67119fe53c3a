//! Common vectors of two layouts, and injectivity / bijectivity.
//!
//! ```
//! use tessel_layout::{is_bijective, is_injective, max_common_vector, Layout};
//! // Column-major 8x4 and a padded copy agree on the first 8 elements.
//! let a: Layout = "(8,4):(1,8)".parse().unwrap();
//! let b: Layout = "(8,4):(1,16)".parse().unwrap();
//! assert_eq!(max_common_vector(&a, &b).unwrap(), 8);
//! assert!(is_bijective(&a).unwrap());
//! assert!(is_injective(&b).unwrap() && !is_bijective(&b).unwrap());
//! ```

use super::flat::{Mode, Modes, coalesce_modes, modes_of};
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

/// The largest `n <= limit` such that `max(r(0), ..., r(n-1)) < bound`, for a layout `r` with
/// non-negative strides. The prefix maximum grows with `n`, so a binary search finds it.
fn prefix_below(r: &Layout, limit: i64, bound: i64) -> i64 {
    let (mut lo, mut hi) = (0i64, limit); // prefix_max(lo) < bound holds; answer in lo..=hi
    while lo < hi {
        let mid = lo + (hi - lo + 1) / 2;
        if prefix_max(r, mid).is_some_and(|m| m < bound) {
            lo = mid;
        } else {
            hi = mid - 1;
        }
    }
    lo
}

/// `max(r(0), ..., r(n-1))` for `1 <= n <= size(r)` and non-negative strides, without
/// enumerating: any `i < n` other than `n-1` first differs from `n-1` (from the most significant
/// digit down) at some digit `k` where it is smaller; the best such `i` takes digit `k` one
/// below that of `n-1` and every lower digit at its maximum. `None` on overflow.
fn prefix_max(r: &Layout, n: i64) -> Option<i64> {
    let modes = r.flat_modes();
    let mut digits = Vec::with_capacity(modes.len());
    let mut rest = n - 1;
    for &(s, _) in &modes {
        digits.push(rest % s);
        rest /= s;
    }
    let value = |k: usize| -> Option<i64> {
        // digits above k as in n-1, digit k one less, digits below k at their maximum
        modes
            .iter()
            .enumerate()
            .try_fold(0i64, |acc, (j, &(s, d))| {
                let digit = match j.cmp(&k) {
                    std::cmp::Ordering::Less => s - 1,
                    std::cmp::Ordering::Equal => digits[j] - 1,
                    std::cmp::Ordering::Greater => digits[j],
                };
                acc.checked_add(digit.checked_mul(d)?)
            })
    };
    let mut best = r.offset(n - 1).ok()?;
    for (k, &digit) in digits.iter().enumerate() {
        if digit > 0 {
            best = best.max(value(k)?);
        }
    }
    Some(best)
}

/// The common vector length `n` and the right inverse `R` of `b`: the leading stride-1 run of
/// `coalesce(a o R)`, cut where `R` leaves the domain of `a`.
fn common_vector(a: &Layout, b: &Layout) -> Result<(i64, Layout)> {
    let (run, inv_b) = common_run(a, b)?;
    // The composition extends `a` past its last mode, so the run may count offsets that `a`
    // only reaches outside its domain: keep the prefix whose indices R(j) lie inside it.
    let limit = run.min(a.size()).min(b.size()).min(inv_b.size());
    let inside = prefix_below(&inv_b, limit, a.size()).max(1);
    Ok((layout_prefix(&inv_b, inside), inv_b))
}

/// The largest `m <= n` whose prefix `r(0..m)` is itself a layout, `r o m:1`: whole leading
/// modes of `coalesce(r)` times a divisor of the next extent, or any count of the last mode
/// (`5` of `6:1` is `5:1`). A prefix cut inside an inner mode at a non-divisor (e.g. 6 of
/// `(4,2):(2,1)`, offsets 0,2,4,6,1,3) has no layout, so neither `max_common_layout` nor its
/// size can describe it.
fn layout_prefix(r: &Layout, n: i64) -> i64 {
    let modes = coalesce_modes(r.flat_modes());
    let mut whole = 1i64; // the product of the leading modes taken so far
    for (k, &(s, _)) in modes.iter().enumerate() {
        let q = n / whole;
        if q >= s {
            whole *= s;
            continue;
        }
        if k + 1 == modes.len() {
            return whole * q;
        }
        return whole * largest_divisor_at_most(s, q);
    }
    whole
}

/// The largest divisor of `s` that is at most `q` (`1 <= q < s`). Trial division up to
/// `2^20`; past that bound the answer may be a smaller divisor (`gcd(s, q)` at least).
fn largest_divisor_at_most(s: i64, q: i64) -> i64 {
    let mut best = gcd(s, q);
    let mut d = 1i64;
    while d <= (1 << 20) && d.saturating_mul(d) <= s {
        if s % d == 0 {
            for candidate in [d, s / d] {
                if candidate <= q {
                    best = best.max(candidate);
                }
            }
        }
        d += 1;
    }
    best
}

fn gcd(mut a: i64, mut b: i64) -> i64 {
    while b != 0 {
        (a, b) = (b, a % b);
    }
    a
}

/// CuTe's `max_common_vector(a, b)`: the largest `n` such that the offsets `0..n` are reached by
/// `b` at domain indices where `a` gives the same offsets. With `R = right_inverse(b)`, for every
/// `j < n`: `R(j)` is a domain index of both layouts (`R(j) < min(size(a), size(b))`) and
/// `a(R(j)) == j == b(R(j))` — CuTe's postcondition `a(b.get_1d_coord(j)) == j`. So
/// `1 <= n <= min(size(a), size(b))`.
///
/// Computed as CuTe does, from the leading stride-1 extent of `coalesce(a o R)` (at least 1),
/// then cut to the prefix where `R(j)` stays inside the domain of `a` (the composition extends
/// `a`'s last mode, so that formula alone gives 64 for `32:1` and `64:1`, counting offsets `a`
/// does not have), and to a prefix that is itself a layout, so that `n` is the size of
/// [`max_common_layout`]. Where the composition is inadmissible for some mode of `R`, only the
/// modes before it count (the result is then a lower bound).
///
/// ```
/// use tessel_layout::{max_common_vector, Layout};
/// let a: Layout = "(8,4):(1,8)".parse().unwrap();
/// let b: Layout = "(8,4):(1,16)".parse().unwrap();
/// assert_eq!(max_common_vector(&a, &b).unwrap(), 8);
/// let c: Layout = "(8,4):(4,1)".parse().unwrap();
/// assert_eq!(max_common_vector(&a, &c).unwrap(), 1);
/// // Never more than either layout has elements.
/// let short: Layout = "32:1".parse().unwrap();
/// let long: Layout = "64:1".parse().unwrap();
/// assert_eq!(max_common_vector(&short, &long).unwrap(), 32);
/// ```
pub fn max_common_vector(a: &Layout, b: &Layout) -> Result<i64> {
    common_vector(a, b)
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
/// let short: Layout = "32:1".parse().unwrap();
/// let long: Layout = "64:1".parse().unwrap();
/// assert_eq!(max_common_layout(&short, &long).unwrap().to_string(), "32:1");
/// ```
pub fn max_common_layout(a: &Layout, b: &Layout) -> Result<Layout> {
    let inner = || -> Result<Layout> {
        let (n, inv_b) = common_vector(a, b)?;
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
    let mut modes: Modes = coalesce_modes(modes_of(layout));
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
    crate::budget::charge(size, &format!("is_injective of {layout}"))?;
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

/// Whether the layout is a bijection from its domain onto `0..size`: every offset in
/// `0..size` is reached exactly once (tessel's definition; CuTe names no such predicate).
/// Equivalently: its coalesced modes, sorted by the magnitude of their strides, have strides
/// `±1, ±s0, ±s0*s1, ...` (a permutation of a compact layout), and no mode of extent > 1 has a
/// negative stride (such a mode reaches below 0). A layout that is a bijection onto another
/// range, e.g. `4:-1` onto `-3..=0`, is [`is_injective`] but not bijective; with the offset
/// that moves its smallest offset to 0 it is (`3 o 4:-1`, see
/// [`verify::is_bijective`](crate::verify::is_bijective)).
///
/// ```
/// use tessel_layout::{is_bijective, Layout};
/// let ok = |s: &str| is_bijective(&s.parse::<Layout>().unwrap()).unwrap();
/// assert!(ok("(4,8):(8,1)"));
/// assert!(!ok("(4,8):(1,8)"));
/// assert!(!ok("(3,2):(2,3)"));
/// assert!(!ok("4:-1")); // offsets 0,-1,-2,-3
/// ```
pub fn is_bijective(layout: &Layout) -> Result<bool> {
    is_bijective_at(layout, 0)
}

/// Whether `offset + layout(i)` maps the domain onto `0..size` exactly once each: the stride
/// magnitudes form a compact chain and the smallest offset, `offset` plus the reach of the
/// negative-stride modes, is 0.
pub(crate) fn is_bijective_at(layout: &Layout, offset: i64) -> Result<bool> {
    let mut modes: Modes = coalesce_modes(modes_of(layout));
    modes.sort_by_key(|m| m.1.saturating_abs());
    let mut next = 1i64;
    for &(s, d) in &modes {
        if d.saturating_abs() != next {
            return Ok(false);
        }
        next = s.saturating_mul(next);
    }
    let (lowest, _) = layout.offset_range()?;
    Ok(offset.checked_add(lowest) == Some(0))
}
