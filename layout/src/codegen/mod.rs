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
pub mod source;
pub mod symbolic;

pub use function::{
    EmitOptions, IndexFunction, IndexProgram, IndexWidth, PRELUDE, coordinate_rank, index_function,
    index_program,
};
pub use ir::{IndexExpr, Ty, Width, Widths};
pub use source::parse_source;
pub use symbolic::{SymComposedLayout, SymInt, SymLayout, SymTuple};
