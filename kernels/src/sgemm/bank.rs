//! Bank-model predictions of every rung's shared-memory accesses, from the warps' actual
//! addresses: the kernel's own shared partitions (the stores of its register staging and the
//! fragment reads of its tiled FMA, [`SgemmPlan::declare`]) enumerate, warp by warp, the
//! elements each instruction touches, and [`tessel_layout::bank::analyze_indices`] counts its
//! wavefronts.
//!
//! ```
//! use tessel_kernels::sgemm::{Major, Rung, SgemmPlan, bank::per_tile};
//! let plan = SgemmPlan::new(Rung::WarpTiled, 128, 128, 8, Major::Row, Major::Row).unwrap();
//! let t = per_tile(&plan).unwrap();
//! // The warp-tiled fragment reads are conflict-free: 8 warps x 8 k x 2 lds.128 per operand,
//! // 4 wavefronts for an A read, 2 for a B read (one vector per quarter-warp: docs/bank-model.md).
//! assert_eq!((t.loads.wavefronts, t.loads.excess), (8 * 8 * 2 * (4 + 2), 0));
//! ```

use tessel_layout::Layout;
use tessel_layout::bank::{BankReport, SmemOp, SmemTraffic, WARP, analyze_indices};

use super::SgemmPlan;
use super::decl::Mainloop;
use crate::error::{GpuError, GpuResult};
use crate::layer::DeviceTensor;

/// Which shared tile an access goes to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Tile {
    /// The A tile.
    A,
    /// The B tile.
    B,
}

/// One group of warp-wide shared instructions of the same kind: `indices` holds element offsets
/// in the tile's shared buffer ordered `[instruction][lane][value]`.
#[derive(Clone, Debug, PartialEq)]
pub struct WarpAccesses {
    /// The tile.
    pub tile: Tile,
    /// The instruction (`lds.32`, `lds.128`, `sts.32`, `sts.128`).
    pub op: SmemOp,
    /// Elements per lane per instruction.
    pub vector: i64,
    /// Elements of the tile's shared buffer (all stages).
    pub smem_elems: i64,
    /// `[instruction][lane][value]` element offsets.
    pub indices: Vec<i64>,
}

fn op(kind: &str, vector: i64) -> GpuResult<SmemOp> {
    format!("{kind}.{}", 32 * vector)
        .parse()
        .map_err(|e: tessel_layout::Error| GpuError::InvalidArgument(format!("sgemm: {e}")))
}

/// The instructions a block's warps issue through a shared partition `(thread, V, ..., stage)`
/// for one stage: warp by warp, every atom call (the modes between the values and the stage, in
/// order), its lanes' `V` values each.
fn warp_instructions(tile: Tile, kind: &str, t: &DeviceTensor) -> GpuResult<WarpAccesses> {
    let ext = t.extents();
    let (threads, values) = (ext[0], ext[1]);
    let stages = ext.last().copied().unwrap_or(1);
    let calls = t.size() / (threads * values * stages);
    let offsets = t.layout().offsets();
    let mut indices = Vec::with_capacity(t.size() as usize / stages as usize);
    for w in 0..threads / WARP as i64 {
        for r in 0..calls {
            for lane in 0..WARP as i64 {
                let thread = lane + WARP as i64 * w;
                for e in 0..values {
                    indices.push(offsets[(thread + threads * (e + values * r)) as usize]);
                }
            }
        }
    }
    Ok(WarpAccesses {
        tile,
        op: op(kind, values)?,
        vector: values,
        smem_elems: t.cosize()?,
        indices,
    })
}

/// Every shared instruction one block issues for one K step (stores of the A and B tiles, then
/// the fragment reads of both), enumerated from the kernel's own shared partitions
/// ([`SgemmPlan::declare`]). Empty for [`Rung::Naive`](super::Rung::Naive).
///
/// ```
/// use tessel_kernels::sgemm::{Major, Rung, SgemmPlan, bank::{accesses, Tile}};
/// let plan = SgemmPlan::new(Rung::Vectorized, 64, 64, 64, Major::Row, Major::Row).unwrap();
/// let acc = accesses(&plan).unwrap();
/// // A row-major into the transposed tile: scalar stores; B: one 128-bit store per vector.
/// assert_eq!(acc[0].op.to_string(), "sts.32");
/// assert_eq!(acc[1].op.to_string(), "sts.128");
/// assert!(acc.iter().all(|a| a.tile == Tile::A || a.tile == Tile::B));
/// ```
pub fn accesses(plan: &SgemmPlan) -> GpuResult<Vec<WarpAccesses>> {
    let Mainloop::Staged { a, b } = plan.declare()?.mainloop else {
        return Ok(Vec::new());
    };
    Ok(vec![
        warp_instructions(Tile::A, "sts", &a.smem_store)?,
        warp_instructions(Tile::B, "sts", &b.smem_store)?,
        warp_instructions(Tile::A, "lds", &a.smem_frag)?,
        warp_instructions(Tile::B, "lds", &b.smem_frag)?,
    ])
}

/// The bank model of one group: one report per instruction.
///
/// ```
/// use tessel_kernels::sgemm::{Major, Rung, SgemmPlan, bank::{accesses, reports}};
/// let plan = SgemmPlan::new(Rung::Reg2d, 128, 128, 8, Major::Row, Major::Row).unwrap();
/// let acc = accesses(&plan).unwrap();
/// assert_eq!(reports(&plan, &acc[2]).unwrap().len(), 8 * 8 * 8); // warps x k x values
/// ```
pub fn reports(_plan: &SgemmPlan, access: &WarpAccesses) -> GpuResult<Vec<BankReport>> {
    let buffer = Layout::vector(access.smem_elems, 1)?;
    analyze_indices(&buffer, 4, access.op, &access.indices)
        .map_err(|e| GpuError::InvalidArgument(format!("sgemm: {e}")))
}

/// The shared traffic of one block for one K step.
///
/// ```
/// use tessel_kernels::sgemm::{Major, Rung, SgemmPlan, bank::per_tile};
/// let plan = SgemmPlan::new(Rung::Naive, 16, 16, 16, Major::Row, Major::Row).unwrap();
/// assert_eq!(per_tile(&plan).unwrap().excess(), 0);
/// ```
pub fn per_tile(plan: &SgemmPlan) -> GpuResult<SmemTraffic> {
    let mut traffic = SmemTraffic::default();
    for access in accesses(plan)? {
        let total: BankReport = reports(plan, &access)?.into_iter().sum();
        if access.op.to_string().starts_with("sts") {
            traffic.stores += total;
        } else {
            traffic.loads += total;
        }
    }
    Ok(traffic)
}

/// The shared traffic of one launch: [`per_tile`] times blocks times K steps.
///
/// ```
/// use tessel_kernels::sgemm::{Major, Rung, SgemmPlan, bank::{per_launch, per_tile}};
/// let plan = SgemmPlan::new(Rung::SmemBlock, 64, 64, 64, Major::Row, Major::Row).unwrap();
/// assert_eq!(per_launch(&plan).unwrap(), per_tile(&plan).unwrap().scaled(4 * 2));
/// ```
pub fn per_launch(plan: &SgemmPlan) -> GpuResult<SmemTraffic> {
    let steps = (plan.k + plan.tiling.bk - 1) / plan.tiling.bk;
    Ok(per_tile(plan)?.scaled(plan.grid_blocks() * steps))
}
