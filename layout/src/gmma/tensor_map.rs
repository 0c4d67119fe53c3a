//! The parameters of a tiled TMA tensor map, as `cuTensorMapEncodeTiled` takes them, checked
//! against the driver's rules before any driver is asked (CUDA driver API, "Tensor Map Object
//! Management", `cuTensorMapEncodeTiled`, CUDA 12.8:
//! <https://docs.nvidia.com/cuda/archive/12.8.0/cuda-driver-api/group__CUDA__TENSOR__MEMORY.html>).
//!
//! ```
//! use tessel_layout::gmma::{SwizzleMode, TensorMapParams};
//! // A 1000 x 1000 fp16 row-major matrix (1008-element rows), a 64 x 128 box, 128-byte swizzle.
//! let map = TensorMapParams::tiled(2, &[1000, 1000], &[2016], &[64, 128], SwizzleMode::B128).unwrap();
//! assert_eq!((map.rank(), map.box_bytes()), (2, 64 * 128 * 2));
//! assert_eq!(map.to_string(), "TensorMap(16-bit, globalDim (1000,1000), globalStrides (2016) B, \
//!                              boxDim (64,128), elementStrides (1,1), interleave none, swizzle 128B)");
//! ```

use std::fmt;

use super::{SwizzleMode, tma_box_layout};
use crate::{ComposedLayout, Error, Result};

/// Largest global extent the driver accepts (`globalDim[i] <= 2^32`).
pub const MAX_GLOBAL_DIM: i64 = 1 << 32;

/// The bound on byte strides (`globalStrides[i] < 2^40`).
pub const MAX_GLOBAL_STRIDE: i64 = 1 << 40;

/// The parameters of `cuTensorMapEncodeTiled` that describe the data (the address, L2
/// promotion and out-of-bounds fill are the caller's): the element size, the tensor's extents
/// (`globalDim`, innermost first), its byte strides (`globalStrides`, one per dimension after the
/// first, which is contiguous), the box (`boxDim`), the box's element strides
/// (`elementStrides`, all 1: every element), no interleave, and the swizzle.
///
/// ```
/// use tessel_layout::gmma::{SwizzleMode, TensorMapParams};
/// let map = TensorMapParams::tiled(4, &[256, 1024], &[1024], &[32, 64], SwizzleMode::None).unwrap();
/// assert_eq!(map.box_layout().unwrap().to_string(), "(32,64):(1,32)");
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct TensorMapParams {
    elem_bytes: i64,
    dims: Vec<i64>,
    strides: Vec<i64>,
    box_dims: Vec<i64>,
    element_strides: Vec<i64>,
    swizzle: SwizzleMode,
}

impl TensorMapParams {
    /// A tiled tensor map of `elem_bytes`-byte elements (1, 2, 4 or 8), checked as the driver
    /// checks it: rank 1 to 5; every extent in `1..=2^32`; `strides` (bytes, one per dimension
    /// after the first) multiples of 16 below `2^40`; the box as [`tma_box_layout`] requires
    /// (extents 1 to 256, the innermost a multiple of 16 bytes and within the swizzle span).
    /// Every error names the violated condition.
    ///
    /// ```
    /// use tessel_layout::gmma::{SwizzleMode, TensorMapParams};
    /// let err = TensorMapParams::tiled(2, &[1000, 64], &[2008], &[64, 64], SwizzleMode::B128).unwrap_err();
    /// assert!(err.to_string().contains("multiple of 16 bytes"), "{err}");
    /// assert!(TensorMapParams::tiled(2, &[0, 8], &[16], &[8, 8], SwizzleMode::None).is_err());
    /// ```
    pub fn tiled(
        elem_bytes: i64,
        dims: &[i64],
        strides: &[i64],
        box_dims: &[i64],
        swizzle: SwizzleMode,
    ) -> Result<TensorMapParams> {
        let context = |e: Error| {
            e.context(format!(
                "the tensor map of globalDim {dims:?}, globalStrides {strides:?} B, boxDim \
                 {box_dims:?}"
            ))
        };
        let inner = || -> Result<TensorMapParams> {
            if !(1..=5).contains(&dims.len()) {
                return Err(Error::invalid(format!(
                    "a tiled tensor map has rank 1 to 5, not {}",
                    dims.len()
                )));
            }
            if strides.len() + 1 != dims.len() || box_dims.len() != dims.len() {
                return Err(Error::invalid(format!(
                    "a rank-{} map takes {} strides (the first dimension is contiguous) and {} \
                     box extents, not {} and {}",
                    dims.len(),
                    dims.len() - 1,
                    dims.len(),
                    strides.len(),
                    box_dims.len()
                )));
            }
            if let Some((i, d)) = dims
                .iter()
                .enumerate()
                .find(|(_, d)| !(1..=MAX_GLOBAL_DIM).contains(*d))
            {
                return Err(Error::inadmissible(format!(
                    "globalDim[{i}] = {d} is outside 1..=2^32"
                )));
            }
            if let Some((i, s)) = strides
                .iter()
                .enumerate()
                .find(|(_, s)| **s < 0 || **s % 16 != 0 || **s >= MAX_GLOBAL_STRIDE)
            {
                return Err(Error::inadmissible(format!(
                    "globalStrides[{i}] = {s} bytes: TMA needs a multiple of 16 bytes below 2^40 \
                     (stride of dimension {})",
                    i + 1
                )));
            }
            // Validates the box, the element size and the swizzle span.
            tma_box_layout(box_dims, elem_bytes, swizzle)?;
            Ok(TensorMapParams {
                elem_bytes,
                dims: dims.to_vec(),
                strides: strides.to_vec(),
                box_dims: box_dims.to_vec(),
                element_strides: vec![1; dims.len()],
                swizzle,
            })
        };
        inner().map_err(context)
    }

    /// The number of dimensions (`tensorRank`).
    ///
    /// ```
    /// use tessel_layout::gmma::{SwizzleMode, TensorMapParams};
    /// assert_eq!(TensorMapParams::tiled(4, &[64], &[], &[64], SwizzleMode::None).unwrap().rank(), 1);
    /// ```
    pub fn rank(&self) -> usize {
        self.dims.len()
    }

    /// Bytes per element.
    ///
    /// ```
    /// use tessel_layout::gmma::{SwizzleMode, TensorMapParams};
    /// assert_eq!(TensorMapParams::tiled(1, &[64], &[], &[64], SwizzleMode::None).unwrap().elem_bytes(), 1);
    /// ```
    pub fn elem_bytes(&self) -> i64 {
        self.elem_bytes
    }

    /// `globalDim`, innermost first.
    ///
    /// ```
    /// use tessel_layout::gmma::{SwizzleMode, TensorMapParams};
    /// let m = TensorMapParams::tiled(4, &[8, 3], &[32], &[8, 1], SwizzleMode::None).unwrap();
    /// assert_eq!(m.dims(), &[8, 3]);
    /// ```
    pub fn dims(&self) -> &[i64] {
        &self.dims
    }

    /// `globalStrides` in bytes, one per dimension after the first.
    ///
    /// ```
    /// use tessel_layout::gmma::{SwizzleMode, TensorMapParams};
    /// let m = TensorMapParams::tiled(4, &[8, 3], &[32], &[8, 1], SwizzleMode::None).unwrap();
    /// assert_eq!(m.strides(), &[32]);
    /// ```
    pub fn strides(&self) -> &[i64] {
        &self.strides
    }

    /// `boxDim`, innermost first.
    ///
    /// ```
    /// use tessel_layout::gmma::{SwizzleMode, TensorMapParams};
    /// let m = TensorMapParams::tiled(4, &[8, 3], &[32], &[8, 1], SwizzleMode::None).unwrap();
    /// assert_eq!(m.box_dims(), &[8, 1]);
    /// ```
    pub fn box_dims(&self) -> &[i64] {
        &self.box_dims
    }

    /// `elementStrides` (every element of the box: all 1).
    ///
    /// ```
    /// use tessel_layout::gmma::{SwizzleMode, TensorMapParams};
    /// let m = TensorMapParams::tiled(4, &[8, 3], &[32], &[8, 1], SwizzleMode::None).unwrap();
    /// assert_eq!(m.element_strides(), &[1, 1]);
    /// ```
    pub fn element_strides(&self) -> &[i64] {
        &self.element_strides
    }

    /// The swizzle mode (`CU_TENSOR_MAP_SWIZZLE_*`); the interleave is always none.
    ///
    /// ```
    /// use tessel_layout::gmma::{SwizzleMode, TensorMapParams};
    /// let m = TensorMapParams::tiled(2, &[64, 8], &[128], &[64, 8], SwizzleMode::B128).unwrap();
    /// assert_eq!(m.swizzle(), SwizzleMode::B128);
    /// ```
    pub fn swizzle(&self) -> SwizzleMode {
        self.swizzle
    }

    /// Bytes one box moves (what an `mbarrier.arrive.expect_tx` announces).
    ///
    /// ```
    /// use tessel_layout::gmma::{SwizzleMode, TensorMapParams};
    /// let m = TensorMapParams::tiled(2, &[64, 8], &[128], &[64, 8], SwizzleMode::B128).unwrap();
    /// assert_eq!(m.box_bytes(), 1024);
    /// ```
    pub fn box_bytes(&self) -> i64 {
        self.box_dims.iter().product::<i64>() * self.elem_bytes
    }

    /// The shared layout one box writes ([`tma_box_layout`]).
    ///
    /// ```
    /// use tessel_layout::gmma::{SwizzleMode, TensorMapParams};
    /// let m = TensorMapParams::tiled(2, &[64, 8], &[128], &[64, 8], SwizzleMode::B128).unwrap();
    /// assert_eq!(m.box_layout().unwrap().to_string(), "Sw<3,3,3> o (64,8):(1,64)");
    /// ```
    pub fn box_layout(&self) -> Result<ComposedLayout> {
        tma_box_layout(&self.box_dims, self.elem_bytes, self.swizzle)
    }

    /// The byte offset of the element at tensor coordinates `coord` (innermost first): the
    /// first coordinate counts elements, the others their dimension's byte stride. `None` on
    /// overflow or a coordinate count other than the rank.
    ///
    /// ```
    /// use tessel_layout::gmma::{SwizzleMode, TensorMapParams};
    /// let m = TensorMapParams::tiled(2, &[64, 8], &[256], &[64, 8], SwizzleMode::None).unwrap();
    /// assert_eq!(m.byte_offset(&[3, 2]), Some(3 * 2 + 2 * 256));
    /// ```
    pub fn byte_offset(&self, coord: &[i64]) -> Option<i64> {
        if coord.len() != self.rank() {
            return None;
        }
        let mut total = coord[0].checked_mul(self.elem_bytes)?;
        for (c, s) in coord[1..].iter().zip(&self.strides) {
            total = total.checked_add(c.checked_mul(*s)?)?;
        }
        Some(total)
    }
}

/// `(a,b,c)`, or `(a)` for one.
fn list(items: &[i64]) -> String {
    let parts: Vec<String> = items.iter().map(i64::to_string).collect();
    format!("({})", parts.join(","))
}

impl fmt::Display for TensorMapParams {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "TensorMap({}-bit, globalDim {}, globalStrides {} B, boxDim {}, elementStrides {}, \
             interleave none, swizzle {})",
            8 * self.elem_bytes,
            list(&self.dims),
            list(&self.strides),
            list(&self.box_dims),
            list(&self.element_strides),
            self.swizzle
        )
    }
}
