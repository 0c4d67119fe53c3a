//! The Hopper GEMM's element types and epilogue kinds.

use std::fmt;

use crate::error::{GpuError, GpuResult};
use crate::tma::TmaElem;

/// Input element type of the Hopper GEMM.
///
/// ```
/// use tessel_kernels::hopper::InType;
/// assert_eq!(InType::BF16.atom(), "SM90_64x256x16_F32BF16BF16_SS");
/// assert_eq!("bf16".parse::<InType>().unwrap(), InType::BF16);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum InType {
    /// IEEE half.
    F16,
    /// bfloat16.
    BF16,
}

impl InType {
    /// Both input types.
    ///
    /// ```
    /// assert_eq!(tessel_kernels::hopper::InType::ALL.len(), 2);
    /// ```
    pub const ALL: [InType; 2] = [InType::F16, InType::BF16];

    /// The GMMA atom (CuTe's name) of a 64 x 256 x 16 step with fp32 accumulators.
    ///
    /// ```
    /// assert_eq!(tessel_kernels::hopper::InType::F16.atom(), "SM90_64x256x16_F32F16F16_SS");
    /// ```
    pub fn atom(self) -> &'static str {
        match self {
            InType::F16 => "SM90_64x256x16_F32F16F16_SS",
            InType::BF16 => "SM90_64x256x16_F32BF16BF16_SS",
        }
    }

    /// The tensor-map element type.
    ///
    /// ```
    /// use tessel_kernels::{hopper::InType, tma::TmaElem};
    /// assert_eq!(InType::BF16.tma(), TmaElem::BF16);
    /// ```
    pub fn tma(self) -> TmaElem {
        match self {
            InType::F16 => TmaElem::F16,
            InType::BF16 => TmaElem::BF16,
        }
    }
}

impl fmt::Display for InType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            InType::F16 => "f16",
            InType::BF16 => "bf16",
        })
    }
}

impl std::str::FromStr for InType {
    type Err = GpuError;
    fn from_str(s: &str) -> GpuResult<InType> {
        match s {
            "f16" | "fp16" => Ok(InType::F16),
            "bf16" => Ok(InType::BF16),
            _ => Err(GpuError::InvalidArgument(format!(
                "unknown GEMM input type {s:?} (expected f16 or bf16)"
            ))),
        }
    }
}

/// Output element type of the Hopper GEMM (converted from the fp32 accumulators, rounding to
/// nearest even).
///
/// ```
/// use tessel_kernels::hopper::OutType;
/// assert_eq!((OutType::F32.bytes(), OutType::BF16.bytes()), (4, 2));
/// assert_eq!(OutType::F16.to_string(), "f16");
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum OutType {
    /// fp32.
    F32,
    /// IEEE half.
    F16,
    /// bfloat16.
    BF16,
}

impl OutType {
    /// Every output type.
    ///
    /// ```
    /// assert_eq!(tessel_kernels::hopper::OutType::ALL.len(), 3);
    /// ```
    pub const ALL: [OutType; 3] = [OutType::F32, OutType::F16, OutType::BF16];

    /// Bytes per element.
    ///
    /// ```
    /// assert_eq!(tessel_kernels::hopper::OutType::F16.bytes(), 2);
    /// ```
    pub fn bytes(self) -> usize {
        match self {
            OutType::F32 => 4,
            OutType::F16 | OutType::BF16 => 2,
        }
    }

    /// The tensor-map element type (C's map of the TMA-store epilogue).
    ///
    /// ```
    /// use tessel_kernels::{hopper::OutType, tma::TmaElem};
    /// assert_eq!(OutType::F32.tma(), TmaElem::F32);
    /// ```
    pub fn tma(self) -> TmaElem {
        match self {
            OutType::F32 => TmaElem::F32,
            OutType::F16 => TmaElem::F16,
            OutType::BF16 => TmaElem::BF16,
        }
    }

    /// The kernel's `k::OUT` code (0 fp32, 1 fp16, 2 bf16; `dev::sm90::bits<OUT>`).
    ///
    /// ```
    /// assert_eq!(tessel_kernels::hopper::OutType::BF16.code(), 2);
    /// ```
    pub fn code(self) -> i64 {
        match self {
            OutType::F32 => 0,
            OutType::F16 => 1,
            OutType::BF16 => 2,
        }
    }

    /// Unit roundoff of the type (half an ulp at 1): the relative error of one conversion.
    ///
    /// ```
    /// assert_eq!(tessel_kernels::hopper::OutType::BF16.unit_roundoff(), 2f64.powi(-8));
    /// ```
    pub fn unit_roundoff(self) -> f64 {
        match self {
            OutType::F32 => 2f64.powi(-24),
            OutType::F16 => 2f64.powi(-11),
            OutType::BF16 => 2f64.powi(-8),
        }
    }
}

impl fmt::Display for OutType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            OutType::F32 => "f32",
            OutType::F16 => "f16",
            OutType::BF16 => "bf16",
        })
    }
}

/// How the consumers write C.
///
/// ```
/// use tessel_kernels::hopper::Epilogue;
/// assert_eq!(Epilogue::TmaStore.to_string(), "tma");
/// assert_eq!("direct".parse::<Epilogue>().unwrap(), Epilogue::Direct);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Epilogue {
    /// Predicated `st.global` from the accumulator registers, two columns per store.
    Direct,
    /// `st.shared` / `stmatrix` into a swizzled shared chunk, then a TMA store
    /// (`cp.async.bulk.tensor` shared -> global); needs C's row pitch (`N` times the output
    /// size) to be a multiple of 16 bytes, else the plan falls back to [`Epilogue::Direct`].
    TmaStore,
}

impl fmt::Display for Epilogue {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Epilogue::Direct => "direct",
            Epilogue::TmaStore => "tma",
        })
    }
}

impl std::str::FromStr for Epilogue {
    type Err = GpuError;
    fn from_str(s: &str) -> GpuResult<Epilogue> {
        match s {
            "direct" => Ok(Epilogue::Direct),
            "tma" | "tma-store" => Ok(Epilogue::TmaStore),
            _ => Err(GpuError::InvalidArgument(format!(
                "unknown Hopper epilogue {s:?} (expected direct or tma)"
            ))),
        }
    }
}
