//! The GEMM as a library: `D = alpha A B + beta C` on device buffers, with the extents, leading
//! dimensions and orders of the matrices given at run time.
//!
//! [`Gemm`] holds the compiled kernels of one GPU: one per configuration (of the Hopper GEMM,
//! [`crate::hopper::Sm90Config`]: types, operand majors, tile, epilogue; of the mma.sync GEMM,
//! [`Sm80Config`]: types, operand majors, copy widths), compiled at its first use (the machine
//! code cached on disk by [`crate::cache`], so a second process does not compile) and reused
//! for every shape. A call checks the problem on the host and picks the path ([`plan_gemm`]:
//! every condition the kernel assumes, named in the error), chooses the tile
//! ([`choose_tile`]) and the copy widths ([`copy_width`]), on the Hopper path a split of K
//! where even the narrowest tile leaves half the SMs idle ([`split_for`]: each split's fp32
//! partial sums go to a workspace the [`Gemm`] owns, and the unit that finishes a tile last
//! adds them into D, [`split`]), encodes the tensor maps of the Hopper path (kept for the calls that repeat
//! them) and launches; no compile once the configuration is loaded. The call's result
//! ([`GemmCall`]) says which path ran ([`GemmCall::path`]).
//!
//! Where each problem runs (one API, [`Gemm::new`] picks the code for the GPU):
//!
//! | GPU | A and B | path |
//! |---|---|---|
//! | sm_90 | 16-byte aligned addresses, leading dimensions of a multiple of 16 bytes (what TMA loads) | the Hopper GEMM of [`crate::hopper`] (TMA, wgmma; [`plan_sm90`]) |
//! | sm_90 | f16 or bf16 that TMA cannot load (misaligned address or leading dimension) | the mma.sync GEMM ([`plan_sm80`]) |
//! | sm_90 | e4m3/e5m2 (A row-major, B column-major) that TMA cannot load | the mma.sync GEMM ([`plan_sm80`], sm_89 code) |
//! | sm_89 | f16, bf16, or e4m3/e5m2 (A row-major, B column-major) | the mma.sync GEMM ([`plan_sm80`]) |
//! | sm_80, sm_86 | f16 or bf16 | the mma.sync GEMM ([`plan_sm80`]) |
//! | sm_80, sm_86 | e4m3/e5m2 | an error: 8-bit inputs need sm_89 or sm_90 |
//!
//! [`Gemm::for_arch`] compiles for a chosen architecture: [`Arch::SM80`] and [`Arch::SM89`] run
//! every call on the mma.sync path, with code that also runs on later GPUs (how the sm_80 and
//! sm_89 paths are tested on an H200).
//!
//! The Hopper GEMM: A and B f16 or bf16, each row- or column-major, or 8-bit e4m3/e5m2 in any
//! mix with A row-major and B column-major ("TN": wgmma reads 8-bit operands K-major only; other
//! orders are an error that says so); C and D f32, f16 or bf16, of one order (row- or
//! column-major); any `M`, `N`, `K` >= 1; C and D at any element-aligned address and leading
//! dimension (D stored by TMA where it can be, else by predicated stores).
//!
//! The mma.sync GEMM ([`Sm80Config`], `kernels/cuda/gemm_sm80.cu`): A and B both f16 or both
//! bf16, each row- or column-major (an MN-major operand read by `ldmatrix.trans`), or both e4m3
//! or both e5m2 with A row-major and B column-major (sm_89's `mma.sync.m16n8k32`; `ldmatrix`
//! cannot transpose bytes), at any element-aligned address and leading dimension (16-byte
//! `cp.async` copies where they allow, down to one element per copy); C and D f32, f16 or bf16,
//! each row- or column-major, at any element-aligned address and leading dimension (element
//! stores); any `M`, `K` >= 1 below 2^31 and `N` up to 65535 tiles of 128; a 128 x 128 tile
//! with k tiles of 64 bytes (32 16-bit or 64 8-bit elements), 3 stages, no split-K.
//!
//! Scales: `D = alpha scale_a scale_b A B + beta C`, the per-tensor scales of A and B host
//! values ([`GemmArgs::scale_a`], [`GemmArgs::scale_b`]; 1 for unscaled inputs), multiplied
//! into the kernel's one fp32 scale of `A B` on the host. 8-bit inputs accumulate in fp32: on
//! the Hopper path with the wgmma accumulators promoted into a separate fp32 fragment after
//! every k-tile of 128 ([`crate::hopper`]), on the 128 x 128 tile ([`choose_tile_for`]); on the
//! mma.sync path with each k tile's 64 products per element summed from zero per accumulator
//! fragment and then added to the fp32 accumulators (`tessel::gemm_promoted`, as CUTLASS's
//! staged accumulation for sm_89 8-bit `mma.sync`, [`Sm80Config`]).
//!
//! ```
//! use tessel_kernels::{Element, Gpu, blas::{Gemm, GemmArgs, MatrixMut, MatrixRef, Order}};
//! let Ok(gpu) = Gpu::open(0) else { return }; // no GPU: nothing to run
//! let Ok(gemm) = Gemm::new(&gpu) else { return }; // not an sm_80+ GPU
//! if gemm.target() != tessel_kernels::Arch::SM90A { return } // 8-bit inputs need sm_90
//! let (m, n, k) = (100, 200, 272);
//! // e4m3 1.5 (0x3C) times e5m2 -2.0 (0xC0), each scaled by 0.5.
//! let a = gpu.stream().clone_htod(&vec![0x3Cu8; m * k]).unwrap();
//! let b = gpu.stream().clone_htod(&vec![0xC0u8; k * n]).unwrap();
//! let mut d = gpu.stream().alloc_zeros::<f32>(m * n).unwrap();
//! gemm.run(GemmArgs {
//!     m: m as i64, n: n as i64, k: k as i64,
//!     a: MatrixRef { buf: &a, elem: Element::E4M3, order: Order::RowMajor, ld: k as i64 },
//!     b: MatrixRef { buf: &b, elem: Element::E5M2, order: Order::ColMajor, ld: k as i64 },
//!     c: None,
//!     d: MatrixMut { buf: &mut d, elem: Element::F32, order: Order::RowMajor, ld: n as i64 },
//!     alpha: 1.0,
//!     beta: 0.0,
//!     scale_a: 0.5,
//!     scale_b: 0.5,
//! }).unwrap();
//! let d = gpu.stream().clone_dtoh(&d).unwrap();
//! assert!(d.iter().all(|&x| x == -0.75 * k as f32));
//! ```
//!
//! ```
//! use tessel_kernels::{Element, Gpu, blas::{Gemm, GemmArgs, MatrixMut, MatrixRef, Order}};
//! let Ok(gpu) = Gpu::open(0) else { return }; // no GPU: nothing to run
//! let Ok(gemm) = Gemm::new(&gpu) else { return }; // not an sm_80+ GPU
//! let (m, n, k) = (100, 200, 72);
//! let a = gpu.stream().clone_htod(&vec![half::f16::ONE.to_bits(); m * k]).unwrap();
//! let b = gpu.stream().clone_htod(&vec![half::f16::ONE.to_bits(); k * n]).unwrap();
//! let mut d = gpu.stream().alloc_zeros::<f32>(m * n).unwrap();
//! gemm.run(GemmArgs {
//!     m: m as i64, n: n as i64, k: k as i64,
//!     a: MatrixRef { buf: &a, elem: Element::F16, order: Order::RowMajor, ld: k as i64 },
//!     b: MatrixRef { buf: &b, elem: Element::F16, order: Order::ColMajor, ld: k as i64 },
//!     c: None,
//!     d: MatrixMut { buf: &mut d, elem: Element::F32, order: Order::RowMajor, ld: n as i64 },
//!     alpha: 1.0,
//!     beta: 0.0,
//!     scale_a: 1.0,
//!     scale_b: 1.0,
//! }).unwrap();
//! let d = gpu.stream().clone_dtoh(&d).unwrap();
//! assert!(d.iter().all(|&x| x == k as f32));
//! ```
//!
//! The sm_80 code on any sm_80+ GPU, and A one element past a 16-byte boundary with an odd
//! leading dimension (what TMA cannot load):
//!
//! ```
//! use tessel_kernels::{Arch, Element, Gpu};
//! use tessel_kernels::blas::{Gemm, GemmArgs, GemmPath, MatrixMut, MatrixRef, Order};
//! let Ok(gpu) = Gpu::open(0) else { return }; // no GPU: nothing to run
//! let Ok(gemm) = Gemm::for_arch(&gpu, Arch::new(8, 0).unwrap()) else { return };
//! let (m, n, k, lda) = (17, 33, 9, 11);
//! let a = gpu.stream().clone_htod(&vec![half::f16::ONE.to_bits(); 1 + m * lda]).unwrap();
//! let b = gpu.stream().clone_htod(&vec![half::f16::ONE.to_bits(); k * n]).unwrap();
//! let mut d = gpu.stream().alloc_zeros::<f32>(m * n).unwrap();
//! let call = gemm.run(GemmArgs {
//!     m: m as i64, n: n as i64, k: k as i64,
//!     a: MatrixRef { buf: &a.slice(1..), elem: Element::F16, order: Order::RowMajor, ld: lda as i64 },
//!     b: MatrixRef { buf: &b, elem: Element::F16, order: Order::RowMajor, ld: n as i64 },
//!     c: None,
//!     d: MatrixMut { buf: &mut d, elem: Element::F32, order: Order::ColMajor, ld: m as i64 },
//!     alpha: 1.0,
//!     beta: 0.0,
//!     scale_a: 1.0,
//!     scale_b: 1.0,
//! }).unwrap();
//! assert_eq!(call.path(), GemmPath::MmaSync);
//! let d = gpu.stream().clone_dtoh(&d).unwrap();
//! assert!(d.iter().all(|&x| x == k as f32));
//! ```

pub mod bench;
mod check;
mod dispatch;
pub(crate) mod order;
mod select;
mod sm80;
mod sm80_replay;
pub mod split;
mod verify;

pub use check::{MatrixDesc, NARROW_ROWS, OperandMap, Problem, Sm90Call, plan_sm90, store_strides};
pub use dispatch::{GemmCall, GemmPath, gemm_target, plan_gemm};
pub use order::Order;
pub use select::{
    MAX_SPLITS, MIN_K_TILES_PER_SPLIT, WAVE_MARGIN, choose_splits, choose_tile, choose_tile_for,
    split_for, split_traffic_allows, tiles_of, wave_efficiency,
};
pub use sm80::{
    SM80_ARGS, SM80_BODY, SM80_TENSORS, SM80_TILE, Sm80Call, Sm80Config, copy_width, plan_sm80,
};
pub use sm80_replay::replay_sm80;
pub use verify::{
    FP8_ACCUMULATION, HostGemm, HostMatrix, reference_bounds, spread_rows, verify_gemm,
};

use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;

use cudarc::driver::{
    CudaSlice, CudaStream, CudaView, CudaViewMut, DevicePtr, DevicePtrMut, DeviceRepr, DeviceSlice,
};

use crate::Arch;
use crate::device::Gpu;
use crate::element::Element;
use crate::error::{GpuError, GpuResult};
use crate::gemm::run::max_smem_optin;
use crate::hopper::{Sm90Config, Sm90Plan};
use crate::kernel::{Arg, Loaded};
use crate::tma::{TensorMap, TmaMatrix};

/// Device memory a matrix is read from: its address and size in bytes (cudarc's
/// `CudaSlice`, `CudaView` and `CudaViewMut`).
///
/// ```
/// use tessel_kernels::blas::DeviceMemory;
/// let Ok(gpu) = tessel_kernels::Gpu::open(0) else { return };
/// let b = gpu.stream().alloc_zeros::<u16>(8).unwrap();
/// assert_eq!(DeviceMemory::bytes(&b), 16);
/// assert_eq!(DeviceMemory::bytes(&b.slice(1..)), 14);
/// ```
pub trait DeviceMemory {
    /// The device address, for reading on `stream`.
    fn address(&self, stream: &CudaStream) -> u64;
    /// Bytes of the buffer.
    fn bytes(&self) -> usize;
}

/// Device memory a matrix is written to.
pub trait DeviceMemoryMut: DeviceMemory {
    /// The device address, for writing on `stream`.
    fn address_mut(&mut self, stream: &CudaStream) -> u64;
}

impl<T: DeviceRepr> DeviceMemory for CudaSlice<T> {
    fn address(&self, stream: &CudaStream) -> u64 {
        self.device_ptr(stream).0
    }
    fn bytes(&self) -> usize {
        DeviceSlice::num_bytes(self)
    }
}

impl<T: DeviceRepr> DeviceMemoryMut for CudaSlice<T> {
    fn address_mut(&mut self, stream: &CudaStream) -> u64 {
        self.device_ptr_mut(stream).0
    }
}

impl<T: DeviceRepr> DeviceMemory for CudaView<'_, T> {
    fn address(&self, stream: &CudaStream) -> u64 {
        self.device_ptr(stream).0
    }
    fn bytes(&self) -> usize {
        DeviceSlice::num_bytes(self)
    }
}

impl<T: DeviceRepr> DeviceMemory for CudaViewMut<'_, T> {
    fn address(&self, stream: &CudaStream) -> u64 {
        self.device_ptr(stream).0
    }
    fn bytes(&self) -> usize {
        DeviceSlice::num_bytes(self)
    }
}

impl<T: DeviceRepr> DeviceMemoryMut for CudaViewMut<'_, T> {
    fn address_mut(&mut self, stream: &CudaStream) -> u64 {
        self.device_ptr_mut(stream).0
    }
}

/// A matrix read by the GEMM (A, B or C): its buffer, element type, order and leading
/// dimension (elements between consecutive rows of a row-major matrix, columns of a
/// column-major one).
pub struct MatrixRef<'a> {
    /// The buffer; element (0, 0) at its start.
    pub buf: &'a dyn DeviceMemory,
    /// Element type.
    pub elem: Element,
    /// Storage order.
    pub order: Order,
    /// Leading dimension.
    pub ld: i64,
}

/// The matrix the GEMM writes (D).
pub struct MatrixMut<'a> {
    /// The buffer; element (0, 0) at its start.
    pub buf: &'a mut dyn DeviceMemoryMut,
    /// Element type.
    pub elem: Element,
    /// Storage order.
    pub order: Order,
    /// Leading dimension.
    pub ld: i64,
}

/// One GEMM: `D = alpha A B + beta C`, `A` `m x k`, `B` `k x n`, `C` and `D` `m x n` (C read
/// only when `beta != 0`; it may be absent otherwise).
pub struct GemmArgs<'a> {
    /// Rows of A and D.
    pub m: i64,
    /// Columns of B and D.
    pub n: i64,
    /// The reduction extent.
    pub k: i64,
    /// A.
    pub a: MatrixRef<'a>,
    /// B.
    pub b: MatrixRef<'a>,
    /// C.
    pub c: Option<MatrixRef<'a>>,
    /// D.
    pub d: MatrixMut<'a>,
    /// Scale of `A B`.
    pub alpha: f32,
    /// Scale of C.
    pub beta: f32,
    /// Per-tensor scale of A (the dequantization factor of 8-bit inputs; 1 otherwise).
    pub scale_a: f32,
    /// Per-tensor scale of B.
    pub scale_b: f32,
}

impl GemmArgs<'_> {
    /// The problem as the host checks see it (addresses on `stream`); its `alpha` is the
    /// product `alpha scale_a scale_b` in fp32 (the kernel's one scale of `A B`).
    pub fn problem(&mut self, stream: &CudaStream) -> Problem {
        let desc = |buf: &dyn DeviceMemory, elem, order, ld, address| MatrixDesc {
            address,
            bytes: buf.bytes(),
            elem,
            order,
            ld,
        };
        let a = &self.a;
        let b = &self.b;
        Problem {
            m: self.m,
            n: self.n,
            k: self.k,
            a: desc(a.buf, a.elem, a.order, a.ld, a.buf.address(stream)),
            b: desc(b.buf, b.elem, b.order, b.ld, b.buf.address(stream)),
            c: self
                .c
                .as_ref()
                .map(|c| desc(c.buf, c.elem, c.order, c.ld, c.buf.address(stream))),
            d: MatrixDesc {
                address: self.d.buf.address_mut(stream),
                bytes: self.d.buf.bytes(),
                elem: self.d.elem,
                order: self.d.order,
                ld: self.d.ld,
            },
            alpha: self.alpha * self.scale_a * self.scale_b,
            beta: self.beta,
        }
    }
}

/// A loaded configuration: its plan (the proven boxes) and its kernel.
struct Loaded90<'g> {
    plan: Sm90Plan,
    kernel: Loaded<'g>,
}

/// The GEMM of one GPU with its loaded kernels (one per configuration, loaded at first use).
pub struct Gemm<'g> {
    gpu: &'g Gpu,
    target: Arch,
    sms: i64,
    smem_limit: i64,
    kernels: RefCell<HashMap<Sm90Config, Rc<Loaded90<'g>>>>,
    kernels80: RefCell<HashMap<Sm80Config, Rc<Loaded<'g>>>>,
    /// The split-K partial sums (fp32), grown on demand.
    partials: RefCell<Option<CudaSlice<u8>>>,
    /// The split-K arrival counters, zero between calls, grown on demand.
    arrivals: RefCell<Option<CudaSlice<u32>>>,
    /// The tensor maps of recent calls (A, B, D's store), by configuration, operands and D:
    /// encoding them costs the host more than a small problem's kernel takes, and callers
    /// repeat their matrices. At most [`MAP_CACHE`] entries (cleared when full).
    maps: RefCell<HashMap<MapKey, Rc<Maps>>>,
}

/// The tensor maps of one call: A's, B's and D's (the TMA store's; `None` for the direct
/// epilogue).
type Maps = (TensorMap, TensorMap, Option<TensorMap>);

/// What a call's tensor maps depend on.
type MapKey = (Sm90Config, OperandMap, OperandMap, Option<(TmaMatrix, u64)>);

/// Most calls whose tensor maps a [`Gemm`] keeps.
const MAP_CACHE: usize = 256;

impl<'g> Gemm<'g> {
    /// The GEMM of `gpu`, compiling for its architecture ([`gemm_target`]): sm_90a on sm_90
    /// (wgmma, and mma.sync for the operands TMA cannot load), sm_89 on sm_89 and sm_80 on
    /// sm_80 and sm_86 (mma.sync). `Unavailable` on an older GPU.
    ///
    /// ```
    /// let Ok(gpu) = tessel_kernels::Gpu::open(0) else { return };
    /// match tessel_kernels::blas::Gemm::new(&gpu) {
    ///     Ok(g) => assert_eq!(g.loaded(), 0),
    ///     Err(e) => assert!(e.is_unavailable()),
    /// }
    /// ```
    pub fn new(gpu: &'g Gpu) -> GpuResult<Gemm<'g>> {
        Self::for_arch(gpu, gemm_target(gpu.arch())?)
    }

    /// The GEMM of `gpu` compiling for `target`: [`Arch::SM90A`] (the paths of
    /// [`Gemm::new`] on sm_90), [`Arch::SM89`] or [`Arch::SM80`] (every call on the mma.sync
    /// path, 8-bit inputs only with sm_89; its code also runs on later GPUs, so that the path
    /// an sm_80 or sm_89 GPU takes is run and tested on an sm_90 one). `Unavailable` when the
    /// code does not run on the GPU or the library does not compile for `target`.
    ///
    /// ```
    /// use tessel_kernels::{Arch, blas::{Gemm, GemmPath}};
    /// let Ok(gpu) = tessel_kernels::Gpu::open(0) else { return };
    /// if let Ok(g) = Gemm::for_arch(&gpu, Arch::new(8, 0).unwrap()) {
    ///     assert_eq!(g.target(), Arch::new(8, 0).unwrap());
    /// }
    /// ```
    pub fn for_arch(gpu: &'g Gpu, target: Arch) -> GpuResult<Gemm<'g>> {
        if ![Arch::SM90A, Arch::SM89, Arch::SM80].contains(&target) {
            return Err(GpuError::Unavailable(format!(
                "the library GEMM compiles for sm_90a, sm_89 or sm_80, not {target}"
            )));
        }
        if !target.runs_on(gpu.arch()) {
            return Err(GpuError::Unavailable(format!(
                "{target} code does not run on {} ({})",
                gpu.name(),
                gpu.arch()
            )));
        }
        Ok(Gemm {
            gpu,
            target,
            sms: i64::from(gpu.sm_count()),
            smem_limit: max_smem_optin(gpu)?,
            kernels: RefCell::new(HashMap::new()),
            kernels80: RefCell::new(HashMap::new()),
            partials: RefCell::new(None),
            arrivals: RefCell::new(None),
            maps: RefCell::new(HashMap::new()),
        })
    }

    /// The architecture the kernels are compiled for.
    pub fn target(&self) -> Arch {
        self.target
    }

    /// SMs of the GPU (what the tile choice and the persistent grid use).
    pub fn sms(&self) -> i64 {
        self.sms
    }

    /// Configurations loaded so far (both paths).
    pub fn loaded(&self) -> usize {
        self.kernels.borrow().len() + self.kernels80.borrow().len()
    }

    /// Loads (compiling, or reading the disk cache) the kernel of `config` unless loaded.
    ///
    /// ```
    /// use tessel_kernels::Element;
    /// use tessel_kernels::hopper::Sm90Config;
    /// let Ok(gpu) = tessel_kernels::Gpu::open(0) else { return };
    /// let Ok(gemm) = tessel_kernels::blas::Gemm::new(&gpu) else { return };
    /// if gemm.target() != tessel_kernels::Arch::SM90A { return } // the Hopper GEMM needs sm_90
    /// gemm.prepare(Sm90Config::tn(Element::F16, Element::F32)).unwrap();
    /// assert_eq!(gemm.loaded(), 1);
    /// ```
    pub fn prepare(&self, config: Sm90Config) -> GpuResult<()> {
        self.kernel(config).map(|_| ())
    }

    fn kernel(&self, config: Sm90Config) -> GpuResult<Rc<Loaded90<'g>>> {
        if let Some(k) = self.kernels.borrow().get(&config) {
            return Ok(Rc::clone(k));
        }
        let plan = Sm90Plan::for_config(config)?;
        if plan.smem_bytes() > self.smem_limit {
            return Err(GpuError::Unavailable(format!(
                "{} needs {} bytes of shared memory per block, {} allows {}",
                config.kernel_name(),
                plan.smem_bytes(),
                self.gpu.name(),
                self.smem_limit
            )));
        }
        let kernel = plan.kernel()?.load(self.gpu)?;
        let loaded = Rc::new(Loaded90 { plan, kernel });
        self.kernels.borrow_mut().insert(config, Rc::clone(&loaded));
        Ok(loaded)
    }

    /// Computes `D = alpha A B + beta C` on the GPU's stream (asynchronously: synchronize the
    /// stream before reading D on the host). The result says which path ran
    /// ([`GemmCall::path`]). Errors: the conditions of [`plan_gemm`] (nothing is launched), or
    /// a CUDA error.
    pub fn run(&self, mut args: GemmArgs<'_>) -> GpuResult<GemmCall> {
        let problem = args.problem(self.gpu.stream());
        let call = plan_gemm(&problem, self.target, self.sms)?;
        self.launch(&call)?;
        Ok(call)
    }

    /// Launches a checked call ([`plan_gemm`]) on the GPU's stream. The caller keeps the
    /// buffers alive until the stream has run it.
    pub fn launch(&self, call: &GemmCall) -> GpuResult<()> {
        match call {
            GemmCall::Sm90(c) => self.launch_sm90(c),
            GemmCall::Sm80(c) => self.launch_sm80(c),
        }
    }

    /// Launches a call of the mma.sync GEMM, loading its configuration at first use.
    fn launch_sm80(&self, call: &Sm80Call) -> GpuResult<()> {
        let cached = self.kernels80.borrow().get(&call.config).map(Rc::clone);
        let loaded = match cached {
            Some(k) => k,
            None => {
                let k = Rc::new(call.config.kernel()?.load(self.gpu)?);
                self.kernels80
                    .borrow_mut()
                    .insert(call.config, Rc::clone(&k));
                k
            }
        };
        loaded.launch_grid(
            (call.grid.0, call.grid.1, 1),
            &mut [Arg::Values(call.args.clone())],
        )
    }

    /// Launches a call of the Hopper GEMM; a split call ([`split::uses_workspace`]) with the
    /// workspace of [`split`] (grown to its size first).
    fn launch_sm90(&self, call: &Sm90Call) -> GpuResult<()> {
        if !split::uses_workspace(call) {
            return self.launch_gemm(call);
        }
        let stream = self.gpu.stream();
        let partials = grown(&self.partials, split::partials_bytes(call), stream)?;
        let arrivals = grown(&self.arrivals, split::arrivals(call), stream)?;
        self.launch_gemm(&split::with_workspace(call, partials, arrivals))
    }

    /// One launch of the Hopper GEMM.
    fn launch_gemm(&self, call: &Sm90Call) -> GpuResult<()> {
        let loaded = self.kernel(call.config)?;
        let maps = self.maps_of(call, &loaded.plan)?;
        let (map_a, map_b, map_d) = &*maps;
        // The direct epilogue never reads tmap_c: A's map fills the parameter.
        let map_c = map_d.as_ref().unwrap_or(map_a);
        loaded.kernel.launch_grid(
            (call.grid, 1, 1),
            &mut [
                Arg::TensorMap(map_a),
                Arg::TensorMap(map_b),
                Arg::TensorMap(map_c),
                Arg::Values(call.args.values()),
            ],
        )
    }

    /// The tensor maps of `call` (encoded from `plan`'s proven boxes), from the cache or
    /// encoded now.
    fn maps_of(&self, call: &Sm90Call, plan: &Sm90Plan) -> GpuResult<Rc<Maps>> {
        let key = (call.config, call.a, call.b, call.d_store);
        if let Some(m) = self.maps.borrow().get(&key) {
            return Ok(Rc::clone(m));
        }
        let map_a = plan
            .a_load
            .tma
            .for_matrix(call.a.matrix)?
            .encode(call.a.address)?;
        let map_b = plan
            .b_load
            .tma
            .for_matrix(call.b.matrix)?
            .encode(call.b.address)?;
        let map_d = match (&call.d_store, &plan.c_tma) {
            (Some((matrix, address)), Some(tma)) => {
                Some(tma.for_matrix(*matrix)?.encode(*address)?)
            }
            _ => None,
        };
        let maps = Rc::new((map_a, map_b, map_d));
        let mut cache = self.maps.borrow_mut();
        if cache.len() >= MAP_CACHE {
            cache.clear();
        }
        cache.insert(key, Rc::clone(&maps));
        Ok(maps)
    }
}

/// The device address of `slot`'s buffer, replaced by a zeroed one of `len` elements first
/// where it holds fewer (the old one is dropped first: the stream orders its last use before).
fn grown<T: DeviceRepr + cudarc::driver::ValidAsZeroBits>(
    slot: &RefCell<Option<CudaSlice<T>>>,
    len: usize,
    stream: &std::sync::Arc<CudaStream>,
) -> GpuResult<u64> {
    let mut slot = slot.borrow_mut();
    if slot.as_ref().is_none_or(|w| w.len() < len) {
        *slot = None;
        *slot = Some(crate::error::cuda(
            "cuMemAlloc",
            stream.alloc_zeros::<T>(len),
        )?);
    }
    Ok(slot.as_mut().map_or(0, |w| w.device_ptr_mut(stream).0))
}
