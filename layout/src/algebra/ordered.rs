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
/// sizes of all (sub)modes with a smaller rank. The order values must be distinct. An extent-1
/// leaf gets the stride 0, as CuTe's `compact_order` writes it for a static extent
/// (`make_ordered_layout((1,4), (1,0)) = (1,4):(0,1)`; the stride of an extent-1 leaf never
/// changes an offset).
///
/// ```
/// use tessel_layout::{make_ordered_layout, IntTuple};
/// // CuTe layout.hpp (CUTLASS v4.2.1) comment: (_2,_2,_2,_2) ordered by (_0,_2,_3,_1) -> (_1,_4,_8,_2).
/// let l = make_ordered_layout(&IntTuple::from_ints([2, 2, 2, 2]), &IntTuple::from_ints([0, 2, 3, 1])).unwrap();
/// assert_eq!(l.to_string(), "(2,2,2,2):(1,4,8,2)");
/// let l = make_ordered_layout(&IntTuple::from_ints([1, 4]), &IntTuple::from_ints([1, 0])).unwrap();
/// assert_eq!(l.to_string(), "(1,4):(0,1)");
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
    let stride = zero_unit_strides(shape, &stride).map_err(context)?;
    Layout::new(shape.clone(), stride).map_err(context)
}

/// `stride` with every leaf whose extent in `shape` is 1 set to 0, as CuTe's `compact_order`
/// writes them (`compact<Major>` gives a static extent 1 the stride `_0`): the same offsets.
fn zero_unit_strides(shape: &IntTuple, stride: &IntTuple) -> Result<IntTuple> {
    let extents = shape.leaves();
    if !extents.contains(&1) {
        return Ok(stride.clone());
    }
    let strides: Vec<i64> = extents
        .iter()
        .zip(stride.leaves())
        .map(|(&s, d)| if s == 1 { 0 } else { d })
        .collect();
    stride
        .with_leaves(&strides)
        .ok_or_else(|| Error::invalid("internal: leaf count mismatch"))
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
/// [`tile_to_shape_ordered`] repeats the block in another order.
///
/// Errors: the block's rank exceeds the target's, or a block mode's size does not divide the
/// target mode's size (CuTe 4.2 `static_assert`s the even division when the shapes are static,
/// and with dynamic shapes rounds the repetition count up with `ceil_div` unchecked; tessel
/// rejects a block that does not tile the target exactly).
///
/// The result is the blocked product itself, as in the CuTe documentation's example
/// `tile_to_shape((3,4):(1,3), (9,12)) = ((3,3),(4,3)):((1,12),(3,36))` and in
/// [`include/cute/layout.hpp`](https://github.com/NVIDIA/cutlass/blob/v4.2.1/include/cute/layout.hpp) since CUTLASS 3.8 (earlier versions coalesced each mode,
/// `coalesce(.., product_shape)`: the same function with the same mode sizes, which
/// [`coalesce_profile`](crate::coalesce_profile) with the target shape as the profile gives).
/// The repetitions are laid out by [`make_ordered_layout`], so a mode repeated once has the
/// stride 0 as in CuTe, and a rank-1 target tuple stays a tuple: `tile_to_shape(4:1, (16)) =
/// ((4,(4))):((1,(4)))`.
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
    tile_to_shape_in_order(block, shape, None)
}

/// CuTe's `tile_to_shape(block, shape, order)`: [`tile_to_shape`] with the repetitions of the
/// block laid out by `make_ordered_layout(repetitions, order)` instead of column-major, so the
/// block repeats first across the mode with the smallest order value. `order` has one entry
/// per mode of `shape` (an integer for an integer `shape`), distinct values.
///
/// ```
/// use tessel_layout::{tile_to_shape_ordered, IntTuple, Layout};
/// // CuTe include/cute/layout.hpp: "Step<_2,_1,_3> will cause @a layout to repeat across the
/// // second mode first, the first mode second, and the third mode last."
/// let block: Layout = "(2,2,2):(1,2,4)".parse().unwrap();
/// let shape = IntTuple::from_ints([4, 6, 4]);
/// let l = tile_to_shape_ordered(&block, &shape, &IntTuple::from_ints([2, 1, 3])).unwrap();
/// assert_eq!(l.to_string(), "((2,2),(2,3),(2,2)):((1,24),(2,8),(4,48))");
/// // Row-major repetitions of an 8x8 block over 16x16: the second block is to the right.
/// let block: Layout = "(8,8):(1,8)".parse().unwrap();
/// let l = tile_to_shape_ordered(&block, &IntTuple::from_ints([16, 16]), &IntTuple::from_ints([1, 0])).unwrap();
/// assert_eq!(l.to_string(), "((8,2),(8,2)):((1,128),(8,64))");
/// ```
pub fn tile_to_shape_ordered(block: &Layout, shape: &IntTuple, order: &IntTuple) -> Result<Layout> {
    tile_to_shape_in_order(block, shape, Some(order))
}

fn tile_to_shape_in_order(
    block: &Layout,
    shape: &IntTuple,
    order: Option<&IntTuple>,
) -> Result<Layout> {
    let context = |e: Error| match order {
        None => e.context(format!("tile_to_shape of {block} to {shape}")),
        Some(o) => e.context(format!(
            "tile_to_shape of {block} to {shape} in the order {o}"
        )),
    };
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
    let (repeat_shape, col_major) = match shape {
        IntTuple::Int(_) => (IntTuple::Int(repeats[0]), IntTuple::Int(0)),
        IntTuple::Tuple(_) => (
            IntTuple::from_ints(repeats),
            IntTuple::from_ints(0..rank as i64),
        ),
    };
    let order = order.unwrap_or(&col_major);
    if order.rank() != rank || order.depth() > 1 || order.is_int() != shape.is_int() {
        return Err(context(Error::new(
            ErrorKind::NotCongruent,
            format!(
                "the order {order} must have one integer per mode of the target shape {shape} \
                 (rank {rank})"
            ),
        )));
    }
    let tiles = make_ordered_layout(&repeat_shape, order).map_err(context)?;
    blocked_product(&padded, &tiles).map_err(context)
}
