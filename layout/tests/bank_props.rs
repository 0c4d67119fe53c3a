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
