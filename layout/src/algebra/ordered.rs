//! ordered layouts.

#[allow(unused_imports)]
use super::Tiler;
use crate::{IntTuple, Layout, Result};

/// Scaffolding.
#[allow(unused_variables)]
pub fn make_ordered_layout(shape: &IntTuple, order: &IntTuple) -> Result<Layout> {
    Err(super::not_implemented("make_ordered_layout"))
}

/// Scaffolding.
#[allow(unused_variables)]
pub fn tile_to_shape(block: &Layout, shape: &IntTuple) -> Result<Layout> {
    Err(super::not_implemented("tile_to_shape"))
}
