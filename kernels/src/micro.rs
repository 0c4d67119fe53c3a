//! Bank-conflict microkernels: one warp, a 32x32 fp32 tile, one read pattern.
//!
//! ```
//! use tessel_kernels::micro::{MicroKind, MicroPlan};
//! // Padding and swizzling both remove the column read's 31 excess wavefronts.
//! for kind in [MicroKind::ColumnPadded, MicroKind::ColumnSwizzled] {
//!     let p = MicroPlan::new(kind).unwrap().predict(1).unwrap();
//!     assert_eq!((p.loads.wavefronts, p.loads.ideal), (1, 1));
//! }
//! ```

use std::fmt;

use tessel_layout::atom::copy_atom;
use tessel_layout::bank::{BankReport, OpKind, SmemOp, SmemTraffic, analyze_indices};
use tessel_layout::tiled::TiledCopy;
use tessel_layout::{ComposedLayout, Error, Layout, Result, Swizzle};

use cudarc::driver::CudaSlice;

use crate::device::Gpu;
use crate::emit::{offset2, storage};
use crate::error::{GpuError, GpuResult};
use crate::kernel::{Arg, CType, Kernel, KernelBuilder, Loaded, Param, Scalar, expect_bits};
use crate::layer::{DeviceCopy, DeviceTensor};

/// The device body of the microkernels: the fill through the tile tensor, then the access
/// through a tiled copy and its partition of the tile.
///
/// ```
/// use tessel_kernels::micro::BODY;
/// for piece in ["tensor::tile", "tensor::sA", "copy::access", "k::STORE", "k::SMEM_SIZE"] {
///     assert!(BODY.contains(piece), "{piece}");
/// }
/// assert!(!BODY.contains("layout::"));
/// ```
pub const BODY: &str = include_str!("../cuda/conflicts.cu");

/// Which microkernel.
///
/// ```
/// use tessel_kernels::micro::MicroKind;
/// assert_eq!(MicroKind::Vec128.to_string(), "conflict_vec128_f32");
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum MicroKind {
    /// Column read of a row-major tile: all 32 lanes in one bank (32-way conflict).
    Column,
    /// Column read of a tile padded to a pitch of 33 words: conflict-free.
    ColumnPadded,
    /// Column read of the tile swizzled by `Sw<5,0,5>`: conflict-free.
    ColumnSwizzled,
    /// 128-bit loads of 512 contiguous bytes: 4 wavefronts, the ideal.
    Vec128,
    /// 128-bit loads, one row per lane: the 32 vectors share 4 banks (8x the ideal).
    Vec128Strided,
    /// One entry of [`PATTERNS`]: a vector read (and, for a store pattern, first a vector
    /// store) at word offsets given lane by lane.
    Pattern(usize),
}

/// A single-instruction access pattern of a microkernel: lane `l` reads (a store pattern first
/// writes, then reads back) the `bits / 32` words starting at word `lanes(l)` of a 1024-word
/// shared buffer.
///
/// ```
/// use tessel_kernels::micro::PATTERNS;
/// let docs = PATTERNS.iter().find(|p| p.name == "conflict_p128_docs").unwrap();
/// assert_eq!((docs.bits, docs.lanes), (128, "(2,4,2,2):(32,4,16,64)"));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Pattern {
    /// Kernel name.
    pub name: &'static str,
    /// Vector width in bits: 32, 64 or 128.
    pub bits: i64,
    /// Whether the kernel first stores the vectors (an `sts`) and then reads them back.
    pub store: bool,
    /// Layout from the lane (32 lanes) to the word offset `32 r + c` of its vector's first
    /// word in the row-major tile (before `smem`'s swizzle, if any).
    pub lanes: &'static str,
    /// The 32x32 row-major word tile, possibly swizzled.
    pub smem: &'static str,
}

/// The plain row-major tile of the patterns.
pub const ROW_MAJOR_TILE: &str = "(32,32):(32,1)";

const fn pat(name: &'static str, bits: i64, store: bool, lanes: &'static str) -> Pattern {
    Pattern {
        name,
        bits,
        store,
        lanes,
        smem: ROW_MAJOR_TILE,
    }
}

/// The vector patterns that separate the candidate rules for 64- and 128-bit accesses
/// (`docs/bank-model.md`, "Evidence for wide accesses"). Word offsets; a 128-bit chunk is 4
/// words, a 64-bit unit 2.
///
/// ```
/// use tessel_kernels::micro::{MicroKind, MicroPlan, PATTERNS};
/// for i in 0..PATTERNS.len() {
///     MicroPlan::new(MicroKind::Pattern(i)).unwrap();
/// }
/// ```
pub const PATTERNS: [Pattern; 47] = [
    // 128-bit loads.
    pat("conflict_p128_docs", 128, false, "(2,4,2,2):(32,4,16,64)"),
    pat("conflict_p128_a_warptiled", 128, false, "(8,4):(4,0)"),
    pat("conflict_p128_b_warptiled", 128, false, "(8,4):(0,4)"),
    pat("conflict_p128_a_vectorized", 128, false, "(16,2):(0,8)"),
    pat("conflict_p128_b_vectorized", 128, false, "(16,2):(8,0)"),
    pat("conflict_p128_same", 128, false, "32:0"),
    pat("conflict_p128_mod4", 128, false, "(4,8):(4,0)"),
    pat("conflict_p128_mod16", 128, false, "(16,2):(4,0)"),
    pat("conflict_p128_div2", 128, false, "(2,16):(0,4)"),
    pat("conflict_p128_div4", 128, false, "(4,8):(0,4)"),
    pat("conflict_p128_div16", 128, false, "(16,2):(0,4)"),
    pat("conflict_p128_stride2", 128, false, "32:8"),
    pat("conflict_p128_halfsame", 128, false, "(8,2,2):(4,0,32)"),
    pat("conflict_p128_qalt", 128, false, "(8,2,2):(0,4,0)"),
    pat("conflict_p128_a_conflict", 128, false, "(8,4):(32,0)"),
    pat("conflict_p128_b_conflict", 128, false, "(8,4):(0,32)"),
    pat("conflict_p128_mod2", 128, false, "(2,16):(4,0)"),
    pat(
        "conflict_p128_merge_conflict",
        128,
        false,
        "(4,2,2,2):(0,32,4,0)",
    ),
    pat("conflict_p128_pair_conflict", 128, false, "(2,16):(32,0)"),
    pat("conflict_p128_mod2x", 128, false, "(2,2,8):(4,0,0)"),
    // 64-bit loads.
    pat("conflict_p64_contig", 64, false, "32:2"),
    pat("conflict_p64_same", 64, false, "32:0"),
    pat("conflict_p64_mod16", 64, false, "(16,2):(2,0)"),
    pat("conflict_p64_mod8", 64, false, "(8,4):(2,0)"),
    pat("conflict_p64_div2", 64, false, "(2,16):(0,2)"),
    pat("conflict_p64_div8", 64, false, "(8,4):(0,2)"),
    pat("conflict_p64_div16", 64, false, "(16,2):(0,2)"),
    pat("conflict_p64_s32b_mod16", 64, false, "(16,2):(8,0)"),
    pat("conflict_p64_s32b", 64, false, "32:8"),
    pat("conflict_p64_docs", 64, false, "(2,8,2):(32,2,16)"),
    pat("conflict_p64_a_conflict", 64, false, "(16,2):(32,0)"),
    pat("conflict_p64_qdup", 64, false, "(8,2,2):(2,0,16)"),
    pat("conflict_p64_qalt", 64, false, "(8,2,2):(0,2,0)"),
    pat("conflict_p64_mod2", 64, false, "(2,16):(2,0)"),
    pat("conflict_p64_mod4", 64, false, "(4,8):(2,0)"),
    pat("conflict_p64_merge_conflict", 64, false, "(8,2,2):(0,32,2)"),
    pat("conflict_p64_pair_conflict", 64, false, "(2,16):(32,0)"),
    // 32-bit loads with broadcasts.
    pat("conflict_p32_mod8", 32, false, "(8,4):(1,0)"),
    pat("conflict_p32_div8", 32, false, "(8,4):(0,1)"),
    // Stores (distinct addresses), each read back with the same pattern.
    pat("conflict_s128_contig", 128, true, "32:4"),
    pat("conflict_s128_docs", 128, true, "(2,4,2,2):(32,4,16,64)"),
    pat("conflict_s128_qconflict", 128, true, "(8,4):(32,4)"),
    pat("conflict_s128_stride2", 128, true, "32:8"),
    pat("conflict_s64_docs", 64, true, "(2,8,2):(32,2,16)"),
    pat("conflict_s64_contig", 64, true, "32:2"),
    // The fp32 epilogue store of the Hopper GEMM with the same pair order in every lane
    // (kernels/src/hopper/epilogue.rs, `pair_order: false`; `st.shared.v2` into the 128-byte
    // swizzled C buffer): lane l writes row l / 4, columns 2 (l % 4) + 0..1.
    Pattern {
        name: "conflict_p64_epilogue_sm90",
        bits: 64,
        store: false,
        lanes: "(4,8):(2,32)",
        smem: "Sw<3,2,3> o (32,32):(32,1)",
    },
    Pattern {
        name: "conflict_s64_epilogue_sm90",
        bits: 64,
        store: true,
        lanes: "(4,8):(2,32)",
        smem: "Sw<3,2,3> o (32,32):(32,1)",
    },
];

impl MicroKind {
    /// All microkernels.
    ///
    /// ```
    /// use tessel_kernels::micro::MicroKind;
    /// let names: std::collections::BTreeSet<_> = MicroKind::ALL.iter().map(|k| k.name()).collect();
    /// assert_eq!(names.len(), 5);
    /// ```
    pub const ALL: [MicroKind; 5] = [
        MicroKind::Column,
        MicroKind::ColumnPadded,
        MicroKind::ColumnSwizzled,
        MicroKind::Vec128,
        MicroKind::Vec128Strided,
    ];

    /// Kernel name.
    ///
    /// ```
    /// use tessel_kernels::micro::MicroKind;
    /// assert_eq!(MicroKind::ColumnSwizzled.name(), "conflict_column_swizzled_f32");
    /// ```
    pub fn name(self) -> &'static str {
        match self {
            MicroKind::Column => "conflict_column_f32",
            MicroKind::ColumnPadded => "conflict_column_padded_f32",
            MicroKind::ColumnSwizzled => "conflict_column_swizzled_f32",
            MicroKind::Vec128 => "conflict_vec128_f32",
            MicroKind::Vec128Strided => "conflict_vec128_strided_f32",
            MicroKind::Pattern(i) => PATTERNS
                .get(i)
                .map_or("conflict_pattern_unknown", |p| p.name),
        }
    }

    /// The five named microkernels followed by every [`PATTERNS`] entry.
    ///
    /// ```
    /// use tessel_kernels::micro::{MicroKind, PATTERNS};
    /// assert_eq!(MicroKind::with_patterns().len(), 5 + PATTERNS.len());
    /// ```
    pub fn with_patterns() -> Vec<MicroKind> {
        let mut all = MicroKind::ALL.to_vec();
        all.extend((0..PATTERNS.len()).map(MicroKind::Pattern));
        all
    }
}

impl fmt::Display for MicroKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// The layouts of one microkernel.
///
/// ```
/// use tessel_kernels::micro::{MicroKind, MicroPlan};
/// let p = MicroPlan::new(MicroKind::Vec128).unwrap();
/// assert_eq!((p.vw, p.access.size()), (4, 256)); // 32 lanes x 8 steps of 4 words
/// assert_eq!(p.smem.to_string(), "(32,32):(32,1)");
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MicroPlan {
    /// Which one.
    pub kind: MicroKind,
    /// The 32x32 tile `(r,c) -> word offset`.
    pub smem: ComposedLayout,
    /// `(lane, step) -> r + 32 * c` of the first element each lane reads.
    pub access: Layout,
    /// Words per read (1, 2 or 4).
    pub vw: i64,
    /// Whether the access is first a store (a [`Pattern`] with `store`).
    pub store: bool,
    /// Tile-index step between the elements of one vector (32: along a row).
    pub vec_step: i64,
}

impl MicroPlan {
    /// The plan of `kind`.
    ///
    /// ```
    /// use tessel_kernels::micro::{MicroKind, MicroPlan};
    /// let p = MicroPlan::new(MicroKind::Column).unwrap();
    /// let pred = p.predict(1).unwrap();
    /// assert_eq!((pred.loads.wavefronts, pred.loads.ideal), (32, 1));
    /// let p = MicroPlan::new(MicroKind::ColumnSwizzled).unwrap();
    /// assert_eq!(p.predict(1).unwrap().loads.wavefronts, 1);
    /// ```
    pub fn new(kind: MicroKind) -> Result<MicroPlan> {
        let row_major: Layout = "(32,32):(32,1)".parse()?;
        let column: Layout = "(32,32):(1,32)".parse()?;
        let (smem, access, vw) = match kind {
            MicroKind::Column => (ComposedLayout::from_layout(row_major), column, 1),
            MicroKind::ColumnPadded => (
                ComposedLayout::from_layout("(32,32):(33,1)".parse()?),
                column,
                1,
            ),
            MicroKind::ColumnSwizzled => (
                ComposedLayout::new(vec![Swizzle::new(5, 0, 5)?], 0, row_major),
                column,
                1,
            ),
            MicroKind::Vec128 => (
                ComposedLayout::from_layout(row_major),
                "((8,4),8):((128,1),4)".parse()?,
                4,
            ),
            MicroKind::Vec128Strided => (
                ComposedLayout::from_layout(row_major),
                "(32,8):(1,128)".parse()?,
                4,
            ),
            MicroKind::Pattern(i) => {
                let p = PATTERNS.get(i).ok_or_else(|| {
                    Error::invalid(format!(
                        "no microkernel pattern {i}: there are {}",
                        PATTERNS.len()
                    ))
                })?;
                // Word offset 32 r + c -> tile index r + 32 c, composed with the lanes' words.
                let to_index: Layout = "(32,32):(32,1)".parse()?;
                let lanes = tessel_layout::composition(&to_index, &p.lanes.parse()?)?;
                let plan = MicroPlan {
                    kind,
                    smem: p.smem.parse()?,
                    access: Layout::from_modes([lanes, "1:0".parse()?])?,
                    vw: p.bits / 32,
                    store: p.store,
                    vec_step: 32,
                };
                plan.validate()?;
                plan.check_pattern(p)?;
                return Ok(plan);
            }
        };
        let plan = MicroPlan {
            kind,
            smem,
            access,
            vw,
            store: false,
            vec_step: 32,
        };
        plan.validate()?;
        Ok(plan)
    }

    /// Checks that lane `l` reaches the word `smem(lanes(l))` and that a store pattern's lanes
    /// write distinct words (so that the read-back is determined).
    fn check_pattern(&self, p: &Pattern) -> Result<()> {
        let lanes: Layout = p.lanes.parse()?;
        let mut seen = std::collections::BTreeSet::new();
        for lane in 0..32 {
            let (r, c) = self.first(lane, 0)?;
            let got = offset2(&self.smem, r, c)?;
            let w = lanes.offset(lane)?;
            let want = offset2(&self.smem, w / 32, w % 32)?;
            if got != want {
                return Err(Error::invalid(format!(
                    "{}: lane {lane} reaches word {got}, the pattern {} says {want}",
                    p.name, p.lanes
                )));
            }
            if p.store && !(0..self.vw).all(|e| seen.insert(want + e)) {
                return Err(Error::invalid(format!(
                    "{}: store pattern {} writes word {want} twice",
                    p.name, p.lanes
                )));
            }
        }
        Ok(())
    }

    fn steps(&self) -> i64 {
        self.access.size() / 32
    }

    fn first(&self, lane: i64, step: i64) -> Result<(i64, i64)> {
        self.element(lane, step, 0)
    }

    /// Tile coordinate `(r, c)` of element `e` of the vector lane `lane` reads at `step`.
    fn element(&self, lane: i64, step: i64, e: i64) -> Result<(i64, i64)> {
        let idx = self.access.offset(lane + 32 * (step % self.steps()))? + e * self.vec_step;
        if !(0..1024).contains(&idx) {
            return Err(Error::invalid(format!(
                "{}: lane {lane} element {e} at tile index {idx}, outside the 32x32 tile",
                self.kind
            )));
        }
        Ok((idx % 32, idx / 32))
    }

    fn validate(&self) -> Result<()> {
        for lane in 0..32 {
            for s in 0..self.steps() {
                let (r, c) = self.first(lane, s)?;
                let o = offset2(&self.smem, r, c)?;
                for e in 0..self.vw {
                    let (re, ce) = self.element(lane, s, e)?;
                    if offset2(&self.smem, re, ce)? != o + e || o % self.vw != 0 {
                        return Err(Error::invalid(format!(
                            "{}: the {}-word vector at ({r},{c}) is not contiguous and aligned under {}",
                            self.kind, self.vw, self.smem
                        )));
                    }
                }
            }
        }
        Ok(())
    }

    /// The access as a tiled copy (CuTe's `TiledCopy` from a TV layout): 32 lanes, each moving
    /// one `UniversalCopy` vector of `vw` words per step, `(lane, (word, step)) -> r + 32 c` of
    /// the 32x32 tile — the same `access` and `vec_step` the prediction reads.
    ///
    /// ```
    /// use tessel_kernels::micro::{MicroKind, MicroPlan};
    /// let c = MicroPlan::new(MicroKind::Vec128).unwrap().copy().unwrap();
    /// assert_eq!(c.atom().atom().name(), "UniversalCopy<uint128_t>");
    /// assert_eq!((c.threads(), c.values()), (32, 4 * 8)); // 4 words, 8 steps
    /// ```
    pub fn copy(&self) -> Result<TiledCopy> {
        let atom = copy_atom(&format!("UniversalCopy<uint{}_t>", 32 * self.vw))?.typed(32)?;
        let values = Layout::from_modes([
            Layout::vector(self.vw, self.vec_step)?,
            self.access.mode(1)?,
        ])?;
        let tv = Layout::from_modes([self.access.mode(0)?, values])?;
        TiledCopy::new(&atom, tv, vec![32, 32])
    }

    /// The tensors of the kernel: the tile, its partition by [`MicroPlan::copy`] (checked by the
    /// layer: one vector per lane, contiguous and aligned) and the registers of one vector. The
    /// partition must reach, lane by lane and step by step, the words the prediction counts.
    fn tensors(&self) -> GpuResult<(DeviceCopy, DeviceTensor, DeviceTensor, DeviceTensor)> {
        let copy = DeviceCopy::new("access", self.copy()?);
        let tile = DeviceTensor::shared(CType::B32, self.smem.clone());
        let part = copy.partition_s(&tile)?;
        copy.partition_d(&tile)?;
        for lane in 0..32 {
            for step in 0..self.steps() {
                for e in 0..self.vw {
                    let (r, c) = self.element(lane, step, e)?;
                    let want = offset2(&self.smem, r, c)?;
                    let got = part.layout().offset(lane + 32 * (e + self.vw * step))?;
                    if got != want {
                        return Err(GpuError::InvalidArgument(format!(
                            "{}: the partition {} puts lane {lane}'s word {e} of step {step} at \
                             {got}, the model at {want}",
                            self.kind,
                            part.layout()
                        )));
                    }
                }
            }
        }
        let regs = part.fragment_like(1..2)?;
        Ok((copy, tile, part, regs))
    }

    /// The kernel: the tile tensor, the access copy and its partition of the tile, a vector of
    /// registers, `k::STORE` and `k::SMEM_SIZE`, with the body [`BODY`]; one warp, parameters
    /// `(b32* out, int reps)`.
    ///
    /// ```
    /// use tessel_kernels::micro::{MicroKind, MicroPlan};
    /// let k = MicroPlan::new(MicroKind::ColumnSwizzled).unwrap().kernel().unwrap();
    /// assert_eq!((k.name(), k.launch().threads()), ("conflict_column_swizzled_f32", 32));
    /// assert!(k.source().contains("struct sA_layout") && k.source().contains("struct access {"));
    /// ```
    pub fn kernel(&self) -> GpuResult<Kernel> {
        let header = format!(
            "{}: generated by tessel-kernels from the layouts below.",
            self.kind
        );
        let (copy, tile, part, regs) = self.tensors()?;
        KernelBuilder::new(self.kind.name(), BODY)
            .comment(&header)
            .int("STORE", i64::from(self.store))
            .int("SMEM_SIZE", storage(&self.smem)?)
            .tiled_copy(&copy)
            .tensor("tile", &tile)
            .tensor("sA", &part)
            .tensor("v", &regs)
            .param(Param::output("out", CType::B32.into()).len(32))
            .param(Param::scalar("reps", Scalar::I32))
            .threads(32)
            .build()
    }

    /// CUDA C++ source ([`MicroPlan::kernel`]).
    ///
    /// ```
    /// use tessel_kernels::micro::{MicroKind, MicroPlan};
    /// let src = MicroPlan::new(MicroKind::ColumnSwizzled).unwrap().source().unwrap();
    /// assert!(src.contains("conflict_column_swizzled_f32"));
    /// ```
    pub fn source(&self) -> GpuResult<String> {
        Ok(self.kernel()?.source().to_string())
    }

    /// What each lane must write after `reps` steps (the tile holds `r * 32 + c + 1` at `(r,c)`).
    ///
    /// ```
    /// use tessel_kernels::micro::{MicroKind, MicroPlan};
    /// let p = MicroPlan::new(MicroKind::Column).unwrap();
    /// assert_eq!(p.expected(1).unwrap()[2], 2 * 32 + 1);
    /// ```
    pub fn expected(&self, reps: i64) -> Result<Vec<u32>> {
        // The tile's contents by (r, c); a store pattern overwrites its vectors (distinct words,
        // checked by `new`) with `STORED + lane * vw + e`.
        let value = |r: i64, c: i64| (r * 32 + c + 1) as u32;
        let mut stored = std::collections::BTreeMap::new();
        if self.store && reps > 0 {
            for it in 0..self.steps().min(reps) {
                for lane in 0..32 {
                    for e in 0..self.vw {
                        let at = self.element(lane, it, e)?;
                        stored.insert(at, (STORED + lane * self.vw + e) as u32);
                    }
                }
            }
        }
        let at = |r: i64, c: i64| stored.get(&(r, c)).copied().unwrap_or_else(|| value(r, c));
        (0..32)
            .map(|lane| {
                let mut acc = 0u32;
                for it in 0..reps {
                    for e in 0..self.vw {
                        let (r, c) = self.element(lane, it, e)?;
                        acc = acc.wrapping_add(at(r, c));
                    }
                }
                Ok(acc)
            })
            .collect()
    }

    /// Predicted shared-memory traffic of one launch with `reps` reads per lane
    /// (`tessel_layout::bank::analyze_indices` on the tile): the 32 row-by-row fills, then
    /// `reps` reads, step `s` of the access layout in read `s mod STEPS`.
    ///
    /// ```
    /// use tessel_kernels::micro::{MicroKind, MicroPlan};
    /// use tessel_layout::bank::BankReport;
    /// // One row per lane, 128 bits each: 8x the 4 ideal wavefronts; 32 one-wavefront row stores.
    /// let p = MicroPlan::new(MicroKind::Vec128Strided).unwrap();
    /// let t = p.predict(1).unwrap();
    /// assert_eq!(t.loads, BankReport { wavefronts: 32, ideal: 4, excess: 28 });
    /// assert_eq!(t.stores, BankReport { wavefronts: 32, ideal: 32, excess: 0 });
    /// assert_eq!(p.predict(10).unwrap().loads.wavefronts, 320);
    /// ```
    pub fn predict(&self, reps: i64) -> Result<SmemTraffic> {
        // Tile index r + 32 c: the domain of the tile layout.
        let rows: Vec<i64> = (0..32)
            .flat_map(|r| (0..32).map(move |l| r + 32 * l))
            .collect();
        let stores: BankReport = analyze_indices(&self.smem, 4, "sts.32".parse()?, &rows)?
            .into_iter()
            .sum();
        let bits = u32::try_from(32 * self.vw).unwrap_or(0);
        let op = SmemOp::new(OpKind::Lds, bits, false)?;
        let mut reads = Vec::new();
        for s in 0..self.steps().min(reps) {
            for l in 0..32 {
                for e in 0..self.vw {
                    let (r, c) = self.element(l, s, e)?;
                    reads.push(r + 32 * c);
                }
            }
        }
        let per_step = if reads.is_empty() {
            Vec::new()
        } else {
            analyze_indices(&self.smem, 4, op, &reads)?
        };
        let mut loads = BankReport::default();
        let mut pattern_stores = BankReport::default();
        let store_op = SmemOp::new(OpKind::Sts, bits, false)?;
        for it in 0..reps {
            if let Some(&one) = per_step.get((it % self.steps()) as usize) {
                loads += one;
                if self.store {
                    // The same addresses, so the same count under the sts rule.
                    let at = (it % self.steps()) as usize * reads.len() / per_step.len();
                    let one_store = &reads[at..at + reads.len() / per_step.len()];
                    pattern_stores += analyze_indices(&self.smem, 4, store_op, one_store)?
                        .into_iter()
                        .sum();
                }
            }
        }
        let mut stores = stores;
        stores += pattern_stores;
        Ok(SmemTraffic { loads, stores })
    }
}

/// The first value a store pattern writes (lane `l`'s element `e` gets `STORED + l * vw + e`),
/// above every value of the filled tile.
const STORED: i64 = 1 << 20;

/// Compiles (cached), runs on poisoned `out` with `reps` reads per lane and verifies one
/// microkernel against [`MicroPlan::expected`]; returns the loaded kernel for timing.
///
/// ```
/// let Ok(gpu) = tessel_kernels::Gpu::open(0) else { return }; // no GPU: nothing to run
/// use tessel_kernels::{exec::alloc, micro::{run_and_verify, MicroKind, MicroPlan}};
/// let mut out = alloc::<u32>(&gpu, 32).unwrap();
/// for kind in MicroKind::ALL {
///     run_and_verify(&gpu, &MicroPlan::new(kind).unwrap(), &mut out, 7).unwrap();
/// }
/// ```
pub fn run_and_verify<'g>(
    gpu: &'g Gpu,
    plan: &MicroPlan,
    out: &mut CudaSlice<u32>,
    reps: i32,
) -> GpuResult<Loaded<'g>> {
    let loaded = plan.kernel()?.load(gpu)?;
    let want = plan.expected(i64::from(reps))?;
    loaded.run_verified(
        &mut [Arg::output(out), Arg::I32(reps)],
        0,
        |got: &[u32]| {
            let got = got.get(..32).ok_or_else(|| {
                GpuError::InvalidArgument("microkernel output needs 32 words".into())
            })?;
            expect_bits(plan.kind.name(), got, |lane| want[lane])
        },
    )?;
    Ok(loaded)
}
