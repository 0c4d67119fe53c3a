//! CuTe's core unit tests for `composition`, as data: every case of
//! `test/unit/cute/core/composition.cpp` (NVIDIA/cutlass) that tessel notation states, checked
//! with that file's `test_composition` post-conditions: `compatible(B, R)` and
//! `R(c) == A(B(c))` for every `c < size(B)`, with `A` evaluated by brute force the way CuTe
//! evaluates a layout at any integer (C++ truncating division, the last mode unbounded).

mod common;

use common::{compatible, ext_eval, l};
use tessel_layout::{ErrorKind, composition};

/// `(A, B)`. CuTe test/unit/cute/core/composition.cpp, in the order of the file; static and
/// dynamic integers are both plain integers, `make_layout(Shape<...>)` is column-major.
const CASES: &[(&str, &str)] = &[
    // Simple tests
    ("1:0", "1:0"),
    ("1:0", "1:1"),
    ("1:1", "1:0"),
    ("1:1", "1:1"),
    ("(4):(1)", "(4):(1)"),
    ("(4):(2)", "(4):(1)"),
    ("(4):(0)", "(4):(1)"),
    ("(4):(1)", "(4):(0)"),
    ("(4):(1)", "(1):(0)"),
    ("(4):(1)", "(2):(1)"),
    ("(4):(2)", "(2):(1)"),
    ("(4):(1)", "(2):(2)"),
    ("(4):(2)", "(2):(2)"),
    ("(4,3):(1,4)", "(12):(1)"),
    ("(12):(1)", "(4,3):(1,4)"),
    ("(12):(2)", "(4,3):(1,4)"),
    ("(12):(1)", "(4,3):(3,1)"),
    ("(12):(2)", "(4,3):(3,1)"),
    ("(12):(1)", "(2,3):(2,4)"),
    ("(4,3):(1,4)", "(4,3):(1,4)"),
    ("(4,3):(1,4)", "(6):(1)"),
    ("(4,3):(1,4)", "(6):(2)"),
    ("(4,3):(1,4)", "(6,2):(2,1)"),
    ("(4,3):(1,4)", "(4,3):(3,1)"),
    ("(4,3):(3,1)", "(4,3):(1,4)"),
    ("(4,3):(3,1)", "(12):(1)"),
    ("(4,3):(3,1)", "(6):(2)"),
    ("(4,3):(3,1)", "(6,2):(2,1)"),
    ("(8,8):(1,8)", "((2,2,2),(2,2,2)):((1,16,4),(8,2,32))"),
    ("(8,8):(8,1)", "((2,2,2),(2,2,2)):((1,16,4),(8,2,32))"),
    ("((4,2)):((1,16))", "(4,2):(2,1)"),
    ("(2,2):(2,1)", "(2,2):(2,1)"),
    ("(4,8,2):(1,4,32)", "(2,2,2):(2,8,1)"),
    ("(4,8,2):(2,8,1)", "(2,2,2):(1,8,2)"),
    ("(4,8,2):(2,8,1)", "(4,2,2):(2,8,1)"),
    // Dynamic shapes/strides
    ("12:1", "4:1"),
    ("(12,3):(1,24)", "(4):(1)"),
    ("16:2", "4:2"),
    ("(128,24,5):(1,128,3072)", "64:2"),
    ("(128,24,5):(1,128,3072)", "480:32"),
    // cosize(b) > size(a) and divisibility
    ("(1):(0)", "(4):(1)"),
    ("(1):(1)", "(4):(1)"),
    ("(4):(1)", "(4):(2)"),
    // Last mode gets extended
    ("(4,3):(3,1)", "(24):(1)"),
    // Last mode extension even without last mode divisibility
    ("(4,3):(3,1)", "(8):(1)"),
    // Capping a Layout with 1:0 extends in stride-0
    ("(4,3,1):(3,1,0)", "(24):(1)"),
    ("(4,3,1):(3,1,0)", "(4):(1)"),
    // Pre-coalesced LHS
    ("(4,6,8):(1,4,7)", "6:1"),
    // Mid-layout truncation
    ("(4,6,8,10):(2,3,5,7)", "6:12"),
    ("(8,8):(8,1)", "2:3"),
    ("(8,8):(8,1)", "3:3"),
    ("3:1", "4:1"),
    ("(48,24,5):(1,128,3072)", "32:1"),
    // BETA: Negative strides
    ("(4):(-1)", "(4):(1)"),
    ("(4):(1)", "(4):(-1)"),
    ("(4):(-1)", "(4):(-1)"),
    ("(4):(1)", "(4):(-2)"),
    ("(4,4):(-1,1)", "(2,4,2):(1,2,8)"),
    ("(4,4):(-1,1)", "(2,4,2):(1,4,2)"),
    // The SM80 fp64 MMA NT problem
    ("(1,(2,4)):(0,(-1,512))", "2:-1"),
    ("(1,(2,4)):(0,(-1,512))", "4:-1"),
];

/// Cases of the file that tessel notation does not state, with the reason.
#[allow(dead_code)]
const NOT_STATED: &[(&str, &str)] = &[
    (
        "make_layout(12, 1) o make_layout(_4, _1) and its three static/dynamic variants",
        "they differ only in which integers are static; stated once as 12:1 o 4:1",
    ),
    (
        "Swizzle composition: (8,8):(8,1) o (Sw<2,0,-3> o (8,8):(8,1)) and \
         (Sw<2,0,3> o (8,8):(8,1)) o (Sw<2,0,-3> o (8,8):(8,1))",
        "swizzled layouts (ComposedLayout) are tested with the swizzle module, not here",
    ),
    (
        "BETA: Tuple strides: (4,4):(4,1) o (4,4):(E<1>,E<0>) and \
         (4,(2,3)):(6,(3,1)) o (2,4):(E<1,1>,E<0>)",
        "strides that are scaled basis elements (E<i>) are a type-level CuTe feature tessel's \
         integer strides cannot state",
    ),
];

#[test]
fn composition_postconditions() {
    for &(a, b) in CASES {
        let (a, b) = (l(a), l(b));
        let r = composition(&a, &b).unwrap_or_else(|e| panic!("{a} o {b} rejected: {e}"));
        assert!(
            compatible(b.shape(), r.shape()),
            "{a} o {b} = {r} is not compatible with B"
        );
        for c in 0..b.size() {
            assert_eq!(
                ext_eval(&r, c),
                ext_eval(&a, ext_eval(&b, c)),
                "{a} o {b} = {r} at {c}"
            );
        }
    }
}

#[test]
fn negative_stride_in_b_is_the_negated_composition() {
    // CuTe composition.cpp, "BETA: Negative strides": (4):(1) o (4):(-1) is 4:-1.
    assert_eq!(
        composition(&l("(4):(1)"), &l("(4):(-1)"))
            .unwrap()
            .to_string(),
        "(4):(-1)"
    );
    // A(-x) == -A(x) under C++ truncating division: A = (2,4):(-1,512) at -3 is
    // coordinate (-1,-1), offset 1 - 512.
    let a = l("(1,(2,4)):(0,(-1,512))");
    assert_eq!(ext_eval(&a, -3), 1 - 512);
    let r = composition(&a, &l("4:-1")).unwrap();
    assert_eq!(ext_eval(&r, 3), 1 - 512);
}

#[test]
fn inadmissible_cases_stay_rejected() {
    // composition.cpp: "Should fail to a static divisibility condition".
    let e = composition(&l("(8,8):(8,1)"), &l("4:3")).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Inadmissible);
    // CUTLASS issue 3177: CuTe returns the wrong (2,3):(6,3).
    let e = composition(&l("(4,6,8):(2,3,5)"), &l("6:3")).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Inadmissible);
    // Strides of both signs in B that borrow between A's modes: B(1,1) = -3 and A(-3) = -3, but
    // the sum over B's modes would be A(1) + A(-4) = 1 - 10.
    let (a, b) = (l("(4,4):(1,10)"), l("(2,2):(1,-4)"));
    assert_eq!(ext_eval(&a, -3), -3);
    let e = composition(&a, &b).unwrap_err();
    assert!(e.message().contains("sign condition"), "{e}");
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(4000))]

    /// Strides of any sign on both sides: an accepted composition is `A(B(c))` at every `c`
    /// (CuTe's evaluation at negative indices), a rejected one is inadmissible or overflows.
    #[test]
    fn signed_compositions_are_exact(a in common::signed_layout(), b in common::signed_layout()) {
        match composition(&a, &b) {
            Ok(r) => {
                proptest::prop_assert!(compatible(b.shape(), r.shape()), "{} o {} = {}", a, b, r);
                for c in 0..b.size() {
                    proptest::prop_assert_eq!(
                        ext_eval(&r, c),
                        ext_eval(&a, ext_eval(&b, c)),
                        "{} o {} = {} at {}", a, b, r, c
                    );
                }
            }
            Err(e) => proptest::prop_assert!(common::documented_rejection(e.kind()), "{}", e),
        }
    }
}
