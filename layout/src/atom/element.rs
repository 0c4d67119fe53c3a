//! CuTe's element types by name, with their widths: the template arguments of the copy atoms
//! named by element type (`UniversalCopy<double>`, `SM80_CP_ASYNC_CACHEALWAYS<half_t>`), whose
//! traits depend only on `sizeof_bits<T>` (CuTe `include/cute/atom/copy_traits.hpp`,
//! `copy_traits_sm80.hpp`; the types of `include/cute/numeric/numeric_types.hpp`, CUTLASS
//! v4.2.1).

use crate::{Error, Result};

/// CuTe's element types and their widths in bits (`sizeof_bits<T>`), in the spelling CuTe's
/// sources use (a `cute::` prefix is accepted too).
///
/// ```
/// use tessel_layout::atom::ELEMENT_TYPES;
/// assert!(ELEMENT_TYPES.contains(&("double", 64)));
/// assert!(ELEMENT_TYPES.iter().all(|&(_, bits)| [8, 16, 32, 64, 128].contains(&bits)));
/// ```
pub const ELEMENT_TYPES: &[(&str, u32)] = &[
    ("uint8_t", 8),
    ("int8_t", 8),
    ("char", 8),
    ("float_e4m3_t", 8),
    ("float_e5m2_t", 8),
    ("uint16_t", 16),
    ("int16_t", 16),
    ("half_t", 16),
    ("bfloat16_t", 16),
    ("uint32_t", 32),
    ("int32_t", 32),
    ("int", 32),
    ("float", 32),
    ("tfloat32_t", 32),
    ("uint64_t", 64),
    ("int64_t", 64),
    ("double", 64),
    ("uint128_t", 128),
];

/// The width in bits of the CuTe element type `name` (`uint32_t`, `double`, `cute::half_t`,
/// ...), or an error listing the known ones.
///
/// ```
/// use tessel_layout::atom::element_bits;
/// assert_eq!(element_bits("double").unwrap(), 64);
/// assert_eq!(element_bits("cute::half_t").unwrap(), 16);
/// assert!(element_bits("float3").unwrap_err().message().contains("uint128_t"));
/// ```
pub fn element_bits(name: &str) -> Result<u32> {
    let bare = name.trim();
    let bare = bare.strip_prefix("cute::").unwrap_or(bare);
    ELEMENT_TYPES
        .iter()
        .find(|(n, _)| *n == bare)
        .map(|&(_, bits)| bits)
        .ok_or_else(|| {
            let known: Vec<&str> = ELEMENT_TYPES.iter().map(|(n, _)| *n).collect();
            Error::invalid(format!(
                "unknown element type `{name}`; CuTe's element types are {}",
                known.join(", ")
            ))
        })
}
