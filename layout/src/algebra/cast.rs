//! upcast / downcast: re-express a layout in units of wider or narrower elements.
//!
//! ```
//! use tessel_layout::{downcast, upcast, Layout};
//! // A row-major 8x8 tile of fp16 seen as 32-bit words: 8 rows of 4 words.
//! let l: Layout = "(8,8):(8,1)".parse().unwrap();
//! let words = upcast(&l, 2).unwrap();
//! assert_eq!(words.to_string(), "(8,4):(4,1)");
//! assert_eq!(downcast(&words, 2).unwrap().size(), 64);
//! ```

use std::collections::BTreeSet;

use super::flat::map_modes;
use crate::{Error, Layout, Result, checked_mul};

/// Enumeration bound for [`check_sub_element_leaves`].
const SUB_ELEMENT_LIMIT: i64 = 1 << 20;

/// Upcast maps each leaf on its own; leaves whose strides lie below one wide element (`0 < |d|`,
/// `d` not a multiple of `factor`) must together reach exactly the wide elements their upcast
/// leaves reach. Leaves with strides that are multiples of `factor` only shift by whole wide
/// elements, so this decides the whole layout. `(3,2):(2,3)` by 6 (narrow offsets 0,2,4,3,5,7)
/// reaches wide elements 0 and 1, but its leaves upcast to `(1,1):(1,1)`: an error, never a
/// layout that silently drops element 1 (CuTe's upcast returns that layout).
fn check_sub_element_leaves(layout: &Layout, factor: i64) -> Result<()> {
    let sub: Vec<(i64, i64)> = layout
        .flat_modes()
        .into_iter()
        .filter(|&(s, d)| s > 1 && d != 0 && d % factor != 0 && factor % d.saturating_abs() == 0)
        .collect();
    if sub.len() < 2 {
        return Ok(());
    }
    let count = sub.iter().try_fold(1i64, |n, &(s, _)| n.checked_mul(s));
    if count.is_none_or(|n| n > SUB_ELEMENT_LIMIT) {
        return Err(Error::invalid(format!(
            "upcast of {layout} by {factor}: its leaves with strides below one wide element \
             have more than {SUB_ELEMENT_LIMIT} combinations, too many to check"
        )));
    }
    // Narrow offsets of the sub-element leaves, then the wide elements they fall in.
    let wide: BTreeSet<i64> = reachable(&sub)
        .iter()
        .map(|&x| x.div_euclid(factor))
        .collect();
    // What the upcast leaves reach.
    let upcast_leaves: Vec<(i64, i64)> = sub
        .iter()
        .map(|&(s, d)| sub_element_upcast(s, d, factor))
        .collect();
    let mapped = reachable(&upcast_leaves);
    if wide != mapped {
        return Err(Error::inadmissible(format!(
            "upcast of {layout} by {factor}: its leaves with strides below one wide element \
             together reach wide elements {wide:?}, which upcasting each leaf on its own \
             cannot represent (it would reach {mapped:?})"
        )));
    }
    Ok(())
}

/// Upcast of a leaf `s:d` whose stride divides `factor`: `per = factor/|d|` of its elements
/// share a wide element, so it becomes `ceil(s/per)` wide elements at unit stride of `d`'s sign.
fn sub_element_upcast(s: i64, d: i64, factor: i64) -> (i64, i64) {
    let per = factor / d.saturating_abs();
    (s / per + i64::from(s % per != 0), d.signum())
}

/// Every offset `sum c_k * d_k` of the leaves `(s_k, d_k)`, `0 <= c_k < s_k`.
fn reachable(leaves: &[(i64, i64)]) -> BTreeSet<i64> {
    let mut out = BTreeSet::from([0i64]);
    for &(s, d) in leaves {
        out = out
            .iter()
            .flat_map(|&x| (0..s).map(move |c| x + c * d))
            .collect();
    }
    out
}

fn check_factor(op: &str, layout: &Layout, factor: i64) -> Result<()> {
    if factor < 1 {
        return Err(Error::invalid(format!(
            "{op} of {layout} by {factor}: the factor must be at least 1"
        )));
    }
    Ok(())
}

/// CuTe's `upcast<N>`: the layout in units of elements `N` times wider. Leaf by leaf: a
/// stride-0 leaf is kept; a stride `d` with `|d| >= N` must be a multiple of `N` and becomes
/// `d/N`; a stride with `|d| < N` must divide `N`, becomes `±1`, and its extent `s` shrinks to
/// `ceil(s / (N/|d|))`. Errors when a stride is neither a multiple nor a divisor of `N` (the
/// divisibility condition).
///
/// ```
/// use tessel_layout::{upcast, Layout};
/// let l: Layout = "(8,4):(1,8)".parse().unwrap();
/// assert_eq!(upcast(&l, 2).unwrap().to_string(), "(4,4):(1,4)");
/// assert!(upcast(&"(8,4):(1,6)".parse().unwrap(), 4).is_err());
/// ```
pub fn upcast(layout: &Layout, factor: i64) -> Result<Layout> {
    check_factor("upcast", layout, factor)?;
    check_sub_element_leaves(layout, factor)?;
    map_modes(layout, |s, d| {
        let a = d.saturating_abs();
        if d == 0 {
            Ok((s, 0))
        } else if a % factor == 0 {
            Ok((s, d / factor))
        } else if factor % a == 0 {
            Ok(sub_element_upcast(s, d, factor))
        } else {
            Err(Error::inadmissible(format!(
                "upcast of {layout} by {factor}: the stride {d} (mode {s}:{d}) is neither a \
                 multiple nor a divisor of {factor} (divisibility condition)"
            )))
        }
    })
}

/// CuTe's `downcast<N>`: the layout in units of elements `N` times narrower. Element `c` of
/// `layout` becomes the `N` narrow elements at offsets `N*layout(c) + j`, `j < N`: one leaf of
/// stride 1 takes the sub-element index `j` as its fastest part (its extent grows `N` times, its
/// coordinate `c'` standing for `c = c' / N`, `j = c' % N`), and every other stride is
/// multiplied by `N`. The leaf is the first stride-1 leaf of extent > 1, else the first stride-1
/// leaf. `upcast(downcast(l, n), n) == l`.
///
/// C++ CuTe grows every stride-±1 leaf, which is only right when there is exactly one: for
/// `(1,8):(1,1)` by 4 it gives `(4,32):(1,1)`, 128 indices for 32 narrow elements; tessel gives
/// `(1,32):(4,1)`. Errors (CuTe: "downcast requires adjacent elements") when no leaf has
/// stride 1. A layout whose only unit stride is -1 is an error too: growing that leaf would walk
/// the narrow elements of each wide element backwards, `N*layout(c) - j`, not `+ j`.
///
/// ```
/// use tessel_layout::{downcast, Layout};
/// let l: Layout = "(4,4):(1,4)".parse().unwrap();
/// assert_eq!(downcast(&l, 2).unwrap().to_string(), "(8,4):(1,8)");
/// let two_unit: Layout = "(1,8):(1,1)".parse().unwrap();
/// assert_eq!(downcast(&two_unit, 4).unwrap().to_string(), "(1,32):(4,1)");
/// assert!(downcast(&"8:-1".parse().unwrap(), 2).is_err());
/// ```
pub fn downcast(layout: &Layout, factor: i64) -> Result<Layout> {
    check_factor("downcast", layout, factor)?;
    if factor == 1 {
        return Ok(layout.clone());
    }
    let leaves = layout.flat_modes();
    let grown = leaves
        .iter()
        .position(|&(s, d)| d == 1 && s > 1)
        .or_else(|| leaves.iter().position(|&(_, d)| d == 1))
        // An extent-1 leaf has no direction: its stride -1 is as good as 1 (it grows to `N:1`).
        .or_else(|| leaves.iter().position(|&(s, d)| s == 1 && d == -1));
    let Some(grown) = grown else {
        let why = if leaves.iter().any(|&(_, d)| d == -1) {
            "its only unit strides are -1, and growing such a leaf would order the narrow \
             elements inside each element backwards"
        } else {
            "the layout has no stride-1 leaf (downcast requires adjacent elements)"
        };
        return Err(Error::inadmissible(format!(
            "downcast of {layout} by {factor}: {why}"
        )));
    };
    let what = format!("downcast of {layout} by {factor}");
    let mut k = 0usize;
    map_modes(layout, |s, d| {
        let here = k;
        k += 1;
        if here == grown {
            Ok((checked_mul(s, factor, &what)?, d.abs()))
        } else {
            Ok((s, checked_mul(d, factor, &what)?))
        }
    })
}

/// CuTe's `recast_layout<Old, New>` for element widths given in bits: with
/// `new_bits / old_bits = num / den` in lowest terms, the layout [`upcast`] by `num`, then
/// [`downcast`] by `den` (either step skipped when its factor is 1). Both widths must be at
/// least 1.
///
/// ```
/// use tessel_layout::{recast, Layout};
/// // A row-major 8x8 tile of 16-bit elements as 32-bit words, and as bytes.
/// let l: Layout = "(8,8):(8,1)".parse().unwrap();
/// assert_eq!(recast(&l, 16, 32).unwrap().to_string(), "(8,4):(4,1)");
/// assert_eq!(recast(&l, 16, 8).unwrap().to_string(), "(8,16):(16,1)");
/// // 16 -> 24 bits: upcast by 3 then downcast by 2.
/// assert_eq!(recast(&"12:1".parse().unwrap(), 16, 24).unwrap().to_string(), "8:1");
/// ```
pub fn recast(layout: &Layout, old_bits: i64, new_bits: i64) -> Result<Layout> {
    let (num, den) =
        recast_ratio(old_bits, new_bits).map_err(|e| e.context(format!("recast of {layout}")))?;
    let wide = if num == 1 {
        layout.clone()
    } else {
        upcast(layout, num)?
    };
    if den == 1 {
        Ok(wide)
    } else {
        downcast(&wide, den)
    }
}

/// The factors of [`recast`]: `new_bits / old_bits` in lowest terms, `(upcast by, downcast by)`.
/// Both widths must be at least 1 bit.
///
/// ```
/// use tessel_layout::algebra::cast::recast_ratio;
/// assert_eq!(recast_ratio(16, 24).unwrap(), (3, 2));
/// assert_eq!(recast_ratio(32, 8).unwrap(), (1, 4));
/// assert!(recast_ratio(0, 8).is_err());
/// ```
pub fn recast_ratio(old_bits: i64, new_bits: i64) -> Result<(i64, i64)> {
    if old_bits < 1 || new_bits < 1 {
        return Err(Error::invalid(format!(
            "recast from {old_bits}-bit to {new_bits}-bit elements: element widths must be at \
             least 1 bit"
        )));
    }
    let g = gcd(old_bits, new_bits);
    Ok((new_bits / g, old_bits / g))
}

fn gcd(mut a: i64, mut b: i64) -> i64 {
    while b != 0 {
        (a, b) = (b, a % b);
    }
    a
}
