//! The atoms tessel knows, built on demand from their CuTe names.
//!
//! Layouts are transcribed from CuTe's traits headers
//! ([`include/cute/atom/copy_traits*.hpp`](https://github.com/NVIDIA/cutlass/tree/v4.2.1/include/cute/atom),
//! `mma_traits_sm70.hpp`, `mma_traits_sm80.hpp`, `mma_traits_sm90_gmma*.hpp`, CUTLASS v4.2.1);
//! instruction names and register counts from the
//! [PTX ISA 9.0](https://docs.nvidia.com/cuda/archive/13.0.0/parallel-thread-execution/index.html)
//! (`ldmatrix`, `stmatrix`, `movmatrix`, `cp.async`, `cp.async.bulk`, `cp.async.bulk.tensor`,
//! `mma`, `wgmma.mma_async`) and CuTe's
//! [`include/cute/arch/*.hpp`](https://github.com/NVIDIA/cutlass/tree/v4.2.1/include/cute/arch).

mod copy;
mod mma;

pub use copy::{BulkCopyOp, TmaOp, bulk_copy_atom, tma_atom};

use super::copy::CopyAtom;
use super::mma::MmaAtom;
use crate::{Error, Layout, Result};
use mma::UNIVERSAL_FMA;

fn layout(text: &str) -> Layout {
    // Every literal below is a valid layout; a typo is caught by the catalog tests.
    text.parse()
        .unwrap_or_else(|e| panic!("catalog layout {text}: {e}"))
}

/// The CuTe names of every copy atom, in catalog order: `ldmatrix`, `stmatrix`, `movmatrix`,
/// `cp.async`, `UniversalCopy`, the bulk copies and the TMA atoms. The atoms templated on an
/// element type are listed with `uintN_t` and accept any CuTe element type of that width
/// ([`ELEMENT_TYPES`](super::ELEMENT_TYPES)); the bulk and TMA atoms are listed by their bare
/// names (one 16-byte unit; [`bulk_copy_atom`] and [`tma_atom`] size them).
///
/// ```
/// let names = tessel_layout::atom::copy_atom_names();
/// assert!(names.contains(&"SM80_CP_ASYNC_CACHEALWAYS<uint64_t>".to_string()));
/// assert!(names.contains(&"SM90_TMA_LOAD_MULTICAST".to_string()));
/// assert_eq!(names.len(), 12 + 1 + 4 + 5 + 3 + 3);
/// ```
pub fn copy_atom_names() -> Vec<String> {
    copy::all_copy_atoms().into_iter().map(|a| a.name).collect()
}

/// The copy atom named `name` (CuTe's spelling, e.g. `SM75_U16x8_LDSM_T`,
/// `SM80_CP_ASYNC_CACHEGLOBAL<uint128_t>`, `UniversalCopy<double>`, `SM90_TMA_LOAD`; spaces are
/// ignored). An atom templated on an element type takes any CuTe element type of a width it
/// moves, and keeps the name as spelled (without a `cute::` prefix).
///
/// ```
/// use tessel_layout::atom::copy_atom;
/// assert_eq!(copy_atom("SM75_U16x4_LDSM_T").unwrap().dst_bits().to_string(),
///            "((4,8),(16,2,2)):((256,16),(1,128,1024))");
/// let d = copy_atom("SM80_CP_ASYNC_CACHEALWAYS<double>").unwrap();
/// assert_eq!((d.name(), d.src_bits().to_string()),
///            ("SM80_CP_ASYNC_CACHEALWAYS<double>", "(1,64):(0,1)".to_string()));
/// let err = copy_atom("SM80_CP_ASYNC_CACHEGLOBAL<uint32_t>").unwrap_err();
/// assert!(err.message().contains("unknown copy atom"));
/// assert!(err.message().contains("takes element types of 128 bits"), "{err}");
/// ```
pub fn copy_atom(name: &str) -> Result<CopyAtom> {
    let wanted: String = name.chars().filter(|c| !c.is_whitespace()).collect();
    let unknown = |why: String| Error::invalid(format!("unknown copy atom `{name}`{why}"));
    if let Some(atom) =
        copy::templated_copy_atom(&wanted).map_err(|e| unknown(format!(": {}", e.message())))?
    {
        return Ok(atom);
    }
    copy::all_copy_atoms()
        .into_iter()
        .find(|a| a.name == wanted)
        .ok_or_else(|| {
            unknown(format!(
                "; the known ones are {}",
                copy_atom_names().join(", ")
            ))
        })
}

/// The CuTe names of every MMA atom: the scalar `UniversalFMA<float,float,float,float>`, the
/// eight SM70 `mma.sync` m8n8k4 atoms
/// `SM70_8x8x4_{F16F16F16F16,F32F16F16F32}_{TN,NT,NN,TT}`, the six SM80 `mma.sync` atoms, the
/// four 8-bit SM89 ones `SM89_16x8x32_F32{E4M3,E5M2}{E4M3,E5M2}F32_TN`, then
/// the SM90 GMMA atoms `SM90_64x{N}x16_{F32F16F16,F16F16F16,F32BF16BF16}_{SS,RS}` and the FP8
/// ones `SM90_64x{N}x32_{F16,F32}{E4M3,E5M2}{E4M3,E5M2}_{SS,RS}_TN`, every `N` in
/// `8, 16, ..., 256`.
///
/// ```
/// let names = tessel_layout::atom::mma_atom_names();
/// assert_eq!(names.len(), 1 + 8 + 6 + 4 + 32 * 3 * 2 + 32 * 8 * 2);
/// assert!(names.contains(&"SM89_16x8x32_F32E4M3E5M2F32_TN".to_string()));
/// assert_eq!(names[0], "UniversalFMA<float,float,float,float>");
/// assert!(names.contains(&"SM90_64x248x16_F32BF16BF16_RS".to_string()));
/// assert!(names.contains(&"SM90_64x128x32_F32E4M3E5M2_SS_TN".to_string()));
/// ```
pub fn mma_atom_names() -> Vec<String> {
    mma::mma_names()
}

/// The MMA atom named `name` (CuTe's spelling; see [`mma_atom_names`]).
///
/// ```
/// use tessel_layout::atom::mma_atom;
/// let fma = mma_atom("UniversalFMA<float, float, float, float>").unwrap();
/// assert_eq!((fma.shape_mnk(), fma.threads()), ([1, 1, 1], 1));
/// let g = mma_atom("SM90_64x24x16_F16F16F16_SS").unwrap();
/// assert_eq!(g.b_layout().to_string(), "(128,(24,16)):(0,(1,24))");
/// let err = mma_atom("SM90_64x12x16_F16F16F16_SS").unwrap_err();
/// assert!(err.message().contains("SM90_64x12x16_F16F16F16_SS"));
/// // f16 accumulation only with f16 inputs, as in CuTe.
/// assert!(mma_atom("SM90_64x64x16_F16BF16BF16_SS").is_err());
/// let f8 = mma_atom("SM90_64x64x32_F32E4M3E5M2_SS_TN").unwrap();
/// assert_eq!(f8.opcode(), "wgmma.mma_async.sync.aligned.m64n64k32.f32.e4m3.e5m2");
/// ```
pub fn mma_atom(name: &str) -> Result<MmaAtom> {
    let wanted: String = name.chars().filter(|c| !c.is_whitespace()).collect();
    mma::parse_mma(&wanted).ok_or_else(|| {
        Error::invalid(format!(
            "unknown MMA atom `{name}`; the known ones are {UNIVERSAL_FMA}, \
             SM70_8x8x4_{{F16F16F16F16,F32F16F16F32}}_{{TN,NT,NN,TT}}, \
             SM80_16x8x{{16,8}}_{{F32F16F16F32,F16F16F16F16,F32BF16BF16F32}}_TN, \
             SM89_16x8x32_F32{{E4M3,E5M2}}{{E4M3,E5M2}}F32_TN, \
             SM90_64x{{N}}x16_{{F32F16F16,F16F16F16,F32BF16BF16}}_{{SS,RS}} and \
             SM90_64x{{N}}x32_{{F16,F32}}{{E4M3,E5M2}}{{E4M3,E5M2}}_{{SS,RS}}_TN with N a \
             multiple of 8 in 8..=256"
        ))
    })
}
