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
        assert_depth_error(<IntTuple>::from_str(&text), pos, &text);
        assert_depth_error(<Layout>::from_str(&text), pos, &text);
        assert_depth_error(<ComposedLayout>::from_str(&text), pos, &text);
        assert_depth_error(expr::parse(&text), pos, &text);
        assert_depth_error(expr::eval(&text), pos, &text);
    }
}

#[test]
fn hostile_nesting_in_the_stride_or_under_a_swizzle_is_the_same_error() {
    let stride = format!("8:{}", nest("(", "1", ")", HOSTILE));
    assert_depth_error(<Layout>::from_str(&stride), 2 + MAX_DEPTH, &stride);
    assert_depth_error(expr::eval(&stride), 2 + MAX_DEPTH, &stride);
    let prefix = "Sw<3,3,3> o 32 o ";
    let composed = format!("{prefix}{}", nest("(", "8", ")", HOSTILE));
    let pos = prefix.len() + MAX_DEPTH;
    assert_depth_error(<ComposedLayout>::from_str(&composed), pos, &composed);
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
    let tuple = <IntTuple>::from_str(&deepest).unwrap();
    assert_eq!(tuple.depth(), MAX_DEPTH);
    let layout =
        <Layout>::from_str(&format!("{deepest}:{}", nest("(", "1", ")", MAX_DEPTH))).unwrap();
    assert_eq!(layout.depth(), MAX_DEPTH);
    assert_eq!(layout.size(), 8);
    let composed = <ComposedLayout>::from_str(&format!("Sw<1,0,1> o {deepest}")).unwrap();
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
        let shape = <IntTuple>::from_str(&deepest).unwrap();
        let layout =
            <Layout>::from_str(&format!("{deepest}:{}", deepest.replace('8', "1"))).unwrap();
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

// ---- Work and memory bounds -------------------------------------------------------------

use tessel_layout::bank::{MAX_ELEMENTS, analyze};
use tessel_layout::render::{MAX_CELLS, Table};
use tessel_layout::synth::{Access, MAX_SEARCH_WORK, Options, synthesize, synthesize_within};
use tessel_layout::verify;

fn access(op: &str, tv: &str) -> Access {
    Access::new(op.parse().unwrap(), tv.parse().unwrap())
}

fn layout(text: &str) -> Layout {
    text.parse().unwrap()
}

/// A 100-byte request that once ran for minutes: 65536 warp instructions over a
/// 2^32-element tile. Its TV layout alone has 32 * 65536 elements.
#[test]
fn synthesis_rejects_a_request_resolving_too_many_elements() {
    let tile = layout("(65536,65536):(65536,1)");
    let read = access("lds.32", "(32,1,65536):(65536,0,1)");
    let err = synthesize(&tile, 4, &[read], Options::default()).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::InvalidArgument, "{err}");
    let elements = 32 * 65536;
    assert!(
        err.to_string().contains(&format!(
            "1 accesses' TV layouts have {elements} elements in all, more than the limit \
             MAX_ELEMENTS = {MAX_ELEMENTS}"
        )),
        "{err}"
    );
}

/// Repeating an access pattern cannot multiply the work past the limit either: the limit is on
/// the elements of all accesses together.
#[test]
fn synthesis_bounds_the_elements_of_all_accesses_together() {
    let tile = layout("(32,32):(32,1)");
    let column = access("lds.32", "32:1");
    let fits = (MAX_ELEMENTS / 32) as usize;
    let many = vec![column; fits + 1];
    let err = synthesize(&tile, 4, &many, Options::default()).unwrap_err();
    let elements = 32 * (fits + 1);
    assert!(
        err.to_string().contains(&format!(
            "{} accesses' TV layouts have {elements} elements in all",
            fits + 1
        )),
        "{err}"
    );
    // At the limit the search runs; the column read needs one swizzle whatever the count.
    let s = synthesize(&tile, 4, &many[..64], Options::default()).unwrap();
    assert_eq!(s.total().excess, 0, "{s}");
    assert_eq!(s.reports.len(), 64);
}

/// The single swizzles are scored fully, so their work is known before the search starts.
#[test]
fn synthesis_rejects_a_one_layer_search_over_the_work_limit_before_it_starts() {
    // 2048 instructions of 32 lanes down the columns of a 2^20-element tile.
    let tile = layout("(1024,1024):(1024,1)");
    let read = access("lds.32", "(32,1,2048):(1,0,32)");
    let err = synthesize(&tile, 4, &[read], Options { max_layers: 1 }).unwrap_err();
    let message = err.to_string();
    assert!(
        message.contains("the one-layer search would evaluate"),
        "{err}"
    );
    assert!(
        message.contains(&format!("x {} lane addresses", 2048 * 32)),
        "{err}"
    );
    assert!(
        message.contains(&format!("MAX_SEARCH_WORK = {MAX_SEARCH_WORK}")),
        "{err}"
    );
    // With no layers to search there is no search: only the baseline is analysed.
    let s = synthesize(
        &tile,
        4,
        &[access("lds.32", "(32,1,2048):(1,0,32)")],
        Options { max_layers: 0 },
    )
    .unwrap();
    assert_eq!(s.baseline_total().wavefronts, 2048 * 32);
}

/// The two-layer search stops as soon as its evaluations pass the limit. The problem: 128-bit
/// row writes and 32-bit column reads of a 128x128 fp32 tile (no swizzle can make both
/// conflict-free, so the pairs are evaluated to the end). The whole search fits the default
/// limit (about 0.2 s in a release build); a limit of 2^20 stops it early.
#[test]
fn synthesis_stops_a_two_layer_search_at_the_work_limit() {
    let tile = layout("(128,128):(128,1)");
    let write = access("sts.128", "((8,4),4,8):((512,1),128,4)");
    let read = access("lds.32", "(32,1,4):(1,0,128)");
    let accesses = [write, read];
    let limit = 1 << 20;
    let err = synthesize_within(&tile, 4, &accesses, Options::default(), limit).unwrap_err();
    let message = err.to_string();
    assert!(
        message.contains("the two-layer search stopped after"),
        "{err}"
    );
    assert!(
        message.contains(&format!("more than the given limit of {limit}")),
        "{err}"
    );
    // The work it reports is past the limit by at most one chain's evaluation (re-checking
    // every vector: 8 + 4 instructions of 32 lanes x 4 values).
    let work: i64 = message
        .split(" lane addresses, more than")
        .next()
        .and_then(|head| head.rsplit(' ').next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("no work count in {message}"));
    let one_chain = (8 + 4) * 32 * 4;
    assert!(work > limit && work <= limit + one_chain, "{work}");
    // The one-layer search of the same problem fits: the best single swizzle leaves 3 excess
    // wavefronts per column read (its lowest two offset bits belong to the 128-bit vector, so
    // the 32 words reach only 8 banks).
    let s = synthesize_within(&tile, 4, &accesses, Options { max_layers: 1 }, limit).unwrap();
    assert_eq!(
        (s.reports[0].excess, s.reports[1].excess),
        (0, 3 * 4),
        "{s}"
    );
}

/// The shortcut: when the tile is already conflict-free, nothing is searched and the tile
/// stays as it is.
#[test]
fn conflict_free_requests_are_answered_without_a_search() {
    // Row reads of a row-major fp32 tile: lane = column, every lane in its own bank.
    // 2 x 4096 instructions of 32 lanes: exactly MAX_ELEMENTS element addresses.
    let tile = layout("(4096,64):(64,1)");
    let rows = access("lds.32", "(32,1,(2,4096)):(4096,0,(131072,1))");
    assert_eq!(rows.tv.size(), MAX_ELEMENTS);
    let s = synthesize(&tile, 4, &[rows], Options::default()).unwrap();
    assert_eq!(s.candidates, 1, "{s}");
    assert!(s.layout.swizzles().is_empty(), "{s}");
    assert_eq!((s.total().wavefronts, s.total().excess), (8192, 0), "{s}");
}

/// Real tiles stay well inside the limits: a 128x128 fp16 GEMM tile written with 128-bit
/// stores and read whole with ldmatrix.x4 (CUTLASS's SM80 fp16 pattern).
#[test]
fn a_whole_128x128_fp16_tile_is_synthesized() {
    let tile = layout("(128,128):(128,1)");
    // sts.128: lane t writes row t/16 + 2 * (t%2)... as 16 rows x 2 chunks per instruction.
    let write = access("sts.128", "((16,2),8,64):((1024,1),128,2)");
    // ldmatrix.x4: lane l addresses row l%16 of a 16x16 block at column 8*(l/16).
    let read = access("ldsm.x4", "((16,2),8,(8,8)):((1,1024),128,(16,2048))");
    let s = synthesize(&tile, 2, &[write.clone(), read.clone()], Options::default()).unwrap();
    assert!(s.baseline_total().excess > 0, "{s}");
    for a in [&write, &read] {
        assert_eq!(
            analyze(&s.layout, 2, a.op, &a.tv).unwrap().excess,
            0,
            "{a} on {s}"
        );
    }
    assert!(verify::is_bijective(&s.layout).unwrap(), "{s}");
}

#[test]
fn bank_analysis_bounds_the_elements_of_one_access() {
    let smem = layout("(512,512):(1,512)");
    // lds.128 of 1-byte elements: 32 lanes x 16 values per instruction.
    let per_instruction = 32 * 16;
    let fits = MAX_ELEMENTS / per_instruction;
    let ok = layout(&format!("(32,16,{fits}):(16,1,512)"));
    let op = "lds.128".parse().unwrap();
    assert_eq!(analyze(&smem, 1, op, &ok).unwrap().wavefronts, 4 * fits);
    // A hostile access: 2^40 instructions, all on element 0.
    let huge = layout("(32,16,1099511627776):(0,0,0)");
    let err = analyze(&smem, 1, op, &huge).unwrap_err();
    assert!(
        err.to_string().contains(&format!(
            "1099511627776 instructions of 32 lanes x 16 values: {} element addresses, more \
             than the limit MAX_ELEMENTS = {MAX_ELEMENTS}",
            1099511627776i128 * 512
        )),
        "{err}"
    );
}

/// A tile of many size-1 modes costs no more than its coalesced form.
#[test]
fn bank_analysis_of_a_tile_with_hundreds_of_modes() {
    let ones = vec!["1"; 400].join(",");
    let zeros = vec!["0"; 400].join(",");
    let smem = layout(&format!("({ones},32,32):({zeros},32,1)"));
    let column = layout("(32,1,256):(1,0,0)");
    let r = analyze(&smem, 4, "lds.32".parse().unwrap(), &column).unwrap();
    // Every lane of the column read hits bank 0: 32 wavefronts per instruction.
    assert_eq!(r.wavefronts, 32 * 256);
}

#[test]
fn tables_are_bounded() {
    let err = Table::of_layout(&layout("(100000,100000)")).unwrap_err();
    assert!(
        err.to_string().contains(&format!(
            "10000000000 cells; a table shows at most {MAX_CELLS}"
        )),
        "{err}"
    );
    let c: ComposedLayout = "Sw<3,3,3> o (100000,100000):(100000,1)".parse().unwrap();
    assert!(Table::of_composed(&c).is_err());
    assert_eq!(Table::of_layout(&layout("(256,256)")).unwrap().rows(), 256);
}

/// A tile whose swizzles could only be verified by enumerating more than the enumeration limit
/// is refused before the search (which could only end in that verification error).
#[test]
fn synthesis_refuses_tiles_whose_swizzles_cannot_be_verified() {
    // Extents 3, 5, 7, ... are not powers of two: not GF(2)-affine; size 3*5*7*...*23 > 2^22.
    let tile = layout("(3,5,7,11,13,17,19,23):(1,3,15,105,1155,15015,255255,4849845)");
    assert!(tile.size() > verify::EXHAUSTIVE_LIMIT);
    let read = access("lds.32", "(32,1,64):(96,0,3)");
    let err = synthesize(&tile, 4, std::slice::from_ref(&read), Options::default()).unwrap_err();
    assert!(
        err.to_string().contains(&format!(
            "its size {} exceeds the enumeration limit EXHAUSTIVE_LIMIT = {}",
            tile.size(),
            verify::EXHAUSTIVE_LIMIT
        )),
        "{err}"
    );
    // Without layers there is nothing to verify: the baseline is the answer.
    let s = synthesize(&tile, 4, &[read], Options { max_layers: 0 }).unwrap();
    assert!(s.layout.swizzles().is_empty());
}

/// 22 copies of an `is_injective` that enumerates 2^22 offsets: each is allowed on its own, but
/// one evaluation shares one budget (tessel_layout::budget), so the 969-byte expression is
/// refused instead of running for seconds.
#[test]
fn many_bounded_enumerations_share_one_budget() {
    let one = "is_injective(Sw<1,0,1> o (3,1398101):(1,3))";
    assert_eq!(tessel_layout::expr::eval(one).unwrap().to_string(), "true");
    let many = format!("({})", vec![one; 22].join(","));
    assert!(many.len() < 1024);
    let err = tessel_layout::expr::eval(&many).unwrap_err();
    assert!(err.to_string().contains("EVALUATION_LIMIT"), "{err}");
}

/// Locating the failing sub-expression re-evaluates sub-expressions; it spends the same budget,
/// so 60 nested calls around an expensive argument answer at once with the real error.
#[test]
fn locating_an_error_shares_the_budget() {
    let text = format!(
        "{}is_injective(Sw<1,0,1> o (3,1398101):(1,3)){}",
        "size(".repeat(60),
        ")".repeat(60)
    );
    let err = tessel_layout::codegen::parse_source(&text).unwrap_err();
    assert!(err.to_string().contains("size expects a layout"), "{err}");
}
