//! Tilers: what divides and by-mode compositions take (a layout, or one tiler per mode).

use crate::Layout;

/// A tiler: a layout applied to the whole domain, or a by-mode tuple `[T0, T1, ...]` where
/// `None` (written `_`) leaves that mode alone.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Tiler {
    /// One layout for the whole (1-D) domain.
    Layout(Layout),
    /// One tiler per top-level mode; `None` keeps the mode as it is.
    ByMode(Vec<Option<Tiler>>),
}

impl From<Layout> for Tiler {
    fn from(l: Layout) -> Self {
        Tiler::Layout(l)
    }
}
