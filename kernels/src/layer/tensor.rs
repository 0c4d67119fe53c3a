//! [`DeviceTensor`]: a tensor of a kernel as the host declares it — where its elements live,
//! their type, and its layout — and the layout operations that make new tensors from it
//! (`local_tile`, slicing a mode, fragments), all run on the host with tessel's algebra.

use std::fmt;

use tessel_layout::codegen::SymLayout;
use tessel_layout::{ComposedLayout, IntTuple, Layout, Tiler, zipped_divide};

use crate::error::{GpuError, GpuResult};
use crate::kernel::CType;

/// Where a tensor's elements live.
///
/// ```
/// use tessel_kernels::layer::Space;
/// assert_eq!(Space::Shared.to_string(), "shared memory");
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Space {
    /// Global memory, through a pointer parameter.
    Global,
    /// Shared memory, through a pointer into the block's shared memory.
    Shared,
    /// Registers: a fragment owning an array of its cosize.
    Register,
    /// Coordinates: the value of an element is its coordinate in the tensor it was made from
    /// (an identity tensor, used for predication).
    Coord,
    /// wgmma matrix descriptors of shared-memory blocks: the layout gives each block's start
    /// address in 16-byte units from the shared tensor's base; the other fields are shared.
    Descriptor(super::gmma::DescriptorBase),
}

impl fmt::Display for Space {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Space::Global => "global memory",
            Space::Shared => "shared memory",
            Space::Register => "registers",
            Space::Coord => "coordinates",
            Space::Descriptor(_) => "wgmma descriptors",
        })
    }
}

/// Which partitioner made a tensor, and of which side: the device types carry it so that
/// `copy(tiled_copy, src, dst)` and `gemm(tiled_mma, a, b, c)` only meet tensors the host
/// checked against that copy or MMA.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Origin {
    /// A tensor that no copy or MMA partitioned.
    Plain,
    /// `partition_S` of a tiled copy.
    CopySrc(String),
    /// `partition_D` of a tiled copy.
    CopyDst(String),
    /// `partition_A`, `_B` or `_C` of a tiled MMA (the operand letter).
    Mma(String, char),
}

/// A tensor of a kernel: a space, an element type, and a layout whose top-level modes are the
/// tensor's modes (each may be hierarchical inside). The layout may be swizzled.
///
/// Partitions put the thread first: `partition_S` of a tiled copy of `T` threads gives
/// `(T, CPY, CPY_M, CPY_N, ...)`, which a kernel body slices at its thread index
/// (`tAgA(threadIdx.x, _, _, _)`).
///
/// ```
/// use tessel_kernels::{kernel::CType, layer::{DeviceTensor, Space}};
/// let a = DeviceTensor::global(CType::F32, "(64,32):(32,1)".parse().unwrap());
/// let tiles = a.local_tile(&[16, 8]).unwrap();
/// // (tile M, tile N, tiles M, tiles N)
/// assert_eq!(tiles.layout().to_string(), "(16,8,4,4):(32,1,512,8)");
/// assert_eq!(tiles.space(), Space::Global);
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DeviceTensor {
    space: Space,
    elem: CType,
    layout: ComposedLayout,
    origin: Origin,
    /// The layout with its run-time strides ([`DeviceTensor::global_strided`]); `layout` then
    /// holds its shape (the run-time strides as 0).
    runtime: Option<SymLayout>,
    bound: Bound,
}

/// What `tessel::elem_less` does with a coordinate tensor: compare it with its bound at run
/// time, or nothing (the host proved every coordinate below the bound).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Bound {
    /// The coordinate (an identity tensor), compared where `elem_less` reads it; also every
    /// tensor that is not a coordinate tensor.
    None,
    /// Every coordinate below the bound ([`DeviceTensor::unchecked`]): `elem_less` skips it.
    Always,
}

/// The layout whose top-level modes are `modes`, in order.
pub(crate) fn from_modes(modes: Vec<Layout>) -> GpuResult<Layout> {
    Layout::from_modes(modes).map_err(GpuError::from)
}

impl DeviceTensor {
    fn new(space: Space, elem: CType, layout: ComposedLayout) -> DeviceTensor {
        DeviceTensor {
            space,
            elem,
            layout,
            origin: Origin::Plain,
            runtime: None,
            bound: Bound::None,
        }
    }

    /// A tensor in global memory (a pointer parameter of the kernel).
    ///
    /// ```
    /// use tessel_kernels::{kernel::CType, layer::DeviceTensor};
    /// let t = DeviceTensor::global(CType::B16, "(128,64):(64,1)".parse().unwrap());
    /// assert_eq!(t.size(), 128 * 64);
    /// ```
    pub fn global(elem: CType, layout: Layout) -> DeviceTensor {
        DeviceTensor::new(Space::Global, elem, layout.into())
    }

    /// A tensor in global memory whose strides may be run-time values of the kernel (CuTe's
    /// dynamic strides): `layout`'s symbols (e.g. `(64,256):(ld,1)`) are members of the emitted
    /// layout object, given in order when the body makes the tensor
    /// (`tensor::NAME(ptr, ld)`); its shape is static (a tile whose origin the body puts in
    /// the pointer). The body indexes and slices it; the host derivations that compose its
    /// layout (`local_tile`, partitions, `group`) need integer strides and refuse it (partition
    /// an identity tensor of its shape instead, as copy_if does). [`bind`](Self::bind) gives the
    /// tensor for given stride values (the host twin of the device's offsets).
    ///
    /// ```
    /// use tessel_kernels::{kernel::CType, layer::DeviceTensor};
    /// let d = DeviceTensor::global_strided(CType::F32, "(64,128):(ld,1)".parse().unwrap()).unwrap();
    /// assert_eq!((d.extents(), d.symbols()), (vec![64, 128], vec!["ld".to_string()]));
    /// let bound = d.bind(&|s| (s == "ld").then_some(1000)).unwrap();
    /// assert_eq!(bound.layout().offset(1).unwrap(), 1000); // (1, 0)
    /// assert!(d.local_tile(&[16, 16]).unwrap_err().to_string().contains("run-time strides"));
    /// ```
    pub fn global_strided(elem: CType, layout: SymLayout) -> GpuResult<DeviceTensor> {
        let shape_only = layout.bind(&|_| Some(0))?;
        let mut t = DeviceTensor::new(Space::Global, elem, shape_only.into());
        t.runtime = Some(layout);
        Ok(t)
    }

    /// The layout with its run-time strides, for a [`global_strided`](Self::global_strided)
    /// tensor.
    pub fn runtime_layout(&self) -> Option<&SymLayout> {
        self.runtime.as_ref()
    }

    /// The run-time strides' names, in the order the body gives them (empty for a tensor
    /// whose layout is known).
    pub fn symbols(&self) -> Vec<String> {
        self.runtime
            .as_ref()
            .map(|l| l.symbols())
            .unwrap_or_default()
    }

    /// The same tensor with its run-time strides given values (itself when it has none).
    pub fn bind(&self, value: &dyn Fn(&str) -> Option<i64>) -> GpuResult<DeviceTensor> {
        let mut t = self.clone();
        if let Some(l) = t.runtime.take() {
            t.layout = l.bind(value)?.into();
        }
        Ok(t)
    }

    /// `Err` for a tensor with run-time strides: `what` composes its layout on the host.
    pub(crate) fn require_static(&self, what: &str) -> GpuResult<()> {
        match &self.runtime {
            None => Ok(()),
            Some(l) => Err(GpuError::InvalidArgument(format!(
                "{what} of the tensor {l} with run-time strides: the host derivations need \
                 integer strides (partition an identity tensor of its shape and index it)"
            ))),
        }
    }

    /// A tensor in shared memory with a (possibly swizzled) layout.
    ///
    /// ```
    /// use tessel_kernels::{kernel::CType, layer::DeviceTensor};
    /// let s = DeviceTensor::shared(CType::B16, "Sw<3,3,3> o (8,64):(64,1)".parse().unwrap());
    /// assert_eq!(s.cosize().unwrap(), 512);
    /// ```
    pub fn shared(elem: CType, layout: ComposedLayout) -> DeviceTensor {
        DeviceTensor::new(Space::Shared, elem, layout)
    }

    /// A register fragment with the compact column-major layout of `shape`'s modes (CuTe's
    /// `make_fragment_like` of a tensor of that shape): mode 0 is contiguous, so one atom's
    /// values sit in consecutive registers.
    ///
    /// ```
    /// use tessel_kernels::{kernel::CType, layer::DeviceTensor};
    /// let f = DeviceTensor::fragment(CType::F32, &"((2,2),4,8)".parse().unwrap()).unwrap();
    /// assert_eq!(f.layout().to_string(), "((2,2),4,8):((1,2),4,16)");
    /// ```
    pub fn fragment(elem: CType, shape: &IntTuple) -> GpuResult<DeviceTensor> {
        Ok(DeviceTensor::new(
            Space::Register,
            elem,
            Layout::col_major(shape)?.into(),
        ))
    }

    /// A fragment shaped like this tensor's modes `modes` (CuTe's `make_fragment_like` of one
    /// thread's slice: a partition's thread mode, and the tile coordinates after its per-thread
    /// modes, are left out).
    ///
    /// ```
    /// use tessel_kernels::{kernel::CType, layer::DeviceTensor};
    /// let g = DeviceTensor::global(CType::F32, "(4,(2,2),3,5):(1,(8,4),16,48)".parse().unwrap());
    /// let f = g.fragment_like(1..3).unwrap();
    /// assert_eq!(f.layout().to_string(), "((2,2),3):((1,2),4)");
    /// ```
    pub fn fragment_like(&self, modes: std::ops::Range<usize>) -> GpuResult<DeviceTensor> {
        let all = self.layout.layout().modes();
        if modes.is_empty() || modes.end > all.len() {
            return Err(GpuError::InvalidArgument(format!(
                "fragment_like: modes {modes:?} of a rank-{} tensor",
                all.len()
            )));
        }
        let shape = IntTuple::tuple(all[modes].iter().map(|m| m.shape().clone()));
        DeviceTensor::fragment(self.elem, &shape)
    }

    /// A rank-1 coordinate tensor whose element `i` is `layout(i)`: integers computed from a
    /// layout (a tile scheduler's origin of tile `i`, say), without storage.
    ///
    /// ```
    /// use tessel_kernels::layer::{DeviceTensor, Space};
    /// let t = DeviceTensor::coordinates("(4,2):(128,0)".parse().unwrap()).unwrap();
    /// assert_eq!((t.space(), t.rank(), t.layout().offset(3).unwrap()), (Space::Coord, 1, 384));
    /// ```
    pub fn coordinates(layout: Layout) -> GpuResult<DeviceTensor> {
        Ok(DeviceTensor::new(
            Space::Coord,
            CType::I32,
            from_modes(vec![layout])?.into(),
        ))
    }

    /// The identity tensor of a `shape` (CuTe's `make_identity_tensor`): element `c` holds
    /// coordinate `c`. It is emitted as one integer tensor per coordinate: this is the tensor of
    /// coordinate `which`, whose layout maps a coordinate of `shape` to its entry `which`.
    ///
    /// ```
    /// use tessel_kernels::layer::DeviceTensor;
    /// let rows = DeviceTensor::identity(&[4, 8], 0).unwrap();
    /// assert_eq!(rows.layout().to_string(), "(4,8):(1,0)");
    /// let cols = DeviceTensor::identity(&[4, 8], 1).unwrap();
    /// assert_eq!(cols.layout().to_string(), "(4,8):(0,1)");
    /// ```
    pub fn identity(shape: &[i64], which: usize) -> GpuResult<DeviceTensor> {
        if which >= shape.len() {
            return Err(GpuError::InvalidArgument(format!(
                "identity tensor: coordinate {which} of a rank-{} shape",
                shape.len()
            )));
        }
        let strides = (0..shape.len()).map(|i| i64::from(i == which));
        let layout = Layout::new(
            IntTuple::from_ints(shape.iter().copied()),
            IntTuple::from_ints(strides),
        )?;
        Ok(DeviceTensor::new(Space::Coord, CType::I32, layout.into()))
    }

    /// A tensor of wgmma descriptors (see [`DeviceMma::partition_descriptors`](super::DeviceMma::partition_descriptors)):
    /// block `c` starts `first + layout(c)` 16-byte units after the shared tensor's base.
    pub(crate) fn descriptors(
        base: super::gmma::DescriptorBase,
        first: i64,
        layout: Layout,
        origin: Origin,
    ) -> DeviceTensor {
        DeviceTensor {
            space: Space::Descriptor(base),
            elem: CType::new("uint64_t", 8),
            layout: ComposedLayout::new(Vec::new(), first, layout),
            origin,
            runtime: None,
            bound: Bound::None,
        }
    }

    /// The coordinate tensor with its comparison removed: `tessel::elem_less(t, bound, ...)`
    /// holds everywhere without reading it. The host proves it first: every coordinate of the
    /// tensor (after its partitions and slices, its largest offset) lies below `bound`. A kernel
    /// declares this when the problem is whole tiles, and `copy_if` becomes `copy`.
    ///
    /// ```
    /// use tessel_kernels::layer::{Bound, DeviceTensor};
    /// let rows = DeviceTensor::identity(&[128, 16], 0).unwrap();
    /// assert_eq!(rows.unchecked(128).unwrap().bound(), Bound::Always);
    /// let err = rows.unchecked(100).unwrap_err();
    /// assert!(err.to_string().contains("coordinate 127 is not below the bound 100"), "{err}");
    /// ```
    pub fn unchecked(&self, bound: i64) -> GpuResult<DeviceTensor> {
        if self.space != Space::Coord || self.bound != Bound::None {
            return Err(GpuError::InvalidArgument(format!(
                "unchecked: {self} is not a coordinate tensor (DeviceTensor::identity)"
            )));
        }
        let (_, max) = self.layout.value_range()?;
        if max >= bound {
            return Err(GpuError::InvalidArgument(format!(
                "unchecked: coordinate {max} is not below the bound {bound}, so the comparison \
                 with {self} is not true everywhere"
            )));
        }
        let mut t = self.clone();
        t.bound = Bound::Always;
        Ok(t)
    }

    /// What a coordinate tensor's elements are ([`Bound::None`] for every other tensor).
    ///
    /// ```
    /// use tessel_kernels::layer::{Bound, DeviceTensor};
    /// assert_eq!(DeviceTensor::identity(&[4], 0).unwrap().bound(), Bound::None);
    /// ```
    pub fn bound(&self) -> Bound {
        self.bound
    }

    /// Where the elements live.
    ///
    /// ```
    /// use tessel_kernels::{kernel::CType, layer::{DeviceTensor, Space}};
    /// assert_eq!(DeviceTensor::global(CType::F32, "8:1".parse().unwrap()).space(), Space::Global);
    /// ```
    pub fn space(&self) -> Space {
        self.space
    }

    /// The element type.
    ///
    /// ```
    /// use tessel_kernels::{kernel::CType, layer::DeviceTensor};
    /// assert_eq!(DeviceTensor::global(CType::F32, "8:1".parse().unwrap()).elem(), CType::F32);
    /// ```
    pub fn elem(&self) -> CType {
        self.elem
    }

    /// The layout (top-level modes = the tensor's modes).
    ///
    /// ```
    /// use tessel_kernels::{kernel::CType, layer::DeviceTensor};
    /// let t = DeviceTensor::global(CType::F32, "(4,8):(8,1)".parse().unwrap());
    /// assert_eq!(t.layout().to_string(), "(4,8):(8,1)");
    /// ```
    pub fn layout(&self) -> &ComposedLayout {
        &self.layout
    }

    /// Which copy or MMA partitioned this tensor.
    ///
    /// ```
    /// use tessel_kernels::{kernel::CType, layer::{DeviceTensor, Origin}};
    /// assert_eq!(DeviceTensor::global(CType::F32, "8:1".parse().unwrap()).origin(), &Origin::Plain);
    /// ```
    pub fn origin(&self) -> &Origin {
        &self.origin
    }

    /// Number of modes.
    ///
    /// ```
    /// use tessel_kernels::{kernel::CType, layer::DeviceTensor};
    /// assert_eq!(DeviceTensor::global(CType::F32, "(4,(2,2)):(1,(4,8))".parse().unwrap()).rank(), 2);
    /// ```
    pub fn rank(&self) -> usize {
        self.layout.layout().rank()
    }

    /// Number of elements.
    ///
    /// ```
    /// use tessel_kernels::{kernel::CType, layer::DeviceTensor};
    /// assert_eq!(DeviceTensor::global(CType::F32, "(4,8):(8,1)".parse().unwrap()).size(), 32);
    /// ```
    pub fn size(&self) -> i64 {
        self.layout.layout().size()
    }

    /// The extent of each top-level mode.
    ///
    /// ```
    /// use tessel_kernels::{kernel::CType, layer::DeviceTensor};
    /// let t = DeviceTensor::global(CType::F32, "(4,(2,3)):(1,(4,8))".parse().unwrap());
    /// assert_eq!(t.extents(), vec![4, 6]);
    /// ```
    pub fn extents(&self) -> Vec<i64> {
        self.layout
            .layout()
            .modes()
            .iter()
            .map(Layout::size)
            .collect()
    }

    /// Elements the storage spans: the largest offset plus one (swizzles included); what a
    /// fragment's array or a shared buffer must hold.
    ///
    /// ```
    /// use tessel_kernels::{kernel::CType, layer::DeviceTensor};
    /// let t = DeviceTensor::shared(CType::F32, "(32,32):(33,1)".parse().unwrap());
    /// assert_eq!(t.cosize().unwrap(), 31 * 33 + 31 + 1);
    /// ```
    pub fn cosize(&self) -> GpuResult<i64> {
        self.require_static("cosize")?;
        let (_, max) = self.layout.value_range()?;
        Ok(max + 1)
    }

    /// The modes whose offset the device computes together (the *hoisted* modes, mode 0 — the
    /// thread — among them) when the layout is swizzled: the offset is then emitted as their
    /// base plus one term per other mode, which a kernel computes once per thread and adds
    /// (constants in unrolled loops, a pipeline stage) instead of applying the swizzle at every
    /// access. The smallest such set the host proves exact for every coordinate (the groups'
    /// bits are disjoint before and after the swizzle, which is linear over GF(2)); `None` for
    /// a plain layout (already a sum of per-mode terms) or when no mode can be split off.
    ///
    /// ```
    /// use tessel_kernels::{kernel::CType, layer::DeviceTensor};
    /// // (thread, k step, stage) of a 64-byte-row tile under Sw<2,3,3>: the k step's chunk bit
    /// // (16 = bit 4) is one the swizzle writes, so it is hoisted with the thread; the stage
    /// // is added.
    /// let t = DeviceTensor::shared(CType::B16, "Sw<2,3,3> o (32,2,3):(32,16,4096)".parse().unwrap());
    /// assert_eq!(t.hoisted_modes().unwrap(), Some(vec![0, 1]));
    /// assert!(t.check_split(&[0]).unwrap_err().to_string().contains("modes [0] and [1] share bits 0x10"));
    /// ```
    pub fn hoisted_modes(&self) -> GpuResult<Option<Vec<usize>>> {
        Ok(self.device_offset()?.hoisted().map(<[usize]>::to_vec))
    }

    /// The offset function the emitted code computes (split when
    /// [`hoisted_modes`](Self::hoisted_modes) is `Some`): the host twin for CPU replays.
    ///
    /// ```
    /// use tessel_kernels::{kernel::CType, layer::DeviceTensor};
    /// let t = DeviceTensor::global(CType::F32, "(4,8):(8,1)".parse().unwrap());
    /// assert_eq!(t.device_offset().unwrap().at(&[1, 2]).unwrap(), 10);
    /// ```
    pub fn device_offset(&self) -> GpuResult<super::DeviceOffset> {
        self.require_static("the offset function")?;
        super::DeviceOffset::new(&self.layout)
    }

    /// `Ok` when the offset splits exactly into a base over the modes `hoisted` plus one term
    /// per other mode (see [`hoisted_modes`](Self::hoisted_modes)); otherwise the error names
    /// the two groups of modes whose bits overlap.
    ///
    /// ```
    /// use tessel_kernels::{kernel::CType, layer::DeviceTensor};
    /// let t = DeviceTensor::shared(CType::B16, "Sw<2,3,3> o (32,2,3):(32,16,4096)".parse().unwrap());
    /// assert!(t.check_split(&[0, 1]).is_ok());
    /// assert!(t.check_split(&[0, 7]).is_err()); // no mode 7
    /// ```
    pub fn check_split(&self, hoisted: &[usize]) -> GpuResult<()> {
        let rank = self.rank();
        if let Some(&m) = hoisted.iter().find(|&&m| m >= rank) {
            return Err(GpuError::InvalidArgument(format!(
                "offset split of {self}: mode {m} of a rank-{rank} tensor"
            )));
        }
        match super::split::split_conflict(&self.layout, hoisted)? {
            None => Ok(()),
            Some(super::split::Conflict::Negative(a)) => Err(GpuError::InvalidArgument(format!(
                "offset split of {self}: modes {a:?} reach negative offsets"
            ))),
            Some(super::split::Conflict::Shared { a, b, bits }) => {
                Err(GpuError::InvalidArgument(format!(
                    "offset split of {self} with hoisted modes {hoisted:?}: modes {a:?} and {b:?} \
                     share bits {bits:#x} (before or after the swizzle), so their offsets do not \
                     add"
                )))
            }
        }
    }

    /// The same tensor with another layout (same space, element type and origin).
    pub(crate) fn with_layout(&self, layout: ComposedLayout, origin: Origin) -> DeviceTensor {
        DeviceTensor {
            space: self.space,
            elem: self.elem,
            layout,
            origin,
            runtime: None,
            bound: self.bound,
        }
    }

    /// CuTe's `local_tile` of every tile at once: the tensor divided into tiles of `tile`
    /// (one extent per leading mode), with the tile's modes first and the tile coordinates
    /// after: `(T0, T1, ..., R0, R1, ..., rest...)`. A kernel slices the tile coordinates at
    /// its block's tile (`gA(_, _, bm, bk)`). Each extent must divide its mode.
    ///
    /// ```
    /// use tessel_kernels::{kernel::CType, layer::DeviceTensor};
    /// let a = DeviceTensor::global(CType::B16, "(256,128):(128,1)".parse().unwrap());
    /// let g = a.local_tile(&[128, 64]).unwrap();
    /// assert_eq!(g.extents(), vec![128, 64, 2, 2]);
    /// assert!(a.local_tile(&[100, 64]).is_err()); // 100 does not divide 256
    /// ```
    pub fn local_tile(&self, tile: &[i64]) -> GpuResult<DeviceTensor> {
        self.require_static("local_tile")?;
        let layout = self.layout.layout();
        let modes = layout.modes();
        if tile.is_empty() || tile.len() > modes.len() {
            return Err(GpuError::InvalidArgument(format!(
                "local_tile: a tile of rank {} for a rank-{} tensor {}",
                tile.len(),
                modes.len(),
                self.layout
            )));
        }
        for (i, (&t, m)) in tile.iter().zip(&modes).enumerate() {
            if t <= 0 || m.size() % t != 0 {
                return Err(GpuError::InvalidArgument(format!(
                    "local_tile: tile extent {t} does not divide mode {i} (extent {}) of {}",
                    m.size(),
                    self.layout
                )));
            }
        }
        let tiler = Tiler::ByMode(
            tile.iter()
                .map(|&t| Ok(Some(Tiler::Layout(Layout::vector(t, 1)?))))
                .collect::<tessel_layout::Result<Vec<_>>>()?,
        );
        // ((tile modes), (tile coordinates, remaining modes)).
        let divided = zipped_divide(layout, &tiler)?;
        let mut out = divided.mode(0)?.modes();
        out.extend(divided.mode(1)?.modes());
        let inner = from_modes(out)?;
        Ok(self.with_layout(self.relayout(inner), self.origin.clone()))
    }

    /// This tensor's swizzles and base offset around another inner layout (the partitions and
    /// tilings compose on the domain side, so the outer function stays).
    pub(crate) fn relayout(&self, inner: Layout) -> ComposedLayout {
        ComposedLayout::new(
            self.layout.swizzles().to_vec(),
            self.layout.base_offset(),
            inner,
        )
    }

    /// The tensor with its top-level modes regrouped: `groups[i]` lists the modes of this
    /// tensor that form new mode `i` (in order; every mode exactly once).
    ///
    /// ```
    /// use tessel_kernels::{kernel::CType, layer::DeviceTensor};
    /// let t = DeviceTensor::global(CType::F32, "(2,3,4):(1,2,6)".parse().unwrap());
    /// let g = t.group(&[&[0, 1], &[2]]).unwrap();
    /// assert_eq!(g.layout().to_string(), "((2,3),4):((1,2),6)");
    /// ```
    pub fn group(&self, groups: &[&[usize]]) -> GpuResult<DeviceTensor> {
        self.require_static("group")?;
        let modes = self.layout.layout().modes();
        let mut seen = vec![false; modes.len()];
        let mut out = Vec::with_capacity(groups.len());
        for g in groups {
            let mut parts = Vec::with_capacity(g.len());
            for &i in *g {
                if i >= modes.len() || std::mem::replace(&mut seen[i], true) {
                    return Err(GpuError::InvalidArgument(format!(
                        "group: mode {i} of a rank-{} tensor is out of range or used twice",
                        modes.len()
                    )));
                }
                parts.push(modes[i].clone());
            }
            out.push(if parts.len() == 1 {
                parts.pop().unwrap_or_else(|| unreachable!())
            } else {
                from_modes(parts)?
            });
        }
        if seen.iter().any(|s| !s) {
            return Err(GpuError::InvalidArgument(
                "group: every mode must appear in one group".into(),
            ));
        }
        Ok(self.with_layout(self.relayout(from_modes(out)?), self.origin.clone()))
    }
}

impl fmt::Display for DeviceTensor {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (&self.runtime, self.bound) {
            (Some(l), _) => write!(f, "{} tensor of {} {l}", self.space, self.elem.name()),
            (None, Bound::None) => write!(
                f,
                "{} tensor of {} {}",
                self.space,
                self.elem.name(),
                self.layout
            ),
            (None, Bound::Always) => write!(f, "coordinates (below their bound) {}", self.layout),
        }
    }
}
