//! The cuBLAS GEMM baseline: one `cublasGemmEx` call for every type pair and operand order the
//! suites compare with (the tensor-core GEMM's f16 -> f32, the Hopper GEMM's and the GEMM
//! library's f16/bf16 -> f32/f16/bf16, the SGEMM ladder's f32 -> f32), fp32 compute, alpha 1,
//! beta 0.
//!
//! Row-major `D = A B` (`A` `m x k`, `B` `k x n`, `D` `m x n` row-major) is, read column-major,
//! `D^T = B^T A^T`: cuBLAS gets `B` first. A row-major operand read column-major is its own
//! transpose (`CUBLAS_OP_N` on it gives the transposed operand cuBLAS wants), a column-major
//! one needs `CUBLAS_OP_T` (cuBLAS documentation, `cublasGemmEx`:
//! <https://docs.nvidia.com/cuda/cublas/#cublasgemmex>).
//!
//! ```
//! use tessel_kernels::measure::cublas::cublas_present;
//! let _maybe: bool = cublas_present();
//! ```

use std::ffi::c_void;

use cudarc::cublas::{CudaBlas, result::gemm_ex, sys as cublas_sys};

use crate::blas::order::Order;
use crate::device::Gpu;
use crate::element::{DeviceElement, Element};
use crate::error::{GpuError, GpuResult, cuda};

/// True when libcublas can be loaded (cudarc panics on first use otherwise).
///
/// ```
/// let _maybe: bool = tessel_kernels::measure::cublas::cublas_present();
/// ```
pub fn cublas_present() -> bool {
    // SAFETY: only tries to dlopen the library by its candidate names.
    unsafe { cublas_sys::is_culib_present() }
}

/// A cuBLAS handle on the GPU's stream, or `Unavailable` without libcublas.
///
/// ```
/// let Ok(gpu) = tessel_kernels::Gpu::open(0) else { return };
/// if let Err(e) = tessel_kernels::measure::cublas::cublas(&gpu) {
///     println!("{e}"); // e.g. no libcublas on this machine
/// }
/// ```
pub fn cublas(gpu: &Gpu) -> GpuResult<CudaBlas> {
    if !cublas_present() {
        return Err(GpuError::Unavailable(
            "no cuBLAS (libcublas not found)".into(),
        ));
    }
    cuda("cublasCreate", CudaBlas::new(gpu.stream().clone()))
}

/// Whether `cublasGemmEx` computes this type pair with fp32 compute: fp32 output, or the output
/// type equal to the 16-bit input type. cuBLAS answers `CUBLAS_STATUS_NOT_SUPPORTED` for fp16 in
/// with bf16 out and for bf16 in with fp16 out (seen on an H100 with CUDA 13), so those pairs
/// are checked against the CPU reference only. The 8-bit inputs need cuBLASLt
/// (`cublasLtMatmul`), not `cublasGemmEx`: their baseline is [`super::cublaslt`].
///
/// ```
/// use tessel_kernels::{Element, measure::cublas::supports};
/// assert!(supports(Element::BF16, Element::F32) && supports(Element::F16, Element::F16));
/// assert!(supports(Element::F32, Element::F32));
/// assert!(!supports(Element::F16, Element::BF16) && !supports(Element::E4M3, Element::F32));
/// ```
pub fn supports(input: Element, output: Element) -> bool {
    matches!(
        (input, output),
        (Element::F16 | Element::BF16 | Element::F32, Element::F32)
            | (Element::F16, Element::F16)
            | (Element::BF16, Element::BF16)
    )
}

/// One GEMM's operands for [`gemm`]: device addresses, the operands' orders and the types.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct GemmOperands {
    /// `m x k` A.
    pub a: (u64, Order),
    /// `k x n` B.
    pub b: (u64, Order),
    /// The type of A and B.
    pub input: Element,
    /// Row-major `m x n` D.
    pub d: u64,
    /// The type of D.
    pub output: Element,
}

/// Row-major `D = A B` with `cublasGemmEx` (fp32 compute, alpha 1, beta 0), the leading
/// dimensions the contiguous extents. A type pair cuBLAS does not compute ([`supports`]) is
/// cuBLAS's error (`CUBLAS_STATUS_NOT_SUPPORTED`), passed on.
///
/// # Safety
///
/// The addresses must be device buffers on `blas`'s stream holding `m k`, `k n` and `m n`
/// elements of their types.
pub unsafe fn gemm(
    blas: &CudaBlas,
    (m, n, k): (i64, i64, i64),
    ops: GemmOperands,
) -> GpuResult<()> {
    let int = |v: i64| i32::try_from(v).unwrap_or(i32::MAX);
    let op = |o| match o {
        Order::RowMajor => cublas_sys::cublasOperation_t::CUBLAS_OP_N,
        Order::ColMajor => cublas_sys::cublasOperation_t::CUBLAS_OP_T,
    };
    let ((a, oa), (b, ob)) = (ops.a, ops.b);
    let lda = if oa == Order::RowMajor { k } else { m };
    let ldb = if ob == Order::RowMajor { n } else { k };
    let (alpha, beta) = (1.0f32, 0.0f32);
    // SAFETY: the caller guarantees the buffers; alpha and beta are host scalars (the default
    // pointer mode).
    cuda("cublasGemmEx", unsafe {
        gemm_ex(
            *blas.handle(),
            op(ob),
            op(oa),
            int(n),
            int(m),
            int(k),
            (&alpha as *const f32).cast::<c_void>(),
            b as *const c_void,
            ops.input.cublas(),
            int(ldb),
            a as *const c_void,
            ops.input.cublas(),
            int(lda),
            (&beta as *const f32).cast::<c_void>(),
            ops.d as *mut c_void,
            ops.output.cublas(),
            int(n),
            cublas_sys::cublasComputeType_t::CUBLAS_COMPUTE_32F,
            cublas_sys::cublasGemmAlgo_t::CUBLAS_GEMM_DEFAULT,
        )
    })
}

/// Row-major `C = A B^T` (A `m x k`, B `n x k`, both K-contiguous; C `m x n`): [`gemm`] with A
/// row-major and B column-major (`n x k` row-major is `k x n` column-major), the layout of the
/// tensor-core, Hopper and SGEMM suites.
///
/// # Safety
///
/// As [`gemm`]: `a`, `b`, `c` hold `m k`, `n k`, `m n` elements of their types on `blas`'s
/// stream.
pub unsafe fn gemm_tn(
    blas: &CudaBlas,
    shape: (i64, i64, i64),
    (a, b, input): (u64, u64, Element),
    (c, output): (u64, Element),
) -> GpuResult<()> {
    let ops = GemmOperands {
        a: (a, Order::RowMajor),
        b: (b, Order::ColMajor),
        input,
        d: c,
        output,
    };
    // SAFETY: the caller guarantees the buffers.
    unsafe { gemm(blas, shape, ops) }
}
