//! The coordinate functions and the tuple arithmetic of CuTe, with expected values from CuTe's
//! sources (CUTLASS v4.2.1): `test/unit/cute/core/compare.cpp`, `int_tuple.cpp`,
//! `domain_distribute.cpp`, the comments of `include/cute/layout.hpp`, `int_tuple.hpp` and
//! `stride.hpp`, and pycute's `test/python/pycute/test_int_tuple.py`; and properties checked by
//! their defining formulas.

mod common;

use proptest::prelude::*;
use tessel_layout::expr::eval;
use tessel_layout::int_tuple::arith;
use tessel_layout::make::{domain_distribute, make_layout_like};
use tessel_layout::static_int::Integer;
use tessel_layout::{IntTuple, Layout, coord, make_ordered_layout};

fn t(s: &str) -> IntTuple {
    s.parse().unwrap()
}

/// compare.cpp: for a compact column-major (row-major) layout, the coordinate of offset `i`
/// (`get_hier_coord`, CuTe's `idx2crd(i, shape, stride)`) is inside the shape, and the
/// coordinates of `i < j` compare colexicographically (lexicographically) less.
#[test]
fn compare_cpp() {
    for (s, row_major) in [
        ("(3,5)", false),
        ("(3,5)", true),
        ("(2,3,5)", false),
        ("(2,3,5)", true),
        ("((3,2),(5,2,2))", false),
        ("((3,2),(5,2,2))", true),
    ] {
        let shape = t(s);
        let stride = if row_major {
            arith::compact_row_major(&shape, 1).unwrap()
        } else {
            arith::compact_col_major(&shape, 1).unwrap()
        };
        let size = shape.product().unwrap();
        let crd = |i: i64| coord::idx2crd_strided(&IntTuple::Int(i), &shape, &stride).unwrap();
        for i in 0..size {
            assert!(coord::elem_less(&crd(i), &shape).unwrap(), "{s} {i}");
            for j in 0..size {
                let less = if row_major {
                    coord::lex_less(&crd(i), &crd(j)).unwrap()
                } else {
                    coord::colex_less(&crd(i), &crd(j)).unwrap()
                };
                assert_eq!(less, i < j, "{s} row-major {row_major}: {i} vs {j}");
            }
        }
    }
}

/// int_tuple.cpp, "Divides": `evenly_divides(a, b)` case by case (static and dynamic cases of
/// the file are the same values).
#[test]
fn int_tuple_cpp_divides() {
    for (a, b, want) in [
        ("16", "16", true),
        ("12", "12", true),
        ("8", "8", true),
        ("16", "12", false),
        ("16", "8", true),
        ("8", "16", false),
        ("(16)", "(16)", true),
        ("16", "(16)", true),
        ("(16)", "16", true),
        ("8", "(16)", false),
        ("(16)", "8", true),
        ("12", "(16)", false),
        ("(16)", "12", false),
        ("(2,8)", "(2,8)", true),
        ("16", "(2,8)", false),
        ("(16)", "(2,8)", false),
        ("(2,8)", "(16)", false),
        ("(2,8)", "(2,(2,4))", false),
        ("((2,8))", "((2,8))", true),
        ("16", "((2,8))", false),
        ("8", "((2,8))", false),
        ("(16)", "((2,8))", false),
        ("((2,8))", "(16)", true),
        ("((2,(4,2)))", "((2,(4,2)))", true),
        ("16", "((2,(4,2)))", false),
        ("8", "((2,(4,2)))", false),
        ("(16)", "((2,(4,2)))", false),
        ("((2,(4,2)))", "(16)", true),
        ("((2,8))", "((2,(4,2)))", false),
        ("((2,(4,2)))", "((2,8))", true),
        ("(32,64)", "128", true),
    ] {
        assert_eq!(
            arith::evenly_divides(&t(a), &t(b)).unwrap(),
            want,
            "evenly_divides({a}, {b})"
        );
        let e = format!("evenly_divides({a}, {b})");
        assert_eq!(eval(&e).unwrap().to_string(), want.to_string(), "{e}");
    }
}

/// test_int_tuple.py (pycute): product, inner_product, shape_div.
#[test]
fn pycute_test_int_tuple() {
    assert_eq!(arith::product(&t("2")).unwrap(), 2);
    assert_eq!(arith::product(&t("(3,2)")).unwrap(), 6);
    assert_eq!(arith::product(&t("((2,3),4)")).unwrap(), 24);
    assert_eq!(arith::inner_product(&t("2"), &t("3")).unwrap(), 6);
    assert_eq!(arith::inner_product(&t("(1,2)"), &t("(3,2)")).unwrap(), 7);
    assert_eq!(
        arith::inner_product(&t("((2,3),4)"), &t("((2,1),2)")).unwrap(),
        15
    );
    for (a, b, want) in [
        ("(3,4)", "6", "(1,2)"),
        ("(3,4)", "12", "(1,1)"),
        ("(3,4)", "36", "(1,1)"),
        ("((3,4),6)", "36", "((1,1),2)"),
        ("(6,(3,4))", "36", "(1,(1,2))"),
    ] {
        assert_eq!(
            arith::shape_div(&t(a), &t(b)).unwrap().to_string(),
            want,
            "shape_div({a}, {b})"
        );
        let e = format!("shape_div({a}, {b})");
        assert_eq!(eval(&e).unwrap().to_string(), want, "{e}");
    }
    // The example of int_tuple.hpp's shape_div comment.
    assert_eq!(
        arith::shape_div(&t("(4,5,6)"), &t("40")).unwrap(),
        t("(1,1,3)")
    );
}

/// The comments of include/cute/layout.hpp: make_layout_like and domain_distribute.
#[test]
fn layout_hpp_examples() {
    // make_layout_like(Layout<Shape<_2,_2,_2,_2>, Stride<_0,_2,_4,_1>>{}) -> (_2,_2,_2,_2):(_0,_2,_4,_1)
    // make_layout_like(make_layout(make_shape(2,3,4,5), make_stride(Int<0>{},42,Int<1>{},Int<0>{})))
    //   -> (2,3,4,5):(_0,4,_1,_0)
    for (l, want) in [
        ("(_2,_2,_2,_2):(_0,_2,_4,_1)", "(_2,_2,_2,_2):(_0,_2,_4,_1)"),
        ("(2,3,4,5):(_0,42,_1,_0)", "(2,3,4,5):(_0,4,_1,_0)"),
    ] {
        let e = format!("make_layout_like({l})");
        assert_eq!(eval(&e).unwrap().to_string(), want, "{e}");
    }
    // Layout dist = domain_distribute(Layout<Shape<Int<15>,Int<14>>>{}, Int<6>{});  // (_3,_2):(_1,_15)
    assert_eq!(
        eval("domain_distribute((_15,_14), _6)")
            .unwrap()
            .to_string(),
        "(_3,_2):(_1,_15)"
    );
    assert_eq!(
        domain_distribute(&t("(15,14)"), &t("6"))
            .unwrap()
            .to_string(),
        "(3,2):(1,15)"
    );
    // The plain family decides zeros by value: a broadcast mode stays one.
    let l: Layout = "(4,2):(0,1)".parse().unwrap();
    assert_eq!(make_layout_like(&l).unwrap().to_string(), "(4,2):(0,1)");
}

/// domain_distribute.cpp: the post-conditions the test checks on each case: the result's size
/// evenly divides b, the result tiles a evenly, and it is ordered (strictly increasing).
#[test]
fn domain_distribute_cpp() {
    for (a, b) in [
        ("((64,3),(8,8))", "128"),
        ("(192,(8,8))", "128"),
        ("((64,3),(8,8))", "1024"),
        ("(192,(8,8))", "1024"),
        ("((64,3))", "128"),
    ] {
        let r = domain_distribute(&t(a), &t(b)).unwrap();
        assert!(
            arith::evenly_divides(&t(b), &IntTuple::Int(r.size())).unwrap(),
            "{a} {b} {r}"
        );
        let tiled = tessel_layout::logical_divide(
            &Layout::col_major(&t(a)).unwrap(),
            &tessel_layout::Tiler::Layout(r.clone()),
        )
        .unwrap();
        assert_eq!(tiled.size(), t(a).product().unwrap(), "{a} {b} {r}");
        let offsets = r.offsets();
        assert!(offsets.windows(2).all(|w| w[0] < w[1]), "{a} {b} {r}");
    }
}

/// stride.hpp's example of increment: the shape (1,2,(2,3),3) enumerated from zero visits every
/// coordinate once, in the order of idx2crd.
#[test]
fn increment_enumerates_in_colexicographic_order() {
    let shape = t("(1,2,(2,3),3)");
    let mut c = shape.map(&mut |_| 0i64);
    for i in 0..shape.product().unwrap() {
        assert_eq!(c, coord::idx2crd(&IntTuple::Int(i), &shape).unwrap(), "{i}");
        let more = coord::increment(&mut c, &shape).unwrap();
        assert_eq!(more, i + 1 < shape.product().unwrap());
    }
    let listed: Vec<IntTuple> = coord::coords(&shape).unwrap().collect();
    assert_eq!(listed.len(), 36);
}

/// `dice` keeps what slicing drops: for every coordinate with `_`, the diced tuple's leaves and
/// the sliced layout's leaves together are the layout's leaves.
#[test]
fn dice_is_the_complement_of_slicing() {
    let l: Layout = "((3,2),(2,5,2)):((4,1),(2,13,100))".parse().unwrap();
    for c in ["(_,5)", "((_,1),(0,_,1))", "(2,_)", "((1,_),_)"] {
        let coord: tessel_layout::SliceCoord = c.parse().unwrap();
        let diced = tessel_layout::dice::dice_layout(&coord, &l).unwrap();
        let (kept, _) = l.slice(&coord).unwrap();
        let mut leaves: Vec<(i64, i64)> = diced.flat_modes();
        leaves.extend(kept.flat_modes());
        let mut all = l.flat_modes();
        leaves.sort_unstable();
        all.sort_unstable();
        assert_eq!(leaves, all, "{c}");
    }
    assert_eq!(
        eval("dice((1,_,(_,2)), (4,8,(2,3)))").unwrap().to_string(),
        "(4,3)"
    );
}

/// Static and dynamic kinds of the tuple arithmetic (CuTe's rule: static exactly when every
/// operand is; `_1` is the least shape).
#[test]
fn arithmetic_keeps_cute_kinds() {
    for (e, want) in [
        ("shape_div((_4,_5,_6), _40)", "(_1,_1,_3)"),
        ("shape_div((_4,5,_6), _40)", "(_1,1,3)"),
        ("ceil_div((_10,7), _4)", "(_3,7)"),
        ("shape_mod((_4,_5,_6), _40)", "(_4,_5,_2)"),
        ("add((_1,2),(_3,_4,_5))", "(_4,6,_5)"),
        ("inner_product((_2,3),(_4,_5))", "23"),
        ("inner_product((_2,_3),(_4,_5))", "_23"),
        ("product((_2,(_3,4)))", "24"),
        ("product((_2,(_3,_4)))", "_24"),
        ("elem_scale((_2,3),(_4,(_2,_5)))", "(_8,30)"),
        ("round_up((_10,7),(_4,8))", "(_12,8)"),
        ("compact_col_major((_1,4,_2))", "(_0,_1,4)"),
    ] {
        assert_eq!(eval(e).unwrap().to_string(), want, "{e}");
    }
}

fn small_shape() -> impl Strategy<Value = IntTuple> {
    common::small_layout().prop_map(|l| l.shape().clone())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    /// idx2crd and crd2idx (colex) are inverse on the whole domain, through every compatible
    /// coordinate form, and crd2idx with a stride is the inner product of the natural
    /// coordinate with it.
    #[test]
    fn coordinates_round_trip(l in common::small_layout()) {
        let shape = l.shape();
        let flat = shape.product_each().unwrap();
        for i in 0..l.size() {
            let natural = coord::idx2crd(&IntTuple::Int(i), shape).unwrap();
            prop_assert_eq!(coord::crd2idx_colex(&natural, shape).unwrap(), i);
            let two = coord::idx2crd(&IntTuple::Int(i), &flat).unwrap();
            prop_assert_eq!(coord::idx2crd(&two, shape).unwrap(), natural.clone());
            prop_assert_eq!(coord::crd2crd(&natural, shape, &flat).unwrap(), two);
            prop_assert_eq!(
                coord::crd2idx(&natural, shape, l.stride()).unwrap(),
                arith::inner_product(&natural, l.stride()).unwrap()
            );
            prop_assert_eq!(coord::crd2idx(&IntTuple::Int(i), shape, l.stride()).unwrap(), l.offset(i).unwrap());
            prop_assert!(coord::elem_less(&natural, shape).unwrap());
        }
        prop_assert!(coord::idx2crd(&IntTuple::Int(l.size()), shape).is_err());
    }

    /// idx2crd with a compact stride inverts crd2idx with it.
    #[test]
    fn strided_idx2crd_inverts_compact_layouts(shape in small_shape()) {
        let stride = arith::compact_col_major(&shape, 1).unwrap();
        for i in 0..shape.product().unwrap() {
            let c = coord::idx2crd_strided(&IntTuple::Int(i), &shape, &stride).unwrap();
            prop_assert_eq!(coord::crd2idx(&c, &shape, &stride).unwrap(), i);
        }
    }

    /// shape_div and shape_mod split a shape: where the divisibility condition holds, the
    /// elementwise product of the two is the shape, and shape_mod covers min(size, b) elements.
    #[test]
    fn shape_div_and_shape_mod_split_the_shape(shape in small_shape(), b in 1i64..=64) {
        let (q, r) = (arith::shape_div(&shape, &IntTuple::Int(b)), arith::shape_mod(&shape, &IntTuple::Int(b)));
        if let (Ok(q), Ok(r)) = (q, r) {
            let product: Vec<i64> = q.iter_leaves().zip(r.iter_leaves()).map(|(x, y)| x * y).collect();
            prop_assert_eq!(product, shape.leaves().to_vec());
            prop_assert_eq!(r.product().unwrap(), shape.product().unwrap().min(b));
        }
    }

    /// ceil_div of integers is the rounded-up quotient; of a shape by an integer, the number of
    /// b-element tiles each mode still needs.
    #[test]
    fn ceil_div_rounds_up(a in 1i64..100, b in 1i64..20) {
        let r = arith::ceil_div(&IntTuple::Int(a), &IntTuple::Int(b)).unwrap();
        prop_assert_eq!(r.as_int().unwrap(), (a + b - 1) / b);
        prop_assert_eq!(arith::round_up(&IntTuple::Int(a), &IntTuple::Int(b)).unwrap().as_int().unwrap() % b, 0);
    }

    /// compact_order gives the function of make_ordered_layout for distinct orders (an
    /// extent-1 mode's stride does not matter).
    #[test]
    fn compact_order_is_make_ordered_layout(l in common::compact_permuted()) {
        let shape = l.shape().flatten();
        let n = shape.rank() as i64;
        let order = match shape {
            IntTuple::Int(_) => IntTuple::Int(0),
            _ => IntTuple::from_ints((0..n).rev()),
        };
        let stride = arith::compact_order(&shape, &order).unwrap();
        let ordered = make_ordered_layout(&shape, &order).unwrap();
        let compact = Layout::new(shape.clone(), stride).unwrap();
        prop_assert_eq!(compact.offsets(), ordered.offsets());
    }

    /// The kinds of the tuple arithmetic: a result of all-static operands is static, and its
    /// values are the plain arithmetic's.
    #[test]
    fn static_arithmetic_is_static(shape in small_shape(), b in 1i64..=64) {
        let s = IntTuple::<Integer>::of(&shape, true);
        let bb = IntTuple::Int(Integer::Static(b));
        if let Ok(r) = arith::ceil_div(&s, &bb) {
            prop_assert!(r.is_static());
            prop_assert_eq!(r.values(), arith::ceil_div(&shape, &IntTuple::Int(b)).unwrap());
        }
        let d = IntTuple::<Integer>::of(&shape, false);
        if let Ok(r) = arith::ceil_div(&d, &IntTuple::Int(Integer::Dynamic(b))) {
            prop_assert!(r.iter_leaves().all(|v| !v.is_static()));
        }
    }
}
