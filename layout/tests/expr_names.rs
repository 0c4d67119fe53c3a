//! The CuTe names of layout manipulation in the expression language (`tessel eval`):
//! shape, stride, make_layout, append, prepend, replace, group, select, take, get/layout,
//! product_each, recast, slicing with `_` through `at`, local_tile and local_partition, and
//! the suggestions for misspelt names. Golden results are CuTe's published examples, each with
//! its source; partitions are also checked element by element against their definitions.

use tessel_layout::Layout;
use tessel_layout::expr::{Value, eval, registry};

fn ok(text: &str) -> String {
    match eval(text) {
        Ok(v) => v.to_string(),
        Err(e) => panic!("{text}: {e}"),
    }
}

fn err(text: &str) -> String {
    match eval(text) {
        Ok(v) => panic!("{text} should fail, got {v}"),
        Err(e) => e.to_string(),
    }
}

fn layout(text: &str) -> Layout {
    text.parse()
        .unwrap_or_else(|e| panic!("bad layout {text}: {e}"))
}

/// The (inner layout, offset) of a value that is a layout, possibly at an offset.
fn at_offset(text: &str) -> (Layout, i64) {
    match eval(text).unwrap_or_else(|e| panic!("{text}: {e}")) {
        Value::Layout(l) => (l, 0),
        Value::Composed(c) if c.swizzles().is_empty() => (c.layout().clone(), c.base_offset()),
        other => panic!("{text}: not a layout at an offset: {other}"),
    }
}

#[test]
fn make_layout_from_shapes_strides_and_layouts() {
    // CuTe media/docs/cpp/cute/01_layout.md, "Construction" (printed results).
    assert_eq!(ok("make_layout(8)"), "8:1");
    assert_eq!(ok("make_layout((2,4))"), "(2,4):(1,2)");
    assert_eq!(ok("make_layout((2,4), (12,1))"), "(2,4):(12,1)");
    assert_eq!(
        ok("make_layout((2,(2,2)), (4,(2,1)))"),
        "(2,(2,2)):(4,(2,1))"
    );
    assert_eq!(
        ok("make_layout(shape((2,(2,2)):(4,(2,1))))"),
        "(2,(2,2)):(1,(2,4))"
    );
    // CuTe media/docs/cpp/cute/01_layout.md, "Concatenation".
    assert_eq!(ok("make_layout(3:1, 4:3)"), "(3,4):(1,3)");
    assert_eq!(ok("make_layout(4:3, 3:1)"), "(4,3):(3,1)");
    assert_eq!(
        ok("make_layout(make_layout(3:1, 4:3), make_layout(4:3, 3:1))"),
        "((3,4),(4,3)):((1,3),(3,1))"
    );
    assert_eq!(ok("make_layout(3:1)"), "(3):(1)");
    assert_eq!(ok("make_layout(make_layout(3:1))"), "((3)):((1))");
    assert_eq!(
        ok("make_layout(3:1, make_layout(3:1), 3:1)"),
        "(3,(3),3):(1,(1),1)"
    );
    // Errors name the condition.
    assert!(err("make_layout((2,4), (1,2,3))").contains("not congruent"));
    assert!(err("make_layout(2, 3, 4)").contains("a shape and optionally a stride"));
    assert!(err("make_layout(3:1, 4)").contains("as argument 2, got the integer 4"));
}

#[test]
fn append_prepend_replace() {
    // CuTe media/docs/cpp/cute/01_layout.md, "Concatenation".
    assert_eq!(ok("append(3:1, 4:3)"), "(3,4):(1,3)");
    assert_eq!(ok("prepend(3:1, 4:3)"), "(4,3):(3,1)");
    assert_eq!(
        ok("append((3,4):(1,3), (3,4):(1,3))"),
        "(3,4,(3,4)):(1,3,(1,3))"
    );
    assert_eq!(
        ok("replace((3,4,(3,4)):(1,3,(1,3)), 2, 4:3)"),
        "(3,4,4):(1,3,3)"
    );
    // On tuples (CuTe include/cute/container/tuple_algorithms.hpp: append, prepend, replace).
    assert_eq!(ok("append((2,3), 4)"), "(2,3,4)");
    assert_eq!(ok("append(2, 3)"), "(2,3)");
    assert_eq!(ok("prepend((2,3), (4,5))"), "((4,5),2,3)");
    assert_eq!(ok("replace((2,3,4), 1, 7)"), "(2,7,4)");
    assert!(err("replace((3,4):(1,3), 2, 4:3)").contains("mode 2 does not exist"));
}

#[test]
fn group_select_take_get() {
    // CuTe media/docs/cpp/cute/01_layout.md, "Grouping and flattening".
    let a = "(2,3,5,7):(1,2,6,30)";
    assert_eq!(ok(&format!("group({a}, 0, 2)")), "((2,3),5,7):((1,2),6,30)");
    assert_eq!(
        ok(&format!("group(group({a}, 0, 2), 1, 3)")),
        "((2,3),(5,7)):((1,2),(6,30))"
    );
    assert_eq!(ok(&format!("flatten(group({a}, 0, 2))")), a);
    // CuTe media/docs/cpp/cute/01_layout.md, "Sublayouts".
    assert_eq!(ok(&format!("select({a}, 1, 3)")), "(3,7):(2,30)");
    assert_eq!(ok(&format!("select({a}, 0, 1, 3)")), "(2,3,7):(1,2,30)");
    assert_eq!(ok(&format!("select({a}, 2)")), "(5):(6)");
    assert_eq!(ok(&format!("take({a}, 1, 3)")), "(3,5):(2,6)");
    assert_eq!(ok(&format!("take({a}, 1, 4)")), "(3,5,7):(2,6,30)");
    assert!(err(&format!("take({a}, 1, 1)")).contains("begin < end"));
    let b = "(4,(3,6)):(1,(4,12))";
    assert_eq!(ok(&format!("layout({b}, 0)")), "4:1");
    assert_eq!(ok(&format!("layout({b}, 1)")), "(3,6):(4,12)");
    assert_eq!(ok(&format!("layout({b}, 1, 0)")), "3:4");
    assert_eq!(ok(&format!("get({b}, 1, 1)")), "6:12");
    // On tuples.
    assert_eq!(ok("group((2,3,5,7), 1, 3)"), "(2,(3,5),7)");
    assert_eq!(ok("select((2,3,5,7), 3, 0)"), "(7,2)");
    assert_eq!(ok("take((2,3,5,7), 0, 2)"), "(2,3)");
}

#[test]
fn shape_stride_product_each() {
    // CuTe media/docs/cpp/cute/01_layout.md: shape<I...>(x) := shape(get<I...>(x)).
    let b = "(4,(3,6)):(1,(4,12))";
    assert_eq!(ok(&format!("shape({b})")), "(4,(3,6))");
    assert_eq!(ok(&format!("stride({b})")), "(1,(4,12))");
    assert_eq!(ok(&format!("shape({b}, 1)")), "(3,6)");
    assert_eq!(ok(&format!("stride({b}, 1, 1)")), "12");
    assert_eq!(ok("shape(Sw<3,3,3> o (8,64):(64,1))"), "(8,64)");
    assert!(err("stride(Sw<3,3,3> o (8,64):(64,1))").contains("no stride"));
    // product_each: the size of every top-level mode.
    assert_eq!(ok(&format!("product_each(shape({b}))")), "(4,18)");
    assert_eq!(ok("product_each(8)"), "8");
}

#[test]
fn recast_is_recast_layout() {
    // CuTe include/cute/layout.hpp recast_layout: new/old = 2 -> upcast<2>, 1/2 -> downcast<2>.
    assert_eq!(
        ok("recast((8,8):(8,1), 16, 32)"),
        ok("upcast((8,8):(8,1), 2)")
    );
    assert_eq!(
        ok("recast((8,8):(8,1), 16, 8)"),
        ok("downcast((8,8):(8,1), 2)")
    );
    assert_eq!(ok("recast_layout((8,8):(8,1), 16, 8)"), "(8,16):(16,1)");
    assert_eq!(
        ok("recast(Sw<3,3,3> o (8,64):(64,1), 16, 32)"),
        ok("upcast(Sw<3,3,3> o (8,64):(64,1), 2)")
    );
    assert!(err("recast(8:1, 0, 8)").contains("at least 1 bit"));
}

#[test]
fn at_with_underscores_slices_like_cute() {
    // CuTe media/docs/cpp/cute/03_tensor.md, "Slicing a Tensor": the layouts of B..F.
    let a = "((3,2),(2,5,2)):((4,1),(2,13,100))";
    let cases = [
        ("(2,_)", "((2,5,2)):((2,13,100))"),
        ("(_,5)", "((3,2)):((4,1))"),
        ("((_,_),5)", "(3,2):(4,1)"),
        ("((_,1),(0,_,1))", "(3,5):(4,13)"),
        ("((2,_),(_,3,_))", "(2,2,2):(1,2,100)"),
    ];
    let full = layout(a);
    for (coord, golden) in cases {
        let (sub, offset) = at_offset(&format!("at({a}, {coord})"));
        assert_eq!(sub.to_string(), golden, "{coord}");
        // The offset is the layout at the coordinate with every `_` at 0.
        let zeroed: tessel_layout::IntTuple = coord.replace('_', "0").parse().unwrap();
        assert_eq!(offset, full.crd2idx(&zeroed).unwrap(), "{coord}");
    }
    // The layout at an offset prints as OFFSET o LAYOUT; offset 0 is the plain layout.
    assert_eq!(ok("at((4,8):(1,4), (_,1))"), "4 o (4):(1)");
    assert_eq!(ok("at((4,8):(1,4), (_,0))"), "(4):(1)");
    assert_eq!(ok("at((4,8):(1,4), _)"), "(4,8):(1,4)");
    assert_eq!(ok("at((4,8):(1,4), (1,_))"), "1 o (8):(4)");
    // A full coordinate still gives the offset.
    assert_eq!(ok("at((4,8):(1,4), (3,1))"), "7");
    // Swizzled: the slice offset goes before the swizzle.
    assert_eq!(
        ok("at(Sw<3,3,3> o (8,64):(64,1), (1,_))"),
        "Sw<3,3,3> o 64 o (64):(1)"
    );
    assert!(err("at((4,8):(1,4), (_,1,2))").contains("rank"));
    assert!(err("at((4,8):(1,4), (_,8))").contains("outside"));
}

#[test]
fn underscore_stays_out_of_layout_literals() {
    assert!(err("_").contains("'_' may only stand for a mode"));
    assert!(err("(_,1):(1,1)").contains("shape of a layout must be an integer or a tuple"));
    assert!(err("size((_,1))").contains("size expects"));
}

/// Brute force of local_tile's definition for a by-mode tiler on a rank-2 layout: element
/// `(a, b)` of tile `(i, j)` is `L(i*tm + a, j*tn + b)`.
fn check_tile(l: &str, (tm, tn): (i64, i64), (i, j): (i64, i64)) {
    let full = layout(l);
    let (tile, offset) = at_offset(&format!("local_tile({l}, ({tm},{tn}), ({i},{j}))"));
    assert_eq!(tile.shape().to_string(), format!("({tm},{tn})"));
    for a in 0..tm {
        for b in 0..tn {
            let c = tessel_layout::IntTuple::from_ints([a, b]);
            let whole = tessel_layout::IntTuple::from_ints([i * tm + a, j * tn + b]);
            assert_eq!(
                offset + tile.crd2idx(&c).unwrap(),
                full.crd2idx(&whole).unwrap(),
                "tile ({i},{j}) element ({a},{b})"
            );
        }
    }
}

#[test]
fn local_tile_takes_one_tile_at_its_offset() {
    // CuTe media/docs/cpp/cute/03_tensor.md: (8,24) in (4,8) tiles, tile coordinate into the
    // rest mode (2,3); each tile has shape (4,8).
    for i in 0..2 {
        for j in 0..3 {
            check_tile("(8,24):(1,8)", (4, 8), (i, j));
            check_tile("(8,24):(24,1)", (4, 8), (i, j));
        }
    }
    assert_eq!(
        ok("local_tile((8,24):(1,8), (4,8), (1,2))"),
        "132 o (4,8):(1,8)"
    );
    // A 1-D index runs over all tiles colexicographically: tile 5 is (1,2).
    assert_eq!(
        ok("local_tile((8,24):(1,8), (4,8), 5)"),
        ok("local_tile((8,24):(1,8), (4,8), (1,2))")
    );
    // CuTe media/docs/cpp/cute/0x_gemm_tutorial.md: local_tile(mA, (BLK_M,BLK_K), (m,_)) has
    // shape (BLK_M,BLK_K,k).
    let (g_a, offset) = at_offset("local_tile((256,64):(1,256), (128,8), (1,_))");
    assert_eq!(g_a.shape().to_string(), "(128,8,8)");
    assert_eq!(
        (g_a.to_string(), offset),
        ("(128,8,8):(1,256,2048)".to_string(), 128)
    );
    assert!(err("local_tile((8,24):(1,8), (4,8), (2,0))").contains("outside"));
}

#[test]
fn local_partition_gives_each_thread_its_elements() {
    // CuTe include/cute/tensor_impl.hpp: a (16,64) tensor over a (2,16) thread layout gives
    // each thread an (8,4) partition.
    let (p, _) = at_offset("local_partition((16,64):(1,16), (2,16):(1,2), 5)");
    assert_eq!(p.shape().to_string(), "(8,4)");
    // CuTe media/docs/cpp/cute/0x_gemm_tutorial.md: a (128,8) tile over (32,8) threads gives
    // (THR_M,THR_K) = (4,1).
    let (p, _) = at_offset("local_partition((128,8):(1,128), (32,8):(1,32), 0)");
    assert_eq!(p.shape().to_string(), "(4,1)");
    // CuTe media/docs/cpp/cute/03_tensor.md: (8,24) over 4x8 threads: each thread (2,3).
    // Definition: thread t at coordinate (t0,t1) of the thread layout gets the elements
    // L(t0 + 4*r0, t1 + 8*r1).
    let full = layout("(8,24):(1,8)");
    for (thr, coord_of) in [
        (
            "(4,8):(1,4)",
            (|t: i64| (t % 4, t / 4)) as fn(i64) -> (i64, i64),
        ),
        ("(4,8):(8,1)", |t: i64| (t / 8, t % 8)),
    ] {
        for t in 0..32 {
            let (part, offset) = at_offset(&format!("local_partition((8,24):(1,8), {thr}, {t})"));
            assert_eq!(part.shape().to_string(), "(2,3)");
            let (t0, t1) = coord_of(t);
            for r0 in 0..2 {
                for r1 in 0..3 {
                    let c = tessel_layout::IntTuple::from_ints([r0, r1]);
                    let whole = tessel_layout::IntTuple::from_ints([t0 + 4 * r0, t1 + 8 * r1]);
                    assert_eq!(
                        offset + part.crd2idx(&c).unwrap(),
                        full.crd2idx(&whole).unwrap(),
                        "{thr} thread {t}"
                    );
                }
            }
        }
    }
    assert!(err("local_partition((8,24):(1,8), (4,8):(1,8), 4)").contains("thread index 4"));
    assert!(err("local_partition((8,24):(1,8), (4,8):(0,4), 1)").contains("stride-0"));
}

#[test]
fn suggestions_are_plausible_names_only() {
    let unknown = |name: &str| err(&format!("{name}(8:1)"));
    assert!(
        unknown("make_layot").contains("the nearest known function is 'make_layout'"),
        "{}",
        unknown("make_layot")
    );
    assert!(unknown("local_tyle").contains("'local_tile'"));
    // Far from every name: no suggestion at all.
    for name in ["frobnicate", "xyz", "tensor_core_magic"] {
        let e = unknown(name);
        assert!(e.contains(&format!("unknown function '{name}'")), "{e}");
        assert!(!e.contains("nearest"), "{e}");
    }
}

#[test]
fn help_lists_every_new_name_with_its_meaning() {
    for name in [
        "shape",
        "stride",
        "make_layout",
        "layout",
        "append",
        "prepend",
        "replace",
        "group",
        "select",
        "take",
        "get",
        "product_each",
        "recast",
        "recast_layout",
        "local_tile",
        "local_partition",
    ] {
        let f = registry::lookup(name).unwrap_or_else(|| panic!("{name} is not a function"));
        assert!(f.params.starts_with('('), "{name}");
        assert!(!f.summary.is_empty(), "{name}");
    }
}
