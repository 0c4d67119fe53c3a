//! The GF(2) affine map of a swizzled layout whose structure guarantees one, and the largest
//! domain the crate enumerates where it does not: what [`crate::verify`] decides bijectivity
//! with and what moving a swizzle through a layout ([`super::conjugate`]) proves its rewrites
//! with. Both are re-exported from [`crate::verify`].

use super::ComposedLayout;
use crate::error::Result;
use crate::f2::{AffineMap, exact_log2};

/// The largest domain decided by enumeration when the map is not GF(2)-affine.
///
/// ```
/// use tessel_layout::{ComposedLayout, Layout, Swizzle, verify};
/// // 3 is not a power of two, so this swizzled layout of 3 * 2^21 > 2^22 elements is not decided.
/// let l: Layout = "(3,2097152):(1,3)".parse().unwrap();
/// assert!(l.size() > verify::EXHAUSTIVE_LIMIT);
/// let c = ComposedLayout::new(vec![Swizzle::new(1, 0, 1).unwrap()], 0, l.clone());
/// assert!(verify::is_injective(&c).unwrap_err().to_string().contains("enumeration limit"));
/// // Without a swizzle the plain layout's analytic check decides it.
/// assert!(verify::is_bijective(&l).unwrap());
/// ```
pub const EXHAUSTIVE_LIMIT: i64 = 1 << 22;

/// The GF(2) affine map of the layout when it provably is one (see [`crate::verify`]): `None`
/// when the structure does not guarantee affinity.
///
/// ```
/// use tessel_layout::{ComposedLayout, verify::affine_map};
/// let c: ComposedLayout = "Sw<1,0,1> o (2,2):(1,2)".parse().unwrap();
/// assert_eq!(affine_map(&c).unwrap().unwrap().columns(), &[1, 3]);
/// assert!(affine_map(&"(3,2):(1,3)".parse::<ComposedLayout>().unwrap()).unwrap().is_none());
/// ```
pub fn affine_map(c: &ComposedLayout) -> Result<Option<AffineMap>> {
    let Some(input_bits) = exact_log2(c.size()) else {
        return Ok(None);
    };
    let mut used = 0u64;
    for (extent, stride) in c.layout().flat_modes() {
        let Some(width) = exact_log2(extent) else {
            return Ok(None);
        };
        if width == 0 || stride == 0 {
            continue;
        }
        let Some(low) = exact_log2(stride) else {
            return Ok(None);
        };
        if low + width > 62 {
            return Ok(None);
        }
        let bits = ((1u64 << width) - 1) << low;
        if used & bits != 0 {
            return Ok(None);
        }
        used |= bits;
    }
    if c.base_offset() < 0 || (c.base_offset() as u64) & used != 0 {
        return Ok(None);
    }
    AffineMap::probe(input_bits, |x| {
        // x < size, so the index is in range and non-negative offsets stay non-negative.
        c.offset(x as i64).map(|v| v as u64)
    })
    .map(Some)
}
