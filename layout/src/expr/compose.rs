//! The `o` operator: [`compose`] of two values (swizzles, offsets, layouts, composed layouts,
//! tilers) and `compose_chain` of a whole `v0 o v1 o ... o vn` chain, with [`map_inner`] for the
//! operations that compose on the right of a swizzled layout. The evaluator
//! ([`super::eval()`]) and the functions that compose (`composition`, the typed algebra) call it.

use super::value::Value;
use crate::algebra::{Tiler, compose_tiler, composition};
use crate::composed::ComposedLayout;
use crate::error::{Error, Result, checked_add};
use crate::layout::Layout;

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
pub(crate) fn compose_chain(mut values: Vec<Value>) -> Result<Value> {
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
