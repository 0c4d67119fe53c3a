//! Split-K: a problem whose output tiles leave half the SMs idle runs each tile's k-tiles in
//! [`split_for`](super::split_for) ranges, every range a unit of work of the persistent
//! Hopper kernel. Each unit stores its fp32 partial sums in its own slab of a workspace and
//! counts itself in at its tile's arrival counter; the unit that arrives last adds the tile's
//! slabs in split order (deterministic: the same order whichever unit is last), sets the
//! counter back to 0 and runs the epilogue (`D = alpha sum_s P_s + beta C`, converted to D's
//! type, stored as an unsplit call stores it). One launch; no unit waits for another
//! (`kernels/cuda/gemm_sm90.cu`).
//!
//! [`plan_sm90`](super::plan_sm90) decides the split (`Sm90Call::args.splits`); this module
//! sizes the two buffers a split call needs ([`partials_bytes`], [`arrivals`]) and points the
//! call at them ([`with_workspace`]). The [`Gemm`](super::Gemm) owns them: the partial sums
//! are overwritten by every call, the counters are zero when allocated and every call leaves
//! them zero.

use super::check::Sm90Call;
use crate::hopper::{BM, CONSUMERS};

/// Whether `call` splits K (and so needs the workspace).
pub fn uses_workspace(call: &Sm90Call) -> bool {
    call.args.splits > 1
}

/// Bytes of fp32 partial sums a call needs: one `BM x BN` slab per unit of work (tile and
/// split), 0 without split.
///
/// ```
/// use tessel_kernels::Element;
/// use tessel_kernels::blas::{MatrixDesc, Order, Problem, plan_sm90, split};
/// let md = |address, order, ld, bytes| MatrixDesc { address, bytes, elem: Element::F16, order, ld };
/// let p = Problem {
///     m: 100, n: 4096, k: 4096,
///     a: md(0x10000, Order::RowMajor, 4096, 2 * 100 * 4096),
///     b: md(0x1000000, Order::ColMajor, 4096, 2 * 4096 * 4096),
///     c: None,
///     d: MatrixDesc { address: 0x4000000, bytes: 4 * 100 * 4096, elem: Element::F32, order: Order::RowMajor, ld: 4096 },
///     alpha: 1.0, beta: 0.0,
/// };
/// let call = plan_sm90(&p, 132).unwrap();
/// // 32 tiles of 128 x 128, four splits: 128 slabs of 64 KiB; two counters per tile.
/// assert_eq!((call.args.tiles_m * call.args.tiles_n, call.args.splits), (32, 4));
/// assert_eq!(split::partials_bytes(&call), 128 * 128 * 128 * 4);
/// assert_eq!(split::arrivals(&call), 64);
/// ```
pub fn partials_bytes(call: &Sm90Call) -> usize {
    if !uses_workspace(call) {
        return 0;
    }
    let units = tiles(call) * i64::from(call.args.splits);
    usize::try_from(units * BM * call.config.tile.bn() * 4).unwrap_or(usize::MAX)
}

/// Arrival counters (`u32`) a call needs: one per consumer half of each tile, 0 without
/// split.
pub fn arrivals(call: &Sm90Call) -> usize {
    if !uses_workspace(call) {
        return 0;
    }
    usize::try_from(tiles(call) * CONSUMERS).unwrap_or(usize::MAX)
}

/// Output tiles of a call.
fn tiles(call: &Sm90Call) -> i64 {
    i64::from(call.args.tiles_m) * i64::from(call.args.tiles_n)
}

/// `call` with its split-K workspace: `partials` (at least [`partials_bytes`], 8-byte
/// aligned) and `arrivals` ([`arrivals`] counters, all 0).
///
/// ```
/// # use tessel_kernels::Element;
/// # use tessel_kernels::blas::{MatrixDesc, Order, Problem, plan_sm90, split};
/// # let md = |address, order, ld, bytes| MatrixDesc { address, bytes, elem: Element::F16, order, ld };
/// # let p = Problem {
/// #     m: 100, n: 4096, k: 4096,
/// #     a: md(0x10000, Order::RowMajor, 4096, 2 * 100 * 4096),
/// #     b: md(0x1000000, Order::ColMajor, 4096, 2 * 4096 * 4096),
/// #     c: None,
/// #     d: MatrixDesc { address: 0x4000000, bytes: 4 * 100 * 4096, elem: Element::F32, order: Order::RowMajor, ld: 4096 },
/// #     alpha: 1.0, beta: 0.0,
/// # };
/// let call = plan_sm90(&p, 132).unwrap();
/// let w = split::with_workspace(&call, 0x8000000, 0x9000000);
/// assert_eq!((w.args.partials, w.args.arrivals), (0x8000000, 0x9000000));
/// // Everything else is the call's: D, the tiles, the split, alpha and beta.
/// assert_eq!((w.args.d, w.args.splits, w.grid, w.config), (call.args.d, 4, call.grid, call.config));
/// ```
pub fn with_workspace(call: &Sm90Call, partials: u64, arrivals: u64) -> Sm90Call {
    let mut args = call.args;
    args.partials = partials;
    args.arrivals = arrivals;
    Sm90Call { args, ..*call }
}
