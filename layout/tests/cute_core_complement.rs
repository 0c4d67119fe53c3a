//! CuTe's core unit tests for `complement`, as data: every case of
//! `test/unit/cute/core/complement.cpp` (NVIDIA/cutlass), checked with the post-conditions that
//! file's `test_complement` asserts, evaluated by enumerating offsets. CuTe's static and dynamic
//! integers are both plain integers here.

mod common;

use common::{cute_cosize, ext_eval, filtered_size, l, t};
use tessel_layout::{IntTuple, Layout, complement_to_shape};

/// `(layout, cotarget)`; the cotarget `"cosize"` is CuTe's one-argument form
/// `complement(layout) = complement(layout, cosize(layout))`.
// CuTe test/unit/cute/core/complement.cpp, in the order of the file.
const CASES: &[(&str, &str)] = &[
    ("1:0", "cosize"),
    ("1:0", "2"),
    ("1:0", "5"),
    ("1:0", "(2,2)"),
    ("1:1", "cosize"),
    ("1:1", "2"),
    ("1:1", "5"),
    ("1:1", "(2,2)"),
    ("1:2", "1"),
    ("1:2", "2"),
    ("1:2", "8"),
    ("1:2", "5"),
    ("1:2", "(2,2)"),
    ("4:0", "1"),
    ("4:0", "2"),
    ("4:0", "8"),
    ("4:1", "1"),
    ("4:1", "2"),
    ("4:1", "8"),
    ("4:2", "1"),
    ("4:2", "cosize"),
    ("4:2", "16"),
    ("4:2", "19"),
    ("4:2", "(2,2)"),
    ("4:4", "1"),
    ("4:4", "cosize"),
    ("4:4", "17"),
    ("4:4", "(2,2)"),
    ("(2,4):(1,2)", "cosize"),
    ("(2,3):(1,2)", "cosize"),
    ("(2,4):(1,4)", "cosize"),
    ("(2,4):(1,6)", "cosize"),
    ("(2,4,8):(8,1,64)", "cosize"),
    ("(2,4,8):(8,1,0)", "cosize"),
    ("(2,4,8):(8,1,0)", "460"),
    ("((2,2),(2,2)):((1,4),(8,32))", "cosize"),
    ("((2,2),(2,2)):((1,32),(8,4))", "cosize"),
    ("(4,6):(1,6)", "cosize"),
    ("(4,2):(1,10)", "cosize"),
    ("(4,2):(1,16)", "cosize"),
    // "Dynamic shapes/strides"
    ("12:1", "1"),
    ("12:1", "cosize"),
    ("12:1", "53"),
    ("12:1", "128"),
    ("12:2", "1"),
    ("12:2", "cosize"),
    ("12:2", "53"),
    ("12:2", "128"),
    ("(3,6):(1,3)", "cosize"),
    ("(3,6):(1,9)", "cosize"),
    ("(3,6):(1,10)", "cosize"),
    ("64:1", "(32,4,4)"),
];

/// Cases of the file that tessel notation does not state, with the reason.
#[allow(dead_code)]
const NOT_STATED: &[(&str, &str)] = &[
    (
        "make_layout(12) and make_layout(12, 1); make_layout(12, Int<2>{}) and make_layout(12, 2); \
         the dynamic repeat of ((2,2),(2,2)):((1,4),(8,32)); the cotarget (32,4,4) with a dynamic last 4",
        "they differ from cases above only in which integers are static; tessel has only plain \
         integers, so each is stated once",
    ),
    (
        "complement(complement(result, cosize(layout)), cotarget) == result, \
         size(complement(completed)) == 1",
        "CuTe asserts these only for static layouts, where == compares types; here they are \
         checked on every case as equality of the tessel results (see `complement_is_idempotent`)",
    ),
    (
        "the commented-out cases ((2,2),(2,2)):((1,8),(8,4)) and (2,2):(2,3)",
        "CuTe leaves them out as non-injective; tessel rejects them (see `non_injective_rejected`)",
    ),
];

fn cotarget_of(layout: &Layout, cotarget: &str) -> IntTuple {
    if cotarget == "cosize" {
        IntTuple::Int(cute_cosize(layout))
    } else {
        t(cotarget)
    }
}

/// CuTe's `round_up(a, b)`.
fn round_up(a: i64, b: i64) -> i64 {
    (a + b - 1) / b * b
}

#[test]
fn complement_postconditions() {
    for &(layout, cotarget) in CASES {
        let a = l(layout);
        let cot = cotarget_of(&a, cotarget);
        let n = cot.product().unwrap();
        let r = complement_to_shape(&a, &cot)
            .unwrap_or_else(|e| panic!("complement({layout}, {cotarget}) rejected: {e}"));
        let what = format!("complement({layout}, {cotarget}) = {r}");
        let completed = Layout::from_modes([a.clone(), r.clone()]).unwrap();
        // (1) lower bound on the codomain of (layout, complement).
        assert!(cute_cosize(&completed) >= n, "{what}: (1)");
        // (2) upper bound on the codomain of the complement.
        assert!(
            cute_cosize(&r) <= round_up(n, cute_cosize(&a)),
            "{what}: (2)"
        );
        let image_a: Vec<i64> = (0..a.size()).map(|j| ext_eval(&a, j)).collect();
        for i in 1..r.size() {
            // (3) ordered.
            assert!(ext_eval(&r, i - 1) < ext_eval(&r, i), "{what}: (3) at {i}");
            // (4) disjoint from the layout.
            assert!(!image_a.contains(&ext_eval(&r, i)), "{what}: (4) at {i}");
        }
        // The other observations of `test_complement`.
        let fs = filtered_size(&a);
        assert!(r.size() <= cute_cosize(&r), "{what}");
        assert!(r.size() >= n / fs, "{what}");
        assert!(
            cute_cosize(&completed) <= cute_cosize(&r) + cute_cosize(&a),
            "{what}"
        );
        assert!(cute_cosize(&r) >= n / fs, "{what}");
    }
}

#[test]
fn complement_is_idempotent() {
    // CuTe's static-only assertions: nothing is left to complement after (layout, complement),
    // and complementing the complement back (under cosize(layout)) gives the complement again.
    for &(layout, cotarget) in CASES {
        let a = l(layout);
        let cot = cotarget_of(&a, cotarget);
        let r = complement_to_shape(&a, &cot).unwrap();
        let completed = Layout::from_modes([a.clone(), r.clone()]).unwrap();
        let rest =
            complement_to_shape(&completed, &IntTuple::Int(cute_cosize(&completed))).unwrap();
        assert_eq!(rest.size(), 1, "complement of ({layout}, {r}) is {rest}");
        let back = complement_to_shape(&r, &IntTuple::Int(cute_cosize(&a))).unwrap();
        assert_eq!(
            complement_to_shape(&back, &cot).unwrap(),
            r,
            "complement(complement({r}, cosize({layout})), {cotarget})"
        );
    }
}

#[test]
fn gapped_layouts_follow_cute() {
    // The holes of these layouts are not whole copies of their lower modes; CuTe rounds the hole
    // sizes down (include/cute/layout.hpp, detail::complement). Expected values worked out by hand
    // from that definition: (4,2):(1,10) covers 0..4 and 10..14, and one more copy of 0..4 fits
    // at 4 before 10.
    let cases = [
        ("(4,2):(1,10)", 14, "2:4"),
        ("(3,6):(1,10)", 53, "3:3"),
        ("(4,6):(1,6)", 34, "1:0"),
    ];
    for (layout, n, want) in cases {
        let r = complement_to_shape(&l(layout), &IntTuple::Int(n)).unwrap();
        assert_eq!(r.to_string(), want, "complement({layout}, {n})");
    }
}

#[test]
fn shape_cotarget_follows_cute() {
    // CuTe's ceil_div of a shape by an integer divides its modes from the left
    // (include/cute/int_tuple.hpp): (3,3) / 2 = (2,3), 6 elements, not ceil(9/2) = 5.
    let r = complement_to_shape(&l("2:1"), &t("(3,3)")).unwrap();
    assert_eq!(r.size(), 6);
    assert!((0..6).all(|i| ext_eval(&r, i) == 2 * i), "{r}");
    // complement(4:2, (2,2)) fills the hole at 1 and stops: 4*2 = 8 already covers 2*2.
    let r = complement_to_shape(&l("4:2"), &t("(2,2)")).unwrap();
    assert_eq!(r.to_string(), "2:1");
}

#[test]
fn non_injective_rejected() {
    // complement.cpp comments these out: "Fails due to non-injective layout".
    for layout in ["((2,2),(2,2)):((1,8),(8,4))", "(2,2):(2,3)"] {
        assert!(
            complement_to_shape(&l(layout), &IntTuple::Int(19)).is_err(),
            "{layout}"
        );
    }
}

#[test]
fn evaluator_takes_a_shape_cotarget() {
    let r = tessel_layout::expr::eval("complement(4:2, (2,2))").unwrap();
    assert_eq!(r.to_string(), "2:1");
    let r = tessel_layout::expr::eval("complement(4:2, 24)").unwrap();
    assert_eq!(r.to_string(), "(2,3):(1,8)");
}
