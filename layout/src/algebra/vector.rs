//! common vectors and injectivity.

#[allow(unused_imports)]
use super::Tiler;
use crate::{IntTuple, Layout, Result};

/// Scaffolding.
#[allow(unused_variables)]
pub fn max_common_vector(a: &Layout, b: &Layout) -> Result<i64> {
    Err(super::not_implemented("max_common_vector"))
}

/// Scaffolding.
#[allow(unused_variables)]
pub fn max_common_layout(a: &Layout, b: &Layout) -> Result<Layout> {
    Err(super::not_implemented("max_common_layout"))
}

/// Scaffolding.
#[allow(unused_variables)]
pub fn is_injective(layout: &Layout) -> Result<bool> {
    Err(super::not_implemented("is_injective"))
}

/// Scaffolding.
#[allow(unused_variables)]
pub fn is_bijective(layout: &Layout) -> Result<bool> {
    Err(super::not_implemented("is_bijective"))
}
