//! Inputs that CuTe's own tests compose, complement and invert (CUTLASS
//! `test/python/pycute/test_{composition,complement,right_inverse,left_inverse,coalesce}.py`):
//! tessel must accept every one of them (except where noted) and the results must satisfy the
//! defining post-conditions those tests check.

mod common;

use common::{brute_injective, ext_eval, image, l};
use tessel_layout::{coalesce, complement, composition, left_inverse, right_inverse};

/// pycute `test_composition.py`, written in CuTe notation (`Layout((4,3))` is `(4,3):(1,4)`).
const COMPOSITIONS: &[(&str, &str)] = &[
    ("1:0", "1:0"),
    ("1:0", "1:1"),
    ("1:1", "1:0"),
    ("1:1", "1:1"),
    ("4:1", "4:1"),
    ("4:2", "4:1"),
    ("4:1", "4:2"),
    ("4:0", "4:1"),
    ("4:1", "4:0"),
    ("1:0", "4:1"),
    ("4:1", "1:0"),
    ("4:1", "2:1"),
    ("4:2", "2:1"),
    ("4:1", "2:2"),
    ("4:2", "2:2"),
    ("12:1", "(4,3):(1,4)"),
    ("12:2", "(4,3):(1,4)"),
    ("12:1", "(4,3):(3,1)"),
    ("12:2", "(4,3):(3,1)"),
    ("12:1", "(2,3):(2,4)"),
    ("(4,3):(1,4)", "(4,3):(1,4)"),
    ("(4,3):(1,4)", "12:1"),
    ("(4,3):(1,4)", "6:2"),
    ("(4,3):(1,4)", "(6,2):(2,1)"),
    ("(4,3):(3,1)", "(4,3):(1,4)"),
    ("(4,3):(3,1)", "12:1"),
    ("(4,3):(3,1)", "6:2"),
    ("(4,3):(3,1)", "(6,2):(2,1)"),
    ("(8,8):(1,8)", "((2,2,2),(2,2,2)):((1,16,4),(8,2,32))"),
    ("(8,8):(8,1)", "((2,2,2),(2,2,2)):((1,16,4),(8,2,32))"),
    ("((2,2,2),(2,2,2)):((1,16,4),(8,2,32))", "8:4"),
    ("(4,2):(1,16)", "(4,2):(2,1)"),
    ("(2,2):(2,1)", "(2,2):(2,1)"),
    ("(4,8,2):(1,4,32)", "(2,2,2):(2,8,1)"),
    ("(4,8,2):(2,8,1)", "(2,2,2):(1,8,2)"),
    ("(4,8,2):(2,8,1)", "(4,2,2):(2,8,1)"),
    ("(4,6,8):(1,4,7)", "6:1"),
    ("(4,6,8,10):(2,3,5,7)", "6:12"),
];

#[test]
fn pycute_compositions_are_accepted_and_correct() {
    for &(a, b) in COMPOSITIONS {
        let (a, b) = (l(a), l(b));
        let r = composition(&a, &b).unwrap_or_else(|e| panic!("{a} o {b} rejected: {e}"));
        assert_eq!(r.size(), b.size(), "{a} o {b} = {r}");
        for i in 0..b.size() {
            let want = ext_eval(&a, b.offset(i).unwrap());
            assert_eq!(r.offset(i).unwrap(), want, "{a} o {b} = {r} at {i}");
        }
    }
}

#[test]
fn pycute_complements() {
    // pycute `test_complement.py` (default cotarget 1); each result is disjoint from A.
    let accepted = [
        "1:0",
        "1:1",
        "4:0",
        "(2,4):(1,2)",
        "(2,3):(1,2)",
        "(2,4):(1,4)",
        "(2,4,8):(8,1,64)",
        "((2,2),(2,2)):((1,4),(8,32))",
        "(2,(3,4)):(3,(1,6))",
        // Sorted strides that are not multiples of the previous extent*stride: pycute and CuTe
        // round the hole sizes down, and so does tessel.
        "(4,6):(1,6)",
        "(4,10):(1,10)",
    ];
    for a in accepted {
        let a = l(a);
        let r = complement(&a, 1).unwrap_or_else(|e| panic!("complement({a}) rejected: {e}"));
        let ia = image(&a);
        assert!(
            r.offsets().iter().all(|o| *o == 0 || !ia.contains(o)),
            "{a} vs {r}"
        );
    }
}

#[test]
fn pycute_inverses() {
    // pycute `test_right_inverse.py` / `test_left_inverse.py`.
    let right = [
        "1:0",
        "(1,1):(0,0)",
        "(3,7):(0,0)",
        "1:1",
        "4:0",
        "4:1",
        "4:2",
        "(2,4):(0,2)",
        "(8,4):(1,8)",
        "(8,4):(4,1)",
        "(2,4,6):(1,2,8)",
        "(2,4,6):(4,1,8)",
        "(4,2):(1,16)",
    ];
    for a in right {
        let a = l(a);
        let r = right_inverse(&a).unwrap();
        for i in 0..r.size() {
            assert_eq!(
                a.offset(r.offset(i).unwrap()).unwrap(),
                i,
                "{a} right inverse {r}"
            );
        }
    }
    let left = [
        "1:0",
        "(1,1):(0,0)",
        "1:1",
        "4:1",
        "4:2",
        "(8,4):(1,8)",
        "(8,4):(4,1)",
        "(2,4,6):(1,2,8)",
        "(2,4,6):(4,1,8)",
        "(4,2):(1,16)",
    ];
    for a in left {
        let a = l(a);
        assert!(brute_injective(&a));
        let inv = left_inverse(&a).unwrap_or_else(|e| panic!("left_inverse({a}): {e}"));
        for i in 0..a.size() {
            assert_eq!(
                inv.offset(a.offset(i).unwrap()).unwrap(),
                i,
                "{a} left inverse {inv}"
            );
        }
    }
}

#[test]
fn pycute_coalesces() {
    // pycute `test_coalesce.py`: same size, same function.
    let cases = [
        "1:0",
        "1:1",
        "(2,4):(1,2)",
        "(2,4,6):(1,2,8)",
        "(2,4,6):(1,6,2)",
        "(2,1,6):(1,7,2)",
        "(2,1,6):(4,7,8)",
        "(2,(4,6)):(1,(2,8))",
        "(2,4):(4,1)",
        "(2,4,6):(24,6,1)",
        "(2,1,3):(2,4,4)",
        "((2,2),(2,2)):((1,4),(8,32))",
    ];
    for a in cases {
        let a = l(a);
        let c = coalesce(&a).unwrap();
        assert_eq!(c.size(), a.size());
        assert_eq!(c.offsets(), a.offsets(), "{a} -> {c}");
    }
}
