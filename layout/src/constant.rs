//! Layouts as compile-time constants: what the `layout!` and `swizzle!` macros of the `tessel`
//! crate expand to. These types live in `const`/`static` items (their tuples are `&'static`
//! slices), evaluate offsets in `const fn`s, and convert to the run-time types
//! ([`Layout`], [`Swizzle`], [`ComposedLayout`]) for the rest of the algebra.
//!
//! The macros validate their input at compile time; values written by hand are checked when
//! converted (`to_layout`, `to_swizzle`, `to_composed`). The `const fn`s never wrap: each
//! `checked_*` one returns `None` for an index outside `0..size`, an invalid value (extent below
//! 1, shape and stride not congruent, swizzle parameters [`Swizzle::new`] rejects) or a result
//! that does not fit in `i64`; the plain one (`offset`, `apply`, `size`, `product`) returns the
//! same value unwrapped and panics in those cases, like slice indexing, which in a `const` item
//! is a compile error. For every value the macros produce and every index in `0..size`, nothing
//! fails.
//!
//! ```
//! use tessel_layout::constant::{ConstIntTuple as T, ConstLayout};
//! const L: ConstLayout = ConstLayout {
//!     shape: T::Tuple(&[T::Int(4), T::Int(8)]),
//!     stride: T::Tuple(&[T::Int(8), T::Int(1)]),
//! };
//! const SIZE: i64 = L.size();
//! const AT5: i64 = L.offset(5);
//! assert_eq!((SIZE, AT5), (32, 9));
//! assert_eq!(L.checked_offset(32), None); // out of range: L.offset(32) would panic
//! const HUGE: ConstLayout = ConstLayout { shape: T::Int(2), stride: T::Int(i64::MAX) };
//! assert_eq!(HUGE.checked_offset(1), Some(i64::MAX));
//! assert_eq!(L.to_layout().unwrap().to_string(), "(4,8):(8,1)");
//! ```

use std::fmt;

use crate::composed::{ComposedLayout, write_composed};
use crate::error::Result;
use crate::int_tuple::IntTuple;
use crate::layout::Layout;
use crate::swizzle::Swizzle;

/// An integer or a tuple of `ConstIntTuple`s, in static storage.
///
/// ```
/// use tessel_layout::constant::ConstIntTuple as T;
/// const S: T = T::Tuple(&[T::Int(4), T::Tuple(&[T::Int(2), T::Int(3)])]);
/// const N: i64 = S.product();
/// assert_eq!(N, 24);
/// assert_eq!(S.to_string(), "(4,(2,3))");
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ConstIntTuple {
    /// A leaf.
    Int(i64),
    /// A tuple.
    Tuple(&'static [ConstIntTuple]),
}

impl ConstIntTuple {
    /// Product of the leaves, `None` when it overflows `i64`.
    ///
    /// ```
    /// use tessel_layout::constant::ConstIntTuple as T;
    /// assert_eq!(T::Tuple(&[T::Int(4), T::Int(8)]).checked_product(), Some(32));
    /// assert_eq!(T::Tuple(&[T::Int(1 << 40), T::Int(1 << 40)]).checked_product(), None);
    /// ```
    pub const fn checked_product(&self) -> Option<i64> {
        match self {
            ConstIntTuple::Int(v) => Some(*v),
            ConstIntTuple::Tuple(items) => {
                let mut acc = 1i64;
                let mut k = 0;
                while k < items.len() {
                    acc = match items[k].checked_product() {
                        Some(p) => match acc.checked_mul(p) {
                            Some(v) => v,
                            None => return None,
                        },
                        None => return None,
                    };
                    k += 1;
                }
                Some(acc)
            }
        }
    }

    /// Product of the leaves; panics when it overflows `i64` (never for macro-made values).
    ///
    /// ```
    /// use tessel_layout::constant::ConstIntTuple as T;
    /// assert_eq!(T::Tuple(&[]).product(), 1);
    /// ```
    pub const fn product(&self) -> i64 {
        match self.checked_product() {
            Some(p) => p,
            None => panic!("the product of the tuple overflows i64"),
        }
    }

    /// Number of top-level modes (1 for an integer).
    ///
    /// ```
    /// use tessel_layout::constant::ConstIntTuple as T;
    /// assert_eq!(T::Tuple(&[T::Int(1), T::Int(2)]).rank(), 2);
    /// ```
    pub const fn rank(&self) -> usize {
        match self {
            ConstIntTuple::Int(_) => 1,
            ConstIntTuple::Tuple(items) => items.len(),
        }
    }

    /// The run-time [`IntTuple`] with the same value.
    ///
    /// ```
    /// use tessel_layout::constant::ConstIntTuple as T;
    /// assert_eq!(T::Int(3).to_int_tuple(), tessel_layout::IntTuple::Int(3));
    /// ```
    pub fn to_int_tuple(&self) -> IntTuple {
        match self {
            ConstIntTuple::Int(v) => IntTuple::Int(*v),
            ConstIntTuple::Tuple(items) => {
                IntTuple::Tuple(items.iter().map(ConstIntTuple::to_int_tuple).collect())
            }
        }
    }
}

/// `(offset contribution, remaining index)` of the non-negative `rest` split over a (sub)shape,
/// exactly (in `i128`); `None` for an extent below 1, a non-congruent stride or an `i128`
/// overflow.
const fn split_index(
    shape: &ConstIntTuple,
    stride: &ConstIntTuple,
    rest: i64,
) -> Option<(i128, i64)> {
    match (shape, stride) {
        (ConstIntTuple::Int(s), ConstIntTuple::Int(d)) => {
            if *s <= 0 {
                return None;
            }
            Some(((rest % *s) as i128 * *d as i128, rest / *s))
        }
        (ConstIntTuple::Tuple(ss), ConstIntTuple::Tuple(ds)) => {
            if ss.len() != ds.len() {
                return None;
            }
            let mut off = 0i128;
            let mut rest = rest;
            let mut k = 0;
            while k < ss.len() {
                let Some((o, r)) = split_index(&ss[k], &ds[k], rest) else {
                    return None;
                };
                off = match off.checked_add(o) {
                    Some(v) => v,
                    None => return None,
                };
                rest = r;
                k += 1;
            }
            Some((off, rest))
        }
        _ => None,
    }
}

/// `v` as an `i64`, if it fits.
const fn narrow(v: i128) -> Option<i64> {
    if v < i64::MIN as i128 || v > i64::MAX as i128 {
        None
    } else {
        Some(v as i64)
    }
}

/// A layout `shape:stride` in static storage.
///
/// ```
/// use tessel_layout::constant::{ConstIntTuple as T, ConstLayout};
/// static L: ConstLayout = ConstLayout { shape: T::Int(8), stride: T::Int(2) };
/// assert_eq!(L.offset(3), 6);
/// assert_eq!(L.to_string(), "8:2");
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ConstLayout {
    /// The shape.
    pub shape: ConstIntTuple,
    /// The stride, congruent to the shape.
    pub stride: ConstIntTuple,
}

impl ConstLayout {
    /// The domain size; panics when the product of the shape overflows `i64` (never for
    /// macro-made values; see [`ConstIntTuple::checked_product`]).
    ///
    /// ```
    /// use tessel_layout::constant::{ConstIntTuple as T, ConstLayout};
    /// assert_eq!(ConstLayout { shape: T::Int(8), stride: T::Int(2) }.size(), 8);
    /// ```
    pub const fn size(&self) -> i64 {
        self.shape.product()
    }

    /// The offset of the 1-D index `index` (colexicographic), computed exactly: `None` unless
    /// `0 <= index < size`, the value is a valid layout (extents at least 1, congruent) and the
    /// offset fits in `i64`.
    ///
    /// ```
    /// use tessel_layout::constant::{ConstIntTuple as T, ConstLayout};
    /// let l = ConstLayout { shape: T::Tuple(&[T::Int(2), T::Int(2)]), stride: T::Tuple(&[T::Int(2), T::Int(1)]) };
    /// assert_eq!(l.checked_offset(1), Some(2));
    /// assert_eq!(l.checked_offset(4), None);
    /// assert_eq!(l.checked_offset(-1), None);
    /// let too_big = ConstLayout { shape: T::Int(3), stride: T::Int(i64::MAX) };
    /// assert_eq!(too_big.checked_offset(2), None);
    /// ```
    pub const fn checked_offset(&self, index: i64) -> Option<i64> {
        let Some(size) = self.shape.checked_product() else {
            return None;
        };
        if index < 0 || index >= size {
            return None;
        }
        match split_index(&self.shape, &self.stride, index) {
            Some((off, _)) => narrow(off),
            None => None,
        }
    }

    /// The offset of the 1-D index `index` (colexicographic), for `0 <= index < size`; panics
    /// where [`checked_offset`](Self::checked_offset) is `None` (out of range, or an invalid
    /// hand-written value), which in a `const` item is a compile error. It never wraps.
    ///
    /// ```
    /// use tessel_layout::constant::{ConstIntTuple as T, ConstLayout};
    /// let l = ConstLayout { shape: T::Tuple(&[T::Int(2), T::Int(2)]), stride: T::Tuple(&[T::Int(2), T::Int(1)]) };
    /// assert_eq!(l.offset(1), 2);
    /// assert!(std::panic::catch_unwind(|| l.offset(4)).is_err());
    /// ```
    pub const fn offset(&self, index: i64) -> i64 {
        match self.checked_offset(index) {
            Some(v) => v,
            None => panic!("layout offset: index out of range, invalid layout, or i64 overflow"),
        }
    }

    /// The validated run-time [`Layout`].
    ///
    /// ```
    /// use tessel_layout::constant::{ConstIntTuple as T, ConstLayout};
    /// let bad = ConstLayout { shape: T::Tuple(&[T::Int(2)]), stride: T::Int(1) };
    /// assert!(bad.to_layout().is_err());
    /// ```
    pub fn to_layout(&self) -> Result<Layout> {
        Layout::new(self.shape.to_int_tuple(), self.stride.to_int_tuple())
    }
}

/// A swizzle `Sw<bits,base,shift>` in static storage.
///
/// ```
/// use tessel_layout::constant::ConstSwizzle;
/// const SW: ConstSwizzle = ConstSwizzle { bits: 3, base: 3, shift: 3 };
/// const X: i64 = SW.apply(72);
/// assert_eq!(X, 64);
/// assert_eq!(SW.to_swizzle().unwrap().to_string(), "Sw<3,3,3>");
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ConstSwizzle {
    /// `B`: the number of bits XORed.
    pub bits: u32,
    /// `M`: the number of low bits kept.
    pub base: u32,
    /// `S`: the distance from source to target bits (negative: shifted left).
    pub shift: i32,
}

impl ConstSwizzle {
    /// Whether [`Swizzle::new`] accepts the parameters: `|S| >= B` (unless `B = 0`) and
    /// `B + M + |S| <= 62`.
    ///
    /// ```
    /// use tessel_layout::constant::ConstSwizzle;
    /// assert!(ConstSwizzle { bits: 3, base: 3, shift: 3 }.is_valid());
    /// assert!(!ConstSwizzle { bits: 3, base: 0, shift: 1 }.is_valid());
    /// ```
    pub const fn is_valid(&self) -> bool {
        let shift = self.shift.unsigned_abs() as u64;
        (self.bits == 0 || shift >= self.bits as u64)
            && self.bits as u64 + self.base as u64 + shift <= 62
    }

    /// `x ^ ((x & YYY) >> S)` as [`Swizzle::apply`]; `None` for parameters that are not
    /// [`is_valid`](Self::is_valid).
    ///
    /// ```
    /// use tessel_layout::constant::ConstSwizzle;
    /// assert_eq!(ConstSwizzle { bits: 1, base: 0, shift: -1 }.checked_apply(1), Some(3));
    /// assert_eq!(ConstSwizzle { bits: 40, base: 40, shift: 40 }.checked_apply(1), None);
    /// ```
    pub const fn checked_apply(&self, x: i64) -> Option<i64> {
        if !self.is_valid() {
            return None;
        }
        let up = if self.shift > 0 { self.shift as u32 } else { 0 };
        let down = if self.shift < 0 {
            self.shift.unsigned_abs()
        } else {
            0
        };
        let yyy = ((1i64 << self.bits) - 1) << (self.base + up);
        let picked = x & yyy;
        Some(x ^ ((picked >> up) << down))
    }

    /// `x ^ ((x & YYY) >> S)` as [`Swizzle::apply`]; panics for parameters that are not
    /// [`is_valid`](Self::is_valid) (never for macro-made values).
    ///
    /// ```
    /// use tessel_layout::constant::ConstSwizzle;
    /// assert_eq!(ConstSwizzle { bits: 1, base: 0, shift: -1 }.apply(1), 3);
    /// ```
    pub const fn apply(&self, x: i64) -> i64 {
        match self.checked_apply(x) {
            Some(v) => v,
            None => panic!("swizzle parameters that Swizzle::new rejects"),
        }
    }

    /// The validated run-time [`Swizzle`].
    ///
    /// ```
    /// use tessel_layout::constant::ConstSwizzle;
    /// assert!(ConstSwizzle { bits: 3, base: 0, shift: 1 }.to_swizzle().is_err());
    /// ```
    pub fn to_swizzle(&self) -> Result<Swizzle> {
        Swizzle::new(
            i64::from(self.bits),
            i64::from(self.base),
            i64::from(self.shift),
        )
    }
}

/// `Sw o ... o Sw o offset o layout` in static storage (swizzles outermost first).
///
/// ```
/// use tessel_layout::constant::{ConstComposedLayout, ConstIntTuple as T, ConstLayout, ConstSwizzle};
/// const C: ConstComposedLayout = ConstComposedLayout {
///     swizzles: &[ConstSwizzle { bits: 3, base: 3, shift: 3 }],
///     offset: 0,
///     layout: ConstLayout { shape: T::Tuple(&[T::Int(8), T::Int(64)]), stride: T::Tuple(&[T::Int(64), T::Int(1)]) },
/// };
/// const AT1: i64 = C.offset(1);
/// assert_eq!(AT1, 72); // coordinate (1,0), docs/semantics.md
/// assert_eq!(C.to_composed().unwrap().offset(7 + 63 * 8).unwrap(), 455);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ConstComposedLayout {
    /// The swizzles, outermost (applied last) first.
    pub swizzles: &'static [ConstSwizzle],
    /// The offset added before the swizzles.
    pub offset: i64,
    /// The inner layout.
    pub layout: ConstLayout,
}

impl ConstComposedLayout {
    /// The domain size.
    ///
    /// ```
    /// use tessel_layout::constant::{ConstComposedLayout, ConstIntTuple as T, ConstLayout};
    /// let c = ConstComposedLayout { swizzles: &[], offset: 3, layout: ConstLayout { shape: T::Int(4), stride: T::Int(1) } };
    /// assert_eq!(c.size(), 4);
    /// ```
    pub const fn size(&self) -> i64 {
        self.layout.size()
    }

    /// The offset of the 1-D index `index`: `None` where the inner layout's
    /// [`checked_offset`](ConstLayout::checked_offset) is, when adding the base offset
    /// overflows `i64`, or for an invalid swizzle.
    ///
    /// ```
    /// use tessel_layout::constant::{ConstComposedLayout, ConstIntTuple as T, ConstLayout};
    /// let c = ConstComposedLayout { swizzles: &[], offset: i64::MAX, layout: ConstLayout { shape: T::Int(2), stride: T::Int(1) } };
    /// assert_eq!(c.checked_offset(0), Some(i64::MAX));
    /// assert_eq!(c.checked_offset(1), None); // i64::MAX + 1
    /// ```
    pub const fn checked_offset(&self, index: i64) -> Option<i64> {
        let Some(inner) = self.layout.checked_offset(index) else {
            return None;
        };
        let Some(mut x) = inner.checked_add(self.offset) else {
            return None;
        };
        let mut k = self.swizzles.len();
        while k > 0 {
            k -= 1;
            x = match self.swizzles[k].checked_apply(x) {
                Some(v) => v,
                None => return None,
            };
        }
        Some(x)
    }

    /// The offset of the 1-D index `index`, for `0 <= index < size`; panics where
    /// [`checked_offset`](Self::checked_offset) is `None`, which in a `const` item is a
    /// compile error. It never wraps.
    ///
    /// ```
    /// use tessel_layout::constant::{ConstComposedLayout, ConstIntTuple as T, ConstLayout};
    /// let c = ConstComposedLayout { swizzles: &[], offset: 3, layout: ConstLayout { shape: T::Int(4), stride: T::Int(1) } };
    /// assert_eq!(c.offset(2), 5);
    /// ```
    pub const fn offset(&self, index: i64) -> i64 {
        match self.checked_offset(index) {
            Some(v) => v,
            None => panic!("layout offset: index out of range, invalid layout, or i64 overflow"),
        }
    }

    /// The validated run-time [`ComposedLayout`].
    ///
    /// ```
    /// use tessel_layout::constant::{ConstComposedLayout, ConstIntTuple as T, ConstLayout};
    /// let c = ConstComposedLayout { swizzles: &[], offset: 3, layout: ConstLayout { shape: T::Int(4), stride: T::Int(1) } };
    /// assert_eq!(c.to_composed().unwrap().to_string(), "3 o 4:1");
    /// ```
    pub fn to_composed(&self) -> Result<ComposedLayout> {
        let swizzles = self
            .swizzles
            .iter()
            .map(ConstSwizzle::to_swizzle)
            .collect::<Result<_>>()?;
        Ok(ComposedLayout::new(
            swizzles,
            self.offset,
            self.layout.to_layout()?,
        ))
    }
}

impl fmt::Display for ConstIntTuple {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.to_int_tuple())
    }
}

impl fmt::Display for ConstLayout {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}", self.shape, self.stride)
    }
}

impl fmt::Display for ConstSwizzle {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Sw<{},{},{}>", self.bits, self.base, self.shift)
    }
}

impl fmt::Display for ConstComposedLayout {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write_composed(f, self.swizzles, self.offset, &self.layout)
    }
}
