//! # tessel-kit
//!
//! A CuTe-style layout algebra for Rust. This facade re-exports [`tessel_layout`] and the
//! macros of `tessel-macros`; with the `kernels` feature (off by default) it also re-exports
//! `tessel-kernels` as [`kernels`]. The default features give the algebra and the macros
//! alone, without cudarc; the `tessel` command-line tool is the separate `tessel-cli` package.
//!
//! ```
//! let l: tessel_kit::Layout = "(8,64):(64,1)".parse().unwrap();
//! assert_eq!(l.cosize(), 512);
//! ```
//!
//! ## Start here: from a layout to a launched kernel
//!
//! 1. **Declare the tile.** A 32x32 fp32 shared-memory tile, row-major, checked while your crate
//!    compiles (`layout!`) or at run time (`parse`):
//!
//! ```
//! const TILE: tessel_kit::Layout = tessel_kit::layout!((32,32):(32,1));
//! assert_eq!(TILE.offset(1).unwrap(), 32); // (1,0): row 1
//! ```
//!
//! 2. **Prove it conflict-free.** A warp reading one column hits one bank 32 times; the
//!    search finds the swizzle that removes the conflict, and the analyzer re-proves it:
//!
//! ```
//! use tessel_kit::{bank::analyze, synth::{synthesize, Access, Options}, verify, Layout};
//! let tile: Layout = "(32,32):(32,1)".parse().unwrap();
//! let (column, row) = ("32:1".parse().unwrap(), "32:32".parse().unwrap());
//! let (lds, sts) = ("lds.32".parse().unwrap(), "sts.32".parse().unwrap());
//! assert_eq!(analyze(&tile, 4, lds, &column).unwrap().excess, 31);
//! let found = synthesize(&tile, 4, &[Access::new(sts, row), Access::new(lds, column)],
//!     Options::default()).unwrap();
//! assert_eq!(found.total().excess, 0);
//! assert!(verify::is_bijective(&found.layout).unwrap());
//! ```
//!
//! 3. **Emit the index math** for the kernel, one function per layout:
//!
//! ```
//! const SMEM: &str = tessel_kit::cuda_index!(smem_off, Sw<5,0,5> o (32,32):(32,1));
//! assert!(SMEM.contains("smem_off(long long i)"));
//! ```
//!
//! 4. **Launch and verify.** The kernels of [`kernels`] are assembled from such functions,
//!    compiled by NVRTC for the device's own architecture, checked element by element against a
//!    CPU replay, then timed (`tessel bench`):
//!
//! ```
//! # #[cfg(feature = "kernels")] {
//! use tessel_kit::kernels::{Element, Gpu, exec::*, tiled::{run_and_verify, TiledKind, TiledPlan}};
//! let plan = TiledPlan::new(TiledKind::Swizzled, Element::F32, 1000, 1500).unwrap();
//! assert!(plan.source().unwrap().contains("__global__"));
//! let Ok(gpu) = Gpu::open(0) else { return }; // no GPU here: nothing to launch
//! // fp32 elements travel as their 32-bit patterns.
//! let (host, src) = upload_random::<u32>(&gpu, 1000 * 1500, 1).unwrap();
//! let mut dst = alloc::<u32>(&gpu, 1000 * 1500).unwrap();
//! run_and_verify(&gpu, &plan, &host, &src, &mut dst).unwrap();
//! # }
//! ```

// `kernels` is a module only with the feature of that name; without it the links above go to
// the crate's page on docs.rs instead of staying unresolved.
#![cfg_attr(feature = "kernels", doc = "[`kernels`]: crate::kernels")]
#![cfg_attr(
    not(feature = "kernels"),
    doc = "[`kernels`]: https://docs.rs/tessel-kernels"
)]

pub use tessel_layout::*;
// Compile-time layouts and CUDA index math. No doc comment here: on a re-export it would
// replace each macro's own summary with one shared sentence.
pub use tessel_macros::{cuda_index, layout, swizzle};

/// The GPU kernels built from layouts (feature `kernels`): tiled copy, transpose ladder,
/// bank-conflict microkernels, tensor-core GEMM and the benchmarks.
///
/// ```
/// use tessel_kit::kernels::{Element, tiled::{TiledKind, TiledPlan}};
/// let plan = TiledPlan::new(TiledKind::Copy, Element::F32, 256, 256).unwrap();
/// assert!(plan.source().unwrap().contains("__global__"));
/// ```
#[cfg(feature = "kernels")]
pub use tessel_kernels as kernels;
