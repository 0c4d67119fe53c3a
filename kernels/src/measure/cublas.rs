//! The cuBLAS GEMM baseline: one `cublasGemmEx` call for every type pair and operand order the
//! suites compare with (the tensor-core GEMM's f16 -> f32, the Hopper GEMM's and the GEMM
//! library's f16/bf16 -> f32/f16/bf16, the SGEMM ladder's f32 -> f32), and `cublasSgemm` on the
//! SGEMM ladder's own operand orders ([`sgemm`]); fp32 compute, alpha 1, beta 0.
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

/// cuBLAS's operation and leading dimension of a `rows x cols` operand stored in `order`, read
/// column-major: a row-major operand is its own transpose (`CUBLAS_OP_N`, leading dimension
/// `cols`), a column-major one needs `CUBLAS_OP_T` (leading dimension `rows`).
fn operand(order: Order, rows: i64, cols: i64) -> (cublas_sys::cublasOperation_t, i64) {
    match order {
        Order::RowMajor => (cublas_sys::cublasOperation_t::CUBLAS_OP_N, cols),
        Order::ColMajor => (cublas_sys::cublasOperation_t::CUBLAS_OP_T, rows),
    }
}

/// A dimension as the `int` cuBLAS takes (`i32::MAX` when it does not fit).
fn int(v: i64) -> i32 {
    i32::try_from(v).unwrap_or(i32::MAX)
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
    let ((a, oa), (b, ob)) = (ops.a, ops.b);
    let (op_a, lda) = operand(oa, m, k);
    let (op_b, ldb) = operand(ob, k, n);
    let (alpha, beta) = (1.0f32, 0.0f32);
    // SAFETY: the caller guarantees the buffers; alpha and beta are host scalars (the default
    // pointer mode).
    cuda("cublasGemmEx", unsafe {
        gemm_ex(
            *blas.handle(),
            op_b,
            op_a,
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

/// Row-major `C = A B` with `cublasSgemm` (fp32, alpha 1, beta 0): A (`m x k`) and B (`k x n`)
/// stored in their orders, C (`m x n`) row-major. cuBLAS computes the column-major
/// `C^T = B^T A^T` (`n x m`, leading dimension `n`): a row-major B is the column-major `B^T`
/// (`CUBLAS_OP_N`, leading dimension `n`), a column-major B needs `CUBLAS_OP_T` (leading
/// dimension `k`); a row-major A is the column-major `A^T` (`CUBLAS_OP_N`, leading dimension
/// `k`), a column-major A needs `CUBLAS_OP_T` (leading dimension `m`). The SGEMM ladder's
/// baseline on its own operand orders.
///
/// # Safety
///
/// `a`, `b`, `c` are device addresses of `m k`, `k n` and `m n` floats on `blas`'s stream.
///
/// ```
/// use tessel_kernels::{blas::Order, measure::cublas::{cublas, sgemm}};
/// use tessel_kernels::cudarc::driver::{DevicePtr, DevicePtrMut};
/// let Ok(gpu) = tessel_kernels::Gpu::open(0) else { return }; // no GPU: nothing to run
/// let Ok(blas) = cublas(&gpu) else { return };
/// let s = gpu.stream();
/// let a = s.clone_htod(&[1.0f32, 2.0, 3.0, 4.0]).unwrap(); // column-major [[1, 3], [2, 4]]
/// let b = s.clone_htod(&[1.0f32, 0.0, 0.0, 1.0]).unwrap(); // the identity
/// let mut c = s.alloc_zeros::<f32>(4).unwrap();
/// let (pa, pb, pc) = (a.device_ptr(s).0, b.device_ptr(s).0, c.device_ptr_mut(s).0);
/// // SAFETY: a, b and c hold 2 x 2 floats on the handle's stream and outlive the call.
/// unsafe { sgemm(&blas, (2, 2, 2), (pa, Order::ColMajor), (pb, Order::RowMajor), pc) }.unwrap();
/// assert_eq!(s.clone_dtoh(&c).unwrap(), [1.0, 3.0, 2.0, 4.0]);
/// ```
pub unsafe fn sgemm(
    blas: &CudaBlas,
    (m, n, k): (i64, i64, i64),
    (a, a_order): (u64, Order),
    (b, b_order): (u64, Order),
    c: u64,
) -> GpuResult<()> {
    let (op_a, ld_a) = operand(a_order, m, k);
    let (op_b, ld_b) = operand(b_order, k, n);
    let (alpha, beta) = (1.0f32, 0.0f32);
    // SAFETY: the caller guarantees the buffers; alpha and beta are host scalars.
    let status = unsafe {
        cublas_sys::cublasSgemm_v2(
            *blas.handle(),
            op_b,
            op_a,
            int(n),
            int(m),
            int(k),
            &alpha,
            b as *const f32,
            int(ld_b),
            a as *const f32,
            int(ld_a),
            &beta,
            c as *mut f32,
            int(n),
        )
    };
    cuda("cublasSgemm", status.result())
}
