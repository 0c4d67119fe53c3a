//! Typed kernel assembly: a kernel declared in Rust from its pieces, and the one runtime path
//! that compiles, launches, verifies and times any kernel.
//!
//! A kernel is a **hole-free device body** (a `.cu` file under `kernels/cuda/`, included with
//! `include_str!`: the statements of the kernel function) plus the pieces it uses, each in a
//! fixed namespace:
//!
//! | piece | declared with | the body writes |
//! |---|---|---|
//! | element type alias | [`KernelBuilder::alias`] | `ty::T` |
//! | integer constant | [`KernelBuilder::int`], [`KernelBuilder::long`] | `k::NT` |
//! | layout (index / coordinate functions, emitted by [`crate::emit`]) | [`KernelBuilder::index_layout`], [`KernelBuilder::coord_layout`], [`KernelBuilder::composed_layout`] | `layout::smem(i)`, `layout::smem_crd(r, c)` |
//! | device function generated in Rust (name + code) | [`KernelBuilder::device_fn`] | `dev::f(...)` |
//! | an atom's instruction, generated from its asm template ([`atom`]) | [`KernelBuilder::copy_atom`], [`KernelBuilder::mma_atom`] | `dev::ldsm(dst, smem)`, `dev::mma(d, a, b, c)` |
//! | typed parameter (buffer with element type and access, or scalar) | [`KernelBuilder::param`] | `src`, `reps` |
//! | tensor of the tensor layer ([`crate::layer::DeviceTensor`]: a layout over global, shared, register or coordinate storage) | [`KernelBuilder::tensor`] | `tensor::tAgA(A)(threadIdx.x, _, _)` |
//! | tiled copy / tiled MMA of the layer ([`crate::layer::DeviceCopy`], [`crate::layer::DeviceMma`]) | [`KernelBuilder::tiled_copy`], [`KernelBuilder::tiled_mma`] | `tessel::copy(copy::g2s{}, src, dst)`, `tessel::gemm(mma::m{}, a, b, c)` |
//!
//! Kernels are written with the tensor layer ([`crate::layer`]): the body slices the declared
//! tensors by thread and tile and calls `tessel::copy`, `tessel::copy_if` and `tessel::gemm`
//! (`kernels/cuda/tessel_tensor.cuh`). The body also uses the primitives of
//! `kernels/cuda/tessel.cuh` ([`TESSEL_CUH`]: vector
//! loads and stores, `cp.async` commit and wait, sync helpers); the instructions of copy and
//! MMA atoms (`cp.async`, `ldmatrix`, `stmatrix`, `mma.sync`, `wgmma`) are generated from the
//! atoms instead ([`atom`]). [`KernelBuilder::build`]
//! assembles the source by composition — comment, `TESSEL_FN` prelude, `tessel.cuh`, the
//! generated `namespace ty / k / layout / dev` declarations, the `extern "C"` signature with
//! `__launch_bounds__`, and the body — and checks on the host (no NVRTC, no GPU) that every
//! `ty::`/`k::`/`layout::`/`dev::` name the body (or a device function) refers to was given,
//! that every piece and parameter given is referred to, and that no name is given twice
//! ([`scan`] reads the tokens, skipping comments and literals).
//!
//! Constants are emitted as enumerators (`enum : int { NT = 256 };` in `namespace k`), not as
//! `constexpr` variables: NVRTC gives every namespace-scope `constexpr` variable a `.global`
//! symbol in the PTX, while enumerators, like the `#define`s they replace, leave no trace there.
//! The kernels moved onto this assembler compile to byte-identical sm_90 PTX (checked with the
//! `ptx_snapshot` example of this crate).
//!
//! [`Kernel::load`] compiles it for the GPU (NVRTC, cached by source text in [`crate::Gpu`]);
//! [`Loaded::launch`] checks typed [`Arg`]s against the declared parameters and launches;
//! [`Loaded::run_verified`] poisons an output, launches, downloads it and hands it to a CPU
//! replay's comparison (e.g. [`expect_bits`]); [`Loaded::time`] times with CUDA events.
//!
//! ```
//! use tessel_kernels::kernel::{Arg, CType, Elem, KernelBuilder, Param, expect_bits};
//! use tessel_layout::Layout;
//! // out[i] = in[p(i)] for a permutation p given as a layout.
//! let p: Layout = "(4,8):(8,1)".parse().unwrap();
//! let body = "const long long i = threadIdx.x;\n  if (i < k::N) out[i] = in[layout::p(i)];";
//! let kernel = KernelBuilder::new("permute", body)
//!     .alias("T", CType::B32)
//!     .int("N", 32)
//!     .index_layout("p", &p)
//!     .param(Param::input("in", Elem::alias("T")).len(32))
//!     .param(Param::output("out", Elem::alias("T")).len(32))
//!     .threads(32)
//!     .build()
//!     .unwrap();
//! assert!(kernel.source().contains("permute(const ty::T* __restrict__ in, ty::T* __restrict__ out)"));
//! // A body referring to a piece that was not given is refused on the host.
//! let err = KernelBuilder::new("broken", "out[0] = k::MISSING;")
//!     .param(Param::output("out", CType::B32.into())).threads(32).build().unwrap_err();
//! assert!(err.to_string().contains("kernel broken: the body refers to k::MISSING"), "{err}");
//! // On a GPU: launch and verify against the CPU replay.
//! let Ok(gpu) = tessel_kernels::Gpu::open(0) else { return };
//! let input: Vec<u32> = (100..132).collect();
//! let src = gpu.stream().clone_htod(&input).unwrap();
//! let mut dst = tessel_kernels::exec::alloc::<u32>(&gpu, 32).unwrap();
//! let loaded = kernel.load(&gpu).unwrap();
//! loaded.run_verified(&mut [Arg::input(&src), Arg::output(&mut dst)], 1, |got: &[u32]| {
//!     expect_bits("permute", got, |i| input[p.offset(i as i64).unwrap() as usize])
//! }).unwrap();
//! ```

pub mod atom;
pub mod build;
pub mod launch;
pub mod piece;
pub mod scan;

pub use build::{Kernel, KernelBuilder, SM90_CUH, TENSOR_CUH, TESSEL_CUH};
pub use launch::{Arg, Buffer, Loaded, Value, expect_bits, expect_bits_labelled};
pub use piece::{Access, CType, Elem, Field, FieldType, Launch, Param, ParamKind, Scalar};
