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

/// A compute capability, e.g. `sm_90` for Hopper, or its arch-specific target `sm_90a`
/// ([`Arch::specific`]: the instructions that exist only on that chip, such as `wgmma` and
/// `setmaxnreg`; code built for it runs on compute capability 9.0 only).
///
/// ```
/// use tessel_kernels::Arch;
/// let a = Arch::new(9, 0).unwrap();
/// assert_eq!(a.to_string(), "sm_90");
/// assert_eq!(a.nvrtc_flag(), "--gpu-architecture=sm_90");
/// assert_eq!(Arch::SM90A.to_string(), "sm_90a");
/// assert!(Arch::new(0, 0).is_err());
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Arch {
    major: i32,
    minor: i32,
    specific: bool,
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
        Ok(Arch {
            major,
            minor,
            specific: false,
        })
    }

    /// Hopper's arch-specific target `sm_90a` (PTX `.target sm_90a`): `wgmma.mma_async` and
    /// `setmaxnreg` compile only for it ([PTX ISA 9.0](https://docs.nvidia.com/cuda/archive/13.0.0/parallel-thread-execution/index.html), "Target ISA notes" of both instructions).
    ///
    /// ```
    /// use tessel_kernels::Arch;
    /// assert_eq!(Arch::SM90A.nvrtc_flag(), "--gpu-architecture=sm_90a");
    /// assert!(Arch::SM90A.is_specific() && !Arch::new(9, 0).unwrap().is_specific());
    /// ```
    pub const SM90A: Arch = Arch {
        major: 9,
        minor: 0,
        specific: true,
    };

    /// sm_80 (Ampere): `cp.async`, `ldmatrix`, the 16-bit `mma.sync` (compute capability 8.0).
    ///
    /// ```
    /// assert_eq!(tessel_kernels::Arch::SM80, tessel_kernels::Arch::new(8, 0).unwrap());
    /// ```
    pub const SM80: Arch = Arch {
        major: 8,
        minor: 0,
        specific: false,
    };

    /// sm_89 (Ada): adds the 8-bit floating-point `mma.sync` (`.e4m3`, `.e5m2`; PTX ISA 9.0,
    /// "mma", target ISA notes).
    ///
    /// ```
    /// use tessel_kernels::Arch;
    /// assert_eq!(Arch::SM89, Arch::new(8, 9).unwrap());
    /// assert!(Arch::SM89.runs_on(Arch::new(9, 0).unwrap()) && !Arch::SM89.runs_on(Arch::SM80));
    /// ```
    pub const SM89: Arch = Arch {
        major: 8,
        minor: 9,
        specific: false,
    };

    /// The arch-specific target of this compute capability (`sm_90` -> `sm_90a`); `Err` for
    /// those without one here (only 9.0 has it in tessel).
    ///
    /// ```
    /// use tessel_kernels::Arch;
    /// assert_eq!(Arch::new(9, 0).unwrap().specific().unwrap(), Arch::SM90A);
    /// assert!(Arch::new(8, 0).unwrap().specific().is_err());
    /// ```
    pub fn specific(self) -> GpuResult<Arch> {
        if (self.major, self.minor) == (9, 0) {
            Ok(Arch::SM90A)
        } else {
            Err(GpuError::InvalidArgument(format!(
                "{self} has no arch-specific target in tessel (only sm_90 -> sm_90a)"
            )))
        }
    }

    /// True for an arch-specific target (`sm_90a`).
    ///
    /// ```
    /// assert!(tessel_kernels::Arch::SM90A.is_specific());
    /// ```
    pub fn is_specific(self) -> bool {
        self.specific
    }

    /// Whether code written for `self` runs on a device of architecture `device`: the same
    /// compute capability for an arch-specific target, otherwise any device of at least this
    /// compute capability (within the major version the machine code loads as built; on a
    /// later major one [`crate::kernel::Kernel::load`] compiles the source for the device).
    ///
    /// ```
    /// use tessel_kernels::Arch;
    /// let sm90 = Arch::new(9, 0).unwrap();
    /// assert!(Arch::SM90A.runs_on(sm90));
    /// assert!(!Arch::SM90A.runs_on(Arch::new(10, 0).unwrap()));
    /// assert!(Arch::new(8, 0).unwrap().runs_on(Arch::new(8, 6).unwrap()));
    /// assert!(!Arch::new(9, 0).unwrap().runs_on(Arch::new(8, 9).unwrap()));
    /// ```
    pub fn runs_on(self, device: Arch) -> bool {
        if self.specific {
            (self.major, self.minor) == (device.major, device.minor)
        } else {
            (self.major, self.minor) <= (device.major, device.minor)
        }
    }

    /// Whether two architectures share their major version (machine code built for one loads
    /// on the other only then, and only upwards: [`crate::kernel::Kernel::load`] compiles
    /// source of an older major architecture for the device's own).
    ///
    /// ```
    /// use tessel_kernels::Arch;
    /// let (sm80, sm89, sm90) = (Arch::new(8, 0).unwrap(), Arch::new(8, 9).unwrap(), Arch::new(9, 0).unwrap());
    /// assert!(sm80.same_major(sm89) && !sm80.same_major(sm90) && Arch::SM90A.same_major(sm90));
    /// ```
    pub fn same_major(self, other: Arch) -> bool {
        self.major == other.major
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
        let suffix = if self.specific { "a" } else { "" };
        write!(f, "sm_{}{}{suffix}", self.major, self.minor)
    }
}

/// The NVRTC options of every compile besides the architecture: C++17, and functions without
/// an execution space (a kernel body's lambdas) compiled for the device, which NVRTC 13.0
/// otherwise refuses as host code in JIT mode (`--device-as-default-execution-space`).
///
/// ```
/// assert!(tessel_kernels::compile::NVRTC_OPTIONS.contains(&"--std=c++17"));
/// ```
pub const NVRTC_OPTIONS: [&str; 2] = ["--std=c++17", "--device-as-default-execution-space"];

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
        options: std::iter::once(arch.nvrtc_flag())
            .chain(NVRTC_OPTIONS.iter().map(|o| o.to_string()))
            .collect(),
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

/// What NVRTC made of a source compiled through ptxas: the CUBIN and the program log (ptxas's
/// messages too when `--ptxas-options=--verbose` was asked for).
#[derive(Clone, Debug)]
pub struct Cubin {
    /// The machine code, as `cuobjdump`/`nvdisasm` read it.
    pub bytes: Vec<u8>,
    /// NVRTC's program log.
    pub log: String,
}

/// Compiles CUDA C++ `source` (entry point `kernel`, used in messages and as the file name) for
/// `arch` all the way to a CUBIN, with the options of [`compile_ptx`] plus `extra_options`
/// (e.g. `--ptxas-options=--verbose` to have ptxas report registers and spills in the log).
///
/// ```
/// use tessel_kernels::{Arch, compile::compile_cubin};
/// let src = "extern \"C\" __global__ void k(float* x) { x[threadIdx.x] = 1.0f; }";
/// match compile_cubin(src, "k", Arch::new(9, 0).unwrap(), &["--ptxas-options=--verbose"]) {
///     Ok(c) => assert!(c.bytes.starts_with(b"\x7fELF") && c.log.contains("registers")),
///     Err(e) => assert!(e.is_unavailable()), // no libnvrtc on this machine
/// }
/// ```
pub fn compile_cubin(
    source: &str,
    kernel: &str,
    arch: Arch,
    extra_options: &[&str],
) -> GpuResult<Cubin> {
    use cudarc::nvrtc::{result, sys};
    require_nvrtc()?;
    let nul = |what: &str| {
        GpuError::InvalidArgument(format!("{what} of kernel {kernel} contains a NUL byte"))
    };
    let src = std::ffi::CString::new(source).map_err(|_| nul("CUDA source"))?;
    let file = std::ffi::CString::new(format!("{kernel}.cu")).map_err(|_| nul("the name"))?;
    let flag = arch.nvrtc_flag();
    let mut options = vec![flag.as_str()];
    options.extend_from_slice(&NVRTC_OPTIONS);
    options.extend_from_slice(extra_options);
    let failed = |step: &str, e: &dyn fmt::Debug| {
        GpuError::Compile(format!("kernel {kernel}: {step}: {e:?}"))
    };
    // SAFETY: the program is created, compiled, read and destroyed here, once each, with a
    // buffer of the size NVRTC reports; it is destroyed on every path after its creation.
    unsafe {
        let prog = result::create_program(&src, Some(&file))
            .map_err(|e| failed("nvrtcCreateProgram", &e))?;
        let compiled = result::compile_program(prog, &options);
        let log = result::get_program_log(prog)
            .map(|l| {
                let bytes: Vec<u8> = l.iter().map(|&c| c as u8).filter(|&b| b != 0).collect();
                String::from_utf8_lossy(&bytes).into_owned()
            })
            .unwrap_or_default();
        let bytes = compiled
            .map_err(|e| {
                GpuError::Compile(format!(
                    "kernel {kernel} ({e:?}, options {options:?}):\n{log}"
                ))
            })
            .and_then(|()| {
                let mut size = 0usize;
                sys::nvrtcGetCUBINSize(prog, &mut size)
                    .result()
                    .map_err(|e| failed("nvrtcGetCUBINSize", &e))?;
                let mut raw = vec![0 as std::ffi::c_char; size];
                sys::nvrtcGetCUBIN(prog, raw.as_mut_ptr())
                    .result()
                    .map_err(|e| failed("nvrtcGetCUBIN", &e))?;
                Ok(raw.into_iter().map(|b| b as u8).collect())
            });
        let destroyed =
            result::destroy_program(prog).map_err(|e| failed("nvrtcDestroyProgram", &e));
        let bytes = bytes?;
        destroyed?;
        Ok(Cubin { bytes, log })
    }
}

/// NVRTC's version `(major, minor)`.
///
/// ```
/// match tessel_kernels::compile::nvrtc_version() {
///     Ok((major, _)) => assert!(major >= 12),
///     Err(e) => assert!(e.is_unavailable()), // no libnvrtc here
/// }
/// ```
pub fn nvrtc_version() -> GpuResult<(i32, i32)> {
    require_nvrtc()?;
    let (mut major, mut minor) = (0, 0);
    // SAFETY: two out-pointers to live integers.
    unsafe { cudarc::nvrtc::sys::nvrtcVersion(&mut major, &mut minor) }
        .result()
        .map_err(|e| GpuError::Compile(format!("nvrtcVersion: {e:?}")))?;
    Ok((major, minor))
}

/// The machine code of `kernel` in `source` for `arch`: from the on-disk cache
/// ([`crate::cache`]) when an earlier process compiled the same source with the same NVRTC,
/// otherwise compiled ([`compile_cubin`]) and stored there (a failed write only costs a later
/// compile).
///
/// ```
/// use tessel_kernels::{Arch, compile::compiled_image};
/// let src = "extern \"C\" __global__ void k(float* x) { x[threadIdx.x] = 1.0f; }";
/// match compiled_image(src, "k", Arch::new(9, 0).unwrap()) {
///     Ok(image) => assert!(image.starts_with(b"\x7fELF")), // a cubin
///     Err(e) => assert!(e.is_unavailable()), // no libnvrtc here
/// }
/// ```
pub fn compiled_image(source: &str, kernel: &str, arch: Arch) -> GpuResult<Vec<u8>> {
    let cache = crate::cache::DiskCache::from_env();
    let key = crate::cache::CacheKey::new(source, &arch.to_string(), nvrtc_version()?);
    if let Some(image) = cache.as_ref().and_then(|c| c.get(&key)) {
        return Ok(image);
    }
    let cubin = compile_cubin(source, kernel, arch, &[])?;
    if let Some(c) = &cache {
        let _ = c.put(&key, &cubin.bytes);
    }
    Ok(cubin.bytes)
}
