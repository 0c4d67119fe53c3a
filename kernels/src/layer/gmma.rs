//! Hopper operands: the wgmma descriptors of a shared-memory operand as a tensor. A tiled MMA of
//! a GMMA atom that reads A or B from shared memory (`*_SS`) partitions the operand's tile into
//! one `MN x K` block per atom call; each block becomes a 64-bit matrix descriptor (PTX ISA,
//! "Matrix Descriptor Format"). The host derives every block's descriptor with
//! [`gmma_descriptor`] (checked element by element), proves that they share every field but the
//! start address and that the start address is an affine function of the partition's
//! coordinates, and emits that function as the tensor's layout: a body slices the descriptors
//! of a stage (`tCrA(thread, _, _, _, stage)`) and hands them to `tessel::gemm`; each is the
//! start field added to a per-thread base in one 32-bit add.

use std::collections::HashMap;

use tessel_layout::gmma::{GmmaDescriptor, gmma_descriptor};
use tessel_layout::{ComposedLayout, Layout, SliceCoord};

use super::mma::DeviceMma;
use super::tensor::{DeviceTensor, Origin, Space, from_modes};
use crate::error::{GpuError, GpuResult};

/// The fields every descriptor of a descriptor tensor shares, and its layout's unit.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct DescriptorBase {
    /// The descriptor with start address 0 (LBO, SBO, base offset and swizzle mode).
    pub fields: GmmaDescriptor,
}

impl DescriptorBase {
    /// The 64-bit encoding of the shared fields (start address 0).
    pub fn bits(&self) -> GpuResult<u64> {
        Ok(GmmaDescriptor {
            start_address: 0,
            ..self.fields
        }
        .encode()?)
    }
}

impl DeviceMma {
    /// The descriptor tensor of operand `op` (`'A'` or `'B'`) read from shared memory through
    /// `smem` (an `(MN, K, rest...)` tensor): `(thread, 1, MMA_MN, MMA_K, rest...)`, whose value
    /// is the descriptor of the block one atom call reads. Its layout gives the start address
    /// in 16-byte units relative to the tensor's base; [`Space::Descriptor`] holds the shared
    /// fields. Errors: an operand the atom reads from registers, a block no descriptor
    /// addresses (the first misplaced element named), descriptors that differ in more than the
    /// start address, or start addresses that are not one affine function of the coordinates.
    ///
    /// ```
    /// use tessel_kernels::{kernel::CType, layer::{DeviceMma, DeviceTensor, Space}};
    /// use tessel_layout::{atom::mma_atom, gmma::{smem_atom, Major, SwizzleMode}, tiled::make_tiled_mma};
    /// let tm = make_tiled_mma(&mma_atom("SM90_64x256x16_F32F16F16_SS").unwrap(),
    ///                         &"(2,1,1):(1,0,0)".parse().unwrap(), &[]).unwrap();
    /// let mma = DeviceMma::new("wg", tm);
    /// // Four stages of a 128 x 64 fp16 tile in the 128B-swizzled K-major GMMA layout.
    /// let stage = smem_atom(Major::K, SwizzleMode::B128, 16).unwrap()
    ///     .tile_to_shape(&"(128,64,4)".parse().unwrap()).unwrap();
    /// let d = mma.partition_descriptors('A', &DeviceTensor::shared(CType::B16, stage)).unwrap();
    /// assert_eq!(d.extents(), vec![256, 1, 1, 4, 4]);
    /// // Warpgroup 1 starts 64 rows (8 KiB) in; a k-block is 32 bytes; a stage 16 KiB.
    /// let at = |t: i64, k: i64, s: i64| d.layout().offset(t + 256 * (k + 4 * s)).unwrap();
    /// assert_eq!((at(128, 0, 0), at(0, 1, 0), at(0, 0, 1)), (512, 2, 1024));
    /// assert!(matches!(d.space(), Space::Descriptor(_)));
    /// ```
    pub fn partition_descriptors(&self, op: char, smem: &DeviceTensor) -> GpuResult<DeviceTensor> {
        let err = |what: String| {
            GpuError::InvalidArgument(format!("tiled MMA {}: operand {op}: {what}", self.name()))
        };
        if smem.space() != Space::Shared {
            return Err(err(format!(
                "descriptors address shared memory, not {smem}"
            )));
        }
        let bytes = smem.elem().bytes() as i64;
        let part = self.partition_operand(op, smem)?;
        let composed = part.layout();
        let inner = composed.layout();
        // (thread, block, MN, K, rest...) -> (thread, MN, K, rest...) at block element 0.
        let mut keep: Vec<SliceCoord> = vec![SliceCoord::All; inner.rank()];
        keep[1] = SliceCoord::Index(0);
        let (origins, origin0) = inner.slice(&SliceCoord::Tuple(keep))?;
        let block = inner.mode(1)?;
        let n = origins.size();
        let mut cache: HashMap<i64, GmmaDescriptor> = HashMap::new();
        let mut shared: Option<GmmaDescriptor> = None;
        let mut starts = Vec::with_capacity(n as usize);
        for i in 0..n {
            let origin = origin0 + origins.offset(i)?;
            let d = match cache.get(&origin) {
                Some(d) => *d,
                None => {
                    let b = ComposedLayout::new(
                        composed.swizzles().to_vec(),
                        composed.base_offset() + origin,
                        block.clone(),
                    );
                    let d = gmma_descriptor(&b, bytes, 0, None).map_err(|e| {
                        err(format!("the block at element {origin} of {smem}: {e}"))
                    })?;
                    cache.insert(origin, d);
                    d
                }
            };
            let base = GmmaDescriptor {
                start_address: 0,
                ..d
            };
            match shared {
                None => shared = Some(base),
                Some(s) if s != base => {
                    return Err(err(format!(
                        "the blocks' descriptors differ in more than the start address: {s:?} \
                         and {base:?}"
                    )));
                }
                Some(_) => {}
            }
            if d.start_address % 16 != 0 {
                return Err(err(format!(
                    "a block starts at byte {}, not a multiple of 16",
                    d.start_address
                )));
            }
            starts.push(d.start_address / 16);
        }
        let fields = shared.ok_or_else(|| err("the operand has no blocks".into()))?;
        // The start address as a layout: the origins' layout in 16-byte units.
        let unit = 16 / bytes.min(16);
        let mut strides = Vec::new();
        for (s, d) in origins.flat_modes() {
            if d % unit != 0 && s > 1 {
                return Err(err(format!(
                    "a block stride of {d} elements is not a whole number of 16-byte units"
                )));
            }
            strides.push(d / unit);
        }
        let units = Layout::new(
            origins.shape().clone(),
            origins
                .stride()
                .with_leaves(&strides)
                .ok_or_else(|| err("internal: the origins' strides changed arity".into()))?,
        )?;
        let first = starts[0];
        for (i, &want) in starts.iter().enumerate() {
            if units.offset(i as i64)? + first != want {
                return Err(err(format!(
                    "the start addresses are not an affine function of the coordinates (index \
                     {i}: {} units, the layout gives {})",
                    want,
                    units.offset(i as i64)? + first
                )));
            }
        }
        // (thread, one descriptor per atom call, MN, K, rest...): mode 1 is the atom's operand,
        // as in every partition the gemm algorithm takes.
        let mut modes = units.modes();
        modes.insert(1, Layout::vector(1, 0)?);
        let out = DeviceTensor::descriptors(
            DescriptorBase { fields },
            first,
            from_modes(modes)?,
            Origin::Mma(self.name().to_string(), op),
        );
        Ok(out)
    }
}
