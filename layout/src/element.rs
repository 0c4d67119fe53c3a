//! [`Element`]: the element types of the workspace — fp32, fp16, bf16 and the two 8-bit
//! floating-point formats e4m3 and e5m2 — with the facts about their values: width, PTX name,
//! the token CuTe's atom names use, the CuTe C++ type, the rounding constants, and parsing and
//! printing.
//!
//! One definition for every layer: the MMA atoms ([`crate::atom::MmaAtom::a_type`]) name their
//! value types with it, and `tessel-kernels` re-exports it as `tessel_kernels::Element`, adding
//! what a kernel needs on top (its C storage type, cuBLAS and tensor-map types, host values).
//! A module that handles only some element types checks its input with [`Element::require`],
//! whose error names the supported set.
//!
//! The 8-bit formats are those of the OCP 8-bit floating-point specification (OFP8, revision
//! 1.0, 2023:
//! <https://www.opencompute.org/documents/ocp-8-bit-floating-point-specification-ofp8-revision-1-0-2023-12-01-pdf-1>),
//! which the PTX types `.e4m3` and `.e5m2` and CuTe's `float_e4m3_t`/`float_e5m2_t` are.
//!
//! ```
//! use tessel_layout::Element;
//! assert_eq!(Element::E4M3.bits(), 8);
//! assert_eq!(Element::BF16.ptx(), "bf16");
//! assert_eq!("fp16".parse::<Element>().unwrap(), Element::F16);
//! assert_eq!("cute::bfloat16_t".parse::<Element>().unwrap(), Element::BF16);
//! ```

use std::fmt;
use std::str::FromStr;

use crate::{Error, Result};

/// An element type of a matrix.
///
/// ```
/// use tessel_layout::Element;
/// assert_eq!("e5m2".parse::<Element>().unwrap(), Element::E5M2);
/// assert_eq!(Element::F16.to_string(), "f16");
/// assert!(Element::E4M3.is_fp8() && !Element::BF16.is_fp8());
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Element {
    /// IEEE single precision (`float`, PTX `.f32`).
    F32,
    /// IEEE half precision (CuTe `half_t`, PTX `.f16`).
    F16,
    /// bfloat16: 8 exponent bits, 7 fraction bits (CuTe `bfloat16_t`, PTX `.bf16`).
    BF16,
    /// 8-bit float, 4 exponent bits (bias 7), 3 fraction bits, no infinities (OFP8 E4M3, CuTe
    /// `float_e4m3_t`, PTX `.e4m3`).
    E4M3,
    /// 8-bit float, 5 exponent bits (bias 15), 2 fraction bits, IEEE-like (OFP8 E5M2, CuTe
    /// `float_e5m2_t`, PTX `.e5m2`).
    E5M2,
}

impl Element {
    /// Every element type.
    ///
    /// ```
    /// use tessel_layout::Element;
    /// assert_eq!(tessel_layout::Element::ALL.len(), 5);
    /// ```
    pub const ALL: [Element; 5] = [
        Element::F32,
        Element::F16,
        Element::BF16,
        Element::E4M3,
        Element::E5M2,
    ];

    /// Bits per element.
    ///
    /// ```
    /// use tessel_layout::Element;
    /// assert_eq!((Element::F32.bits(), Element::BF16.bits(), Element::E5M2.bits()), (32, 16, 8));
    /// ```
    pub fn bits(self) -> i64 {
        match self {
            Element::F32 => 32,
            Element::F16 | Element::BF16 => 16,
            Element::E4M3 | Element::E5M2 => 8,
        }
    }

    /// Bytes per element.
    ///
    /// ```
    /// use tessel_layout::Element;
    /// assert_eq!(tessel_layout::Element::E4M3.bytes(), 1);
    /// ```
    pub fn bytes(self) -> i64 {
        self.bits() / 8
    }

    /// Elements per 128-bit vector (the widest single load).
    ///
    /// ```
    /// use tessel_layout::Element;
    /// assert_eq!((Element::F32.per_128_bits(), Element::F16.per_128_bits()), (4, 8));
    /// ```
    pub fn per_128_bits(self) -> i64 {
        128 / self.bits()
    }

    /// True for the 8-bit formats.
    ///
    /// ```
    /// use tessel_layout::Element;
    /// assert!(tessel_layout::Element::E5M2.is_fp8());
    /// ```
    pub fn is_fp8(self) -> bool {
        matches!(self, Element::E4M3 | Element::E5M2)
    }

    /// The PTX type name without the dot: `f32`, `f16`, `bf16`, `e4m3`, `e5m2` (PTX ISA 8.7,
    /// "Fundamental Types" and "Alternate Floating-Point Data Formats"). Also the printed form.
    ///
    /// ```
    /// use tessel_layout::Element;
    /// assert_eq!(tessel_layout::Element::E4M3.ptx(), "e4m3");
    /// ```
    pub fn ptx(self) -> &'static str {
        match self {
            Element::F32 => "f32",
            Element::F16 => "f16",
            Element::BF16 => "bf16",
            Element::E4M3 => "e4m3",
            Element::E5M2 => "e5m2",
        }
    }

    /// The token CuTe's atom names use: `F32`, `F16`, `BF16`, `E4M3`, `E5M2` (as in
    /// `SM80_16x8x16_F32BF16BF16F32_TN`).
    ///
    /// ```
    /// use tessel_layout::Element;
    /// assert_eq!(tessel_layout::Element::E5M2.cute_token(), "E5M2");
    /// ```
    pub fn cute_token(self) -> &'static str {
        match self {
            Element::F32 => "F32",
            Element::F16 => "F16",
            Element::BF16 => "BF16",
            Element::E4M3 => "E4M3",
            Element::E5M2 => "E5M2",
        }
    }

    /// CuTe's C++ type (`include/cute/numeric/numeric_types.hpp`, CUTLASS v4.2.1): `float`,
    /// `half_t`, `bfloat16_t`, `float_e4m3_t`, `float_e5m2_t`.
    ///
    /// ```
    /// use tessel_layout::{Element, atom::element_bits};
    /// assert_eq!(Element::BF16.cute_type(), "bfloat16_t");
    /// // The table of CuTe's element types agrees on the width.
    /// for e in Element::ALL {
    ///     assert_eq!(i64::from(element_bits(e.cute_type()).unwrap()), e.bits());
    /// }
    /// ```
    pub fn cute_type(self) -> &'static str {
        match self {
            Element::F32 => "float",
            Element::F16 => "half_t",
            Element::BF16 => "bfloat16_t",
            Element::E4M3 => "float_e4m3_t",
            Element::E5M2 => "float_e5m2_t",
        }
    }

    /// Fraction bits (the explicit significand bits).
    ///
    /// ```
    /// use tessel_layout::Element;
    /// assert_eq!((Element::F16.fraction_bits(), Element::E4M3.fraction_bits()), (10, 3));
    /// ```
    pub fn fraction_bits(self) -> i32 {
        match self {
            Element::F32 => 23,
            Element::F16 => 10,
            Element::BF16 => 7,
            Element::E4M3 => 3,
            Element::E5M2 => 2,
        }
    }

    /// Unit roundoff `2^-(fraction bits + 1)`: the relative error of one rounding to nearest
    /// (normal range).
    ///
    /// ```
    /// use tessel_layout::Element;
    /// assert_eq!(Element::BF16.unit_roundoff(), 2f64.powi(-8));
    /// assert_eq!(Element::F32.unit_roundoff(), f64::from(f32::EPSILON) / 2.0);
    /// ```
    pub fn unit_roundoff(self) -> f64 {
        2f64.powi(-(self.fraction_bits() + 1))
    }

    /// The smallest positive subnormal: the absolute error of one rounding near zero is at most
    /// half of it.
    ///
    /// ```
    /// use tessel_layout::Element;
    /// // OFP8 table 1: e4m3's smallest subnormal is 2^-9, e5m2's 2^-16.
    /// assert_eq!(Element::E4M3.min_subnormal(), 2f64.powi(-9));
    /// assert_eq!(Element::F16.min_subnormal(), 2f64.powi(-24));
    /// assert_eq!(Element::F32.min_subnormal(), f64::from(f32::from_bits(1)));
    /// ```
    pub fn min_subnormal(self) -> f64 {
        match self {
            Element::F32 => 2f64.powi(-149),
            Element::F16 => 2f64.powi(-24),
            Element::BF16 => 2f64.powi(-133),
            Element::E4M3 => 2f64.powi(-9),
            Element::E5M2 => 2f64.powi(-16),
        }
    }

    /// The largest finite value.
    ///
    /// ```
    /// use tessel_layout::Element;
    /// // OFP8 table 1: e4m3's largest normal is 448, e5m2's 57344.
    /// assert_eq!((Element::E4M3.max_finite(), Element::E5M2.max_finite()), (448.0, 57344.0));
    /// assert_eq!(Element::F16.max_finite(), 65504.0);
    /// assert_eq!(Element::F32.max_finite(), f64::from(f32::MAX));
    /// ```
    pub fn max_finite(self) -> f64 {
        match self {
            // (2 - 2^-fraction bits) * 2^(largest exponent)
            Element::F32 => (2.0 - 2f64.powi(-23)) * 2f64.powi(127),
            Element::F16 => 65504.0,
            Element::BF16 => (2.0 - 2f64.powi(-7)) * 2f64.powi(127),
            Element::E4M3 => 448.0,
            Element::E5M2 => 57344.0,
        }
    }

    /// `self` if it is one of `supported`, else an error naming `what` and the supported set:
    /// how a module that handles only some element types checks its input.
    ///
    /// ```
    /// use tessel_layout::Element;
    /// let hopper = [Element::F16, Element::BF16];
    /// assert_eq!(Element::BF16.require(&hopper, "the Hopper GEMM's input").unwrap(), Element::BF16);
    /// let e = Element::F32.require(&hopper, "the Hopper GEMM's input").unwrap_err();
    /// assert_eq!(e.message(), "the Hopper GEMM's input takes f16 or bf16, not f32");
    /// ```
    pub fn require(self, supported: &[Element], what: &str) -> Result<Element> {
        if supported.contains(&self) {
            return Ok(self);
        }
        Err(Error::invalid(format!(
            "{what} takes {}, not {self}",
            Element::list(supported)
        )))
    }

    /// `a, b or c`: the names of `elements` as an error message lists them.
    ///
    /// ```
    /// use tessel_layout::Element;
    /// assert_eq!(Element::list(&[Element::F32, Element::F16]), "f32 or f16");
    /// assert_eq!(Element::list(&Element::ALL), "f32, f16, bf16, e4m3 or e5m2");
    /// ```
    pub fn list(elements: &[Element]) -> String {
        let names: Vec<&str> = elements.iter().map(|e| e.ptx()).collect();
        match names.split_last() {
            None => "no element type".to_string(),
            Some((last, [])) => (*last).to_string(),
            Some((last, rest)) => format!("{} or {last}", rest.join(", ")),
        }
    }
}

impl fmt::Display for Element {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.ptx())
    }
}

impl FromStr for Element {
    type Err = Error;

    /// Parses the PTX names (`f32`, `f16`, `bf16`, `e4m3`, `e5m2`), the older spellings
    /// (`fp32`, `fp16`, `fp8` for e4m3, `f8e4m3`, `f8e5m2`) and CuTe's C++ types (`float`,
    /// `half_t`, `bfloat16_t`, `float_e4m3_t`, `float_e5m2_t`, with or without `cute::`),
    /// ignoring ASCII case.
    fn from_str(s: &str) -> Result<Element> {
        let lower = s.trim().to_ascii_lowercase();
        let bare = lower.strip_prefix("cute::").unwrap_or(&lower);
        match bare {
            "f32" | "fp32" | "float" => Ok(Element::F32),
            "f16" | "fp16" | "half_t" => Ok(Element::F16),
            "bf16" | "bfloat16_t" => Ok(Element::BF16),
            "e4m3" | "fp8" | "f8e4m3" | "float_e4m3_t" => Ok(Element::E4M3),
            "e5m2" | "f8e5m2" | "float_e5m2_t" => Ok(Element::E5M2),
            _ => Err(Error::invalid(format!(
                "unknown element type {s:?} (expected {})",
                Element::list(&Element::ALL)
            ))),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_spelling_the_workspace_used_parses() {
        // The spellings of the former `DType` (f32, fp32, f16, fp16), `InType`/`OutType` (f16,
        // fp16, bf16, f32, fp32) and the GEMM library's (fp8, f8e4m3, f8e5m2).
        let cases = [
            ("f32", Element::F32),
            ("fp32", Element::F32),
            ("F32", Element::F32),
            ("f16", Element::F16),
            ("fp16", Element::F16),
            ("bf16", Element::BF16),
            ("BF16", Element::BF16),
            ("e4m3", Element::E4M3),
            ("fp8", Element::E4M3),
            ("f8e4m3", Element::E4M3),
            ("e5m2", Element::E5M2),
            ("f8e5m2", Element::E5M2),
            ("half_t", Element::F16),
            ("cute::float_e5m2_t", Element::E5M2),
        ];
        for (s, e) in cases {
            assert_eq!(s.parse::<Element>().unwrap(), e, "{s}");
        }
        for e in Element::ALL {
            assert_eq!(e.to_string().parse::<Element>().unwrap(), e);
            assert_eq!(e.cute_token().parse::<Element>().unwrap(), e);
            assert_eq!(e.cute_type().parse::<Element>().unwrap(), e);
        }
        let err = "f64".parse::<Element>().unwrap_err();
        assert!(err.message().contains("\"f64\""), "{}", err.message());
        assert!(err.message().contains("e5m2"), "{}", err.message());
    }

    #[test]
    fn widths_follow_the_fields() {
        // sign + exponent + fraction bits: f32 1+8+23, f16 1+5+10, bf16 1+8+7, e4m3 1+4+3,
        // e5m2 1+5+2 (IEEE 754-2008 table 3.5; OFP8 table 1).
        let exponent = [8, 5, 8, 4, 5];
        for (e, x) in Element::ALL.into_iter().zip(exponent) {
            assert_eq!(e.bits(), 1 + x + i64::from(e.fraction_bits()), "{e}");
            assert_eq!(e.bytes() * 8, e.bits());
        }
    }

    #[test]
    fn require_names_the_supported_set() {
        let copy = [Element::F32, Element::F16];
        assert_eq!(
            Element::F16.require(&copy, "the copy ladder").unwrap(),
            Element::F16
        );
        let e = Element::BF16.require(&copy, "the copy ladder").unwrap_err();
        assert_eq!(e.message(), "the copy ladder takes f32 or f16, not bf16");
        assert!(Element::E4M3.require(&[], "nothing").is_err());
    }
}
