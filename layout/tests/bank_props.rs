//! Laws of the bank model that hold for any access.

use proptest::prelude::*;
use tessel_layout::bank::analyze;
use tessel_layout::{ComposedLayout, IntTuple, Layout};

/// A 32-lane TV layout visiting domain indices 0..32 in a lane order given by a permutation
/// of the five lane bits.
fn lane_order(perm: &[i64]) -> Layout {
    Layout::new(
        IntTuple::tuple([IntTuple::from_ints([2, 2, 2, 2, 2])]),
        IntTuple::tuple([IntTuple::from_ints(perm.iter().copied())]),
    )
    .unwrap()
}

/// The model spelled out for lds.32 with 4-byte elements: the busiest bank's distinct words.
fn brute_lds32(offsets: &[i64]) -> i64 {
    let mut words = offsets.to_vec();
    words.sort_unstable();
    words.dedup();
    (0..32)
        .map(|b| words.iter().filter(|&&w| w.rem_euclid(32) == b).count() as i64)
        .max()
        .unwrap_or(0)
        .max(1)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(500))]

    #[test]
    fn lds32_counts_the_busiest_bank(
        d0 in 0i64..70, d1 in 0i64..300,
        perm in Just(vec![1i64, 2, 4, 8, 16]).prop_shuffle(),
        shift in 0i64..4,
    ) {
        let tile = Layout::new(IntTuple::from_ints([32, 4]), IntTuple::from_ints([d0, d1])).unwrap();
        let tv = lane_order(&perm);
        let op = "lds.32".parse().unwrap();
        let r = analyze(&tile, 4, op, &tv).unwrap();
        let offsets: Vec<i64> = (0..32).map(|i| tile.offset(i).unwrap()).collect();
        prop_assert_eq!(r.wavefronts, brute_lds32(&offsets));
        prop_assert_eq!((r.ideal, r.excess), (1, r.wavefronts - 1));
        // the lane order does not matter
        let straight = analyze(&tile, 4, op, &"32:1".parse().unwrap()).unwrap();
        prop_assert_eq!(r, straight);
        // moving everything by whole 128-byte lines does not matter
        let moved = ComposedLayout::new(vec![], 32 * shift, tile.clone());
        prop_assert_eq!(analyze(&moved, 4, op, &tv).unwrap(), r);
    }

    #[test]
    fn vectors_take_at_least_their_bandwidth(
        d0 in 0i64..40, vec_log in 1u32..3, perm in Just(vec![1i64, 2, 4, 8, 16]).prop_shuffle(),
    ) {
        // lane l reads the vector starting at element v * (l-th entry), vectors of 2 or 4 fp32
        let v = 1i64 << vec_log;
        let tile = Layout::new(IntTuple::from_ints([v, 32]), IntTuple::from_ints([1, v * d0.max(1)])).unwrap();
        let strides: Vec<i64> = perm.iter().map(|p| p * v).collect();
        let tv = Layout::new(
            IntTuple::tuple([IntTuple::from_ints([2, 2, 2, 2, 2]), IntTuple::Int(v)]),
            IntTuple::tuple([IntTuple::from_ints(strides), IntTuple::Int(1)]),
        ).unwrap();
        let op = format!("lds.{}", 32 * v).parse().unwrap();
        let r = analyze(&tile, 4, op, &tv).unwrap();
        prop_assert_eq!(r.ideal, v);
        prop_assert!(r.wavefronts >= v);
        prop_assert!(r.wavefronts <= 32 * v);
    }
}

/// 16-bit `lds`/`sts` by the rule's definition (docs/bank-model.md): the warp's 2-byte accesses
/// touch words `byte / 4`; the wavefronts are the most distinct words in one bank, at least the
/// one wavefront that 64 bytes need. Random lanes on a plain 1-D tile of fp16 elements.
#[test]
fn sixteen_bit_accesses_count_distinct_words_per_bank() {
    use tessel_layout::bank::analyze_indices;
    let tile: Layout = "4096:1".parse().unwrap();
    let mut seed = 99u64;
    let mut next = move |n: u64| {
        seed = seed
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (seed >> 33) % n
    };
    for op in ["lds.16", "sts.16"] {
        for _ in 0..500 {
            let span = 1 + next(4096);
            let lanes: Vec<i64> = (0..32).map(|_| next(span) as i64).collect();
            let mut per_bank: Vec<std::collections::BTreeSet<i64>> = vec![Default::default(); 32];
            for &e in &lanes {
                let word = e * 2 / 4;
                per_bank[(word % 32) as usize].insert(word);
            }
            let expected = per_bank
                .iter()
                .map(|w| w.len() as i64)
                .max()
                .unwrap()
                .max(1);
            let r = analyze_indices(&tile, 2, op.parse().unwrap(), &lanes).unwrap();
            assert_eq!(r.len(), 1);
            assert_eq!(
                (r[0].wavefronts, r[0].ideal),
                (expected, 1),
                "{op} {lanes:?}"
            );
        }
    }
}

/// The busiest bank's distinct words, at least 1: the rule for accesses narrower than a word
/// (CUDA C++ Programming Guide, compute capability 5.x and later, "Shared Memory": lanes that
/// access any address within the same 32-bit word do not conflict), from the byte address of
/// every byte each lane touches.
fn busiest_bank(bytes_per_lane: &[Vec<i64>]) -> i64 {
    let mut per_bank: Vec<std::collections::BTreeSet<i64>> = vec![Default::default(); 32];
    for bytes in bytes_per_lane {
        for &b in bytes {
            let word = b.div_euclid(4);
            per_bank[word.rem_euclid(32) as usize].insert(word);
        }
    }
    per_bank
        .iter()
        .map(|w| w.len() as i64)
        .max()
        .unwrap()
        .max(1)
}

/// 8-bit `lds`/`sts` (PTX `ld.shared.u8`, `st.shared.b8`) and 16-bit ones of two 1-byte
/// elements, by the definition above: random lanes (aligned to the access), on a plain byte
/// buffer and on a swizzled byte tile whose offsets are computed element by element here.
#[test]
fn byte_accesses_count_distinct_words_per_bank() {
    use tessel_layout::bank::analyze_indices;
    let plain: ComposedLayout = "8192:1".parse().unwrap();
    // 64 rows of 128 bytes, the 16-byte chunk XORed with the row (the 128B swizzle on bytes).
    let swizzled: ComposedLayout = "Sw<3,4,3> o (128,64):(1,128)".parse().unwrap();
    let mut seed = 7u64;
    let mut next = move |n: u64| {
        seed = seed
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (seed >> 33) % n
    };
    for tile in [&plain, &swizzled] {
        for (op, vector) in [("lds.8", 1i64), ("sts.8", 1), ("lds.16", 2), ("sts.16", 2)] {
            for _ in 0..400 {
                let span = 1 + next(8192 / vector as u64);
                // Each lane's first domain index, a multiple of the vector; the vector's values
                // follow it (consecutive domain indices, consecutive bytes in both tiles since
                // the swizzle moves 16-byte chunks).
                let firsts: Vec<i64> = (0..32).map(|_| next(span) as i64 * vector).collect();
                let indices: Vec<i64> = firsts
                    .iter()
                    .flat_map(|&f| (0..vector).map(move |v| f + v))
                    .collect();
                let bytes: Vec<Vec<i64>> = firsts
                    .iter()
                    .map(|&f| (0..vector).map(|v| tile.offset(f + v).unwrap()).collect())
                    .collect();
                let r = analyze_indices(tile, 1, op.parse().unwrap(), &indices).unwrap();
                assert_eq!(r.len(), 1);
                assert_eq!(
                    (r[0].wavefronts, r[0].ideal),
                    (busiest_bank(&bytes), 1),
                    "{op} on {tile}: {firsts:?}"
                );
            }
        }
    }
}

#[test]
fn byte_access_worked_cases() {
    use tessel_layout::bank::analyze;
    let tile: Layout = "(32,128):(128,1)".parse().unwrap(); // 32 rows of 128 u8, row-major
    let count = |op: &str, tv: &str| {
        analyze(&tile, 1, op.parse().unwrap(), &tv.parse().unwrap())
            .unwrap()
            .wavefronts
    };
    // Lane l reads row 0, byte l: 8 words in banks 0..7, 4 lanes per word.
    assert_eq!(count("lds.8", "32:32"), 1);
    // Lane l reads row 0, byte 4l: 32 words in 32 banks.
    assert_eq!(count("lds.8", "32:128"), 1);
    // Lane l reads column 0, row l: byte 128 l, 32 distinct words all in bank 0.
    assert_eq!(count("sts.8", "32:1"), 32);
    // Lane l reads column l % 4 of row l / 4: 8 words (byte 128 r), bank 0 each: 8-way.
    assert_eq!(count("lds.8", "((4,8),1):((32,1),0)"), 8);
    // An 8-bit access needs 1-byte elements.
    assert!(analyze(&tile, 2, "lds.8".parse().unwrap(), &"32:1".parse().unwrap()).is_err());
}
