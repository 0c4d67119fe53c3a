//! [`DeviceMma`]: a tiled MMA of a kernel (CuTe's `TiledMMA` with a name), its partitions
//! (`partition_A/B/C`, `partition_fragment_A/B/C`), and the host check that the copies feeding
//! its fragments put every value where the MMA reads it.

use tessel_layout::atom::{Constraint, Direction, MmaAtom, OperandSource};
use tessel_layout::tiled::TiledMma;

use super::check::{RegisterSide, check_hand_over, check_threads, identities};
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
        let threads = self.threads_like(copy)?;
        let (rows, cols) = identities(shape)?;
        let mma = RegisterSide {
            name: format!("operand {op} of the MMA {}", self.name),
            rows: self.partition(op, &rows)?,
            cols: self.partition(op, &cols)?,
            regs: fragment,
        };
        let fed = RegisterSide {
            name: format!("the copy {}", copy.name()),
            rows: copy.partition_d(&rows)?,
            cols: copy.partition_d(&cols)?,
            regs: view,
        };
        check_hand_over(&fed, &mma, threads, fragment.cosize()?)
    }

    /// Checks that the copy `copy` reading the MMA's accumulators (operand `op`, normally
    /// `'C'`) through `view` (its [`DeviceCopy::retile_s`] of `fragment`) takes from every
    /// register the element of the `(M, N)` tile `shape` the MMA computed there, for every
    /// thread: an epilogue that writes C in another order than the accumulators hold it is a
    /// build error.
    ///
    /// ```
    /// use tessel_kernels::{kernel::CType, layer::DeviceMma};
    /// use tessel_layout::{atom::{copy_atom, mma_atom}, tiled::{make_tiled_copy_c, make_tiled_mma}};
    /// let tm = make_tiled_mma(&mma_atom("SM80_16x8x16_F32F16F16F32_TN").unwrap(),
    ///                         &"1:0".parse().unwrap(), &[]).unwrap();
    /// let mma = DeviceMma::new("mma", tm.clone());
    /// let atom = copy_atom("UniversalCopy<uint64_t>").unwrap().typed(32).unwrap();
    /// let st = tessel_kernels::layer::DeviceCopy::new("st", make_tiled_copy_c(&atom, &tm).unwrap());
    /// let acc = mma.partition_fragment('C', &[16, 8], CType::F32).unwrap();
    /// let view = st.retile_s(&acc).unwrap();
    /// mma.check_drained_by('C', &st, &[16, 8], &view, &acc).unwrap();
    /// ```
    pub fn check_drained_by(
        &self,
        op: char,
        copy: &DeviceCopy,
        shape: &[i64],
        view: &DeviceTensor,
        fragment: &DeviceTensor,
    ) -> GpuResult<()> {
        let threads = self.threads_like(copy)?;
        let (rows, cols) = identities(shape)?;
        let mma = RegisterSide {
            name: format!("operand {op} of the MMA {}", self.name),
            rows: self.partition(op, &rows)?,
            cols: self.partition(op, &cols)?,
            regs: fragment,
        };
        let drain = RegisterSide {
            name: format!("the copy {}", copy.name()),
            rows: copy.partition_s(&rows)?,
            cols: copy.partition_s(&cols)?,
            regs: view,
        };
        check_hand_over(&mma, &drain, threads, fragment.cosize()?)
    }

    /// The MMA's thread count, which `copy` must share.
    fn threads_like(&self, copy: &DeviceCopy) -> GpuResult<i64> {
        let threads = self.tiled.threads();
        if copy.tiled().threads() != threads {
            return Err(self.err(format!(
                "the copy {} has {} threads, the MMA {threads}",
                copy.name(),
                copy.tiled().threads()
            )));
        }
        Ok(threads)
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
