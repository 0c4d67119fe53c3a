//! One work budget for a whole evaluation, so that a short input cannot add up many bounded
//! enumerations into seconds of work (22 copies of one `is_injective` that enumerates 2^22
//! offsets are each allowed; together they are not).
//!
//! Inside [`scope`] every enumeration of offsets (injectivity and bijectivity checks, the
//! nullspace search, swizzle rewrites checked index by index, `cosize` of a swizzled layout)
//! [`charge`]s the number of elements it visits; past [`EVALUATION_LIMIT`] in all, the next
//! charge is an [`ErrorKind::InvalidArgument`](crate::ErrorKind) error naming the limit. Outside
//! a scope nothing is counted, so library callers keep the per-call limits only. Scopes nest:
//! an inner scope shares the outer one's budget.
//!
//! ```
//! use tessel_layout::budget::{EVALUATION_LIMIT, charge, scope};
//! // Outside a scope, charges are free.
//! assert!(charge(EVALUATION_LIMIT + 1, "a test").is_ok());
//! let err = scope(|| {
//!     charge(EVALUATION_LIMIT, "the first pass")?;
//!     charge(1, "one more element")
//! })
//! .unwrap_err();
//! assert!(err.to_string().contains("EVALUATION_LIMIT"), "{err}");
//! ```

use std::cell::Cell;

use crate::{Error, Result};

/// The most elements all enumerations of one evaluation may visit together: twice the largest
/// single enumeration (2^22), a few tenths of a second.
pub const EVALUATION_LIMIT: i64 = 1 << 23;

thread_local! {
    /// Elements left in the current scope's budget; `None` outside any scope.
    static LEFT: Cell<Option<i64>> = const { Cell::new(None) };
}

/// Runs `work` with one budget of [`EVALUATION_LIMIT`] elements for everything it enumerates (or
/// inside the enclosing scope's budget, when there is one).
///
/// ```
/// let v = tessel_layout::budget::scope(|| tessel_layout::expr::eval("is_injective(8:1)"));
/// assert_eq!(v.unwrap().to_string(), "true");
/// ```
pub fn scope<T>(work: impl FnOnce() -> Result<T>) -> Result<T> {
    if LEFT.with(Cell::get).is_some() {
        return work();
    }
    LEFT.with(|l| l.set(Some(EVALUATION_LIMIT)));
    let result = work();
    LEFT.with(|l| l.set(None));
    result
}

/// Spends `elements` of the current scope's budget on `what` (see the module docs).
///
/// ```
/// assert!(tessel_layout::budget::charge(10, "ten offsets").is_ok());
/// ```
pub fn charge(elements: i64, what: &str) -> Result<()> {
    LEFT.with(|l| match l.get() {
        None => Ok(()),
        Some(left) if elements <= left => {
            l.set(Some(left - elements));
            Ok(())
        }
        Some(_) => {
            l.set(Some(0));
            Err(Error::invalid(format!(
                "{what} would enumerate {elements} more elements, past the budget of one \
                 evaluation (EVALUATION_LIMIT = {EVALUATION_LIMIT} elements in all)"
            )))
        }
    })
}
