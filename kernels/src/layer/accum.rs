//! Accumulators used again, proved on the host: the C fragment of one tiled MMA read as the
//! register A operand of another (FlashAttention's `P = softmax(S)` feeding `O += P V` without
//! leaving the registers), and the rows of a C fragment (which registers of a thread hold one
//! row, which lanes of a warp share it), for row reductions such as a softmax's running max and
//! sum.
//!
//! Both are derived with the algebra from the atoms' layouts and then checked element by
//! element against the definitions (the partitions of identity tensors), so a kernel body that
//! indexes the views reads what the MMAs wrote, by construction.

use tessel_layout::atom::OperandSource;
use tessel_layout::{ComposedLayout, IntTuple, Layout, coalesce, composition, right_inverse};

use super::mma::DeviceMma;
use super::tensor::{DeviceTensor, Origin, Space, from_modes};
use crate::error::{GpuError, GpuResult};

/// The lanes of a warp: the bits of a lane index that a row-sharing mask may hold.
const LANE_BITS: u32 = 5;

/// The rows of one tiled MMA's C fragment ([`DeviceMma::row_view`]): the fragment's registers
/// as `(columns, rows)` (one thread holds `rows` rows of the tile, `columns` values of each),
/// the coordinates of every value, and the lanes that hold the rest of each row.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RowView {
    /// The fragment's registers as a `(columns, rows)` register tensor: `view(j, r)` is the
    /// register of value `j` of the thread's row `r`.
    pub view: DeviceTensor,
    /// The row coordinate (in the tile) of every value: a coordinate tensor `(thread, columns,
    /// rows)`, independent of the column index.
    pub rows: DeviceTensor,
    /// The column coordinate of every value, `(thread, columns, rows)`.
    pub cols: DeviceTensor,
    /// The lane-index bits whose flip keeps a thread's rows: the lanes `l ^ m` for every `m`
    /// made of these bits hold the rest of lane `l`'s rows (a reduction over a row is one over
    /// the thread's `columns` values, then XOR shuffles over these bits).
    pub lane_mask: i64,
}

impl RowView {
    /// Values of one row in one thread.
    ///
    /// ```
    /// # use tessel_kernels::{kernel::CType, layer::DeviceMma};
    /// # use tessel_layout::{atom::mma_atom, tiled::make_tiled_mma};
    /// let mma = DeviceMma::new("s", make_tiled_mma(&mma_atom("SM90_64x128x16_F32F16F16_SS").unwrap(),
    ///                                              &"1:0".parse().unwrap(), &[]).unwrap());
    /// let acc = mma.partition_fragment('C', &[64, 128], CType::F32).unwrap();
    /// let rv = mma.row_view(&acc, &[64, 128]).unwrap();
    /// assert_eq!((rv.columns(), rv.rows_per_thread()), (32, 2));
    /// ```
    pub fn columns(&self) -> i64 {
        self.view.extents()[0]
    }

    /// Rows of the tile one thread holds values of.
    pub fn rows_per_thread(&self) -> i64 {
        self.view.extents()[1]
    }

    /// Checks that the thread's row `r` of this view is its row `r` of `other` for every thread
    /// and every `r`, and that the same lanes share them: per-row factors computed on one
    /// fragment (a softmax's rescale, from S) apply to the other (O) row by row.
    ///
    /// ```
    /// # use tessel_kernels::{kernel::CType, layer::DeviceMma};
    /// # use tessel_layout::{atom::mma_atom, tiled::make_tiled_mma};
    /// let tm = |a: &str| make_tiled_mma(&mma_atom(a).unwrap(), &"(2,1,1):(1,0,0)".parse().unwrap(), &[]).unwrap();
    /// let s = DeviceMma::new("s", tm("SM90_64x128x16_F32F16F16_SS"));
    /// let o = DeviceMma::new("o", tm("SM90_64x64x16_F32F16F16_RS"));
    /// let sv = s.row_view(&s.partition_fragment('C', &[128, 128], CType::F32).unwrap(), &[128, 128]).unwrap();
    /// let ov = o.row_view(&o.partition_fragment('C', &[128, 64], CType::F32).unwrap(), &[128, 64]).unwrap();
    /// sv.check_same_rows(&ov).unwrap();
    /// ```
    pub fn check_same_rows(&self, other: &RowView) -> GpuResult<()> {
        let err = |what: String| {
            GpuError::InvalidArgument(format!(
                "the rows of {} and of {}: {what}",
                self.view, other.view
            ))
        };
        if self.rows_per_thread() != other.rows_per_thread() || self.lane_mask != other.lane_mask {
            return Err(err(format!(
                "{} rows per thread over lanes {:#b} against {} over lanes {:#b}",
                self.rows_per_thread(),
                self.lane_mask,
                other.rows_per_thread(),
                other.lane_mask
            )));
        }
        let (threads, other_threads) = (self.rows.extents()[0], other.rows.extents()[0]);
        if threads != other_threads {
            return Err(err(format!("{threads} threads against {other_threads}")));
        }
        let (c0, c1) = (self.columns(), other.columns());
        for t in 0..threads {
            for r in 0..self.rows_per_thread() {
                let mine = self.rows.layout().offset(t + threads * c0 * r)?;
                let theirs = other.rows.layout().offset(t + threads * c1 * r)?;
                if mine != theirs {
                    return Err(err(format!(
                        "thread {t}'s row {r} is tile row {mine} in one and {theirs} in the other"
                    )));
                }
            }
        }
        Ok(())
    }
}

/// `(size, stride)` of every leaf of `modes`, in colexicographic order.
fn leaves(modes: &[Layout]) -> Vec<(i64, i64)> {
    modes.iter().flat_map(Layout::flat_modes).collect()
}

/// The layout of the leaves `picked` (a mode of their own each, or `1:0` when there are none).
fn mode_of(picked: &[(i64, i64)]) -> GpuResult<Layout> {
    if picked.is_empty() {
        return Ok(Layout::vector(1, 0)?);
    }
    let modes = picked
        .iter()
        .map(|&(s, d)| Layout::vector(s, d))
        .collect::<tessel_layout::Result<Vec<_>>>()?;
    if modes.len() == 1 {
        return Ok(modes.into_iter().next().unwrap_or_else(|| unreachable!()));
    }
    from_modes(modes)
}

impl DeviceMma {
    /// The C fragment `c_fragment` of the tiled MMA `producer` over a tile of extents `tile`
    /// (`(M, N)`), seen as this MMA's register A operand over the same tile (`(M, K)`, its K
    /// the producer's N): a register view over `c_fragment`, shaped like this MMA's
    /// `partition_fragment('A', tile)` (`(A values, MMA_M, MMA_K)`), whose element `i` is the
    /// register of `c_fragment` that holds A's value `i`. A kernel converts it value by value
    /// (fp32 to the A type, two values per 32-bit register) into the A fragment and hands that
    /// to `tessel::gemm`: FlashAttention's `P` from `S`, with no shared memory and no shuffle.
    ///
    /// Derived like [`DeviceCopy::retile_s_from`](super::DeviceCopy::retile_s_from): the
    /// right inverse of the producer's `(thread, value) -> tile index` composed with this MMA's
    /// A partition gives `(thread, A value) -> thread + T * C value`; its thread mode must be
    /// the identity (no value crosses threads) and its value modes, divided by `T`, index the
    /// fragment. Then proved by definition ([`check_a_from_c`](Self::check_a_from_c)). Errors:
    /// an atom that reads A from shared memory, different thread counts, a producer that does
    /// not cover the tile once, or a value held by another thread.
    ///
    /// ```
    /// use tessel_kernels::{kernel::CType, layer::DeviceMma};
    /// use tessel_layout::{atom::mma_atom, tiled::make_tiled_mma};
    /// let tm = |a: &str| make_tiled_mma(&mma_atom(a).unwrap(), &"(2,1,1):(1,0,0)".parse().unwrap(), &[]).unwrap();
    /// let qk = DeviceMma::new("qk", tm("SM90_64x128x16_F32F16F16_SS"));
    /// let pv = DeviceMma::new("pv", tm("SM90_64x64x16_F32F16F16_RS"));
    /// let s = qk.partition_fragment('C', &[128, 128], CType::F32).unwrap();
    /// let p = pv.retile_a_from_c(&qk, &s, &[128, 128]).unwrap();
    /// // The GMMA C layout is the RS A layout, k-block by k-block: the view is the identity.
    /// assert_eq!(p.layout().to_string(), "((2,2,2),1,8):((1,2,4),0,8)");
    /// // An SS atom reads A from shared memory: no register view.
    /// assert!(qk.retile_a_from_c(&qk, &s, &[128, 128]).is_err());
    /// ```
    pub fn retile_a_from_c(
        &self,
        producer: &DeviceMma,
        c_fragment: &DeviceTensor,
        tile: &[i64],
    ) -> GpuResult<DeviceTensor> {
        let err = |what: String| {
            GpuError::InvalidArgument(format!(
                "tiled MMA {}: operand A from the accumulators {c_fragment} of {}: {what}",
                self.name(),
                producer.name()
            ))
        };
        if self.atom().a_source() != OperandSource::Registers {
            return Err(err(format!(
                "the atom {} reads A from shared memory, not from registers",
                self.atom().name()
            )));
        }
        if c_fragment.space() != Space::Register || tile.len() != 2 {
            return Err(err(format!(
                "needs a register fragment and a rank-2 tile, not {tile:?}"
            )));
        }
        let threads = self.tiled().threads();
        if producer.tiled().threads() != threads {
            return Err(err(format!(
                "{} has {} threads, this MMA {threads}",
                producer.name(),
                producer.tiled().threads()
            )));
        }
        let index = Layout::col_major(&IntTuple::from_ints(tile.iter().copied()))?;
        // (thread, (FrgV, (RestM, RestN))) -> tile index, the values of a thread as one mode.
        let c_tv = producer.tiled().partition_by_thread('C', &index)?;
        let a_tv = self.tiled().partition_by_thread('A', &index)?;
        let size: i64 = tile.iter().product();
        let inverse = right_inverse(&c_tv)?;
        if c_tv.size() != size || inverse.size() != size {
            return Err(err(format!(
                "{} does not cover the {tile:?} tile once (its partition {c_tv})",
                producer.name()
            )));
        }
        let to_c = composition(&inverse, &a_tv)
            .map_err(|e| err(format!("the two partitions do not compose: {e}")))?;
        let thread = coalesce(&to_c.mode(0)?)?;
        let values = to_c.mode(1)?;
        if thread.flat_modes() != vec![(threads, 1)]
            || values
                .flat_modes()
                .iter()
                .any(|&(s, d)| s > 1 && d % threads != 0)
        {
            return Err(err(format!(
                "a value of A would come from another thread's accumulators ({to_c} maps \
                 (thread, A value) to thread + {threads} x C value)"
            )));
        }
        let (shape, stride) = values.into_parts();
        let stride = stride.map_leaves(&mut |d| Ok(d / threads))?;
        let order = Layout::new(shape, stride)?;
        // (FrgV, (RestM, RestK)) -> FrgV, RestM, RestK, as partition_fragment lays A out.
        let rest = order.mode(1)?;
        let mut modes = vec![order.mode(0)?];
        modes.extend(rest.modes());
        let order = from_modes(modes)?;
        let view = composition(c_fragment.layout().layout(), &order)?;
        let out = c_fragment.with_layout(
            ComposedLayout::from_layout(view),
            Origin::Mma(self.name().to_string(), 'A'),
        );
        self.check_a_from_c(producer, tile, &out, c_fragment)?;
        Ok(out)
    }

    /// The proof behind [`retile_a_from_c`](Self::retile_a_from_c), by definition: for every
    /// thread and every value `i` of this MMA's A fragment over `tile`, register `view(i)` of
    /// `c_fragment` is where `producer`'s C partition put the same tile element (both read
    /// through identity tensors), and the view has the A fragment's shape.
    pub fn check_a_from_c(
        &self,
        producer: &DeviceMma,
        tile: &[i64],
        view: &DeviceTensor,
        c_fragment: &DeviceTensor,
    ) -> GpuResult<()> {
        let err = |what: String| {
            GpuError::InvalidArgument(format!(
                "tiled MMA {}: operand A read from {}'s accumulators: {what}",
                self.name(),
                producer.name()
            ))
        };
        let a_frag = self.partition_fragment('A', tile, c_fragment.elem())?;
        if view.extents() != a_frag.extents() {
            return Err(err(format!(
                "the view {view} is not shaped like the A fragment {a_frag}"
            )));
        }
        let (id_r, id_c) = (
            DeviceTensor::identity(tile, 0)?,
            DeviceTensor::identity(tile, 1)?,
        );
        let (c_rows, c_cols) = (
            producer.partition_operand('C', &id_r)?,
            producer.partition_operand('C', &id_c)?,
        );
        let (a_rows, a_cols) = (
            self.partition_operand('A', &id_r)?,
            self.partition_operand('A', &id_c)?,
        );
        let threads = self.tiled().threads();
        let n_c = c_fragment.size();
        for t in 0..threads {
            let mut held = vec![None; c_fragment.cosize()? as usize];
            for i in 0..n_c {
                let reg = c_fragment.layout().offset(i)? as usize;
                let at = t + threads * i;
                held[reg] = Some((c_rows.layout().offset(at)?, c_cols.layout().offset(at)?));
            }
            for i in 0..view.size() {
                let reg = view.layout().offset(i)?;
                let at = t + threads * i;
                let want = (a_rows.layout().offset(at)?, a_cols.layout().offset(at)?);
                let got = usize::try_from(reg)
                    .ok()
                    .and_then(|r| held.get(r).copied().flatten());
                if got != Some(want) {
                    return Err(err(format!(
                        "thread {t}: A value {i} is element {want:?} of the tile, but register \
                         {reg} of the accumulators holds {}",
                        got.map_or("nothing".into(), |g| format!("{g:?}"))
                    )));
                }
            }
        }
        Ok(())
    }

    /// The rows of this MMA's C fragment `fragment` over a tile of extents `tile` (`(M, N)`):
    /// which of a thread's registers hold one row (`view`, `(columns, rows)`), the coordinates
    /// of every value (`rows`, `cols`), and which lanes share a row (`lane_mask`): what a row
    /// reduction over the accumulators (a softmax's max and sum) needs, FlashAttention's
    /// `convert_layout_acc_rowcol` derived from the atom's C layout.
    ///
    /// Derived from the partitions of the tile's identity tensors: each value mode of the
    /// fragment moves either the row or the column (else an error), the column modes form
    /// `columns`, the row modes `rows`. Proved: every value of `view(_, r)` of a thread lies in
    /// one row, a thread's rows are distinct, and for every row the lanes `l ^ m` (`m` over the
    /// subsets of `lane_mask`) hold it in the same place `r` and cover its `N` columns exactly
    /// once between them.
    ///
    /// ```
    /// use tessel_kernels::{kernel::CType, layer::DeviceMma};
    /// use tessel_layout::{atom::mma_atom, tiled::make_tiled_mma};
    /// let mma = DeviceMma::new("s", make_tiled_mma(&mma_atom("SM90_64x64x16_F32BF16BF16_SS").unwrap(),
    ///                                              &"(2,1,1):(1,0,0)".parse().unwrap(), &[]).unwrap());
    /// let acc = mma.partition_fragment('C', &[128, 64], CType::F32).unwrap();
    /// let rv = mma.row_view(&acc, &[128, 64]).unwrap();
    /// // CuTe's CLayout_64xN: a thread holds two rows (8 apart) of 2 x N/8 values; the four lanes
    /// // 4q .. 4q + 3 share them (lane bits 0 and 1).
    /// assert_eq!(rv.view.layout().to_string(), "((2,8),2):((1,4),2)");
    /// assert_eq!(rv.lane_mask, 0b11);
    /// assert_eq!(rv.rows.layout().offset(1 + 256 * 16 * 1).unwrap(), 8); // thread 1, row 1
    /// ```
    pub fn row_view(&self, fragment: &DeviceTensor, tile: &[i64]) -> GpuResult<RowView> {
        let err = |what: String| {
            GpuError::InvalidArgument(format!(
                "tiled MMA {}: the rows of the accumulators {fragment}: {what}",
                self.name()
            ))
        };
        if fragment.space() != Space::Register || tile.len() != 2 {
            return Err(err(format!(
                "needs a register fragment and a rank-2 tile, not {tile:?}"
            )));
        }
        let (id_r, id_c) = (
            DeviceTensor::identity(tile, 0)?,
            DeviceTensor::identity(tile, 1)?,
        );
        let (p_rows, p_cols) = (
            self.partition_operand('C', &id_r)?,
            self.partition_operand('C', &id_c)?,
        );
        let (rl, cl) = (p_rows.layout().layout(), p_cols.layout().layout());
        let frag = fragment.layout().layout();
        let (value_rows, value_cols, regs) = (
            leaves(&rl.modes()[1..]),
            leaves(&cl.modes()[1..]),
            leaves(&frag.modes()),
        );
        if value_rows.len() != regs.len() || value_cols.len() != regs.len() {
            return Err(err(format!(
                "the fragment {frag} is not shaped like the partition {rl}"
            )));
        }
        // Split the value leaves into column leaves and row leaves.
        let (mut col_modes, mut row_modes) = (Vec::new(), Vec::new());
        let (mut col_r, mut col_c, mut row_r, mut row_c) =
            (Vec::new(), Vec::new(), Vec::new(), Vec::new());
        for ((&(s, dr), &(_, dc)), &(_, reg)) in value_rows.iter().zip(&value_cols).zip(&regs) {
            if s == 1 {
                continue;
            }
            match (dr != 0, dc != 0) {
                (false, true) => {
                    col_modes.push((s, reg));
                    col_r.push((s, dr));
                    col_c.push((s, dc));
                }
                (true, false) => {
                    row_modes.push((s, reg));
                    row_r.push((s, dr));
                    row_c.push((s, dc));
                }
                _ => {
                    return Err(err(format!(
                        "a value mode of extent {s} moves the row by {dr} and the column by {dc}: \
                         not a row or a column of the tile"
                    )));
                }
            }
        }
        let view_layout = from_modes(vec![mode_of(&col_modes)?, mode_of(&row_modes)?])?;
        let coords = |thread: Layout, c: &[(i64, i64)], r: &[(i64, i64)]| -> GpuResult<Layout> {
            from_modes(vec![thread, mode_of(c)?, mode_of(r)?])
        };
        let origin = Origin::Mma(self.name().to_string(), 'C');
        let rows = p_rows.with_layout(
            ComposedLayout::from_layout(coords(rl.mode(0)?, &col_r, &row_r)?),
            origin.clone(),
        );
        let cols = p_cols.with_layout(
            ComposedLayout::from_layout(coords(cl.mode(0)?, &col_c, &row_c)?),
            origin.clone(),
        );
        let view = fragment.with_layout(ComposedLayout::from_layout(view_layout), origin);
        let threads = self.tiled().threads();
        let (ncols, nrows) = (view.extents()[0], view.extents()[1]);
        let row_of = |t: i64, j: i64, r: i64| rows.layout().offset(t + threads * (j + ncols * r));
        let col_of = |t: i64, j: i64, r: i64| cols.layout().offset(t + threads * (j + ncols * r));
        // The lane bits that keep a thread's rows.
        let mut lane_mask = 0i64;
        for b in 0..LANE_BITS {
            let bit = 1i64 << b;
            let mut keeps = threads % 32 == 0;
            for t in 0..threads {
                for r in 0..nrows {
                    keeps &= row_of(t ^ bit, 0, r)? == row_of(t, 0, r)?;
                }
            }
            if keeps {
                lane_mask |= bit;
            }
        }
        // The proof: rows constant along a view row, distinct per thread, and covered once by
        // the lane group.
        let group: Vec<i64> = (0..32).filter(|m| m & !lane_mask == 0).collect();
        for t in 0..threads {
            let mut seen_rows = Vec::new();
            for r in 0..nrows {
                let row = row_of(t, 0, r)?;
                if seen_rows.contains(&row) {
                    return Err(err(format!("thread {t} holds row {row} twice")));
                }
                seen_rows.push(row);
                let mut seen = vec![false; tile[1] as usize];
                for &m in &group {
                    for j in 0..ncols {
                        if row_of(t ^ m, j, r)? != row {
                            return Err(err(format!(
                                "value ({j}, {r}) of thread {} is not in row {row}",
                                t ^ m
                            )));
                        }
                        let col = col_of(t ^ m, j, r)?;
                        let slot = usize::try_from(col)
                            .ok()
                            .filter(|&c| c < seen.len())
                            .ok_or_else(|| err(format!("column {col} outside the tile")))?;
                        if std::mem::replace(&mut seen[slot], true) {
                            return Err(err(format!(
                                "row {row}: column {col} is held twice by lanes {:#b} of thread {t}",
                                lane_mask
                            )));
                        }
                    }
                }
                if seen.iter().any(|s| !s) {
                    return Err(err(format!(
                        "row {row}: the lanes {lane_mask:#b} of thread {t} do not hold all {} \
                         columns",
                        tile[1]
                    )));
                }
            }
        }
        Ok(RowView {
            view,
            rows,
            cols,
            lane_mask,
        })
    }
}
