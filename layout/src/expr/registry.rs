//! The registry of the expression language's functions: every table of [`Function`] rows
//! ([`TABLES`], one line per module that defines functions), looked up by name ([`lookup`]) or by
//! the nearest name for a typo's suggestion ([`nearest`]).
//!
//! ```
//! use tessel_layout::expr::registry::{lookup, nearest};
//! let f = lookup("logical_divide").unwrap();
//! assert_eq!((f.min_args, f.max_args), (2, 2));
//! assert_eq!(nearest("cosise"), Some("cosize"));
//! ```

use super::functions::{Function, edit_distance, suggestion_cutoff};

/// Every table of functions, searched in order. Add a table with one line here.
///
/// ```
/// let rows: usize = tessel_layout::expr::registry::TABLES.iter().map(|t| t.len()).sum();
/// assert_eq!(rows, tessel_layout::expr::registry::all().count());
/// ```
pub const TABLES: &[&[Function]] = &[
    super::builtins::FUNCTIONS,
    super::atoms::FUNCTIONS,
    super::composed::FUNCTIONS,
    super::typed::FUNCTIONS,
];

/// Every known function, in table order.
///
/// ```
/// assert!(tessel_layout::expr::registry::all().any(|f| f.name == "logical_divide"));
/// ```
pub fn all() -> impl Iterator<Item = &'static Function> {
    TABLES.iter().flat_map(|table| table.iter())
}

/// The function called `name`, if there is one.
///
/// ```
/// use tessel_layout::expr::registry::lookup;
/// assert!(lookup("complement").is_some());
/// assert!(lookup("complment").is_none());
/// ```
pub fn lookup(name: &str) -> Option<&'static Function> {
    all().find(|f| f.name == name)
}

/// The known function whose name is closest to `name` (edit distance), if it is a plausible
/// typo: at most [`suggestion_cutoff`] edits away. Ties go to the earlier table row.
///
/// ```
/// use tessel_layout::expr::registry::nearest;
/// assert_eq!(nearest("logical_divid"), Some("logical_divide"));
/// assert_eq!(nearest("make_layot"), Some("make_layout"));
/// assert_eq!(nearest("frobnicate"), None);
/// ```
pub fn nearest(name: &str) -> Option<&'static str> {
    all()
        .map(|f| (edit_distance(name, f.name), f.name))
        .min_by_key(|&(d, _)| d)
        .filter(|&(d, _)| d <= suggestion_cutoff(name))
        .map(|(_, n)| n)
}
