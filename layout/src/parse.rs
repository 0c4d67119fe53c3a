//! Parsing CuTe notation: integer tuples `(4,(2,3))` and layouts `(4,(2,3)):(1,(8,16))`.
//!
//! Errors say what was expected and carry the [`Span`](crate::error::Span) of what was found
//! (displayed as a leading byte position, e.g. `at 4: expected ',' or ')' but found ']'`). A
//! bare shape where a layout is expected is the compact column-major layout of that shape.
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
//!
//! Nesting is capped at [`MAX_DEPTH`] levels, the one limit of every parser in the crate (this
//! one, the expression parser and the parsers built on [`Cursor`]), so that no input can exhaust
//! the stack of the parser or of any recursive walk over what it returns.

use std::str::FromStr;

use crate::algebra::Tiler;
use crate::basis::ScaledBasis;
use crate::error::{Error, ErrorKind, Result};
use crate::int_tuple::IntTuple;
use crate::layout::{Layout, SliceCoord};
pub(crate) use crate::leaf::integer_literal;
use crate::leaf::{Leaf, identifier};
use crate::static_int::Integer;
use crate::typed::TypedLayout;
use crate::typed::algebra::TypedTiler;

/// The deepest nesting of parentheses, brackets and calls any parser of the crate accepts.
///
/// The notation parser ([`Cursor`], `FromStr` of [`IntTuple`], [`Layout`] and
/// [`ComposedLayout`](crate::ComposedLayout)) and the expression parser
/// ([`crate::expr::parse`], which re-exports this constant as `tessel_layout::expr::MAX_DEPTH`)
/// all stop at this depth with [`too_deep`]'s error. Real shapes nest a few levels; the cap keeps
/// every recursive walk (display, comparison, drop, the algebra) far from the end of the stack.
///
/// ```
/// use tessel_layout::{IntTuple, parse::MAX_DEPTH};
/// let deepest = format!("{}8{}", "(".repeat(MAX_DEPTH), ")".repeat(MAX_DEPTH));
/// assert_eq!(deepest.parse::<IntTuple>().unwrap().depth(), MAX_DEPTH);
/// let deeper = format!("({deepest})");
/// let err = deeper.parse::<IntTuple>().unwrap_err();
/// assert_eq!(err.to_string(), format!("at {MAX_DEPTH}: nesting deeper than {MAX_DEPTH} levels"));
/// assert_eq!(tessel_layout::expr::MAX_DEPTH, MAX_DEPTH);
/// ```
pub const MAX_DEPTH: usize = 64;

/// The [`ErrorKind::Parse`] error for an opening bracket at byte `pos` that nests deeper than
/// [`MAX_DEPTH`] levels: the one wording of the depth limit, spanning the bracket.
///
/// ```
/// use tessel_layout::{ErrorKind, parse::too_deep};
/// let e = too_deep(7);
/// assert_eq!(e.kind(), ErrorKind::Parse);
/// assert_eq!(e.span().unwrap().range(), 7..8);
/// assert_eq!(e.to_string(), "at 7: nesting deeper than 64 levels");
/// ```
pub fn too_deep(pos: usize) -> Error {
    Error::new(
        ErrorKind::Parse,
        format!("nesting deeper than {MAX_DEPTH} levels"),
    )
    .at(pos..pos + 1)
}

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
    /// How many [`Cursor::nested`] levels are open.
    depth: usize,
}

impl<'a> Cursor<'a> {
    /// A cursor at the start of `text`.
    ///
    /// ```
    /// assert_eq!(tessel_layout::parse::Cursor::new("8").position(), 0);
    /// ```
    pub fn new(text: &'a str) -> Self {
        Cursor {
            text,
            pos: 0,
            depth: 0,
        }
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

    /// An [`ErrorKind::Parse`] error at the current position: "expected X but found Y", spanning
    /// the character found (empty at the end of the input).
    ///
    /// ```
    /// let mut c = tessel_layout::parse::Cursor::new("");
    /// assert_eq!(c.error("a layout").to_string(), "at 0: expected a layout but found the end of the input");
    /// let mut c = tessel_layout::parse::Cursor::new(" ]");
    /// assert_eq!(c.error("a layout").span().unwrap().range(), 1..2);
    /// ```
    pub fn error(&mut self, expected: &str) -> Error {
        self.skip_ws();
        let next = self.rest().chars().next();
        let found = match next {
            None => "the end of the input".to_string(),
            Some(c) => format!("'{c}'"),
        };
        let end = self.pos + next.map_or(0, char::len_utf8);
        Error::new(
            ErrorKind::Parse,
            format!("expected {expected} but found {found}"),
        )
        .at(self.pos..end)
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

    /// Runs `inner` one nesting level deeper: a recursive parser built on the cursor calls it
    /// after consuming an opening bracket at byte `open`, and fails with [`too_deep`]`(open)`
    /// instead of recursing past [`MAX_DEPTH`] levels.
    ///
    /// ```
    /// use tessel_layout::parse::{Cursor, MAX_DEPTH};
    /// // A parser of nested brackets `[[[]]]` that returns its depth.
    /// fn brackets(c: &mut Cursor<'_>) -> tessel_layout::Result<usize> {
    ///     c.skip_ws();
    ///     let open = c.position();
    ///     if !c.eat('[') {
    ///         return Ok(0);
    ///     }
    ///     let inside = c.nested(open, brackets)?;
    ///     c.expect(']', "']'")?;
    ///     Ok(inside + 1)
    /// }
    /// let ok = format!("{}{}", "[".repeat(MAX_DEPTH), "]".repeat(MAX_DEPTH));
    /// assert_eq!(brackets(&mut Cursor::new(&ok)).unwrap(), MAX_DEPTH);
    /// let err = brackets(&mut Cursor::new(&"[".repeat(20_000))).unwrap_err();
    /// assert_eq!(err.to_string(), format!("at {MAX_DEPTH}: nesting deeper than {MAX_DEPTH} levels"));
    /// ```
    pub fn nested<T>(
        &mut self,
        open: usize,
        inner: impl FnOnce(&mut Self) -> Result<T>,
    ) -> Result<T> {
        if self.depth >= MAX_DEPTH {
            return Err(too_deep(open));
        }
        self.depth += 1;
        let result = inner(self);
        self.depth -= 1;
        result
    }

    /// Parses an integer or a parenthesised tuple of int tuples (`()` is the empty tuple),
    /// nested at most [`MAX_DEPTH`] levels.
    ///
    /// ```
    /// let mut c = tessel_layout::parse::Cursor::new("(4,(2,3))");
    /// assert_eq!(c.int_tuple().unwrap().to_string(), "(4,(2,3))");
    /// let deep = "(".repeat(20_000);
    /// let err = tessel_layout::parse::Cursor::new(&deep).int_tuple().unwrap_err();
    /// assert!(err.to_string().ends_with("nesting deeper than 64 levels"), "{err}");
    /// ```
    pub fn int_tuple(&mut self) -> Result<IntTuple> {
        self.tuple_of()
    }

    /// Parses a leaf of type `L` or a parenthesised tuple of them (`()` is the empty tuple),
    /// nested at most [`MAX_DEPTH`] levels: the one tuple parser of every leaf type.
    ///
    /// ```
    /// use tessel_layout::{IntTuple, codegen::SymInt, parse::Cursor};
    /// let t: IntTuple<SymInt> = Cursor::new("(ld,(1,k))").tuple_of().unwrap();
    /// assert_eq!(t.to_string(), "(ld,(1,k))");
    /// ```
    pub fn tuple_of<L: Leaf>(&mut self) -> Result<IntTuple<L>> {
        self.skip_ws();
        let open = self.pos;
        if self.eat('(') {
            return self.nested(open, Cursor::tuple_rest);
        }
        Ok(IntTuple::Int(self.leaf()?))
    }

    /// Reads one leaf of type `L` (after whitespace): the literal [`Leaf::scan`] finds, or an
    /// error saying what was expected.
    ///
    /// ```
    /// use tessel_layout::{codegen::SymInt, parse::Cursor};
    /// assert_eq!(Cursor::new(" -3").leaf::<i64>().unwrap(), -3);
    /// assert_eq!(Cursor::new("ld").leaf::<SymInt>().unwrap(), SymInt::Sym("ld".into()));
    /// let err = Cursor::new("ld").leaf::<i64>().unwrap_err();
    /// assert_eq!(err.to_string(), "at 0: expected an integer or '(' but found 'l'");
    /// ```
    pub fn leaf<L: Leaf>(&mut self) -> Result<L> {
        self.skip_ws();
        match L::scan(self.text, self.pos)? {
            Some((leaf, end)) => {
                self.pos = end;
                Ok(leaf)
            }
            None => Err(self.error(&format!("{} or '('", L::EXPECTED))),
        }
    }

    /// The elements and the closing `)` of a tuple whose `(` is consumed.
    fn tuple_rest<L: Leaf>(&mut self) -> Result<IntTuple<L>> {
        let mut items = Vec::new();
        if self.eat(')') {
            return Ok(IntTuple::Tuple(items.into()));
        }
        loop {
            items.push(self.tuple_of()?);
            if self.eat(')') {
                return Ok(IntTuple::Tuple(items.into()));
            }
            self.expect(',', "',' or ')'")?;
        }
    }

    /// Parses `shape:stride`, or a bare shape (the compact column-major layout). An invalid
    /// layout (not congruent, a zero extent, ...) is an error spanning the whole literal.
    ///
    /// ```
    /// let mut c = tessel_layout::parse::Cursor::new("(4,8)");
    /// assert_eq!(c.layout().unwrap().to_string(), "(4,8):(1,4)");
    /// let mut c = tessel_layout::parse::Cursor::new(" (4,8):(1,4,2) ");
    /// assert_eq!(c.layout().unwrap_err().span().unwrap().range(), 1..14);
    /// ```
    pub fn layout(&mut self) -> Result<Layout> {
        self.layout_of()
    }

    /// Parses `shape:stride` whose stride leaves are of type `L`, or a bare shape (the compact
    /// column-major layout): the one layout parser of every leaf type.
    ///
    /// ```
    /// use tessel_layout::{Layout, codegen::SymInt, parse::Cursor};
    /// let l: Layout<SymInt> = Cursor::new("(128,64):(ld,1)").layout_of().unwrap();
    /// assert_eq!(l.to_string(), "(128,64):(ld,1)");
    /// ```
    pub fn layout_of<L: Leaf>(&mut self) -> Result<Layout<L>> {
        self.skip_ws();
        let start = self.pos;
        let shape = self.int_tuple()?;
        let stride = if self.eat(':') {
            self.tuple_of()?
        } else {
            shape
                .prefix_product()
                .map_err(|e| e.at(start..self.pos))?
                .map(&mut |v| L::from_int(*v))
        };
        Layout::new(shape, stride).map_err(|e| e.at(start..self.pos))
    }

    /// The identifier at the cursor (`[A-Za-z_][A-Za-z0-9_]*`, after whitespace), consumed;
    /// `None` (nothing consumed) if there is none.
    ///
    /// ```
    /// let mut c = tessel_layout::parse::Cursor::new(" ld_2,1");
    /// assert_eq!(c.identifier().as_deref(), Some("ld_2"));
    /// assert_eq!(c.identifier(), None);
    /// ```
    pub fn identifier(&mut self) -> Option<String> {
        self.skip_ws();
        let end = identifier(self.text, self.pos)?;
        let name = self.text[self.pos..end].to_string();
        self.pos = end;
        Some(name)
    }

    /// Consumes the word `word` (an identifier, so `o` does not match the start of `old`) if it
    /// is next.
    ///
    /// ```
    /// let mut c = tessel_layout::parse::Cursor::new(" o (4,8)");
    /// assert!(c.eat_word("o"));
    /// assert!(!tessel_layout::parse::Cursor::new("old").eat_word("o"));
    /// ```
    pub fn eat_word(&mut self, word: &str) -> bool {
        let mut probe = self.clone();
        if probe.identifier().as_deref() == Some(word) {
            *self = probe;
            true
        } else {
            false
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

impl<L: Leaf> FromStr for IntTuple<L> {
    type Err = Error;

    fn from_str(s: &str) -> Result<Self> {
        parse_whole(s, Cursor::tuple_of)
    }
}

impl<L: Leaf> FromStr for Layout<L> {
    type Err = Error;

    fn from_str(s: &str) -> Result<Self> {
        parse_whole(s, Cursor::layout_of)
    }
}

impl Cursor<'_> {
    /// Parses a tiler: a layout `shape:stride` (an integer `n` is `n:1`), a tuple of integers
    /// and tuples (a by-mode tiler whose every integer `n` is `n:1`, as CuTe reads a shape used
    /// as a tiler), or a by-mode tiler `[T0, T1, ...]` whose modes are tilers or `_` (keep the
    /// mode): the notation [`Tiler`]'s `Display` writes.
    ///
    /// ```
    /// use tessel_layout::parse::Cursor;
    /// assert_eq!(Cursor::new("[3:4, _, 8:2]").tiler().unwrap().to_string(), "[3:4,_,8:2]");
    /// assert_eq!(Cursor::new("(2,(3,4))").tiler().unwrap().to_string(), "[2:1,[3:1,4:1]]");
    /// assert_eq!(Cursor::new("4:2").tiler().unwrap().to_string(), "4:2");
    /// assert_eq!(Cursor::new("[_4:_1,_]").tiler().unwrap().to_string(), "[4:1,_]");
    /// assert!(Cursor::new("[]").tiler().is_err());
    /// ```
    pub fn tiler(&mut self) -> Result<Tiler> {
        self.skip_ws();
        let open = self.pos;
        if self.eat('[') {
            return self.nested(open, |c| {
                let mut modes = Vec::new();
                loop {
                    // `_` keeps the mode; `_4` is the static integer 4 starting a layout.
                    c.skip_ws();
                    let kept = c.rest().starts_with('_')
                        && !c.rest()[1..].starts_with(|ch: char| ch == '-' || ch.is_ascii_digit());
                    if kept {
                        c.pos += 1;
                        modes.push(None);
                    } else {
                        modes.push(Some(c.tiler()?));
                    }
                    if c.eat(']') {
                        return Ok(Tiler::ByMode(modes));
                    }
                    c.expect(',', "',' or ']'")?;
                }
            });
        }
        let start = self.pos;
        let shape = self.int_tuple()?;
        let layout = if self.eat(':') {
            let stride = self.int_tuple()?;
            Layout::new(shape, stride)
        } else if let IntTuple::Tuple(_) = shape {
            return shape_tiler(&shape).map_err(|e| e.at(start..self.pos));
        } else {
            Layout::new(shape, 1)
        };
        layout.map(Tiler::Layout).map_err(|e| e.at(start..self.pos))
    }
}

/// A shape read as a tiler: one mode per element, an integer `n` being `n:1`.
fn shape_tiler(shape: &IntTuple) -> Result<Tiler> {
    match shape {
        IntTuple::Int(n) => Layout::new(*n, 1).map(Tiler::Layout),
        IntTuple::Tuple(items) => items
            .iter()
            .map(|item| shape_tiler(&item).map(Some))
            .collect::<Result<Vec<_>>>()
            .map(Tiler::ByMode),
    }
}

impl FromStr for Tiler {
    type Err = Error;

    /// See [`Cursor::tiler`].
    ///
    /// ```
    /// use tessel_layout::{Layout, Tiler, logical_divide};
    /// let t: Tiler = "[2:1, _]".parse().unwrap();
    /// let a: Layout = "(4,3):(1,4)".parse().unwrap();
    /// assert_eq!(logical_divide(&a, &t).unwrap().to_string(), "((2,2),3):((1,2),4)");
    /// assert_eq!(t.to_string().parse::<Tiler>().unwrap(), t);
    /// assert!("[2:1,".parse::<Tiler>().is_err());
    /// ```
    fn from_str(s: &str) -> Result<Self> {
        parse_whole(s, Cursor::tiler)
    }
}

impl Cursor<'_> {
    /// Parses a typed layout `shape:stride` whose leaves are static (`_4`) or dynamic (`4`)
    /// integers and whose strides may be basis elements (`_1@0`), or a bare shape: its compact
    /// column-major layout with CuTe's kinds ([`TypedLayout::compact`]).
    ///
    /// ```
    /// use tessel_layout::parse::Cursor;
    /// assert_eq!(Cursor::new("(_2,4)").typed_layout().unwrap().to_string(), "(_2,4):(_1,_2)");
    /// assert_eq!(Cursor::new("(4,8):(_1@0,_1@1)").typed_layout().unwrap().to_string(), "(4,8):(_1@0,_1@1)");
    /// assert!(Cursor::new("(_0,4)").typed_layout().is_err());
    /// ```
    pub fn typed_layout(&mut self) -> Result<TypedLayout> {
        self.skip_ws();
        let start = self.pos;
        let shape = self.tuple_of::<Integer>()?;
        let layout = if self.eat(':') {
            let stride = self.tuple_of::<ScaledBasis>()?;
            TypedLayout::new(shape, stride)
        } else {
            TypedLayout::compact(&shape)
        };
        layout.map_err(|e| e.at(start..self.pos))
    }

    /// Parses a typed tiler: a typed layout (an integer `n` is `n:_1`), a tuple of integers
    /// and tuples (a by-mode tiler whose every integer `n` is `n:_1`), or `[T0, T1, ...]`.
    ///
    /// ```
    /// use tessel_layout::parse::Cursor;
    /// assert_eq!(Cursor::new("[_128:_1, _32:_1]").typed_tiler().unwrap().to_string(), "[_128:_1,_32:_1]");
    /// assert_eq!(Cursor::new("(_2,4)").typed_tiler().unwrap().to_string(), "[_2:_1,4:_1]");
    /// ```
    pub fn typed_tiler(&mut self) -> Result<TypedTiler> {
        self.skip_ws();
        let open = self.pos;
        if self.eat('[') {
            return self.nested(open, |c| {
                let mut modes = Vec::new();
                loop {
                    modes.push(c.typed_tiler()?);
                    if c.eat(']') {
                        return Ok(TypedTiler::ByMode(modes));
                    }
                    c.expect(',', "',' or ']'")?;
                }
            });
        }
        let start = self.pos;
        let shape = self.tuple_of::<Integer>()?;
        if self.eat(':') {
            let stride = self.tuple_of::<ScaledBasis>()?;
            return TypedLayout::new(shape, stride)
                .map(|l| TypedTiler::Layout(Box::new(l)))
                .map_err(|e| e.at(start..self.pos));
        }
        typed_shape_tiler(&shape).map_err(|e| e.at(start..self.pos))
    }
}

/// A typed shape read as a tiler: one mode per element, an integer `n` being `n:_1`.
fn typed_shape_tiler(shape: &IntTuple<Integer>) -> Result<TypedTiler> {
    match shape {
        IntTuple::Int(_) => TypedLayout::compact(shape).map(|l| TypedTiler::Layout(Box::new(l))),
        IntTuple::Tuple(items) => items
            .iter()
            .map(|item| typed_shape_tiler(&item))
            .collect::<Result<Vec<_>>>()
            .map(TypedTiler::ByMode),
    }
}

impl FromStr for TypedLayout {
    type Err = Error;

    /// See [`Cursor::typed_layout`].
    ///
    /// ```
    /// use tessel_layout::typed::TypedLayout;
    /// let l: TypedLayout = "(_4,(8,_2)):(_1,(_4,32))".parse().unwrap();
    /// assert_eq!(l.to_string(), "(_4,(8,_2)):(_1,(_4,32))");
    /// ```
    fn from_str(s: &str) -> Result<Self> {
        parse_whole(s, Cursor::typed_layout)
    }
}

impl FromStr for TypedTiler {
    type Err = Error;

    /// See [`Cursor::typed_tiler`].
    fn from_str(s: &str) -> Result<Self> {
        parse_whole(s, Cursor::typed_tiler)
    }
}

impl Cursor<'_> {
    /// Parses a slicing coordinate: an integer fixes a mode, `_` keeps it, a tuple holds one
    /// coordinate per mode (CuTe's `make_coord(_, 1)` is `(_,1)`).
    ///
    /// ```
    /// use tessel_layout::parse::Cursor;
    /// assert_eq!(Cursor::new("(_, (1, _))").slice_coord().unwrap().to_string(), "(_,(1,_))");
    /// assert_eq!(Cursor::new("_3").slice_coord().unwrap().to_string(), "3");
    /// ```
    pub fn slice_coord(&mut self) -> Result<SliceCoord> {
        self.skip_ws();
        let open = self.pos;
        if self.eat('(') {
            return self.nested(open, |c| {
                let mut parts = Vec::new();
                if c.eat(')') {
                    return Ok(SliceCoord::Tuple(parts));
                }
                loop {
                    parts.push(c.slice_coord()?);
                    if c.eat(')') {
                        return Ok(SliceCoord::Tuple(parts));
                    }
                    c.expect(',', "',' or ')'")?;
                }
            });
        }
        let rest = self.rest();
        if rest.starts_with('_')
            && !rest[1..].starts_with(|ch: char| ch == '-' || ch.is_ascii_digit())
        {
            self.pos += 1;
            return Ok(SliceCoord::All);
        }
        self.leaf::<i64>().map(SliceCoord::Index)
    }
}

impl FromStr for SliceCoord {
    type Err = Error;

    /// See [`Cursor::slice_coord`].
    ///
    /// ```
    /// use tessel_layout::{Layout, SliceCoord};
    /// let l: Layout = "(4,8):(1,4)".parse().unwrap();
    /// let c: SliceCoord = "(_,3)".parse().unwrap();
    /// assert_eq!(l.slice(&c).unwrap(), ("(4):(1)".parse().unwrap(), 12));
    /// ```
    fn from_str(s: &str) -> Result<Self> {
        parse_whole(s, Cursor::slice_coord)
    }
}
