//! The `tessel` command-line contract (docs/cli.md): results on stdout, exit status 0; bad input
//! exits with status 2 and prints exactly one line starting with `error:` on stderr; no panics.

mod cli_support;

use cli_support::{command, failure, success};

#[test]
fn eval_prints_one_line_in_cute_notation() {
    assert_eq!(
        success(&["eval", "(4,(2,3)):(1,(8,16))"]),
        "(4,(2,3)):(1,(8,16))\n"
    );
    assert_eq!(success(&["eval", "(8):(1)"]), "(8):(1)\n");
    assert_eq!(success(&["eval", "size((4,(2,3)):(1,(8,16)))"]), "24\n");
    // docs/semantics.md: Sw<3,3,3> o (8,64):(64,1) maps (1,0) to 72 and (7,63) to 455.
    assert_eq!(
        success(&["eval", "Sw<3,3,3> o (8,64):(64,1)"]),
        "Sw<3,3,3> o (8,64):(64,1)\n"
    );
    assert_eq!(
        success(&["eval", "at(Sw<3,3,3> o (8,64):(64,1), (1,0))"]),
        "72\n"
    );
    assert_eq!(
        success(&["eval", "at(Sw<3,3,3> o (8,64):(64,1), (7,63))"]),
        "455\n"
    );
    // Unquoted words are joined into one expression.
    assert_eq!(success(&["eval", "size(", "(4,8)", ")"]), "32\n");
    assert_eq!(success(&["eval", "-1"]), "-1\n");
}

#[test]
fn bad_expressions_give_one_error_line() {
    let e = failure(&["eval", "(4,8:(1,4)"]);
    assert!(
        e.contains("at 10: expected ',' or ')' but found the end of the input"),
        "{e}"
    );
    let e = failure(&["eval", "(4,8):(1,4,2)"]);
    assert!(e.contains("not congruent"), "{e}");
    let e = failure(&["eval", "(4611686018427387904,4):(1,1)"]);
    assert!(e.contains("overflows"), "{e}");
    let e = failure(&["eval", "99999999999999999999:1"]);
    assert!(e.contains("does not fit in i64"), "{e}");
    let e = failure(&["eval", "cosise(8:1)"]);
    assert!(
        e.contains("unknown function 'cosise'; the nearest known function is 'cosize'"),
        "{e}"
    );
    let e = failure(&["eval", "size(8:1, 2)"]);
    assert!(e.contains("takes 1 argument, got 2"), "{e}");
    let e = failure(&["eval", &"(".repeat(50_000)]);
    assert!(e.contains("nesting deeper"), "{e}");
    failure(&["eval", ""]);
    failure(&["eval", "(4,8)\n:(1,4"]);
}

#[test]
fn inadmissible_composition_is_rejected() {
    // CUTLASS issue 3177: CuTe C++ returns the wrong (2,3):(6,3).
    let e = failure(&["eval", "composition((4,6,8):(2,3,5), 6:3)"]);
    assert!(e.contains("inadmissible"), "{e}");
    assert!(e.contains("(4,6,8):(2,3,5)") && e.contains("6:3"), "{e}");
}

#[test]
fn eval_answers_algebra_functions() {
    // Reference values of docs/semantics.md.
    let cases = [
        ("(6,2):(8,2) o (4,3):(3,1)", "((2,2),3):((24,2),8)"),
        ("composition(20:2, (5,4):(4,1))", "(5,4):(8,2)"),
        ("complement(4:2, 24)", "(2,3):(1,8)"),
        ("right_inverse((2,4,6):(4,1,8))", "(4,2,6):(2,1,8)"),
        (
            "logical_divide((4,2,3):(2,1,8), 4:2)",
            "((2,2),(2,3)):((4,1),(2,8))",
        ),
        (
            "blocked_product((2,5):(5,1), (3,4):(1,3))",
            "((2,3),(5,4)):((5,10),(1,30))",
        ),
        (
            "raked_product((2,5):(5,1), (3,4):(1,3))",
            "((3,2),(4,5)):((10,5),(30,1))",
        ),
        // A bijection of 0..48 (the right_inverse example is a permutation).
        ("is_bijective((2,4,6):(4,1,8))", "true"),
        ("is_injective(4:0)", "false"),
    ];
    for (expr, expected) in cases {
        assert_eq!(success(&["eval", expr]), format!("{expected}\n"), "{expr}");
    }
}

#[test]
fn show_prints_the_offset_table() {
    // Row-major 2x3: L(r,c) = 3r + c.
    let text = success(&["show", "(2,3):(3,1)"]);
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines[0], "(2,3):(3,1)");
    assert!(lines.iter().any(|l| l.ends_with("| 0 | 1 | 2 |")), "{text}");
    assert!(lines.iter().any(|l| l.ends_with("| 3 | 4 | 5 |")), "{text}");
    // Rank 1 is a single column.
    let column = success(&["show", "4:2"]);
    for v in ["| 0 |", "| 2 |", "| 4 |", "| 6 |"] {
        assert!(column.contains(v), "{column}");
    }
    // Hierarchical modes are indexed 1-D: row r of ((2,2),2):((1,4),2) is offset r%2 + 4*(r/2).
    let nested = success(&["show", "((2,2),2):((1,4),2)"]);
    assert!(nested.contains("| 4 | 6 |"), "{nested}");
    // docs/semantics.md: the swizzled 8x64 tile has 72 at (1,0) and 455 at (7,63).
    let swizzled = success(&["show", "Sw<3,3,3> o (8,64):(64,1)"]);
    let row = |r: &str| {
        swizzled
            .lines()
            .find(|l| l.starts_with(r))
            .unwrap_or("")
            .to_string()
    };
    assert!(row("1 ").starts_with("1 |  72 |"), "{}", row("1 "));
    assert!(row("7 ").ends_with("| 455 |"), "{}", row("7 "));
}

#[test]
fn show_rejects_what_it_cannot_draw() {
    let e = failure(&["show", "(2,2,2):(1,2,4)"]);
    assert!(e.contains("rank 3"), "{e}");
    let e = failure(&["show", "(1024,1024)"]);
    assert!(e.contains("at most"), "{e}");
    let e = failure(&["show", "Sw<3,3,3>"]);
    assert!(e.contains("needs a layout"), "{e}");
    let e = failure(&["show", "8:1", "--svg"]);
    assert!(e.contains("a value is required for '--svg <FILE>'"), "{e}");
    let e = failure(&["show", "8:1", "--color"]);
    assert!(e.contains("unexpected argument '--color'"), "{e}");
}

#[test]
fn usage_errors() {
    let e = failure(&[]);
    assert!(e.contains("no subcommand"), "{e}");
    let e = failure(&["frobnicate"]);
    assert!(e.contains("unrecognized subcommand 'frobnicate'"), "{e}");
    let e = failure(&["eval"]);
    assert!(e.contains("eval needs an expression"), "{e}");
    let e = failure(&["show"]);
    assert!(e.contains("show needs an expression"), "{e}");
    let e = failure(&["tour", "99"]);
    assert!(e.contains("chapter number"), "{e}");
    let e = failure(&["help", "frobnicate"]);
    assert!(e.contains("unrecognized subcommand 'frobnicate'"), "{e}");
}

#[cfg(unix)]
#[test]
fn non_utf8_arguments_are_an_error() {
    use std::ffi::OsStr;
    use std::os::unix::ffi::OsStrExt;
    let out = command()
        .arg("eval")
        .arg(OsStr::from_bytes(b"(4,\xff)"))
        .output()
        .expect("runs");
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.starts_with("error: argument 2") && stderr.lines().count() == 1,
        "{stderr}"
    );
}

#[test]
fn help_goes_to_stdout() {
    for args in [&["help"][..], &["--help"], &["-h"]] {
        let text = success(args);
        assert!(
            text.contains("eval") && text.contains("show") && text.contains("tour"),
            "{text}"
        );
    }
    assert!(success(&["help", "eval"]).contains("\nUsage: tessel eval [OPTIONS] [EXPR]..."));
    assert!(success(&["show", "--help"]).contains("--svg <FILE>"));
    let functions = success(&["help", "functions"]);
    assert!(functions.contains("logical_divide(A, T)"), "{functions}");
}

#[test]
fn tour_runs_and_lists_chapters() {
    let list = success(&["tour", "--list"]);
    assert!(list.starts_with(" 1. Layouts and coordinates\n"), "{list}");
    let chapter = success(&["tour", "1"]);
    assert!(
        chapter.contains("$ tessel eval 'size((4,(2,3)):(1,(8,16)))'\n  24\n"),
        "{chapter}"
    );
    let tour = success(&["tour"]);
    for line in list.lines() {
        let title = line.split_once(". ").map_or(line, |(_, t)| t);
        assert!(tour.contains(title), "{title} missing");
    }
    // The rejected CUTLASS #3177 composition is shown with its error.
    assert!(tour.contains("composition((4,6,8):(2,3,5), 6:3)"));
}

#[test]
fn tour_has_no_unexpected_results() {
    let tour = success(&["tour"]);
    assert!(!tour.contains("!! unexpected"), "{tour}");
}

#[test]
fn closed_stdout_is_not_a_panic() {
    use std::io::Read;
    use std::process::Stdio;
    let mut child = command()
        .arg("tour")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("runs");
    drop(child.stdout.take());
    let mut stderr = String::new();
    if let Some(mut e) = child.stderr.take() {
        e.read_to_string(&mut stderr).expect("reads stderr");
    }
    let status = child.wait().expect("waits");
    assert!(!stderr.contains("panicked"), "{stderr}");
    assert_eq!(status.code(), Some(0), "{stderr}");
}

#[test]
fn mistyped_options_and_subcommands_get_a_suggestion_on_one_line() {
    let e = failure(&[
        "conflicts",
        "--smem",
        "8:1",
        "--elem-byte",
        "4",
        "--op",
        "lds.32",
        "--access",
        "32:1",
    ]);
    assert_eq!(
        e,
        "error: unexpected argument '--elem-byte' (did you mean '--elem-bytes'?)"
    );
    let e = failure(&["synht", "--tile", "8:1"]);
    assert!(
        e.starts_with("error: unrecognized subcommand 'synht'") && e.contains("'synth'"),
        "{e}"
    );
    let e = failure(&["help", "sizzle"]);
    assert!(e.contains("did you mean 'swizzle'?"), "{e}");
    let e = failure(&["bench", "attention", "--head-dim", "96"]);
    assert!(
        e.contains("--head-dim 96") && e.contains("64, 128 and 256"),
        "{e}"
    );
    let e = failure(&["bench", "attention", "--attn-dtype", "f32"]);
    assert!(
        e.contains("invalid value 'f32'") && e.contains("bf16"),
        "{e}"
    );
    let e = failure(&["bench", "--dtype", "f64"]);
    assert!(
        e.contains("invalid value 'f64'") && e.contains("f32"),
        "{e}"
    );
    // Missing required options are listed on the same line.
    let e = failure(&["conflicts", "--smem", "8:1"]);
    assert!(
        e.contains("--elem-bytes <N>, --op <OP>, --access <TV>"),
        "{e}"
    );
}

/// Each single-valued option given twice is an error, not "the last one wins".
#[test]
fn a_repeated_single_valued_option_is_an_error() {
    let cases: &[&[&str]] = &[
        &["show", "8:1", "--svg", "/dev/null", "--svg", "/dev/null"],
        &[
            "show",
            "8:1",
            "--svg",
            "/dev/null",
            "--elem-bytes",
            "4",
            "--elem-bytes",
            "2",
        ],
        &[
            "show",
            "8:1",
            "--svg",
            "/dev/null",
            "--tv",
            "2x4",
            "--tv",
            "4x2",
        ],
        &["eval", "8:1", "--json", "--json"],
        &["codegen", "8:1", "--name", "a", "--name", "b"],
        &["conflicts", "--smem", "8:1", "--smem", "8:1"],
        &["conflicts", "--elem-bytes", "4", "--elem-bytes", "4"],
        &["conflicts", "--op", "lds.32", "--op", "lds.32"],
        &["conflicts", "--access", "32:1", "--access", "32:1"],
        &["synth", "--tile", "8:1", "--tile", "8:1"],
        &["synth", "--elem-bytes", "4", "--elem-bytes", "4"],
        &["synth", "--layers", "1", "--layers", "1"],
        &["swizzle", "3", "3", "3", "--rows", "8", "--rows", "8"],
        &["swizzle", "3", "3", "3", "--cols", "8", "--cols", "8"],
        &["swizzle", "3", "3", "3", "--width", "80", "--width", "80"],
        &["bench", "--size", "64", "--size", "64"],
        &["bench", "--dtype", "f32", "--dtype", "f32"],
        &["bench", "--repeats", "2", "--repeats", "2"],
        &["tour", "--list", "--list"],
    ];
    for args in cases {
        let e = failure(args);
        assert!(e.contains("cannot be used multiple times"), "{args:?}: {e}");
    }
}

#[test]
fn options_take_equals_and_double_dash_ends_them_everywhere() {
    assert_eq!(
        success(&["codegen", "--name=f", "--no-crd", "4:1"])
            .matches("f(")
            .count(),
        1
    );
    assert_eq!(success(&["eval", "--", "-1"]), "-1\n");
    assert_eq!(success(&["eval", "--", "size(8:1)"]), "8\n");
    assert_eq!(
        success(&["swizzle", "--rows=1", "--cols=2", "--", "1", "0", "1"]),
        success(&["swizzle", "1", "0", "1", "--rows", "1", "--cols", "2"])
    );
    // `bench --size=N` is accepted like every other `--opt=value`; without a GPU it
    // says so and exits 0, with one it runs the 64x64 copy; a build without the `kernels`
    // feature says that instead.
    let out = success(&["bench", "copy", "--size=64", "--repeats=1", "--dtype=f32"]);
    assert!(
        out.starts_with("no GPU: ")
            || out.contains("memcpy_dtod")
            || out.starts_with("this tessel was built without the 'kernels' feature"),
        "{out}"
    );
}

#[test]
fn help_works_for_every_subcommand_including_help() {
    let overview = success(&["help"]);
    assert_eq!(overview, success(&["--help"]));
    let names: Vec<&str> = overview
        .lines()
        .skip_while(|l| *l != "Commands:")
        .skip(1)
        .take_while(|l| !l.is_empty())
        .filter_map(|l| l.split_whitespace().next())
        .collect();
    assert_eq!(names, cli_support::SUBCOMMANDS);
    for name in names {
        let help = success(&["help", name]);
        assert!(help.contains(&format!("Usage: tessel {name}")), "{help}");
        assert_eq!(help, success(&[name, "--help"]), "{name}");
    }
    assert_eq!(
        success(&["--version"]),
        format!("tessel {}\n", env!("CARGO_PKG_VERSION"))
    );
}

#[test]
fn completions_cover_every_subcommand_and_option() {
    for shell in ["bash", "zsh", "fish"] {
        let script = success(&["completions", shell]);
        for word in ["synth", "conflicts", "elem-bytes", "completions"] {
            assert!(script.contains(word), "{shell} script lacks {word}");
        }
    }
    // bash: the function clap_complete names after the program, registered with `complete`.
    let bash = success(&["completions", "bash"]);
    assert!(bash.contains("complete -F _tessel"), "{bash}");
    assert!(success(&["completions", "fish"]).contains("complete -c tessel"));
    assert!(success(&["completions", "zsh"]).starts_with("#compdef tessel"));
    let e = failure(&["completions", "tcsh"]);
    assert!(
        e.contains("invalid value 'tcsh'") && e.contains("bash"),
        "{e}"
    );
}

#[test]
fn long_work_reports_progress_as_plain_lines_on_stderr_when_not_a_terminal() {
    // A 128x128 tile (16384 elements) announces its synthesis; the result is still on stdout.
    let out = cli_support::tessel(&[
        "synth",
        "--tile",
        "(128,128):(128,1)",
        "--elem-bytes",
        "4",
        "--access",
        "lds.32 (32,1,4):(128,0,4096)",
    ]);
    assert_eq!(out.status.code(), Some(0));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.starts_with("synth: searching swizzles for (128,128):(128,1): done in ")
            && stderr.ends_with(" s\n")
            && stderr.lines().count() == 1,
        "one plain line and no spinner when stderr is a pipe: {stderr:?}"
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.starts_with("(128,128):(128,1)\n"), "{stdout}");
    // A small tile stays quiet.
    success(&[
        "synth",
        "--tile",
        "(32,32):(32,1)",
        "--elem-bytes",
        "4",
        "--access",
        "lds.32 32:1",
    ]);
}
