//! The built-in functions of the expression language: CuTe's layout algebra, by CuTe's names.
//!
//! One row per function; the implementations below convert arguments through [`Args`] and call
//! the algebra in [`crate::algebra`].
//!
//! Functions that return a part of a layout starting elsewhere than at offset 0 (`at` with a
//! `_` in the coordinate, CuTe's `slice_and_offset`; `local_tile`; `local_partition`) return
//! a layout at an offset, written `OFFSET o LAYOUT` like any offset in tessel notation
//! (`4 o (4):(1)`: offsets 4, 5, 6, 7); at offset 0 it is the plain layout.
//!
//! ```
//! use tessel_layout::expr::eval;
//! assert_eq!(eval("at((4,8):(1,4), (_,1))").unwrap().to_string(), "4 o (4):(1)");
//! assert_eq!(eval("at((4,8):(1,4), (3,1))").unwrap().to_string(), "7");
//! assert_eq!(eval("local_tile((8,24):(1,8), (4,8), (1,2))").unwrap().to_string(), "132 o (4,8):(1,8)");
//! ```
//!
//! ```
//! use tessel_layout::expr::{builtins::FUNCTIONS, eval};
//! assert!(FUNCTIONS.iter().any(|f| f.name == "complement"));
//! // CuTe docs (docs/semantics.md): complement(4:2, 24) = (2,3):(1,8).
//! assert_eq!(eval("complement(4:2, 24)").unwrap().to_string(), "(2,3):(1,8)");
//! ```

use super::compose::compose;
use super::composed::{map_outer, outer_layout};
use super::functions::{Args, Function, f};
use super::value::Value;
use crate::algebra;
use crate::composed::ComposedLayout;
use crate::error::{Error, Result};
use crate::int_tuple::IntTuple;
use crate::layout::Layout;
use crate::swizzle::Swizzle;

/// The core algebra functions.
///
/// ```
/// assert!(tessel_layout::expr::builtins::FUNCTIONS.iter().any(|f| f.name == "complement"));
/// ```
pub const FUNCTIONS: &[Function] = &[
    f(
        "size",
        "(L)",
        1,
        1,
        "number of coordinates of a layout (product of a shape)",
        size,
    ),
    f(
        "cosize",
        "(L)",
        1,
        1,
        "one past the largest offset of a layout",
        cosize,
    ),
    f("rank", "(L)", 1, 1, "number of top-level modes", rank),
    f("depth", "(L)", 1, 1, "nesting depth of the shape", depth),
    f("mode", "(L, i)", 2, 2, "the i-th top-level mode", mode),
    f(
        "get",
        "(L, i, ...)",
        2,
        9,
        "the mode at the index path i, ...",
        mode,
    ),
    f(
        "flatten",
        "(L)",
        1,
        1,
        "every mode flattened to a leaf",
        flatten,
    ),
    f(
        "at",
        "(L, coord)",
        2,
        2,
        "the offset L(coord); with '_' in coord, the kept modes at their offset: OFFSET o LAYOUT",
        at,
    ),
    f(
        "coalesce",
        "(L[, profile])",
        1,
        2,
        "fewest modes with the same function (by-mode with a profile)",
        coalesce,
    ),
    f(
        "filter",
        "(L)",
        1,
        1,
        "coalesce after dropping stride-0 and size-1 modes",
        filter,
    ),
    f(
        "composition",
        "(A, B)",
        2,
        2,
        "R(c) = A(B(c)); B a layout or a by-mode tiler",
        composition,
    ),
    f(
        "complement",
        "(L[, cotarget])",
        1,
        2,
        "the ordered layout filling the rest of 0..cotarget (default cosize)",
        complement,
    ),
    f(
        "right_inverse",
        "(L)",
        1,
        1,
        "R with L(R(i)) = i",
        right_inverse,
    ),
    f(
        "left_inverse",
        "(L)",
        1,
        1,
        "R with R(L(i)) = i",
        left_inverse,
    ),
    f(
        "nullspace",
        "(L)",
        1,
        1,
        "the coordinates that L maps to offset 0",
        nullspace,
    ),
    f(
        "logical_divide",
        "(A, T)",
        2,
        2,
        "A o (T, complement(T, size A)): tiles and their arrangement",
        |a| divide(a, algebra::logical_divide),
    ),
    f(
        "zipped_divide",
        "(A, T)",
        2,
        2,
        "logical_divide regrouped as (tile, rest)",
        |a| divide(a, algebra::zipped_divide),
    ),
    f(
        "tiled_divide",
        "(A, T)",
        2,
        2,
        "logical_divide regrouped as (tile, rest modes...)",
        |a| divide(a, algebra::tiled_divide),
    ),
    f(
        "flat_divide",
        "(A, T)",
        2,
        2,
        "logical_divide regrouped as (tile modes..., rest modes...)",
        |a| divide(a, algebra::flat_divide),
    ),
    f(
        "logical_product",
        "(A, B)",
        2,
        2,
        "(A, complement(A, size(A)*cosize(B)) o B)",
        |a| product(a, algebra::logical_product),
    ),
    f(
        "zipped_product",
        "(A, B)",
        2,
        2,
        "logical_product regrouped as (tile, rest)",
        |a| product(a, algebra::zipped_product),
    ),
    f(
        "tiled_product",
        "(A, B)",
        2,
        2,
        "logical_product regrouped as (tile, rest modes...)",
        |a| product(a, algebra::tiled_product),
    ),
    f(
        "flat_product",
        "(A, B)",
        2,
        2,
        "logical_product regrouped as (tile modes..., rest modes...)",
        |a| product(a, algebra::flat_product),
    ),
    f(
        "blocked_product",
        "(A, B)",
        2,
        2,
        "B's arrangement of A-blocks, mode by mode",
        |a| rank_product(a, algebra::blocked_product),
    ),
    f(
        "raked_product",
        "(A, B)",
        2,
        2,
        "A's elements interleaved across B's arrangement",
        |a| rank_product(a, algebra::raked_product),
    ),
    f(
        "tile_to_shape",
        "(block, shape[, order])",
        2,
        3,
        "repeat block to fill shape (in the mode order order, default column-major)",
        tile_to_shape,
    ),
    f(
        "make_ordered_layout",
        "(shape, order)",
        2,
        2,
        "compact layout whose modes are ordered by order",
        make_ordered_layout,
    ),
    f(
        "max_common_vector",
        "(A, B)",
        2,
        2,
        "number of elements of max_common_layout(A, B)",
        max_common_vector,
    ),
    f(
        "max_common_layout",
        "(A, B)",
        2,
        2,
        "layout of the longest run of elements contiguous in both A and B",
        max_common_layout,
    ),
    f("upcast", "(L, n)", 2, 2, "L in units of n elements", upcast),
    f(
        "downcast",
        "(L, n)",
        2,
        2,
        "L in units of 1/n elements",
        downcast,
    ),
    f(
        "swizzle",
        "(B, M, S)",
        3,
        3,
        "the swizzle functor Sw<B,M,S>",
        swizzle,
    ),
    f(
        "is_injective",
        "(L)",
        1,
        1,
        "whether distinct coordinates have distinct offsets",
        is_injective,
    ),
    f(
        "is_bijective",
        "(L)",
        1,
        1,
        "whether L maps its domain onto 0..size",
        is_bijective,
    ),
    f(
        "shape",
        "(L[, i, ...])",
        1,
        9,
        "the shape of L (of its mode at the index path i, ...)",
        shape,
    ),
    f(
        "stride",
        "(L[, i, ...])",
        1,
        9,
        "the stride of L (of its mode at the index path i, ...)",
        stride,
    ),
    f(
        "make_layout",
        "(S[, D] | L0, L1, ...)",
        1,
        16,
        "shape S with stride D (default column-major), or the layout with modes L0, L1, ...",
        make_layout,
    ),
    f(
        "layout",
        "(L, i, ...)",
        2,
        9,
        "the sub-layout at the index path i, ... (CuTe's layout<I...>)",
        mode,
    ),
    f(
        "append",
        "(A, B)",
        2,
        2,
        "A with B added as its last top-level mode",
        append,
    ),
    f(
        "prepend",
        "(A, B)",
        2,
        2,
        "A with B added as its first top-level mode",
        prepend,
    ),
    f(
        "replace",
        "(A, i, B)",
        3,
        3,
        "A with its top-level mode i replaced by B (CuTe's replace<i>(A, B))",
        replace,
    ),
    f(
        "group",
        "(A, b, e)",
        3,
        3,
        "A with its top-level modes b..e grouped into one mode (CuTe's group<b,e>)",
        group,
    ),
    f(
        "select",
        "(A, i, ...)",
        2,
        16,
        "the top-level modes i, ... of A, in that order (CuTe's select<I...>)",
        select,
    ),
    f(
        "take",
        "(A, b, e)",
        3,
        3,
        "the top-level modes b..e of A, b < e (CuTe's take<b,e>)",
        take,
    ),
    f(
        "product_each",
        "(S)",
        1,
        1,
        "the size of every top-level mode of the shape S",
        product_each,
    ),
    f(
        "recast",
        "(L, old, new)",
        3,
        3,
        "L in units of new-bit elements instead of old-bit ones (CuTe's recast_layout)",
        recast,
    ),
    f(
        "recast_layout",
        "(L, old, new)",
        3,
        3,
        "CuTe's name for recast",
        recast,
    ),
    f(
        "local_tile",
        "(L, tiler, coord[, step])",
        3,
        4,
        "the tile coord of zipped_divide(L, tiler), at its offset: OFFSET o TILE; a step \
         Step<_1,X,_1> projects tiler and coord first",
        local_tile,
    ),
    f(
        "local_partition",
        "(L, thr, i[, step])",
        3,
        4,
        "thread i's elements of every thr-shaped tile of L, at its offset: OFFSET o LAYOUT; a \
         step Step<_1,X,_1> projects thr first",
        local_partition,
    ),
];

/// A layout result as a value.
fn layout(r: Result<Layout>) -> Result<Value> {
    r.map(Value::Layout)
}

/// Converts a count to an integer value.
fn count(n: usize) -> Value {
    Value::Int(i64::try_from(n).unwrap_or(i64::MAX))
}

fn size(a: &Args<'_>) -> Result<Value> {
    match a.value(0)? {
        Value::Int(_) | Value::Tuple(_) => a.int_tuple(0)?.product().map(Value::Int),
        Value::Tiler(t) => t.size().map(Value::Int),
        _ => Ok(Value::Int(outer(a, 0)?.size())),
    }
}

/// The outer layout (the domain) of a layout-like argument: a plain layout is its own, a
/// swizzled layout's and a composition's is the layout they take coordinates of.
fn outer(a: &Args<'_>, i: usize) -> Result<Layout> {
    outer_layout(a.value(i)?).ok_or_else(|| a.mismatch(i, "a layout"))?
}

/// `op` applied to the outer layout of argument 0, keeping its swizzles, offset or inner
/// function (CuTe's `layout_composed.hpp`): see [`super::composed`].
fn on_outer(a: &Args<'_>, op: impl FnOnce(&Layout) -> Result<Layout>) -> Result<Value> {
    map_outer(a.value(0)?, a.function_name(), op).ok_or_else(|| a.mismatch(0, "a layout"))?
}

/// The most offsets `cosize` enumerates for a swizzled layout.
const COSIZE_ENUMERATION_LIMIT: i64 = 1 << 20;

fn cosize(a: &Args<'_>) -> Result<Value> {
    if let Value::Composition(c) = a.value(0)? {
        if c.size() > COSIZE_ENUMERATION_LIMIT {
            return Err(Error::invalid(format!(
                "cosize of the composed layout {c} enumerates every value; its size {} is over \
                 the limit {COSIZE_ENUMERATION_LIMIT}",
                c.size()
            )));
        }
        let max = c.values()?.into_iter().max().unwrap_or(0);
        return crate::checked_add(max, 1, "cosize").map(Value::Int);
    }
    let c = a.composed(0)?;
    if c.swizzles().is_empty() {
        let (_, max) = c.layout().offset_range()?;
        let top = crate::checked_add(max, c.base_offset(), "cosize")?;
        return crate::checked_add(top, 1, "cosize").map(Value::Int);
    }
    if c.size() > COSIZE_ENUMERATION_LIMIT {
        return Err(Error::invalid(format!(
            "cosize of the swizzled layout {c} enumerates every offset; its size {} is over the \
             limit {COSIZE_ENUMERATION_LIMIT}",
            c.size()
        )));
    }
    crate::budget::charge(c.size(), &format!("cosize of {c}"))?;
    let max = c.offsets().into_iter().max().unwrap_or(0);
    crate::checked_add(max, 1, "cosize").map(Value::Int)
}

fn rank(a: &Args<'_>) -> Result<Value> {
    match a.value(0)? {
        Value::Int(_) | Value::Tuple(_) => Ok(count(a.int_tuple(0)?.rank())),
        Value::Tiler(t) => Ok(count(t.rank())),
        _ => Ok(count(outer(a, 0)?.rank())),
    }
}

fn depth(a: &Args<'_>) -> Result<Value> {
    match a.value(0)? {
        Value::Int(_) | Value::Tuple(_) => Ok(count(a.int_tuple(0)?.depth())),
        _ => Ok(count(outer(a, 0)?.depth())),
    }
}

/// An argument used as a mode index.
fn index(a: &Args<'_>, i: usize) -> Result<usize> {
    let v = a.int(i)?;
    usize::try_from(v).map_err(|_| a.mismatch(i, "a mode index (0 or more)"))
}

fn mode(a: &Args<'_>) -> Result<Value> {
    match a.value(0)? {
        Value::Int(_) | Value::Tuple(_) => {
            let mut t = a.int_tuple(0)?;
            for i in 1..a.len() {
                let k = index(a, i)?;
                t = t.mode(k).ok_or_else(|| {
                    Error::invalid(format!(
                        "mode {k} does not exist in {t} of rank {}",
                        t.rank()
                    ))
                })?;
            }
            Ok(Value::from_int_tuple(t))
        }
        Value::Tiler(t) => {
            let mut part = Some(t.clone());
            for i in 1..a.len() {
                let k = index(a, i)?;
                part = match part {
                    Some(t) => t.mode(k)?,
                    None => {
                        return Err(Error::invalid(format!(
                            "mode {k} does not exist in the '_' entry of {t}"
                        )));
                    }
                };
            }
            Ok(part.map_or(Value::Slice(crate::SliceCoord::All), Value::from_tiler))
        }
        _ => {
            let p = path(a, 1)?;
            on_outer(a, |l| l.get(&p))
        }
    }
}

fn flatten(a: &Args<'_>) -> Result<Value> {
    match a.value(0)? {
        Value::Int(_) | Value::Tuple(_) => Ok(Value::from_int_tuple(a.int_tuple(0)?.flatten())),
        _ => on_outer(a, |l| Ok(l.flatten())),
    }
}

fn at(a: &Args<'_>) -> Result<Value> {
    if let Value::Composition(c) = a.value(0)? {
        return match a.value(1)? {
            Value::Slice(coord) => c.slice(coord).map(|c| Value::Composition(Box::new(c))),
            _ => c.at(&a.int_tuple(1)?).map(Value::Int),
        };
    }
    let c: ComposedLayout = a.composed(0)?;
    match a.value(1)? {
        // CuTe's slice_and_offset: the kept modes at the offset of the fixed ones.
        Value::Slice(coord) => c.slice(coord).map(Value::from_composed),
        _ => c.at(&a.int_tuple(1)?).map(Value::Int),
    }
}

fn coalesce(a: &Args<'_>) -> Result<Value> {
    if a.len() == 2 {
        let profile = a.int_tuple(1)?;
        on_outer(a, |l| algebra::coalesce_profile(l, &profile))
    } else {
        on_outer(a, algebra::coalesce)
    }
}

fn filter(a: &Args<'_>) -> Result<Value> {
    layout(algebra::filter(&a.layout(0)?))
}

fn composition(a: &Args<'_>) -> Result<Value> {
    let left = match a.value(0)? {
        Value::Int(_) => Value::Layout(a.layout(0)?),
        v => v.clone(),
    };
    compose(&left, a.value(1)?)
}

fn complement(a: &Args<'_>) -> Result<Value> {
    let l = a.layout(0)?;
    let cotarget = if a.len() == 2 {
        a.int_tuple(1)?
    } else {
        crate::IntTuple::Int(l.cosize())
    };
    layout(algebra::complement_to_shape(&l, &cotarget))
}

fn right_inverse(a: &Args<'_>) -> Result<Value> {
    match a.value(0)? {
        Value::Composed(c) => c.right_inverse().map(Value::from_composed),
        _ => layout(algebra::right_inverse(&a.layout(0)?)),
    }
}

fn left_inverse(a: &Args<'_>) -> Result<Value> {
    match a.value(0)? {
        Value::Composed(c) => c.left_inverse().map(Value::from_composed),
        _ => layout(algebra::left_inverse(&a.layout(0)?)),
    }
}

fn nullspace(a: &Args<'_>) -> Result<Value> {
    layout(algebra::nullspace(&a.layout(0)?))
}

/// A divide of a (possibly swizzled or composed) layout by a tiler: it acts on the outer layout
/// (CuTe's `layout_composed.hpp`).
fn divide(a: &Args<'_>, op: fn(&Layout, &algebra::Tiler) -> Result<Layout>) -> Result<Value> {
    let tiler = a.tiler(1)?;
    on_outer(a, |l| op(l, &tiler))
}

/// A product of a (possibly swizzled or composed) layout with a tiler, on the outer layout.
fn product(a: &Args<'_>, op: fn(&Layout, &algebra::Tiler) -> Result<Layout>) -> Result<Value> {
    let tiler = a.tiler(1)?;
    on_outer(a, |l| op(l, &tiler))
}

/// A rank-sensitive product (blocked, raked) of a (possibly swizzled or composed) layout with a
/// plain layout, on the outer layout.
fn rank_product(a: &Args<'_>, op: fn(&Layout, &Layout) -> Result<Layout>) -> Result<Value> {
    let b = a.layout(1)?;
    on_outer(a, |l| op(l, &b))
}

fn tile_to_shape(a: &Args<'_>) -> Result<Value> {
    let shape = a.int_tuple(1)?;
    if a.len() == 3 {
        let order = a.int_tuple(2)?;
        return on_outer(a, |l| algebra::tile_to_shape_ordered(l, &shape, &order));
    }
    on_outer(a, |l| algebra::tile_to_shape(l, &shape))
}

fn make_ordered_layout(a: &Args<'_>) -> Result<Value> {
    layout(algebra::make_ordered_layout(
        &a.int_tuple(0)?,
        &a.int_tuple(1)?,
    ))
}

fn max_common_vector(a: &Args<'_>) -> Result<Value> {
    algebra::max_common_vector(&a.layout(0)?, &a.layout(1)?).map(Value::Int)
}

fn max_common_layout(a: &Args<'_>) -> Result<Value> {
    layout(algebra::max_common_layout(&a.layout(0)?, &a.layout(1)?))
}

fn upcast(a: &Args<'_>) -> Result<Value> {
    match a.value(0)? {
        Value::Composed(_) => a.composed(0)?.upcast(a.int(1)?).map(Value::from_composed),
        _ => layout(algebra::upcast(&a.layout(0)?, a.int(1)?)),
    }
}

fn downcast(a: &Args<'_>) -> Result<Value> {
    match a.value(0)? {
        Value::Composed(_) => a.composed(0)?.downcast(a.int(1)?).map(Value::from_composed),
        _ => layout(algebra::downcast(&a.layout(0)?, a.int(1)?)),
    }
}

fn swizzle(a: &Args<'_>) -> Result<Value> {
    Swizzle::new(a.int(0)?, a.int(1)?, a.int(2)?).map(Value::Swizzle)
}

/// Whether the values of a composition are distinct (`onto`: exactly `0..size`), by
/// enumeration up to [`crate::verify::EXHAUSTIVE_LIMIT`] elements.
fn composition_values_distinct(c: &crate::composed::Composition, onto: bool) -> Result<bool> {
    if c.size() > crate::verify::EXHAUSTIVE_LIMIT {
        return Err(Error::invalid(format!(
            "the composed layout {c} has {} elements, over the enumeration limit {}",
            c.size(),
            crate::verify::EXHAUSTIVE_LIMIT
        )));
    }
    let mut values = c.values()?;
    values.sort_unstable();
    let distinct = values.windows(2).all(|w| w[0] != w[1]);
    Ok(distinct
        && (!onto
            || values.first().is_none_or(|&v| v == 0)
                && values.last().is_none_or(|&v| v == c.size() - 1)))
}

fn is_injective(a: &Args<'_>) -> Result<Value> {
    if let Value::Composition(c) = a.value(0)? {
        return composition_values_distinct(c, false).map(Value::Bool);
    }
    match a.value(0)? {
        Value::Composed(_) => crate::verify::is_injective(&a.composed(0)?),
        _ => algebra::is_injective(&a.layout(0)?),
    }
    .map(Value::Bool)
}

fn is_bijective(a: &Args<'_>) -> Result<Value> {
    if let Value::Composition(c) = a.value(0)? {
        return composition_values_distinct(c, true).map(Value::Bool);
    }
    match a.value(0)? {
        Value::Composed(_) => crate::verify::is_bijective(&a.composed(0)?),
        _ => algebra::is_bijective(&a.layout(0)?),
    }
    .map(Value::Bool)
}

/// The index path given by the arguments from `first` on.
fn path(a: &Args<'_>, first: usize) -> Result<Vec<usize>> {
    (first..a.len()).map(|i| index(a, i)).collect()
}

/// Whether argument `i` is an integer or a tuple (not a layout).
fn is_int_tuple(a: &Args<'_>, i: usize) -> Result<bool> {
    Ok(matches!(a.value(i)?, Value::Int(_) | Value::Tuple(_)))
}

/// The sub-tuple of `t` at `path`.
fn tuple_at(t: IntTuple, path: &[usize]) -> Result<IntTuple> {
    path.iter().try_fold(t, |t, &k| {
        t.mode(k).ok_or_else(|| {
            Error::invalid(format!(
                "mode {k} does not exist in {t} of rank {}",
                t.rank()
            ))
        })
    })
}

fn shape(a: &Args<'_>) -> Result<Value> {
    if let Value::Tiler(t) = a.value(0)? {
        // CuTe's shape of a Tile: the shape of every mode, `_` for a `_` entry.
        let mut part = t.shape();
        for k in path(a, 1)? {
            part = match part {
                crate::SliceCoord::Tuple(mut parts) if k < parts.len() => parts.swap_remove(k),
                other => {
                    return Err(Error::invalid(format!(
                        "mode {k} does not exist in the shape {other} of the tiler {t}"
                    )));
                }
            };
        }
        return Ok(slice_value(part));
    }
    let whole = if is_int_tuple(a, 0)? {
        a.int_tuple(0)?
    } else {
        outer(a, 0)?.shape().clone()
    };
    tuple_at(whole, &path(a, 1)?).map(Value::from_int_tuple)
}

fn stride(a: &Args<'_>) -> Result<Value> {
    if let Value::Composition(c) = a.value(0)? {
        return Err(Error::invalid(format!(
            "stride of {c}: a composed layout has no stride (CuTe deletes stride() of a \
             ComposedLayout; its outer layout's is stride(outer(...)))"
        )));
    }
    let c = a.composed(0)?;
    if !c.swizzles().is_empty() {
        return Err(Error::invalid(format!(
            "stride of {c}: a swizzled layout has no stride (its offsets are not linear)"
        )));
    }
    tuple_at(c.layout().stride().clone(), &path(a, 1)?).map(Value::from_int_tuple)
}

fn make_layout(a: &Args<'_>) -> Result<Value> {
    let all_ints = (0..a.len())
        .map(|i| is_int_tuple(a, i))
        .collect::<Result<Vec<_>>>()?;
    match (all_ints.iter().all(|&b| b), a.len()) {
        (true, 1) => layout(Layout::col_major(&a.int_tuple(0)?)),
        (true, 2) => layout(Layout::new(a.int_tuple(0)?, a.int_tuple(1)?)),
        (true, n) => Err(Error::invalid(format!(
            "make_layout of integers takes a shape and optionally a stride, got {n} arguments"
        ))),
        _ => {
            let modes = (0..a.len())
                .map(|i| match a.value(i)? {
                    Value::Layout(l) => Ok(l.clone()),
                    _ => Err(a.mismatch(i, "a layout (make_layout of layouts concatenates them)")),
                })
                .collect::<Result<Vec<_>>>()?;
            layout(Layout::from_modes(modes))
        }
    }
}

/// The top-level modes of a tuple argument (an integer is its own only mode).
fn tuple_modes(a: &Args<'_>, i: usize) -> Result<Vec<IntTuple>> {
    Ok(a.int_tuple(i)?.modes().to_vec())
}

fn append(a: &Args<'_>) -> Result<Value> {
    if is_int_tuple(a, 0)? && is_int_tuple(a, 1)? {
        let mut modes = tuple_modes(a, 0)?;
        modes.push(a.int_tuple(1)?);
        return Ok(Value::Tuple(IntTuple::Tuple(modes.into())));
    }
    layout(a.layout(0)?.append(&a.layout(1)?))
}

fn prepend(a: &Args<'_>) -> Result<Value> {
    if is_int_tuple(a, 0)? && is_int_tuple(a, 1)? {
        let mut modes = vec![a.int_tuple(1)?];
        modes.extend(tuple_modes(a, 0)?);
        return Ok(Value::Tuple(IntTuple::Tuple(modes.into())));
    }
    layout(a.layout(0)?.prepend(&a.layout(1)?))
}

fn replace(a: &Args<'_>) -> Result<Value> {
    let i = index(a, 1)?;
    if is_int_tuple(a, 0)? && is_int_tuple(a, 2)? {
        let mut modes = tuple_modes(a, 0)?;
        let rank = modes.len();
        let slot = modes.get_mut(i).ok_or_else(|| {
            Error::invalid(format!(
                "replace: mode {i} does not exist in {} of rank {rank}",
                a.int_tuple(0).map(|t| t.to_string()).unwrap_or_default()
            ))
        })?;
        *slot = a.int_tuple(2)?;
        return Ok(Value::Tuple(IntTuple::Tuple(modes.into())));
    }
    layout(a.layout(0)?.replace(i, &a.layout(2)?))
}

fn group(a: &Args<'_>) -> Result<Value> {
    let (b, e) = (index(a, 1)?, index(a, 2)?);
    if is_int_tuple(a, 0)? {
        let mut modes = tuple_modes(a, 0)?;
        if b > e || e > modes.len() {
            return Err(Error::invalid(format!(
                "group({b},{e}) is outside the {} modes of {}",
                modes.len(),
                a.int_tuple(0)?
            )));
        }
        if b == e {
            // CuTe's group<B,E> inserts the grouped tuple only when B < E.
            return Ok(Value::from_int_tuple(a.int_tuple(0)?));
        }
        let tail = modes.split_off(e);
        let grouped = modes.split_off(b);
        modes.push(IntTuple::Tuple(grouped.into()));
        modes.extend(tail);
        return Ok(Value::Tuple(IntTuple::Tuple(modes.into())));
    }
    on_outer(a, |l| l.group(b, e))
}

fn select(a: &Args<'_>) -> Result<Value> {
    let picks = path(a, 1)?;
    if is_int_tuple(a, 0)? {
        let t = a.int_tuple(0)?;
        let modes = picks
            .iter()
            .map(|&k| tuple_at(t.clone(), &[k]))
            .collect::<Result<Vec<_>>>()?;
        return Ok(Value::Tuple(IntTuple::Tuple(modes.into())));
    }
    if let Value::Tiler(t) = a.value(0)? {
        return t.select(&picks).map(Value::from_tiler);
    }
    on_outer(a, |l| l.select(&picks))
}

fn take(a: &Args<'_>) -> Result<Value> {
    let (b, e) = (index(a, 1)?, index(a, 2)?);
    if is_int_tuple(a, 0)? {
        let t = a.int_tuple(0)?;
        let modes = t.modes();
        if b >= e || e > modes.len() {
            return Err(Error::invalid(format!(
                "take({b},{e}) of {t}: needs begin < end <= rank {} (an empty tuple is not allowed)",
                modes.len()
            )));
        }
        return Ok(Value::Tuple(IntTuple::Tuple(
            modes.iter().skip(b).take(e - b).collect(),
        )));
    }
    if let Value::Tiler(t) = a.value(0)? {
        return t.take(b, e).map(Value::from_tiler);
    }
    on_outer(a, |l| l.take(b, e))
}

fn product_each(a: &Args<'_>) -> Result<Value> {
    a.int_tuple(0)?.product_each().map(Value::from_int_tuple)
}

fn recast(a: &Args<'_>) -> Result<Value> {
    let (old_bits, new_bits) = (a.int(1)?, a.int(2)?);
    match a.value(0)? {
        Value::Composed(_) => {
            // upcast then downcast by the reduced ratio, as for plain layouts.
            let c = a.composed(0)?;
            let (num, den) = algebra::cast::recast_ratio(old_bits, new_bits)?;
            let wide = if num == 1 { c } else { c.upcast(num)? };
            let narrow = if den == 1 { wide } else { wide.downcast(den)? };
            Ok(Value::from_composed(narrow))
        }
        _ => layout(algebra::recast(&a.layout(0)?, old_bits, new_bits)),
    }
}

/// A slicing coordinate argument: an integer, a tuple, or a coordinate with `_`.
fn slice_coord(a: &Args<'_>, i: usize) -> Result<crate::SliceCoord> {
    a.value(i)?
        .as_slice()
        .ok_or_else(|| a.mismatch(i, "a coordinate (integers, tuples and '_')"))
}

/// A sub-layout at an offset of argument 0 (a possibly swizzled or composed layout): the
/// sub-layout becomes the outer layout and the offset joins the base offset.
fn at_offset(a: &Args<'_>, (inner, offset): (Layout, i64)) -> Result<Value> {
    if let Value::Composition(c) = a.value(0)? {
        let total = crate::checked_add(c.base_offset(), offset, "the offset")?;
        return crate::composed::Composition::new(c.inner().clone(), total, inner)
            .map(|c| Value::Composition(Box::new(c)));
    }
    let c = a.composed(0)?;
    let total = crate::checked_add(c.base_offset(), offset, "the offset")?;
    Ok(Value::from_composed(ComposedLayout::new(
        c.swizzles().to_vec(),
        total,
        inner,
    )))
}

/// A shape that may hold `_`: a tuple value without one, a slicing coordinate with one.
fn slice_value(c: crate::SliceCoord) -> Value {
    fn ints(c: &crate::SliceCoord) -> Option<IntTuple> {
        match c {
            crate::SliceCoord::Index(i) => Some(IntTuple::Int(*i)),
            crate::SliceCoord::All => None,
            crate::SliceCoord::Tuple(parts) => parts
                .iter()
                .map(ints)
                .collect::<Option<Vec<_>>>()
                .map(|v| IntTuple::Tuple(v.into())),
        }
    }
    match ints(&c) {
        Some(t) => Value::from_int_tuple(t),
        None => Value::Slice(c),
    }
}

/// A step argument (`Step<_1,X,_1>`, or a tuple with `_`): a slicing coordinate.
fn step(a: &Args<'_>, i: usize) -> Result<crate::SliceCoord> {
    a.value(i)?
        .as_slice()
        .ok_or_else(|| a.mismatch(i, "a step such as Step<_1,X,_1> (integers and X or '_')"))
}

fn local_tile(a: &Args<'_>) -> Result<Value> {
    let (tiler, coord) = (a.tiler(1)?, slice_coord(a, 2)?);
    let l = outer(a, 0)?;
    let part = if a.len() == 4 {
        algebra::local_tile_projected(&l, &tiler, &coord, &step(a, 3)?)?
    } else {
        algebra::local_tile(&l, &tiler, &coord)?
    };
    at_offset(a, part)
}

fn local_partition(a: &Args<'_>) -> Result<Value> {
    let (thr, index) = (a.layout(1)?, a.int(2)?);
    let l = outer(a, 0)?;
    let part = if a.len() == 4 {
        algebra::local_partition_projected(&l, &thr, index, &step(a, 3)?)?
    } else {
        algebra::local_partition(&l, &thr, index)?
    };
    at_offset(a, part)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_unique() {
        let mut names: Vec<_> = FUNCTIONS.iter().map(|f| f.name).collect();
        names.sort_unstable();
        let before = names.len();
        names.dedup();
        assert_eq!(before, names.len());
    }

    #[test]
    fn arities_are_ordered() {
        assert!(FUNCTIONS.iter().all(|f| f.min_args <= f.max_args));
    }
}
