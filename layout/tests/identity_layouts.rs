//! Identity (coordinate) layouts and scaled-basis strides (CuTe's `make_identity_layout`,
//! `make_identity_tensor`, `ScaledBasis` / `E<i>`: `include/cute/numeric/arithmetic_tuple.hpp`
//! and `media/docs/cpp/cute/0y_predication.md`, CUTLASS v4.2.1). A layout with basis strides
//! maps a coordinate to a coordinate; every operation on it is checked against its definition
//! and against the same operation on an integer layout of the same shape: tiling or partitioning
//! the identity layout gives, at every coordinate, the coordinate whose offset the tiled or
//! partitioned integer layout gives (which is what predication relies on).

mod common;

use proptest::prelude::*;
use tessel_layout::basis::ScaledBasis;
use tessel_layout::expr::eval;
use tessel_layout::static_int::Integer;
use tessel_layout::typed::TypedLayout;
use tessel_layout::typed::algebra::{self as talg, TypedTiler};
use tessel_layout::{IntTuple, Layout, SliceCoord, coord};

fn dynamic(i: i64) -> IntTuple<Integer> {
    IntTuple::Int(Integer::Dynamic(i))
}

/// The offset `layout` gives the coordinate `c` of its shape (a coordinate layout's value:
/// elements it does not reach are 0; an integer standing for a sub-shape is split over it,
/// colexicographically, with CuTe's unbounded last mode).
fn offset_of(c: &IntTuple<Integer>, layout: &Layout) -> i64 {
    fn go(c: &IntTuple<Integer>, shape: &IntTuple, stride: &IntTuple) -> i64 {
        match (c, shape, stride) {
            (IntTuple::Int(v), _, _) => common::ext_eval(
                &Layout::new(shape.clone(), stride.clone()).unwrap(),
                v.value(),
            ),
            (IntTuple::Tuple(cs), IntTuple::Tuple(ss), IntTuple::Tuple(ds)) => cs
                .iter()
                .zip(ss.iter().zip(ds.iter()))
                .map(|(c, (s, d))| go(&c, &s, &d))
                .sum(),
            _ => panic!("coordinate {c} is deeper than the shape {shape}"),
        }
    }
    go(c, layout.shape(), layout.stride())
}

/// CuTe prints the identity layout of a shape with the unit basis strides
/// (`arithmetic_tuple.hpp`: `E<0>` prints `_1@0`, `E<1,0>` prints `_1@0@1`).
#[test]
fn identity_layouts_print_as_cute_prints() {
    for (s, want) in [
        ("(_4,_8)", "(_4,_8):(_1@0,_1@1)"),
        ("(4,8)", "(4,8):(_1@0,_1@1)"),
        ("(_2,(_3,4))", "(_2,(_3,4)):(_1@0,(_1@0@1,_1@1@1))"),
        ("_8", "_8:_1"),
    ] {
        let id = TypedLayout::identity(&s.parse().unwrap()).unwrap();
        assert_eq!(id.to_string(), want);
        assert_eq!(
            eval(&format!("make_identity_layout({s})"))
                .unwrap()
                .to_string(),
            want
        );
        assert_eq!(
            eval(&format!("make_identity_tensor({s})"))
                .unwrap()
                .to_string(),
            want
        );
        // It parses back.
        assert_eq!(want.parse::<TypedLayout>().unwrap(), id);
    }
    // E<1,0> is (_0,(_1)) as a coordinate.
    assert_eq!(
        ScaledBasis::unit(&[1, 0]).to_coord().unwrap().to_string(),
        "(_0,(_1))"
    );
}

/// The identity layout maps every index, and every coordinate of a compatible shape, to the
/// natural coordinate of the shape.
#[test]
fn the_identity_maps_each_coordinate_to_itself() {
    for s in ["(4,8)", "(_3,(_2,_3))", "((2,2),(3,2))", "(2,3,4)"] {
        let shape: IntTuple<Integer> = s.parse().unwrap();
        let id = TypedLayout::identity(&shape).unwrap();
        for i in 0..id.size().value() {
            let natural = coord::idx2crd(&dynamic(i), &shape).unwrap();
            assert_eq!(id.at(&dynamic(i)).unwrap(), natural, "{id} at {i}");
            assert_eq!(id.at(&natural).unwrap(), natural, "{id} at {natural}");
        }
    }
}

/// Composition with an identity layout: `R(c) = A(B(c))` holds as coordinates.
#[test]
fn composition_of_an_identity_layout_is_a_coordinate_layout() {
    let id = TypedLayout::identity(&"(_8,_16)".parse().unwrap()).unwrap();
    for b in [
        "(_4,_32):(_32,_1)",
        "(_2,_8):(_1,_2)",
        "_16:_8",
        "((_2,_4),_16):((_1,_2),_8)",
    ] {
        let b: TypedLayout = b.parse().unwrap();
        let r = talg::composition(&id, &b).unwrap();
        assert!(r.is_static(), "{r}");
        for i in 0..b.size().value() {
            let inner = b.at(&dynamic(i)).unwrap();
            assert_eq!(
                r.at(&dynamic(i)).unwrap().values(),
                id.at(&inner).unwrap().values(),
                "{id} o {b} at {i}"
            );
        }
    }
}

/// CuTe 0y_predication.md: the identity tensor is tiled and partitioned exactly as the data
/// is, and the coordinate it gives at every element is the element's coordinate in the data.
/// Here with a 100 x 70 column-major matrix in 32 x 32 tiles and 8 x 8 threads.
#[test]
fn the_identity_is_tiled_and_partitioned_like_the_data() {
    let shape: IntTuple<Integer> = "(100,70)".parse().unwrap();
    let data = Layout::new((100, 70), (1, 100)).unwrap();
    let id = TypedLayout::identity(&shape).unwrap();
    let tiler: TypedTiler = "[_32:_1,_32:_1]".parse().unwrap();
    let plain_tiler = tiler.values().unwrap();
    let thr: TypedLayout = "(_8,_8)".parse().unwrap();
    for tile in [(0, 0), (3, 2), (1, 1)] {
        let at = SliceCoord::from(&IntTuple::from((tile.0, tile.1)));
        let (cta_c, start) = talg::local_tile(&id, &tiler, &at).unwrap();
        let (cta_g, offset) = tessel_layout::local_tile(&data, &plain_tiler, &at).unwrap();
        assert_eq!(cta_c.to_string(), "(_32,_32):(_1@0,_1@1)");
        for i in 0..cta_g.size() {
            let c = tessel_layout::int_tuple::arith::add(&start, &cta_c.at(&dynamic(i)).unwrap())
                .unwrap();
            assert_eq!(offset_of(&c, &data), offset + cta_g.offset(i).unwrap());
        }
        for thread in [0, 9, 63] {
            let (t_c, t_start) = talg::local_partition(&cta_c, &thr, thread).unwrap();
            let (t_g, t_offset) =
                tessel_layout::local_partition(&cta_g, &thr.values().unwrap(), thread).unwrap();
            for i in 0..t_g.size() {
                let c = tessel_layout::int_tuple::arith::add(&start, &t_start).unwrap();
                let c = tessel_layout::int_tuple::arith::add(&c, &t_c.at(&dynamic(i)).unwrap())
                    .unwrap();
                assert_eq!(
                    offset_of(&c, &data),
                    offset + t_offset + t_g.offset(i).unwrap(),
                    "tile {tile:?} thread {thread} value {i}"
                );
            }
        }
    }
}

/// The predicate of 0y_predication.md: `elem_less(coord, shape(mC))` is true exactly for the
/// coordinates inside the matrix. Tile (3,2) of a 100 x 70 matrix in 32 x 32 tiles holds rows
/// 96..128 and columns 64..96, of which 4 x 6 are inside.
#[test]
fn predication_counts_the_elements_in_bounds() {
    let inside = eval("local_tile(make_identity_tensor((100,70)), [_32,_32], (3,2))").unwrap();
    assert_eq!(
        inside.to_string(),
        "ArithTuple(96,64) o (_32,_32):(_1@0,_1@1)"
    );
    let mut count = 0;
    for i in 0..32 * 32 {
        let e = format!(
            "elem_less(at(local_tile(make_identity_tensor((100,70)), [_32,_32], (3,2)), {i}), (100,70))"
        );
        if eval(&e).unwrap().to_string() == "true" {
            count += 1;
        }
    }
    assert_eq!(count, 4 * 6);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    /// Composing the identity layout of A's shape with B, then reading the coordinates through
    /// A, gives A o B (the basis composition, computed through its prime stand-in, agrees with
    /// the integer one on the same shape).
    #[test]
    fn identity_composition_agrees_with_integer_composition(
        a in common::compact_permuted(), b in common::small_layout()
    ) {
        let plain = tessel_layout::composition(&a, &b);
        let shape = IntTuple::<Integer>::of(a.shape(), false);
        let id = TypedLayout::identity(&shape).unwrap();
        let typed_b = TypedLayout::of(&b, false);
        let coords = talg::composition(&id, &typed_b);
        if let (Ok(p), Ok(c)) = (plain, coords) {
            prop_assert_eq!(p.size(), c.size().value());
            for i in 0..p.size() {
                let crd = c.at(&dynamic(i)).unwrap();
                prop_assert_eq!(offset_of(&crd, &a), p.offset(i).unwrap(), "{} o {} at {}", id, b, i);
            }
        }
    }
}
