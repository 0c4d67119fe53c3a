//! The Hopper GEMM's element types and epilogue kinds.

use std::fmt;

use tessel_layout::gmma::Major;

use crate::element::Element;
use crate::error::{GpuError, GpuResult};
use crate::tma::TmaElem;

/// Input element types of the Hopper GEMM: fp16 or bf16 (A and B of one type), or the 8-bit
/// floating-point formats in any mix ([`InType::Fp8`]: A and B K-major, the `_TN` GMMA atoms).
///
/// ```
/// use tessel_kernels::{Element, hopper::InType};
/// assert_eq!(InType::BF16.atom(), "SM90_64x256x16_F32BF16BF16_SS");
/// assert_eq!("bf16".parse::<InType>().unwrap(), InType::BF16);
/// let f8 = InType::Fp8 { a: Element::E4M3, b: Element::E5M2 };
/// assert_eq!(f8.gmma_atom(128), "SM90_64x128x32_F32E4M3E5M2_SS_TN");
/// assert_eq!("e4m3_e5m2".parse::<InType>().unwrap(), f8);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum InType {
    /// IEEE half.
    F16,
    /// bfloat16.
    BF16,
    /// 8-bit floating point: A's and B's formats ([`Element::E4M3`] or [`Element::E5M2`] each;
    /// [`InType::fp8`] checks them).
    Fp8 {
        /// A's format.
        a: Element,
        /// B's format.
        b: Element,
    },
}

impl InType {
    /// The 16-bit input types.
    ///
    /// ```
    /// assert_eq!(tessel_kernels::hopper::InType::ALL.len(), 2);
    /// ```
    pub const ALL: [InType; 2] = [InType::F16, InType::BF16];

    /// Every 8-bit pair (A, B) in CuTe's order of the GMMA atoms.
    ///
    /// ```
    /// use tessel_kernels::{Element, hopper::InType};
    /// assert_eq!(InType::FP8[1], InType::Fp8 { a: Element::E4M3, b: Element::E5M2 });
    /// ```
    pub const FP8: [InType; 4] = [
        InType::Fp8 {
            a: Element::E4M3,
            b: Element::E4M3,
        },
        InType::Fp8 {
            a: Element::E4M3,
            b: Element::E5M2,
        },
        InType::Fp8 {
            a: Element::E5M2,
            b: Element::E4M3,
        },
        InType::Fp8 {
            a: Element::E5M2,
            b: Element::E5M2,
        },
    ];

    /// The 8-bit input of A in format `a` and B in format `b`; `None` unless both are 8-bit
    /// floating-point formats.
    ///
    /// ```
    /// use tessel_kernels::{Element, hopper::InType};
    /// assert!(InType::fp8(Element::E5M2, Element::E4M3).is_some());
    /// assert_eq!(InType::fp8(Element::E5M2, Element::F16), None);
    /// ```
    pub fn fp8(a: Element, b: Element) -> Option<InType> {
        (a.is_fp8() && b.is_fp8()).then_some(InType::Fp8 { a, b })
    }

    /// The input of A of type `a` and B of type `b`, if the kernel takes it: both fp16, both
    /// bf16, or two 8-bit formats.
    ///
    /// ```
    /// use tessel_kernels::{Element, hopper::InType};
    /// assert_eq!(InType::of_pair(Element::BF16, Element::BF16), Some(InType::BF16));
    /// assert_eq!(InType::of_pair(Element::F16, Element::BF16), None);
    /// ```
    pub fn of_pair(a: Element, b: Element) -> Option<InType> {
        if a.is_fp8() {
            return InType::fp8(a, b);
        }
        if a != b {
            return None;
        }
        InType::of(a)
    }

    /// The element types of A and B.
    ///
    /// ```
    /// use tessel_kernels::{Element, hopper::InType};
    /// assert_eq!(InType::F16.elements(), (Element::F16, Element::F16));
    /// ```
    pub fn elements(self) -> (Element, Element) {
        match self {
            InType::F16 => (Element::F16, Element::F16),
            InType::BF16 => (Element::BF16, Element::BF16),
            InType::Fp8 { a, b } => (a, b),
        }
    }

    /// The GMMA atom (CuTe's name) of a 64 x 256 step with fp32 accumulators.
    ///
    /// ```
    /// assert_eq!(tessel_kernels::hopper::InType::F16.atom(), "SM90_64x256x16_F32F16F16_SS");
    /// ```
    pub fn atom(self) -> String {
        self.gmma_atom(256)
    }

    /// The GMMA atom (CuTe's name) of a `64 x n x K` step with fp32 accumulators, A and B in
    /// shared memory: K 16 for 16-bit inputs, 32 for 8-bit ones (CuTe's `_TN` atoms: both
    /// operands K-major).
    ///
    /// ```
    /// use tessel_kernels::{Element, hopper::InType};
    /// assert_eq!(InType::F16.gmma_atom(128), "SM90_64x128x16_F32F16F16_SS");
    /// let f8 = InType::fp8(Element::E5M2, Element::E5M2).unwrap();
    /// assert_eq!(f8.gmma_atom(64), "SM90_64x64x32_F32E5M2E5M2_SS_TN");
    /// ```
    pub fn gmma_atom(self, n: i64) -> String {
        let name = |e: Element| e.ptx().to_uppercase();
        match self {
            InType::F16 => format!("SM90_64x{n}x16_F32F16F16_SS"),
            InType::BF16 => format!("SM90_64x{n}x16_F32BF16BF16_SS"),
            InType::Fp8 { a, b } => format!("SM90_64x{n}x32_F32{}{}_SS_TN", name(a), name(b)),
        }
    }

    /// Bits per element.
    ///
    /// ```
    /// use tessel_kernels::hopper::InType;
    /// assert_eq!((InType::BF16.bits(), InType::FP8[0].bits()), (16, 8));
    /// ```
    pub fn bits(self) -> i64 {
        self.elements().0.bits()
    }

    /// K of one stage (a k-tile): one 128-byte swizzled row, 64 16-bit or 128 8-bit elements.
    ///
    /// ```
    /// use tessel_kernels::hopper::InType;
    /// assert_eq!((InType::F16.bk(), InType::FP8[3].bk()), (64, 128));
    /// ```
    pub fn bk(self) -> i64 {
        128 * 8 / self.bits()
    }

    /// K of one wgmma: 32 bytes of each operand row (16 16-bit or 32 8-bit elements; PTX ISA,
    /// "Matrix shape" of `wgmma.mma_async`).
    ///
    /// ```
    /// use tessel_kernels::hopper::InType;
    /// assert_eq!((InType::BF16.wgmma_k(), InType::FP8[1].wgmma_k()), (16, 32));
    /// ```
    pub fn wgmma_k(self) -> i64 {
        32 * 8 / self.bits()
    }

    /// Whether the kernel promotes the accumulators: the 8-bit inputs add the wgmma
    /// accumulators into a separate fp32 fragment after every k-tile ([`crate::hopper`]'s
    /// "Promotion").
    ///
    /// ```
    /// use tessel_kernels::hopper::InType;
    /// assert!(InType::FP8[0].promotes() && !InType::F16.promotes());
    /// ```
    pub fn promotes(self) -> bool {
        matches!(self, InType::Fp8 { .. })
    }

    /// A's element type (B's is the same except for mixed 8-bit inputs: [`InType::elements`]).
    ///
    /// ```
    /// use tessel_kernels::{Element, hopper::InType};
    /// assert_eq!(InType::BF16.element(), Element::BF16);
    /// ```
    pub fn element(self) -> Element {
        self.elements().0
    }

    /// The 16-bit input type of an element type, if the kernel takes it (8-bit inputs:
    /// [`InType::fp8`]).
    ///
    /// ```
    /// use tessel_kernels::{Element, hopper::InType};
    /// assert_eq!(InType::of(Element::F16), Some(InType::F16));
    /// assert_eq!(InType::of(Element::F32), None);
    /// ```
    pub fn of(e: Element) -> Option<InType> {
        match e {
            Element::F16 => Some(InType::F16),
            Element::BF16 => Some(InType::BF16),
            _ => None,
        }
    }

    /// The tensor-map element type.
    ///
    /// ```
    /// use tessel_kernels::{hopper::InType, tma::TmaElem};
    /// assert_eq!(InType::BF16.tma(), TmaElem::BF16);
    /// assert_eq!(InType::FP8[0].tma(), TmaElem::U8);
    /// ```
    pub fn tma(self) -> TmaElem {
        self.element().tma()
    }
}

impl fmt::Display for InType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            InType::F16 => f.write_str("f16"),
            InType::BF16 => f.write_str("bf16"),
            InType::Fp8 { a, b } if a == b => write!(f, "{a}"),
            InType::Fp8 { a, b } => write!(f, "{a}_{b}"),
        }
    }
}

impl std::str::FromStr for InType {
    type Err = GpuError;
    fn from_str(s: &str) -> GpuResult<InType> {
        let err = || {
            GpuError::InvalidArgument(format!(
                "unknown GEMM input type {s:?} (expected f16, bf16, e4m3, e5m2 or A_B of the \
                 8-bit formats, e.g. e4m3_e5m2)"
            ))
        };
        match s {
            "f16" | "fp16" => return Ok(InType::F16),
            "bf16" => return Ok(InType::BF16),
            _ => {}
        }
        let (a, b) = s.split_once('_').unwrap_or((s, s));
        let a: Element = a.parse().map_err(|_| err())?;
        let b: Element = b.parse().map_err(|_| err())?;
        InType::fp8(a, b).ok_or_else(err)
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

    /// The element type.
    ///
    /// ```
    /// use tessel_kernels::{Element, hopper::OutType};
    /// assert_eq!(OutType::F32.element(), Element::F32);
    /// ```
    pub fn element(self) -> Element {
        match self {
            OutType::F32 => Element::F32,
            OutType::F16 => Element::F16,
            OutType::BF16 => Element::BF16,
        }
    }

    /// The output type of an element type, if the kernel writes it.
    ///
    /// ```
    /// use tessel_kernels::{Element, hopper::OutType};
    /// assert_eq!(OutType::of(Element::BF16), Some(OutType::BF16));
    /// assert_eq!(OutType::of(Element::E4M3), None);
    /// ```
    pub fn of(e: Element) -> Option<OutType> {
        match e {
            Element::F32 => Some(OutType::F32),
            Element::F16 => Some(OutType::F16),
            Element::BF16 => Some(OutType::BF16),
            _ => None,
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

/// A tile configuration of the Hopper GEMM: the block's tile of D (two consumer warpgroups of
/// 64 rows each, each one `m64nNk16` wgmma wide) and its pipeline depth.
///
/// ```
/// use tessel_kernels::hopper::Sm90Tile;
/// assert_eq!((Sm90Tile::T128x256.bn(), Sm90Tile::T128x256.stages()), (256, 4));
/// assert_eq!((Sm90Tile::T128x128.bn(), Sm90Tile::T128x128.stages()), (128, 6));
/// assert_eq!(Sm90Tile::T128x128.to_string(), "128x128");
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Sm90Tile {
    /// 128 x 256, 4 stages: the large tile (one `m64n256k16` per consumer and k-block).
    T128x256,
    /// 128 x 128, 6 stages: twice the tiles of a problem, for problems with fewer large tiles
    /// than SMs.
    T128x128,
}

impl Sm90Tile {
    /// Both tiles, the large one first.
    pub const ALL: [Sm90Tile; 2] = [Sm90Tile::T128x256, Sm90Tile::T128x128];

    /// Columns of the tile (the N of each consumer's wgmma).
    pub fn bn(self) -> i64 {
        match self {
            Sm90Tile::T128x256 => 256,
            Sm90Tile::T128x128 => 128,
        }
    }

    /// Pipeline stages: as many as the 227 KiB of shared memory a block may have hold beside
    /// the epilogue's buffers.
    pub fn stages(self) -> i64 {
        match self {
            Sm90Tile::T128x256 => 4,
            Sm90Tile::T128x128 => 6,
        }
    }
}

impl fmt::Display for Sm90Tile {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}x{}", super::BM, self.bn())
    }
}

/// Everything one compiled Hopper GEMM kernel is specialized for; the problem's extents,
/// leading dimensions, tile counts, split and scalars are run-time values of the kernel.
///
/// ```
/// use tessel_kernels::hopper::{Epilogue, InType, OutType, Sm90Config, Sm90Tile};
/// use tessel_layout::gmma::Major;
/// let c = Sm90Config::tn(InType::F16, OutType::F32);
/// assert_eq!(c.kernel_name(), "gemm_sm90_ak_bk_f16_f32_128x256_tma");
/// let nn = Sm90Config { a_major: Major::MN, tile: Sm90Tile::T128x128, source: true, ..c };
/// assert_eq!(nn.kernel_name(), "gemm_sm90_am_bk_f16_f32_128x128_tma_c");
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Sm90Config {
    /// Input type (A and B).
    pub input: InType,
    /// Output type (D, and C when read).
    pub output: OutType,
    /// A's contiguous mode in global memory and in its stages: K (row-major A) or M.
    pub a_major: Major,
    /// B's contiguous mode: K (B stored N x K, column-major K x N) or N (row-major K x N).
    pub b_major: Major,
    /// The tile.
    pub tile: Sm90Tile,
    /// How D is written.
    pub epilogue: Epilogue,
    /// Whether the epilogue reads C (`D = alpha A B + beta C` with `beta != 0`).
    pub source: bool,
}

impl Sm90Config {
    /// `C = A B^T` as the kernel was first written: both operands K-major, the large tile, the
    /// TMA-store epilogue, no C read.
    pub fn tn(input: InType, output: OutType) -> Sm90Config {
        Sm90Config {
            input,
            output,
            a_major: Major::K,
            b_major: Major::K,
            tile: Sm90Tile::T128x256,
            epilogue: Epilogue::TmaStore,
            source: false,
        }
    }

    /// `gemm_sm90_a{k|m}_b{k|n}_{in}_{out}_{tile}_{tma|direct}[_c]`: the entry point of the
    /// configuration's kernel (the same for every shape).
    pub fn kernel_name(&self) -> String {
        let a = if self.a_major == Major::K { "k" } else { "m" };
        let b = if self.b_major == Major::K { "k" } else { "n" };
        format!(
            "gemm_sm90_a{a}_b{b}_{}_{}_{}_{}{}",
            self.input,
            self.output,
            self.tile,
            self.epilogue,
            if self.source { "_c" } else { "" }
        )
    }
}
