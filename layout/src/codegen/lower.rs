//! Lowering layouts to [`IndexExpr`]: a 1-D index is split over the modes with div/mod (the first
//! mode varies fastest), each coordinate is scaled by its stride, and the terms are summed.
//! Swizzles become XOR/shift/mask terms on the offset.
//!
//! Before splitting, modes of extent 1 are dropped and adjacent modes that continue each other
//! (`d1 == s0 * d0`) are merged, so `(4,8):(1,4)` lowers to the index itself. Terms of stride 0
//! are dropped (their mode still takes its share of the index).

use super::ir::{IndexExpr, Ty};
use super::symbolic::{SymInt, SymLayout, SymTuple};
use crate::int_tuple::IntTuple;
use crate::swizzle::Swizzle;

/// The `(extent, stride)` leaves of one shape/stride pair, left to right.
///
/// ```
/// use tessel_layout::codegen::{lower::flat_modes, SymInt, SymLayout};
/// let l: SymLayout = "(4,(2,3)):(ld,(1,8))".parse().unwrap();
/// let modes = flat_modes(l.shape(), l.stride());
/// assert_eq!(modes[0], (4, SymInt::Sym("ld".into())));
/// assert_eq!(modes.len(), 3);
/// ```
pub fn flat_modes(shape: &IntTuple, stride: &SymTuple) -> Vec<(i64, SymInt)> {
    shape
        .leaves()
        .into_iter()
        .zip(stride.leaves())
        .map(|(s, d)| (s, d.clone()))
        .collect()
}

/// Drops extent-1 modes and merges neighbours whose strides continue each other.
///
/// ```
/// use tessel_layout::codegen::{lower::merge_modes, SymInt};
/// let m = merge_modes(&[(4, SymInt::Int(1)), (1, SymInt::Int(7)), (8, SymInt::Int(4))]);
/// assert_eq!(m, vec![(32, SymInt::Int(1))]);
/// ```
pub fn merge_modes(modes: &[(i64, SymInt)]) -> Vec<(i64, SymInt)> {
    let mut out: Vec<(i64, SymInt)> = Vec::new();
    for (s, d) in modes.iter().filter(|(s, _)| *s > 1) {
        if let Some((ps, SymInt::Int(pd))) = out.last_mut() {
            if let SymInt::Int(d) = d {
                let continues = ps.checked_mul(*pd) == Some(*d);
                if let (true, Some(merged)) = (continues, ps.checked_mul(*s)) {
                    *ps = merged;
                    continue;
                }
            }
        }
        out.push((*s, d.clone()));
    }
    out
}

/// The offset of the unsigned index `index` (in `0..product of extents`) under `modes`: a signed
/// expression, not yet simplified. Positive constant strides are scaled in unsigned arithmetic
/// while the sum of those terms stays at most `unsigned_limit` (the largest value the index type
/// holds that also converts to the offset type unchanged); the others are signed.
///
/// ```
/// use tessel_layout::codegen::{lower::lower_modes, IndexExpr, SymInt, Ty};
/// let modes = [(8, SymInt::Int(64)), (64, SymInt::Int(1))];
/// let e = lower_modes(IndexExpr::var("u", Ty::Unsigned), &modes, i64::from(i32::MAX));
/// assert_eq!(e.ty(), Ty::Signed);
/// ```
pub fn lower_modes(index: IndexExpr, modes: &[(i64, SymInt)], unsigned_limit: i64) -> IndexExpr {
    let mut terms = Terms::new(unsigned_limit);
    terms.add_modes(index, modes);
    terms.sum()
}

/// Terms of an offset sum, split by type: positive constant strides keep the product in
/// unsigned arithmetic (so powers of two become shifts) as long as the unsigned sum stays within
/// `limit`; negative, symbolic and too large ones are signed.
struct Terms {
    unsigned: Vec<IndexExpr>,
    signed: Vec<IndexExpr>,
    limit: i128,
    unsigned_reach: i128,
}

impl Terms {
    fn new(limit: i64) -> Terms {
        Terms {
            unsigned: Vec::new(),
            signed: Vec::new(),
            limit: i128::from(limit),
            unsigned_reach: 0,
        }
    }

    fn add_modes(&mut self, index: IndexExpr, modes: &[(i64, SymInt)]) {
        let mut prefix = 1i64;
        for (s, d) in merge_modes(modes) {
            let coord =
                IndexExpr::Rem(Box::new(IndexExpr::Div(Box::new(index.clone()), prefix)), s);
            match d {
                SymInt::Int(0) => {}
                SymInt::Int(d)
                    if d > 0
                        && self.unsigned_reach + i128::from(s - 1) * i128::from(d)
                            <= self.limit =>
                {
                    self.unsigned_reach += i128::from(s - 1) * i128::from(d);
                    self.unsigned.push(IndexExpr::Mul(
                        Box::new(coord),
                        Box::new(IndexExpr::Const(d, Ty::Unsigned)),
                    ))
                }
                SymInt::Int(d) => self.signed.push(IndexExpr::Mul(
                    Box::new(coord.cast(Ty::Signed)),
                    Box::new(IndexExpr::Const(d, Ty::Signed)),
                )),
                SymInt::Sym(name) => self.signed.push(IndexExpr::Mul(
                    Box::new(coord.cast(Ty::Signed)),
                    Box::new(IndexExpr::Var(name, Ty::Signed)),
                )),
            }
            prefix = prefix.saturating_mul(s);
        }
    }

    fn sum(self) -> IndexExpr {
        let mut terms = Vec::new();
        if !self.unsigned.is_empty() {
            terms.push(IndexExpr::Add(self.unsigned).cast(Ty::Signed));
        }
        terms.extend(self.signed);
        IndexExpr::Add(terms)
    }
}

/// The offset of the 1-D index variable `index` under the whole layout (see [`lower_modes`]
/// for `unsigned_limit`).
///
/// ```
/// use tessel_layout::codegen::{lower::lower_index, IndexExpr, SymLayout, Ty};
/// let l: SymLayout = "(4,8):(1,4)".parse().unwrap();
/// let e = lower_index(&l, IndexExpr::var("u", Ty::Unsigned), i64::MAX);
/// assert_eq!(e.vars(), vec!["u".to_string()]);
/// ```
pub fn lower_index(layout: &SymLayout, index: IndexExpr, unsigned_limit: i64) -> IndexExpr {
    lower_modes(
        index,
        &flat_modes(layout.shape(), layout.stride()),
        unsigned_limit,
    )
}

/// The offset of a coordinate given as one unsigned variable per top-level mode
/// (`coords[k]` in `0..size(mode k)`); a leaf mode uses its coordinate directly (see
/// [`lower_modes`] for `unsigned_limit`).
///
/// ```
/// use tessel_layout::codegen::{lower::lower_coords, IndexExpr, SymLayout, Ty};
/// let l: SymLayout = "(8,(2,4)):(1,(64,8))".parse().unwrap();
/// let coords = [IndexExpr::var("u0", Ty::Unsigned), IndexExpr::var("u1", Ty::Unsigned)];
/// let e = lower_coords(&l, &coords, i64::MAX);
/// assert_eq!(e.vars(), vec!["u0".to_string(), "u1".to_string()]);
/// ```
pub fn lower_coords(layout: &SymLayout, coords: &[IndexExpr], unsigned_limit: i64) -> IndexExpr {
    let mut terms = Terms::new(unsigned_limit);
    let modes = layout.shape().modes().iter().zip(layout.stride().modes());
    for ((s, d), c) in modes.zip(coords) {
        terms.add_modes(c.clone(), &flat_modes(s, d));
    }
    terms.sum()
}

/// The XOR term of `sw` applied to the signed value `value`: `sw(x) = x ^ term(x)`.
///
/// ```
/// use tessel_layout::{Swizzle, codegen::{lower::swizzle_term, IndexExpr, Ty}};
/// let t = swizzle_term(&Swizzle::new(3, 3, 3).unwrap(), IndexExpr::var("o", Ty::Signed));
/// assert_eq!(t.ty(), Ty::Signed);
/// ```
pub fn swizzle_term(sw: &Swizzle, value: IndexExpr) -> IndexExpr {
    let picked = IndexExpr::And(Box::new(value.cast(Ty::Unsigned)), sw.yyy_mask());
    let moved = if sw.shift() >= 0 {
        IndexExpr::Shr(Box::new(picked), sw.shift().unsigned_abs())
    } else {
        IndexExpr::Shl(Box::new(picked), sw.shift().unsigned_abs())
    };
    moved.cast(Ty::Signed)
}
