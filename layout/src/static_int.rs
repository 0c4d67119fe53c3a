//! Static and dynamic integers: CuTe's `Int<4>{}` (a compile-time constant, printed `_4`) and
//! `int` (a run-time value, printed `4`), and the integer arithmetic of shapes, strides and
//! coordinates that carries the difference.
//!
//! CuTe decides at compile time which integers of a layout are constants: a leaf built from
//! `Int<N>{}` is static, one built from an `int` is dynamic, and every operation's result is
//! static exactly when everything it is computed from is static (`_4 * _2` is `_8`, `_4 * 2` is
//! `8`), with a few results that are static whatever their other operand (`_0 * x` is `_0`,
//! `x % _1` is `_0`). An [`Integer`] is such a leaf: its value, known on the host, and its kind.
//! [`Num`] is the arithmetic both kinds of leaves share: the plain `i64` leaves of the algebra's
//! fast path (which carry no kind) and [`Integer`]s (which do), so each function on integer
//! tuples is written once and gives CuTe's kinds when given `Integer`s.
//!
//! The whole design (where kinds live, how the algebra carries them, how the code emitter uses
//! them) is in `docs/semantics.md`, "Static and dynamic integers".
//!
//! ```
//! use tessel_layout::static_int::{Integer, Num};
//! let four = Integer::Static(4);
//! assert_eq!(four.to_string(), "_4");
//! assert_eq!(Integer::Dynamic(4).to_string(), "4");
//! assert_eq!(four.times(Integer::Static(2)).unwrap().to_string(), "_8");
//! assert_eq!(four.times(Integer::Dynamic(2)).unwrap().to_string(), "8");
//! assert_eq!(Integer::Static(0).times(Integer::Dynamic(7)).unwrap().to_string(), "_0");
//! assert_eq!("(_4,(8,_2))".parse::<tessel_layout::IntTuple<Integer>>().unwrap().to_string(), "(_4,(8,_2))");
//! ```

use std::fmt;

use crate::error::{Error, Result};
use crate::int_tuple::IntTuple;
pub use crate::leaf::Num;
use crate::leaf::{Leaf, integer_token};

/// A CuTe integer: a compile-time constant (`Int<N>{}`, written `_N`) or a run-time value
/// (`int`, written `N`), with its value known on the host.
///
/// ```
/// use tessel_layout::static_int::Integer;
/// let s: Integer = "_4".parse().unwrap();
/// let d: Integer = "4".parse().unwrap();
/// assert_eq!((s.value(), s.is_static()), (4, true));
/// assert_eq!((d.value(), d.is_static()), (4, false));
/// assert_ne!(s, d);
/// assert_eq!(Integer::Static(-1).to_string(), "_-1");
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Integer {
    /// A run-time value (CuTe's `int`), printed `4`.
    Dynamic(i64),
    /// A compile-time constant (CuTe's `Int<4>{}`), printed `_4`.
    Static(i64),
}

impl Integer {
    /// The value.
    ///
    /// ```
    /// assert_eq!(tessel_layout::static_int::Integer::Static(3).value(), 3);
    /// ```
    pub const fn value(self) -> i64 {
        match self {
            Integer::Dynamic(v) | Integer::Static(v) => v,
        }
    }

    /// Whether the integer is a compile-time constant.
    ///
    /// ```
    /// assert!(!tessel_layout::static_int::Integer::Dynamic(3).is_static());
    /// ```
    pub const fn is_static(self) -> bool {
        matches!(self, Integer::Static(_))
    }

    /// The integer `v`, static when `is_static`.
    ///
    /// ```
    /// use tessel_layout::static_int::Integer;
    /// assert_eq!(Integer::of(5, true), Integer::Static(5));
    /// assert_eq!(Integer::of(5, false), Integer::Dynamic(5));
    /// ```
    pub const fn of(v: i64, is_static: bool) -> Integer {
        if is_static {
            Integer::Static(v)
        } else {
            Integer::Dynamic(v)
        }
    }

    /// The same value as a run-time integer.
    ///
    /// ```
    /// use tessel_layout::static_int::Integer;
    /// assert_eq!(Integer::Static(5).to_dynamic(), Integer::Dynamic(5));
    /// ```
    pub const fn to_dynamic(self) -> Integer {
        Integer::Dynamic(self.value())
    }
}

impl fmt::Display for Integer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Integer::Dynamic(v) => write!(f, "{v}"),
            Integer::Static(v) => write!(f, "_{v}"),
        }
    }
}

impl From<i64> for Integer {
    /// A plain integer is a run-time value.
    fn from(v: i64) -> Integer {
        Integer::Dynamic(v)
    }
}

impl Leaf for Integer {
    fn from_int(v: i64) -> Self {
        Integer::Dynamic(v)
    }

    fn known(&self) -> Option<i64> {
        Some(self.value())
    }

    const EXPECTED: &'static str = "an integer";

    fn scan(text: &str, start: usize) -> Result<Option<(Self, usize)>> {
        Ok(integer_token(text, start)?.map(|(v, is_static, end)| (Integer::of(v, is_static), end)))
    }
}

impl Num for Integer {
    fn value(self) -> i64 {
        Integer::value(self)
    }

    fn is_static(self) -> bool {
        Integer::is_static(self)
    }

    fn is_decidable(self) -> bool {
        Integer::is_static(self)
    }

    fn of(v: i64, is_static: bool) -> Self {
        Integer::of(v, is_static)
    }
}

impl<N: Num> IntTuple<N> {
    /// Whether every leaf is static (a tuple without leaves is).
    ///
    /// ```
    /// use tessel_layout::{IntTuple, static_int::Integer};
    /// assert!("(_4,(_2,_1))".parse::<IntTuple<Integer>>().unwrap().is_static());
    /// assert!(!"(_4,2)".parse::<IntTuple<Integer>>().unwrap().is_static());
    /// assert!(!IntTuple::from_ints([4]).is_static());
    /// ```
    pub fn is_static(&self) -> bool {
        self.iter_leaves().all(|v| v.is_static())
    }

    /// The values, without kinds.
    ///
    /// ```
    /// use tessel_layout::{IntTuple, static_int::Integer};
    /// let t: IntTuple<Integer> = "(_4,(2,_1))".parse().unwrap();
    /// assert_eq!(t.values().to_string(), "(4,(2,1))");
    /// ```
    pub fn values(&self) -> IntTuple {
        self.map(&mut |v| v.value())
    }
}

impl IntTuple<Integer> {
    /// The tuple of `values` with every leaf of the kind `is_static`.
    ///
    /// ```
    /// use tessel_layout::{IntTuple, static_int::Integer};
    /// let t = IntTuple::<Integer>::of(&IntTuple::from_ints([4, 8]), true);
    /// assert_eq!(t.to_string(), "(_4,_8)");
    /// ```
    pub fn of(values: &IntTuple, is_static: bool) -> IntTuple<Integer> {
        values.map(&mut |v| Integer::of(*v, is_static))
    }
}

impl std::str::FromStr for Integer {
    type Err = Error;

    /// `_N` or `N`.
    fn from_str(s: &str) -> Result<Integer> {
        match s.parse::<IntTuple<Integer>>()? {
            IntTuple::Int(v) => Ok(v),
            IntTuple::Tuple(_) => Err(Error::new(
                crate::ErrorKind::Parse,
                format!("expected an integer such as _4 or 4, found the tuple {s}"),
            )),
        }
    }
}
