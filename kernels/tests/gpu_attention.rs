//! The attention kernel on an sm_90 GPU against the f64 CPU reference
//! (`tessel_kernels::attention::reference`, whose module docs state the error bound): ragged
//! lengths (1, 17, 1000, 4097) at every head dimension and element type, causal or not,
//! grouped-query and multi-query heads, variable lengths, strided operands, other scales; and
//! the API's refusals on the device. `#[ignore]`d: run with
//! `TESSEL_REQUIRE_GPU=1 cargo test -p tessel-kernels --test gpu_attention -- --include-ignored`
//! (without a GPU, or on another architecture, each test prints why it is skipped, and fails
//! under `TESSEL_REQUIRE_GPU=1`).

mod common;

use std::collections::HashMap;
use tessel_kernels::hopper::INPUTS;

use common::gpu_or_skip;
use half::{bf16, f16};
use tessel_kernels::Gpu;
use tessel_kernels::attention::run::{
    Attention, AttnBuffers, AttnElem, config_for, run_and_verify, supported,
};
use tessel_kernels::attention::{AttnConfig, Problem, Strides};
use tessel_kernels::element::Element;

/// The GPU when it runs sm_90a code; otherwise `None` after saying why (a failure under
/// `TESSEL_REQUIRE_GPU=1`).
fn hopper(test: &str) -> Option<Gpu> {
    let gpu = gpu_or_skip(test)?;
    if !supported(&gpu) {
        let why = format!("{test}: {} is {}, not sm_90", gpu.name(), gpu.arch());
        if std::env::var("TESSEL_REQUIRE_GPU").as_deref() == Ok("1") {
            panic!("{why} (TESSEL_REQUIRE_GPU=1)");
        }
        eprintln!("{why}: skipped");
        return None;
    }
    Some(gpu)
}

/// The loaded kernels of a test, one per configuration (derived, proved and loaded once).
type Kernels<'g> = HashMap<AttnConfig, Attention<'g>>;

/// Runs `p` once with random operands of type `T` and compares up to `rows` query rows (both
/// ends of every sequence and head among them) with the CPU reference; panics with the first
/// value outside its bound.
fn verify<'g, T: AttnElem>(
    gpu: &'g Gpu,
    kernels: &mut Kernels<'g>,
    p: &Problem,
    seed: u64,
    rows: usize,
) {
    let config = config_for::<T>(p).unwrap();
    let attn = kernels
        .entry(config)
        .or_insert_with(|| Attention::new(gpu, config).unwrap());
    let mut bufs = AttnBuffers::<T>::new(gpu, p, seed).unwrap();
    match run_and_verify(attn, p, &mut bufs, rows) {
        Ok((o, lse)) => eprintln!(
            "{} {:?} causal {}: O rel err {:.2e}, LSE rel err {:.2e}",
            config.kernel_name(),
            p.seqlens,
            p.causal,
            o.rel_err,
            lse.rel_err
        ),
        Err(e) => panic!("{} {p:?}: {e}", config.kernel_name()),
    }
}

fn verify_as<'g>(
    dtype: Element,
    gpu: &'g Gpu,
    kernels: &mut Kernels<'g>,
    p: &Problem,
    seed: u64,
    rows: usize,
) {
    match dtype {
        Element::F16 => verify::<f16>(gpu, kernels, p, seed, rows),
        Element::BF16 => verify::<bf16>(gpu, kernels, p, seed, rows),
        other => panic!("attention takes f16 or bf16, not {other}"),
    }
}

#[test]
#[ignore = "needs an sm_90 GPU"]
fn every_head_dim_and_type_at_ragged_lengths() {
    let Some(gpu) = hopper("gpu_attention") else {
        return;
    };
    let mut kernels = Kernels::new();
    for d in [64, 128, 256] {
        for dtype in INPUTS {
            for causal in [false, true] {
                for len in [1, 17, 1000, 4097] {
                    let p = Problem::new(2, len, len, 3, 3, d).causal(causal);
                    verify_as(
                        dtype,
                        &gpu,
                        &mut kernels,
                        &p,
                        (d * 10_000 + len) as u64,
                        160,
                    );
                }
            }
        }
    }
}

#[test]
#[ignore = "needs an sm_90 GPU"]
fn queries_and_keys_of_different_lengths() {
    let Some(gpu) = hopper("gpu_attention") else {
        return;
    };
    let mut kernels = Kernels::new();
    // Bottom-right aligned causal mask: fewer queries than keys (every row sees keys), more
    // queries than keys (the first rows see none: O = 0, LSE = -inf).
    for (sq, sk) in [(17, 1000), (1000, 17), (300, 4097), (129, 128), (1, 4097)] {
        for causal in [false, true] {
            for d in [64, 128, 256] {
                let p = Problem::new(1, sq, sk, 2, 2, d).causal(causal);
                verify::<f16>(&gpu, &mut kernels, &p, (sq * 7 + sk) as u64, 200);
            }
        }
    }
}

#[test]
#[ignore = "needs an sm_90 GPU"]
fn grouped_query_and_multi_query_heads() {
    let Some(gpu) = hopper("gpu_attention") else {
        return;
    };
    let mut kernels = Kernels::new();
    for (heads, kv_heads) in [(8, 2), (8, 1), (6, 3)] {
        for causal in [false, true] {
            for d in [64, 128, 256] {
                let p = Problem::new(2, 1000, 1000, heads, kv_heads, d).causal(causal);
                // Every head of both sequences: rows spread over all of them.
                verify::<bf16>(&gpu, &mut kernels, &p, (heads * 100 + kv_heads) as u64, 400);
            }
        }
    }
}

#[test]
#[ignore = "needs an sm_90 GPU"]
fn variable_lengths_in_one_batch() {
    let Some(gpu) = hopper("gpu_attention") else {
        return;
    };
    let mut kernels = Kernels::new();
    // Sequences of 1, 17, 1000 and 4097 queries (and other key lengths, one sequence without
    // keys and one without queries), stacked.
    let cu_q = vec![0, 1, 18, 1018, 5115, 5115, 5243];
    let cu_k = vec![0, 17, 18, 2018, 6115, 6200, 6200];
    for d in [64, 128, 256] {
        for dtype in INPUTS {
            for causal in [false, true] {
                let p = Problem::varlen(cu_q.clone(), cu_k.clone(), 4, 2, d).causal(causal);
                verify_as(dtype, &gpu, &mut kernels, &p, d as u64 + 5, 300);
            }
        }
    }
}

#[test]
#[ignore = "needs an sm_90 GPU"]
fn strided_operands_and_other_scales() {
    let Some(gpu) = hopper("gpu_attention") else {
        return;
    };
    let mut kernels = Kernels::new();
    for d in [64, 128, 256] {
        // Q, K and V in one packed (batch, seq, 3, heads, dim) buffer's layout (each read from
        // a buffer of that size), O with padded rows.
        let (b, s, h) = (2, 1000, 4);
        let mut p = Problem::new(b, s, s, h, h, d).causal(true).scale(0.3);
        let packed = Strides {
            batch: s * 3 * h * d,
            seq: 3 * h * d,
            head: d,
        };
        p.q = packed;
        p.k = packed;
        p.v = packed;
        p.o = Strides {
            batch: s * (h * d + 64),
            seq: h * d + 64,
            head: d,
        };
        verify::<f16>(&gpu, &mut kernels, &p, 77 + d as u64, 200);
        // A large scale (peaked weights) and a small one (nearly uniform).
        for scale in [2.0, 0.01] {
            let p = Problem::new(1, 1000, 1000, 2, 2, d).scale(scale);
            verify::<bf16>(&gpu, &mut kernels, &p, 99 + d as u64, 200);
        }
    }
}

#[test]
#[ignore = "needs an sm_90 GPU"]
fn calls_that_do_not_fit_the_kernel_are_refused() {
    let Some(gpu) = hopper("gpu_attention") else {
        return;
    };
    let p = Problem::new(1, 100, 100, 2, 2, 64);
    let attn = Attention::new(&gpu, config_for::<f16>(&p).unwrap()).unwrap();
    let mut bufs = AttnBuffers::<f16>::new(&gpu, &p, 1).unwrap();
    let AttnBuffers {
        q, k, v, o, lse, ..
    } = &mut bufs;
    attn.forward(&p, q, k, v, o, lse).unwrap();
    // Another head dimension, a causal call, a varlen call: another kernel.
    for other in [
        Problem::new(1, 100, 100, 1, 1, 128),
        p.clone().causal(true),
        Problem::varlen(vec![0, 100], vec![0, 100], 2, 2, 64),
    ] {
        let err = attn
            .forward(&other, q, k, v, o, lse)
            .unwrap_err()
            .to_string();
        assert!(err.contains("this kernel is"), "{err}");
    }
    // A buffer shorter than the strides reach.
    let longer = Problem::new(1, 200, 100, 2, 2, 64);
    let err = attn
        .forward(&longer, q, k, v, o, lse)
        .unwrap_err()
        .to_string();
    assert!(err.contains("holds"), "{err}");
}
