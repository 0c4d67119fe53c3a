//! The layout algebra on composed layouts, as CuTe's `include/cute/layout_composed.hpp` defines
//! it: a composed layout `inner o offset o outer` is a function of the coordinates of its outer
//! layout, and every operation that reshapes, tiles or repeats that domain acts on the outer
//! layout alone, keeping the inner function and the offset:
//!
//! ```text
//!     logical_product(inner o off o outer, B) = inner o off o logical_product(outer, B)
//! ```
//!
//! (CuTe: `composition(a.layout_a(), a.offset(), logical_product(a.layout_b(), b))`, and the same
//! for the divides, the products, `tile_to_shape`, `coalesce`, `flatten`, `group`, `take`, ...).
//! For the divides, `flatten`, `coalesce` and the selections the result is the same function
//! re-indexed; a product or `tile_to_shape` reaches larger offsets, to which the inner function
//! (a swizzle, a layout) is applied as to the first ones.
//!
//! ```
//! use tessel_layout::composed::ComposedAlgebra;
//! use tessel_layout::{ComposedLayout, IntTuple};
//! // How a Hopper kernel builds one stage of shared memory from the 128B GMMA atom.
//! let atom: ComposedLayout = "Sw<3,3,3> o (8,64):(64,1)".parse().unwrap();
//! let stage = ComposedAlgebra::tile_to_shape(&atom, &IntTuple::from_ints([64, 64])).unwrap();
//! assert_eq!(stage.to_string(), "Sw<3,3,3> o ((8,8),(64,1)):((64,512),(1,0))");
//! ```

use super::ComposedLayout;
use crate::algebra::{self, Tiler};
use crate::error::{Error, Result};
use crate::int_tuple::IntTuple;
use crate::layout::Layout;

/// The operations of CuTe's `layout_composed.hpp` on a composed layout: each applies the
/// plain-layout operation of [`crate::algebra`] to the outer layout (the domain) and keeps the
/// inner function and the offset. Implemented by [`ComposedLayout`] (a swizzle chain inside) and
/// [`Composition`](super::Composition) (a layout inside).
///
/// ```
/// use tessel_layout::composed::ComposedAlgebra;
/// use tessel_layout::{ComposedLayout, Tiler};
/// // CuTe's logical_product(Sw<3,4,3> o (5,4):(4,1), (2,5):(1,2)): the swizzle stays outside.
/// let a: ComposedLayout = "Sw<3,4,3> o (5,4):(4,1)".parse().unwrap();
/// let b = Tiler::Layout("(2,5):(1,2)".parse().unwrap());
/// let r = a.logical_product(&b).unwrap();
/// assert_eq!(r.to_string(), "Sw<3,4,3> o ((5,4),(2,5)):((4,1),(20,40))");
/// ```
pub trait ComposedAlgebra: Sized {
    /// The outer layout: the first function applied, whose coordinates the composed layout takes
    /// (CuTe's `layout_b()`).
    fn outer(&self) -> &Layout;

    /// The same inner function and offset after another outer layout. Fails where the values
    /// would leave `i64`.
    fn with_outer(&self, outer: Layout) -> Result<Self>;

    /// `self` with its outer layout replaced by `f(outer)`; errors name `what` and `self`.
    fn map_outer(&self, what: &str, f: impl FnOnce(&Layout) -> Result<Layout>) -> Result<Self>
    where
        Self: std::fmt::Display,
    {
        let outer = f(self.outer()).map_err(|e| e.context(format!("{what} of {self}")))?;
        self.with_outer(outer)
    }

    /// CuTe's `logical_divide` of a composed layout.
    ///
    /// ```
    /// use tessel_layout::composed::ComposedAlgebra;
    /// let c: tessel_layout::ComposedLayout = "Sw<1,0,1> o 8:1".parse().unwrap();
    /// let d = c.logical_divide(&tessel_layout::Tiler::Layout("2:1".parse().unwrap())).unwrap();
    /// assert_eq!(d.to_string(), "Sw<1,0,1> o (2,4):(1,2)");
    /// ```
    fn logical_divide(&self, tiler: &Tiler) -> Result<Self>
    where
        Self: std::fmt::Display,
    {
        self.map_outer("logical_divide", |l| algebra::logical_divide(l, tiler))
    }

    /// CuTe's `zipped_divide` of a composed layout.
    ///
    /// ```
    /// use tessel_layout::composed::ComposedAlgebra;
    /// let c: tessel_layout::ComposedLayout = "Sw<1,0,1> o (4,4):(1,4)".parse().unwrap();
    /// let t = tessel_layout::Tiler::ByMode(vec![Some("2:1".parse::<tessel_layout::Layout>().unwrap().into()), None]);
    /// assert!(c.zipped_divide(&t).is_err()); // '_' over the leaf 4:4
    /// ```
    fn zipped_divide(&self, tiler: &Tiler) -> Result<Self>
    where
        Self: std::fmt::Display,
    {
        self.map_outer("zipped_divide", |l| algebra::zipped_divide(l, tiler))
    }

    /// CuTe's `tiled_divide` of a composed layout.
    ///
    /// ```
    /// use tessel_layout::composed::ComposedAlgebra;
    /// let c: tessel_layout::ComposedLayout = "Sw<3,3,3> o (8,64):(64,1)".parse().unwrap();
    /// let t: tessel_layout::Tiler = tessel_layout::Tiler::ByMode(vec![
    ///     Some("4:1".parse::<tessel_layout::Layout>().unwrap().into()),
    ///     Some("8:1".parse::<tessel_layout::Layout>().unwrap().into()),
    /// ]);
    /// assert_eq!(c.tiled_divide(&t).unwrap().to_string(), "Sw<3,3,3> o ((4,8),2,8):((64,1),256,8)");
    /// ```
    fn tiled_divide(&self, tiler: &Tiler) -> Result<Self>
    where
        Self: std::fmt::Display,
    {
        self.map_outer("tiled_divide", |l| algebra::tiled_divide(l, tiler))
    }

    /// CuTe's `flat_divide` of a composed layout.
    ///
    /// ```
    /// use tessel_layout::composed::ComposedAlgebra;
    /// let c: tessel_layout::ComposedLayout = "Sw<1,0,1> o 8:1".parse().unwrap();
    /// let d = c.flat_divide(&tessel_layout::Tiler::Layout("2:1".parse().unwrap())).unwrap();
    /// assert_eq!(d.to_string(), "Sw<1,0,1> o (2,4):(1,2)");
    /// ```
    fn flat_divide(&self, tiler: &Tiler) -> Result<Self>
    where
        Self: std::fmt::Display,
    {
        self.map_outer("flat_divide", |l| algebra::flat_divide(l, tiler))
    }

    /// CuTe's `logical_product` of a composed layout.
    ///
    /// ```
    /// use tessel_layout::composed::ComposedAlgebra;
    /// let c: tessel_layout::ComposedLayout = "Sw<1,0,1> o 4:1".parse().unwrap();
    /// let p = c.logical_product(&tessel_layout::Tiler::Layout("2:1".parse().unwrap())).unwrap();
    /// assert_eq!(p.to_string(), "Sw<1,0,1> o (4,2):(1,4)");
    /// ```
    fn logical_product(&self, tiler: &Tiler) -> Result<Self>
    where
        Self: std::fmt::Display,
    {
        self.map_outer("logical_product", |l| algebra::logical_product(l, tiler))
    }

    /// CuTe's `zipped_product` of a composed layout.
    ///
    /// ```
    /// use tessel_layout::composed::ComposedAlgebra;
    /// let c: tessel_layout::ComposedLayout = "Sw<1,0,1> o 4:1".parse().unwrap();
    /// let p = c.zipped_product(&tessel_layout::Tiler::Layout("2:1".parse().unwrap())).unwrap();
    /// assert_eq!(p.to_string(), "Sw<1,0,1> o (4,2):(1,4)");
    /// ```
    fn zipped_product(&self, tiler: &Tiler) -> Result<Self>
    where
        Self: std::fmt::Display,
    {
        self.map_outer("zipped_product", |l| algebra::zipped_product(l, tiler))
    }

    /// CuTe's `tiled_product` of a composed layout.
    ///
    /// ```
    /// use tessel_layout::composed::ComposedAlgebra;
    /// let c: tessel_layout::ComposedLayout = "Sw<1,0,1> o 4:1".parse().unwrap();
    /// let p = c.tiled_product(&tessel_layout::Tiler::Layout("2:1".parse().unwrap())).unwrap();
    /// assert_eq!(p.to_string(), "Sw<1,0,1> o (4,2):(1,4)");
    /// ```
    fn tiled_product(&self, tiler: &Tiler) -> Result<Self>
    where
        Self: std::fmt::Display,
    {
        self.map_outer("tiled_product", |l| algebra::tiled_product(l, tiler))
    }

    /// CuTe's `flat_product` of a composed layout.
    ///
    /// ```
    /// use tessel_layout::composed::ComposedAlgebra;
    /// let c: tessel_layout::ComposedLayout = "Sw<1,0,1> o 4:1".parse().unwrap();
    /// let p = c.flat_product(&tessel_layout::Tiler::Layout("2:1".parse().unwrap())).unwrap();
    /// assert_eq!(p.to_string(), "Sw<1,0,1> o (4,2):(1,4)");
    /// ```
    fn flat_product(&self, tiler: &Tiler) -> Result<Self>
    where
        Self: std::fmt::Display,
    {
        self.map_outer("flat_product", |l| algebra::flat_product(l, tiler))
    }

    /// CuTe's `blocked_product` of a composed layout.
    ///
    /// ```
    /// use tessel_layout::composed::ComposedAlgebra;
    /// let c: tessel_layout::ComposedLayout = "Sw<1,0,1> o (2,2):(1,2)".parse().unwrap();
    /// let p = c.blocked_product(&"(2,1):(1,0)".parse().unwrap()).unwrap();
    /// assert_eq!(p.to_string(), "Sw<1,0,1> o ((2,2),(2,1)):((1,4),(2,0))");
    /// ```
    fn blocked_product(&self, tiler: &Layout) -> Result<Self>
    where
        Self: std::fmt::Display,
    {
        self.map_outer("blocked_product", |l| algebra::blocked_product(l, tiler))
    }

    /// CuTe's `raked_product` of a composed layout.
    ///
    /// ```
    /// use tessel_layout::composed::ComposedAlgebra;
    /// let c: tessel_layout::ComposedLayout = "Sw<1,0,1> o (2,2):(1,2)".parse().unwrap();
    /// let p = c.raked_product(&"(2,1):(1,0)".parse().unwrap()).unwrap();
    /// assert_eq!(p.to_string(), "Sw<1,0,1> o ((2,2),(1,2)):((4,1),(0,2))");
    /// ```
    fn raked_product(&self, tiler: &Layout) -> Result<Self>
    where
        Self: std::fmt::Display,
    {
        self.map_outer("raked_product", |l| algebra::raked_product(l, tiler))
    }

    /// CuTe's `tile_to_shape` of a composed layout: the outer layout repeated column-major over
    /// `shape` ([`crate::tile_to_shape`]).
    ///
    /// ```
    /// use tessel_layout::composed::ComposedAlgebra;
    /// use tessel_layout::{ComposedLayout, IntTuple};
    /// let atom: ComposedLayout = "Sw<3,3,3> o (8,64):(64,1)".parse().unwrap();
    /// let t = ComposedAlgebra::tile_to_shape(&atom, &IntTuple::from_ints([16, 128])).unwrap();
    /// assert_eq!(t.to_string(), "Sw<3,3,3> o ((8,2),(64,2)):((64,512),(1,1024))");
    /// ```
    fn tile_to_shape(&self, shape: &IntTuple) -> Result<Self>
    where
        Self: std::fmt::Display,
    {
        self.map_outer("tile_to_shape", |l| algebra::tile_to_shape(l, shape))
    }

    /// CuTe's `tile_to_shape(layout, shape, order)` of a composed layout
    /// ([`crate::tile_to_shape_ordered`]).
    ///
    /// ```
    /// use tessel_layout::composed::ComposedAlgebra;
    /// use tessel_layout::{ComposedLayout, IntTuple};
    /// let atom: ComposedLayout = "Sw<3,3,3> o (8,64):(64,1)".parse().unwrap();
    /// let shape = IntTuple::from_ints([16, 128]);
    /// let t = atom.tile_to_shape_ordered(&shape, &IntTuple::from_ints([1, 0])).unwrap();
    /// assert_eq!(t.to_string(), "Sw<3,3,3> o ((8,2),(64,2)):((64,1024),(1,512))");
    /// ```
    fn tile_to_shape_ordered(&self, shape: &IntTuple, order: &IntTuple) -> Result<Self>
    where
        Self: std::fmt::Display,
    {
        self.map_outer("tile_to_shape", |l| {
            algebra::tile_to_shape_ordered(l, shape, order)
        })
    }

    /// CuTe's `select<I...>` of a composed layout: the top-level modes `indices` of the outer
    /// layout, in that order.
    ///
    /// ```
    /// use tessel_layout::composed::ComposedAlgebra;
    /// let c: tessel_layout::ComposedLayout = "Sw<3,3,3> o (8,64):(64,1)".parse().unwrap();
    /// assert_eq!(c.select(&[1, 0]).unwrap().to_string(), "Sw<3,3,3> o (64,8):(1,64)");
    /// ```
    fn select(&self, indices: &[usize]) -> Result<Self>
    where
        Self: std::fmt::Display,
    {
        self.map_outer("select", |l| l.select(indices))
    }

    /// CuTe's `take<B,E>` of a composed layout.
    ///
    /// ```
    /// use tessel_layout::composed::ComposedAlgebra;
    /// let c: tessel_layout::ComposedLayout = "Sw<3,3,3> o (8,64):(64,1)".parse().unwrap();
    /// assert_eq!(c.take(1, 2).unwrap().to_string(), "Sw<3,3,3> o (64):(1)");
    /// ```
    fn take(&self, begin: usize, end: usize) -> Result<Self>
    where
        Self: std::fmt::Display,
    {
        self.map_outer("take", |l| l.take(begin, end))
    }

    /// CuTe's `group<B,E>` of a composed layout.
    ///
    /// ```
    /// use tessel_layout::composed::ComposedAlgebra;
    /// let c: tessel_layout::ComposedLayout = "Sw<1,0,1> o (2,2,2):(1,2,4)".parse().unwrap();
    /// assert_eq!(c.group(1, 3).unwrap().to_string(), "Sw<1,0,1> o (2,(2,2)):(1,(2,4))");
    /// ```
    fn group(&self, begin: usize, end: usize) -> Result<Self>
    where
        Self: std::fmt::Display,
    {
        self.map_outer("group", |l| l.group(begin, end))
    }

    /// CuTe's `get<I...>` (`layout<I...>`) of a composed layout: the sub-layout of the outer
    /// layout at the mode path `path`.
    ///
    /// ```
    /// use tessel_layout::composed::ComposedAlgebra;
    /// let c: tessel_layout::ComposedLayout = "Sw<3,3,3> o (8,64):(64,1)".parse().unwrap();
    /// assert_eq!(c.get(&[1]).unwrap().to_string(), "Sw<3,3,3> o 64:1");
    /// ```
    fn get(&self, path: &[usize]) -> Result<Self>
    where
        Self: std::fmt::Display,
    {
        self.map_outer("get", |l| l.get(path))
    }

    /// CuTe's `flatten` of a composed layout.
    ///
    /// ```
    /// use tessel_layout::composed::ComposedAlgebra;
    /// let c: tessel_layout::ComposedLayout = "Sw<1,0,1> o (2,(2,2)):(1,(2,4))".parse().unwrap();
    /// assert_eq!(ComposedAlgebra::flatten(&c).unwrap().to_string(), "Sw<1,0,1> o (2,2,2):(1,2,4)");
    /// ```
    fn flatten(&self) -> Result<Self>
    where
        Self: std::fmt::Display,
    {
        self.map_outer("flatten", |l| Ok(l.flatten()))
    }

    /// CuTe's `coalesce` of a composed layout.
    ///
    /// ```
    /// use tessel_layout::composed::ComposedAlgebra;
    /// let c: tessel_layout::ComposedLayout = "Sw<1,0,1> o (2,(2,2)):(1,(2,4))".parse().unwrap();
    /// assert_eq!(c.coalesce().unwrap().to_string(), "Sw<1,0,1> o 8:1");
    /// ```
    fn coalesce(&self) -> Result<Self>
    where
        Self: std::fmt::Display,
    {
        self.map_outer("coalesce", algebra::coalesce)
    }

    /// CuTe's `coalesce(layout, profile)` of a composed layout.
    ///
    /// ```
    /// use tessel_layout::composed::ComposedAlgebra;
    /// let c: tessel_layout::ComposedLayout = "Sw<1,0,1> o (2,(2,2)):(1,(2,4))".parse().unwrap();
    /// let p = tessel_layout::IntTuple::from_ints([1, 1]);
    /// assert_eq!(c.coalesce_profile(&p).unwrap().to_string(), "Sw<1,0,1> o (2,4):(1,2)");
    /// ```
    fn coalesce_profile(&self, profile: &IntTuple) -> Result<Self>
    where
        Self: std::fmt::Display,
    {
        self.map_outer("coalesce", |l| algebra::coalesce_profile(l, profile))
    }
}

impl ComposedAlgebra for ComposedLayout {
    fn outer(&self) -> &Layout {
        self.layout()
    }

    fn with_outer(&self, outer: Layout) -> Result<Self> {
        let c = ComposedLayout::new(self.swizzles().to_vec(), self.base_offset(), outer);
        c.check_offsets()
            .map_err(|e| Error::new(e.kind(), format!("{}: {}", c, e.message())))?;
        Ok(c)
    }
}
