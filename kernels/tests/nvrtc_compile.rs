//! Every kernel compiles with NVRTC for sm_80 and sm_90 (no GPU needed; skipped with
//! a reason when libnvrtc cannot be loaded, failing instead under `TESSEL_REQUIRE_NVRTC=1`). Also checks the PTX for what performance relies
//! on: every global and shared access of the tiled kernels is one instruction of the plan's
//! vector width per atom call (128-bit in the vectorized kernels), no local-memory arrays.

mod common;

use std::collections::BTreeMap;

use common::nvrtc_or_skip;
use tessel_kernels::compile::compile_ptx;
use tessel_kernels::micro::{MicroKind, MicroPlan};
use tessel_kernels::tiled::{TiledKind, TiledPlan};
use tessel_kernels::{Arch, Element};

fn all_kinds() -> Vec<TiledKind> {
    let mut k = vec![TiledKind::Copy];
    k.extend(TiledKind::LADDER);
    k
}

/// `(ld|st, global|shared, bytes) -> count` of the PTX's memory instructions (`ld.global.nc.v4.u32`
/// is a 16-byte global load).
fn memory_ops(ptx: &str) -> BTreeMap<(String, String, i64), usize> {
    let mut ops = BTreeMap::new();
    for word in ptx.split_whitespace() {
        let parts: Vec<&str> = word.trim_end_matches(';').split('.').collect();
        if parts.len() < 3 || !["ld", "st"].contains(&parts[0]) {
            continue;
        }
        if !["global", "shared"].contains(&parts[1]) {
            continue;
        }
        let lanes = if parts.contains(&"v4") {
            4
        } else if parts.contains(&"v2") {
            2
        } else {
            1
        };
        let bits: i64 = parts
            .last()
            .and_then(|t| t.trim_start_matches(char::is_alphabetic).parse().ok())
            .unwrap_or(0);
        *ops.entry((parts[0].to_string(), parts[1].to_string(), lanes * bits / 8))
            .or_insert(0) += 1;
    }
    ops
}

/// The memory instructions a tiled kernel's PTX must hold: each copy issues one instruction of
/// its vector width per atom call, the global ones once for whole tiles and once predicated
/// (the ragged edge), the shared ones once.
fn expected_ops(plan: &TiledPlan) -> BTreeMap<(String, String, i64), usize> {
    let lv = plan.values_per_thread();
    let bytes = plan.dtype.bytes();
    let [gvl, sw, sr, gvs] = plan.vector_widths();
    let mut want = BTreeMap::new();
    let mut add = |op: &str, space: &str, width: i64, paths: i64| {
        *want
            .entry((op.to_string(), space.to_string(), width * bytes))
            .or_insert(0) += usize::try_from(paths * lv / width).unwrap();
    };
    add("ld", "global", gvl, 2);
    add("st", "global", gvs, 2);
    if sw > 0 {
        add("st", "shared", sw, 1);
        add("ld", "shared", sr, 1);
    }
    want
}

/// Every tiled kernel of both dtypes at `(m, n)` for one arch: compiles, no local memory, and
/// exactly the memory instructions of [`expected_ops`].
fn compile_all_tiled(arch: Arch, m: i64, n: i64) {
    for dtype in [Element::F32, Element::F16] {
        for kind in all_kinds() {
            let plan = TiledPlan::new(kind, dtype, m, n).unwrap();
            let ptx = compile_ptx(&plan.source().unwrap(), &plan.kernel_name(), arch)
                .unwrap_or_else(|e| panic!("{}: {e}", plan.kernel_name()))
                .to_src();
            assert!(
                ptx.contains(&format!(".target {arch}")),
                "{}",
                plan.kernel_name()
            );
            assert!(
                !ptx.contains(".local"),
                "{} uses local memory",
                plan.kernel_name()
            );
            assert_eq!(
                memory_ops(&ptx),
                expected_ops(&plan),
                "{} {m}x{n} {arch}",
                plan.kernel_name()
            );
        }
    }
}

#[test]
#[cfg_attr(
    not(tessel_nvrtc),
    ignore = "needs libnvrtc: see the README's Testing section"
)]
fn every_tiled_kernel_compiles_for_sm80() {
    if nvrtc_or_skip("nvrtc_compile") {
        compile_all_tiled(Arch::new(8, 0).unwrap(), 1000, 1001);
    }
}

#[test]
#[cfg_attr(
    not(tessel_nvrtc),
    ignore = "needs libnvrtc: see the README's Testing section"
)]
fn every_tiled_kernel_compiles_for_sm90() {
    if nvrtc_or_skip("nvrtc_compile") {
        compile_all_tiled(Arch::new(9, 0).unwrap(), 1000, 1001);
    }
}

#[test]
#[cfg_attr(
    not(tessel_nvrtc),
    ignore = "needs libnvrtc: see the README's Testing section"
)]
fn tiled_kernels_on_aligned_matrices_use_their_widest_vectors() {
    if !nvrtc_or_skip("nvrtc_compile") {
        return;
    }
    compile_all_tiled(Arch::new(9, 0).unwrap(), 8192, 8192);
    // The copy and the 128-bit transpose: 128-bit global and shared accesses only, the global
    // loads through the read-only path.
    let arch = Arch::new(9, 0).unwrap();
    for dtype in [Element::F32, Element::F16] {
        for kind in [TiledKind::Copy, TiledKind::Vectorized] {
            let plan = TiledPlan::new(kind, dtype, 8192, 8192).unwrap();
            let ptx = compile_ptx(&plan.source().unwrap(), &plan.kernel_name(), arch)
                .unwrap()
                .to_src();
            assert!(
                memory_ops(&ptx).keys().all(|k| k.2 == 16),
                "{}: {:?}",
                plan.kernel_name(),
                memory_ops(&ptx)
            );
            assert!(ptx.contains("ld.global.nc.v4"), "{}", plan.kernel_name());
        }
    }
}

/// Every microkernel compiles, and accesses shared memory with the instructions the bank model
/// counts: the 4-byte row stores of the fill, then loads (and, for a store pattern, stores) of
/// the pattern's vector width.
#[test]
#[cfg_attr(
    not(tessel_nvrtc),
    ignore = "needs libnvrtc: see the README's Testing section"
)]
fn every_microkernel_compiles_for_sm80_and_sm90() {
    if !nvrtc_or_skip("nvrtc_compile") {
        return;
    }
    for arch in [Arch::new(8, 0).unwrap(), Arch::new(9, 0).unwrap()] {
        for kind in MicroKind::with_patterns() {
            let plan = MicroPlan::new(kind).unwrap();
            let ptx = compile_ptx(&plan.source().unwrap(), kind.name(), arch)
                .unwrap_or_else(|e| panic!("{kind}: {e}"))
                .to_src();
            let shared: Vec<_> = memory_ops(&ptx)
                .into_keys()
                .filter(|k| k.1 == "shared")
                .collect();
            let bytes = 4 * plan.vw;
            let mut want = vec![
                ("ld".to_string(), "shared".to_string(), bytes),
                ("st".to_string(), "shared".to_string(), 4),
            ];
            if plan.store && bytes != 4 {
                want.push(("st".to_string(), "shared".to_string(), bytes));
            }
            want.sort();
            assert_eq!(shared, want, "{kind} {arch}");
            assert!(!ptx.contains(".local"), "{kind} uses local memory");
        }
    }
}

#[test]
#[cfg_attr(
    not(tessel_nvrtc),
    ignore = "needs libnvrtc: see the README's Testing section"
)]
fn compile_errors_carry_the_log() {
    if !nvrtc_or_skip("nvrtc_compile") {
        return;
    }
    let err = compile_ptx(
        "__global__ void k() { undefined_thing(); }",
        "k",
        Arch::new(9, 0).unwrap(),
    )
    .unwrap_err();
    let msg = err.to_string();
    assert!(
        msg.contains("undefined_thing") && msg.contains("sm_90"),
        "{msg}"
    );
}

/// A kernel calling the generated function of every copy atom with an instruction and of every
/// SM80 MMA atom once, on zeroed registers (compiled, never launched).
#[test]
#[cfg_attr(
    not(tessel_nvrtc),
    ignore = "needs libnvrtc: see the README's Testing section"
)]
fn every_atom_function_compiles_for_sm90() {
    use tessel_kernels::kernel::{CType, KernelBuilder, Param};
    use tessel_layout::atom::{
        AsmOperand, Constraint, Direction, copy_atom, copy_atom_names, mma_atom,
    };
    if !nvrtc_or_skip("nvrtc_compile") {
        return;
    }
    let mut body = String::from(
        "__shared__ __align__(128) b32 sm[256];\n  \
         const b32 s = (b32)__cvta_generic_to_shared(sm);\n  b32 acc = 0;\n",
    );
    // Declares zeroed registers for each operand group and calls dev::f on them.
    let call = |body: &mut String, f: &str, operands: &[AsmOperand]| {
        let mut args = Vec::new();
        for op in operands {
            let ty = match op.constraint {
                Constraint::F => "float",
                Constraint::L => "uint64_t",
                _ => "b32",
            };
            let v = format!("{f}_{}", op.role);
            body.push_str(&format!("  {ty} {v}[{}] = {{}};\n", op.count));
            args.push(match op.role {
                "smem" => "s".to_string(),
                "gmem" => "in".to_string(),
                _ if op.direction != Direction::In || op.count > 1 => v.clone(),
                _ => format!("{v}[0]"),
            });
        }
        body.push_str(&format!("  dev::{f}({});\n", args.join(", ")));
        if let Some(out) = operands.iter().find(|o| o.direction != Direction::In) {
            body.push_str(&format!("  acc += (b32){f}_{}[0];\n", out.role));
        }
    };
    let mut copies = Vec::new();
    for name in copy_atom_names() {
        let atom = copy_atom(&name).unwrap();
        if atom.asm_template().is_some() {
            let f = format!("c{}", copies.len());
            call(&mut body, &f, atom.operands());
            copies.push((f, atom));
        }
    }
    let mut mmas = Vec::new();
    for name in [
        "SM80_16x8x16_F32F16F16F32_TN",
        "SM80_16x8x16_F16F16F16F16_TN",
        "SM80_16x8x16_F32BF16BF16F32_TN",
        "SM80_16x8x8_F32F16F16F32_TN",
        "SM80_16x8x8_F16F16F16F16_TN",
        "SM80_16x8x8_F32BF16BF16F32_TN",
    ] {
        let atom = mma_atom(name).unwrap();
        let f = format!("m{}", mmas.len());
        call(&mut body, &f, atom.operands());
        mmas.push((f, atom));
    }
    body.push_str("  out[threadIdx.x] = acc;\n");
    let mut builder = KernelBuilder::new("atoms", &body);
    for (f, atom) in &copies {
        builder = builder.copy_atom(f, atom);
    }
    for (f, atom) in &mmas {
        builder = builder.mma_atom(f, atom);
    }
    let kernel = builder
        .param(Param::input("in", CType::B16.into()))
        .param(Param::output("out", CType::B32.into()))
        .threads(32)
        .build()
        .unwrap();
    let ptx = compile_ptx(kernel.source(), "atoms", Arch::new(9, 0).unwrap())
        .unwrap_or_else(|e| panic!("{e}\n{}", kernel.source()))
        .to_src();
    for (_, atom) in &copies {
        let op = atom.opcode().unwrap();
        assert!(ptx.contains(op), "no {op} in the PTX");
    }
    for (_, atom) in &mmas {
        assert!(
            ptx.contains(atom.opcode()),
            "no {} in the PTX",
            atom.opcode()
        );
    }
}
