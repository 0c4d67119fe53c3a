//! Problem 2: `A * B` for the two 16x16 fp16 blocks of `M = [A B]`, one 16x32 row-major tile
//! (`(16,32):(32,1)`), one warp per problem.
//!
//! The tile's coordinates are viewed per column half `h` (`A`: `h = 0`, `B`: `h = 1`): `A`'s
//! operand `(m, k, h) -> m + 16 (k + 16 h)` through `ldmatrix.x4` ([`Fragments::copy_a`]), and
//! the mma's B operand `B(n, k) = M[k][16 + n]`, `(n, k, h) -> k + 16 (n + 16 h)`, through
//! `ldmatrix.x4.trans` ([`Fragments::copy_bt`]). The kernel reads half 0 of the first and half
//! 1 of the second; the swizzle is synthesized so that both reads are conflict-free in both
//! halves (a sufficient, stronger request), and the fill's 128-bit stores too.
//!
//! ```
//! use tessel_kernels::mma::pair::PairPlan;
//! assert_eq!(PairPlan::new(true, 2).unwrap().traffic().unwrap().excess(), 0);
//! assert!(PairPlan::new(false, 2).unwrap().traffic().unwrap().loads.excess > 0);
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
use crate::kernel::{CType, Kernel, KernelBuilder, Param};

/// The body of problem 2.
///
/// ```
/// assert!(tessel_kernels::mma::pair::BODY.contains("layout::ldsm_b_crd(t, 1)"));
/// ```
pub const BODY: &str = include_str!("../../cuda/mma_pair.cu");

/// Every layout of problem 2.
///
/// ```
/// use tessel_kernels::mma::pair::PairPlan;
/// let plan = PairPlan::new(true, 1).unwrap();
/// assert_eq!(plan.kernel_name(), "mma_pair_swizzled");
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PairPlan {
    /// Synthesized swizzle, or the identity (the twin).
    pub swizzled: bool,
    /// Independent problems (blocks of one warp) per launch.
    pub problems: i64,
    /// The tiled MMA and `ldmatrix` copies.
    pub frags: Fragments,
    /// `M` in global memory and (before the swizzle) in shared memory: `(16,32):(32,1)`.
    pub tile: Layout,
    /// The 128-bit copy's partition of `M` (two chunks per thread).
    pub fill: Layout,
    /// `ldmatrix` partition of the halves as A operands, rest mode `(1,1,h)`.
    pub part_a: Layout,
    /// `ldmatrix.trans` partition of the halves as B operands, rest mode `(1,1,h)`.
    pub part_b: Layout,
    /// The shared layout of `M`.
    pub smem: ComposedLayout,
    /// The synthesis behind `smem` (also kept for the twin).
    pub synthesis: Synthesis,
}

impl PairPlan {
    /// The plan, swizzled or plain, for `problems` blocks.
    ///
    /// ```
    /// assert!(tessel_kernels::mma::pair::PairPlan::new(true, -1).is_err());
    /// ```
    pub fn new(swizzled: bool, problems: i64) -> Result<PairPlan> {
        check_problems(problems)?;
        let frags = Fragments::new()?;
        let tile: Layout = "(16,32):(32,1)".parse()?;
        let fill = vec_copy(16, 32, 32)?.tidfrg_s(&"(16,32):(1,16)".parse()?)?;
        let part_a = frags.copy_a.tidfrg_s(&"(16,16,2):(1,16,256)".parse()?)?;
        let part_b = frags.copy_bt.tidfrg_s(&"(16,16,2):(16,1,256)".parse()?)?;
        let accesses = [
            Access::new("sts.128".parse()?, flat_tv(&fill)?),
            Access::new("ldsm.x4".parse()?, flat_tv(&part_a)?),
            Access::new("ldsm.x4.trans".parse()?, flat_tv(&part_b)?),
        ];
        let synthesis = synthesize(&tile, 2, &accesses, Options::default())?;
        Ok(PairPlan {
            swizzled,
            problems,
            smem: swizzled_or_plain(&synthesis.layout, swizzled),
            synthesis,
            frags,
            tile,
            fill,
            part_a,
            part_b,
        })
    }

    /// `mma_pair_{swizzled|plain}`.
    ///
    /// ```
    /// assert_eq!(tessel_kernels::mma::pair::PairPlan::new(false, 1).unwrap().kernel_name(), "mma_pair_plain");
    /// ```
    pub fn kernel_name(&self) -> String {
        let s = if self.swizzled { "swizzled" } else { "plain" };
        format!("mma_pair_{s}")
    }

    /// Every shared-memory access of one block: the fill, `ldmatrix` of half 0 (A) and
    /// `ldmatrix.trans` of half 1 (B).
    ///
    /// ```
    /// let a = tessel_kernels::mma::pair::PairPlan::new(true, 1).unwrap().accesses().unwrap();
    /// assert_eq!(a[2].instruction, Some(1));
    /// ```
    pub fn accesses(&self) -> Result<Vec<SmemAccess>> {
        let access = |what: &str, op: &str, tv: Layout, instruction| -> Result<SmemAccess> {
            Ok(SmemAccess {
                what: what.into(),
                op: op.parse()?,
                smem: self.smem.clone(),
                tv,
                times: 1,
                instruction,
            })
        };
        Ok(vec![
            access("fill of M", "sts.128", flat_tv(&self.fill)?, None)?,
            access(
                "ldmatrix A (half 0)",
                "ldsm.x4",
                flat_tv(&self.part_a)?,
                Some(0),
            )?,
            access(
                "ldmatrix.trans B (half 1)",
                "ldsm.x4.trans",
                flat_tv(&self.part_b)?,
                Some(1),
            )?,
        ])
    }

    /// The bank model of one launch.
    ///
    /// ```
    /// let t = tessel_kernels::mma::pair::PairPlan::new(true, 5).unwrap().traffic().unwrap();
    /// assert_eq!((t.loads.wavefronts, t.stores.wavefronts), (5 * 8, 5 * 8));
    /// ```
    pub fn traffic(&self) -> Result<SmemTraffic> {
        Ok(traffic(&self.accesses()?, 2)?.scaled(self.problems))
    }

    /// `(thread, h) -> shared offset` of the `ldmatrix` row of thread `t` in half `h` of a
    /// partition ([`PairPlan::part_a`] or [`PairPlan::part_b`]).
    ///
    /// ```
    /// use tessel_kernels::mma::pair::PairPlan;
    /// let plan = PairPlan::new(false, 1).unwrap();
    /// let b = plan.rows(&plan.part_b).unwrap();
    /// assert_eq!(b.offset(32).unwrap(), 16); // lane 0 of half 1: row k = 0, column 16
    /// ```
    pub fn rows(&self, part: &Layout) -> Result<ComposedLayout> {
        let s = starts(part)?; // (thread, FrgX, 1, 1, h)
        let halves = part.mode(2)?.mode(2)?;
        let with_h = Layout::from_modes([s.mode(0)?, halves])?;
        if s.size() != with_h.size() {
            return Err(tessel_layout::Error::invalid(format!(
                "the partition {part} has more than one fragment per half"
            )));
        }
        self.smem.compose(&with_h)
    }

    fn fill_g(&self) -> Result<Layout> {
        composition(&self.tile, &starts(&self.fill)?)
    }

    /// `(thread, value)` -> offset of an accumulator in the 16x16 row-major `C`.
    ///
    /// ```
    /// let c = tessel_kernels::mma::pair::PairPlan::new(true, 1).unwrap().c_out().unwrap();
    /// assert_eq!(c.offset(32).unwrap(), 1); // lane 0, value 1: column 1
    /// ```
    pub fn c_out(&self) -> Result<Layout> {
        composition(&"(16,16):(16,1)".parse()?, &self.frags.c_tv)
    }

    /// The kernel: parameters `(const b16* M, float* C)`, `problems x 512` and `problems x
    /// 256` elements.
    ///
    /// ```
    /// let k = tessel_kernels::mma::pair::PairPlan::new(true, 3).unwrap().kernel().unwrap();
    /// assert_eq!(k.launch().grid.0, 3);
    /// ```
    pub fn kernel(&self) -> GpuResult<Kernel> {
        let mut b = KernelBuilder::new(&self.kernel_name(), BODY)
            .comment(&format!(
                "tessel-kernels mma pair: shared layout {}",
                self.smem
            ))
            .int("TILE", 512)
            .int("OUT", 256)
            .int("FILL", self.fill.mode(2)?.size())
            .int("NB", 2)
            .int("B_REGS", 2)
            .index_layout("fill_g", &self.fill_g()?)
            .composed_layout("fill_s", &self.smem.compose(&starts(&self.fill)?)?)
            .composed_layout("ldsm_a", &self.rows(&self.part_a)?)
            .composed_layout("ldsm_b", &self.rows(&self.part_b)?)
            .coord_layout("c_out", &self.c_out()?);
        b = ptx::with(
            b,
            &[
                ptx::Instruction::Ldsm,
                ptx::Instruction::LdsmT,
                ptx::Instruction::Mma,
                ptx::Instruction::MmaTile,
                ptx::Instruction::StorePairs,
            ],
        )?;
        b.param(Param::input("M", CType::B16.into()).len(len(self.problems, 512)))
            .param(Param::output("C", CType::F32.into()).len(len(self.problems, 256)))
            .threads(32)
            .grid(check_problems(self.problems)?, 1, 1)
            .build()
    }

    /// Replays one problem on the CPU through the kernel's layouts and the [PTX ISA 9.0](https://docs.nvidia.com/cuda/archive/13.0.0/parallel-thread-execution/index.html)'s rules
    /// ([`super::host`]); returns `C` (16x16 row-major fp32).
    ///
    /// ```
    /// use tessel_kernels::mma::{host::{expect_close, random_f16}, pair::{PairPlan, reference}};
    /// let m = random_f16(512, 4);
    /// let got = PairPlan::new(true, 1).unwrap().replay(&m).unwrap();
    /// let (want, bound) = reference(&m);
    /// expect_close("pair replay", &got, &want, &bound).unwrap();
    /// ```
    pub fn replay(&self, m: &[f16]) -> GpuResult<Vec<f32>> {
        use super::host::{ldmatrix_x4, mma_m16n8k16};
        if m.len() != 512 {
            return Err(GpuError::InvalidArgument(format!(
                "M has {} elements, not 512",
                m.len()
            )));
        }
        let at = |l: &dyn Fn(i64) -> Result<i64>, i: i64| -> GpuResult<usize> {
            Ok(usize::try_from(l(i)?).unwrap_or(usize::MAX))
        };
        let (fill_g, fill_s) = (self.fill_g()?, self.smem.compose(&starts(&self.fill)?)?);
        let mut s = vec![f16::NAN; 512];
        for i in 0..32 * self.fill.mode(2)?.size() {
            let (g, o) = (at(&|x| fill_g.offset(x), i)?, at(&|x| fill_s.offset(x), i)?);
            s[o..o + 8].copy_from_slice(&m[g..g + 8]);
        }
        let rows = |l: &ComposedLayout, h: i64| -> GpuResult<[i64; 32]> {
            let mut r = [0i64; 32];
            for (lane, x) in r.iter_mut().enumerate() {
                *x = l.offset(lane as i64 + 32 * h)?;
            }
            Ok(r)
        };
        let fa = ldmatrix_x4(&s, &rows(&self.rows(&self.part_a)?, 0)?, false)?;
        let fb = ldmatrix_x4(&s, &rows(&self.rows(&self.part_b)?, 1)?, true)?;
        let c_out = self.c_out()?;
        let mut out = vec![f32::NAN; 256];
        for j in 0..2 {
            let bj: [[u32; 2]; 32] = std::array::from_fn(|l| [fb[l][2 * j], fb[l][2 * j + 1]]);
            let d = mma_m16n8k16(&fa, &bj, &[[0.0; 4]; 32]);
            for (lane, vals) in d.iter().enumerate() {
                for (v, &x) in vals.iter().enumerate() {
                    out[at(&|i| c_out.offset(i), lane as i64 + 32 * (v + 4 * j) as i64)?] = x;
                }
            }
        }
        Ok(out)
    }
}

/// The reference of one problem: `(C, bound)` with `C = A B`, `A = M[:, 0..16]`,
/// `B = M[:, 16..32]` ([`super::host::dot16`]).
///
/// ```
/// use half::f16;
/// let m = vec![f16::ONE; 512];
/// let (c, bound) = tessel_kernels::mma::pair::reference(&m);
/// assert_eq!(c[255], 16.0);
/// assert!(bound[0] > 0.0);
/// ```
pub fn reference(m: &[f16]) -> (Vec<f32>, Vec<f32>) {
    let at = |r: usize, c: usize| m[32 * r + c].to_f32();
    super::host::dot16(at, |n, k| at(k, 16 + n))
}
