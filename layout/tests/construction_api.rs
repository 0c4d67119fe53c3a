//! The construction API a CuTe user reaches for first: `make_shape`, `make_stride`,
//! `make_coord`, `make_layout`, `make_tile`, `Layout::new` from Rust tuples and `Tiler` from
//! text, in Rust and in the expression language. Expected values are CuTe's documentation
//! (`media/docs/cpp/cute/01_layout.md` and `02_layout_algebra.md`, CUTLASS v4.2.1).

use tessel_layout::expr::eval;
use tessel_layout::make::{
    LayoutLeft, LayoutRight, make_coord, make_layout, make_shape, make_stride, make_tile,
};
use tessel_layout::{IntTuple, Layout, Tiler, compose_tiler, zipped_divide};

#[test]
fn layouts_from_rust_tuples() {
    // 01_layout.md, "Matrix examples": (4,2):(1,4) column-major, (4,2):(2,1) row-major,
    // ((2,2),2):((4,1),2) and their tables.
    let col = Layout::new((4, 2), (1, 4)).unwrap();
    assert_eq!(col.offsets(), [0, 1, 2, 3, 4, 5, 6, 7]);
    let row = Layout::new((4, 2), (2, 1)).unwrap();
    assert_eq!(row.offsets(), [0, 2, 4, 6, 1, 3, 5, 7]);
    let multi = Layout::new(((2, 2), 2), ((4, 1), 2)).unwrap();
    assert_eq!(multi.to_string(), "((2,2),2):((4,1),2)");
    // Rows 0..4 of the table: (0 2), (4 6), (1 3), (5 7).
    let table: Vec<[i64; 2]> = (0..4)
        .map(|m| [0, 1].map(|n| multi.crd2idx(&make_coord((m, n))).unwrap()))
        .collect();
    assert_eq!(table, [[0, 2], [4, 6], [1, 3], [5, 7]]);
    // 01_layout.md, "Vector Layouts": ((4,2)):((2,1)) visits 0 2 4 6 1 3 5 7.
    let v = Layout::new(((4, 2),), ((2, 1),)).unwrap();
    assert_eq!(v.to_string(), "((4,2)):((2,1))");
    assert_eq!(v.offsets(), [0, 2, 4, 6, 1, 3, 5, 7]);
    // Not congruent, a zero extent: errors, as from text.
    assert!(Layout::new((4, 2), 1).is_err());
    assert!(Layout::new((4, 0), (1, 4)).is_err());
}

#[test]
fn make_functions_as_cute_spells_them() {
    // 01_layout.md: s2xh4 = make_layout(make_shape(2, make_shape(2,2)), make_stride(4, make_stride(2,1)))
    let s2xh4 = make_layout((make_shape((2, (2, 2))), make_stride((4, (2, 1))))).unwrap();
    assert_eq!(s2xh4.to_string(), "(2,(2,2)):(4,(2,1))");
    // print1D(s2xh4): 0 4 2 6 1 5 3 7.
    assert_eq!(s2xh4.offsets(), [0, 4, 2, 6, 1, 5, 3, 7]);
    // s2xh4_col = make_layout(shape(s2xh4), LayoutLeft{}): (2,(2,2)):(1,(2,4)) with dynamic ints;
    // "the strides of s2xh4 above could be generated with LayoutRight".
    let left = make_layout((s2xh4.shape().clone(), LayoutLeft)).unwrap();
    assert_eq!(left.to_string(), "(2,(2,2)):(1,(2,4))");
    let right = make_layout((s2xh4.shape().clone(), LayoutRight)).unwrap();
    assert_eq!(right, s2xh4);
    // make_layout of layouts: one mode each.
    let both = make_layout([Layout::new(8, 1).unwrap(), Layout::new(4, 8).unwrap()]).unwrap();
    assert_eq!(both.to_string(), "(8,4):(1,8)");
    // The same in the expression language.
    assert_eq!(
        eval("make_layout(make_shape(2, make_shape(2, 2)), make_stride(4, make_stride(2, 1)))")
            .unwrap()
            .to_string(),
        "(2,(2,2)):(4,(2,1))"
    );
    assert_eq!(
        eval("make_shape(4, (2, 3))").unwrap().to_string(),
        "(4,(2,3))"
    );
    assert_eq!(eval("make_coord(1, 2)").unwrap().to_string(), "(1,2)");
    assert_eq!(eval("make_shape(8)").unwrap().to_string(), "(8)");
}

#[test]
fn tilers_from_text_and_from_make_tile() {
    // 02_layout_algebra.md, "By-mode Composition": (12,(4,8)):(59,(13,1)) with the tiler
    // <3:4, 8:2> is (3,(2,4)):(236,(26,1)).
    let a: Layout = "(12,(4,8)):(59,(13,1))".parse().unwrap();
    let tiler: Tiler = "[3:4, 8:2]".parse().unwrap();
    assert_eq!(
        compose_tiler(&a, &tiler).unwrap().to_string(),
        "(3,(2,4)):(236,(26,1))"
    );
    let made = make_tile([Layout::new(3, 4).unwrap(), Layout::new(8, 2).unwrap()]).unwrap();
    assert_eq!(made, tiler);
    assert_eq!(
        eval("make_tile(3:4, 8:2)").unwrap().to_string(),
        "[3:4,8:2]"
    );
    // A shape as a tiler is one n:1 per mode; _ keeps a mode; the printed form parses back.
    let shape_tiler: Tiler = "(2,4)".parse().unwrap();
    assert_eq!(shape_tiler, make_tile([2, 4]).unwrap());
    let m: Layout = "(8,8):(1,8)".parse().unwrap();
    assert_eq!(
        zipped_divide(&m, &shape_tiler).unwrap().to_string(),
        "((2,4),(4,2)):((1,8),(2,32))"
    );
    let kept: Tiler = "[2:1,_]".parse().unwrap();
    assert_eq!(kept.to_string().parse::<Tiler>().unwrap(), kept);
    // Errors name what was expected, with the position.
    let err = "[2:1,".parse::<Tiler>().unwrap_err();
    assert!(err.to_string().starts_with("at 5:"), "{err}");
    assert!("[0:1]".parse::<Tiler>().is_err());
}

#[test]
fn shapes_strides_and_coords_convert_from_integers() {
    assert_eq!(make_shape(8), IntTuple::Int(8));
    assert_eq!(make_stride((1, (4, 8))).to_string(), "(1,(4,8))");
    assert_eq!(IntTuple::from(()).to_string(), "()");
    assert_eq!(IntTuple::from((1, 2, 3, 4, 5, 6, 7, 8)).rank(), 8);
}
