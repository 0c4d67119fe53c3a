//! `tessel codegen`: the DESIGN.md contract (stdout, exit status 2 with one `error:` line) and
//! the same text as the library emitter, which compiles as C99 and matches the algebra.

mod codegen_support;

use std::process::Command;

use codegen_support::{Lang, compile_and_run};
use tessel::codegen::{EmitOptions, index_function, parse_source};

fn tessel(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_tessel"))
        .args(args)
        .output()
        .expect("run tessel");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn codegen_prints_the_shared_emitter_output() {
    let (code, stdout, stderr) =
        tessel(&["codegen", "Sw<3,3,3> o (8,64):(64,1)", "--name", "smem"]);
    assert_eq!((code, stderr.as_str()), (0, ""));
    let layout = parse_source("Sw<3,3,3> o (8,64):(64,1)").unwrap();
    assert_eq!(
        stdout,
        index_function("smem", &layout, &EmitOptions::default()).unwrap()
    );
}

#[test]
fn codegen_output_compiles_as_c99_and_matches_the_algebra() {
    let (code, src, _) = tessel(&[
        "codegen",
        "logical_divide((8,64):(64,1), [2:1, 8:1])",
        "--name=tile",
    ]);
    assert_eq!(code, 0);
    let harness = format!(
        "#include <stdio.h>\n{src}\nint main(void) {{\n  for (long long i = 0; i < 512; ++i) \
         printf(\"%lld\\n\", tile(i));\n  return 0;\n}}\n"
    );
    let got = compile_and_run("cli_tile", &harness, Lang::C99);
    let want = tessel::expr::eval("logical_divide((8,64):(64,1), [2:1, 8:1])").unwrap();
    let tessel::expr::Value::Layout(want) = want else {
        panic!("not a layout: {want}")
    };
    assert_eq!(got, want.offsets());
}

#[test]
fn codegen_options_change_width_and_functions() {
    let (_, wide, _) = tessel(&[
        "codegen",
        "(128,64):(ld,1)",
        "--name",
        "g",
        "--wide",
        "--no-crd",
    ]);
    assert!(wide.contains("TESSEL_FN long long g(long long i, long long ld) {"));
    assert!(!wide.contains("g_crd"));
    let (_, narrow, _) = tessel(&["codegen", "(4,8):(8,1)"]);
    assert!(narrow.contains("TESSEL_FN long long layout_offset(long long i) {"));
    assert!(narrow.contains("unsigned int"));
    let (_, forced, _) = tessel(&["codegen", "(4,8):(8,1)", "--wide"]);
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
        let (code, stdout, stderr) = tessel(args);
        assert_eq!(code, 2, "{args:?}");
        assert!(stdout.is_empty(), "{args:?}");
        assert_eq!(stderr.lines().count(), 1, "{args:?}: {stderr}");
        assert!(stderr.starts_with("error: "), "{args:?}: {stderr}");
    }
    let (_, _, stderr) = tessel(&["codegen", "composition((4,6,8):(2,3,5), 6:3)"]);
    assert!(stderr.contains("inadmissible"), "{stderr}");
}
