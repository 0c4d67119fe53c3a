//! The examples' side of the command line's contract (docs/cli.md), shared by the facade's
//! `tests/examples_contract.rs` and the kernels' `kernels/tests/examples_contract.rs` (each
//! includes this file with `#[path]`): a failure exits with a non-zero status (never a panic),
//! prints nothing on stdout and exactly one line, starting with `error:`, on stderr.

use std::path::PathBuf;
use std::process::Command;

/// The example binary `name`, which `cargo test` builds next to the test binaries.
pub fn example(name: &str) -> PathBuf {
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
pub fn failure(name: &str, args: &[&str]) -> String {
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
    assert!(
        out.stdout.is_empty(),
        "{name} {args:?} printed before failing"
    );
    let lines: Vec<&str> = stderr.lines().collect();
    assert_eq!(lines.len(), 1, "{name} {args:?}: {stderr:?}");
    assert!(
        lines[0].starts_with("error: "),
        "{name} {args:?}: {stderr:?}"
    );
    lines[0].to_string()
}
