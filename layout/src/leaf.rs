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

use crate::error::{Error, ErrorKind, Result};

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

    fn scan(text: &str, start: usize) -> Result<Option<(Self, usize)>> {
        integer_literal(text, start)
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

    fn scan(text: &str, start: usize) -> Result<Option<(Self, usize)>> {
        if let Some((v, end)) = integer_literal(text, start)? {
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
