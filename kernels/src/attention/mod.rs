//! FlashAttention's forward pass on Hopper (sm_90a), written with the tensor layer
//! ([`crate::layer`]): `O = softmax(scale Q K^T) V` and the log-sum-exp of every row, one pass
//! over K and V per block of 128 query rows, the scores never leaving the registers.
//!
//! Q, K, V and O are laid out `(batch, seq, heads, dim)` as PyTorch and FlashAttention keep
//! them, with run-time strides; K and V may have fewer heads than Q (grouped-query and
//! multi-query attention: Q head `h` reads KV head `h / (heads / kv_heads)`); sequences may have
//! their own lengths within one batch (varlen: cumulative offsets, the rows of all sequences
//! stacked). One compiled kernel serves every shape of an [`AttnConfig`] (head dimension, element
//! type, causal or not, fixed or variable lengths, tile): shapes, strides, the softmax scale
//! and the offsets are launch arguments, and the TMA tensor maps are encoded per call.
//!
//! The kernel (`kernels/cuda/attention_sm90.cu`; [`AttnPlan::kernel`] declares its pieces):
//! - a block of 384 threads owns 128 rows of Q of one head of one sequence: warpgroup 0 is the
//!   producer (one thread: Q once, then K and V block by block with TMA into two
//!   [`AttnConfig::stages`]-deep mbarrier rings, `tessel::sm90::Pipeline`), warpgroups 1 and 2
//!   are consumers of 64 rows each (`setmaxnreg` moves registers from the producer to them);
//! - a consumer computes `S = Q K^T` with `tessel::gemm` of the tiled MMA `qk` (wgmma
//!   `64 x BN x 16`, both operands from shared memory through descriptor tensors), masks it
//!   where the block crosses the causal diagonal or the end of the keys (coordinates from
//!   identity tensors partitioned by `qk`), runs the online softmax on the accumulator fragment
//!   (running max, rescale of O and of the running sum, `exp2` with `scale log2(e)` folded in),
//!   its row reductions over the registers and lanes [`DeviceMma::row_view`](crate::layer::DeviceMma::row_view)
//!   derived from the GMMA C layout, converts `P` in registers to the A operand of the
//!   register-sourced wgmma of `pv` ([`DeviceMma::retile_a_from_c`](crate::layer::DeviceMma::retile_a_from_c),
//!   derived and proved from the two atoms' layouts) and accumulates `O += P V` (V read
//!   MN-major through descriptors of its transposed view);
//! - the main loop overlaps the softmax with the tensor cores (FlashAttention-3's
//!   intra-warpgroup pipelining, Shah et al., arXiv 2407.08608, section 3.2): in the step of
//!   block `n` (blocks run from the last down) the consumer issues `S(n) = Q K(n)^T`, applies
//!   the previous step's rescale to O, issues `O += P(n + 1) V(n + 1)`, waits with
//!   `wgmma.wait_group 1` for `S(n)` alone, masks it and runs its softmax while the P V wgmmas
//!   still run, then waits with `wait_group 0` before converting the new P (the P V in flight
//!   reads the old one). The first block computes S alone; the last P V follows the loop. One
//!   S, one P and one O are live at a time, as without the overlap;
//! - the epilogue divides O by the row sums, writes the LSE of each row, converts O to the
//!   element type and stores it through the consumer's rows of the Q buffer (`stmatrix` by a
//!   tiled copy, proven conflict-free by the bank model) with TMA (fixed lengths: the tensor map
//!   clips the rows past the sequence), or with predicated 16-byte stores (varlen, where rows
//!   past one sequence belong to the next).
//!
//! Causal attention is aligned to the bottom right, as FlashAttention's: query row `i` of a
//! sequence of `Sq` queries and `Sk` keys sees key `j` when `j <= i + Sk - Sq` (for `Sq = Sk`
//! the usual lower triangle, PyTorch's `is_causal`). Blocks of keys entirely above the diagonal
//! are skipped; only the blocks that cross it (or the end of the keys) are masked. A row that
//! sees no key (possible when `Sq > Sk`) gets `O = 0` and `LSE = -inf`.
//!
//! A backward pass (not implemented) would need from the layer, beyond what this kernel uses
//! (FlashAttention-2's algorithm, Dao, arXiv 2307.08691, section 3.2, as FlashAttention-3
//! arranges it on Hopper): an outer loop over key blocks per block of threads with Q, dO, the
//! LSE and `D = rowsum(dO * O)` streamed through the same [`crate::layer`] pipeline (several
//! tensors per stage); `P = exp2(S log2(e) - LSE)` recomputed on the C fragment and
//! `dS = P * (dP - D)` as element-wise operations of two accumulators of one layout with row
//! broadcasts (what [`DeviceMma::row_view`](crate::layer::DeviceMma::row_view) gives); P and dS
//! staged into shared memory through a proven swizzle and read back *transposed* by wgmma
//! descriptors for `dV += P^T dO` and `dK += dS^T Q` (the epilogue's staging plus an MN-major
//! descriptor of the staged tile, as V is read here); and a reduce-add copy atom (TMA
//! `cp.reduce.async.bulk` or `red.global.add.f32`) for the fp32 `dQ` partial sums that every key
//! block adds, with a small conversion kernel after it.
//!
//! Where things are: [`AttnConfig`] and [`AttnPlan`] (here) fix the compiled kernel and derive
//! its layouts; `proof.rs` proves the TMA boxes, the epilogue and the bank behaviour;
//! `source.rs` declares the kernel; [`problem`] checks a call's shapes and strides;
//! [`reference`](mod@reference) is the f64 CPU reference and its error bound; [`run`] is the API
//! on device buffers and the benchmark.
//!
//! ```
//! use tessel_kernels::attention::{AttnConfig, AttnPlan};
//! use tessel_kernels::element::Element;
//! let plan = AttnPlan::new(AttnConfig::new(128, Element::F16, true, false).unwrap()).unwrap();
//! assert_eq!(plan.config.kernel_name(), "attention_sm90_f16_d128_causal_fixed_n128s2");
//! let k = plan.kernel().unwrap();
//! assert_eq!(k.launch().threads(), 384);
//! assert!(k.source().contains("tessel::gemm(pv, p.tensor()"));
//! ```

pub mod problem;
mod proof;
pub mod reference;
pub mod run;
mod source;

use std::fmt;

use tessel_layout::atom::mma_atom;
use tessel_layout::gmma::{Major, SwizzleMode, smem_atom};
use tessel_layout::tiled::{TiledMma, make_tiled_mma};
use tessel_layout::{ComposedLayout, IntTuple};

use crate::element::Element;
use crate::error::{GpuError, GpuResult};
use crate::hopper::INPUTS;
use crate::tma::TmaPlan;

pub use problem::{Problem, SeqLens, Strides};

/// The device body ([`AttnPlan::kernel`] declares the pieces it names).
///
/// ```
/// assert!(tessel_kernels::attention::BODY.contains("tessel::lanes_max<k::ROW_LANES>"));
/// ```
pub const BODY: &str = include_str!("../../cuda/attention_sm90.cu");

/// Query rows per block (two consumer warpgroups of 64).
///
/// ```
/// assert_eq!(tessel_kernels::attention::BM, 2 * 64);
/// ```
pub const BM: i64 = 128;
/// Consumer warpgroups.
///
/// ```
/// assert_eq!(tessel_kernels::attention::CONSUMERS * 64, tessel_kernels::attention::BM);
/// ```
pub const CONSUMERS: i64 = 2;
/// Columns of one TMA box and one 128-byte swizzled row: head dimensions are loaded in blocks
/// of 64 (16-bit) elements.
///
/// ```
/// assert_eq!(tessel_kernels::attention::COL_BLOCK * 2, 128);
/// ```
pub const COL_BLOCK: i64 = 64;
/// Registers per thread of the producer warpgroup after `setmaxnreg.dec`.
///
/// ```
/// use tessel_kernels::attention::{CONSUMER_REGS, CONSUMERS, PRODUCER_REGS};
/// assert!(128 * (PRODUCER_REGS + CONSUMERS * CONSUMER_REGS) <= 65536);
/// ```
pub const PRODUCER_REGS: i64 = 24;
/// Registers per thread of a consumer warpgroup after `setmaxnreg.inc`, with one block per SM
/// ([`AttnConfig::consumer_regs`] gives the count of a configuration).
///
/// ```
/// assert_eq!(tessel_kernels::attention::CONSUMER_REGS % 8, 0);
/// ```
pub const CONSUMER_REGS: i64 = 240;
/// Registers of one SM (the `setmaxnreg` budget of the blocks resident on it).
const SM_REGISTERS: i64 = 65536;
/// Shared memory of one SM that resident blocks share (228 KiB, 1 KiB of it reserved per block).
const SM_SHARED: i64 = 228 * 1024;
/// The largest dynamic shared memory a block may opt into on sm_90 (the GEMM's
/// [`crate::hopper::SMEM_LIMIT`]).
pub use crate::hopper::SMEM_LIMIT;

/// Head dimension 64 with no sequence longer than this takes the short-sequence tile
/// ([`AttnConfig::for_problem`]).
///
/// ```
/// assert_eq!(tessel_kernels::attention::SHORT_SEQ_D64, 1024);
/// ```
pub const SHORT_SEQ_D64: i64 = 1024;

/// The head dimensions the kernel is built for.
///
/// ```
/// assert_eq!(tessel_kernels::attention::HEAD_DIMS, [64, 128, 256]);
/// ```
pub const HEAD_DIMS: [i64; 3] = [64, 128, 256];

/// What one compiled attention kernel is specialized for; shapes, strides, scale and offsets
/// are launch arguments.
///
/// ```
/// use tessel_kernels::attention::AttnConfig;
/// use tessel_kernels::element::Element;
/// let c = AttnConfig::new(256, Element::BF16, false, true).unwrap();
/// assert_eq!((c.block_n, c.stages), (80, 2));
/// assert!(AttnConfig::new(96, Element::F16, false, false).is_err());
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct AttnConfig {
    /// Head dimension of Q, K and V (64, 128 or 256).
    pub head_dim: i64,
    /// Element type of Q, K, V and O (fp32 accumulation, fp32 LSE).
    pub dtype: Element,
    /// Causal mask (bottom-right aligned).
    pub causal: bool,
    /// Variable sequence lengths (cumulative offsets) instead of one length per batch.
    pub varlen: bool,
    /// Keys per block: the N of the `S = Q K^T` wgmma and the K of `O += P V`.
    pub block_n: i64,
    /// Depth of the K and of the V ring.
    pub stages: i64,
    /// Blocks resident on one SM (1 or 2): two halve the registers of each warpgroup and let
    /// one block's prologue and epilogue overlap the other's main loop.
    pub blocks_per_sm: i64,
}

impl AttnConfig {
    /// The configuration with the default tile of `head_dim` (the tile of long sequences;
    /// [`AttnConfig::for_problem`] chooses per problem): 128 keys per block and 4 stages
    /// at 64, 128 keys (causal) or 176 (not causal) and 2 stages at 128, 80 keys and 2 stages at
    /// 256 (the 64 x 256 fp32 output accumulator takes 128 registers per thread), one block per
    /// SM (the keys per block of FlashAttention-3, arXiv 2407.08608; docs/decisions.md lists
    /// the tiles measured beside them). Errors: a head dimension other than 64, 128 or 256.
    ///
    /// ```
    /// use tessel_kernels::attention::AttnConfig;
    /// use tessel_kernels::element::Element;
    /// let c = AttnConfig::new(64, Element::F16, true, false).unwrap();
    /// assert_eq!((c.block_n, c.stages), (128, 4));
    /// ```
    pub fn new(head_dim: i64, dtype: Element, causal: bool, varlen: bool) -> GpuResult<AttnConfig> {
        let dtype = dtype.require(&INPUTS, "attention")?;
        let (block_n, stages, blocks_per_sm) = match head_dim {
            64 => (128, 4, 1),
            128 => (if causal { 128 } else { 176 }, 2, 1),
            256 => (80, 2, 1),
            d => {
                return Err(GpuError::InvalidArgument(format!(
                    "attention: head dimension {d} is not supported (64, 128 or 256)"
                )));
            }
        };
        Ok(AttnConfig {
            head_dim,
            dtype,
            causal,
            varlen,
            block_n,
            stages,
            blocks_per_sm,
        })
    }

    /// The configuration of a problem with elements `dtype`: its head dimension, mask and
    /// lengths, with the default tile ([`AttnConfig::new`]), or at head dimension 64 with fixed
    /// lengths no longer than [`SHORT_SEQ_D64`] the short-sequence tile: 48 keys (32 causal),
    /// 2 stages, two blocks per SM (one block's prologue and epilogue overlap the other's main
    /// loop; docs/decisions.md has the figures beside the default tile). A consumer of two
    /// blocks per SM has 104 registers: the causal mask with 48 keys and variable lengths (their
    /// offsets and predicated stores) would spill, so causal blocks take 32 keys and variable
    /// lengths the default tile.
    ///
    /// ```
    /// use tessel_kernels::attention::{AttnConfig, Problem};
    /// use tessel_kernels::element::Element;
    /// let short = AttnConfig::for_problem(&Problem::new(4, 512, 1024, 8, 8, 64), Element::F16).unwrap();
    /// assert_eq!((short.block_n, short.stages, short.blocks_per_sm), (48, 2, 2));
    /// let causal = AttnConfig::for_problem(&Problem::new(4, 512, 512, 8, 8, 64).causal(true), Element::F16);
    /// assert_eq!(causal.unwrap().block_n, 32);
    /// let long = AttnConfig::for_problem(&Problem::new(4, 512, 2048, 8, 8, 64), Element::F16).unwrap();
    /// assert_eq!((long.block_n, long.stages, long.blocks_per_sm), (128, 4, 1));
    /// ```
    pub fn for_problem(p: &Problem, dtype: Element) -> GpuResult<AttnConfig> {
        let config = AttnConfig::new(p.head_dim, dtype, p.causal, p.seqlens.is_varlen())?;
        let longest = p.seqlens.max_q().max(p.seqlens.max_k());
        if p.head_dim == 64 && !config.varlen && longest <= SHORT_SEQ_D64 {
            let keys = if p.causal { 32 } else { 48 };
            return config.with_tile(keys, 2)?.with_blocks_per_sm(2);
        }
        Ok(config)
    }

    /// The same configuration with another tile: `block_n` keys per block (a multiple of 16
    /// from 16 to 256) and `stages` ring stages (at least 2); [`AttnPlan::new`] checks that it
    /// fits the shared memory.
    ///
    /// ```
    /// use tessel_kernels::attention::AttnConfig;
    /// use tessel_kernels::element::Element;
    /// let c = AttnConfig::new(128, Element::F16, false, false).unwrap().with_tile(176, 2).unwrap();
    /// assert_eq!(c.kernel_name(), "attention_sm90_f16_d128_full_fixed_n176s2");
    /// assert!(c.with_tile(100, 2).is_err());
    /// ```
    pub fn with_tile(self, block_n: i64, stages: i64) -> GpuResult<AttnConfig> {
        if !(16..=256).contains(&block_n) || block_n % 16 != 0 || stages < 2 {
            return Err(GpuError::InvalidArgument(format!(
                "attention: a tile of {block_n} keys and {stages} stages (keys: a multiple of 16 \
                 in 16..=256; at least 2 stages)"
            )));
        }
        Ok(AttnConfig {
            block_n,
            stages,
            ..self
        })
    }

    /// The same configuration with `blocks` resident blocks per SM (1 or 2); [`AttnPlan::new`]
    /// checks that their shared memory fits one SM.
    ///
    /// ```
    /// use tessel_kernels::attention::AttnConfig;
    /// use tessel_kernels::element::Element;
    /// let c = AttnConfig::new(64, Element::F16, true, false).unwrap().with_tile(64, 2).unwrap();
    /// let two = c.with_blocks_per_sm(2).unwrap();
    /// assert_eq!((two.consumer_regs(), two.launch_regs()), (104, 80));
    /// assert_eq!(two.kernel_name(), "attention_sm90_f16_d64_causal_fixed_n64s2b2");
    /// assert!(c.with_blocks_per_sm(3).is_err());
    /// ```
    pub fn with_blocks_per_sm(self, blocks: i64) -> GpuResult<AttnConfig> {
        if !(1..=2).contains(&blocks) {
            return Err(GpuError::InvalidArgument(format!(
                "attention: {blocks} blocks per SM (1 or 2)"
            )));
        }
        Ok(AttnConfig {
            blocks_per_sm: blocks,
            ..self
        })
    }

    /// Registers per thread a block starts with: the SM's registers shared by its resident
    /// blocks of `128 (1 + CONSUMERS)` threads, in the allocation unit of 8.
    ///
    /// ```
    /// use tessel_kernels::attention::AttnConfig;
    /// use tessel_kernels::element::Element;
    /// assert_eq!(AttnConfig::new(128, Element::F16, false, false).unwrap().launch_regs(), 168);
    /// ```
    pub fn launch_regs(&self) -> i64 {
        SM_REGISTERS / (self.blocks_per_sm * 128 * (1 + CONSUMERS)) / 8 * 8
    }

    /// Registers per thread of a consumer warpgroup after `setmaxnreg.inc`: the block's
    /// registers less the producer's [`PRODUCER_REGS`], shared by the consumers (at most 240,
    /// `setmaxnreg`'s unit of 8).
    ///
    /// ```
    /// use tessel_kernels::attention::{AttnConfig, CONSUMERS, PRODUCER_REGS};
    /// use tessel_kernels::element::Element;
    /// let c = AttnConfig::new(128, Element::F16, false, false).unwrap();
    /// assert_eq!(c.consumer_regs(), 240);
    /// assert!(PRODUCER_REGS + CONSUMERS * c.consumer_regs() <= (1 + CONSUMERS) * c.launch_regs());
    /// ```
    pub fn consumer_regs(&self) -> i64 {
        let spare = (1 + CONSUMERS) * self.launch_regs() - PRODUCER_REGS;
        (spare / CONSUMERS / 8 * 8).min(CONSUMER_REGS)
    }

    /// `attention_sm90_{dtype}_d{D}_{causal|full}_{fixed|varlen}_n{BN}s{stages}`, with `b2`
    /// appended for two blocks per SM.
    pub fn kernel_name(&self) -> String {
        format!(
            "attention_sm90_{}_d{}_{}_{}_n{}s{}{}",
            self.dtype,
            self.head_dim,
            if self.causal { "causal" } else { "full" },
            if self.varlen { "varlen" } else { "fixed" },
            self.block_n,
            self.stages,
            if self.blocks_per_sm == 2 { "b2" } else { "" }
        )
    }

    /// The 16-bit output type of the same encoding (fp16 or bf16): its `k::DT` code and unit
    /// roundoff.
    ///
    /// ```
    /// use tessel_kernels::{Element, attention::AttnConfig};
    /// assert_eq!(AttnConfig::new(64, Element::BF16, false, false).unwrap().out_type(), Element::BF16);
    /// ```
    pub fn out_type(&self) -> Element {
        self.dtype
    }

    /// The CuTe name of the GMMA atom `64 x n x 16` with fp32 accumulators of this type, A from
    /// shared memory (`SS`) or registers (`RS`).
    fn gmma(&self, n: i64, registers: bool) -> String {
        let t = self.dtype.cute_token();
        let operands = if registers { "RS" } else { "SS" };
        format!("SM90_64x{n}x16_F32{t}{t}_{operands}")
    }
}

impl fmt::Display for AttnConfig {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} d{} {} {} {}x{} s{} b{}",
            self.dtype,
            self.head_dim,
            if self.causal { "causal" } else { "full" },
            if self.varlen { "varlen" } else { "fixed" },
            BM,
            self.block_n,
            self.stages,
            self.blocks_per_sm
        )
    }
}

/// Everything the attention kernel of one [`AttnConfig`] computes with, derived and checked on
/// the host.
///
/// ```
/// use tessel_kernels::attention::{AttnConfig, AttnPlan};
/// use tessel_kernels::element::Element;
/// let p = AttnPlan::new(AttnConfig::new(64, Element::BF16, false, false).unwrap()).unwrap();
/// assert_eq!(p.q_smem.to_string(), "Sw<3,3,3> o ((8,16),(64,1)):((64,512),(1,0))");
/// assert!(p.smem_bytes() <= tessel_kernels::attention::SMEM_LIMIT);
/// ```
#[derive(Clone, Debug)]
pub struct AttnPlan {
    /// The configuration.
    pub config: AttnConfig,
    /// The Q tile in shared memory, `(BM, D)`: `smem_atom(K, 128B, 16)` tiled, 64-column
    /// blocks one after the other; each consumer's 64 rows hold its O tile in the epilogue.
    pub q_smem: ComposedLayout,
    /// The K (and V) ring, `(BN, D, stages)`, the same atom tiled.
    pub kv_smem: ComposedLayout,
    /// The box that loads one 64-column block of Q (`[64, BM]` of a `(dim, seq, heads, batch)`
    /// tensor), proven to write every column block of `q_smem`; the per-call maps are
    /// [`TmaPlan::with_tensor`] of it.
    pub q_tma: TmaPlan,
    /// The box of one 64-column block of a K or V stage (`[64, BN]`), proven for every block of
    /// every stage.
    pub kv_tma: TmaPlan,
    /// The box of one 64-column block of a consumer's O tile (`[64, 64]`), proven to read every
    /// block of both consumers' rows of `q_smem`.
    pub o_tma: TmaPlan,
    /// `S = Q K^T`: the GMMA atom `64 x BN x 16` (A and B from shared memory) on the two
    /// consumer warpgroups along M.
    pub qk: TiledMma,
    /// `O += P V`: the GMMA atom `64 x D x 16` with A (P) from registers, on the two consumers.
    pub pv: TiledMma,
}

impl AttnPlan {
    /// Derives and proves the plan of `config`: the shared layouts, the three TMA boxes against
    /// every block they write or read, the tiled MMAs; [`AttnPlan::kernel`] adds the layer's
    /// proofs (descriptors, the P conversion, the row reductions, the epilogue). Errors: a tile
    /// whose shared memory exceeds [`SMEM_LIMIT`], or any failed proof.
    ///
    /// ```
    /// use tessel_kernels::attention::{AttnConfig, AttnPlan};
    /// use tessel_kernels::element::Element;
    /// let big = AttnConfig::new(256, Element::F16, false, false).unwrap().with_tile(128, 2).unwrap();
    /// let err = AttnPlan::new(big).unwrap_err();
    /// assert!(err.to_string().contains("shared memory"), "{err}");
    /// ```
    pub fn new(config: AttnConfig) -> GpuResult<AttnPlan> {
        let d = config.head_dim;
        config.dtype.require(&INPUTS, "attention")?;
        if !HEAD_DIMS.contains(&d) {
            return Err(GpuError::InvalidArgument(format!(
                "attention: head dimension {d} is not supported (64, 128 or 256)"
            )));
        }
        let atom = smem_atom(Major::K, SwizzleMode::B128, 16)?;
        let q_smem = atom.tile_to_shape(&IntTuple::from_ints([BM, d]))?;
        let kv_smem =
            atom.tile_to_shape(&IntTuple::from_ints([config.block_n, d, config.stages]))?;
        let two = "(2,1,1):(1,0,0)".parse()?;
        let qk = make_tiled_mma(&mma_atom(&config.gmma(config.block_n, false))?, &two, &[])?;
        let pv = make_tiled_mma(&mma_atom(&config.gmma(d, true))?, &two, &[])?;
        let (q_tma, kv_tma, o_tma) = proof::boxes(&config, &q_smem, &kv_smem)?;
        let plan = AttnPlan {
            config,
            q_smem,
            kv_smem,
            q_tma,
            kv_tma,
            o_tma,
            qk,
            pv,
        };
        if plan.smem_bytes() > SMEM_LIMIT {
            return Err(GpuError::InvalidArgument(format!(
                "attention {config}: the tile needs {} bytes of shared memory, more than the {} \
                 a block may have",
                plan.smem_bytes(),
                SMEM_LIMIT
            )));
        }
        let resident = config.blocks_per_sm * (plan.smem_bytes() + 1024);
        if resident > SM_SHARED {
            return Err(GpuError::InvalidArgument(format!(
                "attention {config}: {} blocks of {} bytes of shared memory (and 1 KiB reserved \
                 each) do not fit the {SM_SHARED} bytes of one SM",
                config.blocks_per_sm,
                plan.smem_bytes()
            )));
        }
        Ok(plan)
    }

    /// Bytes of the Q tile (and of the two consumers' O tiles that reuse it).
    ///
    /// ```
    /// use tessel_kernels::attention::{AttnConfig, AttnPlan};
    /// use tessel_kernels::element::Element;
    /// let p = AttnPlan::new(AttnConfig::new(128, Element::F16, false, false).unwrap()).unwrap();
    /// assert_eq!(p.q_bytes(), 128 * 128 * 2);
    /// ```
    pub fn q_bytes(&self) -> i64 {
        BM * self.config.head_dim * 2
    }

    /// Bytes of one K (or V) stage: `BN x D` elements.
    ///
    /// ```
    /// use tessel_kernels::attention::{AttnConfig, AttnPlan};
    /// use tessel_kernels::element::Element;
    /// let p = AttnPlan::new(AttnConfig::new(256, Element::F16, false, false).unwrap()).unwrap();
    /// assert_eq!(p.kv_stage_bytes(), 80 * 256 * 2);
    /// ```
    pub fn kv_stage_bytes(&self) -> i64 {
        self.config.block_n * self.config.head_dim * 2
    }

    /// Dynamic shared memory: Q, the K and V rings, 1 KiB to align them to the swizzle's
    /// repeat, the `full`/`empty` barriers of both rings and Q's barrier.
    ///
    /// ```
    /// use tessel_kernels::attention::{AttnConfig, AttnPlan};
    /// use tessel_kernels::element::Element;
    /// let p = AttnPlan::new(AttnConfig::new(128, Element::F16, true, false).unwrap()).unwrap();
    /// assert_eq!(p.smem_bytes(), 32768 + 2 * 2 * 32768 + 1024 + 4 * 2 * 8 + 8);
    /// ```
    pub fn smem_bytes(&self) -> i64 {
        let s = self.config.stages;
        self.q_bytes() + 2 * s * self.kv_stage_bytes() + 1024 + 4 * s * 8 + 8
    }
}
