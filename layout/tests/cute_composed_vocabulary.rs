//! CuTe's vocabulary on composed layouts, tilers and steps: the algebra of
//! `include/cute/layout_composed.hpp` (CUTLASS v4.2.1) on swizzled layouts and on composed
//! layouts whose inner function is a layout, their parts (inner, offset, outer), tilers as
//! values (`shape`, `select`, `get`), `tile_to_shape` with an order, and the `Step` projections
//! of `local_tile` and `local_partition`. Expected values are quoted from CuTe's sources with
//! their path, or follow from CuTe's definitions there in one step (said so); every result is
//! also checked against its definition element by element.

use tessel_layout::composed::{ComposedAlgebra, Composition, Inner};
use tessel_layout::expr::{Value, eval};
use tessel_layout::{ComposedLayout, IntTuple, Layout, SliceCoord, Swizzle, Tiler};

fn ok(text: &str) -> String {
    match eval(text) {
        Ok(v) => v.to_string(),
        Err(e) => panic!("{text}: {e}"),
    }
}

fn composed(text: &str) -> ComposedLayout {
    match eval(text) {
        Ok(Value::Composed(c)) => c,
        Ok(other) => panic!("{text} = {other}, not a swizzled layout"),
        Err(e) => panic!("{text}: {e}"),
    }
}

fn l(s: &str) -> Layout {
    s.parse().unwrap()
}

fn sw(c: &ComposedLayout) -> impl Fn(i64) -> i64 + '_ {
    move |x| {
        c.swizzles()
            .iter()
            .rev()
            .fold(x + c.base_offset(), |v, s| s.apply(v))
    }
}

/// `result` is `swizzles o off o op(outer)` of `c`: its value at every index is `c`'s
/// swizzles and offset applied to the plain operation's value (layout_composed.hpp's
/// definition), computed here from the plain layout algebra.
fn check_on_outer(c: &ComposedLayout, result: &ComposedLayout, plain: &Layout) {
    assert_eq!(result.layout(), plain, "{result}");
    assert_eq!(result.swizzles(), c.swizzles());
    let f = sw(c);
    for i in 0..plain.size() {
        assert_eq!(
            result.offset(i).unwrap(),
            f(plain.offset(i).unwrap()),
            "{result} at {i}"
        );
    }
}

#[test]
fn tile_to_shape_of_a_swizzle_atom() {
    // CUTLASS v4.2.1 examples/cute/tutorial/blackwell/05_mma_tma_epi_sm100.cu:
    // tile_to_shape(UMMA::Layout_K_SW128_Atom<float>{}, (128, 64)) prints
    // `Sw<3,4,3> o smem_ptr[32b](unset) o ((_8,_16),(_32,_2)):((_32,_256),(_1,_4096))` (the
    // comment shows sC_layout, the same layout grouped by group<0,2>). Sw<3,4,3> acts on byte
    // addresses there; on 4-byte elements it is Sw<3,2,3> (docs/semantics.md, the Hopper table),
    // and the atom is 8 rows of 128 bytes, (8,32):(32,1) floats.
    assert_eq!(
        ok("tile_to_shape(Sw<3,2,3> o (8,32):(32,1), (128,64))"),
        "Sw<3,2,3> o ((8,16),(32,2)):((32,256),(1,4096))"
    );
    // The Hopper fp16 stage: layout_composed.hpp's tile_to_shape keeps the swizzle
    // over layout.hpp's tile_to_shape of (8,64):(64,1); CuTe prints
    // Sw<3,3,3> o _0 o ((_8,_8),(_64,_1)):((_64,_512),(_1,_0)) (a mode repeated once has the
    // static stride _0).
    let atom = composed("Sw<3,3,3> o (8,64):(64,1)");
    let shape = IntTuple::from_ints([64, 64]);
    let stage = ComposedAlgebra::tile_to_shape(&atom, &shape).unwrap();
    assert_eq!(
        stage.to_string(),
        "Sw<3,3,3> o ((8,8),(64,1)):((64,512),(1,0))"
    );
    assert_eq!(
        ok("tile_to_shape(Sw<3,3,3> o (8,64):(64,1), (64,64))"),
        stage.to_string()
    );
    check_on_outer(
        &atom,
        &stage,
        &tessel_layout::tile_to_shape(atom.layout(), &shape).unwrap(),
    );
    // The library's ComposedLayout::tile_to_shape (used by the Hopper kernels) is the same.
    assert_eq!(atom.tile_to_shape(&shape).unwrap(), stage);
}

#[test]
fn tile_to_shape_in_an_order() {
    // CUTLASS v4.2.1 examples/python/CuTeDSL/ampere/tensorop_gemm.py, _make_smem_layout_AB:
    // the atom make_composed_layout(make_swizzle(2, 3, 3), 0, (8,32):(32,1)) for 16-bit A with
    // bK = 32 and 128-bit copies (swizzle_bits = log2(32*16/128) = 2), then
    // cute.tile_to_shape(layout_atom, smem_tiler, (0, 1, 2)) for (bM, bK, stages) = (128, 32, 3).
    let r =
        ok("tile_to_shape(make_composed_layout(Sw<2,3,3>, 0, (8,32):(32,1)), (128,32,3), (0,1,2))");
    // include/cute/layout.hpp tile_to_shape: the atom padded to rank 3, repeated (16,1,3)
    // times in the order (0,1,2) = make_ordered_layout((16,1,3), (0,1,2)) = (16,1,3):(1,0,16).
    assert_eq!(
        r,
        "Sw<2,3,3> o ((8,16),(32,1),(1,3)):((32,256),(1,0),(0,4096))"
    );
    // The order changes which mode the atom repeats across first (layout.hpp: "Step<_2,_1,_3>
    // will cause @a layout to repeat across the second mode first").
    let atom = composed("Sw<3,3,3> o (8,64):(64,1)");
    let shape = IntTuple::from_ints([16, 128]);
    let order = IntTuple::from_ints([1, 0]);
    let t = atom.tile_to_shape_ordered(&shape, &order).unwrap();
    check_on_outer(
        &atom,
        &t,
        &tessel_layout::tile_to_shape_ordered(atom.layout(), &shape, &order).unwrap(),
    );
    assert_eq!(
        ok("tile_to_shape(Sw<3,3,3> o (8,64):(64,1), (16,128), Step<_2,_1>)"),
        t.to_string()
    );
    // The plain layout: a row-major order of repetitions.
    assert_eq!(
        ok("tile_to_shape((8,8):(1,8), (16,16), (1,0))"),
        "((8,2),(8,2)):((1,128),(8,64))"
    );
    assert!(eval("tile_to_shape((8,8):(1,8), (16,16), (0,0))").is_err());
    assert!(eval("tile_to_shape((8,8):(1,8), (16,16), (0,1,2))").is_err());
}

#[test]
fn products_and_divides_of_swizzled_layouts() {
    // layout_composed.hpp: every product and divide of a ComposedLayout is
    // composition(a.layout_a(), a.offset(), OP(a.layout_b(), b)). An example:
    // logical_product(Sw<3,4,3> o (5,4):(4,1), (2,5):(1,2)), whose outer layout is
    // layout.hpp's logical_product = ((5,4),(2,5)):((4,1),(20,40)).
    assert_eq!(
        ok("logical_product(Sw<3,4,3> o (5,4):(4,1), (2,5):(1,2))"),
        "Sw<3,4,3> o ((5,4),(2,5)):((4,1),(20,40))"
    );
    let a = composed("Sw<3,4,3> o (5,4):(4,1)");
    let b = l("(2,5):(1,2)");
    let t = Tiler::Layout(b.clone());
    let cases: Vec<(&str, ComposedLayout, Layout)> = vec![
        (
            "logical_product",
            a.logical_product(&t).unwrap(),
            tessel_layout::logical_product(a.layout(), &t).unwrap(),
        ),
        (
            "zipped_product",
            a.zipped_product(&t).unwrap(),
            tessel_layout::zipped_product(a.layout(), &t).unwrap(),
        ),
        (
            "tiled_product",
            a.tiled_product(&t).unwrap(),
            tessel_layout::tiled_product(a.layout(), &t).unwrap(),
        ),
        (
            "flat_product",
            a.flat_product(&t).unwrap(),
            tessel_layout::flat_product(a.layout(), &t).unwrap(),
        ),
        (
            "blocked_product",
            a.blocked_product(&b).unwrap(),
            tessel_layout::blocked_product(a.layout(), &b).unwrap(),
        ),
        (
            "raked_product",
            a.raked_product(&b).unwrap(),
            tessel_layout::raked_product(a.layout(), &b).unwrap(),
        ),
    ];
    for (name, result, plain) in &cases {
        check_on_outer(&a, result, plain);
        let text = format!("{name}(Sw<3,4,3> o (5,4):(4,1), (2,5):(1,2))");
        assert_eq!(ok(&text), result.to_string(), "{text}");
    }
    // The divides of the 128B fp16 atom by a 4x8 tile.
    let atom = composed("Sw<3,3,3> o (8,64):(64,1)");
    let tiler = Tiler::ByMode(vec![
        Some(Tiler::Layout(l("4:1"))),
        Some(Tiler::Layout(l("8:1"))),
    ]);
    for (name, result, plain) in [
        (
            "logical_divide",
            atom.logical_divide(&tiler).unwrap(),
            tessel_layout::logical_divide(atom.layout(), &tiler).unwrap(),
        ),
        (
            "zipped_divide",
            atom.zipped_divide(&tiler).unwrap(),
            tessel_layout::zipped_divide(atom.layout(), &tiler).unwrap(),
        ),
        (
            "tiled_divide",
            atom.tiled_divide(&tiler).unwrap(),
            tessel_layout::tiled_divide(atom.layout(), &tiler).unwrap(),
        ),
        (
            "flat_divide",
            atom.flat_divide(&tiler).unwrap(),
            tessel_layout::flat_divide(atom.layout(), &tiler).unwrap(),
        ),
    ] {
        check_on_outer(&atom, &result, &plain);
        let text = format!("{name}(Sw<3,3,3> o (8,64):(64,1), [4, 8])");
        assert_eq!(ok(&text), result.to_string(), "{text}");
    }
    // A swizzle moves bits of the whole offset: an offset folded in by a slice stays before it.
    assert_eq!(
        ok("zipped_divide(Sw<3,3,3> o 64 o (64):(1), 8)"),
        "Sw<3,3,3> o 64 o (8,8):(1,8)"
    );
}

#[test]
fn selections_of_swizzled_layouts() {
    // layout_composed.hpp: get, take, flatten, group, coalesce act on layout_b; select too.
    let c = composed("Sw<3,3,3> o (8,(8,8)):(64,(1,8))");
    assert_eq!(
        ok("select(Sw<3,3,3> o (8,(8,8)):(64,(1,8)), 1, 0)"),
        "Sw<3,3,3> o ((8,8),8):((1,8),64)"
    );
    assert_eq!(
        ok("take(Sw<3,3,3> o (8,(8,8)):(64,(1,8)), 1, 2)"),
        "Sw<3,3,3> o ((8,8)):((1,8))"
    );
    assert_eq!(
        ok("group(Sw<3,3,3> o (8,(8,8)):(64,(1,8)), 0, 2)"),
        "Sw<3,3,3> o ((8,(8,8))):((64,(1,8)))"
    );
    assert_eq!(
        ok("get(Sw<3,3,3> o (8,(8,8)):(64,(1,8)), 1, 0)"),
        "Sw<3,3,3> o 8:1"
    );
    assert_eq!(
        ok("flatten(Sw<3,3,3> o (8,(8,8)):(64,(1,8)))"),
        "Sw<3,3,3> o (8,8,8):(64,1,8)"
    );
    assert_eq!(
        ok("coalesce(Sw<3,3,3> o (8,(8,8)):(64,(1,8)))"),
        "Sw<3,3,3> o (8,64):(64,1)"
    );
    let s = c.select(&[1, 0]).unwrap();
    check_on_outer(&c, &s, &c.layout().select(&[1, 0]).unwrap());
}

#[test]
fn composed_layouts_with_a_layout_inside() {
    // layout_composed.hpp: ComposedLayout<LayoutA, Offset, LayoutB> maps c to
    // layout_a()(offset() + layout_b()(c)), and make_composed_layout / composition(A, O, B)
    // builds one; the CuTe DSL (python/CuTeDSL/cutlass/cute/core.py) names the parts inner,
    // offset, outer.
    let text = "(4,8):(1,4) o 2 o (2,2):(1,8)";
    assert_eq!(ok(text), text);
    assert_eq!(
        ok("make_composed_layout((4,8):(1,4), 2, (2,2):(1,8))"),
        text
    );
    assert_eq!(ok(&format!("inner({text})")), "(4,8):(1,4)");
    assert_eq!(ok(&format!("layout_a({text})")), "(4,8):(1,4)");
    assert_eq!(ok(&format!("offset({text})")), "2");
    assert_eq!(ok(&format!("outer({text})")), "(2,2):(1,8)");
    assert_eq!(ok(&format!("layout_b({text})")), "(2,2):(1,8)");
    assert_eq!(ok(&format!("size({text})")), "4");
    assert_eq!(ok(&format!("shape({text})")), "(2,2)");
    assert_eq!(ok(&format!("rank({text})")), "2");
    // The inner layout (4,8):(1,4) is the identity on 0..32: the values are 2 + outer(c).
    let c: Composition = text.parse().unwrap();
    assert_eq!(c.values().unwrap(), vec![2, 3, 10, 11]);
    assert_eq!(ok(&format!("at({text}, (1,1))")), "11");
    // The parts of a swizzled layout, and a plain layout's offset.
    assert_eq!(ok("inner(Sw<3,3,3> o 32 o (8,64):(64,1))"), "Sw<3,3,3>");
    assert_eq!(ok("offset(Sw<3,3,3> o 32 o (8,64):(64,1))"), "32");
    assert_eq!(ok("outer(Sw<3,3,3> o 32 o (8,64):(64,1))"), "(8,64):(64,1)");
    assert_eq!(ok("offset((8,64):(64,1))"), "0");
    // A transposing inner layout, kept unevaluated: value = A(off + B(c)) with A read on all
    // non-negative integers (past its size the last mode runs on, CuTe's convention).
    let a = l("(8,8):(8,1)");
    let b = l("(4,4):(2,16)");
    let c = Composition::new(Inner::Layout(a.clone().into()), 1, b.clone()).unwrap();
    for i in 0..b.size() {
        let x = 1 + b.offset(i).unwrap();
        let want = (x % 8) * 8 + x / 8;
        assert_eq!(c.offset(i).unwrap(), want, "at {i}");
    }
    // The algebra acts on the outer layout (layout_composed.hpp).
    let text = "(8,8):(8,1) o 1 o (4,4):(2,16)";
    assert_eq!(
        ok(&format!("logical_divide({text}, [2, 2])")),
        "(8,8):(8,1) o 1 o ((2,2),(2,2)):((2,4),(16,32))"
    );
    // The repetitions fill the holes of (4,4):(2,16): complement((4,4):(2,16), 64) = (2,2):(1,8).
    assert_eq!(
        ok(&format!("tile_to_shape({text}, (8,8))")),
        "(8,8):(8,1) o 1 o ((4,2),(4,2)):((2,1),(16,8))"
    );
    assert_eq!(
        ok(&format!("blocked_product({text}, (1,2))")),
        format!(
            "(8,8):(8,1) o 1 o {}",
            ok("blocked_product((4,4):(2,16), (1,2))")
        )
    );
    // composition(ComposedLayout, Tiler) composes the outer layout; slicing folds the offset in.
    assert_eq!(
        ok(&format!("{text} o (2,2):(1,4)")),
        "(8,8):(8,1) o 1 o (2,2):(2,16)"
    );
    assert_eq!(
        ok(&format!("at({text}, (_,1))")),
        "(8,8):(8,1) o 17 o (4):(2)"
    );
    // composition(Layout, ComposedLayout) = composition(composition(a, b.layout_a()),
    // b.layout_b()), with the offset 0 (layout_composed.hpp's static_assert "Require offset ==
    // 0."): the transpose composed with the transpose is the identity of 64 elements.
    assert_eq!(
        ok("(8,8):(8,1) o ((8,8):(8,1) o 0 o (4,4):(2,16))"),
        "(8,8):(1,8) o 0 o (4,4):(2,16)"
    );
    assert!(eval("(8,8):(8,1) o ((8,8):(8,1) o 1 o (4,4):(2,16))").is_err());
    // A swizzle in front applies after the inner layout.
    let s = c.swizzled(Swizzle::new(1, 0, 3).unwrap());
    for i in 0..b.size() {
        assert_eq!(
            s.offset(i).unwrap(),
            Swizzle::new(1, 0, 3).unwrap().apply(c.offset(i).unwrap())
        );
    }
    assert_eq!(
        ok("Sw<1,0,3> o (8,8):(8,1) o 1 o (4,4):(2,16)"),
        s.to_string()
    );
    // A composed layout has no stride (CuTe deletes stride() of a ComposedLayout), and its outer
    // part must be a plain layout.
    assert!(eval(&format!("stride({text})")).is_err());
    assert!(eval("(8,8):(8,1) o 1 o Sw<1,0,3> o 8:1").is_err());
    // The code emitter (and so the macros) takes layouts and swizzled layouts only: a layout
    // after a layout is refused with the reason, not emitted.
    let e = tessel_layout::codegen::parse_source(text).unwrap_err();
    assert!(e.to_string().contains("expected a layout"), "{e}");
}

#[test]
fn tilers_are_values() {
    // CuTe media/docs/cpp/cute/0x_gemm_tutorial.md: cta_tiler = make_shape(bM, bN, bK) with
    // (128, 128, 8); select<0,2>(cta_tiler) is the (BLK_M, BLK_K) tiler of A.
    assert_eq!(ok("select([128:1, 128:1, 8:1], 0, 2)"), "[128:1,8:1]");
    assert_eq!(ok("select((128,128,8), 0, 2)"), "(128,8)");
    // include/cute/layout.hpp shape(): a tuple of layouts has the tuple of their shapes; CuTe
    // docs 02_layout_algebra.md, "Composition Tilers": make_tile(Layout<_3,_4>{},
    // Layout<Shape<_2,_4>,Stride<_1,_8>>{}) tiles a (9,(4,8)) layout by (3,(2,4)).
    assert_eq!(ok("shape([3:4, (2,4):(1,8)])"), "(3,(2,4))");
    assert_eq!(ok("size([3:4, (2,4):(1,8)])"), "24");
    assert_eq!(ok("rank([3:4, (2,4):(1,8)])"), "2");
    assert_eq!(ok("get([3:4, (2,4):(1,8)], 1)"), "(2,4):(1,8)");
    assert_eq!(ok("get([3:4, (2,4):(1,8)], 1, 0)"), "2:1");
    assert_eq!(ok("get([3:4, [2:1, _]], 1)"), "[2:1,_]");
    // shape of an Underscore is the underscore (include/cute/underscore.hpp: Underscore is an
    // integral, shape(x) of an integral is x).
    assert_eq!(ok("shape([3:4, _])"), "(3,_)");
    assert_eq!(ok("get([3:4, _], 1)"), "_");
    assert_eq!(ok("take([3:4, _, 2:1], 1, 3)"), "[_,2:1]");
    assert!(eval("size([3:4, _])").is_err());
    assert!(eval("get([3:4, _], 2)").is_err());
    // The library.
    let t = Tiler::ByMode(vec![
        Some(Tiler::Layout(l("3:4"))),
        Some(Tiler::Layout(l("(2,4):(1,8)"))),
    ]);
    assert_eq!(t.shape().to_string(), "(3,(2,4))");
    assert_eq!(t.select(&[1]).unwrap().to_string(), "[(2,4):(1,8)]");
}

#[test]
fn steps_project_local_tile_and_local_partition() {
    // CuTe media/docs/cpp/cute/0x_gemm_tutorial.md and examples/cute/tutorial/sgemm_1.cu
    // (CUTLASS v4.2.1): cta_tiler (128,128,8), cta_coord (blockIdx.x, blockIdx.y, _),
    //   gA = local_tile(mA, cta_tiler, cta_coord, Step<_1, X,_1>{});  // (BLK_M,BLK_K,k)
    //   gB = local_tile(mB, cta_tiler, cta_coord, Step< X,_1,_1>{});  // (BLK_N,BLK_K,k)
    //   gC = local_tile(mC, cta_tiler, cta_coord, Step<_1,_1, X>{});  // (BLK_M,BLK_N)
    // and "the Step<_1, X,_1> is just shorthand for local_tile(mA, select<0,2>(cta_tiler),
    // select<0,2>(cta_coord))". M = N = 512, K = 64, NT (A and B M- and N-major), block (1,2).
    let (m_a, m_b, m_c) = ("(512,64):(1,512)", "(512,64):(1,512)", "(512,512):(1,512)");
    let tiler = "(128,128,8)";
    let coord = "(1,2,_)";
    let g_a = ok(&format!(
        "local_tile({m_a}, {tiler}, {coord}, Step<_1,X,_1>)"
    ));
    let g_b = ok(&format!(
        "local_tile({m_b}, {tiler}, {coord}, Step<X,_1,_1>)"
    ));
    let g_c = ok(&format!(
        "local_tile({m_c}, {tiler}, {coord}, Step<_1,_1,X>)"
    ));
    assert_eq!(g_a, ok(&format!("local_tile({m_a}, (128,8), (1,_))")));
    assert_eq!(g_b, ok(&format!("local_tile({m_b}, (128,8), (2,_))")));
    assert_eq!(g_c, ok(&format!("local_tile({m_c}, (128,128), (1,2))")));
    // (BLK_M,BLK_K,k), (BLK_N,BLK_K,k), (BLK_M,BLK_N).
    assert_eq!(g_a, "128 o (128,8,8):(1,512,4096)");
    assert_eq!(g_b, "256 o (128,8,8):(1,512,4096)");
    assert_eq!(g_c, "131200 o (128,128):(1,512)");
    // X is CuTe's Underscore (include/cute/underscore.hpp: `using X = Underscore;`), so the step
    // may also be written as a tuple with '_' or X.
    assert_eq!(ok("Step<_1,X,_1>"), "(1,_,1)");
    assert_eq!(
        ok(&format!("local_tile({m_a}, {tiler}, {coord}, (1,X,1))")),
        g_a
    );
    // sgemm_1.cu: tC = (16,16) threads; tCsA = local_partition(sA, tC, threadIdx.x,
    // Step<_1, X>{}) is (THR_M,BLK_K), tCsB (THR_N,BLK_K), tCgC (THR_M,THR_N); sA = (128,8).
    let s_a = "(128,8):(1,128)";
    let t_c = "(16,16):(1,16)";
    let t = 33; // (1,2) in tC
    let ts_a = ok(&format!("local_partition({s_a}, {t_c}, {t}, Step<_1,X>)"));
    let ts_b = ok(&format!("local_partition({s_a}, {t_c}, {t}, Step<X,_1>)"));
    let tg_c = ok(&format!(
        "local_partition((128,128):(1,128), {t_c}, {t}, Step<_1,_1>)"
    ));
    assert_eq!(ts_a, "1 o (8,8):(16,128)"); // rows 1, 17, ... of every column
    assert_eq!(ts_b, "2 o (8,8):(16,128)");
    assert_eq!(tg_c, "257 o (8,8):(16,2048)");
    // tensor_impl.hpp: thr_layout (_2,_16,_1):(_16,_1,_0); thrA = local_partition(dataA,
    // thr_layout, thr_idx, Step<_1, X,_1>{}) is (M/2,K/1).
    assert_eq!(
        ok("local_partition((64,8):(1,64), (2,16,1):(16,1,0), 17, Step<_1,X,_1>)"),
        "1 o (32,8):(2,64)"
    );
    // The library.
    let step = SliceCoord::Tuple(vec![SliceCoord::Index(1), SliceCoord::All]);
    let (part, off) = tessel_layout::local_partition_projected(&l(s_a), &l(t_c), t, &step).unwrap();
    assert_eq!((part.to_string(), off), ("(8,8):(16,128)".to_string(), 1));
    // A step of the wrong rank is an error.
    assert!(eval(&format!("local_tile({m_a}, {tiler}, {coord}, Step<_1,X>)")).is_err());
}

#[test]
fn make_ordered_layout_with_steps() {
    // include/cute/layout.hpp: make_ordered_layout(Shape<_2,_2,_2,_2>{}, Step<_0,_2,_3,_1>{})
    // -> (_2,_2,_2,_2):(_1,_4,_8,_2).
    assert_eq!(
        ok("make_ordered_layout((2,2,2,2), Step<_0,_2,_3,_1>)"),
        "(2,2,2,2):(1,4,8,2)"
    );
    assert_eq!(
        ok("make_ordered_layout((2,2,2,2), (0,2,3,1))"),
        "(2,2,2,2):(1,4,8,2)"
    );
}
