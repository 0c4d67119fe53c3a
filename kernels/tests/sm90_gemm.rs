//! The Hopper GEMM: host proofs of its plan (descriptors, TMA boxes, C fragment) run
//! everywhere; the GPU runs (against an f64 CPU reference and against cuBLAS) are `#[ignore]`d
//! and skip without an sm_90 GPU (enforced with `TESSEL_REQUIRE_GPU=1`).

mod common;

use tessel_kernels::Element;
use tessel_kernels::hopper::run::{Sm90Buffers, run_and_compare_cublas, run_and_verify, supported};
use tessel_kernels::hopper::{BK, BM, BN, Epilogue, Sm90Config, Sm90Plan, Sm90Tile};
use tessel_kernels::hopper::{INPUTS, OUTPUTS};
use tessel_kernels::kernel::{Arg, ParamKind};
use tessel_kernels::tma::{TmaMatrix, TmaPlan};
use tessel_layout::Layout;
use tessel_layout::bank::analyze_indices;
use tessel_layout::gmma::{GmmaDescriptor, Major, SwizzleMode};

/// The 128-byte swizzle on a byte address, written out from its definition (PTX ISA, "Shared
/// Memory Matrix Layout": the 16-byte chunk index, bits 4-6, XORed with the 128-byte row index
/// modulo 8, bits 7-9), independently of tessel's `Swizzle`.
fn sw128(byte: i64) -> i64 {
    byte ^ ((byte & 0x380) >> 3)
}

/// The 64-byte swizzle on a byte address, from the same definition: the 16-byte chunk index
/// within a 64-byte row, bits 4-5, XORed with bits 7-8 (the 128-byte line index modulo 4).
fn sw64(byte: i64) -> i64 {
    byte ^ ((byte & 0x180) >> 3)
}

/// The byte of element (row, k) of a K-major fp16 stage written by a TMA box of 64 x rows with
/// the 128B swizzle: rows of 128 bytes, one after the other (CUDA driver API,
/// cuTensorMapEncodeTiled: the box lands densely, innermost dimension first).
fn stage_byte(row: i64, k: i64) -> i64 {
    sw128(row * 128 + 2 * k)
}

#[test]
fn plan_descriptor_fields_and_tma_boxes() {
    let plan = Sm90Plan::new(4096, 4096, 4096, Element::F16, Element::F32).unwrap();
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
    // The stages, two 8 KiB epilogue buffers per consumer, alignment slack, the barriers:
    // 227 KiB hold four 48 KiB stages beside the rest (232448 - 32768 - 1024 = 198656 bytes,
    // 4.04 stages of 49152 + 16).
    assert_eq!(plan.stages(), 4);
    assert_eq!(plan.smem_bytes(), 4 * 49152 + 4 * 8192 + 1024 + 64);
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
    // The descriptor tensors' engines carry the low word (plus the stages' address >> 4), the
    // high word, and the transpose immediate of the K-major operands (0).
    let src = plan.kernel().unwrap().source().to_string();
    let (lo, hi) = (bits & 0xFFFF_FFFF, bits >> 32);
    assert!(
        src.contains(&format!(
            "tessel::descriptors<0>{{{lo}u + (smem >> 4), {hi}u}}"
        )),
        "{src}"
    );
    assert!(src.contains("TX_BYTES = 49152"));
}

#[test]
fn descriptors_read_what_the_tma_box_wrote() {
    // Independent of gmma_descriptor's own check: every element of every wgmma operand, as the
    // descriptor addresses it, is where the TMA box put it (sw128 written out above).
    let plan = Sm90Plan::new(256, 512, 128, Element::BF16, Element::BF16).unwrap();
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
    let plan = Sm90Plan::new(128, 256, 64, Element::F16, Element::F16).unwrap();
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
        let err = Sm90Plan::new(256, 256, k, Element::F16, Element::F32)
            .unwrap_err()
            .to_string();
        assert!(err.contains("multiple of 8"), "{err}");
    }
    assert!(Sm90Plan::new(0, 256, 64, Element::F16, Element::F32).is_err());
    assert!(Sm90Plan::new(256, 1 << 31, 64, Element::F16, Element::F32).is_err());
    // A box that does not write the stage: 64B swizzle, 32 halves wide.
    let plan = Sm90Plan::new(128, 256, 64, Element::F16, Element::F32).unwrap();
    let m = TmaMatrix {
        rows: 128,
        cols: 64,
        ld: 64,
        elem: Element::F16,
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
    let kernel = Sm90Plan::new(128, 256, 64, Element::F16, Element::F32)
        .unwrap()
        .kernel()
        .unwrap();
    assert_eq!(kernel.params()[0].kind(), &ParamKind::TensorMap);
    assert_eq!(kernel.params()[1].kind(), &ParamKind::TensorMap);
    assert_eq!(kernel.params()[2].kind(), &ParamKind::TensorMap);
    let err = kernel
        .check_args(&[Arg::I64(0), Arg::I64(0), Arg::I32(0), Arg::I32(0)])
        .unwrap_err();
    assert!(err.to_string().contains("parameter tmap_a"), "{err}");
}

#[test]
fn epilogue_chunk_is_the_128b_swizzled_row_major_box() {
    // The TMA store reads a box of 64 rows x 128 bytes, rows one after the other, under the
    // 128B swizzle (CUDA driver API, cuTensorMapEncodeTiled; sw128 above): c_smem must place
    // element (row, col) exactly there.
    for (output, bytes) in [(Element::F32, 4), (Element::F16, 2), (Element::BF16, 2)] {
        let plan = Sm90Plan::new(512, 512, 64, Element::F16, output).unwrap();
        let cols = 128 / bytes;
        assert_eq!(Sm90Plan::c_cols(output, 256), cols);
        assert_eq!(plan.epilogue, Epilogue::TmaStore);
        let tma = plan.c_tma.as_ref().unwrap();
        assert_eq!(tma.box_dims(), [cols, 64]);
        for row in 0..64 {
            for col in 0..cols {
                assert_eq!(
                    bytes * plan.c_smem.offset(row + 64 * col).unwrap(),
                    sw128(row * 128 + bytes * col),
                    "{output} ({row},{col})"
                );
            }
        }
        // One chunk per 128 bytes of a consumer's 256 columns; all four buffers beside the
        // stage ring within the 227 KiB a block may have.
        assert_eq!(plan.c_buf_bytes() * 4, 4 * 64 * 128);
        assert!(plan.smem_bytes() <= 232_448, "{}", plan.smem_bytes());
    }
}

#[test]
fn the_32_column_tile_of_a_16_bit_output_stores_64_byte_swizzled_chunks() {
    // The chunk is the whole 64 x 32 tile of a consumer: 64 rows of 64 bytes, one after the
    // other, under the 64B swizzle (what the TMA store with CU_TENSOR_MAP_SWIZZLE_64B reads).
    for output in [Element::F16, Element::BF16] {
        let c = Sm90Config {
            tile: Sm90Tile::T128x32,
            ..Sm90Config::tn(Element::F16, output)
        };
        let plan = Sm90Plan::for_config(c).unwrap();
        assert_eq!(Sm90Plan::c_cols(output, 32), 32);
        assert_eq!(Sm90Plan::c_swizzle(output, 32), SwizzleMode::B64);
        let tma = plan.c_tma.as_ref().unwrap();
        assert_eq!(tma.box_dims(), [32, 64]);
        for row in 0..64 {
            for col in 0..32 {
                assert_eq!(
                    2 * plan.c_smem.offset(row + 64 * col).unwrap(),
                    sw64(row * 64 + 2 * col),
                    "{output} ({row},{col})"
                );
            }
        }
        // stmatrix into it: 4 wavefronts per stsm.x4 (one per 8 x 8 matrix), no conflict.
        let banks = plan.epilogue_banks().unwrap();
        assert!(
            banks.iter().all(|r| r.wavefronts == 4 && r.excess == 0),
            "{output}: {:?}",
            banks[0]
        );
    }
}

#[test]
fn epilogue_stores_swizzled_are_ideal_sequential_fp32_two_way_unswizzled_worse() {
    for output in OUTPUTS {
        let plan = Sm90Plan::new(256, 256, 64, Element::BF16, output).unwrap();
        let (op, idx) = plan.epilogue_accesses(0).unwrap();
        let swizzled = analyze_indices(&plan.c_smem, output.bytes(), op, &idx).unwrap();
        // stmatrix: 1 wavefront per 8x8 matrix, 4 per stsm.x4. sts.64 with the lane-dependent
        // pair order: 2 per warp-wide store (256 bytes), the ideal.
        let per = if output == Element::F32 { 2 } else { 4 };
        assert!(
            swizzled
                .iter()
                .all(|r| r.wavefronts == per && r.excess == 0),
            "{output}: {:?}",
            swizzled[0]
        );
        // The same chunk without the swizzle, row-major 128-byte rows: the 8 rows a store
        // touches share their banks.
        let cols = Sm90Plan::c_cols(output, 256);
        let plain = Layout::new(
            tessel_layout::IntTuple::from_ints([64, cols]),
            tessel_layout::IntTuple::from_ints([cols, 1]),
        )
        .unwrap();
        let flat = analyze_indices(&plain, output.bytes(), op, &idx).unwrap();
        assert!(flat.iter().all(|r| r.excess > 0), "{output}: {:?}", flat[0]);
    }
    // fp32 with the same pair order in every lane: 4 wavefronts against 2, each half-warp
    // writing rows g and g ^ 1 into the same banks (measured: conflict_s64_epilogue_sm90,
    // docs/bank-model.md).
    let mut plan = Sm90Plan::new(256, 256, 64, Element::F16, Element::F32).unwrap();
    assert_ne!(plan.c_flip, (0, 0));
    plan.c_flip = (0, 0);
    let banks = plan.epilogue_banks().unwrap();
    assert!(
        banks.iter().all(|r| r.wavefronts == 4 && r.excess == 2),
        "{:?}",
        banks[0]
    );
}

/// Row and column in the consumer's 64 x 256 tile of accumulator `i` of thread `t`, from the
/// PTX ISA ("Register Fragments and Shared Memory Matrix Layouts", wgmma `.m64nNk16` D:
/// row `16 warp + lane / 4 + 8 ((i / 2) % 2)`, column `2 (lane % 4) + i % 2 + 8 (i / 4)`),
/// independently of tessel's GMMA atom.
fn wgmma_d(t: i64, i: i64) -> (i64, i64) {
    let (w, l) = (t / 32, t % 32);
    (
        16 * w + l / 4 + 8 * ((i / 2) % 2),
        2 * (l % 4) + i % 2 + 8 * (i / 4),
    )
}

#[test]
fn fp32_epilogue_pair_order_fills_every_bank_once_per_half_warp() {
    // The kernel's fp32 epilogue: at step u of chunk ch, thread t stores its accumulators
    // v, v + 1 with v = (16 ch + u) ^ mask when bit `bit` of t is set, else 16 ch + u, into
    // the 128B-swizzled chunk (64 rows of 32 fp32), at the address of 16 ch + u XOR
    // 4 c_flip_xor. Each half-warp's 16 lanes write 8 bytes
    // each: one wavefront exactly when the 128 bytes cover the 32 banks once.
    for (pair_order, banks_per_half) in [(true, 32), (false, 16)] {
        let mut plan = Sm90Plan::new(512, 512, 64, Element::F16, Element::F32).unwrap();
        if !pair_order {
            plan.c_flip = (0, 0);
        }
        let (mask, bit) = plan.c_flip;
        assert_eq!(pair_order, mask != 0);
        for ch in 0..8 {
            let mut written = vec![0; 64 * 32];
            for w in 0..4 {
                for u in (0..16).step_by(2) {
                    for half in 0..2 {
                        let mut banks = std::collections::BTreeSet::new();
                        for l in 16 * half..16 * half + 16 {
                            let t = 32 * w + l;
                            let flip = if (t >> bit) & 1 == 1 { mask } else { 0 };
                            let v = (16 * ch + u) ^ flip;
                            for e in 0..2 {
                                let (row, col) = wgmma_d(t, v + e);
                                let col = col - 32 * ch;
                                assert!((0..32).contains(&col), "chunk {ch}: value {}", v + e);
                                written[(32 * row + col) as usize] += 1;
                                let byte = sw128(128 * row + 4 * col);
                                // The pair is one 8-byte vector.
                                if e == 1 {
                                    let (r0, c0) = wgmma_d(t, v);
                                    assert_eq!(byte, sw128(128 * r0 + 4 * (c0 - 32 * ch)) + 4);
                                }
                                banks.insert((byte / 4) % 32);
                                // The kernel addresses it as value 16 ch + u's place XOR the
                                // plan's offset XOR (4 bytes per element).
                                if e == 0 {
                                    let (r0, c0) = wgmma_d(t, 16 * ch + u);
                                    let seq = sw128(128 * r0 + 4 * (c0 - 32 * ch));
                                    let x = if flip != 0 { 4 * plan.c_flip_xor } else { 0 };
                                    assert_eq!(byte, seq ^ x, "t {t} v {v}");
                                }
                            }
                        }
                        assert_eq!(banks.len(), banks_per_half, "{pair_order}: w {w} u {u}");
                    }
                }
            }
            assert!(written.iter().all(|&n| n == 1), "chunk {ch}");
        }
    }
}

#[test]
fn tma_store_needs_16_byte_rows_of_c() {
    // fp32: N % 4 == 0; 16-bit: N % 8 == 0. Otherwise the direct epilogue.
    for (n, output, tma) in [
        (260, Element::F32, true),
        (258, Element::F32, false),
        (264, Element::BF16, true),
        (260, Element::BF16, false),
    ] {
        let plan = Sm90Plan::new(100, n, 64, Element::F16, output).unwrap();
        assert_eq!(plan.epilogue == Epilogue::TmaStore, tma, "{n} {output}");
        assert_eq!(plan.c_tma.is_some(), tma);
        // tmap_a, tmap_b, tmap_c (unread by the direct epilogue), C.
        assert_eq!(plan.kernel().unwrap().params().len(), 4);
    }
}

/// Runs one plan on the GPU against the CPU (every row up to 1024 rows, else 256 spread rows)
/// and, when `vs_cublas`, against cuBLAS on every element.
fn gpu_case(test: &str, m: i64, n: i64, k: i64, input: Element, output: Element, vs_cublas: bool) {
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
    for input in INPUTS {
        for output in OUTPUTS {
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
    for input in INPUTS {
        for (m, n, k) in [(1000, 1000, 1000), (129, 257, 72), (1, 1, 8), (300, 700, 8)] {
            gpu_case("gpu_ragged_sizes", m, n, k, input, Element::F32, true);
        }
        gpu_case(
            "gpu_ragged_sizes",
            1000,
            1000,
            1000,
            input,
            Element::F16,
            true,
        );
        gpu_case("gpu_ragged_sizes", 129, 257, 72, input, Element::BF16, true);
        // TMA-store epilogue with C clipped inside a chunk: 328 = 256 + 72 columns (16-bit rows
        // of 656 bytes), 200 = 128 + 72 rows.
        gpu_case("gpu_ragged_sizes", 200, 328, 64, input, Element::F16, true);
        gpu_case("gpu_ragged_sizes", 200, 328, 136, input, Element::F32, true);
    }
}

#[test]
#[ignore = "needs an sm_90 GPU"]
fn gpu_ragged_small() {
    // Ragged shapes of every epilogue path, small enough for compute-sanitizer's racecheck:
    // partial tiles in M, N and K with the direct fallback (N = 257 fp32 columns are
    // 1028-byte rows), the fp32 TMA-store epilogue (lane-dependent pair order) and the
    // stmatrix one with C clipped inside a chunk (200 = 128 + 72 rows, 328 = 256 + 72
    // columns), and a single element.
    for (m, n, k, input, output) in [
        (129, 257, 72, Element::F16, Element::F32),
        (200, 328, 136, Element::BF16, Element::F32),
        (200, 328, 72, Element::F16, Element::BF16),
        (1, 1, 8, Element::BF16, Element::F16),
    ] {
        gpu_case("gpu_ragged_small", m, n, k, input, output, true);
    }
}

#[test]
#[ignore = "needs an sm_90 GPU"]
fn gpu_large_4096_cubed() {
    for input in INPUTS {
        gpu_case(
            "gpu_large_4096_cubed",
            4096,
            4096,
            4096,
            input,
            Element::F32,
            true,
        );
    }
    gpu_case(
        "gpu_large_4096_cubed",
        4096,
        4096,
        4096,
        Element::BF16,
        Element::BF16,
        true,
    );
    // More tiles than SMs in both directions, several passes of the persistent loop.
    gpu_case(
        "gpu_large_4096_cubed",
        4096,
        8192,
        512,
        Element::F16,
        Element::F16,
        true,
    );
}
