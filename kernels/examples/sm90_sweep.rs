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

use tessel_kernels::Gpu;
use tessel_kernels::gemm::run::cublas;
use tessel_kernels::hopper::run::{
    Sm90Buffers, cublas_supports, function, launch_cublas, run_and_compare_cublas, run_and_verify,
    supported,
};
use tessel_kernels::hopper::{Epilogue, InType, OutType, Sm90Options, Sm90Plan};
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
            raster_group: 16,
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
    let mut seen = Vec::new();
    v.retain(|o| {
        let new = !seen.contains(o);
        seen.push(*o);
        new
    });
    v
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

fn main() {
    let gpu = match Gpu::open(0) {
        Ok(g) => g,
        Err(e) => {
            println!("no GPU: {e}");
            return;
        }
    };
    if !supported(&gpu) {
        println!("{} is not sm_90: nothing to sweep", gpu.describe());
        return;
    }
    let blas = match cublas(&gpu) {
        Ok(b) => b,
        Err(e) => {
            println!("no cuBLAS: {e}");
            return;
        }
    };
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
    let mut it = args.iter();
    while let Some(a) = it.next() {
        if a == "--repeats" {
            repeats = it.next().and_then(|r| r.parse().ok()).unwrap_or(repeats);
        } else if a == "--only" {
            // Variants by their kernel-name tags, comma-separated ("default", "_c2", ...).
            only = it.next().cloned();
        } else if a == "--rounds" {
            rounds = it.next().and_then(|r| r.parse().ok()).unwrap_or(rounds);
        } else if a == "--f16-f32" {
            first_type_only = true;
        } else if let Some(mnk) = parse_size(a) {
            sizes.push(mnk);
        }
    }
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
                    None => bufs
                        .insert(Sm90Buffers::new(&gpu, &plan, 0x5390 ^ n as u64).expect("upload")),
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
                    let kernel = function(&gpu, &plan)?;
                    let theirs =
                        time_events(&gpu, 3, repeats, || launch_cublas(&gpu, &blas, &plan, b))?;
                    let ours = kernel.time(3, repeats, &mut b.args(&plan)?)?;
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
}
