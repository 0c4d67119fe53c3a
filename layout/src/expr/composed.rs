//! Composed layouts in the expression language: building `INNER o OFFSET o OUTER`, the parts of
//! a composed layout, and applying an operation to the outer layout of any layout-like value.
//!
//! A plain layout, a swizzled layout (`Sw<..> o off o L`) and a composition (`A o off o L`, a
//! layout as the inner function) all take the coordinates of their outer layout `L`; CuTe's
//! `layout_composed.hpp` applies the divides, products, `tile_to_shape`, `coalesce`, `select`,
//! ... to that outer layout and keeps the rest ([`map_outer`]).
//!
//! ```
//! use tessel_layout::expr::eval;
//! // An integer between two layouts in an `o` chain is CuTe's composition(A, offset, B).
//! assert_eq!(eval("(4,2):(1,8) o 3 o (2,2):(1,2)").unwrap().to_string(), "(4,2):(1,8) o 3 o (2,2):(1,2)");
//! assert_eq!(eval("outer((4,2):(1,8) o 3 o (2,2):(1,2))").unwrap().to_string(), "(2,2):(1,2)");
//! assert_eq!(eval("inner(Sw<3,3,3> o (8,64):(64,1))").unwrap().to_string(), "Sw<3,3,3>");
//! ```

use super::functions::{Args, Function, f};
use super::value::Value;
use crate::composed::{ComposedAlgebra, ComposedLayout, Composition, Inner};
use crate::error::{Error, Result};
use crate::layout::Layout;

/// The functions that build composed layouts and take them apart.
///
/// ```
/// use tessel_layout::expr::eval;
/// assert_eq!(eval("make_composed_layout(Sw<3,3,3>, 0, (8,64):(64,1))").unwrap().to_string(), "Sw<3,3,3> o (8,64):(64,1)");
/// assert_eq!(eval("layout_b(8:3 o 1 o 4:2)").unwrap().to_string(), "4:2");
/// ```
pub const FUNCTIONS: &[Function] = &[
    f(
        "make_composed_layout",
        "(inner, offset, outer)",
        3,
        3,
        "the composed layout inner o offset o outer (inner a swizzle or a layout)",
        |a| make_composed(a.value(0)?, a.int(1)?, a.value(2)?),
    ),
    f(
        "inner",
        "(C)",
        1,
        1,
        "the inner function of a composed layout (its swizzle or layout; CuTe's layout_a)",
        |a| part(a, 0),
    ),
    f("layout_a", "(C)", 1, 1, "CuTe C++'s name for inner", |a| {
        part(a, 0)
    }),
    f(
        "offset",
        "(C)",
        1,
        1,
        "the offset of a composed layout (0 for a plain layout)",
        |a| part(a, 1),
    ),
    f(
        "outer",
        "(C)",
        1,
        1,
        "the outer layout of a composed layout, whose coordinates it takes (CuTe's layout_b)",
        |a| part(a, 2),
    ),
    f("layout_b", "(C)", 1, 1, "CuTe C++'s name for outer", |a| {
        part(a, 2)
    }),
];

fn part(a: &Args<'_>, which: usize) -> Result<Value> {
    parts(a.value(0)?, which).map_err(|e| e.context(a.function_name()))
}

/// Whether `v` can be the inner function of a composition: a layout (a shape stands for its
/// compact layout), a swizzled layout or a composition.
pub(crate) fn is_function(v: &Value) -> bool {
    matches!(
        v,
        Value::Layout(_) | Value::Tuple(_) | Value::Composed(_) | Value::Composition(_)
    )
}

/// The inner function that `v` stands for, if it is one ([`is_function`]).
fn inner_of(v: &Value) -> Option<Result<Inner>> {
    match v {
        Value::Composition(c) => Some(Ok(Inner::Composition(c.clone()))),
        other if is_function(other) => other.as_composed().map(|c| c.map(Inner::Layout)),
        _ => None,
    }
}

/// The value of an inner function: a layout, a swizzled layout or a composition.
///
/// ```
/// use tessel_layout::composed::Inner;
/// use tessel_layout::expr::composed::inner_value;
/// let v = inner_value(&Inner::Layout("8:2".parse::<tessel_layout::Layout>().unwrap().into()));
/// assert_eq!(v.to_string(), "8:2");
/// ```
pub fn inner_value(inner: &Inner) -> Value {
    match inner {
        Inner::Layout(c) => Value::from_composed(c.clone()),
        Inner::Composition(c) => Value::Composition(c.clone()),
    }
}

/// CuTe's `make_composed_layout(inner, offset, outer)` (C++ `composition(layoutA, offset,
/// layoutB)`): `inner o offset o outer` with the outer layout plain. A swizzle as the inner
/// function gives the swizzled layout `Sw o offset o outer`; a layout (plain or swizzled) or a
/// composition gives a [`Composition`].
///
/// ```
/// use tessel_layout::expr::{composed::make_composed, eval, Value};
/// let sw = eval("Sw<3,3,3>").unwrap();
/// let l = eval("(8,64):(64,1)").unwrap();
/// assert_eq!(make_composed(&sw, 0, &l).unwrap().to_string(), "Sw<3,3,3> o (8,64):(64,1)");
/// let a = eval("(4,2):(1,8)").unwrap();
/// assert_eq!(make_composed(&a, 0, &l).unwrap().to_string(), "(4,2):(1,8) o 0 o (8,64):(64,1)");
/// ```
pub fn make_composed(inner: &Value, offset: i64, outer: &Value) -> Result<Value> {
    let outer_layout = match outer {
        Value::Composed(_) | Value::Composition(_) => None,
        other => other.as_layout(),
    }
    .ok_or_else(|| {
        Error::invalid(format!(
            "the outer part of a composed layout INNER o OFFSET o OUTER must be a layout without \
             swizzle or offset, got {}",
            outer.describe()
        ))
    })??;
    if let Value::Swizzle(sw) = inner {
        return Ok(Value::Composed(ComposedLayout::new(
            vec![*sw],
            offset,
            outer_layout,
        )));
    }
    let inner = inner_of(inner).ok_or_else(|| {
        Error::invalid(format!(
            "the inner part of a composed layout INNER o OFFSET o OUTER must be a swizzle, a \
             layout or a composed layout, got {}",
            inner.describe()
        ))
    })??;
    Composition::new(inner, offset, outer_layout).map(|c| Value::Composition(Box::new(c)))
}

/// `left o c` for a composition `c` on the right: CuTe's `composition(Layout, ComposedLayout)`,
/// `(left o inner) o 0 o outer`, which needs `c`'s offset to be 0 ("Require offset == 0.");
/// `compose` composes `left` with the inner function.
pub(crate) fn compose_with_composition(
    left: &Value,
    c: &Composition,
    compose: impl FnOnce(&Value, &Value) -> Result<Value>,
) -> Result<Value> {
    if c.base_offset() != 0 {
        return Err(Error::inadmissible(format!(
            "composition {left} o ({c}) is not a composed layout: the offset {} of the right \
             operand would have to pass through {left} (CuTe requires the offset of a composed \
             right operand to be 0)",
            c.base_offset()
        )));
    }
    let inner = compose(left, &inner_value(c.inner()))?;
    make_composed(&inner, 0, &Value::Layout(c.outer().clone()))
}

/// `f` applied to the outer layout of a layout-like value, keeping its inner function and
/// offset (see the module docs): a plain layout (an integer or a shape stands for its layout)
/// is its own outer layout. `None` for a value that is not layout-like.
///
/// ```
/// use tessel_layout::expr::{composed::map_outer, eval};
/// let c = eval("Sw<1,0,1> o (2,(2,2)):(1,(2,4))").unwrap();
/// let flat = map_outer(&c, "flatten", |l| Ok(l.flatten())).unwrap().unwrap();
/// assert_eq!(flat.to_string(), "Sw<1,0,1> o (2,2,2):(1,2,4)");
/// ```
pub fn map_outer(
    v: &Value,
    what: &str,
    f: impl FnOnce(&Layout) -> Result<Layout>,
) -> Option<Result<Value>> {
    Some(match v {
        Value::Composed(c) => c.map_outer(what, f).map(Value::from_composed),
        Value::Composition(c) => c
            .map_outer(what, f)
            .map(|c| Value::Composition(Box::new(c))),
        other => match other.as_layout()? {
            Ok(l) => f(&l).map(Value::Layout),
            Err(e) => Err(e),
        },
    })
}

/// The outer layout of a layout-like value (a plain layout is its own), if it is one.
///
/// ```
/// use tessel_layout::expr::{composed::outer_layout, eval};
/// let c = eval("Sw<3,3,3> o 32 o (8,64):(64,1)").unwrap();
/// assert_eq!(outer_layout(&c).unwrap().unwrap().to_string(), "(8,64):(64,1)");
/// ```
pub fn outer_layout(v: &Value) -> Option<Result<Layout>> {
    match v {
        Value::Composition(c) => Some(Ok(c.outer().clone())),
        other => other.as_composed().map(|c| c.map(|c| c.layout().clone())),
    }
}

/// The inner function of a composed value: a composition's inner layout, a swizzled layout's
/// one swizzle (a chain of several is not one value: CuTe nests it as `Sw1 o (Sw2 o L)`, whose
/// outer part tessel's compositions do not hold).
fn inner_part(v: &Value) -> Result<Value> {
    match v {
        Value::Composition(c) => Ok(inner_value(c.inner())),
        Value::Composed(c) => match c.swizzles() {
            [one] => Ok(Value::Swizzle(*one)),
            [] => Err(Error::invalid(format!(
                "{c} has no inner function (an offset alone)"
            ))),
            chain => Err(Error::invalid(format!(
                "{c} has a chain of {} swizzles as its inner function, which is not one value",
                chain.len()
            ))),
        },
        other => Err(Error::invalid(format!(
            "{} is not a composed layout INNER o OFFSET o OUTER",
            other.describe()
        ))),
    }
}

/// The parts of a composed value, CuTe's `layout_a()`, `offset()` and `layout_b()` (the DSL's
/// `inner`, `offset`, `outer`): `part` is 0, 1 or 2.
///
/// ```
/// use tessel_layout::expr::{composed::parts, eval};
/// let c = eval("Sw<3,3,3> o 32 o (8,64):(64,1)").unwrap();
/// assert_eq!(parts(&c, 0).unwrap().to_string(), "Sw<3,3,3>");
/// assert_eq!(parts(&c, 1).unwrap().to_string(), "32");
/// assert_eq!(parts(&c, 2).unwrap().to_string(), "(8,64):(64,1)");
/// ```
pub fn parts(v: &Value, part: usize) -> Result<Value> {
    match part {
        0 => inner_part(v),
        1 => match v {
            Value::Composition(c) => Ok(Value::Int(c.base_offset())),
            other => match other.as_composed() {
                Some(c) => Ok(Value::Int(c?.base_offset())),
                None => Err(Error::invalid(format!(
                    "{} has no offset (not a layout)",
                    other.describe()
                ))),
            },
        },
        _ => outer_layout(v)
            .ok_or_else(|| {
                Error::invalid(format!(
                    "{} has no outer layout (not a layout)",
                    v.describe()
                ))
            })?
            .map(Value::Layout),
    }
}

/// Reads a composition with the expression language (it lives here so that `composed` does not
/// depend on the expression language).
impl std::str::FromStr for Composition {
    type Err = Error;

    /// Reads `INNER o OFFSET o OUTER` with the expression language.
    fn from_str(s: &str) -> Result<Composition> {
        match super::eval(s)? {
            Value::Composition(c) => Ok(*c),
            other => Err(Error::invalid(format!(
                "'{s}' is {}, not a composition INNER o OFFSET o OUTER",
                other.describe()
            ))),
        }
    }
}
