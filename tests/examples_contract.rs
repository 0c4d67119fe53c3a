//! The examples keep the command line's contract (docs/cli.md): a failure exits with a non-zero
//! status (never a panic) and prints exactly one line, starting with `error:`, on stderr. None of
//! them takes arguments, so an argument is the failure every machine can produce.

#[path = "support/example_contract.rs"]
mod contract;

use contract::failure;

/// Runs `name extra`, which must fail by the contract naming the argument.
fn refuses_an_argument(name: &str) {
    assert_eq!(
        failure(name, &["extra"]),
        "error: this example takes no arguments, got 'extra'",
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
