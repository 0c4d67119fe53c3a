//! # tessel
//!
//! A CuTe-style layout algebra for Rust. This facade re-exports [`tessel_layout`] and hosts the
//! `tessel` command-line tool.
//!
//! ```
//! let l: tessel::Layout = "(8,64):(64,1)".parse().unwrap();
//! assert_eq!(l.cosize(), 512);
//! ```

pub use tessel_layout::*;
/// Compile-time layouts and CUDA index math: `layout!`, `swizzle!`, `cuda_index!`.
pub use tessel_macros::{cuda_index, layout, swizzle};
