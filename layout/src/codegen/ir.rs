//! `IndexExpr`: the small integer-expression IR between layouts and C text.
//!
//! Every node has a [`Ty`]: index arithmetic (coordinates, div/mod, shifts, masks) runs on
//! non-negative values in the unsigned type, offsets (which may be negative, or scaled by a
//! negative or symbolic stride) in the signed type. Bit operations only ever see unsigned
//! operands; [`IndexExpr::Cast`] moves between the two.

/// The two value types of emitted code (their C spelling depends on the chosen width).
///
/// ```
/// use tessel_layout::codegen::{IndexExpr, Ty};
/// assert_eq!(IndexExpr::var("u", Ty::Unsigned).ty(), Ty::Unsigned);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Ty {
    /// `unsigned int` or `unsigned long long`: indices and coordinates.
    Unsigned,
    /// `int` or `long long`: offsets and symbols.
    Signed,
}

/// An integer expression. Division, remainder, shifts and masks take unsigned operands and
/// non-negative constants; [`IndexExpr::Add`], [`IndexExpr::Mul`] and [`IndexExpr::Xor`] take
/// operands of one type.
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

    /// `self` converted to `ty` (no node when it already has that type).
    ///
    /// ```
    /// use tessel_layout::codegen::{IndexExpr, Ty};
    /// let u = IndexExpr::var("u", Ty::Unsigned);
    /// assert_eq!(u.clone().cast(Ty::Unsigned), u);
    /// assert_eq!(u.cast(Ty::Signed).ty(), Ty::Signed);
    /// ```
    pub fn cast(self, ty: Ty) -> IndexExpr {
        match self {
            _ if self.ty() == ty => self,
            IndexExpr::Const(v, _) if v >= 0 => IndexExpr::Const(v, ty),
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
            IndexExpr::Mul(a, _) | IndexExpr::Xor(a, _) => a.ty(),
            IndexExpr::Div(..)
            | IndexExpr::Rem(..)
            | IndexExpr::Shl(..)
            | IndexExpr::Shr(..)
            | IndexExpr::And(..) => Ty::Unsigned,
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
