//! Host checks of the SGEMM ladder's plans (no GPU): the layouts cover the problem, a CPU replay
//! of each rung through the kernel's own layouts matches the f64 reference, and the bank model's
//! predictions agree with an independent count from byte addresses.
//!
//! Every rung and every warp tiling is checked by default, each with one order of the operands
//! (the four orders taken in turn, so each is checked); `TESSEL_LONG_TESTS=1` checks every rung
//! and tiling with all four.

mod common;

use std::collections::{BTreeMap, BTreeSet};

use tessel_kernels::sgemm::bank::{Tile, accesses, per_launch, per_tile, reports};
use tessel_kernels::sgemm::host::{at, check, random, reference};
use tessel_kernels::sgemm::{Major, Rung, SgemmPlan, WarpTiling};
use tessel_layout::{Layout, SliceCoord, Tiler, local_partition, local_tile, zipped_divide};

const MAJORS: [(Major, Major); 4] = [
    (Major::Row, Major::Row),
    (Major::Col, Major::Row),
    (Major::Row, Major::Col),
    (Major::Col, Major::Col),
];

/// The operand orders checked for the `i`-th rung or tiling (all four under
/// `TESSEL_LONG_TESTS=1`).
fn majors(i: usize) -> Vec<(Major, Major)> {
    common::in_turn(&MAJORS, i)
}

fn lay(text: &str) -> Layout {
    text.parse().unwrap()
}

/// The values of `layout` at `0..n`: the replay reads every layout through such a table, built
/// once per plan, instead of evaluating it in the innermost loops.
fn table(n: i64, offset: impl Fn(i64) -> tessel_layout::Result<i64>) -> Vec<i64> {
    (0..n).map(|i| offset(i).unwrap()).collect()
}

/// Replays a rung on the CPU: blocks, K steps, the tile loads into shared arrays addressed by the
/// shared layouts (each slot written exactly once per step), every thread's outer products from
/// its fragment coordinates, the predicated write of C (each element exactly once).
fn replay(plan: &SgemmPlan, a: &[f32], b: &[f32]) -> Vec<f32> {
    let (m, n, k) = (plan.m, plan.n, plan.k);
    let t = &plan.tiling;
    let (tiles_m, tiles_n) = plan.tiles();
    let blk_m = lay(&format!("({tiles_m},{tiles_n}):({},0)", t.bm));
    let blk_n = lay(&format!("({tiles_m},{tiles_n}):(0,{})", t.bn));
    let (thr_m, thr_n, val_m, val_n) = t.thread_layouts().unwrap();
    let (thr_m, thr_n) = (
        table(t.threads, |i| thr_m.offset(i)),
        table(t.threads, |i| thr_n.offset(i)),
    );
    let (val_m, val_n) = (
        table(t.tm, |i| val_m.offset(i)),
        table(t.tn, |i| val_n.offset(i)),
    );
    let ga = |r: i64, c: i64| {
        at(
            a,
            plan.a_major,
            m as usize,
            k as usize,
            r as usize,
            c as usize,
        )
    };
    let gb = |r: i64, c: i64| {
        at(
            b,
            plan.b_major,
            k as usize,
            n as usize,
            r as usize,
            c as usize,
        )
    };
    let mut c = vec![f32::NAN; (m * n) as usize];
    let mut written = vec![0u8; (m * n) as usize];
    for blk in 0..plan.grid_blocks() {
        let (m0, n0) = (blk_m.offset(blk).unwrap(), blk_n.offset(blk).unwrap());
        let mut acc = vec![0.0f32; (t.threads * t.tm * t.tn) as usize];
        if plan.rung == Rung::Naive {
            for th in 0..t.threads {
                let (gm, gn) = (m0 + thr_m[th as usize], n0 + thr_n[th as usize]);
                if gm < m && gn < n {
                    acc[th as usize] = (0..k).fold(0.0f32, |s, kk| s + ga(gm, kk) * gb(kk, gn));
                }
            }
        } else {
            let (la, lb) = plan.tile_loads().unwrap();
            let (sa_l, sb_l) = (t.smem_a().unwrap(), t.smem_b().unwrap());
            // Shared offsets of the tile elements r + BM c (A) and r + BK c (B).
            let sa_of = table(t.bm * t.bk, |i| sa_l.offset(i));
            let sb_of = table(t.bk * t.bn, |i| sb_l.offset(i));
            let loads = [(true, &la), (false, &lb)].map(|(is_a, load)| {
                let count = load.per_thread * t.threads;
                let rows = table(count, |j| load.rows.offset(j));
                let cols = table(count, |j| load.cols.offset(j));
                (is_a, load, rows, cols)
            });
            for k0 in (0..k).step_by(t.bk as usize) {
                let mut sa = vec![f32::NAN; sa_l.layout().cosize() as usize];
                let mut sb = vec![f32::NAN; sb_l.layout().cosize() as usize];
                let mut seen = BTreeSet::new();
                for (is_a, load, rows, cols) in &loads {
                    for (&r, &cc) in rows.iter().zip(cols) {
                        for e in 0..load.vector {
                            let (r, cc) = if load.along_cols {
                                (r, cc + e)
                            } else {
                                (r + e, cc)
                            };
                            if *is_a {
                                let (gm, gk) = (m0 + r, k0 + cc);
                                let v = if gm < m && gk < k { ga(gm, gk) } else { 0.0 };
                                let o = sa_of[(r + t.bm * cc) as usize];
                                assert!(
                                    seen.insert((0, o)),
                                    "{}: A slot {o} written twice",
                                    plan.rung
                                );
                                sa[o as usize] = v;
                            } else {
                                let (gk, gn) = (k0 + r, n0 + cc);
                                let v = if gk < k && gn < n { gb(gk, gn) } else { 0.0 };
                                let o = sb_of[(r + t.bk * cc) as usize];
                                assert!(
                                    seen.insert((1, o)),
                                    "{}: B slot {o} written twice",
                                    plan.rung
                                );
                                sb[o as usize] = v;
                            }
                        }
                    }
                }
                assert_eq!(
                    seen.len() as i64,
                    t.bm * t.bk + t.bk * t.bn,
                    "{}: tiles not covered",
                    plan.rung
                );
                for th in 0..t.threads {
                    for kk in 0..t.bk {
                        for i in 0..t.tm {
                            let x = thr_m[th as usize] + val_m[i as usize];
                            let fa = sa[sa_of[(x + t.bm * kk) as usize] as usize];
                            for jj in 0..t.tn {
                                let y = thr_n[th as usize] + val_n[jj as usize];
                                let fb = sb[sb_of[(kk + t.bk * y) as usize] as usize];
                                acc[((th * t.tm + i) * t.tn + jj) as usize] += fa * fb;
                            }
                        }
                    }
                }
            }
        }
        for th in 0..t.threads {
            for i in 0..t.tm {
                for jj in 0..t.tn {
                    let gm = m0 + thr_m[th as usize] + val_m[i as usize];
                    let gn = n0 + thr_n[th as usize] + val_n[jj as usize];
                    if gm < m && gn < n {
                        let idx = (gm * n + gn) as usize;
                        written[idx] += 1;
                        c[idx] = acc[((th * t.tm + i) * t.tn + jj) as usize];
                    }
                }
            }
        }
    }
    assert!(
        written.iter().all(|&w| w == 1),
        "{}: C not written exactly once",
        plan.rung
    );
    c
}

#[test]
fn every_rung_replayed_through_its_layouts_matches_the_reference() {
    for (i, rung) in Rung::ALL.into_iter().enumerate() {
        for (am, bm) in majors(i) {
            for (m, n, k) in [(67, 45, 23), (130, 33, 16)] {
                let plan = SgemmPlan::new(rung, m, n, k, am, bm).unwrap();
                let a = random((m * k) as usize, 1);
                let b = random((k * n) as usize, 2);
                let got = replay(&plan, &a, &b);
                let dims = (m as usize, n as usize, k as usize);
                let r = check(&got, &a, am, &b, bm, dims, None)
                    .unwrap_or_else(|e| panic!("{rung} {am:?}/{bm:?} {m}x{n}x{k}: {e}"));
                assert_eq!(r.checked, (m * n) as usize);
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
    for (i, rung) in Rung::ALL.into_iter().enumerate() {
        for (am, bm) in majors(i) {
            let plan = SgemmPlan::new(rung, 512, 512, 512, am, bm).unwrap();
            let t = &plan.tiling;
            let (sa, sb) = (t.smem_a().unwrap(), t.smem_b().unwrap());
            for access in accesses(&plan).unwrap() {
                let smem = if access.tile == Tile::A { &sa } else { &sb };
                let per_instr = (32 * access.vector) as usize;
                let predicted = reports(&plan, &access).unwrap();
                assert_eq!(predicted.len(), access.indices.len() / per_instr);
                for (instr, report) in access.indices.chunks(per_instr).zip(&predicted) {
                    let bytes: Vec<i64> = instr
                        .iter()
                        .flat_map(|&i| {
                            let b = 4 * smem.offset(i).unwrap();
                            [b, b + 1, b + 2, b + 3]
                        })
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

/// The elements `m + 128 n` thread `t` owns, from the plan's layouts.
fn owned(plan: &SgemmPlan, t: i64) -> BTreeSet<i64> {
    let (thr_m, thr_n, val_m, val_n) = plan.tiling.thread_layouts().unwrap();
    let mut out = BTreeSet::new();
    for i in 0..plan.tiling.tm {
        for j in 0..plan.tiling.tn {
            let m = thr_m.offset(t).unwrap() + val_m.offset(i).unwrap();
            let n = thr_n.offset(t).unwrap() + val_n.offset(j).unwrap();
            out.insert(m + plan.tiling.bm * n);
        }
    }
    out
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
    for t in 0..256 {
        let (mine, off) = local_partition(&grid, &threads, t).unwrap();
        let want: BTreeSet<i64> = mine
            .offsets()
            .iter()
            .flat_map(|&b| inner.offsets().into_iter().map(move |e| off + b + e))
            .collect();
        assert_eq!(owned(&plan, t), want, "reg-2d thread {t}");
    }
    // WarpTiled: warp w = wm + 2 wn takes the 64 x 32 tile (wm, wn) (local_tile); its 16 x 8
    // grid of 4 x 4 blocks (zipped_divide) is partitioned over the lanes (8,4):(1,8)
    // (local_partition): lane l = lm + 8 ln takes blocks (lm + 8 i, ln + 4 j).
    let plan = SgemmPlan::new(Rung::WarpTiled, 128, 128, 8, Major::Row, Major::Row).unwrap();
    let lanes: Layout = "(8,4):(1,8)".parse().unwrap();
    for t in 0..256 {
        let (lane, warp) = (t % 32, t / 32);
        let coord = SliceCoord::Tuple(vec![
            SliceCoord::Index(warp % 2),
            SliceCoord::Index(warp / 2),
        ]);
        let (warp_tile, woff) = local_tile(&tile, &by_mode(64, 32), &coord).unwrap();
        let blocks = zipped_divide(&warp_tile, &by_mode(4, 4)).unwrap();
        let (inner, grid) = (blocks.mode(0).unwrap(), blocks.mode(1).unwrap());
        let (mine, off) = local_partition(&grid, &lanes, lane).unwrap();
        let want: BTreeSet<i64> = mine
            .offsets()
            .iter()
            .flat_map(|&b| inner.offsets().into_iter().map(move |e| woff + off + b + e))
            .collect();
        assert_eq!(owned(&plan, t), want, "warp-tiled thread {t}");
    }
}

#[test]
fn block_tiles_are_local_tiles_of_c() {
    // Block b of the kernel (blk_m, blk_n) is tile (b % tiles_m, b / tiles_m) of C padded to
    // whole tiles, as local_tile of C's row-major layout by (BM, BN) gives it.
    for rung in Rung::ALL {
        let plan = SgemmPlan::new(rung, 300, 200, 8, Major::Row, Major::Row).unwrap();
        let (tm, tn) = plan.tiles();
        let (bm, bn) = (plan.tiling.bm, plan.tiling.bn);
        let c: Layout = format!("({},{}):({},1)", tm * bm, tn * bn, tn * bn)
            .parse()
            .unwrap();
        let blk_m: Layout = format!("({tm},{tn}):({bm},0)").parse().unwrap();
        let blk_n: Layout = format!("({tm},{tn}):(0,{bn})").parse().unwrap();
        for b in 0..plan.grid_blocks() {
            let (_, off) = local_tile(&c, &by_mode(bm, bn), &SliceCoord::Index(b)).unwrap();
            let want = blk_m.offset(b).unwrap() * tn * bn + blk_n.offset(b).unwrap();
            assert_eq!(off, want, "{rung} block {b}");
        }
    }
}

/// Candidate tilings of `kernels/examples/sgemm_sweep.rs` (and the tuned one).
fn warp_tilings() -> Vec<WarpTiling> {
    let base = WarpTiling::TUNED;
    vec![
        base,
        WarpTiling { bk: 8, ..base },
        WarpTiling {
            warps_m: 4,
            warps_n: 2,
            lanes_m: 4,
            ..base
        },
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
        // Interleaved lanes, the A load run, fragment prefetch.
        WarpTiling {
            lane_interleave: 2,
            a_run: 2,
            ..base
        },
        WarpTiling {
            warps_m: 4,
            warps_n: 2,
            lanes_m: 4,
            lane_interleave: 2,
            a_run: 2,
            frag_prefetch: true,
            ..base
        },
        WarpTiling {
            lane_interleave: 4,
            a_run: 1,
            bk: 8,
            ..base
        },
    ]
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
        // Interleaved by I: lane (lm, ln) = (ln % I) + I lm + I lanes_m (ln / I).
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
            let got = owned(&plan, th);
            assert_eq!(got, want, "{} thread {th}", w.name());
            seen.extend(got);
        }
        assert_eq!(seen.len() as i64, w.bm * w.bn, "{}", w.name());
    }
}

#[test]
fn warp_tilings_replayed_through_their_layouts_match_the_reference() {
    for (i, w) in warp_tilings().into_iter().enumerate() {
        for (am, bm) in majors(i) {
            let (m, n, k) = (w.bm + 3, w.bn + 5, 2 * w.bk + 3);
            let plan =
                SgemmPlan::with_tiling(Rung::Tuned, w.tiling().unwrap(), m, n, k, am, bm).unwrap();
            let a = random((m * k) as usize, 5);
            let b = random((k * n) as usize, 6);
            let got = replay(&plan, &a, &b);
            let dims = (m as usize, n as usize, k as usize);
            check(&got, &a, am, &b, bm, dims, None)
                .unwrap_or_else(|e| panic!("{} {am:?}/{bm:?}: {e}", w.name()));
        }
    }
}

#[test]
fn the_swizzle_makes_bk16_a_stores_conflict_free() {
    // Row-major A into a transposed 128 x 16 tile: a warp's scalar store covers 8 rows m (bits
    // 0-2 of the offset) at the k-columns e, 4 + e, 8 + e, 12 + e. Unpadded and unswizzled
    // (offset 128 k + m) the 4 k-columns share the 8 banks of the rows: 4 words per bank, 4
    // wavefronts instead of 1. Per K step: 8 warps x 2 vectors x 4 scalar stores = 64 sts.32,
    // 3 * 64 = 192 excess; B's 16 sts.128 take their ideal 4 wavefronts each. Sw<2,3,6> XORs k
    // bits 2-3 (offset bits 9-10) into offset bits 3-4: the 4 k-columns land in 4 different
    // groups of 8 banks. Padding by 4 (offset 132 k + m, the tuned rung) shifts k-column 4 + e by
    // 16 banks but k-column 8 + e by 32 = 0: 2 words per bank, 64 excess.
    let base = WarpTiling {
        async_copy: true,
        stages: 3,
        ..WarpTiling::TUNED
    };
    let plain = WarpTiling {
        swizzle: false,
        swizzle_b: false,
        pad: 0,
        ..base
    };
    let swizzled = WarpTiling {
        swizzle: true,
        pad: 0,
        ..base
    };
    assert_eq!(plain.a_swizzle(), None);
    assert_eq!(swizzled.a_swizzle(), Some((2, 3, 6)));
    let tile = |w: WarpTiling| {
        let p = SgemmPlan::with_tiling(
            Rung::Tuned,
            w.tiling().unwrap(),
            4096,
            4096,
            4096,
            Major::Row,
            Major::Row,
        )
        .unwrap();
        per_tile(&p).unwrap()
    };
    let (without, with) = (tile(plain), tile(swizzled));
    assert_eq!(
        (without.stores.wavefronts, without.stores.ideal),
        (64 * 4 + 16 * 4, 64 + 16 * 4)
    );
    assert_eq!(without.loads.excess, 0);
    assert_eq!(with.excess(), 0);
    let tuned = SgemmPlan::new(Rung::Tuned, 4096, 4096, 4096, Major::Row, Major::Row).unwrap();
    let t = per_tile(&tuned).unwrap();
    assert_eq!(
        (t.stores.wavefronts, t.stores.ideal),
        (64 * 2 + 16 * 4, 64 + 16 * 4)
    );
    // Loads: 8 warps x 16 k x (2 A lds.128 + 2 B lds.128 of 2 wavefronts each: the tuned
    // rung's lanes are interleaved), conflict-free.
    assert_eq!(
        (t.loads.wavefronts, t.loads.excess),
        (8 * 16 * (2 * 2 + 2 * 2), 0)
    );
}

/// The bank model's report of every instruction of `tile`'s fragment reads (`lds`) of a
/// warp tiling at 512^3, row-major A and B.
fn fragment_reads(w: WarpTiling, tile: Tile) -> Vec<tessel_layout::bank::BankReport> {
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
    let plain = WarpTiling {
        lane_interleave: 1,
        ..WarpTiling::TUNED
    };
    let tuned = WarpTiling::TUNED;
    assert_eq!(tuned.lane_interleave, 2);
    for (w, a, b) in [(plain, 4, 2), (tuned, 2, 2)] {
        let (ra, rb) = (fragment_reads(w, Tile::A), fragment_reads(w, Tile::B));
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
    assert!(
        fragment_reads(w4, Tile::A)
            .iter()
            .all(|r| r.wavefronts == 2)
    );
    assert!(
        fragment_reads(w4, Tile::B)
            .iter()
            .all(|r| r.wavefronts == 2)
    );
}

#[test]
fn the_bank_model_picks_an_a_load_run_of_2_for_conflict_free_stores() {
    // Row-major A, BK 16, 128-bit global loads: each tile row is 4 vectors. A warp's scalar
    // store e of its 32 vectors goes to the transposed tile at offset m + 132 (4 q + e), bank
    // m + 16 q + 4 e (mod 32). Taking whole rows (run 4: 8 rows m x q = 0..3) puts q = 0 and
    // q = 2 in the same banks: 2 wavefronts per store. A run of 2 (16 rows x q = 0, 1, the rows'
    // other half by the thread's second vector) spreads m + 16 q over 32 banks. Runs are
    // restricted to whole 32-byte sectors of A (run x 16 bytes >= 32); among them the model
    // picks 2.
    let stores = |run: i64| {
        let w = WarpTiling {
            a_run: run,
            ..WarpTiling::TUNED
        };
        let plan = SgemmPlan::with_tiling(
            Rung::Tuned,
            w.tiling().unwrap(),
            4096,
            4096,
            4096,
            Major::Row,
            Major::Row,
        )
        .unwrap();
        per_tile(&plan).unwrap().stores
    };
    let runs = [2, 4];
    let best = runs
        .into_iter()
        .min_by_key(|&r| (stores(r).wavefronts, -r))
        .unwrap();
    assert_eq!(best, 2);
    // 64 sts.32 of A (1 wavefront each) and 16 sts.128 of B (4 each).
    assert_eq!((stores(2).wavefronts, stores(2).excess), (64 + 16 * 4, 0));
    assert_eq!(
        (stores(4).wavefronts, stores(4).excess),
        (64 * 2 + 16 * 4, 64)
    );
    // Run 0 is the whole row; a run that does not divide the row is refused.
    assert_eq!(stores(0), stores(4));
    let w3 = WarpTiling {
        a_run: 3,
        ..WarpTiling::TUNED
    };
    assert!(
        SgemmPlan::with_tiling(
            Rung::Tuned,
            w3.tiling().unwrap(),
            64,
            64,
            64,
            Major::Row,
            Major::Row
        )
        .unwrap()
        .tile_loads()
        .is_err()
    );
}
