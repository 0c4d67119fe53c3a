//! coalesce and filter.

#[allow(unused_imports)]
use super::Tiler;
use crate::{IntTuple, Layout, Result};

/// Scaffolding.
#[allow(unused_variables)]
pub fn coalesce(layout: &Layout) -> Result<Layout> {
    Err(super::not_implemented("coalesce"))
}

/// Scaffolding.
#[allow(unused_variables)]
pub fn coalesce_profile(layout: &Layout, profile: &IntTuple) -> Result<Layout> {
    Err(super::not_implemented("coalesce_profile"))
}

/// Scaffolding.
#[allow(unused_variables)]
pub fn filter(layout: &Layout) -> Result<Layout> {
    Err(super::not_implemented("filter"))
}
