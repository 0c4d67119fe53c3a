//! The input of `tessel codegen` and of the macros: a literal (possibly symbolic, possibly
//! swizzled) layout, or any expression of the tessel expression language that evaluates to a
//! layout (`logical_divide((128,64):(64,1), [16:1, 16:1])`, compositions, ...).
//!
//! Errors carry the [`Span`] of the offending part of the text
//! ([`Error::span`]); an algebra error the evaluator reports without a span gets the span of the
//! innermost failing call, composition or literal.
//!
//! ```
//! use tessel_layout::codegen::parse_source;
//! // CuTe docs: logical_divide((4,2,3):(2,1,8), 4:2) = ((2,2),(2,3)):((4,1),(2,8)).
//! let c = parse_source("logical_divide((4,2,3):(2,1,8), 4:2)").unwrap();
//! assert_eq!(c.to_string(), "((2,2),(2,3)):((4,1),(2,8))");
//! assert_eq!(parse_source("(8,64):(ld,1)").unwrap().to_string(), "(8,64):(ld,1)");
//! ```

use super::symbolic::SymComposedLayout;
use crate::error::{Error, ErrorKind, Result, Span};
use crate::expr::{Expr, ExprKind, Value, eval_expr, parse};

/// Parses and evaluates the input of the code emitter.
///
/// A literal layout may have run-time symbols as strides (`(128,64):(ld,1)`); anything else is
/// evaluated by the expression language and must produce a layout, a swizzled layout, or a
/// shape (the compact column-major layout).
///
/// ```
/// use tessel_layout::codegen::parse_source;
/// let c = parse_source("Sw<3,3,3> o (8,64):(ld,1)").unwrap();
/// assert_eq!(c.to_string(), "Sw<3,3,3> o (8,64):(ld,1)");
/// let d = parse_source("logical_divide((4,2,3):(2,1,8), 4:2)").unwrap();
/// assert_eq!(d.to_string(), "((2,2),(2,3)):((4,1),(2,8))"); // CuTe docs
/// let err = parse_source("(8,64):(64,1,2)").unwrap_err();
/// assert_eq!(err.span().unwrap().range(), 0..15);
/// // CUTLASS issue 3177: rejected, located at the inner composition call.
/// let text = "logical_divide(composition((4,6,8):(2,3,5), 6:3), 2:1)";
/// let err = parse_source(text).unwrap_err();
/// assert_eq!(&text[err.span().unwrap().range()], "composition((4,6,8):(2,3,5), 6:3)");
/// assert!(err.to_string().starts_with("at 15: "), "{err}");
/// ```
pub fn parse_source(text: &str) -> Result<SymComposedLayout> {
    let literal_error = match text.parse::<SymComposedLayout>() {
        Ok(layout) => return Ok(layout),
        Err(e) if e.kind() != ErrorKind::Parse => return Err(e),
        Err(e) => e,
    };
    match evaluate(text) {
        Ok(layout) => Ok(layout),
        // The parser that read further before failing says more about the text.
        Err(e) if e.kind() == ErrorKind::Parse && start(&literal_error) > start(&e) => {
            Err(literal_error)
        }
        Err(e) => Err(e),
    }
}

fn evaluate(text: &str) -> Result<SymComposedLayout> {
    let expr = parse(text)?;
    // One budget for the evaluation and the search for the failing sub-expression, which
    // evaluates sub-expressions again (crate::budget).
    let value = crate::budget::scope(|| eval_expr(&expr).map_err(|e| locate(&expr, e)))?;
    let describe = value.describe();
    match value {
        Value::Layout(l) => Ok((&l).into()),
        Value::Composed(c) => Ok((&c).into()),
        // A typed layout's static and dynamic strides are all known here: constants.
        Value::TypedLayout(l) => Ok((&l.values().map_err(|e| e.at(expr.span))?).into()),
        other => match other.as_layout() {
            Some(layout) => Ok((&layout?).into()),
            None => Err(Error::invalid(format!(
                "expected a layout, but the expression is {describe}"
            ))
            .at(expr.span)),
        },
    }
}

/// Where an error's span starts (`None` for an error without one).
fn start(err: &Error) -> Option<usize> {
    err.span().map(|span| span.start)
}

/// Gives an error without a span the span of the innermost failing sub-expression.
fn locate(expr: &Expr, err: Error) -> Error {
    if err.span().is_some() {
        return err;
    }
    err.at(failing_span(expr))
}

fn failing_span(expr: &Expr) -> Span {
    children(expr)
        .into_iter()
        .find(|child| eval_expr(child).is_err())
        .map_or(expr.span, failing_span)
}

fn children(expr: &Expr) -> Vec<&Expr> {
    match &expr.kind {
        ExprKind::Tuple(items) | ExprKind::Compose(items) => items.iter().collect(),
        ExprKind::Call { args, .. } => args.iter().collect(),
        ExprKind::Layout { shape, stride } => vec![shape, stride],
        ExprKind::Tiler(modes) => modes.iter().flatten().collect(),
        ExprKind::Int(_)
        | ExprKind::Swizzle { .. }
        | ExprKind::Underscore
        | ExprKind::Name(_)
        | ExprKind::Static(_)
        | ExprKind::Basis(_) => Vec::new(),
    }
}
