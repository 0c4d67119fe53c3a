//! Running attention on a GPU: the API on cudarc device buffers ([`Attention`] compiles and
//! loads one configuration, [`Attention::forward`] checks and runs one call; [`forward`] does
//! both), random operands and the verified run the tests use, and the measurement behind
//! `tessel bench attention`.
//!
//! ```
//! use tessel_kernels::attention::{Problem, run};
//! use tessel_kernels::half::f16;
//! let Ok(gpu) = tessel_kernels::Gpu::open(0) else { return }; // no GPU: nothing to run
//! if !run::supported(&gpu) { return } // not an sm_90 device
//! // (batch 2, 1000 rows, 8 heads, 128) attending to 1000 keys of 2 KV heads, causal.
//! let p = Problem::new(2, 1000, 1000, 8, 2, 128).causal(true);
//! let zeros = |n: usize| gpu.stream().alloc_zeros::<f16>(n).unwrap();
//! let (q, k, v) = (zeros(p.required_len('q').unwrap()), zeros(p.required_len('k').unwrap()),
//!                  zeros(p.required_len('v').unwrap()));
//! let mut o = zeros(p.required_len('o').unwrap());
//! let mut lse = gpu.stream().alloc_zeros::<f32>(p.lse_len()).unwrap();
//! run::forward(&gpu, &p, &q, &k, &v, &mut o, &mut lse).unwrap();
//! // Zero scores: every row averages the keys it sees, LSE = ln(keys).
//! assert_eq!(gpu.stream().clone_dtoh(&lse).unwrap()[0], 0.0); // row 0 sees 1 key
//! ```

use std::io::Write;

use cudarc::driver::{CudaSlice, DevicePtr, DeviceRepr, ValidAsZeroBits};
use half::{bf16, f16};

use super::problem::{Problem, SeqLens};
use super::reference::{HostOperands, checked_rows, compare_rows};
use super::{AttnConfig, AttnPlan, BM};
use crate::Arch;
use crate::bench::io;
use crate::device::Gpu;
use crate::element::Element;
use crate::error::{GpuError, GpuResult, cuda};
use crate::exec::poison;
use crate::gemm::run::max_smem_optin;
use crate::hopper::INPUTS;
use crate::hopper::run::random_operand;
use crate::kernel::{Arg, Loaded};
use crate::measure::compare::Comparison;
use crate::timing::{Timing, time_events};
use crate::tma::TensorMap;

/// An element type of Q, K, V and O: `half::f16` or `half::bf16`.
pub trait AttnElem: DeviceRepr + ValidAsZeroBits + Copy + Default + 'static {
    /// The kernel's element type.
    const TYPE: Element;
    /// The element with these bits.
    fn from_bits(bits: u16) -> Self;
    /// Its bits.
    fn bits(self) -> u16;
    /// Its value.
    fn value(self) -> f32;
}

impl AttnElem for f16 {
    const TYPE: Element = Element::F16;
    fn from_bits(bits: u16) -> f16 {
        f16::from_bits(bits)
    }
    fn bits(self) -> u16 {
        self.to_bits()
    }
    fn value(self) -> f32 {
        self.to_f32()
    }
}

impl AttnElem for bf16 {
    const TYPE: Element = Element::BF16;
    fn from_bits(bits: u16) -> bf16 {
        bf16::from_bits(bits)
    }
    fn bits(self) -> u16 {
        self.to_bits()
    }
    fn value(self) -> f32 {
        self.to_f32()
    }
}

/// True when the GPU runs sm_90a code.
///
/// ```
/// let Ok(gpu) = tessel_kernels::Gpu::open(0) else { return };
/// let _hopper: bool = tessel_kernels::attention::run::supported(&gpu);
/// ```
pub fn supported(gpu: &Gpu) -> bool {
    Arch::SM90A.runs_on(gpu.arch())
}

/// The configuration a problem needs with elements `T` ([`AttnConfig::for_problem`]).
///
/// ```
/// use tessel_kernels::attention::{Problem, run::config_for};
/// use tessel_kernels::half::bf16;
/// let c = config_for::<bf16>(&Problem::new(1, 8, 8, 1, 1, 256).causal(true)).unwrap();
/// assert_eq!(c.kernel_name(), "attention_sm90_bf16_d256_causal_fixed_n80s2");
/// let short = config_for::<bf16>(&Problem::new(4, 512, 512, 8, 8, 64)).unwrap();
/// assert_eq!(short.kernel_name(), "attention_sm90_bf16_d64_full_fixed_n48s2b2");
/// let long = config_for::<bf16>(&Problem::new(4, 2048, 2048, 8, 8, 64)).unwrap();
/// assert_eq!(long.kernel_name(), "attention_sm90_bf16_d64_full_fixed_n128s4");
/// ```
pub fn config_for<T: AttnElem>(p: &Problem) -> GpuResult<AttnConfig> {
    AttnConfig::for_problem(p, T::TYPE)
}

/// One attention configuration compiled (NVRTC, cached) and loaded on a GPU: call
/// [`forward`](Attention::forward) for every problem it serves.
pub struct Attention<'g> {
    gpu: &'g Gpu,
    plan: AttnPlan,
    loaded: Loaded<'g>,
}

/// One call made ready: its tensor maps encoded, offsets uploaded, arguments checked; launch
/// it any number of times (the benchmark times [`Call::launch`]).
pub struct Call<'a, 'g> {
    attn: &'a Attention<'g>,
    maps: [TensorMap; 4],
    cu: [CudaSlice<i32>; 2],
    o: &'a mut dyn crate::kernel::Buffer,
    lse: &'a mut CudaSlice<f32>,
    scalars: ([i32; 3], [f32; 2], [i64; 4]),
    grid: (u32, u32, u32),
}

impl<'g> Attention<'g> {
    /// Derives, proves, compiles and loads `config`. `Unavailable` on a GPU that is not sm_90
    /// or lacks the tile's shared memory.
    ///
    /// ```
    /// use tessel_kernels::{attention::{AttnConfig, run::Attention}, element::Element};
    /// let Ok(gpu) = tessel_kernels::Gpu::open(0) else { return };
    /// match Attention::new(&gpu, AttnConfig::new(64, Element::F16, false, false).unwrap()) {
    ///     Ok(a) => assert_eq!(a.plan().config.head_dim, 64),
    ///     Err(e) => assert!(e.is_unavailable()), // not a Hopper GPU
    /// }
    /// ```
    pub fn new(gpu: &'g Gpu, config: AttnConfig) -> GpuResult<Attention<'g>> {
        if !supported(gpu) {
            return Err(GpuError::Unavailable(format!(
                "attention needs sm_90 (sm_90a code), {} is {}",
                gpu.name(),
                gpu.arch()
            )));
        }
        let plan = AttnPlan::new(config)?;
        let limit = max_smem_optin(gpu)?;
        if plan.smem_bytes() > limit {
            return Err(GpuError::Unavailable(format!(
                "{} needs {} bytes of shared memory per block, {} allows {limit}",
                config.kernel_name(),
                plan.smem_bytes(),
                gpu.name()
            )));
        }
        let loaded = plan.kernel()?.load(gpu)?;
        Ok(Attention { gpu, plan, loaded })
    }

    /// The plan.
    pub fn plan(&self) -> &AttnPlan {
        &self.plan
    }

    /// The loaded kernel (registers, occupancy).
    pub fn loaded(&self) -> &Loaded<'g> {
        &self.loaded
    }

    /// Checks a call and makes it ready ([`Call::launch`]): the problem ([`Problem::check`]),
    /// that it is this configuration's (head dimension, element type, mask, lengths), the
    /// buffers ([`Problem::check_buffers`]); encodes Q's, K's, V's and O's tensor maps and
    /// uploads the offsets.
    pub fn prepare<'a, T: AttnElem>(
        &'a self,
        p: &Problem,
        q: &CudaSlice<T>,
        k: &CudaSlice<T>,
        v: &CudaSlice<T>,
        o: &'a mut CudaSlice<T>,
        lse: &'a mut CudaSlice<f32>,
    ) -> GpuResult<Call<'a, 'g>> {
        p.check()?;
        let cfg = self.plan.config;
        let want = config_for::<T>(p)?;
        if (want.head_dim, want.dtype, want.causal, want.varlen)
            != (cfg.head_dim, cfg.dtype, cfg.causal, cfg.varlen)
        {
            return Err(GpuError::InvalidArgument(format!(
                "attention: the call needs {want}, this kernel is {cfg}"
            )));
        }
        let stream = self.gpu.stream();
        let addr = |b: &CudaSlice<T>| b.device_ptr(stream).0;
        let addresses = [addr(q), addr(k), addr(v), addr(o)];
        p.check_buffers([q.len(), k.len(), v.len(), o.len(), lse.len()], addresses)?;
        let elem = self.plan.tma_elem();
        let encode = |plan: &crate::tma::TmaPlan, which: char, at: u64| {
            plan.with_tensor(p.tma_tensor(which, elem)?)?.encode(at)
        };
        let maps = [
            encode(&self.plan.q_tma, 'q', addresses[0])?,
            encode(&self.plan.kv_tma, 'k', addresses[1])?,
            encode(&self.plan.kv_tma, 'v', addresses[2])?,
            encode(&self.plan.o_tma, 'o', addresses[3])?,
        ];
        let (cu_q, cu_k) = match &p.seqlens {
            SeqLens::Varlen { cu_q, cu_k } => (cu_q.clone(), cu_k.clone()),
            SeqLens::Fixed { .. } => (vec![0, 0], vec![0, 0]),
        };
        let cu = [
            cuda("cuMemcpyHtoD", stream.clone_htod(&cu_q))?,
            cuda("cuMemcpyHtoD", stream.clone_htod(&cu_k))?,
        ];
        let (sq, sk) = match &p.seqlens {
            SeqLens::Fixed {
                seqlen_q, seqlen_k, ..
            } => (*seqlen_q, *seqlen_k),
            SeqLens::Varlen { .. } => (0, 0),
        };
        let (lse_head, lse_batch) = p.lse_strides();
        let scale = f64::from(p.scale);
        let blocks = (p.seqlens.max_q() + BM - 1) / BM;
        let dim = |x: i64| u32::try_from(x.max(1)).unwrap_or(u32::MAX);
        Ok(Call {
            attn: self,
            maps,
            cu,
            o,
            lse,
            scalars: (
                [sq as i32, sk as i32, (p.heads / p.kv_heads) as i32],
                [(scale * std::f64::consts::LOG2_E) as f32, p.scale],
                [p.o.seq, p.o.head, lse_head, lse_batch],
            ),
            grid: (dim(blocks), dim(p.heads), dim(p.seqlens.batch())),
        })
    }

    /// Runs one call (asynchronously, on the GPU's stream): `O = softmax(scale Q K^T) V` and
    /// the LSE of every query row, after every check of [`prepare`](Attention::prepare).
    pub fn forward<T: AttnElem>(
        &self,
        p: &Problem,
        q: &CudaSlice<T>,
        k: &CudaSlice<T>,
        v: &CudaSlice<T>,
        o: &mut CudaSlice<T>,
        lse: &mut CudaSlice<f32>,
    ) -> GpuResult<()> {
        self.prepare(p, q, k, v, o, lse)?.launch()
    }
}

impl Call<'_, '_> {
    /// Launches the call once (asynchronously).
    pub fn launch(&mut self) -> GpuResult<()> {
        let ([sq, sk, group], [scale_log2, scale], [o_seq, o_head, lse_head, lse_batch]) =
            self.scalars;
        let mut args = vec![
            Arg::TensorMap(&self.maps[0]),
            Arg::TensorMap(&self.maps[1]),
            Arg::TensorMap(&self.maps[2]),
            Arg::TensorMap(&self.maps[3]),
            Arg::Output(&mut *self.o),
            Arg::Output(&mut *self.lse),
            Arg::Input(&self.cu[0]),
            Arg::Input(&self.cu[1]),
            Arg::I32(sq),
            Arg::I32(sk),
            Arg::I32(group),
            Arg::F32(scale_log2),
            Arg::F32(scale),
            Arg::I64(o_seq),
            Arg::I64(o_head),
            Arg::I64(lse_head),
            Arg::I64(lse_batch),
        ];
        self.attn.loaded.launch_grid(self.grid, &mut args)
    }

    /// The grid of this call: `(query blocks of the longest sequence, heads, sequences)`.
    pub fn grid(&self) -> (u32, u32, u32) {
        self.grid
    }
}

/// Compiles and loads the configuration `p` needs and runs it once: [`Attention::new`] then
/// [`Attention::forward`] (keep an [`Attention`] to call a configuration repeatedly without
/// deriving it again).
pub fn forward<T: AttnElem>(
    gpu: &Gpu,
    p: &Problem,
    q: &CudaSlice<T>,
    k: &CudaSlice<T>,
    v: &CudaSlice<T>,
    o: &mut CudaSlice<T>,
    lse: &mut CudaSlice<f32>,
) -> GpuResult<()> {
    Attention::new(gpu, config_for::<T>(p)?)?.forward(p, q, k, v, o, lse)
}

/// Random operands of a problem (values of the element type in `[-1, 1]`, kept on the host
/// as their exact values) and its outputs, for the tests and the benchmark.
pub struct AttnBuffers<T: AttnElem> {
    /// Q's values.
    pub q_host: Vec<f32>,
    /// K's values.
    pub k_host: Vec<f32>,
    /// V's values.
    pub v_host: Vec<f32>,
    /// Q on the device.
    pub q: CudaSlice<T>,
    /// K on the device.
    pub k: CudaSlice<T>,
    /// V on the device.
    pub v: CudaSlice<T>,
    /// O on the device.
    pub o: CudaSlice<T>,
    /// The LSE on the device.
    pub lse: CudaSlice<f32>,
}

impl<T: AttnElem> AttnBuffers<T> {
    /// Uploads random Q, K and V (as long as the strides reach) and allocates O and the LSE.
    pub fn new(gpu: &Gpu, p: &Problem, seed: u64) -> GpuResult<AttnBuffers<T>> {
        let stream = gpu.stream();
        let make = |which: char, salt: u64| -> GpuResult<(Vec<f32>, CudaSlice<T>)> {
            let (bits, values) = random_operand(p.required_len(which)?, seed ^ salt, T::TYPE);
            let typed: Vec<T> = bits.into_iter().map(T::from_bits).collect();
            Ok((values, cuda("cuMemcpyHtoD", stream.clone_htod(&typed))?))
        };
        let (q_host, q) = make('q', 0x51)?;
        let (k_host, k) = make('k', 0x4B00)?;
        let (v_host, v) = make('v', 0x56_0000)?;
        let o = cuda("cuMemAlloc", stream.alloc_zeros::<T>(p.required_len('o')?))?;
        let lse = cuda("cuMemAlloc", stream.alloc_zeros::<f32>(p.lse_len()))?;
        Ok(AttnBuffers {
            q_host,
            k_host,
            v_host,
            q,
            k,
            v,
            o,
            lse,
        })
    }

    /// The host values as the reference reads them.
    pub fn host(&self) -> HostOperands<'_> {
        HostOperands {
            q: &self.q_host,
            k: &self.k_host,
            v: &self.v_host,
        }
    }

    /// O and the LSE downloaded as f32 values.
    pub fn outputs(&self, gpu: &Gpu) -> GpuResult<(Vec<f32>, Vec<f32>)> {
        let o = cuda("cuMemcpyDtoH", gpu.stream().clone_dtoh(&self.o))?
            .into_iter()
            .map(T::value)
            .collect();
        Ok((o, cuda("cuMemcpyDtoH", gpu.stream().clone_dtoh(&self.lse))?))
    }
}

/// Poisons O and the LSE (0xFF bytes: NaN in every type), runs the call once, and compares up
/// to `max_rows` query rows ([`checked_rows`]) with the CPU reference: `(O, LSE)`
/// comparisons; `Err(Verify)` when a value is outside its bound.
pub fn run_and_verify<T: AttnElem>(
    attn: &Attention<'_>,
    p: &Problem,
    bufs: &mut AttnBuffers<T>,
    max_rows: usize,
) -> GpuResult<(Comparison, Comparison)> {
    let gpu = attn.gpu;
    poison(gpu, &mut bufs.o)?;
    poison(gpu, &mut bufs.lse)?;
    attn.forward(p, &bufs.q, &bufs.k, &bufs.v, &mut bufs.o, &mut bufs.lse)?;
    gpu.synchronize()?;
    let (o, lse) = bufs.outputs(gpu)?;
    let rows = checked_rows(p, max_rows);
    let unit = attn.plan.config.out_type().unit_roundoff();
    let (co, cl) = compare_rows(p, &bufs.host(), unit, &o, &lse, &rows);
    let name = attn.plan.config.kernel_name();
    for (what, c) in [("O vs CPU reference", &co), ("LSE vs CPU reference", &cl)] {
        if c.bad > 0 {
            return Err(c.failure(&name, what));
        }
    }
    Ok((co, cl))
}

/// One shape `tessel bench attention` measures (FlashAttention's and PyTorch's benchmark
/// convention: `batch x seqlen = 16384` tokens, `heads x head_dim = 2048`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BenchShape {
    /// Sequences.
    pub batch: i64,
    /// Query and key rows per sequence.
    pub seqlen: i64,
    /// Query heads.
    pub heads: i64,
    /// KV heads.
    pub kv_heads: i64,
    /// Head dimension.
    pub head_dim: i64,
    /// Element type.
    pub dtype: Element,
    /// Causal mask.
    pub causal: bool,
}

impl BenchShape {
    /// The standard shape of `seqlen` and `head_dim`: `16384 / seqlen` sequences (at least
    /// 1), `2048 / head_dim` heads (multi-head).
    ///
    /// ```
    /// use tessel_kernels::{attention::run::BenchShape, element::Element};
    /// let s = BenchShape::standard(4096, 128, Element::F16, true);
    /// assert_eq!((s.batch, s.heads), (4, 16));
    /// assert_eq!(s.problem().flops(), 4.0 * 4.0 * 16.0 * 4096.0 * 4096.0 * 128.0 / 2.0);
    /// ```
    pub fn standard(seqlen: i64, head_dim: i64, dtype: Element, causal: bool) -> BenchShape {
        let heads = (2048 / head_dim.max(1)).max(1);
        BenchShape {
            batch: (16384 / seqlen.max(1)).max(1),
            seqlen,
            heads,
            kv_heads: heads,
            head_dim,
            dtype,
            causal,
        }
    }

    /// The problem (contiguous operands, scale `1 / sqrt(head_dim)`).
    pub fn problem(&self) -> Problem {
        Problem::new(
            self.batch,
            self.seqlen,
            self.seqlen,
            self.heads,
            self.kv_heads,
            self.head_dim,
        )
        .causal(self.causal)
    }
}

/// One measurement of `tessel bench attention`.
#[derive(Clone, Debug, PartialEq)]
pub struct AttnRow {
    /// The shape.
    pub shape: BenchShape,
    /// The kernel's name.
    pub kernel: String,
    /// The timing (CUDA events).
    pub timing: Timing,
    /// TFLOP/s at the median time ([`Problem::flops`]).
    pub tflops: f64,
    /// Relative error of O against the CPU reference (checked rows).
    pub rel_err: f64,
    /// Registers and occupancy, for the progress lines.
    pub info: String,
}

/// For each shape: verify against the CPU (64 spread rows; an error fails the run), then time
/// `repeats` launches after 3 warm-ups. When `dump` names a directory, writes Q, K, V, O and
/// the LSE of each shape into a subdirectory of it named after the kernel and the shape, as
/// raw little-endian files with a JSON index (`scripts/sdpa_compare.py --dump` reads them).
/// `Unavailable` when the GPU is not sm_90.
pub fn bench(
    gpu: &Gpu,
    shapes: &[BenchShape],
    repeats: usize,
    dump: Option<&std::path::Path>,
    progress: &mut dyn Write,
) -> GpuResult<Vec<AttnRow>> {
    let mut rows = Vec::new();
    for shape in shapes {
        rows.push(match shape.dtype.require(&INPUTS, "attention")? {
            Element::F16 => bench_one::<f16>(gpu, shape, repeats, dump, progress)?,
            _ => bench_one::<bf16>(gpu, shape, repeats, dump, progress)?,
        });
    }
    Ok(rows)
}

fn bench_one<T: AttnElem>(
    gpu: &Gpu,
    shape: &BenchShape,
    repeats: usize,
    dump: Option<&std::path::Path>,
    progress: &mut dyn Write,
) -> GpuResult<AttnRow> {
    let p = shape.problem();
    let attn = Attention::new(gpu, config_for::<T>(&p)?)?;
    let name = attn.plan.config.kernel_name();
    let what = format!("{name} b{} h{} s{}", shape.batch, shape.heads, shape.seqlen);
    io(writeln!(progress, "[{what}] upload, compile, verify"))?;
    let seed = 0xA77E ^ (shape.seqlen as u64) << 20 ^ shape.head_dim as u64;
    let mut bufs = AttnBuffers::<T>::new(gpu, &p, seed)?;
    let (co, _) = run_and_verify(&attn, &p, &mut bufs, 64)?;
    if let Some(dir) = dump {
        dump_call(gpu, dir, &what, &p, &bufs)?;
    }
    let info = attn.loaded.info();
    let AttnBuffers {
        q, k, v, o, lse, ..
    } = &mut bufs;
    let mut call = attn.prepare(&p, q, k, v, o, lse)?;
    let timing = time_events(gpu, 3, repeats, || call.launch())?;
    let tflops = p.flops() / (timing.median_ms * 1e-3) / 1e12;
    io(writeln!(
        progress,
        "[{what}] {info}; {:.3} ms, {tflops:.1} TFLOP/s, rel err vs CPU {:.2e}",
        timing.median_ms, co.rel_err
    ))?;
    Ok(AttnRow {
        shape: *shape,
        kernel: name,
        timing,
        tflops,
        rel_err: co.rel_err,
        info,
    })
}

/// Writes `q.bin`, `k.bin`, `v.bin`, `o.bin` (16-bit elements, the problem's contiguous
/// layout) and `lse.bin` (fp32) of one call into `dir/<name>` (spaces of `name` as
/// underscores), and `index.json` describing them.
fn dump_call<T: AttnElem>(
    gpu: &Gpu,
    dir: &std::path::Path,
    name: &str,
    p: &Problem,
    bufs: &AttnBuffers<T>,
) -> GpuResult<()> {
    // One directory per shape: the kernel's name and the shape, spaces as underscores.
    let dir = &dir.join(name.replace(' ', "_"));
    let fail = |e: std::io::Error| GpuError::InvalidArgument(format!("--dump {dir:?}: {e}"));
    std::fs::create_dir_all(dir).map_err(fail)?;
    let bytes16 =
        |xs: Vec<T>| -> Vec<u8> { xs.iter().flat_map(|x| x.bits().to_le_bytes()).collect() };
    for (file, buf) in [
        ("q.bin", &bufs.q),
        ("k.bin", &bufs.k),
        ("v.bin", &bufs.v),
        ("o.bin", &bufs.o),
    ] {
        std::fs::write(
            dir.join(file),
            bytes16(cuda("cuMemcpyDtoH", gpu.stream().clone_dtoh(buf))?),
        )
        .map_err(fail)?;
    }
    let lse: Vec<u8> = cuda("cuMemcpyDtoH", gpu.stream().clone_dtoh(&bufs.lse))?
        .iter()
        .flat_map(|x| x.to_le_bytes())
        .collect();
    std::fs::write(dir.join("lse.bin"), lse).map_err(fail)?;
    let SeqLens::Fixed {
        batch,
        seqlen_q,
        seqlen_k,
    } = p.seqlens
    else {
        return Err(GpuError::InvalidArgument(
            "--dump writes fixed-length problems only".into(),
        ));
    };
    let index = format!(
        "{{\"name\": \"{name}\", \"dtype\": \"{}\", \"batch\": {batch}, \"seqlen_q\": {seqlen_q}, \
         \"seqlen_k\": {seqlen_k}, \"heads\": {}, \"kv_heads\": {}, \"head_dim\": {}, \"causal\": \
         {}, \"scale\": {}, \"layout\": \"(batch, seq, heads, dim) contiguous; lse (batch, heads, \
         seq) fp32\"}}\n",
        T::TYPE,
        p.heads,
        p.kv_heads,
        p.head_dim,
        p.causal,
        p.scale
    );
    std::fs::write(dir.join("index.json"), index).map_err(fail)
}
