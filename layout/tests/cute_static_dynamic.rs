//! Static and dynamic integers (`_4` and `4`): construction, coordinates and the algebra's
//! kinds, against CuTe's documentation (`media/docs/cpp/cute/01_layout.md`, CUTLASS v4.2.1,
//! https://github.com/NVIDIA/cutlass/blob/v4.2.1/media/docs/cpp/cute/01_layout.md) and against
//! the definition of a static leaf: one whose value does not change when the dynamic inputs do.

mod common;

use proptest::prelude::*;
use tessel_layout::expr::eval;
use tessel_layout::static_int::Integer;
use tessel_layout::typed::TypedLayout;
use tessel_layout::typed::algebra::{self as talg, TypedTiler};
use tessel_layout::{IntTuple, Layout, coord};

fn typed(s: &str) -> TypedLayout {
    s.parse().unwrap()
}

fn shape(s: &str) -> IntTuple<Integer> {
    s.parse().unwrap()
}

/// 01_layout.md, "Constructing a Layout": the layouts built with static and dynamic integers
/// and what `print` shows for each.
#[test]
fn constructing_a_layout_prints_as_cute_prints() {
    // Layout s8 = make_layout(Int<8>{});                     _8:_1
    assert_eq!(
        TypedLayout::compact(&shape("_8")).unwrap().to_string(),
        "_8:_1"
    );
    // Layout d8 = make_layout(8);                            8:_1
    assert_eq!(
        TypedLayout::compact(&shape("8")).unwrap().to_string(),
        "8:_1"
    );
    // Layout s2xs4 = make_layout(make_shape(Int<2>{},Int<4>{}));   (_2,_4):(_1,_2)
    assert_eq!(
        TypedLayout::compact(&shape("(_2,_4)")).unwrap().to_string(),
        "(_2,_4):(_1,_2)"
    );
    // Layout s2xd4 = make_layout(make_shape(Int<2>{},4));          (_2,4):(_1,_2)
    assert_eq!(
        TypedLayout::compact(&shape("(_2,4)")).unwrap().to_string(),
        "(_2,4):(_1,_2)"
    );
    // Layout s2xd4_a = make_layout(make_shape(Int< 2>{},4), make_stride(Int<12>{},Int<1>{}));
    //                                                            (_2,4):(_12,_1)
    let s2xd4_a = TypedLayout::new(shape("(_2,4)"), "(_12,_1)".parse().unwrap()).unwrap();
    assert_eq!(s2xd4_a.to_string(), "(_2,4):(_12,_1)");
    // s2xd4_col (LayoutLeft): (_2,4):(_1,_2); s2xd4_row (LayoutRight): (_2,4):(4,_1)
    assert_eq!(
        TypedLayout::compact_row(&shape("(_2,4)"))
            .unwrap()
            .to_string(),
        "(_2,4):(4,_1)"
    );
    // Layout s2xh4 = make_layout(make_shape(2,make_shape(2,2)), make_stride(4,make_stride(2,1)));
    //                                                            (2,(2,2)):(4,(2,1))
    let s2xh4 = typed("(2,(2,2)):(4,(2,1))");
    assert_eq!(s2xh4.to_string(), "(2,(2,2)):(4,(2,1))");
    // Layout s2xh4_col = make_layout(shape(s2xh4), LayoutLeft{});  (2,(2,2)):(_1,(2,4))
    let s2xh4_col = TypedLayout::compact(s2xh4.shape()).unwrap();
    assert_eq!(s2xh4_col.to_string(), "(2,(2,2)):(_1,(2,4))");
    // The same through the expression language.
    for (expr, want) in [
        ("make_layout(_8)", "_8:_1"),
        ("make_layout(8)", "8:1"),
        ("make_layout((_2,_4))", "(_2,_4):(_1,_2)"),
        ("make_layout((_2,4))", "(_2,4):(_1,_2)"),
        ("make_layout((_2,4), (_12,_1))", "(_2,4):(_12,_1)"),
        (
            "make_layout((_2,4), compact_row_major((_2,4)))",
            "(_2,4):(4,_1)",
        ),
        ("make_layout((2,(2,2)), (4,(2,1)))", "(2,(2,2)):(4,(2,1))"),
        ("compact_col_major((2,(2,2)))", "(_1,(2,4))"),
    ] {
        assert_eq!(eval(expr).unwrap().to_string(), want, "{expr}");
    }
}

/// 01_layout.md, "Using a Layout": print2D and print1D of the layouts above.
#[test]
fn using_a_layout_gives_the_tables_of_the_docs() {
    let print1d = |l: &TypedLayout| -> Vec<i64> {
        (0..l.size().value())
            .map(|i| {
                l.at(&IntTuple::Int(Integer::Dynamic(i)))
                    .unwrap()
                    .as_leaf()
                    .unwrap()
                    .value()
            })
            .collect()
    };
    let s2xs4 = TypedLayout::compact(&shape("(_2,_4)")).unwrap();
    let s2xd4_a = typed("(_2,4):(_12,_1)");
    let s2xh4_col = typed("(2,(2,2)):(_1,(2,4))");
    let s2xh4 = typed("(2,(2,2)):(4,(2,1))");
    // > print1D(s2xs4)      0 1 2 3 4 5 6 7
    assert_eq!(print1d(&s2xs4), [0, 1, 2, 3, 4, 5, 6, 7]);
    // > print1D(s2xd4_a)    0 12 1 13 2 14 3 15
    assert_eq!(print1d(&s2xd4_a), [0, 12, 1, 13, 2, 14, 3, 15]);
    // > print1D(s2xh4_col)  0 1 2 3 4 5 6 7
    assert_eq!(print1d(&s2xh4_col), [0, 1, 2, 3, 4, 5, 6, 7]);
    // > print1D(s2xh4)      0 4 2 6 1 5 3 7
    assert_eq!(print1d(&s2xh4), [0, 4, 2, 6, 1, 5, 3, 7]);
    // > print2D(s2xh4): rows "0 2 1 3" and "4 6 5 7".
    let row = |m: i64| -> Vec<i64> {
        (0..4)
            .map(|n| {
                let c = IntTuple::from((m as i32, n)).map(&mut |v| Integer::Dynamic(*v));
                s2xh4.at(&c).unwrap().as_leaf().unwrap().value()
            })
            .collect()
    };
    assert_eq!((row(0), row(1)), (vec![0, 2, 1, 3], vec![4, 6, 5, 7]));
}

/// 01_layout.md, "Coordinate Mapping": idx2crd with static and dynamic arguments.
#[test]
fn idx2crd_keeps_cute_kinds() {
    let s = shape("(_3,(_2,_3))");
    for (idx, want) in [
        ("16", "(1,(1,2))"),
        ("_16", "(_1,(_1,_2))"),
        ("(1,5)", "(1,(1,2))"),
        ("(_1,5)", "(_1,(1,2))"),
        ("(1,(1,2))", "(1,(1,2))"),
        ("(_1,(1,_2))", "(_1,(1,_2))"),
    ] {
        let got = coord::idx2crd(&shape(idx), &s).unwrap();
        assert_eq!(got.to_string(), want, "idx2crd({idx}, {s})");
        let expr = format!("idx2crd({idx}, (_3,(_2,_3)))");
        assert_eq!(eval(&expr).unwrap().to_string(), want, "{expr}");
    }
}

/// 01_layout.md, "Index Mapping": crd2idx with static and dynamic arguments.
#[test]
fn crd2idx_keeps_cute_kinds() {
    let (s, d) = (shape("(_3,(_2,_3))"), shape("(_3,(_12,_1))"));
    for (c, want) in [
        ("16", "17"),
        ("_16", "_17"),
        ("(1,5)", "17"),
        ("(_1,5)", "17"),
        ("(_1,_5)", "_17"),
        ("(1,(1,2))", "17"),
        ("(_1,(_1,_2))", "_17"),
    ] {
        let got = coord::crd2idx(&shape(c), &s, &d).unwrap();
        assert_eq!(got.to_string(), want, "crd2idx({c}, {s}, {d})");
        let expr = format!("crd2idx({c}, (_3,(_2,_3)), (_3,(_12,_1)))");
        assert_eq!(eval(&expr).unwrap().to_string(), want, "{expr}");
    }
}

/// 01_layout.md, "Coordinate Mapping": the 1-D, 2-D and natural coordinates of (3,(2,3)),
/// and "Index Mapping": the offsets of (3,(2,3)):(3,(12,1)) by row i and column (j,k).
#[test]
fn the_coordinate_and_index_tables_of_the_docs() {
    // (1-D, 2-D, natural), 01_layout.md's table.
    type Row = (i32, (i32, i32), (i32, (i32, i32)));
    const TABLE: [Row; 18] = [
        (0, (0, 0), (0, (0, 0))),
        (1, (1, 0), (1, (0, 0))),
        (2, (2, 0), (2, (0, 0))),
        (3, (0, 1), (0, (1, 0))),
        (4, (1, 1), (1, (1, 0))),
        (5, (2, 1), (2, (1, 0))),
        (6, (0, 2), (0, (0, 1))),
        (7, (1, 2), (1, (0, 1))),
        (8, (2, 2), (2, (0, 1))),
        (9, (0, 3), (0, (1, 1))),
        (10, (1, 3), (1, (1, 1))),
        (11, (2, 3), (2, (1, 1))),
        (12, (0, 4), (0, (0, 2))),
        (13, (1, 4), (1, (0, 2))),
        (14, (2, 4), (2, (0, 2))),
        (15, (0, 5), (0, (1, 2))),
        (16, (1, 5), (1, (1, 2))),
        (17, (2, 5), (2, (1, 2))),
    ];
    let s = IntTuple::from((3, (2, 3)));
    for (one, two, natural) in TABLE {
        let (one, two, natural) = (
            IntTuple::from(one),
            IntTuple::from(two),
            IntTuple::from(natural),
        );
        assert_eq!(coord::idx2crd(&one, &s).unwrap(), natural);
        assert_eq!(coord::idx2crd(&two, &s).unwrap(), natural);
        assert_eq!(
            coord::crd2idx_colex(&natural, &s).unwrap(),
            one.as_int().unwrap()
        );
        assert_eq!(
            coord::crd2idx_colex(&two, &s).unwrap(),
            one.as_int().unwrap()
        );
        assert_eq!(
            coord::crd2crd(&natural, &s, &IntTuple::from((3, 6))).unwrap(),
            two
        );
    }
    // The index table: row i, 1-D column 0..6.
    const INDEX: [[i64; 6]; 3] = [
        [0, 12, 1, 13, 2, 14],
        [3, 15, 4, 16, 5, 17],
        [6, 18, 7, 19, 8, 20],
    ];
    let stride = IntTuple::from((3, (12, 1)));
    for (i, row) in INDEX.iter().enumerate() {
        for (col, &want) in row.iter().enumerate() {
            let c = IntTuple::from((i as i32, col as i32));
            assert_eq!(
                coord::crd2idx(&c, &s, &stride).unwrap(),
                want,
                "({i},{col})"
            );
        }
    }
}

/// 01_layout.md, "Layout compatibility": the eleven statements about shapes.
#[test]
fn compatibility_examples_of_the_docs() {
    let t = |s: &str| s.parse::<IntTuple>().unwrap();
    for (a, b, want) in [
        ("24", "32", false),
        ("24", "(4,6)", true),
        ("(4,6)", "((2,2),6)", true),
        ("((2,2),6)", "((2,2),(3,2))", true),
        ("24", "((2,2),(3,2))", true),
        ("24", "((2,3),4)", true),
        ("((2,3),4)", "((2,2),(3,2))", false),
        ("((2,2),(3,2))", "((2,3),4)", false),
        ("24", "(24)", true),
        ("(24)", "24", false),
        ("(24)", "(4,6)", false),
    ] {
        assert_eq!(
            coord::compatible(&t(a), &t(b)),
            want,
            "compatible({a}, {b})"
        );
        // The definition: the same size, and every coordinate of `a` is one of `b`: idx2crd
        // through `a` then `b` is the index's coordinate in `b`.
        if want {
            let size = t(a).product().unwrap();
            for i in 0..size {
                let ca = coord::idx2crd(&IntTuple::Int(i), &t(a)).unwrap();
                assert_eq!(
                    coord::idx2crd(&ca, &t(b)).unwrap(),
                    coord::idx2crd(&IntTuple::Int(i), &t(b)).unwrap()
                );
            }
        }
    }
}

/// A result leaf is static exactly when what it is computed from is static, so a static leaf
/// of a result does not change when the dynamic inputs change. Checked for the operations with
/// per-leaf kinds: each input is evaluated with its dynamic leaves scaled (which keeps every
/// divisibility the operation needs when the scale is a power of two times the leaf), and every
/// static leaf of the result must keep its value.
fn static_leaves_are_unchanged(
    inputs: &[TypedLayout],
    op: &dyn Fn(&[TypedLayout]) -> Option<TypedLayout>,
) -> Result<(), TestCaseError> {
    let Some(before) = op(inputs) else {
        return Ok(());
    };
    for scale in [2i64, 4] {
        let scaled: Vec<TypedLayout> = inputs
            .iter()
            .map(|l| {
                let shape = l.shape().map(&mut |v| match v {
                    Integer::Dynamic(x) => Integer::Dynamic(x * scale),
                    s => *s,
                });
                let stride = l.stride().map(&mut |d| {
                    d.scaled(|v| {
                        Ok(match v {
                            Integer::Dynamic(x) => Integer::Dynamic(x * scale),
                            s => s,
                        })
                    })
                    .unwrap()
                });
                TypedLayout::new(shape, stride).unwrap()
            })
            .collect();
        let Some(after) = op(&scaled) else {
            continue;
        };
        if !before.shape().congruent(after.shape()) {
            continue;
        }
        for (b, a) in before
            .shape()
            .iter_leaves()
            .zip(after.shape().iter_leaves())
        {
            if b.is_static() {
                prop_assert_eq!(
                    b.value(),
                    a.value(),
                    "a static extent changed: {} vs {}",
                    before,
                    after
                );
            }
        }
        for (b, a) in before
            .stride()
            .iter_leaves()
            .zip(after.stride().iter_leaves())
        {
            if b.value().is_static() {
                prop_assert_eq!(
                    b.value().value(),
                    a.value().value(),
                    "a static stride changed: {} vs {}",
                    before,
                    after
                );
                prop_assert_eq!(
                    b.modes(),
                    a.modes(),
                    "a static stride changed: {} vs {}",
                    before,
                    after
                );
            }
        }
    }
    Ok(())
}

/// A plain layout with a random kind per leaf.
fn with_kinds(l: &Layout, mask: u64) -> TypedLayout {
    let mut k = 0;
    let mut next = || {
        k += 1;
        (mask >> (k % 64)) & 1 == 1
    };
    let shape = l.shape().map(&mut |v| Integer::of(*v, next()));
    let stride = l
        .stride()
        .map(&mut |v| tessel_layout::basis::ScaledBasis::from(Integer::of(*v, next())));
    TypedLayout::new(shape, stride).unwrap()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]

    #[test]
    fn composition_static_leaves_do_not_depend_on_dynamic_ones(
        a in common::pow2_layout(), b in common::pow2_layout(), ma in any::<u64>(), mb in any::<u64>()
    ) {
        let inputs = [with_kinds(&a, ma), with_kinds(&b, mb)];
        static_leaves_are_unchanged(&inputs, &|x| talg::composition(&x[0], &x[1]).ok())?;
    }

    #[test]
    fn composition_of_any_extents_static_leaves_do_not_depend_on_dynamic_ones(
        a in common::small_layout(), b in common::small_layout(), ma in any::<u64>(), mb in any::<u64>()
    ) {
        let inputs = [with_kinds(&a, ma), with_kinds(&b, mb)];
        static_leaves_are_unchanged(&inputs, &|x| talg::composition(&x[0], &x[1]).ok())?;
    }

    #[test]
    fn complement_static_leaves_do_not_depend_on_dynamic_ones(
        a in common::pow2_layout(), ma in any::<u64>(), co in 0u32..8, co_static in any::<bool>()
    ) {
        let cotarget = 1i64 << co;
        let inputs = [with_kinds(&a, ma)];
        static_leaves_are_unchanged(&inputs, &|x| {
            talg::complement(&x[0], &IntTuple::Int(Integer::of(cotarget, co_static))).ok()
        })?;
    }

    #[test]
    fn divides_static_leaves_do_not_depend_on_dynamic_ones(
        a in common::pow2_layout(), b in common::pow2_layout(), ma in any::<u64>(), mb in any::<u64>()
    ) {
        let inputs = [with_kinds(&a, ma), with_kinds(&b, mb)];
        static_leaves_are_unchanged(&inputs, &|x| {
            talg::zipped_divide(&x[0], &TypedTiler::Layout(Box::new(x[1].clone()))).ok()
        })?;
        static_leaves_are_unchanged(&inputs, &|x| Some(talg::coalesce(&x[0])))?;
    }

    /// The typed operations compute the plain algebra's values, and all-static inputs give an
    /// all-static result.
    #[test]
    fn typed_values_are_the_plain_values(
        a in common::small_layout(), b in common::small_layout(), ma in any::<u64>(), mb in any::<u64>()
    ) {
        let (ta, tb) = (with_kinds(&a, ma), with_kinds(&b, mb));
        let plain = tessel_layout::composition(&a, &b);
        let typed = talg::composition(&ta, &tb);
        prop_assert_eq!(plain.is_ok(), typed.is_ok(), "{} o {}", a, b);
        if let (Ok(p), Ok(t)) = (plain, typed) {
            prop_assert_eq!(t.values().unwrap(), p);
        }
        let (sa, sb) = (TypedLayout::of(&a, true), TypedLayout::of(&b, true));
        if let Ok(t) = talg::composition(&sa, &sb) {
            prop_assert!(t.is_static(), "{} o {} = {}", sa, sb, t);
        }
        let tiler = TypedTiler::Layout(Box::new(tb.clone()));
        let plain = tessel_layout::logical_divide(&a, &tessel_layout::Tiler::Layout(b.clone()));
        if let (Ok(p), Ok(t)) = (plain, talg::logical_divide(&ta, &tiler)) {
            prop_assert_eq!(t.values().unwrap(), p);
        }
    }
}

/// A run-time matrix tiled by a static tile keeps CuTe's kinds: static tile extents and unit
/// stride, the run-time leading dimension dynamic (the form every CuTe GEMM's local_tile has).
#[test]
fn a_static_tile_of_a_dynamic_matrix() {
    let ga = typed("(4096,1024):(_1,4096)");
    let tiler: TypedTiler = "[_128:_1,_32:_1]".parse().unwrap();
    let zipped = talg::zipped_divide(&ga, &tiler).unwrap();
    // CuTe: ((_128,_32),(M/128,K/32)):((_1,M),(_128,32*M)).
    assert_eq!(
        zipped.to_string(),
        "((_128,_32),(32,32)):((_1,4096),(_128,131072))"
    );
    // A run-time vector by a static tile: (_128, N/128):(_1,_128).
    let d = talg::logical_divide(&typed("4096:_1"), &"_128:_1".parse().unwrap()).unwrap();
    assert_eq!(d.to_string(), "(_128,32):(_1,_128)");
}
