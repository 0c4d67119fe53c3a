//! Every variant of the Hopper GEMM ([`Sm90Options`]: epilogue, raster group, persistent grid,
//! clusters, the shared-memory epilogue's pair order, barriers per chunk and stages, stream-K,
//! ping-pong consumers)
//! at one or more sizes and type pairs: each verified against the f64 CPU reference (16 spread
//! rows) and cuBLAS (every element, where cuBLAS has the type pair), then timed next to cuBLAS
//! (`cublasGemmEx`, same types) with CUDA events in the same process, cuBLAS timed right before
//! each variant. Used to pick `Sm90Options::default()` (docs/performance.md, "Hopper").
//!
//! `cargo run --release -p tessel-kernels --example sm90_sweep [N | MxNxK ...] [--repeats R]
//! [--rounds N] [--only TAG,...] [--f16-f32]` (default 4096^3 and 8192^3, 20 repeats, 1 round,
//! every variant and type pair; `--only` keeps the variants whose kernel-name tags are listed,
//! `default` for the default; `--f16-f32` keeps that type pair only; `--rounds` times the
//! variants of a size and type pair again, round-robin, after verifying them once).
//! Prints one line per variant as it goes, a summary table, and with several rounds the
//! median ratio of each variant over the rounds with its range.
//!
//! Diagnosis: `--trace` also runs each variant once more with [`Sm90Options::trace`] and
//! prints its timeline per tile ordinal (median cycles waiting for the first stage, in the
//! main loop and in the epilogue; when the tiles' epilogues start across the SMs; the SM
//! clock the records imply; when the blocks finished their last tiles, first, median and
//! last); `--blocks N` launches the persistent kernel over N blocks
//! instead of one per SM; `--soak S` launches cuBLAS, then the variant, back to back for S
//! seconds each, twice, and prints each span's wall-clock start and time per launch (to
//! read next to `nvidia-smi`'s clock and power samples); `--ours-first` times the variant
//! before cuBLAS instead of after it.
//!
//! Without an sm_90 GPU or cuBLAS it says so and exits 0. An unknown argument or a bad value, a
//! variant that fails (its line says `FAILED`) or any other failure exits 1 with one `error:`
//! line on stderr.

use std::process::ExitCode;

use tessel_kernels::Gpu;
use tessel_kernels::gemm::run::cublas;
use tessel_kernels::hopper::run::TraceEntry;
use tessel_kernels::hopper::run::{
    Sm90Buffers, cublas_supports, function, launch_cublas, run_and_compare_cublas, run_and_verify,
    supported,
};
use tessel_kernels::hopper::{Epilogue, InType, OutType, Sm90Options, Sm90Plan};
use tessel_kernels::kernel::Loaded;
use tessel_kernels::timing::time_events;

/// The variants timed, the default first.
fn variants() -> Vec<Sm90Options> {
    // Each variant is the default with the fields it names changed (its tag names them).
    let base = Sm90Options::default();
    let mut v = vec![base];
    // The shared-memory epilogue: pair order, barriers per chunk, stages and buffers.
    for pair_order in [true, false] {
        for chunk_barriers in [1, 2] {
            for stages in [4, 3] {
                v.push(Sm90Options {
                    pair_order,
                    chunk_barriers,
                    stages,
                    ..base
                });
            }
        }
        for stages in [4, 3] {
            v.push(Sm90Options {
                pair_order,
                stages,
                warp_stores: true,
                ..base
            });
        }
    }
    for lag in 1..=3 {
        v.push(Sm90Options { lag, ..base });
    }
    for l2_hint in [1, 2] {
        v.push(Sm90Options { l2_hint, ..base });
        v.push(Sm90Options {
            l2_hint,
            pair_order: false,
            ..base
        });
    }
    v.extend([
        Sm90Options {
            epilogue: Epilogue::Direct,
            ..base
        },
        Sm90Options {
            raster_group: 8,
            ..base
        },
        Sm90Options {
            raster_group: 4,
            ..base
        },
        Sm90Options {
            raster_group: 2,
            ..base
        },
        Sm90Options {
            persistent: false,
            ..base
        },
    ]);
    for g in [4, 8, 16] {
        v.push(Sm90Options {
            raster_group: g,
            cluster: 2,
            ..base
        });
    }
    v.push(Sm90Options {
        persistent: false,
        cluster: 2,
        ..base
    });
    v.push(Sm90Options {
        epilogue: Epilogue::Direct,
        cluster: 2,
        ..base
    });
    // Hybrid data-parallel + stream-K schedule.
    v.push(Sm90Options {
        stream_k: true,
        ..base
    });
    // Ping-pong consumers (64 x 256 tiles each), alone and with clusters of two.
    for (raster_group, cluster) in [(8, 1), (16, 1), (8, 2), (16, 2)] {
        v.push(Sm90Options {
            raster_group,
            cluster,
            pingpong: true,
            ..base
        });
    }
    // The previous descriptor arithmetic, the try_wait hint, L2 prefetch distances, clusters.
    for (lean_desc, wait_hint, prefetch, cluster) in [
        (false, false, 0, 1),
        (true, true, 0, 1),
        (true, false, 2, 1),
        (true, false, 4, 1),
        (true, false, 8, 1),
        (true, false, 4, 2),
    ] {
        v.push(Sm90Options {
            lean_desc,
            wait_hint,
            prefetch,
            cluster,
            ..base
        });
    }
    // The consumer's code once per consumer index, the k-tile loop unrolled by the stages.
    for (uniform_consumer, unroll_stages, lean_desc) in [
        (false, false, true),
        (false, false, false),
        (true, true, true),
        (false, true, true),
    ] {
        v.push(Sm90Options {
            uniform_consumer,
            unroll_stages,
            lean_desc,
            ..base
        });
    }
    // Clusters of two with the per-lane release and the previous serial one.
    for (raster_group, unroll_stages, lean_release) in [
        (8, false, true),
        (8, false, false),
        (16, false, true),
        (8, true, true),
        (8, true, false),
        (4, true, true),
    ] {
        v.push(Sm90Options {
            raster_group,
            cluster: 2,
            unroll_stages,
            lean_release,
            ..base
        });
    }
    // The k-tile loop unrolled by the stages with the sequential fp32 pair order (fewer
    // epilogue instructions: no lane-dependent register selection).
    v.push(Sm90Options {
        pair_order: false,
        unroll_stages: true,
        ..base
    });
    // C parked in the last k-tiles' stages, with either fp32 pair order.
    for pair_order in [true, false] {
        v.push(Sm90Options {
            park: true,
            pair_order,
            ..base
        });
    }
    let mut seen = Vec::new();
    v.retain(|o| {
        let new = !seen.contains(o);
        seen.push(*o);
        new
    });
    v
}

/// The median of `v` (0 when empty).
fn median(mut v: Vec<f64>) -> f64 {
    if v.is_empty() {
        return 0.0;
    }
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

/// The trace's summary: per tile ordinal, the median cycles of each phase over the consumers
/// that ran one, and the spread (10th, 50th, 90th percentile) of the epilogues' start times
/// across the GPU, in microseconds from the kernel's first tile start.
fn print_trace(trace: &[TraceEntry]) {
    let Some(t0) = trace.iter().map(|e| e.record.start_ns).min() else {
        println!("  trace: no records");
        return;
    };
    let end = trace.iter().map(|e| e.record.end_ns).max().unwrap_or(t0);
    let ghz = median(trace.iter().map(|e| e.record.ghz()).collect());
    println!(
        "  trace: {} records, first start to last end {:.1} us, SM clock ~{ghz:.3} GHz",
        trace.len(),
        (end - t0) as f64 / 1e3
    );
    // When each block finished its last traced tile: the spread is what the schedule leaves
    // idle at the end.
    // (block, its last tile's end in ns, its tiles)
    let mut blocks: Vec<(usize, u64, usize)> = Vec::new();
    for e in trace {
        match blocks.iter_mut().find(|b| b.0 == e.block) {
            Some(b) => {
                b.1 = b.1.max(e.record.end_ns);
                b.2 = b.2.max(e.tile + 1);
            }
            None => blocks.push((e.block, e.record.end_ns, e.tile + 1)),
        }
    }
    let mut ends: Vec<f64> = blocks.iter().map(|b| (b.1 - t0) as f64 / 1e3).collect();
    ends.sort_by(f64::total_cmp);
    let (fewest, most) = (
        blocks.iter().map(|b| b.2).min().unwrap_or(0),
        blocks.iter().map(|b| b.2).max().unwrap_or(0),
    );
    if let (Some(first), Some(last)) = (ends.first(), ends.last()) {
        println!(
            "  blocks' last tile ends (us): first {first:.1}, median {:.1}, last {last:.1}; \
             tiles per block {fewest} .. {most}",
            ends[ends.len() / 2]
        );
    }
    println!(
        "  {:>4} {:>5} {:>9} {:>9} {:>9} {:>26} {:>15} {:>11}",
        "tile",
        "recs",
        "wait cyc",
        "main cyc",
        "epi cyc",
        "epilogue start us p10/50/90",
        "epi cyc c0 / c1",
        "c1 - c0 cyc"
    );
    let tiles = trace.iter().map(|e| e.tile).max().unwrap_or(0);
    for j in 0..=tiles {
        let of: Vec<&TraceEntry> = trace.iter().filter(|e| e.tile == j).collect();
        let phase = |f: fn(&TraceEntry) -> u64| median(of.iter().map(|e| f(e) as f64).collect());
        let mut starts: Vec<f64> = of
            .iter()
            .map(|e| {
                let r = &e.record;
                // The epilogue's start: the tile's start plus its cycles up to the last wgmma,
                // at this record's own clock.
                (r.start_ns - t0) as f64 / 1e3 + (r.cycles[2] - r.cycles[0]) as f64 / r.ghz() / 1e3
            })
            .collect();
        starts.sort_by(f64::total_cmp);
        let pct = |p: usize| starts[(starts.len() - 1) * p / 100];
        let epi_of = |c: usize| {
            median(
                of.iter()
                    .filter(|e| e.consumer == c)
                    .map(|e| e.record.epilogue_cycles() as f64)
                    .collect(),
            )
        };
        // Consumer 1's epilogue start minus consumer 0's, in the block's cycles.
        let apart = median(
            of.iter()
                .filter(|e| e.consumer == 0)
                .filter_map(|e0| {
                    let e1 = of.iter().find(|e| e.consumer == 1 && e.block == e0.block)?;
                    Some(e1.record.cycles[2] as f64 - e0.record.cycles[2] as f64)
                })
                .collect(),
        );
        println!(
            "  {j:>4} {:>5} {:>9.0} {:>9.0} {:>9.0} {:>8.1} {:>8.1} {:>8.1} {:>7.0} {:>7.0} {apart:>11.0}",
            of.len(),
            phase(|e| e.record.wait_cycles()),
            phase(|e| e.record.main_cycles()),
            phase(|e| e.record.epilogue_cycles()),
            pct(10),
            pct(50),
            pct(90),
            epi_of(0),
            epi_of(1)
        );
    }
}

/// Launches `launch` back to back for `secs` seconds (synchronizing every 50 launches) and
/// returns the launches and the milliseconds per launch.
fn soak(
    gpu: &Gpu,
    secs: f64,
    mut launch: impl FnMut() -> tessel_kernels::GpuResult<()>,
) -> tessel_kernels::GpuResult<(usize, f64)> {
    let start = std::time::Instant::now();
    let mut n = 0;
    while start.elapsed().as_secs_f64() < secs {
        for _ in 0..50 {
            launch()?;
        }
        n += 50;
        gpu.synchronize()?;
    }
    Ok((n, start.elapsed().as_secs_f64() * 1e3 / n as f64))
}

/// Seconds since the Unix epoch (to line up with `nvidia-smi`'s timestamps).
fn unix_now() -> f64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0.0, |d| d.as_secs_f64())
}

/// The plan's kernel over `blocks` blocks where given (persistent, no clusters or stream-K,
/// whose schedule is the SM count's), else over the grid [`function`] picks.
fn load<'g>(
    gpu: &'g Gpu,
    plan: &Sm90Plan,
    blocks: Option<u32>,
) -> tessel_kernels::GpuResult<Loaded<'g>> {
    match blocks {
        Some(b)
            if plan.options.persistent && plan.options.cluster == 1 && !plan.options.stream_k =>
        {
            function(gpu, plan)?;
            plan.kernel()?.with_grid(b, 1, 1).load(gpu)
        }
        _ => function(gpu, plan),
    }
}

/// `N` (N^3) or `MxNxK`.
fn parse_size(a: &str) -> Option<(i64, i64, i64)> {
    if let Ok(n) = a.parse::<i64>() {
        return Some((n, n, n));
    }
    let v: Vec<i64> = a.split('x').filter_map(|x| x.parse().ok()).collect();
    (v.len() == 3).then(|| (v[0], v[1], v[2]))
}

/// `N` for cubes, else `MxNxK`.
fn size_name(m: i64, n: i64, k: i64) -> String {
    if m == n && n == k {
        m.to_string()
    } else {
        format!("{m}x{n}x{k}")
    }
}

type Res<T> = Result<T, Box<dyn std::error::Error>>;

/// The value after option `name`.
fn value<T: std::str::FromStr>(it: &mut std::slice::Iter<'_, String>, name: &str) -> Res<T> {
    let text = it.next().ok_or_else(|| format!("{name} needs a value"))?;
    Ok(text
        .parse()
        .map_err(|_| format!("{name}: cannot read '{text}'"))?)
}

fn run() -> Res<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let mut repeats = 20;
    let mut sizes = Vec::new();
    let mut only: Option<String> = None;
    let picked = |tag: &str, only: &Option<String>| {
        only.as_ref().is_none_or(|list| {
            list.split(',')
                .any(|t| t == tag || (t == "default" && tag.is_empty()))
        })
    };
    let mut first_type_only = false;
    let mut rounds = 1;
    let mut trace = false;
    let mut blocks: Option<u32> = None;
    let mut soak_secs = 0.0;
    let mut ours_first = false;
    let mut it = args.iter();
    while let Some(a) = it.next() {
        if a == "--repeats" {
            repeats = value(&mut it, a)?;
        } else if a == "--only" {
            // Variants by their kernel-name tags, comma-separated ("default", "_c2", ...).
            only = Some(value(&mut it, a)?);
        } else if a == "--rounds" {
            rounds = value(&mut it, a)?;
        } else if a == "--f16-f32" {
            first_type_only = true;
        } else if a == "--ours-first" {
            ours_first = true;
        } else if a == "--trace" {
            trace = true;
        } else if a == "--blocks" {
            blocks = Some(value(&mut it, a)?);
        } else if a == "--soak" {
            soak_secs = value(&mut it, a)?;
        } else if let Some(mnk) = parse_size(a) {
            sizes.push(mnk);
        } else {
            return Err(format!("'{a}' is neither a size (N or MxNxK) nor an option").into());
        }
    }
    let gpu = match Gpu::open(0) {
        Ok(g) => g,
        Err(e) => {
            println!("no GPU: {e}");
            return Ok(());
        }
    };
    if !supported(&gpu) {
        println!("{} is not sm_90: nothing to sweep", gpu.describe());
        return Ok(());
    }
    let blas = match cublas(&gpu) {
        Ok(b) => b,
        Err(e) => {
            println!("no cuBLAS: {e}");
            return Ok(());
        }
    };
    if sizes.is_empty() {
        sizes = vec![(4096, 4096, 4096), (8192, 8192, 8192)];
    }
    let all_types = [
        (InType::F16, OutType::F32),
        (InType::BF16, OutType::F32),
        (InType::F16, OutType::F16),
        (InType::BF16, OutType::BF16),
    ];
    let types = if first_type_only {
        &all_types[..1]
    } else {
        &all_types[..]
    };
    println!("device: {}", gpu.describe());
    let mut table = Vec::new();
    // (size, types, variant) -> the ratio of every round.
    let mut ratios: Vec<(String, Vec<f64>)> = Vec::new();
    // Variants that failed (verification or otherwise) are not timed again.
    let mut failed: Vec<String> = Vec::new();
    for &(m, n, k) in &sizes {
        for &(input, output) in types {
            let mut bufs: Option<Sm90Buffers> = None;
            for (round, opts) in
                (0..rounds).flat_map(|r| variants().into_iter().map(move |o| (r, o)))
            {
                if !picked(&opts.tag(), &only) {
                    continue;
                }
                let id = format!("{m}x{n}x{k} {input}->{output} {}", opts.tag());
                if failed.contains(&id) {
                    continue;
                }
                let plan = match Sm90Plan::with_options(m, n, k, input, output, opts) {
                    Ok(p) => p,
                    Err(e) => {
                        println!("{m}x{n}x{k} {input}->{output} [{opts}] plan error: {e}");
                        failed.push(id);
                        continue;
                    }
                };
                let b = match &mut bufs {
                    Some(b) => b,
                    None => bufs.insert(Sm90Buffers::new(&gpu, &plan, 0x5390 ^ n as u64)?),
                };
                let result = (|| {
                    let (cpu, vs) = if round == 0 {
                        eprintln!("{} [{opts}]: verify", plan.kernel_name());
                        let (_, cpu) = run_and_verify(&gpu, &plan, b, 16)?;
                        let ours_c = b.c_values(&gpu, output)?;
                        let vs = if cublas_supports(input, output) {
                            Some(run_and_compare_cublas(&gpu, &blas, &plan, b, &ours_c)?)
                        } else {
                            None
                        };
                        (Some(cpu), vs)
                    } else {
                        // Verified in round 0 (an error there skips the variant below).
                        (None, None)
                    };
                    // Later rounds follow other variants: their maps may differ.
                    b.for_plan(&gpu, &plan)?;
                    let kernel = load(&gpu, &plan, blocks)?;
                    // cuBLAS first, unless --ours-first (the order's effect on the ratio).
                    let (theirs, ours) = if ours_first {
                        let ours = kernel.time(3, repeats, &mut b.args(&plan)?)?;
                        let theirs =
                            time_events(&gpu, 3, repeats, || launch_cublas(&gpu, &blas, &plan, b))?;
                        (theirs, ours)
                    } else {
                        let theirs =
                            time_events(&gpu, 3, repeats, || launch_cublas(&gpu, &blas, &plan, b))?;
                        (theirs, kernel.time(3, repeats, &mut b.args(&plan)?)?)
                    };
                    if soak_secs > 0.0 && round == 0 {
                        for pass in 0..2 {
                            let at = unix_now();
                            let (n, ms) =
                                soak(&gpu, soak_secs, || launch_cublas(&gpu, &blas, &plan, b))?;
                            println!(
                                "  soak {pass} cuBLAS from {at:.2}: {n} launches, {ms:.4} ms each"
                            );
                            let at = unix_now();
                            let mut args = b.args(&plan)?;
                            let (n, ms) = soak(&gpu, soak_secs, || kernel.launch(&mut args))?;
                            println!(
                                "  soak {pass} ours   from {at:.2}: {n} launches, {ms:.4} ms each"
                            );
                        }
                    }
                    if trace && round == 0 {
                        let traced = Sm90Plan::with_options(
                            m,
                            n,
                            k,
                            input,
                            output,
                            Sm90Options {
                                trace: true,
                                ..opts
                            },
                        )?;
                        b.for_plan(&gpu, &traced)?;
                        let tk = load(&gpu, &traced, blocks)?;
                        // Warm, then one launch recorded.
                        tk.time(3, 3, &mut b.args(&traced)?)?;
                        b.take_trace(&gpu)?;
                        tk.launch(&mut b.args(&traced)?)?;
                        gpu.synchronize()?;
                        println!("{} [{opts}] trace:", plan.kernel_name());
                        print_trace(&b.take_trace(&gpu)?);
                    }
                    let info = format!(
                        "{}, grid {}",
                        kernel.info(),
                        kernel.kernel().launch().grid.0
                    );
                    Ok::<_, tessel_kernels::GpuError>((cpu, vs, ours, theirs, info))
                })();
                match result {
                    Ok((cpu, vs, ours, theirs, info)) => {
                        let tf = plan.flops() / (ours.median_ms * 1e-3) / 1e12;
                        let ratio = theirs.median_ms / ours.median_ms;
                        let line = format!(
                            "{:>5} {:<10} {:<28} {:>8.4} {:>7.1} {:>8.4} {:>7.3}",
                            size_name(m, n, k),
                            format!("{input}->{output}"),
                            opts.to_string(),
                            ours.median_ms,
                            tf,
                            theirs.median_ms,
                            ratio
                        );
                        println!(
                            "{line}   cpu {} cublas {} {info}",
                            cpu.map_or("-".to_string(), |c| format!("{:.1e}", c.rel_err)),
                            vs.map_or("-".to_string(), |v| format!("{:.1e}", v.rel_err))
                        );
                        table.push(line);
                        let key = format!(
                            "{:>5} {:<10} {:<28}",
                            size_name(m, n, k),
                            format!("{input}->{output}"),
                            opts.to_string()
                        );
                        match ratios.iter_mut().find(|(k, _)| *k == key) {
                            Some((_, r)) => r.push(ratio),
                            None => ratios.push((key, vec![ratio])),
                        }
                    }
                    Err(e) => {
                        failed.push(id);
                        let line = format!(
                            "{:>5} {input}->{output} [{opts}] FAILED: {e}",
                            size_name(m, n, k)
                        );
                        println!("{line}");
                        table.push(line);
                    }
                }
            }
        }
    }
    println!(
        "\n{:>5} {:<10} {:<28} {:>8} {:>7} {:>8} {:>7}",
        "size", "in->out", "variant", "ms", "TFLOP/s", "cuBLAS", "x_cuBLAS"
    );
    for line in table {
        println!("{line}");
    }
    if rounds > 1 {
        println!(
            "\n{:>5} {:<10} {:<28} {:>7} {:>7} {:>7}",
            "size", "in->out", "variant", "median", "min", "max"
        );
        for (key, mut r) in ratios {
            r.sort_by(f64::total_cmp);
            let median = if r.len() % 2 == 1 {
                r[r.len() / 2]
            } else {
                (r[r.len() / 2 - 1] + r[r.len() / 2]) / 2.0
            };
            println!("{key} {median:>7.3} {:>7.3} {:>7.3}", r[0], r[r.len() - 1]);
        }
    }
    if !failed.is_empty() {
        return Err(format!("{} variants failed (the FAILED lines above)", failed.len()).into());
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
