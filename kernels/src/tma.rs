//! TMA tensor maps (`CUtensorMap`) of row-major matrices, built through the driver's
//! `cuTensorMapEncodeTiled` only after proving that the box they load writes the shared-memory
//! layout the kernel reads.
//!
//! A tiled tensor map describes a global tensor (dimensions, byte strides, element type) and a
//! box; `cp.async.bulk.tensor` copies one box into shared memory, densely, innermost dimension
//! first, under the map's swizzle (CUDA driver API, `cuTensorMapEncodeTiled`). [`TmaPlan::new`]
//! checks on the host what the driver would refuse (16-byte strides, box extents, the swizzle
//! span: [`tessel_layout::gmma::TensorMapParams::tiled`]) and, with
//! [`tessel_layout::gmma::check_box_matches`], that the box's layout is exactly the operand
//! layout the kernel's wgmma descriptors read; [`TmaPlan::encode`] then calls the
//! driver for a device address. The resulting [`TensorMap`] is passed to a kernel by value
//! ([`crate::kernel::Param::tensor_map`], [`crate::kernel::Arg::TensorMap`]).
//!
//! ```
//! use tessel_kernels::tma::{TmaElem, TmaMatrix, TmaPlan};
//! use tessel_layout::{IntTuple, gmma::{Major, SwizzleMode, smem_atom}};
//! // A 128 x 64 stage of an fp16 K-major operand, 128-byte swizzled.
//! let stage = smem_atom(Major::K, SwizzleMode::B128, 16).unwrap()
//!     .tile_to_shape(&IntTuple::from_ints([128, 64])).unwrap();
//! let a = TmaMatrix { rows: 1000, cols: 1000, ld: 1000, elem: TmaElem::F16 };
//! let plan = TmaPlan::new(a, [64, 128], SwizzleMode::B128, &stage, Major::K).unwrap();
//! assert_eq!(plan.box_bytes(), 128 * 64 * 2);
//! // A row pitch of 1001 halves is not a multiple of 16 bytes: TMA cannot address it.
//! let odd = TmaMatrix { ld: 1001, cols: 1001, ..a };
//! assert!(TmaPlan::new(odd, [64, 128], SwizzleMode::B128, &stage, Major::K).is_err());
//! ```

use cudarc::driver::DeviceRepr;
use cudarc::driver::sys::{
    self, CUresult, CUtensorMap, CUtensorMapDataType, CUtensorMapFloatOOBfill,
    CUtensorMapInterleave, CUtensorMapL2promotion, CUtensorMapSwizzle,
};
use tessel_layout::ComposedLayout;
use tessel_layout::gmma::{MAX_GLOBAL_DIM, Major, SwizzleMode, TensorMapParams, check_box_matches};

use crate::device::driver_present;
use crate::error::{GpuError, GpuResult};

/// Element types a tensor map of this crate holds.
///
/// ```
/// use tessel_kernels::tma::TmaElem;
/// assert_eq!((TmaElem::F16.bytes(), TmaElem::BF16.bytes(), TmaElem::F32.bytes()), (2, 2, 4));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TmaElem {
    /// IEEE half (`CU_TENSOR_MAP_DATA_TYPE_FLOAT16`).
    F16,
    /// bfloat16 (`CU_TENSOR_MAP_DATA_TYPE_BFLOAT16`).
    BF16,
    /// IEEE single (`CU_TENSOR_MAP_DATA_TYPE_FLOAT32`).
    F32,
}

impl TmaElem {
    /// Bytes per element.
    ///
    /// ```
    /// assert_eq!(tessel_kernels::tma::TmaElem::BF16.bytes(), 2);
    /// ```
    pub fn bytes(self) -> i64 {
        match self {
            TmaElem::F16 | TmaElem::BF16 => 2,
            TmaElem::F32 => 4,
        }
    }

    /// The driver's data type.
    ///
    /// ```
    /// use tessel_kernels::{cudarc::driver::sys::CUtensorMapDataType, tma::TmaElem};
    /// assert_eq!(TmaElem::BF16.data_type(), CUtensorMapDataType::CU_TENSOR_MAP_DATA_TYPE_BFLOAT16);
    /// ```
    pub fn data_type(self) -> CUtensorMapDataType {
        match self {
            TmaElem::F16 => CUtensorMapDataType::CU_TENSOR_MAP_DATA_TYPE_FLOAT16,
            TmaElem::BF16 => CUtensorMapDataType::CU_TENSOR_MAP_DATA_TYPE_BFLOAT16,
            TmaElem::F32 => CUtensorMapDataType::CU_TENSOR_MAP_DATA_TYPE_FLOAT32,
        }
    }
}

/// A row-major matrix in global memory: `rows x cols` elements, row `r` starting `ld` elements
/// after row `r - 1` (`ld >= cols`).
///
/// ```
/// use tessel_kernels::tma::{TmaElem, TmaMatrix};
/// let m = TmaMatrix { rows: 4, cols: 8, ld: 8, elem: TmaElem::F32 };
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
    pub elem: TmaElem,
}

impl TmaMatrix {
    /// Bytes from one row to the next (the tensor map's `globalStrides[0]`).
    ///
    /// ```
    /// use tessel_kernels::tma::{TmaElem, TmaMatrix};
    /// assert_eq!(TmaMatrix { rows: 2, cols: 3, ld: 8, elem: TmaElem::F16 }.row_pitch_bytes(), 16);
    /// ```
    pub fn row_pitch_bytes(&self) -> i64 {
        self.ld.saturating_mul(self.elem.bytes())
    }
}

/// A checked recipe for one tensor map: matrix, box (`[cols, rows]`, innermost first, as
/// `boxDim` lists it), swizzle, and the shared layout the box was proven to write.
///
/// ```
/// use tessel_kernels::tma::{TmaElem, TmaMatrix, TmaPlan};
/// use tessel_layout::gmma::{Major, SwizzleMode, smem_atom};
/// let atom = smem_atom(Major::K, SwizzleMode::B128, 16).unwrap();
/// let m = TmaMatrix { rows: 8, cols: 64, ld: 64, elem: TmaElem::F16 };
/// let plan = TmaPlan::new(m, [64, 8], SwizzleMode::B128, &atom, Major::K).unwrap();
/// assert_eq!(plan.box_layout().to_string(), "Sw<3,3,3> o (64,8):(1,64)");
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TmaPlan {
    matrix: TmaMatrix,
    box_dims: [i64; 2],
    mode: SwizzleMode,
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
    /// `2^40`, a box the driver refuses ([`TensorMapParams::tiled`]), or a box layout that differs from
    /// `smem` (naming the first element).
    ///
    /// ```
    /// use tessel_kernels::tma::{TmaElem, TmaMatrix, TmaPlan};
    /// use tessel_layout::gmma::{Major, SwizzleMode, smem_atom};
    /// let atom = smem_atom(Major::K, SwizzleMode::B128, 16).unwrap();
    /// let m = TmaMatrix { rows: 8, cols: 64, ld: 64, elem: TmaElem::F16 };
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
        // The driver's rules on the extents, the row pitch and the box (tessel-layout's).
        let map = TensorMapParams::tiled(
            matrix.elem.bytes(),
            &[matrix.cols, matrix.rows],
            &[matrix.row_pitch_bytes()],
            &box_dims,
            mode,
        )?;
        let box_layout = map.box_layout()?;
        check_box_matches(&box_layout, smem, major)?;
        Ok(TmaPlan {
            matrix,
            box_dims,
            mode,
            map,
            box_layout,
        })
    }

    /// The matrix.
    ///
    /// ```
    /// # use tessel_kernels::tma::{TmaElem, TmaMatrix, TmaPlan};
    /// # use tessel_layout::gmma::{Major, SwizzleMode, smem_atom};
    /// # let atom = smem_atom(Major::K, SwizzleMode::B128, 16).unwrap();
    /// let m = TmaMatrix { rows: 8, cols: 64, ld: 64, elem: TmaElem::F16 };
    /// assert_eq!(TmaPlan::new(m, [64, 8], SwizzleMode::B128, &atom, Major::K).unwrap().matrix(), m);
    /// ```
    pub fn matrix(&self) -> TmaMatrix {
        self.matrix
    }

    /// The box, `[cols, rows]` (innermost first).
    ///
    /// ```
    /// # use tessel_kernels::tma::{TmaElem, TmaMatrix, TmaPlan};
    /// # use tessel_layout::gmma::{Major, SwizzleMode, smem_atom};
    /// # let atom = smem_atom(Major::K, SwizzleMode::B128, 16).unwrap();
    /// # let m = TmaMatrix { rows: 8, cols: 64, ld: 64, elem: TmaElem::F16 };
    /// assert_eq!(TmaPlan::new(m, [64, 8], SwizzleMode::B128, &atom, Major::K).unwrap().box_dims(), [64, 8]);
    /// ```
    pub fn box_dims(&self) -> [i64; 2] {
        self.box_dims
    }

    /// The swizzle mode.
    ///
    /// ```
    /// # use tessel_kernels::tma::{TmaElem, TmaMatrix, TmaPlan};
    /// # use tessel_layout::gmma::{Major, SwizzleMode, smem_atom};
    /// # let atom = smem_atom(Major::K, SwizzleMode::B128, 16).unwrap();
    /// # let m = TmaMatrix { rows: 8, cols: 64, ld: 64, elem: TmaElem::F16 };
    /// assert_eq!(TmaPlan::new(m, [64, 8], SwizzleMode::B128, &atom, Major::K).unwrap().mode(), SwizzleMode::B128);
    /// ```
    pub fn mode(&self) -> SwizzleMode {
        self.mode
    }

    /// The shared layout one box writes ([`tessel_layout::gmma::tma_box_layout`]), proven equal
    /// to the operand's.
    ///
    /// ```
    /// # use tessel_kernels::tma::{TmaElem, TmaMatrix, TmaPlan};
    /// # use tessel_layout::gmma::{Major, SwizzleMode, smem_atom};
    /// # let atom = smem_atom(Major::K, SwizzleMode::B128, 16).unwrap();
    /// # let m = TmaMatrix { rows: 8, cols: 64, ld: 64, elem: TmaElem::F16 };
    /// let plan = TmaPlan::new(m, [64, 8], SwizzleMode::B128, &atom, Major::K).unwrap();
    /// assert_eq!(plan.box_layout().layout().size(), 512);
    /// ```
    pub fn box_layout(&self) -> &ComposedLayout {
        &self.box_layout
    }

    /// Bytes one box moves: what the kernel's `mbarrier.arrive.expect_tx` announces (a box
    /// partly outside the matrix still counts in full; TMA fills those elements with zeros).
    ///
    /// ```
    /// # use tessel_kernels::tma::{TmaElem, TmaMatrix, TmaPlan};
    /// # use tessel_layout::gmma::{Major, SwizzleMode, smem_atom};
    /// # let atom = smem_atom(Major::K, SwizzleMode::B128, 16).unwrap();
    /// # let m = TmaMatrix { rows: 8, cols: 64, ld: 64, elem: TmaElem::F16 };
    /// assert_eq!(TmaPlan::new(m, [64, 8], SwizzleMode::B128, &atom, Major::K).unwrap().box_bytes(), 1024);
    /// ```
    pub fn box_bytes(&self) -> i64 {
        self.box_dims[0] * self.box_dims[1] * self.matrix.elem.bytes()
    }

    /// The driver's swizzle value of [`TmaPlan::mode`].
    fn swizzle(&self) -> CUtensorMapSwizzle {
        match self.mode {
            SwizzleMode::None => CUtensorMapSwizzle::CU_TENSOR_MAP_SWIZZLE_NONE,
            SwizzleMode::B32 => CUtensorMapSwizzle::CU_TENSOR_MAP_SWIZZLE_32B,
            SwizzleMode::B64 => CUtensorMapSwizzle::CU_TENSOR_MAP_SWIZZLE_64B,
            SwizzleMode::B128 => CUtensorMapSwizzle::CU_TENSOR_MAP_SWIZZLE_128B,
        }
    }

    /// Encodes the tensor map of the matrix at device address `address` with
    /// `cuTensorMapEncodeTiled` (no interleave, 256-byte L2 promotion, zero fill out of
    /// bounds). `address` must be 16-byte aligned. Errors: [`GpuError::Unavailable`] without a
    /// CUDA driver, [`GpuError::Cuda`] naming the `CUresult` the driver returned.
    ///
    /// ```
    /// # use tessel_kernels::tma::{TmaElem, TmaMatrix, TmaPlan};
    /// # use tessel_layout::gmma::{Major, SwizzleMode, smem_atom};
    /// # let atom = smem_atom(Major::K, SwizzleMode::B128, 16).unwrap();
    /// # let m = TmaMatrix { rows: 8, cols: 64, ld: 64, elem: TmaElem::F16 };
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
        let m = self.matrix;
        // Validated in `new` (TensorMap::tiled): every value is positive and in range of its type.
        let map = &self.map;
        let dims: [u64; 2] = [map.dims()[0] as u64, map.dims()[1] as u64];
        let strides: [u64; 1] = [map.strides()[0] as u64];
        let boxes: [u32; 2] = [map.box_dims()[0] as u32, map.box_dims()[1] as u32];
        let element_strides: [u32; 2] = [
            map.element_strides()[0] as u32,
            map.element_strides()[1] as u32,
        ];
        let mut raw = CUtensorMap { opaque: [0; 16] };
        // SAFETY: every pointer refers to a live local array of the length the rank (2)
        // implies (one stride for rank 2); `raw` is a properly aligned CUtensorMap.
        let result = unsafe {
            sys::cuTensorMapEncodeTiled(
                &mut raw,
                m.elem.data_type(),
                2,
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
                "cuTensorMapEncodeTiled: {result:?} (matrix {}x{}, ld {}, {:?}, box {:?}, {} \
                 swizzle, address {address:#x})",
                m.rows, m.cols, m.ld, m.elem, self.box_dims, self.mode
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
/// use tessel_kernels::tma::{TmaElem, TmaMatrix, TmaPlan};
/// use tessel_layout::gmma::{Major, SwizzleMode, smem_atom};
/// let atom = smem_atom(Major::K, SwizzleMode::B128, 16).unwrap();
/// let buf = gpu.stream().alloc_zeros::<u16>(8 * 64).unwrap();
/// let (ptr, _g) = buf.device_ptr(gpu.stream());
/// let m = TmaMatrix { rows: 8, cols: 64, ld: 64, elem: TmaElem::F16 };
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
