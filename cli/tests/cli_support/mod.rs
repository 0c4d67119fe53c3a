//! Shared helpers of the command-line tests: run the `tessel` binary and check the docs/cli.md
//! contract (results on stdout with exit status 0; bad input exits with status 2 and prints
//! exactly one line starting with `error:` on stderr; never a panic).
#![allow(dead_code)]

use std::process::{Command, Output};

/// The subcommands, in the order `tessel help` lists them (and the README's table).
pub const SUBCOMMANDS: [&str; 13] = [
    "eval",
    "show",
    "atom",
    "conflicts",
    "codegen",
    "swizzle",
    "synth",
    "gmma",
    "tma",
    "tour",
    "bench",
    "completions",
    "help",
];

/// A `Command` for the `tessel` binary that cargo built for these tests.
pub fn command() -> Command {
    Command::new(env!("CARGO_BIN_EXE_tessel"))
}

/// Runs `tessel ARGS` and returns what it did, whatever that was.
pub fn tessel(args: &[&str]) -> Output {
    command()
        .args(args)
        .output()
        .expect("the tessel binary runs")
}

/// Runs a command that must succeed without writing to stderr; returns stdout.
pub fn success(args: &[&str]) -> String {
    let out = tessel(args);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{args:?}: {stderr}");
    assert!(stderr.is_empty(), "{args:?} wrote to stderr: {stderr}");
    String::from_utf8(out.stdout).expect("UTF-8 output")
}

/// Runs a command that must fail as bad input; returns its single `error:` line.
pub fn failure(args: &[&str]) -> String {
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
