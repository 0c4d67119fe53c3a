//! # tessel
//!
//! A CuTe-style layout algebra for Rust. This facade re-exports [`tessel_layout`] and the
//! macros of `tessel-macros`; with the `kernels` feature (on by default) it also re-exports
//! `tessel-kernels` as [`kernels`], and with the `cli` feature (on by default) it builds the
//! `tessel` command-line tool. `default-features = false` gives the algebra and the macros
//! alone, without cudarc.
//!
//! ```
//! let l: tessel::Layout = "(8,64):(64,1)".parse().unwrap();
//! assert_eq!(l.cosize(), 512);
//! ```

pub use tessel_layout::*;
/// Compile-time layouts and CUDA index math: `layout!`, `swizzle!`, `cuda_index!`.
pub use tessel_macros::{cuda_index, layout, swizzle};

/// The GPU kernels built from layouts (feature `kernels`): tiled copy, transpose ladder,
/// bank-conflict microkernels, tensor-core GEMM and the benchmarks.
///
/// ```
/// use tessel::kernels::{DType, tiled::{TiledKind, TiledPlan}};
/// let plan = TiledPlan::new(TiledKind::Copy, DType::F32, 256, 256).unwrap();
/// assert!(plan.source().unwrap().contains("__global__"));
/// ```
#[cfg(feature = "kernels")]
pub use tessel_kernels as kernels;
