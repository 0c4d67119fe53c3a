//! Negative option values, as docs/cli.md promises them: a word that starts with `-` and a digit
//! after an option that takes a value is that value (`--base -16`, `--box -64,64`,
//! `--size -1`), never an option of its own.
//!
//! clap reads such a word as a cluster of short flags (`-1`, `-6`, ...) and would report a token
//! that is not in the input; so before parsing, `--name WORD` becomes `--name=WORD` for those
//! words, and the option's own parser (or the subcommand) then accepts or rejects the value by
//! its real text. Nothing changes after `--`.

use clap::Command;

/// Whether `word` is written like a negative number or list of numbers (`-16`, `-64,64`).
fn looks_negative(word: &str) -> bool {
    let mut chars = word.chars();
    chars.next() == Some('-') && chars.next().is_some_and(|c| c.is_ascii_digit() || c == '.')
}

/// Whether `--name` is an option of `command` that takes a value.
fn takes_value(command: &Command, name: &str) -> bool {
    command
        .get_arguments()
        .any(|a| a.get_long() == Some(name) && a.get_action().takes_values())
}

/// The arguments (after the program name) with every negative value joined to its option.
///
/// ```text
/// ["gmma", "L", "--base", "-16"]  ->  ["gmma", "L", "--base=-16"]
/// ```
pub fn attach_negative_values(cli: &Command, args: &[String]) -> Vec<String> {
    let Some(sub) = args.first().and_then(|name| cli.find_subcommand(name)) else {
        return args.to_vec();
    };
    let mut out = Vec::with_capacity(args.len());
    out.push(args[0].clone());
    let mut rest = args[1..].iter().peekable();
    while let Some(word) = rest.next() {
        if word == "--" {
            out.push(word.clone());
            out.extend(rest.cloned());
            break;
        }
        let option = word.strip_prefix("--").filter(|name| !name.contains('='));
        match (option, rest.peek()) {
            (Some(name), Some(next)) if looks_negative(next) && takes_value(sub, name) => {
                out.push(format!("{word}={next}"));
                rest.next();
            }
            _ => out.push(word.clone()),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use clap::CommandFactory;

    use super::super::Cli;
    use super::attach_negative_values;

    fn words(text: &str) -> Vec<String> {
        text.split_whitespace().map(str::to_string).collect()
    }

    #[test]
    fn a_negative_value_is_joined_to_its_option() {
        let cli = Cli::command();
        let got = attach_negative_values(&cli, &words("gmma L --elem-bytes 2 --base -16"));
        assert_eq!(got, words("gmma L --elem-bytes 2 --base=-16"));
        let got = attach_negative_values(&cli, &words("tma --box -64,64 --elem-bytes 2"));
        assert_eq!(got, words("tma --box=-64,64 --elem-bytes 2"));
    }

    #[test]
    fn switches_options_after_the_separator_and_other_words_stay() {
        let cli = Cli::command();
        // `--json` takes no value; after `--` nothing is an option; `-h` is not a number.
        for text in [
            "eval --json -1",
            "eval -- --json -1",
            "bench --size=-1",
            "gmma -h",
            "nosuch --base -1",
        ] {
            assert_eq!(
                attach_negative_values(&cli, &words(text)),
                words(text),
                "{text}"
            );
        }
    }
}
