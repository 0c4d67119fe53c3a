//! The `tessel` command-line contract (DESIGN.md): results on stdout, exit status 0; bad input
//! exits with status 2 and prints exactly one line starting with `error:` on stderr; no panics.

use std::process::{Command, Output};

fn tessel(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_tessel"))
        .args(args)
        .output()
        .expect("the tessel binary runs")
}

/// Runs a command that must succeed; returns stdout.
fn success(args: &[&str]) -> String {
    let out = tessel(args);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{args:?}: {stderr}");
    assert!(stderr.is_empty(), "{args:?} wrote to stderr: {stderr}");
    String::from_utf8(out.stdout).expect("UTF-8 output")
}

/// Runs a command that must fail as bad input; returns the single error line.
fn failure(args: &[&str]) -> String {
    let out = tessel(args);
    let stderr = String::from_utf8(out.stderr).expect("UTF-8 errors");
    assert_eq!(out.status.code(), Some(2), "{args:?}: {stderr}");
    assert!(
        out.stdout.is_empty(),
        "{args:?} printed {:?}",
        String::from_utf8_lossy(&out.stdout)
    );
    assert!(!stderr.contains("panicked"), "{args:?} panicked: {stderr}");
    let lines: Vec<&str> = stderr.lines().collect();
    assert_eq!(lines.len(), 1, "{args:?}: not exactly one line: {stderr:?}");
    assert!(lines[0].starts_with("error: "), "{args:?}: {stderr:?}");
    lines[0].to_string()
}

#[test]
fn eval_prints_one_line_in_cute_notation() {
    assert_eq!(
        success(&["eval", "(4,(2,3)):(1,(8,16))"]),
        "(4,(2,3)):(1,(8,16))\n"
    );
    assert_eq!(success(&["eval", "(8):(1)"]), "(8):(1)\n");
    assert_eq!(success(&["eval", "size((4,(2,3)):(1,(8,16)))"]), "24\n");
    // DESIGN.md: Sw<3,3,3> o (8,64):(64,1) maps (1,0) to 72 and (7,63) to 455.
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
    // DESIGN.md facts.
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
    // DESIGN.md: the swizzled 8x64 tile has 72 at (1,0) and 455 at (7,63).
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
    assert!(e.contains("--svg needs a file name"), "{e}");
    let e = failure(&["show", "8:1", "--color"]);
    assert!(e.contains("does not know the option '--color'"), "{e}");
}

#[test]
fn usage_errors() {
    let e = failure(&[]);
    assert!(e.contains("no subcommand"), "{e}");
    let e = failure(&["frobnicate"]);
    assert!(e.contains("unknown subcommand 'frobnicate'"), "{e}");
    let e = failure(&["eval"]);
    assert!(e.contains("eval needs an expression"), "{e}");
    let e = failure(&["show"]);
    assert!(e.contains("show needs an expression"), "{e}");
    let e = failure(&["tour", "99"]);
    assert!(e.contains("chapter number"), "{e}");
    let e = failure(&["help", "frobnicate"]);
    assert!(e.contains("unknown subcommand"), "{e}");
}

#[cfg(unix)]
#[test]
fn non_utf8_arguments_are_an_error() {
    use std::ffi::OsStr;
    use std::os::unix::ffi::OsStrExt;
    let out = Command::new(env!("CARGO_BIN_EXE_tessel"))
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
    assert!(success(&["help", "eval"]).starts_with("usage: tessel eval"));
    assert!(success(&["eval", "--help"]).starts_with("usage: tessel eval"));
    assert!(success(&["show", "--help"]).contains("--svg FILE"));
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
    let mut child = Command::new(env!("CARGO_BIN_EXE_tessel"))
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
