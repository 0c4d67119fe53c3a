//! Property tests of coalesce, filter, composition, complement, the inverses and the nullspace:
//! every `Ok` result satisfies its defining post-condition, and every rejection is an error of a
//! documented kind (never a panic). Sizes stay small (<= a few thousand) so brute force can
//! check each result exactly.

mod common;

use common::*;
use proptest::prelude::*;
use tessel_layout::{
    ErrorKind, IntTuple, Layout, coalesce, coalesce_profile, complement, composition, filter,
    left_inverse, nullspace, right_inverse,
};

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
                let ia = image(&a);
                prop_assert!(offs.iter().all(|o| *o == 0 || !ia.contains(o)), "not disjoint");
                let both = Layout::from_modes([fa.clone(), r.clone()]).unwrap();
                prop_assert!(brute_injective(&both), "({}, {}) not injective", fa, r);
                // (A, R) spans the cotarget: its top mode's extent*stride reaches it. (CuTe's
                // complement.cpp also asserts cosize((A, R)) >= cotarget for its inputs; where a
                // gap was rounded down the top copy of A's gap stays empty and that can fail,
                // e.g. A = (2,2):(3,11), cotarget 62, R = (3,3):(1,22).)
                let span = both.flat_modes().iter().map(|x| x.0 * x.1).max().unwrap_or(1).max(1);
                prop_assert!(span >= m, "({}, {}) spans {} < {}", fa, r, span, m);
                // Without gaps to round, (filter(A), R) tiles 0..size exactly.
                let mut modes = fa.flat_modes();
                modes.sort_by_key(|x| x.1);
                let exact = modes.windows(2).all(|w| w[1].1 % (w[0].0 * w[0].1) == 0);
                if exact {
                    prop_assert!(fa.size() * r.size() >= m);
                    prop_assert_eq!(sorted_offsets(&both), (0..both.size()).collect::<Vec<_>>());
                }
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
                // CuTe test/unit/cute/core/inverse_left.cpp: a(l(a(i))) == a(i); l(a(i)) == i
                // where a is injective.
                let injective = brute_injective(&a);
                for i in 0..a.size() {
                    let back = ext_eval(&l, a.offset(i).unwrap());
                    prop_assert_eq!(ext_eval(&a, back), a.offset(i).unwrap(), "{} inv {}", a, l);
                    if injective {
                        prop_assert_eq!(back, i, "{} inv {}", a, l);
                    }
                }
            }
            Err(e) => {
                prop_assert_eq!(e.kind(), ErrorKind::Inadmissible);
            }
        }
        // Only the modes with a non-zero stride need to be injective.
        if !brute_injective(&filter(&a).unwrap()) {
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
