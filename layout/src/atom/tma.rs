//! What a TMA atom built for a tensor carries: CuTe's `tma_desc_` and `AuxTmaParams`
//! (`include/cute/atom/copy_traits_sm90_tma.hpp`, CUTLASS v4.2.1): the tensor map, which global
//! modes each of its dimensions covers (`TmaGmemBasis`), and how a global coordinate becomes the
//! instruction's tensor coordinates (`TmaGmemBasisStrides`).
//!
//! The last is CuTe's hook for its coordinate ("TMA") tensor: `get_tma_tensor(shape)` is an
//! identity layout whose strides are these scaled bases `E<dim> * scale`. tessel keeps them as
//! plain `(dim, scale)` pairs, one per flat mode of the global layout, so a coordinate layout
//! (scaled-basis strides) can be built from them without this module depending on one.

use std::fmt;

use crate::gmma::TensorMapParams;

/// The tensor-specific parameters of a TMA atom made by
/// [`make_tma_copy`](crate::tiled::make_tma_copy).
///
/// ```
/// use tessel_layout::{atom::TmaOp, tiled::make_tma_copy, ComposedLayout, Layout};
/// // A 1024 x 256 fp32 row-major tensor, a 64 x 32 row-major shared tile (CuTe's "Simple 2D").
/// let gmem: Layout = "(1024,256):(256,1)".parse().unwrap();
/// let smem: ComposedLayout = "(64,32):(32,1)".parse().unwrap();
/// let copy = make_tma_copy(TmaOp::Load, &gmem, &smem, None, 1, 32).unwrap();
/// let tma = copy.atom().atom().tma().unwrap();
/// assert_eq!(tma.dim_modes(), &[vec![1], vec![0]]); // dim 0 is mode 1 (K), dim 1 mode 0 (M)
/// assert_eq!(tma.coord_basis(), &[Some((1, 1)), Some((0, 1))]);
/// assert_eq!(tma.tensor_map().box_dims(), &[32, 64]);
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct TmaParams {
    pub(crate) tensor_map: TensorMapParams,
    pub(crate) dim_modes: Vec<Vec<usize>>,
    pub(crate) coord_basis: Vec<Option<(usize, i64)>>,
    pub(crate) multicast: i64,
}

impl TmaParams {
    /// The tensor map (`cuTensorMapEncodeTiled`'s parameters).
    ///
    /// ```
    /// # use tessel_layout::{atom::TmaOp, tiled::make_tma_copy};
    /// # let copy = make_tma_copy(TmaOp::Load, &"(1024,256):(256,1)".parse().unwrap(),
    /// #     &"(64,32):(32,1)".parse().unwrap(), None, 1, 32).unwrap();
    /// let map = copy.atom().atom().tma().unwrap().tensor_map();
    /// assert_eq!((map.dims(), map.strides()), (&[256, 1024][..], &[1024][..]));
    /// ```
    pub fn tensor_map(&self) -> &TensorMapParams {
        &self.tensor_map
    }

    /// For each dimension of the tensor map, the flat modes of the global layout it covers
    /// (CuTe's `TmaGmemBasis`): one mode, several contiguous ones merged into one dimension, or
    /// (past the fifth dimension) the trailing modes grouped.
    ///
    /// ```
    /// # use tessel_layout::{atom::TmaOp, tiled::make_tma_copy};
    /// // A contiguous 8 x 8 fp32 tensor: both modes are one 64-element dimension.
    /// let copy = make_tma_copy(TmaOp::Load, &"(8,8):(1,8)".parse().unwrap(),
    ///     &"(8,8):(1,8)".parse().unwrap(), None, 1, 32).unwrap();
    /// assert_eq!(copy.atom().atom().tma().unwrap().dim_modes(), &[vec![0, 1]]);
    /// ```
    pub fn dim_modes(&self) -> &[Vec<usize>] {
        &self.dim_modes
    }

    /// For each flat mode of the global layout, the tensor-map dimension its coordinate moves
    /// and by how much (`coordinate[dim] += scale * c`), or `None` for a mode of extent 1 or
    /// stride 0: CuTe's `TmaGmemBasisStrides`, the strides of the coordinate tensor
    /// `get_tma_tensor` builds, `E<dim> * scale`.
    ///
    /// ```
    /// # use tessel_layout::{atom::TmaOp, tiled::make_tma_copy};
    /// let copy = make_tma_copy(TmaOp::Load, &"(8,8):(1,8)".parse().unwrap(),
    ///     &"(8,8):(1,8)".parse().unwrap(), None, 1, 32).unwrap();
    /// // Dimension 0 has unit stride: a coordinate moves it by its mode's element stride.
    /// assert_eq!(copy.atom().atom().tma().unwrap().coord_basis(), &[Some((0, 1)), Some((0, 8))]);
    /// ```
    pub fn coord_basis(&self) -> &[Option<(usize, i64)>] {
        &self.coord_basis
    }

    /// The tensor-map coordinates of the global coordinate `coord` (one entry per flat mode of
    /// the global layout), by [`coord_basis`](Self::coord_basis); `None` on overflow or a
    /// coordinate of the wrong length.
    ///
    /// ```
    /// # use tessel_layout::{atom::TmaOp, tiled::make_tma_copy};
    /// # let copy = make_tma_copy(TmaOp::Load, &"(1024,256):(256,1)".parse().unwrap(),
    /// #     &"(64,32):(32,1)".parse().unwrap(), None, 1, 32).unwrap();
    /// let tma = copy.atom().atom().tma().unwrap();
    /// assert_eq!(tma.tma_coord(&[5, 7]), Some(vec![7, 5])); // (m, k) = (5, 7): k innermost
    /// ```
    pub fn tma_coord(&self, coord: &[i64]) -> Option<Vec<i64>> {
        if coord.len() != self.coord_basis.len() {
            return None;
        }
        let mut out = vec![0i64; self.tensor_map.rank()];
        for (&c, basis) in coord.iter().zip(&self.coord_basis) {
            if let Some((dim, scale)) = *basis {
                let slot = out.get_mut(dim)?;
                *slot = slot.checked_add(c.checked_mul(scale)?)?;
            }
        }
        Some(out)
    }

    /// CTAs that share one box (1 without multicast): each loads `1 / multicast` of it.
    ///
    /// ```
    /// # use tessel_layout::{atom::TmaOp, tiled::make_tma_copy};
    /// # let copy = make_tma_copy(TmaOp::Load, &"(1024,256):(256,1)".parse().unwrap(),
    /// #     &"(64,32):(32,1)".parse().unwrap(), None, 1, 32).unwrap();
    /// assert_eq!(copy.atom().atom().tma().unwrap().multicast(), 1);
    /// ```
    pub fn multicast(&self) -> i64 {
        self.multicast
    }
}

impl fmt::Display for TmaParams {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let dims: Vec<String> = self
            .dim_modes
            .iter()
            .map(|m| {
                let modes: Vec<String> = m.iter().map(usize::to_string).collect();
                format!("[{}]", modes.join(","))
            })
            .collect();
        write!(f, "{}, dims of modes ({})", self.tensor_map, dims.join(","))?;
        if self.multicast > 1 {
            write!(f, ", multicast {}", self.multicast)?;
        }
        Ok(())
    }
}
