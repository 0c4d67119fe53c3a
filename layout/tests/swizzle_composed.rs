//! ComposedLayout: chains, composition, slicing, casts.

use proptest::prelude::*;
use tessel_layout::{ComposedLayout, IntTuple, Layout, SliceCoord, Swizzle};

#[test]
fn chains_apply_innermost_first() {
    let c: ComposedLayout = "Sw<1,3,3> o Sw<3,3,5> o (16,256):(256,1)".parse().unwrap();
    let inner = Swizzle::new(3, 3, 5).unwrap();
    let outer = Swizzle::new(1, 3, 3).unwrap();
    for (i, o) in c.layout().offsets().into_iter().enumerate() {
        assert_eq!(c.offset(i as i64).unwrap(), outer.apply(inner.apply(o)));
    }
}

#[test]
fn swizzle_after_composed_layouts_concatenates_chains() {
    let outer: ComposedLayout = "Sw<1,3,3> o 4096:1".parse().unwrap();
    let inner: ComposedLayout = "Sw<3,3,5> o (16,256):(256,1)".parse().unwrap();
    let both = outer.compose_composed(&inner).unwrap();
    for i in 0..inner.size() {
        let mid = inner.offset(i).unwrap();
        assert_eq!(both.offset(i).unwrap(), outer.offset(mid).unwrap());
    }
    // A layout after a swizzle is no composed layout.
    let strided: ComposedLayout = "Sw<1,3,3> o 4096:2".parse().unwrap();
    let err = strided.compose_composed(&inner).unwrap_err();
    assert!(err.to_string().contains("not the identity"), "{err}");
    // Values leaving the outer domain are refused.
    let small: ComposedLayout = "Sw<1,3,3> o 1024:1".parse().unwrap();
    assert!(small.compose_composed(&inner).is_err());
}

#[test]
fn composed_o_layout_uses_the_layout_composition() {
    let c: ComposedLayout = "Sw<3,3,3> o (8,64):(64,1)".parse().unwrap();
    let b: Layout = "(8,8):(1,8)".parse().unwrap();
    let r = c.compose(&b).unwrap();
    assert_eq!(r.to_string(), "Sw<3,3,3> o (8,8):(64,1)");
    for i in 0..b.size() {
        assert_eq!(
            r.offset(i).unwrap(),
            c.offset(b.offset(i).unwrap()).unwrap()
        );
    }
    // the algebra's admissibility errors come through
    assert!(c.compose(&"6:3".parse().unwrap()).is_err());
}

#[test]
fn composed_casts_follow_the_elements() {
    let bytes: ComposedLayout = "Sw<3,4,3> o 1024:1".parse().unwrap();
    let halves = bytes.upcast(2).unwrap();
    assert_eq!(halves.swizzles(), &[Swizzle::new(3, 3, 3).unwrap()]);
    for i in 0..halves.size() {
        assert_eq!(2 * halves.offset(i).unwrap(), bytes.offset(2 * i).unwrap());
    }
    assert_eq!(halves.downcast(2).unwrap(), bytes);
    let odd: ComposedLayout = "Sw<3,4,3> o 3 o 1024:1".parse().unwrap();
    assert!(odd.upcast(2).is_err());
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    #[test]
    fn slicing_keeps_the_offset_before_the_swizzle(row in 0i64..8, col in 0i64..64, offset in 0i64..100) {
        let c = ComposedLayout::new(
            vec![Swizzle::new(3, 3, 3).unwrap()],
            offset,
            "(8,64):(64,1)".parse().unwrap(),
        );
        let r = c.slice(&SliceCoord::Tuple(vec![SliceCoord::Index(row), SliceCoord::All])).unwrap();
        prop_assert_eq!(
            r.offset(col).unwrap(),
            c.at(&IntTuple::from_ints([row, col])).unwrap()
        );
        let k = c.slice(&SliceCoord::Tuple(vec![SliceCoord::All, SliceCoord::Index(col)])).unwrap();
        prop_assert_eq!(
            k.offset(row).unwrap(),
            c.at(&IntTuple::from_ints([row, col])).unwrap()
        );
    }
}
