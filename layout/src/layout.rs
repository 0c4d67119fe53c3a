//! The [`Layout`] type: a congruent pair `Shape:Stride` mapping coordinates to offsets.
//!
//! A layout maps a coordinate `c` of its shape to the offset `sum(c_i * d_i)` over the leaves.
//! Coordinates are colexicographic: a 1-D index `i` is split across the modes with the first
//! (leftmost) mode varying fastest. A layout therefore accepts a 1-D index, a flat coordinate, or
//! a hierarchical coordinate congruent (or weakly congruent) to its shape.
//!
//! ```
//! use tessel_layout::{IntTuple, Layout};
//! // Column-major by default: (4,8) is (4,8):(1,4).
//! let l = Layout::col_major(&IntTuple::from_ints([4, 8])).unwrap();
//! assert_eq!(l.to_string(), "(4,8):(1,4)");
//! // Index 5 is the coordinate (1,1): 1*1 + 1*4.
//! assert_eq!(l.offset(5).unwrap(), 5);
//! assert_eq!(l.idx2crd(5).unwrap().to_string(), "(1,1)");
//! ```

use std::fmt;

use crate::error::{Error, Result, checked_add};
use crate::int_tuple::{Coord, IntTuple, Leaves, Modes, Shape, Stride};
use crate::leaf::{Leaf, SymInt};

/// A CuTe layout `Shape:Stride`. Shape and stride are congruent; every shape leaf is positive;
/// size and the extreme offsets fit in `i64`.
///
/// ```
/// use tessel_layout::{IntTuple, Layout};
/// let l = Layout::new(IntTuple::from_ints([4, 8]), IntTuple::from_ints([8, 1])).unwrap();
/// assert_eq!(l.to_string(), "(4,8):(8,1)");
/// assert_eq!(l.size(), 32);
/// assert_eq!(l.cosize(), 32);
/// assert_eq!(l.offset(1).unwrap(), 8); // index 1 is coordinate (1,0)
/// ```
///
/// The leaf types are parameters of the one layout family (see [`leaf`](crate::leaf)): `L` for
/// the stride, `E` for the shape. `Layout` is `Layout<i64, i64>`, the algebra's fast path;
/// `Layout<SymInt>` has run-time symbols among its strides (the code emitter's input);
/// `Layout<ScaledBasis, Integer>` (held by [`TypedLayout`](crate::typed::TypedLayout)) has a static
/// or dynamic integer at every leaf, and basis elements among its strides.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Layout<L: Leaf = i64, E: Leaf = i64> {
    shape: IntTuple<E>,
    stride: IntTuple<L>,
}

/// One mode picked by a slicing coordinate: an index fixes it, `All` (`_` in CuTe) keeps it.
///
/// ```
/// use tessel_layout::{Layout, SliceCoord};
/// let l: Layout = Layout::row_major(&tessel_layout::IntTuple::from_ints([4, 8])).unwrap();
/// let (row, offset) = l.slice(&SliceCoord::Tuple(vec![SliceCoord::Index(2), SliceCoord::All])).unwrap();
/// assert_eq!(row.to_string(), "(8):(1)");
/// assert_eq!(offset, 16);
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum SliceCoord {
    /// Fix this mode at a (1-D or hierarchical) coordinate.
    Index(i64),
    /// Keep this mode (CuTe's underscore).
    All,
    /// One slicing coordinate per sub-mode.
    Tuple(Vec<SliceCoord>),
}

impl fmt::Display for SliceCoord {
    /// CuTe notation: `_` for a kept mode, `(c0,c1,...)` for a tuple.
    ///
    /// ```
    /// use tessel_layout::SliceCoord::{All, Index, Tuple};
    /// assert_eq!(Tuple(vec![All, Tuple(vec![Index(1), All])]).to_string(), "(_,(1,_))");
    /// ```
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SliceCoord::Index(i) => write!(f, "{i}"),
            SliceCoord::All => f.write_str("_"),
            SliceCoord::Tuple(parts) => {
                f.write_str("(")?;
                for (k, p) in parts.iter().enumerate() {
                    if k > 0 {
                        f.write_str(",")?;
                    }
                    write!(f, "{p}")?;
                }
                f.write_str(")")
            }
        }
    }
}

impl From<&IntTuple> for SliceCoord {
    /// A coordinate without `_`: every integer fixes its mode.
    ///
    /// ```
    /// use tessel_layout::{IntTuple, SliceCoord};
    /// let c = SliceCoord::from(&IntTuple::from_ints([1, 2]));
    /// assert_eq!(c.to_string(), "(1,2)");
    /// ```
    fn from(t: &IntTuple) -> Self {
        match t {
            IntTuple::Int(i) => SliceCoord::Index(*i),
            IntTuple::Tuple(items) => {
                SliceCoord::Tuple(items.iter().map(|t| SliceCoord::from(&t)).collect())
            }
        }
    }
}

/// Checks that every extent of `shape` is at least 1 and that its size fits in `i64`: the shape
/// conditions of [`Layout::new`] (and of the symbolic layouts of codegen).
pub(crate) fn check_extents(shape: &Shape) -> Result<()> {
    if let Some(bad) = shape.iter_leaves().find(|&&s| s < 1) {
        return Err(Error::invalid(format!(
            "shape {shape} has the extent {bad}; every extent must be at least 1"
        )));
    }
    shape.product().map(drop)
}

impl<L: Leaf> Layout<L> {
    /// Builds `shape:stride`, checking congruence, positive extents and that size and offsets fit
    /// in `i64` (the offsets once every stride leaf is known).
    ///
    /// ```
    /// use tessel_layout::{ErrorKind, IntTuple, Layout};
    /// let err = Layout::new(IntTuple::from_ints([4, 8]), IntTuple::Int(1)).unwrap_err();
    /// assert_eq!(err.kind(), ErrorKind::NotCongruent);
    /// ```
    ///
    /// Both parts convert from integers and (nested) Rust tuples of integers, so
    /// `Layout::new((4, 2), (1, 4))` is the layout `(4,2):(1,4)`:
    ///
    /// ```
    /// use tessel_layout::Layout;
    /// assert_eq!(Layout::new((4, 2), (1, 4)).unwrap().to_string(), "(4,2):(1,4)");
    /// assert_eq!(Layout::new((4, (2, 3)), (1, (8, 16))).unwrap().size(), 24);
    /// assert_eq!(Layout::new(8, 2).unwrap().to_string(), "8:2");
    /// ```
    pub fn new(shape: impl Into<Shape>, stride: impl Into<IntTuple<L>>) -> Result<Layout<L>> {
        let (shape, stride) = (shape.into(), stride.into());
        // One pass that accepts exactly what the checks below accept; they run (and name the
        // failed condition) only when it does not.
        if is_valid_layout(&shape, &stride) {
            return Ok(Layout { shape, stride });
        }
        if !shape.congruent(&stride) {
            return Err(Error::new(
                crate::ErrorKind::NotCongruent,
                format!("shape {shape} and stride {stride} are not congruent"),
            ));
        }
        check_extents(&shape)?;
        let layout = Layout { shape, stride };
        if let Some(stride) = layout.stride.known() {
            // With every stride known, the offsets must fit in i64.
            Layout {
                shape: layout.shape.clone(),
                stride,
            }
            .offset_range()?;
        }
        Ok(layout)
    }

    /// Number of coordinates in the domain (product of the shape). Validated at construction.
    ///
    /// ```
    /// let l = tessel_layout::Layout::col_major(&tessel_layout::IntTuple::from_ints([4, 8])).unwrap();
    /// assert_eq!(l.size(), 32);
    /// ```
    pub const fn size(&self) -> i64 {
        // The constructors checked that the product fits in i64.
        match self.shape.checked_product() {
            Some(size) => size,
            None => i64::MAX,
        }
    }
}

impl<L: Leaf, E: Leaf> Layout<L, E> {
    /// `shape:stride` as given, for the constructors of the other leaf families that check
    /// their own conditions (the typed layouts).
    #[inline]
    pub(crate) fn from_parts_unchecked(shape: IntTuple<E>, stride: IntTuple<L>) -> Layout<L, E> {
        Layout { shape, stride }
    }

    /// The shape.
    ///
    /// ```
    /// let l = tessel_layout::Layout::vector(8, 2).unwrap();
    /// assert_eq!(l.shape().to_string(), "8");
    /// ```
    pub fn shape(&self) -> &IntTuple<E> {
        &self.shape
    }

    /// The stride.
    ///
    /// ```
    /// let l = tessel_layout::Layout::vector(8, 2).unwrap();
    /// assert_eq!(l.stride().to_string(), "2");
    /// ```
    pub fn stride(&self) -> &IntTuple<L> {
        &self.stride
    }

    /// Splits into `(shape, stride)`.
    ///
    /// ```
    /// let (s, d) = tessel_layout::Layout::vector(8, 2).unwrap().into_parts();
    /// assert_eq!((s.as_int(), d.as_int()), (Some(8), Some(2)));
    /// ```
    pub fn into_parts(self) -> (IntTuple<E>, IntTuple<L>) {
        (self.shape, self.stride)
    }

    /// Number of top-level modes.
    ///
    /// ```
    /// let l = tessel_layout::Layout::col_major(&tessel_layout::IntTuple::from_ints([4, 8])).unwrap();
    /// assert_eq!(l.rank(), 2);
    /// ```
    pub fn rank(&self) -> usize {
        self.shape.rank()
    }

    /// Nesting depth of the shape.
    ///
    /// ```
    /// assert_eq!(tessel_layout::Layout::vector(8, 1).unwrap().depth(), 0);
    /// ```
    pub fn depth(&self) -> usize {
        self.shape.depth()
    }
}

impl Layout<SymInt> {
    /// The distinct symbols of the stride, in order of first appearance.
    ///
    /// ```
    /// let l: tessel_layout::codegen::SymLayout = "(4,8,2):(ld,1,ld)".parse().unwrap();
    /// assert_eq!(l.symbols(), vec!["ld".to_string()]);
    /// ```
    pub fn symbols(&self) -> Vec<String> {
        let mut out: Vec<String> = Vec::new();
        for leaf in self.stride.leaves() {
            if let SymInt::Sym(s) = leaf {
                if !out.contains(&s) {
                    out.push(s);
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
        let stride = self.stride.map_to(&mut |leaf| match leaf {
            SymInt::Int(v) => Ok(*v),
            SymInt::Sym(name) => {
                value(name).ok_or_else(|| Error::invalid(format!("the symbol {name} has no value")))
            }
        })?;
        Layout::new(self.shape.clone(), stride)
    }
}

impl From<&Layout> for Layout<SymInt> {
    /// The same layout with every stride a known [`SymInt`].
    ///
    /// ```
    /// use tessel_layout::{Layout, codegen::SymLayout};
    /// let l: Layout = "(4,8):(8,1)".parse().unwrap();
    /// assert_eq!(SymLayout::from(&l).to_string(), "(4,8):(8,1)");
    /// ```
    fn from(l: &Layout) -> Layout<SymInt> {
        Layout {
            shape: l.shape.clone(),
            stride: l.stride.map(&mut |v| SymInt::Int(*v)),
        }
    }
}

/// Layouts built and evaluated in constant expressions.
impl Layout {
    /// A layout built in a constant expression, e.g. from tuples in static storage (what the
    /// `layout!` macro of the `tessel-kit` crate expands to). Checks what [`Layout::new`] checks and
    /// panics when a check fails, which in a `const` or `static` item is a compile error.
    ///
    /// A layout's tuples may own heap memory, so a `const fn` can evaluate a layout only in
    /// place: keep a compile-time layout in a `static` item to call the `const fn`s on it in
    /// other constants.
    ///
    /// ```
    /// use tessel_layout::{IntTuple, Layout, int_tuple::Modes};
    /// static L: Layout = Layout::from_const(
    ///     IntTuple::Tuple(Modes::from_static(&[0, 0], &[4, 8])),
    ///     IntTuple::Tuple(Modes::from_static(&[0, 0], &[8, 1])),
    /// );
    /// const SIZE: i64 = L.size();
    /// const AT5: i64 = L.const_offset(5);
    /// assert_eq!((SIZE, AT5), (32, 9));
    /// assert_eq!(L.checked_offset(32), None);
    /// assert_eq!(L, "(4,8):(8,1)".parse().unwrap());
    /// ```
    pub const fn from_const(shape: Shape, stride: Stride) -> Layout {
        let layout = Layout { shape, stride };
        if !layout.is_valid_const() {
            panic!(
                "Layout::from_const: shape and stride not congruent, an extent below 1, or a size or offset beyond i64"
            );
        }
        layout
    }

    /// The smallest and largest offset, `None` when they overflow `i64` (a `const fn`).
    pub(crate) const fn const_offset_range(&self) -> Option<(i64, i64)> {
        match bounds_const(&self.shape, &self.stride, Bounds::EMPTY) {
            Some(b) if b.fits() => Some((b.lo, b.hi)),
            _ => None,
        }
    }

    /// The checks of [`Layout::new`] as a `const fn`: [`Bounds`] over the leaves.
    const fn is_valid_const(&self) -> bool {
        matches!(bounds_const(&self.shape, &self.stride, Bounds::EMPTY), Some(b) if b.fits())
    }

    /// The offset of the 1-D `index`, `None` when the index is outside `0..size`; a `const fn`,
    /// so a layout in static storage is evaluated at compile time (see [`Layout::from_const`]).
    ///
    /// ```
    /// let l: tessel_layout::Layout = "(4,8):(8,1)".parse().unwrap();
    /// assert_eq!(l.checked_offset(5), Some(9));
    /// assert_eq!(l.checked_offset(-1), None);
    /// ```
    pub const fn checked_offset(&self, index: i64) -> Option<i64> {
        if index < 0 || index >= self.size() {
            return None;
        }
        Some(offset_and_rest(&self.shape, &self.stride, index).0)
    }

    /// [`Layout::checked_offset`] for constant expressions: panics outside `0..size`, which in
    /// a `const` item is a compile error.
    ///
    /// ```
    /// let l: tessel_layout::Layout = "(4,8):(8,1)".parse().unwrap();
    /// assert_eq!(l.const_offset(5), 9);
    /// ```
    pub const fn const_offset(&self, index: i64) -> i64 {
        match self.checked_offset(index) {
            Some(v) => v,
            None => panic!("layout offset: index outside 0..size"),
        }
    }
}

/// What the checks of [`Layout::new`] accumulate over the leaves of a layout, left to right:
/// the size and the lowest and highest offset. [`Bounds::add`] is the one definition of those
/// checks; the run-time constructor ([`is_valid_layout`]), the `const` one
/// ([`Layout::from_const`]) and the algebra's flat mode lists all fold it over their leaves.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Bounds {
    /// The product of the extents so far.
    pub(crate) size: i64,
    /// The lowest offset so far (the sum of the negative reaches).
    pub(crate) lo: i64,
    /// The highest offset so far (the sum of the positive reaches).
    pub(crate) hi: i64,
}

impl Bounds {
    /// No leaf yet: size 1, offsets `0..=0`.
    pub(crate) const EMPTY: Bounds = Bounds {
        size: 1,
        lo: 0,
        hi: 0,
    };

    /// Adds the leaf `extent:stride` (`stride` `None` for a symbol, whose reach is unknown until
    /// it is bound); `None` when the extent is below 1 or the size or an offset overflows `i64`.
    #[inline]
    pub(crate) const fn add(self, extent: i64, stride: Option<i64>) -> Option<Bounds> {
        if extent < 1 {
            return None;
        }
        let Some(size) = self.size.checked_mul(extent) else {
            return None;
        };
        let Some(d) = stride else {
            return Some(Bounds { size, ..self });
        };
        let Some(reach) = (extent - 1).checked_mul(d) else {
            return None;
        };
        let (lo, hi) = if reach < 0 {
            (self.lo.checked_add(reach), Some(self.hi))
        } else {
            (Some(self.lo), self.hi.checked_add(reach))
        };
        match (lo, hi) {
            (Some(lo), Some(hi)) => Some(Bounds { size, lo, hi }),
            _ => None,
        }
    }

    /// Whether one past the highest offset fits in `i64` (the last check, after every leaf).
    #[inline]
    pub(crate) const fn fits(&self) -> bool {
        self.hi < i64::MAX
    }

    /// [`Bounds::add`] folded over the leaf modes `(extent, stride)` from [`Bounds::EMPTY`]:
    /// `None` once one fails.
    #[inline]
    pub(crate) fn of_modes(modes: impl IntoIterator<Item = (i64, i64)>) -> Option<Bounds> {
        modes
            .into_iter()
            .try_fold(Bounds::EMPTY, |acc, (s, d)| acc.add(s, Some(d)))
    }
}

/// [`Bounds`] of `shape:stride` added to `acc`, `None` when they are not congruent or a check
/// fails (a `const fn`).
const fn bounds_const(shape: &IntTuple, stride: &IntTuple, acc: Bounds) -> Option<Bounds> {
    match (shape, stride) {
        (IntTuple::Int(s), IntTuple::Int(d)) => acc.add(*s, Some(*d)),
        (IntTuple::Tuple(a), IntTuple::Tuple(b)) => {
            if a.len() != b.len() || !same_codes(a.codes(), b.codes()) {
                return None;
            }
            let (a, b) = (a.leaf_slice(), b.leaf_slice());
            let mut acc = acc;
            let mut k = 0;
            while k < a.len() && k < b.len() {
                acc = match acc.add(a[k], Some(b[k])) {
                    Some(v) => v,
                    None => return None,
                };
                k += 1;
            }
            Some(acc)
        }
        _ => None,
    }
}

/// Whether two structure codes are equal (a `const fn`): the elements are congruent.
const fn same_codes(a: &[u8], b: &[u8]) -> bool {
    if a.len() != b.len() {
        return false;
    }
    let mut k = 0;
    while k < a.len() {
        if a[k] != b[k] {
            return false;
        }
        k += 1;
    }
    true
}

impl Layout {
    /// `shape:stride` without the checks of [`Layout::new`], for the algebra's results whose
    /// checks it has made on their flat modes ([`Bounds`]); debug builds check them again.
    #[inline]
    pub(crate) fn from_checked_parts(shape: Shape, stride: Stride) -> Layout {
        debug_assert!(is_valid_layout(&shape, &stride), "{shape}:{stride}");
        Layout { shape, stride }
    }

    /// The compact column-major layout of `shape` (stride = exclusive prefix product).
    ///
    /// ```
    /// use tessel_layout::{IntTuple, Layout};
    /// let l = Layout::col_major(&IntTuple::from_ints([4, 8])).unwrap();
    /// assert_eq!(l.to_string(), "(4,8):(1,4)");
    /// ```
    pub fn col_major(shape: &Shape) -> Result<Layout> {
        Layout::new(shape.clone(), shape.prefix_product()?)
    }

    /// The compact row-major layout of `shape` (the last leaf has stride 1).
    ///
    /// ```
    /// use tessel_layout::{IntTuple, Layout};
    /// let l = Layout::row_major(&IntTuple::from_ints([4, 8])).unwrap();
    /// assert_eq!(l.to_string(), "(4,8):(8,1)");
    /// ```
    pub fn row_major(shape: &Shape) -> Result<Layout> {
        let leaves = shape.leaves();
        let mut strides: Leaves = leaves.iter().map(|_| 0).collect();
        let mut running = 1i64;
        for (i, &s) in leaves.iter().enumerate().rev() {
            strides[i] = running;
            running = running.checked_mul(s).ok_or_else(|| {
                Error::overflow(format!(
                    "the row-major stride of {shape}: {running} * {s} overflows i64"
                ))
            })?;
        }
        let stride = shape
            .with_leaves(&strides)
            .ok_or_else(|| Error::invalid("internal: leaf count mismatch"))?;
        Layout::new(shape.clone(), stride)
    }

    /// The rank-1 layout `size:stride`.
    ///
    /// ```
    /// use tessel_layout::Layout;
    /// assert_eq!(Layout::vector(8, 2).unwrap().to_string(), "8:2");
    /// ```
    pub fn vector(size: i64, stride: i64) -> Result<Layout> {
        Layout::new(IntTuple::Int(size), IntTuple::Int(stride))
    }

    /// Builds a layout whose modes are the given layouts: `(s0,s1,...):(d0,d1,...)`.
    ///
    /// ```
    /// use tessel_layout::Layout;
    /// let l = Layout::from_modes([Layout::vector(4, 1).unwrap(), Layout::vector(8, 4).unwrap()]).unwrap();
    /// assert_eq!(l.to_string(), "(4,8):(1,4)");
    /// ```
    pub fn from_modes(modes: impl IntoIterator<Item = Layout>) -> Result<Layout> {
        let (mut shapes, mut strides) = (Modes::new(), Modes::new());
        for m in modes {
            shapes.push_copy(&m.shape);
            strides.push_copy(&m.stride);
        }
        Layout::new(IntTuple::Tuple(shapes), IntTuple::Tuple(strides))
    }

    /// One past the largest offset: `max_c L(c) + 1` (equal to CuTe's `L(size-1) + 1` when no
    /// stride is negative).
    ///
    /// ```
    /// use tessel_layout::{IntTuple, Layout};
    /// let l = Layout::new(IntTuple::from_ints([2, 3]), IntTuple::from_ints([1, 8])).unwrap();
    /// assert_eq!(l.cosize(), 18);
    /// ```
    pub fn cosize(&self) -> i64 {
        self.offset_range()
            .map(|(_, max)| max + 1)
            .unwrap_or(i64::MAX)
    }

    /// The smallest and largest offsets in the image, checked for overflow.
    ///
    /// ```
    /// use tessel_layout::{IntTuple, Layout};
    /// let l = Layout::new(IntTuple::from_ints([2, 3]), IntTuple::from_ints([-1, 8])).unwrap();
    /// assert_eq!(l.offset_range().unwrap(), (-1, 16));
    /// ```
    pub fn offset_range(&self) -> Result<(i64, i64)> {
        match Bounds::of_modes(self.leaf_modes()) {
            Some(b) if b.fits() => Ok((b.lo, b.hi)),
            _ => Err(Error::overflow(format!(
                "the offsets of {self} overflow i64"
            ))),
        }
    }

    /// The `i`-th top-level mode as a layout.
    ///
    /// ```
    /// let l = tessel_layout::Layout::col_major(&tessel_layout::IntTuple::from_ints([4, 8])).unwrap();
    /// assert_eq!(l.mode(1).unwrap().to_string(), "8:4");
    /// assert!(l.mode(2).is_err());
    /// ```
    pub fn mode(&self, i: usize) -> Result<Layout> {
        match (self.shape.views().nth(i), self.stride.views().nth(i)) {
            (Some(s), Some(d)) => Ok(Layout {
                shape: s.to_int_tuple(),
                stride: d.to_int_tuple(),
            }),
            _ => Err(Error::invalid(format!(
                "mode {i} does not exist in {self} of rank {}",
                self.rank()
            ))),
        }
    }

    /// All top-level modes as layouts.
    ///
    /// ```
    /// let l = tessel_layout::Layout::col_major(&tessel_layout::IntTuple::from_ints([4, 8])).unwrap();
    /// assert_eq!(l.modes().len(), 2);
    /// ```
    pub fn modes(&self) -> Vec<Layout> {
        self.iter_modes().collect()
    }

    /// The top-level modes as layouts, one at a time (allocates nothing for small modes).
    ///
    /// ```
    /// let l: tessel_layout::Layout = "(4,(2,3)):(1,(8,16))".parse().unwrap();
    /// let sizes: Vec<i64> = l.iter_modes().map(|m| m.size()).collect();
    /// assert_eq!(sizes, vec![4, 6]);
    /// ```
    pub fn iter_modes(&self) -> impl ExactSizeIterator<Item = Layout> + '_ {
        self.shape
            .views()
            .zip(self.stride.views())
            .map(|(s, d)| Layout {
                shape: s.to_int_tuple(),
                stride: d.to_int_tuple(),
            })
    }

    /// `(extent, stride)` of every leaf mode, left to right.
    ///
    /// ```
    /// use tessel_layout::{IntTuple, Layout};
    /// let l = Layout::new(IntTuple::from_ints([2, 3]), IntTuple::from_ints([1, 8])).unwrap();
    /// assert_eq!(l.flat_modes(), vec![(2, 1), (3, 8)]);
    /// ```
    pub fn flat_modes(&self) -> Vec<(i64, i64)> {
        self.leaf_modes().collect()
    }

    /// Calls `f(extent, stride)` for every leaf mode, left to right (the algebra's working
    /// form). Allocates nothing.
    #[inline]
    pub(crate) fn for_each_mode(&self, mut f: impl FnMut(i64, i64)) {
        for_each_leaf(&self.shape, &self.stride, &mut f);
    }

    /// `(extent, stride)` of every leaf mode, without allocating.
    pub(crate) fn leaf_modes(&self) -> impl Iterator<Item = (i64, i64)> {
        self.shape
            .iter_leaves()
            .copied()
            .zip(self.stride.iter_leaves().copied())
    }

    /// The layout with every mode flattened to a leaf; a rank-1 integer layout stays as it is.
    ///
    /// ```
    /// let l: tessel_layout::Layout = "((2,2),3):((24,2),8)".parse().unwrap();
    /// assert_eq!(l.flatten().to_string(), "(2,2,3):(24,2,8)");
    /// ```
    pub fn flatten(&self) -> Layout {
        Layout {
            shape: self.shape.flatten(),
            stride: self.stride.flatten(),
        }
    }

    /// Groups the top-level modes `begin..end` into one mode (CuTe's `group<B,E>`). An empty
    /// range (`begin == end`) groups nothing and returns the layout unchanged, as CuTe's
    /// `group<B,E>` inserts the grouped tuple only when `B < E`
    /// (`include/cute/algorithm/tuple_algorithms.hpp`).
    ///
    /// ```
    /// let l: tessel_layout::Layout = "(2,3,4):(1,2,6)".parse().unwrap();
    /// assert_eq!(l.group(1, 3).unwrap().to_string(), "(2,(3,4)):(1,(2,6))");
    /// assert_eq!(l.group(1, 1).unwrap(), l);
    /// ```
    pub fn group(&self, begin: usize, end: usize) -> Result<Layout> {
        if begin > end || end > self.rank() {
            return Err(Error::invalid(format!(
                "group({begin},{end}) is outside the {} modes of {self}",
                self.rank()
            )));
        }
        if begin == end {
            return Ok(self.clone());
        }
        let mut modes = self.modes();
        let tail = modes.split_off(end);
        let grouped = modes.split_off(begin);
        modes.push(Layout::from_modes(grouped)?);
        modes.extend(tail);
        Layout::from_modes(modes)
    }

    /// Appends `mode` as a new last top-level mode.
    ///
    /// ```
    /// let l = tessel_layout::Layout::vector(4, 1).unwrap();
    /// let m = tessel_layout::Layout::vector(8, 4).unwrap();
    /// assert_eq!(l.append(&m).unwrap().to_string(), "(4,8):(1,4)");
    /// ```
    pub fn append(&self, mode: &Layout) -> Result<Layout> {
        let mut modes = self.modes();
        modes.push(mode.clone());
        Layout::from_modes(modes)
    }

    /// Prepends `mode` as a new first top-level mode.
    ///
    /// ```
    /// let l = tessel_layout::Layout::vector(4, 1).unwrap();
    /// let m = tessel_layout::Layout::vector(8, 4).unwrap();
    /// assert_eq!(l.prepend(&m).unwrap().to_string(), "(8,4):(4,1)");
    /// ```
    pub fn prepend(&self, mode: &Layout) -> Result<Layout> {
        let mut modes = vec![mode.clone()];
        modes.extend(self.modes());
        Layout::from_modes(modes)
    }

    /// Replaces top-level mode `i` by `mode` (CuTe's `replace<I>`).
    ///
    /// ```
    /// // CuTe media/docs/cpp/cute/01_layout.md (CUTLASS v4.2.1): replace<2>((3,4,(3,4)):(1,3,(1,3)), 4:3).
    /// let c: tessel_layout::Layout = "(3,4,(3,4)):(1,3,(1,3))".parse().unwrap();
    /// let b: tessel_layout::Layout = "4:3".parse().unwrap();
    /// assert_eq!(c.replace(2, &b).unwrap().to_string(), "(3,4,4):(1,3,3)");
    /// ```
    pub fn replace(&self, i: usize, mode: &Layout) -> Result<Layout> {
        let mut modes = self.modes();
        let slot = modes.get_mut(i).ok_or_else(|| {
            Error::invalid(format!(
                "replace: mode {i} does not exist in {self} of rank {}",
                self.rank()
            ))
        })?;
        *slot = mode.clone();
        Layout::from_modes(modes)
    }

    /// The layout of the top-level modes `indices`, in that order (CuTe's `select<I...>`).
    ///
    /// ```
    /// // CuTe media/docs/cpp/cute/01_layout.md (CUTLASS v4.2.1): select<1,3> and select<2> of (2,3,5,7).
    /// let a: tessel_layout::Layout = "(2,3,5,7):(1,2,6,30)".parse().unwrap();
    /// assert_eq!(a.select(&[1, 3]).unwrap().to_string(), "(3,7):(2,30)");
    /// assert_eq!(a.select(&[2]).unwrap().to_string(), "(5):(6)");
    /// ```
    pub fn select(&self, indices: &[usize]) -> Result<Layout> {
        let modes = indices
            .iter()
            .map(|&i| self.mode(i))
            .collect::<Result<Vec<_>>>()
            .map_err(|e| e.context("select"))?;
        Layout::from_modes(modes)
    }

    /// The layout of the top-level modes `begin..end`, `begin < end` (CuTe's `take<B,E>`).
    ///
    /// ```
    /// // CuTe media/docs/cpp/cute/01_layout.md (CUTLASS v4.2.1): take<1,3>((2,3,5,7)).
    /// let a: tessel_layout::Layout = "(2,3,5,7):(1,2,6,30)".parse().unwrap();
    /// assert_eq!(a.take(1, 3).unwrap().to_string(), "(3,5):(2,6)");
    /// assert!(a.take(1, 1).is_err());
    /// ```
    pub fn take(&self, begin: usize, end: usize) -> Result<Layout> {
        if begin >= end || end > self.rank() {
            return Err(Error::invalid(format!(
                "take({begin},{end}) of {self}: needs begin < end <= rank {} (an empty layout \
                 is not allowed)",
                self.rank()
            )));
        }
        Layout::from_modes(self.modes().drain(begin..end))
    }

    /// The sub-layout at the mode path `path` (CuTe's `get<I0,I1,...>` / `layout<I...>`): mode
    /// `path[0]`, then its mode `path[1]`, ... An empty path is the layout itself.
    ///
    /// ```
    /// // CuTe media/docs/cpp/cute/01_layout.md (CUTLASS v4.2.1): layout<1,0> of (4,(3,6)):(1,(4,12)) is 3:4.
    /// let a: tessel_layout::Layout = "(4,(3,6)):(1,(4,12))".parse().unwrap();
    /// assert_eq!(a.get(&[1, 0]).unwrap().to_string(), "3:4");
    /// assert_eq!(a.get(&[1]).unwrap().to_string(), "(3,6):(4,12)");
    /// ```
    pub fn get(&self, path: &[usize]) -> Result<Layout> {
        path.iter().try_fold(self.clone(), |l, &i| l.mode(i))
    }

    /// The offset of the 1-D domain index `index` (`0 <= index < size`).
    ///
    /// ```
    /// let l: tessel_layout::Layout = "(4,(2,3)):(1,(8,16))".parse().unwrap();
    /// assert_eq!(l.offset(5).unwrap(), 1 + 8);
    /// assert!(l.offset(24).is_err());
    /// ```
    pub fn offset(&self, index: i64) -> Result<i64> {
        if index >= 0 {
            let (off, rest) = offset_and_rest(&self.shape, &self.stride, index);
            // The index is in the domain iff it is left with nothing past the last mode.
            if rest == 0 {
                return Ok(off);
            }
        }
        let size = self.size();
        Err(Error::invalid(format!(
            "index {index} is outside the domain 0..{size} of {self}"
        )))
    }

    /// The offset of `index` without the range check; the caller guarantees `0 <= index < size`
    /// (an out-of-range index gives a meaningless but finite value, never UB).
    ///
    /// ```
    /// let l: tessel_layout::Layout = "(4,8):(8,1)".parse().unwrap();
    /// assert_eq!(l.offset_unchecked(5), 8 + 1); // index 5 is coordinate (1,1)
    /// ```
    pub fn offset_unchecked(&self, index: i64) -> i64 {
        offset_and_rest(&self.shape, &self.stride, index).0
    }

    /// Every offset, in domain order (`offsets()[i] == offset(i)`).
    ///
    /// ```
    /// let l: tessel_layout::Layout = "(2,2):(2,1)".parse().unwrap();
    /// assert_eq!(l.offsets(), vec![0, 2, 1, 3]);
    /// ```
    pub fn offsets(&self) -> Vec<i64> {
        let modes = self.flat_modes();
        let mut out = vec![0i64];
        for (s, d) in modes {
            let prev = std::mem::take(&mut out);
            out.reserve(prev.len() * s as usize);
            for k in 0..s {
                out.extend(prev.iter().map(|&o| o + k * d));
            }
        }
        out
    }

    /// The offset of a coordinate: an integer (1-D index), or a tuple that is (weakly) congruent
    /// to the shape, each component in range. CuTe's `crd2idx`.
    ///
    /// ```
    /// use tessel_layout::IntTuple;
    /// let l: tessel_layout::Layout = "(4,(2,3)):(1,(8,16))".parse().unwrap();
    /// let flat = IntTuple::from_ints([1, 3]); // (1, 3) with 3 split over (2,3) as (1,1)
    /// let deep = IntTuple::tuple([IntTuple::Int(1), IntTuple::from_ints([1, 1])]);
    /// assert_eq!(l.crd2idx(&flat).unwrap(), 1 + 8 + 16);
    /// assert_eq!(l.crd2idx(&deep).unwrap(), 1 + 8 + 16);
    /// ```
    pub fn crd2idx(&self, coord: &Coord) -> Result<i64> {
        crd2idx(coord, &self.shape, &self.stride).map_err(|e| e.context(format!("at {self}")))
    }

    /// The hierarchical coordinate (congruent to the shape) of the 1-D index. CuTe's `idx2crd`.
    ///
    /// ```
    /// let l: tessel_layout::Layout = "(4,(2,3)):(1,(8,16))".parse().unwrap();
    /// assert_eq!(l.idx2crd(13).unwrap().to_string(), "(1,(1,1))");
    /// ```
    pub fn idx2crd(&self, index: i64) -> Result<Coord> {
        let size = self.size();
        if !(0..size).contains(&index) {
            return Err(Error::invalid(format!(
                "index {index} is outside the domain 0..{size} of {self}"
            )));
        }
        let mut rest = index;
        self.shape.map_leaves(&mut |s| {
            let c = rest % s;
            rest /= s;
            Ok(c)
        })
    }

    /// Fixes the modes given by an index and keeps those given by [`SliceCoord::All`]. Returns
    /// the layout of the kept modes and the offset contributed by the fixed ones (CuTe's
    /// `slice_and_offset`). As in CuTe, the result has one top-level mode per `_`: a `_` keeps
    /// its whole mode as one mode, and the modes kept inside a sub-tuple of the coordinate join
    /// the enclosing level (`A((_,1),(0,_,1))` has rank 2).
    ///
    /// ```
    /// use tessel_layout::{Layout, SliceCoord::{All, Index, Tuple}};
    /// // CuTe media/docs/cpp/cute/03_tensor.md (CUTLASS v4.2.1), "Slicing a Tensor".
    /// let a: Layout = "((3,2),(2,5,2)):((4,1),(2,13,100))".parse().unwrap();
    /// let e = Tuple(vec![Tuple(vec![All, Index(1)]), Tuple(vec![Index(0), All, Index(1)])]);
    /// assert_eq!(a.slice(&e).unwrap().0.to_string(), "(3,5):(4,13)");
    /// let c = Tuple(vec![All, Index(5)]);
    /// assert_eq!(a.slice(&c).unwrap().0.to_string(), "((3,2)):((4,1))");
    /// ```
    ///
    /// ```
    /// use tessel_layout::SliceCoord;
    /// let l: tessel_layout::Layout = "(4,8):(1,4)".parse().unwrap();
    /// let (col, off) = l.slice(&SliceCoord::Tuple(vec![SliceCoord::All, SliceCoord::Index(3)])).unwrap();
    /// assert_eq!((col.to_string(), off), ("(4):(1)".to_string(), 12));
    /// ```
    pub fn slice(&self, coord: &SliceCoord) -> Result<(Layout, i64)> {
        let kept = match coord {
            SliceCoord::All => return Ok((self.clone(), 0)),
            SliceCoord::Index(i) => {
                let off = self.crd2idx(&IntTuple::Int(*i))?;
                return Ok((Layout::from_modes([])?, off));
            }
            SliceCoord::Tuple(_) => slice_modes(coord, &self.shape, &self.stride)
                .map_err(|e| e.context(format!("slicing {self}")))?,
        };
        let offset = kept.offset;
        let (shapes, strides): (Vec<_>, Vec<_>) = kept.kept.into_iter().unzip();
        Ok((
            Layout::new(
                IntTuple::Tuple(shapes.into()),
                IntTuple::Tuple(strides.into()),
            )?,
            offset,
        ))
    }

    /// Whether the layout is compact column-major (strides equal the prefix product).
    ///
    /// ```
    /// let l: tessel_layout::Layout = "(4,8):(1,4)".parse().unwrap();
    /// assert!(l.is_compact_col_major());
    /// ```
    pub fn is_compact_col_major(&self) -> bool {
        self.shape.prefix_product().is_ok_and(|p| p == self.stride)
    }
}

/// What slicing a (sub)tuple keeps: `(shape, stride)` pairs of the kept modes and the offset.
struct Kept {
    kept: Vec<(IntTuple, IntTuple)>,
    offset: i64,
}

fn slice_modes(coord: &SliceCoord, shape: &IntTuple, stride: &IntTuple) -> Result<Kept> {
    let SliceCoord::Tuple(parts) = coord else {
        return Err(Error::invalid("internal: slice_modes needs a tuple"));
    };
    let IntTuple::Tuple(shapes) = shape else {
        return Err(Error::new(
            crate::ErrorKind::NotCongruent,
            format!(
                "a slicing tuple of rank {} meets the integer mode {shape}",
                parts.len()
            ),
        ));
    };
    let IntTuple::Tuple(strides) = stride else {
        return Err(Error::invalid("internal: stride not congruent"));
    };
    if parts.len() != shapes.len() {
        return Err(Error::new(
            crate::ErrorKind::NotCongruent,
            format!(
                "a slicing coordinate of rank {} does not match the shape {shape} of rank {}",
                parts.len(),
                shapes.len()
            ),
        ));
    }
    let mut out = Kept {
        kept: Vec::new(),
        offset: 0,
    };
    for ((c, s), d) in parts.iter().zip(shapes).zip(strides) {
        match c {
            SliceCoord::All => out.kept.push((s.clone(), d.clone())),
            SliceCoord::Index(i) => {
                let off = crd2idx(&IntTuple::Int(*i), &s, &d)?;
                out.offset = checked_add(out.offset, off, "slice offset")?;
            }
            SliceCoord::Tuple(_) => {
                // CuTe's lift_slice: the modes kept inside a sub-tuple join this level.
                let inner = slice_modes(c, &s, &d)?;
                out.offset = checked_add(out.offset, inner.offset, "slice offset")?;
                out.kept.extend(inner.kept);
            }
        }
    }
    Ok(out)
}

/// CuTe's `crd2idx(coord, shape, stride)` with range checks on every component.
///
/// ```
/// use tessel_layout::{IntTuple, crd2idx};
/// let shape = IntTuple::from_ints([4, 8]);
/// let stride = IntTuple::from_ints([8, 1]);
/// assert_eq!(crd2idx(&IntTuple::from_ints([1, 2]), &shape, &stride).unwrap(), 10);
/// assert_eq!(crd2idx(&IntTuple::Int(5), &shape, &stride).unwrap(), 8 + 1);
/// ```
pub fn crd2idx(coord: &Coord, shape: &Shape, stride: &Stride) -> Result<i64> {
    crate::coord::crd2idx_view(coord.view(), shape.view(), stride.view())
}

impl<L: Leaf, E: Leaf> fmt::Display for Layout<L, E> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}", self.shape, self.stride)
    }
}

/// Calls `f(extent, stride)` for every leaf of the congruent `shape` and `stride`, left to right.
/// Allocates nothing.
#[inline]
fn for_each_leaf(shape: &IntTuple, stride: &IntTuple, f: &mut impl FnMut(i64, i64)) {
    for (&s, &d) in shape.iter_leaves().zip(stride.iter_leaves()) {
        f(s, d);
    }
}

/// The offset of `index` in `shape:stride` (colexicographic) and the index left past the last
/// mode: 0 exactly when `index` is in the domain. One `const fn` serves run-time offsets and
/// layouts evaluated in constant expressions ([`Layout::checked_offset`]). Arithmetic wraps: the
/// constructors proved that every in-domain offset fits in `i64`, and an out-of-domain index
/// (reported through the rest) gives a meaningless but finite offset, never a panic.
#[inline(always)]
const fn offset_and_rest(shape: &IntTuple, stride: &IntTuple, index: i64) -> (i64, i64) {
    match (shape, stride) {
        (IntTuple::Int(s), IntTuple::Int(d)) => leaf_offset(*s, *d, index, true),
        (IntTuple::Tuple(ss), IntTuple::Tuple(ds)) => {
            let (ss, ds) = (ss.leaf_slice(), ds.leaf_slice());
            let n = if ss.len() < ds.len() {
                ss.len()
            } else {
                ds.len()
            };
            let mut off = 0i64;
            let mut rest = index;
            let mut k = 0;
            while k < n {
                let (o, r) = leaf_offset(ss[k], ds[k], rest, k + 1 == n);
                off = off.wrapping_add(o);
                rest = r;
                k += 1;
            }
            (off, rest)
        }
        // Shape and stride are congruent in every constructed layout.
        _ => (0, index),
    }
}

/// The offset and the rest of `index` at the leaf `s:d`; `last` marks the leaf that ends the
/// layout, whose coordinate is the whole rest (no division) when the rest is below its extent.
#[inline]
const fn leaf_offset(s: i64, d: i64, index: i64, last: bool) -> (i64, i64) {
    if last && 0 <= index && index < s {
        (index.wrapping_mul(d), 0)
    } else {
        ((index % s).wrapping_mul(d), index / s)
    }
}

/// Whether `shape:stride` passes every check of [`Layout::new`] (congruent, extents at least 1,
/// size and offsets within `i64`), in one pass that allocates nothing: [`Bounds`] folded over the
/// leaves, as [`Layout::from_const`] does in a `const fn`. (That one reads `i64` strides; this
/// one reads any [`Leaf`] through [`Leaf::known`], which a `const fn` cannot call.)
#[inline]
fn is_valid_layout<L: Leaf>(shape: &IntTuple, stride: &IntTuple<L>) -> bool {
    let acc = match (shape, stride) {
        (IntTuple::Int(s), IntTuple::Int(d)) => Bounds::EMPTY.add(*s, d.known()),
        (IntTuple::Tuple(ss), IntTuple::Tuple(ds))
            if ss.len() == ds.len() && ss.codes() == ds.codes() =>
        {
            let mut acc = Bounds::EMPTY;
            for (s, d) in ss.leaf_slice().iter().zip(ds.leaf_slice()) {
                match acc.add(*s, d.known()) {
                    Some(b) => acc = b,
                    None => return false,
                }
            }
            Some(acc)
        }
        _ => None,
    };
    acc.is_some_and(|b| b.fits())
}
