//! The one error type of the layout algebra.
//!
//! Every fallible operation returns [`Result<T>`]. An [`Error`] carries a machine-readable
//! [`ErrorKind`] and a human-readable message that names the violated condition and the operands,
//! e.g. `composition (4,6,8):(2,3,5) o 6:3 is inadmissible: ...`.
//!
//! ```
//! use tessel_layout::{checked_mul, ErrorKind};
//! let err = checked_mul(1 << 62, 4, "the size").unwrap_err();
//! assert_eq!(err.kind(), ErrorKind::Overflow);
//! assert!(err.message().contains("the size"), "{err}");
//! ```

use std::fmt;

/// What went wrong, in categories a caller can branch on.
///
/// ```
/// use tessel_layout::{Error, ErrorKind};
/// let e = Error::new(ErrorKind::Overflow, "size of (1<<40,1<<40) overflows i64");
/// assert_eq!(e.kind(), ErrorKind::Overflow);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ErrorKind {
    /// Text that is not valid notation; the message gives the position and what was expected.
    Parse,
    /// A shape and a stride (or two tuples an operation pairs up) do not have the same nesting.
    NotCongruent,
    /// An integer result does not fit in `i64`.
    Overflow,
    /// An algebra operation whose precondition does not hold (divisibility, injectivity, ...).
    Inadmissible,
    /// An argument outside the domain of the operation (an index out of range, a zero extent,
    /// an unknown function name, a wrong argument type).
    InvalidArgument,
}

impl ErrorKind {
    /// A short lowercase name for the category.
    ///
    /// ```
    /// assert_eq!(tessel_layout::ErrorKind::Parse.name(), "parse error");
    /// ```
    pub fn name(self) -> &'static str {
        match self {
            ErrorKind::Parse => "parse error",
            ErrorKind::NotCongruent => "not congruent",
            ErrorKind::Overflow => "overflow",
            ErrorKind::Inadmissible => "inadmissible",
            ErrorKind::InvalidArgument => "invalid argument",
        }
    }
}

/// An error of the layout algebra: a kind plus a message naming condition and operands.
///
/// ```
/// use tessel_layout::{Error, ErrorKind};
/// let e = Error::new(ErrorKind::Inadmissible, "stride 3 does not divide shape 4");
/// assert_eq!(e.to_string(), "stride 3 does not divide shape 4");
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Error {
    kind: ErrorKind,
    message: String,
}

impl Error {
    /// Builds an error of `kind` with the full `message`.
    ///
    /// ```
    /// let e = tessel_layout::Error::new(tessel_layout::ErrorKind::Parse, "expected ')'");
    /// assert!(e.message().contains("')'"));
    /// ```
    pub fn new(kind: ErrorKind, message: impl Into<String>) -> Self {
        Error {
            kind,
            message: message.into(),
        }
    }

    /// Shorthand for an [`ErrorKind::Inadmissible`] error.
    ///
    /// ```
    /// let e = tessel_layout::Error::inadmissible("complement needs an injective layout");
    /// assert_eq!(e.kind(), tessel_layout::ErrorKind::Inadmissible);
    /// ```
    pub fn inadmissible(message: impl Into<String>) -> Self {
        Error::new(ErrorKind::Inadmissible, message)
    }

    /// Shorthand for an [`ErrorKind::InvalidArgument`] error.
    ///
    /// ```
    /// let e = tessel_layout::Error::invalid("index 9 is outside 0..8");
    /// assert_eq!(e.kind(), tessel_layout::ErrorKind::InvalidArgument);
    /// ```
    pub fn invalid(message: impl Into<String>) -> Self {
        Error::new(ErrorKind::InvalidArgument, message)
    }

    /// Shorthand for an [`ErrorKind::Overflow`] error.
    ///
    /// ```
    /// let e = tessel_layout::Error::overflow("size of (1<<40,1<<40) overflows i64");
    /// assert_eq!(e.kind(), tessel_layout::ErrorKind::Overflow);
    /// ```
    pub fn overflow(message: impl Into<String>) -> Self {
        Error::new(ErrorKind::Overflow, message)
    }

    /// The category of the error.
    ///
    /// ```
    /// let e = tessel_layout::Error::invalid("x");
    /// assert_eq!(e.kind(), tessel_layout::ErrorKind::InvalidArgument);
    /// ```
    pub fn kind(&self) -> ErrorKind {
        self.kind
    }

    /// The full message (what [`Display`](fmt::Display) prints).
    ///
    /// ```
    /// assert_eq!(tessel_layout::Error::invalid("bad").message(), "bad");
    /// ```
    pub fn message(&self) -> &str {
        &self.message
    }

    /// Prefixes the message with context, keeping the kind.
    ///
    /// ```
    /// let e = tessel_layout::Error::invalid("bad").context("in logical_divide");
    /// assert_eq!(e.message(), "in logical_divide: bad");
    /// ```
    pub fn context(self, context: impl fmt::Display) -> Self {
        Error {
            kind: self.kind,
            message: format!("{context}: {}", self.message),
        }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for Error {}

/// The result type of every fallible tessel operation.
///
/// ```
/// use tessel_layout::{Layout, Result};
/// fn tile_size(text: &str) -> Result<i64> {
///     Ok(text.parse::<Layout>()?.size())
/// }
/// assert_eq!(tile_size("(4,8):(8,1)").unwrap(), 32);
/// assert!(tile_size("(4,8):(8,1,2)").is_err());
/// ```
pub type Result<T> = std::result::Result<T, Error>;

/// `a * b`, or an [`ErrorKind::Overflow`] error that names `what` was being computed.
///
/// ```
/// use tessel_layout::checked_mul;
/// assert_eq!(checked_mul(6, 7, "size").unwrap(), 42);
/// assert!(checked_mul(i64::MAX, 2, "size").is_err());
/// ```
pub fn checked_mul(a: i64, b: i64, what: &str) -> Result<i64> {
    a.checked_mul(b)
        .ok_or_else(|| Error::overflow(format!("{what}: {a} * {b} overflows i64")))
}

/// `a + b`, or an [`ErrorKind::Overflow`] error that names `what` was being computed.
///
/// ```
/// use tessel_layout::checked_add;
/// assert_eq!(checked_add(40, 2, "cosize").unwrap(), 42);
/// assert!(checked_add(i64::MAX, 1, "cosize").is_err());
/// ```
pub fn checked_add(a: i64, b: i64, what: &str) -> Result<i64> {
    a.checked_add(b)
        .ok_or_else(|| Error::overflow(format!("{what}: {a} + {b} overflows i64")))
}
