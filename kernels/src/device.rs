//! Device discovery that never panics.
//!
//! cudarc loads libcuda and libnvrtc lazily and panics when a library is missing, so every entry
//! point here probes the libraries first and turns "no driver", "no NVRTC" and "no GPU" into
//! [`GpuError::Unavailable`].
//!
//! ```
//! match tessel_kernels::Gpu::open(usize::MAX) {
//!     Ok(_) => unreachable!("no machine has that many GPUs"),
//!     Err(e) => assert!(e.is_unavailable()),
//! }
//! ```

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use cudarc::driver::sys::CUdevice_attribute;
use cudarc::driver::{CudaContext, CudaFunction, CudaModule, CudaStream};

use crate::compile::{Arch, compiled_image};
use crate::error::{GpuError, GpuResult, cuda};

/// True when the CUDA driver library (libcuda) can be loaded.
///
/// ```
/// // Never panics, with or without a driver installed.
/// let _ = tessel_kernels::device::driver_present();
/// ```
pub fn driver_present() -> bool {
    // SAFETY: only tries to dlopen the library by its candidate names.
    unsafe { cudarc::driver::sys::is_culib_present() }
}

/// True when the NVRTC library (libnvrtc) can be loaded.
///
/// ```
/// let _ = tessel_kernels::device::nvrtc_present();
/// ```
pub fn nvrtc_present() -> bool {
    // SAFETY: only tries to dlopen the library by its candidate names.
    unsafe { cudarc::nvrtc::sys::is_culib_present() }
}

/// `Err(Unavailable)` naming the missing library, or `Ok` when NVRTC can be loaded.
///
/// ```
/// match tessel_kernels::device::require_nvrtc() {
///     Ok(()) => {}
///     Err(e) => assert!(e.is_unavailable()),
/// }
/// ```
pub fn require_nvrtc() -> GpuResult<()> {
    if nvrtc_present() {
        Ok(())
    } else {
        Err(GpuError::Unavailable(
            "no NVRTC (libnvrtc not found; set LD_LIBRARY_PATH to a CUDA lib folder or the \
             nvidia-cuda-nvrtc wheel's lib folder)"
                .into(),
        ))
    }
}

/// One GPU with a context, its default stream and a module cache keyed by CUDA source text.
///
/// ```
/// let Ok(gpu) = tessel_kernels::Gpu::open(0) else { return }; // no GPU: nothing to run
/// // Kernels are compiled for the device's own architecture.
/// let arch = gpu.arch().to_string();
/// assert!(arch.starts_with("sm_") && gpu.arch().nvrtc_flag().ends_with(&arch));
/// ```
pub struct Gpu {
    ctx: Arc<CudaContext>,
    stream: Arc<CudaStream>,
    name: String,
    arch: Arch,
    sm_count: i32,
    l2_bytes: i32,
    modules: Mutex<HashMap<String, Arc<CudaModule>>>,
}

impl std::fmt::Debug for Gpu {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Gpu({})", self.describe())
    }
}

impl Gpu {
    /// Opens GPU `ordinal`; `Err(Unavailable)` when there is no driver, no NVRTC or no such GPU.
    ///
    /// ```
    /// match tessel_kernels::Gpu::open(0) {
    ///     Ok(gpu) => println!("{}", gpu.describe()),
    ///     Err(e) => println!("skipping: {e}"),
    /// }
    /// ```
    pub fn open(ordinal: usize) -> GpuResult<Gpu> {
        if !driver_present() {
            return Err(GpuError::Unavailable(
                "no CUDA driver (libcuda could not be loaded)".into(),
            ));
        }
        require_nvrtc()?;
        let count = CudaContext::device_count().map_err(|e| {
            GpuError::Unavailable(format!("no GPU (cuInit/cuDeviceGetCount: {e:?})"))
        })?;
        let index = i32::try_from(ordinal).unwrap_or(i32::MAX);
        if index >= count {
            return Err(GpuError::Unavailable(format!(
                "no GPU with ordinal {ordinal} ({count} device(s) found)"
            )));
        }
        let ctx = cuda("cuCtxRetain (primary context)", CudaContext::new(ordinal))?;
        // SAFETY: tessel uses one stream per context, so no cross-stream tracking is needed.
        unsafe { ctx.disable_event_tracking() };
        let name = cuda("cuDeviceGetName", ctx.name())?;
        let (major, minor) = cuda(
            "cuDeviceGetAttribute (compute capability)",
            ctx.compute_capability(),
        )?;
        let sm_count = cuda(
            "cuDeviceGetAttribute (multiprocessor count)",
            ctx.attribute(CUdevice_attribute::CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT),
        )?;
        let l2_bytes = cuda(
            "cuDeviceGetAttribute (L2 size)",
            ctx.attribute(CUdevice_attribute::CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE),
        )?;
        let stream = ctx.default_stream();
        Ok(Gpu {
            ctx,
            stream,
            name,
            arch: Arch::new(major, minor)?,
            sm_count,
            l2_bytes,
            modules: Mutex::new(HashMap::new()),
        })
    }

    /// Device name, e.g. `NVIDIA H100 80GB HBM3`.
    ///
    /// ```
    /// let Ok(gpu) = tessel_kernels::Gpu::open(0) else { return }; // no GPU: nothing to run
    /// assert!(!gpu.name().is_empty());
    /// assert!(gpu.describe().starts_with(gpu.name()));
    /// ```
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The device's own architecture (what kernels are compiled for).
    ///
    /// ```
    /// let Ok(gpu) = tessel_kernels::Gpu::open(0) else { return }; // no GPU: nothing to run
    /// use tessel_kernels::Arch;
    /// let (major, minor) = gpu.context().compute_capability().unwrap();
    /// assert_eq!(gpu.arch(), Arch::new(major, minor).unwrap());
    /// ```
    pub fn arch(&self) -> Arch {
        self.arch
    }

    /// Number of streaming multiprocessors.
    ///
    /// ```
    /// let Ok(gpu) = tessel_kernels::Gpu::open(0) else { return }; // no GPU: nothing to run
    /// assert!(gpu.sm_count() > 0);
    /// ```
    pub fn sm_count(&self) -> i32 {
        self.sm_count
    }

    /// L2 cache size in bytes.
    ///
    /// ```
    /// let Ok(gpu) = tessel_kernels::Gpu::open(0) else { return }; // no GPU: nothing to run
    /// assert!(gpu.l2_bytes() > 0);
    /// assert!(gpu.describe().contains(&format!("{} MiB L2", gpu.l2_bytes() >> 20)));
    /// ```
    pub fn l2_bytes(&self) -> i32 {
        self.l2_bytes
    }

    /// One line: name, arch, SMs, L2.
    ///
    /// ```
    /// let Ok(gpu) = tessel_kernels::Gpu::open(0) else { return }; // no GPU: nothing to run
    /// let line = gpu.describe();
    /// assert!(line.contains(&gpu.arch().to_string()));
    /// assert!(line.contains(&format!("{} SMs", gpu.sm_count())));
    /// ```
    pub fn describe(&self) -> String {
        format!(
            "{} ({}, {} SMs, {} MiB L2)",
            self.name,
            self.arch,
            self.sm_count,
            self.l2_bytes / (1024 * 1024)
        )
    }

    /// The stream every launch and copy of this GPU goes to.
    ///
    /// ```
    /// let Ok(gpu) = tessel_kernels::Gpu::open(0) else { return }; // no GPU: nothing to run
    /// let buf = gpu.stream().clone_htod(&[1u32, 2, 3]).unwrap();
    /// assert_eq!(gpu.stream().clone_dtoh(&buf).unwrap(), [1, 2, 3]);
    /// ```
    pub fn stream(&self) -> &Arc<CudaStream> {
        &self.stream
    }

    /// The CUDA context.
    ///
    /// ```
    /// let Ok(gpu) = tessel_kernels::Gpu::open(0) else { return }; // no GPU: nothing to run
    /// assert_eq!(gpu.context().ordinal(), 0);
    /// assert!(std::sync::Arc::ptr_eq(gpu.stream().context(), gpu.context()));
    /// ```
    pub fn context(&self) -> &Arc<CudaContext> {
        &self.ctx
    }

    /// Compiles `source` for this device's arch (cached by source text in memory, and on disk
    /// across processes: [`crate::cache`]) and loads `kernel`.
    ///
    /// ```
    /// let Ok(gpu) = tessel_kernels::Gpu::open(0) else { return }; // no GPU: nothing to run
    /// let src = "extern \"C\" __global__ void fill(unsigned* x) { x[threadIdx.x] = 7u; }";
    /// assert!(gpu.function(src, "fill").is_ok());
    /// // A kernel the module does not define is an error naming it.
    /// let err = gpu.function(src, "missing").unwrap_err();
    /// assert!(err.to_string().contains("missing"), "{err}");
    /// ```
    pub fn function(&self, source: &str, kernel: &str) -> GpuResult<CudaFunction> {
        self.function_for(source, kernel, self.arch)
    }

    /// [`Gpu::function`] compiled for `arch` instead of the device's own architecture (e.g.
    /// [`Arch::SM90A`] on an sm_90 device); the cache keys other targets apart.
    ///
    /// ```
    /// let Ok(gpu) = tessel_kernels::Gpu::open(0) else { return }; // no GPU: nothing to run
    /// let src = "extern \"C\" __global__ void f(unsigned* x) { x[0] = 1u; }";
    /// assert!(gpu.function_for(src, "f", gpu.arch()).is_ok());
    /// ```
    pub fn function_for(&self, source: &str, kernel: &str, arch: Arch) -> GpuResult<CudaFunction> {
        let key = if arch == self.arch {
            source.to_string()
        } else {
            format!("{arch}\n{source}")
        };
        let module = {
            let mut cache = self
                .modules
                .lock()
                .map_err(|_| GpuError::Cuda("module cache lock poisoned".into()))?;
            match cache.get(&key) {
                Some(m) => m.clone(),
                None => {
                    let image = compiled_image(source, kernel, arch)?;
                    let m = cuda(
                        "cuModuleLoadData",
                        self.ctx.load_module(cudarc::nvrtc::Ptx::from_binary(image)),
                    )?;
                    cache.insert(key, m.clone());
                    m
                }
            }
        };
        cuda(
            &format!("cuModuleGetFunction({kernel})"),
            module.load_function(kernel),
        )
    }

    /// Number of modules compiled so far (the cache's size).
    ///
    /// ```
    /// let Ok(gpu) = tessel_kernels::Gpu::open(0) else { return }; // no GPU: nothing to run
    /// let src = "extern \"C\" __global__ void once(unsigned* x) { x[0] = 1u; }";
    /// gpu.function(src, "once").unwrap();
    /// let n = gpu.cached_modules();
    /// gpu.function(src, "once").unwrap(); // same text: no second compile
    /// assert_eq!(gpu.cached_modules(), n);
    /// ```
    pub fn cached_modules(&self) -> usize {
        self.modules.lock().map(|m| m.len()).unwrap_or(0)
    }

    /// Waits for all work on the stream and reports any asynchronous error.
    ///
    /// ```
    /// let Ok(gpu) = tessel_kernels::Gpu::open(0) else { return }; // no GPU: nothing to run
    /// use tessel_kernels::exec::{alloc, download, poison};
    /// let mut buf = alloc::<u32>(&gpu, 8).unwrap();
    /// poison(&gpu, &mut buf).unwrap(); // asynchronous
    /// gpu.synchronize().unwrap();
    /// assert_eq!(download(&gpu, &buf).unwrap(), [u32::MAX; 8]);
    /// ```
    pub fn synchronize(&self) -> GpuResult<()> {
        cuda("cuStreamSynchronize", self.stream.synchronize())
    }
}
