//! The tensor-layer declarations the four kernels share: the warp's tiled MMA (one 16x16x16
//! product), the `ldmatrix` tiled copies that feed its fragments — checked register by register
//! against the MMA with [`DeviceMma::check_fed_by`] — the copies that store its accumulators, and
//! the 128-bit copies of whole tiles.
//!
//! A kernel body multiplies one warp's operands with them in four steps (names as
//! [`WarpProduct::declare`] gives them):
//!
//! ```text
//! auto a = tensor::frag_a(); auto b = tensor::frag_b(); auto acc = tensor::acc();
//! tessel::copy(copy::ldsm_a{}, tAsA, tensor::view_a(a));   // ldmatrix.x4
//! tessel::copy(copy::ldsm_b{}, tBsB, tensor::view_b(b));   // ldmatrix.x4 (.trans)
//! acc.fill(0.0f);
//! tessel::gemm(mma::mma{}, a.tensor(), b.tensor(), acc.tensor());  // two mma.sync
//! ```
//!
//! ```
//! use tessel_kernels::mma::{Fragments, device::{BOperand, WarpProduct}};
//! let w = WarpProduct::new(&Fragments::new().unwrap(), BOperand::NMajor).unwrap();
//! assert_eq!(w.ldsm_b.atom().name(), tessel_kernels::mma::LDSM_T);
//! // A's 8 halves per lane: one ldmatrix.x4; B's two n8 blocks: registers (0,1) and (2,3).
//! assert_eq!(w.frag_a.layout().to_string(), "((2,2,2),1,1):((1,2,4),8,8)");
//! assert_eq!(w.frag_b.layout().to_string(), "((2,2),2,1):((1,2),4,8)");
//! ```

use tessel_layout::atom::copy_atom;
use tessel_layout::tiled::make_tiled_copy_c;

use super::{Fragments, vec_copy};
use crate::error::GpuResult;
use crate::kernel::{CType, KernelBuilder};
use crate::layer::{DeviceCopy, DeviceMma, DeviceTensor};

/// How the B operand lies in shared memory, which decides the `ldmatrix` variant.
///
/// ```
/// use tessel_kernels::mma::device::BOperand;
/// assert_eq!(BOperand::KMajor.atom(), tessel_kernels::mma::LDSM_N);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BOperand {
    /// `B(n, k)` with `k` contiguous: `ldmatrix.x4` ([`super::LDSM_N`]).
    KMajor,
    /// `B(n, k)` with `n` contiguous: `ldmatrix.x4.trans` ([`super::LDSM_T`]).
    NMajor,
}

impl BOperand {
    /// The `ldmatrix` atom that reads this B.
    ///
    /// ```
    /// use tessel_kernels::mma::device::BOperand;
    /// assert_eq!(BOperand::NMajor.atom(), "SM75_U16x8_LDSM_T");
    /// ```
    pub fn atom(self) -> &'static str {
        match self {
            BOperand::KMajor => super::LDSM_N,
            BOperand::NMajor => super::LDSM_T,
        }
    }
}

/// One warp's 16x16x16 product as the layer declares it: the tiled MMA, the `ldmatrix` copies
/// of A and B, the fragments (A: 8 halves, B: two n8 blocks of 4 halves, the accumulators: two
/// n8 blocks of 4 floats) and the copies' views of them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WarpProduct {
    /// `mma::mma`: [`Fragments::mma`].
    pub mma: DeviceMma,
    /// `copy::ldsm_a`: [`Fragments::copy_a`].
    pub ldsm_a: DeviceCopy,
    /// `copy::ldsm_b`: [`Fragments::copy_b`] or [`Fragments::copy_bt`].
    pub ldsm_b: DeviceCopy,
    /// `tensor::frag_a`: the A fragment `(values, MMA_M, MMA_K)`, fp16.
    pub frag_a: DeviceTensor,
    /// `tensor::frag_b`: the B fragment `(values, MMA_N, MMA_K)`, fp16.
    pub frag_b: DeviceTensor,
    /// `tensor::acc`: the accumulators `(values, MMA_M, MMA_N)`, fp32.
    pub acc: DeviceTensor,
    /// `tensor::view_a`: `ldsm_a`'s view of `frag_a` (`retile_D`).
    pub view_a: DeviceTensor,
    /// `tensor::view_b`: `ldsm_b`'s view of `frag_b`.
    pub view_b: DeviceTensor,
}

/// The tile of one warp's product: `(M, K)` of A, `(N, K)` of B, `(M, N)` of C.
const TILE: [i64; 2] = [16, 16];

impl WarpProduct {
    /// The declarations for a B operand laid out as `b`; checks that each `ldmatrix` copy puts
    /// every value in the register where the MMA reads it.
    ///
    /// ```
    /// use tessel_kernels::mma::{Fragments, device::{BOperand, WarpProduct}};
    /// let w = WarpProduct::new(&Fragments::new().unwrap(), BOperand::KMajor).unwrap();
    /// assert_eq!(w.acc.layout().to_string(), "((2,2),1,2):((1,2),4,4)");
    /// ```
    pub fn new(frags: &Fragments, b: BOperand) -> GpuResult<WarpProduct> {
        let mma = DeviceMma::new("mma", frags.mma.clone());
        let ldsm_a = DeviceCopy::new("ldsm_a", frags.copy_a.clone());
        let ldsm_b = DeviceCopy::new(
            "ldsm_b",
            match b {
                BOperand::KMajor => frags.copy_b.clone(),
                BOperand::NMajor => frags.copy_bt.clone(),
            },
        );
        let frag_a = mma.partition_fragment('A', &TILE, CType::B16)?;
        let frag_b = mma.partition_fragment('B', &TILE, CType::B16)?;
        let acc = mma.partition_fragment('C', &TILE, CType::F32)?;
        let view_a = ldsm_a.retile_d(&frag_a)?;
        let view_b = ldsm_b.retile_d(&frag_b)?;
        mma.check_fed_by('A', &ldsm_a, &TILE, &view_a, &frag_a)?;
        mma.check_fed_by('B', &ldsm_b, &TILE, &view_b, &frag_b)?;
        Ok(WarpProduct {
            mma,
            ldsm_a,
            ldsm_b,
            frag_a,
            frag_b,
            acc,
            view_a,
            view_b,
        })
    }

    /// `builder` with the MMA, both copies, the fragments and the views.
    ///
    /// ```
    /// use tessel_kernels::{kernel::KernelBuilder, mma::{Fragments, device::{BOperand, WarpProduct}}};
    /// let w = WarpProduct::new(&Fragments::new().unwrap(), BOperand::KMajor).unwrap();
    /// let body = "auto a = tensor::frag_a(); auto b = tensor::frag_b(); auto acc = tensor::acc();\n  \
    ///             (void)tensor::view_a(a); (void)tensor::view_b(b);\n  \
    ///             copy::ldsm_a x; copy::ldsm_b y; (void)x; (void)y;\n  \
    ///             tessel::gemm(mma::mma{}, a.tensor(), b.tensor(), acc.tensor());";
    /// let k = w.declare(KernelBuilder::new("k", body)).threads(32).build().unwrap();
    /// assert!(k.source().contains("struct ldsm_b {"));
    /// ```
    pub fn declare(&self, builder: KernelBuilder) -> KernelBuilder {
        builder
            .tiled_mma(&self.mma)
            .tiled_copy(&self.ldsm_a)
            .tiled_copy(&self.ldsm_b)
            .tensor("frag_a", &self.frag_a)
            .tensor("frag_b", &self.frag_b)
            .tensor("acc", &self.acc)
            .tensor("view_a", &self.view_a)
            .tensor("view_b", &self.view_b)
    }
}

/// CuTe's `make_tiled_copy_C(Copy_Atom<UniversalCopy<uint{2 * bits}_t>, T>, mma)`, called
/// `name`: the copy of the accumulators to memory as `elem` values, the two adjacent columns
/// of each of a lane's accumulator pairs in one access (`float2` for fp32, one 32-bit word of
/// two halves for fp16).
///
/// ```
/// use tessel_kernels::{kernel::CType, mma::{Fragments, device::store_c}};
/// let c = store_c(&Fragments::new().unwrap(), "store", CType::F32).unwrap();
/// assert_eq!(c.atom().name(), "UniversalCopy<uint64_t>");
/// assert_eq!(c.tiled().tiler(), &[16, 16]);
/// ```
pub fn store_c(frags: &Fragments, name: &str, elem: CType) -> GpuResult<DeviceCopy> {
    let bits = 8 * elem.bytes() as i64;
    let atom = copy_atom(&format!("UniversalCopy<uint{}_t>", 2 * bits))?.typed(bits)?;
    Ok(DeviceCopy::new(name, make_tiled_copy_c(&atom, &frags.mma)?))
}

/// [`vec_copy`] as the layer's copy `name`: 16-byte chunks of a `rows x cols` fp16 tile,
/// `threads` threads.
///
/// ```
/// let c = tessel_kernels::mma::device::chunks("fill", 16, 32, 32).unwrap();
/// // 32 threads, 8 halves each: 8 rows of 32 halves per pass.
/// assert_eq!((c.tiled().tiler(), c.tiled().values()), (&[8, 32][..], 8));
/// ```
pub fn chunks(name: &str, rows: i64, cols: i64, threads: i64) -> GpuResult<DeviceCopy> {
    Ok(DeviceCopy::new(name, vec_copy(rows, cols, threads)?))
}

/// A copy's partition of `t` that the body reads and writes through: `partition_S`, checked to
/// be `partition_D` too (a vector copy moves the same values on both sides; an instruction that
/// does not is refused).
///
/// ```
/// use tessel_kernels::{kernel::CType, layer::DeviceTensor, mma::device::{both_sides, chunks}};
/// let c = chunks("chunk", 16, 16, 32).unwrap();
/// let g = DeviceTensor::global(CType::B16, "(16,16):(16,1)".parse().unwrap());
/// assert_eq!(both_sides(&c, &g).unwrap().extents(), vec![32, 8, 1, 1, 1]);
/// ```
pub fn both_sides(copy: &DeviceCopy, t: &DeviceTensor) -> GpuResult<DeviceTensor> {
    let (s, d) = (copy.partition_s(t)?, copy.partition_d(t)?);
    if s.layout() != d.layout() {
        return Err(crate::error::GpuError::InvalidArgument(format!(
            "tiled copy {}: its source partition {s} and destination partition {d} differ",
            copy.name()
        )));
    }
    Ok(s)
}

/// The offset of element `coord` (one entry per mode, a hierarchical mode's entry linearized
/// colexicographically) of `t`, as an index into its storage.
///
/// ```
/// use tessel_kernels::{kernel::CType, layer::DeviceTensor, mma::device::offset};
/// let t = DeviceTensor::shared(CType::B16, "Sw<1,3,3> o (16,16):(16,1)".parse().unwrap());
/// assert_eq!(offset(&t, &[1, 0]).unwrap(), 16);
/// assert_eq!(offset(&t, &[4, 0]).unwrap(), 72); // row 4 (bit 6 set): the swizzle flips bit 3
/// ```
pub fn offset(t: &DeviceTensor, coord: &[i64]) -> GpuResult<usize> {
    let o = t
        .layout()
        .at(&tessel_layout::IntTuple::from_ints(coord.iter().copied()))?;
    usize::try_from(o).map_err(|_| {
        crate::error::GpuError::InvalidArgument(format!("offset {o} of {t} at {coord:?}"))
    })
}

/// `tessel::copy(copy, src, dst)` of every thread at once, on the host: element `i` of `dst` is
/// element `i` of `src` for every 1-D index `i` of the partitions (equal sizes; `from` and `to`
/// hold their storage). `Err` when an offset leaves the storage.
///
/// ```
/// use tessel_kernels::{kernel::CType, layer::DeviceTensor, mma::device::copy_all};
/// let col = DeviceTensor::global(CType::F32, "(2,3):(1,2)".parse().unwrap());
/// let row = DeviceTensor::global(CType::F32, "(2,3):(3,1)".parse().unwrap());
/// let mut out = [0; 6];
/// copy_all(&col, &[0, 1, 2, 3, 4, 5], &row, &mut out).unwrap();
/// assert_eq!(out, [0, 2, 4, 1, 3, 5]); // the transpose
/// ```
pub fn copy_all<T: Copy>(
    src: &DeviceTensor,
    from: &[T],
    dst: &DeviceTensor,
    to: &mut [T],
) -> GpuResult<()> {
    if src.size() != dst.size() {
        return Err(crate::error::GpuError::InvalidArgument(format!(
            "copy of {src} into {dst}: different sizes"
        )));
    }
    for (i, (&s, &d)) in src
        .layout()
        .offsets()
        .iter()
        .zip(&dst.layout().offsets())
        .enumerate()
    {
        let x = usize::try_from(s).ok().and_then(|s| from.get(s)).copied();
        let slot = usize::try_from(d).ok().and_then(|d| to.get_mut(d));
        match (x, slot) {
            (Some(x), Some(slot)) => *slot = x,
            _ => {
                return Err(crate::error::GpuError::InvalidArgument(format!(
                    "copy of {src} into {dst}: element {i} at {s} -> {d} is outside the storage"
                )));
            }
        }
    }
    Ok(())
}

/// The 32 row addresses one warp gives `ldmatrix` through a copy's source partition `part`
/// (`(thread, values, ...)`): value 0 of each lane at the coordinates `rest` of the modes after
/// the values.
///
/// ```
/// use tessel_kernels::{kernel::CType, layer::DeviceTensor};
/// use tessel_kernels::mma::{Fragments, device::{BOperand, WarpProduct, ldmatrix_rows}};
/// let w = WarpProduct::new(&Fragments::new().unwrap(), BOperand::KMajor).unwrap();
/// let s = DeviceTensor::shared(CType::B16, "(16,16):(16,1)".parse().unwrap());
/// let rows = ldmatrix_rows(&w.ldsm_a.partition_s(&s).unwrap(), &[0, 0, 0]).unwrap();
/// assert_eq!((rows[1], rows[16]), (16, 8)); // lane 1: row 1; lane 16: row 0, column 8
/// ```
pub fn ldmatrix_rows(part: &DeviceTensor, rest: &[i64]) -> GpuResult<[i64; 32]> {
    let mut rows = [0i64; 32];
    for (lane, row) in rows.iter_mut().enumerate() {
        let mut c = vec![lane as i64, 0];
        c.extend_from_slice(rest);
        *row = offset(part, &c)? as i64;
    }
    Ok(rows)
}

impl WarpProduct {
    /// The warp's product on the host, through the declarations: `ldmatrix.x4` (the [PTX ISA 9.0](https://docs.nvidia.com/cuda/archive/13.0.0/parallel-thread-execution/index.html)'s
    /// rule, [`super::host::ldmatrix_x4`]) of A at `rows_a` of `smem_a` and of B at `rows_b` of
    /// `smem_b` into the fragments' registers through the copies' views, then `tessel::gemm`'s
    /// atom calls ([`super::host::mma_m16n8k16`] from zero) over the fragments' modes. Returns
    /// each lane's accumulator registers (`acc`'s storage).
    ///
    /// ```
    /// use half::f16;
    /// use tessel_kernels::mma::{Fragments, device::{BOperand, WarpProduct}};
    /// let w = WarpProduct::new(&Fragments::new().unwrap(), BOperand::KMajor).unwrap();
    /// let ones = vec![f16::ONE; 256];
    /// let rows: [i64; 32] = std::array::from_fn(|l| 16 * (l as i64 % 16) + 8 * (l as i64 / 16));
    /// let acc = w.replay(&ones, &rows, &ones, &rows).unwrap();
    /// assert_eq!(acc[5], [16.0; 8]);
    /// ```
    pub fn replay(
        &self,
        smem_a: &[half::f16],
        rows_a: &[i64; 32],
        smem_b: &[half::f16],
        rows_b: &[i64; 32],
    ) -> GpuResult<[[f32; 8]; 32]> {
        use super::host::{ldmatrix_x4, mma_m16n8k16};
        let trans = self.ldsm_b.atom().name() == super::LDSM_T;
        let ra = ldmatrix_x4(smem_a, rows_a, false)?;
        let rb = ldmatrix_x4(smem_b, rows_b, trans)?;
        // Register j of an ldmatrix.x4 holds the view's values 2j, 2j+1: the fragment's halves
        // at those offsets.
        let into = |regs: &[u32; 4], view: &DeviceTensor, frag: &mut [u16]| -> GpuResult<()> {
            for (j, &w) in regs.iter().enumerate() {
                for h in 0..2 {
                    frag[view.layout().offset(2 * j as i64 + h)? as usize] = (w >> (16 * h)) as u16;
                }
            }
            Ok(())
        };
        let word = |frag: &[u16], at: usize| u32::from(frag[at]) | (u32::from(frag[at + 1]) << 16);
        let mut out = [[0f32; 8]; 32];
        let (mut fa, mut fb) = (vec![[0u16; 8]; 32], vec![[0u16; 8]; 32]);
        for lane in 0..32 {
            into(&ra[lane], &self.view_a, &mut fa[lane])?;
            into(&rb[lane], &self.view_b, &mut fb[lane])?;
        }
        // gemm: one atom call per (m, n, k) of the fragments' modes 1 and 2; the atom reads
        // mode 0 of each slice as consecutive registers.
        let (em, en, ek) = (
            self.frag_a.extents()[1],
            self.frag_b.extents()[1],
            self.frag_a.extents()[2],
        );
        for k in 0..ek {
            for m in 0..em {
                for n in 0..en {
                    let a0 = offset(&self.frag_a, &[0, m, k])?;
                    let b0 = offset(&self.frag_b, &[0, n, k])?;
                    let c0 = offset(&self.acc, &[0, m, n])?;
                    let a: [[u32; 4]; 32] =
                        std::array::from_fn(|l| std::array::from_fn(|r| word(&fa[l], a0 + 2 * r)));
                    let b: [[u32; 2]; 32] =
                        std::array::from_fn(|l| std::array::from_fn(|r| word(&fb[l], b0 + 2 * r)));
                    let c: [[f32; 4]; 32] =
                        std::array::from_fn(|l| std::array::from_fn(|v| out[l][c0 + v]));
                    let d = mma_m16n8k16(&a, &b, &c);
                    for (lane, vals) in d.iter().enumerate() {
                        out[lane][c0..c0 + 4].copy_from_slice(vals);
                    }
                }
            }
        }
        Ok(out)
    }
}

/// The stores of every lane's accumulators (`acc[lane]`, `acc`'s storage) through a store
/// copy's view of them (`view`, its `retile_S` of the fragment) into the destination partition
/// `part` (`(lane, values, atoms, ...)`) at the coordinates `rest` after its copy modes: what
/// `tessel::copy(store, view, part(lane, _, _, rest...))` writes, as `(offset, value)` pairs.
///
/// ```
/// use tessel_kernels::{kernel::CType, layer::DeviceTensor};
/// use tessel_kernels::mma::{Fragments, device::{accumulator_stores, store_c}};
/// let f = Fragments::new().unwrap();
/// let st = store_c(&f, "st", CType::F32).unwrap();
/// let acc = tessel_kernels::layer::DeviceMma::new("m", f.mma.clone())
///     .partition_fragment('C', &[16, 16], CType::F32).unwrap();
/// let c = DeviceTensor::global(CType::F32, "(16,16):(16,1)".parse().unwrap());
/// let acc_values: [[f32; 8]; 32] = std::array::from_fn(|l| [l as f32; 8]);
/// let stores = accumulator_stores(&st.retile_s(&acc).unwrap(), &st.partition_d(&c).unwrap(),
///                                 &[0, 0], &acc_values).unwrap();
/// assert_eq!(stores.len(), 256);
/// assert!(stores.contains(&(16 * 1 + 2, 5.0))); // lane 5 (g = 1, q = 1): row 1, column 2
/// ```
pub fn accumulator_stores(
    view: &DeviceTensor,
    part: &DeviceTensor,
    rest: &[i64],
    acc: &[[f32; 8]; 32],
) -> GpuResult<Vec<(usize, f32)>> {
    let ext = part.extents();
    let (values, atoms) = (ext[1], ext[2]);
    if view.size() != values * atoms || rest.len() + 3 != ext.len() {
        return Err(crate::error::GpuError::InvalidArgument(format!(
            "the view {view} of the accumulators and the coordinates {rest:?} do not slice \
             the {values} x {atoms} values of {part}"
        )));
    }
    // Colexicographic index of (lane, i % values, i / values, rest...) into part's offsets.
    let offsets = part.layout().offsets();
    let (mut base, mut stride) = (0i64, ext[0] * values * atoms);
    for (&c, &e) in rest.iter().zip(&ext[3..]) {
        base += c * stride;
        stride *= e;
    }
    let view_offsets = view.layout().offsets();
    let mut out = Vec::new();
    for (lane, regs) in (0..).zip(acc) {
        for (i, &reg) in (0..).zip(&view_offsets) {
            let o = offsets[(base + lane + ext[0] * i) as usize];
            out.push((o as usize, regs[reg as usize]));
        }
    }
    Ok(out)
}
