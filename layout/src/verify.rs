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

pub use crate::composed::affine::{EXHAUSTIVE_LIMIT, affine_map};
use crate::composed::{ComposedLayout, OffsetMap};
use crate::error::{Error, Result};

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
