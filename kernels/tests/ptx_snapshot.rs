//! Writes every kernel's sm_90 PTX for a fixed set of plans to `$TESSEL_PTX_DIR` (a regression
//! snapshot for source refactors). `#[ignore]`d: run with `-- --ignored`.

use tessel_kernels::compile::compile_ptx;
use tessel_kernels::gemm::{GemmConfig, GemmPlan};
use tessel_kernels::micro::{MicroKind, MicroPlan};
use tessel_kernels::tiled::{TiledKind, TiledPlan};
use tessel_kernels::{Arch, DType};

#[test]
#[ignore = "writes PTX files: set TESSEL_PTX_DIR and run with -- --ignored"]
fn write_ptx_snapshot() {
    let dir = std::env::var("TESSEL_PTX_DIR").expect("TESSEL_PTX_DIR");
    let arch = Arch::new(9, 0).unwrap();
    let mut all: Vec<(String, String, String)> = Vec::new();
    let mut kinds = vec![TiledKind::Copy];
    kinds.extend(TiledKind::LADDER);
    for dtype in [DType::F32, DType::F16] {
        for (m, n) in [(4096, 4096), (1000, 1001)] {
            for &kind in &kinds {
                let plan = TiledPlan::new(kind, dtype, m, n).unwrap();
                all.push((
                    format!("{}_{m}x{n}", plan.kernel_name()),
                    plan.kernel_name(),
                    plan.source().unwrap(),
                ));
            }
        }
    }
    let mut p = TiledPlan::new(TiledKind::Swizzled, DType::F32, 4096, 4096).unwrap();
    p.min_blocks = Some(2);
    all.push((
        "transpose_swizzled_f32_4096x4096_minb2".into(),
        p.kernel_name(),
        p.source().unwrap(),
    ));
    for kind in MicroKind::ALL {
        let plan = MicroPlan::new(kind).unwrap();
        all.push((
            kind.name().into(),
            kind.name().into(),
            plan.source().unwrap(),
        ));
    }
    let mut gemms = vec![GemmPlan::new(256, 384, 96).unwrap()];
    for cfg in GemmConfig::all() {
        gemms.push(GemmPlan::with_config(4096, 4096, 4096, cfg).unwrap());
    }
    for plan in gemms {
        all.push((
            plan.kernel_name(),
            plan.kernel_name(),
            plan.source().unwrap(),
        ));
    }
    for (file, kernel, src) in all {
        let ptx = compile_ptx(&src, &kernel, arch).unwrap().to_src();
        std::fs::write(format!("{dir}/{file}.ptx"), ptx).unwrap();
        std::fs::write(format!("{dir}/{file}.cu"), src).unwrap();
    }
}
