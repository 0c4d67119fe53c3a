//! Algebraic simplification of [`IndexExpr`]: constant folding, identities, power-of-two
//! division and remainder as shifts and masks, and range-based removal of redundant `/` and `%`
//! (a value known to be below `n` needs no `% n`, and `/ n` of it is zero), and bit fields
//! moved with one shift and one mask.
//!
//! ```
//! use tessel_layout::codegen::{IndexExpr, Ty, simplify::{Bounds, simplify}};
//! // i % 32 of an index known to be below 32 is i itself.
//! let i = IndexExpr::var("i", Ty::Unsigned);
//! let bounds = Bounds::from([("i".to_string(), 31)]);
//! assert_eq!(simplify(IndexExpr::Rem(Box::new(i.clone()), 32), &bounds), i);
//! ```

use std::collections::HashMap;

use super::ir::{IndexExpr, Ty};

/// Inclusive upper bounds of the unsigned variables (e.g. `u <= size - 1`).
///
/// ```
/// use tessel_layout::codegen::{IndexExpr, Ty, simplify::{Bounds, upper_bound}};
/// // i <= 511, so i / 8 <= 63.
/// let bounds = Bounds::from([("i".to_string(), 511)]);
/// let e = IndexExpr::Div(Box::new(IndexExpr::var("i", Ty::Unsigned)), 8);
/// assert_eq!(upper_bound(&e, &bounds), Some(63));
/// ```
pub type Bounds = HashMap<String, u128>;

/// The base-2 logarithm of `n` if it is a positive power of two.
fn log2_exact(n: i64) -> Option<u32> {
    (n > 0 && n & (n - 1) == 0).then(|| n.trailing_zeros())
}

/// An inclusive upper bound of an unsigned index expression, when one is known. The bound is
/// that of the exact value, so it is meaningful for index arithmetic (which never wraps); a
/// negative constant (a residue) or anything of another type has no bound.
///
/// ```
/// use tessel_layout::codegen::{IndexExpr, Ty, simplify::{Bounds, upper_bound}};
/// let bounds = Bounds::from([("u".to_string(), 511)]);
/// let e = IndexExpr::Div(Box::new(IndexExpr::var("u", Ty::Unsigned)), 8);
/// assert_eq!(upper_bound(&e, &bounds), Some(63));
/// ```
pub fn upper_bound(e: &IndexExpr, bounds: &Bounds) -> Option<u128> {
    let b = |x: &IndexExpr| upper_bound(x, bounds);
    match e {
        IndexExpr::Const(v, Ty::Unsigned) => u128::try_from(*v).ok(),
        IndexExpr::Var(name, Ty::Unsigned) => bounds.get(name).copied(),
        IndexExpr::Div(x, n) => Some(b(x)? / u128::try_from(*n).ok()?),
        IndexExpr::Rem(x, n) => {
            let below = u128::try_from(*n).ok()?.checked_sub(1)?;
            Some(b(x).map_or(below, |bx| bx.min(below)))
        }
        IndexExpr::And(x, m) => {
            let m = u128::try_from(*m).ok()?;
            Some(b(x).map_or(m, |bx| bx.min(m)))
        }
        IndexExpr::Shr(x, k) => Some(b(x)? >> k),
        IndexExpr::Shl(x, k) => b(x)?.checked_mul(1u128.checked_shl(*k)?),
        IndexExpr::Mul(x, y) if e.ty() == Ty::Unsigned => b(x)?.checked_mul(b(y)?),
        IndexExpr::Add(terms) if e.ty() == Ty::Unsigned => terms
            .iter()
            .try_fold(0u128, |acc, t| acc.checked_add(b(t)?)),
        _ => None,
    }
}

/// Simplifies bottom-up until no rule applies.
///
/// ```
/// use tessel_layout::codegen::{IndexExpr, Ty, simplify::{Bounds, simplify}};
/// let u = IndexExpr::var("u", Ty::Unsigned);
/// let bounds = Bounds::from([("u".to_string(), 511)]);
/// // (u / 8) % 64 with u < 512 is u >> 3
/// let e = IndexExpr::Rem(Box::new(IndexExpr::Div(Box::new(u.clone()), 8)), 64);
/// assert_eq!(simplify(e, &bounds), IndexExpr::Shr(Box::new(u.clone()), 3));
/// // u % 8 is u & 7
/// let e = IndexExpr::Rem(Box::new(u.clone()), 8);
/// assert_eq!(simplify(e, &bounds), IndexExpr::And(Box::new(u.clone()), 7));
/// // ((u / 32) % 2) * 16 moves one bit: (u >> 1) & 16
/// let bit = IndexExpr::Rem(Box::new(IndexExpr::Div(Box::new(u.clone()), 32)), 2);
/// let e = IndexExpr::Mul(Box::new(bit), Box::new(IndexExpr::Const(16, Ty::Unsigned)));
/// assert_eq!(simplify(e, &bounds), IndexExpr::And(Box::new(IndexExpr::Shr(Box::new(u), 1)), 16));
/// ```
pub fn simplify(e: IndexExpr, bounds: &Bounds) -> IndexExpr {
    let s = |x: Box<IndexExpr>| simplify(*x, bounds);
    match e {
        IndexExpr::Const(..) | IndexExpr::Var(..) => e,
        IndexExpr::Cast(t, x) => s(x).cast(t),
        IndexExpr::Add(terms) => add(terms.into_iter().map(|t| simplify(t, bounds))),
        IndexExpr::Mul(x, y) => mul(s(x), s(y), bounds),
        IndexExpr::Div(x, n) => div(s(x), n, bounds),
        IndexExpr::Rem(x, n) => rem(s(x), n, bounds),
        IndexExpr::Shl(x, k) => shl(s(x), k, bounds),
        IndexExpr::Shr(x, k) => shr(s(x), k, bounds),
        IndexExpr::And(x, m) => and(s(x), m, bounds),
        IndexExpr::Xor(x, y) => xor(s(x), s(y)),
    }
}

fn add(terms: impl Iterator<Item = IndexExpr>) -> IndexExpr {
    let mut out: Vec<IndexExpr> = Vec::new();
    let mut constant: Option<(i64, Ty)> = None;
    for t in terms {
        let flat = match t {
            IndexExpr::Add(inner) => inner,
            other => vec![other],
        };
        for t in flat {
            match t {
                IndexExpr::Const(v, ty) => match constant {
                    Some((c, _)) => match c.checked_add(v) {
                        Some(sum) => constant = Some((sum, ty)),
                        None => out.push(IndexExpr::Const(v, ty)),
                    },
                    None => constant = Some((v, ty)),
                },
                other => out.push(other),
            }
        }
    }
    match constant {
        Some((0, ty)) if out.is_empty() => return IndexExpr::Const(0, ty),
        Some((0, _)) | None => {}
        Some((c, ty)) => out.push(IndexExpr::Const(c, ty)),
    }
    match out.len() {
        0 => IndexExpr::Const(0, Ty::Signed),
        1 => out.pop().unwrap_or(IndexExpr::Const(0, Ty::Signed)),
        _ => IndexExpr::Add(out),
    }
}

fn mul(x: IndexExpr, y: IndexExpr, bounds: &Bounds) -> IndexExpr {
    let ty = x.ty();
    // Constants go to the right.
    let (x, y) = if matches!(x, IndexExpr::Const(..)) {
        (y, x)
    } else {
        (x, y)
    };
    match (&x, &y) {
        (IndexExpr::Const(a, _), IndexExpr::Const(b, _)) => match a.checked_mul(*b) {
            Some(p) => IndexExpr::Const(p, ty),
            None => IndexExpr::Mul(Box::new(x), Box::new(y)),
        },
        (_, IndexExpr::Const(0, _)) => IndexExpr::Const(0, ty),
        (_, IndexExpr::Const(1, _)) => x,
        (_, IndexExpr::Const(c, t)) if t.is_unsigned() => match log2_exact(*c) {
            Some(k) => shl(x, k, bounds),
            None => IndexExpr::Mul(Box::new(x), Box::new(y)),
        },
        _ => IndexExpr::Mul(Box::new(x), Box::new(y)),
    }
}

fn div(x: IndexExpr, n: i64, bounds: &Bounds) -> IndexExpr {
    if n == 1 {
        return x;
    }
    if let IndexExpr::Const(v, t) = x {
        if v >= 0 && n > 0 {
            return IndexExpr::Const(v / n, t);
        }
    }
    if matches!(upper_bound(&x, bounds), Some(b) if b < n as u128) {
        return IndexExpr::Const(0, Ty::Unsigned);
    }
    if let IndexExpr::Div(inner, m) = &x {
        if let Some(mn) = m.checked_mul(n) {
            return div((**inner).clone(), mn, bounds);
        }
    }
    match log2_exact(n) {
        Some(k) => shr(x, k, bounds),
        None => IndexExpr::Div(Box::new(x), n),
    }
}

fn rem(x: IndexExpr, n: i64, bounds: &Bounds) -> IndexExpr {
    if n == 1 {
        return IndexExpr::Const(0, Ty::Unsigned);
    }
    if let IndexExpr::Const(v, t) = x {
        if v >= 0 && n > 0 {
            return IndexExpr::Const(v % n, t);
        }
    }
    if matches!(upper_bound(&x, bounds), Some(b) if b < n as u128) {
        return x;
    }
    match log2_exact(n) {
        Some(k) => and(x, (1i64 << k) - 1, bounds),
        None => IndexExpr::Rem(Box::new(x), n),
    }
}

/// `((x >> a) & m) << k` with a low mask `m` and `a > 0` moves one bit field: it is
/// `(x >> (a - k)) & (m << k)` (or `(x << (k - a)) & (m << k)`), one operation fewer.
fn move_bit_field(x: &IndexExpr, m: i64, k: u32, bounds: &Bounds) -> Option<IndexExpr> {
    let IndexExpr::Shr(inner, a) = x else {
        return None;
    };
    let low_mask = m > 0 && (m & m.wrapping_add(1)) == 0;
    let moved_mask = m.checked_shl(k).filter(|mm| mm >> k == m)?;
    if !low_mask || *a == 0 {
        return None;
    }
    let field = if *a >= k {
        shr((**inner).clone(), a - k, bounds)
    } else {
        shl((**inner).clone(), k - a, bounds)
    };
    Some(and(field, moved_mask, bounds))
}

fn shl(x: IndexExpr, k: u32, bounds: &Bounds) -> IndexExpr {
    if let IndexExpr::And(inner, m) = &x {
        if let Some(moved) = move_bit_field(inner, *m, k, bounds) {
            return moved;
        }
    }
    match x {
        _ if k == 0 => x,
        IndexExpr::Const(v, t)
            if v >= 0 && k < 63 && v.checked_shl(k).is_some_and(|r| r >> k == v) =>
        {
            IndexExpr::Const(v << k, t)
        }
        IndexExpr::Shl(inner, j) => IndexExpr::Shl(inner, j + k),
        other => IndexExpr::Shl(Box::new(other), k),
    }
}

fn shr(x: IndexExpr, k: u32, bounds: &Bounds) -> IndexExpr {
    if k == 0 {
        return x;
    }
    if matches!(upper_bound(&x, bounds), Some(b) if k >= 64 || b >> k == 0) {
        return IndexExpr::Const(0, Ty::Unsigned);
    }
    match x {
        IndexExpr::Const(v, t) if v >= 0 => IndexExpr::Const(v >> k, t),
        IndexExpr::Shr(inner, j) => IndexExpr::Shr(inner, j + k),
        other => IndexExpr::Shr(Box::new(other), k),
    }
}

fn and(x: IndexExpr, m: i64, bounds: &Bounds) -> IndexExpr {
    if m == 0 {
        return IndexExpr::Const(0, Ty::Unsigned);
    }
    let low_mask = m > 0 && (m & m.wrapping_add(1)) == 0;
    if low_mask && matches!(upper_bound(&x, bounds), Some(b) if b <= m as u128) {
        return x;
    }
    match x {
        IndexExpr::Const(v, t) if v >= 0 => IndexExpr::Const(v & m, t),
        other => IndexExpr::And(Box::new(other), m),
    }
}

fn xor(x: IndexExpr, y: IndexExpr) -> IndexExpr {
    match (&x, &y) {
        (_, IndexExpr::Const(0, _)) => x,
        (IndexExpr::Const(0, _), _) => y,
        _ => IndexExpr::Xor(Box::new(x), Box::new(y)),
    }
}
