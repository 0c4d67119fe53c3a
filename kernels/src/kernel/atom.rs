//! Device functions generated from copy and MMA atoms: the atom's inline-asm template
//! ([`CopyAtom::asm_template`], [`MmaAtom::asm_template`]) wrapped in a `__device__` function
//! whose parameters are the atom's operand groups ([`CopyAtom::operands`]).
//!
//! The calling convention, for a function named `NAME` (declared with
//! [`KernelBuilder::copy_atom`](super::KernelBuilder::copy_atom) or
//! [`KernelBuilder::mma_atom`](super::KernelBuilder::mma_atom), called as `dev::NAME(...)`):
//! - one parameter per operand group, in the atom's operand order, named by the group's role
//!   (`d`, `a`, `b`, `c`, `dst`, `src`, `smem`, `gmem`, `desc_a`, ...);
//! - a group the instruction writes (or reads and writes) is a pointer `T*` to its registers;
//! - a read-only group of more than one register is `const T*`;
//! - a read-only group of one register is passed by value;
//! - `T` is `b32` for `"r"`, `unsigned short` for `"h"`, `float` for `"f"` and `uint64_t` for
//!   `"l"` registers, except a read-only `gmem` operand, which is `const void*`;
//! - immediates (`"n"`, the `wgmma` scale and transpose flags) are `int` template parameters,
//!   in operand order: `dev::NAME<1, 1, 0, 0>(...)`.
//!
//! Copies are `asm volatile` with a `"memory"` clobber (they read or write memory the compiler
//! does not see through the asm); `mma.sync` is plain `asm` (a pure function of registers, which
//! the compiler may schedule freely). `wgmma` reads shared memory through its descriptors and is
//! treated like a copy.
//!
//! ```
//! use tessel_kernels::kernel::atom::{copy_atom_fn, mma_atom_fn};
//! use tessel_layout::atom::{copy_atom, mma_atom};
//! let ldsm = copy_atom_fn("ldsm", &copy_atom("SM75_U32x4_LDSM_N").unwrap()).unwrap();
//! assert!(ldsm.contains("void ldsm(b32* dst, b32 smem)"));
//! assert!(ldsm.contains("asm volatile(\"ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];\\n\""));
//! let mma = mma_atom_fn("mma", &mma_atom("SM80_16x8x16_F32F16F16F32_TN").unwrap()).unwrap();
//! assert!(mma.contains("void mma(float* d, const b32* a, const b32* b, const float* c)"));
//! assert!(mma.contains("  asm(\"mma.sync"));
//! ```

use tessel_layout::atom::{AsmOperand, Constraint, CopyAtom, Direction, MmaAtom};

use crate::error::{GpuError, GpuResult};

/// The C++ parameter of one operand group, and the asm operand expressions of its registers.
fn parameter(op: &AsmOperand) -> (Option<String>, Vec<String>) {
    let role = op.role;
    let ty = match op.constraint {
        Constraint::R => "b32",
        Constraint::H => "unsigned short",
        Constraint::F => "float",
        Constraint::L => "uint64_t",
        Constraint::N => "int",
    };
    let constraint = op.constraint_string();
    if op.constraint == Constraint::N {
        // A template parameter; the asm sees the constant.
        return (None, vec![format!("\"{constraint}\"({role})")]);
    }
    let written = op.direction != Direction::In;
    let param = if written {
        format!("{ty}* {role}")
    } else if role == "gmem" {
        format!("const void* {role}")
    } else if op.count > 1 {
        format!("const {ty}* {role}")
    } else {
        format!("{ty} {role}")
    };
    let exprs = if written || op.count > 1 {
        (0..op.count)
            .map(|i| format!("\"{constraint}\"({role}[{i}])"))
            .collect()
    } else {
        vec![format!("\"{constraint}\"({role})")]
    };
    (Some(param), exprs)
}

/// A C string literal of `text` (quotes, backslashes and newlines escaped), with a final `\n`.
fn c_string(text: &str) -> String {
    let mut out = String::from("\"");
    for ch in text.chars() {
        match ch {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            c => out.push(c),
        }
    }
    out.push_str("\\n\"");
    out
}

fn is_identifier(s: &str) -> bool {
    let mut chars = s.chars();
    matches!(chars.next(), Some(c) if c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// The device function `name` executing `template` on `operands` (see the module docs).
fn generate(
    name: &str,
    atom: &str,
    template: &str,
    operands: &[AsmOperand],
    volatile: bool,
) -> GpuResult<String> {
    let err = |what: String| {
        GpuError::InvalidArgument(format!("device function {name} of atom {atom}: {what}"))
    };
    if !is_identifier(name) {
        return Err(err("the name is not a C identifier".into()));
    }
    // GCC-style asm numbers the outputs first: the atom's numbering must agree.
    let mut next = 0;
    let mut seen_input = false;
    for op in operands {
        if op.first != next {
            return Err(err(format!(
                "operand group {} starts at %{} but the previous groups end at %{next}",
                op.role, op.first
            )));
        }
        next = op.first + op.count;
        match op.direction {
            Direction::In => seen_input = true,
            _ if seen_input => {
                return Err(err(format!(
                    "the written operand group {} follows a read-only group; inline asm \
                     numbers its outputs first",
                    op.role
                )));
            }
            _ => {}
        }
    }
    let mut params = Vec::new();
    let mut templates = Vec::new();
    let (mut outs, mut ins) = (Vec::new(), Vec::new());
    for op in operands {
        let (param, exprs) = parameter(op);
        match param {
            Some(p) => params.push(p),
            None => templates.push(format!("int {}", op.role)),
        }
        if op.direction == Direction::In {
            ins.extend(exprs);
        } else {
            outs.extend(exprs);
        }
    }
    let head = if templates.is_empty() {
        String::new()
    } else {
        format!("template <{}>\n", templates.join(", "))
    };
    let clobber = if volatile { " : \"memory\"" } else { "" };
    Ok(format!(
        "// {atom}, generated from the atom's asm template and operands.\n\
         {head}__device__ __forceinline__ void {name}({}) {{\n  \
         asm{}({}\n      : {}\n      : {}{clobber});\n}}\n",
        params.join(", "),
        if volatile { " volatile" } else { "" },
        c_string(template),
        outs.join(", "),
        ins.join(", "),
    ))
}

/// The device function `name` that executes one instance of the copy atom (see the module
/// docs for the calling convention): `asm volatile` with a `"memory"` clobber. `Err` for an
/// atom without an instruction template (`UniversalCopy`, a plain assignment;
/// `SM90_BULK_COPY_AUTO`; a TMA atom not yet given its tensor's rank).
///
/// ```
/// use tessel_kernels::kernel::atom::copy_atom_fn;
/// use tessel_layout::atom::copy_atom;
/// let cp = copy_atom_fn("cp", &copy_atom("SM80_CP_ASYNC_CACHEGLOBAL<uint128_t>").unwrap()).unwrap();
/// assert!(cp.contains("void cp(b32 smem, const void* gmem)"));
/// assert!(cp.contains(": \"r\"(smem), \"l\"(gmem) : \"memory\");"));
/// assert!(copy_atom_fn("x", &copy_atom("UniversalCopy<uint32_t>").unwrap()).is_err());
/// ```
pub fn copy_atom_fn(name: &str, atom: &CopyAtom) -> GpuResult<String> {
    let template = atom.asm_template().ok_or_else(|| {
        GpuError::InvalidArgument(format!(
            "device function {name}: the copy atom {} has no asm template (a plain assignment, \
             or a TMA atom without its rank), not an instruction",
            atom.name()
        ))
    })?;
    generate(name, atom.name(), template, atom.operands(), true)
}

/// The device function `name` that executes the MMA atom (see the module docs): plain `asm`
/// for `mma.sync` (a pure function of registers), `asm volatile` with a `"memory"` clobber for
/// `wgmma`, which reads shared memory through its descriptors.
///
/// ```
/// use tessel_kernels::kernel::atom::mma_atom_fn;
/// use tessel_layout::atom::mma_atom;
/// let f = mma_atom_fn("mma", &mma_atom("SM80_16x8x16_F16F16F16F16_TN").unwrap()).unwrap();
/// assert!(f.contains("void mma(b32* d, const b32* a, const b32* b, const b32* c)"));
/// let g = mma_atom_fn("wgmma", &mma_atom("SM90_64x8x16_F32F16F16_SS").unwrap()).unwrap();
/// assert!(g.contains("template <int scale_a, int scale_b, int tnsp_a, int tnsp_b>"));
/// assert!(g.contains("void wgmma(float* d, uint64_t desc_a, uint64_t desc_b, b32 scale_d)"));
/// ```
pub fn mma_atom_fn(name: &str, atom: &MmaAtom) -> GpuResult<String> {
    let memory = atom.opcode().starts_with("wgmma");
    generate(
        name,
        atom.name(),
        atom.asm_template(),
        atom.operands(),
        memory,
    )
}
