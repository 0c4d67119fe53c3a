//! [`IndexExpr`] to C text. Parentheses are added wherever C precedence would differ from the
//! tree, and around every operand of a bit operation that is not itself atomic (so `gcc -Wall`
//! has nothing to suggest).
//!
//! ```
//! use tessel_layout::codegen::{emit::emit, IndexExpr, Ty, Width, Widths};
//! // A remainder of an unsigned index: C needs no extra parentheses.
//! let e = IndexExpr::Rem(Box::new(IndexExpr::var("i", Ty::Unsigned)), 8);
//! assert_eq!(emit(&e, Widths::uniform(Width::Bits32)), "i % 8u");
//! ```

use super::ir::{IndexExpr, Ty, Widths};

/// A negative constant of an unsigned type, or a product with one: emitted as a subtraction
/// of its magnitude (`0u - x * 4u`), since the C literal of a residue would be unreadable.
fn is_negated(e: &IndexExpr) -> bool {
    match e {
        IndexExpr::Const(v, ty) => *v < 0 && ty.is_unsigned(),
        IndexExpr::Mul(_, c) => matches!(**c, IndexExpr::Const(v, ty) if v < 0 && ty.is_unsigned()),
        _ => false,
    }
}

/// Binding strength of a node's top operator (higher binds tighter).
fn precedence(e: &IndexExpr) -> u8 {
    match e {
        _ if is_negated(e) => 70,
        IndexExpr::Const(v, _) if *v < 0 => 85,
        IndexExpr::Const(..) | IndexExpr::Var(..) => 100,
        IndexExpr::Cast(..) => 90,
        IndexExpr::Mul(..) | IndexExpr::Div(..) | IndexExpr::Rem(..) => 80,
        IndexExpr::Add(..) => 70,
        IndexExpr::Shl(..) | IndexExpr::Shr(..) => 60,
        IndexExpr::And(..) => 50,
        IndexExpr::Xor(..) => 40,
    }
}

/// Emits `e` as a C expression.
///
/// ```
/// use tessel_layout::codegen::{emit::emit, IndexExpr, Ty, Width, Widths};
/// let u = IndexExpr::var("u", Ty::Unsigned);
/// let e = IndexExpr::Add(vec![
///     IndexExpr::Shl(Box::new(IndexExpr::And(Box::new(u.clone()), 7)), 6),
///     IndexExpr::Shr(Box::new(u), 3),
/// ]);
/// assert_eq!(emit(&e, Widths::uniform(Width::Bits32)), "((u & 7u) << 6) + (u >> 3)");
/// // A negative stride in unsigned (modular) arithmetic is a subtraction of its magnitude.
/// let u = IndexExpr::var("u", Ty::Unsigned);
/// let neg = IndexExpr::Mul(Box::new(u.clone()), Box::new(IndexExpr::Const(-1073741824, Ty::Unsigned)));
/// assert_eq!(emit(&neg, Widths::uniform(Width::Bits32)), "0u - u * 1073741824u");
/// let sum = IndexExpr::Add(vec![neg, IndexExpr::Const(7, Ty::Unsigned)]);
/// assert_eq!(emit(&sum, Widths::uniform(Width::Bits32)), "7u - u * 1073741824u");
/// ```
pub fn emit(e: &IndexExpr, w: Widths) -> String {
    match e {
        _ if is_negated(e) => emit_sum(std::slice::from_ref(e), w),
        IndexExpr::Const(v, t) => w.literal(*v, *t),
        IndexExpr::Var(name, _) => name.clone(),
        IndexExpr::Cast(t, x) => {
            let inner = emit(x, w);
            if precedence(x) >= 90 {
                format!("({}){inner}", w.c_type(*t))
            } else {
                format!("({})({inner})", w.c_type(*t))
            }
        }
        IndexExpr::Add(terms) => emit_sum(terms, w),
        IndexExpr::Mul(x, y) => binary(e, x, "*", &emit_operand(y, w, 81), w),
        IndexExpr::Div(x, n) => binary(e, x, "/", &w.literal(*n, Ty::Unsigned), w),
        IndexExpr::Rem(x, n) => binary(e, x, "%", &w.literal(*n, Ty::Unsigned), w),
        IndexExpr::Shl(x, k) => binary(e, x, "<<", &k.to_string(), w),
        IndexExpr::Shr(x, k) => binary(e, x, ">>", &k.to_string(), w),
        IndexExpr::And(x, m) => binary(e, x, "&", &w.literal(*m, Ty::Unsigned), w),
        IndexExpr::Xor(x, y) => binary(e, x, "^", &emit_operand(y, w, 41), w),
    }
}

/// `left op right` where `left` is parenthesized as its precedence relative to `parent` needs.
fn binary(parent: &IndexExpr, left: &IndexExpr, op: &str, right: &str, w: Widths) -> String {
    let p = precedence(parent);
    // Same-level operators (e.g. `/` under `*`) and anything under a bit operation stay explicit.
    let needs = match precedence(left) {
        lp if lp >= 90 => false,
        _ if p <= 60 => true,
        lp => lp < p || (lp == p && std::mem::discriminant(left) != std::mem::discriminant(parent)),
    };
    let l = emit(left, w);
    if needs {
        format!("({l}) {op} {right}")
    } else {
        format!("{l} {op} {right}")
    }
}

/// Emits `e`, parenthesized unless it binds at least as tightly as `min`.
fn emit_operand(e: &IndexExpr, w: Widths, min: u8) -> String {
    let s = emit(e, w);
    if precedence(e) >= min {
        s
    } else {
        format!("({s})")
    }
}

/// A sum. In an unsigned type (where addition is modular, so order and form do not change the
/// value) negative constants and products with negative constants are written as subtractions
/// of their magnitudes, after the other terms (`0u - ...` when there are none). A signed sum is
/// written term by term, each partial sum exactly as in the IR.
fn emit_sum(terms: &[IndexExpr], w: Widths) -> String {
    let Some(first) = terms.first() else {
        return "0".to_string();
    };
    if !first.ty().is_unsigned() {
        let texts: Vec<String> = terms.iter().map(|t| emit_operand(t, w, 71)).collect();
        return texts.join(" + ");
    }
    let ty = first.ty();
    let (minus, plus): (Vec<&IndexExpr>, Vec<&IndexExpr>) =
        terms.iter().partition(|t| is_negated(t));
    let mut out = if plus.is_empty() {
        w.literal(0, ty)
    } else {
        let texts: Vec<String> = plus.iter().map(|t| emit_operand(t, w, 71)).collect();
        texts.join(" + ")
    };
    let magnitude = |v: i64| w.of(ty).magnitude(v.unsigned_abs());
    for t in minus {
        let text = match t {
            IndexExpr::Const(v, _) => magnitude(*v),
            IndexExpr::Mul(x, c) if c.is_const(-1) => emit_operand(x, w, 71),
            IndexExpr::Mul(x, c) => match **c {
                IndexExpr::Const(v, _) => {
                    let positive = IndexExpr::Mul(x.clone(), Box::new(IndexExpr::Const(1, ty)));
                    binary(&positive, x, "*", &magnitude(v), w)
                }
                _ => emit_operand(t, w, 71),
            },
            _ => emit_operand(t, w, 71),
        };
        out.push_str(" - ");
        out.push_str(&text);
    }
    out
}
