//! The MMA atoms: CuTe's `MMA_Traits` transcribed from `include/cute/atom/mma_traits_sm70.hpp`,
//! `mma_traits_sm80.hpp`, `mma_traits_sm89.hpp`, `mma_traits_sm90_gmma.hpp` and
//! `mma_traits_sm90_gmma_ext.hpp` (CUTLASS v4.2.1); instructions and register counts from the
//! PTX ISA (`mma`, `wgmma.mma_async`) and CuTe's `include/cute/arch/mma_sm70.hpp`,
//! `mma_sm80.hpp`, `mma_sm89.hpp`, `mma_sm90_gmma.hpp`.

use super::layout;
use crate::Element;
use crate::atom::mma::{MmaAtom, OperandSource};
use crate::atom::{AsmOperand, Constraint, Direction, number_operands};

/// The value types of an MMA atom: (CuTe's name token, A type, B type, C/D type).
type Types = (&'static str, Element, Element, Element);

const SM70_TYPES: [Types; 2] = [
    ("F16F16F16F16", Element::F16, Element::F16, Element::F16),
    ("F32F16F16F32", Element::F16, Element::F16, Element::F32),
];

const SM80_TYPES: [Types; 3] = [
    ("F32F16F16F32", Element::F16, Element::F16, Element::F32),
    ("F16F16F16F16", Element::F16, Element::F16, Element::F16),
    ("F32BF16BF16F32", Element::BF16, Element::BF16, Element::F32),
];

/// The 8-bit floating-point `mma.sync` types of sm_89 (K = 32, fp32 accumulators, K-major:
/// CuTe's `SM89_16x8x32_*_TN` atoms), A then B.
const SM89_TYPES: [Types; 4] = [
    ("F32E4M3E4M3F32", Element::E4M3, Element::E4M3, Element::F32),
    ("F32E4M3E5M2F32", Element::E4M3, Element::E5M2, Element::F32),
    ("F32E5M2E5M2F32", Element::E5M2, Element::E5M2, Element::F32),
    ("F32E5M2E4M3F32", Element::E5M2, Element::E4M3, Element::F32),
];

/// The 16-bit GMMA types (K = 16); CuTe templates these atoms on the operands' major modes.
const GMMA_TYPES: [Types; 3] = [
    ("F32F16F16", Element::F16, Element::F16, Element::F32),
    ("F16F16F16", Element::F16, Element::F16, Element::F16),
    ("F32BF16BF16", Element::BF16, Element::BF16, Element::F32),
];

/// The 8-bit floating-point GMMA types (K = 32, K-major only: CuTe's `_TN` atoms), in CuTe's
/// order: F16 then F32 accumulators, A, then B.
const FP8_TYPES: [Types; 8] = [
    ("F16E4M3E4M3", Element::E4M3, Element::E4M3, Element::F16),
    ("F16E4M3E5M2", Element::E4M3, Element::E5M2, Element::F16),
    ("F16E5M2E4M3", Element::E5M2, Element::E4M3, Element::F16),
    ("F16E5M2E5M2", Element::E5M2, Element::E5M2, Element::F16),
    ("F32E4M3E4M3", Element::E4M3, Element::E4M3, Element::F32),
    ("F32E4M3E5M2", Element::E4M3, Element::E5M2, Element::F32),
    ("F32E5M2E4M3", Element::E5M2, Element::E4M3, Element::F32),
    ("F32E5M2E5M2", Element::E5M2, Element::E5M2, Element::F32),
];

/// The SM70 `mma.sync` operand arrangements: (CuTe's suffix, A row-major, B row-major). CuTe's
/// `T` is a K-major operand (A `.row`, B `.col`), `N` an M/N-major one.
const SM70_MAJORS: [(&str, bool, bool); 4] = [
    ("TN", true, false),
    ("NT", false, true),
    ("NN", false, false),
    ("TT", true, true),
];

/// Registers of `elements` values of `ty` packed into 32-bit registers: (count, constraint).
fn regs(elements: i64, ty: Element) -> (u32, Constraint) {
    let count = u32::try_from(elements * ty.bits() / 32).unwrap_or(0);
    match ty {
        Element::F32 => (count, Constraint::F),
        _ => (count, Constraint::R),
    }
}

/// The `mma.sync` asm: D, A, B, C register groups.
fn mma_sync_operands(opcode: &str, counts: [(i64, Element); 4]) -> (Vec<AsmOperand>, String) {
    let [(nd, td), (na, ta), (nb, tb), (nc, tc)] = counts;
    let (nd, cd) = regs(nd, td);
    let (na, ca) = regs(na, ta);
    let (nb, cb) = regs(nb, tb);
    let (nc, cc) = regs(nc, tc);
    let ops = number_operands(&[
        ("d", nd, cd, Direction::Out),
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
    (ops, asm)
}

/// CuTe's name of the scalar fp32 FMA atom.
pub(super) const UNIVERSAL_FMA: &str = "UniversalFMA<float,float,float,float>";

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
        types: [Element::F32, Element::F32, Element::F32],
        sources: [OperandSource::Registers, OperandSource::Registers],
        k_major: false,
    }
}

/// CuTe `mma_traits_sm70.hpp`: the quadpair `SM70_QuadPair = (4,2):(1,16)` (logical thread
/// `t0 + 4 t1` is lane `t0 + 16 t1`), `SM70_8x4_Row`, `SM70_8x4_Col`, `SM70_8x8_16b`,
/// `SM70_8x8_32b`.
fn sm70_atom(types: Types, suffix: &str, a_row: bool, b_row: bool) -> MmaAtom {
    let (token, ta, tb, tc) = types;
    let row = "(8,4):(1,8)"; // (T8,V4) -> (M8,K4): thread = m, value = k
    let col = "((4,2),4):((8,4),1)"; // thread = k (+4 m for the high half), value = m
    // A row-major (K-major) gives each thread a row: SM70_8x4_Row; B column-major (K-major)
    // gives each thread a column: SM70_8x4_Row over (N,K) as well.
    let a = if a_row { row } else { col };
    let b = if b_row { col } else { row };
    let c = if tc == Element::F16 {
        "(8,8):(1,8)"
    } else {
        "((2,2,2),(2,2,2)):((1,16,4),(8,2,32))"
    };
    let major = |r: bool| if r { "row" } else { "col" };
    let opcode = format!(
        "mma.sync.aligned.m8n8k4.{}.{}.{}.{}.{}.{}",
        major(a_row),
        major(b_row),
        tc.ptx(),
        ta.ptx(),
        tb.ptx(),
        tc.ptx()
    );
    // Per thread of the quadpair: 8 of C and D, 4 of A and of B.
    let (operands, asm) = mma_sync_operands(&opcode, [(8, tc), (4, ta), (4, tb), (8, tc)]);
    MmaAtom {
        name: format!("SM70_8x8x4_{token}_{suffix}"),
        opcode,
        asm,
        operands,
        shape_mnk: [8, 8, 4],
        thr_id: layout("(4,2):(1,16)"),
        a: layout(a),
        b: layout(b),
        c: layout(c),
        types: [ta, tb, tc],
        sources: [OperandSource::Registers, OperandSource::Registers],
        k_major: a_row && !b_row,
    }
}

/// CuTe `mma_traits_sm80.hpp`: `SM80_16x8x{k}_*_TN`, the 16-bit `mma.sync` of sm_80.
fn sm80_atom(k: i64, types: Types) -> MmaAtom {
    let (a, b) = if k == 16 {
        (
            "((4,8),(2,2,2)):((32,1),(16,8,128))",
            "((4,8),(2,2)):((16,1),(8,64))",
        )
    } else {
        ("((4,8),(2,2)):((32,1),(16,8))", "((4,8),2):((16,1),8)")
    };
    m16n8_atom("SM80", k, types, a, b)
}

/// CuTe `mma_traits_sm89.hpp`: `SM89_16x8x32_*_TN`, the 8-bit floating-point `mma.sync` of
/// sm_89 and later. A's 16 values per thread are four registers of four bytes each (column
/// pairs of the 16-bit atom become runs of four), B's 8 two registers.
fn sm89_atom(types: Types) -> MmaAtom {
    m16n8_atom(
        "SM89",
        32,
        types,
        "((4,8),(4,2,2)):((64,1),(16,8,256))",
        "((4,8),(4,2)):((32,1),(8,128))",
    )
}

/// The `mma.sync.aligned.m16n8k{k}.row.col` atom `{arch}_16x8x{k}_{token}_TN` with A's and B's
/// thread/value layouts `a` and `b`; C is CuTe's `SM80_16x8_Row` for every such atom.
fn m16n8_atom(arch: &str, k: i64, types: Types, a: &str, b: &str) -> MmaAtom {
    let (token, ta, tb, tc) = types;
    let c = "((4,8),(2,2)):((32,1),(16,8))";
    let opcode = format!(
        "mma.sync.aligned.m16n8k{k}.row.col.{}.{}.{}.{}",
        tc.ptx(),
        ta.ptx(),
        tb.ptx(),
        tc.ptx()
    );
    // Per thread: A 16*k/32 values, B 8*k/32, C and D 4.
    let (operands, asm) = mma_sync_operands(
        &opcode,
        [(4, tc), (16 * k / 32, ta), (8 * k / 32, tb), (4, tc)],
    );
    MmaAtom {
        name: format!("{arch}_16x8x{k}_{token}_TN"),
        opcode,
        asm,
        operands,
        shape_mnk: [16, 8, k],
        thr_id: layout("32:1"),
        a: layout(a),
        b: layout(b),
        c: layout(c),
        types: [ta, tb, tc],
        sources: [OperandSource::Registers, OperandSource::Registers],
        k_major: true,
    }
}

/// A GMMA atom `SM90_64x{n}x{k}_...`: `k` = 16 for 16-bit inputs (with the transpose
/// immediates), 32 for 8-bit ones (K-major only, no transpose immediates).
fn gmma_atom(n: i64, k: i64, types: Types, rs: bool) -> MmaAtom {
    let (token, ta, tb, tc) = types;
    let fp8 = k == 32;
    let opcode = format!(
        "wgmma.mma_async.sync.aligned.m64n{n}k{k}.{}.{}.{}",
        tc.ptx(),
        ta.ptx(),
        tb.ptx()
    );
    // Accumulators: 64*n values over 128 threads; A from registers: 64*k over 128.
    let (nd, cdk) = regs(64 * n / 128, tc);
    let mut groups = vec![("d", nd, cdk, Direction::InOut)];
    if rs {
        let (na, ca) = regs(64 * k / 128, ta);
        groups.push(("a", na, ca, Direction::In));
    } else {
        groups.push(("desc_a", 1, Constraint::L, Direction::In));
    }
    groups.push(("desc_b", 1, Constraint::L, Direction::In));
    groups.push(("scale_d", 1, Constraint::R, Direction::In));
    groups.push(("scale_a", 1, Constraint::N, Direction::In));
    groups.push(("scale_b", 1, Constraint::N, Direction::In));
    if !fp8 {
        if !rs {
            groups.push(("tnsp_a", 1, Constraint::N, Direction::In));
        }
        groups.push(("tnsp_b", 1, Constraint::N, Direction::In));
    }
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
    // CuTe include/cute/atom/mma_traits_sm90_gmma.hpp: ABLayout<M,K>, ALayout_64x16 (16-bit),
    // ALayout_64x32 (8-bit), CLayout_64xN<N>.
    let a = match (rs, fp8) {
        (true, false) => layout("((4,8,4),(2,2,2)):((128,1,16),(64,8,512))"),
        (true, true) => layout("((4,8,4),(4,2,2)):((256,1,16),(64,8,1024))"),
        (false, _) => layout(&format!("(128,(64,{k})):(0,(1,64))")),
    };
    let a_source = if rs {
        OperandSource::Registers
    } else {
        OperandSource::SharedDescriptor
    };
    let kind = if rs { "RS" } else { "SS" };
    let name = if fp8 {
        format!("SM90_64x{n}x32_{token}_{kind}_TN")
    } else {
        format!("SM90_64x{n}x16_{token}_{kind}")
    };
    MmaAtom {
        name,
        opcode,
        asm,
        operands: ops,
        shape_mnk: [64, n, k],
        thr_id: layout("128:1"),
        a,
        b: layout(&format!("(128,({n},{k})):(0,(1,{n}))")),
        c: layout(&format!(
            "((4,8,4),(2,2,{})):((128,1,16),(64,8,512))",
            n / 8
        )),
        types: [ta, tb, tc],
        sources: [a_source, OperandSource::SharedDescriptor],
        k_major: true,
    }
}

/// The GMMA `N` extents: 8, 16, ..., 256 (`mma_traits_sm90_gmma.hpp` and `_ext.hpp`).
fn gmma_ns() -> impl Iterator<Item = i64> {
    (8..=256).step_by(8)
}

/// The CuTe names of every MMA atom, in catalog order.
pub(super) fn mma_names() -> Vec<String> {
    let mut out = vec![UNIVERSAL_FMA.to_string()];
    for (token, ..) in SM70_TYPES {
        for (suffix, ..) in SM70_MAJORS {
            out.push(format!("SM70_8x8x4_{token}_{suffix}"));
        }
    }
    for k in [16, 8] {
        for (token, ..) in SM80_TYPES {
            out.push(format!("SM80_16x8x{k}_{token}_TN"));
        }
    }
    for (token, ..) in SM89_TYPES {
        out.push(format!("SM89_16x8x32_{token}_TN"));
    }
    for n in gmma_ns() {
        for (token, ..) in GMMA_TYPES {
            for kind in ["SS", "RS"] {
                out.push(format!("SM90_64x{n}x16_{token}_{kind}"));
            }
        }
    }
    for n in gmma_ns() {
        for (token, ..) in FP8_TYPES {
            for kind in ["SS", "RS"] {
                out.push(format!("SM90_64x{n}x32_{token}_{kind}_TN"));
            }
        }
    }
    out
}

fn parse_sm70(name: &str) -> Option<MmaAtom> {
    let rest = name.strip_prefix("SM70_8x8x4_")?;
    let (token, suffix) = rest.rsplit_once('_')?;
    let types = SM70_TYPES.into_iter().find(|t| t.0 == token)?;
    let (_, a_row, b_row) = SM70_MAJORS.into_iter().find(|m| m.0 == suffix)?;
    Some(sm70_atom(types, suffix, a_row, b_row))
}

fn parse_sm80(name: &str) -> Option<MmaAtom> {
    let rest = name.strip_prefix("SM80_16x8x")?.strip_suffix("_TN")?;
    let (k, token) = rest.split_once('_')?;
    let k = match k {
        "16" => 16,
        "8" => 8,
        _ => return None,
    };
    let types = SM80_TYPES.into_iter().find(|t| t.0 == token)?;
    Some(sm80_atom(k, types))
}

fn parse_sm89(name: &str) -> Option<MmaAtom> {
    let token = name.strip_prefix("SM89_16x8x32_")?.strip_suffix("_TN")?;
    let types = SM89_TYPES.into_iter().find(|t| t.0 == token)?;
    Some(sm89_atom(types))
}

/// `N` of `SM90_64x{N}x...`, spelled canonically, with the rest of the name.
fn gmma_n(name: &str) -> Option<(i64, &str)> {
    let rest = name.strip_prefix("SM90_64x")?;
    let (n_text, rest) = rest.split_once('x')?;
    let n: i64 = n_text.parse().ok()?;
    (gmma_ns().any(|m| m == n) && n.to_string() == n_text).then_some((n, rest))
}

fn parse_gmma(name: &str) -> Option<MmaAtom> {
    let (n, rest) = gmma_n(name)?;
    if let Some(rest) = rest.strip_prefix("16_") {
        let (token, kind) = rest.rsplit_once('_')?;
        let rs = match kind {
            "SS" => false,
            "RS" => true,
            _ => return None,
        };
        let types = GMMA_TYPES.into_iter().find(|t| t.0 == token)?;
        return Some(gmma_atom(n, 16, types, rs));
    }
    let rest = rest.strip_prefix("32_")?.strip_suffix("_TN")?;
    let (token, kind) = rest.rsplit_once('_')?;
    let rs = match kind {
        "SS" => false,
        "RS" => true,
        _ => return None,
    };
    let types = FP8_TYPES.into_iter().find(|t| t.0 == token)?;
    Some(gmma_atom(n, 32, types, rs))
}

/// The MMA atom named `name`, if it is one.
pub(super) fn parse_mma(name: &str) -> Option<MmaAtom> {
    if name == UNIVERSAL_FMA {
        return Some(universal_fma());
    }
    parse_sm70(name)
        .or_else(|| parse_sm80(name))
        .or_else(|| parse_sm89(name))
        .or_else(|| parse_gmma(name))
}
