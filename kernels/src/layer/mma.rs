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

    fn partition(&self, op: char, t: &DeviceTensor) -> GpuResult<DeviceTensor> {
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

    /// Checks that the copy `copy` writing the registers of `view` (its [`DeviceCopy::retile_d`]
    /// of `fragment`, the MMA's operand `op` fragment) from the tile `tile` (the copy's source
    /// partition of the same `(I, J)` tile as the MMA's) puts every value in the register where
    /// the MMA reads it, for every thread: the silent failure of a mismatched `ldmatrix` and
    /// `mma` (CUTLASS issue 3197) as a build error.
    pub fn check_fed_by(
        &self,
        op: char,
        copy: &DeviceCopy,
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
        let copy_rows = copy.partition_d(&id)?;
        let copy_cols = copy.partition_d(&id_col)?;
        let threads = self.tiled.threads();
        if copy.tiled().threads() != threads {
            return Err(self.err(format!(
                "the copy {} has {} threads, the MMA {threads}",
                copy.name(),
                copy.tiled().threads()
            )));
        }
        let frag_layout = fragment.layout();
        let view_layout = view.layout();
        let n_frag = fragment.size();
        let n_view = view.size();
        // register -> (row, col) the MMA expects, for one thread.
        for t in 0..threads {
            let mut expect = vec![None; fragment.cosize()? as usize];
            for i in 0..n_frag {
                let reg = frag_layout.offset(i)? as usize;
                let r = mma_rows.layout().offset(t + threads * i)?;
                let c = mma_cols.layout().offset(t + threads * i)?;
                expect[reg] = Some((r, c));
            }
            for i in 0..n_view {
                let reg = view_layout.offset(i)? as usize;
                let r = copy_rows.layout().offset(t + threads * i)?;
                let c = copy_cols.layout().offset(t + threads * i)?;
                if expect.get(reg).copied().flatten() != Some((r, c)) {
                    return Err(self.err(format!(
                        "thread {t}: the copy {} writes element ({r},{c}) of the tile into \
                         register {reg}, where operand {op} of the MMA reads {}",
                        copy.name(),
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
        if atom.a_source() != OperandSource::Registers
            || atom.b_source() != OperandSource::Registers
        {
            return Err(self.err(format!(
                "the atom {} reads shared-memory descriptors; gemm over tensors takes register \
                 operands here",
                atom.name()
            )));
        }
        let mut args = Vec::new();
        for op in atom.operands() {
            let ty = match op.constraint {
                Constraint::R => "b32",
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
