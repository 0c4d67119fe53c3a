//! `tessel codegen`: the docs/cli.md contract (stdout, exit status 2 with one `error:` line) and
//! the same text as the library emitter, which compiles as C99 and matches the algebra.

mod cli_support;
// The codegen tests' shared helpers live with the emitter's own tests in tessel-layout.
#[path = "../../layout/tests/codegen_support/mod.rs"]
mod codegen_support;

use cli_support::{failure, success};
use codegen_support::{Lang, compile_and_run};
use tessel_kit::codegen::{EmitOptions, index_function, parse_source};

#[test]
fn codegen_prints_the_shared_emitter_output() {
    let stdout = success(&["codegen", "Sw<3,3,3> o (8,64):(64,1)", "--name", "smem"]);
    let layout = parse_source("Sw<3,3,3> o (8,64):(64,1)").unwrap();
    assert_eq!(
        stdout,
        index_function("smem", &layout, &EmitOptions::default()).unwrap()
    );
}

#[test]
fn codegen_output_compiles_as_c99_and_matches_the_algebra() {
    let src = success(&[
        "codegen",
        "logical_divide((8,64):(64,1), [2:1, 8:1])",
        "--name=tile",
    ]);
    let harness = format!(
        "#include <stdio.h>\n{src}\nint main(void) {{\n  for (long long i = 0; i < 512; ++i) \
         printf(\"%lld\\n\", tile(i));\n  return 0;\n}}\n"
    );
    let got = compile_and_run("cli_tile", &harness, Lang::C99);
    let want = tessel_kit::expr::eval("logical_divide((8,64):(64,1), [2:1, 8:1])").unwrap();
    let tessel_kit::expr::Value::Layout(want) = want else {
        panic!("not a layout: {want}")
    };
    assert_eq!(got, want.offsets());
}

#[test]
fn codegen_options_change_width_and_functions() {
    let wide = success(&[
        "codegen",
        "(128,64):(ld,1)",
        "--name",
        "g",
        "--wide",
        "--no-crd",
    ]);
    assert!(wide.contains("TESSEL_FN long long g(long long i, long long ld) {"));
    assert!(!wide.contains("g_crd"));
    let narrow = success(&["codegen", "(4,8):(8,1)"]);
    assert!(narrow.contains("TESSEL_FN long long layout_offset(long long i) {"));
    assert!(narrow.contains("unsigned int"));
    let forced = success(&["codegen", "(4,8):(8,1)", "--wide"]);
    assert!(forced.contains("unsigned long long") && !forced.contains("unsigned int"));
}

#[test]
fn codegen_errors_exit_2_with_one_error_line() {
    for args in [
        &["codegen"][..],
        &["codegen", "composition((4,6,8):(2,3,5), 6:3)"],
        &["codegen", "(8,(2,4)):(1,64)"],
        &["codegen", "8:1", "--name", "int"],
        &["codegen", "8:1", "--name"],
        &["codegen", "(8,64):(u,1)"],
        &["codegen", "is_injective(8:1)"],
    ] {
        failure(args);
    }
    let error = failure(&["codegen", "composition((4,6,8):(2,3,5), 6:3)"]);
    assert!(error.contains("inadmissible"), "{error}");
}

#[test]
fn codegen_rejects_deep_nesting_with_an_error_not_a_stack_overflow() {
    // The single depth limit of every parser: MAX_DEPTH levels pass, one more is an error.
    use tessel_kit::expr::MAX_DEPTH;
    let deep = |n: usize, leaf: &str| format!("{}{leaf}{}", "(".repeat(n), ")".repeat(n));
    let shape_only = deep(20_000, "4");
    let stride = format!("4:{}", deep(20_000, "ld"));
    let both = format!("{}:{}", deep(20_000, "4"), deep(20_000, "1"));
    for input in [&shape_only, &stride, &both] {
        let error = failure(&["codegen", input]);
        assert!(
            error.contains(&format!("nesting deeper than {MAX_DEPTH} levels")),
            "{error}"
        );
    }
    let err = parse_source(&format!("4:{}", deep(MAX_DEPTH + 1, "ld"))).unwrap_err();
    assert_eq!(err.kind(), tessel_kit::ErrorKind::Parse);
    assert!(
        err.to_string()
            .starts_with(&format!("at {}: nesting", 2 + MAX_DEPTH)),
        "{err}"
    );
    // At the limit, the symbolic literal still parses (a rank-1 tuple nested MAX_DEPTH deep).
    let at_limit = format!("{}:{}", deep(MAX_DEPTH, "4"), deep(MAX_DEPTH, "ld"));
    assert_eq!(
        parse_source(&at_limit).unwrap().layout().symbols(),
        vec!["ld"]
    );
}

#[test]
fn codegen_rejects_a_base_offset_that_overflows_like_eval() {
    // 9223372036854775807 o 2:1 maps index 1 to 2^63: eval and codegen both refuse it.
    let eval = failure(&["eval", "9223372036854775807 o 2:1"]);
    let codegen = failure(&["codegen", "9223372036854775807 o 2:1"]);
    for error in [&eval, &codegen] {
        assert!(
            error.contains("1 + 9223372036854775807 overflows i64"),
            "{error}"
        );
    }
    let err = parse_source("9223372036854775807 o 2:1").unwrap_err();
    assert_eq!(err.kind(), tessel_kit::ErrorKind::Overflow);
    assert!(parse_source("9223372036854775806 o 2:1").is_ok());
}
