//! The `tessel` command-line tool: evaluate, show and tour the layout algebra.
//!
//! Contract (see docs/cli.md): results go to stdout; bad input exits with status 2 and prints one
//! line starting with `error:` on stderr; it never panics.

mod cli;

fn main() -> std::process::ExitCode {
    cli::main(std::env::args_os().skip(1).collect())
}
