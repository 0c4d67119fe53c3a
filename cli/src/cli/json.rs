//! `--json` output: one line of JSON written by serde_json (escaping included), then a newline.

use std::io::Write;

use serde::Serialize;
use tessel_kit::bank::BankReport;
use tessel_kit::{Error, Result};

use super::print;

/// Writes `value` as one line of JSON.
pub fn print_json(out: &mut dyn Write, value: &impl Serialize) -> Result<()> {
    let text = serde_json::to_string(value)
        .map_err(|e| Error::invalid(format!("cannot encode the JSON output: {e}")))?;
    print(out, &text)?;
    print(out, "\n")
}

/// A bank report: `{"wavefronts":W,"ideal":I,"excess":E}`.
#[derive(Clone, Copy, Debug, Serialize)]
pub struct Report {
    /// Wavefronts the instructions take.
    pub wavefronts: i64,
    /// Wavefronts they would take without conflicts.
    pub ideal: i64,
    /// `wavefronts - ideal`.
    pub excess: i64,
}

impl From<BankReport> for Report {
    fn from(r: BankReport) -> Report {
        Report {
            wavefronts: r.wavefronts,
            ideal: r.ideal,
            excess: r.excess,
        }
    }
}
