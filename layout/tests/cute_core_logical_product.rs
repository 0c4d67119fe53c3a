//! CuTe's core unit tests for `logical_product`, as data: every case of
//! `test/unit/cute/core/logical_product.cpp` (NVIDIA/cutlass), checked with that file's
//! `test_logical_product` post-conditions (rank 2, `layout<0>(R) == A`, `compatible(B,
//! layout<1>(R))`), plus the product's own definition by enumeration: size `size(A)*size(B)`,
//! and one disjoint copy of `A` per element of `B` when both are injective. Then the rank-1
//! `blocked_product`, `raked_product` and `tile_to_shape` against CuTe's definitions in
//! `include/cute/layout.hpp`.

mod common;

use std::collections::HashSet;

use common::{compatible, ext_eval, l, t};
use tessel_layout::{
    Layout, Tiler, blocked_product, logical_product, raked_product, tile_to_shape,
};

/// `(A, B)`. CuTe test/unit/cute/core/logical_product.cpp, in the order of the file;
/// `make_layout(Shape<...>)` is column-major.
const CASES: &[(&str, &str)] = &[
    ("1:0", "1:0"),
    ("1:1", "1:0"),
    ("1:0", "1:1"),
    ("1:1", "1:1"),
    ("3:1", "4:0"),
    ("3:0", "4:1"),
    ("3:0", "4:0"),
    ("3:2", "4:1"),
    ("(3):(1)", "(2,4):(1,2)"),
    ("(2,4):(1,2)", "(3):(1)"),
    ("(8,(2,2)):(1,(8,16))", "(4):(2)"),
    ("(2,2):(1,2)", "(3,3):(3,1)"),
    ("(3):(32)", "(32):(1)"),
    ("(3):(2)", "(4):(1)"),
    ("(3):(32)", "(128):(1)"),
    ("(3):(32)", "(8,8):(1,8)"),
    ("(3):(32)", "(8,8):(8,1)"),
    ("((4,2)):((1,16))", "(4,4):(1,4)"),
    ("((4,2)):((1,16))", "(4,2):(2,1)"),
    ("((2,2),(2,2)):((1,4),(8,32))", "(2,2):(1,2)"),
    ("((2,2),(2,2)):((1,4),(8,32))", "(2,2):(2,1)"),
    ("((4,6)):((1,6))", "(3):(1)"),
];

fn offsets(l: &Layout) -> Vec<i64> {
    (0..l.size()).map(|i| ext_eval(l, i)).collect()
}

fn injective(l: &Layout) -> bool {
    let o = offsets(l);
    o.iter().collect::<HashSet<_>>().len() == o.len()
}

#[test]
fn logical_product_postconditions() {
    for &(a, b) in CASES {
        let (a, b) = (l(a), l(b));
        let r = logical_product(&a, &Tiler::Layout(b.clone()))
            .unwrap_or_else(|e| panic!("logical_product({a}, {b}) rejected: {e}"));
        let what = format!("logical_product({a}, {b}) = {r}");
        assert_eq!(r.rank(), 2, "{what}");
        assert_eq!(r.mode(0).unwrap(), a, "{what}");
        assert!(compatible(b.shape(), r.mode(1).unwrap().shape()), "{what}");
        assert_eq!(r.size(), a.size() * b.size(), "{what}");
        if injective(&a) && injective(&b) {
            assert!(injective(&r), "{what}: the copies of A overlap");
        }
    }
}

#[test]
fn overlapping_copies_are_rejected() {
    // complement((2,3):(20,4), 30) is 4:1 by CuTe's definition (the hole below stride 4 holds
    // 4 elements; the one between 12 and 20 holds no whole copy of 0..12), so a fifth copy of
    // A would start at 4 = A(0,1): rejected rather than overlapping.
    let e = logical_product(&l("(2,3):(20,4)"), &Tiler::Layout(l("5:1"))).unwrap_err();
    assert!(e.message().contains("overlap"), "{e}");
}

/// CuTe include/cute/layout.hpp: `blocked_product(A, B)` is `zip(get<0>(P), get<1>(P))` and
/// `raked_product(A, B)` is `zip(get<1>(P), get<0>(P))` with `P = logical_product(A, B)` of the
/// operands padded to a common rank; a rank-1 operand is one mode as a whole. For `A = 3:2`,
/// `B = 4:1`: `complement(3:2, 12) = (2,2):(1,6)` (worked out from CuTe's `complement`), so the
/// copy of `A` for `j < 4` starts at `(j%2) + 6*(j/2)`.
fn copy_start(j: i64) -> i64 {
    (j % 2) + 6 * (j / 2)
}

#[test]
fn rank_one_blocked_product_keeps_every_mode() {
    let r = blocked_product(&l("3:2"), &l("4:1")).unwrap();
    assert_eq!(r.rank(), 1, "{r}");
    assert_eq!(r.size(), 12, "{r}");
    let want: Vec<i64> = (0..12).map(|i| 2 * (i % 3) + copy_start(i / 3)).collect();
    assert_eq!(offsets(&r), want, "{r}");
}

#[test]
fn rank_one_raked_product_keeps_every_mode() {
    let r = raked_product(&l("3:2"), &l("4:1")).unwrap();
    assert_eq!(r.rank(), 1, "{r}");
    assert_eq!(r.size(), 12, "{r}");
    let want: Vec<i64> = (0..12).map(|i| copy_start(i % 4) + 2 * (i / 4)).collect();
    assert_eq!(offsets(&r), want, "{r}");
}

#[test]
fn rank_one_tile_to_shape_keeps_every_mode() {
    // CuTe: tile_to_shape(3:2, 12) = blocked_product(3:2, make_ordered_layout(12/3 = 4)) with
    // make_ordered_layout(4) = 4:1.
    let r = tile_to_shape(&l("3:2"), &t("12")).unwrap();
    assert_eq!(r.size(), 12, "{r}");
    let want: Vec<i64> = (0..12).map(|i| 2 * (i % 3) + copy_start(i / 3)).collect();
    assert_eq!(offsets(&r), want, "{r}");
}
