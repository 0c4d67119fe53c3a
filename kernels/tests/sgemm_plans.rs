//! Host checks of the SGEMM ladder's plans (no GPU): a CPU replay of each rung through the very
//! tensors its kernel is declared with matches the f64 reference, the tiled FMA's partitions are
//! the algebra's, and the bank model's predictions agree with an independent count from byte
//! addresses and with the figures measured by Nsight Compute.
//!
//! The default run replays every rung in all four operand orders at a ragged size, and the tuned
//! rung at whole tiles; `TESSEL_LONG_TESTS=1` adds more shapes and the sweep's warp tilings.

use std::collections::{BTreeMap, BTreeSet};

use tessel_kernels::kernel::CType;
use tessel_kernels::layer::{Bound, DeviceCopy, DeviceTensor};
use tessel_kernels::sgemm::bank::{Tile, accesses, per_launch, per_tile, reports};
use tessel_kernels::sgemm::decl::{Declaration, Mainloop, Staged};
use tessel_kernels::sgemm::host::{check, random, reference};
use tessel_kernels::sgemm::{Major, Rung, SgemmPlan, WarpTiling};
use tessel_layout::atom::copy_atom;
use tessel_layout::bank::analyze_indices;
use tessel_layout::tiled::make_tiled_copy;
use tessel_layout::{Layout, SliceCoord, Tiler, local_partition, local_tile, zipped_divide};

const MAJORS: [(Major, Major); 4] = [
    (Major::Row, Major::Row),
    (Major::Col, Major::Row),
    (Major::Row, Major::Col),
    (Major::Col, Major::Col),
];

fn long_tests() -> bool {
    std::env::var("TESSEL_LONG_TESTS").as_deref() == Ok("1")
}

/// Every offset of a tensor, by domain index (thread fastest).
fn offsets(t: &DeviceTensor) -> Vec<i64> {
    t.layout().offsets()
}

/// Whether `elem_less(p, bound)` holds at domain index `i` of the coordinate tensor `p` (the
/// kernel reads it at an atom call's first value; the host checked that the call's other values
/// agree): its coordinate `offs[i]` is below `bound`, or the host proved every one below it.
fn holds(p: &DeviceTensor, bound: i64, offs: &[i64], i: usize) -> bool {
    match p.bound() {
        Bound::None => offs[i] < bound,
        Bound::Always => true,
    }
}

/// One staged operand's tables: every offset of its tensors, computed once.
struct StagedTables<'a> {
    s: &'a Staged,
    global: Vec<i64>,
    pred: [Vec<i64>; 2],
    /// The bounds of `pred`: M or N, and K.
    bounds: [i64; 2],
    regs: Vec<i64>,
    regs_store: Vec<i64>,
    smem_store: Vec<i64>,
    smem_frag: Vec<i64>,
    frag_regs: Vec<i64>,
    frag_view: Vec<i64>,
    /// Sizes read once: values per thread of a tile load and of a fragment, the load's values
    /// per atom call, the k-slices of a stage, the register files of a load and a fragment.
    per: usize,
    per_frag: usize,
    values: usize,
    slices: usize,
    regs_len: usize,
    frag_len: usize,
}

impl<'a> StagedTables<'a> {
    fn new(s: &'a Staged, bounds: [i64; 2]) -> StagedTables<'a> {
        StagedTables {
            s,
            global: offsets(&s.global),
            pred: [offsets(&s.pred[0]), offsets(&s.pred[1])],
            bounds,
            regs: offsets(&s.regs),
            regs_store: offsets(&s.regs_store),
            smem_store: offsets(&s.smem_store),
            smem_frag: offsets(&s.smem_frag),
            frag_regs: offsets(&s.frag_regs),
            frag_view: offsets(&s.frag_view),
            per: s.regs.size() as usize,
            per_frag: s.frag_view.size() as usize,
            values: s.global.extents()[1] as usize,
            slices: s.smem.extents()[1] as usize,
            regs_len: s.regs.cosize().unwrap() as usize,
            frag_len: s.frag_regs.cosize().unwrap() as usize,
        }
    }

    /// Thread `t`'s loads of tile `(tile, k)` into its registers, then its stores into shared
    /// stage `s` (each shared slot written once per step, checked through `written`).
    #[allow(clippy::too_many_arguments)]
    fn stage(
        &self,
        src: &[f32],
        (t, threads): (usize, usize),
        (tile, k, tiles): (usize, usize, usize),
        s: usize,
        smem: &mut [f32],
        written: &mut [u8],
    ) {
        let (per, values) = (self.per, self.values);
        let mut regs = vec![f32::NAN; self.regs_len];
        for i in 0..per {
            let index = t + threads * (i + per * (tile + tiles * k));
            let first = t + threads * (i / values * values + per * (tile + tiles * k));
            let inside = holds(&self.s.pred[0], self.bounds[0], &self.pred[0], first)
                && holds(&self.s.pred[1], self.bounds[1], &self.pred[1], first);
            regs[self.regs[i] as usize] = if inside {
                src[self.global[index] as usize]
            } else {
                0.0
            };
        }
        for i in 0..per {
            let o = self.smem_store[t + threads * (i + per * s)] as usize;
            written[o] += 1;
            smem[o] = regs[self.regs_store[i] as usize];
        }
    }

    /// Thread `t`'s fragment of k-slice `kk` of stage `s`, by the tiled FMA's value index.
    fn fragment(
        &self,
        smem: &[f32],
        (t, threads): (usize, usize),
        kk: usize,
        s: usize,
    ) -> Vec<f32> {
        let per = self.per_frag;
        let kk = kk + self.slices * s;
        let mut regs = vec![f32::NAN; self.frag_len];
        for i in 0..per {
            regs[self.frag_view[i] as usize] =
                smem[self.smem_frag[t + threads * (i + per * kk)] as usize];
        }
        self.frag_regs.iter().map(|&r| regs[r as usize]).collect()
    }
}

/// Replays a plan on the CPU through its declaration: for every block and k-tile, each thread's
/// predicated loads, its register staging into shared memory (every slot of a stage written
/// exactly once), its fragment reads and the tiled FMA's products; then the predicated epilogue
/// (every element of C written exactly once).
fn replay(plan: &SgemmPlan, d: &Declaration, a: &[f32], b: &[f32]) -> Vec<f32> {
    let (m, n) = (plan.m as usize, plan.n as usize);
    let t = &plan.tiling;
    let threads = t.threads as usize;
    let (tiles_m, tiles_n) = plan.tiles();
    let (tiles_m, tiles_n) = (tiles_m as usize, tiles_n as usize);
    let (tm, tn) = (t.tm() as usize, t.tn() as usize);
    let acc_regs = offsets(&d.acc);
    let mut c = vec![f32::NAN; m * n];
    let mut written_c = vec![0u8; m * n];
    let (gc, pc) = (
        offsets(&d.global_c),
        [offsets(&d.pred_c[0]), offsets(&d.pred_c[1])],
    );
    let acc_store = offsets(&d.acc_store);
    let per_c = d.acc_store.size() as usize;
    let values_c = d.global_c.extents()[1] as usize;
    let k_tiles = ((plan.k + t.bk - 1) / t.bk) as usize;
    let tables = match &d.mainloop {
        Mainloop::Staged { a, b } => Some((
            StagedTables::new(a, [plan.m, plan.k]),
            StagedTables::new(b, [plan.n, plan.k]),
        )),
        Mainloop::Direct { .. } => None,
    };
    let direct = match &d.mainloop {
        Mainloop::Direct { a, b } => Some((offsets(a), offsets(b))),
        Mainloop::Staged { .. } => None,
    };
    for blk in 0..tiles_m * tiles_n {
        let (bm, bn) = (blk % tiles_m, blk / tiles_m);
        let mut acc = vec![vec![0.0f32; d.acc.cosize().unwrap() as usize]; threads];
        if let Some((ta, tb)) = &tables {
            let sa_len = ta.s.smem.cosize().unwrap() as usize;
            let sb_len = tb.s.smem.cosize().unwrap() as usize;
            for k in 0..k_tiles {
                // The kernels' stages in turn (the double buffer's k-tile k is in stage k % 2).
                let s = k % t.stages as usize;
                let (mut sa, mut sb) = (vec![f32::NAN; sa_len], vec![f32::NAN; sb_len]);
                let (mut wa, mut wb) = (vec![0u8; sa_len], vec![0u8; sb_len]);
                for th in 0..threads {
                    ta.stage(a, (th, threads), (bm, k, tiles_m), s, &mut sa, &mut wa);
                    tb.stage(b, (th, threads), (bn, k, tiles_n), s, &mut sb, &mut wb);
                }
                // One stage: BM x BK and BN x BK slots, each written once.
                let once = |w: &[u8], want: i64| {
                    w.iter().filter(|&&x| x == 1).count() as i64 == want
                        && w.iter().all(|&x| x <= 1)
                };
                assert!(once(&wa, t.bm * t.bk), "{}: A stage", plan.rung);
                assert!(once(&wb, t.bn * t.bk), "{}: B stage", plan.rung);
                for (th, acc) in acc.iter_mut().enumerate() {
                    for kk in 0..t.bk as usize {
                        let fa = ta.fragment(&sa, (th, threads), kk, s);
                        let fb = tb.fragment(&sb, (th, threads), kk, s);
                        for j in 0..tn {
                            for i in 0..tm {
                                acc[acc_regs[i + tm * j] as usize] += fa[i] * fb[j];
                            }
                        }
                    }
                }
            }
        } else if let Some((ga, gb)) = &direct {
            for (th, acc) in acc.iter_mut().enumerate() {
                let first = th + threads * (bm + tiles_m * bn) * per_c;
                if !(holds(&d.pred_c[0], plan.m, &pc[0], first)
                    && holds(&d.pred_c[1], plan.n, &pc[1], first))
                {
                    continue;
                }
                for k in 0..plan.k as usize {
                    let x = a[ga[th + threads * (bm + tiles_m * k)] as usize];
                    let y = b[gb[th + threads * (bn + tiles_n * k)] as usize];
                    acc[acc_regs[0] as usize] += x * y;
                }
            }
        }
        for (th, acc) in acc.iter().enumerate() {
            for i in 0..per_c {
                let index = th + threads * (i + per_c * (bm + tiles_m * bn));
                let first = th + threads * (i / values_c * values_c + per_c * (bm + tiles_m * bn));
                if holds(&d.pred_c[0], plan.m, &pc[0], first)
                    && holds(&d.pred_c[1], plan.n, &pc[1], first)
                {
                    let o = gc[index] as usize;
                    written_c[o] += 1;
                    c[o] = acc[acc_store[i] as usize];
                }
            }
        }
    }
    assert!(
        written_c.iter().all(|&w| w == 1),
        "{}: C not written exactly once",
        plan.rung
    );
    c
}

fn replay_checks(plan: &SgemmPlan) {
    let (m, n, k) = (plan.m, plan.n, plan.k);
    let what = format!(
        "{} {:?}/{:?} {m}x{n}x{k}",
        plan.rung, plan.a_major, plan.b_major
    );
    let d = plan.declare().unwrap_or_else(|e| panic!("{what}: {e}"));
    let a = random((m * k) as usize, 1);
    let b = random((k * n) as usize, 2);
    let got = replay(plan, &d, &a, &b);
    let dims = (m as usize, n as usize, k as usize);
    let r = check(&got, &a, plan.a_major, &b, plan.b_major, dims, None)
        .unwrap_or_else(|e| panic!("{what}: {e}"));
    assert_eq!(r.checked, (m * n) as usize);
}

#[test]
fn every_rung_replayed_through_its_declaration_matches_the_reference() {
    // A ragged size per rung (partial tiles in M, N and K, unaligned leading dimensions: the
    // predicates and the scalar fallbacks; two k-tiles, both stages of the double buffer),
    // then whole tiles with aligned vectors (the tuned rung's predicates proven true, the
    // double buffer's stages reused).
    for rung in Rung::ALL {
        let t = rung.tiling();
        for (am, bm) in MAJORS {
            let plan = SgemmPlan::new(rung, t.bm + 3, t.bn + 5, t.bk + 3, am, bm).unwrap();
            replay_checks(&plan);
        }
        let even = SgemmPlan::new(rung, 2 * t.bm, t.bn, 4 * t.bk, Major::Row, Major::Col).unwrap();
        replay_checks(&even);
    }
    let tuned = SgemmPlan::new(Rung::Tuned, 256, 128, 64, Major::Row, Major::Row).unwrap();
    let d = tuned.declare().unwrap();
    assert!(d.pred_c.iter().all(|p| p.bound() == Bound::Always));
    if long_tests() {
        for rung in Rung::ALL {
            for (am, bm) in MAJORS {
                for (m, n, k) in [(67, 45, 23), (130, 33, 16), (132, 260, 36)] {
                    replay_checks(&SgemmPlan::new(rung, m, n, k, am, bm).unwrap());
                }
            }
        }
    }
}

#[test]
fn the_tolerance_rejects_a_wrong_product() {
    // Swapping the operands' orders computes a different product: the check must fail.
    let (m, n, k) = (8, 8, 8);
    let (a, b) = (random(64, 3), random(64, 4));
    let wrong = reference(&a, Major::Col, &b, Major::Row, m, n, k);
    assert!(check(&wrong, &a, Major::Row, &b, Major::Row, (m, n, k), None).is_err());
    let right = reference(&a, Major::Row, &b, Major::Row, m, n, k);
    assert!(check(&right, &a, Major::Row, &b, Major::Row, (m, n, k), None).is_ok());
}

#[test]
fn a_mismatched_declaration_is_refused_on_the_host() {
    // A rung whose permutation gives a row to two threads: the tiled FMA check refuses it.
    let mut t = Rung::Reg2d.tiling();
    t.perm_m = "(16,8):(1,16)".parse().unwrap(); // strided: fine, still a bijection
    assert!(
        SgemmPlan::with_tiling(Rung::Reg2d, t.clone(), 256, 256, 64, Major::Row, Major::Row)
            .unwrap()
            .declare()
            .is_ok()
    );
    t.perm_m = "(16,8):(8,0)".parse().unwrap(); // every value of a thread on one row
    let err = SgemmPlan::with_tiling(Rung::Reg2d, t, 256, 256, 64, Major::Row, Major::Row)
        .unwrap()
        .declare()
        .unwrap_err();
    // make_tiled_mma refuses the permutation itself (it is no bijection of the 128 rows).
    assert!(err.to_string().contains("is not a bijection"), "{err}");
    // 128-bit fragment reads of the [m][k] (k-major) A tile: a thread's 4 rows are not 4
    // consecutive elements there. The layer refuses the copy instead of reading garbage.
    let w = Rung::WarpTiled.tiling();
    let bad = tessel_kernels::sgemm::Tiling {
        a_transposed: false,
        ..w
    };
    let err = SgemmPlan::with_tiling(Rung::WarpTiled, bad, 256, 256, 64, Major::Row, Major::Row)
        .unwrap()
        .declare()
        .unwrap_err();
    assert!(
        err.to_string().contains("not 4 consecutive elements"),
        "{err}"
    );
}

/// Wavefronts of one warp-wide lds/sts from its lanes' byte addresses (`bytes`: every byte each
/// lane moves, lane by lane), by the rule measured with Nsight Compute (docs/bank-model.md):
/// requests of two 128-byte phases (a half-warp of two quarter-warps for 128-bit vectors, the
/// warp of two half-warps for 64-bit, the warp as one phase for 32-bit); a request whose 4-lane
/// groups' distinct vectors fit in 128 bytes, one distinct word a bank, is one wavefront;
/// otherwise each phase takes its busiest bank's distinct 32-bit words, at least 1.
fn wavefronts_from_bytes(bytes: &[i64], vector_bytes: i64) -> i64 {
    let busiest = |lanes: &[&[i64]]| {
        let mut banks: BTreeMap<i64, BTreeSet<i64>> = BTreeMap::new();
        for &byte in lanes.iter().flat_map(|l| l.iter()) {
            let word = byte / 4;
            banks.entry(word % 32).or_default().insert(word);
        }
        banks
            .values()
            .map(|w| w.len() as i64)
            .max()
            .unwrap_or(0)
            .max(1)
    };
    let lanes: Vec<&[i64]> = bytes.chunks(vector_bytes as usize).collect();
    assert_eq!(lanes.len(), 32);
    let phase = (128 / vector_bytes).min(32) as usize;
    let request = (2 * phase).min(32);
    let mut wavefronts = 0;
    for req in lanes.chunks(request) {
        let packed: i64 = req
            .chunks(4)
            .map(|group| group.iter().map(|l| l[0]).collect::<BTreeSet<_>>().len() as i64)
            .sum::<i64>()
            * vector_bytes;
        if packed <= 128 && busiest(req) == 1 {
            wavefronts += 1;
        } else {
            wavefronts += req.chunks(phase).map(busiest).sum::<i64>();
        }
    }
    wavefronts
}

#[test]
fn predictions_match_an_independent_word_count() {
    let majors: &[(Major, Major)] = if long_tests() { &MAJORS } else { &MAJORS[..2] };
    for rung in Rung::ALL {
        for &(am, bm) in majors {
            let plan = SgemmPlan::new(rung, 512, 512, 512, am, bm).unwrap();
            for access in accesses(&plan).unwrap() {
                let per_instr = (32 * access.vector) as usize;
                let predicted = reports(&plan, &access).unwrap();
                assert_eq!(predicted.len(), access.indices.len() / per_instr);
                for (instr, report) in access.indices.chunks(per_instr).zip(&predicted) {
                    let bytes: Vec<i64> = instr
                        .iter()
                        .flat_map(|&o| [4 * o, 4 * o + 1, 4 * o + 2, 4 * o + 3])
                        .collect();
                    let want = wavefronts_from_bytes(&bytes, 4 * access.vector);
                    assert_eq!(
                        report.wavefronts, want,
                        "{rung} {am:?}/{bm:?} {}",
                        access.op
                    );
                }
            }
        }
    }
}

#[test]
fn vectorized_and_warp_tiled_shared_layouts_are_conflict_free() {
    // The warp-tiled fragment reads, per warp and k: A's 2 lds.128 read 8 distinct vectors,
    // the same in every quarter-warp (4 wavefronts each), B's 2 read one vector per quarter-warp
    // (2 each): measured on an H100 (docs/bank-model.md, conflict_p128_a_warptiled and
    // conflict_p128_b_warptiled; the warp-tiled rungs' 786432 load wavefronts at 512^3).
    for rung in [Rung::WarpTiled, Rung::DoubleBuffered] {
        for (am, bm) in MAJORS {
            for (m, n, k) in [(4096, 4096, 4096), (257, 129, 67)] {
                let plan = SgemmPlan::new(rung, m, n, k, am, bm).unwrap();
                let t = per_tile(&plan).unwrap();
                assert_eq!(
                    t.excess(),
                    0,
                    "{rung} {am:?}/{bm:?}: {} / {}",
                    t.loads,
                    t.stores
                );
                // 8 warps x BK k x (2 A reads of 4 + 2 B reads of 2 wavefronts).
                let bk = plan.tiling.bk;
                assert_eq!(t.loads.wavefronts, 8 * bk * (2 * 4 + 2 * 2));
            }
        }
    }
}

#[test]
fn the_vectorized_b_fragment_reads_conflict_within_quarter_warps() {
    // Vectorized: lane l is thread (l / 16, l % 16) of the 16 x 16 grid. An A read takes one
    // vector per half-warp (1 wavefront each, 2 in all); a B read takes vectors 32 bytes apart,
    // lane l % 16, the same in both half-warps, so each quarter-warp puts 2 vectors in every
    // other group of 4 banks: 2 wavefronts per quarter-warp, 8 against an ideal of 4. Measured
    // on an H100 (docs/bank-model.md, conflict_p128_a_vectorized 2, conflict_p128_b_vectorized
    // 8; 262144 more load wavefronts than the whole-warp rule at 512^3).
    let plan = SgemmPlan::new(Rung::Vectorized, 512, 512, 512, Major::Row, Major::Row).unwrap();
    let t = per_tile(&plan).unwrap();
    // Per K step: 8 warps x 8 k x 2 reads x (A 2 + B 8); ideal (A 2 + B 4).
    assert_eq!(
        (t.loads.wavefronts, t.loads.ideal),
        (8 * 8 * 2 * (2 + 8), 8 * 8 * 2 * (2 + 4)),
        "{}",
        t.loads
    );
}

#[test]
fn the_lower_rungs_have_the_textbook_conflicts() {
    // Reg2d: lane l of a warp is thread (row l / 16, column l % 16) of the 16 x 16 grid, 8
    // elements apart. A scalar B fragment read touches 16 words 8 apart: banks 0, 8, 16, 24 with
    // 4 words each, 4 wavefronts. A scalar A read of the [m][k] tile (8 words per row) touches 2
    // words 64 apart, one bank: 2 wavefronts. Per K step: 8 warps x 8 k x 8 values x (2 + 4)
    // wavefronts against an ideal of 8 x 8 x 8 x 2.
    let plan = SgemmPlan::new(Rung::Reg2d, 512, 512, 512, Major::Row, Major::Row).unwrap();
    let t = per_tile(&plan).unwrap();
    assert_eq!(
        (t.loads.wavefronts, t.loads.ideal),
        (8 * 8 * 8 * 6, 8 * 8 * 8 * 2),
        "{}",
        t.loads
    );
    // SmemBlock with both operands column-major: the 32 lanes of a store write one column of
    // the [m][k] A tile (stride 32 words: one bank): 32 wavefronts each.
    let plan = SgemmPlan::new(Rung::SmemBlock, 64, 64, 64, Major::Col, Major::Col).unwrap();
    let acc = accesses(&plan).unwrap();
    assert!(
        reports(&plan, &acc[0])
            .unwrap()
            .iter()
            .all(|r| r.wavefronts == 32)
    );
}

#[test]
fn the_launch_predictions_are_the_nsight_compute_measurements() {
    // docs/bank-model.md (`scripts/ncu_conflicts.sh sgemm 512`): Nsight Compute's shared
    // wavefronts of every rung launched once at 512^3 (row-major A and B), equal to the bank
    // model's prediction from the vectorized rung up (the lower rungs' scalar reads are fused by
    // the compiler, so the model counts more loads than the device serves).
    let launch = |rung| {
        per_launch(&SgemmPlan::new(rung, 512, 512, 512, Major::Row, Major::Row).unwrap()).unwrap()
    };
    for (rung, ld, st) in [
        (Rung::Vectorized, 1310720, 65536),
        (Rung::WarpTiled, 786432, 65536),
        (Rung::DoubleBuffered, 786432, 65536),
        (Rung::Tuned, 524288, 98304),
    ] {
        let t = launch(rung);
        assert_eq!(
            (t.loads.wavefronts, t.stores.wavefronts),
            (ld, st),
            "{rung}"
        );
    }
    for (rung, ld, st) in [
        (Rung::SmemBlock, 8388608, 262144),
        (Rung::Reg1d, 4718592, 131072),
        (Rung::Reg2d, 3145728, 65536),
    ] {
        let t = launch(rung);
        assert_eq!(
            (t.loads.wavefronts, t.stores.wavefronts),
            (ld, st),
            "{rung}"
        );
    }
    assert_eq!(launch(Rung::Naive).loads.wavefronts, 0);
}

#[test]
fn launch_traffic_scales_with_blocks_and_k_steps() {
    let plan = SgemmPlan::new(Rung::WarpTiled, 4096, 2048, 8192, Major::Row, Major::Row).unwrap();
    let blocks = 32 * 16;
    let steps = 8192 / 8;
    assert_eq!(
        per_launch(&plan).unwrap(),
        per_tile(&plan).unwrap().scaled(blocks * steps)
    );
}

fn by_mode(a: i64, b: i64) -> Tiler {
    Tiler::ByMode(vec![
        Some(Layout::vector(a, 1).unwrap().into()),
        Some(Layout::vector(b, 1).unwrap().into()),
    ])
}

/// The elements `m + BM n` thread `t` owns: its tiled FMA's partition of the block tile.
fn owned(plan: &SgemmPlan, t: i64) -> BTreeSet<i64> {
    let d = plan.declare().unwrap();
    let (bm, bn) = (plan.tiling.bm, plan.tiling.bn);
    let tile: Layout = format!("({bm},{bn}):(1,{bm})").parse().unwrap();
    let (p, off) = d
        .mma
        .tiled()
        .get_slice(t)
        .unwrap()
        .partition_c(&tile)
        .unwrap();
    p.offsets().into_iter().map(|o| o + off).collect()
}

/// `thread -> owned elements` for every thread of a plan.
fn all_owned(plan: &SgemmPlan) -> Vec<BTreeSet<i64>> {
    let d = plan.declare().unwrap();
    let (bm, bn) = (plan.tiling.bm, plan.tiling.bn);
    let tile: Layout = format!("({bm},{bn}):(1,{bm})").parse().unwrap();
    (0..plan.tiling.threads)
        .map(|t| {
            let (p, off) = d
                .mma
                .tiled()
                .get_slice(t)
                .unwrap()
                .partition_c(&tile)
                .unwrap();
            p.offsets().into_iter().map(|o| o + off).collect()
        })
        .collect()
}

#[test]
fn thread_tiles_are_the_algebras_partitions() {
    // The block tile as the function (m, n) -> m + 128 n.
    let tile: Layout = "(128,128):(1,128)".parse().unwrap();
    // Reg2d: the 16 x 16 grid of 8 x 8 blocks (zipped_divide), thread t = 16 r + c taking block
    // (r, c) (local_partition over the row-major thread layout (16,16):(16,1)).
    let plan = SgemmPlan::new(Rung::Reg2d, 128, 128, 8, Major::Row, Major::Row).unwrap();
    let blocks = zipped_divide(&tile, &by_mode(8, 8)).unwrap();
    let (inner, grid) = (blocks.mode(0).unwrap(), blocks.mode(1).unwrap());
    let threads: Layout = "(16,16):(16,1)".parse().unwrap();
    let got = all_owned(&plan);
    for t in 0..256 {
        let (mine, off) = local_partition(&grid, &threads, t).unwrap();
        let want: BTreeSet<i64> = mine
            .offsets()
            .iter()
            .flat_map(|&b| inner.offsets().into_iter().map(move |e| off + b + e))
            .collect();
        assert_eq!(got[t as usize], want, "reg-2d thread {t}");
    }
    assert_eq!(owned(&plan, 17), got[17]);
}

/// Candidate tilings of `kernels/examples/sgemm_sweep.rs` (and the tuned one).
fn warp_tilings() -> Vec<WarpTiling> {
    let base = WarpTiling::TUNED;
    let mut out = vec![
        base,
        WarpTiling {
            lane_interleave: 1,
            ..base
        },
        WarpTiling {
            warps_m: 4,
            warps_n: 2,
            lanes_m: 4,
            ..base
        },
    ];
    if long_tests() {
        out.extend([
            WarpTiling { bk: 8, ..base },
            WarpTiling {
                bn: 256,
                tn: 16,
                bk: 8,
                ..base
            },
            WarpTiling {
                bm: 256,
                tm: 16,
                bk: 8,
                ..base
            },
            WarpTiling {
                bm: 64,
                warps_m: 1,
                ..base
            },
            WarpTiling {
                warps_m: 4,
                warps_n: 2,
                tm: 4,
                tn: 16,
                ..base
            },
            WarpTiling {
                lane_interleave: 4,
                bk: 8,
                ..base
            },
        ]);
    }
    out
}

#[test]
fn warp_tilings_are_the_algebras_partitions() {
    // Warp w = wm + warps_m wn takes local_tile(block, (BM / warps_m, BN / warps_n), (wm, wn));
    // its grid of 4 x 4 blocks (zipped_divide) is partitioned over the lanes
    // (lanes_m, (I, lanes_n / I)):(I, (1, I lanes_m)) (local_partition; I = 1: (1, lanes_m)).
    for w in warp_tilings() {
        let t = w.tiling().unwrap();
        let plan = SgemmPlan::with_tiling(Rung::Tuned, t, w.bm, w.bn, w.bk, Major::Row, Major::Row)
            .unwrap();
        let tile: Layout = format!("({},{}):(1,{})", w.bm, w.bn, w.bm).parse().unwrap();
        let lanes_n = 32 / w.lanes_m;
        let il = w.lane_interleave;
        let lanes: Layout = format!(
            "({},({il},{})):({il},(1,{}))",
            w.lanes_m,
            lanes_n / il,
            il * w.lanes_m
        )
        .parse()
        .unwrap();
        let (wtm, wtn) = (w.bm / w.warps_m, w.bn / w.warps_n);
        let got = all_owned(&plan);
        let mut seen = BTreeSet::new();
        for th in 0..w.threads() {
            let (lane, warp) = (th % 32, th / 32);
            let coord = SliceCoord::Tuple(vec![
                SliceCoord::Index(warp % w.warps_m),
                SliceCoord::Index(warp / w.warps_m),
            ]);
            let (warp_tile, woff) = local_tile(&tile, &by_mode(wtm, wtn), &coord).unwrap();
            let blocks = zipped_divide(&warp_tile, &by_mode(4, 4)).unwrap();
            let (inner, grid) = (blocks.mode(0).unwrap(), blocks.mode(1).unwrap());
            let (mine, off) = local_partition(&grid, &lanes, lane).unwrap();
            let want: BTreeSet<i64> = mine
                .offsets()
                .iter()
                .flat_map(|&b| inner.offsets().into_iter().map(move |e| woff + off + b + e))
                .collect();
            assert_eq!(got[th as usize], want, "{} thread {th}", w.name());
            seen.extend(want);
        }
        assert_eq!(seen.len() as i64, w.bm * w.bn, "{}", w.name());
    }
}

#[test]
fn warp_tilings_replayed_through_their_declarations_match_the_reference() {
    for w in warp_tilings().into_iter().skip(1) {
        for (am, bm) in MAJORS {
            let (m, n, k) = (w.bm + 3, w.bn + 5, w.bk + 3);
            let plan =
                SgemmPlan::with_tiling(Rung::Tuned, w.tiling().unwrap(), m, n, k, am, bm).unwrap();
            replay_checks(&plan);
        }
    }
}

#[test]
fn block_tiles_are_local_tiles_of_c() {
    // Block b's threads write, through the epilogue's partition of C sliced at the block's
    // tile (b % tiles_m, b / tiles_m), exactly local_tile(C, (BM, BN), b) of C padded to whole
    // tiles.
    for rung in Rung::ALL {
        let t = rung.tiling();
        let plan = SgemmPlan::new(rung, 2 * t.bm, 3 * t.bn, t.bk, Major::Row, Major::Row).unwrap();
        let (tm, tn) = plan.tiles();
        let d = plan.declare().unwrap();
        let c: Layout = format!("({},{}):({},1)", tm * t.bm, tn * t.bn, tn * t.bn)
            .parse()
            .unwrap();
        let gc = d.global_c.layout().offsets();
        let per_block = (t.threads * d.acc_store.size()) as usize;
        for b in 0..plan.grid_blocks() {
            let (l, off) = local_tile(&c, &by_mode(t.bm, t.bn), &SliceCoord::Index(b)).unwrap();
            let want: BTreeSet<i64> = l.offsets().into_iter().map(|o| o + off).collect();
            let got: BTreeSet<i64> = gc[b as usize * per_block..(b as usize + 1) * per_block]
                .iter()
                .copied()
                .collect();
            assert_eq!(got, want, "{rung} block {b}");
        }
    }
}

/// The bank model's store wavefronts of one K step of a row-major A (128 x 16 tile, 128-bit
/// global loads over `thr` threads x `val` values) stored element by element into `smem`.
fn a_store_wavefronts(smem: &str, thr: &str) -> (i64, i64) {
    let v1 = copy_atom("UniversalCopy<uint32_t>")
        .unwrap()
        .typed(32)
        .unwrap();
    let store = DeviceCopy::new(
        "st",
        make_tiled_copy(&v1, &thr.parse().unwrap(), &"(1,4):(0,1)".parse().unwrap()).unwrap(),
    );
    let s = DeviceTensor::shared(CType::F32, smem.parse().unwrap());
    let part = store.partition_d(&s).unwrap();
    let offs = part.layout().offsets();
    let (threads, per) = (256usize, part.size() as usize / 256);
    let mut indices = Vec::new();
    for w in 0..8 {
        for i in 0..per {
            for lane in 0..32 {
                indices.push(offs[32 * w + lane + threads * i]);
            }
        }
    }
    let cosize = part.cosize().unwrap();
    let r = analyze_indices(
        &Layout::vector(cosize, 1).unwrap(),
        4,
        "sts.32".parse().unwrap(),
        &indices,
    )
    .unwrap();
    let total: tessel_layout::bank::BankReport = r.into_iter().sum();
    (total.wavefronts, total.ideal)
}

#[test]
fn the_a_store_designs_of_decisions_md() {
    // docs/decisions.md: the tuned rung's row-major A reaches its transposed 128 x 16 tile by
    // 64 scalar stores per K step (8 warps x 2 vectors x 4 elements). A warp's store covers 8
    // rows m at the k-columns e, 4 + e, 8 + e, 12 + e. Unpadded (offset 128 k + m) the 4
    // k-columns share the 8 banks of the rows: 4 wavefronts a store. The pad of 4 (the tuned
    // rung, offset 132 k + m) moves k-column 4 + e by 16 banks but 8 + e by 32 = 0: 2. The XOR
    // swizzle Sw<2,3,6> of k bits 2-3 into offset bits 3-4, or an A load run of 2 (a warp takes
    // 2 vectors of 16 rows instead of 4 of 8: bank m + 16 q + 4 e over 32 banks), make it 1:
    // both were measured slower than the pad and left the product.
    let rows = "(64,4):(4,1)"; // thread t: row t / 4, vector t % 4 of the row
    let run2 = "(128,2):(2,1)"; // thread t: row t / 2, vectors t % 2 and 2 + t % 2
    assert_eq!(a_store_wavefronts("(128,16):(1,128)", rows), (64 * 4, 64));
    assert_eq!(a_store_wavefronts("(128,16):(1,132)", rows), (64 * 2, 64));
    assert_eq!(
        a_store_wavefronts("Sw<2,3,6> o (128,16):(1,128)", rows),
        (64, 64)
    );
    assert_eq!(a_store_wavefronts("(128,16):(1,132)", run2), (64, 64));
    let tuned = SgemmPlan::new(Rung::Tuned, 4096, 4096, 4096, Major::Row, Major::Row).unwrap();
    let t = per_tile(&tuned).unwrap();
    // The tuned rung itself: A's 64 sts.32 of 2 wavefronts, B's 16 sts.128 of 4.
    assert_eq!(
        (t.stores.wavefronts, t.stores.ideal),
        (64 * 2 + 16 * 4, 64 + 16 * 4)
    );
    assert_eq!(
        (t.loads.wavefronts, t.loads.excess),
        (8 * 16 * (2 * 2 + 2 * 2), 0)
    );
}

#[test]
fn interleaved_lanes_pack_the_a_fragment_reads_into_two_wavefronts() {
    // 128-bit reads are served by half-warp requests; a request is one wavefront when its 4-lane
    // groups ask for at most 128 bytes in all and no bank holds two words (docs/bank-model.md,
    // measured: conflict_p128_div4 2, conflict_p128_a_warptiled 4). Lanes l = lm + 8 ln: a group
    // is 4 rows lm of one column ln, so for A (vector per lm) it asks 4 vectors, 4 groups x 64
    // bytes = 256 > 128: 2 phases per half-warp, 4 wavefronts. Interleaved by 2,
    // l = (ln % 2) + 2 lm + 16 (ln / 2): a group is 2 rows x 2 columns, 2 vectors of A and 2 of
    // B, 4 x 32 = 128 bytes, the half-warp's 8 A vectors (128 contiguous bytes) or 2 B vectors
    // in distinct banks: one wavefront per half-warp, 2 per read.
    let reads = |w: WarpTiling, tile: Tile| {
        let plan = SgemmPlan::with_tiling(
            Rung::Tuned,
            w.tiling().unwrap(),
            512,
            512,
            512,
            Major::Row,
            Major::Row,
        )
        .unwrap();
        let access = accesses(&plan)
            .unwrap()
            .into_iter()
            .find(|a| a.tile == tile && a.op.to_string().starts_with("lds"))
            .unwrap();
        reports(&plan, &access).unwrap()
    };
    let plain = WarpTiling {
        lane_interleave: 1,
        ..WarpTiling::TUNED
    };
    let tuned = WarpTiling::TUNED;
    assert_eq!(tuned.lane_interleave, 2);
    for (w, a, b) in [(plain, 4, 2), (tuned, 2, 2)] {
        let (ra, rb) = (reads(w, Tile::A), reads(w, Tile::B));
        // 8 warps x 16 k x 2 vectors of 4 per lane.
        assert_eq!((ra.len(), rb.len()), (8 * 16 * 2, 8 * 16 * 2));
        assert!(
            ra.iter().all(|r| (r.wavefronts, r.excess) == (a, 0)),
            "{}",
            w.name()
        );
        assert!(
            rb.iter().all(|r| (r.wavefronts, r.excess) == (b, 0)),
            "{}",
            w.name()
        );
    }
    // The same with 4 x 8 lanes (warp tile 32 x 64): groups of 2 rows x 2 columns again.
    let w4 = WarpTiling {
        warps_m: 4,
        warps_n: 2,
        lanes_m: 4,
        ..tuned
    };
    assert!(reads(w4, Tile::A).iter().all(|r| r.wavefronts == 2));
    assert!(reads(w4, Tile::B).iter().all(|r| r.wavefronts == 2));
}
