//! Algebra of swizzled layouts: a layout composed with a swizzled layout, swizzled with
//! swizzled, and the right/left inverses of swizzled layouts. Every result is checked by brute
//! force against its definition, evaluated independently of the code under test (the helpers
//! below re-implement layout and swizzle evaluation from their formulas).

use proptest::prelude::*;
use tessel_layout::{ComposedLayout, ErrorKind, Layout, Swizzle};

/// `Sw<B,M,S>(x) = x ^ ((x & yyy) >> S)` with `yyy = (2^B - 1) << (M + max(0,S))`, from CuTe's
/// `include/cute/swizzle.hpp`, written out here rather than calling `Swizzle::apply`.
fn swizzle_value(sw: &Swizzle, x: i64) -> i64 {
    let (b, m, s) = (sw.bits() as i64, sw.base() as i64, sw.shift() as i64);
    let yyy = ((1i64 << b) - 1) << (m + s.max(0));
    let moved = if s >= 0 {
        (x & yyy) >> s
    } else {
        (x & yyy) << -s
    };
    x ^ moved
}

/// A layout as a function on all non-negative integers (CuTe's convention: past the domain the
/// index runs on in the last mode), from the flat modes.
fn layout_value(l: &Layout, x: i64) -> i64 {
    let modes = l.flat_modes();
    let mut rest = x;
    let mut value = 0;
    for (k, &(s, d)) in modes.iter().enumerate() {
        if k + 1 == modes.len() {
            value += rest * d;
        } else {
            value += (rest % s) * d;
            rest /= s;
        }
    }
    value
}

/// `Sw1(...(Swk(offset + L(x))))`.
fn value(c: &ComposedLayout, x: i64) -> i64 {
    c.swizzles()
        .iter()
        .rev()
        .fold(c.base_offset() + layout_value(c.layout(), x), |v, sw| {
            swizzle_value(sw, v)
        })
}

fn composed(s: &str) -> ComposedLayout {
    s.parse().unwrap()
}

/// `r(i) == a(b(i))` for every index of `b`, and `r` has `b`'s size.
fn assert_composition(a: &ComposedLayout, b: &ComposedLayout, r: &ComposedLayout) {
    assert_eq!(r.size(), b.size(), "{a} o {b} = {r}");
    for i in 0..b.size() {
        assert_eq!(value(r, i), value(a, value(b, i)), "{a} o {b} = {r} at {i}");
    }
}

/// CuTe's property of a right inverse, `l(r(i)) == i` for every `i` of `r`'s domain.
fn assert_right_inverse(l: &ComposedLayout, r: &ComposedLayout) {
    for i in 0..r.size() {
        let j = value(r, i);
        assert!((0..l.size()).contains(&j), "{r}({i}) = {j} outside {l}");
        assert_eq!(value(l, j), i, "{l} o {r} at {i}");
    }
}

/// CuTe's test property of a left inverse, `l(r(l(i))) == l(i)` for every `i` of `l`'s domain
/// (test/unit/cute/core/inverse_left.cpp); where `l` is injective that is the defining identity
/// `r(l(i)) == i`, checked as well. A layout with stride-0 modes has a left inverse in CuTe's
/// sense (it skips those modes) but no exact one.
fn assert_left_inverse(l: &ComposedLayout, r: &ComposedLayout) {
    let images: Vec<i64> = (0..l.size()).map(|i| value(l, i)).collect();
    let mut distinct = images.clone();
    distinct.sort_unstable();
    distinct.dedup();
    let injective = distinct.len() == images.len();
    for (i, &y) in images.iter().enumerate() {
        assert!((0..r.size()).contains(&y), "{l}({i}) = {y} outside {r}");
        assert_eq!(value(l, value(r, y)), y, "{l} o {r} o {l} at {i}");
        if injective {
            assert_eq!(value(r, y), i as i64, "{r} o {l} at {i}");
        }
    }
}

#[test]
fn layout_o_swizzled_layout_moves_the_swizzle_cute_golden() {
    // CuTe test/unit/cute/core/composition.cpp ("Swizzle composition"): (8,8):(8,1) o
    // (Sw<2,0,-3> o (8,8):(8,1)). CuTe's composition(Layout, Swizzle) in
    // include/cute/swizzle_layout.hpp maps the masks through A: A(yyy = 0b11) = 24 and
    // A(zzz = 0b11000) = 3, and make_swizzle<24, 3> is Sw<2,0,3>; A o B = (8,8):(1,8).
    let a = composed("(8,8):(8,1)");
    let b = composed("Sw<2,0,-3> o (8,8):(8,1)");
    let r = a.compose_composed(&b).unwrap();
    assert_eq!(r.to_string(), "Sw<2,0,3> o (8,8):(1,8)");
    assert_composition(&a, &b, &r);
}

#[test]
fn swizzled_o_swizzled_cute_golden() {
    // CuTe test/unit/cute/core/composition.cpp ("Swizzle composition"), second case. By CuTe's
    // rules (layout_composed.hpp: composition(ComposedLayout, B) composes layout_b with B) this is
    // Sw<2,0,3> o ((8,8):(8,1) o (Sw<2,0,-3> o (8,8):(8,1))) = Sw<2,0,3> o Sw<2,0,3> o
    // (8,8):(1,8); a swizzle is an involution, so the two cancel.
    let a = composed("Sw<2,0,3> o (8,8):(8,1)");
    let b = composed("Sw<2,0,-3> o (8,8):(8,1)");
    let r = a.compose_composed(&b).unwrap();
    assert_eq!(r.to_string(), "(8,8):(1,8)");
    assert_composition(&a, &b, &r);
}

#[test]
fn chains_move_swizzle_by_swizzle() {
    let a = composed("(16,16):(16,1)");
    let b = composed("Sw<2,0,4> o Sw<1,4,-2> o (16,16):(16,1)");
    let r = a.compose_composed(&b).unwrap();
    assert_eq!(r.swizzles().len(), 2);
    assert_composition(&a, &b, &r);
    // and behind a swizzled outer layout
    let a = composed("Sw<3,2,3> o (16,16):(16,1)");
    let r = a.compose_composed(&b).unwrap();
    assert_composition(&a, &b, &r);
}

#[test]
fn pairs_that_are_no_single_swizzle_become_a_chain() {
    // A reverses the two low bits and keeps the next two: the pairs (bit 2 -> bit 0) and
    // (bit 3 -> bit 1) of Sw<2,0,2> land on (bit 2 -> bit 1) and (bit 3 -> bit 0), which no one
    // Sw<B,M,S> pairs (CuTe's make_swizzle would pair 2 with 0). Each pair is its own swizzle.
    let a = composed("(2,2,4):(2,1,4)");
    let b = composed("Sw<2,0,2> o 16:1");
    let r = a.compose_composed(&b).unwrap();
    assert_eq!(r.to_string(), "Sw<1,1,1> o Sw<1,0,3> o (2,2,4):(2,1,4)");
    assert_composition(&a, &b, &r);
}

#[test]
fn target_bits_the_layout_discards_drop_out() {
    // A ignores bit 0 (stride 0), so flipping it changes nothing: A o Sw<1,0,1> = A.
    let a = composed("(2,4):(0,1)");
    let b = composed("Sw<1,0,1> o 8:1");
    let r = a.compose_composed(&b).unwrap();
    assert!(r.swizzles().is_empty(), "{r}");
    assert_composition(&a, &b, &r);
}

#[test]
fn unrepresentable_compositions_name_the_condition() {
    let fails = |a: &str, b: &str, condition: &str| {
        let e = composed(a).compose_composed(&composed(b)).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::Inadmissible, "{e}");
        assert!(e.message().contains(condition), "{a} o {b}: {e}");
        assert!(e.message().contains("not a composed layout"), "{e}");
    };
    // 8:3 maps bit 0 to 3, two bits
    fails("8:3", "Sw<1,0,1> o 4:1", "single-bit condition");
    // the values of B run past A's 8x8 tile, where A's last mode (stride 1) carries into the
    // bits the moved swizzle reads
    fails(
        "(8,8):(8,1)",
        "Sw<3,3,5> o (16,256):(256,1)",
        "commuting condition",
    );
    // the source and the target bit land on one bit
    fails("(2,2):(1,1)", "Sw<1,0,1> o 4:1", "distinct-bits condition");
    fails(
        "(4,2):(2,1)",
        "Sw<1,0,2> o 2 o 8:1",
        "offset 2 of the right operand",
    );
    fails(
        "Sw<1,4,1> o 3 o (8,8):(8,1)",
        "Sw<2,0,-3> o (8,8):(8,1)",
        "offset 3 of the left operand",
    );
}

#[test]
fn identity_outer_layouts_concatenate_with_the_inner_offset() {
    let a = composed("Sw<1,3,3> o 4096:1");
    let b = composed("Sw<3,3,5> o 16 o (16,128):(256,1)");
    let r = a.compose_composed(&b).unwrap();
    assert_eq!(
        r.to_string(),
        "Sw<1,3,3> o Sw<3,3,5> o 16 o (16,128):(256,1)"
    );
    assert_composition(&a, &b, &r);
}

#[test]
fn large_bit_permutations_are_proved_without_enumeration() {
    // 2^24 elements, over the enumeration limit: the GF(2) proof decides it.
    let a = composed("(4096,4096):(4096,1)");
    let b = composed("Sw<3,4,3> o (4096,4096):(4096,1)");
    let r = a.compose_composed(&b).unwrap();
    // the transpose moves the source bits 7..10 to 19..22 and the targets 4..7 to 16..19
    assert_eq!(r.to_string(), "Sw<3,16,3> o (4096,4096):(1,4096)");
    for i in (0..b.size()).step_by(997) {
        assert_eq!(value(&r, i), value(&a, value(&b, i)), "at {i}");
    }
    // not GF(2)-affine (extent 3) and over the limit: refused, not guessed
    let a = composed("(8,8,1048576):(8,1,64)");
    let b = composed("Sw<3,0,3> o (64,3,131072):(1,64,192)");
    let e = a.compose_composed(&b).unwrap_err();
    assert!(e.message().contains("enumeration limit"), "{e}");
}

#[test]
fn right_inverses_cute_goldens() {
    // CuTe test/unit/cute/core/inverse_right.cpp ("Swizzle layouts"), checked by its property
    // layout(inv(i)) == i. The forms follow CuTe's right_inverse(ComposedLayout) in
    // include/cute/swizzle_layout.hpp: composition(right_inverse(L), Sw); for the identity
    // right_inverse((4,4):(1,4)) = 16:1 the masks map to themselves.
    let cases = [
        ("Sw<1,0,2> o (4,4):(1,4)", Some("Sw<1,0,2> o 16:1")),
        ("Sw<1,0,2> o (4,4):(4,1)", None),
        ("Sw<1,0,1> o (4,4):(8,1)", None),
    ];
    for (text, form) in cases {
        let l = composed(text);
        let r = l.right_inverse().unwrap();
        if let Some(form) = form {
            assert_eq!(r.to_string(), form);
        }
        // as large as the plain layout's right inverse
        assert_eq!(
            r.size(),
            tessel_layout::right_inverse(l.layout()).unwrap().size()
        );
        assert_right_inverse(&l, &r);
    }
}

#[test]
fn left_inverses_cute_goldens() {
    // CuTe test/unit/cute/core/inverse_left.cpp ("Swizzle layouts"), checked by the defining
    // property inv(layout(i)) == i and CuTe's layout(inv(layout(i))) == layout(i).
    for text in [
        "Sw<1,0,2> o (4,4):(1,4)",
        "Sw<1,0,2> o (4,4):(4,1)",
        "Sw<1,0,1> o (4,4):(8,1)",
    ] {
        let l = composed(text);
        let r = l.left_inverse().unwrap();
        assert_left_inverse(&l, &r);
    }
    let l = composed("Sw<1,0,2> o (4,4):(1,4)");
    assert_eq!(l.left_inverse().unwrap().to_string(), "Sw<1,0,2> o 16:1");
}

#[test]
fn inverses_of_chains_and_their_errors() {
    let l = composed("Sw<1,2,3> o Sw<3,3,3> o (8,64):(64,1)");
    assert_right_inverse(&l, &l.right_inverse().unwrap());
    assert_left_inverse(&l, &l.left_inverse().unwrap());
    let e = composed("Sw<1,0,1> o 2 o 4:1").right_inverse().unwrap_err();
    assert!(e.message().contains("offset 2"), "{e}");
    // Sw<1,1,1> sends 4 to 6, outside the domain 0..6 of right_inverse(6:1)
    let e = composed("Sw<1,1,1> o 6:1").right_inverse().unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Inadmissible);
    assert!(e.message().contains("domain condition"), "{e}");
    // a non-injective layout has no left inverse, swizzled or not
    assert!(composed("Sw<1,0,1> o (2,2):(1,1)").left_inverse().is_err());
}

/// A layout moving the `n` low index bits to a permutation of the `n` low offset bits.
fn bit_permutation(n: usize) -> impl Strategy<Value = Layout> {
    Just((0..n).map(|k| 1i64 << k).collect::<Vec<_>>())
        .prop_shuffle()
        .prop_map(move |strides| {
            let shape = vec!["2"; strides.len()].join(",");
            let stride = strides
                .iter()
                .map(ToString::to_string)
                .collect::<Vec<_>>()
                .join(",");
            format!("({shape}):({stride})").parse().unwrap()
        })
}

/// A valid swizzle on the `n >= 2` low bits: `B + M + |S| <= n` with `|S| >= B`.
fn swizzle_within(n: i64) -> impl Strategy<Value = Swizzle> {
    (1i64..=3.min(n / 2))
        .prop_flat_map(move |b| (Just(b), b..=n - b, any::<bool>()))
        .prop_flat_map(move |(b, s, negative)| (Just(b), 0..=n - b - s, Just(s), Just(negative)))
        .prop_map(|(b, m, s, negative)| Swizzle::new(b, m, if negative { -s } else { s }).unwrap())
}

fn chain_within(n: i64) -> impl Strategy<Value = Vec<Swizzle>> {
    prop::collection::vec(swizzle_within(n), 1..=3)
}

/// A small layout with arbitrary extents and strides.
fn small_layout() -> impl Strategy<Value = Layout> {
    prop::collection::vec((1i64..=6, 0i64..=12), 1..=3).prop_map(|modes| {
        let shape = modes.iter().map(|m| m.0.to_string()).collect::<Vec<_>>();
        let stride = modes.iter().map(|m| m.1.to_string()).collect::<Vec<_>>();
        format!("({}):({})", shape.join(","), stride.join(","))
            .parse()
            .unwrap()
    })
}

/// A layout with power-of-two extents and strides (or stride 0), possibly overlapping: the
/// structure the GF(2) proof works on, including the cases where it must decline.
fn power_of_two_layout() -> impl Strategy<Value = Layout> {
    prop::collection::vec((0u32..=3, prop::option::of(0u32..=5)), 1..=3).prop_map(|modes| {
        let shape = modes
            .iter()
            .map(|m| (1i64 << m.0).to_string())
            .collect::<Vec<_>>();
        let stride = modes
            .iter()
            .map(|m| m.1.map_or(0, |k| 1i64 << k).to_string())
            .collect::<Vec<_>>();
        format!("({}):({})", shape.join(","), stride.join(","))
            .parse()
            .unwrap()
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    /// Power-of-two layouts: whatever is returned (proved or enumerated) is exact.
    #[test]
    fn power_of_two_results_are_exact(
        a in power_of_two_layout(),
        outer in prop::collection::vec(swizzle_within(6), 0..=1),
        b in power_of_two_layout(),
        inner in chain_within(6),
    ) {
        let a = ComposedLayout::new(outer, 0, a);
        let b = ComposedLayout::new(inner, 0, b);
        if let Ok(r) = a.compose_composed(&b) {
            assert_composition(&a, &b, &r);
        }
        if let Ok(r) = b.right_inverse() {
            assert_right_inverse(&b, &r);
        }
        if let Ok(r) = b.left_inverse() {
            assert_left_inverse(&b, &r);
        }
    }

    /// Bit permutations conjugate every swizzle: always representable, and exact.
    #[test]
    fn bit_permutation_o_swizzled_bit_permutation(
        (a, b, chain) in (4usize..=8).prop_flat_map(|n| {
            (bit_permutation(n), bit_permutation(n), chain_within(n as i64))
        })
    ) {
        let a = ComposedLayout::from_layout(a);
        let b = ComposedLayout::new(chain, 0, b);
        let r = a.compose_composed(&b).unwrap();
        assert_composition(&a, &b, &r);
    }

    #[test]
    fn swizzled_o_swizzled_bit_permutations(
        (a, outer, b, inner) in (4usize..=8).prop_flat_map(|n| {
            (bit_permutation(n), chain_within(n as i64), bit_permutation(n), chain_within(n as i64))
        })
    ) {
        let a = ComposedLayout::new(outer, 0, a);
        let b = ComposedLayout::new(inner, 0, b);
        let r = a.compose_composed(&b).unwrap();
        assert_composition(&a, &b, &r);
    }

    /// Arbitrary small layouts: whatever is returned is exact (errors are allowed).
    #[test]
    fn any_result_is_exact(
        a in small_layout(),
        outer in prop::collection::vec(swizzle_within(7), 0..=1),
        b in small_layout(),
        inner in chain_within(7),
    ) {
        let a = ComposedLayout::new(outer, 0, a);
        let b = ComposedLayout::new(inner, 0, b);
        if let Ok(r) = a.compose_composed(&b) {
            assert_composition(&a, &b, &r);
        }
    }

    #[test]
    fn inverses_of_swizzled_bit_permutations(
        (l, chain) in (3usize..=8).prop_flat_map(|n| (bit_permutation(n), chain_within(n as i64)))
    ) {
        let l = ComposedLayout::new(chain, 0, l);
        let r = l.right_inverse().unwrap();
        prop_assert_eq!(r.size(), l.size());
        assert_right_inverse(&l, &r);
        assert_left_inverse(&l, &l.left_inverse().unwrap());
    }

    #[test]
    fn inverses_of_swizzled_small_layouts_are_exact(l in small_layout(), chain in chain_within(7)) {
        let l = ComposedLayout::new(chain, 0, l);
        if let Ok(r) = l.right_inverse() {
            assert_right_inverse(&l, &r);
        }
        if let Ok(r) = l.left_inverse() {
            assert_left_inverse(&l, &r);
        }
    }
}
