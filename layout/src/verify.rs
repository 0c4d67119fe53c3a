//! Injectivity and bijectivity of plain and swizzled layouts.
//!
//! A layout whose extents and strides are powers of two, with the modes on disjoint bit ranges,
//! moves index bits to offset bits without carries; an offset on other bits and any chain of
//! swizzles keep the map affine over GF(2). Such maps are decided by the rank of their bit
//! matrix, whatever their size. A layout without swizzles is decided analytically by
//! [`crate::algebra::is_injective`] / [`crate::algebra::is_bijective`]. Everything else is decided
//! by enumerating the domain, up to [`EXHAUSTIVE_LIMIT`] elements.
//!
//! ```
//! use tessel_layout::{ComposedLayout, verify};
//! // Swizzles permute offsets: a compact tile stays a bijection onto 0..512.
//! let c: ComposedLayout = "Sw<3,3,3> o (8,64):(64,1)".parse().unwrap();
//! assert!(verify::is_bijective(&c).unwrap());
//! ```

use crate::composed::{ComposedLayout, OffsetMap};
use crate::error::{Error, Result};
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

/// Whether distinct domain indices have distinct offsets.
///
/// ```
/// use tessel_layout::{ComposedLayout, Layout, verify};
/// let l: Layout = "(4,8):(8,1)".parse().unwrap();
/// assert!(verify::is_injective(&l).unwrap());
/// let c: ComposedLayout = "Sw<3,3,3> o (8,64):(64,1)".parse().unwrap();
/// assert!(verify::is_injective(&c).unwrap());
/// assert!(!verify::is_injective(&"(2,2):(1,1)".parse::<Layout>().unwrap()).unwrap());
/// ```
pub fn is_injective(map: &impl OffsetMap) -> Result<bool> {
    let c = map.to_composed();
    if c.swizzles().is_empty() {
        // An offset shifts every value alike: the plain layout's analytic check decides.
        return crate::algebra::is_injective(c.layout());
    }
    match affine_map(&c)? {
        Some(m) => Ok(m.is_injective()),
        None => exhaustive(&c, "is_injective").map(|offsets| all_distinct(offsets, None)),
    }
}

/// Whether the map is a bijection from its domain onto `0..size`: the offsets (swizzles,
/// base offset and negative strides included) are exactly `0..size`, each once. This is
/// tessel's definition (CuTe names no such predicate); a map that is one-to-one onto some other
/// range is [`is_injective`] but not bijective.
///
/// ```
/// use tessel_layout::{ComposedLayout, Layout, verify};
/// assert!(verify::is_bijective(&"(4,8):(8,1)".parse::<Layout>().unwrap()).unwrap());
/// assert!(!verify::is_bijective(&"(4,8):(16,1)".parse::<Layout>().unwrap()).unwrap());
/// let c: ComposedLayout = "Sw<1,3,3> o Sw<3,3,5> o (16,256):(256,1)".parse().unwrap();
/// assert!(verify::is_bijective(&c).unwrap());
/// // Offset 3, then 4:-1: the offsets are 3,2,1,0.
/// assert!(verify::is_bijective(&"3 o 4:-1".parse::<ComposedLayout>().unwrap()).unwrap());
/// assert!(!verify::is_bijective(&"4:-1".parse::<Layout>().unwrap()).unwrap());
/// ```
pub fn is_bijective(map: &impl OffsetMap) -> Result<bool> {
    let c = map.to_composed();
    if c.swizzles().is_empty() {
        // A shift of the plain layout's offsets: decided analytically, the base offset and the
        // reach of negative strides included.
        return crate::algebra::vector::is_bijective_at(c.layout(), c.base_offset());
    }
    match affine_map(&c)? {
        Some(m) => Ok(m.is_bijective_onto_domain()),
        None => {
            let size = c.size();
            exhaustive(&c, "is_bijective").map(|offsets| all_distinct(offsets, Some(size)))
        }
    }
}

/// The GF(2) affine map of the layout when it provably is one (see the module docs): `None`
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

fn exhaustive(c: &ComposedLayout, what: &str) -> Result<Vec<i64>> {
    if c.size() > EXHAUSTIVE_LIMIT {
        return Err(Error::invalid(format!(
            "{what} of {c}: too large to decide: the map is not GF(2)-affine (extents and strides \
             not powers of two on disjoint bits) and its size {} exceeds the enumeration limit {}",
            c.size(),
            EXHAUSTIVE_LIMIT
        )));
    }
    crate::budget::charge(c.size(), &format!("{what} of {c}"))?;
    Ok(c.offsets())
}

/// Whether the offsets are pairwise distinct and, with `Some(size)`, all in `0..size`.
fn all_distinct(mut offsets: Vec<i64>, range: Option<i64>) -> bool {
    if let Some(size) = range {
        if offsets.iter().any(|&o| !(0..size).contains(&o)) {
            return false;
        }
    }
    offsets.sort_unstable();
    offsets.windows(2).all(|w| w[0] != w[1])
}
