//! CuTe's GMMA shared-memory layout atoms (`GMMA::Layout_K_SW128_Atom<T>` and friends): the
//! smallest tiles of each swizzle mode that wgmma descriptors describe, defined in bits and upcast
//! to the element type, as [`include/cute/atom/mma_traits_sm90_gmma.hpp`](https://github.com/NVIDIA/cutlass/blob/v4.2.1/include/cute/atom/mma_traits_sm90_gmma.hpp) defines them.

use super::{Major, SwizzleMode};
use crate::{ComposedLayout, Error, Layout, Result};

/// An atom in bits: 8 rows of one swizzled row each (`span_bytes * 8` bits), K-major as
/// `(8, row_bits):(row_bits, 1)` and MN-major as `(row_bits, 8):(1, row_bits)`, under the mode's
/// swizzle on bit offsets (`Sw<B,7,3>`, the byte swizzle `Sw<B,4,3>` counted in bits).
///
/// ```
/// use tessel_layout::gmma::{Major, SwizzleMode, smem_atom_bits};
/// // CuTe: Layout_K_SW128_Atom_Bits = Sw<3,4,3> o smem_ptr_flag o (8,1024):(1024,1), whose
/// // swizzle acts on byte addresses: Sw<3,7,3> on bit offsets.
/// assert_eq!(smem_atom_bits(Major::K, SwizzleMode::B128).to_string(), "Sw<3,7,3> o (8,1024):(1024,1)");
/// assert_eq!(smem_atom_bits(Major::MN, SwizzleMode::B32).to_string(), "Sw<1,7,3> o (256,8):(1,256)");
/// assert_eq!(smem_atom_bits(Major::K, SwizzleMode::None).to_string(), "(8,128):(128,1)");
/// ```
pub fn smem_atom_bits(major: Major, mode: SwizzleMode) -> ComposedLayout {
    let row_bits = 8 * mode.span_bytes();
    let (rows, cols) = (
        Layout::vector(8, row_bits).expect("a small vector is a valid layout"),
        Layout::vector(row_bits, 1).expect("a small vector is a valid layout"),
    );
    let modes = match major {
        Major::K => [rows, cols],
        Major::MN => [cols, rows],
    };
    let layout = Layout::from_modes(modes).expect("a small compact atom is a valid layout");
    let swizzles = if mode == SwizzleMode::None {
        vec![]
    } else {
        let bits = mode
            .byte_swizzle()
            .downcast(8)
            .expect("a byte swizzle counts in bits");
        vec![bits]
    };
    ComposedLayout::new(swizzles, 0, layout)
}

/// The atom of `major` and `mode` for elements of `elem_bits` bits (CuTe's
/// `upcast<sizeof_bits<T>>` of the bit atom): `elem_bits` must divide the 128 bits of a
/// core-matrix row.
///
/// ```
/// use tessel_layout::gmma::{Major, SwizzleMode, smem_atom};
/// // fp16 K-major SW128: 8 rows of 64 halves, the 16-byte chunks XORed with the row.
/// assert_eq!(smem_atom(Major::K, SwizzleMode::B128, 16).unwrap().to_string(), "Sw<3,3,3> o (8,64):(64,1)");
/// assert_eq!(smem_atom(Major::MN, SwizzleMode::B64, 16).unwrap().to_string(), "Sw<2,3,3> o (32,8):(1,32)");
/// assert_eq!(smem_atom(Major::K, SwizzleMode::B32, 32).unwrap().to_string(), "Sw<1,2,3> o (8,8):(8,1)");
/// assert!(smem_atom(Major::K, SwizzleMode::B128, 12).is_err());
/// ```
pub fn smem_atom(major: Major, mode: SwizzleMode, elem_bits: i64) -> Result<ComposedLayout> {
    if !(1..=128).contains(&elem_bits) || 128 % elem_bits != 0 {
        return Err(Error::invalid(format!(
            "a GMMA layout atom needs an element width that divides the 128 bits of a \
             core-matrix row, got {elem_bits} bits"
        )));
    }
    smem_atom_bits(major, mode).upcast(elem_bits).map_err(|e| {
        e.context(format!(
            "the {major}-major {mode} GMMA atom of {elem_bits}-bit elements"
        ))
    })
}
