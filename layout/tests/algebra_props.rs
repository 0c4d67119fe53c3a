//! Property tests: every `Ok` result of the algebra satisfies its defining post-condition, and
//! every rejection is an error of a documented kind (never a panic). Sizes stay small (<= a few
//! thousand) so brute force can check each result exactly.

use std::collections::HashSet;

use proptest::prelude::*;
use tessel_layout::{
    ErrorKind, IntTuple, Layout, Tiler, blocked_product, coalesce, coalesce_profile, complement,
    composition, downcast, filter, flat_divide, is_bijective, is_injective, left_inverse,
    logical_divide, logical_product, make_ordered_layout, max_common_layout, max_common_vector,
    nullspace, raked_product, right_inverse, tile_to_shape, tiled_divide, upcast, zipped_divide,
};

// ---------------------------------------------------------------- helpers

/// Builds a layout from flat leaves with one of a few nestings.
fn nested(leaves: &[(i64, i64)], nest: u8) -> Layout {
    let ints = |v: &[(i64, i64)], f: fn(&(i64, i64)) -> i64| -> Vec<IntTuple> {
        v.iter().map(|m| IntTuple::Int(f(m))).collect()
    };
    let shapes = ints(leaves, |m| m.0);
    let strides = ints(leaves, |m| m.1);
    let group = |items: Vec<IntTuple>| -> IntTuple {
        match (nest, items.len()) {
            (_, 1) if nest % 2 == 0 => items[0].clone(),
            (1, n) if n >= 2 => {
                let mut it = items.into_iter();
                let first = IntTuple::tuple(it.by_ref().take(2));
                IntTuple::tuple(std::iter::once(first).chain(it))
            }
            (3, n) if n >= 2 => {
                let mut items = items;
                let tail = items.split_off(n - 2);
                items.push(IntTuple::Tuple(tail));
                IntTuple::Tuple(items)
            }
            _ => IntTuple::Tuple(items),
        }
    };
    Layout::new(group(shapes), group(strides)).expect("small layouts are valid")
}

fn layout_strategy(
    max_leaves: usize,
    extent: std::ops::RangeInclusive<i64>,
    stride: std::ops::RangeInclusive<i64>,
) -> impl Strategy<Value = Layout> {
    (
        prop::collection::vec((extent, stride), 1..=max_leaves),
        0u8..4,
    )
        .prop_map(|(leaves, nest)| nested(&leaves, nest))
}

/// Layouts with small extents and non-negative strides.
fn small_layout() -> impl Strategy<Value = Layout> {
    layout_strategy(4, 1..=6, 0..=24)
}

/// Layouts with small extents and strides of any sign.
fn signed_layout() -> impl Strategy<Value = Layout> {
    layout_strategy(4, 1..=5, -12..=12)
}

/// Layouts whose extents are powers of two and strides 0 or powers of two.
fn pow2_layout() -> impl Strategy<Value = Layout> {
    let leaf = (0u32..4, prop_oneof![Just(None), (0u32..7).prop_map(Some)]);
    (prop::collection::vec(leaf, 1..=4), 0u8..4).prop_map(|(leaves, nest)| {
        let flat: Vec<(i64, i64)> = leaves
            .into_iter()
            .map(|(s, d)| (1i64 << s, d.map_or(0, |e| 1i64 << e)))
            .collect();
        nested(&flat, nest)
    })
}

/// A permutation of a compact layout of a random shape (bijective onto 0..size), optionally
/// with all strides scaled.
fn compact_permuted() -> impl Strategy<Value = Layout> {
    permuted_compact(prop::collection::vec(1i64..=5, 1..=4))
}

/// `compact_permuted` with power-of-two extents.
fn pow2_compact_permuted() -> impl Strategy<Value = Layout> {
    permuted_compact(prop::collection::vec(
        prop_oneof![Just(1i64), Just(2), Just(4)],
        1..=4,
    ))
}

fn permuted_compact(shape: impl Strategy<Value = Vec<i64>>) -> impl Strategy<Value = Layout> {
    (shape, any::<u64>(), 0u8..4).prop_map(|(shape, seed, nest)| {
        let n = shape.len();
        let mut order: Vec<i64> = (0..n as i64).collect();
        // Deterministic shuffle from the seed.
        let mut s = seed;
        for i in (1..n).rev() {
            s = s
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            order.swap(i, (s >> 33) as usize % (i + 1));
        }
        let l = make_ordered_layout(&IntTuple::from_ints(shape), &IntTuple::from_ints(order))
            .expect("distinct order");
        nested(&l.flat_modes(), nest)
    })
}

/// `A(x)` for any `x >= 0`, with CuTe's convention that the last flat mode is unbounded.
fn ext_eval(a: &Layout, x: i64) -> i64 {
    let modes = a.flat_modes();
    let mut rest = x;
    let mut off = 0;
    for (k, &(s, d)) in modes.iter().enumerate() {
        if k + 1 == modes.len() {
            off += rest * d;
        } else {
            off += (rest % s) * d;
            rest /= s;
        }
    }
    off
}

fn brute_injective(l: &Layout) -> bool {
    let offs = l.offsets();
    offs.iter().collect::<HashSet<_>>().len() == offs.len()
}

fn image(l: &Layout) -> HashSet<i64> {
    l.offsets().into_iter().collect()
}

fn sorted_offsets(l: &Layout) -> Vec<i64> {
    let mut v = l.offsets();
    v.sort_unstable();
    v
}

/// CuTe's `compatible(B, R)`: every leaf of `B` is a leaf or a tuple of the same size in `R`.
fn compatible(b: &IntTuple, r: &IntTuple) -> bool {
    match (b, r) {
        (IntTuple::Int(s), _) => r.product().ok() == Some(*s),
        (IntTuple::Tuple(bs), IntTuple::Tuple(rs)) => {
            bs.len() == rs.len() && bs.iter().zip(rs).all(|(x, y)| compatible(x, y))
        }
        _ => false,
    }
}

fn documented_rejection(kind: ErrorKind) -> bool {
    matches!(
        kind,
        ErrorKind::Inadmissible | ErrorKind::InvalidArgument | ErrorKind::Overflow
    )
}

fn leaf_count(l: &Layout) -> usize {
    l.flat_modes().len()
}

// ---------------------------------------------------------------- coalesce / filter

proptest! {
    #![proptest_config(ProptestConfig::with_cases(3000))]

    #[test]
    fn coalesce_preserves_the_function(a in signed_layout()) {
        let c = coalesce(&a).unwrap();
        prop_assert_eq!(c.size(), a.size());
        prop_assert_eq!(c.offsets(), a.offsets());
        prop_assert!(c.depth() <= 1);
        prop_assert!(leaf_count(&c) <= leaf_count(&a));
        prop_assert!(c.flat_modes().iter().all(|m| m.0 > 1) || c.to_string() == "1:0");
    }

    #[test]
    fn coalesce_profile_preserves_each_mode(a in signed_layout()) {
        let profile = IntTuple::from_ints(vec![1; a.rank()]);
        let c = coalesce_profile(&a, &profile).unwrap();
        prop_assert_eq!(c.rank(), profile.rank());
        prop_assert_eq!(c.offsets(), a.offsets());
        for (m, cm) in a.modes().iter().zip(c.modes()) {
            prop_assert_eq!(cm, coalesce(m).unwrap());
        }
    }

    #[test]
    fn filter_preserves_the_image(a in signed_layout()) {
        let f = filter(&a).unwrap();
        prop_assert_eq!(image(&f), image(&a));
        prop_assert!(leaf_count(&f) <= leaf_count(&a));
        prop_assert!(f.flat_modes().iter().all(|m| m.1 != 0) || f.to_string() == "1:0");
    }
}

// ---------------------------------------------------------------- composition

proptest! {
    #![proptest_config(ProptestConfig::with_cases(4000))]

    #[test]
    fn composition_ok_means_r_equals_a_after_b(a in small_layout(), b in small_layout()) {
        match composition(&a, &b) {
            Ok(r) => {
                prop_assert_eq!(r.size(), b.size());
                prop_assert!(compatible(b.shape(), r.shape()), "{} not compatible with {}", r, b);
                for i in 0..b.size() {
                    let want = ext_eval(&a, b.offset(i).unwrap());
                    prop_assert_eq!(r.offset(i).unwrap(), want, "{} o {} = {} at {}", a, b, r, i);
                }
            }
            Err(e) => prop_assert!(documented_rejection(e.kind()), "{}", e),
        }
    }

    #[test]
    fn composition_with_signed_inputs_never_panics(a in signed_layout(), b in signed_layout()) {
        match composition(&a, &b) {
            Ok(r) => {
                for i in 0..b.size() {
                    let x = b.offset(i).unwrap();
                    if x >= 0 {
                        prop_assert_eq!(r.offset(i).unwrap(), ext_eval(&a, x));
                    }
                }
            }
            Err(e) => prop_assert!(documented_rejection(e.kind()), "{}", e),
        }
    }

    #[test]
    fn power_of_two_compositions_always_succeed(a in pow2_layout(), b in pow2_layout()) {
        // Power-of-two extents and strides satisfy every divisibility condition; the modes of
        // an injective B never overlap, so the composition must exist.
        if !brute_injective(&filter(&b).unwrap()) {
            return Ok(());
        }
        let r = composition(&a, &b);
        prop_assert!(r.is_ok(), "{} o {}: {:?}", a, b, r);
        let r = r.unwrap();
        for i in 0..b.size() {
            prop_assert_eq!(r.offset(i).unwrap(), ext_eval(&a, b.offset(i).unwrap()));
        }
    }
}

// ---------------------------------------------------------------- complement

proptest! {
    #![proptest_config(ProptestConfig::with_cases(3000))]

    #[test]
    fn complement_is_ordered_disjoint_and_large_enough(a in small_layout(), m in 1i64..=300) {
        match complement(&a, m) {
            Ok(r) => {
                let offs = r.offsets();
                prop_assert!(offs.windows(2).all(|w| w[0] < w[1]), "{} not ordered", r);
                let strides: Vec<i64> = r.flat_modes().iter().map(|x| x.1).collect();
                prop_assert!(strides.windows(2).all(|w| w[0] < w[1]));
                let fa = filter(&a).unwrap();
                prop_assert!(fa.size() * r.size() >= m);
                let ia = image(&a);
                prop_assert!(offs.iter().all(|o| *o == 0 || !ia.contains(o)), "not disjoint");
                let both = Layout::from_modes([fa.clone(), r.clone()]).unwrap();
                prop_assert!(brute_injective(&both), "({}, {}) not injective", fa, r);
                // (filter(A), R) tiles 0..size exactly.
                prop_assert_eq!(sorted_offsets(&both), (0..both.size()).collect::<Vec<_>>());
            }
            Err(e) => {
                prop_assert!(documented_rejection(e.kind()), "{}", e);
            }
        }
    }

    #[test]
    fn complement_of_compact_permutations_succeeds(a in compact_permuted(), k in 1i64..=4, m in 1i64..=200) {
        // Scale the strides: a*k is still complementable.
        let scaled = Layout::new(
            a.shape().clone(),
            a.stride().map_leaves(&mut |d| Ok(d * k)).unwrap(),
        ).unwrap();
        prop_assert!(complement(&scaled, m).is_ok());
    }

    #[test]
    fn complement_rejects_non_injective(a in small_layout(), m in 1i64..=64) {
        if !brute_injective(&filter(&a).unwrap()) {
            let e = complement(&a, m).unwrap_err();
            prop_assert_eq!(e.kind(), ErrorKind::Inadmissible);
        }
    }
}

// ---------------------------------------------------------------- inverses, nullspace

proptest! {
    #![proptest_config(ProptestConfig::with_cases(3000))]

    #[test]
    fn right_inverse_property(a in signed_layout()) {
        let r = right_inverse(&a).unwrap();
        for i in 0..r.size() {
            prop_assert_eq!(a.offset(r.offset(i).unwrap()).unwrap(), i);
        }
    }

    #[test]
    fn right_inverse_of_bijection_is_full(a in compact_permuted()) {
        let r = right_inverse(&a).unwrap();
        prop_assert_eq!(r.size(), a.size());
        prop_assert_eq!(composition(&a, &r).unwrap().offsets(), (0..a.size()).collect::<Vec<_>>());
    }

    #[test]
    fn left_inverse_property(a in small_layout()) {
        match left_inverse(&a) {
            Ok(l) => {
                for i in 0..a.size() {
                    prop_assert_eq!(l.offset(a.offset(i).unwrap()).unwrap(), i, "{} inv {}", a, l);
                }
            }
            Err(e) => {
                prop_assert_eq!(e.kind(), ErrorKind::Inadmissible);
            }
        }
        if !brute_injective(&a) {
            prop_assert!(left_inverse(&a).is_err());
        }
    }

    #[test]
    fn left_inverse_of_scaled_bijection_succeeds(a in compact_permuted(), k in 1i64..=3) {
        let scaled = Layout::new(
            a.shape().clone(),
            a.stride().map_leaves(&mut |d| Ok(d * k)).unwrap(),
        ).unwrap();
        let l = left_inverse(&scaled).unwrap();
        for i in 0..scaled.size() {
            prop_assert_eq!(l.offset(scaled.offset(i).unwrap()).unwrap(), i);
        }
    }

    #[test]
    fn nullspace_property(a in small_layout()) {
        let k = nullspace(&a).unwrap();
        for i in 0..k.size() {
            prop_assert_eq!(a.offset(k.offset(i).unwrap()).unwrap(), 0);
        }
        prop_assert!(brute_injective(&k));
        prop_assert_eq!(k.size(), a.size() / filter(&a).unwrap().size());
    }
}

// ---------------------------------------------------------------- divides and products

fn tile_sizes(l: &Layout) -> Vec<i64> {
    l.modes().iter().map(Layout::size).collect()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn logical_divide_structure(a in small_layout(), b in small_layout()) {
        let t = Tiler::Layout(b.clone());
        match logical_divide(&a, &t) {
            Ok(d) => {
                prop_assert_eq!(d.rank(), 2);
                prop_assert_eq!(d.mode(0).unwrap(), composition(&a, &b).unwrap());
                prop_assert!(d.size() >= a.size());
                let rest = complement(&b, a.size()).unwrap();
                let bb = Layout::from_modes([b.clone(), rest]).unwrap();
                for i in 0..d.size() {
                    prop_assert_eq!(d.offset(i).unwrap(), ext_eval(&a, bb.offset(i).unwrap()));
                }
                prop_assert_eq!(zipped_divide(&a, &t).unwrap(), d);
            }
            Err(e) => prop_assert!(documented_rejection(e.kind()), "{}", e),
        }
    }

    #[test]
    fn dividing_by_a_compact_tile_permutes_the_layout(a in pow2_layout(), b in pow2_compact_permuted()) {
        // A tile whose size divides size(A) splits A into whole tiles.
        if a.size() % b.size() != 0 {
            return Ok(());
        }
        let d = logical_divide(&a, &Tiler::Layout(b.clone())).unwrap();
        prop_assert_eq!(d.size(), a.size());
        prop_assert_eq!(d.mode(0).unwrap().size(), b.size());
        prop_assert_eq!(sorted_offsets(&d), sorted_offsets(&a));
    }

    #[test]
    fn by_mode_divides_regroup(a0 in compact_permuted(), a1 in compact_permuted(), b0 in 1i64..=3, b1 in 1i64..=3) {
        let a = Layout::from_modes([a0, a1]).unwrap();
        let t = Tiler::ByMode(vec![
            Some(Tiler::Layout(Layout::vector(b0, 1).unwrap())),
            Some(Tiler::Layout(Layout::vector(b1, 1).unwrap())),
        ]);
        if let Ok(ld) = logical_divide(&a, &t) {
            let z = zipped_divide(&a, &t).unwrap();
            let td = tiled_divide(&a, &t).unwrap();
            let f = flat_divide(&a, &t).unwrap();
            prop_assert_eq!(z.rank(), 2);
            prop_assert_eq!(tile_sizes(&z.mode(0).unwrap()), vec![b0, b1]);
            prop_assert_eq!(td.rank(), 1 + z.mode(1).unwrap().rank());
            prop_assert_eq!(f.rank(), 2 + z.mode(1).unwrap().rank());
            for l in [&z, &td, &f] {
                prop_assert_eq!(sorted_offsets(l), sorted_offsets(&ld));
            }
            for (i, m) in ld.modes().iter().take(2).enumerate() {
                prop_assert_eq!(m.mode(0).unwrap().size(), [b0, b1][i]);
            }
        }
    }

    #[test]
    fn logical_product_structure(a in small_layout(), b in small_layout()) {
        match logical_product(&a, &Tiler::Layout(b.clone())) {
            Ok(p) => {
                prop_assert_eq!(p.rank(), 2);
                prop_assert_eq!(p.mode(0).unwrap(), a.clone());
                prop_assert_eq!(p.size(), a.size() * b.size());
                if brute_injective(&a) && brute_injective(&b) {
                    prop_assert!(brute_injective(&p), "{} x {} = {}", a, b, p);
                }
            }
            Err(e) => prop_assert!(documented_rejection(e.kind()), "{}", e),
        }
    }

    #[test]
    fn blocked_and_raked_products(a in compact_permuted(), b in compact_permuted()) {
        let blocked = blocked_product(&a, &b).unwrap();
        let raked = raked_product(&a, &b).unwrap();
        let rank = a.rank().max(b.rank());
        prop_assert_eq!(blocked.rank(), rank);
        prop_assert_eq!(raked.rank(), rank);
        prop_assert_eq!(blocked.size(), a.size() * b.size());
        prop_assert_eq!(sorted_offsets(&blocked), sorted_offsets(&raked));
        prop_assert!(is_bijective(&blocked).unwrap());
        for i in 0..rank {
            let (bm, rm) = (blocked.mode(i).unwrap(), raked.mode(i).unwrap());
            prop_assert_eq!(bm.mode(0).unwrap(), rm.mode(1).unwrap());
            prop_assert_eq!(bm.mode(1).unwrap(), rm.mode(0).unwrap());
            let asz = a.mode(i).map_or(1, |m| m.size());
            let bsz = b.mode(i).map_or(1, |m| m.size());
            prop_assert_eq!(bm.size(), asz * bsz);
        }
    }

    #[test]
    fn tile_to_shape_covers_the_target(a in compact_permuted(), reps in prop::collection::vec(1i64..=3, 4)) {
        let target: Vec<i64> = a.modes().iter().zip(&reps).map(|(m, r)| m.size() * r).collect();
        let t = tile_to_shape(&a, &IntTuple::from_ints(target.clone())).unwrap();
        prop_assert_eq!(tile_sizes(&t), target);
        prop_assert!(is_bijective(&t).unwrap());
    }
}

// ---------------------------------------------------------------- the rest

proptest! {
    #![proptest_config(ProptestConfig::with_cases(3000))]

    #[test]
    fn injectivity_and_bijectivity_match_brute_force(a in signed_layout()) {
        prop_assert_eq!(is_injective(&a).unwrap(), brute_injective(&a), "{}", a);
        let onto = sorted_offsets(&a) == (0..a.size()).collect::<Vec<_>>();
        prop_assert_eq!(is_bijective(&a).unwrap(), onto, "{}", a);
    }

    #[test]
    fn make_ordered_layout_is_compact(a in compact_permuted()) {
        prop_assert!(is_bijective(&a).unwrap());
        prop_assert_eq!(sorted_offsets(&a), (0..a.size()).collect::<Vec<_>>());
    }

    #[test]
    fn upcast_undoes_downcast(a in signed_layout(), n in 1i64..=4) {
        match downcast(&a, n) {
            Ok(d) => prop_assert_eq!(upcast(&d, n).unwrap(), a),
            Err(e) => {
                prop_assert_eq!(e.kind(), ErrorKind::Inadmissible);
                prop_assert!(a.flat_modes().iter().all(|m| m.1.abs() != 1));
            }
        }
    }

    #[test]
    fn upcast_maps_onto_wide_elements(a in compact_permuted(), n in prop_oneof![Just(1i64), Just(2), Just(4)]) {
        // For a compact layout whose stride-1 extent is a multiple of n, the wide offsets are
        // the narrow offsets divided by n, for every n-th element along the stride-1 mode.
        if let Ok(u) = upcast(&a, n) {
            let image_wide: HashSet<i64> = a.offsets().into_iter().map(|o| o / n).collect();
            prop_assert!(u.offsets().iter().all(|o| image_wide.contains(o)));
        }
    }

    #[test]
    fn max_common_vector_is_common(a in small_layout(), b in small_layout()) {
        let n = max_common_vector(&a, &b).unwrap();
        prop_assert!(n >= 1);
        let r = max_common_layout(&a, &b).unwrap();
        if n > 1 {
            prop_assert_eq!(r.size(), n);
        }
        for i in 0..r.size() {
            let x = r.offset(i).unwrap();
            prop_assert_eq!(ext_eval(&a, x), i);
            prop_assert_eq!(b.offset(x).unwrap(), i);
        }
    }

    #[test]
    fn max_common_vector_of_a_bijection_with_itself_is_everything(a in compact_permuted()) {
        prop_assert_eq!(max_common_vector(&a, &a).unwrap(), a.size());
    }
}
