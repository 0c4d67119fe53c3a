//! Regression check for source refactors: writes every kernel's sm_90 PTX (sm_90a for kernels
//! that target it; and its CUDA source)
//! for a fixed set of plans to `DIR`, and with a second folder `BASELINE` compares the PTX
//! instruction streams (comments, `.file` and `.loc` lines and blank lines ignored) file by file.
//!
//! When the PTX differs, it compiles the baseline's and the new CUDA source to sm_90 CUBIN (the
//! SASS ptxas makes of it, through NVRTC) and compares those bytes: a change that only renames
//! PTX virtual registers (e.g. an asm statement's outputs given registers apart from its inputs)
//! leaves the CUBIN identical.
//!
//! `cargo run -p tessel-kernels --example ptx_snapshot -- DIR [BASELINE]` (needs NVRTC, no GPU).
//! Exits 1 with one `error:` line on stderr when a kernel's CUBIN differs from the baseline's or
//! the kernel is missing there, and on any other failure (no DIR, no NVRTC, a file not written).

use std::process::ExitCode;

use tessel_kernels::compile::compile_cubin;
use tessel_kernels::gemm::{GemmConfig, GemmPlan};
use tessel_kernels::hopper::Sm90Plan;
use tessel_kernels::micro::{MicroKind, MicroPlan};
use tessel_kernels::mma::run::{MmaKernel, Problem};
use tessel_kernels::tiled::{TiledKind, TiledPlan};
use tessel_kernels::{Arch, Element, GpuResult, kernel::Kernel};

/// `(file name, kernel)` of every plan in the snapshot.
fn kernels() -> GpuResult<Vec<(String, Kernel)>> {
    let mut all = Vec::new();
    let mut kinds = vec![TiledKind::Copy];
    kinds.extend(TiledKind::LADDER);
    for dtype in [Element::F32, Element::F16] {
        for (m, n) in [(4096, 4096), (1000, 1001)] {
            for &kind in &kinds {
                let plan = TiledPlan::new(kind, dtype, m, n)?;
                all.push((format!("{}_{m}x{n}", plan.kernel_name()), plan.kernel()?));
            }
        }
    }
    for kind in MicroKind::ALL {
        all.push((kind.name().into(), MicroPlan::new(kind)?.kernel()?));
    }
    let mut gemms = vec![GemmPlan::new(256, 384, 96)?];
    for cfg in GemmConfig::all() {
        gemms.push(GemmPlan::with_config(4096, 4096, 4096, cfg)?);
    }
    for plan in gemms {
        all.push((plan.kernel_name(), plan.kernel()?));
    }
    for problem in Problem::ALL {
        for swizzled in [true, false] {
            let k = MmaKernel::new(problem, swizzled, 1024)?;
            all.push((k.name(), k.kernel()?));
        }
    }
    for (m, n, k) in [(4096, 4096, 4096), (1000, 1000, 1000)] {
        for (input, output) in [(Element::F16, Element::F32), (Element::BF16, Element::BF16)] {
            let plan = Sm90Plan::new(m, n, k, input, output)?;
            all.push((plan.kernel_name(), plan.kernel()?));
        }
    }
    Ok(all)
}

fn instructions(ptx: &str) -> Vec<String> {
    ptx.lines()
        .map(|l| l.split("//").next().unwrap_or("").trim_end().to_string())
        .filter(|l| {
            let t = l.trim_start();
            !t.is_empty() && !t.starts_with(".file") && !t.starts_with(".loc")
        })
        .collect()
}

fn run() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.is_empty() || args.len() > 2 {
        return Err(format!(
            "expected DIR [BASELINE] (the folder to write the PTX to, and one to compare with), \
             got {} arguments",
            args.len()
        )
        .into());
    }
    let dir = &args[0];
    std::fs::create_dir_all(dir)?;
    let sm90 = Arch::new(9, 0)?;
    let mut differ = 0;
    for (file, kernel) in kernels()? {
        // Kernels with a target (the Hopper GEMM: sm_90a) compile for it.
        let arch = kernel.target().unwrap_or(sm90);
        let ptx = kernel.ptx(arch)?;
        std::fs::write(format!("{dir}/{file}.ptx"), &ptx)?;
        std::fs::write(format!("{dir}/{file}.cu"), kernel.source())?;
        if let Some(base) = args.get(1) {
            let verdict = match std::fs::read_to_string(format!("{base}/{file}.ptx")) {
                Ok(old) if old == ptx => "identical (byte for byte)",
                Ok(old) if instructions(&old) == instructions(&ptx) => "identical instructions",
                Ok(_) => match std::fs::read_to_string(format!("{base}/{file}.cu")) {
                    Ok(old)
                        if compile_cubin(&old, &file, arch, &[])?.bytes
                            == compile_cubin(kernel.source(), &file, arch, &[])?.bytes =>
                    {
                        "PTX differs, CUBIN identical"
                    }
                    _ => "DIFFERENT",
                },
                Err(_) => "MISSING in the baseline",
            };
            differ += usize::from(verdict.starts_with(['D', 'M']));
            println!("{file}: {verdict}");
        }
    }
    if differ > 0 {
        return Err(format!("{differ} kernels differ from the baseline").into());
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
