//! Every kernel compiles with NVRTC for sm_80 and sm_90 (no GPU needed; ignored, with
//! the reason, when the build found no libnvrtc: `cfg(tessel_nvrtc)`, `kernels/build.rs`). Also
//! checks the PTX for what performance relies on: 128-bit global and shared accesses in the vectorized kernels, no local-memory arrays.

mod common;

use common::nvrtc_or_skip;
use tessel_kernels::compile::compile_ptx;
use tessel_kernels::micro::{MicroKind, MicroPlan};
use tessel_kernels::tiled::{TiledKind, TiledPlan};
use tessel_kernels::{Arch, DType};

fn all_kinds() -> Vec<TiledKind> {
    let mut k = vec![TiledKind::Copy];
    k.extend(TiledKind::LADDER);
    k
}

/// Every tiled kernel of both dtypes for one arch, at a size with full and ragged tiles and
/// unaligned rows (both code paths of the body).
fn compile_all_tiled(arch: Arch) {
    for dtype in [DType::F32, DType::F16] {
        for kind in all_kinds() {
            let plan = TiledPlan::new(kind, dtype, 1000, 1001).unwrap();
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
        compile_all_tiled(Arch::new(8, 0).unwrap());
    }
}

#[test]
#[cfg_attr(
    not(tessel_nvrtc),
    ignore = "needs libnvrtc: see the README's Testing section"
)]
fn every_tiled_kernel_compiles_for_sm90() {
    if nvrtc_or_skip("nvrtc_compile") {
        compile_all_tiled(Arch::new(9, 0).unwrap());
    }
}

#[test]
#[cfg_attr(
    not(tessel_nvrtc),
    ignore = "needs libnvrtc: see the README's Testing section"
)]
fn vectorized_kernels_use_128_bit_accesses() {
    if !nvrtc_or_skip("nvrtc_compile") {
        return;
    }
    let arch = Arch::new(9, 0).unwrap();
    for dtype in [DType::F32, DType::F16] {
        for kind in [TiledKind::Copy, TiledKind::Vectorized] {
            let plan = TiledPlan::new(kind, dtype, 8192, 8192).unwrap();
            let ptx = compile_ptx(&plan.source().unwrap(), &plan.kernel_name(), arch)
                .unwrap()
                .to_src();
            for op in [
                "ld.global.nc.v4",
                "st.global.v4",
                "st.shared.v4",
                "ld.shared.v4",
            ] {
                assert!(ptx.contains(op), "{}: no {op} in PTX", plan.kernel_name());
            }
        }
    }
}

#[test]
#[cfg_attr(
    not(tessel_nvrtc),
    ignore = "needs libnvrtc: see the README's Testing section"
)]
fn every_microkernel_compiles_for_sm80_and_sm90() {
    if !nvrtc_or_skip("nvrtc_compile") {
        return;
    }
    // Every microkernel, for sm_80 and sm_90 in turn (both under TESSEL_LONG_TESTS=1).
    let archs = [Arch::new(8, 0).unwrap(), Arch::new(9, 0).unwrap()];
    for (i, kind) in MicroKind::with_patterns().into_iter().enumerate() {
        for arch in common::in_turn(&archs, i) {
            let plan = MicroPlan::new(kind).unwrap();
            compile_ptx(&plan.source().unwrap(), kind.name(), arch)
                .unwrap_or_else(|e| panic!("{kind}: {e}"));
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

#[test]
#[cfg_attr(
    not(tessel_nvrtc),
    ignore = "needs libnvrtc: see the README's Testing section"
)]
fn gemm_kernel_compiles_for_sm80_and_sm90() {
    if !nvrtc_or_skip("nvrtc_compile") {
        return;
    }
    // Every configuration, for sm_80 and sm_90 in turn (both under TESSEL_LONG_TESTS=1).
    let archs = [Arch::new(8, 0).unwrap(), Arch::new(9, 0).unwrap()];
    for (i, cfg) in tessel_kernels::gemm::GemmConfig::all()
        .into_iter()
        .enumerate()
    {
        for arch in common::in_turn(&archs, i) {
            let plan = tessel_kernels::gemm::GemmPlan::with_config(4096, 4096, 4096, cfg).unwrap();
            let ptx = compile_ptx(&plan.source().unwrap(), &plan.kernel_name(), arch)
                .unwrap_or_else(|e| panic!("{}: {e}", plan.kernel_name()))
                .to_src();
            for op in [
                "cp.async.cg.shared.global",
                "ldmatrix.sync.aligned.m8n8.x4.shared.b16",
                "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32",
            ] {
                assert!(ptx.contains(op), "{}: no {op} in PTX", plan.kernel_name());
            }
            assert!(
                !ptx.contains(".local"),
                "{} uses local memory",
                plan.kernel_name()
            );
        }
    }
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
