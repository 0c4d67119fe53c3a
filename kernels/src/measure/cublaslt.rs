//! The FP8 baseline: cuBLASLt's `cublasLtMatmul` on 8-bit A and B with per-tensor scales, the
//! same problem the library's FP8 GEMM computes (A row-major and B column-major: "TN"; fp32
//! compute; D row-major of the same output type), in the same process.
//!
//! Row-major `D (m x n)` is column-major `D^T (n x m) = B^T A^T`: cuBLASLt's first operand is
//! our B (column-major `k x n`, transposed: `CUBLAS_OP_T`), its second our A (row-major
//! `m x k` is column-major `k x m`, not transposed) — the "TN" form cuBLASLt requires of FP8
//! operands (cuBLAS documentation, "cublasLtMatmul", FP8 data types). Its `A_SCALE_POINTER` is
//! therefore B's scale and `B_SCALE_POINTER` A's. Fast accumulation is left off (cuBLASLt's
//! default, `CUBLASLT_MATMUL_DESC_FAST_ACCUM` 0), as the library promotes its accumulators.
//! cuBLASLt has no e5m2 x e5m2 kernel: that pair is `CUBLAS_STATUS_NOT_SUPPORTED`.
//!
//! ```
//! use tessel_kernels::{Element, GpuError, measure::cublaslt::fp8_cublaslt};
//! let Ok(gpu) = tessel_kernels::Gpu::open(0) else { return }; // no GPU: nothing to run
//! // 16-bit inputs are `cublasGemmEx`'s (`measure::cublas`): refused before an address is read.
//! // SAFETY: the call returns an error without using the addresses.
//! let r = unsafe {
//!     fp8_cublaslt(&gpu, (64, 64, 64), (0, Element::F16), (0, Element::F16), (0, Element::F32), (0, 0))
//! };
//! assert!(matches!(r, Err(GpuError::InvalidArgument(_) | GpuError::Unavailable(_))));
//! ```

use std::ffi::c_void;

use cudarc::cublaslt::{result as lt, sys};
use cudarc::driver::CudaSlice;

use crate::device::Gpu;
use crate::element::Element;
use crate::error::{GpuError, GpuResult, cuda};

/// Workspace cuBLASLt may use (32 MiB, NVIDIA's recommendation for Hopper).
const WORKSPACE: usize = 32 << 20;

/// Algorithms asked of the heuristic, tried in its order until one launches.
const CANDIDATES: usize = 16;

/// The handle, descriptors, chosen algorithm and workspace of one matmul; destroyed on drop.
struct Matmul {
    handle: sys::cublasLtHandle_t,
    desc: sys::cublasLtMatmulDesc_t,
    layouts: [sys::cublasLtMatrixLayout_t; 3],
    algo: sys::cublasLtMatmulAlgo_t,
    workspace: CudaSlice<u8>,
}

impl Drop for Matmul {
    fn drop(&mut self) {
        // SAFETY: each object was created once by `new` and is destroyed once here; errors at
        // teardown are ignored.
        unsafe {
            for l in self.layouts {
                if !l.is_null() {
                    let _ = lt::destroy_matrix_layout(l);
                }
            }
            if !self.desc.is_null() {
                let _ = lt::destroy_matmul_desc(self.desc);
            }
            let _ = lt::destroy_handle(self.handle);
        }
    }
}

/// cuBLASLt's data type of an element type.
fn data_type(e: Element) -> sys::cudaDataType {
    match e {
        Element::F32 => sys::cudaDataType::CUDA_R_32F,
        Element::F16 => sys::cudaDataType::CUDA_R_16F,
        Element::BF16 => sys::cudaDataType::CUDA_R_16BF,
        Element::E4M3 => sys::cudaDataType::CUDA_R_8F_E4M3,
        Element::E5M2 => sys::cudaDataType::CUDA_R_8F_E5M2,
    }
}

fn set<T>(
    desc: sys::cublasLtMatmulDesc_t,
    attr: sys::cublasLtMatmulDescAttributes_t,
    v: &T,
) -> GpuResult<()> {
    // SAFETY: `desc` is live; `v` is a value of the attribute's type, read during the call.
    cuda("cublasLtMatmulDescSetAttribute", unsafe {
        lt::set_matmul_desc_attribute(desc, attr, (v as *const T).cast::<c_void>(), size_of::<T>())
    })
}

/// Prepares `D = alpha scale_a scale_b A B + beta C`-style FP8 matmul with `beta = 0`: A
/// (`m x k`, row-major, leading dimension `k`, format `a.1`) at device address `a.0`, B
/// (`k x n`, column-major, leading dimension `k`) at `b.0`, D (`m x n`, row-major, leading
/// dimension `n`, type `d.1`: f32, f16 or bf16) at `d.0`, the scales fp32 device scalars at
/// `scales` (A's, B's; 16-byte aligned addresses, as cuBLASLt's samples allocate them). Returns the launch: each call enqueues the matmul on the GPU's stream.
/// Errors: no libcublasLt (`Unavailable`), or cuBLASLt's status (e.g. `NOT_SUPPORTED` for
/// e5m2 x e5m2).
///
/// # Safety
///
/// The addresses must be device buffers holding the matrices and scalars, alive (and the
/// stream's) until every launch has run.
///
/// ```
/// use tessel_kernels::{Element, measure::cublaslt::fp8_cublaslt};
/// let Ok(gpu) = tessel_kernels::Gpu::open(0) else { return };
/// let s = gpu.stream();
/// let (m, n, k) = (64, 64, 64);
/// let a = s.clone_htod(&vec![0x38u8; m * k]).unwrap(); // e4m3 1.0
/// let b = s.clone_htod(&vec![0x38u8; k * n]).unwrap();
/// let scales = s.clone_htod(&[0.5f32, 0.0, 0.0, 0.0, 0.25]).unwrap(); // 16 bytes apart
/// let d = s.alloc_zeros::<f32>(m * n).unwrap();
/// use tessel_kernels::cudarc::driver::DevicePtr;
/// let (pa, pb, ps, pd) = (a.device_ptr(s).0, b.device_ptr(s).0, scales.device_ptr(s).0, d.device_ptr(s).0);
/// // SAFETY: the buffers above hold the matrices and live past the synchronization.
/// let Ok(mut run) = (unsafe { fp8_cublaslt(&gpu, (m as i64, n as i64, k as i64),
///     (pa, Element::E4M3), (pb, Element::E4M3), (pd, Element::F32), (ps, ps + 16)) }) else { return };
/// run().unwrap();
/// gpu.synchronize().unwrap();
/// assert!(s.clone_dtoh(&d).unwrap().iter().all(|&x| x == 64.0 * 0.125));
/// ```
pub unsafe fn fp8_cublaslt(
    gpu: &Gpu,
    (m, n, k): (i64, i64, i64),
    a: (u64, Element),
    b: (u64, Element),
    d: (u64, Element),
    scales: (u64, u64),
) -> GpuResult<impl FnMut() -> GpuResult<()>> {
    // SAFETY: only tries to dlopen the library by its candidate names.
    if !unsafe { sys::is_culib_present() } {
        return Err(GpuError::Unavailable(
            "no cuBLASLt (libcublasLt not found)".into(),
        ));
    }
    if !(a.1.is_fp8() && b.1.is_fp8()) || d.1.is_fp8() {
        return Err(GpuError::InvalidArgument(format!(
            "cuBLASLt FP8 baseline: A {} and B {} must be 8-bit, D {} f32, f16 or bf16",
            a.1, b.1, d.1
        )));
    }
    let u = |v: i64| u64::try_from(v).unwrap_or(0);
    let stream = gpu.stream();
    let workspace = cuda("cuMemAlloc", stream.alloc_zeros::<u8>(WORKSPACE))?;
    let mut mm = Matmul {
        handle: cuda("cublasLtCreate", lt::create_handle())?,
        desc: std::ptr::null_mut(),
        layouts: [std::ptr::null_mut(); 3],
        algo: sys::cublasLtMatmulAlgo_t { data: [0; 8] },
        workspace,
    };
    mm.desc = cuda(
        "cublasLtMatmulDescCreate",
        lt::create_matmul_desc(
            sys::cublasComputeType_t::CUBLAS_COMPUTE_32F,
            sys::cudaDataType::CUDA_R_32F,
        ),
    )?;
    use sys::cublasLtMatmulDescAttributes_t as Attr;
    set(
        mm.desc,
        Attr::CUBLASLT_MATMUL_DESC_TRANSA,
        &cudarc::cublas::sys::cublasOperation_t::CUBLAS_OP_T,
    )?;
    set(
        mm.desc,
        Attr::CUBLASLT_MATMUL_DESC_TRANSB,
        &cudarc::cublas::sys::cublasOperation_t::CUBLAS_OP_N,
    )?;
    // cuBLASLt's A is our B and its B our A.
    set(
        mm.desc,
        Attr::CUBLASLT_MATMUL_DESC_A_SCALE_POINTER,
        &scales.1,
    )?;
    set(
        mm.desc,
        Attr::CUBLASLT_MATMUL_DESC_B_SCALE_POINTER,
        &scales.0,
    )?;
    let layout = |e: Element, rows: i64, cols: i64, ld: i64| {
        cuda(
            "cublasLtMatrixLayoutCreate",
            lt::create_matrix_layout(data_type(e), u(rows), u(cols), ld),
        )
    };
    mm.layouts[0] = layout(b.1, k, n, k)?;
    mm.layouts[1] = layout(a.1, k, m, k)?;
    mm.layouts[2] = layout(d.1, n, m, n)?;
    let pref = cuda("cublasLtMatmulPreferenceCreate", lt::create_matmul_pref())?;
    let bytes = WORKSPACE;
    let blank = sys::cublasLtMatmulHeuristicResult_t {
        algo: sys::cublasLtMatmulAlgo_t { data: [0; 8] },
        workspaceSize: 0,
        state: sys::cublasStatus_t::CUBLAS_STATUS_NOT_SUPPORTED,
        wavesCount: 0.0,
        reserved: [0; 4],
    };
    let mut found = [blank; CANDIDATES];
    let mut count = 0i32;
    // SAFETY: every object is live; the heuristic reads the descriptors and writes at most
    // CANDIDATES results into `found` and their number into `count`.
    let heuristic = unsafe {
        let r = lt::set_matmul_pref_attribute(
            pref,
            sys::cublasLtMatmulPreferenceAttributes_t::CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES,
            (&bytes as *const usize).cast::<c_void>(),
            size_of::<usize>(),
        )
        .and_then(|()| {
            sys::cublasLtMatmulAlgoGetHeuristic(
                mm.handle,
                mm.desc,
                mm.layouts[0],
                mm.layouts[1],
                mm.layouts[2],
                mm.layouts[2],
                pref,
                CANDIDATES as i32,
                found.as_mut_ptr(),
                &mut count,
            )
            .result()
        });
        let _ = lt::destroy_matmul_pref(pref);
        r
    };
    cuda("cublasLtMatmulAlgoGetHeuristic", heuristic)?;
    let candidates: Vec<sys::cublasLtMatmulAlgo_t> = found
        [..usize::try_from(count).unwrap_or(0).min(CANDIDATES)]
        .iter()
        .filter(|r| r.state == sys::cublasStatus_t::CUBLAS_STATUS_SUCCESS)
        .map(|r| r.algo)
        .collect();
    let (alpha, beta) = (1.0f32, 0.0f32);
    let stream = stream.clone();
    let launch = move |mm: &mut Matmul, algo: &sys::cublasLtMatmulAlgo_t| {
        use cudarc::driver::DevicePtrMut;
        let ws = mm.workspace.device_ptr_mut(&stream).0;
        // SAFETY: the caller guarantees the matrices and scales; the descriptors, algorithm and
        // workspace are owned by `mm`; alpha and beta are host scalars (the default pointer
        // mode). D stands for C (beta 0: not read).
        unsafe {
            lt::matmul(
                mm.handle,
                mm.desc,
                (&alpha as *const f32).cast::<c_void>(),
                (&beta as *const f32).cast::<c_void>(),
                b.0 as *const c_void,
                mm.layouts[0],
                a.0 as *const c_void,
                mm.layouts[1],
                d.0 as *const c_void,
                mm.layouts[2],
                d.0 as *mut c_void,
                mm.layouts[2],
                algo,
                ws as *mut c_void,
                WORKSPACE,
                stream.cu_stream() as sys::cudaStream_t,
            )
        }
    };
    // The heuristic's first choice is not guaranteed to run (cuBLASLt's documentation of
    // cublasLtMatmulAlgoGetHeuristic: request several and try them in order): the first
    // candidate whose launch is accepted is the baseline.
    let mut last = sys::cublasStatus_t::CUBLAS_STATUS_NOT_SUPPORTED;
    let mut chosen = None;
    for algo in &candidates {
        match launch(&mut mm, algo) {
            Ok(()) => {
                chosen = Some(*algo);
                break;
            }
            Err(e) => last = e.0,
        }
    }
    let Some(algo) = chosen else {
        return Err(GpuError::Cuda(format!(
            "cublasLtMatmul: none of the {} heuristic candidates launches (last status {last:?})",
            candidates.len()
        )));
    };
    mm.algo = algo;
    Ok(move || {
        let algo = mm.algo;
        cuda("cublasLtMatmul", launch(&mut mm, &algo))
    })
}
