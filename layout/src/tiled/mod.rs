//! Tiled copies and tiled MMAs: CuTe's `TiledCopy` / `TiledMMA` built from an atom
//! ([`crate::atom`]) exactly as CuTe's `include/cute/atom/copy_atom.hpp` and
//! `include/cute/atom/mma_atom.hpp` build them, and their per-thread partitions of a layout;
//! [`make_tma_copy`] builds the TMA copy of `copy_traits_sm90_tma.hpp` (module `tma`).
//!
//! A partition returns the thread's sub-layout and the offset of its first element, like
//! [`local_partition`](crate::local_partition) (CuTe's `slice_and_offset`).
//!
//! ```
//! use tessel_layout::{atom::copy_atom, tiled::make_tiled_copy, Layout};
//! // CuTe media/docs/cpp/cute/0x_gemm_tutorial.md: 32x8 threads, 4x1 floats each, 128-bit copies.
//! let atom = copy_atom("UniversalCopy<uint128_t>").unwrap().typed(32).unwrap();
//! let copy = make_tiled_copy(&atom, &"(32,8):(1,32)".parse().unwrap(),
//!                            &"(4,1):(1,0)".parse().unwrap()).unwrap();
//! assert_eq!(copy.tiler(), &[128, 8]);
//! let g_a: Layout = "(128,8):(1,128)".parse().unwrap();
//! let (part, offset) = copy.get_slice(1).unwrap().partition_s(&g_a).unwrap();
//! assert_eq!(part.shape().to_string(), "((4,1),1,1)"); // (CPY, CPY_M, CPY_K), CPY = 4 values
//! assert_eq!(offset, 4); // thread 1 starts at row 4
//! ```

pub mod copy;
pub mod mma;
pub mod tma;

pub use copy::{
    ThrCopy, TiledCopy, make_tiled_copy, make_tiled_copy_a, make_tiled_copy_b, make_tiled_copy_c,
};
pub use mma::{ThrMma, TiledMma, make_tiled_mma};
pub use tma::make_tma_copy;

use crate::{Layout, Result, Tiler};

/// The by-mode tiler `[n0:1, n1:1, ...]` (CuTe's tiler given as a shape).
pub(crate) fn shape_tiler(sizes: &[i64]) -> Result<Tiler> {
    Ok(Tiler::ByMode(
        sizes
            .iter()
            .map(|&n| Ok(Some(Tiler::Layout(Layout::vector(n, 1)?))))
            .collect::<Result<Vec<_>>>()?,
    ))
}

/// The compact column-major layout of the flat shape `sizes`, extent-1 modes with stride 0
/// (CuTe's `make_layout(shape)` for static extents).
pub(crate) fn col_major(sizes: &[i64]) -> Result<Layout> {
    let mut running = 1i64;
    let mut strides = Vec::with_capacity(sizes.len());
    for &s in sizes {
        strides.push(if s == 1 { 0 } else { running });
        running = crate::checked_mul(running, s, "the tile size")?;
    }
    Layout::new(
        crate::IntTuple::from_ints(sizes.iter().copied()),
        crate::IntTuple::from_ints(strides),
    )
}

/// By-mode tiler that composes mode 0 with `first` and keeps the other modes.
pub(crate) fn first_mode(first: &Layout) -> Tiler {
    Tiler::ByMode(vec![Some(Tiler::Layout(first.clone())), None])
}
