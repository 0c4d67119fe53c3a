//! Evaluation of an [`Expr`] tree to a [`Value`].
//!
//! Recursion follows the tree, whose depth the parser caps, so evaluation cannot exhaust the stack.
//!
//! ```
//! use tessel_layout::expr::{eval_expr, parse};
//! // docs/semantics.md: (4,6,8,10):(2,3,5,7) o 6:12 = (2,3):(9,5).
//! let e = parse("(4,6,8,10):(2,3,5,7) o 6:12").unwrap();
//! assert_eq!(eval_expr(&e).unwrap().to_string(), "(2,3):(9,5)");
//! ```

use super::ast::{Expr, ExprKind};
use super::compose::compose_chain;
use super::functions::{Args, Function};
use super::registry::{lookup, nearest};
use super::value::Value;
use crate::algebra::Tiler;
use crate::error::{Error, Result, Span};
use crate::layout::Layout;
use crate::swizzle::Swizzle;

/// Evaluates a parsed expression.
///
/// ```
/// use tessel_layout::expr::{eval_expr, parse};
/// let e = parse("rank((4,(2,3)):(1,(8,16)))").unwrap();
/// assert_eq!(eval_expr(&e).unwrap().to_string(), "2");
/// ```
pub fn eval_expr(expr: &Expr) -> Result<Value> {
    // All enumerations of one evaluation share one work budget (crate::budget).
    let value = crate::budget::scope(|| eval_node(expr))?;
    if let Value::Composed(c) = &value {
        // Like a plain layout's, a swizzled layout's offsets must fit in i64.
        c.check_offsets().map_err(|e| e.at(expr.span))?;
    }
    Ok(value)
}

fn eval_node(expr: &Expr) -> Result<Value> {
    let at = |e: Error| e.at(expr.span);
    match &expr.kind {
        ExprKind::Int(v) => Ok(Value::Int(*v)),
        ExprKind::Tuple(items) => {
            let values = eval_all(items)?;
            tuple_value(values).map_err(at)
        }
        ExprKind::Layout { shape, stride } => layout_value(shape, stride).map_err(at),
        ExprKind::Tiler(modes) => {
            let mut values = Vec::with_capacity(modes.len());
            for mode in modes {
                values.push(match mode {
                    None => None,
                    Some(e) => Some((eval_expr(e)?, e.span)),
                });
            }
            if values.iter().flatten().any(|(v, _)| v.is_typed()) {
                return super::typed::tiler_value(&values).map_err(at);
            }
            let mut tilers = Vec::with_capacity(modes.len());
            for mode in values {
                tilers.push(match mode {
                    None => None,
                    Some((value, span)) => Some(tiler_mode(value, span)?),
                });
            }
            Ok(Value::Tiler(Tiler::ByMode(tilers)))
        }
        ExprKind::Swizzle { bits, base, shift } => Swizzle::new(*bits, *base, *shift)
            .map(Value::Swizzle)
            .map_err(at),
        ExprKind::Compose(chain) => {
            let values = eval_all(chain)?;
            if values.is_empty() {
                return Err(at(Error::invalid("an empty 'o' chain")));
            }
            compose_chain(values)
        }
        ExprKind::Call { name, args } => call(name, args, expr.span),
        ExprKind::Name(name) => super::atoms::atom_value(name).map_err(at),
        ExprKind::Underscore => Ok(Value::Slice(crate::SliceCoord::All)),
        ExprKind::Static(v) => Ok(Value::TypedTuple(crate::IntTuple::Int(
            crate::basis::ScaledBasis::from(crate::static_int::Integer::Static(*v)),
        ))),
        ExprKind::Basis(b) => Ok(Value::TypedTuple(crate::IntTuple::Int(b.clone()))),
    }
}

/// The layout `shape:stride` of a layout literal. Kept out of [`eval_node`] (which recursion
/// re-enters for every nested call) so that its temporaries do not enlarge every level's frame.
#[inline(never)]
fn layout_value(shape: &Expr, stride: &Expr) -> Result<Value> {
    let shape_value = eval_expr(shape)?;
    let stride_value = eval_expr(stride)?;
    let part = |v: &Value, what: &str| {
        v.as_int_tuple().ok_or_else(|| {
            Error::invalid(format!(
                "the {what} of a layout must be an integer or a tuple, got {}",
                v.describe()
            ))
        })
    };
    if shape_value.is_typed() || stride_value.is_typed() {
        return super::typed::layout_value(&shape_value, &stride_value);
    }
    let shape = part(&shape_value, "shape")?;
    let stride = part(&stride_value, "stride")?;
    Layout::new(shape, stride).map(Value::Layout)
}

/// The values of `exprs`, in order. A plain loop: the recursion of nested calls passes through
/// here, and an iterator chain would add a dozen frames per level in debug builds.
fn eval_all(exprs: &[Expr]) -> Result<Vec<Value>> {
    let mut values = Vec::with_capacity(exprs.len());
    for e in exprs {
        values.push(eval_expr(e)?);
    }
    Ok(values)
}

fn tiler_mode(value: Value, span: Span) -> Result<Tiler> {
    value.as_tiler().ok_or_else(|| {
        Error::invalid(format!(
            "a tiler mode must be a layout, a shape, a tiler or '_', got {}",
            value.describe()
        ))
        .at(span)
    })?
}

/// Calls a function; errors about the call itself (name, arity) carry the call's span, errors of
/// the function name their operands themselves.
fn call(name: &str, args: &[Expr], span: Span) -> Result<Value> {
    let Some(function) = lookup(name) else {
        let hint = nearest(name)
            .map(|n| format!("; the nearest known function is '{n}'"))
            .unwrap_or_default();
        return Err(Error::invalid(format!("unknown function '{name}'{hint}")).at(span));
    };
    let count = args.len();
    if count < function.min_args || count > function.max_args {
        let wanted = if function.min_args == function.max_args {
            format!("{}", function.min_args)
        } else {
            format!("{} to {}", function.min_args, function.max_args)
        };
        let plural = if function.max_args == 1 { "" } else { "s" };
        return Err(Error::invalid(format!(
            "{}{} takes {wanted} argument{plural}, got {count}",
            function.name, function.params
        ))
        .at(span));
    }
    let values = eval_all(args)?;
    let result = if values.iter().any(Value::is_typed) {
        super::typed::apply(function, &values)
    } else {
        apply(function, &values)
    };
    if super::atoms::FUNCTIONS
        .iter()
        .any(|f| f.name == function.name)
    {
        // A tiled copy or MMA that cannot be built is the call's fault: point at the call.
        return result.map_err(|e| e.at(span));
    }
    result
}

/// `function` applied to evaluated arguments; not inlined into [`call`], which recursion
/// re-enters for every nested call.
#[inline(never)]
fn apply(function: &'static Function, values: &[Value]) -> Result<Value> {
    (function.call)(&Args::new(function, values))
}

/// A tuple literal's value: a tuple of integer tuples, or (when some element is a layout) the
/// layout whose modes are the elements (shapes and integers become layouts); a rank-1 tuple of
/// a swizzled layout is that swizzled layout with its inner layout as the one mode.
fn tuple_value(values: Vec<Value>) -> Result<Value> {
    if let Some(slice) = Value::slice_tuple(&values) {
        return Ok(slice);
    }
    if values.iter().any(Value::is_typed) {
        return super::typed::tuple_value(&values);
    }
    let ints: Option<Vec<_>> = values.iter().map(Value::as_int_tuple).collect();
    if let Some(items) = ints {
        return Ok(Value::Tuple(crate::IntTuple::Tuple(items.into())));
    }
    if let [Value::Composed(c)] = values.as_slice() {
        // `(Sw o L)` groups, as in CuTe's `A o (Sw o L)`: a swizzle acts on the whole offset and
        // cannot sit inside a mode, so a rank-1 wrapper would only add a level of nesting.
        return Ok(Value::Composed(c.clone()));
    }
    if let [Value::Composition(c)] = values.as_slice() {
        // `(A o n o L)` groups the same way (the printed form of a nested composition).
        return Ok(Value::Composition(c.clone()));
    }
    let modes = values
        .iter()
        .map(|v| {
            v.as_layout().ok_or_else(|| {
                Error::invalid(format!(
                    "a tuple may hold integers, tuples or layouts, not {}",
                    v.describe()
                ))
            })?
        })
        .collect::<Result<Vec<_>>>()?;
    Layout::from_modes(modes).map(Value::Layout)
}
