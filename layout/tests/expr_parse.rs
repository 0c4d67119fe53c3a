//! Parser properties of the expression language: Display output parses back to the same value,
//! and no input (random bytes, random token soup, deep nesting) makes parser or evaluator panic.

use proptest::prelude::*;
use tessel_layout::expr::{MAX_DEPTH, Value, eval, parse};
use tessel_layout::{ComposedLayout, ErrorKind, IntTuple, Layout, Swizzle, Tiler};

/// Random integer tuples of depth <= 3 with small leaves (negative allowed).
fn int_tuple(
    leaf: impl Strategy<Value = i64> + Clone + 'static,
) -> impl Strategy<Value = IntTuple> {
    leaf.prop_map(IntTuple::Int)
        .prop_recursive(3, 16, 4, |inner| {
            prop::collection::vec(inner, 0..4).prop_map(|v| IntTuple::Tuple(v.into()))
        })
}

/// Random valid layouts: a random shape and a congruent stride.
fn layout() -> impl Strategy<Value = Layout> {
    int_tuple(1i64..6).prop_flat_map(|shape| {
        let n = shape.leaves().len();
        prop::collection::vec(-40i64..40, n).prop_map(move |strides| {
            let stride = shape.with_leaves(&strides).expect("same leaf count");
            Layout::new(shape.clone(), stride).expect("small extents never overflow")
        })
    })
}

fn swizzle() -> impl Strategy<Value = Swizzle> {
    (0i64..4, 0i64..5, -6i64..7)
        .prop_filter_map("valid swizzle", |(b, m, s)| Swizzle::new(b, m, s).ok())
}

fn tiler() -> impl Strategy<Value = Tiler> {
    layout()
        .prop_map(Tiler::Layout)
        .prop_recursive(2, 8, 3, |inner| {
            prop::collection::vec(prop::option::of(inner), 1..4).prop_map(Tiler::ByMode)
        })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn int_tuples_round_trip(t in int_tuple(-1000i64..1000)) {
        let expected = Value::from_int_tuple(t.clone());
        prop_assert_eq!(eval(&t.to_string()).unwrap(), expected);
    }

    #[test]
    fn layouts_round_trip(l in layout()) {
        prop_assert_eq!(eval(&l.to_string()).unwrap(), Value::Layout(l));
    }

    #[test]
    fn composed_layouts_round_trip(
        swizzles in prop::collection::vec(swizzle(), 0..3),
        offset in -50i64..50,
        l in layout(),
    ) {
        let c = ComposedLayout::new(swizzles, offset, l);
        let text = c.to_string();
        prop_assert_eq!(eval(&text).unwrap(), Value::from_composed(c), "{}", text);
    }

    #[test]
    fn tilers_round_trip(t in tiler()) {
        let value = Value::from_tiler(t);
        let text = value.to_string();
        prop_assert_eq!(eval(&text).unwrap(), value, "{}", text);
    }

    #[test]
    fn random_bytes_never_panic(bytes in prop::collection::vec(any::<u8>(), 0..64)) {
        let text = String::from_utf8_lossy(&bytes);
        let _ = parse(&text);
        let _ = eval(&text);
    }

    #[test]
    fn token_soup_never_panics(tokens in prop::collection::vec(soup_token(), 0..40)) {
        let text = tokens.concat();
        let _ = eval(&text);
    }
}

/// A random argument in notation: a layout, an integer, a tuple, a tiler or a swizzle.
fn argument() -> impl Strategy<Value = String> {
    prop_oneof![
        4 => layout().prop_map(|l| l.to_string()),
        2 => (-3i64..70).prop_map(|v| v.to_string()),
        1 => int_tuple(0i64..9).prop_map(|t| t.to_string()),
        1 => tiler().prop_map(|t| Value::from_tiler(t).to_string()),
        1 => swizzle().prop_map(|s| s.to_string()),
        1 => (swizzle(), layout()).prop_map(|(s, l)| format!("{s} o {l}")),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(3000))]

    /// Every registered function, called with random well-formed arguments, returns a value or
    /// an error and never panics.
    #[test]
    fn random_calls_never_panic(
        pick in any::<prop::sample::Index>(),
        args in prop::collection::vec(argument(), 0..4),
    ) {
        let names: Vec<&str> = tessel_layout::expr::registry::all().map(|f| f.name).collect();
        let name = names[pick.index(names.len())];
        let text = format!("{name}({})", args.join(", "));
        let _ = eval(&text);
    }

    /// `at` and `size` agree with the library's own evaluation of the layout.
    #[test]
    fn at_agrees_with_layout_offsets(l in layout(), pick in any::<prop::sample::Index>()) {
        let size = usize::try_from(l.size()).unwrap();
        let i = i64::try_from(pick.index(size)).unwrap();
        prop_assert_eq!(eval(&format!("size({l})")).unwrap(), Value::Int(l.size()));
        let expected = Value::Int(l.offset(i).unwrap());
        prop_assert_eq!(eval(&format!("at({l}, {i})")).unwrap(), expected.clone());
        let coord = l.idx2crd(i).unwrap();
        prop_assert_eq!(eval(&format!("at({l}, {coord})")).unwrap(), expected);
    }

    /// `at` on a swizzled layout applies the swizzles after the layout and the offset.
    #[test]
    fn at_on_swizzled_layouts(
        swizzles in prop::collection::vec(swizzle(), 1..3),
        offset in 0i64..64,
        l in layout(),
        pick in any::<prop::sample::Index>(),
    ) {
        let c = ComposedLayout::new(swizzles, offset, l);
        let size = usize::try_from(c.size()).unwrap();
        let i = i64::try_from(pick.index(size)).unwrap();
        let value = eval(&format!("at({c}, {i})")).unwrap();
        prop_assert_eq!(value, Value::Int(c.offset(i).unwrap()));
    }
}

/// Pieces of the grammar's alphabet, including function names and extreme integers.
fn soup_token() -> impl Strategy<Value = String> {
    prop_oneof![
        prop::sample::select(vec![
            "(",
            ")",
            "[",
            "]",
            ":",
            ",",
            "_",
            "<",
            ">",
            " o ",
            "o",
            "Sw",
            "Sw<",
            " ",
            "-",
            "size",
            "cosize",
            "rank",
            "depth",
            "at",
            "mode",
            "get",
            "flatten",
            "coalesce",
            "composition",
            "complement",
            "swizzle",
            "logical_divide",
            "zipped_product",
            "blocked_product",
            "is_injective",
            "x",
            "Swizzle",
        ])
        .prop_map(str::to_string),
        (-70i64..70).prop_map(|v| v.to_string()),
        prop::sample::select(vec![i64::MAX, i64::MIN, 1 << 32, 1 << 62, -(1 << 62)])
            .prop_map(|v| v.to_string()),
        any::<char>().prop_map(|c| c.to_string()),
        prop::sample::select(vec!["foo", "S", "w", "Sw_", "o8", "_x", "O"])
            .prop_map(str::to_string),
    ]
}

#[test]
fn deep_nesting_is_an_error_not_a_stack_overflow() {
    for open in ["(", "[", "size("] {
        let text = open.repeat(100_000);
        let err = eval(&text).unwrap_err();
        assert_eq!(err.kind(), ErrorKind::Parse, "{open}");
        assert!(err.to_string().contains("nesting deeper than"), "{err}");
    }
}

#[test]
fn nesting_up_to_the_cap_is_accepted() {
    let text = format!("{}8{}", "(".repeat(MAX_DEPTH), ")".repeat(MAX_DEPTH));
    let value = eval(&text).unwrap();
    assert_eq!(value.to_string(), text);
    let too_deep = format!("({text})");
    assert!(eval(&too_deep).is_err());
}

#[test]
fn parse_errors_give_position_and_expectation() {
    let cases = [
        ("(4,8]", "at 4: expected ',' or ')' but found ']'"),
        (
            "(4,8):",
            "at 6: expected a layout, an integer, '(', '[', 'Sw<' or a function name but found the end of the input",
        ),
        (
            "8:1 8:1",
            "at 4: expected an operator 'o' or the end of the input but found the integer 8",
        ),
        ("Sw<3,3>", "at 6: expected ',' but found '>'"),
        (
            "size 8",
            "at 5: expected '(' after the function name 'size' but found the integer 8",
        ),
        (
            "8:_",
            "at 2: '_' may only stand for a mode of a tiler [..] or of a coordinate (..)",
        ),
        ("8 % 2", "at 2: unexpected character '%'"),
        (
            "99999999999999999999",
            "at 0: the integer 99999999999999999999 does not fit in i64",
        ),
    ];
    let unknown = eval("L o 8:1").unwrap_err();
    assert_eq!(unknown.kind(), ErrorKind::Parse);
    assert!(
        unknown.to_string().starts_with("at 0: unknown name 'L'"),
        "{unknown}"
    );
    for (text, message) in cases {
        let err = eval(text).unwrap_err();
        assert_eq!(err.kind(), ErrorKind::Parse, "{text}");
        assert_eq!(err.to_string(), message, "{text}");
    }
}
