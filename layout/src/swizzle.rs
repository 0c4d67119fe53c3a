//! `Swizzle<B,M,S>`: the XOR bit permutation CuTe applies to shared-memory offsets.
//!
//! `Swizzle<B,M,S>(x) = x ^ ((x & YYY) >> S)` with `YYY = ((1<<B)-1) << (M + max(0,S))`: the `B`
//! bits starting at bit `M + max(0,S)` are XORed into the `B` bits starting at bit
//! `M - min(0,S)`. A negative `S` shifts left. `|S| >= B` keeps the two bit fields disjoint,
//! which makes every swizzle an involution and hence a bijection.
//!
//! ```
//! use tessel_layout::Swizzle;
//! // Sw<3,3,3>: bits 6..9 are XORed into bits 3..6; offset 64 (row 1 of a 64-wide tile) -> 72.
//! let sw = Swizzle::new(3, 3, 3).unwrap();
//! assert_eq!(sw.apply(64), 72);
//! assert_eq!(sw.apply(sw.apply(455)), 455);
//! ```

use std::fmt;
use std::str::FromStr;

use crate::error::{Error, Result};
use crate::f2::exact_log2;
use crate::parse::{Cursor, parse_whole};

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
    /// `Swizzle<bits, base, shift>` built in a constant expression (what the `swizzle!` and
    /// `layout!` macros of the `tessel-kit` crate expand to). Checks what [`Swizzle::new`] checks
    /// and panics when a check fails, which in a `const` or `static` item is a compile error.
    ///
    /// ```
    /// use tessel_layout::Swizzle;
    /// const SW: Swizzle = Swizzle::from_const(3, 3, 3);
    /// const AT72: i64 = SW.apply(72);
    /// assert_eq!(AT72, 72 ^ 8);
    /// assert_eq!(SW, Swizzle::new(3, 3, 3).unwrap());
    /// ```
    pub const fn from_const(bits: u32, base: u32, shift: i32) -> Swizzle {
        let reach = bits as u64 + base as u64 + shift.unsigned_abs() as u64;
        if (shift.unsigned_abs() as u64) < bits as u64 || reach > 62 {
            panic!("Swizzle::from_const: needs |S| >= B and B + M + |S| <= 62");
        }
        Swizzle { bits, base, shift }
    }

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
        let reach = bits
            .checked_add(base)
            .and_then(|v| v.checked_add(shift.checked_abs()?));
        if reach.is_some_and(|_| shift.abs() < bits) {
            return Err(Error::invalid(format!(
                "Sw<{bits},{base},{shift}> violates |S| >= B: the XOR source and target bit \
                 fields would overlap"
            )));
        }
        if reach.is_none_or(|r| r > 62) {
            return Err(Error::invalid(format!(
                "Sw<{bits},{base},{shift}> reaches beyond bit 62: offsets have 62 usable bits"
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
    pub const fn bits(&self) -> u32 {
        self.bits
    }

    /// The number of least-significant bits kept constant, `M`.
    ///
    /// ```
    /// assert_eq!(tessel_layout::Swizzle::new(2, 4, 3).unwrap().base(), 4);
    /// ```
    pub const fn base(&self) -> u32 {
        self.base
    }

    /// The distance the mask is shifted, `S` (negative: shifted left).
    ///
    /// ```
    /// assert_eq!(tessel_layout::Swizzle::new(2, 4, -3).unwrap().shift(), -3);
    /// ```
    pub const fn shift(&self) -> i32 {
        self.shift
    }

    /// The source bits `YYY` that are read: `((1<<B)-1) << (M + max(0,S))`.
    ///
    /// ```
    /// assert_eq!(tessel_layout::Swizzle::new(3, 3, 3).unwrap().yyy_mask(), 0b111_000_000);
    /// ```
    pub const fn yyy_mask(&self) -> i64 {
        let up = if self.shift > 0 { self.shift } else { 0 };
        ((1i64 << self.bits) - 1) << (self.base as i32 + up)
    }

    /// The target bits `ZZZ` that are flipped: `((1<<B)-1) << (M - min(0,S))`.
    ///
    /// ```
    /// assert_eq!(tessel_layout::Swizzle::new(3, 3, 3).unwrap().zzz_mask(), 0b111_000);
    /// ```
    pub const fn zzz_mask(&self) -> i64 {
        let down = if self.shift < 0 { self.shift } else { 0 };
        ((1i64 << self.bits) - 1) << (self.base as i32 - down)
    }

    /// Applies the swizzle to an offset.
    ///
    /// ```
    /// let sw = tessel_layout::Swizzle::new(1, 0, -1).unwrap(); // bit 0 flips bit 1
    /// assert_eq!(sw.apply(0b01), 0b11);
    /// ```
    pub const fn apply(&self, offset: i64) -> i64 {
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

impl Swizzle {
    /// The identity swizzle `Sw<0,0,0>`.
    ///
    /// ```
    /// assert_eq!(tessel_layout::Swizzle::identity().apply(12345), 12345);
    /// ```
    pub fn identity() -> Swizzle {
        Swizzle {
            bits: 0,
            base: 0,
            shift: 0,
        }
    }

    /// The lowest bit the swizzle reads or writes (`M`); `None` for the identity.
    ///
    /// ```
    /// assert_eq!(tessel_layout::Swizzle::new(2, 4, -3).unwrap().lowest_bit(), Some(4));
    /// ```
    pub fn lowest_bit(&self) -> Option<u32> {
        (!self.is_identity()).then_some(self.base)
    }

    /// One past the highest bit the swizzle reads or writes (`B + M + |S|`; 0 for the identity).
    /// Offsets below `1 << bit_span()` are permuted among themselves.
    ///
    /// ```
    /// assert_eq!(tessel_layout::Swizzle::new(3, 3, 3).unwrap().bit_span(), 9);
    /// assert_eq!(tessel_layout::Swizzle::new(2, 4, -3).unwrap().bit_span(), 9);
    /// ```
    pub fn bit_span(&self) -> u32 {
        if self.is_identity() {
            0
        } else {
            self.bits + self.base + self.shift.unsigned_abs()
        }
    }

    /// The swizzle on offsets counted in units `factor` times wider (CuTe's `upcast<N>` of a
    /// swizzle): `Sw<B, M - log2 N, S>`. Errors when `factor` is not a power of two or when the
    /// swizzle reads or flips bits below `log2 N` (it would split a wide element; CuTe silently
    /// drops those bits).
    ///
    /// ```
    /// use tessel_layout::Swizzle;
    /// // 128-byte swizzle on bytes = Sw<3,3,3> on fp16 elements = Sw<3,2,3> on fp32 elements
    /// let bytes = Swizzle::new(3, 4, 3).unwrap();
    /// assert_eq!(bytes.upcast(2).unwrap().to_string(), "Sw<3,3,3>");
    /// assert_eq!(bytes.upcast(4).unwrap().to_string(), "Sw<3,2,3>");
    /// assert!(bytes.upcast(32).is_err());
    /// ```
    pub fn upcast(&self, factor: i64) -> Result<Swizzle> {
        let log = exact_log2(factor).ok_or_else(|| {
            Error::invalid(format!(
                "upcast of {self} by {factor}: the factor must be a positive power of two"
            ))
        })?;
        if self.is_identity() {
            return Ok(*self);
        }
        if self.base < log {
            return Err(Error::inadmissible(format!(
                "upcast of {self} by {factor} is not representable: the swizzle touches bit {} below log2({factor}) = {log}, inside one upcast element",
                self.base
            )));
        }
        Swizzle::new(
            i64::from(self.bits),
            i64::from(self.base - log),
            i64::from(self.shift),
        )
    }

    /// The swizzle on offsets counted in units `factor` times narrower (CuTe's `downcast<N>`):
    /// `Sw<B, M + log2 N, S>`.
    ///
    /// ```
    /// use tessel_layout::Swizzle;
    /// let halves = Swizzle::new(3, 3, 3).unwrap();
    /// assert_eq!(halves.downcast(2).unwrap().to_string(), "Sw<3,4,3>"); // on bytes
    /// assert!(halves.downcast(3).is_err());
    /// ```
    pub fn downcast(&self, factor: i64) -> Result<Swizzle> {
        let log = exact_log2(factor).ok_or_else(|| {
            Error::invalid(format!(
                "downcast of {self} by {factor}: the factor must be a positive power of two"
            ))
        })?;
        if self.is_identity() {
            return Ok(*self);
        }
        Swizzle::new(
            i64::from(self.bits),
            i64::from(self.base) + i64::from(log),
            i64::from(self.shift),
        )
        .map_err(|e| e.context(format!("downcast of {self} by {factor}")))
    }

    /// Parses `Sw<B,M,S>` at the cursor.
    ///
    /// ```
    /// let mut c = tessel_layout::parse::Cursor::new("Sw<2,4,-3> o 8:1");
    /// assert_eq!(tessel_layout::Swizzle::parse(&mut c).unwrap().shift(), -3);
    /// ```
    pub fn parse(cursor: &mut Cursor<'_>) -> Result<Swizzle> {
        cursor.skip_ws();
        let start = cursor.position();
        if !cursor.eat_str("Sw<") {
            return Err(cursor.error("'Sw<'"));
        }
        let b = cursor.integer()?;
        cursor.expect(',', "','")?;
        let m = cursor.integer()?;
        cursor.expect(',', "','")?;
        let s = cursor.integer()?;
        cursor.expect('>', "'>'")?;
        Swizzle::new(b, m, s).map_err(|e| e.at(start..cursor.position()))
    }
}

impl FromStr for Swizzle {
    type Err = Error;

    fn from_str(s: &str) -> Result<Self> {
        parse_whole(s, Swizzle::parse)
    }
}

impl fmt::Display for Swizzle {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Sw<{},{},{}>", self.bits, self.base, self.shift)
    }
}
