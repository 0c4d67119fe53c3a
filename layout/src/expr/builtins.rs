//! The built-in functions of the expression language: CuTe's layout algebra, by CuTe's names.
//!
//! One row per function; the implementations below convert arguments through [`Args`] and call
//! the algebra in [`crate::algebra`].
//!
//! ```
//! use tessel_layout::expr::{builtins::FUNCTIONS, eval};
//! assert!(FUNCTIONS.iter().any(|f| f.name == "complement"));
//! // DESIGN.md: complement(4:2, 24) = (2,3):(1,8).
//! assert_eq!(eval("complement(4:2, 24)").unwrap().to_string(), "(2,3):(1,8)");
//! ```

use super::eval::{compose, map_inner};
use super::functions::{Args, Function};
use super::value::Value;
use crate::algebra;
use crate::composed::ComposedLayout;
use crate::error::{Error, Result};
use crate::layout::Layout;
use crate::swizzle::Swizzle;

/// Builds a table row.
const fn f(
    name: &'static str,
    params: &'static str,
    min_args: usize,
    max_args: usize,
    summary: &'static str,
    call: fn(&Args<'_>) -> Result<Value>,
) -> Function {
    Function {
        name,
        params,
        min_args,
        max_args,
        summary,
        call,
    }
}

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
        "the offset L(coord) of a 1-D, flat or nested coordinate",
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
        "(block, shape)",
        2,
        2,
        "repeat block to fill shape",
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
        _ => Ok(Value::Int(a.composed(0)?.size())),
    }
}

/// The most offsets `cosize` enumerates for a swizzled layout.
const COSIZE_ENUMERATION_LIMIT: i64 = 1 << 20;

fn cosize(a: &Args<'_>) -> Result<Value> {
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
    let max = c.offsets().into_iter().max().unwrap_or(0);
    crate::checked_add(max, 1, "cosize").map(Value::Int)
}

fn rank(a: &Args<'_>) -> Result<Value> {
    match a.value(0)? {
        Value::Int(_) | Value::Tuple(_) => Ok(count(a.int_tuple(0)?.rank())),
        _ => Ok(count(a.composed(0)?.layout().rank())),
    }
}

fn depth(a: &Args<'_>) -> Result<Value> {
    match a.value(0)? {
        Value::Int(_) | Value::Tuple(_) => Ok(count(a.int_tuple(0)?.depth())),
        _ => Ok(count(a.composed(0)?.layout().depth())),
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
                t = t.mode(k).cloned().ok_or_else(|| {
                    Error::invalid(format!(
                        "mode {k} does not exist in {t} of rank {}",
                        t.rank()
                    ))
                })?;
            }
            Ok(Value::from_int_tuple(t))
        }
        _ => {
            let c = a.composed(0)?;
            map_inner(&c, |l| {
                let mut l = l.clone();
                for i in 1..a.len() {
                    l = l.mode(index(a, i)?)?;
                }
                Ok(l)
            })
        }
    }
}

fn flatten(a: &Args<'_>) -> Result<Value> {
    match a.value(0)? {
        Value::Int(_) | Value::Tuple(_) => Ok(Value::from_int_tuple(a.int_tuple(0)?.flatten())),
        _ => map_inner(&a.composed(0)?, |l| Ok(l.flatten())),
    }
}

fn at(a: &Args<'_>) -> Result<Value> {
    let c: ComposedLayout = a.composed(0)?;
    c.at(&a.int_tuple(1)?).map(Value::Int)
}

fn coalesce(a: &Args<'_>) -> Result<Value> {
    let c = a.composed(0)?;
    if a.len() == 2 {
        let profile = a.int_tuple(1)?;
        map_inner(&c, |l| algebra::coalesce_profile(l, &profile))
    } else {
        map_inner(&c, algebra::coalesce)
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

/// A divide of a (possibly swizzled) layout by a tiler: divides compose on the right.
fn divide(a: &Args<'_>, op: fn(&Layout, &algebra::Tiler) -> Result<Layout>) -> Result<Value> {
    let c = a.composed(0)?;
    let tiler = a.tiler(1)?;
    map_inner(&c, |l| op(l, &tiler))
}

/// A product of a layout with a tiler.
fn product(a: &Args<'_>, op: fn(&Layout, &algebra::Tiler) -> Result<Layout>) -> Result<Value> {
    layout(op(&a.layout(0)?, &a.tiler(1)?))
}

/// A rank-sensitive product of two plain layouts (blocked, raked).
fn rank_product(a: &Args<'_>, op: fn(&Layout, &Layout) -> Result<Layout>) -> Result<Value> {
    layout(op(&a.layout(0)?, &a.layout(1)?))
}

fn tile_to_shape(a: &Args<'_>) -> Result<Value> {
    layout(algebra::tile_to_shape(&a.layout(0)?, &a.int_tuple(1)?))
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

fn is_injective(a: &Args<'_>) -> Result<Value> {
    match a.value(0)? {
        Value::Composed(_) => crate::verify::is_injective(&a.composed(0)?),
        _ => algebra::is_injective(&a.layout(0)?),
    }
    .map(Value::Bool)
}

fn is_bijective(a: &Args<'_>) -> Result<Value> {
    match a.value(0)? {
        Value::Composed(_) => crate::verify::is_bijective(&a.composed(0)?),
        _ => algebra::is_bijective(&a.layout(0)?),
    }
    .map(Value::Bool)
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
