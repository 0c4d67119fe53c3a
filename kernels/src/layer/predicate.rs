//! The host proof behind `copy_if`'s predicates: `tessel::copy_if` tests one element per atom
//! call (the first of its values), so an atom call must lie entirely below a bound or entirely
//! at or above it.

use tessel_layout::coalesce;

use super::copy::DeviceCopy;
use super::tensor::{DeviceTensor, Space};
use crate::error::{GpuError, GpuResult};

fn gcd(a: i64, b: i64) -> i64 {
    if b == 0 { a.abs() } else { gcd(b, a % b) }
}

impl DeviceCopy {
    /// Proves that `tessel::copy_if(copy, elem_less(coords, bound, ...), ...)` is exact for the
    /// coordinate tensor `coords` (an identity tensor partitioned by this copy, `(thread, atom
    /// values, rest...)`): for every atom call, either all its values have a coordinate below
    /// `bound` or none has, so testing the first value decides for the whole vector.
    ///
    /// The proof is arithmetic on the layout: every atom call starts at a multiple of `g`, the
    /// gcd of the strides of the modes other than the atom's values (and of the base offset);
    /// its values reach at most `span` past the start; it is exact when `span < g` and `bound`
    /// is a multiple of `g` (then a start below `bound` is at most `bound - g`), or when the
    /// values do not move the coordinate at all.
    ///
    /// ```
    /// use tessel_kernels::layer::{DeviceCopy, DeviceTensor};
    /// use tessel_layout::{atom::copy_atom, tiled::make_tiled_copy};
    /// let v4 = copy_atom("UniversalCopy<uint128_t>").unwrap().typed(32).unwrap();
    /// let c = DeviceCopy::new("ld", make_tiled_copy(&v4, &"(8,8):(8,1)".parse().unwrap(),
    ///                                               &"(1,4):(0,1)".parse().unwrap()).unwrap());
    /// let cols = c.partition_s(&DeviceTensor::identity(&[8, 32], 1).unwrap()).unwrap();
    /// c.check_predicate(&cols, 28).unwrap(); // columns 28..31 are one vector
    /// let err = c.check_predicate(&cols, 30).unwrap_err(); // a vector straddles column 30
    /// assert!(err.to_string().contains("straddle"), "{err}");
    /// ```
    pub fn check_predicate(&self, coords: &DeviceTensor, bound: i64) -> GpuResult<()> {
        let err = |what: String| {
            GpuError::InvalidArgument(format!(
                "tiled copy {}: copy_if on {coords} below {bound}: {what}",
                self.name()
            ))
        };
        if coords.space() != Space::Coord || !coords.layout().is_plain() || coords.rank() < 2 {
            return Err(err(
                "the predicate needs a coordinate tensor partitioned by the copy".into(),
            ));
        }
        let layout = coords.layout().layout();
        let values = coalesce(&layout.mode(1)?)?;
        let (low, high) = values.offset_range()?;
        if low < 0 {
            return Err(err(format!(
                "the atom's values {values} step back from their first"
            )));
        }
        if high == 0 {
            return Ok(());
        }
        let mut g = coords.layout().base_offset();
        for (m, mode) in layout.modes().iter().enumerate() {
            if m != 1 {
                for (s, d) in mode.flat_modes() {
                    if s > 1 {
                        g = gcd(g, d);
                    }
                }
            }
        }
        if g == 0 {
            // Every atom call starts at the base offset.
            let start = coords.layout().base_offset();
            if (start < bound) == (start + high < bound) {
                return Ok(());
            }
        } else if high < g && bound % g == 0 {
            return Ok(());
        }
        Err(err(format!(
            "atom calls start at multiples of {g} and span {} coordinates: one may straddle the \
             bound",
            high + 1
        )))
    }
}
