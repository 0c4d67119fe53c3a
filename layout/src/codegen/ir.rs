//! `IndexExpr`: the small integer-expression IR between layouts and C text, with the widths of
//! its value types ([`Width`], [`Widths`]; the emitter and the evaluator both read them).
//!
//! Every node has a [`Ty`]: index arithmetic (coordinates, div/mod, shifts, masks) runs on
//! non-negative values in the unsigned index type; the offset sum (products of coordinates and
//! strides, the base offset) runs in an unsigned type too, modulo `2^bits`, where negative
//! strides and symbols are simply their two's-complement residues; only the finished value is
//! converted to the signed type. So no emitted operation can overflow a signed type: unsigned
//! arithmetic wraps by definition in C and C++, and the one conversion to signed is exact
//! whenever the true offset fits. [`IndexExpr::Cast`] moves between the types.
//!
//! ```
//! use tessel_layout::codegen::{IndexExpr, Ty};
//! // (i / 8) % 4 on an unsigned index.
//! let i = IndexExpr::var("i", Ty::Unsigned);
//! let e = IndexExpr::Rem(Box::new(IndexExpr::Div(Box::new(i), 8)), 4);
//! assert_eq!(e.ty(), Ty::Unsigned);
//! assert_eq!(e.vars(), vec!["i".to_string()]);
//! ```

/// The value types of emitted code (their C spelling depends on the chosen widths).
///
/// ```
/// use tessel_layout::codegen::{IndexExpr, Ty};
/// assert_eq!(IndexExpr::var("u", Ty::Unsigned).ty(), Ty::Unsigned);
/// assert!(Ty::UnsignedOffset.is_unsigned() && !Ty::Signed.is_unsigned());
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Ty {
    /// `unsigned int` or `unsigned long long` at the index width: indices and coordinates (and
    /// the offset sum when the offset has the same width).
    Unsigned,
    /// `int` or `long long` at the offset width: the finished offset and the symbols.
    Signed,
    /// `unsigned int` or `unsigned long long` at the offset width: the offset sum, modulo
    /// `2^bits`, when the offset is wider than the index arithmetic.
    UnsignedOffset,
}

impl Ty {
    /// Whether values of the type are unsigned (their arithmetic wraps modulo `2^bits`).
    ///
    /// ```
    /// assert!(tessel_layout::codegen::Ty::Unsigned.is_unsigned());
    /// ```
    pub fn is_unsigned(self) -> bool {
        self != Ty::Signed
    }
}

/// An integer expression. Division, remainder, shifts and masks take unsigned operands and
/// non-negative constants, and have their operand's type; [`IndexExpr::Add`],
/// [`IndexExpr::Mul`] and [`IndexExpr::Xor`] take operands of one type. A negative constant of
/// an unsigned type stands for its residue modulo `2^bits` (it is emitted as a subtraction).
///
/// ```
/// use tessel_layout::codegen::{IndexExpr, Ty};
/// let u = IndexExpr::var("u", Ty::Unsigned);
/// let row = IndexExpr::Div(Box::new(u), 8);
/// assert_eq!(row.ty(), Ty::Unsigned);
/// assert_eq!(row.vars(), vec!["u".to_string()]);
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum IndexExpr {
    /// A constant of the given type.
    Const(i64, Ty),
    /// A named value: a parameter, a local or a run-time symbol.
    Var(String, Ty),
    /// A conversion to the given type.
    Cast(Ty, Box<IndexExpr>),
    /// The sum of the terms (all of one type).
    Add(Vec<IndexExpr>),
    /// A product.
    Mul(Box<IndexExpr>, Box<IndexExpr>),
    /// Unsigned division by a positive constant.
    Div(Box<IndexExpr>, i64),
    /// Unsigned remainder by a positive constant.
    Rem(Box<IndexExpr>, i64),
    /// Unsigned left shift.
    Shl(Box<IndexExpr>, u32),
    /// Unsigned right shift.
    Shr(Box<IndexExpr>, u32),
    /// Unsigned bitwise and with a non-negative constant mask.
    And(Box<IndexExpr>, i64),
    /// Bitwise exclusive or.
    Xor(Box<IndexExpr>, Box<IndexExpr>),
}

impl IndexExpr {
    /// A named value.
    ///
    /// ```
    /// use tessel_layout::codegen::{IndexExpr, Ty};
    /// assert_eq!(IndexExpr::var("ld", Ty::Signed), IndexExpr::Var("ld".into(), Ty::Signed));
    /// ```
    pub fn var(name: &str, ty: Ty) -> IndexExpr {
        IndexExpr::Var(name.to_string(), ty)
    }

    /// `self` converted to `ty` (no node when it already has that type). A constant becomes a
    /// constant of `ty`: a non-negative one keeps its value, and a negative unsigned one (a
    /// residue) converted to signed is the negative value, as the C conversion gives it wherever
    /// that value fits the signed type.
    ///
    /// ```
    /// use tessel_layout::codegen::{IndexExpr, Ty};
    /// let u = IndexExpr::var("u", Ty::Unsigned);
    /// assert_eq!(u.clone().cast(Ty::Unsigned), u);
    /// assert_eq!(u.cast(Ty::Signed).ty(), Ty::Signed);
    /// assert_eq!(IndexExpr::Const(-16, Ty::Unsigned).cast(Ty::Signed), IndexExpr::Const(-16, Ty::Signed));
    /// ```
    pub fn cast(self, ty: Ty) -> IndexExpr {
        match self {
            _ if self.ty() == ty => self,
            IndexExpr::Const(v, _) if v >= 0 || ty == Ty::Signed => IndexExpr::Const(v, ty),
            other => IndexExpr::Cast(ty, Box::new(other)),
        }
    }

    /// The type of the value.
    ///
    /// ```
    /// use tessel_layout::codegen::{IndexExpr, Ty};
    /// assert_eq!(IndexExpr::Add(vec![]).ty(), Ty::Signed);
    /// ```
    pub fn ty(&self) -> Ty {
        match self {
            IndexExpr::Const(_, t) | IndexExpr::Var(_, t) | IndexExpr::Cast(t, _) => *t,
            IndexExpr::Add(terms) => terms.first().map_or(Ty::Signed, IndexExpr::ty),
            IndexExpr::Mul(a, _)
            | IndexExpr::Xor(a, _)
            | IndexExpr::Div(a, _)
            | IndexExpr::Rem(a, _)
            | IndexExpr::Shl(a, _)
            | IndexExpr::Shr(a, _)
            | IndexExpr::And(a, _) => a.ty(),
        }
    }

    /// The direct sub-expressions.
    ///
    /// ```
    /// use tessel_layout::codegen::{IndexExpr, Ty};
    /// let e = IndexExpr::Shr(Box::new(IndexExpr::var("u", Ty::Unsigned)), 3);
    /// assert_eq!(e.children().len(), 1);
    /// ```
    pub fn children(&self) -> Vec<&IndexExpr> {
        match self {
            IndexExpr::Const(..) | IndexExpr::Var(..) => Vec::new(),
            IndexExpr::Cast(_, a)
            | IndexExpr::Div(a, _)
            | IndexExpr::Rem(a, _)
            | IndexExpr::Shl(a, _)
            | IndexExpr::Shr(a, _)
            | IndexExpr::And(a, _) => vec![a],
            IndexExpr::Mul(a, b) | IndexExpr::Xor(a, b) => vec![a, b],
            IndexExpr::Add(terms) => terms.iter().collect(),
        }
    }

    /// The distinct variable names, in order of first appearance.
    ///
    /// ```
    /// use tessel_layout::codegen::{IndexExpr, Ty};
    /// let e = IndexExpr::Add(vec![IndexExpr::var("a", Ty::Signed), IndexExpr::var("a", Ty::Signed)]);
    /// assert_eq!(e.vars(), vec!["a".to_string()]);
    /// ```
    pub fn vars(&self) -> Vec<String> {
        let mut out = Vec::new();
        self.collect_vars(&mut out);
        out
    }

    fn collect_vars(&self, out: &mut Vec<String>) {
        if let IndexExpr::Var(name, _) = self {
            if !out.contains(name) {
                out.push(name.clone());
            }
        }
        for child in self.children() {
            child.collect_vars(out);
        }
    }

    /// Whether the expression is the constant `v`.
    ///
    /// ```
    /// use tessel_layout::codegen::{IndexExpr, Ty};
    /// assert!(IndexExpr::Const(0, Ty::Signed).is_const(0));
    /// ```
    pub fn is_const(&self, v: i64) -> bool {
        matches!(self, IndexExpr::Const(c, _) if *c == v)
    }
}

impl IndexExpr {
    /// Evaluates the expression with the semantics of the emitted C at the widths `w`:
    /// unsigned arithmetic wraps (a negative unsigned constant is its residue), a conversion to
    /// signed reinterprets two's complement (what gcc, clang, nvcc and MSVC define, and C++20
    /// requires), and anything C leaves undefined or that would change the type of an operation
    /// (signed overflow, a shift by the width or more, a constant that does not fit its type,
    /// operands of different types) gives `None`. Variables come from `env`.
    ///
    /// ```
    /// use tessel_layout::codegen::{IndexExpr, Ty, Width, Widths};
    /// let w = Widths::uniform(Width::Bits32);
    /// let u = IndexExpr::var("u", Ty::Unsigned);
    /// let e = IndexExpr::Shl(Box::new(IndexExpr::And(Box::new(u), 7)), 6);
    /// assert_eq!(e.eval_c(w, &|_| Some(13)), Some(5 << 6));
    /// let overflow = IndexExpr::Mul(
    ///     Box::new(IndexExpr::Const(1 << 20, Ty::Signed)),
    ///     Box::new(IndexExpr::Const(1 << 20, Ty::Signed)),
    /// );
    /// assert_eq!(overflow.eval_c(w, &|_| None), None);
    /// ```
    pub fn eval_c(&self, w: Widths, env: &dyn Fn(&str) -> Option<i128>) -> Option<i128> {
        let modulus = |ty: Ty| 1i128 << w.bits(ty);
        let fit = |v: i128, ty: Ty| match ty {
            Ty::Signed => (-(modulus(ty) / 2)..modulus(ty) / 2)
                .contains(&v)
                .then_some(v),
            _ => Some(v.rem_euclid(modulus(ty))),
        };
        let unsigned_operand =
            |x: &IndexExpr| (x.ty().is_unsigned()).then(|| x.eval_c(w, env)).flatten();
        let in_type = |c: i64, ty: Ty| match ty {
            Ty::Signed => fit(i128::from(c), ty),
            _ => (i128::from(c).abs() < modulus(ty)).then(|| i128::from(c).rem_euclid(modulus(ty))),
        };
        let divisor = |n: i64, ty: Ty| (n > 0).then(|| in_type(n, ty)).flatten();
        let ubits = w.bits(self.ty());
        match self {
            IndexExpr::Const(v, ty) => in_type(*v, *ty),
            IndexExpr::Var(name, ty) => env(name).and_then(|v| fit(v, *ty)),
            IndexExpr::Cast(ty, x) => {
                let m = modulus(*ty);
                let wrapped = x.eval_c(w, env)?.rem_euclid(m);
                Some(match ty {
                    Ty::Signed if wrapped >= m / 2 => wrapped - m,
                    _ => wrapped,
                })
            }
            IndexExpr::Add(terms) => {
                let ty = self.ty();
                terms.iter().try_fold(0i128, |acc, t| {
                    (t.ty() == ty)
                        .then(|| t.eval_c(w, env))
                        .flatten()
                        .and_then(|v| fit(acc + v, ty))
                })
            }
            IndexExpr::Mul(a, b) | IndexExpr::Xor(a, b) => {
                let ty = a.ty();
                if b.ty() != ty {
                    return None;
                }
                let (x, y) = (a.eval_c(w, env)?, b.eval_c(w, env)?);
                match self {
                    IndexExpr::Mul(..) => fit(x.checked_mul(y)?, ty),
                    _ => fit(x ^ y, ty),
                }
            }
            IndexExpr::Div(x, n) => unsigned_operand(x)?.checked_div(divisor(*n, x.ty())?),
            IndexExpr::Rem(x, n) => unsigned_operand(x)?.checked_rem(divisor(*n, x.ty())?),
            IndexExpr::Shl(x, k) if *k < ubits => fit(unsigned_operand(x)? << k, x.ty()),
            IndexExpr::Shr(x, k) if *k < ubits => Some(unsigned_operand(x)? >> k),
            IndexExpr::Shl(..) | IndexExpr::Shr(..) => None,
            IndexExpr::And(x, m) if *m >= 0 => Some(unsigned_operand(x)? & in_type(*m, x.ty())?),
            IndexExpr::And(..) => None,
        }
    }
}

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
        match (self, ty.is_unsigned()) {
            (Width::Bits32, true) => "unsigned int",
            (Width::Bits32, false) => "int",
            (Width::Bits64, true) => "unsigned long long",
            (Width::Bits64, false) => "long long",
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
    /// assert_eq!(Width::Bits32.literal(i64::from(i32::MIN), Ty::Signed), "(-2147483647 - 1)");
    /// ```
    pub fn literal(self, v: i64, ty: Ty) -> String {
        match (self, ty) {
            (_, Ty::Unsigned | Ty::UnsignedOffset) => self.magnitude(v.unsigned_abs()),
            (_, Ty::Signed) if v == i64::MIN => "(-9223372036854775807ll - 1)".to_string(),
            (_, Ty::Signed) if v == i64::from(i32::MIN) => "(-2147483647 - 1)".to_string(),
            (_, Ty::Signed) if i32::try_from(v).is_ok() => format!("{v}"),
            (_, Ty::Signed) => format!("{v}ll"),
        }
    }

    /// An unsigned C literal of value `m`.
    ///
    /// ```
    /// use tessel_layout::codegen::Width;
    /// assert_eq!(Width::Bits64.magnitude(1 << 63), "9223372036854775808ull");
    /// ```
    pub fn magnitude(self, m: u64) -> String {
        match self {
            Width::Bits32 => format!("{m}u"),
            Width::Bits64 => format!("{m}ull"),
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

    pub(crate) fn of(self, ty: Ty) -> Width {
        match ty {
            Ty::Unsigned => self.index,
            Ty::Signed | Ty::UnsignedOffset => self.offset,
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
