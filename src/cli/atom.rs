//! `tessel atom NAME` and `tessel atom --list`: a copy or MMA atom's facts and layouts, as
//! CuTe's traits give them.

use std::io::Write;

use serde::Serialize;
use tessel::atom::{
    CopyAtom, MmaAtom, OperandSource, SmemAccess, SmemSide, copy_atom, copy_atom_names, mma_atom,
    mma_atom_names,
};
use tessel::expr::atoms::unknown_atom;
use tessel::{Error, Result};

use super::json::print_json;
use super::print;

/// Options of `tessel atom`.
#[derive(Debug, clap::Args)]
#[command(
    about = "Print a copy or MMA atom's layouts and facts (CuTe's traits), or list the atoms",
    long_about = "Prints the atom NAME as CuTe's traits define it. A copy atom \
(Copy_Traits): its PTX opcode, ThrID, and SrcLayout, DstLayout, RefLayout mapping (thread, value) \
to a bit of the data one instruction moves, and how it accesses shared memory. An MMA atom \
(MMA_Traits): its opcode, Shape_MNK, ThrID, ALayout, BLayout, CLayout mapping (thread, value) to \
the column-major index of (m,k), (n,k), (m,n), its value types and where A and B come from.\n\n\
Names are CuTe's; quote those with <...> for the shell: \
tessel atom 'SM80_CP_ASYNC_CACHEGLOBAL<uint128_t>'.",
    after_help = "Examples:\n  tessel atom SM80_16x8x16_F32F16F16F32_TN\n  \
tessel atom SM75_U32x4_LDSM_N --json\n  tessel atom --list"
)]
pub struct Args {
    /// The atom's CuTe name
    #[arg(
        value_name = "NAME",
        required_unless_present = "list",
        conflicts_with = "list"
    )]
    pub name: Option<String>,
    /// List every atom name, marked copy or mma
    #[arg(long)]
    pub list: bool,
    /// Print as JSON (schema: docs/cli.md)
    #[arg(long)]
    pub json: bool,
}

/// `tessel atom --list --json`.
#[derive(Debug, Serialize)]
pub struct ListJson {
    /// The copy atoms' names.
    pub copy: Vec<String>,
    /// The MMA atoms' names.
    pub mma: Vec<String>,
}

/// `tessel atom COPY_ATOM --json`.
#[derive(Debug, Serialize)]
pub struct CopyJson {
    /// The name.
    pub name: String,
    /// Always `copy`.
    pub kind: &'static str,
    /// The PTX instruction; null for UniversalCopy (a plain assignment).
    pub opcode: Option<String>,
    /// CuTe's ThrID.
    pub thr_id: String,
    /// SrcLayout, (thread, value) -> bit.
    pub src_layout: String,
    /// DstLayout, (thread, value) -> bit.
    pub dst_layout: String,
    /// RefLayout, (thread, value) -> bit.
    pub ref_layout: String,
    /// The shared-memory access of one instruction.
    pub smem_access: AccessJson,
}

/// How a copy atom touches shared memory.
#[derive(Debug, Serialize)]
pub struct AccessJson {
    /// `vector`, `ldmatrix`, `stmatrix`, `cp.async`, `registers` or `bulk`.
    pub kind: &'static str,
    /// Which side is shared memory: `source`, `destination`, `either` or `neither`.
    pub smem_side: &'static str,
    /// Bits per thread, for `vector` and `cp.async`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub bits: Option<u32>,
    /// 8x8 matrices, for `ldmatrix` and `stmatrix`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub matrices: Option<u32>,
    /// `.trans`, for `ldmatrix` and `stmatrix`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub trans: Option<bool>,
}

/// `tessel atom MMA_ATOM --json`.
#[derive(Debug, Serialize)]
pub struct MmaJson {
    /// The name.
    pub name: String,
    /// Always `mma`.
    pub kind: &'static str,
    /// The PTX instruction.
    pub opcode: String,
    /// Shape_MNK.
    pub shape_mnk: [i64; 3],
    /// CuTe's ThrID.
    pub thr_id: String,
    /// ALayout, (thread, value) -> m + M*k.
    pub a_layout: String,
    /// BLayout, (thread, value) -> n + N*k.
    pub b_layout: String,
    /// CLayout, (thread, value) -> m + M*n.
    pub c_layout: String,
    /// ValTypeA, ValTypeB, ValTypeC (= ValTypeD): `f16`, `bf16` or `f32`.
    pub a_type: String,
    /// See `a_type`.
    pub b_type: String,
    /// See `a_type`.
    pub c_type: String,
    /// `registers` or `shared descriptor`.
    pub a_source: &'static str,
    /// See `a_source`.
    pub b_source: &'static str,
}

/// Runs `tessel atom`.
pub fn run(args: &Args, out: &mut dyn Write) -> Result<()> {
    if args.list {
        return list(args.json, out);
    }
    let name = args
        .name
        .as_deref()
        .ok_or_else(|| Error::invalid("atom needs a NAME or --list"))?;
    if let Ok(atom) = copy_atom(name) {
        return if args.json {
            print_json(out, &copy_json(&atom))
        } else {
            print(out, &copy_text(&atom))
        };
    }
    if let Ok(atom) = mma_atom(name) {
        return if args.json {
            print_json(out, &mma_json(&atom))
        } else {
            print(out, &mma_text(&atom))
        };
    }
    Err(unknown_atom(name))
}

fn list(json: bool, out: &mut dyn Write) -> Result<()> {
    let (copy, mma) = (copy_atom_names(), mma_atom_names());
    if json {
        return print_json(out, &ListJson { copy, mma });
    }
    let mut text = String::new();
    for name in copy {
        text.push_str(&format!("copy  {name}\n"));
    }
    for name in mma {
        text.push_str(&format!("mma   {name}\n"));
    }
    print(out, &text)
}

fn side(s: SmemSide) -> &'static str {
    match s {
        SmemSide::Source => "source",
        SmemSide::Destination => "destination",
        SmemSide::Either => "either",
        SmemSide::Neither => "neither",
    }
}

fn access_json(a: SmemAccess) -> AccessJson {
    let smem_side = side(a.smem_side());
    match a {
        SmemAccess::Vector { bits } => AccessJson {
            kind: "vector",
            smem_side,
            bits: Some(bits),
            matrices: None,
            trans: None,
        },
        SmemAccess::Ldmatrix { matrices, trans } | SmemAccess::Stmatrix { matrices, trans } => {
            AccessJson {
                kind: if matches!(a, SmemAccess::Ldmatrix { .. }) {
                    "ldmatrix"
                } else {
                    "stmatrix"
                },
                smem_side,
                bits: None,
                matrices: Some(matrices),
                trans: Some(trans),
            }
        }
        SmemAccess::CpAsync { bytes } => AccessJson {
            kind: "cp.async",
            smem_side,
            bits: Some(bytes * 8),
            matrices: None,
            trans: None,
        },
        SmemAccess::Registers | SmemAccess::Bulk { .. } => AccessJson {
            kind: if a == SmemAccess::Registers {
                "registers"
            } else {
                "bulk"
            },
            smem_side,
            bits: None,
            matrices: None,
            trans: None,
        },
    }
}

/// The access in words.
fn access_text(a: SmemAccess) -> String {
    match a {
        SmemAccess::Vector { bits } => {
            format!("{bits}-bit load or store per thread (ld.shared/st.shared where shared)")
        }
        SmemAccess::Ldmatrix { matrices, trans } => format!(
            "ldmatrix of {matrices} 8x8 b16 matrices{} (shared memory is the source)",
            if trans { ", transposed" } else { "" }
        ),
        SmemAccess::Stmatrix { matrices, trans } => format!(
            "stmatrix of {matrices} 8x8 b16 matrices{} (shared memory is the destination)",
            if trans { ", transposed" } else { "" }
        ),
        SmemAccess::CpAsync { bytes } => format!(
            "cp.async of {} bits per thread (shared memory is the destination)",
            bytes * 8
        ),
        SmemAccess::Registers => "none (registers only)".to_string(),
        SmemAccess::Bulk { smem } => format!(
            "bulk transfer of whole 16-byte units by one thread (shared memory is the {})",
            side(smem)
        ),
    }
}

fn copy_json(a: &CopyAtom) -> CopyJson {
    CopyJson {
        name: a.name().to_string(),
        kind: "copy",
        opcode: a.opcode().map(str::to_string),
        thr_id: a.thr_id().to_string(),
        src_layout: a.src_bits().to_string(),
        dst_layout: a.dst_bits().to_string(),
        ref_layout: a.ref_bits().to_string(),
        smem_access: access_json(a.access()),
    }
}

fn copy_text(a: &CopyAtom) -> String {
    let rows = [
        (
            "opcode",
            a.opcode()
                .unwrap_or("none (a plain C++ assignment of one value)")
                .to_string(),
        ),
        ("ThrID", a.thr_id().to_string()),
        ("SrcLayout", a.src_bits().to_string()),
        ("DstLayout", a.dst_bits().to_string()),
        ("RefLayout", a.ref_bits().to_string()),
        ("SmemAccess", access_text(a.access())),
    ];
    table(
        &format!(
            "{} (copy atom; layouts map (thread, value) to a bit)",
            a.name()
        ),
        &rows,
    )
}

fn source(s: OperandSource) -> &'static str {
    match s {
        OperandSource::Registers => "registers",
        OperandSource::SharedDescriptor => "shared descriptor",
    }
}

fn mma_json(a: &MmaAtom) -> MmaJson {
    MmaJson {
        name: a.name().to_string(),
        kind: "mma",
        opcode: a.opcode().to_string(),
        shape_mnk: a.shape_mnk(),
        thr_id: a.thr_id().to_string(),
        a_layout: a.a_layout().to_string(),
        b_layout: a.b_layout().to_string(),
        c_layout: a.c_layout().to_string(),
        a_type: a.a_type().to_string(),
        b_type: a.b_type().to_string(),
        c_type: a.c_type().to_string(),
        a_source: source(a.a_source()),
        b_source: source(a.b_source()),
    }
}

fn mma_text(a: &MmaAtom) -> String {
    let [m, n, k] = a.shape_mnk();
    let rows = [
        ("opcode", a.opcode().to_string()),
        ("Shape_MNK", format!("({m},{n},{k})")),
        ("ThrID", a.thr_id().to_string()),
        ("ALayout", a.a_layout().to_string()),
        ("BLayout", a.b_layout().to_string()),
        ("CLayout", a.c_layout().to_string()),
        (
            "ValTypeA",
            format!("{} from {}", a.a_type(), source(a.a_source())),
        ),
        (
            "ValTypeB",
            format!("{} from {}", a.b_type(), source(a.b_source())),
        ),
        ("ValTypeC", format!("{} (also D)", a.c_type())),
    ];
    table(
        &format!(
            "{} (MMA atom; A: (thread, value) -> m + M*k, B: n + N*k, C: m + M*n)",
            a.name()
        ),
        &rows,
    )
}

/// A heading, then `  key: value` lines with the values aligned.
fn table(heading: &str, rows: &[(&str, String)]) -> String {
    let width = rows.iter().map(|(k, _)| k.len()).max().unwrap_or(0) + 1;
    let mut text = format!("{heading}\n");
    for (key, value) in rows {
        text.push_str(&format!("  {:<width$} {value}\n", format!("{key}:")));
    }
    text
}
