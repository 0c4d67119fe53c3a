//! Copy atoms: CuTe's `Copy_Traits` (layouts in bits) and `Copy_Atom<Traits, T>` (in elements).
//!
//! ```
//! use tessel_layout::atom::copy_atom;
//! // CuTe include/cute/atom/copy_traits_sm75.hpp: SM75_U32x1_LDSM_N.
//! let a = copy_atom("SM75_U32x1_LDSM_N").unwrap();
//! assert_eq!(a.src_bits().to_string(), "((8,4),128):((128,0),1)");
//! assert_eq!(a.dst_bits().to_string(), "(32,32):(32,1)");
//! ```

use std::fmt;

use super::AsmOperand;
use super::tma::TmaParams;
use crate::{Error, Layout, Result, upcast};

/// Which side of a copy is shared memory.
///
/// ```
/// use tessel_layout::atom::{copy_atom, SmemSide};
/// assert_eq!(copy_atom("SM90_U32x4_STSM_N").unwrap().access().smem_side(), SmemSide::Destination);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SmemSide {
    /// The source is shared memory (`ldmatrix`).
    Source,
    /// The destination is shared memory (`stmatrix`, `cp.async`).
    Destination,
    /// Either side may be shared memory (a plain load/store: `ld.shared` when the source is,
    /// `st.shared` when the destination is).
    Either,
    /// Neither side is shared memory (`movmatrix` moves registers between the lanes of a warp).
    Neither,
}

/// How a copy atom touches shared memory, as plain data for the bank model.
///
/// The bank model of [`crate::bank`] names these instructions with
/// [`SmemOp`](crate::bank::SmemOp); the mapping is one line per variant:
///
/// ```
/// use tessel_layout::atom::{copy_atom, SmemAccess};
/// use tessel_layout::bank::SmemOp;
/// fn smem_op(access: SmemAccess, loading: bool) -> Option<SmemOp> {
///     let text = match access {
///         SmemAccess::Vector { bits } if loading => format!("lds.{bits}"),
///         SmemAccess::Vector { bits } => format!("sts.{bits}"),
///         SmemAccess::Ldmatrix { matrices, trans } =>
///             format!("ldsm.x{matrices}{}", if trans { ".trans" } else { "" }),
///         SmemAccess::Stmatrix { matrices, trans } =>
///             format!("stsm.x{matrices}{}", if trans { ".trans" } else { "" }),
///         // cp.async writes `bytes` per thread into shared memory like a store.
///         SmemAccess::CpAsync { bytes } => format!("sts.{}", bytes * 8),
///         // Registers only, or the async proxy's bulk transfers: no lds/sts/ldsm/stsm.
///         SmemAccess::Registers | SmemAccess::Bulk { .. } => return None,
///     };
///     text.parse().ok()
/// }
/// let ldsm = copy_atom("SM75_U16x8_LDSM_T").unwrap().access();
/// assert_eq!(smem_op(ldsm, true).unwrap().to_string(), "ldsm.x4.trans");
/// let cp = copy_atom("SM80_CP_ASYNC_CACHEGLOBAL<uint128_t>").unwrap().access();
/// assert_eq!(smem_op(cp, false).unwrap().to_string(), "sts.128");
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SmemAccess {
    /// One scalar or vector access of `bits` (8, 16, 32, 64, 128) per thread.
    Vector {
        /// Bits per thread.
        bits: u32,
    },
    /// `ldmatrix` of `matrices` (1, 2, 4) 8x8 b16 matrices; lanes `8i..8i+7` address the rows
    /// of matrix `i`.
    Ldmatrix {
        /// Number of 8x8 matrices.
        matrices: u32,
        /// `.trans`.
        trans: bool,
    },
    /// `stmatrix` of `matrices` (1, 2, 4) 8x8 b16 matrices.
    Stmatrix {
        /// Number of 8x8 matrices.
        matrices: u32,
        /// `.trans`.
        trans: bool,
    },
    /// `cp.async` of `bytes` (4, 8, 16) per thread from global to shared memory.
    CpAsync {
        /// Bytes per thread.
        bytes: u32,
    },
    /// No shared memory: registers to registers (`movmatrix`).
    Registers,
    /// A bulk transfer of the async proxy (`cp.async.bulk`: a bulk copy or a TMA box), one
    /// thread moving whole 16-byte units between global and shared memory. It does not go
    /// through the lanes' `lds`/`sts` path the bank model counts.
    Bulk {
        /// The side that is shared memory: the destination of a load, the source of a store,
        /// either for `SM90_BULK_COPY_AUTO` (the copy's tensors decide).
        smem: SmemSide,
    },
}

impl SmemAccess {
    /// Which side of the copy is shared memory.
    ///
    /// ```
    /// use tessel_layout::atom::{SmemAccess, SmemSide};
    /// assert_eq!(SmemAccess::CpAsync { bytes: 16 }.smem_side(), SmemSide::Destination);
    /// assert_eq!(SmemAccess::Vector { bits: 32 }.smem_side(), SmemSide::Either);
    /// assert_eq!(SmemAccess::Bulk { smem: SmemSide::Source }.smem_side(), SmemSide::Source);
    /// assert_eq!(SmemAccess::Registers.smem_side(), SmemSide::Neither);
    /// ```
    pub fn smem_side(self) -> SmemSide {
        match self {
            SmemAccess::Vector { .. } => SmemSide::Either,
            SmemAccess::Ldmatrix { .. } => SmemSide::Source,
            SmemAccess::Stmatrix { .. } | SmemAccess::CpAsync { .. } => SmemSide::Destination,
            SmemAccess::Bulk { smem } => smem,
            SmemAccess::Registers => SmemSide::Neither,
        }
    }
}

/// A copy atom: CuTe's `Copy_Traits<Op>`. Its layouts map `(thread, value)` to a bit of the
/// data one instruction moves: `src_bits` where each thread's source bits are, `dst_bits` its
/// destination bits, `ref_bits` the reference arrangement both are expressed against.
///
/// ```
/// use tessel_layout::atom::copy_atom;
/// let a = copy_atom("SM80_CP_ASYNC_CACHEALWAYS<uint128_t>").unwrap();
/// assert_eq!(a.threads(), 1);
/// assert_eq!(a.src_bits().to_string(), "(1,128):(0,1)");
/// assert_eq!(a.asm_template().unwrap(), "cp.async.ca.shared.global [%0], [%1], 16;");
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct CopyAtom {
    pub(crate) name: String,
    pub(crate) opcode: Option<String>,
    pub(crate) asm: Option<String>,
    pub(crate) operands: Vec<AsmOperand>,
    pub(crate) thr_id: Layout,
    pub(crate) src: Layout,
    pub(crate) dst: Layout,
    pub(crate) reference: Layout,
    pub(crate) access: SmemAccess,
    pub(crate) tma: Option<Box<TmaParams>>,
}

impl CopyAtom {
    /// CuTe's name of the operation, e.g. `SM75_U32x4_LDSM_N`.
    ///
    /// ```
    /// let a = tessel_layout::atom::copy_atom("UniversalCopy<uint32_t>").unwrap();
    /// assert_eq!(a.name(), "UniversalCopy<uint32_t>");
    /// ```
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The PTX instruction as the PTX ISA spells it, without operands (e.g.
    /// `ldmatrix.sync.aligned.m8n8.x4.shared.b16`); `None` for `UniversalCopy`, which is a plain
    /// C++ assignment of one value (the compiler emits a load and a store of that width), and for
    /// `SM90_BULK_COPY_AUTO`, which only marks a copy for the algorithm to vectorize. A TMA atom
    /// not yet given its box keeps the ISA's `.dim` placeholder for the tensor's rank.
    ///
    /// ```
    /// use tessel_layout::atom::copy_atom;
    /// assert_eq!(copy_atom("SM90_U16x8_STSM_T").unwrap().opcode(),
    ///            Some("stmatrix.sync.aligned.m8n8.x4.trans.shared.b16"));
    /// assert_eq!(copy_atom("UniversalCopy<uint128_t>").unwrap().opcode(), None);
    /// ```
    pub fn opcode(&self) -> Option<&str> {
        self.opcode.as_deref()
    }

    /// The inline-asm template: the instruction with its operand placeholders `%0, %1, ...`
    /// numbered as [`operands`](Self::operands) says; `None` for `UniversalCopy`,
    /// `SM90_BULK_COPY_AUTO` and a TMA atom without a rank (see [`tma_atom`](super::tma_atom)).
    ///
    /// ```
    /// use tessel_layout::atom::copy_atom;
    /// assert_eq!(copy_atom("SM75_U32x2_LDSM_N").unwrap().asm_template().unwrap(),
    ///            "ldmatrix.sync.aligned.m8n8.x2.shared.b16 {%0, %1}, [%2];");
    /// ```
    pub fn asm_template(&self) -> Option<&str> {
        self.asm.as_deref()
    }

    /// The inline-asm operands, in operand-number order.
    ///
    /// ```
    /// use tessel_layout::atom::copy_atom;
    /// let ops = copy_atom("SM90_U32x4_STSM_N").unwrap().operands().to_vec();
    /// assert_eq!((ops[0].role, ops[0].constraint_string()), ("smem", "r".to_string()));
    /// assert_eq!((ops[1].role, ops[1].count), ("src", 4));
    /// ```
    pub fn operands(&self) -> &[AsmOperand] {
        &self.operands
    }

    /// CuTe's `ThrID`: logical thread -> thread index (`32:1` for a warp, `1:0` for one thread).
    ///
    /// ```
    /// use tessel_layout::atom::copy_atom;
    /// assert_eq!(copy_atom("SM75_U32x4_LDSM_N").unwrap().thr_id().to_string(), "32:1");
    /// ```
    pub fn thr_id(&self) -> &Layout {
        &self.thr_id
    }

    /// Number of threads that execute one instruction together.
    ///
    /// ```
    /// assert_eq!(tessel_layout::atom::copy_atom("SM75_U32x4_LDSM_N").unwrap().threads(), 32);
    /// ```
    pub fn threads(&self) -> i64 {
        self.thr_id.size()
    }

    /// CuTe's `SrcLayout`: `(thread, value) -> bit`.
    ///
    /// ```
    /// use tessel_layout::atom::copy_atom;
    /// assert_eq!(copy_atom("SM75_U32x4_LDSM_N").unwrap().src_bits().to_string(), "(32,128):(128,1)");
    /// ```
    pub fn src_bits(&self) -> &Layout {
        &self.src
    }

    /// CuTe's `DstLayout`: `(thread, value) -> bit`.
    ///
    /// ```
    /// use tessel_layout::atom::copy_atom;
    /// assert_eq!(copy_atom("SM75_U32x4_LDSM_N").unwrap().dst_bits().to_string(),
    ///            "(32,(32,4)):(32,(1,1024))");
    /// ```
    pub fn dst_bits(&self) -> &Layout {
        &self.dst
    }

    /// CuTe's `RefLayout`: `(thread, value) -> bit`, the arrangement the tiled copy's TV layout
    /// is given in.
    ///
    /// ```
    /// use tessel_layout::atom::copy_atom;
    /// let a = copy_atom("SM75_U32x4_LDSM_N").unwrap();
    /// assert_eq!(a.ref_bits(), a.dst_bits());
    /// ```
    pub fn ref_bits(&self) -> &Layout {
        &self.reference
    }

    /// The shared-memory access of one instruction.
    ///
    /// ```
    /// use tessel_layout::atom::{copy_atom, SmemAccess};
    /// assert_eq!(copy_atom("SM75_U32x2_LDSM_N").unwrap().access(),
    ///            SmemAccess::Ldmatrix { matrices: 2, trans: false });
    /// ```
    pub fn access(&self) -> SmemAccess {
        self.access
    }

    /// The tensor map and coordinate bases of a TMA atom built for a tensor by
    /// [`make_tma_copy`](crate::tiled::make_tma_copy) (CuTe's TMA traits hold them); `None` for
    /// every other atom.
    ///
    /// ```
    /// use tessel_layout::{atom::{copy_atom, TmaOp}, tiled::make_tma_copy};
    /// assert!(copy_atom("SM90_TMA_LOAD").unwrap().tma().is_none());
    /// let copy = make_tma_copy(TmaOp::Load, &"(64,64):(64,1)".parse().unwrap(),
    ///     &"(64,64):(64,1)".parse().unwrap(), None, 1, 16).unwrap();
    /// assert_eq!(copy.atom().atom().tma().unwrap().tensor_map().box_dims(), &[64, 64]);
    /// ```
    pub fn tma(&self) -> Option<&TmaParams> {
        self.tma.as_deref()
    }

    /// The atom carrying `params` (a TMA atom sized for a tensor).
    pub(crate) fn with_tma(mut self, params: TmaParams) -> CopyAtom {
        self.tma = Some(Box::new(params));
        self
    }

    /// CuTe's `Copy_Atom<Traits, T>` for elements of `value_bits` bits: the layouts upcast
    /// from bits to elements (`recast_layout<uint1_t, T>`). Errors when an element does not
    /// divide the bits each thread moves, or when an element would straddle the atom's units
    /// (a stride that is neither a multiple nor a divisor of `value_bits`).
    ///
    /// ```
    /// use tessel_layout::atom::copy_atom;
    /// let a = copy_atom("UniversalCopy<uint128_t>").unwrap().typed(32).unwrap();
    /// assert_eq!(a.src().to_string(), "(1,4):(0,1)");
    /// assert_eq!((a.num_val_src(), a.num_val_dst()), (4, 4));
    /// assert!(copy_atom("UniversalCopy<uint32_t>").unwrap().typed(64).is_err());
    /// ```
    pub fn typed(&self, value_bits: i64) -> Result<TypedCopyAtom> {
        let ctx = |e: Error| e.context(format!("{} with {value_bits}-bit values", self.name));
        if value_bits < 1 {
            return Err(ctx(Error::invalid(format!(
                "the value width {value_bits} must be at least 1 bit"
            ))));
        }
        let view = |bits: &Layout, which: &str| -> Result<Layout> {
            let per_thread = bits.mode(1)?.size();
            if per_thread % value_bits != 0 {
                return Err(Error::inadmissible(format!(
                    "each thread's {which} holds {per_thread} bits, not a whole number of \
                     {value_bits}-bit values"
                )));
            }
            let v = upcast(bits, value_bits)?;
            if v.mode(0)?.size() != self.thr_id.size() {
                return Err(Error::inadmissible(format!(
                    "the {which} layout in values {v} does not have the atom's {} threads",
                    self.thr_id.size()
                )));
            }
            Ok(v)
        };
        Ok(TypedCopyAtom {
            src: view(&self.src, "source").map_err(ctx)?,
            dst: view(&self.dst, "destination").map_err(ctx)?,
            reference: view(&self.reference, "reference").map_err(ctx)?,
            atom: self.clone(),
            value_bits,
        })
    }
}

impl fmt::Display for CopyAtom {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.name)
    }
}

/// A copy atom for values of a given width: CuTe's `Copy_Atom<Traits, T>`, whose
/// `ValLayoutSrc`, `ValLayoutDst` and `ValLayoutRef` map `(thread, value)` to an element.
///
/// ```
/// use tessel_layout::atom::copy_atom;
/// let a = copy_atom("SM75_U32x4_LDSM_N").unwrap().typed(16).unwrap();
/// assert_eq!(a.dst().to_string(), "(32,(2,4)):(2,(1,64))");
/// assert_eq!((a.num_val_src(), a.num_val_dst()), (8, 8));
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct TypedCopyAtom {
    atom: CopyAtom,
    value_bits: i64,
    src: Layout,
    dst: Layout,
    reference: Layout,
}

impl TypedCopyAtom {
    /// The untyped atom.
    ///
    /// ```
    /// let a = tessel_layout::atom::copy_atom("SM75_U32x4_LDSM_N").unwrap();
    /// assert_eq!(a.typed(16).unwrap().atom(), &a);
    /// ```
    pub fn atom(&self) -> &CopyAtom {
        &self.atom
    }

    /// Bits per value.
    ///
    /// ```
    /// let a = tessel_layout::atom::copy_atom("SM75_U32x4_LDSM_N").unwrap();
    /// assert_eq!(a.typed(16).unwrap().value_bits(), 16);
    /// ```
    pub fn value_bits(&self) -> i64 {
        self.value_bits
    }

    /// `ValLayoutSrc`: `(thread, value) -> element`.
    ///
    /// ```
    /// let a = tessel_layout::atom::copy_atom("SM75_U32x1_LDSM_N").unwrap().typed(16).unwrap();
    /// assert_eq!(a.src().to_string(), "((8,4),8):((8,0),1)");
    /// ```
    pub fn src(&self) -> &Layout {
        &self.src
    }

    /// `ValLayoutDst`: `(thread, value) -> element`.
    ///
    /// ```
    /// let a = tessel_layout::atom::copy_atom("SM75_U32x1_LDSM_N").unwrap().typed(16).unwrap();
    /// assert_eq!(a.dst().to_string(), "(32,2):(2,1)");
    /// ```
    pub fn dst(&self) -> &Layout {
        &self.dst
    }

    /// `ValLayoutRef`: `(thread, value) -> element`.
    ///
    /// ```
    /// let a = tessel_layout::atom::copy_atom("SM90_U32x1_STSM_N").unwrap().typed(16).unwrap();
    /// assert_eq!(a.reference(), a.src());
    /// ```
    pub fn reference(&self) -> &Layout {
        &self.reference
    }

    /// Values per thread in the source (`NumValSrc`).
    ///
    /// ```
    /// let a = tessel_layout::atom::copy_atom("SM75_U32x1_LDSM_N").unwrap().typed(16).unwrap();
    /// assert_eq!(a.num_val_src(), 8);
    /// ```
    pub fn num_val_src(&self) -> i64 {
        self.src.mode(1).map_or(0, |m| m.size())
    }

    /// Values per thread in the destination (`NumValDst`).
    ///
    /// ```
    /// let a = tessel_layout::atom::copy_atom("SM75_U32x1_LDSM_N").unwrap().typed(16).unwrap();
    /// assert_eq!(a.num_val_dst(), 2);
    /// ```
    pub fn num_val_dst(&self) -> i64 {
        self.dst.mode(1).map_or(0, |m| m.size())
    }

    /// Threads of the reference layout (`AtomNumThr`).
    ///
    /// ```
    /// let a = tessel_layout::atom::copy_atom("SM75_U32x1_LDSM_N").unwrap().typed(16).unwrap();
    /// assert_eq!(a.num_thr(), 32);
    /// ```
    pub fn num_thr(&self) -> i64 {
        self.reference.mode(0).map_or(0, |m| m.size())
    }

    /// Values per thread of the reference layout (`AtomNumVal`).
    ///
    /// ```
    /// let a = tessel_layout::atom::copy_atom("SM75_U32x1_LDSM_N").unwrap().typed(16).unwrap();
    /// assert_eq!(a.num_val(), 2);
    /// ```
    pub fn num_val(&self) -> i64 {
        self.reference.mode(1).map_or(0, |m| m.size())
    }
}

impl fmt::Display for TypedCopyAtom {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Copy_Atom<{}, {}-bit", self.atom.name, self.value_bits)?;
        if let Some(tma) = &self.atom.tma {
            write!(f, ", {tma}")?;
        }
        f.write_str(">")
    }
}
