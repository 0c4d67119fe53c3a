//! upcast / downcast: re-express a layout in units of wider or narrower elements.

use super::flat::map_modes;
use crate::{Error, Layout, Result, checked_mul};

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
    map_modes(layout, |s, d| {
        let a = d.saturating_abs();
        if d == 0 {
            Ok((s, 0))
        } else if a % factor == 0 {
            Ok((s, d / factor))
        } else if factor % a == 0 {
            let per = factor / a;
            Ok((s / per + i64::from(s % per != 0), d.signum()))
        } else {
            Err(Error::inadmissible(format!(
                "upcast of {layout} by {factor}: the stride {d} (mode {s}:{d}) is neither a \
                 multiple nor a divisor of {factor} (divisibility condition)"
            )))
        }
    })
}

/// CuTe's `downcast<N>`: the layout in units of elements `N` times narrower. Leaf by leaf: a
/// stride `±1` leaf keeps its stride and its extent grows `N` times; every other stride is
/// multiplied by `N`. The layout needs a stride-`±1` leaf (CuTe: "downcast requires adjacent
/// elements"). `upcast(downcast(l, n), n) == l`.
///
/// ```
/// use tessel_layout::{downcast, Layout};
/// let l: Layout = "(4,4):(1,4)".parse().unwrap();
/// assert_eq!(downcast(&l, 2).unwrap().to_string(), "(8,4):(1,8)");
/// ```
pub fn downcast(layout: &Layout, factor: i64) -> Result<Layout> {
    check_factor("downcast", layout, factor)?;
    if !layout
        .flat_modes()
        .iter()
        .any(|m| m.1.saturating_abs() == 1)
    {
        return Err(Error::inadmissible(format!(
            "downcast of {layout} by {factor}: the layout has no stride-1 mode (downcast \
             requires adjacent elements)"
        )));
    }
    let what = format!("downcast of {layout} by {factor}");
    map_modes(layout, |s, d| {
        if d.saturating_abs() == 1 {
            Ok((checked_mul(s, factor, &what)?, d))
        } else {
            Ok((s, checked_mul(d, factor, &what)?))
        }
    })
}
