//! CuTe's `dice` (`include/cute/underscore.hpp`, CUTLASS v4.2.1): the elements a slicing
//! coordinate fixes, the complement of slicing (which keeps the elements marked `_`).
//!
//! ```
//! use tessel_layout::{IntTuple, dice::dice};
//! let t = IntTuple::from((4, 8));
//! assert_eq!(dice(&"(_,1)".parse().unwrap(), &t).unwrap().to_string(), "(8)");
//! ```

use crate::error::{Error, ErrorKind, Result};
use crate::int_tuple::IntTuple;
use crate::layout::{Layout, SliceCoord};

fn rank_mismatch(coord: &SliceCoord, t: &impl std::fmt::Display) -> Error {
    Error::new(
        ErrorKind::NotCongruent,
        format!("coordinate {coord} does not match the rank of {t}"),
    )
}

fn too_deep(coord: &SliceCoord, t: &impl std::fmt::Display) -> Error {
    Error::new(
        ErrorKind::NotCongruent,
        format!("coordinate {coord} is deeper than {t}"),
    )
}

/// CuTe's `dice(coord, t)` (`include/cute/underscore.hpp`): the elements of `t` that `coord`
/// fixes, the complement of slicing. Where `coord` is `_` the element is dropped, where it is an
/// integer the element is kept; the kept elements of nested coordinates join the enclosing level
/// (as slicing lifts kept modes). A coordinate that is an integer keeps all of `t`.
///
/// ```
/// use tessel_layout::{IntTuple, dice::dice};
/// let t = IntTuple::from((4, 8, (2, 3)));
/// assert_eq!(dice(&"(1,_,(_,2))".parse().unwrap(), &t).unwrap().to_string(), "(4,3)");
/// assert_eq!(dice(&"(_,0,_)".parse().unwrap(), &t).unwrap().to_string(), "(8)");
/// assert_eq!(dice(&"5".parse().unwrap(), &t).unwrap(), t);
/// ```
pub fn dice<L: crate::leaf::Leaf>(coord: &SliceCoord, t: &IntTuple<L>) -> Result<IntTuple<L>> {
    match coord {
        SliceCoord::Tuple(_) => {
            let mut kept = Vec::new();
            lift_dice(coord, t, &mut kept)?;
            Ok(IntTuple::Tuple(kept.into()))
        }
        SliceCoord::All => Ok(IntTuple::tuple([])),
        SliceCoord::Index(_) => Ok(t.clone()),
    }
}

fn lift_dice<L: crate::leaf::Leaf>(
    coord: &SliceCoord,
    t: &IntTuple<L>,
    kept: &mut Vec<IntTuple<L>>,
) -> Result<()> {
    match coord {
        SliceCoord::Tuple(parts) => {
            let IntTuple::Tuple(items) = t else {
                return Err(too_deep(coord, t));
            };
            if parts.len() != items.len() {
                return Err(rank_mismatch(coord, t));
            }
            for (c, item) in parts.iter().zip(items.iter()) {
                lift_dice(c, &item, kept)?;
            }
            Ok(())
        }
        SliceCoord::All => Ok(()),
        SliceCoord::Index(_) => {
            kept.push(t.clone());
            Ok(())
        }
    }
}

/// CuTe's `dice(coord, layout)`: the layout of the shape and stride `coord` dices.
///
/// ```
/// use tessel_layout::{Layout, dice::dice_layout};
/// let l: Layout = "(4,8,2):(1,4,32)".parse().unwrap();
/// assert_eq!(dice_layout(&"(_,3,1)".parse().unwrap(), &l).unwrap().to_string(), "(8,2):(4,32)");
/// ```
pub fn dice_layout(coord: &SliceCoord, layout: &Layout) -> Result<Layout> {
    Layout::new(dice(coord, layout.shape())?, dice(coord, layout.stride())?)
}
