//! Option values and applicability (docs/cli.md, "Arguments"): a negative value after an option
//! is that option's value, accepted or refused by the option's own rule with the real token in
//! the error; an option that does not apply to what the command does is an error, never ignored.

mod cli_support;

use cli_support::{failure, success};

/// A 64x16 fp16 K-major wgmma operand in 128-byte swizzled rows (the example of
/// `tessel help gmma`).
const OPERAND: &str = "Sw<3,3,3> o ((8,8),16):((64,512),1)";

#[test]
fn a_negative_value_is_the_options_value_and_its_error_names_it() {
    let e = failure(&["gmma", OPERAND, "--elem-bytes", "2", "--base", "-16"]);
    assert_eq!(
        e,
        "error: --base takes a shared-memory byte address (at least 0), got -16"
    );
    let e = failure(&["tma", "--box", "-64,64", "--elem-bytes", "2"]);
    assert_eq!(
        e,
        "error: --box takes positive integers separated by commas, got '-64,64'"
    );
    let e = failure(&["bench", "--size", "-1"]);
    assert!(e.contains("invalid value '-1' for '--size <N|RxC>'"), "{e}");
    let e = failure(&["bench", "--repeats", "-1"]);
    assert!(e.contains("invalid value '-1' for '--repeats <K>'"), "{e}");
    let e = failure(&["swizzle", "3", "3", "3", "--rows", "-2"]);
    assert!(e.contains("got -2"), "{e}");
    // The same value written with '=' gives the same answer.
    assert_eq!(
        failure(&["tma", "--box=-64,64", "--elem-bytes", "2"]),
        failure(&["tma", "--box", "-64,64", "--elem-bytes", "2"])
    );
    // A subcommand that takes a number takes a negative one, and says why it is out of range.
    let e = failure(&["tour", "-1"]);
    assert!(e.contains("invalid value '-1' for '[CHAPTER]'"), "{e}");
}

#[test]
fn a_negative_value_that_is_valid_is_accepted() {
    // Sw<2,0,-3> is a swizzle (a negative shift moves bits left); `eval` takes -1 as an index.
    assert!(success(&["swizzle", "2", "0", "-3"]).starts_with("Sw<2,0,-3>"));
    assert_eq!(success(&["eval", "-1"]), "-1\n");
}

#[test]
fn gmma_options_belong_to_one_mode() {
    // --tile tiles an --atom; next to LAYOUT it would be ignored.
    let e = failure(&["gmma", OPERAND, "--elem-bytes", "2", "--tile", "64,64"]);
    assert!(
        e.contains("'[LAYOUT]' cannot be used with '--tile <MN,K>'"),
        "{e}"
    );
    // --base places a LAYOUT in shared memory; an atom has no address.
    let e = failure(&[
        "gmma",
        "--atom",
        "128B",
        "--elem-bytes",
        "2",
        "--base",
        "1024",
    ]);
    assert!(
        e.contains("'--atom <MODE>' cannot be used with '--base <BYTES>'"),
        "{e}"
    );
    // Each alone is fine.
    success(&[
        "gmma",
        "--atom",
        "128B",
        "--elem-bytes",
        "2",
        "--tile",
        "64,64",
    ]);
    success(&["gmma", OPERAND, "--elem-bytes", "2", "--base", "1024"]);
}

#[test]
fn options_that_need_another_are_refused_without_it() {
    let e = failure(&["tma", "--box", "64,8", "--elem-bytes", "2", "--major", "MN"]);
    assert!(e.contains("--expect <LAYOUT>"), "{e}");
    let e = failure(&["show", "8:1", "--elem-bytes", "2"]);
    assert!(e.contains("--svg <FILE>"), "{e}");
    let e = failure(&["swizzle", "3", "3", "3", "--width", "50", "--json"]);
    assert!(
        e.contains("'--width <W>' cannot be used with '--json'"),
        "{e}"
    );
}

#[test]
fn bench_refuses_every_option_its_suite_does_not_use() {
    // Checked before a GPU is looked for: the same answer on every machine.
    for (args, option, suite) in [
        (&["bench", "copy", "--m", "64"][..], "--m", "copy"),
        (&["bench", "all", "--n", "64"], "--n", "all"),
        (&["bench", "gemm", "--k", "64"], "--k", "gemm"),
        (&["bench", "mma", "--dtype", "f32"], "--dtype", "mma"),
        (&["bench", "sgemm", "--dtype", "f16"], "--dtype", "sgemm"),
        (
            &["bench", "conflicts", "--size", "64"],
            "--size",
            "conflicts",
        ),
        (&["bench", "gemm", "--profile"], "--profile", "gemm"),
        (&["bench", "gemm", "--arch", "sm_80"], "--arch", "gemm"),
    ] {
        let e = failure(args);
        assert_eq!(
            e,
            format!("error: {option} does not apply to 'bench {suite}' (see 'tessel help bench')"),
            "{args:?}"
        );
    }
    // --arch takes the library's targets only.
    let e = failure(&["bench", "gemm", "--shapes", "64x64x64", "--arch", "sm_75"]);
    assert!(e.contains("sm_75") && e.contains("sm_89"), "{e}");
    let e = failure(&["bench", "--profile", "--repeats", "3"]);
    assert!(e.contains("--repeats does not apply with --profile"), "{e}");
    let e = failure(&["bench", "mma", "--size", "4x8"]);
    assert!(
        e.contains("takes N, the number of problems, not RxC"),
        "{e}"
    );
    let e = failure(&["bench", "sgemm", "--size", "64", "--m", "64"]);
    assert!(e.contains("not from both"), "{e}");
}

#[test]
fn bench_accepts_the_options_of_its_suite() {
    // Without a GPU (or without the kernels) bench says so and exits 0; on a GPU these small
    // runs verify and time their kernels.
    for args in [
        &["bench", "transpose", "--dtype", "f16", "--size", "64x32"][..],
        &["bench", "sgemm", "--m", "64", "--n", "32"],
        &[
            "bench",
            "gemm",
            "--shapes",
            "64x64x64,128x256x64",
            "--orders",
            "rc,cr",
            "--types",
            "bf16-bf16",
        ],
        &[
            "bench",
            "gemm",
            "--shapes",
            "100x200x72",
            "--types",
            "e4m3-bf16,f16-f32",
            "--arch",
            "sm_89",
        ],
        &[
            "bench",
            "attention",
            "--seqlen",
            "128",
            "--head-dim",
            "64",
            "--causal",
            "both",
        ],
        &["bench", "mma", "--size", "64", "--profile"],
    ] {
        let out = cli_support::tessel(args);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(0), "{args:?}: {stderr}");
    }
}
