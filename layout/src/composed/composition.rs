//! [`Composition`]: CuTe's `ComposedLayout<LayoutA, Offset, LayoutB>` whose inner function
//! `LayoutA` is a layout (plain or swizzled) or another composition, kept unevaluated:
//! `value(c) = inner(offset + outer(c))`.
//!
//! CuTe builds one with `make_composed_layout(inner, offset, outer)` (the DSL's names; C++ calls
//! the parts `layout_a`, `offset`, `layout_b`) where `composition(inner, outer)` does not apply or
//! should not be evaluated, and applies the algebra to the outer layout
//! ([`ComposedAlgebra`](super::ComposedAlgebra)). The inner layout is read as a function on all
//! non-negative integers, an index past its size running on in its last mode (CuTe's
//! convention, as in composition).
//!
//! ```
//! use tessel_layout::composed::{Composition, Inner};
//! use tessel_layout::{ComposedLayout, IntTuple, Layout};
//! let inner: Layout = "(4,2):(1,8)".parse().unwrap();
//! let outer: Layout = "(2,2):(1,2)".parse().unwrap();
//! let c = Composition::new(Inner::Layout(inner.into()), 3, outer).unwrap();
//! assert_eq!(c.to_string(), "(4,2):(1,8) o 3 o (2,2):(1,2)");
//! // (1,1) -> outer 3 -> 3 + 3 = 6 -> inner (2,1) = 2 + 8.
//! assert_eq!(c.at(&IntTuple::from_ints([1, 1])).unwrap(), 10);
//! assert_eq!(c.values().unwrap(), vec![3, 8, 9, 10]);
//! ```

use std::fmt;

use super::ComposedLayout;
use super::algebra::ComposedAlgebra;
use super::conjugate::ExtendedLayout;
use crate::error::{Result, checked_add};
use crate::int_tuple::Coord;
use crate::layout::{Layout, SliceCoord};
use crate::swizzle::Swizzle;

/// The inner function of a [`Composition`]: what is applied last.
///
/// ```
/// use tessel_layout::composed::Inner;
/// let i = Inner::Layout("Sw<1,0,1> o 8:2".parse().unwrap());
/// // 8:2 at 3 is 6 = 0b110; Sw<1,0,1> XORs bit 1 into bit 0: 7.
/// assert_eq!(i.value_at(3).unwrap(), 7);
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Inner {
    /// A layout, possibly with swizzles and an offset of its own (`Sw o off' o A`).
    Layout(ComposedLayout),
    /// Another composition.
    Composition(Box<Composition>),
}

impl Inner {
    /// The inner function at the non-negative integer `x` (an error for a negative `x`: a
    /// layout is a function of non-negative indices).
    ///
    /// ```
    /// use tessel_layout::composed::Inner;
    /// let i = Inner::Layout("4:2".parse::<tessel_layout::Layout>().unwrap().into());
    /// assert_eq!(i.value_at(5).unwrap(), 10); // past the size: the last mode runs on
    /// assert!(i.value_at(-1).is_err());
    /// ```
    pub fn value_at(&self, x: i64) -> Result<i64> {
        match self {
            Inner::Layout(c) => {
                let inner = ExtendedLayout::of(c.layout()).eval(x)?;
                c.checked_outer(inner)
            }
            Inner::Composition(c) => c.value_at(x),
        }
    }

    /// `sw o self`: the swizzle applied after the inner function.
    fn swizzled(&self, sw: Swizzle) -> Inner {
        match self {
            Inner::Layout(c) => Inner::Layout(c.swizzled(sw)),
            Inner::Composition(c) => Inner::Composition(Box::new(Composition {
                inner: c.inner.swizzled(sw),
                offset: c.offset,
                outer: c.outer.clone(),
            })),
        }
    }
}

impl fmt::Display for Inner {
    /// A layout as it is; a composition in parentheses, so the text reads back as the same
    /// grouping.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Inner::Layout(c) => write!(f, "{c}"),
            Inner::Composition(c) => write!(f, "({c})"),
        }
    }
}

/// `inner o offset o outer`: CuTe's `ComposedLayout` with a layout (or another composition) as
/// its inner function, kept unevaluated. It takes the coordinates of `outer`.
///
/// ```
/// use tessel_layout::composed::{Composition, Inner};
/// let c = Composition::new(Inner::Layout("8:3".parse::<tessel_layout::Layout>().unwrap().into()), 0, "4:2".parse().unwrap()).unwrap();
/// assert_eq!(c.size(), 4);
/// assert_eq!(c.offset(3).unwrap(), 18); // 8:3 at 4:2(3) = 6
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Composition {
    inner: Inner,
    offset: i64,
    outer: Layout,
}

impl Composition {
    /// `inner o offset o outer`, checking that `offset + outer(c)` fits in `i64` for every
    /// coordinate (the inner function's values are checked where they are computed).
    ///
    /// ```
    /// use tessel_layout::composed::{Composition, Inner};
    /// let inner = Inner::Layout("4:1".parse::<tessel_layout::Layout>().unwrap().into());
    /// assert!(Composition::new(inner, i64::MAX, "2:1".parse().unwrap()).is_err());
    /// ```
    pub fn new(inner: Inner, offset: i64, outer: Layout) -> Result<Composition> {
        let (lo, hi) = outer.offset_range()?;
        let what = format!("the offsets of {inner} o {offset} o {outer}");
        checked_add(lo, offset, &what)?;
        checked_add(hi, offset, &what)?;
        Ok(Composition {
            inner,
            offset,
            outer,
        })
    }

    /// The inner function (CuTe's `layout_a()`, the DSL's `inner`).
    ///
    /// ```
    /// let c: tessel_layout::composed::Composition = "8:3 o 0 o 4:2".parse().unwrap();
    /// assert_eq!(c.inner().to_string(), "8:3");
    /// ```
    pub fn inner(&self) -> &Inner {
        &self.inner
    }

    /// The offset added between the outer layout and the inner function (CuTe's `offset()`).
    ///
    /// ```
    /// let c: tessel_layout::composed::Composition = "8:3 o 5 o 4:2".parse().unwrap();
    /// assert_eq!(c.base_offset(), 5);
    /// ```
    pub fn base_offset(&self) -> i64 {
        self.offset
    }

    /// The size of the domain: the outer layout's size.
    ///
    /// ```
    /// let c: tessel_layout::composed::Composition = "8:3 o 5 o (4,2):(2,1)".parse().unwrap();
    /// assert_eq!(c.size(), 8);
    /// ```
    pub fn size(&self) -> i64 {
        self.outer.size()
    }

    /// The value of the outer index `x`, read on all non-negative integers as the inner
    /// function of another composition reads it.
    fn value_at(&self, x: i64) -> Result<i64> {
        let o = ExtendedLayout::of(&self.outer).eval(x)?;
        let shifted = checked_add(o, self.offset, &format!("the values of {self}"))?;
        self.inner.value_at(shifted)
    }

    /// The value at the 1-D index `index` of the domain.
    ///
    /// ```
    /// let c: tessel_layout::composed::Composition = "(4,2):(1,8) o 3 o (2,2):(1,2)".parse().unwrap();
    /// assert_eq!(c.offset(3).unwrap(), 10);
    /// assert!(c.offset(4).is_err());
    /// ```
    pub fn offset(&self, index: i64) -> Result<i64> {
        let o = self.outer.offset(index)?;
        let shifted = checked_add(o, self.offset, &format!("the values of {self}"))?;
        self.inner.value_at(shifted)
    }

    /// The value at a coordinate (1-D, flat or hierarchical) of the outer layout.
    ///
    /// ```
    /// use tessel_layout::IntTuple;
    /// let c: tessel_layout::composed::Composition = "(4,2):(1,8) o 3 o (2,2):(1,2)".parse().unwrap();
    /// assert_eq!(c.at(&IntTuple::from_ints([1, 1])).unwrap(), 10);
    /// ```
    pub fn at(&self, coord: &Coord) -> Result<i64> {
        let o = self.outer.crd2idx(coord)?;
        let shifted = checked_add(o, self.offset, &format!("the values of {self}"))?;
        self.inner.value_at(shifted)
    }

    /// Every value, in domain order, charged to the work budget ([`crate::budget`]).
    ///
    /// ```
    /// let c: tessel_layout::composed::Composition = "(4,2):(1,8) o 3 o (2,2):(1,2)".parse().unwrap();
    /// assert_eq!(c.values().unwrap(), vec![3, 8, 9, 10]);
    /// ```
    pub fn values(&self) -> Result<Vec<i64>> {
        crate::budget::charge(self.size(), &format!("the values of {self}"))?;
        (0..self.size()).map(|i| self.offset(i)).collect()
    }

    /// Slices the outer layout and folds the slice's offset into the offset (CuTe's
    /// `slice_and_offset` of a composed layout).
    ///
    /// ```
    /// use tessel_layout::SliceCoord;
    /// let c: tessel_layout::composed::Composition = "(4,2):(1,8) o 3 o (2,2):(1,2)".parse().unwrap();
    /// let s = c.slice(&SliceCoord::Tuple(vec![SliceCoord::All, SliceCoord::Index(1)])).unwrap();
    /// assert_eq!(s.to_string(), "(4,2):(1,8) o 5 o (2):(1)");
    /// ```
    pub fn slice(&self, coord: &SliceCoord) -> Result<Composition> {
        let (layout, off) = self
            .outer
            .slice(coord)
            .map_err(|e| e.context(format!("slicing {self}")))?;
        let offset = checked_add(self.offset, off, &format!("slicing {self}"))?;
        Composition::new(self.inner.clone(), offset, layout)
    }

    /// `self o b`: CuTe's `composition(ComposedLayout, Tiler)`, the outer layout composed with
    /// `b` (a layout or a by-mode tiler).
    ///
    /// ```
    /// use tessel_layout::Tiler;
    /// let c: tessel_layout::composed::Composition = "(4,2):(1,8) o 3 o 8:1".parse().unwrap();
    /// let r = c.compose(&Tiler::Layout("(2,2):(2,1)".parse().unwrap())).unwrap();
    /// assert_eq!(r.to_string(), "(4,2):(1,8) o 3 o (2,2):(2,1)");
    /// ```
    pub fn compose(&self, b: &crate::Tiler) -> Result<Composition> {
        self.map_outer("composition", |l| match b {
            crate::Tiler::Layout(b) => crate::composition(l, b),
            by_mode => crate::compose_tiler(l, by_mode),
        })
    }

    /// `sw o self`: the swizzle applied after the inner function.
    ///
    /// ```
    /// use tessel_layout::Swizzle;
    /// let c: tessel_layout::composed::Composition = "8:1 o 0 o 4:1".parse().unwrap();
    /// let s = c.swizzled(Swizzle::new(1, 0, 1).unwrap());
    /// assert_eq!(s.to_string(), "Sw<1,0,1> o 8:1 o 0 o 4:1");
    /// assert_eq!(s.offset(2).unwrap(), 3);
    /// ```
    pub fn swizzled(&self, sw: Swizzle) -> Composition {
        Composition {
            inner: self.inner.swizzled(sw),
            offset: self.offset,
            outer: self.outer.clone(),
        }
    }
}

impl ComposedAlgebra for Composition {
    fn outer(&self) -> &Layout {
        &self.outer
    }

    fn with_outer(&self, outer: Layout) -> Result<Self> {
        Composition::new(self.inner.clone(), self.offset, outer)
    }
}

impl fmt::Display for Composition {
    /// `INNER o OFFSET o OUTER`, the offset always written (CuTe prints it too), so the text is
    /// the expression that builds it again.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} o {} o {}", self.inner, self.offset, self.outer)
    }
}
