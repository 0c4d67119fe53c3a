//! Extreme inputs (huge strides, extent-1 modes with i64::MIN strides, large extents): every
//! operation returns `Ok` or a documented error, never panics (debug builds trap overflow).

use proptest::prelude::*;
use tessel_layout::{
    ErrorKind, IntTuple, Layout, Tiler, blocked_product, coalesce, complement, composition,
    downcast, filter, is_bijective, is_injective, left_inverse, logical_divide, logical_product,
    make_ordered_layout, max_common_layout, nullspace, raked_product, right_inverse, tile_to_shape,
    upcast, zipped_divide,
};

fn extreme_value() -> impl Strategy<Value = i64> {
    prop_oneof![
        -8i64..=8,
        Just(i64::MIN),
        Just(i64::MAX),
        Just(1i64 << 40),
        Just(-(1i64 << 40)),
        Just(1i64 << 62),
        Just(3i64 << 30),
    ]
}

fn extreme_layout() -> impl Strategy<Value = Layout> {
    let extent = prop_oneof![
        1i64..=8,
        Just(1i64 << 20),
        Just(1i64 << 31),
        Just(3i64 << 20)
    ];
    prop::collection::vec((extent, extreme_value()), 1..=4).prop_filter_map(
        "a valid layout",
        |leaves| {
            Layout::new(
                IntTuple::from_ints(leaves.iter().map(|l| l.0)),
                IntTuple::from_ints(leaves.iter().map(|l| l.1)),
            )
            .ok()
        },
    )
}

fn documented<T>(r: tessel_layout::Result<T>) -> bool {
    match r {
        Ok(_) => true,
        Err(e) => matches!(
            e.kind(),
            ErrorKind::Inadmissible
                | ErrorKind::InvalidArgument
                | ErrorKind::Overflow
                | ErrorKind::NotCongruent
        ),
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(800))]

    #[test]
    fn no_operation_panics(a in extreme_layout(), b in extreme_layout(), n in extreme_value()) {
        let tb = Tiler::Layout(b.clone());
        prop_assert!(documented(coalesce(&a)));
        prop_assert!(documented(filter(&a)));
        prop_assert!(documented(composition(&a, &b)));
        prop_assert!(documented(complement(&a, n)));
        prop_assert!(documented(right_inverse(&a)));
        prop_assert!(documented(left_inverse(&a)));
        prop_assert!(documented(nullspace(&a)));
        prop_assert!(documented(logical_divide(&a, &tb)));
        prop_assert!(documented(zipped_divide(&a, &tb)));
        prop_assert!(documented(logical_product(&a, &tb)));
        prop_assert!(documented(blocked_product(&a, &b)));
        prop_assert!(documented(raked_product(&a, &b)));
        prop_assert!(documented(tile_to_shape(&a, b.shape())));
        prop_assert!(documented(make_ordered_layout(a.shape(), b.shape())));
        prop_assert!(documented(max_common_layout(&a, &b)));
        prop_assert!(documented(upcast(&a, n)));
        prop_assert!(documented(downcast(&a, n)));
        prop_assert!(documented(is_bijective(&a)));
        // is_injective may enumerate up to its limit; keep it to small layouts here.
        if a.size() <= 1 << 12 {
            prop_assert!(documented(is_injective(&a)));
        }
    }
}
