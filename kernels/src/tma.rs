//! TMA tensor maps (`CUtensorMap`) of row-major matrices and of strided tensors of up to five
//! dimensions, built through the driver's `cuTensorMapEncodeTiled` only after proving that the
//! box they load writes the shared-memory layout the kernel reads.
//!
//! A tiled tensor map describes a global tensor (dimensions, byte strides, element type) and a
//! box; `cp.async.bulk.tensor` copies one box into shared memory, densely, innermost dimension
//! first, under the map's swizzle (CUDA driver API, `cuTensorMapEncodeTiled`). [`TmaPlan::new`]
//! (a matrix) and [`TmaPlan::for_tensor`] (a [`TmaTensor`] of any rank) check on the host what the driver would refuse (16-byte strides, box extents, the swizzle
//! span: [`tessel_layout::gmma::TensorMapParams::tiled`]) and, with
//! [`tessel_layout::gmma::check_box_matches`], that the box's layout is exactly the operand
//! layout the kernel's wgmma descriptors read; [`TmaPlan::encode`] then calls the
//! driver for a device address. The resulting [`TensorMap`] is passed to a kernel by value
//! ([`crate::kernel::Param::tensor_map`], [`crate::kernel::Arg::TensorMap`]).
//!
//! ```
//! use tessel_kernels::{Element, tma::{TmaMatrix, TmaPlan}};
//! use tessel_layout::{IntTuple, gmma::{Major, SwizzleMode, smem_atom}};
//! // A 128 x 64 stage of an fp16 K-major operand, 128-byte swizzled.
//! let stage = smem_atom(Major::K, SwizzleMode::B128, 16).unwrap()
//!     .tile_to_shape(&IntTuple::from_ints([128, 64])).unwrap();
//! let a = TmaMatrix { rows: 1000, cols: 1000, ld: 1000, elem: Element::F16 };
//! let plan = TmaPlan::new(a, [64, 128], SwizzleMode::B128, &stage, Major::K).unwrap();
//! assert_eq!(plan.box_bytes(), 128 * 64 * 2);
//! // A row pitch of 1001 halves is not a multiple of 16 bytes: TMA cannot address it.
//! let odd = TmaMatrix { ld: 1001, cols: 1001, ..a };
//! assert!(TmaPlan::new(odd, [64, 128], SwizzleMode::B128, &stage, Major::K).is_err());
//! ```

use cudarc::driver::DeviceRepr;
use cudarc::driver::sys::{
    self, CUresult, CUtensorMap, CUtensorMapFloatOOBfill, CUtensorMapInterleave,
    CUtensorMapL2promotion, CUtensorMapSwizzle,
};
use tessel_layout::ComposedLayout;
use tessel_layout::gmma::{
    MAX_GLOBAL_DIM, MAX_GLOBAL_STRIDE, Major, SwizzleMode, TensorMapParams, check_box_matches,
    tma_box_layout,
};

use crate::device::driver_present;
use crate::element::{DeviceElement, Element};
use crate::error::{GpuError, GpuResult};

/// A row-major matrix in global memory: `rows x cols` elements, row `r` starting `ld` elements
/// after row `r - 1` (`ld >= cols`).
///
/// ```
/// use tessel_kernels::{Element, tma::{TmaMatrix}};
/// let m = TmaMatrix { rows: 4, cols: 8, ld: 8, elem: Element::F32 };
/// assert_eq!(m.row_pitch_bytes(), 32);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct TmaMatrix {
    /// Rows (the outer tensor dimension).
    pub rows: i64,
    /// Columns (the innermost, contiguous dimension).
    pub cols: i64,
    /// Leading dimension: elements from one row to the next.
    pub ld: i64,
    /// Element type.
    pub elem: Element,
}

impl TmaMatrix {
    /// Bytes from one row to the next (the tensor map's `globalStrides[0]`).
    ///
    /// ```
    /// use tessel_kernels::{Element, tma::{TmaMatrix}};
    /// assert_eq!(TmaMatrix { rows: 2, cols: 3, ld: 8, elem: Element::F16 }.row_pitch_bytes(), 16);
    /// ```
    pub fn row_pitch_bytes(&self) -> i64 {
        self.ld.saturating_mul(self.elem.bytes())
    }
}

/// A tensor in global memory as a tensor map addresses it: `dims` extents, innermost first
/// (`globalDim`); the innermost dimension is contiguous and dimension `i >= 1` steps
/// `strides[i - 1]` elements (`globalStrides`, in elements here). A row-major matrix is the
/// rank-2 tensor `[cols, rows]` with strides `[ld]`; an attention operand laid out `(batch, seq,
/// heads, dim)` is `[dim, seq, heads, batch]` with the sequence, head and batch strides.
///
/// ```
/// use tessel_kernels::{Element, tma::{TmaTensor}};
/// // (batch 2, seq 1000, heads 8, dim 128) fp16, contiguous.
/// let q = TmaTensor::new(&[128, 1000, 8, 2], &[8 * 128, 128, 1000 * 8 * 128], Element::F16).unwrap();
/// assert_eq!((q.rank(), q.stride_bytes(1), q.stride_bytes(2)), (4, 8 * 128 * 2, 128 * 2));
/// // A head stride of 100 halves is 200 bytes: not a multiple of 16.
/// let err = TmaTensor::new(&[128, 1000, 8, 2], &[1024, 100, 1 << 20], Element::F16).unwrap_err();
/// assert!(err.to_string().contains("stride of dimension 2"), "{err}");
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct TmaTensor {
    dims: Vec<i64>,
    strides: Vec<i64>,
    elem: Element,
}

impl TmaTensor {
    /// The tensor of extents `dims` (innermost first, rank 1 to 5) whose dimension `i >= 1`
    /// steps `strides[i - 1]` elements. Errors (naming the dimension): a rank outside 1..=5,
    /// `strides` not one shorter than `dims`, an extent outside `1..=2^32`, or a stride whose
    /// bytes are not a positive multiple of 16 below `2^40` (CUDA driver API,
    /// `cuTensorMapEncodeTiled`).
    ///
    /// ```
    /// use tessel_kernels::{Element, tma::{TmaTensor}};
    /// assert!(TmaTensor::new(&[64, 10], &[64], Element::BF16).is_ok());
    /// assert!(TmaTensor::new(&[64, 10], &[], Element::BF16).is_err());
    /// assert!(TmaTensor::new(&[0, 10], &[64], Element::BF16).is_err());
    /// ```
    pub fn new(dims: &[i64], strides: &[i64], elem: Element) -> GpuResult<TmaTensor> {
        let bad = |what: String| {
            Err(GpuError::InvalidArgument(format!(
                "tensor map of the {elem:?} tensor {dims:?} (strides {strides:?}): {what}"
            )))
        };
        if !(1..=5).contains(&dims.len()) {
            return bad(format!(
                "a tiled tensor map has rank 1 to 5, not {}",
                dims.len()
            ));
        }
        if strides.len() + 1 != dims.len() {
            return bad(format!(
                "{} dimensions take {} strides (the innermost is contiguous)",
                dims.len(),
                dims.len() - 1
            ));
        }
        for (i, &d) in dims.iter().enumerate() {
            if !(1..=MAX_GLOBAL_DIM).contains(&d) {
                return bad(format!("dimension {i} has extent {d}, outside 1..=2^32"));
            }
        }
        for (i, &s) in strides.iter().enumerate() {
            let bytes = s.saturating_mul(elem.bytes());
            if s <= 0 || bytes % 16 != 0 || bytes >= MAX_GLOBAL_STRIDE {
                return bad(format!(
                    "the stride of dimension {} is {s} elements ({bytes} bytes); TMA needs a \
                     positive multiple of 16 bytes below 2^40 (for 2-byte elements: a multiple \
                     of 8 elements)",
                    i + 1
                ));
            }
        }
        Ok(TmaTensor {
            dims: dims.to_vec(),
            strides: strides.to_vec(),
            elem,
        })
    }

    /// Extents, innermost first.
    ///
    /// ```
    /// use tessel_kernels::{Element, tma::{TmaTensor}};
    /// assert_eq!(TmaTensor::new(&[8, 3], &[8], Element::F32).unwrap().dims(), &[8, 3]);
    /// ```
    pub fn dims(&self) -> &[i64] {
        &self.dims
    }

    /// Element strides of dimensions `1..rank`.
    ///
    /// ```
    /// use tessel_kernels::{Element, tma::{TmaTensor}};
    /// assert_eq!(TmaTensor::new(&[8, 3], &[12], Element::F32).unwrap().strides(), &[12]);
    /// ```
    pub fn strides(&self) -> &[i64] {
        &self.strides
    }

    /// The element type.
    ///
    /// ```
    /// use tessel_kernels::{Element, tma::{TmaTensor}};
    /// assert_eq!(TmaTensor::new(&[8], &[], Element::F32).unwrap().elem(), Element::F32);
    /// ```
    pub fn elem(&self) -> Element {
        self.elem
    }

    /// Number of dimensions.
    ///
    /// ```
    /// use tessel_kernels::{Element, tma::{TmaTensor}};
    /// assert_eq!(TmaTensor::new(&[8, 2, 2], &[8, 16], Element::F16).unwrap().rank(), 3);
    /// ```
    pub fn rank(&self) -> usize {
        self.dims.len()
    }

    /// Bytes between consecutive indices of dimension `i >= 1` (`globalStrides[i - 1]`); 0 for
    /// dimension 0 or one beyond the rank.
    ///
    /// ```
    /// use tessel_kernels::{Element, tma::{TmaTensor}};
    /// assert_eq!(TmaTensor::new(&[8, 2], &[16], Element::F16).unwrap().stride_bytes(1), 32);
    /// ```
    pub fn stride_bytes(&self, i: usize) -> i64 {
        match i.checked_sub(1).and_then(|j| self.strides.get(j)) {
            Some(&s) => s * self.elem.bytes(),
            None => 0,
        }
    }
}

impl From<TmaMatrix> for TmaTensor {
    /// The rank-2 tensor `[cols, rows]` with strides `[ld]` (unchecked: [`TmaPlan::new`] checks
    /// the matrix with its own messages first).
    fn from(m: TmaMatrix) -> TmaTensor {
        TmaTensor {
            dims: vec![m.cols, m.rows],
            strides: vec![m.ld],
            elem: m.elem,
        }
    }
}

/// A checked recipe for one tensor map: the tensor, the driver's parameters
/// ([`TensorMapParams`]: the box, innermost first, as `boxDim` lists it, `[cols, rows]` for a
/// matrix, 1 beyond a tensor's first two dimensions; the swizzle), and the shared layout the
/// box's first two dimensions were proven to write.
///
/// ```
/// use tessel_kernels::{Element, tma::{TmaMatrix, TmaPlan}};
/// use tessel_layout::gmma::{Major, SwizzleMode, smem_atom};
/// let atom = smem_atom(Major::K, SwizzleMode::B128, 16).unwrap();
/// let m = TmaMatrix { rows: 8, cols: 64, ld: 64, elem: Element::F16 };
/// let plan = TmaPlan::new(m, [64, 8], SwizzleMode::B128, &atom, Major::K).unwrap();
/// assert_eq!(plan.box_layout().to_string(), "Sw<3,3,3> o (64,8):(1,64)");
/// assert_eq!(plan.map().strides(), &[128]);
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TmaPlan {
    tensor: TmaTensor,
    map: TensorMapParams,
    box_layout: ComposedLayout,
}

impl TmaPlan {
    /// Checks `matrix`, `box_dims` (`[cols, rows]` of the box) and `mode` against the driver's
    /// rules and proves that the box writes `smem` (an operand layout, mode 0 MN and mode 1 K,
    /// [`Major`] saying which is contiguous: K-major operands are loaded with K innermost).
    ///
    /// Errors ([`GpuError::InvalidArgument`] or the layout error): a dimension outside
    /// `1..=2^32`, `ld < cols`, a row pitch that is not a multiple of 16 bytes or not below
    /// `2^40`, a box the driver refuses ([`TensorMapParams::tiled`]), or a box layout that
    /// differs from `smem` (naming the first element).
    ///
    /// ```
    /// use tessel_kernels::{Element, tma::{TmaMatrix, TmaPlan}};
    /// use tessel_layout::gmma::{Major, SwizzleMode, smem_atom};
    /// let atom = smem_atom(Major::K, SwizzleMode::B128, 16).unwrap();
    /// let m = TmaMatrix { rows: 8, cols: 64, ld: 64, elem: Element::F16 };
    /// // The 64-byte swizzle does not write the 128-byte-swizzled atom.
    /// let err = TmaPlan::new(m, [32, 8], SwizzleMode::B64, &atom, Major::K).unwrap_err();
    /// assert!(err.to_string().contains("box is 32x8"), "{err}");
    /// ```
    pub fn new(
        matrix: TmaMatrix,
        box_dims: [i64; 2],
        mode: SwizzleMode,
        smem: &ComposedLayout,
        major: Major,
    ) -> GpuResult<TmaPlan> {
        Self::check_matrix(&matrix)?;
        TmaPlan::proven(matrix.into(), &box_dims, mode, smem, major)
    }

    /// [`TmaPlan::new`] for a tensor of any rank: `box_dims` has one extent per dimension, the
    /// first two the 2-D box proven to write `smem` (an operand layout, mode 0 MN and mode 1
    /// K) and every further one 1 (one index of each outer dimension per load). Errors: a box
    /// of another rank, an outer box extent other than 1, a box the driver refuses, or a box
    /// layout that differs from `smem`.
    ///
    /// ```
    /// use tessel_kernels::{Element, tma::{TmaPlan, TmaTensor}};
    /// use tessel_layout::{IntTuple, gmma::{Major, SwizzleMode, smem_atom}};
    /// // 128 rows of 64 dims of one head of one batch of a (2, 1000, 8, 64) fp16 tensor.
    /// let q = TmaTensor::new(&[64, 1000, 8, 2], &[512, 64, 512_000], Element::F16).unwrap();
    /// let tile = smem_atom(Major::K, SwizzleMode::B128, 16).unwrap()
    ///     .tile_to_shape(&IntTuple::from_ints([128, 64])).unwrap();
    /// let plan = TmaPlan::for_tensor(q.clone(), &[64, 128, 1, 1], SwizzleMode::B128, &tile, Major::K).unwrap();
    /// assert_eq!((plan.box_dims(), plan.box_bytes()), ([64, 128], 128 * 64 * 2));
    /// assert_eq!(plan.map().box_dims(), &[64, 128, 1, 1]);
    /// assert!(TmaPlan::for_tensor(q, &[64, 128, 2, 1], SwizzleMode::B128, &tile, Major::K).is_err());
    /// ```
    pub fn for_tensor(
        tensor: TmaTensor,
        box_dims: &[i64],
        mode: SwizzleMode,
        smem: &ComposedLayout,
        major: Major,
    ) -> GpuResult<TmaPlan> {
        if box_dims.len() != tensor.rank() || tensor.rank() < 2 {
            return Err(GpuError::InvalidArgument(format!(
                "tensor map of the tensor {:?}: a box of rank {} for a rank-{} tensor (both at \
                 least 2)",
                tensor.dims,
                box_dims.len(),
                tensor.rank()
            )));
        }
        if let Some(i) = (2..box_dims.len()).find(|&i| box_dims[i] != 1) {
            return Err(GpuError::InvalidArgument(format!(
                "tensor map of the tensor {:?}: box extent {} of dimension {i}; the boxes load \
                 one index of every dimension after the first two",
                tensor.dims, box_dims[i]
            )));
        }
        TmaPlan::proven(tensor, box_dims, mode, smem, major)
    }

    /// The driver's parameters of `box_dims` and `mode` over `tensor`
    /// ([`TensorMapParams::tiled`]: extents, 16-byte strides, the box, the swizzle span).
    fn params(
        tensor: &TmaTensor,
        box_dims: &[i64],
        mode: SwizzleMode,
    ) -> GpuResult<TensorMapParams> {
        let strides: Vec<i64> = (1..tensor.rank()).map(|i| tensor.stride_bytes(i)).collect();
        Ok(TensorMapParams::tiled(
            tensor.elem.bytes(),
            &tensor.dims,
            &strides,
            box_dims,
            mode,
        )?)
    }

    /// The plan after the driver's rules and the proof that the box's first two dimensions
    /// write `smem` (rank at least 2, checked by the callers).
    fn proven(
        tensor: TmaTensor,
        box_dims: &[i64],
        mode: SwizzleMode,
        smem: &ComposedLayout,
        major: Major,
    ) -> GpuResult<TmaPlan> {
        let map = Self::params(&tensor, box_dims, mode)?;
        let box_layout = tma_box_layout(&box_dims[..2], tensor.elem.bytes(), mode)?;
        check_box_matches(&box_layout, smem, major)?;
        Ok(TmaPlan {
            tensor,
            map,
            box_layout,
        })
    }

    /// The same box, swizzle and proven shared layout over another tensor of the same rank and
    /// element type: the proof depends only on the box, the element size and the swizzle, so
    /// a kernel compiled once encodes a map per call without proving again; only the driver's
    /// rules on the tensor are checked again.
    ///
    /// ```
    /// use tessel_kernels::{Element, tma::{TmaPlan, TmaTensor}};
    /// use tessel_layout::{IntTuple, gmma::{Major, SwizzleMode, smem_atom}};
    /// let tile = smem_atom(Major::K, SwizzleMode::B128, 16).unwrap()
    ///     .tile_to_shape(&IntTuple::from_ints([128, 64])).unwrap();
    /// let probe = TmaTensor::new(&[64, 128, 1], &[64, 8192], Element::F16).unwrap();
    /// let plan = TmaPlan::for_tensor(probe, &[64, 128, 1], SwizzleMode::B128, &tile, Major::K).unwrap();
    /// let real = TmaTensor::new(&[64, 4097, 16], &[1024, 64], Element::F16).unwrap();
    /// assert_eq!(plan.with_tensor(real).unwrap().tensor().dims(), &[64, 4097, 16]);
    /// let wrong = TmaTensor::new(&[64, 4097], &[1024], Element::F16).unwrap();
    /// assert!(plan.with_tensor(wrong).is_err()); // another rank
    /// ```
    pub fn with_tensor(&self, tensor: TmaTensor) -> GpuResult<TmaPlan> {
        if tensor.rank() != self.tensor.rank() || tensor.elem != self.tensor.elem {
            return Err(GpuError::InvalidArgument(format!(
                "tensor map: the box {:?} was proven for rank-{} {:?} tensors, not the rank-{} \
                 {:?} tensor {:?}",
                self.map.box_dims(),
                self.tensor.rank(),
                self.tensor.elem,
                tensor.rank(),
                tensor.elem,
                tensor.dims
            )));
        }
        let map = Self::params(&tensor, self.map.box_dims(), self.map.swizzle())?;
        Ok(TmaPlan {
            tensor,
            map,
            box_layout: self.box_layout.clone(),
        })
    }

    /// [`TmaPlan::with_tensor`] of a matrix (a call's operand, where the plan was proven on a
    /// stand-in), after the matrix's own checks ([`TmaPlan::new`]'s errors for the matrix).
    ///
    /// ```
    /// use tessel_kernels::{Element, tma::{TmaMatrix, TmaPlan}};
    /// use tessel_layout::gmma::{Major, SwizzleMode, smem_atom};
    /// let atom = smem_atom(Major::K, SwizzleMode::B128, 16).unwrap();
    /// let m = TmaMatrix { rows: 8, cols: 64, ld: 64, elem: Element::F16 };
    /// let plan = TmaPlan::new(m, [64, 8], SwizzleMode::B128, &atom, Major::K).unwrap();
    /// let big = TmaMatrix { rows: 5000, cols: 3000, ld: 3008, elem: Element::F16 };
    /// let t = plan.for_matrix(big).unwrap();
    /// assert_eq!((t.tensor().dims(), t.tensor().strides()), (&[3000, 5000][..], &[3008][..]));
    /// let odd = TmaMatrix { ld: 3001, ..big };
    /// assert!(plan.for_matrix(odd).unwrap_err().to_string().contains("multiple of 16 bytes"));
    /// ```
    pub fn for_matrix(&self, matrix: TmaMatrix) -> GpuResult<TmaPlan> {
        if matrix.elem != self.tensor.elem {
            return Err(GpuError::InvalidArgument(format!(
                "tensor map: the plan holds {:?} elements, the matrix {:?}",
                self.tensor.elem, matrix.elem
            )));
        }
        Self::check_matrix(&matrix)?;
        self.with_tensor(matrix.into())
    }

    /// The rules on a tensor map's matrix that are its own (see [`TmaPlan::new`]; the row
    /// pitch is [`TensorMapParams::tiled`]'s).
    fn check_matrix(matrix: &TmaMatrix) -> GpuResult<()> {
        let bad = |what: String| {
            Err(GpuError::InvalidArgument(format!(
                "tensor map of the {}x{} matrix (ld {}, {:?}): {what}",
                matrix.rows, matrix.cols, matrix.ld, matrix.elem
            )))
        };
        for (name, v) in [("rows", matrix.rows), ("cols", matrix.cols)] {
            if !(1..=MAX_GLOBAL_DIM).contains(&v) {
                return bad(format!("{name} = {v} is outside 1..=2^32"));
            }
        }
        if matrix.ld < matrix.cols {
            return bad(format!(
                "the leading dimension {} is below the {} columns",
                matrix.ld, matrix.cols
            ));
        }
        Ok(())
    }

    /// The tensor (a matrix is `[cols, rows]` with strides `[ld]`).
    ///
    /// ```
    /// # use tessel_kernels::{Element, tma::{TmaMatrix, TmaPlan}};
    /// # use tessel_layout::gmma::{Major, SwizzleMode, smem_atom};
    /// # let atom = smem_atom(Major::K, SwizzleMode::B128, 16).unwrap();
    /// let m = TmaMatrix { rows: 8, cols: 64, ld: 72, elem: Element::F16 };
    /// let plan = TmaPlan::new(m, [64, 8], SwizzleMode::B128, &atom, Major::K).unwrap();
    /// assert_eq!((plan.tensor().dims(), plan.tensor().strides()), (&[64, 8][..], &[72][..]));
    /// ```
    pub fn tensor(&self) -> &TmaTensor {
        &self.tensor
    }

    /// The driver's parameters (`globalDim`, `globalStrides` in bytes, `boxDim`, ...).
    ///
    /// ```
    /// # use tessel_kernels::{Element, tma::{TmaMatrix, TmaPlan}};
    /// # use tessel_layout::gmma::{Major, SwizzleMode, smem_atom};
    /// # let atom = smem_atom(Major::K, SwizzleMode::B128, 16).unwrap();
    /// let m = TmaMatrix { rows: 8, cols: 64, ld: 72, elem: Element::F16 };
    /// let plan = TmaPlan::new(m, [64, 8], SwizzleMode::B128, &atom, Major::K).unwrap();
    /// assert_eq!((plan.map().dims(), plan.map().strides()), (&[64, 8][..], &[144][..]));
    /// ```
    pub fn map(&self) -> &TensorMapParams {
        &self.map
    }

    /// The box's first two extents, `[cols, rows]` (innermost first; any further ones are 1).
    ///
    /// ```
    /// # use tessel_kernels::{Element, tma::{TmaMatrix, TmaPlan}};
    /// # use tessel_layout::gmma::{Major, SwizzleMode, smem_atom};
    /// # let atom = smem_atom(Major::K, SwizzleMode::B128, 16).unwrap();
    /// # let m = TmaMatrix { rows: 8, cols: 64, ld: 64, elem: Element::F16 };
    /// assert_eq!(TmaPlan::new(m, [64, 8], SwizzleMode::B128, &atom, Major::K).unwrap().box_dims(), [64, 8]);
    /// ```
    pub fn box_dims(&self) -> [i64; 2] {
        let b = self.map.box_dims();
        [b[0], b[1]]
    }

    /// The swizzle mode.
    ///
    /// ```
    /// # use tessel_kernels::{Element, tma::{TmaMatrix, TmaPlan}};
    /// # use tessel_layout::gmma::{Major, SwizzleMode, smem_atom};
    /// # let atom = smem_atom(Major::K, SwizzleMode::B128, 16).unwrap();
    /// # let m = TmaMatrix { rows: 8, cols: 64, ld: 64, elem: Element::F16 };
    /// assert_eq!(TmaPlan::new(m, [64, 8], SwizzleMode::B128, &atom, Major::K).unwrap().mode(), SwizzleMode::B128);
    /// ```
    pub fn mode(&self) -> SwizzleMode {
        self.map.swizzle()
    }

    /// The shared layout one box writes ([`tma_box_layout`] of its first two extents), proven
    /// equal to the operand's.
    ///
    /// ```
    /// # use tessel_kernels::{Element, tma::{TmaMatrix, TmaPlan}};
    /// # use tessel_layout::gmma::{Major, SwizzleMode, smem_atom};
    /// # let atom = smem_atom(Major::K, SwizzleMode::B128, 16).unwrap();
    /// # let m = TmaMatrix { rows: 8, cols: 64, ld: 64, elem: Element::F16 };
    /// let plan = TmaPlan::new(m, [64, 8], SwizzleMode::B128, &atom, Major::K).unwrap();
    /// assert_eq!(plan.box_layout().layout().size(), 512);
    /// ```
    pub fn box_layout(&self) -> &ComposedLayout {
        &self.box_layout
    }

    /// Bytes one box moves: what the kernel's `mbarrier.arrive.expect_tx` announces (a box
    /// partly outside the tensor still counts in full; TMA fills those elements with zeros).
    ///
    /// ```
    /// # use tessel_kernels::{Element, tma::{TmaMatrix, TmaPlan}};
    /// # use tessel_layout::gmma::{Major, SwizzleMode, smem_atom};
    /// # let atom = smem_atom(Major::K, SwizzleMode::B128, 16).unwrap();
    /// # let m = TmaMatrix { rows: 8, cols: 64, ld: 64, elem: Element::F16 };
    /// assert_eq!(TmaPlan::new(m, [64, 8], SwizzleMode::B128, &atom, Major::K).unwrap().box_bytes(), 1024);
    /// ```
    pub fn box_bytes(&self) -> i64 {
        self.map.box_bytes()
    }

    /// The driver's swizzle value of [`TmaPlan::mode`].
    fn swizzle(&self) -> CUtensorMapSwizzle {
        match self.mode() {
            SwizzleMode::None => CUtensorMapSwizzle::CU_TENSOR_MAP_SWIZZLE_NONE,
            SwizzleMode::B32 => CUtensorMapSwizzle::CU_TENSOR_MAP_SWIZZLE_32B,
            SwizzleMode::B64 => CUtensorMapSwizzle::CU_TENSOR_MAP_SWIZZLE_64B,
            SwizzleMode::B128 => CUtensorMapSwizzle::CU_TENSOR_MAP_SWIZZLE_128B,
        }
    }

    /// Encodes the tensor map of the tensor at device address `address` with
    /// `cuTensorMapEncodeTiled` (no interleave, 256-byte L2 promotion, zero fill out of
    /// bounds). `address` must be 16-byte aligned. Errors: [`GpuError::Unavailable`] without a
    /// CUDA driver, [`GpuError::Cuda`] naming the `CUresult` the driver returned.
    ///
    /// ```
    /// # use tessel_kernels::{Element, tma::{TmaMatrix, TmaPlan}};
    /// # use tessel_layout::gmma::{Major, SwizzleMode, smem_atom};
    /// # let atom = smem_atom(Major::K, SwizzleMode::B128, 16).unwrap();
    /// # let m = TmaMatrix { rows: 8, cols: 64, ld: 64, elem: Element::F16 };
    /// let plan = TmaPlan::new(m, [64, 8], SwizzleMode::B128, &atom, Major::K).unwrap();
    /// // A misaligned address is refused before the driver is asked.
    /// assert!(plan.encode(0x1002).unwrap_err().to_string().contains("16-byte aligned"));
    /// ```
    pub fn encode(&self, address: u64) -> GpuResult<TensorMap> {
        if !address.is_multiple_of(16) {
            return Err(GpuError::InvalidArgument(format!(
                "tensor map: the global address {address:#x} is not 16-byte aligned"
            )));
        }
        if !driver_present() {
            return Err(GpuError::Unavailable(
                "no CUDA driver (libcuda could not be loaded) to encode a tensor map".into(),
            ));
        }
        let map = &self.map;
        // Validated by TensorMapParams::tiled: rank 1 to 5, every value positive and in range
        // of its type.
        let dims: Vec<u64> = map.dims().iter().map(|&d| d as u64).collect();
        let strides: Vec<u64> = map.strides().iter().map(|&s| s as u64).collect();
        let boxes: Vec<u32> = map.box_dims().iter().map(|&b| b as u32).collect();
        let element_strides: Vec<u32> = map.element_strides().iter().map(|&e| e as u32).collect();
        let mut raw = CUtensorMap { opaque: [0; 16] };
        // SAFETY: `dims`, `boxes` and `element_strides` hold `rank` values and `strides` `rank -
        // 1` (TensorMapParams::tiled checked the lengths); `raw` is a properly aligned
        // CUtensorMap.
        let result = unsafe {
            sys::cuTensorMapEncodeTiled(
                &mut raw,
                self.tensor.elem.tensor_map_type(),
                map.rank() as u32,
                address as *mut std::ffi::c_void,
                dims.as_ptr(),
                strides.as_ptr(),
                boxes.as_ptr(),
                element_strides.as_ptr(),
                CUtensorMapInterleave::CU_TENSOR_MAP_INTERLEAVE_NONE,
                self.swizzle(),
                CUtensorMapL2promotion::CU_TENSOR_MAP_L2_PROMOTION_L2_256B,
                CUtensorMapFloatOOBfill::CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE,
            )
        };
        if result != CUresult::CUDA_SUCCESS {
            return Err(GpuError::Cuda(format!(
                "cuTensorMapEncodeTiled: {result:?} ({map}, {:?}, address {address:#x})",
                self.tensor.elem
            )));
        }
        Ok(TensorMap {
            raw: RawTensorMap(raw),
            plan: self.clone(),
        })
    }
}

/// The driver's opaque 128-byte tensor map as a kernel argument (pushed by value).
///
/// ```
/// assert_eq!(std::mem::size_of::<tessel_kernels::tma::RawTensorMap>(), 128);
/// assert_eq!(std::mem::align_of::<tessel_kernels::tma::RawTensorMap>() % 64, 0);
/// ```
#[derive(Clone, Copy, Debug)]
#[repr(transparent)]
pub struct RawTensorMap(pub CUtensorMap);

// SAFETY: a plain-old-data 128-byte struct that the kernel receives by value as its own
// `tessel_tensor_map` (the same size; the driver copies the bytes into the parameter space).
unsafe impl DeviceRepr for RawTensorMap {}

/// An encoded tensor map with the plan it was encoded from.
///
/// ```
/// let Ok(gpu) = tessel_kernels::Gpu::open(0) else { return }; // no GPU: nothing to run
/// use tessel_kernels::cudarc::driver::DevicePtr;
/// use tessel_kernels::{Element, tma::{TmaMatrix, TmaPlan}};
/// use tessel_layout::gmma::{Major, SwizzleMode, smem_atom};
/// let atom = smem_atom(Major::K, SwizzleMode::B128, 16).unwrap();
/// let buf = gpu.stream().alloc_zeros::<u16>(8 * 64).unwrap();
/// let (ptr, _g) = buf.device_ptr(gpu.stream());
/// let m = TmaMatrix { rows: 8, cols: 64, ld: 64, elem: Element::F16 };
/// let map = TmaPlan::new(m, [64, 8], SwizzleMode::B128, &atom, Major::K).unwrap().encode(ptr).unwrap();
/// assert_eq!(map.plan().box_dims(), [64, 8]);
/// ```
#[derive(Clone, Debug)]
pub struct TensorMap {
    raw: RawTensorMap,
    plan: TmaPlan,
}

impl TensorMap {
    /// The bytes the kernel receives.
    ///
    /// ```
    /// let _ = tessel_kernels::tma::TensorMap::raw; // see TensorMap for a use on a GPU
    /// ```
    pub fn raw(&self) -> &RawTensorMap {
        &self.raw
    }

    /// The plan it was encoded from.
    ///
    /// ```
    /// let _ = tessel_kernels::tma::TensorMap::plan; // see TensorMap for a use on a GPU
    /// ```
    pub fn plan(&self) -> &TmaPlan {
        &self.plan
    }
}
