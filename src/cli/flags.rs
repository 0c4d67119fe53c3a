//! `--name VALUE` / `--name=VALUE` / `--switch` options of the subcommands that take them.

use tessel::{Error, Result};

/// Parsed arguments: positional words and the options that were given.
pub struct Flags {
    command: &'static str,
    positional: Vec<String>,
    values: Vec<(String, String)>,
    switches: Vec<String>,
}

impl Flags {
    /// Splits `args` into positional words, options with a value (`valued`) and switches.
    pub fn parse(
        command: &'static str,
        args: &[String],
        valued: &[&str],
        switches: &[&str],
    ) -> Result<Flags> {
        Flags::parse_repeating(command, args, valued, &[], switches)
    }

    /// Like [`Flags::parse`], where the options in `repeatable` (also listed in `valued`) may
    /// be given several times.
    pub fn parse_repeating(
        command: &'static str,
        args: &[String],
        valued: &[&str],
        repeatable: &[&str],
        switches: &[&str],
    ) -> Result<Flags> {
        let mut flags = Flags {
            command,
            positional: Vec::new(),
            values: Vec::new(),
            switches: Vec::new(),
        };
        let mut it = args.iter();
        while let Some(arg) = it.next() {
            let Some(option) = arg.strip_prefix("--") else {
                flags.positional.push(arg.clone());
                continue;
            };
            let (name, inline) = match option.split_once('=') {
                Some((n, v)) => (n, Some(v.to_string())),
                None => (option, None),
            };
            if valued.contains(&name) {
                let value = match inline {
                    Some(v) => v,
                    None => it.next().cloned().ok_or_else(|| {
                        Error::invalid(format!("{command}: --{name} needs a value"))
                    })?,
                };
                if !repeatable.contains(&name) && flags.values.iter().any(|(n, _)| n == name) {
                    return Err(Error::invalid(format!(
                        "{command}: --{name} is given twice"
                    )));
                }
                flags.values.push((name.to_string(), value));
            } else if switches.contains(&name) && inline.is_none() {
                flags.switches.push(name.to_string());
            } else {
                return Err(Error::invalid(format!(
                    "{command} does not know the option '{arg}' (see 'tessel help {command}')"
                )));
            }
        }
        Ok(flags)
    }

    /// The positional words.
    pub fn positional(&self) -> &[String] {
        &self.positional
    }

    /// The value of `--name`, if given.
    pub fn value(&self, name: &str) -> Option<&str> {
        self.values
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }

    /// Every value of a repeatable `--name`, in order.
    pub fn values(&self, name: &str) -> Vec<&str> {
        self.values
            .iter()
            .filter(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
            .collect()
    }

    /// The value of `--name`, which must be given.
    pub fn required(&self, name: &str) -> Result<&str> {
        self.value(name).ok_or_else(|| {
            Error::invalid(format!(
                "{} needs --{name} (see 'tessel help {}')",
                self.command, self.command
            ))
        })
    }

    /// `--name` as an integer, if given.
    pub fn int(&self, name: &str) -> Result<Option<i64>> {
        self.value(name)
            .map(|v| {
                v.trim().parse::<i64>().map_err(|_| {
                    Error::invalid(format!(
                        "{}: --{name} takes an integer, got '{v}'",
                        self.command
                    ))
                })
            })
            .transpose()
    }

    /// Whether the switch `--name` was given.
    pub fn switch(&self, name: &str) -> bool {
        self.switches.iter().any(|s| s == name)
    }
}
