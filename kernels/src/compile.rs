//! NVRTC compilation for an explicit GPU architecture, with the compile log in the error.
//!
//! ```
//! use tessel_kernels::{Arch, GpuError, compile::compile_ptx};
//! let err = compile_ptx("bad\0source", "k", Arch::new(8, 0).unwrap()).unwrap_err();
//! // A NUL byte is refused, or NVRTC is missing altogether.
//! assert!(matches!(err, GpuError::InvalidArgument(_) | GpuError::Unavailable(_)));
//! ```

use std::fmt;

use cudarc::nvrtc::{CompileError, CompileOptions, Ptx};

use crate::device::require_nvrtc;
use crate::error::{GpuError, GpuResult};

/// A compute capability, e.g. `sm_90` for Hopper.
///
/// ```
/// use tessel_kernels::Arch;
/// let a = Arch::new(9, 0).unwrap();
/// assert_eq!(a.to_string(), "sm_90");
/// assert_eq!(a.nvrtc_flag(), "--gpu-architecture=sm_90");
/// assert!(Arch::new(0, 0).is_err());
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Arch {
    major: i32,
    minor: i32,
}

impl Arch {
    /// The architecture of compute capability `major.minor` (major 3..=12, minor 0..=9).
    ///
    /// ```
    /// use tessel_kernels::Arch;
    /// assert_eq!(Arch::new(8, 9).unwrap().to_string(), "sm_89");
    /// assert!(Arch::new(13, 0).is_err());
    /// assert!(Arch::new(9, 10).is_err());
    /// ```
    pub fn new(major: i32, minor: i32) -> GpuResult<Arch> {
        if !(3..=12).contains(&major) || !(0..=9).contains(&minor) {
            return Err(GpuError::InvalidArgument(format!(
                "compute capability {major}.{minor} is outside 3.0..=12.9"
            )));
        }
        Ok(Arch { major, minor })
    }

    /// The NVRTC option selecting this architecture (never left unset).
    ///
    /// ```
    /// use tessel_kernels::Arch;
    /// assert_eq!(Arch::new(9, 0).unwrap().nvrtc_flag(), "--gpu-architecture=sm_90");
    /// ```
    pub fn nvrtc_flag(&self) -> String {
        format!("--gpu-architecture={self}")
    }
}

impl fmt::Display for Arch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "sm_{}{}", self.major, self.minor)
    }
}

/// Compiles CUDA C++ `source` (whose entry point is `kernel`, used in messages) to PTX for `arch`.
///
/// ```
/// use tessel_kernels::{Arch, compile::compile_ptx};
/// let src = "extern \"C\" __global__ void k(float* x) { x[threadIdx.x] = 1.0f; }";
/// match compile_ptx(src, "k", Arch::new(9, 0).unwrap()) {
///     Ok(ptx) => assert!(ptx.to_src().contains(".target sm_90")),
///     Err(e) => assert!(e.is_unavailable()), // no libnvrtc on this machine
/// }
/// ```
pub fn compile_ptx(source: &str, kernel: &str, arch: Arch) -> GpuResult<Ptx> {
    require_nvrtc()?;
    if source.contains('\0') {
        return Err(GpuError::InvalidArgument(format!(
            "CUDA source of kernel {kernel} contains a NUL byte"
        )));
    }
    let opts = CompileOptions {
        options: vec![arch.nvrtc_flag(), "--std=c++17".into()],
        name: Some(format!("{kernel}.cu")),
        ..Default::default()
    };
    cudarc::nvrtc::compile_ptx_with_opts(source, opts).map_err(|e| match e {
        CompileError::CompileError {
            nvrtc,
            options,
            log,
        } => GpuError::Compile(format!(
            "kernel {kernel} ({nvrtc:?}, options {options:?}):\n{}",
            log.to_string_lossy()
        )),
        other => GpuError::Compile(format!("kernel {kernel}: {other:?}")),
    })
}
