//! `Swizzle<B,M,S>`: the XOR bit permutation CuTe applies to shared-memory offsets.
//!
//! `Swizzle<B,M,S>(x) = x ^ ((x & YYY) >> S)` with `YYY = ((1<<B)-1) << (M + max(0,S))`: the `B`
//! bits starting at bit `M + max(0,S)` are XORed into the `B` bits starting at bit
//! `M - min(0,S)`. A negative `S` shifts left. `|S| >= B` keeps the two bit fields disjoint,
//! which makes every swizzle an involution and hence a bijection.

use std::fmt;

use crate::error::{Error, Result};

/// `Swizzle<B,M,S>` (bits, base, shift).
///
/// ```
/// use tessel_layout::Swizzle;
/// let sw = Swizzle::new(3, 3, 3).unwrap();
/// assert_eq!(sw.apply(72), 72 ^ 8); // bit 6 (from the row) flips bit 3
/// assert_eq!(sw.apply(sw.apply(455)), 455);
/// assert_eq!(sw.to_string(), "Sw<3,3,3>");
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Swizzle {
    bits: u32,
    base: u32,
    shift: i32,
}

impl Swizzle {
    /// `Swizzle<bits, base, shift>`; needs `|shift| >= bits` and masks that fit in 62 bits.
    ///
    /// ```
    /// use tessel_layout::Swizzle;
    /// assert!(Swizzle::new(3, 4, 3).is_ok());
    /// let err = Swizzle::new(3, 3, 2).unwrap_err();
    /// assert!(err.to_string().contains("|S| >= B"));
    /// ```
    pub fn new(bits: i64, base: i64, shift: i64) -> Result<Swizzle> {
        if bits < 0 || base < 0 {
            return Err(Error::invalid(format!(
                "Sw<{bits},{base},{shift}>: B and M must be non-negative"
            )));
        }
        if shift.abs() < bits {
            return Err(Error::invalid(format!(
                "Sw<{bits},{base},{shift}> violates |S| >= B: the XOR source and target bit \
                 fields would overlap"
            )));
        }
        if bits + base + shift.abs() > 62 {
            return Err(Error::invalid(format!(
                "Sw<{bits},{base},{shift}> reaches bit {}: offsets have 62 usable bits",
                bits + base + shift.abs()
            )));
        }
        Ok(Swizzle {
            bits: bits as u32,
            base: base as u32,
            shift: shift as i32,
        })
    }

    /// The number of bits in the mask, `B`.
    ///
    /// ```
    /// assert_eq!(tessel_layout::Swizzle::new(2, 4, 3).unwrap().bits(), 2);
    /// ```
    pub fn bits(&self) -> u32 {
        self.bits
    }

    /// The number of least-significant bits kept constant, `M`.
    ///
    /// ```
    /// assert_eq!(tessel_layout::Swizzle::new(2, 4, 3).unwrap().base(), 4);
    /// ```
    pub fn base(&self) -> u32 {
        self.base
    }

    /// The distance the mask is shifted, `S` (negative: shifted left).
    ///
    /// ```
    /// assert_eq!(tessel_layout::Swizzle::new(2, 4, -3).unwrap().shift(), -3);
    /// ```
    pub fn shift(&self) -> i32 {
        self.shift
    }

    /// The source bits `YYY` that are read: `((1<<B)-1) << (M + max(0,S))`.
    ///
    /// ```
    /// assert_eq!(tessel_layout::Swizzle::new(3, 3, 3).unwrap().yyy_mask(), 0b111_000_000);
    /// ```
    pub fn yyy_mask(&self) -> i64 {
        ((1i64 << self.bits) - 1) << (self.base as i32 + self.shift.max(0))
    }

    /// The target bits `ZZZ` that are flipped: `((1<<B)-1) << (M - min(0,S))`.
    ///
    /// ```
    /// assert_eq!(tessel_layout::Swizzle::new(3, 3, 3).unwrap().zzz_mask(), 0b111_000);
    /// ```
    pub fn zzz_mask(&self) -> i64 {
        ((1i64 << self.bits) - 1) << (self.base as i32 - self.shift.min(0))
    }

    /// Applies the swizzle to an offset.
    ///
    /// ```
    /// let sw = tessel_layout::Swizzle::new(1, 0, -1).unwrap(); // bit 0 flips bit 1
    /// assert_eq!(sw.apply(0b01), 0b11);
    /// ```
    pub fn apply(&self, offset: i64) -> i64 {
        let picked = offset & self.yyy_mask();
        let moved = if self.shift >= 0 {
            picked >> self.shift
        } else {
            picked << -self.shift
        };
        offset ^ moved
    }

    /// Whether the swizzle is the identity (`B = 0`).
    ///
    /// ```
    /// assert!(tessel_layout::Swizzle::new(0, 4, 3).unwrap().is_identity());
    /// ```
    pub fn is_identity(&self) -> bool {
        self.bits == 0
    }
}

impl fmt::Display for Swizzle {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Sw<{},{},{}>", self.bits, self.base, self.shift)
    }
}
