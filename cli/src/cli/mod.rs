//! The `tessel` command line: the grammar ([`Cli`], derived with clap), dispatch, and the error
//! contract.
//!
//! A subcommand is a module with an `Args` struct (its options, `#[derive(clap::Args)]`) and a
//! `run(&Args, out)`, plus one variant of [`Subcommand`] and one arm in [`dispatch`].
//!
//! The contract: results go to stdout with exit status 0; bad input exits with status 2 and
//! prints exactly one line starting with `error:` on stderr (clap's multi-line messages are
//! folded into that line by [`errors::fold`]); a failed write to stdout exits with status 1;
//! the tool never panics.

mod argv;
mod atom;
mod bench;
mod bench_attention;
mod codegen;
mod completions;
mod conflicts;
mod errors;
mod eval;
mod gmma;
mod help;
mod json;
mod progress;
mod show;
mod svg;
mod swizzle;
mod synth;
mod tma;
mod tour;
mod tour_atoms;
mod tour_mma;
mod values;

use std::ffi::OsString;
use std::io::{self, Write};
use std::process::ExitCode;

use clap::{CommandFactory, Parser};
use tessel_kit::{Error, Result};

/// The command line of `tessel`.
#[derive(Debug, Parser)]
#[command(
    name = "tessel",
    version,
    about = "tessel - a CuTe-style layout algebra",
    disable_help_subcommand = true,
    term_width = 100,
    subcommand_required = true,
    after_help = "'tessel help SUBCOMMAND' explains one subcommand; 'tessel help functions' lists the \
functions of the expression language. Results go to stdout; bad input exits with status 2 and one \
'error:' line on stderr."
)]
pub struct Cli {
    /// The subcommand.
    #[command(subcommand)]
    pub command: Subcommand,
}

/// Every subcommand, in the order `tessel help` lists them.
#[derive(Debug, clap::Subcommand)]
pub enum Subcommand {
    Eval(eval::Args),
    Show(show::Args),
    Atom(atom::Args),
    Conflicts(conflicts::Args),
    Codegen(codegen::Args),
    Swizzle(swizzle::Args),
    Synth(synth::Args),
    Gmma(gmma::Args),
    Tma(tma::Args),
    Tour(tour::Args),
    Bench(bench::Args),
    Completions(completions::Args),
    Help(help::Args),
}

/// Why a run failed: the input (exit status 2) or the machine (exit status 1: the GPU, its
/// driver or a kernel failed on input that was fine).
#[derive(Debug)]
pub enum Failure {
    /// The input was rejected: a parse error, an option that does not apply, an inadmissible
    /// expression.
    Input(Error),
    /// The GPU run failed: a driver call, NVRTC, or a kernel whose result was wrong. Only a
    /// build with the `kernels` feature runs kernels, so only that build has this variant.
    #[cfg(feature = "kernels")]
    Gpu(String),
}

impl From<Error> for Failure {
    fn from(e: Error) -> Failure {
        Failure::Input(e)
    }
}

/// Runs the tool on the arguments after the program name and returns the exit status:
/// 0 on success, 2 on bad input (with one `error:` line on stderr), 1 if output or the GPU
/// failed (one `error:` line too).
pub fn main(args: Vec<OsString>) -> ExitCode {
    let stdout = io::stdout();
    let mut out = Output {
        inner: stdout.lock(),
        failed: None,
    };
    let result = to_strings(args)
        .map_err(Failure::from)
        .and_then(|args| run(&args, &mut out));
    let _ = out.flush();
    if let Some(e) = out.failed {
        if e.kind() == io::ErrorKind::BrokenPipe {
            return ExitCode::SUCCESS;
        }
        report(&format!("cannot write the output: {e}"));
        return ExitCode::from(1);
    }
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(Failure::Input(e)) => {
            report(&error_line(&e));
            ExitCode::from(2)
        }
        #[cfg(feature = "kernels")]
        Err(Failure::Gpu(message)) => {
            report(&format!("GPU: {message}"));
            ExitCode::from(1)
        }
    }
}

/// The text of the `error:` line of a rejected input: the message, after `at N: ` where the
/// error has a span (`N` = its first byte in the expression, the words joined with spaces).
fn error_line(e: &Error) -> String {
    match e.span() {
        Some(span) => format!("at {}: {}", span.start, e.message()),
        None => e.message().to_string(),
    }
}

/// Prints the single `error:` line (newlines in the message become spaces).
fn report(message: &str) {
    let line = message.replace(['\n', '\r'], " ");
    let _ = writeln!(io::stderr().lock(), "error: {line}");
}

/// Stdout that remembers the first write failure instead of panicking.
struct Output<W: Write> {
    inner: W,
    failed: Option<io::Error>,
}

impl<W: Write> Write for Output<W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        if self.failed.is_some() {
            return Ok(buf.len());
        }
        match self.inner.write(buf) {
            Ok(n) => Ok(n),
            Err(e) => {
                self.failed = Some(e);
                Ok(buf.len())
            }
        }
    }

    fn flush(&mut self) -> io::Result<()> {
        if self.failed.is_none()
            && let Err(e) = self.inner.flush()
        {
            self.failed = Some(e);
        }
        Ok(())
    }
}

fn to_strings(args: Vec<OsString>) -> Result<Vec<String>> {
    args.into_iter()
        .enumerate()
        .map(|(i, a)| {
            a.into_string().map_err(|bad| {
                Error::invalid(format!(
                    "argument {} ({}) is not valid UTF-8",
                    i + 1,
                    bad.to_string_lossy()
                ))
            })
        })
        .collect()
}

/// The subcommand names, comma-separated.
fn command_names() -> String {
    let cli = Cli::command();
    let names: Vec<&str> = cli.get_subcommands().map(|c| c.get_name()).collect();
    names.join(", ")
}

/// Parses the arguments (after the program name) and runs the subcommand.
fn run(args: &[String], out: &mut dyn Write) -> std::result::Result<(), Failure> {
    if args.is_empty() {
        return Err(Failure::Input(Error::invalid(format!(
            "no subcommand given; try 'tessel help' (subcommands: {})",
            command_names()
        ))));
    }
    let args = argv::attach_negative_values(&Cli::command(), args);
    let argv = std::iter::once("tessel".to_string()).chain(args);
    match Cli::try_parse_from(argv) {
        Ok(cli) => dispatch(&cli.command, out),
        Err(e) => Ok(errors::answer(&e, out)?),
    }
}

/// Runs one parsed subcommand.
fn dispatch(command: &Subcommand, out: &mut dyn Write) -> std::result::Result<(), Failure> {
    let input = |r: Result<()>| r.map_err(Failure::from);
    match command {
        Subcommand::Eval(a) => input(eval::run(a, out)),
        Subcommand::Show(a) => input(show::run(a, out)),
        Subcommand::Atom(a) => input(atom::run(a, out)),
        Subcommand::Conflicts(a) => input(conflicts::run(a, out)),
        Subcommand::Codegen(a) => input(codegen::run(a, out)),
        Subcommand::Swizzle(a) => input(swizzle::run(a, out)),
        Subcommand::Synth(a) => input(synth::run(a, out)),
        Subcommand::Gmma(a) => input(gmma::run(a, out)),
        Subcommand::Tma(a) => input(tma::run(a, out)),
        Subcommand::Tour(a) => input(tour::run(a, out)),
        Subcommand::Bench(a) => bench::run(a, out),
        Subcommand::Completions(a) => input(completions::run(a, out)),
        Subcommand::Help(a) => input(help::run(a, out)),
    }
}

/// Writes `text` to the output.
pub fn print(out: &mut dyn Write, text: &str) -> Result<()> {
    // `Output` swallows write errors and reports them once, after the command.
    let _ = out.write_all(text.as_bytes());
    Ok(())
}

/// The expression of `eval`/`show`/`codegen` (several words are joined with spaces).
pub fn expression(command: &str, words: &[String]) -> Result<String> {
    if words.is_empty() {
        return Err(Error::invalid(format!(
            "{command} needs an expression, e.g. tessel {command} '(4,8):(8,1)'"
        )));
    }
    Ok(words.join(" "))
}
