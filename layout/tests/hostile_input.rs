//! Hostile input: every parser of user text stops at one nesting limit (`MAX_DEPTH`) with one
//! error, and small inputs cannot ask for unbounded work or memory (each request is bounded by a
//! named limit and rejected with an error that names it).

use std::str::FromStr;

use tessel_layout::expr::{self, MAX_DEPTH};
use tessel_layout::{ComposedLayout, Error, ErrorKind, IntTuple, Layout};

/// Far deeper than any stack could recurse through in a naive recursive-descent parser.
const HOSTILE: usize = 20_000;

/// The one depth error, for the opening bracket at byte `pos`.
fn depth_error(pos: usize) -> String {
    format!("at {pos}: nesting deeper than {MAX_DEPTH} levels")
}

fn assert_depth_error<T: std::fmt::Debug>(result: Result<T, Error>, pos: usize, input: &str) {
    let err = result.expect_err(&input[..input.len().min(80)]);
    assert_eq!(err.kind(), ErrorKind::Parse, "{err}");
    assert_eq!(err.to_string(), depth_error(pos));
}

/// `open` repeated `n` times around `inner`, closed by `close` repeated `n` times.
fn nest(open: &str, inner: &str, close: &str, n: usize) -> String {
    format!("{}{inner}{}", open.repeat(n), close.repeat(n))
}

#[test]
fn the_limit_is_one_constant_with_one_public_path_per_parser() {
    assert_eq!(MAX_DEPTH, tessel_layout::parse::MAX_DEPTH);
    assert_eq!(MAX_DEPTH, 64);
}

#[test]
fn notation_parsers_reject_hostile_nesting() {
    for text in [
        "(".repeat(HOSTILE),
        nest("(", "8", ")", HOSTILE),
        nest("( ", "8", " )", HOSTILE),
    ] {
        // The 65th '(' is the first one too deep; "( " puts it at byte 2 * 64.
        let pos = text.match_indices('(').nth(MAX_DEPTH).unwrap().0;
        assert_depth_error(IntTuple::from_str(&text), pos, &text);
        assert_depth_error(Layout::from_str(&text), pos, &text);
        assert_depth_error(ComposedLayout::from_str(&text), pos, &text);
        assert_depth_error(expr::parse(&text), pos, &text);
        assert_depth_error(expr::eval(&text), pos, &text);
    }
}

#[test]
fn hostile_nesting_in_the_stride_or_under_a_swizzle_is_the_same_error() {
    let stride = format!("8:{}", nest("(", "1", ")", HOSTILE));
    assert_depth_error(Layout::from_str(&stride), 2 + MAX_DEPTH, &stride);
    assert_depth_error(expr::eval(&stride), 2 + MAX_DEPTH, &stride);
    let prefix = "Sw<3,3,3> o 32 o ";
    let composed = format!("{prefix}{}", nest("(", "8", ")", HOSTILE));
    let pos = prefix.len() + MAX_DEPTH;
    assert_depth_error(ComposedLayout::from_str(&composed), pos, &composed);
    assert_depth_error(expr::eval(&composed), pos, &composed);
    // The C/CUDA source parser reads the shape with the same cursor.
    assert_depth_error(
        tessel_layout::codegen::parse_source(&composed),
        pos,
        &composed,
    );
}

#[test]
fn expressions_count_calls_tuples_and_tilers_alike() {
    // Every opener is one level: a call `size(`, a tuple `(`, a by-mode tiler `[`.
    let calls = nest("size(", "8:1", ")", HOSTILE);
    assert_depth_error(expr::eval(&calls), 5 * MAX_DEPTH, &calls);
    let tilers = nest("[", "8:1", "]", HOSTILE);
    assert_depth_error(expr::eval(&tilers), MAX_DEPTH, &tilers);
    let mixed = nest("([f(", "8", ")])", HOSTILE);
    // Each 4-byte group opens three levels: '(' at 0, '[' at 1, the call (at its name) at 2.
    // Level 65 = 3 * 21 + 2 is the '[' of group 21.
    assert_eq!(MAX_DEPTH + 1, 3 * 21 + 2);
    assert_depth_error(expr::eval(&mixed), 4 * 21 + 1, &mixed);
}

#[test]
fn exactly_max_depth_is_accepted_by_every_parser() {
    let deepest = nest("(", "8", ")", MAX_DEPTH);
    let tuple = IntTuple::from_str(&deepest).unwrap();
    assert_eq!(tuple.depth(), MAX_DEPTH);
    let layout =
        Layout::from_str(&format!("{deepest}:{}", nest("(", "1", ")", MAX_DEPTH))).unwrap();
    assert_eq!(layout.depth(), MAX_DEPTH);
    assert_eq!(layout.size(), 8);
    let composed = ComposedLayout::from_str(&format!("Sw<1,0,1> o {deepest}")).unwrap();
    assert_eq!(composed.layout().depth(), MAX_DEPTH);
    let value = expr::eval(&format!("depth({})", nest("(", "8:1", ")", MAX_DEPTH - 1))).unwrap();
    assert_eq!(value.to_string(), (MAX_DEPTH - 1).to_string());
}

/// The deepest values user text can build (the deepest literal, and calls that each add a level
/// nested to the limit) go through display, comparison, flattening, congruence, evaluation and
/// drop on a thread with a small stack: the recursive walks are bounded by the parse limit.
#[test]
fn walks_over_the_deepest_values_fit_a_small_stack() {
    let deepest = nest("(", "8", ")", MAX_DEPTH);
    let products = nest("blocked_product(", "8:1", ", 1:1)", MAX_DEPTH - 1);
    let work = move || {
        let shape = IntTuple::from_str(&deepest).unwrap();
        let layout = Layout::from_str(&format!("{deepest}:{}", deepest.replace('8', "1"))).unwrap();
        assert_eq!(shape.to_string(), deepest);
        assert!(shape.congruent(layout.stride()));
        assert!(shape.weakly_congruent(layout.shape()));
        assert_eq!(shape.flatten().to_string(), "(8)");
        assert_eq!(layout.clone(), layout);
        assert_eq!(layout.offsets(), (0..8).collect::<Vec<_>>());
        let product = expr::eval(&products).unwrap();
        let depth = expr::eval(&format!("depth({products})")).unwrap();
        // Each blocked_product wraps the previous shape one level deeper.
        assert!(depth.to_string().parse::<usize>().unwrap() >= MAX_DEPTH - 1);
        assert!(product.to_string().len() > 2 * MAX_DEPTH);
        drop((shape, layout, product));
    };
    std::thread::Builder::new()
        .stack_size(1 << 20)
        .spawn(work)
        .unwrap()
        .join()
        .unwrap();
}
