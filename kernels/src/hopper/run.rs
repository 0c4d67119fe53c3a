//! Running the Hopper GEMM: buffers and tensor maps, a poisoned and verified run against an
//! f64 CPU reference, cuBLAS (`cublasGemmEx` with the same types) as a second reference and as
//! the timing baseline of `tessel bench gemm`.
//!
//! ```
//! use tessel_kernels::Element;
//! use tessel_kernels::hopper::{Sm90Plan, run};
//! let Ok(gpu) = tessel_kernels::Gpu::open(0) else { return }; // no GPU: nothing to run
//! if !run::supported(&gpu) { return } // not an sm_90 device
//! let plan = Sm90Plan::new(256, 512, 128, Element::F16, Element::F32).unwrap();
//! let mut bufs = run::Sm90Buffers::new(&gpu, &plan, 7).unwrap();
//! let (_kernel, cmp) = run::run_and_verify(&gpu, &plan, &mut bufs, 256).unwrap();
//! assert_eq!(cmp.bad, 0);
//! ```

use std::io::Write;

use cudarc::cublas::CudaBlas;
use cudarc::driver::{CudaSlice, DevicePtr, DevicePtrMut};
use half::{bf16, f16};

use super::{Epilogue, Sm90Args, Sm90Plan, output_type};
use crate::Arch;
use crate::bench::io;
use crate::device::Gpu;
use crate::element::Element;
use crate::error::{GpuError, GpuResult, cuda};
use crate::exec::poison;
use crate::gemm::host::{random_f16, reference_rows_f32};
use crate::gemm::run::{VsCublas, cublas, max_smem_optin};
use crate::kernel::{Arg, Loaded};
use crate::measure::bound::{rounded, tolerance};
use crate::measure::compare::{Comparison, compare_relative, compare_rows};
use crate::measure::cublas::gemm_tn;
/// Whether cuBLAS computes a type pair: defined with the cuBLAS baseline
/// ([`crate::measure::cublas::supports`]).
pub use crate::measure::cublas::supports as cublas_supports;
use crate::timing::{Side, time_events, time_pair};
use crate::tma::TensorMap;

/// True when the GPU runs sm_90a code (compute capability 9.0).
///
/// ```
/// let Ok(gpu) = tessel_kernels::Gpu::open(0) else { return };
/// let _hopper: bool = tessel_kernels::hopper::run::supported(&gpu);
/// ```
pub fn supported(gpu: &Gpu) -> bool {
    Arch::SM90A.runs_on(gpu.arch())
}

/// C on the device: fp32 bit patterns or 16-bit (fp16 / bf16) bit patterns.
///
/// ```
/// use tessel_kernels::hopper::run::OutBuffer;
/// let _ = OutBuffer::len; // see Sm90Buffers
/// ```
pub enum OutBuffer {
    /// fp32 output.
    F32(CudaSlice<u32>),
    /// fp16 or bf16 output.
    B16(CudaSlice<u16>),
}

impl OutBuffer {
    /// Elements.
    ///
    /// ```
    /// let _ = tessel_kernels::hopper::run::OutBuffer::len;
    /// ```
    pub fn len(&self) -> usize {
        match self {
            OutBuffer::F32(b) => b.len(),
            OutBuffer::B16(b) => b.len(),
        }
    }

    /// True when it holds no element.
    ///
    /// ```
    /// let _ = tessel_kernels::hopper::run::OutBuffer::is_empty;
    /// ```
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    fn poison(&mut self, gpu: &Gpu) -> GpuResult<()> {
        match self {
            OutBuffer::F32(b) => poison(gpu, b),
            OutBuffer::B16(b) => poison(gpu, b),
        }
    }

    /// The values as fp32 (16-bit outputs decoded as `output`).
    fn values(&self, gpu: &Gpu, output: Element) -> GpuResult<Vec<f32>> {
        Ok(match self {
            OutBuffer::F32(b) => cuda("cuMemcpyDtoH", gpu.stream().clone_dtoh(b))?
                .into_iter()
                .map(f32::from_bits)
                .collect(),
            OutBuffer::B16(b) => {
                let bits = cuda("cuMemcpyDtoH", gpu.stream().clone_dtoh(b))?;
                match output {
                    Element::BF16 => bits
                        .into_iter()
                        .map(|x| bf16::from_bits(x).to_f32())
                        .collect(),
                    _ => bits
                        .into_iter()
                        .map(|x| f16::from_bits(x).to_f32())
                        .collect(),
                }
            }
        })
    }

    fn device_ptr(&mut self, gpu: &Gpu) -> u64 {
        match self {
            OutBuffer::F32(b) => b.device_ptr_mut(gpu.stream()).0,
            OutBuffer::B16(b) => b.device_ptr_mut(gpu.stream()).0,
        }
    }
}

/// The operands (random values of the input type, kept on the host as fp32, exactly), their
/// tensor maps and C.
///
/// ```
/// use tessel_kernels::Element;
/// use tessel_kernels::hopper::{Sm90Plan, run::Sm90Buffers};
/// let Ok(gpu) = tessel_kernels::Gpu::open(0) else { return };
/// if !tessel_kernels::hopper::run::supported(&gpu) { return }
/// let plan = Sm90Plan::new(100, 300, 40, Element::BF16, Element::BF16).unwrap();
/// let bufs = Sm90Buffers::new(&gpu, &plan, 3).unwrap();
/// assert_eq!((bufs.a_host.len(), bufs.c.len()), (100 * 40, 100 * 300));
/// ```
pub struct Sm90Buffers {
    /// A (M x K) as fp32 values.
    pub a_host: Vec<f32>,
    /// B (N x K) as fp32 values.
    pub b_host: Vec<f32>,
    /// A's bit patterns on the device.
    pub a: CudaSlice<u16>,
    /// B's bit patterns on the device.
    pub b: CudaSlice<u16>,
    /// C on the device.
    pub c: OutBuffer,
    /// A's tensor map.
    pub map_a: TensorMap,
    /// B's tensor map.
    pub map_b: TensorMap,
    /// C's tensor map for the TMA-store epilogue (`None` where TMA cannot address C).
    pub map_c: Option<TensorMap>,
}

fn count(x: i64, y: i64) -> GpuResult<usize> {
    usize::try_from(x * y).map_err(|_| GpuError::InvalidArgument(format!("{x} x {y} too large")))
}

/// `len` random values of `input`: fp16 `q / 1024` with `|q| <= 1024` (exact), or those values
/// rounded to bf16; returns the bit patterns and the values.
pub(crate) fn random_operand(len: usize, seed: u64, input: Element) -> (Vec<u16>, Vec<f32>) {
    random_f16(len, seed)
        .into_iter()
        .map(|h| match input {
            Element::F16 => (h.to_bits(), h.to_f32()),
            // The plans admit only `INPUTS`: the other one is bf16.
            _ => {
                let b = bf16::from_f32(h.to_f32());
                (b.to_bits(), b.to_f32())
            }
        })
        .unzip()
}

impl Sm90Buffers {
    /// Random A and B in [-1, 1] (uploaded), their tensor maps ([`Sm90Plan::a_tma`]) and an
    /// uninitialized C.
    ///
    /// ```
    /// use tessel_kernels::Element;
    /// use tessel_kernels::hopper::{Sm90Plan, run::Sm90Buffers};
    /// let Ok(gpu) = tessel_kernels::Gpu::open(0) else { return };
    /// if !tessel_kernels::hopper::run::supported(&gpu) { return }
    /// let plan = Sm90Plan::new(128, 256, 64, Element::F16, Element::F16).unwrap();
    /// let bufs = Sm90Buffers::new(&gpu, &plan, 3).unwrap();
    /// assert_eq!(bufs.map_b.plan().box_dims(), [64, 256]);
    /// ```
    pub fn new(gpu: &Gpu, plan: &Sm90Plan, seed: u64) -> GpuResult<Sm90Buffers> {
        let (a_bits, a_host) = random_operand(count(plan.m, plan.k)?, seed, plan.input);
        let (b_bits, b_host) = random_operand(count(plan.n, plan.k)?, seed ^ 0xB0B, plan.input);
        let a = cuda("cuMemcpyHtoD", gpu.stream().clone_htod(&a_bits))?;
        let b = cuda("cuMemcpyHtoD", gpu.stream().clone_htod(&b_bits))?;
        let cn = count(plan.m, plan.n)?;
        // SAFETY: C is poisoned or fully written before it is read.
        let c = match output_type(plan.output)? {
            Element::F32 => OutBuffer::F32(cuda("cuMemAlloc", unsafe {
                gpu.stream().alloc::<u32>(cn)
            })?),
            _ => OutBuffer::B16(cuda("cuMemAlloc", unsafe {
                gpu.stream().alloc::<u16>(cn)
            })?),
        };
        let map_a = plan.a_tma.encode(a.device_ptr(gpu.stream()).0)?;
        let map_b = plan.b_tma.encode(b.device_ptr(gpu.stream()).0)?;
        let mut c = c;
        let map_c = match &plan.c_tma {
            Some(t) => Some(t.encode(c.device_ptr(gpu))?),
            None => None,
        };
        Ok(Sm90Buffers {
            a_host,
            b_host,
            a,
            b,
            c,
            map_a,
            map_b,
            map_c,
        })
    }

    /// The kernel's arguments `(tmap_a, tmap_b, tmap_c, args)` (for the direct epilogue, which
    /// never reads `tmap_c`, A's map fills it; `args` the plan's problem with C as D,
    /// [`Sm90Args::for_plan`]). `InvalidArgument` when a tensor map was encoded for
    /// another plan.
    ///
    /// ```
    /// use tessel_kernels::Element;
    /// use tessel_kernels::hopper::{Sm90Plan, run::Sm90Buffers};
    /// let Ok(gpu) = tessel_kernels::Gpu::open(0) else { return };
    /// if !tessel_kernels::hopper::run::supported(&gpu) { return }
    /// let plan = Sm90Plan::new(256, 512, 64, Element::F16, Element::F32).unwrap();
    /// let mut bufs = Sm90Buffers::new(&gpu, &plan, 3).unwrap();
    /// assert_eq!(bufs.args(&gpu, &plan).unwrap().len(), 4); // tmap_a, tmap_b, tmap_c, args
    /// ```
    pub fn args(&mut self, gpu: &Gpu, plan: &Sm90Plan) -> GpuResult<Vec<Arg<'_>>> {
        if self.map_a.plan() != &plan.a_tma || self.map_b.plan() != &plan.b_tma {
            return Err(GpuError::InvalidArgument(format!(
                "{}: the tensor maps of A and B were encoded for another plan",
                plan.kernel_name()
            )));
        }
        let map_c = if plan.epilogue == Epilogue::TmaStore {
            self.map_c
                .as_ref()
                .filter(|m| Some(m.plan()) == plan.c_tma.as_ref())
                .ok_or_else(|| {
                    GpuError::InvalidArgument(format!(
                        "{}: the buffers have no tensor map of C for this plan",
                        plan.kernel_name()
                    ))
                })?
        } else {
            // The direct epilogue never reads tmap_c: any valid map fills the parameter.
            &self.map_a
        };
        let d = self.c.device_ptr(gpu);
        let values = Sm90Args::for_plan(plan, d).values();
        Ok(vec![
            Arg::TensorMap(&self.map_a),
            Arg::TensorMap(&self.map_b),
            Arg::TensorMap(map_c),
            Arg::Values(values),
        ])
    }

    /// C downloaded as fp32 values.
    ///
    /// ```
    /// let _ = tessel_kernels::hopper::run::Sm90Buffers::c_values; // see run_and_verify
    /// ```
    pub fn c_values(&self, gpu: &Gpu, output: Element) -> GpuResult<Vec<f32>> {
        self.c.values(gpu, output)
    }
}

/// Compiles (for sm_90a, cached) and loads the plan's kernel over as many blocks as the GPU
/// holds at once (one per SM), at most one per tile; `Unavailable` on a device that is not
/// sm_90 or lacks the shared memory.
///
/// ```
/// use tessel_kernels::Element;
/// use tessel_kernels::hopper::{Sm90Plan, run};
/// let Ok(gpu) = tessel_kernels::Gpu::open(0) else { return };
/// let plan = Sm90Plan::new(128, 256, 64, Element::F16, Element::F32).unwrap();
/// match run::function(&gpu, &plan) {
///     Ok(k) => assert!(k.kernel().launch().grid.0 as i32 <= gpu.sm_count()),
///     Err(e) => assert!(e.is_unavailable()), // not a Hopper GPU
/// }
/// ```
pub fn function<'g>(gpu: &'g Gpu, plan: &Sm90Plan) -> GpuResult<Loaded<'g>> {
    let limit = max_smem_optin(gpu)?;
    if plan.smem_bytes() > limit {
        return Err(GpuError::Unavailable(format!(
            "{} needs {} bytes of shared memory per block, {} allows {limit}",
            plan.kernel_name(),
            plan.smem_bytes(),
            gpu.name()
        )));
    }
    let kernel = plan.kernel()?;
    // Persistent: at most one block per SM, none without a tile.
    let blocks = plan.tiles().min(i64::from(gpu.sm_count()));
    kernel
        .with_grid(u32::try_from(blocks).unwrap_or(u32::MAX), 1, 1)
        .load(gpu)
}

/// Rows checked against the CPU: all of them up to `max_rows`, else `max_rows` spread rows
/// (the first and the last included).
fn checked_rows(m: usize, max_rows: usize) -> Vec<usize> {
    if m <= max_rows || max_rows < 2 {
        return (0..m.min(max_rows.max(1))).collect();
    }
    let step = (m - 1) as f64 / (max_rows - 1) as f64;
    let mut rows: Vec<usize> = (0..max_rows)
        .map(|i| ((i as f64 * step).round() as usize).min(m - 1))
        .collect();
    rows.dedup();
    rows
}

/// Compares rows `rows` of `c` (M x N values) with the f64 reference of `C = A B^T`: each
/// element within the fp32 accumulation tolerance ([`tolerance`]) plus the output type's
/// rounding ([`rounded`]).
///
/// ```
/// use tessel_kernels::Element;
/// use tessel_kernels::hopper::{Sm90Plan, run::verify_rows};
/// let plan = Sm90Plan::new(2, 2, 8, Element::F16, Element::F16).unwrap();
/// let a = [1.0f32; 16];
/// let b = [0.5f32; 16];
/// assert_eq!(verify_rows(&plan, &a, &b, &[4.0; 4], &[0, 1]).bad, 0);
/// assert_eq!(verify_rows(&plan, &a, &b, &[4.0, 4.0, 4.0, 4.01], &[0, 1]).bad, 1);
/// ```
pub fn verify_rows(plan: &Sm90Plan, a: &[f32], b: &[f32], c: &[f32], rows: &[usize]) -> Comparison {
    let (n, k) = (plan.n as usize, plan.k as usize);
    let u = plan.output.unit_roundoff();
    let (want, scale) = reference_rows_f32(a, b, n, k, rows);
    // The fp32 accumulation bound, then rounding to the output type: u relative, plus fp16's
    // subnormal spacing.
    let tol: Vec<f64> = want
        .iter()
        .zip(&scale)
        .map(|(&acc, &abs)| rounded(tolerance(k, abs), acc, u, 2f64.powi(-24)))
        .collect();
    let got: Vec<f32> = rows
        .iter()
        .flat_map(|&r| (0..n).map(move |j| (r, j)))
        .map(|(r, j)| c.get(r * n + j).copied().unwrap_or(f32::NAN))
        .collect();
    compare_rows(&got, &want, &tol, "C", n, rows)
}

fn verified(what: &str, plan: &Sm90Plan, cmp: Comparison) -> GpuResult<Comparison> {
    // The 16-bit outputs carry relative errors near 1e-3 by their rounding alone: only the
    // element-wise tolerances decide.
    if cmp.bad == 0 {
        return Ok(cmp);
    }
    Err(cmp.failure(&plan.kernel_name(), what))
}

/// Poisons C (0xFF bytes, a NaN in every output type), runs the kernel once, and checks up to
/// `max_rows` rows (every row when `M <= max_rows`) against the CPU reference. Returns the
/// loaded kernel and the comparison; `Err(Verify)` when an element is wrong.
///
/// ```
/// use tessel_kernels::Element;
/// use tessel_kernels::hopper::{Sm90Plan, run};
/// let Ok(gpu) = tessel_kernels::Gpu::open(0) else { return };
/// if !run::supported(&gpu) { return }
/// let plan = Sm90Plan::new(129, 257, 72, Element::BF16, Element::F32).unwrap();
/// let mut bufs = run::Sm90Buffers::new(&gpu, &plan, 3).unwrap();
/// assert_eq!(run::run_and_verify(&gpu, &plan, &mut bufs, 129).unwrap().1.bad, 0);
/// ```
pub fn run_and_verify<'g>(
    gpu: &'g Gpu,
    plan: &Sm90Plan,
    bufs: &mut Sm90Buffers,
    max_rows: usize,
) -> GpuResult<(Loaded<'g>, Comparison)> {
    let kernel = function(gpu, plan)?;
    bufs.c.poison(gpu)?;
    kernel.launch(&mut bufs.args(gpu, plan)?)?;
    gpu.synchronize()?;
    let c = bufs.c_values(gpu, plan.output)?;
    let rows = checked_rows(plan.m as usize, max_rows);
    let cmp = verify_rows(plan, &bufs.a_host, &bufs.b_host, &c, &rows);
    Ok((kernel, verified("vs CPU reference", plan, cmp)?))
}

/// The same GEMM with `cublasGemmEx` (the plan's input and output types, fp32 compute) into
/// `bufs.c`, as [`crate::gemm::run::launch_cublas`] does for fp16: row-major `C = A B^T` is
/// column-major `C^T = B A^T`.
///
/// ```
/// use tessel_kernels::Element;
/// use tessel_kernels::hopper::{Sm90Plan, run};
/// let Ok(gpu) = tessel_kernels::Gpu::open(0) else { return };
/// let Ok(blas) = tessel_kernels::gemm::run::cublas(&gpu) else { return };
/// if !run::supported(&gpu) { return }
/// let plan = Sm90Plan::new(128, 256, 64, Element::BF16, Element::BF16).unwrap();
/// let mut bufs = run::Sm90Buffers::new(&gpu, &plan, 3).unwrap();
/// run::launch_cublas(&gpu, &blas, &plan, &mut bufs).unwrap();
/// gpu.synchronize().unwrap();
/// ```
pub fn launch_cublas(
    gpu: &Gpu,
    blas: &CudaBlas,
    plan: &Sm90Plan,
    bufs: &mut Sm90Buffers,
) -> GpuResult<()> {
    if bufs.a.len() < count(plan.m, plan.k)?
        || bufs.b.len() < count(plan.n, plan.k)?
        || bufs.c.len() < count(plan.m, plan.n)?
    {
        return Err(GpuError::InvalidArgument(format!(
            "{}: buffers too small for cuBLAS",
            plan.kernel_name()
        )));
    }
    let stream = gpu.stream();
    let (pa, _ra) = bufs.a.device_ptr(stream);
    let (pb, _rb) = bufs.b.device_ptr(stream);
    let pc = bufs.c.device_ptr(gpu);
    // SAFETY: the pointers are valid device buffers of the sizes checked above, on the handle's
    // stream.
    unsafe {
        gemm_tn(
            blas,
            (plan.m, plan.n, plan.k),
            (pa, pb, plan.input),
            (pc, plan.output),
        )
    }
}

/// Runs cuBLAS on poisoned C and compares every element with `ours`: within `5e-4 (1 + |y|)`
/// for fp32 output, two roundings of the 16-bit output types (plus `1e-4`) otherwise.
///
/// ```
/// use tessel_kernels::Element;
/// use tessel_kernels::hopper::{Sm90Plan, run};
/// let Ok(gpu) = tessel_kernels::Gpu::open(0) else { return };
/// let Ok(blas) = tessel_kernels::gemm::run::cublas(&gpu) else { return };
/// if !run::supported(&gpu) { return }
/// let plan = Sm90Plan::new(300, 300, 64, Element::F16, Element::F16).unwrap();
/// let mut bufs = run::Sm90Buffers::new(&gpu, &plan, 3).unwrap();
/// run::run_and_verify(&gpu, &plan, &mut bufs, 8).unwrap();
/// let ours = bufs.c_values(&gpu, plan.output).unwrap();
/// assert_eq!(run::run_and_compare_cublas(&gpu, &blas, &plan, &mut bufs, &ours).unwrap().bad, 0);
/// ```
pub fn run_and_compare_cublas(
    gpu: &Gpu,
    blas: &CudaBlas,
    plan: &Sm90Plan,
    bufs: &mut Sm90Buffers,
    ours: &[f32],
) -> GpuResult<Comparison> {
    bufs.c.poison(gpu)?;
    launch_cublas(gpu, blas, plan, bufs)?;
    gpu.synchronize()?;
    let theirs = bufs.c_values(gpu, plan.output)?;
    // fp32: the two kernels may sum the k-blocks in different orders (a few fp32 roundings of
    // sums up to K in magnitude); a misplaced element is off by O(1).
    let rel = match plan.output {
        Element::F32 => 5e-4,
        o => 2.0 * o.unit_roundoff() + 1e-4,
    };
    let cmp = compare_relative(ours, &theirs, rel, plan.n.max(1) as usize);
    verified("vs cuBLAS", plan, cmp)
}

/// One measurement of `tessel bench gemm` on Hopper: ours and cuBLAS with the same types.
///
/// ```
/// use tessel_kernels::Element;
/// use tessel_kernels::hopper::run::Sm90Row;
/// let _ = |r: &Sm90Row| (r.input == Element::F16, r.output == Element::F32);
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct Sm90Row {
    /// M, N, K.
    pub size: (i64, i64, i64),
    /// Input type.
    pub input: Element,
    /// Output type.
    pub output: Element,
    /// The kernel's name.
    pub kernel: String,
    /// The measurement.
    pub result: VsCublas,
}

/// For each size and type pair: verify ours against the CPU (64 spread rows) and cuBLAS (every
/// element), then time both with CUDA events in the order ours, cuBLAS, cuBLAS, ours (3
/// warm-ups and `repeats` each; [`time_pair`]). `Unavailable` when the GPU is not sm_90.
///
/// ```
/// use tessel_kernels::Element;
/// use tessel_kernels::hopper::run;
/// let Ok(gpu) = tessel_kernels::Gpu::open(0) else { return };
/// if !run::supported(&gpu) || !tessel_kernels::gemm::run::cublas_present() { return }
/// let rows = run::bench(&gpu, &[(512, 512, 256)], &[(Element::F16, Element::F32)], 2, &mut Vec::new())
///     .unwrap();
/// assert!(rows[0].result.ours_tflops > 0.0 && rows[0].result.rel_err_cublas < 1e-3);
/// ```
pub fn bench(
    gpu: &Gpu,
    sizes: &[(i64, i64, i64)],
    types: &[(Element, Element)],
    repeats: usize,
    progress: &mut dyn Write,
) -> GpuResult<Vec<Sm90Row>> {
    if !supported(gpu) {
        return Err(GpuError::Unavailable(format!(
            "the Hopper GEMM needs sm_90 (sm_90a code), {} is {}",
            gpu.name(),
            gpu.arch()
        )));
    }
    let blas = cublas(gpu)?;
    let mut rows = Vec::new();
    for &(m, n, k) in sizes {
        for &(input, output) in types {
            let plan = Sm90Plan::new(m, n, k, input, output)?;
            let name = plan.kernel_name();
            io(writeln!(progress, "[{name}] upload, compile, verify"))?;
            let mut bufs = Sm90Buffers::new(gpu, &plan, 0x5390 ^ (m as u64) << 16 ^ k as u64)?;
            let (kernel, cpu) = run_and_verify(gpu, &plan, &mut bufs, 64)?;
            let ours_c = bufs.c_values(gpu, output)?;
            let vs = run_and_compare_cublas(gpu, &blas, &plan, &mut bufs, &ours_c)?;
            io(writeln!(
                progress,
                "[{name}] {}; rel err vs CPU {:.2e}, vs cuBLAS {:.2e}",
                kernel.info(),
                cpu.rel_err,
                vs.rel_err
            ))?;
            // Balanced order: under the card's power cap the one timed second of a pair ran
            // about 0.3% slower (docs/journal.md, "Where the cycles go").
            let (ours, theirs) = time_pair(|side| match side {
                Side::Ours => kernel.time(3, repeats, &mut bufs.args(gpu, &plan)?),
                Side::Theirs => time_events(gpu, 3, repeats, || {
                    launch_cublas(gpu, &blas, &plan, &mut bufs)
                }),
            })?;
            rows.push(Sm90Row {
                size: (m, n, k),
                input,
                output,
                kernel: name,
                result: VsCublas::new(plan.flops(), ours, theirs, cpu.rel_err, vs.rel_err),
            });
        }
    }
    Ok(rows)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn checked_rows_spread_and_keep_the_ends() {
        assert_eq!(checked_rows(5, 64), vec![0, 1, 2, 3, 4]);
        let r = checked_rows(1000, 64);
        assert_eq!((r.len(), r[0], r[63]), (64, 0, 999));
        assert!(r.windows(2).all(|w| w[0] < w[1]));
    }

    #[test]
    fn random_operands_are_exact_in_their_type() {
        let (bits, vals) = random_operand(500, 9, Element::BF16);
        for (b, v) in bits.iter().zip(&vals) {
            assert_eq!(bf16::from_bits(*b).to_f32(), *v);
            assert!((-1.0..=1.0).contains(v));
        }
        let (bits, vals) = random_operand(500, 9, Element::F16);
        assert!(
            bits.iter()
                .zip(&vals)
                .all(|(b, v)| f16::from_bits(*b).to_f32() == *v)
        );
    }
}
