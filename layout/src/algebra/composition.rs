//! composition.

#[allow(unused_imports)]
use super::Tiler;
use crate::{IntTuple, Layout, Result};

/// Scaffolding.
#[allow(unused_variables)]
pub fn composition(a: &Layout, b: &Layout) -> Result<Layout> {
    Err(super::not_implemented("composition"))
}

/// Scaffolding.
#[allow(unused_variables)]
pub fn compose_tiler(a: &Layout, tiler: &Tiler) -> Result<Layout> {
    Err(super::not_implemented("compose_tiler"))
}
