//! Symbolic layouts: layouts whose stride leaves may be run-time identifiers, e.g.
//! `(128,64):(ld,1)`, and the composed form `Sw<3,3,3> o 32 o (128,64):(ld,1)` that the code
//! emitter takes as input.
//!
//! ```
//! use tessel_layout::codegen::SymLayout;
//! // A row-major tile with a run-time leading dimension; bound to ld = 72, row 1 starts at 72.
//! let l: SymLayout = "(128,64):(ld,1)".parse().unwrap();
//! let bound = l.bind(&|s| (s == "ld").then_some(72)).unwrap();
//! assert_eq!(bound.to_string(), "(128,64):(72,1)");
//! assert_eq!(bound.offset(1).unwrap(), 72);
//! ```

use std::fmt;
use std::str::FromStr;

use crate::composed::{ComposedLayout, write_composed};
use crate::error::{Error, ErrorKind, Result, Span};
use crate::expr::MAX_DEPTH;
use crate::int_tuple::{IntTuple, Shape, write_seq};
use crate::layout::{Layout, check_extents};
use crate::parse::{Cursor, parse_whole, too_deep};
use crate::swizzle::Swizzle;

/// A stride leaf: a known integer or a run-time symbol (a C identifier such as `ld`).
///
/// ```
/// use tessel_layout::codegen::SymInt;
/// assert_eq!(SymInt::Sym("ld".into()).to_string(), "ld");
/// assert_eq!(SymInt::Int(-3).to_string(), "-3");
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum SymInt {
    /// A known integer.
    Int(i64),
    /// A symbol whose value is only known at run time.
    Sym(String),
}

/// A stride tuple whose leaves are [`SymInt`]s, congruent to a shape.
///
/// ```
/// use tessel_layout::codegen::{SymInt, SymTuple};
/// let t = SymTuple::Tuple(vec![SymTuple::Leaf(SymInt::Sym("ld".into())), SymTuple::Leaf(SymInt::Int(1))]);
/// assert_eq!(t.to_string(), "(ld,1)");
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum SymTuple {
    /// One stride.
    Leaf(SymInt),
    /// A tuple of sub-strides.
    Tuple(Vec<SymTuple>),
}

impl SymTuple {
    /// The symbolic tuple with the same integers as `t`.
    ///
    /// ```
    /// use tessel_layout::{IntTuple, codegen::SymTuple};
    /// assert_eq!(SymTuple::from_int_tuple(&IntTuple::from_ints([64, 1])).to_string(), "(64,1)");
    /// ```
    pub fn from_int_tuple(t: &IntTuple) -> SymTuple {
        match t {
            IntTuple::Int(v) => SymTuple::Leaf(SymInt::Int(*v)),
            IntTuple::Tuple(items) => {
                SymTuple::Tuple(items.iter().map(SymTuple::from_int_tuple).collect())
            }
        }
    }

    /// All leaves, left to right.
    ///
    /// ```
    /// let t: tessel_layout::codegen::SymLayout = "(4,(2,3)):(ld,(1,k))".parse().unwrap();
    /// assert_eq!(t.stride().leaves().len(), 3);
    /// ```
    pub fn leaves(&self) -> Vec<&SymInt> {
        let mut out = Vec::new();
        self.collect_leaves(&mut out);
        out
    }

    fn collect_leaves<'a>(&'a self, out: &mut Vec<&'a SymInt>) {
        match self {
            SymTuple::Leaf(v) => out.push(v),
            SymTuple::Tuple(items) => items.iter().for_each(|t| t.collect_leaves(out)),
        }
    }

    /// Whether the tuple has the same nesting as the shape `shape`.
    ///
    /// ```
    /// let l: tessel_layout::codegen::SymLayout = "(4,8):(ld,1)".parse().unwrap();
    /// assert!(l.stride().congruent(l.shape()));
    /// ```
    pub fn congruent(&self, shape: &IntTuple) -> bool {
        match (self, shape) {
            (SymTuple::Leaf(_), IntTuple::Int(_)) => true,
            (SymTuple::Tuple(a), IntTuple::Tuple(b)) => {
                a.len() == b.len() && a.iter().zip(b).all(|(x, y)| x.congruent(y))
            }
            _ => false,
        }
    }

    /// The top-level modes (a leaf is its own only mode).
    ///
    /// ```
    /// let l: tessel_layout::codegen::SymLayout = "(4,8):(ld,1)".parse().unwrap();
    /// assert_eq!(l.stride().modes().len(), 2);
    /// ```
    pub fn modes(&self) -> &[SymTuple] {
        match self {
            SymTuple::Leaf(_) => std::slice::from_ref(self),
            SymTuple::Tuple(items) => items,
        }
    }

    /// The integer tuple obtained by replacing each symbol with `value(symbol)`.
    ///
    /// ```
    /// let l: tessel_layout::codegen::SymLayout = "(4,8):(ld,1)".parse().unwrap();
    /// let t = l.stride().bind(&|_| Some(100)).unwrap();
    /// assert_eq!(t.to_string(), "(100,1)");
    /// ```
    pub fn bind(&self, value: &dyn Fn(&str) -> Option<i64>) -> Result<IntTuple> {
        Ok(match self {
            SymTuple::Leaf(SymInt::Int(v)) => IntTuple::Int(*v),
            SymTuple::Leaf(SymInt::Sym(name)) => IntTuple::Int(
                value(name)
                    .ok_or_else(|| Error::invalid(format!("the symbol {name} has no value")))?,
            ),
            SymTuple::Tuple(items) => {
                IntTuple::Tuple(items.iter().map(|t| t.bind(value)).collect::<Result<_>>()?)
            }
        })
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

impl fmt::Display for SymTuple {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SymTuple::Leaf(v) => write!(f, "{v}"),
            SymTuple::Tuple(items) => write_seq(f, ("(", ")"), items, |f, t| write!(f, "{t}")),
        }
    }
}

/// A layout `Shape:Stride` whose stride leaves may be run-time symbols.
///
/// ```
/// use tessel_layout::codegen::SymLayout;
/// let l: SymLayout = "(128,64):(ld,1)".parse().unwrap();
/// assert_eq!(l.to_string(), "(128,64):(ld,1)");
/// assert_eq!(l.symbols(), vec!["ld".to_string()]);
/// let bound = l.bind(&|s| (s == "ld").then_some(72)).unwrap();
/// assert_eq!(bound.offset(1).unwrap(), 72);
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct SymLayout {
    shape: Shape,
    stride: SymTuple,
}

impl SymLayout {
    /// Builds `shape:stride`, checking congruence, extents >= 1 and that the size fits in `i64`.
    ///
    /// ```
    /// use tessel_layout::{IntTuple, codegen::{SymInt, SymLayout, SymTuple}};
    /// let err = SymLayout::new(IntTuple::from_ints([4, 8]), SymTuple::Leaf(SymInt::Int(1))).unwrap_err();
    /// assert_eq!(err.kind(), tessel_layout::ErrorKind::NotCongruent);
    /// ```
    pub fn new(shape: Shape, stride: SymTuple) -> Result<SymLayout> {
        if !stride.congruent(&shape) {
            return Err(Error::new(
                ErrorKind::NotCongruent,
                format!("shape {shape} and stride {stride} are not congruent"),
            ));
        }
        check_extents(&shape)?;
        let layout = SymLayout { shape, stride };
        if let Some(concrete) = layout.to_layout() {
            Layout::new(concrete.0, concrete.1)?;
        }
        Ok(layout)
    }

    fn to_layout(&self) -> Option<(IntTuple, IntTuple)> {
        let stride = self.stride.bind(&|_| None).ok()?;
        Some((self.shape.clone(), stride))
    }

    /// The shape.
    ///
    /// ```
    /// let l: tessel_layout::codegen::SymLayout = "(4,8):(ld,1)".parse().unwrap();
    /// assert_eq!(l.shape().to_string(), "(4,8)");
    /// ```
    pub fn shape(&self) -> &Shape {
        &self.shape
    }

    /// The (symbolic) stride.
    ///
    /// ```
    /// let l: tessel_layout::codegen::SymLayout = "(4,8):(ld,1)".parse().unwrap();
    /// assert_eq!(l.stride().to_string(), "(ld,1)");
    /// ```
    pub fn stride(&self) -> &SymTuple {
        &self.stride
    }

    /// The domain size (product of the shape), validated at construction.
    ///
    /// ```
    /// let l: tessel_layout::codegen::SymLayout = "(4,8):(ld,1)".parse().unwrap();
    /// assert_eq!(l.size(), 32);
    /// ```
    pub fn size(&self) -> i64 {
        self.shape.leaves().iter().product()
    }

    /// The distinct symbols, in order of first appearance.
    ///
    /// ```
    /// let l: tessel_layout::codegen::SymLayout = "(4,8,2):(ld,1,ld)".parse().unwrap();
    /// assert_eq!(l.symbols(), vec!["ld".to_string()]);
    /// ```
    pub fn symbols(&self) -> Vec<String> {
        let mut out: Vec<String> = Vec::new();
        for leaf in self.stride.leaves() {
            if let SymInt::Sym(s) = leaf {
                if !out.contains(s) {
                    out.push(s.clone());
                }
            }
        }
        out
    }

    /// The concrete layout obtained by giving every symbol a value.
    ///
    /// ```
    /// let l: tessel_layout::codegen::SymLayout = "(4,8):(ld,1)".parse().unwrap();
    /// assert_eq!(l.bind(&|_| Some(16)).unwrap().to_string(), "(4,8):(16,1)");
    /// assert!(l.bind(&|_| None).is_err());
    /// ```
    pub fn bind(&self, value: &dyn Fn(&str) -> Option<i64>) -> Result<Layout> {
        Layout::new(self.shape.clone(), self.stride.bind(value)?)
    }
}

impl From<&Layout> for SymLayout {
    fn from(l: &Layout) -> SymLayout {
        SymLayout {
            shape: l.shape().clone(),
            stride: SymTuple::from_int_tuple(l.stride()),
        }
    }
}

impl fmt::Display for SymLayout {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}", self.shape, self.stride)
    }
}

/// `Sw o ... o Sw o offset o L` with a [`SymLayout`] inside: the input of the code emitter.
/// Every [`Layout`], [`ComposedLayout`] and [`SymLayout`] converts into it.
///
/// ```
/// use tessel_layout::codegen::SymComposedLayout;
/// let c: SymComposedLayout = "Sw<3,3,3> o 32 o (8,64):(ld,1)".parse().unwrap();
/// assert_eq!(c.to_string(), "Sw<3,3,3> o 32 o (8,64):(ld,1)");
/// assert_eq!(c.swizzles().len(), 1);
/// assert_eq!(c.base_offset(), 32);
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct SymComposedLayout {
    swizzles: Vec<Swizzle>,
    offset: i64,
    layout: SymLayout,
}

impl SymComposedLayout {
    /// `swizzles[0] o ... o swizzles[n-1] o offset o layout` (outermost swizzle first).
    ///
    /// ```
    /// use tessel_layout::codegen::{SymComposedLayout, SymLayout};
    /// let l: SymLayout = "(4,8):(ld,1)".parse().unwrap();
    /// let c = SymComposedLayout::new(vec![], 5, l);
    /// assert_eq!(c.to_string(), "5 o (4,8):(ld,1)");
    /// ```
    pub fn new(swizzles: Vec<Swizzle>, offset: i64, layout: SymLayout) -> SymComposedLayout {
        SymComposedLayout {
            swizzles,
            offset,
            layout,
        }
    }

    /// The swizzle chain, outermost (applied last) first.
    ///
    /// ```
    /// let c: tessel_layout::codegen::SymComposedLayout = "Sw<1,0,1> o 4:1".parse().unwrap();
    /// assert_eq!(c.swizzles()[0].to_string(), "Sw<1,0,1>");
    /// ```
    pub fn swizzles(&self) -> &[Swizzle] {
        &self.swizzles
    }

    /// The offset added before the swizzles.
    ///
    /// ```
    /// let c: tessel_layout::codegen::SymComposedLayout = "7 o 4:1".parse().unwrap();
    /// assert_eq!(c.base_offset(), 7);
    /// ```
    pub fn base_offset(&self) -> i64 {
        self.offset
    }

    /// The inner symbolic layout.
    ///
    /// ```
    /// let c: tessel_layout::codegen::SymComposedLayout = "7 o 4:ld".parse().unwrap();
    /// assert_eq!(c.layout().to_string(), "4:ld");
    /// ```
    pub fn layout(&self) -> &SymLayout {
        &self.layout
    }

    /// The concrete composed layout obtained by giving every symbol a value. Fails, as the
    /// expression evaluator does, unless every offset (with and without the base offset) fits
    /// in `i64`.
    ///
    /// ```
    /// let c: tessel_layout::codegen::SymComposedLayout = "Sw<1,0,1> o (2,2):(1,ld)".parse().unwrap();
    /// let bound = c.bind(&|_| Some(2)).unwrap();
    /// assert_eq!(bound.offsets(), vec![0, 1, 3, 2]);
    /// let edge: tessel_layout::codegen::SymComposedLayout = "9223372036854775806 o 2:ld".parse().unwrap();
    /// assert!(edge.bind(&|_| Some(1)).is_ok());
    /// assert_eq!(edge.bind(&|_| Some(2)).unwrap_err().kind(), tessel_layout::ErrorKind::Overflow);
    /// ```
    pub fn bind(&self, value: &dyn Fn(&str) -> Option<i64>) -> Result<ComposedLayout> {
        let c = ComposedLayout::new(self.swizzles.clone(), self.offset, self.layout.bind(value)?);
        c.check_offsets()?;
        Ok(c)
    }
}

impl From<&ComposedLayout> for SymComposedLayout {
    fn from(c: &ComposedLayout) -> SymComposedLayout {
        SymComposedLayout::new(c.swizzles().to_vec(), c.base_offset(), c.layout().into())
    }
}

impl From<&Layout> for SymComposedLayout {
    fn from(l: &Layout) -> SymComposedLayout {
        SymComposedLayout::new(Vec::new(), 0, l.into())
    }
}

impl From<ComposedLayout> for SymComposedLayout {
    fn from(c: ComposedLayout) -> SymComposedLayout {
        (&c).into()
    }
}

impl From<Layout> for SymComposedLayout {
    fn from(l: Layout) -> SymComposedLayout {
        (&l).into()
    }
}

impl From<SymLayout> for SymComposedLayout {
    fn from(l: SymLayout) -> SymComposedLayout {
        SymComposedLayout::new(Vec::new(), 0, l)
    }
}

impl From<&SymLayout> for SymComposedLayout {
    fn from(l: &SymLayout) -> SymComposedLayout {
        SymComposedLayout::new(Vec::new(), 0, l.clone())
    }
}

impl From<&SymComposedLayout> for SymComposedLayout {
    fn from(c: &SymComposedLayout) -> SymComposedLayout {
        c.clone()
    }
}

impl fmt::Display for SymComposedLayout {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write_composed(f, &self.swizzles, self.offset, &self.layout)
    }
}

/// The identifier at the cursor (`[A-Za-z_][A-Za-z0-9_]*`), consumed; `None` if there is none.
fn identifier(c: &mut Cursor<'_>) -> Option<String> {
    c.skip_ws();
    let rest = c.rest();
    let first = rest.chars().next()?;
    if !(first.is_ascii_alphabetic() || first == '_') {
        return None;
    }
    let len = rest
        .find(|ch: char| !(ch.is_ascii_alphanumeric() || ch == '_'))
        .unwrap_or(rest.len());
    let ident = rest[..len].to_string();
    c.eat_str(&ident);
    Some(ident)
}

/// Parses a stride tuple whose leaves are integers or identifiers, nested at most
/// [`MAX_DEPTH`] levels (deeper input is a parse error, never a stack overflow).
///
/// ```
/// let mut c = tessel_layout::parse::Cursor::new("(ld,(1,k))");
/// let t = tessel_layout::codegen::parse_sym_tuple(&mut c).unwrap();
/// assert_eq!(t.to_string(), "(ld,(1,k))");
/// ```
pub fn parse_sym_tuple(c: &mut Cursor<'_>) -> Result<SymTuple> {
    sym_tuple_at_depth(c, 0)
}

/// Fails at the first '(' nested more than [`MAX_DEPTH`] levels deep in the rest of the input
/// (so the recursive parsers below never recurse deeper).
fn check_nesting(c: &Cursor<'_>) -> Result<()> {
    let mut depth = 0usize;
    for (k, ch) in c.rest().char_indices() {
        match ch {
            '(' | '[' => {
                depth += 1;
                if depth > MAX_DEPTH {
                    return Err(too_deep(c.position() + k));
                }
            }
            ')' | ']' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    Ok(())
}

fn sym_tuple_at_depth(c: &mut Cursor<'_>, depth: usize) -> Result<SymTuple> {
    c.skip_ws();
    let start = c.position();
    if c.eat('(') {
        if depth >= MAX_DEPTH {
            return Err(too_deep(start));
        }
        let mut items = Vec::new();
        if c.eat(')') {
            return Ok(SymTuple::Tuple(items));
        }
        loop {
            items.push(sym_tuple_at_depth(c, depth + 1)?);
            if c.eat(')') {
                return Ok(SymTuple::Tuple(items));
            }
            c.expect(',', "',' or ')'")?;
        }
    }
    match c.peek() {
        Some(ch) if ch == '-' || ch.is_ascii_digit() => {
            Ok(SymTuple::Leaf(SymInt::Int(c.integer()?)))
        }
        _ => match identifier(c) {
            Some(name) => Ok(SymTuple::Leaf(SymInt::Sym(name))),
            None => Err(c.error("an integer, a symbol or '('")),
        },
    }
}

/// Parses `shape:stride` with symbols allowed in the stride, or a bare shape (column-major).
/// Brackets nested more than [`MAX_DEPTH`] levels deep are a parse error.
///
/// ```
/// let mut c = tessel_layout::parse::Cursor::new("(128,64):(ld,1)");
/// let l = tessel_layout::codegen::parse_sym_layout(&mut c).unwrap();
/// assert_eq!(l.symbols(), vec!["ld".to_string()]);
/// ```
pub fn parse_sym_layout(c: &mut Cursor<'_>) -> Result<SymLayout> {
    c.skip_ws();
    check_nesting(c)?;
    let start = c.position();
    let shape = c.int_tuple()?;
    let stride = if c.eat(':') {
        parse_sym_tuple(c)?
    } else {
        SymTuple::from_int_tuple(
            &shape
                .prefix_product()
                .map_err(|e| e.at(start..c.position()))?,
        )
    };
    // An invalid layout is an error spanning the whole literal.
    SymLayout::new(shape, stride).map_err(|e| e.at(start..c.position()))
}

/// Parses `Sw<B,M,S> o ... o [OFFSET o] LAYOUT` with symbols allowed in the layout's stride.
///
/// ```
/// let mut c = tessel_layout::parse::Cursor::new("Sw<2,0,2> o Sw<1,4,-1> o (16,4):(4,1)");
/// let l = tessel_layout::codegen::parse_sym_composed(&mut c).unwrap();
/// assert_eq!(l.swizzles().len(), 2);
/// let mut bad = tessel_layout::parse::Cursor::new("Sw<3,3,2> o 8:1");
/// let err = tessel_layout::codegen::parse_sym_composed(&mut bad).unwrap_err();
/// assert_eq!(err.span().unwrap().range(), 0..9); // the swizzle Sw<3,3,2>
/// ```
pub fn parse_sym_composed(c: &mut Cursor<'_>) -> Result<SymComposedLayout> {
    let mut swizzles = Vec::new();
    loop {
        c.skip_ws();
        if !c.rest().starts_with("Sw<") {
            break;
        }
        swizzles.push(Swizzle::parse(c)?);
        expect_compose(c)?;
    }
    let mut offset = 0;
    let mut probe = c.clone();
    probe.skip_ws();
    // The offset literal, where an offset too large for the layout's offsets is reported.
    let mut offset_span = Span::at(probe.position());
    if matches!(probe.peek(), Some(ch) if ch == '-' || ch.is_ascii_digit()) {
        let value = probe.integer()?;
        offset_span.end = probe.position();
        if eat_compose(&mut probe) {
            offset = value;
            *c = probe;
        }
    }
    let layout = parse_sym_layout(c)?;
    let composed = SymComposedLayout::new(swizzles, offset, layout);
    if composed.layout().symbols().is_empty() {
        // Only the base offset can push a valid layout's offsets out of i64.
        composed.bind(&|_| None).map_err(|e| e.at(offset_span))?;
    }
    Ok(composed)
}

/// Consumes the composition operator `o` (a lone identifier `o`) if it is next.
fn eat_compose(c: &mut Cursor<'_>) -> bool {
    let mut probe = c.clone();
    if identifier(&mut probe).as_deref() == Some("o") {
        *c = probe;
        true
    } else {
        false
    }
}

fn expect_compose(c: &mut Cursor<'_>) -> Result<()> {
    if eat_compose(c) {
        Ok(())
    } else {
        Err(c.error("the composition operator 'o'"))
    }
}

impl FromStr for SymLayout {
    type Err = Error;

    fn from_str(s: &str) -> Result<Self> {
        parse_whole(s, parse_sym_layout)
    }
}

impl FromStr for SymComposedLayout {
    type Err = Error;

    fn from_str(s: &str) -> Result<Self> {
        parse_whole(s, parse_sym_composed)
    }
}
