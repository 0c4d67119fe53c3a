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

use tessel_layout::bank::{BankReport, OpKind, SmemOp, SmemTraffic, analyze_indices};
use tessel_layout::{ComposedLayout, Error, Layout, Result, Swizzle};

use cudarc::driver::CudaSlice;

use crate::device::Gpu;
use crate::emit::{offset2, storage};
use crate::error::{GpuError, GpuResult};
use crate::kernel::{Arg, CType, Kernel, KernelBuilder, Loaded, Param, Scalar, expect_bits};

/// The device body of the microkernels.
///
/// ```
/// use tessel_kernels::micro::BODY;
/// for piece in ["layout::tile_crd", "layout::access", "k::VW", "k::STEPS", "k::SMEM_SIZE"] {
///     assert!(BODY.contains(piece), "{piece}");
/// }
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
}

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
        }
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
    /// Words per read (1 or 4).
    pub vw: i64,
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
        };
        let plan = MicroPlan {
            kind,
            smem,
            access,
            vw,
        };
        plan.validate()?;
        Ok(plan)
    }

    fn steps(&self) -> i64 {
        self.access.size() / 32
    }

    fn first(&self, lane: i64, step: i64) -> Result<(i64, i64)> {
        let idx = self.access.offset(lane + 32 * (step % self.steps()))?;
        Ok((idx % 32, idx / 32))
    }

    fn validate(&self) -> Result<()> {
        for lane in 0..32 {
            for s in 0..self.steps() {
                let (r, c) = self.first(lane, s)?;
                let o = offset2(&self.smem, r, c)?;
                for e in 0..self.vw {
                    if c + e >= 32 || offset2(&self.smem, r, c + e)? != o + e || o % self.vw != 0 {
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

    /// The kernel: the tile and access layouts, `k::VW`, `k::STEPS`, `k::SMEM_SIZE` and the
    /// body [`BODY`]; one warp, parameters `(b32* out, int reps)`.
    ///
    /// ```
    /// use tessel_kernels::micro::{MicroKind, MicroPlan};
    /// let k = MicroPlan::new(MicroKind::ColumnSwizzled).unwrap().kernel().unwrap();
    /// assert_eq!((k.name(), k.launch().threads()), ("conflict_column_swizzled_f32", 32));
    /// assert!(k.source().contains("tile_crd(") && k.source().contains("access("));
    /// ```
    pub fn kernel(&self) -> GpuResult<Kernel> {
        let header = format!(
            "{}: generated by tessel-kernels from the layouts below.",
            self.kind
        );
        KernelBuilder::new(self.kind.name(), BODY)
            .comment(&header)
            .int("VW", self.vw)
            .int("STEPS", self.steps())
            .int("SMEM_SIZE", storage(&self.smem)?)
            .composed_layout("tile", &self.smem)
            .index_layout("access", &self.access)
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
        (0..32)
            .map(|lane| {
                let mut acc = 0u32;
                for it in 0..reps {
                    let (r, c) = self.first(lane, it)?;
                    for e in 0..self.vw {
                        acc = acc.wrapping_add((r * 32 + c + e + 1) as u32);
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
        let op = SmemOp::new(OpKind::Lds, u32::try_from(32 * self.vw).unwrap_or(0), false)?;
        let mut reads = Vec::new();
        for s in 0..self.steps().min(reps) {
            for l in 0..32 {
                let (r, c) = self.first(l, s)?;
                reads.extend((0..self.vw).map(|e| r + 32 * (c + e)));
            }
        }
        let per_step = if reads.is_empty() {
            Vec::new()
        } else {
            analyze_indices(&self.smem, 4, op, &reads)?
        };
        let mut loads = BankReport::default();
        for it in 0..reps {
            if let Some(&one) = per_step.get((it % self.steps()) as usize) {
                loads += one;
            }
        }
        Ok(SmemTraffic { loads, stores })
    }
}

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
