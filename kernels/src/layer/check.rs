//! The host checks of the tensor layer: what a kernel body may assume about a partition, proved
//! before any source is compiled.

use tessel_layout::coalesce;

use super::tensor::DeviceTensor;
use crate::error::{GpuError, GpuResult};

fn err(name: &str, what: String) -> GpuError {
    GpuError::InvalidArgument(format!("{name}: {what}"))
}

/// Mode 0 of a partition is the partitioner's threads.
pub(crate) fn check_threads(name: &str, t: &DeviceTensor, threads: i64) -> GpuResult<()> {
    let got = t.extents().first().copied().unwrap_or(0);
    if got != threads {
        return Err(err(
            name,
            format!("the partition of {t} has {got} threads in mode 0, expected {threads}"),
        ));
    }
    Ok(())
}

/// Every thread's `run` values of mode 1 (one atom call) are `run` consecutive elements whose
/// first offset is a multiple of `run`, for every coordinate of the other modes: what a vector
/// access (or a `cp.async`, an `ldmatrix` row) of `run` elements needs. Exact: on an affine
/// layout it holds iff mode 1 coalesces to `run:1` and every other stride (of an extent
/// above 1) and the base offset are multiples of `run`; a swizzled layout is checked element
/// by element.
pub(crate) fn check_runs(name: &str, t: &DeviceTensor, run: i64) -> GpuResult<()> {
    if run <= 1 {
        return Ok(());
    }
    let layout = t.layout();
    let inner = layout.layout();
    let what = |detail: String| {
        err(
            name,
            format!(
                "each thread's {run} values of one atom call in {t} are not {run} consecutive \
                 elements aligned to {run} ({detail})"
            ),
        )
    };
    if layout.is_plain() {
        let frg = coalesce(&inner.mode(1)?)?;
        if frg.size() != run || (frg.size() > 1 && frg.flat_modes() != vec![(run, 1)]) {
            return Err(what(format!("the values are {frg}")));
        }
        if layout.base_offset() % run != 0 {
            return Err(what(format!("base offset {}", layout.base_offset())));
        }
        for (m, mode) in inner.modes().iter().enumerate() {
            if m == 1 {
                continue;
            }
            for (s, d) in mode.flat_modes() {
                if s > 1 && d % run != 0 {
                    return Err(what(format!("mode {m} has stride {d}")));
                }
            }
        }
        return Ok(());
    }
    // Swizzled: walk every element. Index i = thread + T (v + V rest), colexicographic.
    let ext = t.extents();
    let (threads, values) = (ext[0], ext[1]);
    let offsets = layout.offsets();
    let total = t.size();
    let per_run = threads * values;
    let mut base = 0i64;
    while base < total {
        for thread in 0..threads {
            let first = offsets[(base + thread) as usize];
            if first % run != 0 {
                return Err(what(format!(
                    "thread {thread} starts at offset {first} at index {}",
                    base + thread
                )));
            }
            for v in 1..values {
                let o = offsets[(base + thread + threads * v) as usize];
                if o != first + v {
                    return Err(what(format!(
                        "thread {thread}'s value {v} is at offset {o}, not {}",
                        first + v
                    )));
                }
            }
        }
        base += per_run;
    }
    Ok(())
}

/// Elements up to which [`is_additive`] enumerates a swizzled layout (beyond it the answer is
/// `false`, which only costs the kernel the full offset computation per access).
const ADDITIVE_LIMIT: i64 = 1 << 22;

/// Whether the offset of every coordinate of `t` is the sum of its top-level modes'
/// contributions, `offset(c) - offset(0) = sum_m (offset(c_m e_m) - offset(0))`: what lets the
/// device side slice a tensor the way CuTe does, moving the pointer by the given coordinates'
/// offset and leaving the other modes' offsets compile-time constants. True of every layout
/// without a swizzle (an affine function); a swizzled layout is checked element by element (a
/// swizzle whose XOR reads and writes bits that no two modes share passes).
pub(crate) fn is_additive(t: &DeviceTensor) -> GpuResult<bool> {
    let layout = t.layout();
    if layout.is_plain() {
        return Ok(true);
    }
    if t.size() > ADDITIVE_LIMIT {
        return Ok(false);
    }
    let ext = t.extents();
    let at = |coord: Vec<i64>| layout.at(&tessel_layout::IntTuple::from_ints(coord));
    let origin = at(vec![0; ext.len()])?;
    // The contribution of each mode's coordinates on its own.
    let mut terms = Vec::with_capacity(ext.len());
    for (m, &e) in ext.iter().enumerate() {
        let mut term = Vec::with_capacity(e as usize);
        for x in 0..e {
            let mut c = vec![0; ext.len()];
            c[m] = x;
            term.push(at(c)? - origin);
        }
        terms.push(term);
    }
    for (i, &o) in (0..).zip(&layout.offsets()) {
        let (mut rest, mut sum) = (i, origin);
        for (m, &e) in ext.iter().enumerate() {
            sum += terms[m][(rest % e) as usize];
            rest /= e;
        }
        if o != sum {
            return Ok(false);
        }
    }
    Ok(true)
}
