//! `ComposedLayout`: swizzles applied after an offset and a layout, `Sw o ... o Sw o off o L`.

use std::fmt;

use crate::error::Result;
use crate::layout::Layout;
use crate::swizzle::Swizzle;

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
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct ComposedLayout {
    swizzles: Vec<Swizzle>,
    offset: i64,
    layout: Layout,
}

impl ComposedLayout {
    /// `swizzles[0] o ... o swizzles[n-1] o offset o layout`.
    ///
    /// ```
    /// use tessel_layout::{ComposedLayout, Layout};
    /// let c = ComposedLayout::new(vec![], 32, Layout::vector(4, 1).unwrap());
    /// assert_eq!(c.offset(3).unwrap(), 35);
    /// ```
    pub fn new(swizzles: Vec<Swizzle>, offset: i64, layout: Layout) -> ComposedLayout {
        ComposedLayout {
            swizzles,
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
    pub fn layout(&self) -> &Layout {
        &self.layout
    }

    /// Size of the domain (the inner layout's size).
    ///
    /// ```
    /// use tessel_layout::{ComposedLayout, Layout};
    /// assert_eq!(ComposedLayout::new(vec![], 0, Layout::vector(4, 1).unwrap()).size(), 4);
    /// ```
    pub fn size(&self) -> i64 {
        self.layout.size()
    }

    /// Applies offset and swizzles to an offset produced by the inner layout.
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
        Ok(self.apply_outer(self.layout.offset(index)?))
    }

    /// Every offset, in domain order.
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

impl fmt::Display for ComposedLayout {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for sw in &self.swizzles {
            write!(f, "{sw} o ")?;
        }
        if self.offset != 0 {
            write!(f, "{} o ", self.offset)?;
        }
        write!(f, "{}", self.layout)
    }
}
