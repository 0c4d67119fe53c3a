//! Every kernel compiles with NVRTC for sm_80 and sm_90 (no GPU needed; skipped with
//! a reason when libnvrtc cannot be loaded, failing instead under `TESSEL_REQUIRE_NVRTC=1`). Also checks the PTX for what performance relies
//! on: 128-bit global and shared accesses in the vectorized kernels, no local-memory arrays.

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
fn every_tiled_kernel_compiles_for_sm80() {
    if nvrtc_or_skip("nvrtc_compile") {
        compile_all_tiled(Arch::new(8, 0).unwrap());
    }
}

#[test]
fn every_tiled_kernel_compiles_for_sm90() {
    if nvrtc_or_skip("nvrtc_compile") {
        compile_all_tiled(Arch::new(9, 0).unwrap());
    }
}

#[test]
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
fn every_microkernel_compiles_for_sm80_and_sm90() {
    if !nvrtc_or_skip("nvrtc_compile") {
        return;
    }
    for arch in [Arch::new(8, 0).unwrap(), Arch::new(9, 0).unwrap()] {
        for kind in MicroKind::ALL {
            let plan = MicroPlan::new(kind).unwrap();
            compile_ptx(&plan.source().unwrap(), kind.name(), arch)
                .unwrap_or_else(|e| panic!("{kind}: {e}"));
        }
    }
}

#[test]
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
fn gemm_kernel_compiles_for_sm80_and_sm90() {
    if !nvrtc_or_skip("nvrtc_compile") {
        return;
    }
    for arch in [Arch::new(8, 0).unwrap(), Arch::new(9, 0).unwrap()] {
        for cfg in tessel_kernels::gemm::GemmConfig::all() {
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
