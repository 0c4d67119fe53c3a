//! Hostile input through the `tessel` binary: small commands that used to overflow the stack or
//! run for minutes now exit with status 2 and one `error:` line naming the limit.

mod cli_support;

use std::time::{Duration, Instant};

use cli_support::failure;
use tessel_kit::bank::MAX_ELEMENTS;
use tessel_kit::expr::MAX_DEPTH;

/// Each of these commands is refused before any real work; even an unoptimised build on a
/// busy machine answers in far less than this (they used to take from 20 s to minutes).
const PROMPT: Duration = Duration::from_secs(20);

/// Runs a command that must be refused, promptly, with an error containing `expected`.
fn refused(args: &[&str], expected: &str) {
    let start = Instant::now();
    let line = failure(args);
    let took = start.elapsed();
    assert!(line.contains(expected), "{}: {line}", args[0]);
    assert!(took < PROMPT, "{} took {took:?}", args[0]);
}

fn deep(n: usize) -> String {
    format!("{}8{}", "(".repeat(n), ")".repeat(n))
}

#[test]
fn twenty_thousand_parentheses_are_a_depth_error_everywhere() {
    let text = deep(20_000);
    let expected = format!("at {MAX_DEPTH}: nesting deeper than {MAX_DEPTH} levels");
    // `codegen` used to abort with a stack overflow (exit status 134).
    refused(&["codegen", &text], &expected);
    refused(&["eval", &text], &expected);
    refused(&["show", &text], &expected);
    refused(
        &[
            "conflicts",
            "--smem",
            &text,
            "--elem-bytes",
            "4",
            "--op",
            "lds.32",
            "--access",
            "32:1",
        ],
        &expected,
    );
    refused(
        &[
            "synth",
            "--tile",
            &text,
            "--elem-bytes",
            "4",
            "--access",
            "lds.32 32:1",
        ],
        &expected,
    );
}

/// A 100-byte command that once took long (20 s to 5 min and 0.5 GB before).
#[test]
fn synth_of_a_huge_tile_and_access_is_refused() {
    refused(
        &[
            "synth",
            "--tile",
            "(65536,65536):(65536,1)",
            "--elem-bytes",
            "4",
            "--access",
            "lds.32 (32,1,65536):(65536,0,1)",
        ],
        &format!("have 2097152 elements in all, more than the limit MAX_ELEMENTS = {MAX_ELEMENTS}"),
    );
}

#[test]
fn repeating_access_does_not_multiply_the_work() {
    let count = (MAX_ELEMENTS / 32 + 1) as usize;
    let mut args = vec!["synth", "--tile", "(32,32):(32,1)", "--elem-bytes", "4"];
    for _ in 0..count {
        args.extend(["--access", "lds.32 32:1"]);
    }
    refused(
        &args,
        &format!(
            "the {count} accesses' TV layouts have {} elements",
            32 * count
        ),
    );
}

#[test]
fn conflicts_of_a_huge_access_is_refused() {
    refused(
        &[
            "conflicts",
            "--smem",
            "(32,1048576):(1,32)",
            "--elem-bytes",
            "4",
            "--op",
            "lds.32",
            "--access",
            "(32,1,1048576):(1,0,32)",
        ],
        &format!("33554432 element addresses, more than the limit MAX_ELEMENTS = {MAX_ELEMENTS}"),
    );
}

#[test]
fn show_of_ten_billion_cells_is_refused() {
    refused(
        &["show", "(100000,100000)"],
        "has 100000x100000 = 10000000000 cells; a table shows at most 65536",
    );
}
