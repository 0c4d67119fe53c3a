//! Symbolic layouts: layouts whose stride leaves may be run-time identifiers, e.g.
//! `(128,64):(ld,1)`, and the composed form `Sw<3,3,3> o 32 o (128,64):(ld,1)` that the code
//! emitter takes as input.
//!
//! They are the crate's one layout family with [`SymInt`] leaves (see [`crate::leaf`]): the
//! same types, the same parser and printer as [`Layout`] and [`ComposedLayout`]. This module
//! names them and adds what only a symbolic layout needs: binding its symbols to values.
//!
//! ```
//! use tessel_layout::codegen::SymLayout;
//! // A row-major tile with a run-time leading dimension; bound to ld = 72, row 1 starts at 72.
//! let l: SymLayout = "(128,64):(ld,1)".parse().unwrap();
//! let bound = l.bind(&|s| (s == "ld").then_some(72)).unwrap();
//! assert_eq!(bound.to_string(), "(128,64):(72,1)");
//! assert_eq!(bound.offset(1).unwrap(), 72);
//! ```

use crate::composed::ComposedLayout;
use crate::error::Result;
use crate::int_tuple::IntTuple;
use crate::layout::Layout;

pub use crate::leaf::SymInt;

/// A stride tuple whose leaves are [`SymInt`]s.
///
/// ```
/// use tessel_layout::codegen::{SymInt, SymTuple};
/// let t = SymTuple::tuple([SymTuple::Int(SymInt::Sym("ld".into())), SymTuple::Int(SymInt::Int(1))]);
/// assert_eq!(t.to_string(), "(ld,1)");
/// assert_eq!("(ld,1)".parse::<SymTuple>().unwrap(), t);
/// ```
pub type SymTuple = IntTuple<SymInt>;

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
pub type SymLayout = Layout<SymInt>;

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
pub type SymComposedLayout = ComposedLayout<SymInt>;

impl ComposedLayout<SymInt> {
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
        let c = ComposedLayout::new(
            self.swizzles().to_vec(),
            self.base_offset(),
            self.layout().bind(value)?,
        );
        c.check_offsets()?;
        Ok(c)
    }
}

impl From<&ComposedLayout> for SymComposedLayout {
    /// The same swizzled layout with every stride a known [`SymInt`].
    ///
    /// ```
    /// use tessel_layout::{ComposedLayout, codegen::SymComposedLayout};
    /// let c: ComposedLayout = "Sw<1,0,1> o 4:1".parse().unwrap();
    /// assert_eq!(SymComposedLayout::from(&c).to_string(), "Sw<1,0,1> o 4:1");
    /// ```
    fn from(c: &ComposedLayout) -> SymComposedLayout {
        SymComposedLayout::new(c.swizzles().to_vec(), c.base_offset(), c.layout().into())
    }
}

impl From<&Layout> for SymComposedLayout {
    fn from(l: &Layout) -> SymComposedLayout {
        SymComposedLayout::from_layout(l.into())
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

impl From<&SymLayout> for SymComposedLayout {
    fn from(l: &SymLayout) -> SymComposedLayout {
        SymComposedLayout::from_layout(l.clone())
    }
}

impl From<&SymComposedLayout> for SymComposedLayout {
    fn from(c: &SymComposedLayout) -> SymComposedLayout {
        c.clone()
    }
}

/// Typed layouts (see [`crate::typed`]) as the emitter's input.
impl crate::typed::TypedLayout {
    /// The code emitter's input for this layout: a static stride is a
    /// constant of the emitted code; a dynamic stride is the run-time parameter `name` gives it
    /// (called with the stride's leaf index, left to right, and its value), or a constant where
    /// `name` gives none. The extents are the emitter's integers. Basis strides have no
    /// emitted form (an error).
    ///
    /// ```
    /// use tessel_layout::typed::TypedLayout;
    /// // A static 128 x 64 tile of a matrix with a run-time leading dimension.
    /// let tile: TypedLayout = "(_128,_64):(4096,_1)".parse().unwrap();
    /// let sym = tile.to_symbolic(&mut |_, _| Some("ld".to_string())).unwrap();
    /// assert_eq!(sym.to_string(), "(128,64):(ld,1)");
    /// assert_eq!(tile.to_symbolic(&mut |_, _| None).unwrap().to_string(), "(128,64):(4096,1)");
    /// ```
    pub fn to_symbolic(
        &self,
        name: &mut dyn FnMut(usize, crate::static_int::Integer) -> Option<String>,
    ) -> Result<SymLayout> {
        let mut k = 0usize;
        let stride = self.stride().map_to(&mut |d| {
            let index = k;
            k += 1;
            if !d.is_integer() {
                return Err(crate::Error::invalid(format!(
                    "{self} has the basis stride {d}: a coordinate layout has no emitted form"
                )));
            }
            let v = d.value();
            Ok(match v {
                crate::static_int::Integer::Static(c) => SymInt::Int(c),
                crate::static_int::Integer::Dynamic(c) => {
                    name(index, v).map_or(SymInt::Int(c), SymInt::Sym)
                }
            })
        })?;
        Layout::new(self.shape().values(), stride)
    }
}
