//! CUDA/C index-math generation: one emitter shared by the `tessel codegen` command, the
//! `cuda_index!` macro and the GPU kernels.
//!
//! Pipeline: a layout ([`Layout`](crate::Layout), [`ComposedLayout`](crate::ComposedLayout) or a
//! [`SymLayout`]/[`SymComposedLayout`] with run-time stride symbols) is lowered
//! ([`lower`]) to the [`IndexExpr`] IR ([`ir`]), simplified ([`simplify`]: constants folded,
//! power-of-two div/mod as shifts and masks, redundant div/mod removed by range analysis),
//! and printed as C ([`emit`]) inside whole functions ([`function`]). See [`index_function`]
//! for the exact signatures.
//!
//! ```
//! use tessel_layout::codegen::{EmitOptions, index_function};
//! let l: tessel_layout::Layout = "(32,32):(32,1)".parse().unwrap();
//! let src = index_function("transpose_off", &l, &EmitOptions::default()).unwrap();
//! assert!(src.starts_with("#ifndef TESSEL_FN"));
//! assert!(src.contains("TESSEL_FN long long transpose_off(long long i) {"));
//! assert!(src.contains("TESSEL_FN long long transpose_off_crd(long long c0, long long c1) {"));
//! ```

pub mod emit;
pub mod function;
pub mod ir;
pub mod lower;
pub mod simplify;
pub mod symbolic;

pub use emit::Width;
pub use function::{EmitOptions, IndexWidth, PRELUDE, coordinate_rank, index_function};
pub use ir::{IndexExpr, Ty};
pub use symbolic::{
    SymComposedLayout, SymInt, SymLayout, SymTuple, parse_sym_composed, parse_sym_layout,
    parse_sym_tuple,
};

/// Parses the input of `tessel codegen` and of the `cuda_index!`/`layout!` macros: a literal
/// layout or `Sw<B,M,S> o ... o [OFFSET o] LAYOUT`, with run-time symbols allowed as strides.
/// Errors carry the byte position (`at N: ...`) of the offending part.
///
/// ```
/// let c = tessel_layout::codegen::parse_source("Sw<3,3,3> o (8,64):(64,1)").unwrap();
/// assert_eq!(c.to_string(), "Sw<3,3,3> o (8,64):(64,1)");
/// let err = tessel_layout::codegen::parse_source("(8,64):(64,1,2)").unwrap_err();
/// assert!(err.to_string().starts_with("at 0: "));
/// ```
pub fn parse_source(text: &str) -> crate::Result<SymComposedLayout> {
    text.parse()
}
