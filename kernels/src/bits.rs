//! Host values of kernels that move bits (copies, transposes, the copy-ladder's verification):
//! [`BitsElement`], keyed by [`Element`].
//!
//! The host keeps fp16 as [`half::f16`] and fp32 as its `u32` bit pattern. Copies and transposes
//! move bits, so verification compares bit patterns ([`BitsElement::bits`]) exactly, and the
//! poison value is a NaN pattern that random data never contains. (Kernels that compute take
//! [`crate::element::HostElement`] values instead.)
//!
//! ```
//! use half::f16;
//! use tessel_kernels::{Element, bits::BitsElement};
//! assert_eq!("fp32".parse::<Element>().unwrap(), <u32 as BitsElement>::ELEMENT);
//! assert_eq!(<f16 as BitsElement>::ELEMENT.to_string(), "f16");
//! ```

use std::fmt;

use cudarc::driver::{DeviceRepr, ValidAsZeroBits};
use half::f16;

use crate::element::Element;

/// A host-side element: an fp16 value ([`half::f16`]) or the bit pattern of an fp32 value
/// (`u32`).
///
/// ```
/// use half::f16;
/// use tessel_kernels::{Element, bits::BitsElement};
/// assert_eq!((u32::ELEMENT, f16::ELEMENT), (Element::F32, Element::F16));
/// // Random values are finite floats in [1, 2); the poison patterns are NaNs.
/// let x = f32::from_bits(u32::from_random(u64::MAX));
/// assert!((1.0..2.0).contains(&x));
/// assert!(f32::from_bits(u32::POISON).is_nan());
/// assert!(f16::POISON.is_nan());
/// assert_eq!(f16::from_random(0), f16::ONE);
/// assert_eq!(f16::POISON.bits(), 0xFFFF);
/// ```
pub trait BitsElement:
    DeviceRepr + ValidAsZeroBits + Copy + PartialEq + fmt::Debug + Send + Sync + 'static
{
    /// The element type whose bits this value holds.
    const ELEMENT: Element;
    /// A NaN pattern written to outputs before a kernel runs; random data never contains it.
    const POISON: Self;
    /// A random finite non-zero value in [1, 2) from 64 random bits.
    fn from_random(bits: u64) -> Self;
    /// The bit pattern, zero-extended: what verification compares (a NaN equals itself here).
    fn bits(self) -> u32;
}

impl BitsElement for u32 {
    const ELEMENT: Element = Element::F32;
    const POISON: u32 = 0xFFFF_FFFF;
    fn from_random(bits: u64) -> u32 {
        0x3F80_0000 | ((bits >> 41) as u32 & 0x007F_FFFF)
    }
    fn bits(self) -> u32 {
        self
    }
}

impl BitsElement for f16 {
    const ELEMENT: Element = Element::F16;
    const POISON: f16 = f16::from_bits(0xFFFF);
    fn from_random(bits: u64) -> f16 {
        f16::from_bits(0x3C00 | ((bits >> 54) as u16 & 0x03FF))
    }
    fn bits(self) -> u32 {
        u32::from(self.to_bits())
    }
}

/// Whether `a` and `b` hold the same bit patterns: the exact comparison of a copy (NaN patterns
/// equal themselves, `-0` differs from `+0`).
///
/// ```
/// use half::f16;
/// use tessel_kernels::bits::{BitsElement, same_bits};
/// assert!(same_bits(&[f16::POISON, f16::ONE], &[f16::POISON, f16::ONE]));
/// assert!(!same_bits(&[f16::ZERO], &[f16::NEG_ZERO]));
/// assert!(!same_bits(&[1u32, 2], &[1u32]));
/// ```
pub fn same_bits<E: BitsElement>(a: &[E], b: &[E]) -> bool {
    a.len() == b.len() && a.iter().zip(b).all(|(x, y)| x.bits() == y.bits())
}

/// Deterministic random data: `n` elements from a xorshift64* stream seeded by `seed`.
///
/// ```
/// use tessel_kernels::bits::random_data;
/// let a: Vec<u32> = random_data(1000, 7);
/// assert!(a.iter().all(|&x| x != 0 && x != 0xFFFF_FFFF));
/// assert_ne!(a[0], a[1]);
/// let h: Vec<half::f16> = random_data(1000, 7);
/// assert!(h.iter().all(|x| (1.0..2.0).contains(&x.to_f32())));
/// ```
pub fn random_data<E: BitsElement>(n: usize, seed: u64) -> Vec<E> {
    let mut state = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    (0..n)
        .map(|_| {
            state ^= state >> 12;
            state ^= state << 25;
            state ^= state >> 27;
            E::from_random(state.wrapping_mul(0x2545_F491_4F6C_DD1D))
        })
        .collect()
}
