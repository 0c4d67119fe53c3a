//! CuTe's core unit tests on integer tuples, as data: `test/unit/cute/core/int_tuple.cpp`
//! (NVIDIA/cutlass). `weakly_congruent` is checked case by case; for `evenly_divides`, which
//! tessel does not have, the consequence that file's `test_evenly_divides` asserts for every
//! case that divides is checked: `size(logical_divide(make_layout(a), b)) == size(a)`.

mod common;

use common::t;
use tessel_layout::{IntTuple, Layout, Tiler, logical_divide};

/// `(a, b, weakly_congruent(a, b))`. CuTe test/unit/cute/core/int_tuple.cpp, WeaklyCongruent,
/// in the order of the file (`_1` is 1, `Shape<_1>` is `(1)`).
const WEAKLY_CONGRUENT: &[(&str, &str, bool)] = &[
    ("1", "1", true),
    ("2", "2", true),
    ("1", "2", true),
    ("1", "(1)", true),
    ("2", "(2)", true),
    ("1", "(2)", true),
    ("2", "(1)", true),
    ("(1)", "1", false),
    ("(2)", "2", false),
    ("(1)", "2", false),
    ("(2)", "1", false),
    ("(1)", "(1)", true),
    ("(2)", "(2)", true),
    ("(1)", "(2)", true),
    ("1", "(1,1)", true),
    ("(1)", "(1,1)", false),
    ("(1,1)", "(1,1)", true),
    ("1", "(1,(1,1))", true),
    ("(1)", "(1,(1,1))", false),
    ("(1,1)", "(1,(1,1))", true),
    ("2", "(2,2)", true),
    ("(2)", "(2,2)", false),
    ("(1,1)", "(2,2)", true),
    ("(1,(1,1))", "(2)", false),
    ("(1,(1,1))", "(1,1)", false),
    ("(1,(1,1))", "(2,(2,2))", true),
    ("(1)", "((2,2),(2,2))", false),
    ("(1,1)", "((2,2),(2,2))", true),
    ("(1,(1,1))", "((2,2),(2,2))", true),
];

/// `(a, b)` with `evenly_divides(a, b)` true in CuTe test/unit/cute/core/int_tuple.cpp, Divides
/// (the static and dynamic blocks state the same cases; a tiler `Tile<L0, L1>` is written
/// `[L0, L1]` and becomes a by-mode tiler).
const EVENLY_DIVIDES: &[(&str, &str)] = &[
    ("16", "16"),
    ("12", "12"),
    ("8", "8"),
    ("16", "8"),
    ("(16)", "(16)"),
    ("16", "(16)"),
    ("(16)", "16"),
    ("(16)", "8"),
    ("(2,8)", "(2,8)"),
    ("((2,8))", "((2,8))"),
    ("((2,8))", "(16)"),
    ("((2,(4,2)))", "((2,(4,2)))"),
    ("((2,(4,2)))", "(16)"),
    ("((2,(4,2)))", "((2,8))"),
    ("(32,64)", "128"),
];

/// Cases of the file that tessel does not state, with the reason.
#[allow(dead_code)]
const NOT_STATED: &[(&str, &str)] = &[
    (
        "EXPECT_FALSE(evenly_divides(a, b)) and the values of evenly_divides",
        "tessel has no evenly_divides; only the consequence of a true answer is checked",
    ),
    (
        "evenly_divides((32,64), Tile<Layout<_8,_2>, _32>) (true) and \
         Tile<Layout<_8,_3>, _32> (false)",
        "checked separately in `tile_of_layouts_divides`: the true case through the size of the \
         divide, the false one only as CuTe's verdict (no evenly_divides)",
    ),
    (
        "static_assert(is_static<decltype(result)>) for static operands",
        "a type-level property; tessel has one kind of integer",
    ),
];

/// A shape as a tiler: an integer `n` is the layout `n:1`, a tuple a by-mode tiler.
fn tiler_of(shape: &IntTuple) -> Tiler {
    match shape {
        IntTuple::Int(n) => Tiler::Layout(Layout::vector(*n, 1).unwrap()),
        IntTuple::Tuple(items) => Tiler::ByMode(items.iter().map(|i| Some(tiler_of(&i))).collect()),
    }
}

#[test]
fn weakly_congruent_cases() {
    for &(a, b, want) in WEAKLY_CONGRUENT {
        assert_eq!(
            t(a).weakly_congruent(&t(b)),
            want,
            "weakly_congruent({a}, {b})"
        );
    }
}

#[test]
fn dividing_cases_keep_the_size() {
    for &(a, b) in EVENLY_DIVIDES {
        let layout = Layout::col_major(&t(a)).unwrap();
        let d = logical_divide(&layout, &tiler_of(&t(b)))
            .unwrap_or_else(|e| panic!("logical_divide({layout}, {b}) rejected: {e}"));
        assert_eq!(
            d.size(),
            layout.size(),
            "logical_divide({layout}, {b}) = {d}"
        );
    }
}

#[test]
fn tile_of_layouts_divides() {
    // evenly_divides((32,64), Tile<Layout<_8,_2>, _32>) is true in CuTe.
    let layout = Layout::col_major(&t("(32,64)")).unwrap();
    let tiler = Tiler::ByMode(vec![
        Some(Tiler::Layout("8:2".parse().unwrap())),
        Some(Tiler::Layout("32:1".parse().unwrap())),
    ]);
    let d = logical_divide(&layout, &tiler).unwrap();
    assert_eq!(d.size(), layout.size(), "{d}");
}
