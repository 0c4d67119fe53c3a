//! Option values that are expressions: evaluated to a layout, with the option named in errors.

use tessel::expr::eval;
use tessel::{ComposedLayout, Error, Layout, Result};

/// `text` (the value of `--flag`) evaluated to a layout, possibly swizzled.
pub fn composed(flag: &str, text: &str) -> Result<ComposedLayout> {
    eval(text)
        .map_err(|e| e.context(format!("--{flag}")))?
        .as_composed()
        .ok_or_else(|| Error::invalid(format!("--{flag} '{text}' is not a layout")))?
}

/// `text` (the value of `--flag`) evaluated to a layout without swizzle or offset.
pub fn layout(flag: &str, text: &str) -> Result<Layout> {
    eval(text)
        .map_err(|e| e.context(format!("--{flag}")))?
        .as_layout()
        .ok_or_else(|| {
            Error::invalid(format!("--{flag} '{text}' is not a layout without swizzle"))
        })?
}
