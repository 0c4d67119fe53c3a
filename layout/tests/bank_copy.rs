//! `tessel_layout::bank::analyze_copy` against the defining word-count rule of
//! docs/bank-model.md, evaluated here from the lanes' byte addresses alone: the addresses come
//! from the thread arrangement each copy is built to have (stated per test), the bank count
//! from the words they touch.
//!
//! - LDS/STS (and the shared side of cp.async): requests of two 128-byte phases (half-warps of
//!   two quarter-warps for 128-bit vectors, the warp of two half-warps for 64-bit, the warp as
//!   one phase for 32- and 16-bit); a request whose 4-lane groups' distinct addresses fit in
//!   128 bytes and whose banks hold one distinct word each is one wavefront; otherwise each
//!   phase takes the max over banks of its distinct words, at least 1 (the rule measured with
//!   Nsight Compute in docs/bank-model.md).
//! - ldmatrix: each 8x8 matrix (lanes `8i..8i+7`, one 16-byte row each) is its own phase;
//!   the sum over matrices of the max over banks of its distinct words.

use tessel_layout::atom::{SmemSide, copy_atom, mma_atom};
use tessel_layout::bank::{BankReport, analyze_copy};
use tessel_layout::tiled::{make_tiled_copy, make_tiled_copy_a, make_tiled_mma};
use tessel_layout::{ComposedLayout, Layout};

fn l(s: &str) -> Layout {
    s.parse().unwrap()
}

fn c(s: &str) -> ComposedLayout {
    s.parse().unwrap()
}

/// Max over the 32 banks of the distinct 4-byte words among `(byte address, bytes)` accesses.
fn busiest_bank(accesses: &[(i64, i64)]) -> i64 {
    let mut per_bank: Vec<Vec<i64>> = vec![Vec::new(); 32];
    for &(addr, bytes) in accesses {
        for w in addr / 4..(addr + bytes + 3) / 4 {
            let bank = &mut per_bank[w.rem_euclid(32) as usize];
            if !bank.contains(&w) {
                bank.push(w);
            }
        }
    }
    per_bank.iter().map(Vec::len).max().unwrap_or(0) as i64
}

/// One LDS/STS-like instruction: 32 lanes' `(byte address, bytes)`.
fn vector_rule(lanes: &[(i64, i64)]) -> BankReport {
    assert_eq!(lanes.len(), 32);
    let bytes = lanes[0].1;
    let phase = (128 / bytes).min(32) as usize;
    let request = (2 * phase).min(32);
    let (mut wavefronts, mut ideal) = (0, 0);
    for req in lanes.chunks(request) {
        let packed: i64 = req
            .chunks(4)
            .map(|group| {
                let mut addresses: Vec<i64> = group.iter().map(|a| a.0).collect();
                addresses.sort();
                addresses.dedup();
                addresses.len() as i64 * bytes
            })
            .sum();
        if packed <= 128 && busiest_bank(req) <= 1 {
            wavefronts += 1;
            ideal += 1;
            continue;
        }
        for p in req.chunks(phase) {
            wavefronts += busiest_bank(p).max(1);
        }
        ideal += if packed <= 128 {
            1
        } else {
            req.chunks(phase).count() as i64
        };
    }
    BankReport {
        wavefronts,
        ideal,
        excess: wavefronts - ideal,
    }
}

/// One ldmatrix.x4: 32 lanes' 16-byte row addresses, four phases of 8.
fn ldmatrix_rule(rows: &[i64]) -> BankReport {
    assert_eq!(rows.len(), 32);
    let wavefronts = rows
        .chunks(8)
        .map(|m| busiest_bank(&m.iter().map(|&a| (a, 16)).collect::<Vec<_>>()))
        .sum();
    BankReport {
        wavefronts,
        ideal: 4,
        excess: wavefronts - 4,
    }
}

#[test]
fn lds_vectors_follow_the_word_count_rule() {
    // 64-bit loads of a 32 x 16 fp32 tile: thread T holds row T % 32, columns 2 (T / 32) and
    // 2 (T / 32) + 1 (thread layout (32,8):(1,32), values (1,2)): each warp reads a column pair.
    let atom = copy_atom("UniversalCopy<uint64_t>")
        .unwrap()
        .typed(32)
        .unwrap();
    let copy = make_tiled_copy(&atom, &l("(32,8):(1,32)"), &l("(1,2):(0,1)")).unwrap();
    let mut excess = Vec::new();
    // Row-major (conflicting), padded to a pitch of 18 floats, Sw<3,1,5> (element offset bits
    // 1..3, the 8-byte unit within a row, XOR row bits 2..4) and Sw<3,1,4> (XOR row bits 1..3).
    for smem in [
        c("(32,16):(16,1)"),
        c("(32,16):(18,1)"),
        c("Sw<3,1,5> o (32,16):(16,1)"),
        c("Sw<3,1,4> o (32,16):(16,1)"),
    ] {
        let got = analyze_copy(&copy, &smem, SmemSide::Source).unwrap();
        let want: Vec<BankReport> = (0..8)
            .map(|w| {
                let lanes: Vec<(i64, i64)> = (0..32)
                    .map(|lane| {
                        let (m, n) = (lane, 2 * w);
                        (4 * smem.offset(m + 32 * n).unwrap(), 8)
                    })
                    .collect();
                vector_rule(&lanes)
            })
            .collect();
        assert_eq!(got, want, "{smem}");
        excess.push(got.iter().map(|r| r.excess).sum::<i64>());
        // The same layout as a store (sts.64) counts the same.
        assert_eq!(
            analyze_copy(&copy, &smem, SmemSide::Destination).unwrap(),
            want
        );
    }
    assert_eq!(
        excess[0],
        8 * (16 - 2),
        "row-major: 16 words in each used bank"
    );
    // Sw<3,1,5> spreads the warp evenly (2 words a bank) but puts rows 4q and 4q+2 of each
    // half-warp in one bank: 2 wavefronts per half-warp phase, as the half-warp pattern
    // conflict_p64_docs measured (4 wavefronts, docs/bank-model.md); Sw<3,1,4> spreads every
    // half-warp over all 32 banks.
    assert_eq!(&excess[1..], [0, 8 * 2, 0]);
}

#[test]
fn ldmatrix_x4_follows_the_per_matrix_rule() {
    // CuTe make_tiled_copy_A(SM75_U32x4_LDSM_N, the 2x2-warp SM80 16x8x16 MMA with a 128 x 32
    // tile): lane l of warp w addresses the 8 halves of row l % 16 + 64 (w % 2) + 16 mi at
    // columns 8 (l / 16) + 16 kk (layout/tests/tiled_copy.rs proves this arrangement).
    let mma = make_tiled_mma(
        &mma_atom("SM80_16x8x16_F32F16F16F32_TN").unwrap(),
        &l("(2,2):(1,2)"),
        &[Some(l("(16,2,4):(1,64,16)")), Some(l("(8,2,8):(1,64,8)"))],
    )
    .unwrap();
    let ldsm = copy_atom("SM75_U32x4_LDSM_N").unwrap().typed(16).unwrap();
    let copy = make_tiled_copy_a(&ldsm, &mma).unwrap();
    let mut excess = Vec::new();
    for smem in [c("(128,32):(32,1)"), c("Sw<2,3,3> o (128,32):(32,1)")] {
        let got = analyze_copy(&copy, &smem, SmemSide::Source).unwrap();
        let mut want = Vec::new();
        for kk in 0..2 {
            for mi in 0..4 {
                for w in 0..4 {
                    let rows: Vec<i64> = (0..32)
                        .map(|lane| {
                            let row = lane % 16 + 64 * (w % 2) + 16 * mi;
                            let col = 8 * (lane / 16) + 16 * kk;
                            2 * smem.offset(row + 128 * col).unwrap()
                        })
                        .collect();
                    want.push(ldmatrix_rule(&rows));
                }
            }
        }
        // Instructions in the order warp, atoms of a thread (mi, then kk), tiles.
        assert_eq!(got, want, "{smem}");
        excess.push(got.iter().map(|r| r.excess).sum::<i64>());
        // ldmatrix only reads shared memory.
        assert!(analyze_copy(&copy, &smem, SmemSide::Destination).is_err());
    }
    // 64-byte rows: the 8 rows of a matrix fall into 2 groups of banks (4-way conflicts).
    assert_eq!(excess[0], 32 * 4 * 3);
    assert_eq!(excess[1], 0);
}

#[test]
fn cp_async_stores_follow_the_word_count_rule() {
    // The GEMM's stage copy (kernels/src/gemm): thread T moves 16-byte chunk T % 4 of row T / 4
    // of a 32-row slice of a 128 x 32 fp16 tile (thread layout (32,4):(4,1), values (1,8)); the
    // four slices are the copy's tiles.
    let cp = copy_atom("SM80_CP_ASYNC_CACHEGLOBAL<uint128_t>")
        .unwrap()
        .typed(16)
        .unwrap();
    let copy = make_tiled_copy(&cp, &l("(32,4):(4,1)"), &l("(1,8):(0,1)")).unwrap();
    let mut excess = Vec::new();
    // Rows at a 128-byte pitch (only the first 64 bytes used: half the banks), and the same
    // with Sw<1,5,1> (element bit 5, the upper half of the line, XOR row bit 0).
    for smem in [c("(128,32):(64,1)"), c("Sw<1,5,1> o (128,32):(64,1)")] {
        let got = analyze_copy(&copy, &smem, SmemSide::Destination).unwrap();
        let mut want = Vec::new();
        for tile in 0..4 {
            for w in 0..4 {
                let lanes: Vec<(i64, i64)> = (0..32)
                    .map(|lane| {
                        let t = 32 * w + lane;
                        let (row, col) = (32 * tile + t / 4, 8 * (t % 4));
                        (2 * smem.offset(row + 128 * col).unwrap(), 16)
                    })
                    .collect();
                want.push(vector_rule(&lanes));
            }
        }
        assert_eq!(got, want, "{smem}");
        excess.push(got.iter().map(|r| r.excess).sum::<i64>());
        // cp.async reads global memory: a shared source is refused.
        assert!(analyze_copy(&copy, &smem, SmemSide::Source).is_err());
    }
    assert_eq!(excess, [16 * 4, 0]);
}

#[test]
fn errors_name_the_condition() {
    let atom = copy_atom("UniversalCopy<uint32_t>")
        .unwrap()
        .typed(32)
        .unwrap();
    // 16 threads are not a warp.
    let copy = make_tiled_copy(&atom, &l("16:1"), &l("1:0")).unwrap();
    let err = analyze_copy(&copy, &l("16:1"), SmemSide::Source).unwrap_err();
    assert!(err.message().contains("whole warps"), "{err}");
    let copy = make_tiled_copy(&atom, &l("32:1"), &l("1:0")).unwrap();
    let err = analyze_copy(&copy, &l("32:1"), SmemSide::Either).unwrap_err();
    assert!(err.message().contains("Either"), "{err}");
}
