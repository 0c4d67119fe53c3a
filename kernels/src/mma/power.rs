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

use super::{
    Fragments, SmemAccess, check_problems, flat_tv, len, ptx, starts, swizzled_or_plain, traffic,
    vec_copy,
};
use crate::error::{GpuError, GpuResult};
use crate::kernel::{CType, Kernel, KernelBuilder, Param, Scalar};

/// The body of problem 1.
///
/// ```
/// assert!(tessel_kernels::mma::power::BODY.contains("dev::ldsm_t(b"));
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

    fn fill_g(&self) -> Result<Layout> {
        composition(&self.tile, &starts(&self.fill)?)
    }

    /// `(thread, value)` -> shared offset of an accumulator (`layout::c_smem_crd`).
    ///
    /// ```
    /// use tessel_kernels::mma::power::PowerPlan;
    /// let c = PowerPlan::new(false, 1, 2).unwrap().c_smem().unwrap();
    /// assert_eq!(c.offset(1).unwrap(), 2); // lane 1: row 0, column 2
    /// ```
    pub fn c_smem(&self) -> Result<ComposedLayout> {
        self.smem.compose(&self.frags.c_tv)
    }

    /// The kernel: parameters `(const b16* A, b16* P, int n)`, `problems x 256` elements each.
    ///
    /// ```
    /// let k = tessel_kernels::mma::power::PowerPlan::new(true, 2, 3).unwrap().kernel().unwrap();
    /// assert_eq!((k.launch().grid.0, k.launch().block.0), (2, 32));
    /// ```
    pub fn kernel(&self) -> GpuResult<Kernel> {
        let n = len(self.problems, 256);
        let mut b = KernelBuilder::new(&self.kernel_name(), BODY)
            .comment(&format!(
                "tessel-kernels mma power: shared layout {}",
                self.smem
            ))
            .int("TILE", 256)
            .int("NB", 2)
            .int("B_REGS", 2)
            .index_layout("fill_g", &self.fill_g()?)
            .composed_layout("fill_s", &self.smem.compose(&starts(&self.fill)?)?)
            .composed_layout("ldsm_a", &self.smem.compose(&starts(&self.part_a)?)?)
            .composed_layout("ldsm_p", &self.smem.compose(&starts(&self.part_p)?)?)
            .composed_layout("c_smem", &self.c_smem()?);
        b = ptx::with(
            b,
            &[
                ptx::Instruction::Ldsm,
                ptx::Instruction::LdsmT,
                ptx::Instruction::Mma,
                ptx::Instruction::MmaTile,
                ptx::Instruction::PackHalf2,
            ],
        )?;
        b.param(Param::input("A", CType::B16.into()).len(n))
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
        use super::host::{ldmatrix_x4, mma_m16n8k16};
        if a.len() != 256 {
            return Err(GpuError::InvalidArgument(format!(
                "A has {} elements, not 256",
                a.len()
            )));
        }
        let at = |l: &dyn Fn(i64) -> Result<i64>, i: i64| -> GpuResult<usize> {
            Ok(usize::try_from(l(i)?).unwrap_or(usize::MAX))
        };
        let (fill_g, fill_s) = (self.fill_g()?, self.smem.compose(&starts(&self.fill)?)?);
        let (rows_a, rows_p) = (
            self.smem.compose(&starts(&self.part_a)?)?,
            self.smem.compose(&starts(&self.part_p)?)?,
        );
        let c_smem = self.c_smem()?;
        let mut sa = vec![f16::NAN; 256];
        for t in 0..32 {
            let (g, s) = (at(&|i| fill_g.offset(i), t)?, at(&|i| fill_s.offset(i), t)?);
            sa[s..s + 8].copy_from_slice(&a[g..g + 8]);
        }
        let mut sp = sa.clone();
        let rows = |l: &ComposedLayout| -> GpuResult<[i64; 32]> {
            let mut r = [0i64; 32];
            for (lane, x) in r.iter_mut().enumerate() {
                *x = l.offset(lane as i64)?;
            }
            Ok(r)
        };
        let fa = ldmatrix_x4(&sa, &rows(&rows_a)?, false)?;
        for _ in 1..self.n {
            let fb = ldmatrix_x4(&sp, &rows(&rows_p)?, true)?;
            for j in 0..2 {
                let bj: [[u32; 2]; 32] = std::array::from_fn(|l| [fb[l][2 * j], fb[l][2 * j + 1]]);
                let d = mma_m16n8k16(&fa, &bj, &[[0.0; 4]; 32]);
                for (lane, vals) in d.iter().enumerate() {
                    for (v, &x) in vals.iter().enumerate() {
                        let i = lane as i64 + 32 * (v + 4 * j) as i64;
                        sp[at(&|i| c_smem.offset(i), i)?] = f16::from_f32(x);
                    }
                }
            }
        }
        let mut out = vec![f16::NAN; 256];
        for t in 0..32 {
            let (g, s) = (at(&|i| fill_g.offset(i), t)?, at(&|i| fill_s.offset(i), t)?);
            out[g..g + 8].copy_from_slice(&sp[s..s + 8]);
        }
        Ok(out)
    }
}
