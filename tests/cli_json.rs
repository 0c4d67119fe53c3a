//! `--json` of every subcommand, parsed with serde_json (filled in below).
