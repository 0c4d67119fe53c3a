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
