//! `tessel help [TOPIC]`: the overview, one subcommand's help, or the expression functions.

use std::io::Write;

use clap::Parser;
use tessel_kit::Result;

use super::{Cli, errors, eval, print};

/// Options of `tessel help`.
#[derive(Debug, clap::Args)]
#[command(about = "Explain a subcommand, or list the expression functions ('help functions')")]
pub struct Args {
    /// A subcommand name, or 'functions' for the functions of the expression language
    #[arg(value_name = "SUBCOMMAND|functions")]
    pub topic: Option<String>,
}

/// Prints the help asked for.
pub fn run(args: &Args, out: &mut dyn Write) -> Result<()> {
    match args.topic.as_deref() {
        Some("functions") => print(out, &eval::function_list()),
        // Asking clap for `tessel [TOPIC] --help` gives the same help as `--help`, or clap's
        // error (with its suggestion) for a name that is not a subcommand.
        topic => match Cli::try_parse_from(["tessel"].into_iter().chain(topic).chain(["--help"])) {
            Ok(_) => Ok(()),
            Err(e) => errors::answer(&e, out),
        },
    }
}
