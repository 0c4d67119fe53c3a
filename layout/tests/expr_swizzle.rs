//! The evaluator on swizzled layouts: `o` and `composition(...)` with a swizzled right operand,
//! `right_inverse(...)` / `left_inverse(...)` of swizzled layouts (golden cases from CuTe's unit
//! tests, each result also checked by brute force), and long swizzle chains.

use tessel_layout::expr::{Value, eval};
use tessel_layout::{ComposedLayout, ErrorKind};

fn composed(text: &str) -> ComposedLayout {
    match eval(text) {
        Ok(v) => v.as_composed().expect("a layout").expect("a valid layout"),
        Err(e) => panic!("{text}: {e}"),
    }
}

fn ok(text: &str) -> String {
    match eval(text) {
        Ok(v) => v.to_string(),
        Err(e) => panic!("{text}: {e}"),
    }
}

/// Every offset of a (swizzled) layout, by brute force from its parts.
fn offsets(c: &ComposedLayout) -> Vec<i64> {
    (0..c.size())
        .map(|i| {
            let inner = c.base_offset() + c.layout().offset(i).unwrap();
            c.swizzles().iter().rev().fold(inner, |v, sw| sw.apply(v))
        })
        .collect()
}

#[test]
fn layout_o_swizzled_layout() {
    // CuTe test/unit/cute/core/composition.cpp ("Swizzle composition"); CuTe maps the masks of
    // Sw<2,0,-3> through the transpose (8,8):(8,1): make_swizzle<A(0b11) = 24, A(0b11000) = 3>
    // is Sw<2,0,3>, and (8,8):(8,1) o (8,8):(8,1) = (8,8):(1,8).
    assert_eq!(
        ok("(8,8):(8,1) o Sw<2,0,-3> o (8,8):(8,1)"),
        "Sw<2,0,3> o (8,8):(1,8)"
    );
    assert_eq!(
        ok("composition((8,8):(8,1), Sw<2,0,-3> o (8,8):(8,1))"),
        "Sw<2,0,3> o (8,8):(1,8)"
    );
    // CuTe's own spelling, test/unit/cute/core/composition.cpp: parentheses around a swizzled
    // layout group it.
    assert_eq!(
        ok("(8,8):(8,1) o (Sw<2,0,-3> o (8,8):(8,1))"),
        "Sw<2,0,3> o (8,8):(1,8)"
    );
    let a = composed("(8,8):(8,1)");
    let b = composed("Sw<2,0,-3> o (8,8):(8,1)");
    let r = composed("(8,8):(8,1) o (Sw<2,0,-3> o (8,8):(8,1))");
    let (a_off, b_off) = (offsets(&a), offsets(&b));
    for (i, v) in offsets(&r).into_iter().enumerate() {
        assert_eq!(v, a_off[b_off[i] as usize], "at {i}");
    }
}

#[test]
fn swizzled_o_swizzled() {
    // CuTe test/unit/cute/core/composition.cpp, second swizzle case: Sw<2,0,3> o (the result
    // above) = Sw<2,0,3> o Sw<2,0,3> o (8,8):(1,8), and a swizzle is an involution.
    let text = "composition(Sw<2,0,3> o (8,8):(8,1), Sw<2,0,-3> o (8,8):(8,1))";
    assert_eq!(ok(text), "(8,8):(1,8)");
    let a = offsets(&composed("Sw<2,0,3> o (8,8):(8,1)"));
    let b = offsets(&composed("Sw<2,0,-3> o (8,8):(8,1)"));
    let r = offsets(&composed(text));
    for i in 0..64 {
        assert_eq!(r[i], a[b[i] as usize], "at {i}");
    }
    let e = eval("(8,8):(8,1) o Sw<3,3,5> o (16,256):(256,1)").unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Inadmissible);
    assert!(e.to_string().contains("commuting condition"), "{e}");
}

#[test]
fn inverses_of_swizzled_layouts() {
    // CuTe test/unit/cute/core/inverse_right.cpp and inverse_left.cpp ("Swizzle layouts").
    assert_eq!(
        ok("right_inverse(Sw<1,0,2> o (4,4):(1,4))"),
        "Sw<1,0,2> o 16:1"
    );
    for l in [
        "Sw<1,0,2> o (4,4):(1,4)",
        "Sw<1,0,2> o (4,4):(4,1)",
        "Sw<1,0,1> o (4,4):(8,1)",
    ] {
        let layout = offsets(&composed(l));
        let right = offsets(&composed(&format!("right_inverse({l})")));
        for (i, &j) in right.iter().enumerate() {
            assert_eq!(layout[j as usize], i as i64, "{l}: L(R({i}))");
        }
        let left = offsets(&composed(&format!("left_inverse({l})")));
        for (i, &y) in layout.iter().enumerate() {
            assert_eq!(left[y as usize], i as i64, "{l}: R(L({i}))");
            assert_eq!(layout[left[y as usize] as usize], y, "{l}: L(R(L({i})))");
        }
    }
    let e = eval("right_inverse(Sw<1,0,1> o 2 o 4:1)").unwrap_err();
    assert!(e.to_string().contains("offset 2"), "{e}");
}

#[test]
fn a_chain_of_100000_swizzles_evaluates_in_linear_time_and_cancels_in_pairs() {
    // Pairs of equal swizzles cancel (every swizzle is an involution): an even chain is the
    // identity on the layout's offsets, an odd one a single Sw<1,0,1>.
    for (n, expected) in [
        (100_000, vec![0, 1, 2, 3, 4, 5, 6, 7]),
        (10_001, vec![0, 1, 3, 2, 4, 5, 7, 6]),
    ] {
        let mut text = "Sw<1,0,1> o ".repeat(n);
        text.push_str("8:1");
        let Value::Composed(c) = eval(&text).unwrap() else {
            panic!("a swizzled layout");
        };
        assert_eq!(c.swizzles().len(), n);
        assert_eq!(offsets(&c), expected);
    }
}
