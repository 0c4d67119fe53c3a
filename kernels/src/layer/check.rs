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
/// above 1) and the base offset are multiples of `run`. A swizzled layout whose swizzles all
/// keep the low `log2(run)` bits (`run` a power of two at most `2^M` for each `Sw<B,M,S>`)
/// holds iff its inner layout does: an aligned run of `run` offsets differs only in those bits,
/// which the swizzles leave alone, so it stays one aligned run. Any other swizzled layout is
/// checked element by element.
pub(crate) fn check_runs(name: &str, t: &DeviceTensor, run: i64) -> GpuResult<()> {
    check_runs_of(name, t, run, 1)
}

/// [`check_runs`] for one thread's registers (a retiled fragment): the values of one atom call
/// are mode 0, which the atom reads or writes as `run` consecutive registers (32-bit words of
/// them, for narrower elements: hence aligned to `run`).
pub(crate) fn check_register_runs(name: &str, t: &DeviceTensor, run: i64) -> GpuResult<()> {
    check_runs_of(name, t, run, 0)
}

fn check_runs_of(name: &str, t: &DeviceTensor, run: i64, values_mode: usize) -> GpuResult<()> {
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
    let keeps_runs = layout.is_plain()
        || values_mode != 1
        || run & (run - 1) == 0
            && layout
                .swizzles()
                .iter()
                .all(|s| s.lowest_bit().is_none_or(|m| m < 62 && run <= 1i64 << m));
    if keeps_runs {
        let frg = coalesce(&inner.mode(values_mode)?)?;
        if frg.size() != run || (frg.size() > 1 && frg.flat_modes() != vec![(run, 1)]) {
            return Err(what(format!("the values are {frg}")));
        }
        if layout.base_offset() % run != 0 {
            return Err(what(format!("base offset {}", layout.base_offset())));
        }
        for (m, mode) in inner.modes().iter().enumerate() {
            if m == values_mode {
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
    let total = t.size();
    let per_run = threads * values;
    // Every offset at once (the same values as `layout.offset(i)`, without a walk per index).
    let offsets = layout.offsets();
    let at = |i: i64| offsets[i as usize];
    let mut base = 0i64;
    while base < total {
        for thread in 0..threads {
            let first = at(base + thread);
            if first % run != 0 {
                return Err(what(format!(
                    "thread {thread} starts at offset {first} at index {}",
                    base + thread
                )));
            }
            for v in 1..values {
                let o = at(base + thread + threads * v);
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

/// One side of a hand-over of registers (a copy writing them and a copy or an MMA reading them,
/// or an MMA's accumulators read by a copy): `rows` and `cols` are that side's partitions of
/// the identity tensors of the tile (thread mode first, the other modes in the order of `regs`),
/// `regs` the registers it writes or reads (a fragment, or a view of one).
pub(crate) struct RegisterSide<'a> {
    pub name: String,
    pub rows: DeviceTensor,
    pub cols: DeviceTensor,
    pub regs: &'a DeviceTensor,
}

impl RegisterSide<'_> {
    /// The register and the tile element of every value of every thread, `[value][thread]`
    /// (each layout enumerated once).
    fn elements(&self, threads: i64) -> GpuResult<Vec<(usize, (i64, i64))>> {
        let n = self.regs.size();
        if self.rows.size() != threads * n {
            return Err(err(
                &self.name,
                format!(
                    "the partition {} holds {} values per thread but the registers {} hold {n}",
                    self.rows,
                    self.rows.size() / threads.max(1),
                    self.regs
                ),
            ));
        }
        let (rows, cols) = (self.rows.layout().offsets(), self.cols.layout().offsets());
        let regs = self.regs.layout().offsets();
        Ok(rows
            .iter()
            .zip(&cols)
            .enumerate()
            .map(|(x, (&r, &c))| (regs[x / threads as usize] as usize, (r, c)))
            .collect())
    }
}

/// For every one of `threads` threads, the reader finds in each register it reads the tile
/// element the writer put there (`registers`: the fragment's size). The silent failure of a
/// mismatched `ldmatrix` and `mma` (CUTLASS issue 3197), or of a register staging whose two
/// copies order the values differently, as a build error.
pub(crate) fn check_hand_over(
    writer: &RegisterSide<'_>,
    reader: &RegisterSide<'_>,
    threads: i64,
    registers: i64,
) -> GpuResult<()> {
    let (written, read) = (writer.elements(threads)?, reader.elements(threads)?);
    let threads = threads as usize;
    for t in 0..threads {
        let mut held = vec![None; registers as usize];
        for &(reg, rc) in written.iter().skip(t).step_by(threads) {
            if let Some(slot) = held.get_mut(reg) {
                *slot = Some(rc);
            }
        }
        for &(reg, (r, c)) in read.iter().skip(t).step_by(threads) {
            let there = held.get(reg).copied().flatten();
            if there != Some((r, c)) {
                return Err(err(
                    &reader.name,
                    format!(
                        "thread {t}: {} reads element ({r},{c}) of the tile from register {reg}, \
                         where {} put {}",
                        reader.name,
                        writer.name,
                        match there {
                            Some((er, ec)) => format!("({er},{ec})"),
                            None => "nothing".into(),
                        }
                    ),
                ));
            }
        }
    }
    Ok(())
}

/// The identity tensors of a rank-2 tile: its row coordinates and its column coordinates.
pub(crate) fn identities(shape: &[i64]) -> GpuResult<(DeviceTensor, DeviceTensor)> {
    Ok((
        DeviceTensor::identity(shape, 0)?,
        DeviceTensor::identity(shape, 1)?,
    ))
}
