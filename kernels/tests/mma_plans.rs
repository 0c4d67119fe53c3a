//! Host tests of the tensor-core swizzle problems (`tessel_kernels::mma`): the atoms' fragments
//! against the PTX ISA, the synthesized swizzles, the bank predictions against an independent
//! count, and each plan replayed on the CPU against its reference.

use half::f16;
use tessel_kernels::mma::host::{
    dot16, expect_close, lane_a, lane_b, lane_c, power_reference, random_f16, round_to_f16,
};
use tessel_kernels::mma::modes::{self, ModesKind, ModesPlan};
use tessel_kernels::mma::pair::{self, PairPlan};
use tessel_kernels::mma::power::PowerPlan;
use tessel_kernels::mma::run::{MmaKernel, Problem};
use tessel_kernels::mma::{Fragments, LDSM_N, LDSM_T, MMA_ATOM, SmemAccess, flat_tv, ptx};
use tessel_layout::Layout;
use tessel_layout::atom::{copy_atom, mma_atom};
use tessel_layout::bank::OpKind;
use tessel_layout::synth::{Access, Options, synthesize};

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
// fragment of n block j is registers 2j, 2j+1 (the bodies' k::B_REGS * j).
#[test]
fn ldmatrix_registers_are_the_mma_fragments_and_b_blocks_are_register_pairs() {
    let f = Fragments::new().unwrap();
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

// The two ldsm.x4 access patterns of the 16x256 problem as the issue states them (and `tessel
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

// Problem 4's C2 goes into shared memory through c2_smem and out through the read-out's 16-byte
// chunks (fill_s2 -> fill_g): every accumulator lands exactly once, where c_out (the row-major
// 16x256 C2 tile, C2_i[m][n] at 256 i + 16 m + n) says, swizzled and plain.
#[test]
fn problem_4_c2_reaches_global_memory_through_the_second_layout() {
    for swizzled in [true, false] {
        let plan = ModesPlan::new(ModesKind::Relayout, swizzled, 1).unwrap();
        let (fill_g, fill_s2) = (plan.fill_g().unwrap(), plan.fill_s(&plan.smem2).unwrap());
        let mut to_global = vec![-1i64; 4096];
        for t in 0..512 {
            let (g, s) = (fill_g.offset(t).unwrap(), fill_s2.offset(t).unwrap());
            for e in 0..8 {
                assert_eq!(to_global[(s + e) as usize], -1, "chunk {t} overlaps");
                to_global[(s + e) as usize] = g + e;
            }
        }
        let (c2, c_out) = (plan.c2_smem().unwrap(), plan.c_out().unwrap());
        let mut hit = vec![false; 4096];
        for i in 0..4096 {
            let s = c2.offset(i).unwrap() as usize;
            assert!(!hit[s], "shared offset {s} written twice");
            hit[s] = true;
            assert_eq!(to_global[s], c_out.offset(i).unwrap(), "accumulator {i}");
            // and c_out is the problem statement's C2_i[m][n] (lane_c of the PTX ISA).
            let (lane, v, w) = (i % 32, (i / 32) % 8, i / 256);
            let (m, n) = lane_c(lane as usize, (v % 4) as usize);
            assert_eq!(
                c_out.offset(i).unwrap(),
                256 * w + 16 * m as i64 + n as i64 + 8 * (v / 4)
            );
        }
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

#[test]
fn predictions_equal_a_direct_count_of_every_instruction() {
    for k in all_kernels(3) {
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
    for seed in 1..4u64 {
        for swizzled in [true, false] {
            let a = random_f16(256, seed);
            for n in [1, 2, 5] {
                let got = PowerPlan::new(swizzled, 1, n).unwrap().replay(&a).unwrap();
                let (want, _) = power_reference(&a, n).unwrap();
                assert!(
                    got.iter()
                        .zip(&want)
                        .all(|(g, w)| g.to_bits() == w.to_bits()),
                    "A^{n}"
                );
            }
            let m = random_f16(512, seed);
            let (want, bound) = pair::reference(&m);
            let got = PairPlan::new(swizzled, 1).unwrap().replay(&m).unwrap();
            expect_close("pair", &got, &want, &bound).unwrap();
            let (a, b) = (random_f16(4096, seed), random_f16(4096, seed + 10));
            for kind in [ModesKind::Shared, ModesKind::Relayout] {
                let (w1, b1, w2, b2) = kind.reference(&a, &b);
                let (c1, c2) = ModesPlan::new(kind, swizzled, 1)
                    .unwrap()
                    .replay(&a, &b)
                    .unwrap();
                expect_close("C1", &c1, &w1, &b1).unwrap();
                expect_close("C2", &c2, &w2, &b2).unwrap();
                if kind == ModesKind::Relayout {
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

// The kernels store accumulator pairs (v, v+1), v even, as one float2 (global) or one 32-bit
// fp16 pair (shared): the pairs must be adjacent and aligned.
#[test]
fn accumulator_pairs_are_adjacent_and_aligned() {
    let modes = ModesPlan::new(ModesKind::Shared, true, 1)
        .unwrap()
        .c_out()
        .unwrap();
    let c2 = [true, false].map(|swizzled| {
        ModesPlan::new(ModesKind::Relayout, swizzled, 1)
            .unwrap()
            .c2_smem()
            .unwrap()
    });
    let pair = PairPlan::new(true, 1).unwrap().c_out().unwrap();
    let power = PowerPlan::new(true, 1, 2).unwrap().c_smem().unwrap();
    for t in 0..32i64 {
        for v in (0..8i64).step_by(2) {
            for w in [0i64, 15] {
                let i = t + 32 * (v + 8 * w);
                let o = modes.offset(i).unwrap();
                assert_eq!((modes.offset(i + 32).unwrap(), o % 2), (o + 1, 0));
                for c in &c2 {
                    let o = c.offset(i).unwrap();
                    assert_eq!((c.offset(i + 32).unwrap(), o % 2), (o + 1, 0));
                }
            }
            let i = t + 32 * v;
            let o = pair.offset(i).unwrap();
            assert_eq!((pair.offset(i + 32).unwrap(), o % 2), (o + 1, 0));
            let o = power.offset(i).unwrap();
            assert_eq!((power.offset(i + 32).unwrap(), o % 2), (o + 1, 0));
        }
    }
}

#[test]
fn instruction_pieces_are_generated_from_the_atoms() {
    use ptx::Instruction::{Ldsm, LdsmT, Mma, PackHalf2};
    use tessel_kernels::kernel::KernelBuilder;
    let body = "b32 r[4]; dev::ldsm(r, 0u); dev::ldsm_t(r, 0u); float d[4] = {}; \
                dev::mma(d, r, r, d); r[0] = dev::pack_half2(d[0], d[1]);";
    let k = ptx::with(
        KernelBuilder::new("k", body),
        &[Ldsm, LdsmT, Mma, PackHalf2],
    )
    .unwrap()
    .threads(32)
    .build()
    .unwrap();
    let src = k.source();
    // Each instruction's opcode is the atom's, bound to the atom's operand count
    // (ldmatrix 4 + 1, mma 4 + 4 + 2 + 4).
    for (opcode, last) in [
        (
            copy_atom(LDSM_N).unwrap().opcode().unwrap().to_string(),
            "%4]",
        ),
        (
            copy_atom(LDSM_T).unwrap().opcode().unwrap().to_string(),
            "%4]",
        ),
        (mma_atom(MMA_ATOM).unwrap().opcode().to_string(), "%13}"),
    ] {
        let at = src
            .find(&opcode)
            .unwrap_or_else(|| panic!("{opcode} missing"));
        let line = &src[at..at + src[at..].find(';').unwrap()];
        assert!(line.contains(last), "{line}");
    }
    assert!(src.contains("void ldsm(b32* dst, b32 smem)"));
    assert!(src.contains("void mma(float* d, const b32* a, const b32* b, const float* c)"));
}

#[test]
fn every_kernel_builds_and_refuses_an_empty_grid() {
    for k in all_kernels(7) {
        let kernel = k.kernel().unwrap();
        assert_eq!(kernel.launch().grid.0, 7, "{}", k.name());
        assert!(kernel.source().contains("dev::mma("), "{}", k.name());
    }
    // The bodies call the instruction wrappers as dev:: pieces only, never tessel.cuh's asm.
    for body in [
        tessel_kernels::mma::power::BODY,
        tessel_kernels::mma::pair::BODY,
        modes::BODY_SHARED,
        modes::BODY_RELAYOUT,
    ] {
        for asm in [
            "tessel_ldsm_x4",
            "tessel_mma16816",
            "tessel_cp_async16",
            "asm",
        ] {
            assert!(!body.contains(asm), "a body calls {asm}");
        }
    }
    for p in Problem::ALL {
        let err = MmaKernel::new(p, true, 0).unwrap_err();
        assert!(err.to_string().contains("number of problems 0"), "{err}");
    }
    assert!(PowerPlan::new(true, 1, 0).is_err());
    let _ = f16::ONE;
}
