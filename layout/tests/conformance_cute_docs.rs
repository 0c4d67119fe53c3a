//! Conformance with CuTe's layout-algebra and tensor documentation: every worked example of
//! `media/docs/cpp/cute/02_layout_algebra.md` and the layout of every example of
//! `media/docs/cpp/cute/03_tensor.md` (CUTLASS v4.2.1,
//! https://github.com/NVIDIA/cutlass/tree/v4.2.1/media/docs/cpp/cute), written in `tessel eval`
//! notation (static integers as CuTe's `_N`), with the expected value quoted from the document.
//! `01_layout.md` is covered by `cute_static_dynamic.rs`, `construction_api.rs`, `cute_names.rs`
//! and `expr_names.rs`; pycute's `test/python/pycute/*.py` by `algebra_admissible.rs`,
//! `cute_coord_functions.rs` and the last test here. Cases tessel cannot state are listed in
//! docs/cute.md with the reason.

use tessel_layout::expr::eval;
use tessel_layout::{IntTuple, Layout};

const ALGEBRA: &str = "media/docs/cpp/cute/02_layout_algebra.md (CUTLASS v4.2.1)";
const TENSOR: &str = "media/docs/cpp/cute/03_tensor.md (CUTLASS v4.2.1)";

fn ok(text: &str) -> String {
    match eval(text) {
        Ok(v) => v.to_string(),
        Err(e) => panic!("{text}: {e}"),
    }
}

/// Checks each `(expression, expected)` pair of a document.
fn check(doc: &str, cases: &[(&str, &str)]) {
    for (expr, want) in cases {
        assert_eq!(ok(expr), *want, "{doc}: {expr}");
    }
}

fn l(s: &str) -> Layout {
    s.parse().unwrap()
}

#[test]
fn coalesce_section() {
    check(
        ALGEBRA,
        &[
            // "Coalesce": Layout<Shape<_2,Shape<_1,_6>>, Stride<_1,Stride<_6,_2>>> -> _12:_1
            ("coalesce((_2,(_1,_6)):(_1,(_6,_2)))", "_12:_1"),
            // "(_2,_4):(_1,_2) act identically to _8:_1"
            ("coalesce((_2,_4):(_1,_2))", "_8:_1"),
            // "By-mode Coalesce": coalesce(a, Step<_1,_1>{}) // (_2,_6):(_1,_2)
            (
                "coalesce((_2,(_1,_6)):(_1,(_6,_2)), (_1,_1))",
                "(_2,_6):(_1,_2)",
            ),
        ],
    );
    // The four rules of "Coalesce", each on a two-mode layout:
    // 1. s0:d0 ++ _1:d1 => s0:d0; 2. _1:d0 ++ s1:d1 => s1:d1; 3. s0:d0 ++ s1:s0*d0 => s0*s1:d0;
    // 4. otherwise (s0,s1):(d0,d1).
    check(
        ALGEBRA,
        &[
            ("coalesce((_4,_1):(_3,_7))", "_4:_3"),
            ("coalesce((_1,_4):(_7,_3))", "_4:_3"),
            ("coalesce((_4,_5):(_3,_12))", "_20:_3"),
            ("coalesce((_4,_5):(_3,_13))", "(_4,_5):(_3,_13)"),
        ],
    );
}

#[test]
fn composition_section() {
    check(
        ALGEBRA,
        &[
            // "Functional Composition": A = (6,2):(8,2), B = (4,3):(3,1), R = ((2,2),3):((24,2),8)
            ("(6,2):(8,2) o (4,3):(3,1)", "((2,2),3):((24,2),8)"),
            // "Computing Composition" step 1: (6,2):(8,2) o 4:3 and step 2: (6,2):(8,2) o 3:1
            // ((6,2):(8,2) / 3 = (2,2):(24,2), % 4 = (2,2):(24,2); / 1, % 3 = (3,1):(8,2))
            ("(6,2):(8,2) o 4:3", "(2,2):(24,2)"),
            ("(6,2):(8,2) o 3:1", "3:8"),
            // "Example 1 -- Reshape a layout into a matrix": 20:2 o (5,4):(4,1) = (5,4):(8,2),
            // with "20:2 o 5:4 => 5:8" and "20:2 o 4:1 => 4:2".
            ("20:2 o (5,4):(4,1)", "(5,4):(8,2)"),
            ("20:2 o 5:4", "5:8"),
            ("20:2 o 4:1", "4:2"),
            // "Example 2": (10,2):(16,4) o (5,4):(1,5); "The following C++ code prints
            // (_5,(_2,_2)):(_16,(_80,_4))" (static integers), with "(10,2):(16,4) o 5:1 =>
            // (5,1):(16,4)" (tessel drops the extent-1 mode: 5:16) and "o 4:5 => (2,2):(80,4)".
            (
                "(_10,_2):(_16,_4) o (_5,_4):(_1,_5)",
                "(_5,(_2,_2)):(_16,(_80,_4))",
            ),
            ("(10,2):(16,4) o 5:1", "5:16"),
            ("(10,2):(16,4) o 4:5", "(2,2):(80,4)"),
            // "By-mode Composition": tiler <3:4, 8:2> on (12,(4,8)):(59,(13,1))
            // "// (_3,(2,4)):(236,(26,1))"
            (
                "composition((12,(4,8)):(59,(13,1)), [_3:_4, _8:_2])",
                "(_3,(2,4)):(236,(26,1))",
            ),
            // tiler = make_shape(Int<3>{}, Int<8>{}) "// (_3,(4,2)):(59,(13,1))"
            (
                "composition((12,(4,8)):(59,(13,1)), (_3,_8))",
                "(_3,(4,2)):(59,(13,1))",
            ),
        ],
    );
    // "If we use dynamic integers, the following C++ code prints ((5,1),(2,2)):((16,4),(80,4))":
    // tessel's plain family drops the extent-1 mode (docs/cute.md); the same function.
    let r = l(&ok("(10,2):(16,4) o (5,4):(1,5)"));
    let cute = l("((5,1),(2,2)):((16,4),(80,4))");
    assert_eq!(r.offsets(), cute.offsets(), "{ALGEBRA}: dynamic Example 2");
}

#[test]
fn shape_division_and_modulus() {
    // "Computing Composition": the shape division and modulus examples.
    check(
        ALGEBRA,
        &[
            ("shape_div((6,2), 2)", "(3,2)"),
            ("shape_div((6,2), 3)", "(2,2)"),
            ("shape_div((6,2), 6)", "(1,2)"),
            ("shape_div((6,2), 12)", "(1,1)"),
            ("shape_div((3,6,2,8), 3)", "(1,6,2,8)"),
            ("shape_div((3,6,2,8), 6)", "(1,3,2,8)"),
            ("shape_div((3,6,2,8), 9)", "(1,2,2,8)"),
            ("shape_div((3,6,2,8), 72)", "(1,1,1,4)"),
            ("shape_mod((6,2), 2)", "(2,1)"),
            ("shape_mod((6,2), 3)", "(3,1)"),
            ("shape_mod((6,2), 6)", "(6,1)"),
            ("shape_mod((6,2), 12)", "(6,2)"),
            ("shape_mod((3,6,2,8), 6)", "(3,2,1,1)"),
            ("shape_mod((3,6,2,8), 9)", "(3,3,1,1)"),
            ("shape_mod((1,2,2,8), 2)", "(1,2,1,1)"),
            ("shape_mod((1,2,2,8), 16)", "(1,2,2,4)"),
        ],
    );
    // "we can construct the composition (3,6,2,8):(w,x,y,z) o 16:9 = (1,2,2,4):(9*w,3*x,y,z)":
    // with strides that do not merge, (w,x,y,z) = (1,100,1000,10000); tessel drops the
    // extent-1 mode, as CuTe does for a static one.
    let r = ok("(3,6,2,8):(1,100,1000,10000) o 16:9");
    assert_eq!(r, "(2,2,4):(300,1000,10000)", "{ALGEBRA}");
    let cute = l("(1,2,2,4):(9,300,1000,10000)");
    assert_eq!(l(&r).offsets(), cute.offsets());
}

#[test]
fn complement_section() {
    // "Complement Examples".
    check(
        ALGEBRA,
        &[
            ("complement(4:1, 24)", "6:4"),
            ("complement(6:4, 24)", "4:1"),
            ("complement((4,6):(1,4), 24)", "1:0"),
            ("complement(4:2, 24)", "(2,3):(1,8)"),
            ("complement((2,4):(1,6), 24)", "3:2"),
            ("complement((2,2):(1,6), 24)", "(3,2):(2,12)"),
        ],
    );
    // "Note that (4,6):(1,4) has cosize 24", "(6,4):(4,1) has cosize 24", "(4,(2,3)):(2,(1,8))
    // has cosize 24", "((2,4),3):((1,6),2) has cosize 24 and produces unique indices",
    // "((2,2),(3,2)):((1,6),(2,12)) has cosize 24 and produces unique indices".
    for (a, n) in [
        ("make_layout(4:1, complement(4:1, 24))", "(4,6):(1,4)"),
        ("make_layout(6:4, complement(6:4, 24))", "(6,4):(4,1)"),
        (
            "make_layout(4:2, complement(4:2, 24))",
            "(4,(2,3)):(2,(1,8))",
        ),
        (
            "make_layout((2,4):(1,6), complement((2,4):(1,6), 24))",
            "((2,4),3):((1,6),2)",
        ),
        (
            "make_layout((2,2):(1,6), complement((2,2):(1,6), 24))",
            "((2,2),(3,2)):((1,6),(2,12))",
        ),
    ] {
        assert_eq!(ok(a), n, "{ALGEBRA}: {a}");
        assert_eq!(ok(&format!("cosize({n})")), "24", "{ALGEBRA}: {n}");
        assert_eq!(ok(&format!("is_injective({n})")), "true", "{ALGEBRA}: {n}");
    }
}

#[test]
fn division_section() {
    check(
        ALGEBRA,
        &[
            // "Logical Divide 1-D Example": complement of B = 4:2 under size(A) = 24 is
            // (2,3):(1,8); (B,B*) = (4,(2,3)):(2,(1,8)); the result ((2,2),(2,3)):((4,1),(2,8)).
            ("complement(4:2, size((4,2,3):(2,1,8)))", "(2,3):(1,8)"),
            (
                "(4,2,3):(2,1,8) o (4,(2,3)):(2,(1,8))",
                "((2,2),(2,3)):((4,1),(2,8))",
            ),
            (
                "logical_divide((4,2,3):(2,1,8), 4:2)",
                "((2,2),(2,3)):((4,1),(2,8))",
            ),
            // "Logical Divide 2-D Example": "the first mode of each mode of the result is the
            // sublayout (3,(2,4)):(177,(13,2)) and is precisely the result we would have received
            // if we had applied composition instead of logical_divide".
            (
                "composition((9,(4,8)):(59,(13,1)), [3:3, (2,4):(1,8)])",
                "(3,(2,4)):(177,(13,2))",
            ),
            (
                "layout(zipped_divide((9,(4,8)):(59,(13,1)), [3:3, (2,4):(1,8)]), 0)",
                "(3,(2,4)):(177,(13,2))",
            ),
        ],
    );
    // "Zipped, tiled, and flat divides" on the static layout_a and tiler <3:3, (2,4):(1,8)>:
    // "((TileM,RestM), (TileN,RestN)) with shape ((3,3), (8,4))" for logical_divide and
    // "((TileM,TileN), (RestM,RestN)) with shape ((3,8), (3,4))" for zipped_divide: the sizes
    // of the modes of each mode.
    let a = "(_9,(_4,_8)):(_59,(_13,_1))";
    let t = "[_3:_3, (_2,_4):(_1,_8)]";
    for (f, sizes) in [
        ("logical_divide", [[3, 3], [8, 4]]),
        ("zipped_divide", [[3, 8], [3, 4]]),
    ] {
        for (i, row) in sizes.iter().enumerate() {
            for (j, want) in row.iter().enumerate() {
                let e = format!("size(get({f}({a}, {t}), {i}, {j}))");
                assert_eq!(ok(&e), format!("_{want}"), "{ALGEBRA}: {e}");
            }
        }
    }
    // "it is always the case that layout<0>(zd) == composition(layout_a, tiler)"... and the
    // rest mode of zipped_divide, (RestM,RestN): the offsets of the tiles.
    let zd = format!("zipped_divide({a}, {t})");
    assert_eq!(
        ok(&format!("layout({zd}, 0)")),
        ok(&format!("composition({a}, {t})")),
        "{ALGEBRA}"
    );
}

#[test]
fn product_section() {
    check(
        ALGEBRA,
        &[
            // "Logical Product 1-D Example": complement of A = (2,2):(4,1) under 6*4 = 24 is
            // A* = (2,3):(2,8); A* o B = (2,3):(2,8); the result ((2,2),(2,3)):((4,1),(2,8)).
            ("complement((2,2):(4,1), 24)", "(2,3):(2,8)"),
            ("(2,3):(2,8) o 6:1", "(2,3):(2,8)"),
            (
                "logical_product((2,2):(4,1), 6:1)",
                "((2,2),(2,3)):((4,1),(2,8))",
            ),
        ],
    );
    // "with B = (4,2):(2,1), there are 8 repeated tiles instead of 6 and the tiles are in a
    // different order": the rest mode is the complement (2,4):(2,8) composed with B.
    let p = l(&ok("logical_product((2,2):(4,1), (4,2):(2,1))"));
    let rest = p.mode(1).unwrap();
    assert_eq!(rest.size(), 8, "{ALGEBRA}");
    let complement = l("(2,4):(2,8)");
    let b = l("(4,2):(2,1)");
    for i in 0..8 {
        let tile = complement.offset(b.offset(i).unwrap()).unwrap();
        assert_eq!(rest.offset(i).unwrap(), tile, "{ALGEBRA}: tile {i}");
    }
}

#[test]
fn tensor_construction_layouts() {
    // "Nonowning Tensors" and "Owning Tensors": the layout part of what print shows.
    check(
        TENSOR,
        &[
            // tensor_8 : ptr[32b](...) o _8:_1 ; tensor_8s: make_tensor(A, Int<8>{})
            ("make_layout(_8)", "_8:_1"),
            // tensor_8d2: make_tensor(A, 8, 2) -> 8:2
            ("make_layout(8, 2)", "8:2"),
            // gmem_8d: make_tensor(make_gmem_ptr(A), 8) -> 8:_1
            ("make_layout(8)", "8:1"),
            // gmem_8sx16d: make_shape(Int<8>{},16) -> (_8,16):(_1,_8)
            ("make_layout((_8,16))", "(_8,16):(_1,_8)"),
            // gmem_8dx16s: make_shape(8,Int<16>{}), make_stride(Int<16>{},Int<1>{}) -> (8,_16):(_16,_1)
            ("make_layout((8,_16), (_16,_1))", "(8,_16):(_16,_1)"),
            // smem_4x8_col / rmem_4x8_col: (_4,_8):(_1,_4); smem_4x8_row / rmem_4x8_row: LayoutRight
            ("make_layout((_4,_8))", "(_4,_8):(_1,_4)"),
            (
                "make_layout((_4,_8), compact_row_major((_4,_8)))",
                "(_4,_8):(_8,_1)",
            ),
            // rmem_4x8_pad: Stride<_32,_2> -> (_4,_8):(_32,_2); rmem_4x8_like: (_4,_8):(_8,_1)
            ("make_layout((_4,_8), (_32,_2))", "(_4,_8):(_32,_2)"),
            ("make_layout_like((_4,_8):(_32,_2))", "(_4,_8):(_8,_1)"),
        ],
    );
    // "gmem_8d : gmem_ptr[32b](...) o 8:_1": tessel's plain family prints the derived stride
    // as a dynamic 1 (docs/semantics.md, differences); the function is the same.
    assert_eq!(l(&ok("make_layout(8)")), l("8:_1"));
}

#[test]
fn tensor_slicing() {
    // "Slicing a Tensor": A = ((_3,2),(2,_5,_2)):((4,1),(_2,13,100)), and the layouts of B..F.
    // tessel writes a slice as OFFSET o LAYOUT; the offset is A at the coordinate with every
    // `_` read as 0 (where the sliced tensor's iterator starts).
    let a = "((_3,2),(2,_5,_2)):((4,1),(_2,13,100))";
    for (coord, zeros, want) in [
        ("(2,_)", "(2,0)", "((2,_5,_2)):((_2,13,100))"),
        // C = A(_,5): the document prints ((_3,_2)):((4,1)), but A's extent 2 is the dynamic
        // `2` of make_shape(Int<3>{},2), as the document's own D = A(make_coord(_,_),5),
        // (_3,2):(4,1), shows: tessel keeps A's kinds.
        ("(_,5)", "(0,5)", "((_3,2)):((4,1))"),
        ("((_,_),5)", "((0,0),5)", "(_3,2):(4,1)"),
        ("((_,1),(0,_,1))", "((0,1),(0,0,1))", "(_3,_5):(4,13)"),
        ("((2,_),(_,3,_))", "((2,0),(0,3,0))", "(2,2,_2):(1,_2,100)"),
    ] {
        let got = ok(&format!("at({a}, {coord})"));
        let start = ok(&format!("at({a}, {zeros})"));
        let (offset, layout) = got.split_once(" o ").unwrap();
        assert_eq!(offset, start, "{TENSOR}: A{coord}");
        assert_eq!(layout, want, "{TENSOR}: A{coord}");
    }
}

#[test]
fn tensor_partitioning() {
    check(
        TENSOR,
        &[
            // "Partitioning a Tensor": A = make_tensor(ptr, make_shape(8,24)), tiler
            // Shape<_4,_8>, zipped_divide(A, tiler) // ((_4,_8),(2,3))
            (
                "shape(zipped_divide(make_layout((8,24)), (_4,_8)))",
                "((_4,_8),(2,3))",
            ),
            // cta_a = tiled_a(make_coord(_,_), make_coord(blockIdx.x, blockIdx.y)) // (_4,_8)
            (
                "shape(local_tile(make_layout((8,24)), (_4,_8), (1,2)))",
                "(_4,_8)",
            ),
            // thr_a = tiled_a(threadIdx.x, make_coord(_,_)) // (2,3)
            (
                "shape(local_partition(make_layout((8,24)), make_layout((_4,_8)), 5))",
                "(2,3)",
            ),
            // "Thread-Value partitioning": tv_layout (T8,V4) -> (M4,N8) composed with a 4x8
            // LayoutRight tensor is (8,4); v = tv(threadIdx.x, _) is (4).
            (
                "shape((_4,_8):(_8,_1) o ((_2,_4),(_2,_2)):((_8,_1),(_4,_16)))",
                "((_2,_4),(_2,_2))",
            ),
            (
                "size(at((_4,_8):(_8,_1) o ((_2,_4),(_2,_2)):((_8,_1),(_4,_16)), (3,_)))",
                "_4",
            ),
            // "Examples": gmem = make_tensor(ptr, make_shape(Int<8>{}, 16)), rmem =
            // make_tensor_like(gmem(_, 0)) // (_8)
            (
                "make_layout_like(at(make_layout((_8,16)), (_,0)))",
                "(_8):(_1)",
            ),
            // gmem (24,16), tiler Shape<_8,_4>: zipped_divide // ((_8,_4),Rest), Rest = (3,4)
            (
                "shape(zipped_divide(make_layout((24,16)), (_8,_4)))",
                "((_8,_4),(3,4))",
            ),
        ],
    );
    // v = tv(threadIdx.x, _) holds A at the coordinates tv_layout gives thread t: for t = 0,
    // A(tv_layout(0, v)) for v in 0..4, by the definition of composition.
    let v0 = ok("at((_4,_8):(_8,_1) o ((_2,_4),(_2,_2)):((_8,_1),(_4,_16)), (0,_))");
    let layout = l(v0.split_once(" o ").map_or(v0.as_str(), |(_, l)| l));
    let (a, tv) = (l("(4,8):(8,1)"), l("((2,4),(2,2)):((8,1),(4,16))"));
    let want: Vec<i64> = (0..4)
        .map(|v| a.offset(tv.offset(8 * v).unwrap()).unwrap())
        .collect();
    assert_eq!(layout.offsets(), want, "{TENSOR}");
}

#[test]
fn pycute_prefix_product() {
    // test/python/pycute/test_int_tuple.py (CUTLASS v4.2.1), test_prefix_product.
    for (s, want) in [
        ("2", "1"),
        ("(3,2)", "(1,3)"),
        ("(3,2,4)", "(1,3,6)"),
        ("((2,3),4)", "((1,2),6)"),
        ("((2,3),(2,1,2),(5,2,1))", "((1,2),(6,12,12),(24,120,240))"),
    ] {
        let t: IntTuple = s.parse().unwrap();
        assert_eq!(
            t.prefix_product().unwrap().to_string(),
            want,
            "prefix_product({s})"
        );
        // CuTe's name for it, compact_col_major (its leading 1 is static in CuTe and tessel).
        let e = ok(&format!("compact_col_major({s}, 1)"));
        assert_eq!(e, want, "compact_col_major({s}, 1)");
    }
}
