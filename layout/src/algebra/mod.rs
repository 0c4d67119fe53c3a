//! The layout algebra: one module per family of operations.
//!
//! Signatures are fixed here so the CLI, the macros and the kernels can be written against them.
//! (Scaffolding: bodies that still return "not implemented" are filled in by the algebra work.)

pub mod cast;
pub mod coalesce;
pub mod complement;
pub mod composition;
pub mod divide;
pub mod inverse;
pub mod ordered;
pub mod product;
pub mod tiler;
pub mod vector;

pub use cast::{downcast, upcast};
pub use coalesce::{coalesce, coalesce_profile, filter};
pub use complement::complement;
pub use composition::{compose_tiler, composition};
pub use divide::{flat_divide, logical_divide, tiled_divide, zipped_divide};
pub use inverse::{left_inverse, nullspace, right_inverse};
pub use ordered::{make_ordered_layout, tile_to_shape};
pub use product::{
    blocked_product, flat_product, logical_product, raked_product, tiled_product, zipped_product,
};
pub use tiler::Tiler;
pub use vector::{is_bijective, is_injective, max_common_layout, max_common_vector};

pub(crate) fn not_implemented(op: &str) -> crate::Error {
    crate::Error::invalid(format!("{op} is not implemented yet"))
}
