//! Copy and MMA atoms as data: one PTX instruction each, with the thread/value layouts CuTe
//! gives it ([`include/cute/atom/copy_traits.hpp`](https://github.com/NVIDIA/cutlass/blob/v4.2.1/include/cute/atom/copy_traits.hpp),
//! `copy_traits_sm75.hpp`, `copy_traits_sm80.hpp`, `copy_traits_sm90.hpp`,
//! `copy_traits_sm90_tma.hpp`, `mma_traits_sm70.hpp`, `mma_traits_sm80.hpp`,
//! `mma_traits_sm90_gmma.hpp`, `mma_traits_sm90_gmma_ext.hpp`, all in
//! [`include/cute/atom/`](https://github.com/NVIDIA/cutlass/tree/v4.2.1/include/cute/atom) of
//! CUTLASS v4.2.1), the inline-asm operands a code generator needs, and, for copies, the
//! shared-memory access the bank model analyzes.
//!
//! The families: `UniversalCopy<T>`, `SM80_CP_ASYNC_CACHE{ALWAYS,GLOBAL}<T>` (named by any CuTe
//! element type of a width they take, [`element_bits`]), SM75 `ldmatrix` and `movmatrix`, SM90
//! `stmatrix`, SM90 bulk copies and TMA loads and stores; SM70 `mma.sync` m8n8k4, SM80
//! `mma.sync` m16n8k{8,16}, SM90 GMMA on 16-bit (k16) and 8-bit floating-point (k32) inputs.
//!
//! - A [`CopyAtom`] is CuTe's `Copy_Traits`: `ThrID`, and `SrcLayout`/`DstLayout`/`RefLayout`
//!   mapping `(thread, value)` to a **bit** of the atom's data. [`CopyAtom::typed`] gives
//!   CuTe's `Copy_Atom<Traits, T>` ([`TypedCopyAtom`]): the same layouts in elements of `T`.
//! - An [`MmaAtom`] is CuTe's `MMA_Traits`: `Shape_MNK`, `ThrID`, and `ALayout`/`BLayout`/
//!   `CLayout` mapping `(thread, value)` to the column-major index of `(m,k)`, `(n,k)`, `(m,n)`.
//!
//! Atoms are looked up by their CuTe names ([`copy_atom`], [`mma_atom`]) and listed by
//! [`copy_atom_names`] and [`mma_atom_names`]; they are built on demand.
//!
//! ```
//! use tessel_layout::atom::{copy_atom, mma_atom};
//! let mma = mma_atom("SM80_16x8x16_F32F16F16F32_TN").unwrap();
//! assert_eq!(mma.c_layout().to_string(), "((4,8),(2,2)):((32,1),(16,8))");
//! let ldsm = copy_atom("SM75_U32x4_LDSM_N").unwrap();
//! // In 16-bit elements: lane t addresses the 8 elements of row t (CuTe's Copy_Atom<.., half_t>).
//! assert_eq!(ldsm.typed(16).unwrap().src().to_string(), "(32,8):(8,1)");
//! assert!(copy_atom("SM75_U32x3_LDSM_N").unwrap_err().message().contains("SM75_U32x3_LDSM_N"));
//! ```

mod catalog;
pub mod copy;
mod element;
pub mod mma;
mod tma;

pub use catalog::{
    BulkCopyOp, TmaOp, bulk_copy_atom, copy_atom, copy_atom_names, mma_atom, mma_atom_names,
    tma_atom,
};
pub use copy::{CopyAtom, SmemAccess, SmemSide, TypedCopyAtom};
pub use element::{ELEMENT_TYPES, element_bits};
pub use mma::{MmaAtom, OperandSource};
pub use tma::TmaParams;

/// The inline-asm constraint letter of an operand (GCC/NVCC inline PTX).
///
/// ```
/// use tessel_layout::atom::Constraint;
/// assert_eq!(Constraint::F.letter(), "f");
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Constraint {
    /// `"r"`: a 32-bit integer register (packed f16x2/bf16x2, a shared-memory address).
    R,
    /// `"h"`: a 16-bit integer register (the cluster mask of a multicast TMA load).
    H,
    /// `"f"`: a 32-bit float register.
    F,
    /// `"l"`: a 64-bit register (a global address, a GMMA descriptor).
    L,
    /// `"n"`: an immediate integer.
    N,
}

impl Constraint {
    /// The constraint letter.
    ///
    /// ```
    /// assert_eq!(tessel_layout::atom::Constraint::L.letter(), "l");
    /// ```
    pub fn letter(self) -> &'static str {
        match self {
            Constraint::R => "r",
            Constraint::H => "h",
            Constraint::F => "f",
            Constraint::L => "l",
            Constraint::N => "n",
        }
    }
}

/// Whether an asm operand is read, written, or both (`"r"`, `"=r"`, `"+r"`).
///
/// ```
/// use tessel_layout::atom::Direction;
/// assert_eq!(Direction::InOut.prefix(), "+");
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Direction {
    /// An input.
    In,
    /// An output (`=`).
    Out,
    /// Read and written (`+`).
    InOut,
}

impl Direction {
    /// The prefix of the constraint string: `""`, `"="` or `"+"`.
    ///
    /// ```
    /// assert_eq!(tessel_layout::atom::Direction::Out.prefix(), "=");
    /// ```
    pub fn prefix(self) -> &'static str {
        match self {
            Direction::In => "",
            Direction::Out => "=",
            Direction::InOut => "+",
        }
    }
}

/// A group of consecutive inline-asm operands of one role: `count` operands numbered from
/// `first` (`%first ... %first+count-1` in the asm template).
///
/// ```
/// use tessel_layout::atom::mma_atom;
/// let mma = mma_atom("SM80_16x8x16_F32F16F16F32_TN").unwrap();
/// let a = mma.operands().iter().find(|o| o.role == "a").unwrap();
/// assert_eq!((a.first, a.count, a.constraint.letter()), (4, 4, "r"));
/// assert_eq!(a.constraint_string(), "r");
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct AsmOperand {
    /// What the operands are: `d`, `a`, `b`, `c` (registers of the fragments), `desc_a`,
    /// `desc_b` (GMMA shared-memory descriptors), `scale_d` (GMMA accumulate flag), `scale_a`,
    /// `scale_b`, `tnsp_a`, `tnsp_b` (GMMA immediates), `src`, `dst` (copy registers), `smem`
    /// (a 32-bit shared-memory address), `gmem` (a 64-bit global address), `bytes` (the size of
    /// a bulk copy), `mbar` (the shared-memory address of an mbarrier), `tmap` (the 64-bit
    /// address of a TMA tensor map), `mask` (a multicast TMA's 16-bit cluster mask), `coord`
    /// (TMA tensor coordinates).
    pub role: &'static str,
    /// Number of operands in the group.
    pub count: u32,
    /// The operand number of the first one.
    pub first: u32,
    /// Register kind.
    pub constraint: Constraint,
    /// Read, written, or both.
    pub direction: Direction,
}

impl AsmOperand {
    /// The full constraint string, e.g. `"=f"` or `"+r"`.
    ///
    /// ```
    /// use tessel_layout::atom::{AsmOperand, Constraint, Direction};
    /// let d = AsmOperand { role: "d", count: 4, first: 0, constraint: Constraint::F,
    ///                      direction: Direction::Out };
    /// assert_eq!(d.constraint_string(), "=f");
    /// ```
    pub fn constraint_string(&self) -> String {
        format!("{}{}", self.direction.prefix(), self.constraint.letter())
    }

    /// The operand placeholders of the group: `%3`, or `{%0, %1}` for a register vector.
    ///
    /// ```
    /// use tessel_layout::atom::{AsmOperand, Constraint, Direction};
    /// let b = AsmOperand { role: "b", count: 2, first: 8, constraint: Constraint::R,
    ///                      direction: Direction::In };
    /// assert_eq!(b.placeholders(), "{%8, %9}");
    /// ```
    pub fn placeholders(&self) -> String {
        let items: Vec<String> = (self.first..self.first + self.count)
            .map(|i| format!("%{i}"))
            .collect();
        if self.count == 1 && !matches!(self.role, "d" | "a" | "b" | "c" | "src" | "dst" | "coord")
        {
            items[0].clone()
        } else {
            format!("{{{}}}", items.join(", "))
        }
    }
}

/// Builds operand groups numbered consecutively.
pub(crate) fn number_operands(
    groups: &[(&'static str, u32, Constraint, Direction)],
) -> Vec<AsmOperand> {
    let mut first = 0;
    groups
        .iter()
        .map(|&(role, count, constraint, direction)| {
            let op = AsmOperand {
                role,
                count,
                first,
                constraint,
                direction,
            };
            first += count;
            op
        })
        .collect()
}
