//! Golden vectors for the layout algebra, taken only from published CuTe facts. Each vector
//! cites its source:
//! - [SPEC]: docs/semantics.md "Reference values" (each value with its public source).
//! - [ALG]: CUTLASS `media/docs/cpp/cute/02_layout_algebra.md`.
//! - [HPP]: comments in CUTLASS `include/cute/layout.hpp`.
//! - [PYT]: CUTLASS `test/python/pycute/test_*.py` (inputs CuTe accepts; checked by property).

mod common;

use common::{l, t};
use tessel_layout::{
    ErrorKind, Layout, Tiler, blocked_product, coalesce, coalesce_profile, complement,
    compose_tiler, composition, logical_divide, logical_product, make_ordered_layout,
    raked_product, right_inverse, zipped_divide,
};

fn by_mode(parts: &[&str]) -> Tiler {
    Tiler::ByMode(parts.iter().map(|p| Some(Tiler::Layout(l(p)))).collect())
}

#[test]
fn coalesce_golden() {
    // [ALG] "Coalesce": (_2,(_1,_6)):(_1,(_6,_2)) -> _12:_1, by-mode (_2,_6):(_1,_2).
    let a = l("(2,(1,6)):(1,(6,2))");
    assert_eq!(coalesce(&a).unwrap().to_string(), "12:1");
    assert_eq!(
        coalesce_profile(&a, &t("(1,1)")).unwrap().to_string(),
        "(2,6):(1,2)"
    );
}

#[test]
fn composition_golden() {
    // [SPEC] and [ALG] "Composition" examples.
    let cases = [
        ("(6,2):(8,2)", "(4,3):(3,1)", "((2,2),3):((24,2),8)"),
        ("20:2", "(5,4):(4,1)", "(5,4):(8,2)"),
        ("(4,6,8,10):(2,3,5,7)", "6:12", "(2,3):(9,5)"),
        // [ALG] Example 3 (static print): (_5,(_2,_2)):(_16,(_80,_4)).
        ("(10,2):(16,4)", "(5,4):(1,5)", "(5,(2,2)):(16,(80,4))"),
        // [ALG] "(3,6,2,8):(w,x,y,z) o 16:9 = (1,2,2,4):(9*w,3*x,y,z)" with
        // (w,x,y,z) = (1,1000,10000,100000); the extent-1 mode is dropped.
        (
            "(3,6,2,8):(1,1000,10000,100000)",
            "16:9",
            "(2,2,4):(3000,10000,100000)",
        ),
        // [ALG] trivial cases of Example 2.
        ("20:2", "5:4", "5:8"),
        ("20:2", "4:1", "4:2"),
    ];
    for (a, b, want) in cases {
        let r = composition(&l(a), &l(b)).unwrap();
        assert_eq!(r.to_string(), want, "{a} o {b}");
    }
}

#[test]
fn composition_rejects_cutlass_issue_3177() {
    // [SPEC] CuTe C++ returns (2,3):(6,3) for (4,6,8):(2,3,5) o 6:3, which is wrong at
    // index 2 (CUTLASS issue 3177). tessel must reject it.
    let a = l("(4,6,8):(2,3,5)");
    let b = l("6:3");
    let err = composition(&a, &b).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Inadmissible);
    let msg = err.message();
    assert!(msg.contains("stride divisibility"), "{msg}");
    assert!(msg.contains("(4,6,8):(2,3,5)"), "{msg}");
    assert!(msg.contains("6:3"), "{msg}");
    // The wrong answer really is wrong: it differs from A(B(2)).
    let wrong = l("(2,3):(6,3)");
    assert_ne!(
        wrong.offset(2).unwrap(),
        a.offset(b.offset(2).unwrap()).unwrap()
    );
}

#[test]
fn by_mode_composition_golden() {
    // [ALG] "first mode of each mode of the result is the sublayout (3,(2,4)):(177,(13,2))
    // and is precisely the result we would have received if we had applied composition".
    let a = l("(9,(4,8)):(59,(13,1))");
    let tiler = by_mode(&["3:3", "(2,4):(1,8)"]);
    assert_eq!(
        compose_tiler(&a, &tiler).unwrap().to_string(),
        "(3,(2,4)):(177,(13,2))"
    );
}

#[test]
fn complement_golden() {
    // [ALG] "Complement" examples, and [SPEC].
    let cases = [
        ("4:1", 24, "6:4"),
        ("6:4", 24, "4:1"),
        ("(4,6):(1,4)", 24, "1:0"),
        ("4:2", 24, "(2,3):(1,8)"),
        ("(2,4):(1,6)", 24, "3:2"),
        ("(2,2):(1,6)", 24, "(3,2):(2,12)"),
        // [ALG] logical_product 1-D example: complement of (2,2):(4,1) under 24.
        ("(2,2):(4,1)", 24, "(2,3):(2,8)"),
    ];
    for (a, m, want) in cases {
        assert_eq!(
            complement(&l(a), m).unwrap().to_string(),
            want,
            "complement({a},{m})"
        );
    }
}

#[test]
fn right_inverse_golden() {
    // [SPEC]
    assert_eq!(
        right_inverse(&l("(2,4,6):(4,1,8)")).unwrap().to_string(),
        "(4,2,6):(2,1,8)"
    );
}

#[test]
fn logical_divide_golden() {
    // [SPEC] / [ALG] 1-D example.
    let a = l("(4,2,3):(2,1,8)");
    let r = logical_divide(&a, &Tiler::Layout(l("4:2"))).unwrap();
    assert_eq!(r.to_string(), "((2,2),(2,3)):((4,1),(2,8))");
    // [ALG] 2-D example: shape ((3,3),(8,4)); zipped ((3,8),(3,4)); the tile is the
    // composition (3,(2,4)):(177,(13,2)).
    let a = l("(9,(4,8)):(59,(13,1))");
    let tiler = by_mode(&["3:3", "(2,4):(1,8)"]);
    let ld = logical_divide(&a, &tiler).unwrap();
    let shape_sizes: Vec<Vec<i64>> = ld
        .modes()
        .iter()
        .map(|m| m.modes().iter().map(Layout::size).collect())
        .collect();
    assert_eq!(shape_sizes, vec![vec![3, 3], vec![8, 4]]);
    let zd = zipped_divide(&a, &tiler).unwrap();
    let zsizes: Vec<Vec<i64>> = zd
        .modes()
        .iter()
        .map(|m| m.modes().iter().map(Layout::size).collect())
        .collect();
    assert_eq!(zsizes, vec![vec![3, 8], vec![3, 4]]);
    assert_eq!(zd.mode(0).unwrap().to_string(), "(3,(2,4)):(177,(13,2))");
}

#[test]
fn logical_product_golden() {
    // [ALG] 1-D example: ((2,2),(2,3)):((4,1),(2,8)).
    let r = logical_product(&l("(2,2):(4,1)"), &Tiler::Layout(l("6:1"))).unwrap();
    assert_eq!(r.to_string(), "((2,2),(2,3)):((4,1),(2,8))");
}

#[test]
fn blocked_and_raked_golden() {
    // [SPEC]
    let a = l("(2,5):(5,1)");
    let b = l("(3,4):(1,3)");
    assert_eq!(
        blocked_product(&a, &b).unwrap().to_string(),
        "((2,3),(5,4)):((5,10),(1,30))"
    );
    assert_eq!(
        raked_product(&a, &b).unwrap().to_string(),
        "((3,2),(4,5)):((10,5),(30,1))"
    );
}

#[test]
fn make_ordered_layout_golden() {
    // [HPP] make_ordered_layout(Shape<_2,_2,_2,_2>{}, Step<_0,_2,_3,_1>{})
    //   -> (_2,_2,_2,_2):(_1,_4,_8,_2)
    let r = make_ordered_layout(&t("(2,2,2,2)"), &t("(0,2,3,1)")).unwrap();
    assert_eq!(r.to_string(), "(2,2,2,2):(1,4,8,2)");
}
