//! Element types of the kernels and their host-side values.
//!
//! The host keeps fp16 as [`half::f16`] and fp32 as its `u32` bit pattern. Copies and transposes
//! move bits, so verification compares bit patterns ([`Elem::bits`]) exactly, and the poison
//! value is a NaN pattern that random data never contains.
//!
//! ```
//! use half::f16;
//! use tessel_kernels::{DType, dtype::Elem};
//! assert_eq!("fp32".parse::<DType>().unwrap(), <u32 as Elem>::DTYPE);
//! assert_eq!(<f16 as Elem>::DTYPE.to_string(), "f16");
//! ```

use std::fmt;
use std::str::FromStr;

use cudarc::driver::{DeviceRepr, ValidAsZeroBits};
use half::f16;

use crate::error::GpuError;

/// The element type of a kernel.
///
/// ```
/// use tessel_kernels::DType;
/// let d: DType = "f16".parse().unwrap();
/// assert_eq!(d.bytes(), 2);
/// assert_eq!(d.cuda_type(), "b16");
/// assert!("f64".parse::<DType>().is_err());
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum DType {
    /// 32-bit float.
    F32,
    /// 16-bit float (moved as raw b16).
    F16,
}

impl DType {
    /// Bytes per element.
    ///
    /// ```
    /// use tessel_kernels::DType;
    /// assert_eq!((DType::F32.bytes(), DType::F16.bytes()), (4, 2));
    /// ```
    pub fn bytes(self) -> i64 {
        match self {
            DType::F32 => 4,
            DType::F16 => 2,
        }
    }

    /// The raw CUDA type the kernels use (typedefs in `cuda/tessel.cuh`).
    ///
    /// ```
    /// use tessel_kernels::{DType, kernel::TESSEL_CUH};
    /// assert_eq!(DType::F32.cuda_type(), "b32");
    /// assert!(TESSEL_CUH.contains(&format!("typedef unsigned short {};", DType::F16.cuda_type())));
    /// ```
    pub fn cuda_type(self) -> &'static str {
        match self {
            DType::F32 => "b32",
            DType::F16 => "b16",
        }
    }

    /// Elements per 128-bit vector.
    ///
    /// ```
    /// use tessel_kernels::DType;
    /// assert_eq!((DType::F32.per_128_bits(), DType::F16.per_128_bits()), (4, 8));
    /// ```
    pub fn per_128_bits(self) -> i64 {
        16 / self.bytes()
    }
}

impl fmt::Display for DType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            DType::F32 => "f32",
            DType::F16 => "f16",
        })
    }
}

impl FromStr for DType {
    type Err = GpuError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "f32" | "fp32" => Ok(DType::F32),
            "f16" | "fp16" => Ok(DType::F16),
            other => Err(GpuError::InvalidArgument(format!(
                "unknown dtype {other:?} (expected f32 or f16)"
            ))),
        }
    }
}

/// A host-side element: an fp16 value ([`half::f16`]) or the bit pattern of an fp32 value
/// (`u32`).
///
/// ```
/// use half::f16;
/// use tessel_kernels::{DType, dtype::Elem};
/// assert_eq!((u32::DTYPE, f16::DTYPE), (DType::F32, DType::F16));
/// // Random values are finite floats in [1, 2); the poison patterns are NaNs.
/// let x = f32::from_bits(u32::from_random(u64::MAX));
/// assert!((1.0..2.0).contains(&x));
/// assert!(f32::from_bits(u32::POISON).is_nan());
/// assert!(f16::POISON.is_nan());
/// assert_eq!(f16::from_random(0), f16::ONE);
/// assert_eq!(f16::POISON.bits(), 0xFFFF);
/// ```
pub trait Elem:
    DeviceRepr + ValidAsZeroBits + Copy + PartialEq + fmt::Debug + Send + Sync + 'static
{
    /// The dtype this value stands for.
    const DTYPE: DType;
    /// A NaN pattern written to outputs before a kernel runs; random data never contains it.
    const POISON: Self;
    /// A random finite non-zero value in [1, 2) from 64 random bits.
    fn from_random(bits: u64) -> Self;
    /// The bit pattern, zero-extended: what verification compares (a NaN equals itself here).
    fn bits(self) -> u32;
}

impl Elem for u32 {
    const DTYPE: DType = DType::F32;
    const POISON: u32 = 0xFFFF_FFFF;
    fn from_random(bits: u64) -> u32 {
        0x3F80_0000 | ((bits >> 41) as u32 & 0x007F_FFFF)
    }
    fn bits(self) -> u32 {
        self
    }
}

impl Elem for f16 {
    const DTYPE: DType = DType::F16;
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
/// use tessel_kernels::dtype::{Elem, same_bits};
/// assert!(same_bits(&[f16::POISON, f16::ONE], &[f16::POISON, f16::ONE]));
/// assert!(!same_bits(&[f16::ZERO], &[f16::NEG_ZERO]));
/// assert!(!same_bits(&[1u32, 2], &[1u32]));
/// ```
pub fn same_bits<E: Elem>(a: &[E], b: &[E]) -> bool {
    a.len() == b.len() && a.iter().zip(b).all(|(x, y)| x.bits() == y.bits())
}

/// Deterministic random data: `n` elements from a xorshift64* stream seeded by `seed`.
///
/// ```
/// use tessel_kernels::dtype::random_data;
/// let a: Vec<u32> = random_data(1000, 7);
/// assert!(a.iter().all(|&x| x != 0 && x != 0xFFFF_FFFF));
/// assert_ne!(a[0], a[1]);
/// let h: Vec<half::f16> = random_data(1000, 7);
/// assert!(h.iter().all(|x| (1.0..2.0).contains(&x.to_f32())));
/// ```
pub fn random_data<E: Elem>(n: usize, seed: u64) -> Vec<E> {
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
