//! Static integers, basis elements and the coordinate functions in the expression language.
//!
//! `_4` is a static integer (CuTe's `Int<4>{}`), `4` a dynamic one; `_1@0` is a basis element
//! (CuTe's `E<0>`). A value with a static integer or a basis element among its leaves is
//! *typed* ([`Value::TypedTuple`], [`Value::TypedLayout`], [`Value::TypedTiler`]) and prints as
//! CuTe prints it; a value without is the plain value it always was, so expressions without
//! `_N` or `@` evaluate exactly as before.
//!
//! - The functions of [`FUNCTIONS`] (the coordinate functions, tuple arithmetic, `make_*`) are
//!   written once over both: on plain values they compute plain values, on typed values they
//!   also give every result leaf CuTe's kind.
//! - The layout algebra's functions ([`apply`]) take typed values through [`crate::typed`]:
//!   exact kinds for construction, the structural functions, evaluation, slicing, coalesce,
//!   composition, complement, the divides and the partitions; for the others, the plain
//!   function's result is static when every argument is (CuTe's rule over whole operands).
//!
//! ```
//! use tessel_layout::expr::eval;
//! assert_eq!(eval("make_layout((_2,4))").unwrap().to_string(), "(_2,4):(_1,_2)");
//! assert_eq!(eval("make_identity_layout((4,8))").unwrap().to_string(), "(4,8):(_1@0,_1@1)");
//! assert_eq!(eval("idx2crd(_16, (_3,(_2,_3)))").unwrap().to_string(), "(_1,(_1,_2))");
//! assert_eq!(eval("shape_div((3,4), 6)").unwrap().to_string(), "(1,2)");
//! assert_eq!(eval("composition((_4,_8):(_8,_1), _4:_2)").unwrap().to_string(), "(_2,_2):(_16,_1)");
//! ```

use super::functions::{Args, Function, f};
use super::value::Value;
use crate::basis::ScaledBasis;
use crate::error::{Error, Result};
use crate::int_tuple::IntTuple;
use crate::int_tuple::arith;
use crate::layout::SliceCoord;
use crate::leaf::Num;
use crate::static_int::Integer;
use crate::typed::TypedLayout;
use crate::typed::algebra::{self as talg, TypedTiler};

/// The coordinate functions, tuple arithmetic and CuTe's `make_*` constructors.
///
/// ```
/// assert!(tessel_layout::expr::typed::FUNCTIONS.iter().any(|f| f.name == "idx2crd"));
/// ```
pub const FUNCTIONS: &[Function] = &[
    f(
        "make_shape",
        "(s, ...)",
        1,
        16,
        "the tuple (s, ...) (CuTe's make_shape)",
        make_tuple,
    ),
    f(
        "make_stride",
        "(d, ...)",
        1,
        16,
        "the tuple (d, ...) (CuTe's make_stride)",
        make_tuple,
    ),
    f(
        "make_coord",
        "(c, ...)",
        1,
        16,
        "the tuple (c, ...) (CuTe's make_coord)",
        make_tuple,
    ),
    f(
        "make_tile",
        "(T, ...)",
        1,
        16,
        "the by-mode tiler [T, ...] (CuTe's make_tile)",
        make_tile,
    ),
    f(
        "make_identity_layout",
        "(S)",
        1,
        1,
        "S with the basis strides _1@i: maps every coordinate of S to itself",
        make_identity_layout,
    ),
    f(
        "make_identity_tensor",
        "(S)",
        1,
        1,
        "the layout of CuTe's make_identity_tensor(S): make_identity_layout(S)",
        make_identity_layout,
    ),
    f(
        "idx2crd",
        "(i, S[, D])",
        2,
        3,
        "the natural coordinate of i in the shape S (with a stride D: (i / D) % S per leaf)",
        |a| by_num(a, idx2crd::<i64>, idx2crd::<Integer>),
    ),
    f(
        "crd2idx",
        "(c, S[, D])",
        2,
        3,
        "the colexicographic index of c in S (with a stride D: the inner product)",
        |a| by_num(a, crd2idx::<i64>, crd2idx::<Integer>),
    ),
    f(
        "crd2crd",
        "(c, S, T)",
        3,
        3,
        "the coordinate of T with the same index as c in S",
        |a| by_num(a, crd2crd::<i64>, crd2crd::<Integer>),
    ),
    f(
        "increment",
        "(c, S)",
        2,
        2,
        "the next coordinate after c in the colexicographic order of S",
        increment,
    ),
    f(
        "compatible",
        "(A, B)",
        2,
        2,
        "whether the shape A is compatible with B (same size, A's coordinates are B's)",
        |a| by_num(a, compatible::<i64>, compatible::<Integer>),
    ),
    f(
        "congruent",
        "(A, B)",
        2,
        2,
        "whether A and B have the same profile",
        |a| Ok(Value::Bool(typed_arg(a, 0)?.congruent(&typed_arg(a, 1)?))),
    ),
    f(
        "weakly_congruent",
        "(A, B)",
        2,
        2,
        "whether B refines A's profile (an integer of A may stand for a tuple of B)",
        |a| {
            Ok(Value::Bool(
                typed_arg(a, 0)?.weakly_congruent(&typed_arg(a, 1)?),
            ))
        },
    ),
    f(
        "elem_less",
        "(A, B)",
        2,
        2,
        "whether every element of A is less than B's (the bounds check of predication)",
        |a| by_num(a, compare::<i64, 0>, compare::<Integer, 0>),
    ),
    f(
        "elem_leq",
        "(A, B)",
        2,
        2,
        "whether no element of B is less than A's",
        |a| by_num(a, compare::<i64, 1>, compare::<Integer, 1>),
    ),
    f(
        "lex_less",
        "(A, B)",
        2,
        2,
        "lexicographic order, first element first",
        |a| by_num(a, compare::<i64, 2>, compare::<Integer, 2>),
    ),
    f(
        "colex_less",
        "(A, B)",
        2,
        2,
        "colexicographic order, last element first",
        |a| by_num(a, compare::<i64, 3>, compare::<Integer, 3>),
    ),
    f(
        "shape_div",
        "(A, B)",
        2,
        2,
        "what is left of the shape A after its first B elements are divided out",
        |a| by_num(a, binary::<i64, 0>, binary::<Integer, 0>),
    ),
    f(
        "shape_mod",
        "(A, B)",
        2,
        2,
        "the first B elements of the shape A (the part shape_div divides out)",
        |a| by_num(a, binary::<i64, 1>, binary::<Integer, 1>),
    ),
    f(
        "ceil_div",
        "(A, B)",
        2,
        2,
        "A divided by B, rounded up (elementwise, or B folded over A's elements)",
        |a| by_num(a, binary::<i64, 2>, binary::<Integer, 2>),
    ),
    f(
        "round_up",
        "(A, B)",
        2,
        2,
        "A rounded up to a multiple of B (elementwise)",
        |a| by_num(a, binary::<i64, 3>, binary::<Integer, 3>),
    ),
    f(
        "elem_scale",
        "(A, B)",
        2,
        2,
        "A with every integer scaled by the product of B's corresponding element",
        |a| by_num(a, binary::<i64, 4>, binary::<Integer, 4>),
    ),
    f(
        "add",
        "(A, B)",
        2,
        2,
        "the elementwise sum (CuTe's ArithmeticTuple +), the shorter padded with _0",
        |a| by_num(a, binary::<i64, 5>, binary::<Integer, 5>),
    ),
    f(
        "sub",
        "(A, B)",
        2,
        2,
        "the elementwise difference (CuTe's ArithmeticTuple -), the shorter padded with _0",
        |a| by_num(a, binary::<i64, 6>, binary::<Integer, 6>),
    ),
    f(
        "filter_zeros",
        "(A, B)",
        2,
        2,
        "B with the elements paired with a (static) zero of A replaced by ones",
        |a| by_num(a, binary::<i64, 7>, binary::<Integer, 7>),
    ),
    f(
        "compact_order",
        "(S, order)",
        2,
        2,
        "the compact stride of S with its modes in the order given",
        |a| by_num(a, binary::<i64, 8>, binary::<Integer, 8>),
    ),
    f(
        "inner_product",
        "(A, B)",
        2,
        2,
        "the sum of the products of corresponding leaves",
        |a| by_num(a, inner_product::<i64>, inner_product::<Integer>),
    ),
    f(
        "product",
        "(S)",
        1,
        1,
        "the product of the leaves of S",
        |a| by_num(a, product::<i64>, product::<Integer>),
    ),
    f(
        "evenly_divides",
        "(S, T)",
        2,
        2,
        "whether the tiler shape T tiles S without a partial tile",
        |a| by_num(a, evenly_divides::<i64>, evenly_divides::<Integer>),
    ),
    f(
        "compact_col_major",
        "(S[, start])",
        1,
        2,
        "the column-major compact stride of S (from start, default _1)",
        compact::<false>,
    ),
    f(
        "compact_row_major",
        "(S[, start])",
        1,
        2,
        "the row-major compact stride of S (from start, default _1)",
        compact::<true>,
    ),
    f(
        "make_layout_like",
        "(L)",
        1,
        1,
        "the compact layout of L's shape with its modes ordered as L's strides",
        make_layout_like,
    ),
    f(
        "dice",
        "(coord, X)",
        2,
        2,
        "the modes of the tuple or layout X that coord fixes (the complement of slicing)",
        dice,
    ),
    f(
        "domain_distribute",
        "(A, B)",
        2,
        2,
        "an ordered layout of B of the shape A's elements, spread from the left",
        domain_distribute,
    ),
];

/// Whether an argument carries kinds.
fn any_typed(a: &Args<'_>) -> bool {
    (0..a.len()).any(|i| a.value(i).is_ok_and(Value::is_typed))
}

/// Calls `typed` when an argument carries kinds, `plain` otherwise: a function written once over
/// [`Num`] computes plain values on plain arguments and CuTe's kinds on typed ones.
fn by_num(
    a: &Args<'_>,
    plain: fn(&Args<'_>) -> Result<Value>,
    typed: fn(&Args<'_>) -> Result<Value>,
) -> Result<Value> {
    if any_typed(a) { typed(a) } else { plain(a) }
}

/// The leaves both evaluations of a [`Num`]-generic function read and write.
trait EvalNum: Num {
    /// Argument `i` as a tuple of these leaves.
    fn arg(a: &Args<'_>, i: usize) -> Result<IntTuple<Self>>;
    /// The value of a tuple of these leaves.
    fn to_value(t: IntTuple<Self>) -> Value;
}

impl EvalNum for i64 {
    fn arg(a: &Args<'_>, i: usize) -> Result<IntTuple<i64>> {
        a.int_tuple(i)
    }

    fn to_value(t: IntTuple<i64>) -> Value {
        Value::from_int_tuple(t)
    }
}

impl EvalNum for Integer {
    fn arg(a: &Args<'_>, i: usize) -> Result<IntTuple<Integer>> {
        a.value(i)?
            .as_integers()
            .ok_or_else(|| a.mismatch(i, "an integer or a tuple"))?
            .map_err(|e| e.context(format!("argument {} of {}", i + 1, a.function_name())))
    }

    fn to_value(t: IntTuple<Integer>) -> Value {
        Value::from_integers(t)
    }
}

/// Argument `i` as a typed tuple (integers, tuples, basis elements).
fn typed_arg(a: &Args<'_>, i: usize) -> Result<IntTuple<ScaledBasis>> {
    a.value(i)?
        .as_typed_tuple()
        .ok_or_else(|| a.mismatch(i, "an integer or a tuple"))
}

fn typed_layout_arg(a: &Args<'_>, i: usize) -> Result<TypedLayout> {
    a.value(i)?
        .as_typed_layout()
        .ok_or_else(|| a.mismatch(i, "a layout"))?
}

fn typed_tiler_arg(a: &Args<'_>, i: usize) -> Result<TypedTiler> {
    a.value(i)?
        .as_typed_tiler()
        .ok_or_else(|| a.mismatch(i, "a layout or tiler"))?
}

fn make_tuple(a: &Args<'_>) -> Result<Value> {
    let items = (0..a.len())
        .map(|i| typed_arg(a, i))
        .collect::<Result<Vec<_>>>()?;
    Ok(Value::from_typed_tuple(IntTuple::Tuple(items.into())))
}

fn make_tile(a: &Args<'_>) -> Result<Value> {
    if any_typed(a) {
        let modes = (0..a.len())
            .map(|i| typed_tiler_arg(a, i))
            .collect::<Result<Vec<_>>>()?;
        return Ok(Value::from_typed_tiler(TypedTiler::ByMode(modes)));
    }
    let modes = (0..a.len())
        .map(|i| a.tiler(i).map(Some))
        .collect::<Result<Vec<_>>>()?;
    Ok(Value::Tiler(crate::Tiler::ByMode(modes)))
}

fn make_identity_layout(a: &Args<'_>) -> Result<Value> {
    let shape = Integer::arg(a, 0)?;
    TypedLayout::identity(&shape).map(Value::from_typed_layout)
}

fn idx2crd<N: EvalNum>(a: &Args<'_>) -> Result<Value> {
    let (i, s) = (N::arg(a, 0)?, N::arg(a, 1)?);
    let c = if a.len() == 3 {
        crate::coord::idx2crd_strided(&i, &s, &N::arg(a, 2)?)?
    } else {
        crate::coord::idx2crd(&i, &s)?
    };
    Ok(N::to_value(c))
}

fn crd2idx<N: EvalNum>(a: &Args<'_>) -> Result<Value> {
    let (c, s) = (N::arg(a, 0)?, N::arg(a, 1)?);
    let i = if a.len() == 3 {
        crate::coord::crd2idx(&c, &s, &N::arg(a, 2)?)?
    } else {
        crate::coord::crd2idx_colex(&c, &s)?
    };
    Ok(N::to_value(IntTuple::Int(i)))
}

fn crd2crd<N: EvalNum>(a: &Args<'_>) -> Result<Value> {
    let c = crate::coord::crd2crd(&N::arg(a, 0)?, &N::arg(a, 1)?, &N::arg(a, 2)?)?;
    Ok(N::to_value(c))
}

fn increment(a: &Args<'_>) -> Result<Value> {
    let (mut c, s) = (Integer::arg(a, 0)?.values(), Integer::arg(a, 1)?.values());
    let before = c.clone();
    if crate::coord::increment(&mut c, &s)? {
        Ok(Value::from_int_tuple(c))
    } else {
        Err(Error::invalid(format!(
            "increment: {before} is the last coordinate of {s}"
        )))
    }
}

fn compatible<N: EvalNum>(a: &Args<'_>) -> Result<Value> {
    Ok(Value::Bool(crate::coord::compatible(
        &N::arg(a, 0)?,
        &N::arg(a, 1)?,
    )))
}

fn compare<N: EvalNum, const WHICH: u8>(a: &Args<'_>) -> Result<Value> {
    let (x, y) = (N::arg(a, 0)?, N::arg(a, 1)?);
    let r = match WHICH {
        0 => crate::coord::elem_less(&x, &y)?,
        1 => crate::coord::elem_leq(&x, &y)?,
        2 => crate::coord::lex_less(&x, &y)?,
        _ => crate::coord::colex_less(&x, &y)?,
    };
    Ok(Value::Bool(r))
}

fn binary<N: EvalNum, const WHICH: u8>(a: &Args<'_>) -> Result<Value> {
    let (x, y) = (N::arg(a, 0)?, N::arg(a, 1)?);
    let r = match WHICH {
        0 => arith::shape_div(&x, &y)?,
        1 => arith::shape_mod(&x, &y)?,
        2 => arith::ceil_div(&x, &y)?,
        3 => arith::round_up(&x, &y)?,
        4 => arith::elem_scale(&x, &y)?,
        5 => arith::add(&x, &y)?,
        6 => arith::sub(&x, &y)?,
        7 => arith::filter_zeros(&x, &y)?,
        _ => arith::compact_order(&x, &y)?,
    };
    Ok(N::to_value(r))
}

fn inner_product<N: EvalNum>(a: &Args<'_>) -> Result<Value> {
    let r = arith::inner_product(&N::arg(a, 0)?, &N::arg(a, 1)?)?;
    Ok(N::to_value(IntTuple::Int(r)))
}

fn product<N: EvalNum>(a: &Args<'_>) -> Result<Value> {
    Ok(N::to_value(IntTuple::Int(arith::product(&N::arg(a, 0)?)?)))
}

fn evenly_divides<N: EvalNum>(a: &Args<'_>) -> Result<Value> {
    arith::evenly_divides(&N::arg(a, 0)?, &N::arg(a, 1)?).map(Value::Bool)
}

/// CuTe's compact strides start at `_1` and give a static `_1` extent `_0`: computed with kinds
/// whatever the arguments' are.
fn compact<const ROW: bool>(a: &Args<'_>) -> Result<Value> {
    type N = Integer;
    let shape = N::arg(a, 0)?;
    let start = if a.len() == 2 {
        match N::arg(a, 1)? {
            IntTuple::Int(v) => v,
            t => {
                return Err(Error::invalid(format!(
                    "{}: the start must be an integer, got {t}",
                    a.function_name()
                )));
            }
        }
    } else {
        N::constant(1)
    };
    let r = if ROW {
        arith::compact_row_major(&shape, start)?
    } else {
        arith::compact_col_major(&shape, start)?
    };
    Ok(N::to_value(r))
}

fn make_layout_like(a: &Args<'_>) -> Result<Value> {
    if any_typed(a) {
        return typed_layout_arg(a, 0)?
            .make_layout_like()
            .map(Value::from_typed_layout);
    }
    crate::make::make_layout_like(&a.layout(0)?).map(Value::Layout)
}

fn slice_arg(a: &Args<'_>, i: usize) -> Result<SliceCoord> {
    a.value(i)?
        .as_slice()
        .ok_or_else(|| a.mismatch(i, "a coordinate (integers, tuples and '_')"))
}

fn dice(a: &Args<'_>) -> Result<Value> {
    let coord = slice_arg(a, 0)?;
    match a.value(1)? {
        Value::Layout(l) => crate::dice::dice_layout(&coord, l).map(Value::Layout),
        Value::TypedLayout(l) => l.dice(&coord).map(Value::from_typed_layout),
        _ => crate::dice::dice(&coord, &typed_arg(a, 1)?).map(Value::from_typed_tuple),
    }
}

fn domain_distribute(a: &Args<'_>) -> Result<Value> {
    let plain = |i: usize| -> Result<IntTuple> { Integer::arg(a, i).map(|t| t.values()) };
    let r = crate::make::domain_distribute(&plain(0)?, &plain(1)?)?;
    let all_static = Integer::arg(a, 0)?.is_static() && Integer::arg(a, 1)?.is_static();
    Ok(Value::from_typed_layout(TypedLayout::of(&r, all_static)))
}

/// `result` of a function of a layout at `offset`: a layout stays at the offset (added to its
/// own), and the value of `at` is moved by it; other results are the layout's.
fn shift(result: Value, offset: &IntTuple<Integer>, is_value: bool) -> Result<Value> {
    Ok(match result {
        Value::TypedOffset(at) => {
            let (inner, layout) = *at;
            at_offset(layout, arith::add(offset, &inner)?)
        }
        Value::Layout(l) => at_offset(TypedLayout::of(&l, false), offset.clone()),
        Value::TypedLayout(l) => at_offset(*l, offset.clone()),
        Value::Composed(c) if c.swizzles().is_empty() => {
            let own = IntTuple::Int(Integer::Dynamic(c.base_offset()));
            at_offset(
                TypedLayout::of(c.layout(), false),
                arith::add(offset, &own)?,
            )
        }
        other if is_value => match other.as_integers() {
            Some(v) => Value::from_integers(arith::add(offset, &v?)?),
            None => other,
        },
        other => other,
    })
}

/// The value of a part of a layout that starts at `offset`: the layout itself at a zero
/// offset, else `OFFSET o LAYOUT` (a coordinate offset for basis strides).
fn at_offset(layout: TypedLayout, offset: IntTuple<Integer>) -> Value {
    let zero = offset.iter_leaves().all(|v| v.value() == 0);
    if zero {
        return Value::from_typed_layout(layout);
    }
    Value::TypedOffset(Box::new((offset, layout)))
}

/// An algebra function of the builtins applied to arguments of which some carry kinds: the
/// typed implementation where [`crate::typed`] has one, otherwise the plain function on the
/// values, static when every argument is (a compile-time parameter of CuTe's such as a mode
/// index does not count).
///
/// ```
/// use tessel_layout::expr::eval;
/// assert_eq!(eval("size((_4,8))").unwrap().to_string(), "32");
/// assert_eq!(eval("size((_4,_8))").unwrap().to_string(), "_32");
/// assert_eq!(eval("right_inverse((_4,_2):(_2,_1))").unwrap().to_string(), "(_2,_4):(_4,_1)");
/// ```
pub fn apply(function: &'static Function, values: &[Value]) -> Result<Value> {
    let a = Args::new(function, values);
    if FUNCTIONS.iter().any(|f| f.name == function.name) {
        // Written over both plain and typed values.
        return (function.call)(&a);
    }
    if let Some(Value::TypedOffset(at)) = values.first() {
        // A layout at an offset (CuTe's tensor): the function of its layout, at the same offset.
        let (offset, layout) = &**at;
        let mut inner = values.to_vec();
        inner[0] = Value::TypedLayout(Box::new(layout.clone()));
        let result = apply(function, &inner)?;
        return shift(result, offset, function.name == "at");
    }
    let l = |i| typed_layout_arg(&a, i);
    let index = |i: usize| -> Result<usize> {
        usize::try_from(
            a.value(i)?
                .to_plain()?
                .as_int_tuple()
                .and_then(|t| t.as_int())
                .ok_or_else(|| a.mismatch(i, "a mode index"))?,
        )
        .map_err(|_| a.mismatch(i, "a mode index (0 or more)"))
    };
    let path = |first: usize| (first..a.len()).map(index).collect::<Result<Vec<_>>>();
    let is_layout = |i: usize| matches!(a.value(i), Ok(Value::TypedLayout(_) | Value::Layout(_)));
    let result = match function.name {
        "size" if is_layout(0) => Value::from_integers(IntTuple::Int(l(0)?.size())),
        "size" => Value::from_integers(IntTuple::Int(arith::product(&Integer::arg(&a, 0)?)?)),
        "rank" if is_layout(0) => {
            Value::from_integers(IntTuple::Int(Integer::Static(count(l(0)?.rank()))))
        }
        "depth" if is_layout(0) => {
            Value::from_integers(IntTuple::Int(Integer::Static(count(l(0)?.depth()))))
        }
        "shape" if is_layout(0) => {
            tuple_at(l(0)?.shape().map(&mut |v| ScaledBasis::from(*v)), &path(1)?)?
        }
        "stride" if is_layout(0) => tuple_at(l(0)?.stride().clone(), &path(1)?)?,
        "mode" | "get" | "layout" if is_layout(0) => {
            Value::from_typed_layout(l(0)?.get(&path(1)?)?)
        }
        "shape" | "mode" | "get" => tuple_at(typed_arg(&a, 0)?, &path(1)?)?,
        "flatten" if is_layout(0) => Value::from_typed_layout(l(0)?.flatten()),
        "flatten" => Value::from_typed_tuple(typed_arg(&a, 0)?.flatten()),
        "select" if is_layout(0) => Value::from_typed_layout(l(0)?.select(&path(1)?)?),
        "take" if is_layout(0) => Value::from_typed_layout(l(0)?.take(index(1)?, index(2)?)?),
        "group" if is_layout(0) => Value::from_typed_layout(l(0)?.group(index(1)?, index(2)?)?),
        "append" if is_layout(0) || is_layout(1) => Value::from_typed_layout(l(0)?.append(&l(1)?)),
        "prepend" if is_layout(0) || is_layout(1) => {
            Value::from_typed_layout(l(0)?.prepend(&l(1)?))
        }
        "append" | "prepend" => {
            let mut modes = typed_arg(&a, 0)?.modes().to_vec();
            let item = typed_arg(&a, 1)?;
            if function.name == "append" {
                modes.push(item);
            } else {
                modes.insert(0, item);
            }
            Value::from_typed_tuple(IntTuple::Tuple(modes.into()))
        }
        "product_each" => {
            let t = Integer::arg(&a, 0)?;
            let each = match &t {
                IntTuple::Int(_) => t.clone(),
                IntTuple::Tuple(items) => IntTuple::Tuple(
                    items
                        .iter()
                        .map(|m| arith::product(&m).map(IntTuple::Int))
                        .collect::<Result<_>>()?,
                ),
            };
            Value::from_integers(each)
        }
        "at" => match a.value(1)? {
            Value::Slice(coord) => {
                let (kept, offset) = l(0)?.slice(coord)?;
                at_offset(kept, offset)
            }
            _ => Value::from_integers(l(0)?.at(&Integer::arg(&a, 1)?)?),
        },
        "make_layout" if (0..a.len()).all(|i| !is_layout(i)) => {
            let shape = Integer::arg(&a, 0)?;
            let layout = if a.len() == 2 {
                TypedLayout::new(shape, typed_arg(&a, 1)?)?
            } else if a.len() == 1 {
                TypedLayout::compact(&shape)?
            } else {
                return Err(Error::invalid(format!(
                    "make_layout of integers takes a shape and optionally a stride, got {} \
                     arguments",
                    a.len()
                )));
            };
            Value::from_typed_layout(layout)
        }
        "make_layout" => {
            let modes = (0..a.len()).map(l).collect::<Result<Vec<_>>>()?;
            Value::from_typed_layout(TypedLayout::from_modes(modes))
        }
        "coalesce" if a.len() == 1 => Value::from_typed_layout(talg::coalesce(&l(0)?)),
        "composition" => compose(a.value(0)?, a.value(1)?)?,
        "complement" => {
            let layout = l(0)?;
            let cotarget = if a.len() == 2 {
                Integer::arg(&a, 1)?
            } else {
                let plain = layout.values()?;
                IntTuple::Int(Integer::of(plain.cosize(), layout.is_static()))
            };
            Value::from_typed_layout(talg::complement(&layout, &cotarget)?)
        }
        "logical_divide" => divide(&a, talg::logical_divide)?,
        "zipped_divide" => divide(&a, talg::zipped_divide)?,
        "tiled_divide" => divide(&a, talg::tiled_divide)?,
        "flat_divide" => divide(&a, talg::flat_divide)?,
        "local_tile" => {
            let (tile, offset) =
                talg::local_tile(&l(0)?, &typed_tiler_arg(&a, 1)?, &slice_arg(&a, 2)?)?;
            at_offset(tile, offset)
        }
        "local_partition" => {
            let thread = a
                .value(2)?
                .to_plain()?
                .as_int_tuple()
                .and_then(|t| t.as_int())
                .ok_or_else(|| a.mismatch(2, "a thread index"))?;
            let (part, offset) = talg::local_partition(&l(0)?, &l(1)?, thread)?;
            at_offset(part, offset)
        }
        _ => return fallback(function, values),
    };
    Ok(result)
}

fn count(n: usize) -> i64 {
    i64::try_from(n).unwrap_or(i64::MAX)
}

fn tuple_at(t: IntTuple<ScaledBasis>, path: &[usize]) -> Result<Value> {
    let sub = path.iter().try_fold(t, |t, &k| {
        t.mode(k).ok_or_else(|| {
            Error::invalid(format!(
                "mode {k} does not exist in {t} of rank {}",
                t.rank()
            ))
        })
    })?;
    Ok(Value::from_typed_tuple(sub))
}

fn divide(a: &Args<'_>, op: fn(&TypedLayout, &TypedTiler) -> Result<TypedLayout>) -> Result<Value> {
    op(&typed_layout_arg(a, 0)?, &typed_tiler_arg(a, 1)?).map(Value::from_typed_layout)
}

/// The arguments of CuTe's that are compile-time parameters (mode indices, cast widths): they
/// do not make a result dynamic.
fn template_arguments(name: &str) -> &'static [usize] {
    match name {
        "upcast" | "downcast" | "replace" => &[1],
        "recast" | "recast_layout" => &[1, 2],
        "swizzle" => &[0, 1, 2],
        _ => &[],
    }
}

/// Whether an argument is static throughout: a typed value whose every leaf is static, or a
/// value that is a compile-time entity in CuTe (a swizzle, an atom).
fn is_static_value(v: &Value) -> bool {
    match v {
        Value::TypedTuple(t) => t.iter_leaves().all(|b| b.value().is_static()),
        Value::TypedLayout(l) => l.is_static(),
        Value::TypedTiler(t) => t.is_static(),
        Value::Swizzle(_) | Value::CopyAtom(_) | Value::MmaAtom(_) => true,
        _ => false,
    }
}

/// The plain function on the values of the arguments (kinds dropped), its result static when
/// every argument but CuTe's compile-time parameters is static.
fn fallback(function: &'static Function, values: &[Value]) -> Result<Value> {
    let plain = values
        .iter()
        .map(|v| {
            v.to_plain().map_err(|e| {
                e.context(format!(
                    "{}: takes integer strides and integers (basis elements are coordinates)",
                    function.name
                ))
            })
        })
        .collect::<Result<Vec<_>>>()?;
    let result = (function.call)(&Args::new(function, &plain))?;
    let skip = template_arguments(function.name);
    let all_static = values
        .iter()
        .enumerate()
        .all(|(i, v)| skip.contains(&i) || is_static_value(v));
    if !all_static {
        return Ok(result);
    }
    Ok(match result {
        Value::Int(v) => Value::from_integers(IntTuple::Int(Integer::Static(v))),
        Value::Tuple(t) => Value::from_integers(IntTuple::<Integer>::of(&t, true)),
        Value::Layout(l) => Value::from_typed_layout(TypedLayout::of(&l, true)),
        Value::Tiler(t) => match TypedTiler::of(&t, true) {
            Some(typed) => Value::from_typed_tiler(typed),
            None => Value::Tiler(t),
        },
        other => other,
    })
}

/// `left o right` where a side carries kinds: a typed composition of layouts (with a layout or a
/// tiler on the right); a swizzle or an offset on the left takes the values (a swizzled layout
/// carries no kinds).
///
/// ```
/// use tessel_layout::expr::eval;
/// assert_eq!(eval("(_6,_2):(_8,_2) o (_4,_3):(_3,_1)").unwrap().to_string(), "((_2,_2),_3):((_24,_2),_8)");
/// assert_eq!(eval("Sw<3,3,3> o (_8,_64):(_64,_1)").unwrap().to_string(), "Sw<3,3,3> o (8,64):(64,1)");
/// ```
pub fn compose(left: &Value, right: &Value) -> Result<Value> {
    if let Value::TypedOffset(at) = left {
        let (offset, layout) = &**at;
        let inner = compose(&Value::TypedLayout(Box::new(layout.clone())), right)?;
        return shift(inner, offset, false);
    }
    let typed_left = matches!(
        left,
        Value::TypedLayout(_) | Value::Layout(_) | Value::TypedTuple(_) | Value::Tuple(_)
    );
    let typed_right = right.as_typed_tiler().is_some() && !matches!(right, Value::Composed(_));
    if typed_left && typed_right {
        let a = left
            .as_typed_layout()
            .ok_or_else(|| Error::invalid(format!("cannot compose {}", left.describe())))??;
        let r = match right.as_typed_tiler().transpose()? {
            Some(TypedTiler::Layout(b)) => talg::composition(&a, &b)?,
            Some(by_mode) => talg::compose_tiler(&a, &by_mode)?,
            None => unreachable!("checked above"),
        };
        return Ok(Value::from_typed_layout(r));
    }
    super::compose::compose(&left.to_plain()?, &right.to_plain()?)
}

/// The value of a tuple literal with a typed element: a typed tuple when every element is an
/// integer or a tuple, else the layout whose modes are the elements.
pub(crate) fn tuple_value(values: &[Value]) -> Result<Value> {
    let tuples: Option<Vec<_>> = values.iter().map(Value::as_typed_tuple).collect();
    if let Some(items) = tuples {
        return Ok(Value::from_typed_tuple(IntTuple::Tuple(items.into())));
    }
    let modes = values
        .iter()
        .map(|v| {
            v.as_typed_layout().ok_or_else(|| {
                Error::invalid(format!(
                    "a tuple may hold integers, tuples or layouts, not {}",
                    v.describe()
                ))
            })?
        })
        .collect::<Result<Vec<_>>>()?;
    Ok(Value::from_typed_layout(TypedLayout::from_modes(modes)))
}

/// The value of a layout literal `S:D` with a typed part.
pub(crate) fn layout_value(shape: &Value, stride: &Value) -> Result<Value> {
    let shape = shape.as_integers().ok_or_else(|| {
        Error::invalid(format!(
            "the shape of a layout must be an integer or a tuple, got {}",
            shape.describe()
        ))
    })??;
    let stride = stride.as_typed_tuple().ok_or_else(|| {
        Error::invalid(format!(
            "the stride of a layout must be an integer or a tuple, got {}",
            stride.describe()
        ))
    })?;
    TypedLayout::new(shape, stride).map(Value::from_typed_layout)
}

/// The value of a by-mode tiler literal with a typed mode (`_` is not a mode of a typed tiler).
pub(crate) fn tiler_value(modes: &[Option<(Value, crate::error::Span)>]) -> Result<Value> {
    let modes = modes
        .iter()
        .map(|m| match m {
            None => Err(Error::invalid(
                "a tiler with static integers or basis elements keeps no mode with '_'",
            )),
            Some((v, span)) => v
                .as_typed_tiler()
                .ok_or_else(|| {
                    Error::invalid(format!(
                        "a tiler mode must be a layout, a shape or a tiler, got {}",
                        v.describe()
                    ))
                    .at(*span)
                })?
                .map_err(|e| e.at(*span)),
        })
        .collect::<Result<Vec<_>>>()?;
    Ok(Value::from_typed_tiler(TypedTiler::ByMode(modes)))
}
