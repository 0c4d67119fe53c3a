//! Retiling across two copies: the registers one tiled copy filled, seen in the value order of
//! another tiled copy over the same tile (a register permutation, such as the transpose of a
//! thread's block, derived from the two partitions and proved on the host).

use tessel_layout::{ComposedLayout, IntTuple, Layout, coalesce, composition, right_inverse};

use super::copy::{DeviceCopy, Side};
use super::tensor::{DeviceTensor, Origin, Space, from_modes};
use crate::error::{GpuError, GpuResult};

/// `(thread, values...)` of a copy's partition of the column-major index layout of `tile`:
/// `tidfrg`'s `(thread, (FrgV, FrgX), (rest...))` with its modes listed flat.
fn tile_partition(copy: &DeviceCopy, tile: &[i64], side: Side) -> GpuResult<Vec<Layout>> {
    let index = Layout::col_major(&IntTuple::from_ints(tile.iter().copied()))?;
    let t = match side {
        Side::Src => copy.tiled().tidfrg_s(&index)?,
        Side::Dst => copy.tiled().tidfrg_d(&index)?,
    };
    let frg = t.mode(1)?;
    let mut modes = vec![t.mode(0)?, frg.mode(0)?, frg.mode(1)?];
    modes.extend(t.mode(2)?.modes());
    Ok(modes)
}

impl DeviceCopy {
    /// The register fragment `fragment` that the copy `from` filled (its destination values
    /// over a tile of extents `tile`, in `from`'s value order `(atom values, atoms, rest...)`,
    /// as [`DeviceTensor::fragment_like`] of its partition lays them out) seen as this copy's
    /// source `(atom values, atoms, rest...)` over the same tile: `copy(this, view, dst)` moves
    /// every register to the tile element it was loaded from. This is how a thread permutes its
    /// registers between two partitions (the register transpose of a block, or a narrower
    /// vector width over the same values), with no index function.
    ///
    /// Derived and proved with the algebra: `right_inverse` of `from`'s `(thread, value) -> tile
    /// index` composed with this copy's gives `(thread, value) -> thread + T * from's value`;
    /// its thread mode must be the identity (every thread reads only the registers it filled)
    /// and the rest the view. Errors when `from` does not cover the tile exactly once, when
    /// the composition is inadmissible, or when a value of one thread would come from another.
    ///
    /// ```
    /// use tessel_kernels::{kernel::CType, layer::{DeviceCopy, DeviceTensor}};
    /// use tessel_layout::{atom::copy_atom, tiled::make_tiled_copy};
    /// let v4 = copy_atom("UniversalCopy<uint128_t>").unwrap().typed(32).unwrap();
    /// let thr = "(16,16):(16,1)".parse().unwrap();
    /// // Each thread loads a 4 x 4 block as four row vectors and writes it as four column vectors.
    /// let rows = DeviceCopy::new("rows", make_tiled_copy(&v4, &thr, &"(4,4):(4,1)".parse().unwrap()).unwrap());
    /// let cols = DeviceCopy::new("cols", make_tiled_copy(&v4, &thr, &"(4,4):(1,4)".parse().unwrap()).unwrap());
    /// let g = DeviceTensor::global(CType::F32, "(64,64):(64,1)".parse().unwrap());
    /// let regs = rows.partition_s(&g).unwrap().fragment_like(1..5).unwrap();
    /// let view = cols.retile_s_from(&regs, &rows, &[64, 64]).unwrap();
    /// // Column vector k holds register 4 e + k at its value e: the block transposed.
    /// assert_eq!(view.layout().to_string(), "(4,4,1,1):(4,1,0,0)");
    /// // Threads laid out another way would read other threads' registers.
    /// let other = DeviceCopy::new("other", make_tiled_copy(&v4, &"(16,16):(1,16)".parse().unwrap(),
    ///                                                      &"(4,4):(1,4)".parse().unwrap()).unwrap());
    /// let err = other.retile_s_from(&regs, &rows, &[64, 64]).unwrap_err();
    /// assert!(err.to_string().contains("another thread"), "{err}");
    /// ```
    pub fn retile_s_from(
        &self,
        fragment: &DeviceTensor,
        from: &DeviceCopy,
        tile: &[i64],
    ) -> GpuResult<DeviceTensor> {
        let err = |what: String| {
            GpuError::InvalidArgument(format!(
                "tiled copy {}: the registers {fragment} that {} filled: {what}",
                self.name(),
                from.name()
            ))
        };
        if fragment.space() != Space::Register {
            return Err(err("not a register fragment".into()));
        }
        let threads = self.tiled().threads();
        if from.tiled().threads() != threads {
            return Err(err(format!(
                "{} has {} threads, this copy {threads}",
                from.name(),
                from.tiled().threads()
            )));
        }
        let filled = tile_partition(from, tile, Side::Dst)?;
        let reads = tile_partition(self, tile, Side::Src)?;
        let size: i64 = tile.iter().product();
        // (thread, value) -> tile index, the values of one thread as one mode.
        let filled_tv = from_modes(vec![filled[0].clone(), from_modes(filled[1..].to_vec())?])?;
        let values = filled_tv.mode(1)?.size();
        if fragment.size() != values {
            return Err(err(format!(
                "{} values per thread, the fragment holds {}",
                values,
                fragment.size()
            )));
        }
        let inverse = right_inverse(&filled_tv)?;
        if filled_tv.size() != size || inverse.size() != size {
            return Err(err(format!(
                "{} does not cover the {tile:?} tile once (its partition {filled_tv})",
                from.name()
            )));
        }
        // (thread, this copy's values...) -> thread + T * (from's value index).
        let to_filled = composition(&inverse, &from_modes(reads)?)
            .map_err(|e| err(format!("the two partitions do not compose: {e}")))?;
        let modes = to_filled.modes();
        let thread = coalesce(&modes[0])?;
        if thread.flat_modes() != vec![(threads, 1)]
            || modes[1..].iter().any(|m| {
                m.flat_modes()
                    .iter()
                    .any(|&(s, d)| s > 1 && d % threads != 0)
            })
        {
            return Err(err(format!(
                "a value of this copy would come from another thread's registers ({to_filled} \
                 maps (thread, value) to thread + {threads} x register)"
            )));
        }
        // The value modes, strides in registers of `from`'s value order.
        let mut view_modes = Vec::with_capacity(modes.len() - 1);
        for m in &modes[1..] {
            let (shape, stride) = m.clone().into_parts();
            let stride = stride.map_leaves(&mut |d| Ok(d / threads))?;
            view_modes.push(Layout::new(shape, stride)?);
        }
        let order = from_modes(view_modes)?;
        // The fragment maps `from`'s value index to its register.
        let view = composition(fragment.layout().layout(), &order)?;
        let out = fragment.with_layout(
            ComposedLayout::from_layout(view),
            Origin::CopySrc(self.name().to_string()),
        );
        let want = self.values(Side::Src);
        if out.extents()[0] != want {
            return Err(err(format!(
                "one atom call reads {want} values but the view's mode 0 has {}",
                out.extents()[0]
            )));
        }
        Ok(out)
    }
}
