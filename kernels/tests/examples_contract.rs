//! The examples keep the command line's contract (docs/cli.md): a failure exits with a non-zero
//! status (never a panic) and prints exactly one line, starting with `error:`, on stderr. Bad
//! arguments are refused before anything needs a GPU or NVRTC, so these run anywhere.

#[path = "../../tests/support/example_contract.rs"]
mod contract;

use contract::failure;

#[test]
fn dump_ptx_refuses_an_unknown_kind_and_a_bad_extent() {
    assert!(failure("dump_ptx", &["nosuch"]).contains("unknown KIND 'nosuch'"));
    assert!(failure("dump_ptx", &["copy", "f64"]).contains("f64"));
    assert!(
        failure("dump_ptx", &["copy", "f32", "12a"]).contains("M must be an integer, got '12a'")
    );
}

#[test]
fn ptx_snapshot_needs_its_folder() {
    assert!(failure("ptx_snapshot", &[]).contains("expected DIR [BASELINE]"));
    assert!(failure("ptx_snapshot", &["a", "b", "c"]).contains("got 3 arguments"));
}

#[test]
fn the_sweeps_refuse_bad_arguments_before_looking_for_a_gpu() {
    assert!(failure("gemm_sweep", &["4096", "big"]).contains("got 'big'"));
    assert!(failure("sgemm_sweep", &["--bogus", "1"]).contains("unknown option '--bogus'"));
    assert!(
        failure("sgemm_sweep", &["--repeats", "many"]).contains("--repeats: cannot read 'many'")
    );
    assert!(failure("sgemm_sweep", &["--top"]).contains("--top needs a value"));
}
