//! Swizzle semantics, golden values and GF(2) verification laws.

use proptest::prelude::*;
use tessel_layout::f2::AffineMap;
use tessel_layout::{ComposedLayout, ErrorKind, IntTuple, Layout, Swizzle, verify};

/// A valid `Sw<B,M,S>` (incl. negative S) whose bits stay below 14.
fn swizzle() -> impl Strategy<Value = Swizzle> {
    (0i64..=4, 0i64..=5, 0i64..=6, any::<bool>()).prop_filter_map(
        "bits must fit",
        |(b, m, extra, neg)| {
            let s = (b + extra).max(1);
            let s = if neg { -s } else { s };
            (b + m + s.abs() <= 12)
                .then(|| Swizzle::new(b, m, s).ok())
                .flatten()
        },
    )
}

fn brute_injective(offsets: &[i64]) -> bool {
    let mut v = offsets.to_vec();
    v.sort_unstable();
    v.windows(2).all(|w| w[0] != w[1])
}

fn brute_bijective(offsets: &[i64]) -> bool {
    let n = offsets.len() as i64;
    brute_injective(offsets) && offsets.iter().all(|&o| (0..n).contains(&o))
}

#[test]
fn design_golden_values() {
    // docs/semantics.md: Sw<3,3,3> o (8,64):(64,1): coordinate (1,0) -> 72, (7,63) -> 455.
    let c: ComposedLayout = "Sw<3,3,3> o (8,64):(64,1)".parse().unwrap();
    assert_eq!(c.at(&IntTuple::from_ints([1, 0])).unwrap(), 72);
    assert_eq!(c.at(&IntTuple::from_ints([7, 63])).unwrap(), 455);
}

#[test]
fn cute_comment_example() {
    // CuTe swizzle.hpp comment: 0b...YY.........ZZxxx -> ZZ ^= YY, i.e. B=2, M=3 and the YY
    // field 11 bits above ZZ: Sw<2,3,11>.
    let sw = Swizzle::new(2, 3, 11).unwrap();
    assert_eq!(sw.apply(1 << 14), (1 << 14) | (1 << 3));
    assert_eq!(sw.apply(3 << 14), (3 << 14) | (3 << 3));
    assert_eq!(sw.apply(0b111), 0b111);
}

#[test]
fn hopper_swizzles_in_elements() {
    // docs/semantics.md: the GMMA 128B/64B/32B swizzles on bytes are Sw<3,4,3>/<2,4,3>/<1,4,3>;
    // on fp16 element offsets they are <B,3,3>.
    for b in 1..=3 {
        let bytes = Swizzle::new(b, 4, 3).unwrap();
        assert_eq!(bytes.upcast(2).unwrap(), Swizzle::new(b, 3, 3).unwrap());
        assert_eq!(bytes.upcast(2).unwrap().downcast(2).unwrap(), bytes);
    }
}

#[test]
fn upcast_rejects_what_it_cannot_represent() {
    let sw = Swizzle::new(3, 3, 3).unwrap();
    let err = sw.upcast(16).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Inadmissible);
    assert!(err.to_string().contains("Sw<3,3,3>"), "{err}");
    assert_eq!(sw.upcast(3).unwrap_err().kind(), ErrorKind::InvalidArgument);
    assert!(Swizzle::new(3, 30, 20).unwrap().downcast(1 << 10).is_err());
}

#[test]
fn parse_round_trip() {
    for text in [
        "Sw<3,3,3> o (8,64):(64,1)",
        "Sw<1,3,3> o Sw<3,3,5> o 32 o (16,256):(256,1)",
        "8:1",
        "Sw<2,4,-3> o 64:1",
    ] {
        let c: ComposedLayout = text.parse().unwrap();
        assert_eq!(c.to_string(), text);
    }
    assert!("Sw<3,3,2> o 8:1".parse::<ComposedLayout>().is_err());
    assert!("Sw<3,3,3> (8,8)".parse::<ComposedLayout>().is_err());
}

#[test]
fn non_affine_large_layout_is_undecided() {
    let big = Layout::vector(3 << 22, 1).unwrap();
    // Without a swizzle the plain layout's analytic check decides, whatever the size.
    assert!(verify::is_injective(&big).unwrap());
    assert!(verify::is_bijective(&big).unwrap());
    // With a swizzle on a domain that is not a power of two, only enumeration could decide.
    let swizzled = ComposedLayout::new(vec![Swizzle::new(1, 0, 1).unwrap()], 0, big);
    let err = verify::is_injective(&swizzled).unwrap_err();
    assert!(err.to_string().contains("too large to decide"), "{err}");
    // The same size with power-of-two structure is decided by rank, however large.
    let huge: Layout = "(1048576,1048576):(1048576,1)".parse().unwrap();
    assert!(verify::is_bijective(&huge).unwrap());
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(600))]

    #[test]
    fn every_swizzle_is_an_involution_and_a_bijection(sw in swizzle()) {
        let n = 1i64 << sw.bit_span().max(1);
        let mut seen = vec![false; n as usize];
        for x in 0..n {
            let y = sw.apply(x);
            prop_assert!((0..n).contains(&y));
            prop_assert_eq!(sw.apply(y), x);
            prop_assert!(!seen[y as usize]);
            seen[y as usize] = true;
        }
    }

    #[test]
    fn every_chain_of_swizzles_is_a_bijection(chain in prop::collection::vec(swizzle(), 1..5)) {
        let bits = chain.iter().map(Swizzle::bit_span).max().unwrap_or(0).max(1);
        let c = ComposedLayout::new(chain, 0, Layout::vector(1 << bits, 1).unwrap());
        prop_assert!(brute_bijective(&c.offsets()));
        prop_assert!(verify::is_bijective(&c).unwrap());
        prop_assert!(verify::affine_map(&c).unwrap().is_some());
    }

    #[test]
    fn gf2_verdicts_agree_with_enumeration(
        modes in prop::collection::vec((0u32..3, 0u32..7), 1..4),
        chain in prop::collection::vec(swizzle(), 0..3),
        offset_bit in prop::option::of(0u32..10),
    ) {
        let shape = IntTuple::from_ints(modes.iter().map(|&(e, _)| 1i64 << e));
        let stride = IntTuple::from_ints(modes.iter().map(|&(_, d)| 1i64 << d));
        let layout = Layout::new(shape, stride).unwrap();
        let offset = offset_bit.map_or(0, |b| 1i64 << b);
        let c = ComposedLayout::new(chain, offset, layout);
        let offsets = c.offsets();
        if let Some(map) = verify::affine_map(&c).unwrap() {
            // the claimed affine map is the function
            let bits = map.input_bits();
            prop_assert!(AffineMap::is_affine_exhaustive(bits, |x| Ok(offsets[x as usize] as u64)).unwrap());
        }
        prop_assert_eq!(verify::is_injective(&c).unwrap(), brute_injective(&offsets));
        prop_assert_eq!(verify::is_bijective(&c).unwrap(), brute_bijective(&offsets));
    }

    #[test]
    fn arbitrary_small_layouts_are_decided_correctly(
        modes in prop::collection::vec((1i64..5, -3i64..9), 1..4),
        chain in prop::collection::vec(swizzle(), 0..2),
    ) {
        let shape = IntTuple::from_ints(modes.iter().map(|&(e, _)| e));
        let stride = IntTuple::from_ints(modes.iter().map(|&(_, d)| d));
        let c = ComposedLayout::new(chain, 0, Layout::new(shape, stride).unwrap());
        let offsets = c.offsets();
        prop_assert_eq!(verify::is_injective(&c).unwrap(), brute_injective(&offsets));
        prop_assert_eq!(verify::is_bijective(&c).unwrap(), brute_bijective(&offsets));
    }
}

#[test]
fn extreme_parameters_are_errors_not_panics() {
    for (b, m, s) in [
        (0, 0, i64::MIN),
        (i64::MAX, 0, 0),
        (1, i64::MAX, 1),
        (3, 3, i64::MAX),
        (30, 10, 30),
        (-1, 0, 0),
    ] {
        assert!(Swizzle::new(b, m, s).is_err(), "Sw<{b},{m},{s}>");
    }
    let wide = AffineMap::new(vec![1; 70], 0);
    assert_eq!(wide.apply(u64::MAX), 0); // 64 ones XORed (bits past 63 are never set)
}
