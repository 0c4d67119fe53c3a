//! Static integers and basis elements in the expression language: literals, printing, the
//! errors of bad input (each names the violated condition), and random typed arguments to every
//! function (a value or an error, never a panic).

use proptest::prelude::*;
use tessel_layout::ErrorKind;
use tessel_layout::expr::{Value, eval};

#[test]
fn literals_print_as_cute_prints() {
    for (e, want) in [
        ("_4", "_4"),
        ("_-1", "_-1"),
        ("(_4,(8,_2))", "(_4,(8,_2))"),
        ("(_4,8):(_1,_4)", "(_4,8):(_1,_4)"),
        ("_1@0", "_1@0"),
        ("4@1@0", "4@1@0"),
        ("(4,8):(_1@0,_1@1)", "(4,8):(_1@0,_1@1)"),
        ("[_2:_1,4:_1]", "[_2:_1,4:_1]"),
        // A value without static integers or basis elements is the plain value.
        ("(4,8):(1,4)", "(4,8):(1,4)"),
        ("(_4,8):(1,4)", "(_4,8):(1,4)"),
    ] {
        assert_eq!(eval(e).unwrap().to_string(), want, "{e}");
    }
    assert!(matches!(eval("(4,8)").unwrap(), Value::Tuple(_)));
    assert!(eval("(_4,8)").unwrap().is_typed());
    // `_` alone is still CuTe's underscore, and identifiers starting with `_` are names.
    assert_eq!(
        eval("at((4,8):(1,4), (_,1))").unwrap().to_string(),
        "4 o (4):(1)"
    );
}

/// Bad input is an error that names what failed, never a panic.
#[test]
fn errors_name_the_condition() {
    for (e, kind, says) in [
        ("_1@", ErrorKind::Parse, "mode index"),
        ("_1@-2", ErrorKind::Parse, "mode index"),
        (
            "shape_div(6, 4)",
            ErrorKind::Inadmissible,
            "divisibility condition",
        ),
        (
            "shape_div((_3,_4), _5)",
            ErrorKind::Inadmissible,
            "divisibility condition",
        ),
        (
            "idx2crd(18, (3,(2,3)))",
            ErrorKind::InvalidArgument,
            "outside 0..18",
        ),
        (
            "crd2idx((3,0), (3,(2,3)))",
            ErrorKind::InvalidArgument,
            "outside 0..3",
        ),
        (
            "idx2crd((1,2,3), (3,(2,3)))",
            ErrorKind::NotCongruent,
            "rank",
        ),
        (
            "increment((1,2), (2,3))",
            ErrorKind::InvalidArgument,
            "last coordinate",
        ),
        (
            "complement(make_identity_layout((4,8)))",
            ErrorKind::InvalidArgument,
            "basis",
        ),
        (
            "zipped_divide((_8,_8), [_2:_1, _])",
            ErrorKind::InvalidArgument,
            "'_'",
        ),
        (
            "make_identity_layout((0,4))",
            ErrorKind::InvalidArgument,
            "at least 1",
        ),
        ("(_4,8):(_1@0)", ErrorKind::NotCongruent, "congruent"),
        (
            "composition(_8:_1, make_identity_layout((2,4)))",
            ErrorKind::InvalidArgument,
            "integer strides",
        ),
        ("ceil_div(4, 0)", ErrorKind::InvalidArgument, "divisor is 0"),
    ] {
        let err = eval(e).unwrap_err();
        assert_eq!(err.kind(), kind, "{e}: {err}");
        assert!(err.to_string().contains(says), "{e}: {err}");
    }
}

fn leaf() -> impl Strategy<Value = String> {
    prop_oneof![
        (1i64..9).prop_map(|v| v.to_string()),
        (1i64..9).prop_map(|v| format!("_{v}")),
        (0i64..3, 0u16..3).prop_map(|(v, m)| format!("_{v}@{m}")),
    ]
}

fn typed_argument() -> impl Strategy<Value = String> {
    let tuple = prop::collection::vec(leaf(), 1..4).prop_map(|v| format!("({})", v.join(",")));
    let layout = (prop::collection::vec(
        (
            1i64..6,
            prop::bool::ANY,
            -6i64..9,
            prop::bool::ANY,
            prop::option::of(0u16..3),
        ),
        1..4,
    ),)
        .prop_map(|(leaves,)| {
            let shape: Vec<String> = leaves
                .iter()
                .map(|(s, st, ..)| if *st { format!("_{s}") } else { s.to_string() })
                .collect();
            let stride: Vec<String> = leaves
                .iter()
                .map(|(_, _, d, st, m)| {
                    let v = if *st { format!("_{d}") } else { d.to_string() };
                    match m {
                        Some(m) => format!("{v}@{m}"),
                        None => v,
                    }
                })
                .collect();
            format!("({}):({})", shape.join(","), stride.join(","))
        });
    prop_oneof![
        3 => layout.clone(),
        2 => leaf(),
        2 => tuple,
        1 => layout.clone().prop_map(|l| format!("make_identity_layout(shape({l}))")),
        1 => prop::collection::vec(layout, 1..3).prop_map(|v| format!("[{}]", v.join(","))),
        1 => (0i64..20).prop_map(|v| v.to_string()),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(3000))]

    /// Every registered function, called with random typed arguments, returns a value or an
    /// error and never panics; a value prints, and a typed value's text evaluates again.
    #[test]
    fn random_typed_calls_never_panic(
        pick in any::<prop::sample::Index>(),
        args in prop::collection::vec(typed_argument(), 0..4),
    ) {
        let names: Vec<&str> = tessel_layout::expr::registry::all().map(|f| f.name).collect();
        let name = names[pick.index(names.len())];
        let text = format!("{name}({})", args.join(", "));
        if let Ok(v) = eval(&text) {
            let printed = v.to_string();
            if matches!(v, Value::TypedTuple(_) | Value::TypedLayout(_)) {
                prop_assert_eq!(eval(&printed).map(|w| w.to_string()), Ok(printed.clone()), "{}", text);
            }
        }
    }
}
