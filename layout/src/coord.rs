//! Coordinates: CuTe's maps between indices and coordinates of a shape (`idx2crd`, `crd2idx`,
//! `crd2crd`, `include/cute/stride.hpp`), the colexicographic order and its increment
//! (`increment`, `make_coord_iterator`), and the comparisons of `include/cute/int_tuple.hpp`
//! (`compatible`, `elem_less`, `lex_less`, `colex_less`), CUTLASS v4.2.1.
//!
//! Every shape accepts three kinds of coordinates: a 1-D index, a coordinate of any shape
//! *compatible* with it (the same size, and every coordinate of it is one of the shape), and its
//! natural (hierarchical) coordinate. The maps between them follow the colexicographic order:
//! the leftmost mode varies fastest. The functions are generic over the leaf arithmetic
//! ([`Num`]): plain `i64` tuples give values, [`Integer`](crate::static_int::Integer) tuples also
//! give CuTe's static and dynamic kinds.
//!
//! Unlike CuTe, which lets an index past the end run on in the last mode, a coordinate outside
//! its shape is an error here (tessel never wraps or extends a coordinate silently).
//!
//! ```
//! use tessel_layout::{IntTuple, coord::{crd2idx, idx2crd}, static_int::Integer};
//! // CuTe media/docs/cpp/cute/01_layout.md, "Coordinate Mapping" (CUTLASS v4.2.1).
//! let shape: IntTuple<Integer> = "(_3,(_2,_3))".parse().unwrap();
//! let at = |c: &str| idx2crd(&c.parse().unwrap(), &shape).unwrap().to_string();
//! assert_eq!(at("16"), "(1,(1,2))");
//! assert_eq!(at("_16"), "(_1,(_1,_2))");
//! assert_eq!(at("(_1,5)"), "(_1,(1,2))");
//! // "Index Mapping": crd2idx(c, shape, stride).
//! let stride: IntTuple<Integer> = "(_3,(_12,_1))".parse().unwrap();
//! assert_eq!(crd2idx(&"16".parse().unwrap(), &shape, &stride).unwrap(), Integer::Dynamic(17));
//! assert_eq!(crd2idx(&"(_1,_5)".parse().unwrap(), &shape, &stride).unwrap(), Integer::Static(17));
//! ```

use std::cmp::Ordering;

use crate::error::{Error, ErrorKind, Result};
use crate::int_tuple::{IntTuple, View, arith::product};
use crate::leaf::Num;

fn rank_mismatch(coord: &impl std::fmt::Display, shape: &impl std::fmt::Display) -> Error {
    Error::new(
        ErrorKind::NotCongruent,
        format!("coordinate {coord} does not match the rank of shape {shape}"),
    )
}

fn too_deep(coord: &impl std::fmt::Display, shape: &impl std::fmt::Display) -> Error {
    Error::new(
        ErrorKind::NotCongruent,
        format!("coordinate {coord} is deeper than the shape {shape}"),
    )
}

/// Checks `0 <= c < size(shape)` for an integer coordinate `c` of the (sub)shape `shape`.
fn check_range<N: Num>(c: N, shape: View<'_, N>) -> Result<()> {
    let size = shape
        .leaves()
        .try_fold(1i64, |acc, v| acc.checked_mul(v.value()))
        .ok_or_else(|| Error::overflow(format!("the size of {shape} overflows i64")))?;
    if !(0..size).contains(&c.value()) {
        return Err(Error::invalid(format!(
            "coordinate {c} is outside 0..{size} of the mode {shape}"
        )));
    }
    Ok(())
}

/// The product of a (sub)shape given as a view, with kinds.
fn view_product<N: Num>(shape: View<'_, N>) -> Result<N> {
    shape
        .leaves()
        .try_fold(N::constant(1), |acc, &v| acc.times(v))
}

/// CuTe's `idx2crd(idx, shape)`: the natural coordinate (congruent to `shape`) of a coordinate
/// of a compatible shape. An integer `idx` is split colexicographically: the first mode takes
/// `idx mod size(mode 0)`, the next the quotient's remainder by `size(mode 1)`, and so on,
/// recursively into nested modes; a tuple `idx` is mapped mode by mode.
///
/// ```
/// use tessel_layout::{IntTuple, coord::idx2crd};
/// // CuTe 01_layout.md, the coordinate table of (3,(2,3)): 1-D 10 is 2-D (1,3), natural (1,(1,1)).
/// let shape = IntTuple::from((3, (2, 3)));
/// assert_eq!(idx2crd(&IntTuple::Int(10), &shape).unwrap().to_string(), "(1,(1,1))");
/// assert_eq!(idx2crd(&IntTuple::from((1, 3)), &shape).unwrap().to_string(), "(1,(1,1))");
/// assert!(idx2crd(&IntTuple::Int(18), &shape).is_err());
/// ```
pub fn idx2crd<N: Num>(idx: &IntTuple<N>, shape: &IntTuple<N>) -> Result<IntTuple<N>> {
    idx2crd_view(idx.view(), shape.view())
}

fn idx2crd_view<N: Num>(idx: View<'_, N>, shape: View<'_, N>) -> Result<IntTuple<N>> {
    match (idx, shape) {
        (View::Tuple(is), View::Tuple(ss)) => {
            if is.len() != ss.len() {
                return Err(rank_mismatch(&idx, &shape));
            }
            is.zip(ss)
                .map(|(i, s)| idx2crd_view(i, s))
                .collect::<Result<Vec<_>>>()
                .map(|v| IntTuple::Tuple(v.into()))
        }
        (View::Tuple(_), View::Int(_)) => Err(too_deep(&idx, &shape)),
        (View::Int(&i), _) => {
            check_range(i, shape)?;
            split_index(i, shape)
        }
    }
}

/// An in-range index `i` of `shape` as its natural coordinate (CuTe's
/// `crd2idx(i, shape, make_basis_like(shape))`): each mode but the last takes the remainder by
/// its size, the last the whole quotient.
fn split_index<N: Num>(i: N, shape: View<'_, N>) -> Result<IntTuple<N>> {
    match shape {
        View::Int(_) => Ok(IntTuple::Int(i)),
        View::Tuple(ss) => {
            let n = ss.len();
            let mut rest = i;
            let mut out = Vec::with_capacity(n);
            for (k, s) in ss.enumerate() {
                if k + 1 == n {
                    out.push(split_index(rest, s)?);
                } else {
                    let p = view_product(s)?;
                    out.push(split_index(rest.remainder(p)?, s)?);
                    rest = rest.quotient(p)?;
                }
            }
            Ok(IntTuple::Tuple(out.into()))
        }
    }
}

/// CuTe's `idx2crd(idx, shape, stride)`: the coordinate whose every leaf is
/// `(idx / stride) % shape` (an extent 1 that is decidable, a static `_1` or a plain 1, gives `_0`), mode by mode for a tuple `idx`;
/// an integer stride stands for the compact column-major stride starting there. This inverts
/// `crd2idx(c, shape, stride)` for compact layouts only (CuTe's own note), and reduces every
/// leaf modulo its extent by definition.
///
/// ```
/// use tessel_layout::{IntTuple, coord::idx2crd_strided};
/// // A row-major (2,3): index 4 is row 1, column 1.
/// let c = idx2crd_strided(&IntTuple::Int(4), &IntTuple::from((2, 3)), &IntTuple::from((3, 1))).unwrap();
/// assert_eq!(c.to_string(), "(1,1)");
/// ```
pub fn idx2crd_strided<N: Num>(
    idx: &IntTuple<N>,
    shape: &IntTuple<N>,
    stride: &IntTuple<N>,
) -> Result<IntTuple<N>> {
    match (idx, shape, stride) {
        (IntTuple::Tuple(is), IntTuple::Tuple(ss), IntTuple::Tuple(ds)) => {
            if is.len() != ss.len() || ss.len() != ds.len() {
                return Err(rank_mismatch(idx, shape));
            }
            is.iter()
                .zip(ss.iter())
                .zip(ds.iter())
                .map(|((i, s), d)| idx2crd_strided(&i, &s, &d))
                .collect::<Result<Vec<_>>>()
                .map(|v| IntTuple::Tuple(v.into()))
        }
        (IntTuple::Tuple(_), _, _) => Err(too_deep(idx, shape)),
        (IntTuple::Int(_), IntTuple::Tuple(ss), IntTuple::Tuple(ds)) => {
            if ss.len() != ds.len() {
                return Err(Error::new(
                    ErrorKind::NotCongruent,
                    format!("shape {shape} and stride {stride} are not congruent"),
                ));
            }
            ss.iter()
                .zip(ds.iter())
                .map(|(s, d)| idx2crd_strided(idx, &s, &d))
                .collect::<Result<Vec<_>>>()
                .map(|v| IntTuple::Tuple(v.into()))
        }
        (IntTuple::Int(_), IntTuple::Tuple(_), IntTuple::Int(d)) => {
            let compact = crate::int_tuple::arith::compact_col_major(shape, *d)?;
            idx2crd_strided(idx, shape, &compact)
        }
        (IntTuple::Int(i), IntTuple::Int(s), IntTuple::Int(d)) => {
            // CuTe skips the (possibly stride-0) division for a static `_1` extent; the plain
            // family for every extent 1 (whose compact stride is 0).
            if s.is_decidable() && s.value() == 1 {
                return Ok(IntTuple::Int(N::constant(0)));
            }
            i.quotient(*d)?.remainder(*s).map(IntTuple::Int)
        }
        (IntTuple::Int(_), IntTuple::Int(_), IntTuple::Tuple(_)) => Err(Error::new(
            ErrorKind::NotCongruent,
            format!("shape {shape} and stride {stride} are not congruent"),
        )),
    }
}

/// CuTe's `crd2idx(coord, shape, stride)`: the inner product of the natural coordinate of
/// `coord` with `stride`, every component checked to lie in its mode. An integer coordinate of
/// a tuple mode is split as [`idx2crd`] splits it. The crate root's
/// [`crd2idx`](crate::crd2idx) is this function on plain tuples.
///
/// ```
/// use tessel_layout::{IntTuple, coord::crd2idx};
/// let shape = IntTuple::from((4, (2, 3)));
/// let stride = IntTuple::from((1, (8, 16)));
/// assert_eq!(crd2idx(&IntTuple::from((1, 3)), &shape, &stride).unwrap(), 1 + 8 + 16);
/// assert!(crd2idx(&IntTuple::from((4, 0)), &shape, &stride).is_err());
/// ```
pub fn crd2idx<N: Num>(
    coord: &IntTuple<N>,
    shape: &IntTuple<N>,
    stride: &IntTuple<N>,
) -> Result<N> {
    crd2idx_view(coord.view(), shape.view(), stride.view())
}

pub(crate) fn crd2idx_view<N: Num>(
    coord: View<'_, N>,
    shape: View<'_, N>,
    stride: View<'_, N>,
) -> Result<N> {
    match (coord, shape, stride) {
        (View::Tuple(cs), View::Tuple(ss), View::Tuple(ds)) => {
            if cs.len() != ss.len() {
                return Err(rank_mismatch(&coord, &shape));
            }
            cs.zip(ss)
                .zip(ds)
                .try_fold(N::constant(0), |acc, ((c, s), d)| {
                    acc.plus(crd2idx_view(c, s, d)?)
                })
        }
        (View::Tuple(_), View::Int(_), _) => Err(too_deep(&coord, &shape)),
        (View::Int(&c), _, _) => {
            check_range(c, shape)?;
            index_dot(c, shape, stride)
        }
        (View::Tuple(_), View::Tuple(_), View::Int(_)) => {
            Err(Error::invalid("internal: shape and stride not congruent"))
        }
    }
}

/// `c` (in range) split over `shape` mode by mode and dotted with `stride` (CuTe's
/// `crd2idx_itt`): each mode but the last takes the remainder by its size, the last the
/// quotient.
fn index_dot<N: Num>(c: N, shape: View<'_, N>, stride: View<'_, N>) -> Result<N> {
    match (shape, stride) {
        (View::Int(_), View::Int(&d)) => c.times(d),
        (View::Tuple(ss), View::Tuple(ds)) => {
            let n = ss.len();
            let mut rest = c;
            let mut acc = N::constant(0);
            for (k, (s, d)) in ss.zip(ds).enumerate() {
                if k + 1 == n {
                    acc = acc.plus(index_dot(rest, s, d)?)?;
                } else {
                    let p = view_product(s)?;
                    acc = acc.plus(index_dot(rest.remainder(p)?, s, d)?)?;
                    rest = rest.quotient(p)?;
                }
            }
            Ok(acc)
        }
        _ => Err(Error::invalid("internal: shape and stride not congruent")),
    }
}

/// CuTe's `crd2idx(coord, shape)`: the 1-D index of a coordinate in the colexicographic order
/// of `shape` (Horner's rule `c0 + s0 * (c1 + s1 * (...))` over the coordinate's leaves, each
/// against the size of the sub-shape it stands for). An integer coordinate is its own index.
///
/// ```
/// use tessel_layout::{IntTuple, coord::crd2idx_colex};
/// // CuTe 01_layout.md, the coordinate table of (3,(2,3)): (1,(1,1)) and (1,3) are index 10.
/// let shape = IntTuple::from((3, (2, 3)));
/// assert_eq!(crd2idx_colex(&IntTuple::from((1, (1, 1))), &shape).unwrap(), 10);
/// assert_eq!(crd2idx_colex(&IntTuple::from((1, 3)), &shape).unwrap(), 10);
/// assert_eq!(crd2idx_colex(&IntTuple::Int(10), &shape).unwrap(), 10);
/// ```
pub fn crd2idx_colex<N: Num>(coord: &IntTuple<N>, shape: &IntTuple<N>) -> Result<N> {
    if let IntTuple::Int(c) = coord {
        check_range(*c, shape.view())?;
        return Ok(*c);
    }
    // The coordinate's leaves and the sizes of the sub-shapes they stand for.
    let mut pairs: Vec<(N, N)> = Vec::new();
    fn go<N: Num>(c: View<'_, N>, s: View<'_, N>, out: &mut Vec<(N, N)>) -> Result<()> {
        match (c, s) {
            (View::Int(&v), _) => {
                check_range(v, s)?;
                out.push((v, view_product(s)?));
                Ok(())
            }
            (View::Tuple(cs), View::Tuple(ss)) => {
                if cs.len() != ss.len() {
                    return Err(rank_mismatch(&c, &s));
                }
                cs.zip(ss).try_for_each(|(x, y)| go(x, y, out))
            }
            (View::Tuple(_), View::Int(_)) => Err(too_deep(&c, &s)),
        }
    }
    go(coord.view(), shape.view(), &mut pairs)?;
    let Some((&(last, _), init)) = pairs.split_last() else {
        return Ok(N::constant(0));
    };
    init.iter()
        .rev()
        .try_fold(last, |acc, &(c, s)| c.plus(s.times(acc)?))
}

/// CuTe's `crd2crd(coord, src_shape, dst_shape)`: the coordinate of `dst_shape` with the same
/// colexicographic index as `coord` in `src_shape` (mode by mode where all three are tuples).
///
/// ```
/// use tessel_layout::{IntTuple, coord::crd2crd};
/// // Index 5 of (2,3) is (2,1) in (3,2).
/// let c = crd2crd(&IntTuple::Int(5), &IntTuple::from((2, 3)), &IntTuple::from((3, 2))).unwrap();
/// assert_eq!(c.to_string(), "(2,1)");
/// // (1,2) of (2,3) is index 5 of the shape 6.
/// let i = crd2crd(&IntTuple::from((1, 2)), &IntTuple::from((2, 3)), &IntTuple::Int(6)).unwrap();
/// assert_eq!(i.to_string(), "5");
/// assert!(crd2crd(&IntTuple::Int(5), &IntTuple::from((2, 3)), &IntTuple::Int(8)).is_err());
/// ```
pub fn crd2crd<N: Num>(
    coord: &IntTuple<N>,
    src_shape: &IntTuple<N>,
    dst_shape: &IntTuple<N>,
) -> Result<IntTuple<N>> {
    match (coord, src_shape, dst_shape) {
        (IntTuple::Tuple(cs), IntTuple::Tuple(ss), IntTuple::Tuple(ds)) => {
            if cs.len() != ss.len() || cs.len() != ds.len() {
                return Err(Error::new(
                    ErrorKind::NotCongruent,
                    format!(
                        "crd2crd of {coord} from {src_shape} to {dst_shape}: the ranks do not match"
                    ),
                ));
            }
            cs.iter()
                .zip(ss.iter())
                .zip(ds.iter())
                .map(|((c, s), d)| crd2crd(&c, &s, &d))
                .collect::<Result<Vec<_>>>()
                .map(|v| IntTuple::Tuple(v.into()))
        }
        _ => {
            let (from, to) = (product(src_shape)?.value(), product(dst_shape)?.value());
            if from != to {
                return Err(Error::invalid(format!(
                    "crd2crd from {src_shape} to {dst_shape}: the sizes {from} and {to} differ"
                )));
            }
            idx2crd(&IntTuple::Int(crd2idx_colex(coord, src_shape)?), dst_shape)
        }
    }
}

/// CuTe's `increment(coord, shape)`: the next coordinate in colexicographic order, in place.
/// The first leaf steps; a leaf that reaches its extent goes back to 0 and carries into the
/// next. Returns `false` (leaving the coordinate at all zeros) after the last coordinate, where
/// CuTe leaves the last leaf at its extent.
///
/// ```
/// use tessel_layout::{IntTuple, coord::increment};
/// // CuTe include/cute/stride.hpp's example shape (1,2,(2,3),3).
/// let shape = IntTuple::from((1, 2, (2, 3), 3));
/// let mut c = IntTuple::from((0, 1, (1, 0), 0));
/// assert!(increment(&mut c, &shape).unwrap());
/// assert_eq!(c.to_string(), "(0,0,(0,1),0)");
/// ```
pub fn increment(coord: &mut IntTuple, shape: &IntTuple) -> Result<bool> {
    if !coord.congruent(shape) {
        return Err(Error::new(
            ErrorKind::NotCongruent,
            format!(
                "increment of {coord} in {shape}: the coordinate is not congruent to the shape"
            ),
        ));
    }
    let extents = shape.leaves();
    let mut leaves = coord.leaves();
    for (k, (c, &s)) in leaves.iter_mut().zip(&extents).enumerate() {
        if !(0..s).contains(c) {
            return Err(Error::invalid(format!(
                "increment of {coord} in {shape}: leaf {k} is outside 0..{s}"
            )));
        }
    }
    let mut carried = true;
    for (c, &s) in leaves.iter_mut().zip(&extents) {
        *c += 1;
        if *c < s {
            carried = false;
            break;
        }
        *c = 0;
    }
    *coord = coord
        .with_leaves(&leaves)
        .ok_or_else(|| Error::invalid("internal: increment changed the number of leaves"))?;
    Ok(!carried)
}

/// Every natural coordinate of `shape` in colexicographic order (CuTe's
/// `make_coord_iterator(shape)`): coordinate `i` is `idx2crd(i, shape)`.
///
/// ```
/// use tessel_layout::{IntTuple, coord::coords};
/// let all: Vec<String> = coords(&IntTuple::from((2, 3))).unwrap().map(|c| c.to_string()).collect();
/// assert_eq!(all, ["(0,0)", "(1,0)", "(0,1)", "(1,1)", "(0,2)", "(1,2)"]);
/// ```
pub fn coords(shape: &IntTuple) -> Result<impl Iterator<Item = IntTuple> + '_> {
    let size = shape.product()?;
    if shape.iter_leaves().any(|&s| s < 1) {
        return Err(Error::invalid(format!(
            "shape {shape} has an extent below 1; it has no coordinates to enumerate"
        )));
    }
    let mut next = Some(shape.map(&mut |_| 0i64)).filter(|_| size > 0);
    Ok(std::iter::from_fn(move || {
        let here = next.take()?;
        let mut after = here.clone();
        if increment(&mut after, shape).ok()? {
            next = Some(after);
        }
        Some(here)
    }))
}

/// CuTe's `compatible(a, b)`: whether every coordinate of the shape `a` is a coordinate of
/// the shape `b` and the two have the same size (a partial order: `a <= b`). An integer is
/// compatible with any shape of its size; a tuple only with a tuple of the same rank whose modes
/// it is compatible with.
///
/// ```
/// use tessel_layout::{IntTuple, coord::compatible};
/// // CuTe 01_layout.md, "Layout compatibility".
/// let s = |t: &str| t.parse::<IntTuple>().unwrap();
/// assert!(compatible(&s("24"), &s("((2,2),(3,2))")));
/// assert!(!compatible(&s("((2,3),4)"), &s("((2,2),(3,2))")));
/// assert!(!compatible(&s("(24)"), &s("24")));
/// ```
pub fn compatible<N: Num, M: Num>(a: &IntTuple<N>, b: &IntTuple<M>) -> bool {
    match (a, b) {
        (IntTuple::Tuple(xs), IntTuple::Tuple(ys)) => {
            xs.len() == ys.len() && xs.iter().zip(ys.iter()).all(|(x, y)| compatible(&x, &y))
        }
        (IntTuple::Int(x), _) => product(b).is_ok_and(|p| p.value() == x.value()),
        (IntTuple::Tuple(_), IntTuple::Int(_)) => false,
    }
}

/// CuTe's `elem_less(a, b)`: whether every element of `a` is less than the corresponding
/// element of `b` (recursively; an `a` with fewer elements compares only those, one with more
/// is not less). This is the bounds check of predication: `elem_less(coord, shape)`.
///
/// ```
/// use tessel_layout::{IntTuple, coord::elem_less};
/// let shape = IntTuple::from((4, (2, 3)));
/// assert!(elem_less(&IntTuple::from((3, (1, 2))), &shape).unwrap());
/// assert!(!elem_less(&IntTuple::from((4, (1, 2))), &shape).unwrap());
/// assert!(elem_less(&IntTuple::from((3,)), &shape).unwrap());
/// ```
pub fn elem_less<N: Num>(a: &IntTuple<N>, b: &IntTuple<N>) -> Result<bool> {
    match (a, b) {
        (IntTuple::Tuple(xs), IntTuple::Tuple(ys)) => {
            if xs.len() > ys.len() {
                return Ok(false);
            }
            for (x, y) in xs.iter().zip(ys.iter()) {
                if !elem_less(&x, &y)? {
                    return Ok(false);
                }
            }
            Ok(true)
        }
        (IntTuple::Int(x), IntTuple::Int(y)) => Ok(x.value() < y.value()),
        _ => Err(Error::new(
            ErrorKind::NotCongruent,
            format!("elem_less of {a} and {b}: an integer meets a tuple"),
        )),
    }
}

/// CuTe's `elem_leq(a, b)`: `!elem_less(b, a)`.
///
/// ```
/// use tessel_layout::{IntTuple, coord::elem_leq};
/// assert!(elem_leq(&IntTuple::from((4, 3)), &IntTuple::from((4, 3))).unwrap());
/// ```
pub fn elem_leq<N: Num>(a: &IntTuple<N>, b: &IntTuple<N>) -> Result<bool> {
    elem_less(b, a).map(|less| !less)
}

/// CuTe's `lex_less(a, b)`: lexicographic order, first element first (a prefix is less).
///
/// ```
/// use tessel_layout::{IntTuple, coord::lex_less};
/// assert!(lex_less(&IntTuple::from((1, 9)), &IntTuple::from((2, 0))).unwrap());
/// assert!(!lex_less(&IntTuple::from((2, 0)), &IntTuple::from((1, 9))).unwrap());
/// ```
pub fn lex_less<N: Num>(a: &IntTuple<N>, b: &IntTuple<N>) -> Result<bool> {
    Ok(ordered(a, b, false)? == Ordering::Less)
}

/// CuTe's `colex_less(a, b)`: colexicographic order, last element first — the order of the
/// indices of coordinates.
///
/// ```
/// use tessel_layout::{IntTuple, coord::colex_less};
/// assert!(colex_less(&IntTuple::from((9, 1)), &IntTuple::from((0, 2))).unwrap());
/// assert!(!colex_less(&IntTuple::from((0, 2)), &IntTuple::from((9, 1))).unwrap());
/// ```
pub fn colex_less<N: Num>(a: &IntTuple<N>, b: &IntTuple<N>) -> Result<bool> {
    Ok(ordered(a, b, true)? == Ordering::Less)
}

/// The lexicographic (or, reversed, colexicographic) comparison of CuTe's `lex_less_impl` /
/// `colex_less_impl`: elements compared in order; when one tuple runs out, it is the lesser
/// unless both do.
fn ordered<N: Num>(a: &IntTuple<N>, b: &IntTuple<N>, reverse: bool) -> Result<Ordering> {
    match (a, b) {
        (IntTuple::Int(x), IntTuple::Int(y)) => Ok(x.value().cmp(&y.value())),
        (IntTuple::Tuple(xs), IntTuple::Tuple(ys)) => {
            let (mut xs, mut ys) = (xs.to_vec(), ys.to_vec());
            if reverse {
                xs.reverse();
                ys.reverse();
            }
            for (x, y) in xs.iter().zip(&ys) {
                match ordered(x, y, reverse)? {
                    Ordering::Equal => {}
                    other => return Ok(other),
                }
            }
            Ok(xs.len().cmp(&ys.len()))
        }
        _ => Err(Error::new(
            ErrorKind::NotCongruent,
            format!("comparing {a} and {b}: an integer meets a tuple"),
        )),
    }
}
