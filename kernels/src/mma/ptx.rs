//! The instructions the tensor-core swizzle kernels call, as `dev::` device-function pieces in
//! one place.
//!
//! `dev::ldsm`, `dev::ldsm_t` and `dev::mma` are generated from the atoms [`LDSM_N`],
//! [`LDSM_T`] and [`MMA_ATOM`] by the kernel assembler ([`KernelBuilder::copy_atom`],
//! [`KernelBuilder::mma_atom`]; `dev::ldsm(b32* dst, b32 smem)`, `dev::mma(float* d, const b32*
//! a, const b32* b, const float* c)`). `dev::pack_half2`, a conversion that no atom describes, is
//! written here by hand; `dev::mma_tile` and `dev::store_pairs` are the product and the fp32
//! stores the problems share (`kernels/cuda/mma_tile.cuh`, `mma_store_pairs.cuh`).
//!
//! ```
//! use tessel_kernels::kernel::KernelBuilder;
//! use tessel_kernels::mma::ptx::{Instruction, with};
//! let body = "b32 r[4]; dev::ldsm(r, 0u); float d[4] = {}; b32 b[2] = {}; dev::mma(d, r, b, d);";
//! let b = with(KernelBuilder::new("k", body), &[Instruction::Ldsm, Instruction::Mma]).unwrap();
//! let k = b.threads(32).build().unwrap();
//! assert!(k.source().contains("void mma(float* d, const b32* a, const b32* b, const float* c)"));
//! assert!(k.source().contains("ldmatrix.sync.aligned.m8n8.x4.shared.b16"));
//! ```

use tessel_layout::atom::{copy_atom, mma_atom};

use super::{LDSM_N, LDSM_T, MMA_ATOM};
use crate::error::GpuResult;
use crate::kernel::KernelBuilder;

/// One instruction piece a swizzle-problem kernel may use.
///
/// ```
/// use tessel_kernels::mma::ptx::Instruction;
/// assert_eq!(Instruction::LdsmT.name(), "ldsm_t");
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Instruction {
    /// `dev::ldsm`: ldmatrix.x4 ([`LDSM_N`]).
    Ldsm,
    /// `dev::ldsm_t`: ldmatrix.x4.trans ([`LDSM_T`]).
    LdsmT,
    /// `dev::mma`: mma.sync m16n8k16, fp32 accumulate ([`MMA_ATOM`]).
    Mma,
    /// `dev::pack_half2`: two floats to one word of two fp16.
    PackHalf2,
    /// `dev::mma_tile`: the 16 x 16 x 16 product of two ldmatrix fragments through `dev::mma`.
    MmaTile,
    /// `dev::store_pairs`: accumulators to global memory as fp32 pairs.
    StorePairs,
}

impl Instruction {
    /// The name after `dev::`.
    ///
    /// ```
    /// assert_eq!(tessel_kernels::mma::ptx::Instruction::Mma.name(), "mma");
    /// ```
    pub fn name(self) -> &'static str {
        match self {
            Instruction::Ldsm => "ldsm",
            Instruction::LdsmT => "ldsm_t",
            Instruction::Mma => "mma",
            Instruction::PackHalf2 => "pack_half2",
            Instruction::MmaTile => "mma_tile",
            Instruction::StorePairs => "store_pairs",
        }
    }
}

/// `builder` with the pieces of `instructions` added.
///
/// ```
/// use tessel_kernels::{kernel::KernelBuilder, mma::ptx::{Instruction, with}};
/// let b = with(KernelBuilder::new("k", "b32 r[4]; dev::ldsm_t(r, 0u);"), &[Instruction::LdsmT]).unwrap();
/// assert!(b.threads(32).build().unwrap().source().contains(".trans"));
/// ```
pub fn with(mut builder: KernelBuilder, instructions: &[Instruction]) -> GpuResult<KernelBuilder> {
    for &i in instructions {
        builder = match i {
            Instruction::Ldsm => builder.copy_atom(i.name(), &copy_atom(LDSM_N)?),
            Instruction::LdsmT => builder.copy_atom(i.name(), &copy_atom(LDSM_T)?),
            Instruction::Mma => builder.mma_atom(i.name(), &mma_atom(MMA_ATOM)?),
            Instruction::PackHalf2 => builder.device_fn(i.name(), PACK_HALF2),
            Instruction::MmaTile => builder.device_fn(i.name(), MMA_TILE),
            Instruction::StorePairs => builder.device_fn(i.name(), STORE_PAIRS),
        };
    }
    Ok(builder)
}

/// `dev::mma_tile(acc, a, b)`: `acc[j] = a * (n-block j of b)` for the `k::NB` n-blocks, from
/// zero (the body of `kernels/cuda/mma_tile.cuh`).
///
/// ```
/// assert!(tessel_kernels::mma::ptx::MMA_TILE.contains("dev::mma(acc[j], a, &b[k::B_REGS * j], zero)"));
/// ```
pub const MMA_TILE: &str = include_str!("../../cuda/mma_tile.cuh");

/// `dev::store_pairs(out, acc, at)`: accumulator values `v`, `v + 1` of n-block `j` as one
/// `float2` at `out + at(v + 4 j)` (the body of `kernels/cuda/mma_store_pairs.cuh`).
///
/// ```
/// assert!(tessel_kernels::mma::ptx::STORE_PAIRS.contains("out + at(v + 4 * j)"));
/// ```
pub const STORE_PAIRS: &str = include_str!("../../cuda/mma_store_pairs.cuh");

/// `dev::pack_half2(float lo, float hi)`: two floats rounded to fp16 (round to nearest even) in
/// one 32-bit word, `lo` in the low half (`cvt.rn.f16x2.f32` puts its first source in the upper
/// half, [PTX ISA 9.0](https://docs.nvidia.com/cuda/archive/13.0.0/parallel-thread-execution/index.html) "cvt").
///
/// ```
/// assert!(tessel_kernels::mma::ptx::PACK_HALF2.contains("cvt.rn.f16x2.f32 %0, %2, %1;"));
/// ```
pub const PACK_HALF2: &str = r#"__device__ __forceinline__ b32 pack_half2(float lo, float hi) {
  b32 w;
  asm("cvt.rn.f16x2.f32 %0, %2, %1;" : "=r"(w) : "f"(lo), "f"(hi));
  return w;
}"#;
