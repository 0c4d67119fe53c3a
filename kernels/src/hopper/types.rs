//! The Hopper GEMM's element types and epilogue kinds.

use std::fmt;

use tessel_layout::gmma::Major;

use crate::element::Element;
use crate::error::{GpuError, GpuResult};

/// The input element types of the Hopper GEMM (and of attention): A and B are fp16 or bf16,
/// the types of its 16-bit GMMA atoms (`SM90_64xNx16_F32F16F16_SS`,
/// `SM90_64xNx16_F32BF16BF16_SS`).
///
/// ```
/// use tessel_kernels::{Element, hopper::INPUTS};
/// assert_eq!(INPUTS, [Element::F16, Element::BF16]);
/// ```
pub const INPUTS: [Element; 2] = [Element::F16, Element::BF16];

/// The output element types of the Hopper GEMM: D (and C) are fp32, fp16 or bf16, converted
/// from the fp32 accumulators rounding to nearest even.
///
/// ```
/// use tessel_kernels::{Element, hopper::OUTPUTS};
/// assert_eq!(OUTPUTS, [Element::F32, Element::F16, Element::BF16]);
/// ```
pub const OUTPUTS: [Element; 3] = [Element::F32, Element::F16, Element::BF16];

/// `input` if the Hopper GEMM takes it ([`INPUTS`]), else an error naming the supported set.
///
/// ```
/// use tessel_kernels::{Element, hopper::input_type};
/// assert_eq!(input_type(Element::BF16).unwrap(), Element::BF16);
/// let e = input_type(Element::F32).unwrap_err();
/// assert!(e.to_string().contains("the Hopper GEMM's input takes f16 or bf16, not f32"), "{e}");
/// ```
pub fn input_type(input: Element) -> GpuResult<Element> {
    Ok(input.require(&INPUTS, "the Hopper GEMM's input")?)
}

/// `output` if the Hopper GEMM writes it ([`OUTPUTS`]), else an error naming the supported set.
///
/// ```
/// use tessel_kernels::{Element, hopper::output_type};
/// assert_eq!(output_type(Element::F32).unwrap(), Element::F32);
/// let e = output_type(Element::E4M3).unwrap_err();
/// assert!(e.to_string().contains("takes f32, f16 or bf16, not e4m3"), "{e}");
/// ```
pub fn output_type(output: Element) -> GpuResult<Element> {
    Ok(output.require(&OUTPUTS, "the Hopper GEMM's output")?)
}

/// The GMMA atom (CuTe's name) of a `64 x n x 16` step of `input` with fp32 accumulators, A
/// and B in shared memory; an input outside [`INPUTS`] is an error naming them.
///
/// ```
/// use tessel_kernels::{Element, hopper::gmma_atom};
/// assert_eq!(gmma_atom(Element::F16, 128).unwrap(), "SM90_64x128x16_F32F16F16_SS");
/// assert_eq!(gmma_atom(Element::BF16, 256).unwrap(), "SM90_64x256x16_F32BF16BF16_SS");
/// assert!(gmma_atom(Element::F32, 256).is_err());
/// ```
pub fn gmma_atom(input: Element, n: i64) -> GpuResult<String> {
    let t = input_type(input)?.cute_token();
    Ok(format!("SM90_64x{n}x16_F32{t}{t}_SS"))
}

/// The 8-bit input types: A and B e4m3 or e5m2 in any mix, both K-major (CuTe's `_TN` GMMA
/// atoms `SM90_64xNx32_F32<A><B>_SS_TN`).
///
/// ```
/// use tessel_kernels::{Element, hopper::FP8_INPUTS};
/// assert_eq!(FP8_INPUTS, [Element::E4M3, Element::E5M2]);
/// ```
pub const FP8_INPUTS: [Element; 2] = [Element::E4M3, Element::E5M2];

/// A's and B's types if the Hopper GEMM takes the pair: both f16, both bf16, or two 8-bit
/// formats ([`FP8_INPUTS`], any mix); else an error naming the condition.
///
/// ```
/// use tessel_kernels::{Element, hopper::input_pair};
/// assert!(input_pair(Element::E4M3, Element::E5M2).is_ok());
/// let e = input_pair(Element::F16, Element::BF16).unwrap_err().to_string();
/// assert!(e.contains("A is f16 but B is bf16"), "{e}");
/// let e = input_pair(Element::F16, Element::E4M3).unwrap_err().to_string();
/// assert!(e.contains("an 8-bit operand needs an 8-bit other operand"), "{e}");
/// ```
pub fn input_pair(a: Element, b: Element) -> GpuResult<(Element, Element)> {
    if a.is_fp8() || b.is_fp8() {
        if a.is_fp8() && b.is_fp8() {
            return Ok((a, b));
        }
        return Err(GpuError::InvalidArgument(format!(
            "A is {a} but B is {b}: an 8-bit operand needs an 8-bit other operand (e4m3 or \
             e5m2, any mix)"
        )));
    }
    if a != b {
        return Err(GpuError::InvalidArgument(format!(
            "A is {a} but B is {b}: both operands must have the same type (f16 or bf16), or \
             both be 8-bit (e4m3 or e5m2, any mix)"
        )));
    }
    Ok((input_type(a)?, b))
}

/// The GMMA atom (CuTe's name) of a `64 x n x K` step of A of type `a` and B of type `b` with
/// fp32 accumulators, both in shared memory: [`gmma_atom`] for 16-bit inputs (K 16), the `_TN`
/// atom with K 32 for 8-bit ones.
///
/// ```
/// use tessel_kernels::{Element, hopper::gmma_atom_pair};
/// assert_eq!(gmma_atom_pair(Element::E4M3, Element::E5M2, 128).unwrap(), "SM90_64x128x32_F32E4M3E5M2_SS_TN");
/// assert_eq!(gmma_atom_pair(Element::F16, Element::F16, 64).unwrap(), "SM90_64x64x16_F32F16F16_SS");
/// ```
pub fn gmma_atom_pair(a: Element, b: Element, n: i64) -> GpuResult<String> {
    let (a, b) = input_pair(a, b)?;
    if a.is_fp8() {
        return Ok(format!(
            "SM90_64x{n}x32_F32{}{}_SS_TN",
            a.cute_token(),
            b.cute_token()
        ));
    }
    gmma_atom(a, n)
}

/// K of one stage (a k-tile) of inputs of type `input`: one 128-byte swizzled row, 64 16-bit
/// or 128 8-bit elements.
///
/// ```
/// use tessel_kernels::{Element, hopper::k_tile};
/// assert_eq!((k_tile(Element::F16), k_tile(Element::E4M3)), (64, 128));
/// ```
pub fn k_tile(input: Element) -> i64 {
    128 * 8 / input.bits()
}

/// K of one wgmma: 32 bytes of each operand row (16 16-bit or 32 8-bit elements; PTX ISA,
/// `wgmma.mma_async` shapes).
///
/// ```
/// use tessel_kernels::{Element, hopper::wgmma_k};
/// assert_eq!((wgmma_k(Element::BF16), wgmma_k(Element::E5M2)), (16, 32));
/// ```
pub fn wgmma_k(input: Element) -> i64 {
    32 * 8 / input.bits()
}

/// Whether the kernel promotes its accumulators for inputs of type `input`: 8-bit inputs add
/// the wgmma accumulators into a separate fp32 fragment after every k-tile ([`crate::hopper`]).
///
/// ```
/// use tessel_kernels::{Element, hopper::promotes};
/// assert!(promotes(Element::E4M3) && !promotes(Element::F16));
/// ```
pub fn promotes(input: Element) -> bool {
    input.is_fp8()
}

/// The code of an output type in the kernels' sources (`OUT` of the GEMM, `DT` of attention:
/// 0 fp32, 1 fp16, 2 bf16); an output outside [`OUTPUTS`] is an error naming them.
///
/// ```
/// use tessel_kernels::{Element, hopper::output_code};
/// assert_eq!(output_code(Element::BF16).unwrap(), 2);
/// assert!(output_code(Element::E5M2).is_err());
/// ```
pub fn output_code(output: Element) -> GpuResult<i64> {
    Ok(match output_type(output)? {
        Element::F32 => 0,
        Element::F16 => 1,
        _ => 2,
    })
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
/// 64 rows each, each one `m64nNk16` wgmma wide). Its pipeline depth follows from the tile and
/// the epilogue ([`super::Sm90Plan::stages`]).
///
/// ```
/// use tessel_kernels::hopper::Sm90Tile;
/// assert_eq!((Sm90Tile::T128x256.bn(), Sm90Tile::T128x32.bn()), (256, 32));
/// assert_eq!(Sm90Tile::T128x128.to_string(), "128x128");
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Sm90Tile {
    /// 128 x 256: the large tile (one `m64n256k16` per consumer and k-block).
    T128x256,
    /// 128 x 192: three quarters of the large tile, for problems whose large tiles fill their
    /// last wave poorly where these fill it well (`blas::choose_tile`).
    T128x192,
    /// 128 x 128: twice the tiles of a problem, for problems whose large tiles number half
    /// the SMs or fewer or fill their last wave poorly, and for 8-bit inputs.
    T128x128,
    /// 128 x 64: the narrow tile, for problems whose 128 x 128 tiles number half the SMs or
    /// fewer (`blas::choose_tile`).
    T128x64,
    /// 128 x 32: for a problem computed transposed, where D has few rows (the kernel's rows
    /// are D's columns; `blas::plan_sm90`): the smallest stage, so the most stages of the
    /// streamed operand in flight. K-major B only; its epilogue chunk is the whole tile (64
    /// bytes of a 16-bit output, `Sm90Plan::c_cols`).
    T128x32,
}

impl Sm90Tile {
    /// Every tile, the largest first.
    pub const ALL: [Sm90Tile; 5] = [
        Sm90Tile::T128x256,
        Sm90Tile::T128x192,
        Sm90Tile::T128x128,
        Sm90Tile::T128x64,
        Sm90Tile::T128x32,
    ];

    /// Columns of the tile (the N of each consumer's wgmma).
    pub fn bn(self) -> i64 {
        match self {
            Sm90Tile::T128x256 => 256,
            Sm90Tile::T128x192 => 192,
            Sm90Tile::T128x128 => 128,
            Sm90Tile::T128x64 => 64,
            Sm90Tile::T128x32 => 32,
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
/// use tessel_kernels::Element;
/// use tessel_kernels::hopper::{Epilogue, Sm90Config, Sm90Tile};
/// use tessel_layout::gmma::Major;
/// let c = Sm90Config::tn(Element::F16, Element::F32);
/// assert_eq!(c.kernel_name(), "gemm_sm90_ak_bk_f16_f32_128x256_tma");
/// let nn = Sm90Config { a_major: Major::MN, tile: Sm90Tile::T128x128, source: true, ..c };
/// assert_eq!(nn.kernel_name(), "gemm_sm90_am_bk_f16_f32_128x128_tma_c");
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Sm90Config {
    /// Input type of A (and of B, but for mixed 8-bit inputs: [`Sm90Config::input_b`]).
    pub input: Element,
    /// Input type of B.
    pub input_b: Element,
    /// Output type (D, and C when read).
    pub output: Element,
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
    pub fn tn(input: Element, output: Element) -> Sm90Config {
        Sm90Config {
            input,
            input_b: input,
            output,
            a_major: Major::K,
            b_major: Major::K,
            tile: Sm90Tile::T128x256,
            epilogue: Epilogue::TmaStore,
            source: false,
        }
    }

    /// [`Sm90Config::tn`] of A of type `a` and B of type `b` (mixed 8-bit inputs).
    ///
    /// ```
    /// use tessel_kernels::{Element, hopper::Sm90Config};
    /// let c = Sm90Config::tn_pair(Element::E4M3, Element::E5M2, Element::BF16);
    /// assert_eq!(c.kernel_name(), "gemm_sm90_ak_bk_e4m3_e5m2_bf16_128x256_tma");
    /// ```
    pub fn tn_pair(a: Element, b: Element, output: Element) -> Sm90Config {
        Sm90Config {
            input_b: b,
            ..Sm90Config::tn(a, output)
        }
    }

    /// A's and B's input label: `f16`, or `e4m3_e5m2` for a mixed pair.
    pub fn inputs_name(&self) -> String {
        if self.input == self.input_b {
            self.input.to_string()
        } else {
            format!("{}_{}", self.input, self.input_b)
        }
    }

    /// `gemm_sm90_a{k|m}_b{k|n}_{in}_{out}_{tile}_{tma|direct}[_c]`: the entry point of the
    /// configuration's kernel (the same for every shape).
    pub fn kernel_name(&self) -> String {
        let a = if self.a_major == Major::K { "k" } else { "m" };
        let b = if self.b_major == Major::K { "k" } else { "n" };
        format!(
            "gemm_sm90_a{a}_b{b}_{}_{}_{}_{}{}",
            self.inputs_name(),
            self.output,
            self.tile,
            self.epilogue,
            if self.source { "_c" } else { "" }
        )
    }
}
