//! The one error type of the layout algebra.
//!
//! Every fallible operation returns [`Result<T>`]. An [`Error`] carries a machine-readable
//! [`ErrorKind`], a human-readable message that names the violated condition and the operands,
//! e.g. `composition (4,6,8):(2,3,5) o 6:3 is inadmissible: ...`, and, when it comes from
//! parsing or evaluating text, the [`Span`] of the offending part of that text.
//!
//! The span is data, never part of the message: [`Error::message`] has no position, and
//! [`Display`](fmt::Display) prints `at N: ` (`N` = the span's first byte) in front of the
//! message, so a reader of the one-line form (the CLI's `error:` line) still sees where.
//!
//! ```
//! use tessel_layout::{checked_mul, ErrorKind, Layout};
//! let err = checked_mul(1 << 62, 4, "the size").unwrap_err();
//! assert_eq!(err.kind(), ErrorKind::Overflow);
//! assert!(err.message().contains("the size"), "{err}");
//! assert_eq!(err.span(), None);
//! // A parse error points at the offending character: byte 4 of "(4,8]".
//! let err = "(4,8]".parse::<Layout>().unwrap_err();
//! assert_eq!(err.span().map(|s| s.range()), Some(4..5));
//! assert_eq!(err.message(), "expected ',' or ')' but found ']'");
//! assert_eq!(err.to_string(), "at 4: expected ',' or ')' but found ']'");
//! ```

use std::fmt;
use std::ops::Range;

/// A byte range `start..end` of the text an error was found in (the expression, the notation).
///
/// `start` is the first byte of the offending token, literal or call, `end` one past its last
/// byte; an empty span (`start == end`) is a position between bytes, e.g. the end of the input.
/// Offsets are bytes of the text as given (for the CLI: the words of the expression joined with
/// spaces; for the macros: the tokens rendered as text).
///
/// ```
/// use tessel_layout::error::Span;
/// let s = Span::new(3, 7);
/// assert_eq!(s.range(), 3..7);
/// assert_eq!(Span::from(3..7), s);
/// assert!(Span::at(5).is_empty());
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Span {
    /// The first byte.
    pub start: usize,
    /// One past the last byte (`start` for an empty span).
    pub end: usize,
}

impl Span {
    /// The span `start..end` (an `end` before `start` is taken as `start`).
    ///
    /// ```
    /// let s = tessel_layout::error::Span::new(2, 4);
    /// assert_eq!((s.start, s.end), (2, 4));
    /// ```
    pub fn new(start: usize, end: usize) -> Span {
        Span {
            start,
            end: end.max(start),
        }
    }

    /// The empty span at byte `pos` (a position, e.g. the end of the input).
    ///
    /// ```
    /// let s = tessel_layout::error::Span::at(9);
    /// assert_eq!(s.range(), 9..9);
    /// ```
    pub fn at(pos: usize) -> Span {
        Span::new(pos, pos)
    }

    /// The span as a range, for slicing the text: `&text[span.range()]`.
    ///
    /// ```
    /// let text = "size(8:1)";
    /// assert_eq!(&text[tessel_layout::error::Span::new(5, 8).range()], "8:1");
    /// ```
    pub fn range(self) -> Range<usize> {
        self.start..self.end
    }

    /// Whether the span covers no byte.
    ///
    /// ```
    /// use tessel_layout::error::Span;
    /// assert!(Span::at(0).is_empty());
    /// assert!(!Span::new(0, 1).is_empty());
    /// ```
    pub fn is_empty(self) -> bool {
        self.start == self.end
    }

    /// The smallest span covering `self` and `other`.
    ///
    /// ```
    /// use tessel_layout::error::Span;
    /// assert_eq!(Span::new(2, 4).to(Span::new(6, 9)), Span::new(2, 9));
    /// ```
    pub fn to(self, other: Span) -> Span {
        Span::new(self.start.min(other.start), self.end.max(other.end))
    }
}

impl From<Range<usize>> for Span {
    fn from(range: Range<usize>) -> Span {
        Span::new(range.start, range.end)
    }
}

/// What went wrong, in categories a caller can branch on.
///
/// ```
/// use tessel_layout::{Error, ErrorKind};
/// let e = Error::new(ErrorKind::Overflow, "size of (1<<40,1<<40) overflows i64");
/// assert_eq!(e.kind(), ErrorKind::Overflow);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ErrorKind {
    /// Text that is not valid notation; the message says what was expected and what was found,
    /// the error's [`Span`] where.
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

/// An error of the layout algebra: a kind, a message naming condition and operands, and
/// optionally the [`Span`] of the input text it is about.
///
/// [`Display`](fmt::Display) prints `at N: MESSAGE` when there is a span (`N` its first byte),
/// else `MESSAGE`.
///
/// ```
/// use tessel_layout::{Error, ErrorKind};
/// let e = Error::new(ErrorKind::Inadmissible, "stride 3 does not divide shape 4");
/// assert_eq!(e.to_string(), "stride 3 does not divide shape 4");
/// let e = e.at(12..15);
/// assert_eq!(e.to_string(), "at 12: stride 3 does not divide shape 4");
/// assert_eq!(e.message(), "stride 3 does not divide shape 4");
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Error {
    kind: ErrorKind,
    message: String,
    span: Option<Span>,
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
            span: None,
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

    /// The message, without any position (the span is [`Error::span`]).
    ///
    /// ```
    /// assert_eq!(tessel_layout::Error::invalid("bad").message(), "bad");
    /// assert_eq!(tessel_layout::Error::invalid("bad").at(3..4).message(), "bad");
    /// ```
    pub fn message(&self) -> &str {
        &self.message
    }

    /// The part of the input text the error is about, if it came from parsing or evaluating
    /// text.
    ///
    /// ```
    /// use tessel_layout::expr::eval;
    /// let text = "size(sise(8:1))";
    /// let err = eval(text).unwrap_err();
    /// assert_eq!(&text[err.span().unwrap().range()], "sise(8:1)");
    /// ```
    pub fn span(&self) -> Option<Span> {
        self.span
    }

    /// Locates the error at `span` of the input, unless it already has a span: the innermost
    /// position wins, so a parser can locate every error of a part at that part and keep the
    /// more precise span a sub-part already gave.
    ///
    /// ```
    /// use tessel_layout::{Error, error::Span};
    /// let e = Error::invalid("bad").at(4..7);
    /// assert_eq!(e.span(), Some(Span::new(4, 7)));
    /// assert_eq!(e.at(0..20).span(), Some(Span::new(4, 7)));
    /// ```
    pub fn at(mut self, span: impl Into<Span>) -> Self {
        if self.span.is_none() {
            self.span = Some(span.into());
        }
        self
    }

    /// Prefixes the message with context, keeping the kind and the span.
    ///
    /// ```
    /// let e = tessel_layout::Error::invalid("bad").context("in logical_divide");
    /// assert_eq!(e.message(), "in logical_divide: bad");
    /// ```
    pub fn context(self, context: impl fmt::Display) -> Self {
        Error {
            message: format!("{context}: {}", self.message),
            ..self
        }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(span) = self.span {
            write!(f, "at {}: ", span.start)?;
        }
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
#[inline]
pub fn checked_mul(a: i64, b: i64, what: &str) -> Result<i64> {
    match a.checked_mul(b) {
        Some(product) => Ok(product),
        None => Err(mul_overflow(a, b, what)),
    }
}

/// The error of [`checked_mul`], built out of line (only on the error path).
#[cold]
#[inline(never)]
fn mul_overflow(a: i64, b: i64, what: &str) -> Error {
    Error::overflow(format!("{what}: {a} * {b} overflows i64"))
}

/// `a + b`, or an [`ErrorKind::Overflow`] error that names `what` was being computed.
///
/// ```
/// use tessel_layout::checked_add;
/// assert_eq!(checked_add(40, 2, "cosize").unwrap(), 42);
/// assert!(checked_add(i64::MAX, 1, "cosize").is_err());
/// ```
#[inline]
pub fn checked_add(a: i64, b: i64, what: &str) -> Result<i64> {
    match a.checked_add(b) {
        Some(sum) => Ok(sum),
        None => Err(add_overflow(a, b, what)),
    }
}

/// The error of [`checked_add`], built out of line (only on the error path).
#[cold]
#[inline(never)]
fn add_overflow(a: i64, b: i64, what: &str) -> Error {
    Error::overflow(format!("{what}: {a} + {b} overflows i64"))
}
