//! The Hopper GEMM: host proofs of its plan (descriptors, TMA boxes, C fragment) run
//! everywhere; the GPU runs (against an f64 CPU reference and against cuBLAS) are `#[ignore]`d
//! and skip without an sm_90 GPU (enforced with `TESSEL_REQUIRE_GPU=1`).

mod common;

use tessel_kernels::hopper::run::{Sm90Buffers, run_and_compare_cublas, run_and_verify, supported};
use tessel_kernels::hopper::{BK, BM, BN, InType, OutType, STAGES, Sm90Plan};
use tessel_kernels::kernel::{Arg, ParamKind};
use tessel_kernels::tma::{TmaElem, TmaMatrix, TmaPlan};
use tessel_layout::gmma::{GmmaDescriptor, Major, SwizzleMode};

/// The 128-byte swizzle on a byte address, written out from its definition (PTX ISA, "Shared
/// Memory Matrix Layout": the 16-byte chunk index, bits 4-6, XORed with the 128-byte row index
/// modulo 8, bits 7-9), independently of tessel's `Swizzle`.
fn sw128(byte: i64) -> i64 {
    byte ^ ((byte & 0x380) >> 3)
}

/// The byte of element (row, k) of a K-major fp16 stage written by a TMA box of 64 x rows with
/// the 128B swizzle: rows of 128 bytes, one after the other (CUDA driver API,
/// cuTensorMapEncodeTiled: the box lands densely, innermost dimension first).
fn stage_byte(row: i64, k: i64) -> i64 {
    sw128(row * 128 + 2 * k)
}

#[test]
fn plan_descriptor_fields_and_tma_boxes() {
    let plan = Sm90Plan::new(4096, 4096, 4096, InType::F16, OutType::F32).unwrap();
    println!(
        "A stage {}  (TMA box {:?} of {})",
        plan.a_stage,
        plan.a_tma.box_dims(),
        plan.a_tma.box_layout()
    );
    println!(
        "B stage {}  (TMA box {:?} of {})",
        plan.b_stage,
        plan.b_tma.box_dims(),
        plan.b_tma.box_layout()
    );
    for (i, d) in plan.desc_a().iter().enumerate() {
        println!("A consumer {} k-block {}: {d:?}", i / 4, i % 4);
    }
    for (kb, d) in plan.desc_b().iter().enumerate() {
        println!("B k-block {kb}: {d:?}");
    }
    println!(
        "DESC_A {:#018x}  DESC_B {:#018x}",
        Sm90Plan::desc_bits(&plan.desc_a()[0]).unwrap(),
        Sm90Plan::desc_bits(&plan.desc_b()[0]).unwrap()
    );
    // Boxes: K innermost (64 halves = one 128-byte swizzled row) by the stage's rows.
    assert_eq!(plan.a_tma.box_dims(), [BK, BM]);
    assert_eq!(plan.b_tma.box_dims(), [BK, BN]);
    assert_eq!(
        (plan.a_tma.mode(), plan.b_tma.mode()),
        (SwizzleMode::B128, SwizzleMode::B128)
    );
    assert_eq!(plan.stage_bytes(), (128 + 256) * 64 * 2);
    assert_eq!(plan.smem_bytes(), STAGES * 49152 + 1024 + 64);
    // Every descriptor: K-major, 128B, LBO 16 (unused), SBO 1024 (8 rows of 128 bytes); the
    // start advances 32 bytes (+2 in the >>4 field) per k-block and 64 rows (8 KiB) per
    // consumer.
    for (i, d) in plan.desc_a().iter().enumerate() {
        let (c, kb) = (i as i64 / 4, i as i64 % 4);
        assert_eq!(
            (
                d.major,
                d.mode,
                d.start_address,
                d.leading_byte_offset,
                d.stride_byte_offset
            ),
            (Major::K, SwizzleMode::B128, 8192 * c + 32 * kb, 16, 1024),
            "A {c} {kb}"
        );
    }
    for (kb, d) in plan.desc_b().iter().enumerate() {
        assert_eq!(
            (d.start_address, d.leading_byte_offset, d.stride_byte_offset),
            (32 * kb as i64, 16, 1024)
        );
        assert_eq!(d.encode().unwrap() & 0x3fff, 2 * kb as u64);
    }
    // The constant fields: CUTLASS's canonical K-major SW128 descriptor (layout type 1 in bits
    // 62-63, SBO field 64, LBO field 1; include/cute/atom/mma_traits_sm90_gmma.hpp,
    // make_gmma_desc).
    let bits = 1u64 << 62 | 64 << 32 | 1 << 16;
    assert_eq!(Sm90Plan::desc_bits(&plan.desc_a()[0]).unwrap(), bits);
    assert_eq!(Sm90Plan::desc_bits(&plan.desc_b()[0]).unwrap(), bits);
    let src = plan.kernel().unwrap().source().to_string();
    assert!(
        src.contains(&format!("DESC_A = {}LL", bits as i64)),
        "{src}"
    );
    assert!(src.contains("TX_BYTES = 49152"));
}

#[test]
fn descriptors_read_what_the_tma_box_wrote() {
    // Independent of gmma_descriptor's own check: every element of every wgmma operand, as the
    // descriptor addresses it, is where the TMA box put it (sw128 written out above).
    let plan = Sm90Plan::new(256, 512, 128, InType::BF16, OutType::BF16).unwrap();
    for (i, d) in plan.desc_a().iter().enumerate() {
        let (c, kb) = (i as i64 / 4, i as i64 % 4);
        for k in 0..16 {
            for m in 0..64 {
                assert_eq!(
                    d.address(m, k, 2),
                    stage_byte(64 * c + m, 16 * kb + k),
                    "A consumer {c} k-block {kb} ({m},{k})"
                );
            }
        }
    }
    for (kb, d) in plan.desc_b().iter().enumerate() {
        for k in 0..16 {
            for n in 0..BN {
                assert_eq!(d.address(n, k, 2), stage_byte(n, 16 * kb as i64 + k));
            }
        }
    }
    // The tessel stage layouts are the same bytes.
    for row in 0..BM {
        for k in 0..BK {
            assert_eq!(
                2 * plan.a_stage.offset(row + BM * k).unwrap(),
                stage_byte(row, k)
            );
        }
    }
    // A descriptor that forgot the swizzle reads other bytes.
    let plain = GmmaDescriptor {
        mode: SwizzleMode::None,
        ..plan.desc_b()[0]
    };
    assert_ne!(plain.address(1, 0, 2), stage_byte(1, 0));
}

#[test]
fn the_epilogue_layout_is_the_gmma_c_layout() {
    // PTX ISA, wgmma "Matrix fragments for D" (m64nNk16, fp32 accumulators): thread t of the
    // warpgroup holds, as value v = v0 + 2 v1 + 4 j, row 16 (t / 32) + (t % 32) / 4 + 8 v1 and
    // column 8 j + 2 (t % 4) + v0.
    let plan = Sm90Plan::new(128, 256, 64, InType::F16, OutType::F16).unwrap();
    for t in 0..128 {
        for v in 0..128 {
            let (v0, v1, j) = (v % 2, (v / 2) % 2, v / 4);
            let row = 16 * (t / 32) + (t % 32) / 4 + 8 * v1;
            let col = 8 * j + 2 * (t % 4) + v0;
            assert_eq!(
                plan.c_frag.offset(t + 128 * v).unwrap(),
                row + 64 * col,
                "t {t} v {v}"
            );
        }
    }
}

#[test]
fn sizes_tma_cannot_address_are_errors() {
    for k in [1, 12, 100, 4095] {
        let err = Sm90Plan::new(256, 256, k, InType::F16, OutType::F32)
            .unwrap_err()
            .to_string();
        assert!(err.contains("multiple of 8"), "{err}");
    }
    assert!(Sm90Plan::new(0, 256, 64, InType::F16, OutType::F32).is_err());
    assert!(Sm90Plan::new(256, 1 << 31, 64, InType::F16, OutType::F32).is_err());
    // A box that does not write the stage: 64B swizzle, 32 halves wide.
    let plan = Sm90Plan::new(128, 256, 64, InType::F16, OutType::F32).unwrap();
    let m = TmaMatrix {
        rows: 128,
        cols: 64,
        ld: 64,
        elem: TmaElem::F16,
    };
    let err = TmaPlan::new(m, [32, 128], SwizzleMode::B64, &plan.a_stage, Major::K).unwrap_err();
    assert!(err.to_string().contains("box is 32x128"), "{err}");
    // The right box but the 32B swizzle: the driver's box rule (64 halves > 32 bytes) refuses.
    assert!(TmaPlan::new(m, [64, 128], SwizzleMode::B32, &plan.a_stage, Major::K).is_err());
    // A leading dimension of 1004 halves (2008 bytes) is not a multiple of 16 bytes.
    let odd = TmaMatrix {
        ld: 1004,
        cols: 1000,
        ..m
    };
    let err = TmaPlan::new(odd, [64, 128], SwizzleMode::B128, &plan.a_stage, Major::K).unwrap_err();
    assert!(err.to_string().contains("multiple of 16 bytes"), "{err}");
}

#[test]
fn tensor_map_parameters_take_only_tensor_maps() {
    let kernel = Sm90Plan::new(128, 256, 64, InType::F16, OutType::F32)
        .unwrap()
        .kernel()
        .unwrap();
    assert_eq!(kernel.params()[0].kind(), &ParamKind::TensorMap);
    assert_eq!(kernel.params()[1].kind(), &ParamKind::TensorMap);
    let err = kernel
        .check_args(&[Arg::I64(0), Arg::I64(0), Arg::I32(0)])
        .unwrap_err();
    assert!(err.to_string().contains("parameter tmap_a"), "{err}");
}

/// Runs one plan on the GPU against the CPU (every row up to 1024 rows, else 256 spread rows)
/// and, when `vs_cublas`, against cuBLAS on every element.
fn gpu_case(test: &str, m: i64, n: i64, k: i64, input: InType, output: OutType, vs_cublas: bool) {
    let Some(gpu) = common::gpu_or_skip(test) else {
        return;
    };
    if !supported(&gpu) {
        assert!(
            std::env::var("TESSEL_REQUIRE_SM90").as_deref() != Ok("1"),
            "{test}: {} is not sm_90",
            gpu.describe()
        );
        eprintln!("{test}: skipped: {} is not sm_90", gpu.describe());
        return;
    }
    let plan = Sm90Plan::new(m, n, k, input, output).unwrap();
    let mut bufs = Sm90Buffers::new(&gpu, &plan, 0x90a ^ m as u64).unwrap();
    let rows = if m <= 1024 { m as usize } else { 256 };
    let (kernel, cmp) =
        run_and_verify(&gpu, &plan, &mut bufs, rows).unwrap_or_else(|e| panic!("{test}: {e}"));
    eprintln!(
        "{test}: {} {}; rel err {:.2e}",
        plan.kernel_name(),
        kernel.info(),
        cmp.rel_err
    );
    assert_eq!(cmp.bad, 0);
    // Every element is written: no poison left anywhere (the rows above are a sample).
    let c = bufs.c_values(&gpu, output).unwrap();
    assert!(
        c.iter().all(|x| x.is_finite()),
        "{test}: unwritten elements"
    );
    // cuBLAS has no fp16 -> bf16 or bf16 -> fp16 GEMM; those pairs stop at the CPU reference.
    if vs_cublas && tessel_kernels::hopper::run::cublas_supports(input, output) {
        let Ok(blas) = tessel_kernels::gemm::run::cublas(&gpu) else {
            eprintln!("{test}: no cuBLAS");
            return;
        };
        let vs = run_and_compare_cublas(&gpu, &blas, &plan, &mut bufs, &c).unwrap();
        assert_eq!(vs.bad, 0, "{test}: {:?}", vs.examples);
    }
}

#[test]
#[ignore = "needs an sm_90 GPU"]
fn gpu_small_one_tile_every_type() {
    for input in InType::ALL {
        for output in OutType::ALL {
            gpu_case(
                "gpu_small_one_tile_every_type",
                128,
                256,
                64,
                input,
                output,
                true,
            );
        }
    }
}

#[test]
#[ignore = "needs an sm_90 GPU"]
fn gpu_ragged_sizes() {
    for input in InType::ALL {
        for (m, n, k) in [(1000, 1000, 1000), (129, 257, 72), (1, 1, 8), (300, 700, 8)] {
            gpu_case("gpu_ragged_sizes", m, n, k, input, OutType::F32, true);
        }
        gpu_case(
            "gpu_ragged_sizes",
            1000,
            1000,
            1000,
            input,
            OutType::F16,
            true,
        );
        gpu_case("gpu_ragged_sizes", 129, 257, 72, input, OutType::BF16, true);
    }
}

#[test]
#[ignore = "needs an sm_90 GPU"]
fn gpu_large_4096_cubed() {
    for input in InType::ALL {
        gpu_case(
            "gpu_large_4096_cubed",
            4096,
            4096,
            4096,
            input,
            OutType::F32,
            true,
        );
    }
    // More tiles than SMs in both directions, several passes of the persistent loop.
    gpu_case(
        "gpu_large_4096_cubed",
        4096,
        8192,
        512,
        InType::F16,
        OutType::F16,
        true,
    );
}
