//! Candidate tilings of the SIMT SGEMM's top rung ([`WarpTiling`]), verified then timed next to
//! cuBLAS SGEMM in one process: used to pick [`WarpTiling::TUNED`] (docs/performance.md).
//!
//! `cargo run --release -p tessel-kernels --example sgemm_sweep [-- OPTIONS]`
//! - (no option): every candidate is verified against the f64 CPU reference on a ragged
//!   257 x 129 x 67 problem (every element, row-major and column-major A and B) and on the timed
//!   problem itself (256 sampled elements), then timed at 4096^3; the best `--top` (default 4)
//!   are timed again at 8192^3 and 4096 x 2048 x 8192. cuBLAS SGEMM (`cublasSgemm` on the same
//!   row-major A and B) is timed at each shape in the same process; ratios are to it.
//! - `--repeats R` (default 20), `--top T`, `--only SUBSTRING` (candidates whose name contains it).
//! - `--cubin DIR`: no GPU; writes each candidate's source and sm_90 CUBIN at 4096^3 (NVRTC) to DIR for
//!   `cuobjdump -res-usage` / `nvdisasm`, and prints ptxas's register and spill report and the
//!   bank model's prediction.
//!
//! Without a GPU (and without `--cubin`) it says so and exits 0. An unknown option or a bad
//! value, a candidate that fails verification (its line says `FAIL`) or any other failure exits
//! 1 with one `error:` line on stderr.

use std::process::ExitCode;
use std::time::Instant;

use tessel_kernels::compile::compile_cubin;
use tessel_kernels::sgemm::bank::per_tile;
use tessel_kernels::sgemm::host::sample;
use tessel_kernels::sgemm::run::{SgemmBuffers, time_cublas_same, verify};
use tessel_kernels::sgemm::{Major, Rung, SgemmPlan, Tiling, WarpTiling};
use tessel_kernels::{Arch, Gpu};

/// The candidates: the ladder's double-buffered rung, then warp tilings around the tuned one
/// (the last sweeps of docs/performance.md).
fn candidates() -> Vec<(String, Tiling)> {
    let base = WarpTiling::TUNED;
    // The tuned rung and the neighbours the tiling still expresses: lanes not interleaved,
    // 4 x 2 warps of 4 x 8 lanes, BK 8, without the launch bound. The options measured slower
    // and removed (A load run, fragment prefetch, split loads, cp.async, swizzled tiles) are
    // rows of docs/decisions.md.
    let w4 = WarpTiling {
        warps_m: 4,
        warps_n: 2,
        lanes_m: 4,
        ..base
    };
    let mb0 = |w: WarpTiling| WarpTiling {
        min_blocks: None,
        ..w
    };
    let mut warp = vec![
        base,
        WarpTiling {
            lane_interleave: 1,
            ..base
        },
        mb0(base),
        w4,
        mb0(w4),
        WarpTiling { bk: 8, ..base },
        mb0(WarpTiling { bk: 8, ..base }),
    ];
    warp.dedup();
    let mut out: Vec<(String, Tiling)> = [Rung::DoubleBuffered]
        .into_iter()
        .map(|r| (format!("ladder {r}"), r.tiling()))
        .collect();
    for w in warp {
        match w.tiling() {
            Ok(t) => out.push((w.name(), t)),
            Err(e) => println!("skipped {}: {e}", w.name()),
        }
    }
    out
}

type Res<T> = Result<T, Box<dyn std::error::Error>>;

/// The value of option `name` (each option takes one value; unknown options are errors).
fn arg<T: std::str::FromStr>(args: &[String], name: &str) -> Res<Option<T>> {
    const OPTIONS: [&str; 4] = ["--repeats", "--top", "--only", "--cubin"];
    for pair in args.chunks(2) {
        if !OPTIONS.contains(&pair[0].as_str()) {
            return Err(format!(
                "unknown option '{}' (options: {})",
                pair[0],
                OPTIONS.join(" ")
            )
            .into());
        }
        if pair.len() == 1 {
            return Err(format!("{} needs a value", pair[0]).into());
        }
    }
    let Some(i) = args.iter().step_by(2).position(|a| a == name) else {
        return Ok(None);
    };
    let text = &args[2 * i + 1];
    let value = text
        .parse()
        .map_err(|_| format!("{name}: cannot read '{text}'"))?;
    Ok(Some(value))
}

fn plan(tiling: &Tiling, (m, n, k): (i64, i64, i64), am: Major, bm: Major) -> Res<SgemmPlan> {
    Ok(SgemmPlan::with_tiling(
        Rung::Tuned,
        tiling.clone(),
        m,
        n,
        k,
        am,
        bm,
    )?)
}

fn run() -> Res<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let repeats: usize = arg(&args, "--repeats")?.unwrap_or(20);
    let top: usize = arg(&args, "--top")?.unwrap_or(4);
    let only: Option<String> = arg(&args, "--only")?;
    let mut cands = candidates();
    if let Some(o) = &only {
        cands.retain(|(name, _)| name.contains(o.as_str()));
    }
    let square = (4096, 4096, 4096);
    if let Some(dir) = arg::<String>(&args, "--cubin")? {
        std::fs::create_dir_all(&dir)?;
        let sm90 = Arch::new(9, 0)?;
        for (i, (name, t)) in cands.iter().enumerate() {
            let p = plan(t, square, Major::Row, Major::Row)?;
            let traffic = per_tile(&p)?;
            let kernel = match p.kernel() {
                Ok(k) => k,
                Err(e) => {
                    println!("{name}: {e}");
                    continue;
                }
            };
            let start = Instant::now();
            let verbose = ["--ptxas-options=--verbose"];
            let bin = match compile_cubin(kernel.source(), kernel.name(), sm90, &verbose) {
                Ok(c) => {
                    for line in c
                        .log
                        .lines()
                        .filter(|l| l.contains("registers") || l.contains("spill"))
                    {
                        println!("  {}", line.trim());
                    }
                    c.bytes
                }
                Err(e) => {
                    println!("{name}: {e}");
                    continue;
                }
            };
            std::fs::write(format!("{dir}/c{i:02}.cu"), kernel.source())?;
            let file = format!("{dir}/c{i:02}.cubin");
            std::fs::write(&file, bin)?;
            println!(
                "{file}: {name}: bank model per K step ld {}/{} st {}/{} (wavefronts/ideal), nvrtc {:.1}s",
                traffic.loads.wavefronts,
                traffic.loads.ideal,
                traffic.stores.wavefronts,
                traffic.stores.ideal,
                start.elapsed().as_secs_f64()
            );
        }
        return Ok(());
    }
    let gpu = match Gpu::open(0) {
        Ok(g) => g,
        Err(e) => {
            println!("no GPU: {e}");
            return Ok(());
        }
    };
    let blas = tessel_kernels::gemm::run::cublas(&gpu)?;
    println!("device: {}", gpu.describe());
    let shapes = [square, (8192, 8192, 8192), (4096, 2048, 8192)];
    let mut best: Vec<(f64, String, Tiling)> = Vec::new();
    let mut failed = 0;
    for (si, &shape) in shapes.iter().enumerate() {
        let (m, n, k) = shape;
        let mut bufs = SgemmBuffers::new(&gpu, m, n, k, 0x5EED + si as u64)?;
        let at = sample(m as usize, n as usize, 256, 3);
        let flops = 2.0 * (m * n * k) as f64;
        let (ct, _) = time_cublas_same(
            &gpu,
            &blas,
            shape,
            (Major::Row, Major::Row),
            &mut bufs,
            &at,
            3,
            repeats,
        )?;
        let cublas = flops / (ct.median_ms * 1e6);
        println!(
            "{m}x{n}x{k} cublas (row-major A, B): {:.3} ms {cublas:.0} GFLOP/s",
            ct.median_ms
        );
        let list: Vec<(String, Tiling)> = if si == 0 {
            cands.clone()
        } else {
            best.iter()
                .take(top)
                .map(|(_, n, t)| (n.clone(), t.clone()))
                .collect()
        };
        let mut rows = Vec::new();
        for (name, t) in list {
            // First (at 4096^3) a ragged problem, every element, two operand orders.
            if si == 0 && !ragged_ok(&gpu, &name, &t)? {
                failed += 1;
                continue;
            }
            let p = plan(&t, shape, Major::Row, Major::Row)?;
            if let Err(e) = verify(&gpu, &p, &mut bufs, Some(&at)) {
                println!("FAIL {name} at {m}x{n}x{k}: {e}");
                failed += 1;
                continue;
            }
            let loaded = p.kernel()?.load(&gpu)?;
            let timing = loaded.time(3, repeats, &mut bufs.args())?;
            let g = flops / (timing.median_ms * 1e6);
            println!(
                "{m}x{n}x{k} {name:<42} {:.3} ms (min {:.3}) {g:.0} GFLOP/s {:.3}x  [{}]",
                timing.median_ms,
                timing.min_ms,
                g / cublas,
                loaded.info()
            );
            rows.push((g / cublas, name, t));
        }
        if si == 0 {
            rows.sort_by(|a, b| b.0.total_cmp(&a.0));
            best = rows;
        }
    }
    println!("ranking at 4096^3:");
    for (r, name, _) in &best {
        println!("  {r:.3}x {name}");
    }
    if failed > 0 {
        return Err(
            format!("{failed} candidates failed verification (the FAIL lines above)").into(),
        );
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

/// Verifies `t` on a 257 x 129 x 67 problem (every element; row-major and column-major A and B).
fn ragged_ok(gpu: &Gpu, name: &str, t: &Tiling) -> Res<bool> {
    for (am, bm) in [(Major::Row, Major::Row), (Major::Col, Major::Col)] {
        let p = plan(t, (257, 129, 67), am, bm)?;
        let mut bufs = SgemmBuffers::new(gpu, 257, 129, 67, 11)?;
        if let Err(e) = verify(gpu, &p, &mut bufs, None) {
            println!("FAIL {name} ragged {am:?}/{bm:?}: {e}");
            return Ok(false);
        }
    }
    Ok(true)
}
