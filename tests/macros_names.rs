//! The CuTe names of layout manipulation inside `layout!`: the macro evaluates them at compile
//! time with the same evaluator as `tessel eval`, so the constants equal the run-time results.
//! Golden values are CuTe's published examples, each with its source.

use tessel_kit::{ComposedLayout, Layout, layout};

// CuTe media/docs/cpp/cute/01_layout.md, "Concatenation": make_layout(a, b) = (3,4):(1,3),
// replace<2>(c, b) = (3,4,4):(1,3,3).
const ROW: Layout = layout!(make_layout(3:1, 4:3));
const REPLACED: Layout = layout!(replace((3,4,(3,4)):(1,3,(1,3)), 2, 4:3));
// CuTe media/docs/cpp/cute/01_layout.md, "Sublayouts" and "Grouping and flattening".
const SELECTED: Layout = layout!(select((2,3,5,7):(1,2,6,30), 1, 3));
const GROUPED: Layout = layout!(group((2,3,5,7):(1,2,6,30), 0, 2));
// Slicing with `_`: the column 1 of a 4x8 column-major tile starts at offset 4.
const COLUMN: ComposedLayout = layout!(at((4,8):(1,4), (_,1)));
// CuTe media/docs/cpp/cute/03_tensor.md: (8,24) in (4,8) tiles; tile (1,2).
const TILE: ComposedLayout = layout!(local_tile((8,24):(1,8), (4,8), (1,2)));

#[test]
fn names_evaluate_at_compile_time_to_cute_results() {
    assert_eq!(ROW.to_string(), "(3,4):(1,3)");
    assert_eq!(REPLACED.to_string(), "(3,4,4):(1,3,3)");
    assert_eq!(SELECTED.to_string(), "(3,7):(2,30)");
    assert_eq!(GROUPED.to_string(), "((2,3),5,7):((1,2),6,30)");
}

#[test]
fn layouts_at_an_offset_keep_their_offset() {
    let column = COLUMN;
    assert_eq!(column.to_string(), "4 o (4):(1)");
    assert_eq!(
        (0..4)
            .map(|i| COLUMN.offset(i).unwrap())
            .collect::<Vec<_>>(),
        vec![4, 5, 6, 7]
    );
    let tile = TILE;
    assert_eq!(tile.to_string(), "132 o (4,8):(1,8)");
    // Element (a,b) of tile (1,2) is element (4+a, 16+b) of the (8,24):(1,8) tensor.
    for a in 0..4 {
        for b in 0..8 {
            assert_eq!(TILE.offset(a + 4 * b).unwrap(), (4 + a) + 8 * (16 + b));
        }
    }
}

#[test]
fn the_macro_and_the_evaluator_agree() {
    for (text, value) in [
        ("make_layout(3:1, 4:3)", ROW.to_string()),
        ("at((4,8):(1,4), (_,1))", COLUMN.to_string()),
        ("local_tile((8,24):(1,8), (4,8), (1,2))", TILE.to_string()),
    ] {
        assert_eq!(
            tessel_kit::expr::eval(text).unwrap().to_string(),
            value,
            "{text}"
        );
    }
}

// CuTe's layout_composed.hpp: tile_to_shape, the products and the divides of a swizzled layout
// act on its layout and keep the swizzle (CuTe prints the first as
// Sw<3,3,3> o _0 o ((_8,_8),(_64,_1)):((_64,_512),(_1,_0))).
static STAGE: ComposedLayout = layout!(tile_to_shape(Sw<3,3,3> o (8,64):(64,1), (64,64)));
static PRODUCT: ComposedLayout = layout!(logical_product(Sw<3,4,3> o (5,4):(4,1), (2,5):(1,2)));
static ORDERED: ComposedLayout =
    layout!(tile_to_shape(Sw<3,3,3> o (8,64):(64,1), (16,128), Step<_2,_1>));
// CuTe media/docs/cpp/cute/0x_gemm_tutorial.md: local_tile(mA, cta_tiler, cta_coord,
// Step<_1, X,_1>{}) is (BLK_M,BLK_K,k), shorthand for select<0,2> of tiler and coordinate.
static G_A: ComposedLayout =
    layout!(local_tile((512,64):(1,512), (128,128,8), (1,2,_), Step<_1,X,_1>));

#[test]
fn composed_layouts_and_steps_evaluate_at_compile_time() {
    assert_eq!(
        STAGE.to_string(),
        "Sw<3,3,3> o ((8,8),(64,1)):((64,512),(1,0))"
    );
    assert_eq!(
        PRODUCT.to_string(),
        "Sw<3,4,3> o ((5,4),(2,5)):((4,1),(20,40))"
    );
    for (text, value) in [
        (
            "tile_to_shape(Sw<3,3,3> o (8,64):(64,1), (64,64))",
            STAGE.to_string(),
        ),
        (
            "tile_to_shape(Sw<3,3,3> o (8,64):(64,1), (16,128), Step<_2,_1>)",
            ORDERED.to_string(),
        ),
        (
            "local_tile((512,64):(1,512), (128,8), (1,_))",
            G_A.to_string(),
        ),
    ] {
        assert_eq!(
            tessel_kit::expr::eval(text).unwrap().to_string(),
            value,
            "{text}"
        );
    }
    assert_eq!(G_A.to_string(), "128 o (128,8,8):(1,512,4096)");
}
