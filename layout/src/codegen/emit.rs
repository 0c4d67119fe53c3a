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

/// The widths of the two value types of a function: the unsigned index arithmetic and the
/// signed offset arithmetic (e.g. 32-bit coordinates scaled by a 64-bit leading dimension).
///
/// ```
/// use tessel_layout::codegen::{Ty, Width, Widths};
/// let w = Widths { index: Width::Bits32, offset: Width::Bits64 };
/// assert_eq!(w.c_type(Ty::Unsigned), "unsigned int");
/// assert_eq!(w.c_type(Ty::Signed), "long long");
/// assert_eq!(w.bits(Ty::Signed), 64);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Widths {
    /// Width of [`Ty::Unsigned`] values.
    pub index: Width,
    /// Width of [`Ty::Signed`] values.
    pub offset: Width,
}

impl Widths {
    /// Both types at width `w`.
    ///
    /// ```
    /// use tessel_layout::codegen::{Width, Widths};
    /// assert_eq!(Widths::uniform(Width::Bits32).offset, Width::Bits32);
    /// ```
    pub fn uniform(w: Width) -> Widths {
        Widths {
            index: w,
            offset: w,
        }
    }

    fn of(self, ty: Ty) -> Width {
        match ty {
            Ty::Unsigned => self.index,
            Ty::Signed => self.offset,
        }
    }

    /// The C spelling of `ty`.
    ///
    /// ```
    /// use tessel_layout::codegen::{Ty, Width, Widths};
    /// assert_eq!(Widths::uniform(Width::Bits64).c_type(Ty::Unsigned), "unsigned long long");
    /// ```
    pub fn c_type(self, ty: Ty) -> &'static str {
        self.of(ty).c_type(ty)
    }

    /// A C literal of value `v` and type `ty`.
    ///
    /// ```
    /// use tessel_layout::codegen::{Ty, Width, Widths};
    /// assert_eq!(Widths::uniform(Width::Bits32).literal(7, Ty::Unsigned), "7u");
    /// ```
    pub fn literal(self, v: i64, ty: Ty) -> String {
        self.of(ty).literal(v, ty)
    }

    /// The number of bits of `ty`.
    ///
    /// ```
    /// use tessel_layout::codegen::{Ty, Width, Widths};
    /// assert_eq!(Widths::uniform(Width::Bits32).bits(Ty::Unsigned), 32);
    /// ```
    pub fn bits(self, ty: Ty) -> u32 {
        match self.of(ty) {
            Width::Bits32 => 32,
            Width::Bits64 => 64,
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
/// use tessel_layout::codegen::{emit::emit, IndexExpr, Ty, Width, Widths};
/// let u = IndexExpr::var("u", Ty::Unsigned);
/// let e = IndexExpr::Add(vec![
///     IndexExpr::Shl(Box::new(IndexExpr::And(Box::new(u.clone()), 7)), 6),
///     IndexExpr::Shr(Box::new(u), 3),
/// ]);
/// assert_eq!(emit(&e, Widths::uniform(Width::Bits32)), "((u & 7u) << 6) + (u >> 3)");
/// ```
pub fn emit(e: &IndexExpr, w: Widths) -> String {
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

/// A sum, with negative constants and negatively scaled terms written as subtractions.
fn emit_sum(terms: &[IndexExpr], w: Widths) -> String {
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
