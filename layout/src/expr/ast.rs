//! The syntax tree of an algebra expression, as the parser produces it.
//!
//! Every node remembers the bytes of the input it was parsed from, so an error can carry the
//! [`Span`] of the offending part.
//!
//! ```
//! use tessel_layout::expr::{parse, ExprKind};
//! let e = parse("complement(4:2, 24)").unwrap();
//! assert!(matches!(e.kind, ExprKind::Call { .. }));
//! ```

use crate::error::Span;

/// One node of an expression, with the bytes of the input it was parsed from.
///
/// ```
/// use tessel_layout::expr::{parse, ExprKind};
/// let e = parse(" size(8:1) ").unwrap();
/// assert_eq!(e.span.range(), 1..10);
/// assert!(matches!(e.kind, ExprKind::Call { .. }));
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Expr {
    /// The node's bytes in the input: from its first token to its last (a call's closing `)`,
    /// a layout's stride, a composition's last operand).
    pub span: Span,
    /// What the node is.
    pub kind: ExprKind,
}

/// The kinds of expression nodes.
///
/// ```
/// use tessel_layout::expr::{parse, ExprKind};
/// let e = parse("(4,8):(1,4)").unwrap();
/// assert!(matches!(e.kind, ExprKind::Layout { .. }));
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ExprKind {
    /// An integer literal such as `8` or `-1`.
    Int(i64),
    /// A parenthesised tuple `(a, b, ...)`; `(a)` is a rank-1 tuple, not a grouping.
    Tuple(Vec<Expr>),
    /// `shape:stride`.
    Layout {
        /// The expression left of `:`.
        shape: Box<Expr>,
        /// The expression right of `:`.
        stride: Box<Expr>,
    },
    /// A by-mode tiler `[T0, _, T2]`; `None` is `_` (leave that mode alone).
    Tiler(Vec<Option<Expr>>),
    /// A swizzle literal `Sw<B,M,S>`.
    Swizzle {
        /// `B`, the number of bits.
        bits: i64,
        /// `M`, the number of low bits kept.
        base: i64,
        /// `S`, the shift.
        shift: i64,
    },
    /// A chain `X0 o X1 o ... o Xn` (at least two operands), applied right to left.
    Compose(Vec<Expr>),
    /// `_` as an element of a tuple or an argument: CuTe's underscore in a slicing coordinate
    /// such as `(_,1)` (keep that mode).
    Underscore,
    /// A bare name that is not a call: an atom named as CuTe names it, e.g. `SM75_U32x4_LDSM_N`
    /// or `UniversalCopy<uint128_t>` (a name may end in one template argument `<NAME>`).
    Name(String),
    /// A function call `name(arg, ...)`.
    Call {
        /// The function name as written.
        name: String,
        /// The arguments, in order.
        args: Vec<Expr>,
    },
    /// A static integer literal, `_4`.
    Static(i64),
    /// A basis element literal, `_1@0` (see [`crate::basis`]).
    Basis(crate::basis::ScaledBasis),
}
