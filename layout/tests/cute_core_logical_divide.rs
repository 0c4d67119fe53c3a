//! CuTe's core unit tests for `logical_divide`, as data: every case of
//! `test/unit/cute/core/logical_divide.cpp` (NVIDIA/cutlass), checked with that file's
//! `test_logical_divide` post-conditions (rank 2, `compatible(B, layout<0>(R))`) and its
//! "enforcement" values, plus mode 0 being `A o B` by enumeration (`R0(c) == A(B(c))`).

mod common;

use common::{compatible, ext_eval, l, same_function};
use tessel_layout::{Tiler, logical_divide};

/// `(A, B)`. CuTe test/unit/cute/core/logical_divide.cpp, in the order of the file;
/// `Layout<_32>` is `32:1`, static and dynamic integers are plain integers.
const CASES: &[(&str, &str)] = &[
    ("1:0", "1:0"),
    ("1:0", "1:1"),
    ("1:1", "1:0"),
    ("1:1", "1:1"),
    ("6:1", "2:1"),
    ("6:1", "2:3"),
    ("6:1", "(2,3):(3,1)"),
    ("6:2", "2:1"),
    ("6:2", "2:3"),
    ("6:2", "(2,3):(3,1)"),
    ("(6,6):(1,12)", "(6,3):(3,1)"),
    ("(6,6):(12,1)", "(6,3):(3,1)"),
    ("32:1", "2:8"),
    ("(4,1):(1,1)", "2:1"),
    ("(4,1):(1,1)", "2:2"),
    ("(8,8):(1,8)", "32:2"),
    ("(8,8):(8,1)", "32:2"),
    // Dynamic
    ("2:1", "32:1"),
    ("48:1", "32:1"),
    ("96:1", "32:2"),
    ("32:1", "48:1"),
    ("(32,4,4):(1,32,128)", "64:1"),
    // "ALLOWED, but dangerous due to the dynamic lhs shapes"
    ("(128,4,3):(1,512,0)", "32:1"),
    ("(128,4,3):(1,512,0)", "32:2"),
    ("(16,4,3):(1,512,0)", "32:1"),
];

/// What the file states that tessel cannot state as it is, with the reason.
#[allow(dead_code)]
const NOT_STATED: &[(&str, &str)] = &[(
    "shape(result) == (_64, (_2, 4)) for make_layout((_32,_4,4)) / Layout<_64>",
    "the split (2,4) comes from CuTe's coalesce keeping a static and a dynamic extent apart; \
     tessel has one kind of integer and coalesces them into 8, so the test checks the same \
     function, (64,(2,4)):(1,(64,128)), mode by mode",
)];

#[test]
fn logical_divide_postconditions() {
    for &(a, b) in CASES {
        let (a, b) = (l(a), l(b));
        let r = logical_divide(&a, &Tiler::Layout(b.clone()))
            .unwrap_or_else(|e| panic!("logical_divide({a}, {b}) rejected: {e}"));
        assert_eq!(r.rank(), 2, "logical_divide({a}, {b}) = {r}");
        let tile = r.mode(0).unwrap();
        assert!(
            compatible(b.shape(), tile.shape()),
            "logical_divide({a}, {b}) = {r}: mode 0 is not compatible with B"
        );
        for c in 0..b.size() {
            assert_eq!(
                ext_eval(&tile, c),
                ext_eval(&a, ext_eval(&b, c)),
                "logical_divide({a}, {b}) = {r}: mode 0 at {c}"
            );
        }
    }
}

#[test]
fn enforced_dynamic_results() {
    // logical_divide.cpp "Enforcement for dynamic cases" and "Enforcement of result". The stride
    // of an extent-1 mode is not observable, so modes are compared as functions.
    let cases = [
        ("2:1", "32:1", "32:1", "1:32"),
        ("48:1", "32:1", "32:1", "2:32"),
        ("32:1", "48:1", "48:1", "1:48"),
        ("(32,4,4):(1,32,128)", "64:1", "64:1", "(2,4):(64,128)"),
    ];
    for (a, b, tile, rest) in cases {
        let r = logical_divide(&l(a), &Tiler::Layout(l(b))).unwrap();
        let (r0, r1) = (r.mode(0).unwrap(), r.mode(1).unwrap());
        assert!(
            same_function(&r0, &l(tile)),
            "logical_divide({a}, {b}) = {r}"
        );
        assert!(
            same_function(&r1, &l(rest)),
            "logical_divide({a}, {b}) = {r}"
        );
    }
}

#[test]
fn gapped_tilers_are_rejected() {
    // complement((4,2):(1,10), 16) follows CuTe and leaves the offsets 8 and 9 to no tile, so
    // (B, complement) does not re-index 0..16: rejected rather than dropping elements of A.
    let e = logical_divide(&l("16:1"), &Tiler::Layout(l("(4,2):(1,10)"))).unwrap_err();
    assert!(e.message().contains("do not cover"), "{e}");
    // Its divisible neighbour (4,2):(1,8) tiles 0..16 and is accepted.
    let r = logical_divide(&l("16:1"), &Tiler::Layout(l("(4,2):(1,8)"))).unwrap();
    let mut offsets: Vec<i64> = (0..r.size()).map(|i| ext_eval(&r, i)).collect();
    offsets.sort_unstable();
    assert_eq!(offsets, (0..16).collect::<Vec<_>>());
}
