//! Subcommand dispatch, help and the error contract of the `tessel` tool.
//!
//! A subcommand is a [`Command`] row in [`COMMANDS`] plus its own module: adding one is a `mod`
//! line and a row.

mod bench;
mod codegen;
mod conflicts;
mod eval;
mod flags;
mod show;
mod svg;
mod swizzle;
mod synth;
mod tour;

use std::ffi::OsString;
use std::io::{self, Write};
use std::process::ExitCode;

use tessel::{Error, Result};

/// What a subcommand's `run` receives: its arguments (after the subcommand name) and stdout.
pub type Run = fn(&[String], &mut dyn Write) -> Result<()>;

/// One subcommand.
pub struct Command {
    /// The name typed after `tessel`.
    pub name: &'static str,
    /// The argument synopsis, e.g. `'EXPR' [--svg FILE]`.
    pub usage: &'static str,
    /// One line for the command list.
    pub summary: &'static str,
    /// Longer help printed by `tessel help NAME` / `tessel NAME --help`.
    pub help: &'static str,
    /// The implementation.
    pub run: Run,
}

/// Every subcommand, in the order `tessel help` lists them.
const COMMANDS: &[Command] = &[
    eval::COMMAND,
    show::COMMAND,
    conflicts::COMMAND,
    codegen::COMMAND,
    swizzle::COMMAND,
    synth::COMMAND,
    tour::COMMAND,
    bench::COMMAND,
];

/// Runs the tool on the arguments after the program name and returns the exit status:
/// 0 on success, 2 on bad input (with one `error:` line on stderr), 1 if output failed.
pub fn main(args: Vec<OsString>) -> ExitCode {
    let stdout = io::stdout();
    let mut out = Output {
        inner: stdout.lock(),
        failed: None,
    };
    let result = to_strings(args).and_then(|args| dispatch(&args, &mut out));
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
            report(e.message());
            ExitCode::from(2)
        }
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

fn dispatch(args: &[String], out: &mut dyn Write) -> Result<()> {
    let Some((name, rest)) = args.split_first() else {
        return Err(Error::invalid(format!(
            "no subcommand given; try 'tessel help' (subcommands: {})",
            command_names()
        )));
    };
    match name.as_str() {
        "help" | "--help" | "-h" => return help(rest, out),
        "--version" | "-V" => {
            return print(out, &format!("tessel {}\n", env!("CARGO_PKG_VERSION")));
        }
        _ => {}
    }
    let command = find(name)?;
    if rest.iter().any(|a| a == "--help" || a == "-h") {
        return print(out, &command_help(command));
    }
    (command.run)(rest, out)
}

fn find(name: &str) -> Result<&'static Command> {
    COMMANDS.iter().find(|c| c.name == name).ok_or_else(|| {
        Error::invalid(format!(
            "unknown subcommand '{name}'; the subcommands are {} (see 'tessel help')",
            command_names()
        ))
    })
}

/// The subcommand names, comma-separated.
fn command_names() -> String {
    let names: Vec<_> = COMMANDS.iter().map(|c| c.name).collect();
    names.join(", ")
}

/// Writes `text` to the output.
pub fn print(out: &mut dyn Write, text: &str) -> Result<()> {
    // `Output` swallows write errors and reports them once, after the command.
    let _ = out.write_all(text.as_bytes());
    Ok(())
}

fn command_help(c: &Command) -> String {
    format!(
        "usage: tessel {} {}\n\n{}\n",
        c.name,
        c.usage,
        c.help.trim_end()
    )
}

fn help(args: &[String], out: &mut dyn Write) -> Result<()> {
    match args.first().map(String::as_str) {
        None => print(out, &overview()),
        Some("functions") => print(out, &eval::function_list()),
        Some(name) => print(out, &command_help(find(name)?)),
    }
}

fn overview() -> String {
    let mut text = String::from(
        "tessel - a CuTe-style layout algebra\n\nusage: tessel <subcommand> [arguments]\n\n",
    );
    for c in COMMANDS {
        text.push_str(&format!("  {:<9} {}\n", c.name, c.summary));
    }
    text.push_str(
        "\n'tessel help <subcommand>' explains one subcommand;\n'tessel help functions' lists the \
         functions of the expression language.\nResults go to stdout; bad input exits with \
         status 2 and one 'error:' line on stderr.\n",
    );
    text
}

/// The single expression argument of `eval`/`show` (several words are joined with spaces).
pub fn expression(command: &str, words: &[String]) -> Result<String> {
    if words.is_empty() {
        return Err(Error::invalid(format!(
            "{command} needs an expression, e.g. tessel {command} '(4,8):(8,1)'"
        )));
    }
    if let Some(flag) = words.iter().find(|w| w.starts_with("--")) {
        return Err(Error::invalid(format!(
            "{command} does not know the option '{flag}' (see 'tessel help {command}')"
        )));
    }
    Ok(words.join(" "))
}
