//! Lowering layouts to [`IndexExpr`]: a 1-D index is split over the modes with div/mod (the first
//! mode varies fastest), each coordinate is scaled by its stride, and the terms are summed in
//! unsigned arithmetic modulo `2^bits` (see [`lower_modes`]). Swizzles become XOR/shift/mask
//! terms on the offset.
//!
//! Before splitting, modes of extent 1 are dropped and adjacent modes that continue each other
//! (`d1 == s0 * d0`) are merged, so `(4,8):(1,4)` lowers to the index itself. Terms of stride 0
//! are dropped (their mode still takes its share of the index).
//!
//! ```
//! use tessel_layout::codegen::{lower::lower_index, IndexExpr, SymLayout, Ty, Width, Widths};
//! // (4,8):(1,4) continues itself: it lowers to the index alone.
//! let l: SymLayout = "(4,8):(1,4)".parse().unwrap();
//! let i = IndexExpr::var("i", Ty::Unsigned);
//! let e = lower_index(&l, i, Widths::uniform(Width::Bits64));
//! assert_eq!(e.vars(), vec!["i".to_string()]);
//! ```

use super::ir::Widths;
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

/// The type the offset sum is computed in under the widths `w`: unsigned at the offset width
/// ([`Ty::Unsigned`] itself when the index arithmetic is as wide).
///
/// ```
/// use tessel_layout::codegen::{lower::sum_type, Ty, Width, Widths};
/// assert_eq!(sum_type(Widths::uniform(Width::Bits32)), Ty::Unsigned);
/// assert_eq!(sum_type(Widths { index: Width::Bits32, offset: Width::Bits64 }), Ty::UnsignedOffset);
/// ```
pub fn sum_type(w: Widths) -> Ty {
    if w.index == w.offset {
        Ty::Unsigned
    } else {
        Ty::UnsignedOffset
    }
}

/// The offset of the unsigned index `index` (in `0..product of extents`) under `modes`, not
/// yet simplified: a sum in [`sum_type`]`(w)`, i.e. modulo `2^bits` of the offset width. Each
/// term is a coordinate times its stride; a negative stride is its residue and a symbol is
/// converted to the unsigned type, so no operation can overflow a signed type, and the sum
/// converted to signed is the true offset whenever that fits.
///
/// ```
/// use tessel_layout::codegen::{lower::lower_modes, IndexExpr, SymInt, Ty, Width, Widths};
/// let modes = [(8, SymInt::Int(64)), (64, SymInt::Int(-1))];
/// let e = lower_modes(IndexExpr::var("u", Ty::Unsigned), &modes, Widths::uniform(Width::Bits32));
/// assert_eq!(e.ty(), Ty::Unsigned);
/// ```
pub fn lower_modes(index: IndexExpr, modes: &[(i64, SymInt)], w: Widths) -> IndexExpr {
    let mut terms = Vec::new();
    add_modes(&mut terms, index, modes, sum_type(w));
    IndexExpr::Add(terms)
}

/// Appends the terms of `modes` over `index` to `terms`, in the type `ty`.
fn add_modes(terms: &mut Vec<IndexExpr>, index: IndexExpr, modes: &[(i64, SymInt)], ty: Ty) {
    let mut prefix = 1i64;
    for (s, d) in merge_modes(modes) {
        let coord = IndexExpr::Rem(Box::new(IndexExpr::Div(Box::new(index.clone()), prefix)), s);
        let stride = match d {
            SymInt::Int(0) => None,
            SymInt::Int(d) => Some(IndexExpr::Const(d, ty)),
            SymInt::Sym(name) => Some(IndexExpr::Var(name, Ty::Signed).cast(ty)),
        };
        if let Some(stride) = stride {
            terms.push(IndexExpr::Mul(Box::new(coord.cast(ty)), Box::new(stride)));
        }
        prefix = prefix.saturating_mul(s);
    }
}

/// The offset of the 1-D index variable `index` under the whole layout (see [`lower_modes`]).
///
/// ```
/// use tessel_layout::codegen::{lower::lower_index, IndexExpr, SymLayout, Ty, Width, Widths};
/// let l: SymLayout = "(4,8):(1,4)".parse().unwrap();
/// let e = lower_index(&l, IndexExpr::var("u", Ty::Unsigned), Widths::uniform(Width::Bits64));
/// assert_eq!(e.vars(), vec!["u".to_string()]);
/// ```
pub fn lower_index(layout: &SymLayout, index: IndexExpr, w: Widths) -> IndexExpr {
    lower_modes(index, &flat_modes(layout.shape(), layout.stride()), w)
}

/// The offset of a coordinate given as one unsigned variable per top-level mode
/// (`coords[k]` in `0..size(mode k)`); a leaf mode uses its coordinate directly (see
/// [`lower_modes`]).
///
/// ```
/// use tessel_layout::codegen::{lower::lower_coords, IndexExpr, SymLayout, Ty, Width, Widths};
/// let l: SymLayout = "(8,(2,4)):(1,(64,8))".parse().unwrap();
/// let coords = [IndexExpr::var("u0", Ty::Unsigned), IndexExpr::var("u1", Ty::Unsigned)];
/// let e = lower_coords(&l, &coords, Widths::uniform(Width::Bits32));
/// assert_eq!(e.vars(), vec!["u0".to_string(), "u1".to_string()]);
/// ```
pub fn lower_coords(layout: &SymLayout, coords: &[IndexExpr], w: Widths) -> IndexExpr {
    let mut terms = Vec::new();
    let modes = layout
        .shape()
        .modes()
        .into_iter()
        .zip(layout.stride().modes());
    for ((s, d), c) in modes.zip(coords) {
        add_modes(&mut terms, c.clone(), &flat_modes(&s, &d), sum_type(w));
    }
    IndexExpr::Add(terms)
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
