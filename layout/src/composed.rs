//! `ComposedLayout`: swizzles applied after an offset and a layout, `Sw o ... o Sw o off o L`.
//!
//! ```
//! use tessel_layout::{ComposedLayout, IntTuple};
//! // docs/semantics.md: Sw<3,3,3> o (8,64):(64,1) maps (1,0) to 72 and (7,63) to 455.
//! let c: ComposedLayout = "Sw<3,3,3> o (8,64):(64,1)".parse().unwrap();
//! assert_eq!(c.at(&IntTuple::from_ints([1, 0])).unwrap(), 72);
//! assert_eq!(c.at(&IntTuple::from_ints([7, 63])).unwrap(), 455);
//! ```

use std::borrow::Cow;
use std::fmt;
use std::str::FromStr;

use crate::error::{Error, Result, Span, checked_add, checked_mul};
use crate::int_tuple::{Coord, IntTuple};
use crate::layout::{Layout, SliceCoord};
use crate::leaf::Leaf;
use crate::parse::{Cursor, parse_whole};
use crate::swizzle::Swizzle;

pub(crate) mod affine;
mod algebra;
mod composition;
mod conjugate;
mod inverse;

pub use algebra::ComposedAlgebra;
pub use composition::{Composition, Inner};

/// Anything that maps a 1-D domain index to an offset: a plain [`Layout`] or a
/// [`ComposedLayout`]. Analyses (verification, bank conflicts, pictures) take either.
///
/// ```
/// use tessel_layout::{ComposedLayout, Layout, OffsetMap};
/// let l: Layout = "(4,8):(8,1)".parse().unwrap();
/// assert_eq!(l.to_composed().offset(1).unwrap(), 8);
/// assert_eq!(OffsetMap::domain_size(&l), 32);
/// ```
pub trait OffsetMap: fmt::Display {
    /// The map as a composed layout (a plain layout has no swizzles and offset 0).
    fn to_composed(&self) -> ComposedLayout;

    /// Size of the domain.
    fn domain_size(&self) -> i64 {
        self.to_composed().size()
    }
}

impl OffsetMap for Layout {
    fn to_composed(&self) -> ComposedLayout {
        ComposedLayout::from_layout(self.clone())
    }

    fn domain_size(&self) -> i64 {
        self.size()
    }
}

impl OffsetMap for ComposedLayout {
    fn to_composed(&self) -> ComposedLayout {
        self.clone()
    }

    fn domain_size(&self) -> i64 {
        self.size()
    }
}

impl<L: Leaf> From<Layout<L>> for ComposedLayout<L> {
    fn from(layout: Layout<L>) -> ComposedLayout<L> {
        ComposedLayout::from_layout(layout)
    }
}

/// A layout followed by an offset and a chain of swizzles (outermost first):
/// `value(i) = swizzles[0](swizzles[1](... (offset + layout(i))))`.
///
/// ```
/// use tessel_layout::{ComposedLayout, Layout, Swizzle};
/// let l: Layout = "(8,64):(64,1)".parse().unwrap();
/// let c = ComposedLayout::new(vec![Swizzle::new(3, 3, 3).unwrap()], 0, l);
/// assert_eq!(c.offset(1).unwrap(), 72);             // coordinate (1,0)
/// assert_eq!(c.offset(7 + 63 * 8).unwrap(), 455);   // coordinate (7,63)
/// assert_eq!(c.to_string(), "Sw<3,3,3> o (8,64):(64,1)");
/// ```
///
/// The stride leaves are a type parameter like [`Layout`]'s: `ComposedLayout<SymInt>` is
/// [`SymComposedLayout`](crate::codegen::SymComposedLayout), the input of the code emitter.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct ComposedLayout<L: Leaf = i64> {
    swizzles: Cow<'static, [Swizzle]>,
    offset: i64,
    layout: Layout<L>,
}

impl<L: Leaf> ComposedLayout<L> {
    /// `swizzles[0] o ... o swizzles[n-1] o offset o layout`.
    ///
    /// ```
    /// use tessel_layout::{ComposedLayout, Layout};
    /// let c = ComposedLayout::new(vec![], 32, Layout::vector(4, 1).unwrap());
    /// assert_eq!(c.offset(3).unwrap(), 35);
    /// ```
    pub fn new(
        swizzles: impl Into<Cow<'static, [Swizzle]>>,
        offset: i64,
        layout: Layout<L>,
    ) -> ComposedLayout<L> {
        ComposedLayout {
            swizzles: swizzles.into(),
            offset,
            layout,
        }
    }

    /// The swizzle chain, outermost (applied last) first.
    ///
    /// ```
    /// use tessel_layout::{ComposedLayout, Layout};
    /// assert!(ComposedLayout::new(vec![], 0, Layout::vector(4, 1).unwrap()).swizzles().is_empty());
    /// ```
    pub fn swizzles(&self) -> &[Swizzle] {
        &self.swizzles
    }

    /// The offset added before the swizzles.
    ///
    /// ```
    /// use tessel_layout::{ComposedLayout, Layout};
    /// assert_eq!(ComposedLayout::new(vec![], 7, Layout::vector(4, 1).unwrap()).base_offset(), 7);
    /// ```
    pub fn base_offset(&self) -> i64 {
        self.offset
    }

    /// The inner (unswizzled) layout.
    ///
    /// ```
    /// use tessel_layout::{ComposedLayout, Layout};
    /// let c = ComposedLayout::new(vec![], 0, Layout::vector(4, 1).unwrap());
    /// assert_eq!(c.layout().to_string(), "4:1");
    /// ```
    pub fn layout(&self) -> &Layout<L> {
        &self.layout
    }

    /// Size of the domain (the inner layout's size).
    ///
    /// ```
    /// use tessel_layout::{ComposedLayout, Layout};
    /// assert_eq!(ComposedLayout::new(vec![], 0, Layout::vector(4, 1).unwrap()).size(), 4);
    /// ```
    pub const fn size(&self) -> i64 {
        self.layout.size()
    }

    /// A plain layout seen as a composed layout (no swizzle, offset 0).
    ///
    /// ```
    /// use tessel_layout::{ComposedLayout, Layout};
    /// let c = ComposedLayout::from_layout("8:2".parse::<Layout>().unwrap());
    /// assert_eq!(c.to_string(), "8:2");
    /// ```
    pub fn from_layout(layout: Layout<L>) -> ComposedLayout<L> {
        ComposedLayout::new(Vec::new(), 0, layout)
    }

    /// Whether this is a plain layout: no swizzle and offset 0.
    ///
    /// ```
    /// use tessel_layout::ComposedLayout;
    /// assert!("(4,8):(8,1)".parse::<ComposedLayout>().unwrap().is_plain());
    /// assert!(!"Sw<1,0,1> o 4:1".parse::<ComposedLayout>().unwrap().is_plain());
    /// ```
    pub fn is_plain(&self) -> bool {
        self.swizzles.is_empty() && self.offset == 0
    }

    /// Parses `Sw<B,M,S> o ... o [OFFSET o] LAYOUT` (a bare layout is a composed layout
    /// without swizzles) at the cursor: the one parser of swizzled layouts of every leaf type.
    ///
    /// ```
    /// let mut c = tessel_layout::parse::Cursor::new("Sw<3,3,3> o 32 o (8,64):(64,1)");
    /// let l = tessel_layout::ComposedLayout::<i64>::parse(&mut c).unwrap();
    /// assert_eq!(l.base_offset(), 32);
    /// ```
    pub fn parse(cursor: &mut Cursor<'_>) -> Result<ComposedLayout<L>> {
        let mut swizzles = Vec::new();
        cursor.skip_ws();
        while cursor.rest().starts_with("Sw<") {
            swizzles.push(Swizzle::parse(cursor)?);
            if !cursor.eat_word("o") {
                return Err(cursor.error("the composition operator 'o'"));
            }
            cursor.skip_ws();
        }
        let mut offset = 0;
        let mut probe = cursor.clone();
        probe.skip_ws();
        let mut offset_span = Span::at(probe.position());
        if matches!(probe.peek(), Some(ch) if ch == '-' || ch.is_ascii_digit()) {
            let value = probe.integer()?;
            offset_span.end = probe.position();
            if probe.eat_word("o") {
                offset = value;
                *cursor = probe;
            }
        }
        let layout = cursor.layout_of()?;
        let composed = ComposedLayout::new(swizzles, offset, layout);
        if let Some(stride) = composed.layout.stride().known() {
            // Only the base offset can push a valid layout's offsets out of i64.
            let concrete = Layout::new(composed.layout.shape().clone(), stride)?;
            ComposedLayout::new(composed.swizzles.clone(), offset, concrete)
                .check_offsets()
                .map_err(|e| e.at(offset_span))?;
        }
        Ok(composed)
    }
}

/// Swizzled layouts built in constant expressions.
impl ComposedLayout {
    /// `swizzles[0] o ... o offset o layout` built in a constant expression, with the swizzles
    /// in static storage (what the `layout!` macro of the `tessel-kit` crate expands to). Checks
    /// that every value fits in `i64` and panics otherwise, which in a `const` or `static` item
    /// is a compile error.
    ///
    /// ```
    /// use tessel_layout::{ComposedLayout, IntTuple, Layout, Swizzle, int_tuple::Modes};
    /// static L: ComposedLayout = ComposedLayout::from_const(
    ///     &[Swizzle::from_const(3, 3, 3)],
    ///     0,
    ///     Layout::from_const(
    ///         IntTuple::Tuple(Modes::from_static(&[0, 0], &[8, 64])),
    ///         IntTuple::Tuple(Modes::from_static(&[0, 0], &[64, 1])),
    ///     ),
    /// );
    /// const AT1: i64 = L.const_offset(1);
    /// assert_eq!(AT1, 72);
    /// assert_eq!(L, "Sw<3,3,3> o (8,64):(64,1)".parse().unwrap());
    /// ```
    pub const fn from_const(
        swizzles: &'static [Swizzle],
        offset: i64,
        layout: Layout,
    ) -> ComposedLayout {
        let composed = ComposedLayout {
            swizzles: Cow::Borrowed(swizzles),
            offset,
            layout,
        };
        // offset + layout(i) fits for every i when it fits at the layout's extreme offsets.
        let (lo, hi) = match composed.layout.const_offset_range() {
            Some(range) => range,
            None => panic!("ComposedLayout::from_const: the layout's offsets overflow i64"),
        };
        if lo.checked_add(offset).is_none() || hi.checked_add(offset).is_none() {
            panic!("ComposedLayout::from_const: offset + layout(i) overflows i64");
        }
        composed
    }

    /// The value at the 1-D `index`, `None` outside `0..size`; a `const fn` (see
    /// [`ComposedLayout::from_const`]).
    ///
    /// ```
    /// let c: tessel_layout::ComposedLayout = "Sw<1,0,1> o 4:1".parse().unwrap();
    /// assert_eq!(c.checked_offset(2), Some(3));
    /// assert_eq!(c.checked_offset(4), None);
    /// ```
    pub const fn checked_offset(&self, index: i64) -> Option<i64> {
        let Some(inner) = self.layout.checked_offset(index) else {
            return None;
        };
        let Some(mut x) = inner.checked_add(self.offset) else {
            return None;
        };
        let swizzles: &[Swizzle] = match &self.swizzles {
            Cow::Borrowed(s) => s,
            Cow::Owned(v) => v.as_slice(),
        };
        let mut k = swizzles.len();
        while k > 0 {
            k -= 1;
            x = swizzles[k].apply(x);
        }
        Some(x)
    }

    /// [`ComposedLayout::checked_offset`] for constant expressions: panics outside `0..size`,
    /// which in a `const` item is a compile error.
    ///
    /// ```
    /// let c: tessel_layout::ComposedLayout = "Sw<1,0,1> o 4:1".parse().unwrap();
    /// assert_eq!(c.const_offset(3), 2);
    /// ```
    pub const fn const_offset(&self, index: i64) -> i64 {
        match self.checked_offset(index) {
            Some(v) => v,
            None => panic!("layout offset: index outside 0..size"),
        }
    }
}

impl ComposedLayout {
    /// Applies offset and swizzles to an offset produced by the inner layout. The addition
    /// wraps: it is exact for the values of a composed layout whose offsets fit in `i64` (which
    /// parsing and the expression evaluator check); [`offset`](Self::offset) checks it.
    ///
    /// ```
    /// use tessel_layout::{ComposedLayout, Layout, Swizzle};
    /// let c = ComposedLayout::new(vec![Swizzle::new(1, 0, 1).unwrap()], 0, Layout::vector(4, 1).unwrap());
    /// assert_eq!(c.apply_outer(2), 3);
    /// ```
    pub fn apply_outer(&self, inner: i64) -> i64 {
        self.swizzles
            .iter()
            .rev()
            .fold(inner.wrapping_add(self.offset), |x, sw| sw.apply(x))
    }

    /// The offset of the 1-D domain index `index`.
    ///
    /// ```
    /// use tessel_layout::{ComposedLayout, Layout};
    /// let c = ComposedLayout::new(vec![], 0, Layout::vector(4, 2).unwrap());
    /// assert_eq!(c.offset(3).unwrap(), 6);
    /// assert!(c.offset(4).is_err());
    /// ```
    pub fn offset(&self, index: i64) -> Result<i64> {
        self.checked_outer(self.layout.offset(index)?)
    }

    /// [`apply_outer`](Self::apply_outer) with the offset addition checked (the swizzles only
    /// move bits below bit 62, so they cannot overflow).
    fn checked_outer(&self, inner: i64) -> Result<i64> {
        let shifted = checked_add(inner, self.offset, &format!("the offsets of {self}"))?;
        Ok(self
            .swizzles
            .iter()
            .rev()
            .fold(shifted, |x, sw| sw.apply(x)))
    }

    /// Checks that every value `offset + layout(i)` fits in `i64`, as [`Layout::new`] does for
    /// the offsets of a plain layout.
    pub(crate) fn check_offsets(&self) -> Result<()> {
        let (lo, hi) = self.layout.offset_range()?;
        self.checked_outer(lo)?;
        self.checked_outer(hi)?;
        Ok(())
    }

    /// Every offset, in domain order (computed with [`apply_outer`](Self::apply_outer)).
    ///
    /// ```
    /// use tessel_layout::{ComposedLayout, Layout, Swizzle};
    /// let c = ComposedLayout::new(vec![Swizzle::new(1, 0, 1).unwrap()], 0, Layout::vector(4, 1).unwrap());
    /// assert_eq!(c.offsets(), vec![0, 1, 3, 2]);
    /// ```
    pub fn offsets(&self) -> Vec<i64> {
        self.layout
            .offsets()
            .into_iter()
            .map(|o| self.apply_outer(o))
            .collect()
    }
}

impl ComposedLayout {
    /// `swizzle o self`: the swizzle becomes the new outermost layer of the chain.
    ///
    /// ```
    /// use tessel_layout::{ComposedLayout, Swizzle};
    /// let c = ComposedLayout::from_layout("(8,64):(64,1)".parse().unwrap());
    /// let two = c.swizzled(Swizzle::new(3, 3, 3).unwrap()).swizzled(Swizzle::new(1, 3, 3).unwrap());
    /// assert_eq!(two.to_string(), "Sw<1,3,3> o Sw<3,3,3> o (8,64):(64,1)");
    /// ```
    pub fn swizzled(&self, swizzle: Swizzle) -> ComposedLayout {
        let mut swizzles = Vec::with_capacity(self.swizzles.len() + 1);
        swizzles.push(swizzle);
        swizzles.extend_from_slice(&self.swizzles);
        ComposedLayout::new(swizzles, self.offset, self.layout.clone())
    }

    /// The value at a coordinate (1-D, flat or hierarchical) of the inner layout's shape.
    ///
    /// ```
    /// use tessel_layout::{ComposedLayout, IntTuple};
    /// let c: ComposedLayout = "Sw<3,3,3> o (8,64):(64,1)".parse().unwrap();
    /// assert_eq!(c.at(&IntTuple::from_ints([1, 0])).unwrap(), 72);
    /// assert_eq!(c.at(&IntTuple::from_ints([7, 63])).unwrap(), 455);
    /// ```
    pub fn at(&self, coord: &Coord) -> Result<i64> {
        self.checked_outer(self.layout.crd2idx(coord)?)
    }

    /// `self o b`: `Sw o off o (L o B)`, using the layout algebra's composition for `L o B`.
    ///
    /// ```
    /// use tessel_layout::{ComposedLayout, Layout};
    /// let c: ComposedLayout = "Sw<1,0,1> o 4:1".parse().unwrap();
    /// let b: Layout = "2:2".parse().unwrap();
    /// let r = c.compose(&b).unwrap();
    /// assert_eq!(r.offsets(), vec![0, 3]); // Sw<1,0,1> maps 2 to 3
    /// ```
    pub fn compose(&self, b: &Layout) -> Result<ComposedLayout> {
        let inner = crate::composition(&self.layout, b)
            .map_err(|e| e.context(format!("composing {self} with {b}")))?;
        Ok(ComposedLayout::new(
            self.swizzles.clone(),
            self.offset,
            inner,
        ))
    }

    /// `self o inner` for two composed layouts, where representable:
    /// - `inner` without swizzle and offset: [`ComposedLayout::compose`];
    /// - `self` the identity with offset 0 (its layout maps every index to itself): the swizzle
    ///   chains concatenate (a multi-layer swizzle);
    /// - otherwise, as CuTe's `composition(Layout, ComposedLayout)` does, `inner`'s swizzles are
    ///   moved through `self`'s layout `A` (`A o Sw = Sw' o A`, the swizzle's bits mapped through
    ///   `A`) and the result is `self's swizzles o Sw' o (A o B)`. The move is proved or checked
    ///   on every value of `B`; `inner` must have offset 0 (as in CuTe), and an offset of `self`
    ///   must not end up between two swizzles.
    ///
    /// Anything else is an [`ErrorKind::Inadmissible`](crate::ErrorKind) error naming the
    /// condition; adjacent equal swizzles of the result cancel (every swizzle is an involution).
    ///
    /// ```
    /// use tessel_layout::ComposedLayout;
    /// let outer: ComposedLayout = "Sw<1,3,3> o 4096:1".parse().unwrap();
    /// let inner: ComposedLayout = "Sw<3,3,5> o (16,256):(256,1)".parse().unwrap();
    /// let both = outer.compose_composed(&inner).unwrap();
    /// assert_eq!(both.to_string(), "Sw<1,3,3> o Sw<3,3,5> o (16,256):(256,1)");
    /// // CuTe test/unit/cute/core/composition.cpp (CUTLASS v4.2.1) ("Swizzle composition"): the transpose moves
    /// // the swizzle's bits, Sw<2,0,-3> becomes Sw<2,0,3>.
    /// let a: ComposedLayout = "(8,8):(8,1)".parse().unwrap();
    /// let b: ComposedLayout = "Sw<2,0,-3> o (8,8):(8,1)".parse().unwrap();
    /// let r = a.compose_composed(&b).unwrap();
    /// assert_eq!(r.to_string(), "Sw<2,0,3> o (8,8):(1,8)");
    /// for i in 0..64 {
    ///     assert_eq!(r.offset(i).unwrap(), a.offset(b.offset(i).unwrap()).unwrap());
    /// }
    /// ```
    pub fn compose_composed(&self, inner: &ComposedLayout) -> Result<ComposedLayout> {
        if inner.swizzles.is_empty() && inner.offset == 0 {
            return self.compose(&inner.layout);
        }
        let not_representable = |why: String| {
            Error::inadmissible(format!(
                "composition {self} o {inner} is not a composed layout: {why}"
            ))
        };
        if self.offset == 0 && is_identity_function(&self.layout) {
            let (lo, _) = inner.value_range()?;
            if lo < 0 {
                return Err(not_representable(format!(
                    "the right operand reaches the negative value {lo}, outside the domain of \
                     the left one"
                )));
            }
            let mut swizzles = self.swizzles.to_vec();
            swizzles.extend_from_slice(&inner.swizzles);
            return Ok(ComposedLayout::new(
                conjugate::simplify_chain(swizzles),
                inner.offset,
                inner.layout.clone(),
            ));
        }
        if inner.offset != 0 {
            return Err(not_representable(format!(
                "the offset {} of the right operand would have to pass through the layout {} of \
                 the left one (CuTe requires the offset of a swizzled right operand to be 0)",
                inner.offset, self.layout
            )));
        }
        let composed = crate::composition(&self.layout, &inner.layout)
            .map_err(|e| not_representable(e.message().to_string()))?;
        let moved =
            conjugate::move_through(&self.layout, &inner.swizzles, &inner.layout, &composed)
                .map_err(|e| {
                    Error::new(
                        e.kind(),
                        not_representable(e.message().to_string()).message(),
                    )
                })?;
        if self.offset != 0 && !moved.is_empty() {
            return Err(not_representable(format!(
                "the offset {} of the left operand would sit between its swizzles and the \
                 swizzles moved through its layout",
                self.offset
            )));
        }
        let mut swizzles = self.swizzles.to_vec();
        swizzles.extend(moved);
        Ok(ComposedLayout::new(
            conjugate::simplify_chain(swizzles),
            self.offset,
            composed,
        ))
    }

    /// Bounds `(lo, hi)` containing every value: exact for the offset plus layout, widened to the
    /// power-of-two block the swizzles permute.
    ///
    /// ```
    /// let c: tessel_layout::ComposedLayout = "Sw<3,3,3> o (8,8):(8,1)".parse().unwrap();
    /// assert_eq!(c.value_range().unwrap(), (0, 511));
    /// ```
    pub fn value_range(&self) -> Result<(i64, i64)> {
        let (lo, hi) = self.layout.offset_range()?;
        let what = format!("the values of {self}");
        let lo = checked_add(lo, self.offset, &what)?;
        let hi = checked_add(hi, self.offset, &what)?;
        let span = self
            .swizzles
            .iter()
            .map(Swizzle::bit_span)
            .max()
            .unwrap_or(0);
        if span == 0 {
            return Ok((lo, hi));
        }
        if lo < 0 {
            return Err(Error::invalid(format!(
                "{what}: a swizzle of the negative value {lo} is not bounded"
            )));
        }
        let bits = (64 - hi.leading_zeros()).max(span);
        if bits >= 63 {
            return Err(Error::overflow(format!("{what} reach bit {bits}")));
        }
        // XOR only moves bits below max(bit length of hi, span): values stay below 2^bits.
        Ok((0, (1i64 << bits) - 1))
    }

    /// Slices the inner layout and folds the slice offset into the offset (kept before the
    /// swizzles: a swizzle does not distribute over `+`).
    ///
    /// ```
    /// use tessel_layout::{ComposedLayout, SliceCoord};
    /// let c: ComposedLayout = "Sw<3,3,3> o (8,64):(64,1)".parse().unwrap();
    /// let row = c.slice(&SliceCoord::Tuple(vec![SliceCoord::Index(1), SliceCoord::All])).unwrap();
    /// assert_eq!(row.to_string(), "Sw<3,3,3> o 64 o (64):(1)");
    /// assert_eq!(row.offset(0).unwrap(), 72);
    /// ```
    pub fn slice(&self, coord: &SliceCoord) -> Result<ComposedLayout> {
        let (layout, off) = self
            .layout
            .slice(coord)
            .map_err(|e| e.context(format!("slicing {self}")))?;
        let offset = checked_add(self.offset, off, &format!("slicing {self}"))?;
        Ok(ComposedLayout::new(self.swizzles.clone(), offset, layout))
    }

    /// Re-expresses the layout in elements `factor` times wider (CuTe's `upcast<N>`): every
    /// swizzle is upcast, the offset divided, the inner layout upcast with the algebra's
    /// [`upcast`](crate::upcast).
    ///
    /// ```
    /// let c: tessel_layout::ComposedLayout = "Sw<3,4,3> o 16 o 1024:1".parse().unwrap();
    /// assert_eq!(c.upcast(2).unwrap().to_string(), "Sw<3,3,3> o 8 o 512:1");
    /// ```
    pub fn upcast(&self, factor: i64) -> Result<ComposedLayout> {
        let ctx = |e: Error| e.context(format!("upcast of {self} by {factor}"));
        let swizzles = self
            .swizzles
            .iter()
            .map(|sw| sw.upcast(factor))
            .collect::<Result<Vec<_>>>()
            .map_err(ctx)?;
        if factor <= 0 || self.offset % factor != 0 {
            return Err(ctx(Error::inadmissible(format!(
                "the offset {} is not a multiple of {factor}",
                self.offset
            ))));
        }
        let layout = crate::upcast(&self.layout, factor).map_err(ctx)?;
        Ok(ComposedLayout::new(swizzles, self.offset / factor, layout))
    }

    /// CuTe's `tile_to_shape` of a composed layout: the inner layout repeated over `shape` by
    /// [`tile_to_shape`](crate::tile_to_shape), under the same swizzles and offset (the swizzles
    /// act on the larger offsets of the repeated tiles as on the first one's).
    ///
    /// ```
    /// use tessel_layout::{ComposedLayout, IntTuple};
    /// let atom: ComposedLayout = "Sw<3,3,3> o (8,64):(64,1)".parse().unwrap();
    /// let stage = atom.tile_to_shape(&IntTuple::from_ints([64, 64])).unwrap();
    /// // CuTe prints Sw<3,3,3> o _0 o ((_8,_8),(_64,_1)):((_64,_512),(_1,_0)).
    /// assert_eq!(stage.to_string(), "Sw<3,3,3> o ((8,8),(64,1)):((64,512),(1,0))");
    /// assert!(atom.tile_to_shape(&IntTuple::from_ints([12, 64])).is_err());
    /// ```
    pub fn tile_to_shape(&self, shape: &IntTuple) -> Result<ComposedLayout> {
        let layout = crate::tile_to_shape(&self.layout, shape)
            .map_err(|e| e.context(format!("tile_to_shape of {self}")))?;
        Ok(ComposedLayout::new(
            self.swizzles.clone(),
            self.offset,
            layout,
        ))
    }

    /// [`tile_to_shape`](Self::tile_to_shape) with the block's repetitions laid out in `order`
    /// ([`tile_to_shape_ordered`](crate::tile_to_shape_ordered)).
    ///
    /// ```
    /// use tessel_layout::{ComposedLayout, IntTuple};
    /// // The fp16 MN-major 128B GMMA atom over a 128 x 64 (MN x K) stage, K first.
    /// let atom: ComposedLayout = "Sw<3,3,3> o (64,8):(1,64)".parse().unwrap();
    /// let stage = atom.tile_to_shape_ordered(&IntTuple::from_ints([128, 64]), &IntTuple::from_ints([1, 0])).unwrap();
    /// assert_eq!(stage.to_string(), "Sw<3,3,3> o ((64,2),(8,8)):((1,4096),(64,512))");
    /// ```
    pub fn tile_to_shape_ordered(
        &self,
        shape: &IntTuple,
        order: &IntTuple,
    ) -> Result<ComposedLayout> {
        let layout = crate::tile_to_shape_ordered(&self.layout, shape, order)
            .map_err(|e| e.context(format!("tile_to_shape of {self}")))?;
        Ok(ComposedLayout::new(
            self.swizzles.clone(),
            self.offset,
            layout,
        ))
    }

    /// Re-expresses the layout in elements `factor` times narrower (CuTe's `downcast<N>`).
    ///
    /// ```
    /// let c: tessel_layout::ComposedLayout = "Sw<3,3,3> o 8 o 512:1".parse().unwrap();
    /// assert_eq!(c.downcast(2).unwrap().to_string(), "Sw<3,4,3> o 16 o 1024:1");
    /// ```
    pub fn downcast(&self, factor: i64) -> Result<ComposedLayout> {
        let ctx = |e: Error| e.context(format!("downcast of {self} by {factor}"));
        let swizzles = self
            .swizzles
            .iter()
            .map(|sw| sw.downcast(factor))
            .collect::<Result<Vec<_>>>()
            .map_err(ctx)?;
        let offset = checked_mul(self.offset, factor, "the downcast offset").map_err(ctx)?;
        let layout = crate::downcast(&self.layout, factor).map_err(ctx)?;
        Ok(ComposedLayout::new(swizzles, offset, layout))
    }
}

impl<L: Leaf> FromStr for ComposedLayout<L> {
    type Err = Error;

    fn from_str(s: &str) -> Result<Self> {
        parse_whole(s, ComposedLayout::parse)
    }
}

/// Whether the layout, read as a function on all non-negative integers (CuTe's convention),
/// maps every index to itself.
fn is_identity_function(layout: &Layout) -> bool {
    conjugate::ExtendedLayout::of(layout).is_identity()
}

/// Writes `Sw<..> o ... o [OFFSET o] LAYOUT` (the offset only when it is not 0): the notation
/// of run-time, compile-time and symbolic composed layouts alike.
pub(crate) fn write_composed<S: fmt::Display>(
    f: &mut fmt::Formatter<'_>,
    swizzles: &[S],
    offset: i64,
    layout: &impl fmt::Display,
) -> fmt::Result {
    for sw in swizzles {
        write!(f, "{sw} o ")?;
    }
    if offset != 0 {
        write!(f, "{offset} o ")?;
    }
    write!(f, "{layout}")
}

impl<L: Leaf> fmt::Display for ComposedLayout<L> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write_composed(f, &self.swizzles, self.offset, &self.layout)
    }
}
