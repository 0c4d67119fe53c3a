//! inverses.

#[allow(unused_imports)]
use super::Tiler;
use crate::{IntTuple, Layout, Result};

/// Scaffolding.
#[allow(unused_variables)]
pub fn right_inverse(layout: &Layout) -> Result<Layout> {
    Err(super::not_implemented("right_inverse"))
}

/// Scaffolding.
#[allow(unused_variables)]
pub fn left_inverse(layout: &Layout) -> Result<Layout> {
    Err(super::not_implemented("left_inverse"))
}

/// Scaffolding.
#[allow(unused_variables)]
pub fn nullspace(layout: &Layout) -> Result<Layout> {
    Err(super::not_implemented("nullspace"))
}
