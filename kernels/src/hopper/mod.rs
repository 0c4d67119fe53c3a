//! A Hopper (sm_90a) GEMM written with the tensor layer ([`crate::layer`]): TMA loads through
//! an mbarrier pipeline, `wgmma.mma_async` over shared-memory descriptors, warp specialization
//! and a persistent tile scheduler; one compiled kernel per configuration ([`Sm90Config`]:
//! types, operand majors, tile, epilogue), the problem's extents run-time values.
//!
//! Computes `D = alpha A B + beta C` with `A` `M x K` (K-major: row-major, or M-major:
//! column-major), `B` `K x N` (K-major: stored `N x K` row-major, or N-major: row-major `K x N`),
//! fp16 or bf16 ([`Element`]); `D` and `C` `M x N` row-major, fp32, fp16 or bf16 ([`Element`]);
//! accumulation in fp32. Any `M`, `N`, `K` >= 1; the leading dimensions and base addresses
//! TMA can address (16-byte pitches and alignment). `C = A * B^T` with both operands K-major
//! ("TN", as [`crate::gemm`]) is [`Sm90Plan::new`].
//!
//! Design (the kernel body is `kernels/cuda/gemm_sm90.cu`; the design choices and the
//! variants measured against them are in `docs/decisions.md`):
//! - a block of 384 threads computes 128 x `BN` tiles of D ([`Sm90Tile`]: 128 x 256 or
//!   128 x 128), one block per SM, looping over units of work: the tiles in a grouped order
//!   (the run-time [`crate::tiled::GroupedRaster`] of [`crate::tiled::raster_layout`], groups
//!   of [`RASTER_GROUP`]), each tile's k-tiles split in `splits` ranges when the caller asks
//!   for split-K (each unit's partial sums then go to an fp32 workspace, and the unit that
//!   finishes a tile last adds them and runs the epilogue: `blas::split`);
//! - warpgroup 0 is the producer: one thread loads each 64-wide k-tile of A and B with
//!   `cp.async.bulk.tensor` (one box per operand when it is K-major; one 64-wide box per 64
//!   rows of M or N when it is MN-major, the 128B swizzle spanning 64 elements) into a ring of
//!   stages, signalled by `full`/`empty` mbarriers (the layer's `tessel::sm90::Pipeline`); it
//!   gives up registers (`setmaxnreg.dec` to [`PRODUCER_REGS`]);
//! - warpgroups 1 and 2 are consumers (`setmaxnreg.inc` to [`CONSUMER_REGS`]): each owns 64
//!   rows of the tile and runs `tessel::gemm` of the tiled MMA (two `m64nBNk16` atoms along M)
//!   over the stage's descriptor tensors (each descriptor's major gives wgmma's transpose
//!   immediate), keeping one k-tile of wgmmas in flight, then scales its accumulators by alpha
//!   (adding beta C, read at each accumulator's place, when the configuration reads C) and
//!   writes them to D: through shared memory in chunks of 64 rows x 128 bytes (64 bytes for
//!   the 32-column tile of a 16-bit output) (`st.shared.v2` for fp32, its lanes taking the
//!   column pairs in a lane-dependent order, [`Sm90Plan::c_flip`]; `stmatrix` through a tiled
//!   copy for 16-bit outputs) into a buffer swizzled by the chunk's row width
//!   ([`Sm90Plan::c_smem`], proven conflict-free by the bank model) that a
//!   TMA store copies to D (clipping ragged `M`, `N`), two buffers per consumer; or, where TMA
//!   cannot address D, with predicated stores from the registers ([`Epilogue::Direct`]).
//!
//! 8-bit inputs (e4m3/e5m2 A and B in any mix, [`Sm90Config::input_b`], [`FP8_INPUTS`]) take the same body and
//! declarations: the element type sets the atom (`SM90_64xNx32_F32<A><B>_SS_TN`), the stages'
//! GMMA atom (`smem_atom(K, 128B, 8)`: 128 elements per 128-byte row, so a k-tile is
//! [`k_tile`] = 128 wide), the TMA boxes (`UINT8`) and the descriptors; wgmma reads 8-bit
//! operands K-major only (PTX ISA, `wgmma.mma_async`: the transposes are for `.f16`/`.bf16`),
//! so an MN-major 8-bit configuration is an error. Promotion (`k::PROMOTE`, 8-bit inputs only):
//! the tensor cores keep about 14 bits of the FP8 accumulation (DeepSeek-V3 Technical Report,
//! arXiv:2412.19437, section 3.3.2), so after each k-tile (4 wgmmas of k32, 128 products: the
//! interval of CUTLASS's non-"FastAccum" FP8 kernels, `mma_promotion_interval = 4`, and of
//! DeepGEMM) a consumer waits for its wgmmas, gives the stage back, adds the accumulators into
//! a separate fp32 fragment and starts the next k-tile's accumulation from zero. That costs
//! the one k-tile of wgmmas kept in flight by 16-bit inputs and a second fragment of
//! registers: 8-bit configurations use the 128 x 128 tile (64 + 64 registers per thread; 128 x
//! 256 would need 256).
//!
//! Every shared layout is a GMMA atom (`smem_atom(major, SwizzleMode::B128, 16)`) tiled over
//! the stages (MN-major ones K first, so that each 64-wide slice of MN is one TMA box).
//! [`Sm90Plan`] proves on the host that the TMA boxes write exactly those layouts
//! ([`crate::tma::TmaPlan`], every box of a stage); the tensor layer derives the wgmma
//! descriptors of every block of every stage with `gmma_descriptor` (each verified element by
//! element) and emits them as a tensor whose layout is the start address.
//!
//! Where things are: [`Sm90Plan`] (here) derives and proves the stages and boxes, its epilogue
//! (`epilogue.rs`) the chunks, their bank behaviour and the TMA store of D; `source.rs`
//! declares the kernel's tensors, copies, MMA and run-time values; [`run`] launches and
//! verifies the kernel next to cuBLAS.
//!
//! ```
//! use tessel_kernels::Element;
//! use tessel_kernels::hopper::Sm90Plan;
//! let plan = Sm90Plan::new(1000, 1000, 1000, Element::F16, Element::F32).unwrap();
//! assert_eq!(plan.kernel_name(), "gemm_sm90_tn_f16_f32_1000x1000x1000");
//! assert_eq!(plan.tiles(), 8 * 4);
//! let d = plan.desc_b()[1];
//! assert_eq!((d.start_address, d.leading_byte_offset, d.stride_byte_offset), (32, 16, 1024));
//! assert!(Sm90Plan::new(128, 256, 100, Element::F16, Element::F32).is_err()); // K % 8 != 0
//! // The kernel is the same for every shape of its configuration.
//! let other = Sm90Plan::new(4096, 512, 64, Element::F16, Element::F32).unwrap();
//! assert_eq!(plan.kernel().unwrap().source(), other.kernel().unwrap().source());
//! ```

mod epilogue;
pub mod run;
mod source;
mod types;

pub use source::{ARGS, Sm90Args};
pub use types::{
    Epilogue, FP8_INPUTS, INPUTS, OUTPUTS, Sm90Config, Sm90Tile, gmma_atom, gmma_atom_pair,
    input_pair, input_type, k_tile, output_code, output_type, promotes, wgmma_k,
};

use tessel_layout::atom::mma_atom;
use tessel_layout::gmma::{GmmaDescriptor, Major, SwizzleMode, smem_atom};
use tessel_layout::tiled::{TiledMma, make_tiled_mma};
use tessel_layout::{ComposedLayout, IntTuple, Layout};

use crate::element::{DeviceElement, Element};
use crate::error::{GpuError, GpuResult};
use crate::tiled::raster_layout;
use crate::tma::{TmaMatrix, TmaPlan};

/// The device body ([`Sm90Plan::kernel`] declares the tensors, copies and MMA it names).
///
/// ```
/// assert!(tessel_kernels::hopper::BODY.contains("tessel::gemm(mma, tCrA"));
/// ```
pub const BODY: &str = include_str!("../../cuda/gemm_sm90.cu");

/// Block tile rows (two consumer warpgroups of 64).
///
/// ```
/// assert_eq!(tessel_kernels::hopper::BM, 2 * 64);
/// ```
pub const BM: i64 = 128;
/// Block tile columns of the large tile (the N of one wgmma; [`Sm90Tile::bn`] in general).
///
/// ```
/// assert_eq!(tessel_kernels::hopper::BN, 256);
/// ```
pub const BN: i64 = 256;
/// K per stage of the 16-bit inputs: one 128-byte swizzled row of fp16/bf16 (8-bit inputs: 128,
/// [`k_tile`]).
///
/// ```
/// assert_eq!(tessel_kernels::hopper::BK * 2, 128);
/// ```
pub const BK: i64 = 64;
/// K per wgmma of the 16-bit inputs ([`wgmma_k`]: 32 for 8-bit ones).
///
/// ```
/// assert_eq!(tessel_kernels::hopper::BK / tessel_kernels::hopper::WGMMA_K, 4);
/// ```
pub const WGMMA_K: i64 = 16;
/// Consumer warpgroups.
///
/// ```
/// assert_eq!(tessel_kernels::hopper::CONSUMERS * 64, tessel_kernels::hopper::BM);
/// ```
pub const CONSUMERS: i64 = 2;

/// The largest dynamic shared memory a block may opt into on sm_90 (227 KiB; CUDA C++
/// Programming Guide, "Technical Specifications per Compute Capability", 12.x).
///
/// ```
/// assert_eq!(tessel_kernels::hopper::SMEM_LIMIT, 232448);
/// ```
pub const SMEM_LIMIT: i64 = 227 * 1024;

/// Most pipeline stages of a Hopper GEMM ([`Sm90Plan::stages`]).
pub const MAX_STAGES: i64 = 16;
/// Registers per thread of the producer warpgroup after `setmaxnreg.dec`.
///
/// ```
/// use tessel_kernels::hopper::{CONSUMER_REGS, CONSUMERS, PRODUCER_REGS};
/// // The register file of one SM (64K) holds all three warpgroups.
/// assert!(128 * (PRODUCER_REGS + CONSUMERS * CONSUMER_REGS) <= 65536);
/// ```
pub const PRODUCER_REGS: i64 = 40;
/// Registers per thread of a consumer warpgroup after `setmaxnreg.inc`.
///
/// ```
/// assert_eq!(tessel_kernels::hopper::CONSUMER_REGS % 8, 0); // setmaxnreg takes multiples of 8
/// ```
pub const CONSUMER_REGS: i64 = 232;
/// Tile groups of the raster (16 x 16 tiles: the 132 tiles of a wave cover about 16 tile rows
/// by 8 tile columns, 2048 rows of A and of B; faster than groups of 8 at 4096^3 in every type
/// pair, docs/performance.md).
///
/// ```
/// assert_eq!(tessel_kernels::hopper::RASTER_GROUP, 16);
/// ```
pub const RASTER_GROUP: i64 = 16;
/// Most epilogue buffers per consumer (chunk `ch` of a tile goes through buffer
/// `ch % c_bufs`, where a tile of fewer chunks has as many buffers as chunks:
/// [`Sm90Plan::c_bufs`]).
///
/// ```
/// assert_eq!(tessel_kernels::hopper::C_BUFS, 2);
/// ```
pub const C_BUFS: i64 = 2;
/// MN elements of one TMA box of an MN-major operand: the 128 bytes of a 128B-swizzled row.
///
/// ```
/// assert_eq!(tessel_kernels::hopper::MN_BOX * 2, 128);
/// ```
pub const MN_BOX: i64 = 64;

/// How one operand's stage is loaded: the TMA box (proven to write the stage's first `box_mn`
/// rows of MN), and how many boxes fill a stage (`boxes`, each `box_mn` rows of MN further
/// and `box_bytes` further in shared memory, proven for every element).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OperandLoad {
    /// The operand's contiguous mode.
    pub major: Major,
    /// The tensor map recipe of one box.
    pub tma: TmaPlan,
    /// Boxes per stage.
    pub boxes: i64,
    /// MN rows per box.
    pub box_mn: i64,
}

impl OperandLoad {
    /// Bytes of one box.
    pub fn box_bytes(&self) -> i64 {
        self.tma.box_bytes()
    }
}

/// Everything the Hopper kernel computes, derived and checked on the host: the configuration's
/// layouts, proofs and kernel, and one problem's shape (its tensor maps and tile order).
///
/// ```
/// use tessel_kernels::Element;
/// use tessel_kernels::hopper::Sm90Plan;
/// let p = Sm90Plan::new(128, 256, 64, Element::BF16, Element::BF16).unwrap();
/// assert_eq!((p.a_stage.layout().size(), p.b_stage.layout().size()), (128 * 64, 256 * 64));
/// assert_eq!(p.a_tma.box_layout().to_string(), "Sw<3,3,3> o (64,128):(1,64)");
/// assert_eq!(p.kernel().unwrap().launch().threads(), 384);
/// ```
#[derive(Clone, Debug)]
pub struct Sm90Plan {
    /// Rows of A and D.
    pub m: i64,
    /// Columns of B and D.
    pub n: i64,
    /// The reduction extent.
    pub k: i64,
    /// Input type.
    pub input: Element,
    /// Output type.
    pub output: Element,
    /// The compiled kernel's configuration.
    pub config: Sm90Config,
    /// One stage of A: a GMMA atom of A's major tiled over `(BM, BK)` (mode 0 M, mode 1 K).
    pub a_stage: ComposedLayout,
    /// One stage of B, tiled over `(BN, BK)`.
    pub b_stage: ComposedLayout,
    /// A's tensor map recipe (one box), proven to write its part of `a_stage`.
    pub a_tma: TmaPlan,
    /// B's tensor map recipe (one box).
    pub b_tma: TmaPlan,
    /// A's loads: the box and how many fill a stage.
    pub a_load: OperandLoad,
    /// B's loads.
    pub b_load: OperandLoad,
    /// Block tile order: iteration `i` of the persistent loop -> tile index `ty + TY * tx`.
    pub raster: Layout,
    /// Tile index -> first row.
    pub tile_m0: Layout,
    /// Tile index -> first column.
    pub tile_n0: Layout,
    /// The GMMA atom's C layout: (thread, value) -> `m + 64 n` in the 64 x BN tile.
    pub c_frag: Layout,
    /// D's row-major offsets `(M, N):(N, 1)`.
    pub g_c: Layout,
    /// How D is written: [`Epilogue::TmaStore`], or [`Epilogue::Direct`] where TMA cannot
    /// address D.
    pub epilogue: Epilogue,
    /// One epilogue chunk in shared memory: `smem_atom(K, 128B, bits)` tiled over
    /// `(64, C_COLS)` (mode 0 row, mode 1 column; 128-byte rows).
    pub c_smem: ComposedLayout,
    /// D's tensor map recipe (box `C_COLS x 64`), proven to read `c_smem`; `None` for the
    /// direct epilogue.
    pub c_tma: Option<TmaPlan>,
    /// The fp32 epilogue's pair order `(mask, bit)`: at step `u` (an even value index of the
    /// chunk) thread `t` stores its values `u ^ mask` and `u ^ mask + 1` when bit `bit` of `t`
    /// is set, `u` and `u + 1` otherwise. Chosen with the bank model ([`Sm90Plan::new`]:
    /// the first candidate whose stores are conflict-free); `(0, 0)` for 16-bit outputs and
    /// the direct epilogue.
    pub c_flip: (i64, i64),
    /// With a pair order, the element-offset XOR that takes the place of value `v` to that of
    /// value `v ^ mask` for every thread that flips (the kernel XORs the address instead of
    /// recomputing it); 0 without one.
    pub c_flip_xor: i64,
    /// The tiled MMA of the two consumers: two GMMA atoms (`m64nBNk16`, shared-memory
    /// operands) along M.
    pub mma: TiledMma,
}

/// `ceil(x / d)` for positive `x` and `d`.
fn ceil_div(x: i64, d: i64) -> i64 {
    (x + d - 1) / d
}

/// The matrix a tensor map of an operand describes: `mn x k` elements, `ld` apart along the
/// non-contiguous mode (K-major: rows of K; MN-major: rows of MN).
fn operand_matrix(major: Major, mn: i64, k: i64, ld: i64, input: Element) -> TmaMatrix {
    let (rows, cols) = match major {
        Major::K => (mn, k),
        Major::MN => (k, mn),
    };
    TmaMatrix {
        rows,
        cols,
        ld,
        elem: input,
    }
}

impl Sm90Plan {
    /// Bytes between the start addresses of consecutive k-blocks (16 fp16/bf16 elements)
    /// inside a 128-byte swizzled row.
    ///
    /// ```
    /// assert_eq!(tessel_kernels::hopper::Sm90Plan::K_STEP_BYTES, 32);
    /// ```
    pub const K_STEP_BYTES: i64 = 32;

    /// The plan of `C (M x N) = A (M x K) * B^T (N x K)`, both operands K-major with leading
    /// dimension `K`, `C` with leading dimension `N` (written by TMA where its rows are a
    /// multiple of 16 bytes, else by the direct epilogue). Errors: `M` or `N` outside
    /// `1..2^31`, `K` not a positive multiple of 8 below `2^31`, or any layout check failing.
    ///
    /// ```
    /// use tessel_kernels::Element;
    /// use tessel_kernels::hopper::{Epilogue, Sm90Plan};
    /// let err = Sm90Plan::new(64, 64, 12, Element::F16, Element::F32).unwrap_err();
    /// assert!(err.to_string().contains("multiple of 8"), "{err}");
    /// assert!(Sm90Plan::new(129, 257, 72, Element::BF16, Element::F16).is_ok());
    /// // N = 257 fp32 columns are 1028-byte rows: TMA cannot store them, the plan falls back.
    /// let p = Sm90Plan::new(256, 257, 64, Element::F16, Element::F32).unwrap();
    /// assert_eq!((p.epilogue, p.c_tma.is_none()), (Epilogue::Direct, true));
    /// ```
    pub fn new(m: i64, n: i64, k: i64, input: Element, output: Element) -> GpuResult<Sm90Plan> {
        let (input, output) = (input_type(input)?, output_type(output)?);
        let limit = 1i64 << 31;
        for (name, v) in [("M", m), ("N", n), ("K", k)] {
            if !(1..limit).contains(&v) {
                return Err(GpuError::InvalidArgument(format!(
                    "Hopper GEMM: {name} = {v} is outside 1..2^31"
                )));
            }
        }
        let per_16_bytes = 128 / input.bits();
        if k % per_16_bytes != 0 {
            return Err(GpuError::InvalidArgument(format!(
                "Hopper GEMM: K = {k} must be a multiple of {per_16_bytes} (TMA needs rows of A \
                 and B of {input} at 16-byte pitches)"
            )));
        }
        let epilogue = if (n * output.bytes()) % 16 == 0 {
            Epilogue::TmaStore
        } else {
            Epilogue::Direct
        };
        let config = Sm90Config {
            epilogue,
            ..Sm90Config::tn(input, output)
        };
        Self::with_shape(m, n, k, [k, k, n], config)
    }

    /// The plan of configuration `config` for its kernel alone: a one-tile problem stands for
    /// every shape (the kernel does not depend on it; a call's tensor maps come from
    /// [`TmaPlan::for_matrix`] of the boxes proven here).
    ///
    /// ```
    /// use tessel_kernels::Element;
    /// use tessel_kernels::hopper::{Sm90Config, Sm90Plan};
    /// use tessel_layout::gmma::Major;
    /// let c = Sm90Config { a_major: Major::MN, b_major: Major::MN, ..Sm90Config::tn(Element::F16, Element::F32) };
    /// let p = Sm90Plan::for_config(c).unwrap();
    /// // M-major A: two 64-row boxes per 128-row stage; N-major B: four.
    /// assert_eq!((p.a_load.boxes, p.b_load.boxes), (2, 4));
    /// assert_eq!(p.kernel().unwrap().name(), "gemm_sm90_am_bn_f16_f32_128x256_tma");
    /// ```
    pub fn for_config(config: Sm90Config) -> GpuResult<Sm90Plan> {
        let bn = config.tile.bn();
        let bk = k_tile(config.input);
        let ld = |major: Major, mn: i64| if major == Major::K { bk } else { mn };
        Self::with_shape(
            BM,
            bn,
            bk,
            [ld(config.a_major, BM), ld(config.b_major, bn), bn],
            config,
        )
    }

    /// The plan of configuration `config` for an `m x n x k` problem whose A, B and D have the
    /// leading dimensions `ld` (elements between rows of A, B, D as stored: K-major A has rows
    /// of K, M-major A rows of M, and so on).
    pub fn with_shape(
        m: i64,
        n: i64,
        k: i64,
        ld: [i64; 3],
        config: Sm90Config,
    ) -> GpuResult<Sm90Plan> {
        let (input, input_b) = input_pair(config.input, config.input_b)?;
        let output = output_type(config.output)?;
        let bn = config.tile.bn();
        let bk = k_tile(input);
        if promotes(input) && (config.a_major, config.b_major) != (Major::K, Major::K) {
            return Err(GpuError::InvalidArgument(format!(
                "{}: 8-bit inputs need K-major A and B (wgmma transposes only 16-bit operands, \
                 PTX ISA \"wgmma.mma_async\": imm-trans-a/b are for .f16/.bf16)",
                config.kernel_name()
            )));
        }
        let a_stage = Self::stage_layout(config.a_major, input, &[BM, bk])?;
        let b_stage = Self::stage_layout(config.b_major, input_b, &[bn, bk])?;
        let a_load = Self::operand_load(
            &a_stage,
            operand_matrix(config.a_major, m, k, ld[0], input),
            config.a_major,
            bk,
        )?;
        let b_load = Self::operand_load(
            &b_stage,
            operand_matrix(config.b_major, n, k, ld[1], input_b),
            config.b_major,
            bk,
        )?;
        let gmma = mma_atom(&gmma_atom_pair(config.input, config.input_b, bn)?)?;
        let c_frag = gmma.c_layout().clone();
        let mma = make_tiled_mma(&gmma, &"(2,1,1):(1,0,0)".parse()?, &[])?;
        let (ty, tx) = (ceil_div(m, BM), ceil_div(n, bn));
        let c_smem = smem_atom(Major::K, Self::c_swizzle(output, bn), 8 * output.bytes())?
            .tile_to_shape(&IntTuple::from_ints([64, Self::c_cols(output, bn)]))?;
        let c_tma = match config.epilogue {
            Epilogue::TmaStore => {
                let t = Self::c_store_tma((m, n, ld[2]), bn, output, &c_smem)?;
                Some(t.ok_or_else(|| {
                    GpuError::InvalidArgument(format!(
                        "{}: TMA cannot store D ({n} columns, leading dimension {} of {output}: \
                         rows must be a multiple of 16 bytes); use the direct epilogue",
                        config.kernel_name(),
                        ld[2]
                    ))
                })?)
            }
            Epilogue::Direct => None,
        };
        let mut plan = Sm90Plan {
            m,
            n,
            k,
            input,
            output,
            config,
            a_tma: a_load.tma.clone(),
            b_tma: b_load.tma.clone(),
            a_stage,
            b_stage,
            a_load,
            b_load,
            raster: raster_layout(ty, tx, RASTER_GROUP)?,
            tile_m0: Layout::new(IntTuple::from_ints([ty, tx]), IntTuple::from_ints([BM, 0]))?,
            tile_n0: Layout::new(IntTuple::from_ints([ty, tx]), IntTuple::from_ints([0, bn]))?,
            c_frag,
            g_c: Layout::new(IntTuple::from_ints([m, n]), IntTuple::from_ints([ld[2], 1]))?,
            epilogue: config.epilogue,
            c_smem,
            c_tma,
            c_flip: (0, 0),
            c_flip_xor: 0,
            mma,
        };
        plan.check_c_frag()?;
        (plan.c_flip, plan.c_flip_xor) = plan.choose_c_flip()?;
        plan.check_c_chunks()?;
        Ok(plan)
    }

    /// Columns of the tile (`BN` of its configuration).
    ///
    /// ```
    /// use tessel_kernels::Element;
    /// use tessel_kernels::hopper::Sm90Plan;
    /// assert_eq!(Sm90Plan::new(8, 8, 8, Element::F16, Element::F32).unwrap().bn(), 256);
    /// ```
    pub fn bn(&self) -> i64 {
        self.config.tile.bn()
    }

    /// K of one stage ([`k_tile`]: 64 for 16-bit inputs, 128 for 8-bit ones).
    ///
    /// ```
    /// use tessel_kernels::{Element, hopper::{Sm90Config, Sm90Plan, Sm90Tile}};
    /// let c = Sm90Config { tile: Sm90Tile::T128x128, ..Sm90Config::tn(Element::E4M3, Element::BF16) };
    /// assert_eq!(Sm90Plan::for_config(c).unwrap().bk(), 128);
    /// ```
    pub fn bk(&self) -> i64 {
        k_tile(self.input)
    }

    /// Pipeline stages: as many as [`SMEM_LIMIT`] holds beside the epilogue's buffers, the
    /// alignment and the two barriers of each stage (the memory [`Sm90Plan::smem_bytes`]
    /// counts), at most [`MAX_STAGES`].
    ///
    /// ```
    /// use tessel_kernels::Element;
    /// use tessel_kernels::hopper::{Epilogue, SMEM_LIMIT, Sm90Config, Sm90Plan, Sm90Tile};
    /// let stages = |tile, epilogue| {
    ///     let c = Sm90Config { tile, epilogue, ..Sm90Config::tn(Element::F16, Element::F32) };
    ///     Sm90Plan::for_config(c).unwrap().stages()
    /// };
    /// // 48 KiB stages and 32 KiB of epilogue buffers: 4; without the buffers still 4.
    /// assert_eq!(stages(Sm90Tile::T128x256, Epilogue::TmaStore), 4);
    /// assert_eq!(stages(Sm90Tile::T128x256, Epilogue::Direct), 4);
    /// assert_eq!(stages(Sm90Tile::T128x128, Epilogue::TmaStore), 6);
    /// assert_eq!(stages(Sm90Tile::T128x64, Epilogue::TmaStore), 8);
    /// // 16 + 4 KiB stages and no buffers: 11 (221 KiB).
    /// assert_eq!(stages(Sm90Tile::T128x32, Epilogue::Direct), 11);
    /// let c = Sm90Config { tile: Sm90Tile::T128x32, epilogue: Epilogue::Direct, ..Sm90Config::tn(Element::F16, Element::F32) };
    /// assert!(Sm90Plan::for_config(c).unwrap().smem_bytes() <= SMEM_LIMIT);
    /// ```
    pub fn stages(&self) -> i64 {
        let fixed = CONSUMERS * self.c_bufs() * self.c_buf_bytes() + 1024;
        ((SMEM_LIMIT - fixed) / (self.stage_bytes() + 16)).min(MAX_STAGES)
    }

    /// A stage (`shape`: MN, K and optionally the stage count) of an operand of `major`: the
    /// 128B GMMA atom tiled over it, K first for MN-major operands (each 64-wide slice of MN
    /// one contiguous block, the TMA box).
    fn stage_layout(major: Major, input: Element, shape: &[i64]) -> GpuResult<ComposedLayout> {
        let atom = smem_atom(major, SwizzleMode::B128, input.bits())?;
        let shape = IntTuple::from_ints(shape.iter().copied());
        Ok(match major {
            Major::K => atom.tile_to_shape(&shape)?,
            Major::MN => {
                let order: Vec<i64> = (0..shape.rank() as i64)
                    .map(|i| match i {
                        0 => 1,
                        1 => 0,
                        i => i,
                    })
                    .collect();
                atom.tile_to_shape_ordered(&shape, &IntTuple::from_ints(order))?
            }
        })
    }

    /// The loads of an operand's stage (`stage`: `(MN, BK)`) from `matrix`: one box for a
    /// K-major operand (`BK` x MN, innermost K), `MN / MN_BOX` boxes for an MN-major one
    /// (`MN_BOX` x `BK`, innermost MN); box 0 is proven to write the stage's first rows
    /// ([`TmaPlan::new`]) and box `j` to write rows `j MN_BOX ..` at `j` box sizes further,
    /// element by element.
    fn operand_load(
        stage: &ComposedLayout,
        matrix: TmaMatrix,
        major: Major,
        bk: i64,
    ) -> GpuResult<OperandLoad> {
        let mn = stage.layout().mode(0)?.size();
        let (box_mn, box_dims) = match major {
            Major::K => (mn, [bk, mn]),
            Major::MN => (MN_BOX, [MN_BOX, bk]),
        };
        let part = stage.compose(&Layout::new(
            IntTuple::from_ints([box_mn, bk]),
            IntTuple::from_ints([1, mn]),
        )?)?;
        let tma = TmaPlan::new(matrix, box_dims, SwizzleMode::B128, &part, major)?;
        let boxes = mn / box_mn;
        let box_elems = box_mn * bk;
        for j in 1..boxes {
            for kk in 0..bk {
                for r in 0..box_mn {
                    let first = stage.offset(r + mn * kk)?;
                    let here = stage.offset(j * box_mn + r + mn * kk)?;
                    if here != first + j * box_elems {
                        return Err(GpuError::InvalidArgument(format!(
                            "the stage {stage}: element ({}, {kk}) of box {j} is at {here}, \
                             not {} box sizes after box 0's ({first})",
                            j * box_mn + r,
                            j
                        )));
                    }
                }
            }
        }
        Ok(OperandLoad {
            major,
            tma,
            boxes,
            box_mn,
        })
    }

    /// The stages of A (`(BM, BK, STAGES)`) as the tensor layer's shared tensor.
    pub(crate) fn a_stages(&self) -> GpuResult<ComposedLayout> {
        Self::stage_layout(
            self.config.a_major,
            self.input,
            &[BM, self.bk(), self.stages()],
        )
    }

    /// The stages of B (`(BN, BK, STAGES)`).
    pub(crate) fn b_stages(&self) -> GpuResult<ComposedLayout> {
        Self::stage_layout(
            self.config.b_major,
            self.input,
            &[self.bn(), self.bk(), self.stages()],
        )
    }

    /// The descriptors of an operand's blocks: consumer `c`, k-block `kb` of stage 0 at index
    /// `KB c + kb` (A) or `kb` (B), start addresses relative to the stages.
    fn descriptors_of(&self, op: char) -> GpuResult<Vec<GmmaDescriptor>> {
        let mma = crate::layer::DeviceMma::new("wgmma", self.mma.clone());
        let (a, b) = (self.config.input, self.config.input_b);
        let (stages, elem) = match op {
            'A' => (self.a_stages()?, a.c_type()),
            _ => (self.b_stages()?, b.c_type()),
        };
        let t = mma.partition_descriptors(op, &crate::layer::DeviceTensor::shared(elem, stages))?;
        let crate::layer::Space::Descriptor(base) = t.space() else {
            return Err(GpuError::InvalidArgument(
                "internal: not a descriptor tensor".into(),
            ));
        };
        let consumers = if op == 'A' { CONSUMERS } else { 1 };
        let mut out = Vec::new();
        for c in 0..consumers {
            for kb in 0..self.bk() / wgmma_k(self.input) {
                // Thread 128 c, the one atom call per k-block, stage 0.
                let units = t.layout().offset(128 * c + 256 * kb)?;
                out.push(GmmaDescriptor {
                    start_address: 16 * units,
                    ..base.fields
                });
            }
        }
        Ok(out)
    }

    /// The descriptors of A's operands: consumer `c`, k-block `kb` at index `4 c + kb`, start
    /// addresses relative to the stage.
    ///
    /// ```
    /// use tessel_kernels::Element;
    /// use tessel_kernels::hopper::Sm90Plan;
    /// let p = Sm90Plan::new(128, 256, 64, Element::F16, Element::F32).unwrap();
    /// assert_eq!(p.desc_a()[4].start_address, Sm90Plan::A_WG_BYTES);
    /// assert_eq!(p.desc_a()[1].start_address, Sm90Plan::K_STEP_BYTES);
    /// ```
    pub fn desc_a(&self) -> Vec<GmmaDescriptor> {
        self.descriptors_of('A').unwrap_or_default()
    }

    /// The descriptors of B's operands, one per k-block.
    ///
    /// ```
    /// use tessel_kernels::Element;
    /// use tessel_kernels::hopper::Sm90Plan;
    /// let p = Sm90Plan::new(128, 256, 64, Element::F16, Element::F32).unwrap();
    /// assert_eq!(p.desc_b().len(), 4);
    /// ```
    pub fn desc_b(&self) -> Vec<GmmaDescriptor> {
        self.descriptors_of('B').unwrap_or_default()
    }

    /// The constant fields of a descriptor (start address 0) as their 64-bit encoding.
    ///
    /// ```
    /// use tessel_kernels::Element;
    /// use tessel_kernels::hopper::Sm90Plan;
    /// let p = Sm90Plan::new(128, 256, 64, Element::F16, Element::F32).unwrap();
    /// // 128B swizzle (1 << 62), SBO 1024 >> 4 = 64 (bits 32-45), LBO 16 >> 4 = 1 (bits 16-29).
    /// assert_eq!(Sm90Plan::desc_bits(&p.desc_a()[0]).unwrap(), 1 << 62 | 64 << 32 | 1 << 16);
    /// ```
    pub fn desc_bits(d: &GmmaDescriptor) -> GpuResult<u64> {
        Ok(GmmaDescriptor {
            start_address: 0,
            ..*d
        }
        .encode()?)
    }

    /// `gemm_sm90_tn_{in}_{out}_{M}x{N}x{K}`.
    ///
    /// ```
    /// use tessel_kernels::Element;
    /// use tessel_kernels::hopper::Sm90Plan;
    /// let p = Sm90Plan::new(128, 256, 64, Element::BF16, Element::F16).unwrap();
    /// assert_eq!(p.kernel_name(), "gemm_sm90_tn_bf16_f16_128x256x64");
    /// ```
    pub fn kernel_name(&self) -> String {
        format!(
            "gemm_sm90_tn_{}_{}_{}x{}x{}",
            self.input, self.output, self.m, self.n, self.k
        )
    }

    /// Output tiles ([`BM`] x [`Sm90Plan::bn`]).
    ///
    /// ```
    /// use tessel_kernels::Element;
    /// use tessel_kernels::hopper::Sm90Plan;
    /// assert_eq!(Sm90Plan::new(4096, 4096, 64, Element::F16, Element::F32).unwrap().tiles(), 512);
    /// ```
    pub fn tiles(&self) -> i64 {
        ceil_div(self.m, BM) * ceil_div(self.n, self.bn())
    }

    /// k-tiles ([`Sm90Plan::bk`] wide; the last one zero-filled past K by TMA).
    ///
    /// ```
    /// use tessel_kernels::Element;
    /// use tessel_kernels::hopper::Sm90Plan;
    /// assert_eq!(Sm90Plan::new(128, 256, 72, Element::F16, Element::F32).unwrap().k_tiles(), 2);
    /// ```
    pub fn k_tiles(&self) -> i64 {
        ceil_div(self.k, self.bk())
    }

    /// Bytes one stage receives (A's boxes and B's): the transaction count of its `full`
    /// barrier.
    ///
    /// ```
    /// use tessel_kernels::Element;
    /// use tessel_kernels::hopper::Sm90Plan;
    /// assert_eq!(Sm90Plan::new(8, 8, 8, Element::F16, Element::F32).unwrap().stage_bytes(), 48 * 1024);
    /// ```
    pub fn stage_bytes(&self) -> i64 {
        self.a_load.boxes * self.a_load.box_bytes() + self.b_load.boxes * self.b_load.box_bytes()
    }

    /// Dynamic shared memory: the stages, the epilogue buffers, 1 KiB to align them to the
    /// swizzle's repeat, and the `full` and `empty` barriers.
    ///
    /// ```
    /// use tessel_kernels::Element;
    /// use tessel_kernels::hopper::Sm90Plan;
    /// let p = Sm90Plan::new(8, 8, 8, Element::F16, Element::F32).unwrap();
    /// assert_eq!(p.smem_bytes(), 4 * 49152 + 4 * 8192 + 1024 + 64);
    /// let d = Sm90Plan::new(8, 7, 8, Element::F16, Element::F32).unwrap(); // direct stores
    /// assert_eq!(d.smem_bytes(), 4 * 49152 + 1024 + 64);
    /// ```
    pub fn smem_bytes(&self) -> i64 {
        self.stages() * self.stage_bytes()
            + CONSUMERS * self.c_bufs() * self.c_buf_bytes()
            + 1024
            + 2 * self.stages() * 8
    }

    /// Bytes of one epilogue buffer (64 rows of 128 bytes; 0 for the direct epilogue). Each
    /// consumer has [`Sm90Plan::c_bufs`].
    ///
    /// ```
    /// use tessel_kernels::Element;
    /// use tessel_kernels::hopper::Sm90Plan;
    /// let p = Sm90Plan::new(4096, 4096, 64, Element::F16, Element::F32).unwrap();
    /// assert_eq!(p.c_buf_bytes(), 8192);
    /// assert!(p.smem_bytes() <= 227 * 1024); // the H100's opt-in limit per block
    /// ```
    pub fn c_buf_bytes(&self) -> i64 {
        match self.epilogue {
            Epilogue::Direct => 0,
            Epilogue::TmaStore => 64 * 128,
        }
    }

    /// Floating-point operations (`2 M N K`).
    ///
    /// ```
    /// use tessel_kernels::Element;
    /// use tessel_kernels::hopper::Sm90Plan;
    /// assert_eq!(Sm90Plan::new(2, 3, 8, Element::F16, Element::F32).unwrap().flops(), 96.0);
    /// ```
    pub fn flops(&self) -> f64 {
        2.0 * self.m as f64 * self.n as f64 * self.k as f64
    }
}
