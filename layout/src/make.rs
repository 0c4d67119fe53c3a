//! The constructors a CuTe user reaches for first: [`make_shape`], [`make_stride`],
//! [`make_coord`], [`make_layout`] and [`make_tile`], with CuTe's names and arguments.
//!
//! Shapes, strides and coordinates convert from integers and nested Rust tuples (CuTe's
//! `make_shape(4, make_shape(2, 3))` is `make_shape((4, (2, 3)))`), and so do the parts of
//! [`Layout::new`]. A layout is made from a shape (column-major, CuTe's default `LayoutLeft`),
//! a shape and a stride, a shape and a [`LayoutLeft`] / [`LayoutRight`] tag, or a list of layouts
//! (one mode each). Text in CuTe notation parses too: `"(4,8):(8,1)".parse::<Layout>()`,
//! `"[2:1,_]".parse::<Tiler>()`.
//!
//! ```
//! use tessel_layout::make::{LayoutRight, make_coord, make_layout, make_shape, make_stride, make_tile};
//! use tessel_layout::{Layout, Tiler};
//! // CuTe media/docs/cpp/cute/01_layout.md, "Constructing a Layout" (CUTLASS v4.2.1), with
//! // every integer dynamic: s2xh4 is (2,(2,2)):(4,(2,1)).
//! let s2xh4 = make_layout((make_shape((2, (2, 2))), make_stride((4, (2, 1))))).unwrap();
//! assert_eq!(s2xh4.to_string(), "(2,(2,2)):(4,(2,1))");
//! assert_eq!(s2xh4.crd2idx(&make_coord((1, 3))).unwrap(), 4 + 2 + 1);
//! let col = make_layout(make_shape((2, 4))).unwrap();
//! assert_eq!(col.to_string(), "(2,4):(1,2)");
//! let row = make_layout((make_shape((2, 4)), LayoutRight)).unwrap();
//! assert_eq!(row.to_string(), "(2,4):(4,1)");
//! assert_eq!(Layout::new((4, 2), (1, 4)).unwrap().to_string(), "(4,2):(1,4)");
//! let tile = make_tile([Layout::new(2, 1).unwrap(), Layout::new(4, 2).unwrap()]).unwrap();
//! assert_eq!(tile, "[2:1,4:2]".parse::<Tiler>().unwrap());
//! ```

use crate::algebra::Tiler;
use crate::error::Result;
use crate::int_tuple::{Coord, IntTuple, Shape, Stride};
use crate::layout::Layout;

/// CuTe's `make_shape`: the shape of integers and nested tuples.
///
/// ```
/// use tessel_layout::make::make_shape;
/// assert_eq!(make_shape((4, (2, 3))).to_string(), "(4,(2,3))");
/// assert_eq!(make_shape(8).to_string(), "8");
/// ```
pub fn make_shape(shape: impl Into<Shape>) -> Shape {
    shape.into()
}

/// CuTe's `make_stride`: the stride of integers and nested tuples.
///
/// ```
/// use tessel_layout::make::make_stride;
/// assert_eq!(make_stride((1, (4, 8))).to_string(), "(1,(4,8))");
/// ```
pub fn make_stride(stride: impl Into<Stride>) -> Stride {
    stride.into()
}

/// CuTe's `make_coord`: a coordinate of integers and nested tuples.
///
/// ```
/// use tessel_layout::{Layout, make::make_coord};
/// let l: Layout = "(4,(2,3)):(1,(8,16))".parse().unwrap();
/// assert_eq!(l.crd2idx(&make_coord((1, (1, 2)))).unwrap(), 1 + 8 + 32);
/// ```
pub fn make_coord(coord: impl Into<Coord>) -> Coord {
    coord.into()
}

/// CuTe's `LayoutLeft` tag: the compact column-major stride of a shape (the exclusive prefix
/// product from the left), CuTe's default.
///
/// ```
/// use tessel_layout::make::{LayoutLeft, make_layout, make_shape};
/// let l = make_layout((make_shape((2, (2, 2))), LayoutLeft)).unwrap();
/// assert_eq!(l.to_string(), "(2,(2,2)):(1,(2,4))");
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct LayoutLeft;

/// CuTe's `LayoutRight` tag: the compact row-major stride of a shape (the exclusive prefix
/// product from the right).
///
/// ```
/// use tessel_layout::make::{LayoutRight, make_layout, make_shape};
/// // CuTe 01_layout.md: the strides of s2xh4 could be generated with LayoutRight.
/// let l = make_layout((make_shape((2, (2, 2))), LayoutRight)).unwrap();
/// assert_eq!(l.to_string(), "(2,(2,2)):(4,(2,1))");
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct LayoutRight;

/// What [`make_layout`] accepts, as CuTe's overloads of `make_layout` do: a shape, a
/// `(shape, stride)` pair, a `(shape, LayoutLeft | LayoutRight)` pair, or layouts (one mode
/// each). The parts are [`IntTuple`]s (from [`make_shape`] and [`make_stride`]), so a bare
/// Rust tuple of integers is never mistaken for a shape and a stride.
///
/// ```
/// use tessel_layout::make::{LayoutArgs, make_shape};
/// assert_eq!(make_shape((4, 8)).into_layout().unwrap().to_string(), "(4,8):(1,4)");
/// ```
pub trait LayoutArgs {
    /// The layout these arguments make.
    fn into_layout(self) -> Result<Layout>;
}

impl LayoutArgs for IntTuple {
    /// The compact column-major layout of the shape.
    fn into_layout(self) -> Result<Layout> {
        Layout::col_major(&self)
    }
}

impl LayoutArgs for (IntTuple, IntTuple) {
    /// `shape:stride`.
    fn into_layout(self) -> Result<Layout> {
        Layout::new(self.0, self.1)
    }
}

impl LayoutArgs for (IntTuple, LayoutLeft) {
    fn into_layout(self) -> Result<Layout> {
        Layout::col_major(&self.0)
    }
}

impl LayoutArgs for (IntTuple, LayoutRight) {
    fn into_layout(self) -> Result<Layout> {
        Layout::row_major(&self.0)
    }
}

impl LayoutArgs for Vec<Layout> {
    /// The layout whose modes are these layouts.
    fn into_layout(self) -> Result<Layout> {
        Layout::from_modes(self)
    }
}

impl<const N: usize> LayoutArgs for [Layout; N] {
    /// The layout whose modes are these layouts.
    ///
    /// ```
    /// use tessel_layout::{Layout, make::make_layout};
    /// let l = make_layout([Layout::new(8, 1).unwrap(), Layout::new(4, 8).unwrap()]).unwrap();
    /// assert_eq!(l.to_string(), "(8,4):(1,8)");
    /// ```
    fn into_layout(self) -> Result<Layout> {
        Layout::from_modes(self)
    }
}

/// CuTe's `make_layout`: see [`LayoutArgs`] for what it accepts.
///
/// ```
/// use tessel_layout::make::{make_layout, make_shape, make_stride};
/// let l = make_layout((make_shape((2, 4)), make_stride((12, 1)))).unwrap();
/// assert_eq!(l.to_string(), "(2,4):(12,1)");
/// // A zero extent is refused, as by Layout::new.
/// assert!(make_layout(make_shape((0, 4))).is_err());
/// ```
pub fn make_layout(args: impl LayoutArgs) -> Result<Layout> {
    args.into_layout()
}

/// A mode of [`make_tile`]: a tiler, a layout, or an integer `n` meaning the layout `n:1` (CuTe
/// reads an integer in a tile as a shape).
///
/// ```
/// use tessel_layout::make::TileMode;
/// assert_eq!(4.into_tiler().unwrap().to_string(), "4:1");
/// assert!(0.into_tiler().is_err());
/// ```
pub trait TileMode {
    /// The tiler of this mode.
    fn into_tiler(self) -> Result<Tiler>;
}

impl TileMode for Tiler {
    fn into_tiler(self) -> Result<Tiler> {
        Ok(self)
    }
}

impl TileMode for Layout {
    fn into_tiler(self) -> Result<Tiler> {
        Ok(Tiler::Layout(self))
    }
}

impl TileMode for i64 {
    fn into_tiler(self) -> Result<Tiler> {
        Layout::new(self, 1).map(Tiler::Layout)
    }
}

impl TileMode for i32 {
    fn into_tiler(self) -> Result<Tiler> {
        i64::from(self).into_tiler()
    }
}

/// CuTe's `make_tile`: the by-mode tiler whose modes are the given tilers, layouts or
/// integers (see [`TileMode`]).
///
/// ```
/// use tessel_layout::{Layout, make::make_tile};
/// let t = make_tile([2, 4]).unwrap();
/// assert_eq!(t.to_string(), "[2:1,4:1]");
/// let a: Layout = "(8,8):(1,8)".parse().unwrap();
/// assert_eq!(tessel_layout::zipped_divide(&a, &t).unwrap().to_string(), "((2,4),(4,2)):((1,8),(2,32))");
/// assert!(make_tile([2, 0]).is_err());
/// ```
pub fn make_tile<T: TileMode>(modes: impl IntoIterator<Item = T>) -> Result<Tiler> {
    modes
        .into_iter()
        .map(|m| m.into_tiler().map(Some))
        .collect::<Result<Vec<_>>>()
        .map(Tiler::ByMode)
}

/// CuTe's `make_layout_like(layout)`: the compact layout of `layout`'s shape whose modes are
/// ordered as `layout`'s strides order them, keeping its zero strides (CuTe keeps its static
/// zeros; the plain family's leaves are values, so every zero). A layout with distinct nonzero
/// strides becomes the compact layout that visits its modes in the same order.
///
/// ```
/// use tessel_layout::{Layout, make::make_layout_like};
/// // CuTe include/cute/layout.hpp (CUTLASS v4.2.1): make_layout_like of
/// // (_2,_2,_2,_2):(_0,_2,_4,_1) is (_2,_2,_2,_2):(_0,_2,_4,_1).
/// let l: Layout = "(2,2,2,2):(0,2,4,1)".parse().unwrap();
/// assert_eq!(make_layout_like(&l).unwrap().to_string(), "(2,2,2,2):(0,2,4,1)");
/// let row: Layout = "(4,8):(80,2)".parse().unwrap();
/// assert_eq!(make_layout_like(&row).unwrap().to_string(), "(4,8):(8,1)");
/// ```
pub fn make_layout_like(layout: &Layout) -> Result<Layout> {
    use crate::int_tuple::arith::{compact_order, filter_zeros};
    let shape = filter_zeros(layout.stride(), layout.shape())?;
    let stride = compact_order(&shape, layout.stride())?;
    Layout::new(layout.shape().clone(), stride)
}

/// CuTe's `domain_distribute(a, b)` (`include/cute/layout.hpp`): a layout of `b` elements
/// (or fewer) of the shape `a`, spread over `a`'s modes from the left, ordered and
/// surjective: each flat mode of `a` gives `gcd(a_i, rest)` elements, and the strides are `a`'s
/// compact column-major ones; the result is coalesced.
///
/// ```
/// use tessel_layout::{IntTuple, make::domain_distribute};
/// // The example in CuTe include/cute/layout.hpp: 6 elements of (15,14) are (3,2):(1,15).
/// let r = domain_distribute(&IntTuple::from((15, 14)), &IntTuple::Int(6)).unwrap();
/// assert_eq!(r.to_string(), "(3,2):(1,15)");
/// ```
pub fn domain_distribute(a: &Shape, b: &Shape) -> Result<Layout> {
    use crate::leaf::Num;
    let flat = a.flatten();
    let mut rest = b.product()?;
    let mut extents = Vec::new();
    for &s in flat.iter_leaves() {
        let g = s.gcd(rest);
        extents.push(g);
        rest = if g == 0 { rest } else { rest / g };
    }
    let stride = crate::int_tuple::arith::compact_col_major(&flat, 1i64)?;
    let shape = match flat {
        IntTuple::Int(_) => IntTuple::Int(extents[0]),
        IntTuple::Tuple(_) => IntTuple::from_ints(extents),
    };
    crate::algebra::coalesce(&Layout::new(shape, stride)?)
}
