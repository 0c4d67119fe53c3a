//! MMA atoms: CuTe's `MMA_Traits` for the SM70 and SM80 `mma.sync` and SM90 `wgmma`
//! instructions.
//!
//! ```
//! use tessel_layout::atom::mma_atom;
//! // CuTe include/cute/atom/mma_traits_sm90_gmma.hpp (CUTLASS v4.2.1): CLayout_64xN<16>.
//! let g = mma_atom("SM90_64x16x16_F32F16F16_SS").unwrap();
//! assert_eq!(g.c_layout().to_string(), "((4,8,4),(2,2,2)):((128,1,16),(64,8,512))");
//! assert_eq!(g.shape_mnk(), [64, 16, 16]);
//! ```

use std::fmt;

use super::AsmOperand;
use crate::Element;
use crate::Layout;

/// Where an MMA operand comes from.
///
/// ```
/// use tessel_layout::atom::{mma_atom, OperandSource};
/// let g = mma_atom("SM90_64x64x16_F16F16F16_RS").unwrap();
/// assert_eq!((g.a_source(), g.b_source()), (OperandSource::Registers, OperandSource::SharedDescriptor));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum OperandSource {
    /// Registers, partitioned over the threads by the atom's TV layout.
    Registers,
    /// A 64-bit GMMA shared-memory descriptor of the whole tile (CuTe's
    /// `GMMA::smem_desc<Major::K>`): every thread of the warpgroup names the whole tile, so the
    /// TV layout broadcasts over threads (thread stride 0), and the tile must be in one of the
    /// canonical K-major GMMA layouts of [`mma_traits_sm90_gmma.hpp`](https://github.com/NVIDIA/cutlass/blob/v4.2.1/include/cute/atom/mma_traits_sm90_gmma.hpp) (`make_gmma_desc`).
    SharedDescriptor,
}

/// An MMA atom: CuTe's `MMA_Traits<Op>`. The layouts map `(thread, value)` to the
/// column-major index of a coordinate: `a_layout` to `m + M*k`, `b_layout` to `n + N*k`,
/// `c_layout` to `m + M*n` (`M, N, K` = [`shape_mnk`](Self::shape_mnk)).
///
/// ```
/// use tessel_layout::{Element, atom::mma_atom};
/// let m = mma_atom("SM80_16x8x8_F32BF16BF16F32_TN").unwrap();
/// assert_eq!(m.shape_mnk(), [16, 8, 8]);
/// assert_eq!(m.b_layout().to_string(), "((4,8),2):((16,1),8)");
/// assert_eq!((m.a_type(), m.c_type()), (Element::BF16, Element::F32));
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct MmaAtom {
    pub(crate) name: String,
    pub(crate) opcode: String,
    pub(crate) asm: String,
    pub(crate) operands: Vec<AsmOperand>,
    pub(crate) shape_mnk: [i64; 3],
    pub(crate) thr_id: Layout,
    pub(crate) a: Layout,
    pub(crate) b: Layout,
    pub(crate) c: Layout,
    pub(crate) types: [Element; 3],
    pub(crate) sources: [OperandSource; 2],
    pub(crate) k_major: bool,
}

impl MmaAtom {
    /// CuTe's name, e.g. `SM80_16x8x16_F32F16F16F32_TN` or `SM90_64x128x16_F32BF16BF16_SS`.
    ///
    /// ```
    /// let m = tessel_layout::atom::mma_atom("SM90_64x8x16_F16F16F16_SS").unwrap();
    /// assert_eq!(m.name(), "SM90_64x8x16_F16F16F16_SS");
    /// ```
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The PTX instruction as the [PTX ISA 9.0](https://docs.nvidia.com/cuda/archive/13.0.0/parallel-thread-execution/index.html) spells it, without operands.
    ///
    /// ```
    /// let m = tessel_layout::atom::mma_atom("SM90_64x128x16_F32F16F16_SS").unwrap();
    /// assert_eq!(m.opcode(), "wgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16");
    /// ```
    pub fn opcode(&self) -> &str {
        &self.opcode
    }

    /// The inline-asm template with operand placeholders numbered as
    /// [`operands`](Self::operands) says. For `wgmma` it includes the predicate CuTe derives
    /// from `scale_d` (`setp.ne.b32 p, %scale_d, 0`).
    ///
    /// ```
    /// let m = tessel_layout::atom::mma_atom("SM80_16x8x8_F16F16F16F16_TN").unwrap();
    /// assert_eq!(m.asm_template(),
    ///     "mma.sync.aligned.m16n8k8.row.col.f16.f16.f16.f16 {%0, %1}, {%2, %3}, {%4}, {%5, %6};");
    /// ```
    pub fn asm_template(&self) -> &str {
        &self.asm
    }

    /// The inline-asm operands in operand-number order (registers of D, A, B, C for `mma.sync`;
    /// D, A (registers or descriptor), B descriptor, `scale_d`, immediates for `wgmma`).
    ///
    /// ```
    /// let m = tessel_layout::atom::mma_atom("SM90_64x16x16_F32F16F16_SS").unwrap();
    /// let d = &m.operands()[0];
    /// assert_eq!((d.role, d.count, d.constraint_string()), ("d", 8, "+f".to_string()));
    /// ```
    pub fn operands(&self) -> &[AsmOperand] {
        &self.operands
    }

    /// `(M, N, K)` of one instruction (CuTe's `Shape_MNK`).
    ///
    /// ```
    /// assert_eq!(tessel_layout::atom::mma_atom("SM80_16x8x16_F16F16F16F16_TN").unwrap().shape_mnk(), [16, 8, 16]);
    /// ```
    pub fn shape_mnk(&self) -> [i64; 3] {
        self.shape_mnk
    }

    /// CuTe's `ThrID`: logical thread -> lane (`32:1` for SM80 `mma.sync`, `128:1` for a
    /// `wgmma` warpgroup, the quadpair `(4,2):(1,16)` for SM70's m8n8k4: logical thread
    /// `t0 + 4 t1` is lane `t0 + 16 t1`). The TV layouts' thread mode counts logical threads.
    ///
    /// ```
    /// assert_eq!(tessel_layout::atom::mma_atom("SM90_64x8x16_F16F16F16_SS").unwrap().thr_id().to_string(), "128:1");
    /// assert_eq!(tessel_layout::atom::mma_atom("SM70_8x8x4_F16F16F16F16_TN").unwrap().thr_id().to_string(), "(4,2):(1,16)");
    /// ```
    pub fn thr_id(&self) -> &Layout {
        &self.thr_id
    }

    /// CuTe's `ALayout`: `(thread, value) -> m + M*k`.
    ///
    /// ```
    /// let m = tessel_layout::atom::mma_atom("SM80_16x8x16_F32F16F16F32_TN").unwrap();
    /// assert_eq!(m.a_layout().to_string(), "((4,8),(2,2,2)):((32,1),(16,8,128))");
    /// ```
    pub fn a_layout(&self) -> &Layout {
        &self.a
    }

    /// CuTe's `BLayout`: `(thread, value) -> n + N*k`.
    ///
    /// ```
    /// let m = tessel_layout::atom::mma_atom("SM80_16x8x16_F32F16F16F32_TN").unwrap();
    /// assert_eq!(m.b_layout().to_string(), "((4,8),(2,2)):((16,1),(8,64))");
    /// ```
    pub fn b_layout(&self) -> &Layout {
        &self.b
    }

    /// CuTe's `CLayout`: `(thread, value) -> m + M*n` (also D's layout).
    ///
    /// ```
    /// let m = tessel_layout::atom::mma_atom("SM80_16x8x16_F32F16F16F32_TN").unwrap();
    /// assert_eq!(m.c_layout().to_string(), "((4,8),(2,2)):((32,1),(16,8))");
    /// ```
    pub fn c_layout(&self) -> &Layout {
        &self.c
    }

    /// Element type of A (`ValTypeA`).
    ///
    /// ```
    /// use tessel_layout::{Element, atom::mma_atom};
    /// assert_eq!(mma_atom("SM80_16x8x16_F32BF16BF16F32_TN").unwrap().a_type(), Element::BF16);
    /// ```
    pub fn a_type(&self) -> Element {
        self.types[0]
    }

    /// Element type of B (`ValTypeB`).
    ///
    /// ```
    /// use tessel_layout::{Element, atom::mma_atom};
    /// assert_eq!(mma_atom("SM80_16x8x16_F32F16F16F32_TN").unwrap().b_type(), Element::F16);
    /// ```
    pub fn b_type(&self) -> Element {
        self.types[1]
    }

    /// Element type of C and D (`ValTypeC == ValTypeD` for every atom here).
    ///
    /// ```
    /// use tessel_layout::{Element, atom::mma_atom};
    /// assert_eq!(mma_atom("SM90_64x8x16_F16F16F16_RS").unwrap().c_type(), Element::F16);
    /// ```
    pub fn c_type(&self) -> Element {
        self.types[2]
    }

    /// Where A comes from.
    ///
    /// ```
    /// use tessel_layout::atom::{mma_atom, OperandSource};
    /// assert_eq!(mma_atom("SM90_64x8x16_F16F16F16_SS").unwrap().a_source(), OperandSource::SharedDescriptor);
    /// ```
    pub fn a_source(&self) -> OperandSource {
        self.sources[0]
    }

    /// Where B comes from.
    ///
    /// ```
    /// use tessel_layout::atom::{mma_atom, OperandSource};
    /// assert_eq!(mma_atom("SM80_16x8x8_F16F16F16F16_TN").unwrap().b_source(), OperandSource::Registers);
    /// ```
    pub fn b_source(&self) -> OperandSource {
        self.sources[1]
    }

    /// Whether the atom assumes K-major operands (CuTe's `GMMA::Major::K` for A and B of the
    /// `wgmma` atoms here; the `_TN` `mma.sync` atoms take A row-major and B column-major,
    /// i.e. both K-major, too). The SM70 `_NT`, `_NN` and `_TT` atoms take at least one operand
    /// M- or N-major: `false`.
    ///
    /// ```
    /// assert!(tessel_layout::atom::mma_atom("SM90_64x8x16_F16F16F16_SS").unwrap().k_major());
    /// assert!(!tessel_layout::atom::mma_atom("SM70_8x8x4_F32F16F16F32_NT").unwrap().k_major());
    /// ```
    pub fn k_major(&self) -> bool {
        self.k_major
    }

    /// Threads of one instruction.
    ///
    /// ```
    /// assert_eq!(tessel_layout::atom::mma_atom("SM80_16x8x8_F16F16F16F16_TN").unwrap().threads(), 32);
    /// ```
    pub fn threads(&self) -> i64 {
        self.thr_id.size()
    }
}

impl fmt::Display for MmaAtom {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.name)
    }
}
