//! The examples keep the command line's contract (docs/cli.md): a failure exits with a non-zero
//! status (never a panic) and prints exactly one line, starting with `error:`, on stderr. Bad
//! arguments are refused before anything needs a GPU or NVRTC, so these run anywhere.

use std::path::PathBuf;
use std::process::Command;

/// The example binary `name`, which `cargo test` builds next to the test binaries.
fn example(name: &str) -> PathBuf {
    let exe = std::env::current_exe().expect("the test binary's path");
    let dir = exe
        .parent()
        .and_then(|deps| deps.parent())
        .expect("target/<profile>/deps")
        .join("examples");
    let path = dir.join(format!("{name}{}", std::env::consts::EXE_SUFFIX));
    assert!(
        path.is_file(),
        "{} is not built: `cargo test` builds the examples (or `cargo build --examples`)",
        path.display()
    );
    path
}

/// Runs `name ARGS`, which must fail by the contract; returns its `error:` line.
fn failure(name: &str, args: &[&str]) -> String {
    let out = Command::new(example(name))
        .args(args)
        .output()
        .expect("the example runs");
    let stderr = String::from_utf8_lossy(&out.stderr);
    let code = out.status.code();
    assert!(
        code.is_some_and(|c| c != 0 && c != 101),
        "{name} {args:?}: status {code:?} (a panic is 101): {stderr}"
    );
    assert!(!stderr.contains("panicked"), "{name} {args:?}: {stderr}");
    let lines: Vec<&str> = stderr.lines().collect();
    assert_eq!(lines.len(), 1, "{name} {args:?}: {stderr:?}");
    assert!(
        lines[0].starts_with("error: "),
        "{name} {args:?}: {stderr:?}"
    );
    lines[0].to_string()
}

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
