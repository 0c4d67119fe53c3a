//! Hopper's shared-memory operand layouts: the GMMA layout atoms, the wgmma matrix descriptor
//! that a shared-memory layout implies, and the layout a TMA box writes.
//!
//! `wgmma` reads its A and B operands from shared memory through a 64-bit *matrix descriptor*
//! (start address, leading and stride byte offsets, base offset, swizzle mode; PTX ISA,
//! "Matrix Descriptor Format" of the asynchronous warpgroup-level MMA). The descriptor cannot
//! describe every layout: only the *canonical* ones, built from 8-row "core matrices" of 16 bytes
//! per row, optionally permuted by one of four XOR swizzles on the byte address. TMA
//! (`cp.async.bulk.tensor`) writes a box of a global tensor into shared memory with the same
//! four swizzles. A GEMM is correct only when the layout TMA writes is the layout the descriptor
//! describes; this module proves that by enumeration instead of trusting names:
//!
//! - [`SwizzleMode`]: none, 32B, 64B, 128B as tessel swizzles on byte addresses (`Sw<B,4,3>`).
//! - [`smem_atom`] (module `smem_atom`): CuTe's `GMMA::Layout_{K,MN}_{INTER,SW32,SW64,SW128}_Atom`,
//!   defined in bits and upcast to the element type; [`crate::ComposedLayout::tile_to_shape`] repeats one
//!   over a whole stage tile.
//! - [`gmma_descriptor`] (module `descriptor`): the descriptor of one wgmma operand's layout,
//!   verified element by element, or an error naming the first element no descriptor reaches.
//! - [`tma_box_layout`] and [`check_box_matches`] (module `tma`): the shared layout a TMA box
//!   writes and a proof that it equals a given operand layout.
//! - [`TensorMapParams`] (module `tensor_map`): the parameters of `cuTensorMapEncodeTiled`, checked
//!   against the driver's rules; [`crate::tiled::make_tma_copy`] derives them from a global
//!   layout, a shared layout and a CTA tile.
//!
//! ```
//! use tessel_layout::{IntTuple, gmma::{Major, SwizzleMode, check_box_matches, gmma_descriptor, smem_atom, tma_box_layout}};
//! // The fp16 K-major 128-byte-swizzled atom, tiled over a 128x64 (MN x K) stage.
//! let atom = smem_atom(Major::K, SwizzleMode::B128, 16).unwrap();
//! assert_eq!(atom.to_string(), "Sw<3,3,3> o (8,64):(64,1)");
//! let stage = atom.tile_to_shape(&IntTuple::from_ints([128, 64])).unwrap();
//! // A TMA box of 64 (K, innermost) x 128 (MN) fp16 with the 128B swizzle writes exactly that.
//! let boxed = tma_box_layout(&[64, 128], 2, SwizzleMode::B128).unwrap();
//! check_box_matches(&boxed, &stage, Major::K).unwrap();
//! // The first k-block (16 elements of K) of the first 64 rows is one wgmma operand.
//! let operand = stage.compose(&"(64,16):(1,128)".parse().unwrap()).unwrap();
//! let d = gmma_descriptor(&operand, 2, 0, Some(Major::K)).unwrap();
//! assert_eq!((d.mode, d.leading_byte_offset, d.stride_byte_offset), (SwizzleMode::B128, 16, 1024));
//! ```

mod descriptor;
mod smem_atom;
mod tensor_map;
mod tma;

use std::fmt;
use std::str::FromStr;

pub use descriptor::{GmmaDescriptor, gmma_descriptor};
pub use smem_atom::{smem_atom, smem_atom_bits};
pub use tensor_map::{MAX_GLOBAL_DIM, MAX_GLOBAL_STRIDE, TensorMapParams};
pub use tma::{check_box_matches, tma_box_layout};

use crate::{Error, Result, Swizzle};

/// Which operand mode is contiguous in shared memory: K (CuTe's `GMMA::Major::K`, "T" for A
/// and "N" for B in BLAS terms) or M/N (`GMMA::Major::MN`).
///
/// ```
/// use tessel_layout::gmma::Major;
/// assert_eq!("MN".parse::<Major>().unwrap(), Major::MN);
/// assert_eq!(Major::K.to_string(), "K");
/// assert!("X".parse::<Major>().is_err());
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Major {
    /// K is the contiguous mode.
    K,
    /// M (for A) or N (for B) is the contiguous mode.
    MN,
}

impl fmt::Display for Major {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Major::K => "K",
            Major::MN => "MN",
        })
    }
}

impl FromStr for Major {
    type Err = Error;
    fn from_str(s: &str) -> Result<Major> {
        match s {
            "K" | "k" => Ok(Major::K),
            "MN" | "mn" | "M" | "N" => Ok(Major::MN),
            _ => Err(Error::invalid(format!(
                "unknown major mode '{s}': expected K or MN"
            ))),
        }
    }
}

/// The shared-memory swizzle modes that wgmma descriptors and TMA share: the 16-byte chunk index
/// within a row of `span` bytes is XORed with the row index modulo the chunks per row, that is
/// `Sw<B,4,3>` on byte addresses with `B = log2(span / 16)`.
///
/// ```
/// use tessel_layout::gmma::SwizzleMode;
/// let m: SwizzleMode = "128B".parse().unwrap();
/// assert_eq!(m.byte_swizzle().to_string(), "Sw<3,4,3>");
/// assert_eq!((m.span_bytes(), m.repeat_bytes(), m.descriptor_code()), (128, 1024, 1));
/// assert_eq!(SwizzleMode::None.byte_swizzle().to_string(), "Sw<0,4,3>");
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SwizzleMode {
    /// No swizzle (CuTe's `INTERLEAVE`, TMA's `CU_TENSOR_MAP_SWIZZLE_NONE`).
    None,
    /// 32-byte rows: `Sw<1,4,3>`.
    B32,
    /// 64-byte rows: `Sw<2,4,3>`.
    B64,
    /// 128-byte rows: `Sw<3,4,3>`.
    B128,
}

impl SwizzleMode {
    /// Every mode, from none to 128B.
    ///
    /// ```
    /// assert_eq!(tessel_layout::gmma::SwizzleMode::ALL.len(), 4);
    /// ```
    pub const ALL: [SwizzleMode; 4] = [
        SwizzleMode::None,
        SwizzleMode::B32,
        SwizzleMode::B64,
        SwizzleMode::B128,
    ];

    /// `B` of `Sw<B,4,3>`: log2 of the 16-byte chunks per swizzled row.
    ///
    /// ```
    /// assert_eq!(tessel_layout::gmma::SwizzleMode::B64.bits(), 2);
    /// ```
    pub fn bits(self) -> u32 {
        match self {
            SwizzleMode::None => 0,
            SwizzleMode::B32 => 1,
            SwizzleMode::B64 => 2,
            SwizzleMode::B128 => 3,
        }
    }

    /// The swizzle on byte addresses, `Sw<B,4,3>` (the identity `Sw<0,4,3>` for none).
    ///
    /// ```
    /// use tessel_layout::gmma::SwizzleMode;
    /// // Row 1 of a 128B-swizzled tile: its chunk 0 lands on chunk 1.
    /// assert_eq!(SwizzleMode::B128.byte_swizzle().apply(128), 128 + 16);
    /// ```
    pub fn byte_swizzle(self) -> Swizzle {
        Swizzle::from_const(self.bits(), 4, 3)
    }

    /// Bytes of one swizzled row (16 for none: one core-matrix row).
    ///
    /// ```
    /// assert_eq!(tessel_layout::gmma::SwizzleMode::B32.span_bytes(), 32);
    /// ```
    pub fn span_bytes(self) -> i64 {
        16 << self.bits()
    }

    /// Bytes after which the swizzle pattern repeats (8 rows of [`span_bytes`](Self::span_bytes));
    /// a swizzled tile must start at a multiple of it for its tile-relative swizzle to be the
    /// hardware's, which swizzles absolute shared-memory addresses.
    ///
    /// ```
    /// assert_eq!(tessel_layout::gmma::SwizzleMode::B64.repeat_bytes(), 512);
    /// ```
    pub fn repeat_bytes(self) -> i64 {
        8 * self.span_bytes()
    }

    /// The 2-bit layout-type field of a wgmma descriptor (bits 62-63; PTX ISA: 0 none,
    /// 1 128B, 2 64B, 3 32B).
    ///
    /// ```
    /// assert_eq!(tessel_layout::gmma::SwizzleMode::B32.descriptor_code(), 3);
    /// ```
    pub fn descriptor_code(self) -> u64 {
        match self {
            SwizzleMode::None => 0,
            SwizzleMode::B128 => 1,
            SwizzleMode::B64 => 2,
            SwizzleMode::B32 => 3,
        }
    }

    /// The mode whose byte swizzle is `sw` (the identity is none), or `None` when `sw` is not
    /// one of the four.
    ///
    /// ```
    /// use tessel_layout::{Swizzle, gmma::SwizzleMode};
    /// assert_eq!(SwizzleMode::from_byte_swizzle(Swizzle::new(2, 4, 3).unwrap()), Some(SwizzleMode::B64));
    /// assert_eq!(SwizzleMode::from_byte_swizzle(Swizzle::new(3, 3, 3).unwrap()), None);
    /// ```
    pub fn from_byte_swizzle(sw: Swizzle) -> Option<SwizzleMode> {
        if sw.is_identity() {
            return Some(SwizzleMode::None);
        }
        SwizzleMode::ALL
            .into_iter()
            .find(|m| m.bits() == sw.bits() && sw.base() == 4 && sw.shift() == 3)
    }
}

impl fmt::Display for SwizzleMode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            SwizzleMode::None => "none",
            SwizzleMode::B32 => "32B",
            SwizzleMode::B64 => "64B",
            SwizzleMode::B128 => "128B",
        })
    }
}

impl FromStr for SwizzleMode {
    type Err = Error;
    fn from_str(s: &str) -> Result<SwizzleMode> {
        match s {
            "none" | "NONE" | "INTER" | "interleave" => Ok(SwizzleMode::None),
            "32B" | "32b" | "SW32" | "32" => Ok(SwizzleMode::B32),
            "64B" | "64b" | "SW64" | "64" => Ok(SwizzleMode::B64),
            "128B" | "128b" | "SW128" | "128" => Ok(SwizzleMode::B128),
            _ => Err(Error::invalid(format!(
                "unknown swizzle mode '{s}': expected none, 32B, 64B or 128B"
            ))),
        }
    }
}
