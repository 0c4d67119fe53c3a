//! upcast / downcast: re-express a layout in units of wider or narrower elements.

#[allow(unused_imports)]
use super::Tiler;
use crate::{IntTuple, Layout, Result};

/// Scaffolding.
#[allow(unused_variables)]
pub fn upcast(layout: &Layout, factor: i64) -> Result<Layout> {
    Err(super::not_implemented("upcast"))
}

/// Scaffolding.
#[allow(unused_variables)]
pub fn downcast(layout: &Layout, factor: i64) -> Result<Layout> {
    Err(super::not_implemented("downcast"))
}
