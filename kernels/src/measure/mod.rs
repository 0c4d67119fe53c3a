//! Reference and measurement: what every benchmark compares a kernel with, and how it times.
//!
//! - [`cublas`]: the cuBLAS GEMM baseline (`cublasGemmEx`, every type pair and operand order the
//!   suites use: [`cublas::gemm`], [`cublas::gemm_tn`], [`cublas::supports`]; `cublasSgemm` on
//!   the SGEMM ladder's operand orders: [`cublas::sgemm`]).
//! - [`cublaslt`]: the FP8 GEMM baseline, `cublasLtMatmul` on e4m3/e5m2 inputs with per-tensor
//!   scales ([`cublaslt::fp8_cublaslt`]): the 8-bit type pairs, which `cublasGemmEx` does not
//!   take and [`cublas::supports`] refuses.
//! - [`memcpy`]: the memory-bound kernels' baseline, `cuMemcpyDtoD` of the same buffers timed in
//!   the same run ([`memcpy::time_memcpy_dtod`]), and the effective bandwidth they are compared
//!   by ([`memcpy::gbps`]).
//! - [`bound`]: the error bounds a result is held to against an exact reference (the fp32
//!   accumulation of a dot product, [`bound::tolerance`] and [`bound::gamma`]; the rounding to
//!   an output type, [`bound::rounded`]).
//! - [`compare`]: a result against a reference, element by element within those bounds
//!   ([`compare::Comparison`], [`compare::compare_rows`], [`compare::compare_relative`],
//!   [`compare::expect_close`]).
//! - [`timing`]: CUDA-event timing (warm-up, median of repeats, paired same-process timing);
//!   also reachable as `tessel_kernels::timing`.
//!
//! ```
//! use tessel_kernels::{Element, measure::{cublas, timing::median}};
//! assert!(cublas::supports(Element::F16, Element::F32));
//! assert_eq!(median(&mut [3.0, 1.0, 2.0]), 2.0);
//! ```

pub mod bound;
pub mod compare;
pub mod cublas;
pub mod cublaslt;
pub mod memcpy;
pub mod timing;
