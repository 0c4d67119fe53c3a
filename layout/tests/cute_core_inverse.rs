//! CuTe's core unit tests for `left_inverse` and `right_inverse`, as data: every case of
//! `test/unit/cute/core/inverse_left.cpp` and `inverse_right.cpp` (NVIDIA/cutlass) that tessel
//! notation states, checked with those files' helpers, `layout(inv(layout(i))) == layout(i)`
//! for every `i < size(layout)` (left; and `inv(layout(i)) == i` where the layout is injective)
//! and `layout(inv(i)) == i` for every `i < size(inv)` (right). Layouts are evaluated by brute
//! force the way CuTe evaluates them at any integer, including the negative offsets of
//! negative strides (C++ truncating division).

mod common;

use std::collections::HashSet;

use common::{ext_eval, l};
use tessel_layout::{ErrorKind, left_inverse, right_inverse};

/// The plain layouts of both files (they test the same list), in the order of the files.
/// CuTe test/unit/cute/core/inverse_left.cpp, inverse_right.cpp.
const CASES: &[&str] = &[
    "1:0",
    "1:1",
    "((1,1)):((0,0))",
    "((3,7)):((0,0))",
    "(4):(0)",
    "(4):(1)",
    "(4):(2)",
    "(2,4):(0,2)",
    "(8,4):(1,8)",
    "(8,4):(4,1)",
    "(2,4,6):(1,2,8)",
    "(2,4,6):(4,1,8)",
    "(2,4,4,6):(4,1,0,8)",
    "(4,2):(1,16)",
    "(4,2):(1,5)",
    "(128,128):(65536,1)",
    "(128,160):(65536,1)",
    "(128,3,160):(65536,512,1)",
    "(128,64):(131072,2)",
    "(32,4,4,4):(262144,4,8388608,1)",
    "(2,2,2):(4,0,1)",
    "(((((32,4),1),(32,2)),4),1,(2,2),2):(((((262144,4),0),(0,1)),8388608),0,(2,16),32)",
    // Dynamic strides: active in inverse_right.cpp, commented out in inverse_left.cpp (CuTe's
    // left_inverse needs static strides); tessel has one kind of integer and runs both.
    "(4,2):(1,4)",
    "(2,4):(4,1)",
    // Negative strides (beta support in both files).
    "(4):(-1)",
];

/// Negative-stride cases that both files leave commented out. right_inverse handles them (its
/// chain of strides 1, s0, ... never uses a negative mode); left_inverse rejects strides of both
/// signs (see `left_inverse_rejects_strides_of_both_signs`).
const MIXED_SIGNS: &[&str] = &["(2,4):(-1,2)", "(2,4):(4,-1)", "(2,4,6):(-1,12,-2)"];

/// Cases of the files that tessel notation does not state, with the reason.
#[allow(dead_code)]
const NOT_STATED: &[(&str, &str)] = &[
    (
        "make_layout(make_shape(_4, 2), make_stride(_1, 4)) and the other static/dynamic \
         variants of (4,2):(1,4) and (2,4):(4,1)",
        "they differ only in which integers are static; stated once each",
    ),
    (
        "ComposedLayout<Swizzle<1,0,2>, _0, (4,4):(1,4)>, ... (the three swizzled layouts)",
        "inverses of swizzled layouts belong to the swizzle module and its tests",
    ),
];

fn injective(layout: &tessel_layout::Layout) -> bool {
    let o: Vec<i64> = (0..layout.size()).map(|i| ext_eval(layout, i)).collect();
    o.iter().collect::<HashSet<_>>().len() == o.len()
}

#[test]
fn left_inverse_postconditions() {
    for &layout in CASES {
        let a = l(layout);
        let inv = left_inverse(&a).unwrap_or_else(|e| panic!("left_inverse({a}) rejected: {e}"));
        let one_to_one = injective(&a);
        for i in 0..a.size() {
            let y = ext_eval(&a, i);
            let back = ext_eval(&inv, y);
            assert_eq!(ext_eval(&a, back), y, "left_inverse({a}) = {inv} at {i}");
            if one_to_one {
                assert_eq!(back, i, "left_inverse({a}) = {inv} at {i}");
            }
        }
    }
}

#[test]
fn right_inverse_postconditions() {
    for &layout in CASES.iter().chain(MIXED_SIGNS) {
        let a = l(layout);
        let inv = right_inverse(&a).unwrap();
        for i in 0..inv.size() {
            assert_eq!(
                ext_eval(&a, ext_eval(&inv, i)),
                i,
                "right_inverse({a}) = {inv} at {i}"
            );
        }
    }
}

#[test]
fn left_inverse_of_negative_strides() {
    // 4:-1 maps i to -i; its left inverse maps -i back to i. CuTe writes it (-1,4):(0,1), a
    // negative extent tessel's shapes do not allow; 4:-1 is the same function there.
    let inv = left_inverse(&l("4:-1")).unwrap();
    assert_eq!(inv.to_string(), "4:-1");
    assert!((0..4).all(|i| ext_eval(&inv, -i) == i));
    // All strides negative, with a stride-0 mode: (2,3,2):(-3,0,-1) maps (x,y,z) to -3x - z.
    let a = l("(2,3,2):(-3,0,-1)");
    let inv = left_inverse(&a).unwrap();
    for i in 0..a.size() {
        let y = ext_eval(&a, i);
        assert_eq!(ext_eval(&a, ext_eval(&inv, y)), y, "{inv} at {i}");
    }
}

#[test]
fn left_inverse_rejects_strides_of_both_signs() {
    for &layout in MIXED_SIGNS {
        let e = left_inverse(&l(layout)).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::Inadmissible, "{layout}: {e}");
    }
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(4000))]

    /// Strides of any sign: an accepted left inverse satisfies CuTe's property (and inverts an
    /// injective layout); a layout whose non-zero strides have one sign and satisfy CuTe's left
    /// inverse divisibility condition (sorted by magnitude, each a multiple of the previous and
    /// at least the previous extent*stride) is accepted.
    #[test]
    fn signed_left_inverses(a in common::signed_layout()) {
        let mut nonzero: Vec<(i64, i64)> =
            a.flat_modes().into_iter().filter(|m| m.1 != 0 && m.0 > 1).collect();
        let one_sign = nonzero.iter().all(|m| m.1 > 0) || nonzero.iter().all(|m| m.1 < 0);
        nonzero.sort_by_key(|m| m.1.abs());
        let divisible = nonzero.windows(2).all(|w| {
            let (p, n) = ((w[0].0, w[0].1.abs()), w[1].1.abs());
            n % p.1 == 0 && n >= p.0 * p.1
        });
        match left_inverse(&a) {
            Ok(inv) => {
                let one_to_one = injective(&a);
                for i in 0..a.size() {
                    let y = ext_eval(&a, i);
                    let back = ext_eval(&inv, y);
                    proptest::prop_assert_eq!(ext_eval(&a, back), y, "{} inv {} at {}", a, inv, i);
                    if one_to_one {
                        proptest::prop_assert_eq!(back, i, "{} inv {} at {}", a, inv, i);
                    }
                }
            }
            Err(e) => {
                proptest::prop_assert_eq!(e.kind(), ErrorKind::Inadmissible);
                proptest::prop_assert!(!(one_sign && divisible), "{} rejected: {}", a, e);
                proptest::prop_assert!(e.message().contains(&a.to_string()), "{}", e);
            }
        }
    }
}
