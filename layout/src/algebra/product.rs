//! products.

#[allow(unused_imports)]
use super::Tiler;
use crate::{IntTuple, Layout, Result};

/// Scaffolding.
#[allow(unused_variables)]
pub fn logical_product(a: &Layout, b: &Tiler) -> Result<Layout> {
    Err(super::not_implemented("logical_product"))
}

/// Scaffolding.
#[allow(unused_variables)]
pub fn zipped_product(a: &Layout, b: &Tiler) -> Result<Layout> {
    Err(super::not_implemented("zipped_product"))
}

/// Scaffolding.
#[allow(unused_variables)]
pub fn tiled_product(a: &Layout, b: &Tiler) -> Result<Layout> {
    Err(super::not_implemented("tiled_product"))
}

/// Scaffolding.
#[allow(unused_variables)]
pub fn flat_product(a: &Layout, b: &Tiler) -> Result<Layout> {
    Err(super::not_implemented("flat_product"))
}

/// Scaffolding.
#[allow(unused_variables)]
pub fn blocked_product(a: &Layout, b: &Layout) -> Result<Layout> {
    Err(super::not_implemented("blocked_product"))
}

/// Scaffolding.
#[allow(unused_variables)]
pub fn raked_product(a: &Layout, b: &Layout) -> Result<Layout> {
    Err(super::not_implemented("raked_product"))
}
