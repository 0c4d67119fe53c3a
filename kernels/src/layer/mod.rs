//! The tensor layer: kernels written in CuTe's vocabulary, with every layout operation run and
//! checked on the host.
//!
//! A kernel declares, in Rust, its tensors ([`DeviceTensor`]: global, shared, register or
//! coordinate storage and a layout), its tiled copies ([`DeviceCopy`]) and tiled MMAs
//! ([`DeviceMma`]), and derives the tensors its body uses with CuTe's operations — `local_tile`,
//! `partition_S`/`partition_D`, `partition_A/B/C`, `partition_fragment`, `retile` — all of them
//! tessel's algebra on the host. Each derivation checks what the body will assume: a copy's
//! values per thread, element widths, that an instruction moving vectors finds each thread's
//! values consecutive and aligned, that the copies feeding an MMA's registers put each value
//! where the MMA reads it ([`DeviceMma::check_fed_by`]), that an accumulator read again as a
//! register operand or row by row is read where the MMA wrote it ([`DeviceMma::retile_a_from_c`],
//! [`DeviceMma::row_view`]). A mismatch is an error of
//! [`KernelBuilder::build`](crate::kernel::KernelBuilder::build), not an NVRTC failure or a
//! wrong answer.
//!
//! The kernel body (CUDA C++) then reads like a CuTe kernel. The assembler emits each tensor
//! as a constructor in `namespace tensor` over a layout type whose index math is the emitted
//! layout (`kernels/cuda/tessel_tensor.cuh` defines the protocol), each tiled copy as
//! `copy::NAME` and each tiled MMA as `mma::NAME`, whose `call` is one atom instruction; the
//! body slices the thread and tile modes at run time and calls the algorithms:
//!
//! ```text
//! auto tSgS = tensor::tSgS(src)(threadIdx.x, _, _, _, _, tile_m, tile_n);  // this thread's part
//! auto frag = tensor::frag();                                              // registers
//! tessel::copy(copy::load, tSgS, frag(_, _, _, _));
//! tessel::gemm(mma::mma, tCrA, tCrB, acc.tensor());
//! ```
//!
//! Partitions keep the partitioner's threads as mode 0 (`(thread, values, ...)`), so a body
//! slices the thread of its choice (`threadIdx.x`, or the thread's index in its warpgroup).
//! `tessel::convert<OUT>` rounds an fp32 fragment to fp16 (`OUT` 1) or bf16 (2) two values per
//! instruction (`cvt.rn.f16x2.f32`, `cvt.rn.bf16x2.f32`), the pair in one register.
//!
//! Addresses cost what a hand-written kernel's do. Slicing a tensor in memory whose layout has
//! no swizzle moves the fixed coordinates into its pointer (CuTe's slicing), so the thread's and
//! the block's part of an address is computed once, where they are sliced. A swizzled tensor's
//! offset is split on the host ([`DeviceTensor::hoisted_modes`]): a base over the thread and
//! whatever modes the swizzle mixes with it, plus one term per other mode, proven exact for
//! every coordinate because the groups' bits are disjoint before and after the swizzle, which
//! is linear over GF(2). Once the body slices the thread, the tensor holds the shared address of
//! the base for every coordinate of the other hoisted modes (a k step's, say), and each access
//! adds its terms (constants in unrolled loops, a pipeline stage) instead of applying the
//! swizzle again. [`DeviceOffset`] computes offsets as the emitted code does, for CPU replays.
//!
//! A tensor tiled past the end of its data (a problem that is not whole tiles) is guarded by
//! coordinate tensors ([`DeviceTensor::identity`], one coordinate each) partitioned like it:
//! `tessel::copy_if(copy::X{}, tessel::elem_less(c_rows, M, c_cols, N), src, dst)` reads each at
//! the first value of an atom call ([`DeviceCopy::check_predicate`] proves that exact). Where the
//! host proves every coordinate below its bound ([`DeviceTensor::unchecked`]) the comparison is
//! left out and `copy_if` compiles to `copy`. A shared buffer is sized by its tensor:
//! `__shared__ float s[tensor::NAME_layout::cosize];`.
//!
//! ```
//! use tessel_kernels::{kernel::{CType, KernelBuilder, Param}, layer::{DeviceCopy, DeviceTensor}};
//! use tessel_layout::{atom::copy_atom, tiled::make_tiled_copy};
//! // 32 threads copy a 32 x 8 fp32 tile, 4 consecutive floats each (128-bit vectors).
//! let atom = copy_atom("UniversalCopy<uint128_t>").unwrap().typed(32).unwrap();
//! let load = DeviceCopy::new("load", make_tiled_copy(&atom, &"(32,2):(2,1)".parse().unwrap(),
//!                                                     &"(1,4):(0,1)".parse().unwrap()).unwrap());
//! let src = DeviceTensor::global(CType::F32, "(32,8):(8,1)".parse().unwrap());
//! let dst = DeviceTensor::global(CType::F32, "(32,8):(8,1)".parse().unwrap());
//! let body = "auto s = tensor::s(in)(threadIdx.x, _, _, _, _);\n  \
//!             auto d = tensor::d(out)(threadIdx.x, _, _, _, _);\n  \
//!             tessel::copy(copy::load{}, s, d);";
//! let kernel = KernelBuilder::new("copy32x8", body)
//!     .tiled_copy(&load)
//!     .tensor("s", &load.partition_s(&src).unwrap())
//!     .tensor("d", &load.partition_d(&dst).unwrap())
//!     .param(Param::input("in", CType::F32.into()).len(256))
//!     .param(Param::output("out", CType::F32.into()).len(256))
//!     .threads(32)
//!     .build()
//!     .unwrap();
//! assert!(kernel.source().contains("struct load {"));
//! ```

mod accum;
mod check;
mod copy;
pub(crate) mod emit;
mod gmma;
mod mma;
mod predicate;
mod retile;
mod split;
mod tensor;

pub use accum::RowView;
pub use copy::DeviceCopy;
pub use gmma::DescriptorBase;
pub use mma::DeviceMma;
pub use split::DeviceOffset;
pub use tensor::{Bound, DeviceTensor, Origin, Space};
