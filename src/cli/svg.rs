//! `tessel show --svg FILE`: the picture of a layout. (Placeholder until the SVG renderer lands.)

use tessel::expr::Value;
use tessel::{Error, Result};

/// Writes the picture of `value` to `path`.
pub fn write(value: &Value, path: &str) -> Result<()> {
    let _ = value;
    Err(Error::invalid(format!(
        "--svg is not available yet (cannot write {path})"
    )))
}
