//! The copy atoms: CuTe's `Copy_Traits` transcribed from `include/cute/atom/copy_traits.hpp`,
//! `copy_traits_sm75.hpp`, `copy_traits_sm80.hpp`, `copy_traits_sm90.hpp` and
//! `copy_traits_sm90_tma.hpp` (CUTLASS v4.2.1); instruction spellings from the PTX ISA
//! (`ldmatrix`, `stmatrix`, `movmatrix`, `cp.async`, `cp.async.bulk`, `cp.async.bulk.tensor`)
//! and CuTe's `include/cute/arch/copy_sm75.hpp`, `copy_sm80.hpp`, `copy_sm90_tma.hpp`.

use super::layout;
use crate::atom::copy::{CopyAtom, SmemAccess, SmemSide};
use crate::atom::element::element_bits;
use crate::atom::{AsmOperand, Constraint, Direction, number_operands};
use crate::{Error, Result};

/// The `ldmatrix`/`stmatrix` source-side (one 128-bit row per lane) layouts in bits, CuTe's
/// `SrcLayout` of `SM75_U32x{1,2,4}_LDSM_N`.
fn matrix_rows_bits(matrices: u32) -> &'static str {
    match matrices {
        1 => "((8,4),128):((128,0),1)",
        2 => "((16,2),128):((128,0),1)",
        _ => "(32,128):(128,1)",
    }
}

/// The register-side layouts in bits: CuTe's `DstLayout` of `SM75_U32x{1,2,4}_LDSM_N` and of
/// `SM75_U16x{2,4,8}_LDSM_T`.
fn matrix_regs_bits(matrices: u32, trans: bool) -> &'static str {
    match (matrices, trans) {
        (1, false) => "(32,32):(32,1)",
        (2, false) => "(32,(32,2)):(32,(1,1024))",
        (_, false) => "(32,(32,4)):(32,(1,1024))",
        (1, true) => "((4,8),(16,2)):((256,16),(1,128))",
        (2, true) => "((4,8),(16,2,2)):((256,16),(1,128,1024))",
        (_, true) => "((4,8),(16,2,4)):((256,16),(1,128,1024))",
    }
}

pub(super) fn matrix_atom(load: bool, matrices: u32, trans: bool) -> CopyAtom {
    let name = match (load, trans) {
        (true, false) => format!("SM75_U32x{matrices}_LDSM_N"),
        (true, true) => format!("SM75_U16x{}_LDSM_T", 2 * matrices),
        (false, false) => format!("SM90_U32x{matrices}_STSM_N"),
        (false, true) => format!("SM90_U16x{}_STSM_T", 2 * matrices),
    };
    let t = if trans { ".trans" } else { "" };
    let op = if load { "ldmatrix" } else { "stmatrix" };
    let opcode = format!("{op}.sync.aligned.m8n8.x{matrices}{t}.shared.b16");
    let rows = layout(matrix_rows_bits(matrices));
    let regs = layout(matrix_regs_bits(matrices, trans));
    let (operands, asm, src, dst, access) = if load {
        let ops = number_operands(&[
            ("dst", matrices, Constraint::R, Direction::Out),
            ("smem", 1, Constraint::R, Direction::In),
        ]);
        let asm = format!(
            "{opcode} {}, [{}];",
            ops[0].placeholders(),
            ops[1].placeholders()
        );
        let access = SmemAccess::Ldmatrix { matrices, trans };
        (ops, asm, rows, regs, access)
    } else {
        let ops = number_operands(&[
            ("smem", 1, Constraint::R, Direction::In),
            ("src", matrices, Constraint::R, Direction::In),
        ]);
        let asm = format!(
            "{opcode} [{}], {};",
            ops[0].placeholders(),
            ops[1].placeholders()
        );
        let access = SmemAccess::Stmatrix { matrices, trans };
        (ops, asm, regs, rows, access)
    };
    // LDSM: RefLayout = DstLayout (copy_traits_sm75.hpp); STSM: RefLayout = SrcLayout
    // (copy_traits_sm90.hpp). Both are the register side.
    let reference = if load { dst.clone() } else { src.clone() };
    CopyAtom {
        name,
        opcode: Some(opcode),
        asm: Some(asm),
        operands,
        thr_id: layout("32:1"),
        src,
        dst,
        reference,
        access,
        tma: None,
    }
}

/// CuTe's `SM75_U32x1_MOVM_T` (`copy_traits_sm75.hpp`): `movmatrix.sync.aligned.m8n8.trans.b16`
/// transposes an 8x8 matrix of b16 held one 32-bit register per lane. CuTe's traits state only
/// that each lane's 32 bits stay in that lane's register (`SrcLayout = DstLayout =
/// (32,32):(32,1)`); which element the register holds before and after is the PTX ISA's
/// fragment (lane `l` holds row `l / 4`, columns `2 (l % 4) + {0,1}` of the source, the same
/// positions of the transpose after).
pub(super) fn movmatrix_atom() -> CopyAtom {
    let opcode = "movmatrix.sync.aligned.m8n8.trans.b16".to_string();
    let ops = number_operands(&[
        ("dst", 1, Constraint::R, Direction::Out),
        ("src", 1, Constraint::R, Direction::In),
    ]);
    // PTX ISA: `movmatrix.sync.aligned.m8n8.trans.b16 d, a;` with scalar registers.
    let asm = format!("{opcode} %0, %1;");
    let regs = layout("(32,32):(32,1)");
    CopyAtom {
        name: "SM75_U32x1_MOVM_T".into(),
        opcode: Some(opcode),
        asm: Some(asm),
        operands: ops,
        thr_id: layout("32:1"),
        src: regs.clone(),
        dst: regs.clone(),
        reference: regs,
        access: SmemAccess::Registers,
        tma: None,
    }
}

/// A one-thread atom moving `bits`: CuTe's `ThrID = Layout<_1>`, `SrcLayout = DstLayout =
/// RefLayout = Layout<Shape<_1, bits>>` (compact strides `(_0,_1)`).
fn one_thread_atom(
    name: String,
    bits: i64,
    opcode: Option<String>,
    asm: Option<String>,
    operands: Vec<AsmOperand>,
    access: SmemAccess,
) -> CopyAtom {
    let bits_layout = layout(&format!("(1,{bits}):(0,1)"));
    CopyAtom {
        name,
        opcode,
        asm,
        operands,
        thr_id: layout("1:0"),
        src: bits_layout.clone(),
        dst: bits_layout.clone(),
        reference: bits_layout,
        access,
        tma: None,
    }
}

/// `SM80_CP_ASYNC_CACHE{ALWAYS,GLOBAL}<ty>` of a `bits`-bit element type `ty`.
fn cp_async_atom(global: bool, ty: &str, bits: u32) -> CopyAtom {
    let (cache, family) = if global {
        ("cg", "CACHEGLOBAL")
    } else {
        ("ca", "CACHEALWAYS")
    };
    let opcode = format!("cp.async.{cache}.shared.global");
    let ops = number_operands(&[
        ("smem", 1, Constraint::R, Direction::In),
        ("gmem", 1, Constraint::L, Direction::In),
    ]);
    let asm = format!("{opcode} [%0], [%1], {};", bits / 8);
    one_thread_atom(
        format!("SM80_CP_ASYNC_{family}<{ty}>"),
        i64::from(bits),
        Some(opcode),
        Some(asm),
        ops,
        SmemAccess::CpAsync { bytes: bits / 8 },
    )
}

/// `UniversalCopy<ty>`: a plain assignment of one `bits`-bit value.
fn universal_atom(ty: &str, bits: u32) -> CopyAtom {
    one_thread_atom(
        format!("UniversalCopy<{ty}>"),
        i64::from(bits),
        None,
        None,
        Vec::new(),
        SmemAccess::Vector { bits },
    )
}

/// The bits of a sized bulk or TMA atom: a positive multiple of 128 (the PTX ISA moves whole
/// 16-byte units: `cp.async.bulk`'s size and a tensor box's innermost extent are multiples of
/// 16 bytes).
fn check_bulk_bits(name: &str, bits: i64) -> Result<()> {
    if bits < 128 || bits % 128 != 0 {
        return Err(Error::invalid(format!(
            "{name} moves {bits} bits; a bulk transfer moves a positive number of whole \
             16-byte units (a multiple of 128 bits)"
        )));
    }
    Ok(())
}

/// The bulk copies of `cp.async.bulk` (CuTe `SM90_BULK_COPY_G2S` and `SM90_BULK_COPY_S2G`).
///
/// ```
/// use tessel_layout::atom::BulkCopyOp;
/// assert_eq!(BulkCopyOp::G2S.name(), "SM90_BULK_COPY_G2S");
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BulkCopyOp {
    /// Global to shared memory, completing on an mbarrier.
    G2S,
    /// Shared to global memory, in a bulk group.
    S2G,
}

impl BulkCopyOp {
    /// CuTe's name.
    ///
    /// ```
    /// assert_eq!(tessel_layout::atom::BulkCopyOp::S2G.name(), "SM90_BULK_COPY_S2G");
    /// ```
    pub fn name(self) -> &'static str {
        match self {
            BulkCopyOp::G2S => "SM90_BULK_COPY_G2S",
            BulkCopyOp::S2G => "SM90_BULK_COPY_S2G",
        }
    }
}

/// CuTe's `Copy_Traits<SM90_BULK_COPY_G2S, NumBitsPerTMA>` (or `_S2G`) for a copy of `bits`
/// bits (`copy_traits_sm90_tma.hpp`: one thread, `Layout<Shape<_1, NumBitsPerTMA>>` for source,
/// destination and reference); the instruction as CuTe's `copy_sm90_tma.hpp` issues it. Bulk
/// copies by their bare names ([`copy_atom`](crate::atom::copy_atom)) move one 16-byte unit.
///
/// ```
/// use tessel_layout::atom::{BulkCopyOp, bulk_copy_atom};
/// let a = bulk_copy_atom(BulkCopyOp::G2S, 1024).unwrap();
/// assert_eq!(a.src_bits().to_string(), "(1,1024):(0,1)");
/// assert_eq!(a.asm_template().unwrap(),
///     "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];");
/// assert!(bulk_copy_atom(BulkCopyOp::S2G, 96).is_err()); // 12 bytes: not whole 16-byte units
/// ```
pub fn bulk_copy_atom(op: BulkCopyOp, bits: i64) -> Result<CopyAtom> {
    check_bulk_bits(op.name(), bits)?;
    let (opcode, ops, smem) = match op {
        BulkCopyOp::G2S => (
            "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes",
            number_operands(&[
                ("smem", 1, Constraint::R, Direction::In),
                ("gmem", 1, Constraint::L, Direction::In),
                ("bytes", 1, Constraint::R, Direction::In),
                ("mbar", 1, Constraint::R, Direction::In),
            ]),
            SmemSide::Destination,
        ),
        BulkCopyOp::S2G => (
            "cp.async.bulk.global.shared::cta.bulk_group",
            number_operands(&[
                ("gmem", 1, Constraint::L, Direction::In),
                ("smem", 1, Constraint::R, Direction::In),
                ("bytes", 1, Constraint::R, Direction::In),
            ]),
            SmemSide::Source,
        ),
    };
    let asm = match op {
        BulkCopyOp::G2S => format!("{opcode} [%0], [%1], %2, [%3];"),
        BulkCopyOp::S2G => format!("{opcode} [%0], [%1], %2;"),
    };
    Ok(one_thread_atom(
        op.name().to_string(),
        bits,
        Some(opcode.to_string()),
        Some(asm),
        ops,
        SmemAccess::Bulk { smem },
    ))
}

/// CuTe's `SM90_BULK_COPY_AUTO` (`copy_traits_sm90_tma.hpp`): a placeholder the copy algorithm
/// replaces by the widest bulk copy the tensors allow; its layouts are `(_1,_1):(_0,_0)`.
pub(super) fn bulk_auto_atom() -> CopyAtom {
    let unit = layout("(1,1):(0,0)");
    CopyAtom {
        name: "SM90_BULK_COPY_AUTO".into(),
        opcode: None,
        asm: None,
        operands: Vec::new(),
        thr_id: layout("1:0"),
        src: unit.clone(),
        dst: unit.clone(),
        reference: unit,
        access: SmemAccess::Bulk {
            smem: SmemSide::Either,
        },
        tma: None,
    }
}

/// The TMA operations of `cp.async.bulk.tensor` with a tiled tensor map (CuTe `SM90_TMA_LOAD`,
/// `SM90_TMA_LOAD_MULTICAST`, `SM90_TMA_STORE`).
///
/// ```
/// use tessel_layout::atom::TmaOp;
/// assert_eq!(TmaOp::LoadMulticast.name(), "SM90_TMA_LOAD_MULTICAST");
/// assert!(TmaOp::Load.is_load() && !TmaOp::Store.is_load());
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TmaOp {
    /// Global to shared memory of this CTA.
    Load,
    /// Global to shared memory of every CTA of a cluster mask, each CTA loading a slice.
    LoadMulticast,
    /// Shared to global memory.
    Store,
}

impl TmaOp {
    /// Every operation.
    ///
    /// ```
    /// assert_eq!(tessel_layout::atom::TmaOp::ALL.len(), 3);
    /// ```
    pub const ALL: [TmaOp; 3] = [TmaOp::Load, TmaOp::LoadMulticast, TmaOp::Store];

    /// CuTe's name.
    ///
    /// ```
    /// assert_eq!(tessel_layout::atom::TmaOp::Store.name(), "SM90_TMA_STORE");
    /// ```
    pub fn name(self) -> &'static str {
        match self {
            TmaOp::Load => "SM90_TMA_LOAD",
            TmaOp::LoadMulticast => "SM90_TMA_LOAD_MULTICAST",
            TmaOp::Store => "SM90_TMA_STORE",
        }
    }

    /// The operation named `name` (CuTe's spelling), if it is one.
    ///
    /// ```
    /// use tessel_layout::atom::TmaOp;
    /// assert_eq!(TmaOp::from_name("SM90_TMA_STORE"), Some(TmaOp::Store));
    /// assert_eq!(TmaOp::from_name("SM90_TMA_LOAD_IM2COL"), None);
    /// ```
    pub fn from_name(name: &str) -> Option<TmaOp> {
        TmaOp::ALL.into_iter().find(|op| op.name() == name)
    }

    /// Whether global memory is the source.
    ///
    /// ```
    /// assert!(tessel_layout::atom::TmaOp::LoadMulticast.is_load());
    /// ```
    pub fn is_load(self) -> bool {
        self != TmaOp::Store
    }

    /// The PTX instruction for a tensor of `rank` dimensions (`None`: the ISA's `.dim`).
    fn opcode(self, rank: Option<usize>) -> String {
        let dim = rank.map_or_else(|| "dim".to_string(), |r| format!("{r}d"));
        match self {
            TmaOp::Load => format!(
                "cp.async.bulk.tensor.{dim}.shared::cluster.global.mbarrier::complete_tx::bytes"
            ),
            TmaOp::LoadMulticast => format!(
                "cp.async.bulk.tensor.{dim}.shared::cluster.global.mbarrier::complete_tx::bytes\
                 .multicast::cluster"
            ),
            TmaOp::Store => format!("cp.async.bulk.tensor.{dim}.global.shared::cta.bulk_group"),
        }
    }
}

/// CuTe's `Copy_Traits<SM90_TMA_LOAD, NumBitsPerTMA>` (and `_MULTICAST`, `SM90_TMA_STORE`) for
/// one box of `bits` bits (`copy_traits_sm90_tma.hpp`: `ThrID = Layout<_1>`, `SrcLayout =
/// DstLayout = RefLayout = Layout<Shape<_1, NumBitsPerTMA>>`); with the tensor's `rank` (1 to 5)
/// the instruction and its inline asm, as CuTe's `copy_sm90_tma.hpp` issues them (without the
/// optional L2 cache hint). [`make_tma_copy`](crate::tiled::make_tma_copy) gives both from the
/// box it derives; by their bare names ([`copy_atom`](crate::atom::copy_atom)) the TMA atoms
/// move one 16-byte unit and keep the ISA's `.dim`.
///
/// ```
/// use tessel_layout::atom::{TmaOp, tma_atom};
/// let a = tma_atom(TmaOp::Load, 64 * 32 * 16, Some(2)).unwrap();
/// assert_eq!(a.dst_bits().to_string(), "(1,32768):(0,1)");
/// assert_eq!(a.asm_template().unwrap(),
///     "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes \
///      [%0], [%1, {%3, %4}], [%2];");
/// let m = tma_atom(TmaOp::LoadMulticast, 128, Some(1)).unwrap();
/// assert_eq!(m.operands()[3].constraint_string(), "h"); // the 16-bit cluster mask
/// assert!(tma_atom(TmaOp::Store, 128, Some(6)).is_err());
/// ```
pub fn tma_atom(op: TmaOp, bits: i64, rank: Option<usize>) -> Result<CopyAtom> {
    check_bulk_bits(op.name(), bits)?;
    if let Some(r) = rank
        && !(1..=5).contains(&r)
    {
        return Err(Error::invalid(format!(
            "{} of a rank-{r} tensor: cp.async.bulk.tensor takes 1 to 5 dimensions",
            op.name()
        )));
    }
    let opcode = op.opcode(rank);
    let coords = u32::try_from(rank.unwrap_or(0)).unwrap_or(0);
    let mut groups = match op {
        TmaOp::Store => vec![
            ("tmap", 1, Constraint::L, Direction::In),
            ("smem", 1, Constraint::R, Direction::In),
        ],
        _ => vec![
            ("smem", 1, Constraint::R, Direction::In),
            ("tmap", 1, Constraint::L, Direction::In),
            ("mbar", 1, Constraint::R, Direction::In),
        ],
    };
    if op == TmaOp::LoadMulticast {
        groups.push(("mask", 1, Constraint::H, Direction::In));
    }
    if coords > 0 {
        groups.push(("coord", coords, Constraint::R, Direction::In));
    }
    let ops = number_operands(&groups);
    let asm = rank.map(|_| {
        let coord = ops.last().map(AsmOperand::placeholders).unwrap_or_default();
        match op {
            TmaOp::Load => format!("{opcode} [%0], [%1, {coord}], [%2];"),
            TmaOp::LoadMulticast => format!("{opcode} [%0], [%1, {coord}], [%2], %3;"),
            TmaOp::Store => format!("{opcode} [%0, {coord}], [%1];"),
        }
    });
    let smem = if op.is_load() {
        SmemSide::Destination
    } else {
        SmemSide::Source
    };
    let operands = if rank.is_some() { ops } else { Vec::new() };
    Ok(one_thread_atom(
        op.name().to_string(),
        bits,
        Some(opcode),
        asm,
        operands,
        SmemAccess::Bulk { smem },
    ))
}

/// The canonical names of the atoms templated on an element type, with the element types of
/// each width they take: `(family, widths)`.
const TYPED_FAMILIES: [(&str, &[u32]); 3] = [
    ("SM80_CP_ASYNC_CACHEALWAYS", &[32, 64, 128]),
    ("SM80_CP_ASYNC_CACHEGLOBAL", &[128]),
    ("UniversalCopy", &[8, 16, 32, 64, 128]),
];

/// The unsigned integer type of `bits` bits, CuTe's canonical spelling in the catalog.
fn uint_name(bits: u32) -> String {
    format!("uint{bits}_t")
}

/// The atom of a templated family for the element type `ty` of `bits` bits.
fn typed_atom(family: &str, ty: &str, bits: u32) -> CopyAtom {
    match family {
        "SM80_CP_ASYNC_CACHEALWAYS" => cp_async_atom(false, ty, bits),
        "SM80_CP_ASYNC_CACHEGLOBAL" => cp_async_atom(true, ty, bits),
        _ => universal_atom(ty, bits),
    }
}

/// Every copy atom in catalog order, the templated ones with their `uintN_t` spelling.
pub(super) fn all_copy_atoms() -> Vec<CopyAtom> {
    let mut out = Vec::new();
    for load in [true, false] {
        for trans in [false, true] {
            for m in [1, 2, 4] {
                out.push(matrix_atom(load, m, trans));
            }
        }
    }
    out.push(movmatrix_atom());
    for (family, widths) in TYPED_FAMILIES {
        for &bits in widths {
            out.push(typed_atom(family, &uint_name(bits), bits));
        }
    }
    for op in [BulkCopyOp::G2S, BulkCopyOp::S2G] {
        out.extend(bulk_copy_atom(op, 128));
    }
    out.push(bulk_auto_atom());
    for op in TmaOp::ALL {
        out.extend(tma_atom(op, 128, None));
    }
    out
}

/// The atom of a templated family named `FAMILY<TYPE>` with any CuTe element type of a width
/// the family takes; `Ok(None)` when `name` is not of that form.
pub(super) fn templated_copy_atom(name: &str) -> Result<Option<CopyAtom>> {
    let Some((family, rest)) = name.split_once('<') else {
        return Ok(None);
    };
    let Some(ty) = rest.strip_suffix('>') else {
        return Ok(None);
    };
    let Some((family, widths)) = TYPED_FAMILIES.into_iter().find(|f| f.0 == family) else {
        return Ok(None);
    };
    let ty = ty.strip_prefix("cute::").unwrap_or(ty);
    let bits = element_bits(ty)?;
    if !widths.contains(&bits) {
        let allowed: Vec<String> = widths.iter().map(u32::to_string).collect();
        return Err(Error::invalid(format!(
            "{family}<{ty}>: {ty} has {bits} bits, {family} takes element types of {} bits \
             (CuTe's static_assert on sizeof_bits; the PTX ISA's cp-size)",
            allowed.join(", ")
        )));
    }
    Ok(Some(typed_atom(family, ty, bits)))
}
