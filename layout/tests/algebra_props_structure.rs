//! Property tests of divides, products, ordered layouts, casts, common vectors and
//! injectivity: every `Ok` result satisfies its post-condition; rejections are documented
//! errors. Sizes stay small so brute force can check each result exactly.

mod common;

use std::collections::HashSet;

use common::*;
use proptest::prelude::*;
use tessel_layout::{
    ErrorKind, IntTuple, Layout, Tiler, blocked_product, coalesce, complement_to_shape,
    composition, downcast, flat_divide, is_bijective, is_injective, logical_divide,
    logical_product, make_ordered_layout, max_common_layout, max_common_vector, raked_product,
    tile_to_shape, tile_to_shape_ordered, tiled_divide, upcast, zipped_divide,
};

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
                // CuTe: the complement is taken under the shape of coalesce(A).
                let rest = complement_to_shape(&b, coalesce(&a).unwrap().shape()).unwrap();
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
    fn by_mode_divides_regroup(a0 in small_compact_permuted(), a1 in small_compact_permuted(), b0 in 1i64..=3, b1 in 1i64..=3) {
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
    fn blocked_and_raked_products(a in small_compact_permuted(), b in compact_permuted()) {
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
            // The same functions; CuTe's zip wraps a leaf half with the other half whole, so a
            // rank-1 tuple may be kept on one side only (blocked ((1,1)), raked ((1,(1))) for
            // A = (1):(0), B = 1:0).
            prop_assert_eq!(bm.mode(0).unwrap().offsets(), rm.mode(1).unwrap().offsets());
            prop_assert_eq!(bm.mode(1).unwrap().offsets(), rm.mode(0).unwrap().offsets());
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

    // CuTe include/cute/layout.hpp: tile_to_shape(block, shape, order) is
    // blocked_product(block, make_ordered_layout(product_shape, order)).
    #[test]
    fn tile_to_shape_ordered_is_the_blocked_product_of_the_ordered_repeats(
        a in compact_permuted(),
        reps in prop::collection::vec(1i64..=3, 4),
        perm in Just((0i64..4).collect::<Vec<_>>()).prop_shuffle(),
    ) {
        let rank = a.rank();
        let target: Vec<i64> = a.modes().iter().zip(&reps).map(|(m, r)| m.size() * r).collect();
        let order: Vec<i64> = perm.iter().copied().filter(|&p| (p as usize) < rank).collect();
        let t = tile_to_shape_ordered(&a, &IntTuple::from_ints(target.clone()), &IntTuple::from_ints(order.clone())).unwrap();
        let repeats: Vec<i64> = reps[..rank].to_vec();
        let tiles = make_ordered_layout(&IntTuple::from_ints(repeats), &IntTuple::from_ints(order)).unwrap();
        prop_assert_eq!(&t, &blocked_product(&a, &tiles).unwrap());
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
            // The same function back (an extent-1 leaf of stride -1 grows as stride 1).
            Ok(d) => prop_assert_eq!(upcast(&d, n).unwrap().offsets(), a.offsets()),
            Err(e) => {
                prop_assert_eq!(e.kind(), ErrorKind::Inadmissible);
                prop_assert!(a.flat_modes().iter().all(|m| m.1 != 1 && *m != (1, -1)));
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

proptest! {
    #![proptest_config(ProptestConfig::with_cases(1000))]

    #[test]
    fn kept_and_skipped_modes_are_regrouped(
        a0 in small_compact_permuted(),
        a1 in small_compact_permuted(),
        a2 in small_compact_permuted(),
        b0 in 1i64..=3,
    ) {
        // Tiler [b0:1, _] on a rank-3 layout: mode 1 is kept and, as CuTe's tile_unzip
        // (zip2_by) does, taken apart as (tile, rest) when it has rank 2 (an error otherwise);
        // mode 2 is beyond the tiler and lands in the rest.
        let a = Layout::from_modes([a0, a1.clone(), a2.clone()]).unwrap();
        let t = Tiler::ByMode(vec![Some(Tiler::Layout(Layout::vector(b0, 1).unwrap())), None]);
        let splits = !a1.shape().is_int() && a1.rank() == 2;
        for (name, op) in [
            ("divide", zipped_divide as fn(&Layout, &Tiler) -> tessel_layout::Result<Layout>),
            ("product", tessel_layout::zipped_product),
        ] {
            let z = match op(&a, &t) {
                Ok(z) => z,
                Err(e) => {
                    prop_assert!(!splits || e.kind() != ErrorKind::Inadmissible
                        || !e.message().contains("'_' entry"), "{}: {}", name, e);
                    continue;
                }
            };
            prop_assert!(splits, "{}: {} accepted a '_' over the rank-{} mode {}", name, z, a1.rank(), a1);
            let (tile, rest) = (z.mode(0).unwrap(), z.mode(1).unwrap());
            prop_assert_eq!(tile.rank(), 2, "{}", name);
            prop_assert_eq!(tile.mode(1).unwrap(), a1.mode(0).unwrap());
            prop_assert_eq!(rest.rank(), 3);
            prop_assert_eq!(rest.mode(1).unwrap(), a1.mode(1).unwrap());
            prop_assert_eq!(rest.mode(2).unwrap(), a2.clone());
        }
        if let Ok(f) = flat_divide(&a, &t) {
            prop_assert_eq!(f.rank(), 5);
        }
        if let Ok(td) = tiled_divide(&a, &t) {
            prop_assert_eq!(td.rank(), 4);
        }
    }
}

#[test]
fn rank_one_products_and_tilings_keep_rank_one() {
    // CuTe's blocked_product zips the two halves; for rank-1 operands that is ((A,B*)).
    let a: Layout = "4:1".parse().unwrap();
    let b: Layout = "3:1".parse().unwrap();
    let p = blocked_product(&a, &b).unwrap();
    assert_eq!(p.rank(), 1);
    assert_eq!(p.mode(0).unwrap().rank(), 2);
    assert_eq!(p.size(), 12);
    let t = tile_to_shape(&a, &IntTuple::Int(12)).unwrap();
    assert_eq!(t.rank(), 1);
    assert_eq!(t.size(), 12);
    assert!(is_bijective(&t).unwrap());
}
