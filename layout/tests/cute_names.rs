//! CuTe fidelity: answers that were once wrong (is_bijective with an offset and a negative
//! stride, downcast with two unit strides, max_common_vector past the smaller layout), and the
//! CuTe names of layout manipulation (make_layout, append, prepend, replace, group, select,
//! take, get, product_each, recast, slicing with `_`, local_tile, local_partition).
//!
//! Golden vectors are CuTe's published examples, each with its source; properties are checked
//! against their defining formulas by enumeration.

mod common;

use std::collections::BTreeMap;

use common::{l, layout_strategy};
use proptest::prelude::*;
use tessel_layout::{
    ComposedLayout, IntTuple, Layout, SliceCoord, Tiler, downcast, is_injective, local_partition,
    local_tile, max_common_layout, max_common_vector, recast, right_inverse, upcast, verify,
};

fn composed(s: &str) -> ComposedLayout {
    s.parse().unwrap_or_else(|e| panic!("bad layout {s}: {e}"))
}

/// Brute force: the offsets reached, each with its multiplicity.
fn multiset(offsets: impl IntoIterator<Item = i64>) -> BTreeMap<i64, usize> {
    let mut m = BTreeMap::new();
    for o in offsets {
        *m.entry(o).or_insert(0) += 1;
    }
    m
}

/// Brute force: whether the offsets are exactly 0..n, each once.
fn onto_prefix(offsets: &[i64]) -> bool {
    let mut sorted = offsets.to_vec();
    sorted.sort_unstable();
    sorted.iter().copied().eq(0..offsets.len() as i64)
}

// ---- is_bijective: onto 0..size, offsets and negative strides included ----

#[test]
fn offset_three_then_reversed_four_is_a_bijection_onto_0_to_4() {
    let c = composed("3 o 4:-1");
    assert_eq!(c.offsets(), vec![3, 2, 1, 0]);
    assert!(verify::is_bijective(&c).unwrap());
    assert!(verify::is_injective(&c).unwrap());
}

#[test]
fn reversed_layouts_without_the_matching_offset_are_not_bijective() {
    // 4:-1 reaches -3..=0, 2 o 4:-1 reaches -1..=2: one-to-one, but not onto 0..4.
    for s in ["4:-1", "2 o 4:-1", "4 o 4:-1"] {
        let c = composed(s);
        assert!(!verify::is_bijective(&c).unwrap(), "{s}");
        assert!(verify::is_injective(&c).unwrap(), "{s}");
    }
    // Offset 7 then (4,2):(-1,-4): offsets 7..=0 each once.
    assert!(verify::is_bijective(&composed("7 o (4,2):(-1,-4)")).unwrap());
    // A mix of signs: (2,4):(-1,2) reaches -1..=6, so offset 1 makes it 0..8.
    assert!(verify::is_bijective(&composed("1 o (2,4):(-1,2)")).unwrap());
    assert!(!verify::is_bijective(&composed("(2,4):(-1,2)")).unwrap());
}

proptest! {
    #[test]
    fn is_bijective_matches_enumeration(
        l in layout_strategy(3, 1..=4, -9..=9),
        offset in -12i64..=12,
    ) {
        let c = ComposedLayout::new(vec![], offset, l.clone());
        let offsets = c.offsets();
        prop_assert_eq!(verify::is_bijective(&c).unwrap(), onto_prefix(&offsets), "{}", c);
        if offset == 0 {
            prop_assert_eq!(tessel_layout::is_bijective(&l).unwrap(), onto_prefix(&offsets));
        }
    }
}

// ---- downcast: never a layout whose function disagrees with the definition ----

/// Brute force of downcast's definition: element `c` becomes the narrow offsets
/// `n*layout(c) + j`, `j < n`.
fn narrow_offsets(layout: &Layout, n: i64) -> BTreeMap<i64, usize> {
    multiset(
        layout
            .offsets()
            .into_iter()
            .flat_map(|o| (0..n).map(move |j| n * o + j)),
    )
}

#[test]
fn downcast_with_two_unit_strides_grows_only_one_leaf() {
    let a = l("(1,8):(1,1)");
    let d = downcast(&a, 4).unwrap();
    assert_eq!(d.size(), 32);
    assert_eq!(multiset(d.offsets()), narrow_offsets(&a, 4));
    assert!(is_injective(&d).unwrap());
    assert_eq!(upcast(&d, 4).unwrap(), a);
    // Two unit strides of extent > 1 (not injective): still one grown leaf.
    let b = l("(2,2):(1,1)");
    let e = downcast(&b, 2).unwrap();
    assert_eq!(multiset(e.offsets()), narrow_offsets(&b, 2));
}

#[test]
fn downcast_matches_cute_where_cute_is_right() {
    // CuTe include/cute/layout.hpp, downcast: "For stride-1 mode, multiply size by N. Multiply
    // all other strides by N."
    assert_eq!(
        downcast(&l("(4,4):(1,4)"), 2).unwrap().to_string(),
        "(8,4):(1,8)"
    );
    assert_eq!(
        downcast(&l("(8,4):(4,1)"), 2).unwrap().to_string(),
        "(8,8):(8,1)"
    );
    assert_eq!(
        downcast(&l("(1,8):(1,2)"), 4).unwrap().to_string(),
        "(4,8):(1,8)"
    );
}

#[test]
fn downcast_errors_name_the_condition() {
    let e = downcast(&l("(4,4):(2,8)"), 2).unwrap_err();
    assert!(e.to_string().contains("adjacent elements"), "{e}");
    let e = downcast(&l("8:-1"), 2).unwrap_err();
    assert!(e.to_string().contains("-1"), "{e}");
}

proptest! {
    #[test]
    fn downcast_agrees_with_its_definition(
        l in layout_strategy(3, 1..=4, -6..=6),
        n in 1i64..=4,
    ) {
        if let Ok(d) = downcast(&l, n) {
            prop_assert_eq!(d.size(), n * l.size());
            prop_assert_eq!(multiset(d.offsets()), narrow_offsets(&l, n), "{} -> {}", l, d);
            // Upcasting back gives the same function (an extent-1 leaf may change its stride).
            prop_assert_eq!(upcast(&d, n).unwrap().offsets(), l.offsets());
        }
    }
}

// ---- max_common_vector: at most min(size(A), size(B)), and its definition holds ----

#[test]
fn max_common_vector_of_a_short_and_a_long_vector_is_the_short_size() {
    // CuTe include/cute/layout.hpp: "@post For all 0 <= n < N, a(b.get_1d_coord(n)) == n";
    // a = 32:1 has only 32 elements.
    assert_eq!(max_common_vector(&l("32:1"), &l("64:1")).unwrap(), 32);
    assert_eq!(max_common_vector(&l("64:1"), &l("32:1")).unwrap(), 32);
    assert_eq!(
        max_common_layout(&l("32:1"), &l("64:1"))
            .unwrap()
            .to_string(),
        "32:1"
    );
}

/// The defining condition of `n` (CuTe's postcondition), by enumeration: `R(j)` is a domain
/// index of both layouts and both map it to `j`.
fn common_prefix_holds(a: &Layout, b: &Layout, n: i64) -> bool {
    let r = right_inverse(b).unwrap();
    n <= r.size()
        && (0..n).all(|j| {
            let i = r.offset(j).unwrap();
            i < a.size() && i < b.size() && a.offset(i).unwrap() == j && b.offset(i).unwrap() == j
        })
}

proptest! {
    #[test]
    fn max_common_vector_satisfies_its_definition(
        a in layout_strategy(3, 1..=6, 0..=16),
        b in layout_strategy(3, 1..=6, 0..=16),
    ) {
        let n = max_common_vector(&a, &b).unwrap();
        prop_assert!(n >= 1);
        prop_assert!(n <= a.size().min(b.size()), "{} {} -> {}", a, b, n);
        if n > 1 {
            prop_assert!(common_prefix_holds(&a, &b, n), "{} {} -> {}", a, b, n);
            let m = max_common_layout(&a, &b).unwrap();
            prop_assert_eq!(m.size(), n);
            for i in 0..n {
                let at = m.offset(i).unwrap();
                prop_assert_eq!(a.offset(at).unwrap(), i);
                prop_assert_eq!(b.offset(at).unwrap(), i);
            }
        }
    }
}

// ---- recast ----

#[test]
fn recast_is_upcast_then_downcast_by_the_reduced_ratio() {
    // CuTe include/cute/layout.hpp, recast_layout: scale = new/old bits; upcast<num>, then
    // downcast<den>.
    let a = l("(8,8):(8,1)");
    assert_eq!(recast(&a, 16, 32).unwrap(), upcast(&a, 2).unwrap());
    assert_eq!(recast(&a, 16, 8).unwrap(), downcast(&a, 2).unwrap());
    assert_eq!(recast(&a, 16, 16).unwrap(), a);
    let b = l("(6,4):(1,6)");
    assert_eq!(
        recast(&b, 32, 48).unwrap(),
        downcast(&upcast(&b, 3).unwrap(), 2).unwrap()
    );
    assert!(recast(&a, 0, 8).is_err());
}

// ---- layout manipulation by CuTe's names ----

#[test]
fn concatenation_and_sublayouts_match_the_cute_docs() {
    // CuTe media/docs/cpp/cute/01_layout.md, "Concatenation", "Sublayouts", "Grouping".
    let a = l("3:1");
    let b = l("4:3");
    let ab = a.append(&b).unwrap();
    assert_eq!(ab.to_string(), "(3,4):(1,3)");
    assert_eq!(a.prepend(&b).unwrap().to_string(), "(4,3):(3,1)");
    let c = ab.append(&ab).unwrap();
    assert_eq!(c.to_string(), "(3,4,(3,4)):(1,3,(1,3))");
    assert_eq!(c.replace(2, &b).unwrap().to_string(), "(3,4,4):(1,3,3)");
    assert!(c.replace(3, &b).is_err());
    let d = l("(2,3,5,7):(1,2,6,30)");
    assert_eq!(
        d.select(&[0, 1, 3]).unwrap().to_string(),
        "(2,3,7):(1,2,30)"
    );
    assert_eq!(d.take(1, 4).unwrap().to_string(), "(3,5,7):(2,6,30)");
    assert_eq!(
        d.group(0, 2).unwrap().to_string(),
        "((2,3),5,7):((1,2),6,30)"
    );
    assert!(d.select(&[4]).is_err());
    let e = l("(4,(3,6)):(1,(4,12))");
    assert_eq!(e.get(&[0]).unwrap().to_string(), "4:1");
    assert_eq!(e.get(&[1, 1]).unwrap().to_string(), "6:12");
    assert!(e.get(&[0, 1]).is_err());
}

fn by_mode(sizes: &[i64]) -> Tiler {
    Tiler::ByMode(
        sizes
            .iter()
            .map(|&n| Some(Tiler::Layout(Layout::vector(n, 1).unwrap())))
            .collect(),
    )
}

#[test]
fn slicing_follows_cute_lift_slice() {
    // CuTe media/docs/cpp/cute/03_tensor.md, "Slicing a Tensor": tensor D = A((_,_),5) has
    // rank 2, C = A(_,5) rank 1; the offset is A at the coordinate with `_` as 0.
    let a = l("((3,2),(2,5,2)):((4,1),(2,13,100))");
    let d = SliceCoord::Tuple(vec![
        SliceCoord::Tuple(vec![SliceCoord::All, SliceCoord::All]),
        SliceCoord::Index(5),
    ]);
    let (sub, off) = a.slice(&d).unwrap();
    assert_eq!(sub.to_string(), "(3,2):(4,1)");
    assert_eq!(off, a.crd2idx(&IntTuple::from_ints([0, 5])).unwrap());
}

proptest! {
    /// Every tile of a tiling that divides the layout, taken at its offset, together covers
    /// the layout's offsets exactly (as a multiset), and tile (i,j) element (x,y) is
    /// L(i*tm + x, j*tn + y).
    #[test]
    fn local_tiles_partition_the_layout(
        (tm, rm) in (1i64..=4, 1i64..=3),
        (tn, rn) in (1i64..=4, 1i64..=3),
        d0 in -5i64..=5, d1 in -20i64..=20,
    ) {
        let full = Layout::new(
            IntTuple::from_ints([tm * rm, tn * rn]),
            IntTuple::from_ints([d0, d1]),
        ).unwrap();
        let mut seen = Vec::new();
        for i in 0..rm {
            for j in 0..rn {
                let coord = SliceCoord::from(&IntTuple::from_ints([i, j]));
                let (tile, off) = local_tile(&full, &by_mode(&[tm, tn]), &coord).unwrap();
                for x in 0..tm {
                    for y in 0..tn {
                        let here = off + tile.crd2idx(&IntTuple::from_ints([x, y])).unwrap();
                        let want = full.crd2idx(&IntTuple::from_ints([i * tm + x, j * tn + y])).unwrap();
                        prop_assert_eq!(here, want);
                        seen.push(here);
                    }
                }
            }
        }
        prop_assert_eq!(multiset(seen), multiset(full.offsets()));
    }

    /// Thread t of a compact thread layout gets the elements L(c0 + p0*r0, c1 + p1*r1), where
    /// (c0,c1) is the coordinate the thread layout maps to t and (p0,p1) its shape.
    #[test]
    fn local_partitions_deal_out_the_layout(
        (p0, r0) in (1i64..=4, 1i64..=3),
        (p1, r1) in (1i64..=4, 1i64..=3),
        row_major in any::<bool>(),
        d0 in 1i64..=5, d1 in 1i64..=30,
    ) {
        let full = Layout::new(
            IntTuple::from_ints([p0 * r0, p1 * r1]),
            IntTuple::from_ints([d0, d1]),
        ).unwrap();
        let shape = IntTuple::from_ints([p0, p1]);
        let thr = if row_major { Layout::row_major(&shape) } else { Layout::col_major(&shape) }.unwrap();
        let mut seen = Vec::new();
        for t in 0..p0 * p1 {
            let (part, off) = local_partition(&full, &thr, t).unwrap();
            let (c0, c1) = if row_major { (t / p1, t % p1) } else { (t % p0, t / p0) };
            prop_assert_eq!(thr.crd2idx(&IntTuple::from_ints([c0, c1])).unwrap(), t);
            for a in 0..r0 {
                for b in 0..r1 {
                    let here = off + part.crd2idx(&IntTuple::from_ints([a, b])).unwrap();
                    let want = full.crd2idx(&IntTuple::from_ints([c0 + p0 * a, c1 + p1 * b])).unwrap();
                    prop_assert_eq!(here, want);
                    seen.push(here);
                }
            }
        }
        prop_assert_eq!(multiset(seen), multiset(full.offsets()));
    }
}
