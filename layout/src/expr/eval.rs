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
use super::functions::{Args, Function, lookup, nearest};
use super::value::Value;
use crate::algebra::{Tiler, compose_tiler, composition};
use crate::composed::ComposedLayout;
use crate::error::{Error, Result, Span, checked_add};
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

/// `left o right`, the meaning of the `o` operator:
/// - `Sw<B,M,S> o L` puts a swizzle in front of a (possibly already swizzled or composed)
///   layout;
/// - `n o L` adds the offset `n` (only directly in front of the layout); in a chain, `A o n o L`
///   with a layout `A` is CuTe's composed layout `composition(A, n, L)`, kept unevaluated
///   ([`super::composed::make_composed`], see [`eval()`](super::eval()));
/// - `A o B` with a layout `A` is the composition `A o B` (`B` a layout or tiler); a swizzled `A`
///   keeps its swizzles and offset and composes its inner layout;
/// - `A o B` with a swizzled `B` moves `B`'s swizzles through `A`'s layout, as CuTe does
///   ([`ComposedLayout::compose_composed`]), or is an error naming why that is not representable;
/// - `A o (I o 0 o L)` with a composed `B` composes `A` with the inner function `I`, as CuTe's
///   `composition(Layout, ComposedLayout)` does, and `(I o n o L) o B` composes `L` with `B`.
///
/// ```
/// use tessel_layout::expr::{compose, eval, Value};
/// let sw = eval("Sw<3,3,3>").unwrap();
/// let l = eval("(8,64):(64,1)").unwrap();
/// assert_eq!(compose(&sw, &l).unwrap().to_string(), "Sw<3,3,3> o (8,64):(64,1)");
/// assert_eq!(compose(&Value::Int(32), &l).unwrap().to_string(), "32 o (8,64):(64,1)");
/// // CuTe test/unit/cute/core/composition.cpp (CUTLASS v4.2.1): a transpose moves the swizzle's bits.
/// let t = eval("(8,8):(8,1)").unwrap();
/// let b = eval("Sw<2,0,-3> o (8,8):(8,1)").unwrap();
/// assert_eq!(compose(&t, &b).unwrap().to_string(), "Sw<2,0,3> o (8,8):(1,8)");
/// ```
pub fn compose(left: &Value, right: &Value) -> Result<Value> {
    if left.is_typed() || right.is_typed() {
        return super::typed::compose(left, right);
    }
    let right_layout = || {
        right.as_composed().ok_or_else(|| {
            Error::invalid(format!(
                "'{left} o ...' needs a layout on its right, got {}",
                right.describe()
            ))
        })?
    };
    match left {
        Value::Swizzle(sw) if matches!(right, Value::Composition(_)) => {
            let Value::Composition(c) = right else {
                unreachable!("matched above")
            };
            Ok(Value::Composition(Box::new(c.swizzled(*sw))))
        }
        Value::Swizzle(sw) => {
            let inner = right_layout()?;
            let mut swizzles = vec![*sw];
            swizzles.extend_from_slice(inner.swizzles());
            Ok(Value::Composed(ComposedLayout::new(
                swizzles,
                inner.base_offset(),
                inner.layout().clone(),
            )))
        }
        Value::Int(offset) => {
            let inner = right_layout()?;
            if !inner.swizzles().is_empty() {
                return Err(Error::invalid(format!(
                    "the offset {offset} must sit directly before the layout, not before the \
                     swizzled layout {inner}"
                )));
            }
            let total = checked_add(*offset, inner.base_offset(), "the offset")?;
            Ok(Value::from_composed(ComposedLayout::new(
                vec![],
                total,
                inner.layout().clone(),
            )))
        }
        _ if super::composed::is_function(left) && matches!(right, Value::Composition(_)) => {
            let Value::Composition(c) = right else {
                unreachable!("matched above")
            };
            super::composed::compose_with_composition(left, c, compose)
        }
        Value::Composition(c) => {
            let tiler = match right {
                Value::Composed(_) => None,
                other => other.as_tiler(),
            }
            .ok_or_else(|| {
                Error::invalid(format!(
                    "'{left} o ...' needs a layout or tiler on its right, got {}",
                    right.describe()
                ))
            })??;
            c.compose(&tiler).map(|c| Value::Composition(Box::new(c)))
        }
        Value::Layout(_) | Value::Tuple(_) | Value::Composed(_) => {
            let outer = left
                .as_composed()
                .ok_or_else(|| Error::invalid(format!("cannot compose {}", left.describe())))??;
            if let Value::Composed(inner) = right {
                return outer.compose_composed(inner).map(Value::from_composed);
            }
            let tiler = right.as_tiler().ok_or_else(|| {
                Error::invalid(format!(
                    "'{left} o ...' needs a layout or tiler on its right, got {}",
                    right.describe()
                ))
            })??;
            map_inner(&outer, |inner| compose_with_tiler(inner, &tiler))
        }
        other => Err(Error::invalid(format!(
            "'o' needs a swizzle, an offset or a layout on its left, got {}",
            other.describe()
        ))),
    }
}

/// `v0 o v1 o ... o vn` (at least one value), folded from the right with [`compose`]. A run of swizzles in front of a
/// layout is prepended in one step, so a chain of `n` swizzles costs `O(n)` rather than the
/// `O(n^2)` of prepending (and copying the chain) one swizzle at a time.
fn compose_chain(mut values: Vec<Value>) -> Result<Value> {
    let Some(mut acc) = values.pop() else {
        return Err(Error::invalid("an empty 'o' chain"));
    };
    while let Some(left) = values.pop() {
        if let Value::Int(offset) = left {
            if values.last().is_some_and(super::composed::is_function) {
                // `A o n o L`: CuTe's composition(A, n, L), kept as a composed layout.
                let inner = values.pop().unwrap_or(Value::Int(0));
                acc = super::composed::make_composed(&inner, offset, &acc)?;
                continue;
            }
        }
        let Value::Swizzle(innermost) = left else {
            acc = compose(&left, &acc)?;
            continue;
        };
        let Some(inner) = acc.as_composed() else {
            // a composition or not a layout on the right: compose handles it or names the
            // problem
            acc = compose(&left, &acc)?;
            continue;
        };
        let inner = inner?;
        let mut run = vec![innermost];
        while let Some(Value::Swizzle(sw)) = values.last() {
            run.push(*sw);
            values.pop();
        }
        run.reverse(); // outermost first
        run.extend_from_slice(inner.swizzles());
        acc = Value::Composed(ComposedLayout::new(
            run,
            inner.base_offset(),
            inner.layout().clone(),
        ));
    }
    Ok(acc)
}

/// `a o tiler`: composition with a layout, or by-mode composition.
fn compose_with_tiler(a: &Layout, tiler: &Tiler) -> Result<Layout> {
    match tiler {
        Tiler::Layout(b) => composition(a, b),
        by_mode => compose_tiler(a, by_mode),
    }
}

/// Applies `f` to the inner layout of a (possibly swizzled) layout, keeping swizzles and offset.
/// Valid for every operation that composes on the right (the function on 1-D indices is
/// `outer(f(inner))`), e.g. composition, the divides, coalesce.
///
/// ```
/// use tessel_layout::{ComposedLayout, Layout, Swizzle, expr::map_inner};
/// let c = ComposedLayout::new(vec![Swizzle::new(1, 0, 1).unwrap()], 0, Layout::vector(8, 1).unwrap());
/// let v = map_inner(&c, |l| Ok(l.flatten())).unwrap();
/// assert_eq!(v.to_string(), "Sw<1,0,1> o 8:1");
/// ```
pub fn map_inner(c: &ComposedLayout, f: impl FnOnce(&Layout) -> Result<Layout>) -> Result<Value> {
    let inner = f(c.layout())?;
    Ok(Value::from_composed(ComposedLayout::new(
        c.swizzles().to_vec(),
        c.base_offset(),
        inner,
    )))
}
