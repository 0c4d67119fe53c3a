//! Problem 1: `A^n` of a 16x16 fp16 matrix on the tensor cores, one warp per problem, each
//! product written back to shared memory as fp16 through the swizzled layout.
//!
//! `A` (row-major `(16,16):(16,1)`) is read once with `ldmatrix.x4` into the mma's A fragment
//! ([`Fragments::copy_a`]); each step reads the current product `P` as the B operand
//! `B(n, k) = P[k][n]` with `ldmatrix.x4.trans` ([`Fragments::copy_bt`]), computes `A P` and
//! stores the accumulators ([`Fragments::c_tv`]) two at a time (`sts.32` of an fp16 pair) back
//! into `P`. The swizzle is synthesized for all five shared accesses: the 128-bit fill of both
//! tiles, both `ldmatrix` reads, the write-back and the final 128-bit read-out.
//!
//! ```
//! use tessel_kernels::mma::power::PowerPlan;
//! let plan = PowerPlan::new(true, 4, 5).unwrap();
//! assert_eq!(plan.traffic().unwrap().excess(), 0);
//! assert!(PowerPlan::new(false, 4, 5).unwrap().traffic().unwrap().excess() > 0);
//! ```

use half::f16;
use tessel_layout::bank::SmemTraffic;
use tessel_layout::synth::{Access, Options, Synthesis, synthesize};
use tessel_layout::{ComposedLayout, Layout, Result, composition};

use super::device::{
    BOperand, WarpProduct, accumulator_stores, both_sides, chunks, copy_all, ldmatrix_rows, store_c,
};
use super::{
    Fragments, SmemAccess, check_problems, flat_tv, len, swizzled_or_plain, traffic, vec_copy,
};
use crate::error::{GpuError, GpuResult};
use crate::kernel::{CType, Kernel, KernelBuilder, Param, Scalar};
use crate::layer::{DeviceCopy, DeviceTensor};

/// The body of problem 1.
///
/// ```
/// assert!(tessel_kernels::mma::power::BODY.contains("tessel::convert<1>(acc.tensor()"));
/// ```
pub const BODY: &str = include_str!("../../cuda/mma_power.cu");

/// Every layout of problem 1.
///
/// ```
/// use tessel_kernels::mma::power::PowerPlan;
/// let plan = PowerPlan::new(true, 1, 3).unwrap();
/// assert_eq!(plan.kernel_name(), "mma_power_swizzled");
/// assert!(!plan.smem.swizzles().is_empty());
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PowerPlan {
    /// Synthesized swizzle, or the identity (the twin).
    pub swizzled: bool,
    /// Independent problems (blocks of one warp) per launch.
    pub problems: i64,
    /// The power.
    pub n: u32,
    /// The tiled MMA and `ldmatrix` copies.
    pub frags: Fragments,
    /// `A` and `P` in global memory and (before the swizzle) in shared memory: `(16,16):(16,1)`.
    pub tile: Layout,
    /// The 128-bit copy's partition of the tile.
    pub fill: Layout,
    /// `ldmatrix` partition of `A` (tile `(m, k)`).
    pub part_a: Layout,
    /// `ldmatrix.trans` partition of `P` as the B operand (tile `(n, k)`, `B(n, k) = P[k][n]`).
    pub part_p: Layout,
    /// The shared layout of `A` and `P`.
    pub smem: ComposedLayout,
    /// The synthesis behind `smem` (also kept for the twin).
    pub synthesis: Synthesis,
}

impl PowerPlan {
    /// The plan for `A^n` (`n >= 1`), swizzled or plain, `problems` blocks.
    ///
    /// ```
    /// use tessel_kernels::mma::power::PowerPlan;
    /// assert!(PowerPlan::new(true, 1, 0).is_err());
    /// ```
    pub fn new(swizzled: bool, problems: i64, n: u32) -> Result<PowerPlan> {
        check_problems(problems)?;
        if n < 1 {
            return Err(tessel_layout::Error::invalid(format!(
                "the power n = {n} must be at least 1"
            )));
        }
        let frags = Fragments::new()?;
        let tile: Layout = "(16,16):(16,1)".parse()?;
        let fill = vec_copy(16, 16, 32)?.tidfrg_s(&"(16,16):(1,16)".parse()?)?;
        let part_a = frags.copy_a.tidfrg_s(&"(16,16):(1,16)".parse()?)?;
        // B(n, k) = P[k][n]: domain index k + 16 n.
        let part_p = frags.copy_bt.tidfrg_s(&"(16,16):(16,1)".parse()?)?;
        let mut plan = PowerPlan {
            swizzled,
            problems,
            n,
            frags,
            synthesis: Synthesis {
                layout: ComposedLayout::from_layout(tile.clone()),
                reports: vec![],
                baseline: vec![],
                candidates: 0,
            },
            smem: ComposedLayout::from_layout(tile.clone()),
            tile,
            fill,
            part_a,
            part_p,
        };
        let accesses: Vec<Access> = plan
            .accesses()?
            .into_iter()
            .map(|a| Access::new(a.op, a.tv))
            .collect();
        plan.synthesis = synthesize(&plan.tile, 2, &accesses, Options::default())?;
        plan.smem = swizzled_or_plain(&plan.synthesis.layout, swizzled);
        Ok(plan)
    }

    /// `mma_power_{swizzled|plain}`.
    ///
    /// ```
    /// assert_eq!(tessel_kernels::mma::power::PowerPlan::new(false, 1, 2).unwrap().kernel_name(), "mma_power_plain");
    /// ```
    pub fn kernel_name(&self) -> String {
        let s = if self.swizzled { "swizzled" } else { "plain" };
        format!("mma_power_{s}")
    }

    /// `(lane, half, pair)` -> domain index of the write-back's `sts.32` (an fp16 pair of
    /// adjacent accumulators per lane, 4 instructions per step).
    ///
    /// ```
    /// use tessel_kernels::mma::power::PowerPlan;
    /// let w = PowerPlan::new(true, 1, 2).unwrap().write_back().unwrap();
    /// assert_eq!(w.size(), 256);
    /// assert_eq!(w.offset(32).unwrap(), 16); // lane 0's second half: column 1
    /// ```
    pub fn write_back(&self) -> Result<Layout> {
        composition(&self.frags.c_tv, &"(32,2,4):(1,32,64)".parse()?)
    }

    /// Every shared-memory access of one block: the fill of `A` and `P`, `A`'s `ldmatrix`,
    /// per step `P`'s `ldmatrix.trans` and the write-back, and the read-out.
    ///
    /// ```
    /// use tessel_kernels::mma::power::PowerPlan;
    /// let a = PowerPlan::new(true, 1, 7).unwrap().accesses().unwrap();
    /// assert_eq!(a.iter().map(|x| x.times).collect::<Vec<_>>(), [2, 1, 6, 6, 1]);
    /// ```
    pub fn accesses(&self) -> Result<Vec<SmemAccess>> {
        let steps = i64::from(self.n) - 1;
        let access = |what: &str, op: &str, tv: Layout, times: i64| -> Result<SmemAccess> {
            Ok(SmemAccess {
                what: what.into(),
                op: op.parse()?,
                smem: self.smem.clone(),
                tv,
                times,
                instruction: None,
            })
        };
        let fill = flat_tv(&self.fill)?;
        Ok(vec![
            access("fill (A and P)", "sts.128", fill.clone(), 2)?,
            access("ldmatrix A", "ldsm.x4", flat_tv(&self.part_a)?, 1)?,
            access(
                "ldmatrix.trans P",
                "ldsm.x4.trans",
                flat_tv(&self.part_p)?,
                steps,
            )?,
            access("write-back of A P", "sts.32", self.write_back()?, steps)?,
            access("read-out of P", "lds.128", fill, 1)?,
        ])
    }

    /// The bank model of one launch.
    ///
    /// ```
    /// use tessel_kernels::mma::power::PowerPlan;
    /// let t = PowerPlan::new(true, 3, 2).unwrap().traffic().unwrap();
    /// assert_eq!(t.loads.wavefronts, 3 * (4 + 4 + 4)); // ldmatrix A, ldmatrix P, read-out
    /// ```
    pub fn traffic(&self) -> Result<SmemTraffic> {
        Ok(traffic(&self.accesses()?, 2)?.scaled(self.problems))
    }

    /// The kernel's declarations in the tensor layer (every partition checked on the host).
    ///
    /// ```
    /// use tessel_kernels::mma::power::PowerPlan;
    /// let d = PowerPlan::new(true, 1, 2).unwrap().declarations().unwrap();
    /// // (thread, values, atoms, tiles): one 16-byte chunk per lane.
    /// assert_eq!(d.tile_s.extents(), vec![32, 8, 1, 1, 1]);
    /// ```
    pub fn declarations(&self) -> GpuResult<PowerDeclarations> {
        let chunk = chunks("chunk", 16, 16, 32)?;
        let tile_g = both_sides(&chunk, &DeviceTensor::global(CType::B16, self.tile.clone()))?;
        let smem = DeviceTensor::shared(CType::B16, self.smem.clone());
        let tile_s = both_sides(&chunk, &smem)?;
        let warp = WarpProduct::new(&self.frags, BOperand::NMajor)?;
        // B(n, k) = P[k][n]: the tile's domain index k + 16 n.
        let p_as_b =
            DeviceTensor::shared(CType::B16, self.smem.compose(&"(16,16):(16,1)".parse()?)?);
        let store_h = store_c(&self.frags, "store_h", CType::B16)?;
        let acc_h = warp.mma.partition_fragment('C', &[16, 16], CType::B16)?;
        Ok(PowerDeclarations {
            chunk_regs: tile_g.fragment_like(1..5)?,
            a_s: warp.ldsm_a.partition_s(&smem)?,
            p_s: warp.ldsm_b.partition_s(&p_as_b)?,
            c_s: store_h.partition_d(&smem)?,
            view_h: store_h.retile_s(&acc_h)?,
            acc_h,
            store_h,
            chunk,
            tile_g,
            tile_s,
            warp,
        })
    }

    /// The kernel's shared tensor behind each of [`PowerPlan::accesses`], in order: what the
    /// instruction the bank model predicts goes through.
    ///
    /// ```
    /// use tessel_kernels::mma::power::PowerPlan;
    /// let plan = PowerPlan::new(true, 1, 3).unwrap();
    /// assert_eq!(plan.smem_tensors().unwrap().len(), plan.accesses().unwrap().len());
    /// ```
    pub fn smem_tensors(&self) -> GpuResult<Vec<DeviceTensor>> {
        let d = self.declarations()?;
        Ok(vec![d.tile_s.clone(), d.a_s, d.p_s, d.c_s, d.tile_s])
    }

    /// The kernel: parameters `(const b16* A, b16* P, int n)`, `problems x 256` elements each.
    ///
    /// ```
    /// let k = tessel_kernels::mma::power::PowerPlan::new(true, 2, 3).unwrap().kernel().unwrap();
    /// assert_eq!((k.launch().grid.0, k.launch().block.0), (2, 32));
    /// ```
    pub fn kernel(&self) -> GpuResult<Kernel> {
        let n = len(self.problems, 256);
        let d = self.declarations()?;
        d.warp
            .declare(KernelBuilder::new(&self.kernel_name(), BODY))
            .comment(&format!(
                "tessel-kernels mma power: shared layout {}",
                self.smem
            ))
            .int("TILE", 256)
            .tiled_copy(&d.chunk)
            .tiled_copy(&d.store_h)
            .tensor("tile_g", &d.tile_g)
            .tensor("tile_s", &d.tile_s)
            .tensor("regs", &d.chunk_regs)
            .tensor("a_s", &d.a_s)
            .tensor("p_s", &d.p_s)
            .tensor("acc_h", &d.acc_h)
            .tensor("view_h", &d.view_h)
            .tensor("c_s", &d.c_s)
            .param(Param::input("A", CType::B16.into()).len(n))
            .param(Param::output("P", CType::B16.into()).len(n))
            .param(Param::scalar("n", Scalar::I32))
            .threads(32)
            .grid(check_problems(self.problems)?, 1, 1)
            .build()
    }

    /// Replays one problem on the CPU through the kernel's layouts and the [PTX ISA 9.0](https://docs.nvidia.com/cuda/archive/13.0.0/parallel-thread-execution/index.html)'s
    /// `ldmatrix`/`mma` rules ([`super::host`]); returns `P = A^n` as the kernel leaves it.
    ///
    /// ```
    /// use tessel_kernels::mma::{host::{power_reference, random_f16}, power::PowerPlan};
    /// let a = random_f16(256, 9);
    /// let got = PowerPlan::new(true, 1, 4).unwrap().replay(&a).unwrap();
    /// let (want, _) = power_reference(&a, 4).unwrap();
    /// assert!(got.iter().zip(&want).all(|(g, w)| g.to_bits() == w.to_bits()));
    /// ```
    pub fn replay(&self, a: &[f16]) -> GpuResult<Vec<f16>> {
        if a.len() != 256 {
            return Err(GpuError::InvalidArgument(format!(
                "A has {} elements, not 256",
                a.len()
            )));
        }
        let d = self.declarations()?;
        let mut sa = vec![f16::NAN; 256];
        copy_all(&d.tile_g, a, &d.tile_s, &mut sa)?;
        let mut sp = sa.clone();
        let rows_a = ldmatrix_rows(&d.a_s, &[0, 0, 0])?;
        let rows_p = ldmatrix_rows(&d.p_s, &[0, 0, 0])?;
        for _ in 1..self.n {
            let acc = d.warp.replay(&sa, &rows_a, &sp, &rows_p)?;
            for (o, x) in accumulator_stores(&d.view_h, &d.c_s, &[0, 0], &acc)? {
                sp[o] = f16::from_f32(x);
            }
        }
        let mut out = vec![f16::NAN; 256];
        copy_all(&d.tile_s, &sp, &d.tile_g, &mut out)?;
        Ok(out)
    }
}

/// The tensor-layer declarations of [`PowerPlan::kernel`] (names as in the body).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PowerDeclarations {
    /// The warp's product, B through `ldmatrix.trans` (`mma::mma`, `copy::ldsm_a/b`, ...).
    pub warp: WarpProduct,
    /// `copy::chunk`: 16-byte chunks of a 16x16 tile.
    pub chunk: DeviceCopy,
    /// `tensor::tile_g`: the chunks of a tile in global memory (`A` or `P`).
    pub tile_g: DeviceTensor,
    /// `tensor::tile_s`: the chunks of a tile in shared memory (`sA` or `sP`).
    pub tile_s: DeviceTensor,
    /// `tensor::regs`: one thread's chunk in registers.
    pub chunk_regs: DeviceTensor,
    /// `tensor::a_s`: `ldmatrix` rows of `A`.
    pub a_s: DeviceTensor,
    /// `tensor::p_s`: `ldmatrix.trans` rows of `P` as the B operand.
    pub p_s: DeviceTensor,
    /// `copy::store_h`: fp16 accumulator pairs, one 32-bit word each.
    pub store_h: DeviceCopy,
    /// `tensor::acc_h`: the accumulators in fp16.
    pub acc_h: DeviceTensor,
    /// `tensor::view_h`: `store_h`'s view of `acc_h`.
    pub view_h: DeviceTensor,
    /// `tensor::c_s`: where `store_h` writes the accumulators in `sP`.
    pub c_s: DeviceTensor,
}
