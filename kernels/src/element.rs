//! [`Element`] (defined in `tessel-layout`, re-exported here) and what a kernel needs to know
//! about each element type on top of its values: its C storage type in kernel sources, its
//! cuBLAS and tensor-map types ([`DeviceElement`]), and its values on the host
//! ([`HostElement`]).
//!
//! One element type for every layer: the copy ladder ([`crate::tiled`]), the GEMM ladders, the
//! Hopper GEMM ([`crate::hopper`]), the GEMM library ([`crate::blas`]), attention, the tensor
//! maps ([`crate::tma`]) and the atoms all take an [`Element`]; a module that handles only some
//! of them checks with [`Element::require`], whose error names the supported set.
//!
//! Host values: fp32 is `f32`, fp16 and bf16 are `half`'s [`half::f16`] and [`half::bf16`], and
//! the 8-bit formats, which `half` does not have, are [`E4M3`] and [`E5M2`] (one byte each); all
//! of them implement [`HostElement`]. The 8-bit formats follow the OCP 8-bit floating-point
//! specification (OFP8, revision 1.0, 2023:
//! <https://www.opencompute.org/documents/ocp-8-bit-floating-point-specification-ofp8-revision-1-0-2023-12-01-pdf-1>),
//! which is what the PTX types `.e4m3` and `.e5m2` are.
//!
//! ```
//! use tessel_kernels::element::{DeviceElement, E4M3, Element, HostElement};
//! assert_eq!(Element::E4M3.bits(), 8);
//! assert_eq!(Element::BF16.ptx(), "bf16");
//! assert_eq!(Element::BF16.c_type().name(), "b16");
//! assert_eq!(<half::bf16 as HostElement>::ELEMENT, Element::BF16);
//! // 448 is e4m3's largest finite value (OFP8 table 1: S.1111.110).
//! assert_eq!(E4M3::from_f64(448.0).to_bits(), 0x7E);
//! assert_eq!(E4M3::from_bits(0x7E).to_f64(), 448.0);
//! ```

use cudarc::cublas::sys::cudaDataType_t;
use cudarc::driver::sys::CUtensorMapDataType;
use cudarc::driver::{DeviceRepr, ValidAsZeroBits};
use half::{bf16, f16};
use std::sync::OnceLock;

use crate::kernel::CType;

pub use tessel_layout::Element;

/// The kernel-side facts of an [`Element`]: how kernel sources store it, and its cuBLAS and
/// tensor-map types. Implemented for [`Element`] only (it extends a type of `tessel-layout`).
///
/// ```
/// use tessel_kernels::element::{DeviceElement, Element};
/// assert_eq!(Element::F32.c_type().name(), "float");
/// assert_eq!(Element::E5M2.c_type().bytes() as i64, Element::E5M2.bytes());
/// ```
pub trait DeviceElement: Copy {
    /// The storage type kernels move it as (the C spelling of `kernels/cuda/tessel.cuh`):
    /// `float` for fp32, the raw words `b16` for fp16 and bf16, `unsigned char` for the 8-bit
    /// formats.
    ///
    /// ```
    /// use tessel_kernels::{Element, element::DeviceElement, kernel::CType};
    /// assert_eq!(Element::BF16.c_type(), CType::B16);
    /// assert_eq!(Element::E5M2.c_type().name(), "unsigned char");
    /// ```
    fn c_type(self) -> CType;

    /// The raw word of its width that bit moves (copies, transposes) use: `b32`, `b16` or
    /// `unsigned char` (typedefs of `kernels/cuda/tessel.cuh`).
    ///
    /// ```
    /// use tessel_kernels::{Element, element::DeviceElement, kernel::{CType, TESSEL_CUH}};
    /// assert_eq!(Element::F32.word(), CType::B32);
    /// assert!(TESSEL_CUH.contains(&format!("typedef unsigned short {};", Element::F16.word().name())));
    /// ```
    fn word(self) -> CType;

    /// cuBLAS's `cudaDataType_t` of the type.
    ///
    /// ```
    /// use tessel_kernels::{Element, element::DeviceElement, cudarc::cublas::sys::cudaDataType_t};
    /// assert_eq!(Element::E4M3.cublas(), cudaDataType_t::CUDA_R_8F_E4M3);
    /// ```
    fn cublas(self) -> cudaDataType_t;

    /// The tensor-map data type (TMA moves bits: the 8-bit formats are `UINT8`).
    ///
    /// ```
    /// use tessel_kernels::{Element, element::DeviceElement};
    /// use tessel_kernels::cudarc::driver::sys::CUtensorMapDataType as T;
    /// assert_eq!(Element::E5M2.tensor_map_type(), T::CU_TENSOR_MAP_DATA_TYPE_UINT8);
    /// assert_eq!(Element::BF16.tensor_map_type(), T::CU_TENSOR_MAP_DATA_TYPE_BFLOAT16);
    /// ```
    fn tensor_map_type(self) -> CUtensorMapDataType;

    /// The value of the bit pattern `bits` (the low [`bits`](Element::bits) bits).
    ///
    /// ```
    /// use tessel_kernels::{Element, element::DeviceElement};
    /// assert_eq!(Element::BF16.decode(0x3F80), 1.0);
    /// assert_eq!(Element::E5M2.decode(0x3C), 1.0);
    /// assert!(Element::E4M3.decode(0x7F).is_nan());
    /// ```
    fn decode(self, bits: u32) -> f64;

    /// The bit pattern of `x` rounded to the nearest value of the type (ties to even).
    ///
    /// ```
    /// use tessel_kernels::{Element, element::DeviceElement};
    /// assert_eq!(Element::F16.encode(1.0), 0x3C00);
    /// assert_eq!(Element::E4M3.encode(-2.0), 0xC0);
    /// ```
    fn encode(self, x: f64) -> u32;
}

impl DeviceElement for Element {
    fn c_type(self) -> CType {
        match self {
            Element::F32 => CType::F32,
            Element::F16 | Element::BF16 => CType::B16,
            Element::E4M3 | Element::E5M2 => CType::U8,
        }
    }

    fn word(self) -> CType {
        match self {
            Element::F32 => CType::B32,
            Element::F16 | Element::BF16 => CType::B16,
            Element::E4M3 | Element::E5M2 => CType::U8,
        }
    }

    fn cublas(self) -> cudaDataType_t {
        match self {
            Element::F32 => cudaDataType_t::CUDA_R_32F,
            Element::F16 => cudaDataType_t::CUDA_R_16F,
            Element::BF16 => cudaDataType_t::CUDA_R_16BF,
            Element::E4M3 => cudaDataType_t::CUDA_R_8F_E4M3,
            Element::E5M2 => cudaDataType_t::CUDA_R_8F_E5M2,
        }
    }

    fn tensor_map_type(self) -> CUtensorMapDataType {
        match self {
            Element::F32 => CUtensorMapDataType::CU_TENSOR_MAP_DATA_TYPE_FLOAT32,
            Element::F16 => CUtensorMapDataType::CU_TENSOR_MAP_DATA_TYPE_FLOAT16,
            Element::BF16 => CUtensorMapDataType::CU_TENSOR_MAP_DATA_TYPE_BFLOAT16,
            Element::E4M3 | Element::E5M2 => CUtensorMapDataType::CU_TENSOR_MAP_DATA_TYPE_UINT8,
        }
    }

    fn decode(self, bits: u32) -> f64 {
        match self {
            Element::F32 => f64::from(f32::from_bits(bits)),
            Element::F16 => f16::from_bits(bits as u16).to_f64(),
            Element::BF16 => bf16::from_bits(bits as u16).to_f64(),
            Element::E4M3 => E4M3::from_bits(bits as u8).to_f64(),
            Element::E5M2 => E5M2::from_bits(bits as u8).to_f64(),
        }
    }

    fn encode(self, x: f64) -> u32 {
        match self {
            Element::F32 => (x as f32).to_bits(),
            Element::F16 => u32::from(f16::from_f64(x).to_bits()),
            Element::BF16 => u32::from(bf16::from_f64(x).to_bits()),
            Element::E4M3 => u32::from(E4M3::from_f64(x).to_bits()),
            Element::E5M2 => u32::from(E5M2::from_f64(x).to_bits()),
        }
    }
}

/// A host type holding values of one [`Element`] with its device layout (a `CudaSlice` of it
/// holds the bits kernels read).
///
/// ```
/// use tessel_kernels::element::{E5M2, Element, HostElement};
/// assert_eq!(<f32 as HostElement>::ELEMENT, Element::F32);
/// assert_eq!(<E5M2 as HostElement>::from_f64(0.5).to_f64(), 0.5);
/// ```
pub trait HostElement: DeviceRepr + ValidAsZeroBits + Copy + Send + Sync + 'static {
    /// The element type.
    const ELEMENT: Element;
    /// The value.
    fn to_f64(self) -> f64;
    /// The nearest value (ties to even).
    fn from_f64(x: f64) -> Self;
}

impl HostElement for f32 {
    const ELEMENT: Element = Element::F32;
    fn to_f64(self) -> f64 {
        f64::from(self)
    }
    fn from_f64(x: f64) -> f32 {
        x as f32
    }
}

impl HostElement for f16 {
    const ELEMENT: Element = Element::F16;
    fn to_f64(self) -> f64 {
        f16::to_f64(self)
    }
    fn from_f64(x: f64) -> f16 {
        f16::from_f64(x)
    }
}

impl HostElement for bf16 {
    const ELEMENT: Element = Element::BF16;
    fn to_f64(self) -> f64 {
        bf16::to_f64(self)
    }
    fn from_f64(x: f64) -> bf16 {
        bf16::from_f64(x)
    }
}

/// The fields of an 8-bit format: exponent bits, fraction bits, bias, and whether the
/// all-ones exponent is infinities and NaNs (e5m2, IEEE-like) or ordinary values with only
/// `S.1111.111` a NaN (e4m3).
struct Fp8Format {
    exponent_bits: u32,
    fraction_bits: u32,
    bias: i32,
    ieee_specials: bool,
    /// The value of every code, computed from the fields at first use (host conversions of
    /// large matrices look codes up instead of recomputing them).
    values: OnceLock<[f64; 256]>,
}

static E4M3_FORMAT: Fp8Format = Fp8Format {
    exponent_bits: 4,
    fraction_bits: 3,
    bias: 7,
    ieee_specials: false,
    values: OnceLock::new(),
};

static E5M2_FORMAT: Fp8Format = Fp8Format {
    exponent_bits: 5,
    fraction_bits: 2,
    bias: 15,
    ieee_specials: true,
    values: OnceLock::new(),
};

impl Fp8Format {
    /// The value of the code `bits` (from the table of [`Fp8Format::value_of`]).
    fn decode(&self, bits: u8) -> f64 {
        self.values
            .get_or_init(|| std::array::from_fn(|b| self.value_of(b as u8)))[usize::from(bits)]
    }

    /// The value of the code `bits` by the format's definition (sign, biased exponent,
    /// fraction; subnormals, and the format's specials).
    fn value_of(&self, bits: u8) -> f64 {
        let sign = if bits & 0x80 != 0 { -1.0 } else { 1.0 };
        let e_max = (1u32 << self.exponent_bits) - 1;
        let exponent = (u32::from(bits) >> self.fraction_bits) & e_max;
        let fraction = u32::from(bits) & ((1 << self.fraction_bits) - 1);
        let scale = f64::from(1u32 << self.fraction_bits);
        if self.ieee_specials && exponent == e_max {
            return if fraction == 0 {
                sign * f64::INFINITY
            } else {
                f64::NAN
            };
        }
        if !self.ieee_specials && exponent == e_max && fraction == (1 << self.fraction_bits) - 1 {
            return f64::NAN;
        }
        if exponent == 0 {
            sign * f64::from(fraction) / scale * 2f64.powi(1 - self.bias)
        } else {
            sign * (1.0 + f64::from(fraction) / scale) * 2f64.powi(exponent as i32 - self.bias)
        }
    }

    /// The largest finite code (sign bit clear).
    fn max_code(&self) -> u8 {
        if self.ieee_specials {
            // S.11110.11
            (((1u32 << self.exponent_bits) - 2) << self.fraction_bits
                | ((1 << self.fraction_bits) - 1)) as u8
        } else {
            // S.1111.110
            (((1u32 << self.exponent_bits) - 1) << self.fraction_bits
                | ((1 << self.fraction_bits) - 2)) as u8
        }
    }

    /// Round to nearest, ties to even; beyond the largest finite value (after rounding): NaN
    /// for e4m3 (it has no infinity), infinity for e5m2.
    fn encode(&self, x: f64) -> u8 {
        let sign: u8 = if x.is_sign_negative() { 0x80 } else { 0 };
        if x.is_nan() {
            return 0x7F;
        }
        let a = x.abs();
        let max = self.decode(self.max_code());
        let overflow = if self.ieee_specials {
            sign | (((1u32 << self.exponent_bits) - 1) << self.fraction_bits) as u8
        } else {
            sign | 0x7F
        };
        if a.is_infinite() {
            return overflow;
        }
        // The magnitudes of codes 0..=max_code increase with the code: bisect for the last
        // code at or below `a` (code 0 is 0.0), then take the nearer of it and the next one,
        // ties to the even code.
        let top = self.max_code();
        let (mut lo, mut hi) = (0u8, top);
        if self.decode(top) <= a {
            lo = top;
        } else {
            // decode(lo) <= a < decode(hi)
            while hi - lo > 1 {
                let mid = lo + (hi - lo) / 2;
                if self.decode(mid) <= a {
                    lo = mid;
                } else {
                    hi = mid;
                }
            }
        }
        let best = if lo == top {
            top
        } else {
            let (below, above) = (a - self.decode(lo), self.decode(lo + 1) - a);
            if below < above || (below == above && lo % 2 == 0) {
                lo
            } else {
                lo + 1
            }
        };
        // Past the largest value by more than half a step of the top binade, or by exactly half
        // a step when the largest code is odd (the tie goes to the even code beyond it): the
        // rounding of an unbounded exponent range leaves the type.
        let half_step = (max - self.decode(self.max_code() - 1)) / 2.0;
        let past = a - max;
        if past > half_step || (past == half_step && self.max_code() % 2 == 1) {
            return overflow;
        }
        sign | best
    }
}

/// An OFP8 E4M3 value (one byte: sign, 4 exponent bits with bias 7, 3 fraction bits; the
/// all-ones exponent holds finite values up to 448, `S.1111.111` is NaN, no infinities).
///
/// ```
/// use tessel_kernels::element::E4M3;
/// assert_eq!(E4M3::from_f64(0.1).to_f64(), 0.1015625); // 13 * 2^-7
/// assert_eq!(E4M3::from_bits(0x01).to_f64(), 2f64.powi(-9));
/// assert!(E4M3::from_f64(1e6).to_f64().is_nan()); // no infinity: overflow is NaN
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[repr(transparent)]
pub struct E4M3(u8);

/// An OFP8 E5M2 value (one byte: sign, 5 exponent bits with bias 15, 2 fraction bits; IEEE
/// infinities and NaNs in the all-ones exponent).
///
/// ```
/// use tessel_kernels::element::E5M2;
/// assert_eq!(E5M2::from_bits(0x7B).to_f64(), 57344.0);
/// assert_eq!(E5M2::from_f64(1e6).to_f64(), f64::INFINITY);
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[repr(transparent)]
pub struct E5M2(u8);

macro_rules! fp8_type {
    ($t:ident, $format:ident, $element:ident) => {
        impl $t {
            /// The value with bit pattern `bits`.
            pub const fn from_bits(bits: u8) -> $t {
                $t(bits)
            }
            /// The bit pattern.
            pub const fn to_bits(self) -> u8 {
                self.0
            }
        }

        // SAFETY: one byte, `repr(transparent)` over `u8`: any bit pattern is valid and the
        // device reads the same byte.
        unsafe impl DeviceRepr for $t {}
        // SAFETY: the zero byte is the value +0.
        unsafe impl ValidAsZeroBits for $t {}

        impl HostElement for $t {
            const ELEMENT: Element = Element::$element;
            fn to_f64(self) -> f64 {
                $format.decode(self.0)
            }
            fn from_f64(x: f64) -> $t {
                $t($format.encode(x))
            }
        }
    };
}

fp8_type!(E4M3, E4M3_FORMAT, E4M3);
fp8_type!(E5M2, E5M2_FORMAT, E5M2);

impl E4M3 {
    /// The value.
    pub fn to_f64(self) -> f64 {
        <E4M3 as HostElement>::to_f64(self)
    }
    /// The nearest value (ties to even; NaN above 464, where rounding passes 448).
    pub fn from_f64(x: f64) -> E4M3 {
        <E4M3 as HostElement>::from_f64(x)
    }
}

impl E5M2 {
    /// The value.
    pub fn to_f64(self) -> f64 {
        <E5M2 as HostElement>::to_f64(self)
    }
    /// The nearest value (ties to even; infinity from 61440, where rounding passes 57344).
    pub fn from_f64(x: f64) -> E5M2 {
        <E5M2 as HostElement>::from_f64(x)
    }
}

#[cfg(test)]
// The bit patterns are grouped as the formats' fields: sign, exponent, fraction.
#[allow(clippy::unusual_byte_groupings)]
mod tests {
    use super::*;

    // OFP8 specification revision 1.0 (2023), table 1 ("OFP8 exponent parameters") and
    // table 2 ("OFP8 value encoding details").
    #[test]
    fn fp8_encodings_match_the_ofp8_tables() {
        let e4 = |b: u8| E4M3::from_bits(b).to_f64();
        let e5 = |b: u8| E5M2::from_bits(b).to_f64();
        // E4M3: max normal S.1111.110 = 1.75 * 2^8, min normal S.0001.000 = 2^-6, max
        // subnormal S.0000.111 = 0.875 * 2^-6, min subnormal S.0000.001 = 2^-9, NaN S.1111.111.
        assert_eq!(e4(0b0_1111_110), 448.0);
        assert_eq!(e4(0b0_0001_000), 2f64.powi(-6));
        assert_eq!(e4(0b0_0000_111), 0.875 * 2f64.powi(-6));
        assert_eq!(e4(0b0_0000_001), 2f64.powi(-9));
        assert!(e4(0b0_1111_111).is_nan() && e4(0b1_1111_111).is_nan());
        assert_eq!(e4(0b1_0111_000), -1.0);
        // E5M2: max normal S.11110.11 = 1.75 * 2^15, min normal S.00001.00 = 2^-14, max
        // subnormal S.00000.11 = 0.75 * 2^-14, min subnormal S.00000.01 = 2^-16, infinities
        // S.11111.00, NaN S.11111.{01,10,11}.
        assert_eq!(e5(0b0_11110_11), 57344.0);
        assert_eq!(e5(0b0_00001_00), 2f64.powi(-14));
        assert_eq!(e5(0b0_00000_11), 0.75 * 2f64.powi(-14));
        assert_eq!(e5(0b0_00000_01), 2f64.powi(-16));
        assert_eq!(e5(0b0_11111_00), f64::INFINITY);
        assert_eq!(e5(0b1_11111_00), f64::NEG_INFINITY);
        for nan in [0b0_11111_01, 0b0_11111_10, 0b0_11111_11] {
            assert!(e5(nan).is_nan());
        }
        // E5M2 is the upper byte of an IEEE half: every finite code has the value of that half.
        for b in 0..=255u8 {
            let h = f16::from_bits(u16::from(b) << 8).to_f64();
            let v = e5(b);
            assert!(v == h || (v.is_nan() && h.is_nan()), "{b:#x}: {v} vs {h}");
        }
    }

    #[test]
    fn fp8_rounding_is_to_nearest_even_and_round_trips() {
        for b in 0..=255u8 {
            let v = E4M3::from_bits(b).to_f64();
            if !v.is_nan() {
                assert_eq!(E4M3::from_f64(v).to_bits(), b, "{b:#x} = {v}");
            }
            let v = E5M2::from_bits(b).to_f64();
            if !v.is_nan() {
                assert_eq!(E5M2::from_f64(v).to_bits(), b, "{b:#x} = {v}");
            }
        }
        // Between 1 (0x38) and 1.125 (0x39) in e4m3: the tie goes to the even code 0x38.
        assert_eq!(E4M3::from_f64(1.0625).to_bits(), 0x38);
        assert_eq!(E4M3::from_f64(1.07).to_bits(), 0x39);
        // Between 1.125 (0x39) and 1.25 (0x3A): the tie goes to 0x3A.
        assert_eq!(E4M3::from_f64(1.1875).to_bits(), 0x3A);
        // Overflow: 448 + 16 (half the top step of 32) is a tie between 448 (fraction 110,
        // even) and 480 (111): it stays 448; anything above leaves the type. e5m2's largest
        // code (fraction 11) is odd: its tie goes to 2^16, an overflow.
        assert_eq!(E4M3::from_f64(464.0).to_f64(), 448.0);
        assert!(E4M3::from_f64(464.5).to_f64().is_nan());
        assert_eq!(E5M2::from_f64(61439.0).to_f64(), 57344.0);
        assert_eq!(E5M2::from_f64(-61440.0).to_f64(), f64::NEG_INFINITY);
        // The sign of zero is kept.
        assert_eq!(E4M3::from_f64(-0.0).to_bits(), 0x80);
    }

    #[test]
    fn fp8_rounding_picks_the_nearest_code_by_definition() {
        // The definition: the finite magnitude nearest to |x| over every code, ties to the even
        // code (scanned here, independently of the bisection `encode` uses).
        fn nearest(values: &[(u8, f64)], a: f64) -> u8 {
            let mut best = (0u8, f64::INFINITY);
            for &(code, v) in values {
                let err = (v - a).abs();
                if err < best.1 || (err == best.1 && code % 2 == 0) {
                    best = (code, err);
                }
            }
            best.0
        }
        for (fmt, name) in [(&E4M3_FORMAT, "e4m3"), (&E5M2_FORMAT, "e5m2")] {
            let values: Vec<(u8, f64)> =
                (0..=fmt.max_code()).map(|c| (c, fmt.value_of(c))).collect();
            for w in values.windows(2) {
                let (lo, hi) = (w[0].1, w[1].1);
                for a in [
                    lo,
                    (lo + hi) / 2.0,
                    lo + (hi - lo) * 0.3,
                    lo + (hi - lo) * 0.7,
                ] {
                    for x in [a, -a] {
                        let want =
                            nearest(&values, a) | if x.is_sign_negative() { 0x80 } else { 0 };
                        assert_eq!(fmt.encode(x), want, "{name} {x}");
                    }
                }
            }
        }
    }

    #[test]
    fn every_element_round_trips_its_own_values() {
        for e in Element::ALL {
            for x in [0.0, 1.0, -0.5, 3.0, 0.015625] {
                assert_eq!(e.decode(e.encode(x)), x, "{e} {x}");
            }
            assert_eq!(e.to_string().parse::<Element>().unwrap(), e);
            assert_eq!(e.bytes() * 8, e.bits());
            assert_eq!(e.c_type().bytes() as i64, e.bytes());
            assert_eq!(e.word().bytes() as i64, e.bytes());
        }
        assert!("f64".parse::<Element>().is_err());
        // bf16's largest value, computed in tessel-layout from its fields, is half's.
        assert_eq!(Element::BF16.max_finite(), bf16::MAX.to_f64());
    }
}
