//! Host tests of the tensor-core swizzle problems (`tessel_kernels::mma`): the atoms' fragments
//! against the PTX ISA, the synthesized swizzles, the bank predictions against an independent
//! count, and each plan replayed on the CPU against its reference.

use half::f16;
use tessel_kernels::kernel::CType;
use tessel_kernels::layer::DeviceTensor;
use tessel_kernels::measure::compare::expect_close;
use tessel_kernels::mma::device::{BOperand, WarpProduct, accumulator_stores, offset, store_c};
use tessel_kernels::mma::host::{
    dot16, lane_a, lane_b, lane_c, power_reference, random_f16, round_to_f16,
};
use tessel_kernels::mma::modes::{self, ModesKind, ModesPlan};
use tessel_kernels::mma::pair::{self, PairPlan};
use tessel_kernels::mma::power::PowerPlan;
use tessel_kernels::mma::run::{MmaKernel, Problem};
use tessel_kernels::mma::{Fragments, LDSM_N, LDSM_T, MMA_ATOM, SmemAccess, flat_tv, per_warp};
use tessel_layout::atom::{copy_atom, mma_atom};
use tessel_layout::bank::OpKind;
use tessel_layout::synth::{Access, Options, synthesize};
use tessel_layout::{ComposedLayout, Layout};

fn all_kernels(problems: i64) -> Vec<MmaKernel> {
    let mut v = Vec::new();
    for p in Problem::ALL {
        for swizzled in [true, false] {
            v.push(MmaKernel::new(p, swizzled, problems).unwrap());
        }
    }
    v
}

fn accesses(k: &MmaKernel) -> Vec<SmemAccess> {
    match k {
        MmaKernel::Power(p) => p.accesses().unwrap(),
        MmaKernel::Pair(p) => p.accesses().unwrap(),
        MmaKernel::Modes(p) => p.accesses().unwrap(),
    }
}

fn smem_tensors(k: &MmaKernel) -> Vec<DeviceTensor> {
    match k {
        MmaKernel::Power(p) => p.smem_tensors().unwrap(),
        MmaKernel::Pair(p) => p.smem_tensors().unwrap(),
        MmaKernel::Modes(p) => p.smem_tensors().unwrap(),
    }
}

// PTX ISA, "Matrix fragments for mma.m16n8k16 with floating point type": the atom's layouts
// (CuTe's mma_traits_sm80.hpp) place every register half where the ISA says.
#[test]
fn the_mma_atom_places_every_fragment_register_where_the_ptx_isa_says() {
    let atom = mma_atom(MMA_ATOM).unwrap();
    for l in 0..32usize {
        for r in 0..4usize {
            for h in 0..2usize {
                let (m, k) = lane_a(l, r, h);
                let i = (l + 32 * (2 * r + h)) as i64;
                assert_eq!(
                    atom.a_layout().offset(i).unwrap(),
                    (m + 16 * k) as i64,
                    "A {l} {r} {h}"
                );
            }
        }
        for r in 0..2usize {
            for h in 0..2usize {
                let (k, n) = lane_b(l, r, h);
                let i = (l + 32 * (2 * r + h)) as i64;
                assert_eq!(
                    atom.b_layout().offset(i).unwrap(),
                    (n + 8 * k) as i64,
                    "B {l} {r} {h}"
                );
            }
        }
        for v in 0..4usize {
            let (m, n) = lane_c(l, v);
            let i = (l + 32 * v) as i64;
            assert_eq!(
                atom.c_layout().offset(i).unwrap(),
                (m + 16 * n) as i64,
                "C {l} {v}"
            );
        }
    }
}

// The ldmatrix copies made with make_tiled_copy_A/B deliver, register by register, the values the
// tiled MMA expects (so the kernels hand ldmatrix's registers to mma unchanged), and the B
// fragment of n block j is registers 2j, 2j+1 (halves 4j..4j+3 of the kernels' B fragment).
#[test]
fn ldmatrix_registers_are_the_mma_fragments_and_b_blocks_are_register_pairs() {
    let f = Fragments::new().unwrap();
    for b in [BOperand::KMajor, BOperand::NMajor] {
        let w = WarpProduct::new(&f, b).unwrap();
        for j in 0..2 {
            assert_eq!(offset(&w.frag_b, &[0, j, 0]).unwrap(), 4 * j as usize);
        }
    }
    let a = f.mma.layout_a_tv().unwrap();
    let b = f.mma.layout_b_tv().unwrap();
    assert_eq!(f.copy_a.layout_d_tv().unwrap().offsets(), a.offsets());
    assert_eq!(f.copy_b.layout_d_tv().unwrap().offsets(), b.offsets());
    assert_eq!(f.copy_bt.layout_d_tv().unwrap().offsets(), b.offsets());
    let atom = mma_atom(MMA_ATOM).unwrap();
    for t in 0..32i64 {
        for j in 0..2i64 {
            for v in 0..4i64 {
                let one = atom.b_layout().offset(t + 32 * v).unwrap(); // n + 8 k
                let (n, k) = (one % 8, one / 8);
                assert_eq!(b.offset(t + 32 * (4 * j + v)).unwrap(), n + 8 * j + 16 * k);
                let c_one = atom.c_layout().offset(t + 32 * v).unwrap(); // m + 16 n
                let (m, n) = (c_one % 16, c_one / 16);
                assert_eq!(
                    f.c_tv.offset(t + 32 * (4 * j + v)).unwrap(),
                    m + 16 * (n + 8 * j)
                );
            }
        }
    }
}

// The two ldsm.x4 access patterns of the 16x256 problem as the problem states them (and `tessel
// tour`'s conflicts chapter shows them) are exactly what the tiled copy derives for A.
#[test]
fn the_derived_access_patterns_are_the_two_modes_of_the_problem_statement() {
    let plan = ModesPlan::new(ModesKind::Shared, true, 1).unwrap();
    let blocks: Layout = "((8,2,2),8,16):((1,8,128),16,256)".parse().unwrap();
    let rows: Layout = "((8,2,2),8,16):((256,2048,128),16,1)".parse().unwrap();
    assert_eq!(flat_tv(&plan.mode1_a).unwrap().offsets(), blocks.offsets());
    assert_eq!(flat_tv(&plan.mode2_a).unwrap().offsets(), rows.offsets());
    // B's lanes visit the same four 8x8 matrices of every warp's block in another order.
    let mut b: Vec<i64> = flat_tv(&plan.mode1_b).unwrap().offsets();
    let mut a = blocks.offsets();
    b.sort();
    a.sort();
    assert_eq!(a, b);
}

#[test]
fn problem_3_synthesis_needs_two_layers_and_is_conflict_free_in_both_modes() {
    let plan = ModesPlan::new(ModesKind::Shared, true, 1).unwrap();
    assert_eq!(plan.smem1.swizzles().len(), 2, "{}", plan.smem1);
    assert_eq!(plan.smem1, plan.smem2);
    for a in plan.accesses().unwrap() {
        assert_eq!(a.report(2).unwrap().excess, 0, "{} on {}", a.what, a.smem);
    }
    // No single swizzle serves both modes.
    let both = [
        Access::new("ldsm.x4".parse().unwrap(), flat_tv(&plan.mode1_a).unwrap()),
        Access::new("ldsm.x4".parse().unwrap(), flat_tv(&plan.mode2_a).unwrap()),
    ];
    let one = synthesize(&plan.tile, 2, &both, Options { max_layers: 1 }).unwrap();
    assert!(one.total().excess > 0, "{one}");
    // The twin conflicts in both modes.
    let twin = ModesPlan::new(ModesKind::Shared, false, 1).unwrap();
    let reports: Vec<i64> = twin
        .accesses()
        .unwrap()
        .iter()
        .map(|a| a.report(2).unwrap().excess)
        .collect();
    assert!(reports[1] > 0 && reports[3] > 0, "{reports:?}");
}

#[test]
fn problem_4_uses_one_swizzle_per_mode_and_a_conflict_free_relayout() {
    let plan = ModesPlan::new(ModesKind::Relayout, true, 1).unwrap();
    assert_eq!(
        (plan.smem1.swizzles().len(), plan.smem2.swizzles().len()),
        (1, 1)
    );
    for a in plan.accesses().unwrap() {
        assert_eq!(a.report(2).unwrap().excess, 0, "{} on {}", a.what, a.smem);
    }
    // Each layout alone serves only its own mode: the re-layout is needed.
    let op = "ldsm.x4".parse().unwrap();
    let cross = |smem, part: &Layout| {
        tessel_layout::bank::analyze(smem, 2, op, &flat_tv(part).unwrap())
            .unwrap()
            .excess
    };
    assert!(cross(&plan.smem1, &plan.mode2_a) > 0);
    assert!(cross(&plan.smem2, &plan.mode1_a) > 0);
    // The second synthesis saw every access through the second layout: the re-layout stores,
    // mode 2's ldmatrix of A and B, C2's sts.32 fp16 pairs and C2's 128-bit read-out.
    let second = &plan.synthesis[1];
    assert_eq!(second.layout, plan.smem2);
    assert_eq!(second.reports.len(), 5);
    assert!(second.reports.iter().all(|r| r.excess == 0), "{second}");
    let through_smem2: Vec<String> = plan
        .accesses()
        .unwrap()
        .into_iter()
        .filter(|a| a.smem == plan.smem2)
        .map(|a| a.what)
        .collect();
    assert_eq!(
        through_smem2,
        [
            "re-layout stores (A and B)",
            "mode 2 ldmatrix A",
            "mode 2 ldmatrix B",
            "C2 write (fp16 pairs)",
            "C2 read-out"
        ]
    );
    // The C2 write needs the swizzle: 2-way unswizzled (rows of 32 bytes, 4 per bank line).
    let write = |smem| {
        tessel_layout::bank::analyze(
            smem,
            2,
            "sts.32".parse().unwrap(),
            &plan.c2_write().unwrap(),
        )
        .unwrap()
    };
    let plain = ModesPlan::new(ModesKind::Relayout, false, 1).unwrap();
    assert_eq!(
        write(&plain.smem2).wavefronts,
        2 * write(&plan.smem2).wavefronts
    );
    // Without the C2 accesses the synthesis of mode 2 finds the same swizzle: the C2 write was
    // conflict-free under it already.
    let without = [
        Access::new(
            "sts.128".parse().unwrap(),
            plan.accesses().unwrap()[0].tv.clone(),
        ),
        Access::new(op, flat_tv(&plan.mode2_a).unwrap()),
        Access::new(op, flat_tv(&plan.mode2_b).unwrap()),
    ];
    let s = synthesize(&plan.tile, 2, &without, Options::default()).unwrap();
    assert_eq!(s.layout, plan.smem2);
}

// Problem 4's C2 goes into shared memory through c2_s and out through the read-out's 16-byte
// chunks (tile_s2 -> tile_g): every accumulator lands exactly once, at C2_i[m][n] of the
// row-major 16x256 C2 tile (256 i + 16 m + n), (m, n) of accumulator value v the PTX ISA's
// lane_c, swizzled and plain.
#[test]
fn problem_4_c2_reaches_global_memory_through_the_second_layout() {
    for swizzled in [true, false] {
        let plan = ModesPlan::new(ModesKind::Relayout, swizzled, 1).unwrap();
        let d = plan.declarations().unwrap();
        let mut to_global = vec![-1i64; 4096];
        for i in 0..4096 {
            let s = d.tile_s2.layout().offset(i).unwrap() as usize;
            assert_eq!(to_global[s], -1, "chunk element {i} overlaps");
            to_global[s] = d.tile_g.layout().offset(i).unwrap();
        }
        // Accumulator register r of the fragment is value v of n block j.
        let mut value_of = [(0usize, 0i64); 8];
        for v in 0..4 {
            for j in 0..2 {
                value_of[offset(&d.warp.acc, &[v as i64, 0, j]).unwrap()] = (v, j);
            }
        }
        let tags: [[f32; 8]; 32] =
            std::array::from_fn(|l| std::array::from_fn(|r| (8 * l + r) as f32));
        let mut hit = vec![false; 4096];
        for w in 0..16 {
            for (s, tag) in accumulator_stores(&d.view_h, &d.c2_s, &[0, 0, w], &tags).unwrap() {
                assert!(!hit[s], "shared offset {s} written twice");
                hit[s] = true;
                let (lane, (v, j)) = (tag as usize / 8, value_of[tag as usize % 8]);
                let (m, n) = lane_c(lane, v);
                assert_eq!(to_global[s], 256 * w + 16 * m as i64 + n as i64 + 8 * j);
            }
        }
        assert!(hit.iter().all(|h| *h));
    }
}

/// Wavefronts of one warp instruction by the rule of docs/bank-model.md, counted directly from
/// byte addresses: `(address, bytes)` per lane (per row for ldmatrix).
fn count(op: OpKind, matrix: bool, lanes: &[(i64, i64)]) -> (i64, i64) {
    let words_per_bank = |group: &[(i64, i64)]| -> i64 {
        let mut words: Vec<i64> = group
            .iter()
            .flat_map(|&(a, n)| (a / 4)..((a + n + 3) / 4))
            .collect();
        words.sort();
        words.dedup();
        (0..32)
            .map(|bank| words.iter().filter(|w| *w % 32 == bank).count() as i64)
            .max()
            .unwrap()
    };
    let _ = op;
    if matrix {
        let w: i64 = lanes.chunks(8).map(words_per_bank).sum();
        (w, lanes.len() as i64 / 8)
    } else {
        let bytes: i64 = {
            let mut words: Vec<i64> = lanes
                .iter()
                .flat_map(|&(a, n)| (a / 4)..((a + n + 3) / 4))
                .collect();
            words.sort();
            words.dedup();
            4 * words.len() as i64
        };
        let ideal = (bytes + 127) / 128;
        (ideal.max(words_per_bank(lanes)), ideal)
    }
}

// The predictions count what the kernels execute: the bank model sees every shared-memory
// instruction through a layout and a TV layout, the kernel executes it through one of its shared
// tensors, and the two are the same function (every (lane, value, instruction) reaches the same
// element); and each prediction equals a direct count of the instructions' addresses.
#[test]
fn predictions_equal_a_direct_count_of_every_instruction() {
    for k in all_kernels(3) {
        let tensors = smem_tensors(&k);
        assert_eq!(tensors.len(), accesses(&k).len(), "{}", k.name());
        for (t, a) in tensors.iter().zip(&accesses(&k)) {
            // The block's threads as (lane, value, warp, ...), the bank model's order.
            let kernel = ComposedLayout::new(
                t.layout().swizzles().to_vec(),
                t.layout().base_offset(),
                per_warp(t.layout().layout()).unwrap(),
            );
            let model = a.smem.compose(&a.tv).unwrap();
            assert_eq!(
                kernel.offsets(),
                model.offsets(),
                "{}: {}",
                k.name(),
                a.what
            );
        }
        let mut total = (0i64, 0i64, 0i64, 0i64);
        for a in accesses(&k) {
            let tv = &a.tv;
            let (lanes, vals) = (tv.mode(0).unwrap().size(), tv.mode(1).unwrap().size());
            let instrs = tv.size() / (lanes * vals);
            let matrix = matches!(a.op.kind(), OpKind::Ldsm | OpKind::Stsm);
            let mut wf = (0, 0);
            for i in 0..instrs {
                if a.instruction.is_some_and(|only| only as i64 != i) {
                    continue;
                }
                let rows: Vec<(i64, i64)> = (0..lanes)
                    .map(|l| {
                        let first = a
                            .smem
                            .offset(tv.offset(l + lanes * vals * i).unwrap())
                            .unwrap();
                        (2 * first, 2 * vals)
                    })
                    .collect();
                let (w, ideal) = count(a.op.kind(), matrix, &rows);
                wf = (wf.0 + w, wf.1 + ideal);
            }
            // Every shared access of a swizzled kernel, counted directly, is ideal.
            if k.name().ends_with("swizzled") {
                assert_eq!(wf.0, wf.1, "{}: {}", k.name(), a.what);
            }
            if a.is_store() {
                total.2 += a.times * wf.0;
                total.3 += a.times * wf.1;
            } else {
                total.0 += a.times * wf.0;
                total.1 += a.times * wf.1;
            }
        }
        let t = k.traffic().unwrap();
        let want = (3 * total.0, 3 * total.1, 3 * total.2, 3 * total.3);
        assert_eq!(
            (
                t.loads.wavefronts,
                t.loads.ideal,
                t.stores.wavefronts,
                t.stores.ideal
            ),
            want,
            "{}",
            k.name()
        );
        let swizzled = k.name().ends_with("swizzled");
        assert_eq!(t.excess() == 0, swizzled, "{}: {t:?}", k.name());
    }
}

#[test]
fn every_plan_replays_to_its_reference() {
    for swizzled in [true, false] {
        let powers = [1, 2, 5].map(|n| PowerPlan::new(swizzled, 1, n).unwrap());
        let pair = PairPlan::new(swizzled, 1).unwrap();
        let modes = [ModesKind::Shared, ModesKind::Relayout]
            .map(|kind| ModesPlan::new(kind, swizzled, 1).unwrap());
        for seed in 1..4u64 {
            let a = random_f16(256, seed);
            for plan in &powers {
                let got = plan.replay(&a).unwrap();
                let (want, _) = power_reference(&a, plan.n).unwrap();
                assert!(
                    got.iter()
                        .zip(&want)
                        .all(|(g, w)| g.to_bits() == w.to_bits()),
                    "A^{}",
                    plan.n
                );
            }
            let m = random_f16(512, seed);
            let (want, bound) = pair::reference(&m);
            let got = pair.replay(&m).unwrap();
            expect_close("pair", &got, &want, &bound).unwrap();
            let (a, b) = (random_f16(4096, seed), random_f16(4096, seed + 10));
            for plan in &modes {
                let (w1, b1, w2, b2) = plan.kind.reference(&a, &b);
                let (c1, c2) = plan.replay(&a, &b).unwrap();
                expect_close("C1", &c1, &w1, &b1).unwrap();
                expect_close("C2", &c2, &w2, &b2).unwrap();
                if plan.kind == ModesKind::Relayout {
                    // The replay sums like the reference and rounds the same way: bit-exact.
                    assert!(c2.iter().zip(&w2).all(|(g, w)| g.to_bits() == w.to_bits()));
                }
            }
        }
    }
}

// The references against exact (f64) arithmetic: within the bounds, which are not vacuous.
#[test]
fn references_are_within_their_bounds_of_exact_arithmetic() {
    let a = random_f16(256, 11);
    let af: Vec<f64> = a.iter().map(|x| f64::from(x.to_f32())).collect();
    for n in [2u32, 4, 8] {
        let mut exact = af.clone();
        for _ in 1..n {
            let mut next = vec![0f64; 256];
            for m in 0..16 {
                for c in 0..16 {
                    next[16 * m + c] = (0..16).map(|k| af[16 * m + k] * exact[16 * k + c]).sum();
                }
            }
            exact = next;
        }
        let (p, bound) = power_reference(&a, n).unwrap();
        let mut rounded = 0;
        for i in 0..256 {
            let err = (f64::from(p[i].to_f32()) - exact[i]).abs();
            assert!(
                err <= f64::from(bound[i]),
                "A^{n}[{i}]: {err} > {}",
                bound[i]
            );
            rounded += usize::from(err > 0.0);
        }
        assert!(rounded > 0, "A^{n}: fp16 rounding never happened");
    }
    let m = random_f16(512, 12);
    let (c, bound) = pair::reference(&m);
    for i in 0..16 {
        for j in 0..16 {
            let exact: f64 = (0..16)
                .map(|k| f64::from(m[32 * i + k].to_f32()) * f64::from(m[32 * k + 16 + j].to_f32()))
                .sum();
            assert!((f64::from(c[16 * i + j]) - exact).abs() <= f64::from(bound[16 * i + j]));
        }
    }
    // Problem 4's C2, rounded to fp16: within its bound of exact arithmetic, rounded somewhere.
    let (a, b) = (random_f16(4096, 13), random_f16(4096, 14));
    let (_, _, c2, bound) = ModesKind::Relayout.reference(&a, &b);
    let mut rounded = 0;
    for i in 0..16 {
        for m in 0..16 {
            for n in 0..16 {
                let exact: f64 = (0..16)
                    .map(|k| {
                        f64::from(a[256 * i + 16 * m + k].to_f32())
                            * f64::from(b[256 * i + 16 * n + k].to_f32())
                    })
                    .sum();
                let o = 256 * i + 16 * m + n;
                let err = (f64::from(c2[o]) - exact).abs();
                assert!(err <= f64::from(bound[o]), "C2[{o}]: {err} > {}", bound[o]);
                rounded += usize::from(err > 0.0);
            }
        }
    }
    assert!(rounded > 0, "C2: fp16 rounding never happened");
}

// Problem 4's C2 bound covers both roundings: two fp32 results a hair apart on either side of an
// fp16 rounding boundary round one ulp apart, more than the fp32 bound plus half an ulp.
#[test]
fn the_fp16_bound_covers_results_straddling_a_rounding_boundary() {
    let below = 1.0f32 + 2f32.powi(-11) - 2f32.powi(-23); // rounds down to 1
    let above = 1.0f32 + 2f32.powi(-11) + 2f32.powi(-23); // rounds up to 1 + 2^-10
    let d = above - below;
    let (want, bound) = round_to_f16(&[below], &[d]);
    let got = f16::from_f32(above).to_f32();
    assert_eq!((want[0], got), (1.0, 1.0 + 2f32.powi(-10)));
    assert!((got - want[0]).abs() > d + 2f32.powi(-11) * below);
    assert!(expect_close("straddle", &[got], &want, &bound).is_ok());
}

#[test]
fn verification_rejects_a_result_outside_the_bound() {
    let m = random_f16(512, 3);
    let (want, bound) = pair::reference(&m);
    let mut got = PairPlan::new(true, 1).unwrap().replay(&m).unwrap();
    assert!(expect_close("ok", &got, &want, &bound).is_ok());
    got[37] += 3.0 * bound[37] + 1e-6;
    let err = expect_close("pair", &got, &want, &bound).unwrap_err();
    assert!(err.to_string().contains("1 of 256"), "{err}");
    let (c, b) = dot16(|_, _| 1.0, |_, _| 1.0);
    assert!(expect_close("nan", &[f32::NAN; 256], &c, &b).is_err());
}

// The kernels store accumulator pairs (v, v+1) as one float2 (global) or one 32-bit fp16 pair
// (shared): the layer refuses a destination where a pair is not two adjacent elements aligned to
// two, instead of splitting or misaligning the store.
#[test]
fn a_destination_that_splits_accumulator_pairs_is_refused() {
    let f = Fragments::new().unwrap();
    let fp32 = store_c(&f, "store_c", CType::F32).unwrap();
    let fp16 = store_c(&f, "store_h", CType::B16).unwrap();
    let row_major = DeviceTensor::global(CType::F32, "(16,16):(16,1)".parse().unwrap());
    assert_eq!(
        fp32.partition_d(&row_major).unwrap().extents(),
        [32, 2, 4, 1, 1]
    );
    let column_major = DeviceTensor::global(CType::F32, "(16,16):(1,16)".parse().unwrap());
    let err = fp32.partition_d(&column_major).unwrap_err().to_string();
    assert!(err.contains("not 2 consecutive elements"), "{err}");
    let odd_pitch = DeviceTensor::shared(CType::B16, "(16,16):(17,1)".parse().unwrap());
    let err = fp16.partition_d(&odd_pitch).unwrap_err().to_string();
    assert!(err.contains("aligned to 2"), "{err}");
    // A swizzle that moves single elements (its XOR reaches bit 0) splits the pairs too.
    let split = DeviceTensor::shared(CType::B16, "Sw<1,0,4> o (16,16):(16,1)".parse().unwrap());
    let err = fp16.partition_d(&split).unwrap_err().to_string();
    assert!(err.contains("not 2 consecutive elements"), "{err}");
}

// CUTLASS issue 3197 (https://github.com/NVIDIA/cutlass/issues/3197): a swizzled shared tile read
// with ldmatrix.x4 into mma.sync gave wrong results, silently. Here a declaration whose ldmatrix
// cannot deliver the MMA's fragments is an error on the host, before any source is compiled: a
// swizzle that moves elements inside a 16-byte ldmatrix row, the non-transposing ldmatrix for an
// N-contiguous B (or the transposing one for a K-contiguous B), and a copy that fills the other
// operand's registers.
#[test]
fn a_wrong_swizzle_or_ldmatrix_variant_is_refused_at_build_time() {
    let f = Fragments::new().unwrap();
    let (k_major, n_major) = (
        WarpProduct::new(&f, BOperand::KMajor).unwrap(),
        WarpProduct::new(&f, BOperand::NMajor).unwrap(),
    );
    let shared = |l: &str| DeviceTensor::shared(CType::B16, l.parse().unwrap());
    // Problem 1's swizzle keeps every 8-half row of A whole; Sw<1,2,3> (its XOR lands on bit 2)
    // swaps the two 4-half quarters of some rows.
    assert!(
        k_major
            .ldsm_a
            .partition_s(&shared("Sw<1,3,3> o (16,16):(16,1)"))
            .is_ok()
    );
    let err = k_major
        .ldsm_a
        .partition_s(&shared("Sw<1,2,3> o (16,16):(16,1)"))
        .unwrap_err()
        .to_string();
    assert!(err.contains("not 8 consecutive elements"), "{err}");
    // B(n, k) = P[k][n] (N-contiguous, problem 1) and B(n, k) = B[n][k] (K-contiguous, problem 3):
    // each takes its own ldmatrix variant.
    let (n_contiguous, k_contiguous) = (shared("(16,16):(1,16)"), shared("(16,16):(16,1)"));
    assert!(n_major.ldsm_b.partition_s(&n_contiguous).is_ok());
    assert!(k_major.ldsm_b.partition_s(&k_contiguous).is_ok());
    for err in [
        k_major.ldsm_b.partition_s(&n_contiguous).unwrap_err(),
        n_major.ldsm_b.partition_s(&k_contiguous).unwrap_err(),
    ] {
        assert!(
            err.to_string().contains("not 8 consecutive elements"),
            "{err}"
        );
    }
    // The other operand's ldmatrix copy: B's copy writing A's registers puts values where the
    // MMA reads others; A's copy does not even fit B's registers.
    let view = k_major.ldsm_b.retile_d(&k_major.frag_a).unwrap();
    let err = k_major
        .mma
        .check_fed_by('A', &k_major.ldsm_b, &[16, 16], &view, &k_major.frag_a)
        .unwrap_err()
        .to_string();
    assert!(err.contains("where operand A of the MMA holds"), "{err}");
    let err = k_major
        .ldsm_a
        .retile_d(&k_major.frag_b)
        .unwrap_err()
        .to_string();
    assert!(err.contains("beyond the fragment"), "{err}");
}

#[test]
fn every_kernel_builds_and_refuses_an_empty_grid() {
    // The instructions come from the atom catalogue: each kernel's source holds the ldmatrix and
    // mma opcodes of its atoms, bound to the atoms' operand counts (ldmatrix 4 + 1, mma 4 + 4 +
    // 2 + 4).
    for k in all_kernels(7) {
        let kernel = k.kernel().unwrap();
        assert_eq!(kernel.launch().grid.0, 7, "{}", k.name());
        let src = kernel.source();
        let mut atoms = vec![
            (
                copy_atom(LDSM_N).unwrap().opcode().unwrap().to_string(),
                "%4]",
            ),
            (mma_atom(MMA_ATOM).unwrap().opcode().to_string(), "%13}"),
        ];
        if matches!(k, MmaKernel::Power(_) | MmaKernel::Pair(_)) {
            atoms.push((
                copy_atom(LDSM_T).unwrap().opcode().unwrap().to_string(),
                "%4]",
            ));
        }
        for (opcode, last) in atoms {
            let at = src
                .find(&opcode)
                .unwrap_or_else(|| panic!("{}: {opcode} missing", k.name()));
            let line = &src[at..at + src[at..].find(';').unwrap()];
            assert!(line.contains(last), "{line}");
        }
    }
    // The bodies are written with the tensor layer: no index math through layout functions, no
    // instruction outside the atoms (asm, dev:: wrappers), no preprocessor switches.
    for body in [
        tessel_kernels::mma::power::BODY,
        tessel_kernels::mma::pair::BODY,
        modes::BODY_SHARED,
        modes::BODY_RELAYOUT,
    ] {
        assert!(body.contains("tessel::gemm(mma::mma{}"));
        for banned in [
            "layout::",
            "dev::",
            "asm",
            "#define",
            "#if",
            "tessel_load",
            "tessel_store",
        ] {
            assert!(!body.contains(banned), "a body uses {banned}");
        }
    }
    for p in Problem::ALL {
        let err = MmaKernel::new(p, true, 0).unwrap_err();
        assert!(err.to_string().contains("number of problems 0"), "{err}");
    }
    assert!(PowerPlan::new(true, 1, 0).is_err());
    let _ = f16::ONE;
}
