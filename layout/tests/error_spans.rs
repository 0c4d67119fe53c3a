//! Errors of the parsers and the evaluator carry the span of the offending text as data
//! (`Error::span`), not as text in the message. Each expected byte range below is counted by
//! hand from the input string; the slice it names is asserted too, as a check of the counting.

use tessel_layout::codegen::parse_source;
use tessel_layout::error::Span;
use tessel_layout::expr::{eval, parse};
use tessel_layout::{Error, ErrorKind, IntTuple, Layout, Swizzle};

/// Asserts that `err` spans `want` of `text`, which is the text `slice`, and that the message
/// holds no position.
fn assert_span(text: &str, err: &Error, want: std::ops::Range<usize>, slice: &str) {
    assert_eq!(
        err.span(),
        Some(Span::from(want.clone())),
        "{text:?}: {err}"
    );
    assert_eq!(
        &text[want.clone()],
        slice,
        "the hand-counted range of {text:?}"
    );
    assert!(!err.message().starts_with("at "), "{err:?}");
    assert_eq!(
        err.to_string(),
        format!("at {}: {}", want.start, err.message())
    );
}

#[test]
fn a_parse_error_spans_the_character_found() {
    let text = "(4,8]";
    let err = text.parse::<Layout>().unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Parse);
    assert_span(text, &err, 4..5, "]");
    assert_eq!(err.message(), "expected ',' or ')' but found ']'");
    // The expression parser reports the same token.
    assert_span(text, &parse(text).unwrap_err(), 4..5, "]");
}

#[test]
fn a_parse_error_at_the_end_of_the_input_is_an_empty_span_there() {
    let text = "(4,";
    let err = parse(text).unwrap_err();
    assert_eq!(err.span(), Some(Span::at(3)), "{err}");
    let err = text.parse::<IntTuple>().unwrap_err();
    assert_eq!(err.span(), Some(Span::at(3)), "{err}");
}

#[test]
fn an_unexpected_character_spans_all_its_bytes() {
    let text = "8 é";
    let err = parse(text).unwrap_err();
    assert_span(text, &err, 2..4, "é");
    assert_eq!(err.message(), "unexpected character 'é'");
}

#[test]
fn an_integer_too_large_spans_the_literal() {
    let text = "(99999999999999999999,1)";
    let err = text.parse::<IntTuple>().unwrap_err();
    assert_span(text, &err, 1..21, "99999999999999999999");
    let err = parse(text).unwrap_err();
    assert_span(text, &err, 1..21, "99999999999999999999");
}

#[test]
fn a_name_that_is_not_called_spans_the_name() {
    let text = "size(L)";
    let err = parse(text).unwrap_err();
    assert_span(text, &err, 5..6, "L");
}

#[test]
fn an_inadmissible_layout_literal_spans_the_literal() {
    let text = "(4,8):(1,4,2)";
    let err = text.parse::<Layout>().unwrap_err();
    assert_eq!(err.kind(), ErrorKind::NotCongruent);
    assert_span(text, &err, 0..13, "(4,8):(1,4,2)");

    // Leading whitespace is not part of the span; the zero extent is InvalidArgument.
    let text = "  (8,0):(1,8)";
    let err = parse_source(text).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::InvalidArgument);
    assert_span(text, &err, 2..13, "(8,0):(1,8)");

    // The same literal inside an expression.
    let text = "size((4,8):(1,4,2))";
    let err = eval(text).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::NotCongruent);
    assert_span(text, &err, 5..18, "(4,8):(1,4,2)");
}

#[test]
fn an_inadmissible_swizzle_spans_the_swizzle() {
    let text = "Sw<3,3,2> o (8,64):(64,1)";
    let err = parse_source(text).unwrap_err();
    assert_span(text, &err, 0..9, "Sw<3,3,2>");
    let err = " Sw<3,3,2>".parse::<Swizzle>().unwrap_err();
    assert_span(" Sw<3,3,2>", &err, 1..10, "Sw<3,3,2>");
    let text = "size(Sw<3,3,2> o 8:1)";
    let err = eval(text).unwrap_err();
    assert_span(text, &err, 5..14, "Sw<3,3,2>");
}

#[test]
fn an_offset_that_overflows_spans_the_offset() {
    let text = "9223372036854775807 o 2:1";
    let err = parse_source(text).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Overflow);
    assert_span(text, &err, 0..19, "9223372036854775807");
}

#[test]
fn a_failing_call_inside_an_expression_spans_the_innermost_failing_call() {
    // CUTLASS issue 3177: the inner composition is inadmissible.
    let text = "logical_divide(composition((4,6,8):(2,3,5), 6:3), 2:1)";
    let err = parse_source(text).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Inadmissible);
    assert_span(text, &err, 15..48, "composition((4,6,8):(2,3,5), 6:3)");
    assert!(
        err.message()
            .starts_with("composition (4,6,8):(2,3,5) o 6:3"),
        "{err}"
    );
}

#[test]
fn errors_about_a_call_itself_span_the_call() {
    let text = "size(sise(8:1))";
    let err = eval(text).unwrap_err();
    assert_span(text, &err, 5..14, "sise(8:1)");
    assert!(
        err.message().starts_with("unknown function 'sise'"),
        "{err}"
    );

    let text = "size(8:1, 2)";
    let err = eval(text).unwrap_err();
    assert_span(text, &err, 0..12, "size(8:1, 2)");
    assert_eq!(err.message(), "size(L) takes 1 argument, got 2");
}

#[test]
fn a_bad_tiler_mode_spans_the_mode() {
    let text = "logical_divide(8:1, [2:1, Sw<1,0,1>])";
    let err = eval(text).unwrap_err();
    assert_span(text, &err, 26..35, "Sw<1,0,1>");
}

#[test]
fn a_value_that_is_not_a_layout_spans_the_whole_expression() {
    let text = "is_bijective((4,8):(1,4))";
    let err = parse_source(text).unwrap_err();
    assert_span(text, &err, 0..25, text);
}

#[test]
fn nesting_too_deep_spans_the_bracket() {
    let deep = "(".repeat(200);
    let err = parse(&deep).unwrap_err();
    let max = tessel_layout::parse::MAX_DEPTH;
    assert_span(&deep, &err, max..max + 1, "(");
    let err = deep.parse::<Layout>().unwrap_err();
    assert_span(&deep, &err, max..max + 1, "(");
}

#[test]
fn the_innermost_span_wins_and_context_keeps_it() {
    let err = Error::invalid("bad").at(4..7).at(0..20).context("in f");
    assert_eq!(err.span(), Some(Span::new(4, 7)));
    assert_eq!(err.to_string(), "at 4: in f: bad");
    assert_eq!(Error::invalid("bad").span(), None);
    assert_eq!(Error::invalid("bad").to_string(), "bad");
}
