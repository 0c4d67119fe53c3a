//! The tessel expression language: CuTe notation plus CuTe's function names.
//!
//! `tessel eval` and `tessel show` evaluate these expressions. Literals are integers, tuples
//! `(2,3)`, layouts `(4,(2,3)):(1,(8,16))`, by-mode tilers `[3:4, _]`, swizzles `Sw<3,3,3>`;
//! `o` composes (`Sw<3,3,3> o 32 o (8,64):(64,1)`, `(6,2):(8,2) o (4,3):(3,1)`); functions are
//! called by their CuTe names (`logical_divide(A, T)`, see [`registry::all`]).
//!
//! ```
//! use tessel_layout::expr::eval;
//! assert_eq!(eval("size((4,(2,3)):(1,(8,16)))").unwrap().to_string(), "24");
//! assert_eq!(eval("at(Sw<3,3,3> o (8,64):(64,1), (1,0))").unwrap().to_string(), "72");
//! let err = eval("sise(8:1)").unwrap_err();
//! assert!(err.to_string().contains("nearest known function is 'size'"));
//! ```

pub mod ast;
pub mod atoms;
pub mod builtins;
pub mod compose;
pub mod composed;
pub mod eval;
pub mod functions;
pub mod lexer;
pub mod parser;
pub mod registry;
pub mod typed;
pub mod value;

pub use ast::{Expr, ExprKind};
pub use compose::{compose, map_inner};
pub use eval::eval_expr;
pub use parser::{MAX_DEPTH, parse};
pub use value::Value;

/// Parses and evaluates `text`.
///
/// ```
/// let v = tessel_layout::expr::eval("rank((4,(2,3)):(1,(8,16)))").unwrap();
/// assert_eq!(v.to_string(), "2");
/// ```
pub fn eval(text: &str) -> crate::Result<Value> {
    eval_expr(&parse(text)?)
}
