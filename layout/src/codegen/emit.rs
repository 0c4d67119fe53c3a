//! [`IndexExpr`] to C text. Parentheses are added wherever C precedence would differ from the
//! tree, and around every operand of a bit operation that is not itself atomic (so `gcc -Wall`
//! has nothing to suggest).

use super::ir::{IndexExpr, Ty};

/// The integer width of the arithmetic inside an emitted function.
///
/// ```
/// use tessel_layout::codegen::{Ty, Width};
/// assert_eq!(Width::Bits32.c_type(Ty::Unsigned), "unsigned int");
/// assert_eq!(Width::Bits64.c_type(Ty::Signed), "long long");
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Width {
    /// `int` / `unsigned int`.
    Bits32,
    /// `long long` / `unsigned long long`.
    Bits64,
}

impl Width {
    /// The C spelling of `ty` at this width.
    ///
    /// ```
    /// use tessel_layout::codegen::{Ty, Width};
    /// assert_eq!(Width::Bits64.c_type(Ty::Unsigned), "unsigned long long");
    /// ```
    pub fn c_type(self, ty: Ty) -> &'static str {
        match (self, ty) {
            (Width::Bits32, Ty::Unsigned) => "unsigned int",
            (Width::Bits32, Ty::Signed) => "int",
            (Width::Bits64, Ty::Unsigned) => "unsigned long long",
            (Width::Bits64, Ty::Signed) => "long long",
        }
    }

    /// A C literal of value `v` and type `ty` at this width.
    ///
    /// ```
    /// use tessel_layout::codegen::{Ty, Width};
    /// assert_eq!(Width::Bits32.literal(7, Ty::Unsigned), "7u");
    /// assert_eq!(Width::Bits64.literal(7, Ty::Unsigned), "7ull");
    /// assert_eq!(Width::Bits64.literal(-3, Ty::Signed), "-3");
    /// assert_eq!(Width::Bits64.literal(1 << 40, Ty::Signed), "1099511627776ll");
    /// assert_eq!(Width::Bits64.literal(i64::MIN, Ty::Signed), "(-9223372036854775807ll - 1)");
    /// ```
    pub fn literal(self, v: i64, ty: Ty) -> String {
        match (self, ty) {
            (Width::Bits32, Ty::Unsigned) => format!("{v}u"),
            (Width::Bits64, Ty::Unsigned) => format!("{v}ull"),
            (_, Ty::Signed) if v == i64::MIN => "(-9223372036854775807ll - 1)".to_string(),
            (_, Ty::Signed) if i32::try_from(v).is_ok() => format!("{v}"),
            (_, Ty::Signed) => format!("{v}ll"),
        }
    }
}

/// Binding strength of a node's top operator (higher binds tighter).
fn precedence(e: &IndexExpr) -> u8 {
    match e {
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
/// use tessel_layout::codegen::{emit::emit, IndexExpr, Ty, Width};
/// let u = IndexExpr::var("u", Ty::Unsigned);
/// let e = IndexExpr::Add(vec![
///     IndexExpr::Shl(Box::new(IndexExpr::And(Box::new(u.clone()), 7)), 6),
///     IndexExpr::Shr(Box::new(u), 3),
/// ]);
/// assert_eq!(emit(&e, Width::Bits32), "((u & 7u) << 6) + (u >> 3)");
/// ```
pub fn emit(e: &IndexExpr, w: Width) -> String {
    match e {
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
        IndexExpr::Mul(x, y) if y.is_const(-1) => format!("-{}", emit_operand(x, w, 90)),
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
fn binary(parent: &IndexExpr, left: &IndexExpr, op: &str, right: &str, w: Width) -> String {
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
fn emit_operand(e: &IndexExpr, w: Width, min: u8) -> String {
    let s = emit(e, w);
    if precedence(e) >= min {
        s
    } else {
        format!("({s})")
    }
}

/// A sum, with negative constants and negatively scaled terms written as subtractions.
fn emit_sum(terms: &[IndexExpr], w: Width) -> String {
    let mut out = String::new();
    for (i, t) in terms.iter().enumerate() {
        let (negated, text) = match t {
            IndexExpr::Const(v, ty) if i > 0 && *v < 0 && *v != i64::MIN => {
                (true, w.literal(-v, *ty))
            }
            IndexExpr::Mul(x, c) if i > 0 => match **c {
                IndexExpr::Const(-1, _) => (true, emit_operand(x, w, 81)),
                IndexExpr::Const(v, ty) if v < 0 && v != i64::MIN => {
                    let positive = IndexExpr::Mul(x.clone(), Box::new(IndexExpr::Const(-v, ty)));
                    (true, emit(&positive, w))
                }
                _ => (false, emit(t, w)),
            },
            _ => (false, emit_operand(t, w, 71)),
        };
        if i > 0 {
            out.push_str(if negated { " - " } else { " + " });
        }
        out.push_str(&text);
    }
    if terms.is_empty() {
        out.push('0');
    }
    out
}
