//! The evaluator: literals and conversions, the `o` operator, type/arity errors, and golden
//! results of the algebra functions from published CuTe facts (sources cited per case).

use tessel_layout::ErrorKind;
use tessel_layout::expr::{Value, eval, registry};

fn ok(text: &str) -> String {
    match eval(text) {
        Ok(v) => v.to_string(),
        Err(e) => panic!("{text}: {e}"),
    }
}

fn err(text: &str) -> tessel_layout::Error {
    match eval(text) {
        Ok(v) => panic!("{text} should fail, got {v}"),
        Err(e) => e,
    }
}

#[test]
fn literals_print_in_cute_notation() {
    assert_eq!(ok("(4,(2,3)):(1,(8,16))"), "(4,(2,3)):(1,(8,16))");
    assert_eq!(ok(" ( 4 , 8 ) : ( 8 , 1 ) "), "(4,8):(8,1)");
    assert_eq!(ok("8:1"), "8:1");
    assert_eq!(ok("(8):(1)"), "(8):(1)");
    assert_eq!(ok("-3"), "-3");
    assert_eq!(ok("(2,3)"), "(2,3)");
    assert_eq!(ok("()"), "()");
    assert_eq!(ok("[3:4, _, 8:2]"), "[3:4,_,8:2]");
    assert_eq!(ok("[[2:1,_], 4]"), "[[2:1,_],4:1]");
    assert_eq!(ok("[(2,3)]"), "[[2:1,3:1]]");
    assert_eq!(ok("Sw<3,3,3>"), "Sw<3,3,3>");
    assert_eq!(ok("swizzle(2,4,3)"), "Sw<2,4,3>");
}

#[test]
fn a_tuple_of_layouts_is_the_layout_of_those_modes() {
    assert_eq!(ok("(8:1, 4:8)"), "(8,4):(1,8)");
    assert_eq!(ok("((4,2), 3:8)"), "((4,2),3):((1,4),8)");
    assert!(
        err("(8:1, Sw<1,0,1>)")
            .to_string()
            .contains("the swizzle Sw<1,0,1>")
    );
}

#[test]
fn swizzled_layouts_evaluate_as_published() {
    // docs/semantics.md (CuTe Swizzle<3,3,3> on a row-major 8x64 tile): (1,0) -> 72, (7,63) -> 455.
    assert_eq!(ok("Sw<3,3,3> o (8,64):(64,1)"), "Sw<3,3,3> o (8,64):(64,1)");
    assert_eq!(ok("at(Sw<3,3,3> o (8,64):(64,1), (1,0))"), "72");
    assert_eq!(ok("at(Sw<3,3,3> o (8,64):(64,1), (7,63))"), "455");
    assert_eq!(ok("at(swizzle(3,3,3) o (8,64):(64,1), 1)"), "72");
    assert_eq!(ok("size(Sw<3,3,3> o (8,64):(64,1))"), "512");
    assert_eq!(ok("cosize(Sw<3,3,3> o (8,64):(64,1))"), "512");
    assert_eq!(
        ok("Sw<3,3,3> o 32 o (8,64):(64,1)"),
        "Sw<3,3,3> o 32 o (8,64):(64,1)"
    );
    assert_eq!(ok("at(32 o 8:1, 3)"), "35");
    assert_eq!(
        ok("Sw<2,4,3> o Sw<3,3,3> o (8,64)"),
        "Sw<2,4,3> o Sw<3,3,3> o (8,64):(1,8)"
    );
    assert_eq!(ok("Sw<3,3,3> o 0 o 8:1"), "Sw<3,3,3> o 8:1");
    assert_eq!(ok("0 o 8:1"), "8:1");
    assert_eq!(ok("mode(Sw<3,3,3> o (8,64):(64,1), 1)"), "Sw<3,3,3> o 64:1");
}

#[test]
fn composed_chains_reject_misplaced_parts() {
    assert!(
        err("32 o Sw<3,3,3> o 8:1")
            .to_string()
            .contains("directly before the layout")
    );
    assert!(
        err("Sw<3,3,3> o Sw<1,0,1>")
            .to_string()
            .contains("needs a layout on its right")
    );
    assert!(err("Sw<3,3,2> o 8:1").to_string().contains("|S| >= B"));
    assert!(
        err("8:1 o Sw<1,0,1>")
            .to_string()
            .contains("needs a layout or tiler on its right")
    );
}

#[test]
fn layout_queries() {
    // The CuTe documentation's running example (4,(2,3)):(1,(8,16)).
    assert_eq!(ok("size((4,(2,3)):(1,(8,16)))"), "24");
    assert_eq!(ok("cosize((4,(2,3)):(1,(8,16)))"), "44");
    assert_eq!(ok("rank((4,(2,3)):(1,(8,16)))"), "2");
    assert_eq!(ok("depth((4,(2,3)):(1,(8,16)))"), "2");
    assert_eq!(ok("at((4,(2,3)):(1,(8,16)), (1,3))"), "25");
    assert_eq!(ok("at((4,(2,3)):(1,(8,16)), (1,(1,1)))"), "25");
    assert_eq!(ok("at((4,(2,3)):(1,(8,16)), 5)"), "9");
    assert_eq!(ok("mode((4,(2,3)):(1,(8,16)), 1)"), "(2,3):(8,16)");
    assert_eq!(ok("get((4,(2,3)):(1,(8,16)), 1, 0)"), "2:8");
    assert_eq!(ok("get((4,(2,3)), 1, 1)"), "3");
    assert_eq!(ok("flatten((4,(2,3)):(1,(8,16)))"), "(4,2,3):(1,8,16)");
    assert_eq!(ok("size((4,8))"), "32");
    assert_eq!(ok("rank(7)"), "1");
    // SM80 16x8x16 C fragment (CuTe mma_traits_sm80.hpp): thread 1, value 0 is (m,n) = (0,2) of the
    // column-major 16x8 tile (PTX ISA: row = lane/4, col = 2*(lane%4)).
    assert_eq!(ok("size(((4,8),(2,2)):((32,1),(16,8)))"), "128");
    assert_eq!(ok("at(((4,8),(2,2)):((32,1),(16,8)), (1,0))"), "32");
}

#[test]
fn conversions_and_type_errors() {
    let e = err("logical_divide(8:1, Sw<1,0,1>)");
    assert_eq!(e.kind(), ErrorKind::InvalidArgument);
    assert_eq!(
        e.to_string(),
        "logical_divide expects a layout or tiler as argument 2, got the swizzle Sw<1,0,1>"
    );
    assert_eq!(
        err("nullspace(Sw<1,0,1> o 4:1)").to_string(),
        "nullspace expects a layout without swizzle or offset as argument 1, got the swizzled layout Sw<1,0,1> o 4:1"
    );
    assert_eq!(
        err("upcast(8:1, (2,2))").to_string(),
        "upcast expects an integer as argument 2, got the tuple (2,2)"
    );
    assert!(err("mode(8:1, -1)").to_string().contains("a mode index"));
    assert!(
        err("mode((4,8), 2)")
            .to_string()
            .contains("mode 2 does not exist")
    );
    assert!(err("at(8:1, 8)").to_string().contains("outside"));
    assert!(err("size(0:1)").to_string().contains("at least 1"));
}

#[test]
fn unknown_functions_and_arity() {
    let e = err("logical_divid(8:1, 2:1)");
    assert_eq!(
        e.to_string(),
        "at 0: unknown function 'logical_divid'; the nearest known function is 'logical_divide'"
    );
    assert_eq!(
        err("size(8, 2)").to_string(),
        "at 0: size(L) takes 1 argument, got 2"
    );
    assert_eq!(
        err("(1, complement())").to_string(),
        "at 4: complement(L[, cotarget]) takes 1 to 2 arguments, got 0"
    );
}

#[test]
fn literal_errors_carry_positions() {
    let e = err("size((4,8):(1,4,2))");
    assert_eq!(e.kind(), ErrorKind::NotCongruent);
    assert!(
        e.to_string()
            .starts_with("at 5: shape (4,8) and stride (1,4,2) are not congruent"),
        "{e}"
    );
    let e = err("(4611686018427387904,4):(1,1)");
    assert_eq!(e.kind(), ErrorKind::Overflow);
    assert!(e.to_string().starts_with("at 0:"), "{e}");
    assert!(
        err("(4,8):Sw<1,0,1>")
            .to_string()
            .contains("the stride of a layout must be")
    );
}

#[test]
fn offsets_past_i64_are_errors_not_wrapped_values() {
    // 7 + i64::MAX does not fit: the composed layout is refused like a plain one.
    for text in [
        "9223372036854775807 o 8:1",
        "at(9223372036854775807 o 8:1, 7)",
        "Sw<3,3,3> o -9223372036854775807 o 8:-1",
        "composition(9223372036854775801 o 2:1, 8:1)",
    ] {
        let e = err(text);
        assert_eq!(e.kind(), ErrorKind::Overflow, "{text}: {e}");
        assert!(e.to_string().contains("overflows i64"), "{text}: {e}");
    }
    // The largest offset that fits is fine.
    assert_eq!(
        ok("at(9223372036854775800 o 8:1, 7)"),
        "9223372036854775807"
    );
    // A negative offset stays allowed; the swizzle acts on its two's complement bits.
    assert_eq!(ok("at(Sw<3,3,3> o -5 o 8:1, 3)"), "-58");
}

#[test]
fn every_contract_function_is_registered() {
    // docs/cli.md, `tessel eval`: the functions `tessel eval` must know.
    let contract = "size cosize rank depth coalesce filter composition complement right_inverse \
        left_inverse nullspace logical_divide zipped_divide tiled_divide flat_divide \
        logical_product zipped_product tiled_product flat_product blocked_product raked_product \
        tile_to_shape make_ordered_layout max_common_vector max_common_layout upcast downcast \
        swizzle at is_injective is_bijective";
    for name in contract.split_whitespace() {
        assert!(registry::lookup(name).is_some(), "{name} missing");
    }
}

/// Golden results of the algebra, all from published CuTe facts.
mod algebra {
    use super::{err, ok};
    use tessel_layout::ErrorKind;

    #[test]
    fn composition_matches_cute() {
        // CuTe docs 02_layout_algebra "Composition" (docs/semantics.md, reference values).
        assert_eq!(ok("(6,2):(8,2) o (4,3):(3,1)"), "((2,2),3):((24,2),8)");
        assert_eq!(
            ok("composition((6,2):(8,2), (4,3):(3,1))"),
            "((2,2),3):((24,2),8)"
        );
        assert_eq!(ok("20:2 o (5,4):(4,1)"), "(5,4):(8,2)");
        assert_eq!(ok("(4,6,8,10):(2,3,5,7) o 6:12"), "(2,3):(9,5)");
        // CuTe docs, by-mode composition with a tiler and with a shape.
        assert_eq!(
            ok("composition((12,(4,8)):(59,(13,1)), [3:4, 8:2])"),
            "(3,(2,4)):(236,(26,1))"
        );
        assert_eq!(
            ok("(12,(4,8)):(59,(13,1)) o [3:4, 8:2]"),
            "(3,(2,4)):(236,(26,1))"
        );
        assert_eq!(
            ok("composition((12,(4,8)):(59,(13,1)), (3,8))"),
            "(3,(4,2)):(59,(13,1))"
        );
        assert_eq!(
            ok("composition((12,(4,8)):(59,(13,1)), [3:4, _])"),
            "(3,(4,8)):(236,(13,1))"
        );
    }

    #[test]
    fn cutlass_3177_miscomposition_is_rejected() {
        // CUTLASS issue 3177: CuTe returns (2,3):(6,3), wrong at index 2.
        let e = err("composition((4,6,8):(2,3,5), 6:3)");
        assert_eq!(e.kind(), ErrorKind::Inadmissible, "{e}");
        assert!(e.to_string().contains("(4,6,8):(2,3,5)"), "{e}");
        assert!(e.to_string().contains("6:3"), "{e}");
    }

    #[test]
    fn composition_of_a_swizzled_layout_keeps_the_swizzle() {
        // Composition on the right composes the inner layout (CuTe ComposedLayout semantics).
        assert_eq!(
            ok("composition(Sw<3,3,3> o (6,2):(8,2), (4,3):(3,1))"),
            "Sw<3,3,3> o ((2,2),3):((24,2),8)"
        );
        assert_eq!(
            ok("Sw<3,3,3> o (6,2):(8,2) o (4,3):(3,1)"),
            "Sw<3,3,3> o ((2,2),3):((24,2),8)"
        );
    }

    #[test]
    fn coalesce_matches_cute() {
        // CuTe docs 02_layout_algebra "Coalesce" and "By-mode Coalesce".
        assert_eq!(ok("coalesce((2,(1,6)):(1,(6,2)))"), "12:1");
        assert_eq!(ok("coalesce((2,(1,6)):(1,(6,2)), (1,1))"), "(2,6):(1,2)");
    }

    #[test]
    fn complement_matches_cute() {
        // CuTe docs 02_layout_algebra "Complement Examples" (docs/semantics.md).
        assert_eq!(ok("complement(4:2, 24)"), "(2,3):(1,8)");
        assert_eq!(ok("complement((2,4):(1,6), 24)"), "3:2");
        assert_eq!(ok("complement(4:1, 24)"), "6:4");
        assert_eq!(ok("complement(6:4, 24)"), "4:1");
        assert_eq!(ok("complement((4,6):(1,4), 24)"), "1:0");
        assert_eq!(ok("complement((2,2):(1,6), 24)"), "(3,2):(2,12)");
        // CuTe docs, "Logical Product 1-D Example": complement of (2,2):(4,1) under 24.
        assert_eq!(ok("complement((2,2):(4,1), 24)"), "(2,3):(2,8)");
    }

    #[test]
    fn inverses_match_cute() {
        // docs/semantics.md, reference values.
        assert_eq!(ok("right_inverse((2,4,6):(4,1,8))"), "(4,2,6):(2,1,8)");
        // Defining properties (CuTe docs): L o R and R' o L are the identity on 0..48.
        assert_eq!(
            ok("coalesce((2,4,6):(4,1,8) o right_inverse((2,4,6):(4,1,8)))"),
            "48:1"
        );
        assert_eq!(
            ok("coalesce(left_inverse((2,4,6):(4,1,8)) o (2,4,6):(4,1,8))"),
            "48:1"
        );
    }

    #[test]
    fn divides_match_cute() {
        // CuTe docs "Logical Divide 1-D Example" (docs/semantics.md).
        assert_eq!(
            ok("logical_divide((4,2,3):(2,1,8), 4:2)"),
            "((2,2),(2,3)):((4,1),(2,8))"
        );
        // CuTe docs: layout<0>(zipped_divide(a, b)) == composition(a, b).
        assert_eq!(
            ok("mode(zipped_divide((12,(4,8)):(59,(13,1)), [3:4, 8:2]), 0)"),
            "(3,(2,4)):(236,(26,1))"
        );
        // CuTe docs "Logical Divide 2-D Example": the tile of (9,(4,8)):(59,(13,1)) under
        // <3:3, (2,4):(1,8)> is the composition (3,(2,4)):(177,(13,2)).
        let (a, t) = ("(9,(4,8)):(59,(13,1))", "[3:3, (2,4):(1,8)]");
        assert_eq!(
            ok(&format!("composition({a}, {t})")),
            "(3,(2,4)):(177,(13,2))"
        );
        assert_eq!(
            ok(&format!("mode(zipped_divide({a}, {t}), 0)")),
            "(3,(2,4)):(177,(13,2))"
        );
        // logical_divide keeps the modes: ((TileM,RestM),(TileN,RestN)) with sizes ((3,3),(8,4)).
        for (path, size) in [("0, 0", 3), ("0, 1", 3), ("1, 0", 8), ("1, 1", 4)] {
            assert_eq!(
                ok(&format!("size(get(logical_divide({a}, {t}), {path}))")),
                size.to_string()
            );
        }
        // CuTe docs: zipped_divide of a (9,32) layout by a (3,8) tiler has shape ((3,8),(3,4)).
        assert_eq!(
            ok("size(mode(zipped_divide((9,(4,8)):(59,(13,1)), [3:3, (2,4):(1,8)]), 0))"),
            "24"
        );
        assert_eq!(
            ok("size(mode(zipped_divide((9,(4,8)):(59,(13,1)), [3:3, (2,4):(1,8)]), 1))"),
            "12"
        );
    }

    #[test]
    fn more_compositions_match_cute() {
        // CuTe docs 02_layout_algebra "Composition", Example 3 and the 16:9 example with
        // (w,x,y,z) = (1,1000,10000,100000) (the extent-1 mode disappears).
        assert_eq!(ok("(10,2):(16,4) o (5,4):(1,5)"), "(5,(2,2)):(16,(80,4))");
        assert_eq!(
            ok("(3,6,2,8):(1,1000,10000,100000) o 16:9"),
            "(2,2,4):(3000,10000,100000)"
        );
        assert_eq!(ok("20:2 o 5:4"), "5:8");
    }

    #[test]
    fn make_ordered_layout_matches_cute() {
        // CUTLASS include/cute/layout.hpp, comment on make_ordered_layout.
        assert_eq!(
            ok("make_ordered_layout((2,2,2,2), (0,2,3,1))"),
            "(2,2,2,2):(1,4,8,2)"
        );
    }

    #[test]
    fn products_match_cute() {
        // CuTe docs "Logical Product 1-D Example".
        assert_eq!(
            ok("logical_product((2,2):(4,1), 6:1)"),
            "((2,2),(2,3)):((4,1),(2,8))"
        );
        // docs/semantics.md, reference values.
        assert_eq!(
            ok("blocked_product((2,5):(5,1), (3,4):(1,3))"),
            "((2,3),(5,4)):((5,10),(1,30))"
        );
        assert_eq!(
            ok("raked_product((2,5):(5,1), (3,4):(1,3))"),
            "((3,2),(4,5)):((10,5),(30,1))"
        );
    }
}

#[test]
fn values_describe_themselves() {
    assert_eq!(Value::Bool(false).describe(), "the boolean false");
    let long = eval(
        "(1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1)",
    )
    .unwrap();
    assert!(long.describe().ends_with("..."));
}

#[test]
fn issue_9_wrong_answers_are_fixed() {
    // Offset 3, then 4:-1: offsets 3,2,1,0, exactly 0..size.
    assert_eq!(ok("is_bijective(3 o 4:-1)"), "true");
    assert_eq!(ok("is_bijective(4:-1)"), "false");
    // Only one unit-stride leaf takes the narrow sub-elements: 32 narrow elements, one-to-one.
    assert_eq!(ok("downcast((1,8):(1,1), 4)"), "(1,32):(4,1)");
    assert_eq!(ok("is_injective(downcast((1,8):(1,1), 4))"), "true");
    // CuTe include/cute/layout.hpp: a(b.get_1d_coord(n)) == n for n < N, and 32:1 has 32
    // elements.
    assert_eq!(ok("max_common_vector(32:1, 64:1)"), "32");
    assert_eq!(ok("max_common_layout(32:1, 64:1)"), "32:1");
}
