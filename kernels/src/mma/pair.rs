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
use tessel_layout::{ComposedLayout, Layout, Result};

use super::device::{
    BOperand, WarpProduct, accumulator_stores, both_sides, chunks, copy_all, ldmatrix_rows, store_c,
};
use super::{
    Fragments, SmemAccess, check_problems, flat_tv, len, swizzled_or_plain, traffic, vec_copy,
};
use crate::error::{GpuError, GpuResult};
use crate::kernel::{CType, Kernel, KernelBuilder, Param};
use crate::layer::{DeviceCopy, DeviceTensor};

/// The body of problem 2.
///
/// ```
/// assert!(tessel_kernels::mma::pair::BODY.contains("tensor::b_s(sM)(t, _, _, _, _, 1, 0)"));
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

    /// The kernel's declarations in the tensor layer (every partition checked on the host).
    ///
    /// ```
    /// use tessel_kernels::mma::pair::PairPlan;
    /// let d = PairPlan::new(true, 1).unwrap().declarations().unwrap();
    /// // (thread, values, atoms, MMA_M, MMA_K, 1, halves): one ldmatrix per half.
    /// assert_eq!(d.a_s.extents(), vec![32, 8, 1, 1, 1, 1, 2]);
    /// ```
    pub fn declarations(&self) -> GpuResult<PairDeclarations> {
        let chunk = chunks("chunk", 16, 32, 32)?;
        let tile_g = both_sides(&chunk, &DeviceTensor::global(CType::B16, self.tile.clone()))?;
        let smem = DeviceTensor::shared(CType::B16, self.smem.clone());
        let warp = WarpProduct::new(&self.frags, BOperand::NMajor)?;
        // A(m, k) of half h is M[m][16 h + k]: the 16x16 tiles of M; B(n, k) of half h is
        // M[k][16 h + n]: the 16x16 tiles of M transposed, (c, r) -> domain index r + 16 c.
        let halves = smem.local_tile(&[16, 16])?;
        let transposed =
            DeviceTensor::shared(CType::B16, self.smem.compose(&"(32,16):(16,1)".parse()?)?)
                .local_tile(&[16, 16])?;
        let store_c = store_c(&self.frags, "store_c", CType::F32)?;
        let c = DeviceTensor::global(CType::F32, "(16,16):(16,1)".parse()?);
        Ok(PairDeclarations {
            regs: tile_g.fragment_like(1..5)?,
            tile_s: both_sides(&chunk, &smem)?,
            a_s: warp.ldsm_a.partition_s(&halves)?,
            b_s: warp.ldsm_b.partition_s(&transposed)?,
            view_c: store_c.retile_s(&warp.acc)?,
            c_g: store_c.partition_d(&c)?,
            store_c,
            chunk,
            tile_g,
            warp,
        })
    }

    /// The kernel's shared tensor behind each of [`PairPlan::accesses`], in order.
    ///
    /// ```
    /// use tessel_kernels::mma::pair::PairPlan;
    /// let plan = PairPlan::new(true, 1).unwrap();
    /// assert_eq!(plan.smem_tensors().unwrap().len(), plan.accesses().unwrap().len());
    /// ```
    pub fn smem_tensors(&self) -> GpuResult<Vec<DeviceTensor>> {
        let d = self.declarations()?;
        Ok(vec![d.tile_s, d.a_s, d.b_s])
    }

    /// The kernel: parameters `(const b16* M, float* C)`, `problems x 512` and `problems x
    /// 256` elements.
    ///
    /// ```
    /// let k = tessel_kernels::mma::pair::PairPlan::new(true, 3).unwrap().kernel().unwrap();
    /// assert_eq!(k.launch().grid.0, 3);
    /// ```
    pub fn kernel(&self) -> GpuResult<Kernel> {
        let d = self.declarations()?;
        d.warp
            .declare(KernelBuilder::new(&self.kernel_name(), BODY))
            .comment(&format!(
                "tessel-kernels mma pair: shared layout {}",
                self.smem
            ))
            .int("TILE", 512)
            .int("OUT", 256)
            .tiled_copy(&d.chunk)
            .tiled_copy(&d.store_c)
            .tensor("tile_g", &d.tile_g)
            .tensor("tile_s", &d.tile_s)
            .tensor("regs", &d.regs)
            .tensor("a_s", &d.a_s)
            .tensor("b_s", &d.b_s)
            .tensor("view_c", &d.view_c)
            .tensor("c_g", &d.c_g)
            .param(Param::input("M", CType::B16.into()).len(len(self.problems, 512)))
            .param(Param::output("C", CType::F32.into()).len(len(self.problems, 256)))
            .threads(32)
            .grid(check_problems(self.problems)?, 1, 1)
            .build()
    }

    /// Replays one problem on the CPU through the kernel's layouts and the [PTX ISA 9.0](https://docs.nvidia.com/cuda/archive/13.0.0/parallel-thread-execution/index.html)'s rules
    /// ([`super::host`]); returns `C` (16x16 row-major fp32).
    ///
    /// ```
    /// use tessel_kernels::measure::compare::expect_close;
    /// use tessel_kernels::mma::{host::random_f16, pair::{PairPlan, reference}};
    /// let m = random_f16(512, 4);
    /// let got = PairPlan::new(true, 1).unwrap().replay(&m).unwrap();
    /// let (want, bound) = reference(&m);
    /// expect_close("pair replay", &got, &want, &bound).unwrap();
    /// ```
    pub fn replay(&self, m: &[f16]) -> GpuResult<Vec<f32>> {
        if m.len() != 512 {
            return Err(GpuError::InvalidArgument(format!(
                "M has {} elements, not 512",
                m.len()
            )));
        }
        let d = self.declarations()?;
        let mut s = vec![f16::NAN; 512];
        copy_all(&d.tile_g, m, &d.tile_s, &mut s)?;
        let rows_a = ldmatrix_rows(&d.a_s, &[0, 0, 0, 0, 0])?;
        let rows_b = ldmatrix_rows(&d.b_s, &[0, 0, 0, 1, 0])?;
        let acc = d.warp.replay(&s, &rows_a, &s, &rows_b)?;
        let mut out = vec![f32::NAN; 256];
        for (o, x) in accumulator_stores(&d.view_c, &d.c_g, &[0, 0], &acc)? {
            out[o] = x;
        }
        Ok(out)
    }
}

/// The tensor-layer declarations of [`PairPlan::kernel`] (names as in the body).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PairDeclarations {
    /// The warp's product, B through `ldmatrix.trans` (`mma::mma`, `copy::ldsm_a/b`, ...).
    pub warp: WarpProduct,
    /// `copy::chunk`: 16-byte chunks of the 16x32 tile (two per thread).
    pub chunk: DeviceCopy,
    /// `tensor::tile_g`: the chunks of `M` in global memory.
    pub tile_g: DeviceTensor,
    /// `tensor::tile_s`: the chunks of `M` in shared memory.
    pub tile_s: DeviceTensor,
    /// `tensor::regs`: one thread's chunks in registers.
    pub regs: DeviceTensor,
    /// `tensor::a_s`: `ldmatrix` rows of the halves of `M` as A operands, `(.., h, 0)`.
    pub a_s: DeviceTensor,
    /// `tensor::b_s`: `ldmatrix.trans` rows of the halves as B operands, `(.., h, 0)`.
    pub b_s: DeviceTensor,
    /// `copy::store_c`: fp32 accumulator pairs, one `float2` each.
    pub store_c: DeviceCopy,
    /// `tensor::view_c`: `store_c`'s view of the accumulators.
    pub view_c: DeviceTensor,
    /// `tensor::c_g`: where `store_c` writes them in `C`.
    pub c_g: DeviceTensor,
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
