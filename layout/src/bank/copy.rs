//! The bank model of a tiled copy: the shared-memory side of every instruction a
//! [`TiledCopy`] issues, from its atom's [`SmemAccess`] and its partition of the tile.
//!
//! A copy atom says how it touches shared memory ([`CopyAtom::access`]); [`smem_op`] names that
//! access as the [`SmemOp`] of the bank model (a vector load or store, `ldmatrix`,
//! `stmatrix`, or the shared-memory store of `cp.async`). [`analyze_copy`] partitions the
//! shared-memory layout's domain by the tiled copy (CuTe's `tidfrg_S` / `tidfrg_D`), groups the
//! threads into warps and evaluates one report per warp-wide instruction.
//!
//! ```
//! use tessel_layout::{atom::{copy_atom, SmemSide}, bank::analyze_copy, tiled::make_tiled_copy};
//! use tessel_layout::Layout;
//! // 32 threads down the rows of a 32x32 fp32 row-major tile, one float each: a column read.
//! let atom = copy_atom("UniversalCopy<uint32_t>").unwrap().typed(32).unwrap();
//! let copy = make_tiled_copy(&atom, &"(32,1):(1,0)".parse().unwrap(),
//!                            &"(1,1):(0,0)".parse().unwrap()).unwrap();
//! let tile: Layout = "(32,32):(32,1)".parse().unwrap();
//! let per = analyze_copy(&copy, &tile, SmemSide::Source).unwrap();
//! // One instruction per column (the tiles of 32x1 the copy is repeated over).
//! assert_eq!(per.len(), 32);
//! assert_eq!((per[0].wavefronts, per[0].ideal), (32, 1));
//! ```
//!
//! [`CopyAtom::access`]: crate::atom::CopyAtom::access

use super::{BankReport, OpKind, SmemOp, WARP, analyze_indices};
use crate::atom::{SmemAccess, SmemSide};
use crate::composed::OffsetMap;
use crate::error::{Error, Result};
use crate::layout::Layout;
use crate::tiled::TiledCopy;

/// The bank-model instruction of a copy atom's shared-memory access, with `side` the side of
/// the copy that is shared memory: a vector access is `lds` from a shared source and `sts` to a
/// shared destination; `ldmatrix` reads its source, `stmatrix` writes its destination, and
/// `cp.async` writes its destination like an `sts` of the same width. `Err` when the access
/// cannot have shared memory on that side (or `side` is [`SmemSide::Either`] or
/// [`SmemSide::Neither`]), and for `movmatrix` (registers only) and the bulk transfers of TMA and
/// `cp.async.bulk`, which the model does not describe.
///
/// ```
/// use tessel_layout::atom::{copy_atom, SmemSide};
/// use tessel_layout::bank::smem_op;
/// let ldsm = copy_atom("SM75_U16x8_LDSM_T").unwrap().access();
/// assert_eq!(smem_op(ldsm, SmemSide::Source).unwrap().to_string(), "ldsm.x4.trans");
/// let cp = copy_atom("SM80_CP_ASYNC_CACHEGLOBAL<uint128_t>").unwrap().access();
/// assert_eq!(smem_op(cp, SmemSide::Destination).unwrap().to_string(), "sts.128");
/// let v = copy_atom("UniversalCopy<uint64_t>").unwrap().access();
/// assert_eq!(smem_op(v, SmemSide::Source).unwrap().to_string(), "lds.64");
/// assert!(smem_op(ldsm, SmemSide::Destination).is_err());
/// ```
pub fn smem_op(access: SmemAccess, side: SmemSide) -> Result<SmemOp> {
    let refuse = |what: &str| {
        Err(Error::invalid(format!(
            "{access:?} {what}; shared memory on the {side:?} side does not fit it"
        )))
    };
    match (access, side) {
        (_, SmemSide::Either | SmemSide::Neither) => Err(Error::invalid(format!(
            "{access:?}: name the side that is shared memory (Source or Destination), not \
             {side:?}"
        ))),
        (SmemAccess::Vector { bits }, SmemSide::Source) => SmemOp::new(OpKind::Lds, bits, false),
        (SmemAccess::Vector { bits }, SmemSide::Destination) => {
            SmemOp::new(OpKind::Sts, bits, false)
        }
        (SmemAccess::Ldmatrix { matrices, trans }, SmemSide::Source) => {
            SmemOp::new(OpKind::Ldsm, matrices, trans)
        }
        (SmemAccess::Ldmatrix { .. }, _) => refuse("reads shared memory (its source)"),
        (SmemAccess::Stmatrix { matrices, trans }, SmemSide::Destination) => {
            SmemOp::new(OpKind::Stsm, matrices, trans)
        }
        (SmemAccess::Stmatrix { .. }, _) => refuse("writes shared memory (its destination)"),
        (SmemAccess::CpAsync { bytes }, SmemSide::Destination) => {
            SmemOp::new(OpKind::Sts, bytes.saturating_mul(8), false)
        }
        (SmemAccess::CpAsync { .. }, _) => refuse("writes shared memory (its destination)"),
        (SmemAccess::Registers, _) => refuse("moves registers only"),
        (SmemAccess::Bulk { .. }, _) => refuse(
            "is a bulk transfer of the async proxy (whole 16-byte units, not the lanes' \
             lds/sts/ldsm/stsm the bank model counts)",
        ),
    }
}

/// The bank model of every instruction of a tiled copy whose `side` is the shared-memory
/// layout `smem` (its domain: the copied tensor, partitioned by the copy's tile as CuTe's
/// `tidfrg_S` / `tidfrg_D` does; element size: the atom's value type).
///
/// Threads `32 w .. 32 w + 31` are warp `w`; one warp-wide instruction moves one atom per lane.
/// Returns one report per instruction, ordered by warp fastest, then the atoms of one thread
/// (`FrgX`), then the tiles of the tensor (CuTe's rest modes). An `ldmatrix`/`stmatrix` of
/// fewer than four matrices takes its row addresses from the first `8 x matrices` lanes.
///
/// ```
/// use tessel_layout::{atom::{copy_atom, SmemSide}, bank::analyze_copy, tiled::make_tiled_copy};
/// use tessel_layout::ComposedLayout;
/// // 128-bit loads of a 32x32 fp32 row-major tile, 8 threads per row, 4 rows per warp.
/// let atom = copy_atom("UniversalCopy<uint128_t>").unwrap().typed(32).unwrap();
/// let copy = make_tiled_copy(&atom, &"(32,8):(8,1)".parse().unwrap(),
///                            &"(1,4):(0,1)".parse().unwrap()).unwrap();
/// let tile: ComposedLayout = "(32,32):(32,1)".parse().unwrap();
/// let per = analyze_copy(&copy, &tile, SmemSide::Source).unwrap();
/// assert_eq!(per.len(), 8); // 8 warps, one instruction each
/// assert!(per.iter().all(|r| (r.wavefronts, r.ideal) == (4, 4)));
/// ```
pub fn analyze_copy(
    copy: &TiledCopy,
    smem: &impl OffsetMap,
    side: SmemSide,
) -> Result<Vec<BankReport>> {
    let inner = || -> Result<Vec<BankReport>> {
        let atom = copy.atom();
        let op = smem_op(atom.atom().access(), side)?;
        let bits = atom.value_bits();
        if bits < 8 || bits % 8 != 0 {
            return Err(Error::invalid(format!(
                "values of {bits} bits are not whole bytes"
            )));
        }
        let composed = smem.to_composed();
        let domain = Layout::col_major(composed.layout().shape())?;
        let frg = match side {
            SmemSide::Source => copy.tidfrg_s(&domain)?,
            _ => copy.tidfrg_d(&domain)?,
        };
        let (threads, values, rest) = (frg.mode(0)?, frg.mode(1)?, frg.mode(2)?);
        let frg_v = if values.rank() >= 2 {
            values.mode(0)?
        } else {
            values.clone()
        };
        let atoms = values.size() / frg_v.size().max(1);
        let thread_count = threads.size();
        if thread_count % WARP as i64 != 0 {
            return Err(Error::invalid(format!(
                "{thread_count} threads are not whole warps of {WARP}"
            )));
        }
        let lanes = op.lanes_used() as i64;
        let mut indices = Vec::new();
        for r in 0..rest.size() {
            let r_off = rest.offset(r)?;
            for x in 0..atoms {
                for w in 0..thread_count / WARP as i64 {
                    for lane in 0..lanes {
                        let t_off = threads.offset(WARP as i64 * w + lane)?;
                        for v in 0..frg_v.size() {
                            let v_off = values.offset(v + frg_v.size() * x)?;
                            indices.push(r_off + t_off + v_off);
                        }
                    }
                }
            }
        }
        analyze_indices(&composed, bits / 8, op, &indices)
    };
    inner().map_err(|e| {
        e.context(format!(
            "bank model of {copy} with shared memory {smem} on the {side:?} side"
        ))
    })
}
