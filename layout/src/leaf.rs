//! The leaves of the one layout family: what an [`IntTuple`](crate::IntTuple) holds at its ends.
//!
//! Every tuple, layout and swizzled layout of the crate is generic over its leaf type, the way
//! CuTe's tuples mix static and dynamic integers:
//!
//! | leaf | what it is | where it is used |
//! |---|---|---|
//! | `i64` | an integer known when the value is built | the whole algebra: [`Layout`](crate::Layout), [`ComposedLayout`](crate::ComposedLayout) |
//! | [`SymInt`] | an integer or a run-time symbol such as `ld` | code generation: [`Layout<SymInt>`](crate::Layout) is [`SymLayout`](crate::codegen::SymLayout) |
//!
//! A value built at compile time is the same type held in static storage: the `layout!` macro
//! of the `tessel` crate expands to a `Layout` (or `ComposedLayout`) whose tuples live in
//! `static` data, and the `const fn`s of the family ([`Layout::size`](crate::Layout::size),
//! [`Layout::checked_offset`](crate::Layout::checked_offset), ...) evaluate it in constant
//! expressions.
//!
//! Shapes are always integers (`IntTuple<i64>`); only strides take other leaves. One parser and
//! one printer serve every leaf type: a leaf knows how to read its own literal
//! ([`Leaf::scan`]) and how to print itself, and the parser of [`parse`](crate::parse) reads the
//! tuples and layouts around the leaves. (The leaves know nothing of the parser: `parse` uses
//! `leaf`, never the other way round.)
//!
//! ```
//! use tessel_layout::{Layout, codegen::SymInt, leaf::Leaf};
//! let plain: Layout = "(4,8):(8,1)".parse().unwrap();
//! let symbolic: Layout<SymInt> = "(4,8):(ld,1)".parse().unwrap();
//! assert_eq!(plain.size(), symbolic.size());
//! assert_eq!(symbolic.stride().leaves()[0], SymInt::Sym("ld".into()));
//! assert_eq!(SymInt::Int(8).known(), Some(8));
//! ```

use std::fmt;
use std::hash::Hash;

use crate::error::{Error, ErrorKind, Result, checked_add, checked_mul};

/// A leaf type of the layout family: an integer, or something that may stand for one.
///
/// ```
/// use tessel_layout::leaf::Leaf;
/// assert_eq!(7i64.known(), Some(7));
/// assert_eq!(<i64 as Leaf>::from_int(3), 3);
/// ```
pub trait Leaf: Clone + fmt::Debug + fmt::Display + Eq + Hash + Ord + 'static {
    /// The leaf holding the integer `v`.
    ///
    /// ```
    /// use tessel_layout::{codegen::SymInt, leaf::Leaf};
    /// assert_eq!(SymInt::from_int(4), SymInt::Int(4));
    /// ```
    fn from_int(v: i64) -> Self;

    /// The integer this leaf stands for, when it is known now.
    ///
    /// ```
    /// use tessel_layout::{codegen::SymInt, leaf::Leaf};
    /// assert_eq!(SymInt::Sym("ld".into()).known(), None);
    /// ```
    fn known(&self) -> Option<i64>;

    /// What a leaf of this type is called where one is expected, for the parser's errors
    /// ("expected an integer or '('").
    ///
    /// ```
    /// use tessel_layout::{codegen::SymInt, leaf::Leaf};
    /// assert_eq!(<i64 as Leaf>::EXPECTED, "an integer");
    /// assert_eq!(SymInt::EXPECTED, "an integer, a symbol");
    /// ```
    const EXPECTED: &'static str;

    /// The leaf whose literal starts at byte `start` of `text` and the byte after it; `None`
    /// when no literal of this type starts there. A literal that cannot be a leaf (an integer
    /// beyond `i64`) is an [`ErrorKind::Parse`] error spanning it.
    ///
    /// ```
    /// use tessel_layout::{codegen::SymInt, leaf::Leaf};
    /// assert_eq!(i64::scan("(-3,", 1).unwrap(), Some((-3, 3)));
    /// assert_eq!(SymInt::scan("ld)", 0).unwrap(), Some((SymInt::Sym("ld".into()), 2)));
    /// assert_eq!(i64::scan("ld", 0).unwrap(), None);
    /// assert!(i64::scan("99999999999999999999", 0).is_err());
    /// ```
    fn scan(text: &str, start: usize) -> Result<Option<(Self, usize)>>;
}

impl Leaf for i64 {
    fn from_int(v: i64) -> Self {
        v
    }

    fn known(&self) -> Option<i64> {
        Some(*self)
    }

    const EXPECTED: &'static str = "an integer";

    /// An integer, `-3`; a static one, `_4`, reads as its value (an `i64` leaf carries no kind).
    fn scan(text: &str, start: usize) -> Result<Option<(Self, usize)>> {
        Ok(integer_token(text, start)?.map(|(v, _, end)| (v, end)))
    }
}

/// A stride leaf of generated code: a known integer or a run-time symbol (a C identifier such
/// as `ld`).
///
/// ```
/// use tessel_layout::codegen::SymInt;
/// assert_eq!(SymInt::Sym("ld".into()).to_string(), "ld");
/// assert_eq!(SymInt::Int(-3).to_string(), "-3");
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum SymInt {
    /// A known integer.
    Int(i64),
    /// A symbol whose value is only known at run time.
    Sym(String),
}

impl Leaf for SymInt {
    fn from_int(v: i64) -> Self {
        SymInt::Int(v)
    }

    fn known(&self) -> Option<i64> {
        match self {
            SymInt::Int(v) => Some(*v),
            SymInt::Sym(_) => None,
        }
    }

    const EXPECTED: &'static str = "an integer, a symbol";

    /// An integer (`_4` reads as 4: a static integer is a constant of the emitted code), or a
    /// symbol.
    fn scan(text: &str, start: usize) -> Result<Option<(Self, usize)>> {
        if let Some((v, _, end)) = integer_token(text, start)? {
            return Ok(Some((SymInt::Int(v), end)));
        }
        Ok(identifier(text, start).map(|end| (SymInt::Sym(text[start..end].to_string()), end)))
    }
}

impl fmt::Display for SymInt {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SymInt::Int(v) => write!(f, "{v}"),
            SymInt::Sym(s) => f.write_str(s),
        }
    }
}

/// The optionally negative decimal literal at byte `start` of `text` and the byte after it;
/// `None` when no digits follow (the one integer scanner of the notation parser, the leaf
/// literals and the expression lexer).
pub(crate) fn integer_literal(text: &str, start: usize) -> Result<Option<(i64, usize)>> {
    let bytes = text.as_bytes();
    let mut end = start;
    if bytes.get(end) == Some(&b'-') {
        end += 1;
    }
    let digits = end;
    while bytes.get(end).is_some_and(u8::is_ascii_digit) {
        end += 1;
    }
    if end == digits {
        return Ok(None);
    }
    let literal = &text[start..end];
    let value = literal.parse::<i64>().map_err(|_| {
        Error::new(
            ErrorKind::Parse,
            format!("the integer {literal} does not fit in i64"),
        )
        .at(start..end)
    })?;
    Ok(Some((value, end)))
}

/// The integer literal at byte `start` of `text`: `N` (dynamic) or `_N` (static, CuTe's way of
/// printing `Int<N>{}`), as its value, whether it is static, and the byte after it; `None` when
/// none starts there.
pub(crate) fn integer_token(text: &str, start: usize) -> Result<Option<(i64, bool, usize)>> {
    let is_static = text.as_bytes().get(start) == Some(&b'_');
    let digits = start + usize::from(is_static);
    Ok(integer_literal(text, digits)?.map(|(v, end)| (v, is_static, end)))
}

/// The byte after the identifier (`[A-Za-z_][A-Za-z0-9_]*`) at byte `start` of `text`, `None`
/// when none starts there.
pub(crate) fn identifier(text: &str, start: usize) -> Option<usize> {
    let rest = &text[start..];
    let first = rest.chars().next()?;
    if !(first.is_ascii_alphabetic() || first == '_') {
        return None;
    }
    let len = rest
        .find(|ch: char| !(ch.is_ascii_alphanumeric() || ch == '_'))
        .unwrap_or(rest.len());
    Some(start + len)
}

/// The integer arithmetic of shapes, strides and coordinates, on plain `i64` leaves (no kind)
/// and on [`Integer`](crate::static_int::Integer)s (CuTe's kinds: a result is static when every operand it is computed from
/// is static, and `_0 * x`, `x * _0`, `_0 / x`, `_0 % x`, `x % _1` are `_0` whatever `x` is, as
/// in CuTe's `include/cute/numeric/integral_constant.hpp`). Every operation checks `i64`
/// overflow and division by zero.
///
/// ```
/// use tessel_layout::static_int::{Integer, Num};
/// assert_eq!(6i64.quotient(4).unwrap(), 1);
/// assert_eq!(Integer::Dynamic(7).remainder(Integer::Static(1)).unwrap(), Integer::Static(0));
/// assert!(i64::MAX.times(2).is_err());
/// assert!(3i64.quotient(0).is_err());
/// ```
pub trait Num: Leaf + Copy {
    /// The value.
    fn value(self) -> i64;

    /// Whether the leaf is a compile-time constant (`i64` leaves carry no kind: never).
    fn is_static(self) -> bool;

    /// Whether a decision on this leaf's value belongs to the value being built: always for a
    /// plain `i64` leaf (its value is all the plain family knows), only for a static
    /// [`Integer`](crate::static_int::Integer) (CuTe decides at compile time which strides are zeros and how orders compare,
    /// so a dynamic leaf takes no part in such decisions).
    ///
    /// ```
    /// use tessel_layout::static_int::{Integer, Num};
    /// assert!(0i64.is_decidable());
    /// assert!(!Integer::Dynamic(0).is_decidable());
    /// ```
    fn is_decidable(self) -> bool;

    /// The leaf of value `v` and kind `is_static` (an `i64` leaf drops the kind).
    fn of(v: i64, is_static: bool) -> Self;

    /// A constant of the arithmetic, such as the `Int<1>{}` that starts a compact stride:
    /// static where kinds exist.
    fn constant(v: i64) -> Self {
        Self::of(v, true)
    }

    /// `self * other`.
    fn times(self, other: Self) -> Result<Self> {
        let v = checked_mul(self.value(), other.value(), "a product")?;
        let zero = is_static_zero(self) || is_static_zero(other);
        Ok(Self::of(v, zero || both_static(self, other)))
    }

    /// `self / other`, truncating (C++'s division).
    fn quotient(self, other: Self) -> Result<Self> {
        let v = checked_div(self.value(), other.value())?;
        Ok(Self::of(
            v,
            is_static_zero(self) || both_static(self, other),
        ))
    }

    /// `self % other`, with the sign of `self` (C++'s remainder).
    fn remainder(self, other: Self) -> Result<Self> {
        let d = other.value();
        if d == 0 {
            return Err(Error::invalid(format!(
                "{self} % {other}: the divisor is 0"
            )));
        }
        // i64::MIN % -1 overflows in Rust; its remainder is 0.
        let v = self.value().checked_rem(d).unwrap_or(0);
        let unit = other.is_static() && (d == 1 || d == -1);
        Ok(Self::of(
            v,
            is_static_zero(self) || unit || both_static(self, other),
        ))
    }

    /// `self + other`.
    fn plus(self, other: Self) -> Result<Self> {
        let v = checked_add(self.value(), other.value(), "a sum")?;
        Ok(Self::of(v, both_static(self, other)))
    }

    /// `self - other`.
    fn minus(self, other: Self) -> Result<Self> {
        let v = self
            .value()
            .checked_sub(other.value())
            .ok_or_else(|| Error::overflow(format!("{self} - {other} overflows i64")))?;
        Ok(Self::of(v, both_static(self, other)))
    }

    /// `-self`.
    fn negated(self) -> Result<Self> {
        let v = self
            .value()
            .checked_neg()
            .ok_or_else(|| Error::overflow(format!("-{self} overflows i64")))?;
        Ok(Self::of(v, self.is_static()))
    }

    /// `(self + other - 1) / other`: CuTe's `ceil_div` of two integers (for positive operands,
    /// the quotient rounded up).
    fn ceil_div(self, other: Self) -> Result<Self> {
        let sum = checked_add(self.value(), other.value(), "a ceil_div")?;
        let v = checked_div(sum - 1, other.value())?;
        Ok(Self::of(v, both_static(self, other)))
    }

    /// The smaller of the two values.
    fn minimum(self, other: Self) -> Self {
        Self::of(
            Ord::min(self.value(), other.value()),
            both_static(self, other),
        )
    }

    /// The larger of the two values.
    fn maximum(self, other: Self) -> Self {
        Self::of(
            Ord::max(self.value(), other.value()),
            both_static(self, other),
        )
    }

    /// The greatest common divisor (non-negative; `gcd(0, 0) = 0`).
    fn gcd(self, other: Self) -> Self {
        let (mut a, mut b) = (self.value().unsigned_abs(), other.value().unsigned_abs());
        while b != 0 {
            (a, b) = (b, a % b);
        }
        Self::of(
            i64::try_from(a).unwrap_or(i64::MAX),
            both_static(self, other),
        )
    }
}

fn both_static<N: Num>(a: N, b: N) -> bool {
    a.is_static() && b.is_static()
}

fn is_static_zero<N: Num>(a: N) -> bool {
    a.is_static() && a.value() == 0
}

fn checked_div(a: i64, b: i64) -> Result<i64> {
    if b == 0 {
        return Err(Error::invalid(format!("{a} / {b}: the divisor is 0")));
    }
    a.checked_div(b)
        .ok_or_else(|| Error::overflow(format!("{a} / {b} overflows i64")))
}

impl Num for i64 {
    fn value(self) -> i64 {
        self
    }

    fn is_static(self) -> bool {
        false
    }

    fn is_decidable(self) -> bool {
        true
    }

    fn of(v: i64, _: bool) -> Self {
        v
    }
}
