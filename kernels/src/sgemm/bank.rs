//! Bank-model predictions of every rung's shared-memory accesses, from the warps' actual
//! addresses: the kernel's own layouts (`thr_m`, `val_m`, the tile loads, the shared tiles)
//! enumerate, warp by warp, the domain indices each instruction touches, and
//! [`tessel_layout::bank::analyze_indices`] counts its wavefronts.
//!
//! ```
//! use tessel_kernels::sgemm::{Major, Rung, SgemmPlan, bank::per_tile};
//! let plan = SgemmPlan::new(Rung::WarpTiled, 128, 128, 8, Major::Row, Major::Row).unwrap();
//! let t = per_tile(&plan).unwrap();
//! // The warp-tiled fragment reads are conflict-free: 8 warps x 8 k x 2 lds.128 per operand,
//! // 4 wavefronts for an A read, 2 for a B read (one vector per quarter-warp: docs/bank-model.md).
//! assert_eq!((t.loads.wavefronts, t.loads.excess), (8 * 8 * 2 * (4 + 2), 0));
//! ```

use tessel_layout::ComposedLayout;
use tessel_layout::bank::{BankReport, SmemOp, SmemTraffic, WARP, analyze_indices};

use super::{Rung, SgemmPlan, eval, lay_err};
use crate::error::{GpuError, GpuResult};

/// Which shared tile an access goes to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Tile {
    /// The A tile.
    A,
    /// The B tile.
    B,
}

/// One group of warp-wide shared instructions of the same kind: `indices` holds domain indices
/// (`row + rows * col` of the tile) ordered `[instruction][lane][value]`.
#[derive(Clone, Debug, PartialEq)]
pub struct WarpAccesses {
    /// The tile.
    pub tile: Tile,
    /// The instruction (`lds.32`, `lds.128`, `sts.32`, `sts.128`).
    pub op: SmemOp,
    /// Elements per lane per instruction.
    pub vector: i64,
    /// `[instruction][lane][value]` domain indices.
    pub indices: Vec<i64>,
}

fn op(kind: &str, vector: i64) -> GpuResult<SmemOp> {
    format!("{kind}.{}", 32 * vector)
        .parse()
        .map_err(|e: tessel_layout::Error| GpuError::InvalidArgument(format!("sgemm: {e}")))
}

/// Every shared instruction one block issues for one K step (stores of the A and B tiles, then
/// the fragment reads of both), as the kernel's layouts place them. Empty for [`Rung::Naive`].
///
/// ```
/// use tessel_kernels::sgemm::{Major, Rung, SgemmPlan, bank::{accesses, Tile}};
/// let plan = SgemmPlan::new(Rung::Vectorized, 64, 64, 64, Major::Row, Major::Row).unwrap();
/// let acc = accesses(&plan).unwrap();
/// // A row-major into the transposed tile: 4 scalar stores per vector; B: one 128-bit store.
/// assert_eq!(acc[0].op.to_string(), "sts.32");
/// assert_eq!(acc[1].op.to_string(), "sts.128");
/// assert!(acc.iter().all(|a| a.tile == Tile::A || a.tile == Tile::B));
/// ```
pub fn accesses(plan: &SgemmPlan) -> GpuResult<Vec<WarpAccesses>> {
    if plan.rung == Rung::Naive {
        return Ok(Vec::new());
    }
    let t = &plan.tiling;
    let warps = t.threads / WARP as i64;
    let (la, lb) = plan.tile_loads()?;
    let (a_vec, b_vec) = plan.store_vectors()?;
    let mut out = Vec::new();
    // Stores: vector j = lane + 32 w + NT v of each tile.
    for (tile, load, rows, vec_store) in [(Tile::A, &la, t.bm, a_vec), (Tile::B, &lb, t.bk, b_vec)]
    {
        let (width, parts) = if vec_store {
            (load.vector, 1)
        } else {
            (1, load.vector)
        };
        let mut indices = Vec::new();
        for w in 0..warps {
            for v in 0..load.per_thread {
                for part in 0..parts {
                    for lane in 0..WARP as i64 {
                        let j = lane + 32 * w + t.threads * v;
                        let (r, c) = (eval(&load.rows, j)?, eval(&load.cols, j)?);
                        for e in 0..width {
                            let d = part + e;
                            let (r, c) = if load.along_cols {
                                (r, c + d)
                            } else {
                                (r + d, c)
                            };
                            indices.push(r + rows * c);
                        }
                    }
                }
            }
        }
        out.push(WarpAccesses {
            tile,
            op: op("sts", width)?,
            vector: width,
            indices,
        });
    }
    // Fragment reads.
    let (thr_m, thr_n, val_m, val_n) = t.thread_layouts()?;
    let w = t.frag_vector;
    for (tile, count, thr, val) in [
        (Tile::A, t.tm, &thr_m, &val_m),
        (Tile::B, t.tn, &thr_n, &val_n),
    ] {
        let mut indices = Vec::new();
        for wp in 0..warps {
            for kk in 0..t.bk {
                for i in (0..count).step_by(w as usize) {
                    for lane in 0..WARP as i64 {
                        let th = lane + 32 * wp;
                        for e in 0..w {
                            let x = eval(thr, th)? + eval(val, i + e)?;
                            indices.push(match tile {
                                Tile::A => x + t.bm * kk,
                                Tile::B => kk + t.bk * x,
                            });
                        }
                    }
                }
            }
        }
        out.push(WarpAccesses {
            tile,
            op: op("lds", w)?,
            vector: w,
            indices,
        });
    }
    Ok(out)
}

fn smem_of(plan: &SgemmPlan, tile: Tile) -> GpuResult<ComposedLayout> {
    match tile {
        Tile::A => plan.tiling.smem_a(),
        Tile::B => plan.tiling.smem_b(),
    }
}

/// The bank model of one group: one report per instruction.
///
/// ```
/// use tessel_kernels::sgemm::{Major, Rung, SgemmPlan, bank::{accesses, reports}};
/// let plan = SgemmPlan::new(Rung::Reg2d, 128, 128, 8, Major::Row, Major::Row).unwrap();
/// let acc = accesses(&plan).unwrap();
/// assert_eq!(reports(&plan, &acc[2]).unwrap().len(), 8 * 8 * 8); // warps x k x values
/// ```
pub fn reports(plan: &SgemmPlan, access: &WarpAccesses) -> GpuResult<Vec<BankReport>> {
    analyze_indices(&smem_of(plan, access.tile)?, 4, access.op, &access.indices).map_err(lay_err)
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
