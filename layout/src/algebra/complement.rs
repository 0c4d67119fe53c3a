//! complement.

#[allow(unused_imports)]
use super::Tiler;
use crate::{IntTuple, Layout, Result};

/// Scaffolding.
#[allow(unused_variables)]
pub fn complement(layout: &Layout, cotarget: i64) -> Result<Layout> {
    Err(super::not_implemented("complement"))
}
