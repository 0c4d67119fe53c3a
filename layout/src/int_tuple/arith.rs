//! Arithmetic on integer tuples, as CuTe's `include/cute/int_tuple.hpp` and
//! `include/cute/stride.hpp` (CUTLASS v4.2.1) define it: products, `shape_div`, `shape_mod`,
//! `ceil_div`, `round_up`, `elem_scale`, `inner_product`, elementwise sums and differences (the
//! `ArithmeticTuple` operators), `evenly_divides`, `filter_zeros` and the compact strides
//! (`compact_col_major`, `compact_row_major`, `compact_order`).
//!
//! Every function is generic over the leaf's [`Num`] arithmetic: on plain `i64` tuples it
//! computes values, on [`Integer`](crate::static_int::Integer) tuples it also gives each result
//! leaf CuTe's kind (static exactly when every leaf it is computed from is static). Where CuTe
//! decides something at compile time (which stride is a static zero, how static orders compare),
//! an `Integer` leaf takes part only when it is static, while a plain `i64` leaf, whose value is
//! all tessel has, always does ([`Num::is_decidable`]).
//!
//! ```
//! use tessel_layout::IntTuple;
//! use tessel_layout::int_tuple::arith::{ceil_div, shape_div};
//! use tessel_layout::static_int::Integer;
//! // pycute test/python/pycute/test_int_tuple.py (CUTLASS v4.2.1).
//! let a: IntTuple = "((3,4),6)".parse().unwrap();
//! assert_eq!(shape_div(&a, &IntTuple::Int(36)).unwrap().to_string(), "((1,1),2)");
//! let s: IntTuple<Integer> = "(_4,8)".parse().unwrap();
//! assert_eq!(ceil_div(&s, &"(_2,_3)".parse().unwrap()).unwrap().to_string(), "(_2,3)");
//! ```

use crate::error::{Error, ErrorKind, Result};
use crate::int_tuple::IntTuple;
use crate::leaf::Num;

fn not_congruent(what: &str, a: &impl std::fmt::Display, b: &impl std::fmt::Display) -> Error {
    Error::new(
        ErrorKind::NotCongruent,
        format!("{what} of {a} and {b}: the ranks do not match"),
    )
}

/// The product of the leaves (`_1` for an empty tuple; static when every leaf is).
///
/// ```
/// use tessel_layout::{IntTuple, int_tuple::arith::product, static_int::Integer};
/// assert_eq!(product(&"(_2,(_3,_4))".parse::<IntTuple<Integer>>().unwrap()).unwrap(), Integer::Static(24));
/// assert_eq!(product(&"(_2,3)".parse::<IntTuple<Integer>>().unwrap()).unwrap(), Integer::Dynamic(6));
/// assert_eq!(product(&IntTuple::<i64>::tuple([])).unwrap(), 1);
/// ```
pub fn product<N: Num>(t: &IntTuple<N>) -> Result<N> {
    t.iter_leaves()
        .try_fold(N::constant(1), |acc, &v| acc.times(v))
}

/// The sum of the leaves (`_0` for an empty tuple).
///
/// ```
/// use tessel_layout::{IntTuple, int_tuple::arith::sum};
/// assert_eq!(sum(&IntTuple::from((3, (4, 5)))).unwrap(), 12);
/// ```
pub fn sum<N: Num>(t: &IntTuple<N>) -> Result<N> {
    t.iter_leaves()
        .try_fold(N::constant(0), |acc, &v| acc.plus(v))
}

/// CuTe's `inner_product`: the sum of the products of corresponding leaves of two congruent
/// tuples.
///
/// ```
/// use tessel_layout::{IntTuple, int_tuple::arith::inner_product};
/// // pycute test_int_tuple.py: inner_product(((2,3),4), ((2,1),2)) == 15.
/// let a = IntTuple::from(((2, 3), 4));
/// let b = IntTuple::from(((2, 1), 2));
/// assert_eq!(inner_product(&a, &b).unwrap(), 15);
/// assert!(inner_product(&a, &IntTuple::from((1, 2))).is_err());
/// ```
pub fn inner_product<N: Num>(a: &IntTuple<N>, b: &IntTuple<N>) -> Result<N> {
    match (a, b) {
        (IntTuple::Tuple(xs), IntTuple::Tuple(ys)) => {
            if xs.len() != ys.len() {
                return Err(not_congruent("inner_product", a, b));
            }
            xs.iter()
                .zip(ys.iter())
                .try_fold(N::constant(0), |acc, (x, y)| {
                    acc.plus(inner_product(&x, &y)?)
                })
        }
        (IntTuple::Int(x), IntTuple::Int(y)) => x.times(*y),
        _ => Err(Error::new(
            ErrorKind::NotCongruent,
            format!("inner_product of {a} and {b}: an integer meets a tuple"),
        )),
    }
}

/// The integer `a` and `b` checked against the **divisibility condition** of shape division
/// (`a % b == 0` or `b % a == 0`), with a non-zero divisor.
fn divisible<N: Num>(what: &str, a: N, b: N) -> Result<()> {
    let (x, y) = (a.value(), b.value());
    if y == 0 || x == 0 {
        return Err(Error::invalid(format!("{what}({a}, {b}): an operand is 0")));
    }
    if x % y != 0 && y % x != 0 {
        return Err(Error::new(
            ErrorKind::Inadmissible,
            format!(
                "{what}({a}, {b}) is inadmissible: the divisibility condition ({x} % {y} == 0 or \
                 {y} % {x} == 0) fails"
            ),
        ));
    }
    Ok(())
}

/// CuTe's `shape_div`: what is left of the shape `a` after its first `b` elements are divided
/// out, congruent to `a`.
///
/// - tuple, tuple: elementwise (same rank);
/// - tuple, integer: `b` divided out of `a`'s elements from the left: `shape_div((4,5,6), 40)`
///   is `shape_div((1,5,6), 10)` is `shape_div((1,1,6), 2)` is `(1,1,3)`;
/// - integer, tuple: `shape_div(a, product(b))`;
/// - integer, integer: `ceil(a / b)`, under the **divisibility condition** `a % b == 0` or
///   `b % a == 0` (CuTe static-asserts it for static operands; tessel checks it always).
///
/// ```
/// use tessel_layout::{IntTuple, int_tuple::arith::shape_div};
/// // pycute test_int_tuple.py (CUTLASS v4.2.1).
/// assert_eq!(shape_div(&IntTuple::from((3, 4)), &IntTuple::Int(6)).unwrap().to_string(), "(1,2)");
/// assert_eq!(shape_div(&IntTuple::from((6, (3, 4))), &IntTuple::Int(36)).unwrap().to_string(), "(1,(1,2))");
/// // The example of CuTe's include/cute/int_tuple.hpp.
/// assert_eq!(shape_div(&IntTuple::from((4, 5, 6)), &IntTuple::Int(40)).unwrap().to_string(), "(1,1,3)");
/// assert!(shape_div(&IntTuple::Int(6), &IntTuple::Int(4)).is_err());
/// ```
pub fn shape_div<N: Num>(a: &IntTuple<N>, b: &IntTuple<N>) -> Result<IntTuple<N>> {
    match (a, b) {
        (IntTuple::Tuple(xs), IntTuple::Tuple(ys)) => {
            if xs.len() != ys.len() {
                return Err(not_congruent("shape_div", a, b));
            }
            xs.iter()
                .zip(ys.iter())
                .map(|(x, y)| shape_div(&x, &y))
                .collect::<Result<Vec<_>>>()
                .map(|v| IntTuple::Tuple(v.into()))
        }
        (IntTuple::Tuple(xs), IntTuple::Int(y)) => {
            let mut rest = *y;
            let mut out = Vec::with_capacity(xs.len());
            for x in xs.iter() {
                out.push(shape_div(&x, &IntTuple::Int(rest))?);
                rest = int_shape_div(rest, product(&x)?)?;
            }
            Ok(IntTuple::Tuple(out.into()))
        }
        (IntTuple::Int(x), IntTuple::Tuple(_)) => int_shape_div(*x, product(b)?).map(IntTuple::Int),
        (IntTuple::Int(x), IntTuple::Int(y)) => int_shape_div(*x, *y).map(IntTuple::Int),
    }
}

fn int_shape_div<N: Num>(a: N, b: N) -> Result<N> {
    divisible("shape_div", a, b)?;
    a.ceil_div(b)
}

/// CuTe's `shape_min` of two integers: the smaller, and `_1` when either is `_1` (a static 1
/// is less than every shape).
fn shape_min<N: Num>(a: N, b: N) -> N {
    let one = |v: N| v.is_static() && v.value() == 1;
    if one(a) || one(b) {
        N::constant(1)
    } else {
        a.minimum(b)
    }
}

/// The first `b` elements of the shape `a`, congruent to `a`: the part [`shape_div`] divides
/// out, so that `a` is the elementwise product of `shape_mod(a, b)` and `shape_div(a, b)`
/// wherever the divisibility condition holds.
///
/// - tuple, tuple: elementwise (same rank);
/// - tuple, integer: `b` taken from `a`'s elements from the left: element `i` keeps
///   `shape_mod(a_i, r)` of the `r` elements still to take, and `r` becomes `shape_div(r, a_i)`;
/// - integer, tuple: `shape_mod(a, product(b))`;
/// - integer, integer: `min(a, b)` (`_1` when either is `_1`) under the divisibility condition.
///
/// This is the fold CuTe's composition runs to "mod out" a stride from a shape
/// (`composition_impl` in `include/cute/layout.hpp`, with `shape_min`); CuTe 4.2 has no function
/// of this name.
///
/// ```
/// use tessel_layout::{IntTuple, int_tuple::arith::{shape_div, shape_mod}};
/// let a = IntTuple::from((4, 5, 6));
/// assert_eq!(shape_mod(&a, &IntTuple::Int(40)).unwrap().to_string(), "(4,5,2)");
/// assert_eq!(shape_div(&a, &IntTuple::Int(40)).unwrap().to_string(), "(1,1,3)");
/// assert_eq!(shape_mod(&IntTuple::from((3, 4)), &IntTuple::Int(6)).unwrap().to_string(), "(3,2)");
/// ```
pub fn shape_mod<N: Num>(a: &IntTuple<N>, b: &IntTuple<N>) -> Result<IntTuple<N>> {
    match (a, b) {
        (IntTuple::Tuple(xs), IntTuple::Tuple(ys)) => {
            if xs.len() != ys.len() {
                return Err(not_congruent("shape_mod", a, b));
            }
            xs.iter()
                .zip(ys.iter())
                .map(|(x, y)| shape_mod(&x, &y))
                .collect::<Result<Vec<_>>>()
                .map(|v| IntTuple::Tuple(v.into()))
        }
        (IntTuple::Tuple(xs), IntTuple::Int(y)) => {
            let mut rest = *y;
            let mut out = Vec::with_capacity(xs.len());
            for x in xs.iter() {
                out.push(shape_mod(&x, &IntTuple::Int(rest))?);
                rest = int_shape_div(rest, product(&x)?)?;
            }
            Ok(IntTuple::Tuple(out.into()))
        }
        (IntTuple::Int(x), IntTuple::Tuple(_)) => {
            let y = product(b)?;
            divisible("shape_mod", *x, y)?;
            Ok(IntTuple::Int(shape_min(*x, y)))
        }
        (IntTuple::Int(x), IntTuple::Int(y)) => {
            divisible("shape_mod", *x, *y)?;
            Ok(IntTuple::Int(shape_min(*x, *y)))
        }
    }
}

/// CuTe's `ceil_div`: `a` divided by `b`, rounded up.
///
/// - tuple, tuple: elementwise, `b` may be shorter (its missing elements are 1);
/// - tuple, integer: `b` divided out of `a`'s elements from the left, each rounded up
///   (element `i` is `ceil_div(a_i, r)` and `r` becomes `ceil_div(r, a_i)`);
/// - integer, tuple: `ceil_div(a, product(b))`;
/// - integer, integer: `(a + b - 1) / b`.
///
/// ```
/// use tessel_layout::{IntTuple, int_tuple::arith::ceil_div};
/// assert_eq!(ceil_div(&IntTuple::from((10, 7)), &IntTuple::from((4,))).unwrap().to_string(), "(3,7)");
/// assert_eq!(ceil_div(&IntTuple::from((4, 5)), &IntTuple::Int(8)).unwrap().to_string(), "(1,3)");
/// assert_eq!(ceil_div(&IntTuple::Int(10), &IntTuple::from((2, 2))).unwrap().to_string(), "3");
/// ```
pub fn ceil_div<N: Num>(a: &IntTuple<N>, b: &IntTuple<N>) -> Result<IntTuple<N>> {
    match (a, b) {
        (IntTuple::Tuple(xs), IntTuple::Tuple(ys)) => {
            if ys.len() > xs.len() {
                return Err(Error::new(
                    ErrorKind::NotCongruent,
                    format!(
                        "ceil_div of {a} by {b}: the divisor's rank {} exceeds the dividend's {}",
                        ys.len(),
                        xs.len()
                    ),
                ));
            }
            let ys = ys.to_vec();
            xs.iter()
                .enumerate()
                .map(|(i, x)| match ys.get(i) {
                    Some(y) => ceil_div(&x, y),
                    None => Ok(x),
                })
                .collect::<Result<Vec<_>>>()
                .map(|v| IntTuple::Tuple(v.into()))
        }
        (IntTuple::Tuple(xs), IntTuple::Int(y)) => {
            let mut rest = *y;
            let mut out = Vec::with_capacity(xs.len());
            for x in xs.iter() {
                out.push(ceil_div(&x, &IntTuple::Int(rest))?);
                rest = rest.ceil_div(product(&x)?)?;
            }
            Ok(IntTuple::Tuple(out.into()))
        }
        (IntTuple::Int(x), IntTuple::Tuple(_)) => x.ceil_div(product(b)?).map(IntTuple::Int),
        (IntTuple::Int(x), IntTuple::Int(y)) => x.ceil_div(*y).map(IntTuple::Int),
    }
}

/// CuTe's `round_up`: `a` rounded up to a multiple of `b`, elementwise for tuples (`b` may be
/// shorter; its missing elements are 1).
///
/// ```
/// use tessel_layout::{IntTuple, int_tuple::arith::round_up};
/// assert_eq!(round_up(&IntTuple::from((10, 7)), &IntTuple::from((4, 8))).unwrap().to_string(), "(12,8)");
/// assert!(round_up(&IntTuple::from((10, 7)), &IntTuple::Int(4)).is_err());
/// ```
pub fn round_up<N: Num>(a: &IntTuple<N>, b: &IntTuple<N>) -> Result<IntTuple<N>> {
    match (a, b) {
        (IntTuple::Tuple(xs), IntTuple::Tuple(ys)) if ys.len() <= xs.len() => {
            let ys = ys.to_vec();
            xs.iter()
                .enumerate()
                .map(|(i, x)| match ys.get(i) {
                    Some(y) => round_up(&x, y),
                    None => Ok(x),
                })
                .collect::<Result<Vec<_>>>()
                .map(|v| IntTuple::Tuple(v.into()))
        }
        (IntTuple::Int(x), IntTuple::Int(y)) => x.ceil_div(*y)?.times(*y).map(IntTuple::Int),
        _ => Err(Error::new(
            ErrorKind::NotCongruent,
            format!(
                "round_up of {a} to {b}: needs two integers, or two tuples with the divisor's \
                 rank at most the dividend's"
            ),
        )),
    }
}

/// CuTe's `elem_scale`: `a` with every integer scaled by the product of the corresponding
/// element of `b` (`b` congruent to `a` down to `a`'s integers).
///
/// ```
/// use tessel_layout::{IntTuple, int_tuple::arith::elem_scale};
/// let a = IntTuple::from((2, 3));
/// assert_eq!(elem_scale(&a, &IntTuple::from((4, (2, 5)))).unwrap().to_string(), "(8,30)");
/// ```
pub fn elem_scale<N: Num>(a: &IntTuple<N>, b: &IntTuple<N>) -> Result<IntTuple<N>> {
    match (a, b) {
        (IntTuple::Tuple(xs), IntTuple::Tuple(ys)) if xs.len() == ys.len() => xs
            .iter()
            .zip(ys.iter())
            .map(|(x, y)| elem_scale(&x, &y))
            .collect::<Result<Vec<_>>>()
            .map(|v| IntTuple::Tuple(v.into())),
        (IntTuple::Int(x), _) => x.times(product(b)?).map(IntTuple::Int),
        _ => Err(not_congruent("elem_scale", a, b)),
    }
}

/// The elementwise sum of two coordinates, the shorter tuple padded with `_0` (CuTe's
/// `ArithmeticTuple` `operator+`, `include/cute/numeric/arithmetic_tuple.hpp`); a `_0` plus
/// anything is that thing.
///
/// ```
/// use tessel_layout::{IntTuple, int_tuple::arith::add, static_int::Integer};
/// let a: IntTuple<Integer> = "(_1)".parse().unwrap();
/// let b: IntTuple<Integer> = "(_0,2)".parse().unwrap();
/// assert_eq!(add(&a, &b).unwrap().to_string(), "(_1,2)");
/// assert_eq!(add(&IntTuple::from((1, (2, 3))), &IntTuple::from((4, (5, 6)))).unwrap().to_string(), "(5,(7,9))");
/// ```
pub fn add<N: Num>(a: &IntTuple<N>, b: &IntTuple<N>) -> Result<IntTuple<N>> {
    zip_padded(a, b, "add", &|x, y| x.plus(y))
}

/// The elementwise difference of two coordinates, the shorter padded with `_0` (CuTe's
/// `ArithmeticTuple` `operator-`).
///
/// ```
/// use tessel_layout::{IntTuple, int_tuple::arith::sub};
/// assert_eq!(sub(&IntTuple::from((5, 7)), &IntTuple::from((1,))).unwrap().to_string(), "(4,7)");
/// ```
pub fn sub<N: Num>(a: &IntTuple<N>, b: &IntTuple<N>) -> Result<IntTuple<N>> {
    zip_padded(a, b, "sub", &|x, y| x.minus(y))
}

fn is_static_zero<N: Num>(t: &IntTuple<N>) -> bool {
    matches!(t, IntTuple::Int(z) if z.is_static() && z.value() == 0)
}

fn zip_padded<N: Num>(
    a: &IntTuple<N>,
    b: &IntTuple<N>,
    what: &str,
    op: &dyn Fn(N, N) -> Result<N>,
) -> Result<IntTuple<N>> {
    match (a, b) {
        (IntTuple::Int(x), IntTuple::Int(y)) => op(*x, *y).map(IntTuple::Int),
        (IntTuple::Tuple(xs), IntTuple::Tuple(ys)) => {
            let (xs, ys) = (xs.to_vec(), ys.to_vec());
            let zero = IntTuple::Int(N::constant(0));
            (0..xs.len().max(ys.len()))
                .map(|i| {
                    let x = xs.get(i).unwrap_or(&zero);
                    let y = ys.get(i).unwrap_or(&zero);
                    zip_padded(x, y, what, op)
                })
                .collect::<Result<Vec<_>>>()
                .map(|v| IntTuple::Tuple(v.into()))
        }
        // `_0` (CuTe's padding) combines with a tuple as the tuple's own zero.
        (z, t @ IntTuple::Tuple(_)) if is_static_zero(z) => {
            let zeros = t.map(&mut |_| N::constant(0));
            zip_padded(&zeros, t, what, op)
        }
        (t @ IntTuple::Tuple(_), z) if is_static_zero(z) => Ok(t.clone()),
        _ => Err(Error::new(
            ErrorKind::NotCongruent,
            format!("{what} of {a} and {b}: an integer meets a tuple"),
        )),
    }
}

/// CuTe's `evenly_divides(shape, tiler)` for a tiler that is an integer or a tuple of
/// integers and tuples: whether tiling `shape` by it leaves no partial tile (a tuple tiler
/// mode by mode, at most as many modes as the shape; an integer `b` when
/// `size(shape) == b * size(ceil_div(shape, b))`).
///
/// ```
/// use tessel_layout::{IntTuple, int_tuple::arith::evenly_divides};
/// // CuTe test/unit/cute/core/int_tuple.cpp, "Divides" (CUTLASS v4.2.1).
/// assert!(evenly_divides(&IntTuple::Int(16), &IntTuple::Int(8)).unwrap());
/// assert!(!evenly_divides(&IntTuple::Int(16), &IntTuple::Int(12)).unwrap());
/// assert!(!evenly_divides(&IntTuple::from((2, 8)), &IntTuple::from((2, (2, 4)))).unwrap());
/// assert!(evenly_divides(&IntTuple::from((32, 64)), &IntTuple::Int(128)).unwrap());
/// ```
pub fn evenly_divides<N: Num>(shape: &IntTuple<N>, tiler: &IntTuple<N>) -> Result<bool> {
    match tiler {
        IntTuple::Tuple(ts) => {
            if ts.len() > shape.rank() {
                return Ok(false);
            }
            for (i, t) in ts.iter().enumerate() {
                let mode = shape.mode(i).unwrap_or_else(|| shape.clone());
                if !evenly_divides(&mode, &t)? {
                    return Ok(false);
                }
            }
            Ok(true)
        }
        IntTuple::Int(b) => {
            let size = product(shape)?.value();
            let rest = product(&ceil_div(shape, tiler)?)?.value();
            Ok(b.value().checked_mul(rest) == Some(size))
        }
    }
}

/// CuTe's `filter_zeros(a, b)`: `b` with every element paired with a zero of `a` replaced by
/// ones (the same profile). A zero counts when it is decidable ([`Num::is_decidable`]): CuTe
/// replaces only static zeros, the plain family every zero.
///
/// ```
/// use tessel_layout::{IntTuple, int_tuple::arith::filter_zeros, static_int::Integer};
/// let stride: IntTuple<Integer> = "(_0,42,_1,0)".parse().unwrap();
/// let shape: IntTuple<Integer> = "(2,3,4,5)".parse().unwrap();
/// assert_eq!(filter_zeros(&stride, &shape).unwrap().to_string(), "(_1,3,4,5)");
/// ```
pub fn filter_zeros<N: Num>(a: &IntTuple<N>, b: &IntTuple<N>) -> Result<IntTuple<N>> {
    match (a, b) {
        (IntTuple::Tuple(xs), IntTuple::Tuple(ys)) if xs.len() == ys.len() => xs
            .iter()
            .zip(ys.iter())
            .map(|(x, y)| filter_zeros(&x, &y))
            .collect::<Result<Vec<_>>>()
            .map(|v| IntTuple::Tuple(v.into())),
        (IntTuple::Int(z), _) if z.is_decidable() && z.value() == 0 => {
            Ok(b.map(&mut |_| N::constant(1)))
        }
        (IntTuple::Int(_), _) => Ok(b.clone()),
        _ => Err(not_congruent("filter_zeros", a, b)),
    }
}

/// CuTe's `compact_col_major(shape, current)`: the stride that enumerates `shape` compactly,
/// leftmost mode fastest, starting at `current` (CuTe's default `_1`); an extent 1 that is
/// decidable ([`Num::is_decidable`]: a static `_1`, or any 1 of the plain family) gets the
/// stride `_0`.
///
/// ```
/// use tessel_layout::{IntTuple, int_tuple::arith::compact_col_major, static_int::Integer};
/// // CuTe media/docs/cpp/cute/01_layout.md (CUTLASS v4.2.1): s2xd4_col is (_2,4):(_1,_2),
/// // s2xh4_col is (2,(2,2)):(_1,(2,4)).
/// let one = Integer::Static(1);
/// let s: IntTuple<Integer> = "(_2,4)".parse().unwrap();
/// assert_eq!(compact_col_major(&s, one).unwrap().to_string(), "(_1,_2)");
/// let h: IntTuple<Integer> = "(2,(2,2))".parse().unwrap();
/// assert_eq!(compact_col_major(&h, one).unwrap().to_string(), "(_1,(2,4))");
/// let u: IntTuple<Integer> = "(_1,4)".parse().unwrap();
/// assert_eq!(compact_col_major(&u, one).unwrap().to_string(), "(_0,_1)");
/// ```
pub fn compact_col_major<N: Num>(shape: &IntTuple<N>, current: N) -> Result<IntTuple<N>> {
    let mut running = current;
    compact_leaves(shape, &mut running, false)
}

/// CuTe's `compact_row_major(shape, current)`: as [`compact_col_major`], rightmost mode fastest.
///
/// ```
/// use tessel_layout::{IntTuple, int_tuple::arith::compact_row_major, static_int::Integer};
/// // CuTe 01_layout.md: s2xd4_row is (_2,4):(4,_1).
/// let s: IntTuple<Integer> = "(_2,4)".parse().unwrap();
/// assert_eq!(compact_row_major(&s, Integer::Static(1)).unwrap().to_string(), "(4,_1)");
/// ```
pub fn compact_row_major<N: Num>(shape: &IntTuple<N>, current: N) -> Result<IntTuple<N>> {
    let mut running = current;
    compact_leaves(shape, &mut running, true)
}

fn compact_leaves<N: Num>(
    shape: &IntTuple<N>,
    running: &mut N,
    reverse: bool,
) -> Result<IntTuple<N>> {
    match shape {
        IntTuple::Int(s) => {
            if s.is_decidable() && s.value() == 1 {
                return Ok(IntTuple::Int(N::constant(0)));
            }
            let here = *running;
            *running = running.times(*s)?;
            Ok(IntTuple::Int(here))
        }
        IntTuple::Tuple(items) => {
            let mut items = items.to_vec();
            let mut out = Vec::with_capacity(items.len());
            if reverse {
                items.reverse();
            }
            for item in &items {
                out.push(compact_leaves(item, running, reverse)?);
            }
            if reverse {
                out.reverse();
            }
            Ok(IntTuple::Tuple(out.into()))
        }
    }
}

/// CuTe's `compact_order(shape, order)`: the compact stride of `shape` whose modes are laid
/// out in the order `order` gives them (weakly congruent to `shape`): a mode's stride starts at
/// the product of the extents of every mode of lesser order, and within the mode is
/// column-major. Orders that are not decidable ([`Num::is_decidable`]: dynamic `Integer`s) come
/// after every decidable one, in their positions, as CuTe orders them.
///
/// ```
/// use tessel_layout::{IntTuple, int_tuple::arith::compact_order};
/// // CuTe include/cute/layout.hpp, make_ordered_layout: (2,2,2,2) ordered (0,2,3,1) is
/// // (2,2,2,2):(1,4,8,2).
/// let shape = IntTuple::from((2, 2, 2, 2));
/// let order = IntTuple::from((0, 2, 3, 1));
/// assert_eq!(compact_order(&shape, &order).unwrap().to_string(), "(1,4,8,2)");
/// ```
pub fn compact_order<N: Num>(shape: &IntTuple<N>, order: &IntTuple<N>) -> Result<IntTuple<N>> {
    if !order.weakly_congruent(shape) {
        return Err(Error::new(
            ErrorKind::NotCongruent,
            format!(
                "compact_order of {shape} by {order}: the order is not weakly congruent to the shape"
            ),
        ));
    }
    // The extent of each leaf of `order` (the product of the sub-shape it stands for).
    let ref_shape = product_like(shape, order)?;
    let flat_order: Vec<N> = order.iter_leaves().copied().collect();
    let max_order = flat_order
        .iter()
        .filter(|o| o.is_decidable())
        .map(|o| o.value())
        .max()
        .unwrap_or(0);
    // Undecidable orders come after every decidable one, in their positions.
    let ref_order: Vec<i64> = flat_order
        .iter()
        .enumerate()
        .map(|(i, o)| {
            if o.is_decidable() {
                Ok(o.value())
            } else {
                i64::try_from(i)
                    .ok()
                    .and_then(|i| max_order.checked_add(1)?.checked_add(i))
                    .ok_or_else(|| Error::overflow("compact_order: an order overflows i64"))
            }
        })
        .collect::<Result<_>>()?;
    let mut k = 0usize;
    let starts = order.map_to(&mut |_| {
        let own = ref_order[k];
        k += 1;
        // The product of the extents of every leaf of lesser order.
        let mut start = N::constant(1);
        for (s, &o) in ref_shape.iter().zip(&ref_order) {
            if o < own {
                start = start.times(*s)?;
            }
        }
        Ok(start)
    })?;
    // Each leaf of `order` becomes the column-major stride of its sub-shape from its start.
    lift_by(shape, &starts, &mut |s, start| compact_col_major(s, *start))
}

/// The product of the sub-shape of `shape` at each leaf of `guide` (weakly congruent to
/// `shape`), in leaf order (CuTe's `product_like`, flattened).
fn product_like<N: Num>(shape: &IntTuple<N>, guide: &IntTuple<N>) -> Result<Vec<N>> {
    let mut out = Vec::new();
    fn go<N: Num>(s: &IntTuple<N>, g: &IntTuple<N>, out: &mut Vec<N>) -> Result<()> {
        match (s, g) {
            (_, IntTuple::Int(_)) => out.push(product(s)?),
            (IntTuple::Tuple(ss), IntTuple::Tuple(gs)) => {
                for (x, y) in ss.iter().zip(gs.iter()) {
                    go(&x, &y, out)?;
                }
            }
            (IntTuple::Int(_), IntTuple::Tuple(_)) => {
                return Err(Error::new(
                    ErrorKind::NotCongruent,
                    format!("the guide {g} is deeper than the shape {s}"),
                ));
            }
        }
        Ok(())
    }
    go(shape, guide, &mut out)?;
    Ok(out)
}

/// `shape` with the sub-shape at each leaf of `guide` (weakly congruent) replaced by
/// `f(sub-shape, guide leaf)`.
fn lift_by<N: Num>(
    shape: &IntTuple<N>,
    guide: &IntTuple<N>,
    f: &mut impl FnMut(&IntTuple<N>, &N) -> Result<IntTuple<N>>,
) -> Result<IntTuple<N>> {
    match (shape, guide) {
        (_, IntTuple::Int(g)) => f(shape, g),
        (IntTuple::Tuple(ss), IntTuple::Tuple(gs)) => ss
            .iter()
            .zip(gs.iter())
            .map(|(s, g)| lift_by(&s, &g, f))
            .collect::<Result<Vec<_>>>()
            .map(|v| IntTuple::Tuple(v.into())),
        (IntTuple::Int(_), IntTuple::Tuple(_)) => Err(Error::new(
            ErrorKind::NotCongruent,
            format!("the guide {guide} is deeper than the shape {shape}"),
        )),
    }
}
