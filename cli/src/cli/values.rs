//! Option values that are expressions: evaluated to a layout, with the option named in errors.

use tessel_kit::expr::eval;
use tessel_kit::{ComposedLayout, Error, Layout, Result};

/// An error in the value of an option, named by `option` (`--smem`, `--access 'lds.32 32:1'`).
///
/// The error's span counts bytes of that value, not of the command line, so the result has no
/// span: its message names the option, then the position in the value, as in
/// `--smem: at 64: nesting deeper than 64 levels`.
pub fn in_option(option: &str, e: Error) -> Error {
    let message = match e.span() {
        Some(span) => format!("{option}: at {}: {}", span.start, e.message()),
        None => format!("{option}: {}", e.message()),
    };
    Error::new(e.kind(), message)
}

/// `text` (the value of the argument `arg`, e.g. `--smem` or `LAYOUT`) evaluated to a layout,
/// possibly swizzled.
pub fn composed(arg: &str, text: &str) -> Result<ComposedLayout> {
    eval(text)
        .map_err(|e| in_option(arg, e))?
        .as_composed()
        .ok_or_else(|| Error::invalid(format!("{arg} '{text}' is not a layout")))?
}

/// `text` (the value of the argument `arg`) evaluated to a layout without swizzle or offset.
pub fn layout(arg: &str, text: &str) -> Result<Layout> {
    eval(text)
        .map_err(|e| in_option(arg, e))?
        .as_layout()
        .ok_or_else(|| Error::invalid(format!("{arg} '{text}' is not a layout without swizzle")))?
}
