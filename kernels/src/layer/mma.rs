//! [`DeviceMma`]: a tiled MMA of a kernel (CuTe's `TiledMMA` with a name), its partitions
//! (`partition_A/B/C`, `partition_fragment_A/B/C`), and the host check that the copies feeding
//! its fragments put every value where the MMA reads it.

use tessel_layout::atom::{Constraint, Direction, MmaAtom, OperandSource};
use tessel_layout::tiled::TiledMma;

use super::check::check_threads;
use super::copy::DeviceCopy;
use super::tensor::{DeviceTensor, Origin, Space, from_modes};
use crate::error::{GpuError, GpuResult};

/// A tiled MMA as a kernel uses it: its name (`mma::NAME` in the body) and CuTe's `TiledMMA`.
///
/// ```
/// use tessel_kernels::{kernel::CType, layer::{DeviceMma, DeviceTensor}};
/// use tessel_layout::{atom::mma_atom, tiled::make_tiled_mma};
/// let tm = make_tiled_mma(&mma_atom("SM80_16x8x16_F32F16F16F32_TN").unwrap(),
///                         &"(2,2):(1,2)".parse().unwrap(), &[]).unwrap();
/// let mma = DeviceMma::new("mma", tm);
/// let c = DeviceTensor::global(CType::F32, "(64,64):(64,1)".parse().unwrap());
/// let tc = mma.partition_c(&c).unwrap();
/// // (thread, MMA values, MMA_M, MMA_N)
/// assert_eq!(tc.extents(), vec![128, 4, 2, 4]);
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DeviceMma {
    name: String,
    tiled: TiledMma,
}

impl DeviceMma {
    /// The tiled MMA `tiled`, called `name` in the kernel.
    pub fn new(name: &str, tiled: TiledMma) -> DeviceMma {
        DeviceMma {
            name: name.to_string(),
            tiled,
        }
    }

    /// The name in the kernel.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// CuTe's `TiledMMA`.
    pub fn tiled(&self) -> &TiledMma {
        &self.tiled
    }

    /// The atom.
    pub fn atom(&self) -> &MmaAtom {
        self.tiled.atom()
    }

    fn err(&self, what: String) -> GpuError {
        GpuError::InvalidArgument(format!("tiled MMA {}: {what}", self.name))
    }

    fn operand_bits(&self, op: char) -> i64 {
        let a = self.atom();
        match op {
            'A' => a.a_type().bits(),
            'B' => a.b_type().bits(),
            _ => a.c_type().bits(),
        }
    }

    /// [`partition_a`](Self::partition_a)/`_b`/`_c` by operand letter.
    pub(crate) fn partition_operand(&self, op: char, t: &DeviceTensor) -> GpuResult<DeviceTensor> {
        self.partition(op, t)
    }

    fn partition(&self, op: char, t: &DeviceTensor) -> GpuResult<DeviceTensor> {
        t.require_static(&format!("partition_{op} of tiled MMA {}", self.name))?;
        let bits = t.elem().bytes() as i64 * 8;
        if t.space() != Space::Coord && bits != self.operand_bits(op) {
            return Err(self.err(format!(
                "operand {op}: the tensor {t} holds {bits}-bit elements but the atom {} takes \
                 {}-bit values",
                self.atom().name(),
                self.operand_bits(op)
            )));
        }
        let all = self.tiled.partition_by_thread(op, t.layout().layout())?;
        // (thread, (FrgV, (RestI, RestJ, extra...))) -> thread, FrgV, RestI, RestJ, extra...
        let frg = all.mode(1)?;
        let mut modes = vec![all.mode(0)?, frg.mode(0)?];
        modes.extend(frg.mode(1)?.modes());
        let out = t.with_layout(
            t.relayout(from_modes(modes)?),
            Origin::Mma(self.name.clone(), op),
        );
        check_threads(&self.name, &out, self.tiled.threads())?;
        Ok(out)
    }

    /// CuTe's `partition_A` for every thread: `(thread, MMA values, MMA_M, MMA_K, ...)` of an
    /// `(M, K, ...)` tensor.
    pub fn partition_a(&self, t: &DeviceTensor) -> GpuResult<DeviceTensor> {
        self.partition('A', t)
    }

    /// CuTe's `partition_B`: `(thread, MMA values, MMA_N, MMA_K, ...)` of an `(N, K, ...)`
    /// tensor.
    pub fn partition_b(&self, t: &DeviceTensor) -> GpuResult<DeviceTensor> {
        self.partition('B', t)
    }

    /// CuTe's `partition_C`: `(thread, MMA values, MMA_M, MMA_N, ...)` of an `(M, N, ...)`
    /// tensor.
    pub fn partition_c(&self, t: &DeviceTensor) -> GpuResult<DeviceTensor> {
        self.partition('C', t)
    }

    /// CuTe's `partition_fragment_X`: one thread's register fragment of operand `op` of a
    /// tile of `shape` (`(M, K)` for A, `(N, K)` for B, `(M, N)` for C): `(MMA values, MMA_I,
    /// MMA_J)`, compact, element type `elem`.
    ///
    /// ```
    /// use tessel_kernels::{kernel::CType, layer::DeviceMma};
    /// use tessel_layout::{atom::mma_atom, tiled::make_tiled_mma};
    /// let tm = make_tiled_mma(&mma_atom("SM80_16x8x16_F32F16F16F32_TN").unwrap(),
    ///                         &"(2,2):(1,2)".parse().unwrap(), &[]).unwrap();
    /// let mma = DeviceMma::new("mma", tm);
    /// let acc = mma.partition_fragment('C', &[64, 64], tessel_kernels::kernel::CType::F32).unwrap();
    /// assert_eq!(acc.layout().to_string(), "((2,2),2,4):((1,2),4,8)");
    /// ```
    pub fn partition_fragment(
        &self,
        op: char,
        shape: &[i64],
        elem: crate::kernel::CType,
    ) -> GpuResult<DeviceTensor> {
        let probe = DeviceTensor::identity(shape, 0)?;
        let p = self.partition(op, &probe)?;
        let frag = p.fragment_like(1..p.rank())?;
        Ok(
            DeviceTensor::fragment(elem, frag.layout().layout().shape())?
                .with_layout(frag.layout().clone(), Origin::Mma(self.name.clone(), op)),
        )
    }

    /// One wgmma over descriptor operands (`*_SS`: A and B descriptors; `*_RS`: A in
    /// registers): the accumulators in place, the scale of D from the struct's `scale_d` (0 on
    /// a tile's first k-block: D = A B), scales of A and B 1, each descriptor operand's
    /// transpose (`tnspA`/`tnspB`: 1 for MN-major) from its descriptor tensor's engine.
    fn gmma_call_body(&self, atom_fn: &str) -> GpuResult<String> {
        let atom = self.atom();
        let mut args = Vec::new();
        let mut immediates = Vec::new();
        for op in atom.operands() {
            match (op.role, op.constraint) {
                ("d", Constraint::F) => args.push("reinterpret_cast<float*>(c.ptr())".to_string()),
                ("d", Constraint::R) => args.push("reinterpret_cast<b32*>(c.ptr())".to_string()),
                ("desc_a", _) => args.push("a[0]".to_string()),
                ("desc_b", _) => args.push("b[0]".to_string()),
                ("a", _) => args.push("reinterpret_cast<const b32*>(a.ptr())".to_string()),
                ("scale_d", _) => args.push("scale_d".to_string()),
                // The transposes come from the descriptor tensors' engines (their operand's
                // major, derived with the descriptor); the scales are 1.
                (_, Constraint::N) => immediates.push(match op.role {
                    "tnsp_a" => "A::engine_type::tnsp",
                    "tnsp_b" => "B::engine_type::tnsp",
                    _ => "1",
                }),
                (role, _) => {
                    return Err(self.err(format!("operand {role} of {}", atom.name())));
                }
            }
        }
        Ok(format!(
            "dev::{atom_fn}<{}>({});\n    scale_d = 1u;",
            immediates.join(", "),
            args.join(", ")
        ))
    }

    /// Checks that the copy `copy` writing the registers of `view` (its [`DeviceCopy::retile_d`]
    /// of `fragment`, the MMA's operand `op` fragment) from the tile `tile` (the copy's source
    /// partition of the same `(I, J)` tile as the MMA's) puts every value in the register where
    /// the MMA reads it, for every thread: the silent failure of a mismatched `ldmatrix` and
    /// `mma` (CUTLASS issue 3197) as a build error. For the accumulators (`op` `'C'`, `view` the
    /// [`DeviceCopy::retile_s`] of a copy storing them) it checks the converse: the copy stores
    /// each register at the tile element the MMA computed in it.
    pub fn check_fed_by(
        &self,
        op: char,
        copy: &DeviceCopy,
        shape: &[i64],
        view: &DeviceTensor,
        fragment: &DeviceTensor,
    ) -> GpuResult<()> {
        self.check_registers(op, copy, true, shape, view, fragment)
    }

    /// The converse of [`check_fed_by`](Self::check_fed_by) for an epilogue: the copy `copy`
    /// reading the registers of `view` (its [`DeviceCopy::retile_s`] of `fragment`, the MMA's
    /// operand `op`, usually `'C'`, fragment) writes every value to the element of the tile
    /// where the MMA computed it, for every thread.
    pub fn check_drained_by(
        &self,
        op: char,
        copy: &DeviceCopy,
        shape: &[i64],
        view: &DeviceTensor,
        fragment: &DeviceTensor,
    ) -> GpuResult<()> {
        self.check_registers(op, copy, false, shape, view, fragment)
    }

    fn check_registers(
        &self,
        op: char,
        copy: &DeviceCopy,
        feeds: bool,
        shape: &[i64],
        view: &DeviceTensor,
        fragment: &DeviceTensor,
    ) -> GpuResult<()> {
        // Which tile element each register of the fragment holds for the MMA, and which the
        // copy writes into each register of the view, per thread, through identity tensors.
        let id = DeviceTensor::identity(shape, 0)?;
        let id_col = DeviceTensor::identity(shape, 1)?;
        let mma_rows = self.partition(op, &id)?;
        let mma_cols = self.partition(op, &id_col)?;
        let (copy_rows, copy_cols) = if feeds {
            (copy.partition_d(&id)?, copy.partition_d(&id_col)?)
        } else {
            (copy.partition_s(&id)?, copy.partition_s(&id_col)?)
        };
        let threads = self.tiled.threads();
        if copy.tiled().threads() != threads {
            return Err(self.err(format!(
                "the copy {} has {} threads, the MMA {threads}",
                copy.name(),
                copy.tiled().threads()
            )));
        }
        // Every offset of each layout at once (index i of the partitions is thread t, value
        // i / threads, colexicographic).
        let frag_layout = fragment.layout().offsets();
        let view_layout = view.layout().offsets();
        let [mma_rows, mma_cols, copy_rows, copy_cols] =
            [&mma_rows, &mma_cols, &copy_rows, &copy_cols].map(|p| p.layout().offsets());
        let at = |v: &[i64], i: i64| -> GpuResult<i64> {
            usize::try_from(i)
                .ok()
                .and_then(|i| v.get(i).copied())
                .ok_or_else(|| {
                    self.err(format!(
                        "the fragment {fragment} or its view {view} has more values per thread \
                         than the {shape:?} tile gives the copy {} and the MMA",
                        copy.name()
                    ))
                })
        };
        let n_frag = fragment.size();
        let n_view = view.size();
        // register -> (row, col) the MMA expects, for one thread.
        for t in 0..threads {
            let mut expect = vec![None; fragment.cosize()? as usize];
            for i in 0..n_frag {
                let reg = at(&frag_layout, i)? as usize;
                let r = at(&mma_rows, t + threads * i)?;
                let c = at(&mma_cols, t + threads * i)?;
                expect[reg] = Some((r, c));
            }
            for i in 0..n_view {
                let reg = at(&view_layout, i)? as usize;
                let r = at(&copy_rows, t + threads * i)?;
                let c = at(&copy_cols, t + threads * i)?;
                if expect.get(reg).copied().flatten() != Some((r, c)) {
                    return Err(self.err(format!(
                        "thread {t}: the copy {} {} element ({r},{c}) of the tile {} register \
                         {reg}, where operand {op} of the MMA holds {}",
                        copy.name(),
                        if feeds { "writes" } else { "stores" },
                        if feeds { "into" } else { "from" },
                        match expect.get(reg).copied().flatten() {
                            Some((er, ec)) => format!("({er},{ec})"),
                            None => "nothing".into(),
                        }
                    )));
                }
            }
        }
        Ok(())
    }

    /// The C++ statement of one atom call, `c`, `a`, `b` being the slices of mode 0 (device
    /// types of `tessel_tensor.cuh`): the accumulator is read and written in place.
    pub(crate) fn call_body(&self, atom_fn: &str) -> GpuResult<String> {
        let atom = self.atom();
        if atom.b_source() != OperandSource::Registers {
            return self.gmma_call_body(atom_fn);
        }
        let mut args = Vec::new();
        for op in atom.operands() {
            let ty = match op.constraint {
                Constraint::R => "b32",
                Constraint::H => "b16",
                Constraint::F => "float",
                Constraint::L => "uint64_t",
                Constraint::N => {
                    return Err(self.err(format!(
                        "immediate operand {} of {}",
                        op.role,
                        atom.name()
                    )));
                }
            };
            let src = match op.role {
                "d" | "c" => "c",
                "a" => "a",
                "b" => "b",
                other => {
                    return Err(self.err(format!("operand {other} of {}", atom.name())));
                }
            };
            args.push(if op.direction == Direction::In && op.count == 1 {
                // One read-only register is passed by value (kernel::atom's convention).
                format!("*reinterpret_cast<const {ty}*>({src}.ptr())")
            } else if op.direction == Direction::In {
                format!("reinterpret_cast<const {ty}*>({src}.ptr())")
            } else {
                format!("reinterpret_cast<{ty}*>({src}.ptr())")
            });
        }
        Ok(format!("dev::{atom_fn}({});", args.join(", ")))
    }
}
