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
use tessel::{Error, Result};

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

/// Runs the tool on the arguments after the program name and returns the exit status:
/// 0 on success, 2 on bad input (with one `error:` line on stderr), 1 if output failed.
pub fn main(args: Vec<OsString>) -> ExitCode {
    let stdout = io::stdout();
    let mut out = Output {
        inner: stdout.lock(),
        failed: None,
    };
    let result = to_strings(args).and_then(|args| run(&args, &mut out));
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
        Err(e) => {
            report(&error_line(&e));
            ExitCode::from(2)
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
fn run(args: &[String], out: &mut dyn Write) -> Result<()> {
    if args.is_empty() {
        return Err(Error::invalid(format!(
            "no subcommand given; try 'tessel help' (subcommands: {})",
            command_names()
        )));
    }
    let argv = std::iter::once("tessel").chain(args.iter().map(String::as_str));
    match Cli::try_parse_from(argv) {
        Ok(cli) => dispatch(&cli.command, out),
        Err(e) => errors::answer(&e, out),
    }
}

/// Runs one parsed subcommand.
fn dispatch(command: &Subcommand, out: &mut dyn Write) -> Result<()> {
    match command {
        Subcommand::Eval(a) => eval::run(a, out),
        Subcommand::Show(a) => show::run(a, out),
        Subcommand::Atom(a) => atom::run(a, out),
        Subcommand::Conflicts(a) => conflicts::run(a, out),
        Subcommand::Codegen(a) => codegen::run(a, out),
        Subcommand::Swizzle(a) => swizzle::run(a, out),
        Subcommand::Synth(a) => synth::run(a, out),
        Subcommand::Gmma(a) => gmma::run(a, out),
        Subcommand::Tma(a) => tma::run(a, out),
        Subcommand::Tour(a) => tour::run(a, out),
        Subcommand::Bench(a) => bench::run(a, out),
        Subcommand::Completions(a) => completions::run(a, out),
        Subcommand::Help(a) => help::run(a, out),
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
