//! # tessel-layout
//!
//! The CuTe layout algebra in Rust: hierarchical [`IntTuple`]s, [`Layout`]s (`Shape:Stride`) and
//! the operations on them. Everything is checked: an operation whose precondition fails returns an
//! [`Error`] that names the violated condition and the operands, never a wrong layout.
//!
//! ```
//! use tessel_layout::Layout;
//! let l: Layout = "(4,(2,3)):(1,(8,16))".parse().unwrap();
//! assert_eq!(l.size(), 24);
//! assert_eq!(l.offset(5).unwrap(), 9);
//! ```

pub mod algebra;
pub mod bank;
pub mod codegen;
pub mod composed;
pub mod constant;
pub mod error;
pub mod expr;
pub mod f2;
pub mod int_tuple;
pub mod layout;
pub mod parse;
pub mod render;
pub mod svg;
pub mod swizzle;
pub mod synth;
pub mod verify;

pub use algebra::*;
pub use composed::{ComposedLayout, OffsetMap};
pub use error::{Error, ErrorKind, Result, checked_add, checked_mul};
pub use int_tuple::{Coord, IntTuple, Leaves, Shape, Stride};
pub use layout::{Layout, SliceCoord, crd2idx};
pub use swizzle::Swizzle;
