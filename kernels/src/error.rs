//! The error type of the GPU runtime.
//!
//! Layout problems keep their [`tessel_layout::Error`]; CUDA problems carry the failing call and
//! the driver's message; a missing driver, library or GPU is [`GpuError::Unavailable`] so that
//! callers (tests, `tessel bench`) can skip with the reason instead of failing.
//!
//! ```
//! use tessel_kernels::{Element, GpuError};
//! let e: GpuError = "f8".parse::<Element>().unwrap_err().into();
//! assert!(matches!(e, GpuError::Layout(_)) && !e.is_unavailable());
//! ```

use std::fmt;

/// Everything that can go wrong between a layout and a finished kernel run.
///
/// ```
/// use tessel_kernels::GpuError;
/// let e = GpuError::Unavailable("no CUDA driver (libcuda not found)".into());
/// assert!(e.is_unavailable());
/// assert_eq!(e.to_string(), "GPU unavailable: no CUDA driver (libcuda not found)");
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum GpuError {
    /// No CUDA driver, no NVRTC library or no GPU: a reason to skip, not a bug.
    Unavailable(String),
    /// A CUDA driver call failed: which call, and the driver's error.
    Cuda(String),
    /// NVRTC rejected a kernel: the kernel name, the options and the full compile log.
    Compile(String),
    /// A kernel produced a wrong result (first mismatches listed).
    Verify(String),
    /// A layout operation failed, or a plan's layouts do not fit together.
    Layout(tessel_layout::Error),
    /// An argument outside what the runtime supports (size, dtype, ...).
    InvalidArgument(String),
}

impl GpuError {
    /// True when the error only says that no GPU (or CUDA library) is available.
    ///
    /// ```
    /// use tessel_kernels::GpuError;
    /// assert!(!GpuError::Cuda("cuLaunchKernel: CUDA_ERROR_INVALID_VALUE".into()).is_unavailable());
    /// ```
    pub fn is_unavailable(&self) -> bool {
        matches!(self, GpuError::Unavailable(_))
    }
}

impl fmt::Display for GpuError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            GpuError::Unavailable(m) => write!(f, "GPU unavailable: {m}"),
            GpuError::Cuda(m) => write!(f, "CUDA error: {m}"),
            GpuError::Compile(m) => write!(f, "NVRTC compile error: {m}"),
            GpuError::Verify(m) => write!(f, "verification failed: {m}"),
            GpuError::Layout(e) => write!(f, "layout error: {e}"),
            GpuError::InvalidArgument(m) => write!(f, "invalid argument: {m}"),
        }
    }
}

impl std::error::Error for GpuError {}

impl From<tessel_layout::Error> for GpuError {
    fn from(e: tessel_layout::Error) -> Self {
        GpuError::Layout(e)
    }
}

/// Result of the GPU runtime.
///
/// ```
/// use tessel_kernels::{GpuError, GpuResult};
/// // Layout errors convert with `?`.
/// fn parse(text: &str) -> GpuResult<tessel_layout::Layout> {
///     Ok(text.parse()?)
/// }
/// assert_eq!(parse("8:1").unwrap().size(), 8);
/// assert!(matches!(parse("(4,"), Err(GpuError::Layout(_))));
/// ```
pub type GpuResult<T> = std::result::Result<T, GpuError>;

/// Wraps a driver result: `cuda(call_name, result)` turns a driver error into
/// [`GpuError::Cuda`] naming the call.
///
/// ```
/// use tessel_kernels::error::cuda;
/// let ok: Result<i32, String> = Ok(3);
/// assert_eq!(cuda("cuNothing", ok).unwrap(), 3);
/// let bad: Result<i32, String> = Err("CUDA_ERROR_INVALID_VALUE".into());
/// assert_eq!(cuda("cuNothing", bad).unwrap_err().to_string(),
///            "CUDA error: cuNothing: \"CUDA_ERROR_INVALID_VALUE\"");
/// ```
pub fn cuda<T, E: fmt::Debug>(call: &str, result: std::result::Result<T, E>) -> GpuResult<T> {
    result.map_err(|e| GpuError::Cuda(format!("{call}: {e:?}")))
}
