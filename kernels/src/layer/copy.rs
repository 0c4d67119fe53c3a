//! [`DeviceCopy`]: a tiled copy of a kernel (CuTe's `TiledCopy` with a name), the partitions
//! it makes (`partition_S`, `partition_D`, `retile`), and the host checks that make a copy
//! that does not fit its tensors a build error.

use tessel_layout::ComposedLayout;
use tessel_layout::atom::{CopyAtom, Direction, SmemAccess};
use tessel_layout::tiled::TiledCopy;

use super::check::{
    RegisterSide, check_hand_over, check_register_runs, check_runs, check_threads, identities,
};
use super::tensor::{DeviceTensor, Origin, Space, from_modes};
use crate::error::{GpuError, GpuResult};

/// Which side of a copy a partition is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Side {
    Src,
    Dst,
}

/// A tiled copy as a kernel uses it: its name in the kernel (`copy::NAME` in the body) and
/// CuTe's `TiledCopy` (an atom, a thread layout and a value layout).
///
/// ```
/// use tessel_kernels::{kernel::CType, layer::{DeviceCopy, DeviceTensor}};
/// use tessel_layout::{atom::copy_atom, tiled::make_tiled_copy};
/// let atom = copy_atom("UniversalCopy<uint128_t>").unwrap().typed(32).unwrap();
/// let tc = make_tiled_copy(&atom, &"(8,32):(32,1)".parse().unwrap(),
///                          &"(1,4):(0,1)".parse().unwrap()).unwrap();
/// let load = DeviceCopy::new("load", tc);
/// let g = DeviceTensor::global(CType::F32, "(8,128):(128,1)".parse().unwrap());
/// let t = load.partition_s(&g).unwrap();
/// // (thread, atom values, atoms per thread, tiles M, tiles N)
/// assert_eq!(t.extents(), vec![256, 4, 1, 1, 1]);
/// // A column-major tensor cannot be read with 16-byte row vectors.
/// let col = DeviceTensor::global(CType::F32, "(8,128):(1,8)".parse().unwrap());
/// let err = load.partition_s(&col).unwrap_err();
/// assert!(err.to_string().contains("not 4 consecutive elements"), "{err}");
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DeviceCopy {
    name: String,
    tiled: TiledCopy,
}

impl DeviceCopy {
    /// The tiled copy `tiled`, called `name` in the kernel.
    ///
    /// ```
    /// use tessel_kernels::layer::DeviceCopy;
    /// use tessel_layout::{atom::copy_atom, tiled::make_tiled_copy};
    /// let atom = copy_atom("UniversalCopy<uint32_t>").unwrap().typed(32).unwrap();
    /// let tc = make_tiled_copy(&atom, &"32:1".parse().unwrap(), &"1:0".parse().unwrap()).unwrap();
    /// assert_eq!(DeviceCopy::new("mv", tc).name(), "mv");
    /// ```
    pub fn new(name: &str, tiled: TiledCopy) -> DeviceCopy {
        DeviceCopy {
            name: name.to_string(),
            tiled,
        }
    }

    /// The name in the kernel.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// CuTe's `TiledCopy`.
    pub fn tiled(&self) -> &TiledCopy {
        &self.tiled
    }

    /// The atom.
    pub fn atom(&self) -> &CopyAtom {
        self.tiled.atom().atom()
    }

    /// Bits of one value.
    pub fn value_bits(&self) -> i64 {
        self.tiled.atom().value_bits()
    }

    /// Values of one atom call on `side`, per thread.
    pub(crate) fn values(&self, side: Side) -> i64 {
        match side {
            Side::Src => self.tiled.atom().num_val_src(),
            Side::Dst => self.tiled.atom().num_val_dst(),
        }
    }

    fn err(&self, what: String) -> GpuError {
        GpuError::InvalidArgument(format!("tiled copy {}: {what}", self.name))
    }

    /// The partition of every thread at once: `(thread, atom values, atoms, rest...)`.
    fn partition(&self, t: &DeviceTensor, side: Side) -> GpuResult<DeviceTensor> {
        t.require_static(&format!("the partition by tiled copy {}", self.name))?;
        let tile_rank = self.tiled.tiler().len();
        if t.rank() < tile_rank {
            return Err(self.err(format!(
                "the tensor {t} has rank {} but the copy tiles {tile_rank} modes",
                t.rank()
            )));
        }
        let bits = t.elem().bytes() as i64 * 8;
        if t.space() != Space::Coord && bits != self.value_bits() {
            return Err(self.err(format!(
                "the tensor {t} holds {bits}-bit elements but the copy moves {}-bit values",
                self.value_bits()
            )));
        }
        let layout = t.layout().layout();
        let tidfrg = match side {
            Side::Src => self.tiled.tidfrg_s(layout),
            Side::Dst => self.tiled.tidfrg_d(layout),
        }?;
        // (thread, (FrgV, FrgX), (rest...)) -> thread, FrgV, FrgX, rest...
        let frg = tidfrg.mode(1)?;
        let mut modes = vec![tidfrg.mode(0)?, frg.mode(0)?, frg.mode(1)?];
        modes.extend(tidfrg.mode(2)?.modes());
        let inner = from_modes(modes)?;
        let origin = match side {
            Side::Src => Origin::CopySrc(self.name.clone()),
            Side::Dst => Origin::CopyDst(self.name.clone()),
        };
        let out = t.with_layout(t.relayout(inner), origin);
        self.check_side(&out, side)?;
        Ok(out)
    }

    /// The host checks of one side: every thread's atom values are what the instruction moves
    /// (consecutive and aligned in memory where it moves vectors).
    fn check_side(&self, t: &DeviceTensor, side: Side) -> GpuResult<()> {
        let values = self.values(side);
        let frg_v = t.extents()[1];
        if frg_v != values {
            return Err(self.err(format!(
                "one atom call moves {values} values per thread on the {} side but the partition \
                 of {t} gives {frg_v}",
                match side {
                    Side::Src => "source",
                    Side::Dst => "destination",
                }
            )));
        }
        check_threads(&self.name, t, self.tiled.threads())?;
        if matches!(t.space(), Space::Global | Space::Shared) && self.moves_runs(side, t.space()) {
            check_runs(&self.name, t, values)?;
        }
        Ok(())
    }

    /// Whether the instruction reads or writes each thread's values on `side` as one run of
    /// consecutive elements (a vector access, a `cp.async`, an `ldmatrix`/`stmatrix` row).
    fn moves_runs(&self, side: Side, space: Space) -> bool {
        match self.atom().access() {
            SmemAccess::Vector { .. } => true,
            SmemAccess::CpAsync { .. } => true,
            SmemAccess::Ldmatrix { .. } => side == Side::Src && space == Space::Shared,
            SmemAccess::Stmatrix { .. } => side == Side::Dst && space == Space::Shared,
            // A bulk transfer moves one contiguous run of whole 16-byte units.
            SmemAccess::Bulk { .. } => true,
            // movmatrix: registers to registers.
            SmemAccess::Registers => false,
        }
    }

    /// CuTe's `partition_S` for every thread: `(thread, CPY values, CPY atoms, CPY_M, CPY_N,
    /// ...)` of a tensor whose leading modes are the copy's tile (more tiles and further modes
    /// follow). Checked: element width, one atom's values per thread, and (for instructions that
    /// move vectors) that each thread's values are consecutive and aligned.
    ///
    /// ```
    /// use tessel_kernels::{kernel::CType, layer::{DeviceCopy, DeviceTensor, Origin}};
    /// use tessel_layout::{atom::copy_atom, tiled::make_tiled_copy};
    /// let atom = copy_atom("UniversalCopy<uint64_t>").unwrap().typed(32).unwrap();
    /// let c = DeviceCopy::new("c", make_tiled_copy(&atom, &"4:1".parse().unwrap(),
    ///                                              &"2:1".parse().unwrap()).unwrap());
    /// let t = c.partition_s(&DeviceTensor::global(CType::F32, "16:1".parse().unwrap())).unwrap();
    /// assert_eq!(t.layout().to_string(), "(4,2,1,2):(2,1,0,8)");
    /// assert_eq!(t.origin(), &Origin::CopySrc("c".into()));
    /// ```
    pub fn partition_s(&self, t: &DeviceTensor) -> GpuResult<DeviceTensor> {
        self.partition(t, Side::Src)
    }

    /// CuTe's `partition_D` for every thread (see [`partition_s`](Self::partition_s)).
    ///
    /// ```
    /// use tessel_kernels::{kernel::CType, layer::{DeviceCopy, DeviceTensor}};
    /// use tessel_layout::{atom::copy_atom, tiled::make_tiled_copy};
    /// let atom = copy_atom("UniversalCopy<uint32_t>").unwrap().typed(32).unwrap();
    /// let c = DeviceCopy::new("c", make_tiled_copy(&atom, &"(2,2):(2,1)".parse().unwrap(),
    ///                                              &"1:0".parse().unwrap()).unwrap());
    /// let t = c.partition_d(&DeviceTensor::global(CType::F32, "(4,4):(4,1)".parse().unwrap())).unwrap();
    /// assert_eq!(t.extents(), vec![4, 1, 1, 2, 2]);
    /// ```
    pub fn partition_d(&self, t: &DeviceTensor) -> GpuResult<DeviceTensor> {
        self.partition(t, Side::Dst)
    }

    /// CuTe's `retile_S`/`retile_D`: a thread's register fragment `(V, rest...)` (laid out by
    /// another partitioner, e.g. an MMA) seen as this copy's `(atom values, atoms, rest...)`:
    /// the same registers, another layout (`side` is the side of the copy the registers are).
    /// Checked: the view addresses the fragment's registers only, and each atom call's values
    /// are consecutive registers (aligned to their number), which the atom reads or writes from
    /// the first.
    ///
    /// ```
    /// use tessel_kernels::{kernel::CType, layer::{DeviceCopy, DeviceTensor}};
    /// use tessel_layout::{atom::copy_atom, tiled::make_tiled_copy};
    /// let atom = copy_atom("UniversalCopy<uint64_t>").unwrap().typed(32).unwrap();
    /// let c = DeviceCopy::new("c", make_tiled_copy(&atom, &"4:1".parse().unwrap(),
    ///                                              &"4:1".parse().unwrap()).unwrap());
    /// let frag = DeviceTensor::fragment(CType::F32, &"(4,2)".parse().unwrap()).unwrap();
    /// let view = c.retile_d(&frag).unwrap();
    /// assert_eq!(view.extents()[0], 2); // one atom: two 32-bit values
    /// ```
    pub fn retile_d(&self, fragment: &DeviceTensor) -> GpuResult<DeviceTensor> {
        self.retile(fragment, Side::Dst)
    }

    /// [`retile_d`](Self::retile_d) for registers on the source side.
    pub fn retile_s(&self, fragment: &DeviceTensor) -> GpuResult<DeviceTensor> {
        self.retile(fragment, Side::Src)
    }

    fn retile(&self, fragment: &DeviceTensor, side: Side) -> GpuResult<DeviceTensor> {
        if fragment.space() != Space::Register {
            return Err(self.err(format!("retile takes a register fragment, not {fragment}")));
        }
        let r = self.tiled.retile(fragment.layout().layout())?;
        // ((atom values, atoms), rest...) -> atom values, atoms, rest...
        let head = r.mode(0)?;
        let mut modes = vec![head.mode(0)?, head.mode(1)?];
        modes.extend(r.modes().into_iter().skip(1));
        let inner = from_modes(modes)?;
        let origin = match side {
            Side::Src => Origin::CopySrc(self.name.clone()),
            Side::Dst => Origin::CopyDst(self.name.clone()),
        };
        let view = fragment.with_layout(ComposedLayout::from_layout(inner), origin);
        let cosize = view.cosize()?;
        if cosize > fragment.cosize()? {
            return Err(self.err(format!(
                "retile of {fragment} reaches register {} beyond the fragment's {}",
                cosize - 1,
                fragment.cosize()?
            )));
        }
        let values = self.values(side);
        if view.extents()[0] != values {
            return Err(self.err(format!(
                "retile of {fragment}: one atom call moves {values} values but the view's mode 0 \
                 has {}",
                view.extents()[0]
            )));
        }
        // An instruction atom takes one call's registers as consecutive words from the first; a
        // `UniversalCopy` gathers them element by element through the view's layout.
        if self.atom().asm_template().is_some() {
            check_register_runs(&self.name, &view, values)?;
        }
        Ok(view)
    }

    /// Checks a register staging: this copy writes the registers of `fragment` (through `view`,
    /// its [`retile_d`](Self::retile_d) or the fragment itself) and `next` reads them (through
    /// `next_view`, its [`retile_s`](Self::retile_s) of the fragment), both over the tile of
    /// extents `shape`: for every thread, `next` finds in every register the element this copy
    /// put there. Two copies of one tile with different atoms (a 128-bit global load, scalar
    /// shared stores) order each thread's values by their own atoms; a mismatch is a build
    /// error, not a transposed tile.
    ///
    /// ```
    /// use tessel_kernels::{kernel::CType, layer::{DeviceCopy, DeviceTensor}};
    /// use tessel_layout::{atom::copy_atom, tiled::make_tiled_copy};
    /// let (thr, val) = ("(8,4):(4,1)".parse().unwrap(), "(1,4):(0,1)".parse().unwrap());
    /// let v4 = copy_atom("UniversalCopy<uint128_t>").unwrap().typed(32).unwrap();
    /// let v1 = copy_atom("UniversalCopy<uint32_t>").unwrap().typed(32).unwrap();
    /// let load = DeviceCopy::new("load", make_tiled_copy(&v4, &thr, &val).unwrap());
    /// let store = DeviceCopy::new("store", make_tiled_copy(&v1, &thr, &val).unwrap());
    /// let g = load.partition_s(&DeviceTensor::global(CType::F32, "(8,16):(16,1)".parse().unwrap())).unwrap();
    /// let regs = g.fragment_like(1..g.rank()).unwrap().group(&[&[0, 1], &[2], &[3]]).unwrap();
    /// let seen = store.retile_s(&regs).unwrap();
    /// load.check_relay(&regs, &store, &seen, &regs, &[8, 16]).unwrap();
    /// ```
    pub fn check_relay(
        &self,
        view: &DeviceTensor,
        next: &DeviceCopy,
        next_view: &DeviceTensor,
        fragment: &DeviceTensor,
        shape: &[i64],
    ) -> GpuResult<()> {
        let threads = self.tiled.threads();
        if next.tiled().threads() != threads {
            return Err(self.err(format!(
                "the copy {} has {} threads, this one {threads}",
                next.name(),
                next.tiled().threads()
            )));
        }
        let (rows, cols) = identities(shape)?;
        let writer = RegisterSide {
            name: format!("the copy {}", self.name),
            rows: self.partition_d(&rows)?,
            cols: self.partition_d(&cols)?,
            regs: view,
        };
        let reader = RegisterSide {
            name: format!("the copy {}", next.name()),
            rows: next.partition_s(&rows)?,
            cols: next.partition_s(&cols)?,
            regs: next_view,
        };
        check_hand_over(&writer, &reader, threads, fragment.cosize()?)
    }

    /// The C++ statement(s) of one atom call, `s` and `d` being the slices of mode 0 (the
    /// device types of `tessel_tensor.cuh`), or `None` for a plain assignment of vectors
    /// (`UniversalCopy`), which the header does by width.
    pub(crate) fn call_body(&self, atom_fn: &str) -> GpuResult<Option<String>> {
        let atom = self.atom();
        if atom.asm_template().is_none() {
            return Ok(None);
        }
        let mut args = Vec::new();
        for op in atom.operands() {
            let arg = match (op.role, op.direction) {
                ("smem", _) => match atom.access().smem_side() {
                    tessel_layout::atom::SmemSide::Source => "s.addr()".to_string(),
                    _ => "d.addr()".to_string(),
                },
                ("gmem", _) => "s.ptr()".to_string(),
                ("dst", Direction::In) => "reinterpret_cast<const b32*>(d.ptr())".to_string(),
                ("dst", _) => "reinterpret_cast<b32*>(d.ptr())".to_string(),
                ("src", _) => "reinterpret_cast<const b32*>(s.ptr())".to_string(),
                (role, _) => {
                    return Err(self.err(format!(
                        "the atom {} has an operand {role} that a tensor copy cannot pass",
                        atom.name()
                    )));
                }
            };
            args.push(arg);
        }
        Ok(Some(format!("dev::{atom_fn}({});", args.join(", "))))
    }
}
