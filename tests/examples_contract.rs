//! The examples keep the command line's contract (docs/cli.md): a failure exits with a non-zero
//! status (never a panic) and prints exactly one line, starting with `error:`, on stderr. None of
//! them takes arguments, so an argument is the failure every machine can produce.

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

/// Runs `name extra`, which must fail by the contract naming the argument.
fn refuses_an_argument(name: &str) {
    let out = Command::new(example(name))
        .arg("extra")
        .output()
        .expect("the example runs");
    let stderr = String::from_utf8_lossy(&out.stderr);
    let code = out.status.code();
    assert!(
        code.is_some_and(|c| c != 0 && c != 101),
        "{name}: status {code:?} (a panic is 101): {stderr}"
    );
    assert!(out.stdout.is_empty(), "{name} printed before failing");
    assert_eq!(
        stderr, "error: this example takes no arguments, got 'extra'\n",
        "{name}"
    );
}

#[test]
fn the_algebra_examples_fail_with_one_error_line() {
    refuses_an_argument("smem_tile");
    refuses_an_argument("kernel_source");
}

#[cfg(feature = "kernels")]
#[test]
fn the_kernel_examples_fail_with_one_error_line() {
    refuses_an_argument("custom_kernel");
    refuses_an_argument("tiled_gemm");
    refuses_an_argument("swizzle_problem3");
}
