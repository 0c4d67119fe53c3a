//! The one runtime path of every kernel: load (NVRTC through the GPU's module cache), launch with
//! typed arguments checked against the declared parameters, verify an output against a CPU
//! replay, and time with CUDA events.
//!
//! ```
//! use tessel_kernels::kernel::{Arg, CType, KernelBuilder, Param};
//! use tessel_kernels::exec::alloc;
//! let kernel = KernelBuilder::new("iota", "out[threadIdx.x] = threadIdx.x;")
//!     .param(Param::output("out", CType::B32.into()).len(32))
//!     .threads(32).build().unwrap();
//! let Ok(gpu) = tessel_kernels::Gpu::open(0) else { return }; // no GPU: nothing to run
//! let loaded = kernel.load(&gpu).unwrap();
//! let mut out = alloc::<u32>(&gpu, 32).unwrap();
//! let want: Vec<u32> = (0..32).collect();
//! loaded.run_verified(&mut [Arg::output(&mut out)], 0, |got: &[u32]| {
//!     tessel_kernels::kernel::expect_bits("iota", got, |i| want[i])
//! }).unwrap();
//! ```

use std::any::Any;

use cudarc::driver::sys::{self as driver_sys, CUfunction_attribute};
use cudarc::driver::{
    CudaFunction, CudaSlice, DevicePtr, DeviceRepr, LaunchArgs, LaunchConfig, PushKernelArg,
};

use super::build::Kernel;
use super::piece::{Access, ParamKind, Scalar};
use crate::bits::BitsElement;
use crate::device::Gpu;
use crate::error::{GpuError, GpuResult, cuda};
use crate::exec::{download, function_info, poison};
use crate::timing::{Timing, time_events};

/// A device buffer as a kernel argument: element size, length, and how to push it.
/// Implemented for every `CudaSlice<T>`.
///
/// ```
/// use tessel_kernels::kernel::Buffer;
/// let Ok(gpu) = tessel_kernels::Gpu::open(0) else { return }; // no GPU: nothing to run
/// let b = tessel_kernels::exec::alloc::<half::f16>(&gpu, 10).unwrap();
/// assert_eq!((b.elem_bytes(), b.elements()), (2, 10));
/// ```
pub trait Buffer {
    /// Bytes per element.
    fn elem_bytes(&self) -> usize;
    /// Number of elements.
    fn elements(&self) -> usize;
    /// Pushes the buffer as a read-only argument.
    fn push_read<'a>(&'a self, args: &mut LaunchArgs<'a>);
    /// Pushes the buffer as a written argument.
    fn push_write<'a>(&'a mut self, args: &mut LaunchArgs<'a>);
    /// Fills the buffer with 0xFF bytes.
    fn poison(&mut self, gpu: &Gpu) -> GpuResult<()>;
    /// For downloading with the concrete element type.
    fn as_any(&self) -> &dyn Any;
    /// The device address (for launches that build their own parameter array: clusters).
    fn device_address(&self, gpu: &Gpu) -> u64;
}

impl<T: DeviceRepr + 'static> Buffer for CudaSlice<T> {
    fn elem_bytes(&self) -> usize {
        std::mem::size_of::<T>()
    }
    fn elements(&self) -> usize {
        self.len()
    }
    fn push_read<'a>(&'a self, args: &mut LaunchArgs<'a>) {
        args.arg(self);
    }
    fn push_write<'a>(&'a mut self, args: &mut LaunchArgs<'a>) {
        args.arg(self);
    }
    fn poison(&mut self, gpu: &Gpu) -> GpuResult<()> {
        poison(gpu, self)
    }
    fn as_any(&self) -> &dyn Any {
        self
    }
    fn device_address(&self, gpu: &Gpu) -> u64 {
        self.device_ptr(gpu.stream()).0
    }
}

/// One kernel argument, in signature order.
///
/// ```
/// use tessel_kernels::kernel::Arg;
/// assert!(matches!(Arg::I32(3), Arg::I32(3)));
/// ```
pub enum Arg<'a> {
    /// A buffer the kernel reads.
    Input(&'a dyn Buffer),
    /// A buffer the kernel writes.
    Output(&'a mut dyn Buffer),
    /// An `int`.
    I32(i32),
    /// A `long long`.
    I64(i64),
    /// A `float`.
    F32(f32),
    /// A TMA tensor map, passed by value.
    TensorMap(&'a crate::tma::TensorMap),
    /// The fields of a values parameter ([`super::Param::values`]), in declaration order.
    Values(Vec<Value>),
}

/// The value of one field of a values parameter ([`Arg::Values`]).
///
/// ```
/// use tessel_kernels::kernel::Value;
/// assert_eq!(Value::Pointer(0x1000).bytes(), 0x1000u64.to_le_bytes().to_vec());
/// assert_eq!(Value::F32(1.0).bytes(), 1.0f32.to_le_bytes().to_vec());
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Value {
    /// An `int`.
    I32(i32),
    /// A `long long`.
    I64(i64),
    /// A `float`.
    F32(f32),
    /// A device address (a pointer field). The kernel reads or writes through it: the caller
    /// checks that it addresses what the kernel touches.
    Pointer(u64),
}

impl Value {
    /// The bytes the device reads (little-endian, as the GPU stores them).
    pub fn bytes(&self) -> Vec<u8> {
        match self {
            Value::I32(v) => v.to_le_bytes().to_vec(),
            Value::I64(v) => v.to_le_bytes().to_vec(),
            Value::F32(v) => v.to_le_bytes().to_vec(),
            Value::Pointer(v) => v.to_le_bytes().to_vec(),
        }
    }

    fn fits(&self, ty: &super::piece::FieldType) -> bool {
        use super::piece::FieldType;
        matches!(
            (self, ty),
            (Value::I32(_), FieldType::Scalar(Scalar::I32))
                | (Value::I64(_), FieldType::Scalar(Scalar::I64))
                | (Value::F32(_), FieldType::Scalar(Scalar::F32))
                | (Value::Pointer(_), FieldType::Pointer(_))
        )
    }
}

/// The largest values parameter this runtime passes (bytes; the struct a kernel declares is at
/// most this large, checked at launch).
const VALUES_BYTES: usize = 512;

/// The bytes of a values parameter, aligned for any field.
#[derive(Clone, Copy)]
#[repr(C, align(16))]
struct ValueBlock([u8; VALUES_BYTES]);

// SAFETY: plain bytes; the driver copies the declared struct's size from the start.
unsafe impl DeviceRepr for ValueBlock {}

/// The bytes of the values `values` of the parameter `p`, at the fields' offsets.
fn value_block(p: &super::piece::Param, values: &[Value]) -> ValueBlock {
    let mut block = ValueBlock([0; VALUES_BYTES]);
    for (v, at) in values.iter().zip(p.value_offsets()) {
        let b = v.bytes();
        block.0[at..at + b.len()].copy_from_slice(&b);
    }
    block
}

impl<'a> Arg<'a> {
    /// A read-only buffer argument.
    ///
    /// ```
    /// let Ok(gpu) = tessel_kernels::Gpu::open(0) else { return }; // no GPU: nothing to run
    /// let b = tessel_kernels::exec::alloc::<u32>(&gpu, 4).unwrap();
    /// assert!(matches!(tessel_kernels::kernel::Arg::input(&b), tessel_kernels::kernel::Arg::Input(_)));
    /// ```
    pub fn input<T: DeviceRepr + 'static>(buf: &'a CudaSlice<T>) -> Arg<'a> {
        Arg::Input(buf)
    }

    /// A written buffer argument.
    ///
    /// ```
    /// let Ok(gpu) = tessel_kernels::Gpu::open(0) else { return }; // no GPU: nothing to run
    /// let mut b = tessel_kernels::exec::alloc::<u32>(&gpu, 4).unwrap();
    /// assert!(matches!(tessel_kernels::kernel::Arg::output(&mut b), tessel_kernels::kernel::Arg::Output(_)));
    /// ```
    pub fn output<T: DeviceRepr + 'static>(buf: &'a mut CudaSlice<T>) -> Arg<'a> {
        Arg::Output(buf)
    }

    fn describe(&self) -> String {
        match self {
            Arg::Input(b) => format!(
                "a read buffer of {} x {} bytes",
                b.elements(),
                b.elem_bytes()
            ),
            Arg::Output(b) => {
                format!(
                    "a written buffer of {} x {} bytes",
                    b.elements(),
                    b.elem_bytes()
                )
            }
            Arg::I32(_) => "an i32".into(),
            Arg::I64(_) => "an i64".into(),
            Arg::F32(_) => "an f32".into(),
            Arg::TensorMap(_) => "a tensor map".into(),
            Arg::Values(v) => format!("{} values", v.len()),
        }
    }
}

impl Kernel {
    /// Checks `args` against the kernel's parameters: count, buffer or scalar, read or write,
    /// element size and minimum length (what [`Loaded::launch`] does before every launch).
    ///
    /// ```
    /// use tessel_kernels::kernel::{Arg, KernelBuilder, Param, Scalar};
    /// let k = KernelBuilder::new("s", "(void)n;").param(Param::scalar("n", Scalar::I64))
    ///     .threads(32).build().unwrap();
    /// assert!(k.check_args(&[Arg::I64(5)]).is_ok());
    /// let err = k.check_args(&[Arg::I32(5)]).unwrap_err();
    /// assert!(err.to_string().contains("kernel s: parameter n"), "{err}");
    /// ```
    pub fn check_args(&self, args: &[Arg<'_>]) -> GpuResult<()> {
        let kernel = self;
        let params = kernel.params();
        // Each argument against its parameter first (the first mismatch names the parameter),
        // then the count.
        for (p, a) in params.iter().zip(args) {
            let ok = match (p.kind(), a) {
                (ParamKind::Buffer { elem, access, len }, Arg::Input(b))
                    if *access == Access::Read =>
                {
                    b.elem_bytes() == kernel.elem_bytes(elem)
                        && len.is_none_or(|n| b.elements() >= n)
                }
                (ParamKind::Buffer { elem, access, len }, Arg::Output(b))
                    if *access == Access::Write =>
                {
                    b.elem_bytes() == kernel.elem_bytes(elem)
                        && len.is_none_or(|n| b.elements() >= n)
                }
                (ParamKind::Scalar(Scalar::I32), Arg::I32(_))
                | (ParamKind::Scalar(Scalar::I64), Arg::I64(_))
                | (ParamKind::Scalar(Scalar::F32), Arg::F32(_))
                | (ParamKind::TensorMap, Arg::TensorMap(_)) => true,
                (ParamKind::Values(fields), Arg::Values(values)) => {
                    fields.len() == values.len()
                        && fields.iter().zip(values).all(|(f, v)| v.fits(f.ty()))
                        && p.values_bytes() <= VALUES_BYTES
                }
                _ => false,
            };
            if !ok {
                return Err(GpuError::InvalidArgument(format!(
                    "kernel {}: parameter {} ({:?}) given {}",
                    kernel.name(),
                    p.name(),
                    p.kind(),
                    a.describe()
                )));
            }
        }
        if params.len() != args.len() {
            return Err(GpuError::InvalidArgument(format!(
                "kernel {}: {} arguments for {} parameters",
                kernel.name(),
                args.len(),
                params.len()
            )));
        }
        Ok(())
    }

    /// Compiles (through the GPU's module cache) and loads the kernel, raising its dynamic shared
    /// memory limit when it uses any.
    ///
    /// ```
    /// use tessel_kernels::kernel::KernelBuilder;
    /// let Ok(gpu) = tessel_kernels::Gpu::open(0) else { return }; // no GPU: nothing to run
    /// let k = KernelBuilder::new("nothing", "").threads(32).build().unwrap();
    /// assert!(k.load(&gpu).unwrap().info().ends_with("blocks/SM"));
    /// ```
    pub fn load<'g>(&self, gpu: &'g Gpu) -> GpuResult<Loaded<'g>> {
        let func = match self.target() {
            None => gpu.function(self.source(), self.name())?,
            Some(arch) if arch.runs_on(gpu.arch()) => {
                // Machine code loads only on its own major architecture (an sm_80 cubin does
                // not run on sm_90): source written for an older major one is compiled for the
                // device's own, which has every instruction it uses.
                let arch = if arch.same_major(gpu.arch()) {
                    arch
                } else {
                    gpu.arch()
                };
                gpu.function_for(self.source(), self.name(), arch)?
            }
            Some(arch) => {
                return Err(GpuError::Unavailable(format!(
                    "kernel {} is built for {arch}, which does not run on this {} ({})",
                    self.name(),
                    gpu.arch(),
                    gpu.name()
                )));
            }
        };
        let smem = self.launch().dynamic_smem;
        if smem > 0 {
            cuda(
                "cuFuncSetAttribute(MAX_DYNAMIC_SHARED_SIZE_BYTES)",
                func.set_attribute(
                    CUfunction_attribute::CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                    i32::try_from(smem).unwrap_or(i32::MAX),
                ),
            )?;
        }
        Ok(Loaded {
            gpu,
            kernel: self.clone(),
            func,
            cluster: None,
        })
    }
}

/// A compiled, loaded kernel on one GPU.
///
/// ```
/// use tessel_kernels::kernel::{Arg, KernelBuilder, Param, Scalar};
/// let Ok(gpu) = tessel_kernels::Gpu::open(0) else { return }; // no GPU: nothing to run
/// let k = KernelBuilder::new("takes_int", "(void)n;").param(Param::scalar("n", Scalar::I32))
///     .threads(32).build().unwrap().load(&gpu).unwrap();
/// k.launch(&mut [Arg::I32(1)]).unwrap();
/// // A wrong argument is refused before launching.
/// assert!(k.launch(&mut [Arg::F32(1.0)]).is_err());
/// ```
pub struct Loaded<'g> {
    gpu: &'g Gpu,
    kernel: Kernel,
    func: CudaFunction,
    cluster: Option<(u32, u32, u32)>,
}

/// One kernel parameter's value, where `cuLaunchKernelEx` reads it.
enum Slot {
    Address(u64),
    I32(i32),
    I64(i64),
    F32(f32),
    Map(Box<crate::tma::RawTensorMap>),
    Values(Box<ValueBlock>),
}

impl Slot {
    fn ptr(&mut self) -> *mut std::ffi::c_void {
        match self {
            Slot::Address(v) => (v as *mut u64).cast(),
            Slot::I32(v) => (v as *mut i32).cast(),
            Slot::I64(v) => (v as *mut i64).cast(),
            Slot::F32(v) => (v as *mut f32).cast(),
            Slot::Map(m) => (&mut **m as *mut crate::tma::RawTensorMap).cast(),
            Slot::Values(b) => (&mut **b as *mut ValueBlock).cast(),
        }
    }
}

impl<'g> Loaded<'g> {
    /// The same kernel launched in thread-block clusters of `dims` blocks
    /// (`cuLaunchKernelEx` with `CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION`; sm_90 and later). The
    /// grid must be a multiple of `dims` in every dimension, checked at launch.
    ///
    /// ```
    /// use tessel_kernels::kernel::KernelBuilder;
    /// let Ok(gpu) = tessel_kernels::Gpu::open(0) else { return }; // no GPU: nothing to run
    /// let k = KernelBuilder::new("c0", "").threads(32).grid(3, 1, 1).build().unwrap();
    /// let loaded = k.load(&gpu).unwrap().with_cluster((2, 1, 1));
    /// assert!(loaded.launch(&mut []).is_err()); // 3 blocks are not whole clusters of 2
    /// ```
    pub fn with_cluster(self, dims: (u32, u32, u32)) -> Loaded<'g> {
        Loaded {
            cluster: Some(dims),
            ..self
        }
    }

    /// How many clusters of `dims` blocks can be resident on the GPU at once
    /// (`cuOccupancyMaxActiveClusters` with the kernel's block size and shared memory): the
    /// largest grid, in clusters, of a persistent kernel.
    ///
    /// ```
    /// use tessel_kernels::kernel::KernelBuilder;
    /// let Ok(gpu) = tessel_kernels::Gpu::open(0) else { return }; // no GPU: nothing to run
    /// if !tessel_kernels::Arch::SM90A.runs_on(gpu.arch()) { return } // clusters need sm_90
    /// let k = KernelBuilder::new("c1", "").threads(128).grid(2, 1, 1).build().unwrap();
    /// assert!(k.load(&gpu).unwrap().max_active_clusters((2, 1, 1)).unwrap() >= 1);
    /// ```
    pub fn max_active_clusters(&self, dims: (u32, u32, u32)) -> GpuResult<u32> {
        let mut attr = cluster_attribute(dims);
        let config = self.cluster_config(dims, &mut attr);
        cuda(
            "cuCtxSetCurrent",
            self.gpu.stream().context().bind_to_thread(),
        )?;
        let mut count = 0i32;
        // SAFETY: `config` and `attr` are live for the call; `count` receives one int.
        let result = unsafe {
            driver_sys::cuOccupancyMaxActiveClusters(&mut count, self.func.cu_function(), &config)
        };
        if result != driver_sys::CUresult::CUDA_SUCCESS {
            return Err(GpuError::Cuda(format!(
                "cuOccupancyMaxActiveClusters({}, cluster {dims:?}): {result:?}",
                self.kernel.name()
            )));
        }
        Ok(u32::try_from(count).unwrap_or(0))
    }

    /// The launch configuration of this kernel over `grid` blocks, on the GPU's stream, with the
    /// one attribute `attr` (a cluster dimension, [`cluster_attribute`]); `attr` must outlive
    /// every use of the configuration.
    fn cluster_config(
        &self,
        grid: (u32, u32, u32),
        attr: &mut driver_sys::CUlaunchAttribute,
    ) -> driver_sys::CUlaunchConfig {
        let l = self.kernel.launch();
        driver_sys::CUlaunchConfig {
            gridDimX: grid.0,
            gridDimY: grid.1,
            gridDimZ: grid.2,
            blockDimX: l.block.0,
            blockDimY: l.block.1,
            blockDimZ: l.block.2,
            sharedMemBytes: l.dynamic_smem,
            hStream: self.gpu.stream().cu_stream(),
            attrs: attr,
            numAttrs: 1,
        }
    }

    /// Launches in clusters of `dims` through `cuLaunchKernelEx` (arguments already checked).
    fn launch_cluster(
        &self,
        grid: (u32, u32, u32),
        args: &mut [Arg<'_>],
        dims: (u32, u32, u32),
    ) -> GpuResult<()> {
        let (g, c) = ([grid.0, grid.1, grid.2], [dims.0, dims.1, dims.2]);
        if c.contains(&0) || g.iter().zip(&c).any(|(g, c)| g % c != 0) {
            return Err(GpuError::InvalidArgument(format!(
                "kernel {}: grid {grid:?} is not a whole number of clusters {dims:?}",
                self.kernel.name(),
            )));
        }
        let params = self.kernel.params();
        let mut slots: Vec<Slot> = args
            .iter()
            .zip(params)
            .map(|(a, p)| match a {
                Arg::Input(b) => Slot::Address(b.device_address(self.gpu)),
                Arg::Output(b) => Slot::Address(b.device_address(self.gpu)),
                Arg::I32(v) => Slot::I32(*v),
                Arg::I64(v) => Slot::I64(*v),
                Arg::F32(v) => Slot::F32(*v),
                Arg::TensorMap(m) => Slot::Map(Box::new(*m.raw())),
                Arg::Values(v) => Slot::Values(Box::new(value_block(p, v))),
            })
            .collect();
        let mut params: Vec<*mut std::ffi::c_void> = slots.iter_mut().map(Slot::ptr).collect();
        let mut attr = cluster_attribute(dims);
        let stream = self.gpu.stream();
        let config = self.cluster_config(grid, &mut attr);
        cuda("cuCtxSetCurrent", stream.context().bind_to_thread())?;
        // SAFETY: `params` points at one live value per declared parameter, of the kernel's
        // parameter types (checked by check_args: buffers as device addresses, scalars, tensor
        // maps by value); `config` and `attr` outlive the call; all work is on this stream.
        let result = unsafe {
            driver_sys::cuLaunchKernelEx(
                &config,
                self.func.cu_function(),
                params.as_mut_ptr(),
                std::ptr::null_mut(),
            )
        };
        if result != driver_sys::CUresult::CUDA_SUCCESS {
            return Err(GpuError::Cuda(format!(
                "cuLaunchKernelEx({}, cluster {dims:?}): {result:?}",
                self.kernel.name()
            )));
        }
        Ok(())
    }

    /// The declaration.
    ///
    /// ```
    /// use tessel_kernels::kernel::KernelBuilder;
    /// let Ok(gpu) = tessel_kernels::Gpu::open(0) else { return }; // no GPU: nothing to run
    /// let k = KernelBuilder::new("n0", "").threads(32).build().unwrap();
    /// assert_eq!(k.load(&gpu).unwrap().kernel().name(), "n0");
    /// ```
    pub fn kernel(&self) -> &Kernel {
        &self.kernel
    }

    /// The cudarc function (for attributes and occupancy queries).
    ///
    /// ```
    /// use tessel_kernels::kernel::KernelBuilder;
    /// let Ok(gpu) = tessel_kernels::Gpu::open(0) else { return }; // no GPU: nothing to run
    /// let k = KernelBuilder::new("n1", "").threads(32).build().unwrap().load(&gpu).unwrap();
    /// assert!(k.function().num_regs().is_ok());
    /// ```
    pub fn function(&self) -> &CudaFunction {
        &self.func
    }

    /// Registers, local memory and resident blocks per SM, for progress lines.
    ///
    /// ```
    /// use tessel_kernels::kernel::KernelBuilder;
    /// let Ok(gpu) = tessel_kernels::Gpu::open(0) else { return }; // no GPU: nothing to run
    /// let k = KernelBuilder::new("n2", "").threads(32).build().unwrap().load(&gpu).unwrap();
    /// assert!(k.info().contains(" regs, "));
    /// ```
    pub fn info(&self) -> String {
        function_info(&self.func, self.kernel.launch().threads())
    }

    /// Launches once (asynchronously) after checking `args` against the parameters.
    ///
    /// ```
    /// use tessel_kernels::kernel::{Arg, CType, KernelBuilder, Param};
    /// let Ok(gpu) = tessel_kernels::Gpu::open(0) else { return }; // no GPU: nothing to run
    /// let k = KernelBuilder::new("w", "x[threadIdx.x] = 1u;")
    ///     .param(Param::output("x", CType::B32.into()).len(32)).threads(32).build().unwrap()
    ///     .load(&gpu).unwrap();
    /// let mut short = tessel_kernels::exec::alloc::<u32>(&gpu, 31).unwrap();
    /// assert!(k.launch(&mut [Arg::output(&mut short)]).is_err()); // fewer than 32 elements
    /// ```
    pub fn launch(&self, args: &mut [Arg<'_>]) -> GpuResult<()> {
        self.launch_grid(self.kernel.launch().grid, args)
    }

    /// [`launch`](Self::launch) over another grid (kernels whose grid follows run-time shapes:
    /// one compiled kernel, a grid per call; clustered kernels too, in whole clusters).
    /// `InvalidArgument` for an empty grid.
    ///
    /// ```
    /// use tessel_kernels::kernel::{Arg, CType, KernelBuilder, Param};
    /// let Ok(gpu) = tessel_kernels::Gpu::open(0) else { return }; // no GPU: nothing to run
    /// let k = KernelBuilder::new("g1", "x[blockIdx.x] = 1u;")
    ///     .param(Param::output("x", CType::B32.into())).threads(32).build().unwrap()
    ///     .load(&gpu).unwrap();
    /// let mut x = tessel_kernels::exec::alloc::<u32>(&gpu, 4).unwrap();
    /// k.launch_grid((4, 1, 1), &mut [Arg::output(&mut x)]).unwrap();
    /// assert!(k.launch_grid((0, 1, 1), &mut [Arg::output(&mut x)]).is_err());
    /// ```
    pub fn launch_grid(&self, grid: (u32, u32, u32), args: &mut [Arg<'_>]) -> GpuResult<()> {
        self.kernel.check_args(args)?;
        if grid.0 == 0 || grid.1 == 0 || grid.2 == 0 {
            return Err(GpuError::InvalidArgument(format!(
                "kernel {}: an empty grid {grid:?}",
                self.kernel.name()
            )));
        }
        if let Some(dims) = self.cluster {
            return self.launch_cluster(grid, args, dims);
        }
        let l = self.kernel.launch();
        let cfg = LaunchConfig {
            grid_dim: grid,
            block_dim: l.block,
            shared_mem_bytes: l.dynamic_smem,
        };
        // The values parameters' bytes, alive until the launch has read them.
        let blocks: Vec<ValueBlock> = args
            .iter()
            .zip(self.kernel.params())
            .filter_map(|(a, p)| match a {
                Arg::Values(v) => Some(value_block(p, v)),
                _ => None,
            })
            .collect();
        let mut blocks_iter = blocks.iter();
        let mut builder = self.gpu.stream().launch_builder(&self.func);
        for a in args.iter_mut() {
            match a {
                Arg::Input(b) => b.push_read(&mut builder),
                Arg::Output(b) => b.push_write(&mut builder),
                Arg::I32(v) => {
                    builder.arg(&*v);
                }
                Arg::I64(v) => {
                    builder.arg(&*v);
                }
                Arg::F32(v) => {
                    builder.arg(&*v);
                }
                Arg::TensorMap(m) => {
                    builder.arg(m.raw());
                }
                Arg::Values(_) => {
                    if let Some(b) = blocks_iter.next() {
                        builder.arg(b);
                    }
                }
            }
        }
        // SAFETY: the arguments match the kernel's declared parameters in number, kind, element
        // size and minimum length (checked above); the source was generated with exactly that
        // signature.
        cuda(&format!("cuLaunchKernel({})", self.kernel.name()), unsafe {
            builder.launch(cfg)
        })?;
        Ok(())
    }

    /// Poisons output argument `output` (0xFF bytes), launches, waits, downloads it as `E` and
    /// hands it to `check` (the CPU replay's comparison); returns what `check` returns.
    ///
    /// ```
    /// use tessel_kernels::kernel::{expect_bits, Arg, CType, KernelBuilder, Param};
    /// let Ok(gpu) = tessel_kernels::Gpu::open(0) else { return }; // no GPU: nothing to run
    /// let k = KernelBuilder::new("sq", "x[threadIdx.x] = threadIdx.x * threadIdx.x;")
    ///     .param(Param::output("x", CType::B32.into()).len(32)).threads(32).build().unwrap()
    ///     .load(&gpu).unwrap();
    /// let mut x = tessel_kernels::exec::alloc::<u32>(&gpu, 32).unwrap();
    /// k.run_verified(&mut [Arg::output(&mut x)], 0, |got: &[u32]| {
    ///     expect_bits("sq", got, |i| (i * i) as u32)
    /// }).unwrap();
    /// ```
    pub fn run_verified<E: BitsElement, R>(
        &self,
        args: &mut [Arg<'_>],
        output: usize,
        check: impl FnOnce(&[E]) -> GpuResult<R>,
    ) -> GpuResult<R> {
        let name = self.kernel.name();
        match args.get_mut(output) {
            Some(Arg::Output(b)) => b.poison(self.gpu)?,
            _ => {
                return Err(GpuError::InvalidArgument(format!(
                    "kernel {name}: argument {output} is not an output buffer"
                )));
            }
        }
        self.launch(args)?;
        self.gpu.synchronize()?;
        let Some(Arg::Output(b)) = args.get(output) else {
            unreachable!("checked above")
        };
        let slice = b.as_any().downcast_ref::<CudaSlice<E>>().ok_or_else(|| {
            GpuError::InvalidArgument(format!(
                "kernel {name}: output {output} is not a buffer of {}",
                E::ELEMENT
            ))
        })?;
        check(&download(self.gpu, slice)?)
    }

    /// CUDA-event timing of `repeats` launches after `warmup` untimed ones.
    ///
    /// ```
    /// use tessel_kernels::kernel::KernelBuilder;
    /// let Ok(gpu) = tessel_kernels::Gpu::open(0) else { return }; // no GPU: nothing to run
    /// let k = KernelBuilder::new("t0", "").threads(32).build().unwrap().load(&gpu).unwrap();
    /// assert_eq!(k.time(1, 3, &mut []).unwrap().repeats, 3);
    /// ```
    pub fn time(&self, warmup: usize, repeats: usize, args: &mut [Arg<'_>]) -> GpuResult<Timing> {
        time_events(self.gpu, warmup, repeats, || self.launch(args))
    }
}

/// Bit-exact comparison of `got` with a CPU replay `want(i)`; `Err(Verify)` names the kernel,
/// the number of wrong (and never written) elements and the first few.
///
/// ```
/// use tessel_kernels::{GpuError, kernel::expect_bits};
/// assert!(expect_bits("k", &[1u32, 2], |i| i as u32 + 1).is_ok());
/// let err = expect_bits("k", &[1u32, u32::MAX], |i| i as u32 + 1).unwrap_err();
/// assert!(matches!(&err, GpuError::Verify(m) if m.contains("1 of 2") && m.contains("1 never written")), "{err}");
/// ```
pub fn expect_bits<E: BitsElement>(
    kernel: &str,
    got: &[E],
    want: impl Fn(usize) -> E + Sync,
) -> GpuResult<()> {
    expect_bits_labelled(kernel, got, want, |i| format!("[{i}]"))
}

/// [`expect_bits`] with the wrong elements named by `label(i)` (e.g. `out[r][c]`), compared in
/// parallel over chunks of `got` (large outputs take a fraction of a second, not seconds).
///
/// ```
/// use tessel_kernels::kernel::expect_bits_labelled;
/// let err = expect_bits_labelled("k on 2 x 2", &[0u32, 1, 2, 9], |i| i as u32, |i| {
///     format!("out[{}][{}]", i / 2, i % 2)
/// })
/// .unwrap_err();
/// assert!(err.to_string().contains("k on 2 x 2: 1 of 4 elements wrong"), "{err}");
/// assert!(err.to_string().contains("out[1][1] = 9, expected 3"), "{err}");
/// ```
pub fn expect_bits_labelled<E: BitsElement>(
    kernel: &str,
    got: &[E],
    want: impl Fn(usize) -> E + Sync,
    label: impl Fn(usize) -> String + Sync,
) -> GpuResult<()> {
    let threads = std::thread::available_parallelism()
        .map(|p| p.get())
        .unwrap_or(1)
        .min(16);
    let chunk = got.len().div_ceil(threads).max(1);
    let results: Vec<(usize, usize, Vec<String>)> = std::thread::scope(|s| {
        let handles: Vec<_> = got
            .chunks(chunk)
            .enumerate()
            .map(|(c, part)| {
                let (want, label) = (&want, &label);
                s.spawn(move || {
                    let (mut bad, mut poisoned, mut examples) = (0usize, 0usize, Vec::new());
                    for (k, &g) in part.iter().enumerate() {
                        let i = c * chunk + k;
                        let w = want(i);
                        if g.bits() != w.bits() {
                            bad += 1;
                            if g.bits() == E::POISON.bits() {
                                poisoned += 1;
                            }
                            if examples.len() < 4 {
                                examples.push(format!("{} = {g:?}, expected {w:?}", label(i)));
                            }
                        }
                    }
                    (bad, poisoned, examples)
                })
            })
            .collect();
        handles.into_iter().filter_map(|h| h.join().ok()).collect()
    });
    let bad: usize = results.iter().map(|r| r.0).sum();
    let poisoned: usize = results.iter().map(|r| r.1).sum();
    if bad > 0 {
        let examples: Vec<String> = results.into_iter().flat_map(|r| r.2).take(6).collect();
        return Err(GpuError::Verify(format!(
            "{kernel}: {bad} of {} elements wrong ({poisoned} never written); {}",
            got.len(),
            examples.join("; ")
        )));
    }
    Ok(())
}

/// The launch attribute "thread-block clusters of `dims` blocks".
fn cluster_attribute(dims: (u32, u32, u32)) -> driver_sys::CUlaunchAttribute {
    // SAFETY: a zeroed attribute value is valid plain data; the cluster field is then set.
    let mut attr: driver_sys::CUlaunchAttribute = unsafe { std::mem::zeroed() };
    attr.id = driver_sys::CUlaunchAttributeID::CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION;
    attr.value.clusterDim.x = dims.0;
    attr.value.clusterDim.y = dims.1;
    attr.value.clusterDim.z = dims.2;
    attr
}
