//! # tessel-kernels
//!
//! GPU kernels generated from tessel layouts and run through cudarc:
//!
//! - [`tiled`]: a tiled copy and the transpose ladder (naive -> shared tile -> padded ->
//!   swizzled -> 128-bit vectorized and swizzled), fp32 and fp16, any M x N;
//! - [`micro`]: single-warp bank-conflict microkernels, one per access pattern of the bank model;
//! - [`gemm`]: the SM80 tensor-core GEMM (`cp.async`, `ldmatrix`, `mma.sync`), checked against
//!   cuBLAS;
//! - [`mma`]: the four tensor-core swizzle problems and their unswizzled twins;
//! - [`hopper`] and [`tma`]: the SM90 GEMM (TMA loads and stores, `wgmma`, warp-specialized
//!   producer and consumers; one compiled kernel per configuration, the problem's extents
//!   run-time values) and the tensor maps it needs;
//! - [`blas`]: the GEMM as a library, `D = alpha A B + beta C` on device buffers with run-time
//!   shapes, orders and leading dimensions, every condition checked on the host: the Hopper GEMM
//!   on sm_90, an `mma.sync` GEMM on sm_80 and later (8-bit inputs from sm_89) and for operands
//!   TMA cannot load;
//! - [`sgemm`]: the SIMT SGEMM ladder, eight rungs from a naive kernel to a tuned one;
//! - [`attention`]: the attention forward pass on sm_90 (FlashAttention-3's structure: TMA,
//!   `wgmma`, the softmax of one key block overlapped with the products of the next);
//!
//! with the runtime they need ([`device`]: discovery that never panics; [`compile`]: NVRTC for
//! the device's own architecture; a module cache; [`timing`]: CUDA-event timing), the one home
//! of references and measurement ([`measure`]: cuBLAS baselines, comparisons, error bounds) and
//! the suites behind `tessel bench` ([`mod@bench`]).
//!
//! Every kernel is declared in Rust with [`kernel::KernelBuilder`] and written with the tensor
//! layer ([`layer`]), in CuTe's vocabulary. The host declares the kernel's tensors (global,
//! shared, register or coordinate storage plus a layout), its tiled copies and tiled MMAs built
//! from CuTe's atoms, derives the partitions with the algebra (`local_tile`, `partition_S/D`,
//! `partition_A/B/C`, `retile`, fragments) and checks every hand-off: a copy that does not fit
//! its tensors, fragments that disagree with the MMA, element widths, alignment, descriptors and
//! TMA boxes are errors before anything is compiled. The device body (`kernels/cuda/*.cu`)
//! slices those tensors by thread and tile and calls `tessel::copy`, `tessel::copy_if` and
//! `tessel::gemm` (`kernels/cuda/tessel_tensor.cuh`); the Hopper GEMM also uses the pipeline,
//! TMA, warpgroup and epilogue components of `kernels/cuda/tessel_sm90.cuh`. One runtime path
//! ([`kernel::Loaded`]) compiles (NVRTC; compiled images cached on disk, [`cache`]), launches,
//! verifies against a CPU replay and times every kernel.
//!
//! ```
//! use tessel_kernels::{Element, tiled::{TiledKind, TiledPlan}};
//! let plan = TiledPlan::new(TiledKind::Swizzled, Element::F32, 4096, 4096).unwrap();
//! let kernel = plan.kernel().unwrap();
//! assert_eq!(kernel.name(), "transpose_swizzled_f32");
//! assert!(kernel.source().contains("extern \"C\" __global__"));
//! match tessel_kernels::Gpu::open(0) {
//!     Ok(gpu) => println!("running on {}", gpu.describe()),
//!     Err(e) => println!("no GPU here: {e}"),
//! }
//! ```

// Where dependents link to these docs when they are not built next to them (`cargo doc
// --no-deps -p tessel-kit`); without it rustdoc prints such links as bracketed text.
// `tests/features.rs` (workspace root) checks that the version is this crate's.
#![doc(html_root_url = "https://docs.rs/tessel-kernels/0.1.0")]

pub mod attention;
pub mod bench;
pub mod bits;
pub mod blas;
pub mod cache;
pub mod compile;
pub mod device;
pub mod element;
pub mod emit;
pub mod error;
pub mod exec;
pub mod gemm;
pub mod hopper;
pub mod kernel;
pub mod layer;
pub mod measure;
pub mod micro;
pub mod mma;
pub mod sgemm;
pub mod tiled;
pub mod tma;

pub use compile::Arch;
/// The cudarc this crate is built on, for callers that use NVRTC or the driver directly.
///
/// ```
/// let _opts = tessel_kernels::cudarc::nvrtc::CompileOptions::default();
/// ```
pub use cudarc;
pub use device::Gpu;
pub use element::Element;
pub use error::{GpuError, GpuResult};
/// The `half` crate whose `f16` is the host type of fp16 data (the one cudarc's `f16` feature
/// moves to and from the device).
///
/// ```
/// use tessel_kernels::Element;
/// use tessel_kernels::{element::HostElement, half::f16};
/// assert_eq!(<f16 as HostElement>::ELEMENT, tessel_kernels::Element::F16);
/// ```
pub use half;
pub use measure::timing;
