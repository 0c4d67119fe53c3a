//! NVRTC compile time, registers and stack of every SGEMM rung (no GPU): compiles each rung's
//! kernel to a CUBIN for sm_90 (or `--sm80`) with ptxas's verbose report, prints one row per
//! rung (seconds, registers, stack frame, spills) and, with `--out DIR`, writes the CUBINs
//! there with their sources (for `nvdisasm`).
//!
//! ```text
//! cargo run -p tessel-kernels --example sgemm_compile_time -- 4096 4096 4096 [--rung tuned] [--sm80] [--out DIR]
//! ```

use std::time::Instant;

use tessel_kernels::Arch;
use tessel_kernels::compile::compile_cubin;
use tessel_kernels::sgemm::{Major, Rung, SgemmPlan};

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let mut dims = Vec::new();
    let (mut only, mut out, mut arch) = (None, None, Arch::new(9, 0).unwrap());
    let mut it = args.iter();
    while let Some(a) = it.next() {
        match a.as_str() {
            "--rung" => only = it.next().cloned(),
            "--out" => out = it.next().cloned(),
            "--sm80" => arch = Arch::new(8, 0).unwrap(),
            d => dims.push(d.parse::<i64>().expect("M N K")),
        }
    }
    let [m, n, k] = dims[..] else {
        eprintln!("error: give M N K");
        std::process::exit(2);
    };
    for rung in Rung::ALL {
        if only.as_deref().is_some_and(|o| o != rung.to_string()) {
            continue;
        }
        let plan = SgemmPlan::new(rung, m, n, k, Major::Row, Major::Row).unwrap();
        let kernel = plan.kernel().unwrap();
        let start = Instant::now();
        let cubin = compile_cubin(
            kernel.source(),
            kernel.name(),
            arch,
            &["--ptxas-options=--verbose"],
        )
        .unwrap();
        let secs = start.elapsed().as_secs_f64();
        // ptxas's report: "Used N registers, ..." and "N bytes stack frame, N bytes spill
        // stores, N bytes spill loads".
        let report: Vec<&str> = cubin
            .log
            .lines()
            .filter(|l| l.contains("Used ") || l.contains("stack frame"))
            .map(|l| l.trim_start_matches("ptxas info    :").trim())
            .collect();
        println!("{rung:16} {secs:7.2} s  {}", report.join("; "));
        if let Some(dir) = &out {
            std::fs::write(format!("{dir}/{rung}.cubin"), &cubin.bytes).unwrap();
            std::fs::write(format!("{dir}/{rung}.cu"), kernel.source()).unwrap();
        }
    }
}
