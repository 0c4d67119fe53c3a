//! Shared strategies and brute-force oracles for the algebra property tests.
#![allow(dead_code)]

use std::collections::HashSet;

use proptest::prelude::*;
use tessel_layout::{ErrorKind, IntTuple, Layout, make_ordered_layout};

/// A layout literal of a test (panics on a typo).
pub fn l(s: &str) -> Layout {
    s.parse().unwrap_or_else(|e| panic!("bad layout {s}: {e}"))
}

/// A tuple literal of a test (panics on a typo).
pub fn t(s: &str) -> IntTuple {
    s.parse().unwrap_or_else(|e| panic!("bad tuple {s}: {e}"))
}

/// Builds a layout from flat leaves with one of a few nestings.
pub fn nested(leaves: &[(i64, i64)], nest: u8) -> Layout {
    let ints = |v: &[(i64, i64)], f: fn(&(i64, i64)) -> i64| -> Vec<IntTuple> {
        v.iter().map(|m| IntTuple::Int(f(m))).collect()
    };
    let shapes = ints(leaves, |m| m.0);
    let strides = ints(leaves, |m| m.1);
    let group = |items: Vec<IntTuple>| -> IntTuple {
        match (nest, items.len()) {
            (_, 1) if nest.is_multiple_of(2) => items[0].clone(),
            (1, n) if n >= 2 => {
                let mut it = items.into_iter();
                let first = IntTuple::tuple(it.by_ref().take(2));
                IntTuple::tuple(std::iter::once(first).chain(it))
            }
            (3, n) if n >= 2 => {
                let mut items = items;
                let tail = items.split_off(n - 2);
                items.push(IntTuple::Tuple(tail.into()));
                IntTuple::Tuple(items.into())
            }
            _ => IntTuple::Tuple(items.into()),
        }
    };
    Layout::new(group(shapes), group(strides)).expect("small layouts are valid")
}

pub fn layout_strategy(
    max_leaves: usize,
    extent: std::ops::RangeInclusive<i64>,
    stride: std::ops::RangeInclusive<i64>,
) -> impl Strategy<Value = Layout> {
    (
        prop::collection::vec((extent, stride), 1..=max_leaves),
        0u8..4,
    )
        .prop_map(|(leaves, nest)| nested(&leaves, nest))
}

/// Layouts with small extents and non-negative strides.
pub fn small_layout() -> impl Strategy<Value = Layout> {
    layout_strategy(4, 1..=6, 0..=24)
}

/// Layouts with small extents and strides of any sign.
pub fn signed_layout() -> impl Strategy<Value = Layout> {
    layout_strategy(4, 1..=5, -12..=12)
}

/// Layouts whose extents are powers of two and strides 0 or powers of two.
pub fn pow2_layout() -> impl Strategy<Value = Layout> {
    let leaf = (0u32..4, prop_oneof![Just(None), (0u32..7).prop_map(Some)]);
    (prop::collection::vec(leaf, 1..=4), 0u8..4).prop_map(|(leaves, nest)| {
        let flat: Vec<(i64, i64)> = leaves
            .into_iter()
            .map(|(s, d)| (1i64 << s, d.map_or(0, |e| 1i64 << e)))
            .collect();
        nested(&flat, nest)
    })
}

/// A permutation of a compact layout of a random shape (bijective onto 0..size), optionally
/// with all strides scaled.
pub fn compact_permuted() -> impl Strategy<Value = Layout> {
    permuted_compact(prop::collection::vec(1i64..=5, 1..=4))
}

/// `compact_permuted` with at most two leaves (for operations whose result squares the size).
pub fn small_compact_permuted() -> impl Strategy<Value = Layout> {
    permuted_compact(prop::collection::vec(1i64..=5, 1..=2))
}

/// `compact_permuted` with power-of-two extents.
pub fn pow2_compact_permuted() -> impl Strategy<Value = Layout> {
    permuted_compact(prop::collection::vec(
        prop_oneof![Just(1i64), Just(2), Just(4)],
        1..=4,
    ))
}

pub fn permuted_compact(shape: impl Strategy<Value = Vec<i64>>) -> impl Strategy<Value = Layout> {
    (shape, any::<u64>(), 0u8..4).prop_map(|(shape, seed, nest)| {
        let n = shape.len();
        let mut order: Vec<i64> = (0..n as i64).collect();
        // Deterministic shuffle from the seed.
        let mut s = seed;
        for i in (1..n).rev() {
            s = s
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            order.swap(i, (s >> 33) as usize % (i + 1));
        }
        let l = make_ordered_layout(&IntTuple::from_ints(shape), &IntTuple::from_ints(order))
            .expect("distinct order");
        nested(&l.flat_modes(), nest)
    })
}

/// `A(x)` for any `x >= 0`, with CuTe's convention that the last flat mode is unbounded.
pub fn ext_eval(a: &Layout, x: i64) -> i64 {
    let modes = a.flat_modes();
    let mut rest = x;
    let mut off = 0;
    for (k, &(s, d)) in modes.iter().enumerate() {
        if k + 1 == modes.len() {
            off += rest * d;
        } else {
            off += (rest % s) * d;
            rest /= s;
        }
    }
    off
}

pub fn brute_injective(l: &Layout) -> bool {
    let offs = l.offsets();
    offs.iter().collect::<HashSet<_>>().len() == offs.len()
}

pub fn image(l: &Layout) -> HashSet<i64> {
    l.offsets().into_iter().collect()
}

pub fn sorted_offsets(l: &Layout) -> Vec<i64> {
    let mut v = l.offsets();
    v.sort_unstable();
    v
}

/// CuTe's `compatible(B, R)`: every leaf of `B` is a leaf or a tuple of the same size in `R`.
pub fn compatible(b: &IntTuple, r: &IntTuple) -> bool {
    match (b, r) {
        (IntTuple::Int(s), _) => r.product().ok() == Some(*s),
        (IntTuple::Tuple(bs), IntTuple::Tuple(rs)) => {
            bs.len() == rs.len() && bs.iter().zip(rs).all(|(x, y)| compatible(&x, &y))
        }
        _ => false,
    }
}

pub fn documented_rejection(kind: ErrorKind) -> bool {
    matches!(
        kind,
        ErrorKind::Inadmissible | ErrorKind::InvalidArgument | ErrorKind::Overflow
    )
}

pub fn leaf_count(l: &Layout) -> usize {
    l.flat_modes().len()
}

/// CuTe's `cosize(L) = L(size(L) - 1) + 1` (one past the last offset, as CuTe's tests use it).
pub fn cute_cosize(l: &Layout) -> i64 {
    ext_eval(l, l.size() - 1) + 1
}

/// `size(filter(L))` computed from the leaves: the product of the extents whose stride is not 0.
pub fn filtered_size(l: &Layout) -> i64 {
    l.flat_modes()
        .iter()
        .filter(|m| m.1 != 0)
        .map(|m| m.0)
        .product()
}

/// The same function on the same domain: equal sizes and equal offsets at every index.
pub fn same_function(a: &Layout, b: &Layout) -> bool {
    a.size() == b.size() && (0..a.size()).all(|i| ext_eval(a, i) == ext_eval(b, i))
}
