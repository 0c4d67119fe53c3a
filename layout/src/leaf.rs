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
//! of the `tessel-kit` crate expands to a `Layout` (or `ComposedLayout`) whose tuples live in
//! `static` data, and the `const fn`s of the family ([`Layout::size`](crate::Layout::size),
//! [`Layout::checked_offset`](crate::Layout::checked_offset), ...) evaluate it in constant
//! expressions.
//!
//! Shapes are always integers (`IntTuple<i64>`); only strides take other leaves. One parser and
//! one printer serve every leaf type: a leaf knows how to read itself at a
//! [`Cursor`] and how to print itself.
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

use crate::error::Result;
use crate::parse::Cursor;

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

    /// Reads one leaf at the cursor (after whitespace); the error says what was expected.
    ///
    /// ```
    /// use tessel_layout::{codegen::SymInt, leaf::Leaf, parse::Cursor};
    /// assert_eq!(i64::parse_leaf(&mut Cursor::new(" -3")).unwrap(), -3);
    /// assert_eq!(SymInt::parse_leaf(&mut Cursor::new("ld")).unwrap(), SymInt::Sym("ld".into()));
    /// assert!(i64::parse_leaf(&mut Cursor::new("ld")).is_err());
    /// ```
    fn parse_leaf(c: &mut Cursor<'_>) -> Result<Self>;
}

impl Leaf for i64 {
    fn from_int(v: i64) -> Self {
        v
    }

    fn known(&self) -> Option<i64> {
        Some(*self)
    }

    fn parse_leaf(c: &mut Cursor<'_>) -> Result<Self> {
        match c.peek() {
            Some(ch) if ch == '-' || ch.is_ascii_digit() => c.integer(),
            _ => Err(c.error("an integer or '('")),
        }
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

    fn parse_leaf(c: &mut Cursor<'_>) -> Result<Self> {
        match c.peek() {
            Some(ch) if ch == '-' || ch.is_ascii_digit() => Ok(SymInt::Int(c.integer()?)),
            _ => match c.identifier() {
                Some(name) => Ok(SymInt::Sym(name)),
                None => Err(c.error("an integer, a symbol or '('")),
            },
        }
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
