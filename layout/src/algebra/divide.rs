//! divides.

#[allow(unused_imports)]
use super::Tiler;
use crate::{IntTuple, Layout, Result};

/// Scaffolding.
#[allow(unused_variables)]
pub fn logical_divide(a: &Layout, tiler: &Tiler) -> Result<Layout> {
    Err(super::not_implemented("logical_divide"))
}

/// Scaffolding.
#[allow(unused_variables)]
pub fn zipped_divide(a: &Layout, tiler: &Tiler) -> Result<Layout> {
    Err(super::not_implemented("zipped_divide"))
}

/// Scaffolding.
#[allow(unused_variables)]
pub fn tiled_divide(a: &Layout, tiler: &Tiler) -> Result<Layout> {
    Err(super::not_implemented("tiled_divide"))
}

/// Scaffolding.
#[allow(unused_variables)]
pub fn flat_divide(a: &Layout, tiler: &Tiler) -> Result<Layout> {
    Err(super::not_implemented("flat_divide"))
}
