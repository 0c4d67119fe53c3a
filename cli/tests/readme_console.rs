//! The README's examples are the tool's real output: every ```console block of README.md is run
//! against the built `tessel` and compared line by line.
//!
//! In a block, a line `$ tessel ARGS` (continued onto the next line by a trailing `\`, with a
//! trailing `# comment` stripped) is a command; the lines up to the next command are its output
//! (stdout, then stderr). A line `...` matches any run of lines, and `...` inside a line matches
//! any text. A command whose output starts with `error:` must exit with status 2, any other with
//! status 0.

mod cli_support;

/// One command of a console block and the output it should print.
#[derive(Debug)]
struct Example {
    /// Where the command is (1-based line of README.md).
    line: usize,
    /// The command line as written (after `$ `).
    command: String,
    /// The expected output lines.
    expected: Vec<String>,
}

/// The examples of every ```console block.
fn examples(readme: &str) -> Vec<Example> {
    let mut out: Vec<Example> = Vec::new();
    let mut in_block = false;
    let mut lines = readme.lines().enumerate();
    while let Some((n, line)) = lines.next() {
        let trimmed = line.trim_end();
        if !in_block {
            in_block = trimmed == "```console";
            continue;
        }
        if trimmed == "```" {
            in_block = false;
            continue;
        }
        if let Some(command) = trimmed.strip_prefix("$ ") {
            let mut command = command.to_string();
            while command.ends_with('\\') {
                command.pop();
                command.truncate(command.trim_end().len());
                let (_, next) = lines.next().expect("a continued command has a next line");
                command.push(' ');
                command.push_str(next.trim());
            }
            out.push(Example {
                line: n + 1,
                command: strip_comment(&command).trim().to_string(),
                expected: Vec::new(),
            });
        } else {
            let example = out
                .last_mut()
                .unwrap_or_else(|| panic!("README.md:{}: output before any command", n + 1));
            example.expected.push(trimmed.to_string());
        }
    }
    assert!(!in_block, "README.md ends inside a ```console block");
    out
}

/// The command without a trailing `# comment` (a `#` outside quotes after whitespace).
fn strip_comment(command: &str) -> &str {
    let (mut single, mut double) = (false, false);
    let mut previous = ' ';
    for (i, c) in command.char_indices() {
        match c {
            '\'' if !double => single = !single,
            '"' if !single => double = !double,
            '#' if !single && !double && previous.is_whitespace() => return &command[..i],
            _ => {}
        }
        previous = c;
    }
    command
}

/// Splits a command line into words like a POSIX shell (quotes and backslashes; no expansion).
fn shell_words(command: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut word: Option<String> = None;
    let mut chars = command.chars();
    while let Some(c) = chars.next() {
        match c {
            c if c.is_whitespace() => {
                if let Some(w) = word.take() {
                    words.push(w);
                }
            }
            '\'' => {
                let w = word.get_or_insert_with(String::new);
                for q in chars.by_ref() {
                    if q == '\'' {
                        break;
                    }
                    w.push(q);
                }
            }
            '"' => {
                let w = word.get_or_insert_with(String::new);
                while let Some(q) = chars.next() {
                    match q {
                        '"' => break,
                        '\\' => {
                            if let Some(e) = chars.next() {
                                if !matches!(e, '"' | '\\' | '$' | '`') {
                                    w.push('\\');
                                }
                                w.push(e);
                            }
                        }
                        q => w.push(q),
                    }
                }
            }
            '\\' => {
                let w = word.get_or_insert_with(String::new);
                if let Some(e) = chars.next() {
                    w.push(e);
                }
            }
            c => word.get_or_insert_with(String::new).push(c),
        }
    }
    words.extend(word);
    words
}

/// Whether `actual` matches the pattern line `expected` (`...` inside it matches any text).
fn line_matches(expected: &str, actual: &str) -> bool {
    let parts: Vec<&str> = expected.split("...").collect();
    if parts.len() == 1 {
        return expected == actual;
    }
    let (first, last) = (parts[0], parts[parts.len() - 1]);
    if !actual.starts_with(first) || actual.len() < first.len() + last.len() {
        return false;
    }
    let mut rest = &actual[first.len()..];
    for part in &parts[1..parts.len() - 1] {
        match rest.find(part) {
            Some(at) => rest = &rest[at + part.len()..],
            None => return false,
        }
    }
    rest.ends_with(last)
}

/// Whether `actual` matches `expected`, where a line `...` matches any run of lines.
fn lines_match(expected: &[String], actual: &[&str]) -> bool {
    match expected.split_first() {
        None => actual.is_empty(),
        Some((e, rest)) if e.trim() == "..." => {
            (0..=actual.len()).any(|skip| lines_match(rest, &actual[skip..]))
        }
        Some((e, rest)) => {
            !actual.is_empty() && line_matches(e, actual[0]) && lines_match(rest, &actual[1..])
        }
    }
}

/// Runs one example; `Err` describes the difference.
fn check(example: &Example) -> Result<(), String> {
    let words = shell_words(&example.command);
    let Some(("tessel", args)) = words.split_first().map(|(p, a)| (p.as_str(), a)) else {
        return Err(format!("not a tessel command: {}", example.command));
    };
    let out = cli_support::command()
        .args(args)
        .output()
        .map_err(|e| format!("cannot run tessel: {e}"))?;
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    let actual: Vec<&str> = text.lines().map(str::trim_end).collect();
    let wants_error = example
        .expected
        .first()
        .is_some_and(|l| l.starts_with("error:"));
    let status = out.status.code();
    let expected_status = if wants_error { 2 } else { 0 };
    if status != Some(expected_status) {
        return Err(format!(
            "exit status {status:?}, expected {expected_status}:\n{text}"
        ));
    }
    if !lines_match(&example.expected, &actual) {
        return Err(format!(
            "expected:\n{}\nactual:\n{text}",
            example.expected.join("\n")
        ));
    }
    Ok(())
}

#[test]
fn every_console_block_of_the_readme_is_the_real_output() {
    let readme = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../README.md"))
        .expect("README.md");
    let examples = examples(&readme);
    assert!(
        examples.len() >= 10,
        "only {} examples found",
        examples.len()
    );
    let failures: Vec<String> = examples
        .iter()
        .filter_map(|e| {
            check(e)
                .err()
                .map(|why| format!("README.md:{}: $ {}\n{why}", e.line, e.command))
        })
        .collect();
    assert!(failures.is_empty(), "\n{}", failures.join("\n\n"));
}

#[test]
fn the_runner_reads_commands_like_a_shell_and_matches_wildcards() {
    assert_eq!(
        shell_words(r#"tessel eval 'size((4,8))' "a\"b" c\ d"#),
        ["tessel", "eval", "size((4,8))", "a\"b", "c d"]
    );
    assert_eq!(
        strip_comment("tessel eval 'a # b'   # note"),
        "tessel eval 'a # b'   "
    );
    assert_eq!(strip_comment("tessel eval 'x#y'"), "tessel eval 'x#y'");
    assert!(line_matches("error: a ... c", "error: a b b c"));
    assert!(!line_matches("error: a ... c", "error: a b b d"));
    assert!(!line_matches("ab...ba", "aba"));
    let lines = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
    assert!(lines_match(
        &lines(&["a", "...", "d"]),
        &["a", "b", "c", "d"]
    ));
    assert!(lines_match(&lines(&["a", "  ...", "b"]), &["a", "b"]));
    assert!(!lines_match(&lines(&["a", "...", "d"]), &["a", "b", "c"]));
    assert!(!lines_match(&lines(&["a"]), &["a", "b"]));
    let found = examples("x\n```console\n$ tessel eval 1 \\\n  + 2  # sum\n3\n```\n$ not this\n");
    assert_eq!(found.len(), 1);
    assert_eq!(found[0].command, "tessel eval 1 + 2");
    assert_eq!(
        (found[0].line, found[0].expected.clone()),
        (3, vec!["3".to_string()])
    );
}

/// The long options (`--name`) in `text`, sorted, without duplicates.
fn long_options(text: &str) -> Vec<String> {
    let mut options: Vec<String> = text
        .split(|c: char| !(c.is_ascii_alphanumeric() || c == '-'))
        .filter(|w| w.starts_with("--") && w.len() > 2)
        .map(str::to_string)
        .collect();
    options.sort();
    options.dedup();
    options
}

#[test]
fn the_readme_table_of_subcommands_agrees_with_their_help() {
    let readme = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../README.md"))
        .expect("README.md");
    let rows: Vec<(&str, &str)> = readme
        .lines()
        .filter_map(|l| l.strip_prefix("| `tessel "))
        .filter_map(|rest| rest.split_once('`').map(|(synopsis, _)| synopsis))
        .map(|synopsis| synopsis.split_once(' ').unwrap_or((synopsis, "")))
        .collect();
    let names: Vec<&str> = rows.iter().map(|(name, _)| *name).collect();
    assert_eq!(names, cli_support::SUBCOMMANDS);
    for (name, synopsis) in rows {
        let out = cli_support::command()
            .args([name, "--help"])
            .output()
            .expect("tessel runs");
        let help = String::from_utf8_lossy(&out.stdout);
        // The option lines: after "Options:", up to the next unindented heading; an option's
        // own line starts with '-' once indented.
        let option_lines: String = help
            .lines()
            .skip_while(|l| *l != "Options:")
            .skip(1)
            .take_while(|l| l.is_empty() || l.starts_with(' '))
            .filter(|l| l.trim_start().starts_with('-'))
            .map(|l| {
                l.split("  ")
                    .find(|w| !w.is_empty())
                    .unwrap_or("")
                    .to_string()
                    + "\n"
            })
            .collect();
        let mut from_help = long_options(&option_lines);
        from_help.retain(|o| o != "--help");
        assert_eq!(long_options(synopsis), from_help, "tessel {name}");
    }
}
