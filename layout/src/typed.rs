//! Typed layouts: layouts whose every leaf is a static or dynamic integer
//! ([`Integer`]), and whose strides may be basis elements ([`ScaledBasis`]), so that a layout
//! says which of its parts are compile-time constants and can map coordinates to coordinates.
//!
//! [`TypedLayout`] holds a `Layout<ScaledBasis, Integer>`, the same layout family as the plain
//! [`Layout`] (one parser, one printer). It prints as CuTe prints: `(_4,8):(_1,_4)` has a
//! static extent 4 and a dynamic 8, and the identity layout of `(4,8)` is `(4,8):(_1@0,_1@1)`.
//!
//! - Construction follows CuTe's `make_layout`: [`TypedLayout::compact`] gives a shape its
//!   column-major stride with CuTe's kinds (`(_2,4)` gets `(_1,_2)`), [`TypedLayout::identity`]
//!   is `make_identity_layout`.
//! - Evaluation ([`TypedLayout::at`]) and slicing ([`TypedLayout::slice`]) give integers, or
//!   coordinates for basis strides, with CuTe's kinds.
//! - The algebra ([`crate::typed::algebra`]) computes values with the plain algebra and kinds
//!   by CuTe's rule: a result leaf is static when everything it is computed from is static.
//!
//! The design is in `docs/semantics.md`, "Static and dynamic integers".
//!
//! ```
//! use tessel_layout::typed::TypedLayout;
//! // CuTe media/docs/cpp/cute/01_layout.md, "Constructing a Layout" (CUTLASS v4.2.1).
//! let s2xd4: TypedLayout = "(_2,4)".parse().unwrap();
//! assert_eq!(s2xd4.to_string(), "(_2,4):(_1,_2)");
//! let d8: TypedLayout = "8".parse().unwrap();
//! assert_eq!(d8.to_string(), "8:_1");
//! let id = TypedLayout::identity(&"(4,8)".parse().unwrap()).unwrap();
//! assert_eq!(id.to_string(), "(4,8):(_1@0,_1@1)");
//! assert_eq!(id.at(&"(3,5)".parse().unwrap()).unwrap().to_string(), "(3,5)");
//! ```

pub mod algebra;

use std::fmt;

use crate::basis::{ScaledBasis, basis_like};
use crate::coord::idx2crd;
use crate::error::{Error, ErrorKind, Result};
use crate::int_tuple::IntTuple;
use crate::int_tuple::arith::{add, compact_col_major, compact_row_major, product};
use crate::layout::{Layout, SliceCoord};
use crate::leaf::{Leaf, Num};
use crate::static_int::Integer;

/// A shape whose extents are static or dynamic integers.
pub type TypedShape = IntTuple<Integer>;
/// A stride whose leaves are static or dynamic integers or basis elements.
pub type TypedStride = IntTuple<ScaledBasis>;
/// A layout whose leaves carry their kinds (static `_4` or dynamic `4`) and whose strides may
/// be basis elements (`_1@0`): a `Layout<ScaledBasis, Integer>` of the one layout family (its
/// parser and printer), with the operations of typed layouts.
///
/// ```
/// use tessel_layout::typed::TypedLayout;
/// let l: TypedLayout = "(_4,8):(_1,_4)".parse().unwrap();
/// assert_eq!((l.shape().to_string(), l.stride().to_string()), ("(_4,8)".into(), "(_1,_4)".into()));
/// assert_eq!(l.layout().rank(), 2);
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct TypedLayout(Layout<ScaledBasis, Integer>);

impl fmt::Display for TypedLayout {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fmt(f)
    }
}

fn invalid(message: String) -> Error {
    Error::invalid(message)
}

impl TypedLayout {
    /// `shape:stride` as given (the caller has checked it).
    pub(crate) fn from_parts(shape: TypedShape, stride: TypedStride) -> TypedLayout {
        TypedLayout(Layout::from_parts_unchecked(shape, stride))
    }

    /// The layout of the family: `Layout<ScaledBasis, Integer>`.
    pub fn layout(&self) -> &Layout<ScaledBasis, Integer> {
        &self.0
    }

    /// The shape.
    pub fn shape(&self) -> &TypedShape {
        self.0.shape()
    }

    /// The stride.
    pub fn stride(&self) -> &TypedStride {
        self.0.stride()
    }

    /// Splits into `(shape, stride)`.
    pub fn into_parts(self) -> (TypedShape, TypedStride) {
        self.0.into_parts()
    }

    /// Number of top-level modes.
    pub fn rank(&self) -> usize {
        self.0.rank()
    }

    /// Nesting depth of the shape.
    pub fn depth(&self) -> usize {
        self.0.depth()
    }

    /// Builds `shape:stride`, checking what [`Layout::new`] checks: congruence, extents at
    /// least 1, and a size and offsets (in every basis direction) within `i64`.
    ///
    /// ```
    /// use tessel_layout::typed::TypedLayout;
    /// let l = TypedLayout::new("(_4,8)".parse().unwrap(), "(_1,_4)".parse().unwrap()).unwrap();
    /// assert_eq!(l.to_string(), "(_4,8):(_1,_4)");
    /// assert!(TypedLayout::new("(_4,8)".parse().unwrap(), "_1".parse().unwrap()).is_err());
    /// ```
    pub fn new(shape: TypedShape, stride: TypedStride) -> Result<TypedLayout> {
        if !shape.congruent(&stride) {
            return Err(Error::new(
                ErrorKind::NotCongruent,
                format!("shape {shape} and stride {stride} are not congruent"),
            ));
        }
        if let Some(bad) = shape.iter_leaves().find(|s| s.value() < 1) {
            return Err(invalid(format!(
                "shape {shape} has the extent {bad}; every extent must be at least 1"
            )));
        }
        product(&shape)?;
        // The reach of every leaf, summed per basis direction, must fit in i64.
        let mut reach: Vec<(Vec<u16>, i64, i64)> = Vec::new();
        for (s, d) in shape.iter_leaves().zip(stride.iter_leaves()) {
            let r = (s.value() - 1)
                .checked_mul(d.value().value())
                .ok_or_else(|| overflow(&shape, &stride))?;
            let key = d.modes().to_vec();
            let slot = match reach.iter_mut().find(|(k, _, _)| *k == key) {
                Some(slot) => slot,
                None => {
                    reach.push((key, 0, 0));
                    reach.last_mut().expect("just pushed")
                }
            };
            if r < 0 {
                slot.1 = slot
                    .1
                    .checked_add(r)
                    .ok_or_else(|| overflow(&shape, &stride))?;
            } else {
                slot.2 = slot
                    .2
                    .checked_add(r)
                    .ok_or_else(|| overflow(&shape, &stride))?;
            }
        }
        Ok(TypedLayout::from_parts(shape, stride))
    }

    /// CuTe's `make_layout(shape)`: the compact column-major layout of `shape` (`LayoutLeft`),
    /// with CuTe's kinds: the first stride is `_1`, each next is the product of the ones before
    /// and the extents passed, and a static extent `_1` gets the stride `_0`.
    ///
    /// ```
    /// use tessel_layout::typed::TypedLayout;
    /// // CuTe 01_layout.md: make_layout(make_shape(2, make_shape(2, 2))) is (2,(2,2)):(_1,(2,4)).
    /// let l = TypedLayout::compact(&"(2,(2,2))".parse().unwrap()).unwrap();
    /// assert_eq!(l.to_string(), "(2,(2,2)):(_1,(2,4))");
    /// ```
    pub fn compact(shape: &TypedShape) -> Result<TypedLayout> {
        let stride = compact_col_major(shape, Integer::Static(1))?;
        TypedLayout::new(shape.clone(), stride.map(&mut |v| ScaledBasis::from(*v)))
    }

    /// CuTe's `make_layout(shape, LayoutRight{})`: the compact row-major layout of `shape`.
    ///
    /// ```
    /// use tessel_layout::typed::TypedLayout;
    /// // CuTe 01_layout.md: s2xd4_row is (_2,4):(4,_1).
    /// let l = TypedLayout::compact_row(&"(_2,4)".parse().unwrap()).unwrap();
    /// assert_eq!(l.to_string(), "(_2,4):(4,_1)");
    /// ```
    pub fn compact_row(shape: &TypedShape) -> Result<TypedLayout> {
        let stride = compact_row_major(shape, Integer::Static(1))?;
        TypedLayout::new(shape.clone(), stride.map(&mut |v| ScaledBasis::from(*v)))
    }

    /// CuTe's `make_identity_layout(shape)`: `shape` with the basis-element strides of
    /// `make_basis_like(shape)`, mapping every coordinate of `shape` to itself.
    ///
    /// ```
    /// use tessel_layout::typed::TypedLayout;
    /// let id = TypedLayout::identity(&"(_2,(_3,4))".parse().unwrap()).unwrap();
    /// assert_eq!(id.to_string(), "(_2,(_3,4)):(_1@0,(_1@0@1,_1@1@1))");
    /// assert_eq!(id.at(&"7".parse().unwrap()).unwrap().to_string(), "(1,(0,1))");
    /// ```
    pub fn identity(shape: &TypedShape) -> Result<TypedLayout> {
        TypedLayout::new(shape.clone(), basis_like(shape))
    }

    /// The plain layout `layout` with every leaf of the kind `is_static`.
    ///
    /// ```
    /// use tessel_layout::{Layout, typed::TypedLayout};
    /// let l: Layout = "(4,8):(1,4)".parse().unwrap();
    /// assert_eq!(TypedLayout::of(&l, true).to_string(), "(_4,_8):(_1,_4)");
    /// assert_eq!(TypedLayout::of(&l, false).to_string(), "(4,8):(1,4)");
    /// ```
    pub fn of(layout: &Layout, is_static: bool) -> TypedLayout {
        TypedLayout::from_parts(
            IntTuple::<Integer>::of(layout.shape(), is_static),
            layout
                .stride()
                .map(&mut |d| ScaledBasis::from(Integer::of(*d, is_static))),
        )
    }

    /// The plain layout of the values (kinds dropped); an error for basis strides, which are
    /// not integers.
    ///
    /// ```
    /// use tessel_layout::typed::TypedLayout;
    /// let l: TypedLayout = "(_4,8):(_1,_4)".parse().unwrap();
    /// assert_eq!(l.values().unwrap().to_string(), "(4,8):(1,4)");
    /// assert!(TypedLayout::identity(&"(4,8)".parse().unwrap()).unwrap().values().is_err());
    /// ```
    pub fn values(&self) -> Result<Layout> {
        let stride = self.stride().map_to(&mut |d| {
            d.known().ok_or_else(|| {
                invalid(format!(
                    "the layout {self} has the basis stride {d}: its values are coordinates, \
                     not integers (this operation needs integer strides)"
                ))
            })
        })?;
        Layout::new(self.shape().values(), stride)
    }

    /// Whether every leaf (extents and strides) is static.
    ///
    /// ```
    /// use tessel_layout::typed::TypedLayout;
    /// assert!("(_4,_8):(_1,_4)".parse::<TypedLayout>().unwrap().is_static());
    /// assert!(!"(_4,8):(_1,_4)".parse::<TypedLayout>().unwrap().is_static());
    /// ```
    pub fn is_static(&self) -> bool {
        self.shape().is_static() && self.stride().iter_leaves().all(|d| d.value().is_static())
    }

    /// Whether some stride is a basis element (the layout maps to coordinates).
    ///
    /// ```
    /// use tessel_layout::typed::TypedLayout;
    /// assert!(TypedLayout::identity(&"4".parse().unwrap()).unwrap().to_string() == "4:_1");
    /// assert!(TypedLayout::identity(&"(4,2)".parse().unwrap()).unwrap().has_basis());
    /// ```
    pub fn has_basis(&self) -> bool {
        self.stride().iter_leaves().any(|d| !d.is_integer())
    }

    /// Whether every leaf is dynamic and every stride an integer: the layout is a plain layout
    /// (no kind to keep).
    ///
    /// ```
    /// use tessel_layout::typed::TypedLayout;
    /// assert!("(4,8):(1,4)".parse::<TypedLayout>().unwrap().is_plain());
    /// assert!(!"(4,8):(_1,4)".parse::<TypedLayout>().unwrap().is_plain());
    /// ```
    pub fn is_plain(&self) -> bool {
        !self.has_basis()
            && self.shape().iter_leaves().all(|s| !s.is_static())
            && self.stride().iter_leaves().all(|d| !d.value().is_static())
    }

    /// The number of coordinates: the product of the extents (static when every extent is).
    ///
    /// ```
    /// use tessel_layout::{typed::TypedLayout, static_int::Integer};
    /// assert_eq!("(_4,_8)".parse::<TypedLayout>().unwrap().size(), Integer::Static(32));
    /// assert_eq!("(_4,8)".parse::<TypedLayout>().unwrap().size(), Integer::Dynamic(32));
    /// ```
    pub fn size(&self) -> Integer {
        // The constructor checked that the product fits.
        product(self.shape()).unwrap_or(Integer::Dynamic(i64::MAX))
    }

    /// The value at a coordinate (an index, a coordinate of a compatible shape, or the natural
    /// coordinate), CuTe's `layout(coord)`: the natural coordinate's inner product with the
    /// strides. With basis strides the value is a coordinate (an `ArithmeticTuple`); with
    /// integer strides it is an integer. Kinds follow CuTe's arithmetic.
    ///
    /// ```
    /// use tessel_layout::typed::TypedLayout;
    /// let l: TypedLayout = "(_3,(_2,_3)):(_3,(_12,_1))".parse().unwrap();
    /// // CuTe 01_layout.md, "Index Mapping".
    /// assert_eq!(l.at(&"16".parse().unwrap()).unwrap().to_string(), "17");
    /// assert_eq!(l.at(&"_16".parse().unwrap()).unwrap().to_string(), "_17");
    /// assert_eq!(l.at(&"(_1,5)".parse().unwrap()).unwrap().to_string(), "17");
    /// assert!(l.at(&"18".parse().unwrap()).is_err());
    /// ```
    pub fn at(&self, coord: &TypedShape) -> Result<TypedShape> {
        let natural = idx2crd(coord, self.shape()).map_err(|e| e.context(format!("at {self}")))?;
        let mut acc = IntTuple::Int(Integer::Static(0));
        for (c, d) in natural.iter_leaves().zip(self.stride().iter_leaves()) {
            let term = d.scaled(|v| c.times(v))?.to_coord()?;
            acc = add(&acc, &term).map_err(|e| {
                e.context(format!(
                    "at {self}: the layout adds integer strides to basis strides"
                ))
            })?;
        }
        Ok(acc)
    }

    /// The `i`-th top-level mode.
    ///
    /// ```
    /// let l: tessel_layout::typed::TypedLayout = "(_4,(8,_2)):(_1,(_4,32))".parse().unwrap();
    /// assert_eq!(l.mode(1).unwrap().to_string(), "(8,_2):(_4,32)");
    /// assert!(l.mode(2).is_err());
    /// ```
    pub fn mode(&self, i: usize) -> Result<TypedLayout> {
        match (self.shape().mode(i), self.stride().mode(i)) {
            (Some(s), Some(d)) => Ok(TypedLayout::from_parts(s, d)),
            _ => Err(invalid(format!(
                "mode {i} does not exist in {self} of rank {}",
                self.rank()
            ))),
        }
    }

    /// The top-level modes.
    ///
    /// ```
    /// let l: tessel_layout::typed::TypedLayout = "(_4,8):(_1,_4)".parse().unwrap();
    /// assert_eq!(l.modes().len(), 2);
    /// ```
    pub fn modes(&self) -> Vec<TypedLayout> {
        self.shape()
            .modes()
            .into_iter()
            .zip(self.stride().modes())
            .map(|(s, d)| TypedLayout::from_parts(s, d))
            .collect()
    }

    /// The layout whose top-level modes are `modes` (one mode is that layout itself wrapped
    /// in a rank-1 tuple, as CuTe's `make_layout(l)`).
    ///
    /// ```
    /// use tessel_layout::typed::TypedLayout;
    /// let a: TypedLayout = "_4:_1".parse().unwrap();
    /// let b: TypedLayout = "8:_4".parse().unwrap();
    /// assert_eq!(TypedLayout::from_modes([a, b]).to_string(), "(_4,8):(_1,_4)");
    /// ```
    pub fn from_modes(modes: impl IntoIterator<Item = TypedLayout>) -> TypedLayout {
        let (shapes, strides): (Vec<_>, Vec<_>) = modes.into_iter().map(|m| m.into_parts()).unzip();
        TypedLayout::from_parts(
            IntTuple::Tuple(shapes.into()),
            IntTuple::Tuple(strides.into()),
        )
    }

    /// The sub-layout at the mode path `path` (CuTe's `get<I...>`).
    ///
    /// ```
    /// let l: tessel_layout::typed::TypedLayout = "(_4,(8,_2)):(_1,(_4,32))".parse().unwrap();
    /// assert_eq!(l.get(&[1, 1]).unwrap().to_string(), "_2:32");
    /// ```
    pub fn get(&self, path: &[usize]) -> Result<TypedLayout> {
        path.iter().try_fold(self.clone(), |l, &i| l.mode(i))
    }

    /// Every leaf a top-level mode (a leaf stays a leaf).
    ///
    /// ```
    /// let l: tessel_layout::typed::TypedLayout = "(_4,(8,_2)):(_1,(_4,32))".parse().unwrap();
    /// assert_eq!(l.flatten().to_string(), "(_4,8,_2):(_1,_4,32)");
    /// ```
    pub fn flatten(&self) -> TypedLayout {
        TypedLayout::from_parts(self.shape().flatten(), self.stride().flatten())
    }

    /// The top-level modes `indices`, in that order (CuTe's `select<I...>`).
    ///
    /// ```
    /// let l: tessel_layout::typed::TypedLayout = "(_4,8,_2):(_1,_4,32)".parse().unwrap();
    /// assert_eq!(l.select(&[2, 0]).unwrap().to_string(), "(_2,_4):(32,_1)");
    /// ```
    pub fn select(&self, indices: &[usize]) -> Result<TypedLayout> {
        let modes = indices
            .iter()
            .map(|&i| self.mode(i))
            .collect::<Result<Vec<_>>>()?;
        Ok(TypedLayout::from_modes(modes))
    }

    /// The top-level modes `begin..end`, `begin < end` (CuTe's `take<B,E>`).
    ///
    /// ```
    /// let l: tessel_layout::typed::TypedLayout = "(_4,8,_2):(_1,_4,32)".parse().unwrap();
    /// assert_eq!(l.take(1, 3).unwrap().to_string(), "(8,_2):(_4,32)");
    /// ```
    pub fn take(&self, begin: usize, end: usize) -> Result<TypedLayout> {
        if begin >= end || end > self.rank() {
            return Err(invalid(format!(
                "take({begin},{end}) of {self}: needs begin < end <= rank {}",
                self.rank()
            )));
        }
        Ok(TypedLayout::from_modes(
            self.modes().into_iter().skip(begin).take(end - begin),
        ))
    }

    /// The modes `begin..end` grouped into one mode (CuTe's `group<B,E>`; an empty range
    /// leaves the layout as it is).
    ///
    /// ```
    /// let l: tessel_layout::typed::TypedLayout = "(_4,8,_2):(_1,_4,32)".parse().unwrap();
    /// assert_eq!(l.group(0, 2).unwrap().to_string(), "((_4,8),_2):((_1,_4),32)");
    /// ```
    pub fn group(&self, begin: usize, end: usize) -> Result<TypedLayout> {
        let mut modes = self.modes();
        if begin > end || end > modes.len() {
            return Err(invalid(format!(
                "group({begin},{end}) is outside the {} modes of {self}",
                modes.len()
            )));
        }
        if begin == end {
            return Ok(self.clone());
        }
        let tail = modes.split_off(end);
        let grouped = modes.split_off(begin);
        modes.push(TypedLayout::from_modes(grouped));
        modes.extend(tail);
        Ok(TypedLayout::from_modes(modes))
    }

    /// `self` with `mode` added as its last top-level mode.
    ///
    /// ```
    /// use tessel_layout::typed::TypedLayout;
    /// let l: TypedLayout = "(_4,8):(_1,_4)".parse().unwrap();
    /// assert_eq!(l.append(&"_2:_0".parse().unwrap()).to_string(), "(_4,8,_2):(_1,_4,_0)");
    /// ```
    pub fn append(&self, mode: &TypedLayout) -> TypedLayout {
        let mut modes = self.modes();
        modes.push(mode.clone());
        TypedLayout::from_modes(modes)
    }

    /// `self` with `mode` added as its first top-level mode.
    ///
    /// ```
    /// use tessel_layout::typed::TypedLayout;
    /// let l: TypedLayout = "(_4,8):(_1,_4)".parse().unwrap();
    /// assert_eq!(l.prepend(&"_2:_0".parse().unwrap()).to_string(), "(_2,_4,8):(_0,_1,_4)");
    /// ```
    pub fn prepend(&self, mode: &TypedLayout) -> TypedLayout {
        let mut modes = vec![mode.clone()];
        modes.extend(self.modes());
        TypedLayout::from_modes(modes)
    }

    /// Fixes the modes given by an index and keeps those given by `_` (CuTe's
    /// `slice_and_offset`): the layout of the kept modes and the value contributed by the fixed
    /// ones (an integer, or a coordinate for basis strides). The indices of a [`SliceCoord`]
    /// are dynamic; the kept modes keep their kinds.
    ///
    /// ```
    /// use tessel_layout::{SliceCoord, typed::TypedLayout};
    /// let id = TypedLayout::identity(&"(_4,_8)".parse().unwrap()).unwrap();
    /// let c = SliceCoord::from(&"(2,0)".parse().unwrap());
    /// let (kept, offset) = id.slice(&SliceCoord::Tuple(vec![SliceCoord::All, SliceCoord::Index(3)])).unwrap();
    /// assert_eq!((kept.to_string(), offset.to_string()), ("(_4):(_1@0)".to_string(), "(_0,3)".to_string()));
    /// assert_eq!(id.slice(&c).unwrap().1.to_string(), "(2,0)");
    /// ```
    pub fn slice(&self, coord: &SliceCoord) -> Result<(TypedLayout, TypedShape)> {
        let mut kept = Vec::new();
        let mut offset = IntTuple::Int(Integer::Static(0));
        slice_into(coord, self, &mut kept, &mut offset, true)
            .map_err(|e| e.context(format!("slicing {self} at {coord}")))?;
        let layout = match coord {
            SliceCoord::All => self.clone(),
            _ => TypedLayout::from_modes(kept),
        };
        Ok((layout, offset))
    }
}

impl TypedLayout {
    /// CuTe's `dice(coord, layout)`: the modes `coord` fixes (see [`crate::dice::dice`]).
    ///
    /// ```
    /// use tessel_layout::typed::TypedLayout;
    /// let l: TypedLayout = "(_4,8,_2):(_1,_4,32)".parse().unwrap();
    /// assert_eq!(l.dice(&"(_,3,1)".parse().unwrap()).unwrap().to_string(), "(8,_2):(_4,32)");
    /// ```
    pub fn dice(&self, coord: &SliceCoord) -> Result<TypedLayout> {
        TypedLayout::new(
            crate::dice::dice(coord, self.shape())?,
            crate::dice::dice(coord, self.stride())?,
        )
    }

    /// CuTe's `make_layout_like(layout)`: the compact layout of the shape, its modes ordered as
    /// the strides order them (dynamic strides after every static one, in their positions), its
    /// static zero strides kept ([`crate::make::make_layout_like`] on values).
    ///
    /// ```
    /// use tessel_layout::typed::TypedLayout;
    /// // CuTe include/cute/layout.hpp (CUTLASS v4.2.1): the two examples of make_layout_like.
    /// let a: TypedLayout = "(_2,_2,_2,_2):(_0,_2,_4,_1)".parse().unwrap();
    /// assert_eq!(a.make_layout_like().unwrap().to_string(), "(_2,_2,_2,_2):(_0,_2,_4,_1)");
    /// let b: TypedLayout = "(2,3,4,5):(_0,42,_1,_0)".parse().unwrap();
    /// assert_eq!(b.make_layout_like().unwrap().to_string(), "(2,3,4,5):(_0,4,_1,_0)");
    /// ```
    pub fn make_layout_like(&self) -> Result<TypedLayout> {
        use crate::int_tuple::arith::{compact_order, filter_zeros};
        let stride = self.integer_stride("make_layout_like")?;
        let shape = filter_zeros(&stride, self.shape())?;
        let compact = compact_order(&shape, &stride)?;
        TypedLayout::new(
            self.shape().clone(),
            compact.map(&mut |v| ScaledBasis::from(*v)),
        )
    }

    /// The stride as integers; an error naming `what` for basis strides.
    pub(crate) fn integer_stride(&self, what: &str) -> Result<IntTuple<Integer>> {
        self.stride().map_to(&mut |d| {
            if d.is_integer() {
                Ok(d.value())
            } else {
                Err(invalid(format!(
                    "{what} of {self}: defined for integer strides, not the basis stride {d}"
                )))
            }
        })
    }
}

/// Slices `layout` at `coord`, pushing the kept modes (CuTe's lift: the modes kept inside a
/// sub-tuple join the enclosing level) and adding the fixed modes' value to `offset`.
fn slice_into(
    coord: &SliceCoord,
    layout: &TypedLayout,
    kept: &mut Vec<TypedLayout>,
    offset: &mut TypedShape,
    top: bool,
) -> Result<()> {
    match coord {
        SliceCoord::All => {
            kept.push(layout.clone());
            Ok(())
        }
        SliceCoord::Index(i) => {
            let value = layout.at(&IntTuple::Int(Integer::Dynamic(*i)))?;
            *offset = add(offset, &value)?;
            Ok(())
        }
        SliceCoord::Tuple(parts) => {
            if layout.shape().is_int() {
                return Err(Error::new(
                    ErrorKind::NotCongruent,
                    format!(
                        "a slicing tuple of rank {} meets the integer mode {}",
                        parts.len(),
                        layout.shape()
                    ),
                ));
            }
            if parts.len() != layout.rank() {
                return Err(Error::new(
                    ErrorKind::NotCongruent,
                    format!(
                        "a slicing coordinate of rank {} does not match the shape {} of rank {}",
                        parts.len(),
                        layout.shape(),
                        layout.rank()
                    ),
                ));
            }
            let _ = top;
            for (c, mode) in parts.iter().zip(layout.modes()) {
                slice_into(c, &mode, kept, offset, false)?;
            }
            Ok(())
        }
    }
}

fn overflow(shape: &TypedShape, stride: &TypedStride) -> Error {
    Error::overflow(format!(
        "the layout {shape}:{stride} has offsets beyond i64"
    ))
}
