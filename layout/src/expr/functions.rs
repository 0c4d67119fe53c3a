//! What a function of the expression language is: [`Function`] (its name, arity and the Rust
//! function that implements it) and typed access to its arguments ([`Args`]). The tables of
//! functions are listed in [`super::registry`].
//!
//! ```
//! use tessel_layout::expr::functions::suggestion_cutoff;
//! assert_eq!(suggestion_cutoff("cosise"), 2);
//! ```

use super::value::Value;
use crate::algebra::Tiler;
use crate::composed::ComposedLayout;
use crate::error::{Error, Result};
use crate::int_tuple::IntTuple;
use crate::layout::Layout;

/// One callable function of the expression language.
///
/// ```
/// use tessel_layout::expr::registry::lookup;
/// let size = lookup("size").unwrap();
/// assert_eq!((size.min_args, size.max_args), (1, 1));
/// ```
#[derive(Clone, Copy, Debug)]
pub struct Function {
    /// The name as written in expressions (CuTe's name).
    pub name: &'static str,
    /// The parameter list for help texts, e.g. `"(A, B)"`.
    pub params: &'static str,
    /// The fewest arguments accepted.
    pub min_args: usize,
    /// The most arguments accepted.
    pub max_args: usize,
    /// One line saying what it computes.
    pub summary: &'static str,
    /// The implementation; it receives arguments whose count is within the arity.
    pub call: fn(&Args<'_>) -> Result<Value>,
}

/// Builds a row of a function table (the tables of `builtins` and `atoms`).
pub(crate) const fn f(
    name: &'static str,
    params: &'static str,
    min_args: usize,
    max_args: usize,
    summary: &'static str,
    call: fn(&Args<'_>) -> Result<Value>,
) -> Function {
    Function {
        name,
        params,
        min_args,
        max_args,
        summary,
        call,
    }
}

/// The most edits a suggestion may be away from the unknown `name`: a third of its length,
/// at least 1 (`sise` -> `size`, `make_layot` -> `make_layout`, but `xyz` suggests nothing).
///
/// ```
/// use tessel_layout::expr::functions::suggestion_cutoff;
/// assert_eq!(suggestion_cutoff("sise"), 1);
/// assert_eq!(suggestion_cutoff("make_layot"), 3);
/// ```
pub fn suggestion_cutoff(name: &str) -> usize {
    (name.chars().count() / 3).max(1)
}

/// Levenshtein distance between two strings, by characters.
pub(crate) fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut diagonal = row[0];
        row[0] = i + 1;
        for (j, &cb) in b.iter().enumerate() {
            let substitute = diagonal + usize::from(ca != cb);
            diagonal = row[j + 1];
            row[j + 1] = substitute.min(row[j] + 1).min(diagonal + 1);
        }
    }
    row[b.len()]
}

/// The evaluated arguments of one call, with conversions that report type errors naming the
/// function and the argument: "logical_divide expects a layout or tiler as argument 2, got the
/// boolean true".
///
/// ```
/// use tessel_layout::expr::{Value, functions::Args, registry::lookup};
/// let f = lookup("size").unwrap();
/// let values = [Value::Bool(true)];
/// let args = Args::new(f, &values);
/// let err = args.layout(0).unwrap_err();
/// assert_eq!(err.to_string(), "size expects a layout as argument 1, got the boolean true");
/// ```
#[derive(Clone, Copy, Debug)]
pub struct Args<'a> {
    function: &'a Function,
    values: &'a [Value],
}

impl<'a> Args<'a> {
    /// Wraps the values passed to `function`.
    ///
    /// ```
    /// use tessel_layout::expr::{Value, functions::Args, registry::lookup};
    /// let values = [Value::Int(8)];
    /// assert_eq!(Args::new(lookup("size").unwrap(), &values).len(), 1);
    /// ```
    pub fn new(function: &'a Function, values: &'a [Value]) -> Self {
        Args { function, values }
    }

    /// The number of arguments.
    ///
    /// ```
    /// use tessel_layout::expr::{functions::Args, registry::lookup};
    /// assert!(Args::new(lookup("size").unwrap(), &[]).is_empty());
    /// ```
    pub fn len(&self) -> usize {
        self.values.len()
    }

    /// Whether there are no arguments.
    ///
    /// ```
    /// use tessel_layout::expr::{functions::Args, registry::lookup};
    /// assert_eq!(Args::new(lookup("size").unwrap(), &[]).len(), 0);
    /// ```
    pub fn is_empty(&self) -> bool {
        self.values.is_empty()
    }

    /// The name of the function being called.
    ///
    /// ```
    /// use tessel_layout::expr::{functions::Args, registry::lookup};
    /// assert_eq!(Args::new(lookup("rank").unwrap(), &[]).function_name(), "rank");
    /// ```
    pub fn function_name(&self) -> &'static str {
        self.function.name
    }

    /// Argument `i` (0-based) as it is.
    ///
    /// ```
    /// use tessel_layout::expr::{Value, functions::Args, registry::lookup};
    /// let values = [Value::Int(8)];
    /// let args = Args::new(lookup("size").unwrap(), &values);
    /// assert_eq!(args.value(0).unwrap(), &Value::Int(8));
    /// assert!(args.value(1).is_err());
    /// ```
    pub fn value(&self, i: usize) -> Result<&'a Value> {
        self.values.get(i).ok_or_else(|| {
            Error::invalid(format!(
                "{} needs an argument {} that is missing",
                self.function.name,
                i + 1
            ))
        })
    }

    /// The error "F expects EXPECTED as argument i+1, got VALUE".
    ///
    /// ```
    /// use tessel_layout::expr::{Value, functions::Args, registry::lookup};
    /// let values = [Value::Int(8)];
    /// let args = Args::new(lookup("size").unwrap(), &values);
    /// assert_eq!(args.mismatch(0, "a tiler").to_string(), "size expects a tiler as argument 1, got the integer 8");
    /// ```
    pub fn mismatch(&self, i: usize, expected: &str) -> Error {
        let got = self
            .values
            .get(i)
            .map_or_else(|| "nothing".to_string(), Value::describe);
        Error::invalid(format!(
            "{} expects {expected} as argument {}, got {got}",
            self.function.name,
            i + 1
        ))
    }

    /// Argument `i` as an integer.
    ///
    /// ```
    /// use tessel_layout::expr::{Value, functions::Args, registry::lookup};
    /// let values = [Value::Int(8)];
    /// assert_eq!(Args::new(lookup("size").unwrap(), &values).int(0).unwrap(), 8);
    /// ```
    pub fn int(&self, i: usize) -> Result<i64> {
        match self.value(i)? {
            Value::Int(v) => Ok(*v),
            _ => Err(self.mismatch(i, "an integer")),
        }
    }

    /// Argument `i` as an integer or integer tuple.
    ///
    /// ```
    /// use tessel_layout::expr::{Value, functions::Args, registry::lookup};
    /// let values = [Value::Int(8)];
    /// assert_eq!(Args::new(lookup("size").unwrap(), &values).int_tuple(0).unwrap().to_string(), "8");
    /// ```
    pub fn int_tuple(&self, i: usize) -> Result<IntTuple> {
        self.value(i)?
            .as_int_tuple()
            .ok_or_else(|| self.mismatch(i, "an integer or a tuple"))
    }

    /// Argument `i` as a plain layout (an integer `n` is `n:1`, a shape its column-major layout).
    ///
    /// ```
    /// use tessel_layout::expr::{Value, functions::Args, registry::lookup};
    /// let values = [Value::Int(8)];
    /// assert_eq!(Args::new(lookup("size").unwrap(), &values).layout(0).unwrap().to_string(), "8:1");
    /// ```
    pub fn layout(&self, i: usize) -> Result<Layout> {
        match self.value(i)? {
            Value::Composed(_) => Err(self.mismatch(i, "a layout without swizzle or offset")),
            v => v.as_layout().ok_or_else(|| self.mismatch(i, "a layout"))?,
        }
    }

    /// Argument `i` as a layout that may carry swizzles and an offset.
    ///
    /// ```
    /// use tessel_layout::expr::{Value, functions::Args, registry::lookup};
    /// let values = [Value::Int(8)];
    /// let c = Args::new(lookup("size").unwrap(), &values).composed(0).unwrap();
    /// assert!(c.swizzles().is_empty());
    /// ```
    pub fn composed(&self, i: usize) -> Result<ComposedLayout> {
        self.value(i)?
            .as_composed()
            .ok_or_else(|| self.mismatch(i, "a layout"))?
    }

    /// Argument `i` as a tiler (a layout, or a by-mode tiler; a shape is a by-mode tiler).
    ///
    /// ```
    /// use tessel_layout::expr::{Value, functions::Args, registry::lookup};
    /// let values = [Value::Int(4)];
    /// assert!(Args::new(lookup("size").unwrap(), &values).tiler(0).is_ok());
    /// ```
    pub fn tiler(&self, i: usize) -> Result<Tiler> {
        self.value(i)?
            .as_tiler()
            .ok_or_else(|| self.mismatch(i, "a layout or tiler"))?
    }
}
