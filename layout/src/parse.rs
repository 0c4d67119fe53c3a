//! Parsing CuTe notation: integer tuples `(4,(2,3))` and layouts `(4,(2,3)):(1,(8,16))`.
//!
//! Errors carry the byte position and what was expected there, e.g.
//! `at 5: expected ',' or ')' but found ']'`. A bare shape where a layout is expected is the
//! compact column-major layout of that shape.
//!
//! ```
//! use tessel_layout::Layout;
//! let l: Layout = "(4,(2,3)):(1,(8,16))".parse().unwrap();
//! assert_eq!(l.to_string(), "(4,(2,3)):(1,(8,16))");
//! // A bare shape is the compact column-major layout.
//! assert_eq!("(4,8)".parse::<Layout>().unwrap().to_string(), "(4,8):(1,4)");
//! let err = "(4,8]".parse::<Layout>().unwrap_err();
//! assert!(err.to_string().starts_with("at 4: expected ',' or ')'"), "{err}");
//! ```

use std::str::FromStr;

use crate::error::{Error, ErrorKind, Result};
use crate::int_tuple::IntTuple;
use crate::layout::Layout;

/// A cursor over notation text that reports errors with their position.
///
/// ```
/// use tessel_layout::parse::Cursor;
/// let mut c = Cursor::new("(4,8):(1,4)");
/// let shape = c.int_tuple().unwrap();
/// assert_eq!(shape.to_string(), "(4,8)");
/// assert!(c.eat(':'));
/// ```
#[derive(Clone, Debug)]
pub struct Cursor<'a> {
    text: &'a str,
    pos: usize,
}

impl<'a> Cursor<'a> {
    /// A cursor at the start of `text`.
    ///
    /// ```
    /// assert_eq!(tessel_layout::parse::Cursor::new("8").position(), 0);
    /// ```
    pub fn new(text: &'a str) -> Self {
        Cursor { text, pos: 0 }
    }

    /// The byte offset of the next unread character.
    ///
    /// ```
    /// let mut c = tessel_layout::parse::Cursor::new("  8");
    /// c.skip_ws();
    /// assert_eq!(c.position(), 2);
    /// ```
    pub fn position(&self) -> usize {
        self.pos
    }

    /// The unread rest of the text.
    ///
    /// ```
    /// let mut c = tessel_layout::parse::Cursor::new("8:1");
    /// c.integer().unwrap();
    /// assert_eq!(c.rest(), ":1");
    /// ```
    pub fn rest(&self) -> &'a str {
        &self.text[self.pos..]
    }

    /// Skips whitespace.
    ///
    /// ```
    /// let mut c = tessel_layout::parse::Cursor::new("   x");
    /// c.skip_ws();
    /// assert_eq!(c.rest(), "x");
    /// ```
    pub fn skip_ws(&mut self) {
        let trimmed = self.rest().trim_start();
        self.pos = self.text.len() - trimmed.len();
    }

    /// The next non-whitespace character, without consuming it.
    ///
    /// ```
    /// let mut c = tessel_layout::parse::Cursor::new(" (");
    /// assert_eq!(c.peek(), Some('('));
    /// ```
    pub fn peek(&mut self) -> Option<char> {
        self.skip_ws();
        self.rest().chars().next()
    }

    /// Consumes `ch` (after whitespace) if it is next.
    ///
    /// ```
    /// let mut c = tessel_layout::parse::Cursor::new(" :1");
    /// assert!(c.eat(':'));
    /// assert!(!c.eat(':'));
    /// ```
    pub fn eat(&mut self, ch: char) -> bool {
        if self.peek() == Some(ch) {
            self.pos += ch.len_utf8();
            true
        } else {
            false
        }
    }

    /// Consumes the string `s` (after whitespace) if it is next.
    ///
    /// ```
    /// let mut c = tessel_layout::parse::Cursor::new(" Sw<");
    /// assert!(c.eat_str("Sw<"));
    /// ```
    pub fn eat_str(&mut self, s: &str) -> bool {
        self.skip_ws();
        if self.rest().starts_with(s) {
            self.pos += s.len();
            true
        } else {
            false
        }
    }

    /// Consumes `ch` or fails with "expected `what`".
    ///
    /// ```
    /// let mut c = tessel_layout::parse::Cursor::new("]");
    /// let e = c.expect(')', "')'").unwrap_err();
    /// assert_eq!(e.to_string(), "at 0: expected ')' but found ']'");
    /// ```
    pub fn expect(&mut self, ch: char, what: &str) -> Result<()> {
        if self.eat(ch) {
            Ok(())
        } else {
            Err(self.error(what))
        }
    }

    /// An [`ErrorKind::Parse`] error at the current position: "expected X but found Y".
    ///
    /// ```
    /// let mut c = tessel_layout::parse::Cursor::new("");
    /// assert_eq!(c.error("a layout").to_string(), "at 0: expected a layout but found the end of the input");
    /// ```
    pub fn error(&mut self, expected: &str) -> Error {
        self.skip_ws();
        let found = match self.rest().chars().next() {
            None => "the end of the input".to_string(),
            Some(c) => format!("'{c}'"),
        };
        Error::new(
            ErrorKind::Parse,
            format!("at {}: expected {expected} but found {found}", self.pos),
        )
    }

    /// Parses a (possibly negative) decimal integer that fits in `i64`.
    ///
    /// ```
    /// let mut c = tessel_layout::parse::Cursor::new("-12)");
    /// assert_eq!(c.integer().unwrap(), -12);
    /// let mut big = tessel_layout::parse::Cursor::new("99999999999999999999");
    /// assert!(big.integer().unwrap_err().to_string().contains("does not fit"));
    /// ```
    pub fn integer(&mut self) -> Result<i64> {
        self.skip_ws();
        match integer_literal(self.text, self.pos)? {
            Some((value, end)) => {
                self.pos = end;
                Ok(value)
            }
            None => Err(self.error("an integer")),
        }
    }

    /// Parses an integer or a parenthesised tuple of int tuples (`()` is the empty tuple).
    ///
    /// ```
    /// let mut c = tessel_layout::parse::Cursor::new("(4,(2,3))");
    /// assert_eq!(c.int_tuple().unwrap().to_string(), "(4,(2,3))");
    /// ```
    pub fn int_tuple(&mut self) -> Result<IntTuple> {
        if self.eat('(') {
            let mut items = Vec::new();
            if self.eat(')') {
                return Ok(IntTuple::Tuple(items));
            }
            loop {
                items.push(self.int_tuple()?);
                if self.eat(')') {
                    return Ok(IntTuple::Tuple(items));
                }
                self.expect(',', "',' or ')'")?;
            }
        }
        match self.peek() {
            Some(c) if c == '-' || c.is_ascii_digit() => Ok(IntTuple::Int(self.integer()?)),
            _ => Err(self.error("an integer or '('")),
        }
    }

    /// Parses `shape:stride`, or a bare shape (the compact column-major layout).
    ///
    /// ```
    /// let mut c = tessel_layout::parse::Cursor::new("(4,8)");
    /// assert_eq!(c.layout().unwrap().to_string(), "(4,8):(1,4)");
    /// ```
    pub fn layout(&mut self) -> Result<Layout> {
        let start = self.pos;
        let shape = self.int_tuple()?;
        if self.eat(':') {
            let stride = self.int_tuple()?;
            Layout::new(shape, stride).map_err(|e| e.context(format!("at {start}")))
        } else {
            Layout::col_major(&shape).map_err(|e| e.context(format!("at {start}")))
        }
    }

    /// Fails unless only whitespace is left.
    ///
    /// ```
    /// let mut c = tessel_layout::parse::Cursor::new("8 x");
    /// c.integer().unwrap();
    /// assert!(c.finish().is_err());
    /// ```
    pub fn finish(&mut self) -> Result<()> {
        if self.peek().is_some() {
            Err(self.error("the end of the input"))
        } else {
            Ok(())
        }
    }
}

/// The optionally negative decimal literal at byte `start` of `text` and the byte after it;
/// `None` when no digits follow (the one scanner of the notation parser and the expression
/// lexer).
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
            format!("at {start}: the integer {literal} does not fit in i64"),
        )
    })?;
    Ok(Some((value, end)))
}

/// Runs `parse` on the whole of `text`: what it leaves unread, other than whitespace, is an
/// error. The `FromStr` implementations of the notation types use it.
pub(crate) fn parse_whole<'t, T>(
    text: &'t str,
    parse: impl FnOnce(&mut Cursor<'t>) -> Result<T>,
) -> Result<T> {
    let mut c = Cursor::new(text);
    let value = parse(&mut c)?;
    c.finish()?;
    Ok(value)
}

impl FromStr for IntTuple {
    type Err = Error;

    fn from_str(s: &str) -> Result<Self> {
        parse_whole(s, Cursor::int_tuple)
    }
}

impl FromStr for Layout {
    type Err = Error;

    fn from_str(s: &str) -> Result<Self> {
        parse_whole(s, Cursor::layout)
    }
}
