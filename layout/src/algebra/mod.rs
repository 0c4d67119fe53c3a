//! The layout algebra: one module per family of operations.
//!
//! Every operation follows CuTe's semantics and checks its preconditions: an inadmissible input
//! is an [`Error`](crate::Error) naming the violated condition and the operands, never a wrong
//! layout.
//!
//! ```
//! // CuTe docs (docs/semantics.md): (6,2):(8,2) o (4,3):(3,1) = ((2,2),3):((24,2),8).
//! let a: tessel_layout::Layout = "(6,2):(8,2)".parse().unwrap();
//! let b: tessel_layout::Layout = "(4,3):(3,1)".parse().unwrap();
//! let r = tessel_layout::algebra::composition(&a, &b).unwrap();
//! assert_eq!(r.to_string(), "((2,2),3):((24,2),8)");
//! ```

mod buf;
mod built;
pub mod cast;
pub mod coalesce;
pub mod complement;
pub mod composition;
pub mod divide;
mod flat;
pub mod inverse;
pub mod local;
pub mod ordered;
pub mod product;
pub mod projection;
pub mod tiler;
pub mod vector;

pub use cast::{downcast, recast, upcast};
pub use coalesce::{coalesce, coalesce_profile, filter};
pub use complement::{complement, complement_to_shape};
pub use composition::{compose_tiler, composition};
pub use divide::{flat_divide, logical_divide, tiled_divide, zipped_divide};
pub use inverse::{left_inverse, nullspace, right_inverse};
pub use local::{local_partition, local_partition_projected, local_tile, local_tile_projected};
pub use ordered::{make_ordered_layout, tile_to_shape, tile_to_shape_ordered};
pub use product::{
    blocked_product, flat_product, logical_product, raked_product, tiled_product, zipped_product,
};
pub use tiler::Tiler;
pub use vector::{
    INJECTIVITY_ENUMERATION_LIMIT, is_bijective, is_injective, max_common_layout, max_common_vector,
};
