//! Ordered compact layouts and tiling a block to a target shape.
//!
//! ```
//! use tessel_layout::{make_ordered_layout, IntTuple};
//! // CuTe layout.hpp (CUTLASS v4.2.1) comment: (2,2,2,2) ordered by (0,2,3,1) has strides (1,4,8,2).
//! let l = make_ordered_layout(&IntTuple::from_ints([2, 2, 2, 2]), &IntTuple::from_ints([0, 2, 3, 1]));
//! assert_eq!(l.unwrap().to_string(), "(2,2,2,2):(1,4,8,2)");
//! ```

use super::blocked_product;
use super::flat::pad_to_rank;
use crate::{Error, ErrorKind, IntTuple, Layout, Result, checked_mul};

/// CuTe's `make_ordered_layout(shape, order)`: the compact layout of `shape` whose modes are
/// laid out in increasing `order`. `order` is weakly congruent to `shape`: each of its leaves
/// ranks a (sub)mode of `shape`, which is laid out column-major starting at the product of the
/// sizes of all (sub)modes with a smaller rank. The order values must be distinct.
///
/// ```
/// use tessel_layout::{make_ordered_layout, IntTuple};
/// // CuTe layout.hpp (CUTLASS v4.2.1) comment: (_2,_2,_2,_2) ordered by (_0,_2,_3,_1) -> (_1,_4,_8,_2).
/// let l = make_ordered_layout(&IntTuple::from_ints([2, 2, 2, 2]), &IntTuple::from_ints([0, 2, 3, 1])).unwrap();
/// assert_eq!(l.to_string(), "(2,2,2,2):(1,4,8,2)");
/// ```
pub fn make_ordered_layout(shape: &IntTuple, order: &IntTuple) -> Result<Layout> {
    let context = |e: Error| e.context(format!("make_ordered_layout of {shape} by {order}"));
    if !order.weakly_congruent(shape) {
        return Err(context(Error::new(
            ErrorKind::NotCongruent,
            "the order must be weakly congruent to the shape",
        )));
    }
    let mut ranked: Vec<(i64, i64)> = Vec::new(); // (order value, size of its sub-shape)
    collect_ranks(shape, order, &mut ranked).map_err(context)?;
    let mut values: Vec<i64> = ranked.iter().map(|r| r.0).collect();
    values.sort_unstable();
    if let Some(w) = values.windows(2).find(|w| w[0] == w[1]) {
        return Err(context(Error::invalid(format!(
            "the order value {} appears twice (order values must be distinct)",
            w[0]
        ))));
    }
    let start_of = |o: i64| -> Result<i64> {
        ranked
            .iter()
            .filter(|r| r.0 < o)
            .try_fold(1i64, |acc, r| checked_mul(acc, r.1, "the ordered strides"))
    };
    let stride = ordered_strides(shape, order, &start_of).map_err(context)?;
    Layout::new(shape.clone(), stride).map_err(context)
}

fn collect_ranks(shape: &IntTuple, order: &IntTuple, out: &mut Vec<(i64, i64)>) -> Result<()> {
    match order {
        IntTuple::Int(o) => out.push((*o, shape.product()?)),
        IntTuple::Tuple(os) => {
            for (s, o) in shape.modes().iter().zip(os) {
                collect_ranks(&s, &o, out)?;
            }
        }
    }
    Ok(())
}

fn ordered_strides(
    shape: &IntTuple,
    order: &IntTuple,
    start_of: &dyn Fn(i64) -> Result<i64>,
) -> Result<IntTuple> {
    match order {
        IntTuple::Int(o) => {
            let start = start_of(*o)?;
            shape
                .prefix_product()?
                .map_leaves(&mut |p| checked_mul(p, start, "the ordered strides"))
        }
        IntTuple::Tuple(os) => Ok(IntTuple::Tuple(
            shape
                .modes()
                .iter()
                .zip(os)
                .map(|(s, o)| ordered_strides(&s, &o, start_of))
                .collect::<Result<_>>()?,
        )),
    }
}

/// CuTe's `tile_to_shape(block, shape)` with the default column-major order: repeats `block`
/// (padded with `1:0` modes to the rank of `shape`) column-major until it covers `shape`, as the
/// [`blocked_product`] of the block with the compact column-major layout of the repetition
/// counts. Mode `i` of the result is `(block_i, repeats_i)` with `size = size(shape_i)`.
///
/// Errors: the block's rank exceeds the target's, or a block mode's size does not divide the
/// target mode's size (current CuTe rounds the repetition count up with `ceil_div` when the
/// shapes are dynamic; tessel rejects a block that does not tile the target exactly).
///
/// The result is the blocked product itself, as in the CuTe documentation's example
/// `tile_to_shape((3,4):(1,3), (9,12)) = ((3,3),(4,3)):((1,12),(3,36))` and in
/// [`include/cute/layout.hpp`](https://github.com/NVIDIA/cutlass/blob/v4.2.1/include/cute/layout.hpp) since CUTLASS 3.8 (earlier versions coalesced each mode,
/// `coalesce(.., product_shape)`: the same function with the same mode sizes, which
/// [`coalesce_profile`](crate::coalesce_profile) with the target shape as the profile gives).
///
/// ```
/// use tessel_layout::{coalesce_profile, tile_to_shape, IntTuple, Layout};
/// // CuTe docs (cute::tile_to_shape example).
/// let block: Layout = "(3,4):(1,3)".parse().unwrap();
/// let l = tile_to_shape(&block, &IntTuple::from_ints([9, 12])).unwrap();
/// assert_eq!(l.to_string(), "((3,3),(4,3)):((1,12),(3,36))");
///
/// // A row-major 8x8 atom tiled to 32x16: mode 0 is 8 rows of stride 8, then 4 atoms
/// // at stride 8*8 = 64, which CUTLASS before 3.8 coalesced into 32:8.
/// let block: Layout = "(8,8):(8,1)".parse().unwrap();
/// let shape = IntTuple::from_ints([32, 16]);
/// let l = tile_to_shape(&block, &shape).unwrap();
/// assert_eq!(l.to_string(), "((8,4),(8,2)):((8,64),(1,256))");
/// assert_eq!(coalesce_profile(&l, &shape).unwrap().to_string(), "(32,(8,2)):(8,(1,256))");
/// // A rank-1 block keeps all of its repetitions: 4 copies of 3:2.
/// let l = tile_to_shape(&"3:2".parse().unwrap(), &IntTuple::Int(12)).unwrap();
/// assert_eq!(l.size(), 12);
/// ```
pub fn tile_to_shape(block: &Layout, shape: &IntTuple) -> Result<Layout> {
    tile_repeats(block, shape, None)
}

/// CuTe's `tile_to_shape(block, shape, order)`: [`tile_to_shape`] with the repetitions of the
/// block laid out in `order` ([`make_ordered_layout`] of the repetition counts) instead of
/// column-major: the blocked product of the block with `make_ordered_layout(repeats, order)`
/// (`include/cute/layout.hpp`). `order` has one entry per mode of `shape`. CUTLASS tiles an
/// MN-major GMMA atom over a stage with the order `(1, 0, 2)` (`Step<_2,_1,_3>` in
/// `sm90_mma_tma_gmma_ss_warpspecialized.hpp`): the atom repeats along K first, so each
/// atom-wide slice of MN is one contiguous block that one TMA box fills.
///
/// ```
/// use tessel_layout::{tile_to_shape, tile_to_shape_ordered, IntTuple};
/// let atom = "(64,8):(1,64)".parse().unwrap(); // an MN-major atom: MN contiguous
/// let shape = IntTuple::from_ints([128, 64]);
/// let by_k = tile_to_shape_ordered(&atom, &shape, &IntTuple::from_ints([1, 0])).unwrap();
/// assert_eq!(by_k.to_string(), "((64,2),(8,8)):((1,4096),(64,512))");
/// // Column-major order is tile_to_shape's default.
/// let by_mn = tile_to_shape_ordered(&atom, &shape, &IntTuple::from_ints([0, 1])).unwrap();
/// assert_eq!(by_mn, tile_to_shape(&atom, &shape).unwrap());
/// assert!(tile_to_shape_ordered(&atom, &shape, &IntTuple::from_ints([0, 0])).is_err());
/// ```
pub fn tile_to_shape_ordered(block: &Layout, shape: &IntTuple, order: &IntTuple) -> Result<Layout> {
    tile_repeats(block, shape, Some(order))
}

/// [`tile_to_shape`] with the repetitions column-major (`None`) or in `order`.
fn tile_repeats(block: &Layout, shape: &IntTuple, order: Option<&IntTuple>) -> Result<Layout> {
    let context = |e: Error| e.context(format!("tile_to_shape of {block} to {shape}"));
    let rank = shape.rank();
    if block.rank() > rank {
        return Err(context(Error::invalid(format!(
            "the block has rank {} but the target shape only {rank} (block rank must not exceed \
             target rank)",
            block.rank()
        ))));
    }
    let padded = pad_to_rank(block, rank).map_err(context)?;
    let mut repeats = Vec::with_capacity(rank);
    for (i, (mode, target)) in padded.modes().iter().zip(shape.modes()).enumerate() {
        let (b, t) = (mode.size(), target.product().map_err(context)?);
        if t % b != 0 {
            return Err(context(Error::inadmissible(format!(
                "mode {i}: the block size {b} does not divide the target size {t} (the block \
                 must evenly divide the target shape)"
            ))));
        }
        repeats.push(t / b);
    }
    let repeat_shape = match shape {
        IntTuple::Int(_) => IntTuple::Int(repeats[0]),
        IntTuple::Tuple(_) => IntTuple::from_ints(repeats),
    };
    let tiles = match order {
        None => Layout::col_major(&repeat_shape),
        Some(order) => {
            if order.rank() != repeat_shape.rank() {
                return Err(context(Error::invalid(format!(
                    "the order {order} must have one entry per mode of the target shape (rank \
                     {rank})"
                ))));
            }
            make_ordered_layout(&repeat_shape, order)
        }
    }
    .map_err(context)?;
    blocked_product(&padded, &tiles).map_err(context)
}
