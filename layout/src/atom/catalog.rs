//! The atoms tessel knows, built on demand from their CuTe names.
//!
//! Layouts are transcribed from CuTe's traits headers (`include/cute/atom/copy_traits*.hpp`,
//! `mma_traits_sm80.hpp`, `mma_traits_sm90_gmma.hpp`); instruction names and register counts
//! from the PTX ISA (`ldmatrix`, `stmatrix`, `cp.async`, `mma`, `wgmma.mma_async`) and CuTe's
//! `include/cute/arch/*.hpp`.

use super::copy::{CopyAtom, SmemAccess};
use super::mma::{MmaAtom, OperandSource};
use super::{AsmOperand, Constraint, Direction, ValueType, number_operands};
use crate::{Error, Layout, Result};

fn layout(text: &str) -> Layout {
    // Every literal below is a valid layout; a typo is caught by the catalog tests.
    text.parse()
        .unwrap_or_else(|e| panic!("catalog layout {text}: {e}"))
}

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

fn matrix_atom(load: bool, matrices: u32, trans: bool) -> CopyAtom {
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
    }
}

fn one_thread_atom(
    name: String,
    bits: u32,
    opcode: Option<String>,
    asm: Option<String>,
    operands: Vec<AsmOperand>,
    access: SmemAccess,
) -> CopyAtom {
    // CuTe copy_traits.hpp / copy_traits_sm80.hpp: ThrID = Layout<_1>, SrcLayout = DstLayout =
    // Layout<Shape<_1, Int<bits>>>, whose compact strides are (_0,_1).
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
    }
}

fn uint_name(bits: u32) -> String {
    format!("uint{bits}_t")
}

fn cp_async_atom(global: bool, bits: u32) -> CopyAtom {
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
        format!("SM80_CP_ASYNC_{family}<{}>", uint_name(bits)),
        bits,
        Some(opcode),
        Some(asm),
        ops,
        SmemAccess::CpAsync { bytes: bits / 8 },
    )
}

fn universal_atom(bits: u32) -> CopyAtom {
    one_thread_atom(
        format!("UniversalCopy<{}>", uint_name(bits)),
        bits,
        None,
        None,
        Vec::new(),
        SmemAccess::Vector { bits },
    )
}

/// Every copy atom, built.
fn all_copy_atoms() -> Vec<CopyAtom> {
    let mut out = Vec::new();
    for load in [true, false] {
        for trans in [false, true] {
            for m in [1, 2, 4] {
                out.push(matrix_atom(load, m, trans));
            }
        }
    }
    for bits in [32, 64, 128] {
        out.push(cp_async_atom(false, bits));
    }
    // PTX ISA, cp.async: .cg takes only a cp-size of 16 (CuTe's static_assert agrees).
    out.push(cp_async_atom(true, 128));
    for bits in [16, 32, 64, 128] {
        out.push(universal_atom(bits));
    }
    out
}

/// The CuTe names of every copy atom, in catalog order.
///
/// ```
/// let names = tessel_layout::atom::copy_atom_names();
/// assert!(names.contains(&"SM80_CP_ASYNC_CACHEALWAYS<uint64_t>".to_string()));
/// assert_eq!(names.len(), 20);
/// ```
pub fn copy_atom_names() -> Vec<String> {
    all_copy_atoms().into_iter().map(|a| a.name).collect()
}

/// The copy atom named `name` (CuTe's spelling, e.g. `SM75_U16x8_LDSM_T`,
/// `SM80_CP_ASYNC_CACHEGLOBAL<uint128_t>`, `UniversalCopy<uint64_t>`; spaces are ignored).
///
/// ```
/// use tessel_layout::atom::copy_atom;
/// assert_eq!(copy_atom("SM75_U16x4_LDSM_T").unwrap().dst_bits().to_string(),
///            "((4,8),(16,2,2)):((256,16),(1,128,1024))");
/// let err = copy_atom("SM80_CP_ASYNC_CACHEGLOBAL<uint32_t>").unwrap_err();
/// assert!(err.message().contains("unknown copy atom"));
/// ```
pub fn copy_atom(name: &str) -> Result<CopyAtom> {
    let wanted: String = name.chars().filter(|c| !c.is_whitespace()).collect();
    all_copy_atoms()
        .into_iter()
        .find(|a| a.name == wanted)
        .ok_or_else(|| {
            Error::invalid(format!(
                "unknown copy atom `{name}`; the known ones are {}",
                copy_atom_names().join(", ")
            ))
        })
}

/// The value types of an MMA atom: (CuTe's name token, A/B type, C/D type).
const SM80_TYPES: [(&str, ValueType, ValueType); 3] = [
    ("F32F16F16F32", ValueType::F16, ValueType::F32),
    ("F16F16F16F16", ValueType::F16, ValueType::F16),
    ("F32BF16BF16F32", ValueType::BF16, ValueType::F32),
];

const GMMA_TYPES: [(&str, ValueType, ValueType); 3] = [
    ("F32F16F16", ValueType::F16, ValueType::F32),
    ("F16F16F16", ValueType::F16, ValueType::F16),
    ("F32BF16BF16", ValueType::BF16, ValueType::F32),
];

/// Registers of `elements` values of `ty` packed into 32-bit registers: (count, constraint).
fn regs(elements: i64, ty: ValueType) -> (u32, Constraint) {
    let count = u32::try_from(elements * ty.bits() / 32).unwrap_or(0);
    match ty {
        ValueType::F32 => (count, Constraint::F),
        _ => (count, Constraint::R),
    }
}

fn sm80_atom(k: i64, token: &str, ab: ValueType, cd: ValueType) -> MmaAtom {
    // CuTe include/cute/atom/mma_traits_sm80.hpp.
    let (a, b) = if k == 16 {
        (
            "((4,8),(2,2,2)):((32,1),(16,8,128))",
            "((4,8),(2,2)):((16,1),(8,64))",
        )
    } else {
        ("((4,8),(2,2)):((32,1),(16,8))", "((4,8),2):((16,1),8)")
    };
    let c = "((4,8),(2,2)):((32,1),(16,8))";
    let opcode = format!(
        "mma.sync.aligned.m16n8k{k}.row.col.{cd}.{ab}.{ab}.{cd}",
        cd = cd.ptx(),
        ab = ab.ptx()
    );
    // Per thread: A 16*k/32 values, B 8*k/32, C and D 4.
    let (na, ca) = regs(16 * k / 32, ab);
    let (nb, cb) = regs(8 * k / 32, ab);
    let (nc, cc) = regs(4, cd);
    let ops = number_operands(&[
        ("d", nc, cc, Direction::Out),
        ("a", na, ca, Direction::In),
        ("b", nb, cb, Direction::In),
        ("c", nc, cc, Direction::In),
    ]);
    let asm = format!(
        "{opcode} {}, {}, {}, {};",
        ops[0].placeholders(),
        ops[1].placeholders(),
        ops[2].placeholders(),
        ops[3].placeholders()
    );
    MmaAtom {
        name: format!("SM80_16x8x{k}_{token}_TN"),
        opcode,
        asm,
        operands: ops,
        shape_mnk: [16, 8, k],
        thr_id: layout("32:1"),
        a: layout(a),
        b: layout(b),
        c: layout(c),
        types: [ab, ab, cd],
        sources: [OperandSource::Registers, OperandSource::Registers],
        k_major: true,
    }
}

fn gmma_atom(n: i64, token: &str, ab: ValueType, cd: ValueType, rs: bool) -> MmaAtom {
    let opcode = format!(
        "wgmma.mma_async.sync.aligned.m64n{n}k16.{}.{}.{}",
        cd.ptx(),
        ab.ptx(),
        ab.ptx()
    );
    // Accumulators: 64*n values over 128 threads.
    let (nd, cdk) = regs(64 * n / 128, cd);
    let mut groups = vec![("d", nd, cdk, Direction::InOut)];
    if rs {
        groups.push(("a", 4, Constraint::R, Direction::In));
    } else {
        groups.push(("desc_a", 1, Constraint::L, Direction::In));
    }
    groups.push(("desc_b", 1, Constraint::L, Direction::In));
    groups.push(("scale_d", 1, Constraint::R, Direction::In));
    groups.push(("scale_a", 1, Constraint::N, Direction::In));
    groups.push(("scale_b", 1, Constraint::N, Direction::In));
    if !rs {
        groups.push(("tnsp_a", 1, Constraint::N, Direction::In));
    }
    groups.push(("tnsp_b", 1, Constraint::N, Direction::In));
    let ops = number_operands(&groups);
    let imms: Vec<String> = ops[4..].iter().map(AsmOperand::placeholders).collect();
    let asm = format!(
        "{{\n.reg .pred p;\nsetp.ne.b32 p, {}, 0;\n{opcode} {}, {}, {}, p, {};\n}}",
        ops[3].placeholders(),
        ops[0].placeholders(),
        ops[1].placeholders(),
        ops[2].placeholders(),
        imms.join(", ")
    );
    // CuTe include/cute/atom/mma_traits_sm90_gmma.hpp: ABLayout<M,K>, ALayout_64x16,
    // CLayout_64xN<N>.
    let a = if rs {
        layout("((4,8,4),(2,2,2)):((128,1,16),(64,8,512))")
    } else {
        layout("(128,(64,16)):(0,(1,64))")
    };
    let a_source = if rs {
        OperandSource::Registers
    } else {
        OperandSource::SharedDescriptor
    };
    MmaAtom {
        name: format!("SM90_64x{n}x16_{token}_{}", if rs { "RS" } else { "SS" }),
        opcode,
        asm,
        operands: ops,
        shape_mnk: [64, n, 16],
        thr_id: layout("128:1"),
        a,
        b: layout(&format!("(128,({n},16)):(0,(1,{n}))")),
        c: layout(&format!(
            "((4,8,4),(2,2,{})):((128,1,16),(64,8,512))",
            n / 8
        )),
        types: [ab, ab, cd],
        sources: [a_source, OperandSource::SharedDescriptor],
        k_major: true,
    }
}

/// CuTe's name of the scalar fp32 FMA atom.
const UNIVERSAL_FMA: &str = "UniversalFMA<float,float,float,float>";

/// CuTe's `UniversalFMA<float,float,float,float>` (`include/cute/arch/mma.hpp`,
/// `include/cute/atom/mma_traits.hpp`): one thread computes `d = a * b + c` on one value of
/// each operand. `Shape_MNK = (1,1,1)`, `ThrID = Layout<_1>` and the A, B and C layouts
/// `Layout<Shape<_1,_1>>` (CuTe's compact strides of extent-1 modes are 0). The instruction is
/// the PTX ISA's `fma.rn.f32 d, a, b, c` (round to nearest even, no intermediate rounding).
fn universal_fma() -> MmaAtom {
    let ops = number_operands(&[
        ("d", 1, Constraint::F, Direction::Out),
        ("a", 1, Constraint::F, Direction::In),
        ("b", 1, Constraint::F, Direction::In),
        ("c", 1, Constraint::F, Direction::In),
    ]);
    let opcode = "fma.rn.f32".to_string();
    let asm = format!("{opcode} %0, %1, %2, %3;");
    let one = layout("(1,1):(0,0)");
    MmaAtom {
        name: UNIVERSAL_FMA.to_string(),
        opcode,
        asm,
        operands: ops,
        shape_mnk: [1, 1, 1],
        thr_id: layout("1:0"),
        a: one.clone(),
        b: one.clone(),
        c: one,
        types: [ValueType::F32, ValueType::F32, ValueType::F32],
        sources: [OperandSource::Registers, OperandSource::Registers],
        k_major: false,
    }
}

/// The CuTe names of every MMA atom: the scalar `UniversalFMA<float,float,float,float>`, the
/// six SM80 `mma.sync` atoms, then the SM90 GMMA atoms
/// `SM90_64x{N}x16_{F32F16F16,F16F16F16,F32BF16BF16}_{SS,RS}` for every `N` in `8, 16, ..., 256`.
///
/// ```
/// let names = tessel_layout::atom::mma_atom_names();
/// assert_eq!(names.len(), 1 + 6 + 32 * 3 * 2);
/// assert_eq!(names[0], "UniversalFMA<float,float,float,float>");
/// assert!(names.contains(&"SM90_64x248x16_F32BF16BF16_RS".to_string()));
/// ```
pub fn mma_atom_names() -> Vec<String> {
    let mut out = vec![UNIVERSAL_FMA.to_string()];
    for k in [16, 8] {
        for (token, _, _) in SM80_TYPES {
            out.push(format!("SM80_16x8x{k}_{token}_TN"));
        }
    }
    for n in (8..=256).step_by(8) {
        for (token, _, _) in GMMA_TYPES {
            for kind in ["SS", "RS"] {
                out.push(format!("SM90_64x{n}x16_{token}_{kind}"));
            }
        }
    }
    out
}

fn parse_gmma(name: &str) -> Option<MmaAtom> {
    let rest = name.strip_prefix("SM90_64x")?;
    let (n, rest) = rest.split_once("x16_")?;
    let n: i64 = n.parse().ok()?;
    if !(8..=256).contains(&n) || n % 8 != 0 || n.to_string().len() != name[8..].find('x')? {
        return None;
    }
    let (token, kind) = rest.rsplit_once('_')?;
    let rs = match kind {
        "SS" => false,
        "RS" => true,
        _ => return None,
    };
    let (token, ab, cd) = GMMA_TYPES.into_iter().find(|t| t.0 == token)?;
    Some(gmma_atom(n, token, ab, cd, rs))
}

fn parse_sm80(name: &str) -> Option<MmaAtom> {
    let rest = name.strip_prefix("SM80_16x8x")?.strip_suffix("_TN")?;
    let (k, token) = rest.split_once('_')?;
    let k = match k {
        "16" => 16,
        "8" => 8,
        _ => return None,
    };
    let (token, ab, cd) = SM80_TYPES.into_iter().find(|t| t.0 == token)?;
    Some(sm80_atom(k, token, ab, cd))
}

/// The MMA atom named `name` (CuTe's spelling; see [`mma_atom_names`]).
///
/// ```
/// use tessel_layout::atom::mma_atom;
/// let fma = mma_atom("UniversalFMA<float, float, float, float>").unwrap();
/// assert_eq!((fma.shape_mnk(), fma.threads()), ([1, 1, 1], 1));
/// let g = mma_atom("SM90_64x24x16_F16F16F16_SS").unwrap();
/// assert_eq!(g.b_layout().to_string(), "(128,(24,16)):(0,(1,24))");
/// let err = mma_atom("SM90_64x12x16_F16F16F16_SS").unwrap_err();
/// assert!(err.message().contains("SM90_64x12x16_F16F16F16_SS"));
/// // f16 accumulation only with f16 inputs, as in CuTe.
/// assert!(mma_atom("SM90_64x64x16_F16BF16BF16_SS").is_err());
/// ```
pub fn mma_atom(name: &str) -> Result<MmaAtom> {
    let wanted: String = name.chars().filter(|c| !c.is_whitespace()).collect();
    if wanted == UNIVERSAL_FMA {
        return Ok(universal_fma());
    }
    parse_sm80(&wanted)
        .or_else(|| parse_gmma(&wanted))
        .ok_or_else(|| {
            Error::invalid(format!(
                "unknown MMA atom `{name}`; the known ones are {UNIVERSAL_FMA}, \
                 SM80_16x8x{{16,8}}_{{F32F16F16F32,F16F16F16F16,F32BF16BF16F32}}_TN and \
                 SM90_64x{{N}}x16_{{F32F16F16,F16F16F16,F32BF16BF16}}_{{SS,RS}} with N a multiple \
                 of 8 in 8..=256"
            ))
        })
}
