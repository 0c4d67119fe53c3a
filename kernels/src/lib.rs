//! # tessel-kernels
//!
//! GPU kernels generated from tessel layouts and run through cudarc: a tiled copy, the transpose
//! ladder (naive -> shared tile -> padded -> swizzled -> 128-bit vectorized and swizzled),
//! bank-conflict microkernels and an SM80 tensor-core GEMM, with the runtime they need (device
//! discovery that never panics, NVRTC compilation for the device's own architecture, a module
//! cache, CUDA-event timing) and the measurements behind `tessel bench`.
//!
//! Every kernel is declared in Rust with [`kernel::KernelBuilder`]: a hole-free device body
//! (`kernels/cuda/*.cu`, written against the primitives of `kernels/cuda/tessel.cuh`) plus the
//! pieces it uses — element type aliases (`ty::T`), integer constants (`k::NT`), layouts emitted
//! as index functions (`layout::smem(i)`), device functions generated in Rust (`dev::f`) and
//! typed parameters. The assembler checks on the host that the body and the pieces match, and
//! one runtime path ([`kernel::Loaded`]) compiles, launches, verifies against a CPU replay and
//! times every kernel. Every index a kernel computes — global offsets, the shared-memory tile
//! (padding and swizzle included) and the thread/value partition — is a function emitted from a
//! layout.
//!
//! ```
//! use tessel_kernels::{DType, tiled::{TiledKind, TiledPlan}};
//! let plan = TiledPlan::new(TiledKind::Swizzled, DType::F32, 4096, 4096).unwrap();
//! let kernel = plan.kernel().unwrap();
//! assert_eq!(kernel.name(), "transpose_swizzled_f32");
//! assert!(kernel.source().contains("extern \"C\" __global__"));
//! match tessel_kernels::Gpu::open(0) {
//!     Ok(gpu) => println!("running on {}", gpu.describe()),
//!     Err(e) => println!("no GPU here: {e}"),
//! }
//! ```

pub mod attention;
pub mod bench;
pub mod cache;
pub mod compile;
pub mod device;
pub mod dtype;
pub mod emit;
pub mod error;
pub mod exec;
pub mod gemm;
pub mod hopper;
pub mod kernel;
pub mod layer;
pub mod micro;
pub mod mma;
pub mod sgemm;
pub mod tiled;
pub mod timing;
pub mod tma;

pub use compile::Arch;
/// The cudarc this crate is built on, for callers that use NVRTC or the driver directly.
///
/// ```
/// let _opts = tessel_kernels::cudarc::nvrtc::CompileOptions::default();
/// ```
pub use cudarc;
pub use device::Gpu;
pub use dtype::DType;
pub use error::{GpuError, GpuResult};
/// The `half` crate whose `f16` is the host type of fp16 data (the one cudarc's `f16` feature
/// moves to and from the device).
///
/// ```
/// use tessel_kernels::{dtype::Elem, half::f16};
/// assert_eq!(<f16 as Elem>::DTYPE, tessel_kernels::DType::F16);
/// ```
pub use half;
