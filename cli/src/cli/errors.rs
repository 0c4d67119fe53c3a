//! clap's answers in the tool's contract: help and version text go to stdout; every parse error
//! becomes one line (the message, its listed items, and clap's suggestion), without the usage
//! block clap prints below it.

use std::io::Write;

use clap::error::ErrorKind;
use tessel_kit::{Error, Result};

use super::print;

/// Prints help or version text, or turns a parse error into the tool's error.
pub fn answer(e: &clap::Error, out: &mut dyn Write) -> Result<()> {
    match e.kind() {
        ErrorKind::DisplayHelp | ErrorKind::DisplayVersion => print(out, &e.render().to_string()),
        _ => Err(Error::invalid(fold(&e.render().to_string()))),
    }
}

/// Folds clap's rendered error text into one line.
///
/// The first paragraph is the message (an indented list below a line ending in `:` is joined
/// with commas), `tip:` lines become a parenthesised suggestion, and the usage and "for more
/// information" lines are dropped.
pub fn fold(text: &str) -> String {
    let mut message = String::new();
    let mut items: Vec<&str> = Vec::new();
    let mut tips: Vec<String> = Vec::new();
    let mut in_message = true;
    for line in text.lines() {
        let trimmed = line.trim();
        if trimmed.is_empty() {
            in_message = false;
            continue;
        }
        if let Some(tip) = trimmed.strip_prefix("tip: ") {
            tips.push(suggestion(tip));
        } else if in_message {
            if message.is_empty() {
                message = trimmed
                    .strip_prefix("error: ")
                    .unwrap_or(trimmed)
                    .to_string();
            } else {
                items.push(trimmed);
            }
        }
    }
    let mut line = message
        .strip_suffix(" found")
        .unwrap_or(&message)
        .to_string();
    if !items.is_empty() {
        line.push(' ');
        line.push_str(&items.join(", "));
    }
    if !tips.is_empty() {
        line.push_str(&format!(" ({})", tips.join("; ")));
    }
    line
}

/// clap's `tip:` text as a short suggestion.
fn suggestion(tip: &str) -> String {
    for prefix in [
        "a similar argument exists: ",
        "a similar subcommand exists: ",
        "a similar value exists: ",
        "some similar arguments exist: ",
        "some similar subcommands exist: ",
        "some similar values exist: ",
    ] {
        if let Some(names) = tip.strip_prefix(prefix) {
            return format!("did you mean {}?", names.replace(", ", " or "));
        }
    }
    tip.to_string()
}

#[cfg(test)]
mod tests {
    use super::fold;

    #[test]
    fn a_suggestion_joins_the_message() {
        let text = "error: unexpected argument '--elem-byte' found\n\n  tip: a similar argument \
                    exists: '--elem-bytes'\n\nUsage: tessel conflicts --elem-bytes <N>\n\nFor \
                    more information, try '--help'.\n";
        assert_eq!(
            fold(text),
            "unexpected argument '--elem-byte' (did you mean '--elem-bytes'?)"
        );
    }

    #[test]
    fn listed_items_are_joined_with_commas() {
        let text = "error: the following required arguments were not provided:\n  --op <OP>\n  \
                    --access <TV>\n\nUsage: tessel conflicts\n";
        assert_eq!(
            fold(text),
            "the following required arguments were not provided: --op <OP>, --access <TV>"
        );
    }
}
