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
    // A strided outer layout moves the inner swizzle's bits up by one: Sw<3,3,5> -> Sw<3,4,5>.
    let strided: ComposedLayout = "Sw<1,3,3> o 4096:2".parse().unwrap();
    let moved = strided.compose_composed(&inner).unwrap();
    assert_eq!(moved.swizzles()[1], Swizzle::new(3, 4, 5).unwrap());
    for i in 0..inner.size() {
        let mid = inner.offset(i).unwrap();
        assert_eq!(moved.offset(i).unwrap(), strided.offset(mid).unwrap());
    }
    // A layout read past its domain runs on in its last mode (CuTe's convention), so an
    // identity of any size passes the inner values through.
    let small: ComposedLayout = "Sw<1,3,3> o 1024:1".parse().unwrap();
    let through = small.compose_composed(&inner).unwrap();
    assert_eq!(through.swizzles(), both.swizzles());
    // A transposing outer layout whose last mode carries into the moved bits is refused.
    let transposed: ComposedLayout = "(8,8):(8,1)".parse().unwrap();
    let err = transposed.compose_composed(&inner).unwrap_err();
    assert!(err.to_string().contains("not a composed layout"), "{err}");
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

#[test]
fn offsets_past_i64_are_errors() {
    let near = ComposedLayout::new(vec![], i64::MAX - 7, "8:1".parse().unwrap());
    assert_eq!(near.offset(7).unwrap(), i64::MAX);
    let over = ComposedLayout::new(vec![], i64::MAX, "8:1".parse().unwrap());
    assert_eq!(over.offset(0).unwrap(), i64::MAX);
    let e = over.offset(1).unwrap_err();
    assert!(e.to_string().contains("overflows i64"), "{e}");
    assert!(over.at(&IntTuple::Int(7)).is_err());
    let e = "Sw<3,3,3> o 9223372036854775807 o 8:1"
        .parse::<ComposedLayout>()
        .unwrap_err();
    assert!(e.to_string().contains("overflows i64"), "{e}");
}
