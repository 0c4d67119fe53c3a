//! Every GEMM configuration (block tile 128 x BN x BK, pipeline stages) at one or more sizes:
//! each verified against the CPU (64 rows) and cuBLAS (every element), then timed next to
//! cuBLAS with CUDA events. Used to pick `GemmConfig::DEFAULT` (docs/performance.md).
//!
//! `cargo run --release -p tessel-kernels --example gemm_sweep [N ...]` (default 4096 8192).
//! Without a GPU or cuBLAS it says so and exits 0; a bad argument, or a configuration that fails
//! (its table line says `FAILED`), exits 1 with one `error:` line on stderr.

use std::process::ExitCode;

use tessel_kernels::Gpu;
use tessel_kernels::gemm::run::{
    GemmBuffers, cublas, function, launch, launch_cublas, run_and_compare_cublas, run_and_verify,
};
use tessel_kernels::gemm::{GemmConfig, GemmPlan};
use tessel_kernels::timing::time_events;

fn run() -> Result<(), Box<dyn std::error::Error>> {
    let sizes = std::env::args()
        .skip(1)
        .map(|a| {
            a.parse::<i64>()
                .map_err(|_| format!("sizes are integers N (N^3 problems), got '{a}'"))
        })
        .collect::<Result<Vec<i64>, _>>()?;
    let gpu = match Gpu::open(0) {
        Ok(g) => g,
        Err(e) => {
            println!("no GPU: {e}");
            return Ok(());
        }
    };
    let blas = match cublas(&gpu) {
        Ok(b) => b,
        Err(e) => {
            println!("no cuBLAS: {e}");
            return Ok(());
        }
    };
    let sizes = if sizes.is_empty() {
        vec![4096, 8192]
    } else {
        sizes
    };
    println!("device: {}", gpu.describe());
    println!(
        "{:>6} {:<16} {:>8} {:>9} {:>9} {:>8}  info",
        "size", "config", "ms", "TFLOP/s", "cuBLAS", "x_cublas"
    );
    let mut failed = 0;
    for n in sizes {
        let mut bufs = None;
        for cfg in GemmConfig::all() {
            let plan = match GemmPlan::with_config(n, n, n, cfg) {
                Ok(p) => p,
                Err(e) => {
                    println!("{n:>6} {cfg:<16} skipped: {e}");
                    continue;
                }
            };
            let b = match &mut bufs {
                Some(b) => b,
                None => bufs.insert(GemmBuffers::new(&gpu, &plan, 42)?),
            };
            let result = (|| {
                run_and_verify(&gpu, &plan, b, 64)?;
                let ours = b.c_host(&gpu)?;
                run_and_compare_cublas(&gpu, &blas, &plan, b, &ours)?;
                let kernel = function(&gpu, &plan)?;
                let t = time_events(&gpu, 3, 20, || launch(&kernel, b))?;
                let c = time_events(&gpu, 3, 20, || launch_cublas(&gpu, &blas, &plan, b))?;
                let info = kernel.info();
                Ok::<_, tessel_kernels::GpuError>((t, c, info))
            })();
            match result {
                Ok((t, c, info)) => {
                    let tf = plan.flops() / (t.median_ms * 1e9);
                    let cf = plan.flops() / (c.median_ms * 1e9);
                    println!(
                        "{n:>6} {cfg:<16} {:>8.4} {tf:>9.1} {cf:>9.1} {:>8.3}  {info}",
                        t.median_ms,
                        tf / cf
                    );
                }
                Err(e) => {
                    println!("{n:>6} {cfg:<16} FAILED: {e}");
                    failed += 1;
                }
            }
        }
    }
    if failed > 0 {
        return Err(format!("{failed} configurations failed (the FAILED lines above)").into());
    }
    Ok(())
}

fn main() -> ExitCode {
    match run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {}", e.to_string().replace('\n', " "));
            ExitCode::FAILURE
        }
    }
}
