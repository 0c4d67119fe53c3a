//! Pictures of tiled MMAs and tiled copies: every cell's `T{t}V{v}` label checked against the
//! PTX ISA's fragment formulas, the arrangement of the panels, and a snapshot of a small copy.

use std::collections::BTreeMap;

use tessel_layout::atom::{copy_atom, mma_atom};
use tessel_layout::svg::{tiled_copy_svg, tiled_mma_svg};
use tessel_layout::tiled::{TiledCopy, make_tiled_copy, make_tiled_mma};

/// One labelled cell of a picture.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Cell {
    row: i64,
    col: i64,
    thread: i64,
    value: i64,
    x: i64,
    y: i64,
}

fn attr(tag: &str, name: &str) -> i64 {
    let key = format!("{name}=\"");
    let start = tag.find(&key).unwrap_or_else(|| panic!("{name} in {tag}")) + key.len();
    let end = start + tag[start..].find('"').unwrap();
    tag[start..end].parse().unwrap()
}

/// The labelled cells of operand `op`, keyed by (row, column); panics on a duplicate cell.
fn cells(svg: &str, op: &str) -> BTreeMap<(i64, i64), Cell> {
    let marker = format!("data-op=\"{op}\"");
    let mut out = BTreeMap::new();
    for line in svg.lines().filter(|l| l.contains(&marker)) {
        let close = line.find('>').unwrap();
        let tag = &line[..close];
        let label = line[close + 1..].strip_suffix("</text>").unwrap();
        let (t, v) = label.strip_prefix('T').unwrap().split_once('V').unwrap();
        let cell = Cell {
            row: attr(tag, "data-row"),
            col: attr(tag, "data-col"),
            thread: t.parse().unwrap(),
            value: v.parse().unwrap(),
            x: attr(tag, "x"),
            y: attr(tag, "y"),
        };
        assert!(
            out.insert((cell.row, cell.col), cell).is_none(),
            "two labels on one cell: {line}"
        );
    }
    out
}

fn sm80_16x8x16() -> String {
    let atom = mma_atom("SM80_16x8x16_F32F16F16F32_TN").unwrap();
    let mma = make_tiled_mma(&atom, &"1:0".parse().unwrap(), &[]).unwrap();
    tiled_mma_svg(&mma).unwrap()
}

/// PTX ISA, "Matrix Fragments for mma.m16n8k16 with floating point type", accumulator C/D:
/// groupID = lane >> 2, threadID_in_group = lane % 4; c_i is at row groupID (+8 for i >= 2),
/// column threadID_in_group * 2 + (i & 1).
#[test]
fn sm80_16x8x16_c_cells_follow_the_ptx_fragment_formula() {
    let c = cells(&sm80_16x8x16(), "C");
    assert_eq!(c.len(), 128);
    for cell in c.values() {
        let (lane, i) = (cell.thread, cell.value);
        assert!((0..32).contains(&lane) && (0..4).contains(&i), "{cell:?}");
        let row = (lane >> 2) + if i >= 2 { 8 } else { 0 };
        let col = (lane % 4) * 2 + (i & 1);
        assert_eq!((cell.row, cell.col), (row, col), "{cell:?}");
    }
    // A few cells spelled out: lane 0 c0 at (0,0), lane 5 c3 at (9,3), lane 31 c2 at (15,6).
    assert_eq!((c[&(0, 0)].thread, c[&(0, 0)].value), (0, 0));
    assert_eq!((c[&(9, 3)].thread, c[&(9, 3)].value), (5, 3));
    assert_eq!((c[&(15, 6)].thread, c[&(15, 6)].value), (31, 2));
}

/// PTX ISA, same section, multiplicand A (f16, 16x16): a_i is at row groupID (+8 for i in
/// {2,3,6,7}), column threadID_in_group * 2 + (i & 1) (+8 for i >= 4).
#[test]
fn sm80_16x8x16_a_cells_follow_the_ptx_fragment_formula() {
    let a = cells(&sm80_16x8x16(), "A");
    assert_eq!(a.len(), 256);
    for cell in a.values() {
        let (lane, i) = (cell.thread, cell.value);
        let row = (lane >> 2) + if matches!(i, 2 | 3 | 6 | 7) { 8 } else { 0 };
        let col = (lane % 4) * 2 + (i & 1) + if i >= 4 { 8 } else { 0 };
        assert_eq!((cell.row, cell.col), (row, col), "{cell:?}");
    }
}

/// PTX ISA, same section, multiplicand B (f16, 16x8, drawn k down): b_i is at row (k)
/// threadID_in_group * 2 + (i & 1) (+8 for i >= 2), column (n) groupID.
#[test]
fn sm80_16x8x16_b_cells_follow_the_ptx_fragment_formula() {
    let b = cells(&sm80_16x8x16(), "B");
    assert_eq!(b.len(), 128);
    for cell in b.values() {
        let (lane, i) = (cell.thread, cell.value);
        let k = (lane % 4) * 2 + (i & 1) + if i >= 2 { 8 } else { 0 };
        assert_eq!((cell.row, cell.col), (k, lane >> 2), "{cell:?}");
    }
}

/// CuTe's print_svg(TiledMMA): C in the middle, A to its left on C's rows, B above it on C's
/// columns.
#[test]
fn a_is_left_of_c_and_b_above_it() {
    let svg = sm80_16x8x16();
    let (a, b, c) = (cells(&svg, "A"), cells(&svg, "B"), cells(&svg, "C"));
    let c00 = c[&(0, 0)];
    // A's row m lines up with C's row m, and A ends left of C.
    for m in 0..16 {
        assert_eq!(a[&(m, 0)].y, c[&(m, 0)].y);
        assert!(a[&(m, 15)].x < c00.x);
    }
    // B's column n lines up with C's column n, and B ends above C.
    for n in 0..8 {
        assert_eq!(b[&(0, n)].x, c[&(0, n)].x);
        assert!(b[&(15, n)].y < c00.y);
    }
}

/// Two atoms along M (CuTe make_tiled_mma with Layout<Shape<_2,_1>>): threads 32..63 are the
/// second atom, drawn on rows 16..31 of C with the same fragment pattern.
#[test]
fn a_second_atom_along_m_holds_rows_16_to_31() {
    let atom = mma_atom("SM80_16x8x16_F32F16F16F32_TN").unwrap();
    let mma = make_tiled_mma(&atom, &"(2,1):(1,0)".parse().unwrap(), &[]).unwrap();
    let c = cells(&tiled_mma_svg(&mma).unwrap(), "C");
    assert_eq!(c.len(), 32 * 8);
    for cell in c.values() {
        let (warp, lane, i) = (cell.thread / 32, cell.thread % 32, cell.value);
        let row = 16 * warp + (lane >> 2) + if i >= 2 { 8 } else { 0 };
        assert_eq!((cell.row, cell.col), (row, (lane % 4) * 2 + (i & 1)));
    }
}

/// One ldmatrix.x1 over an 8x8 tile of 16-bit elements, with CuTe's layouts
/// (include/cute/atom/copy_traits_sm75.hpp, SM75_U32x1_LDSM_N, in 16-bit elements):
/// DstLayout (32,2):(2,1) puts lane t's value v at index 2t+v; SrcLayout ((8,4),8):((8,0),1)
/// has lanes 0..7 address the 8 elements from index 8t (lanes 8..31 repeat them).
#[test]
fn an_ldmatrix_copy_draws_cute_source_and_destination() {
    let atom = copy_atom("SM75_U32x1_LDSM_N").unwrap().typed(16).unwrap();
    let copy = TiledCopy::new(&atom, atom.reference().clone(), vec![8, 8]).unwrap();
    let svg = tiled_copy_svg(&copy).unwrap();
    let d = cells(&svg, "D");
    assert_eq!(d.len(), 64);
    for cell in d.values() {
        let index = 2 * cell.thread + cell.value;
        assert_eq!((cell.row, cell.col), (index % 8, index / 8), "{cell:?}");
    }
    let s = cells(&svg, "S");
    assert_eq!(s.len(), 64);
    for cell in s.values() {
        // The first lane to reach index 8t + v is lane t (< 8).
        let index = 8 * cell.thread + cell.value;
        assert!(cell.thread < 8, "{cell:?}");
        assert_eq!((cell.row, cell.col), (index % 8, index / 8), "{cell:?}");
    }
}

/// A 2x2 row-major arrangement of threads with 1x2 values each over a 2x4 tile: thread t holds
/// row t / 2, columns 2 * (t % 2) + {0,1}; source and destination agree (UniversalCopy).
#[test]
fn a_universal_copy_draws_both_sides_alike() {
    let atom = copy_atom("UniversalCopy<uint32_t>")
        .unwrap()
        .typed(32)
        .unwrap();
    let copy = make_tiled_copy(
        &atom,
        &"(2,2):(2,1)".parse().unwrap(),
        &"(1,2):(0,1)".parse().unwrap(),
    )
    .unwrap();
    let svg = tiled_copy_svg(&copy).unwrap();
    let (s, d) = (cells(&svg, "S"), cells(&svg, "D"));
    assert_eq!(s.len(), 8);
    for cell in s.values() {
        assert_eq!(cell.row, cell.thread / 2);
        assert_eq!(cell.col, 2 * (cell.thread % 2) + cell.value);
        let twin = d[&(cell.row, cell.col)];
        assert_eq!((twin.thread, twin.value), (cell.thread, cell.value));
        assert!(twin.x > cell.x, "D is drawn right of S");
    }
    insta::assert_snapshot!(svg);
}

#[test]
fn pictures_too_large_are_refused() {
    let atom = copy_atom("UniversalCopy<uint32_t>")
        .unwrap()
        .typed(32)
        .unwrap();
    let copy = make_tiled_copy(
        &atom,
        &"(256,256):(256,1)".parse().unwrap(),
        &"(1,2):(0,1)".parse().unwrap(),
    )
    .unwrap();
    let err = tiled_copy_svg(&copy).unwrap_err();
    assert!(err.to_string().contains("cells in all"), "{err}");
}

/// The picture's width and height (the `<svg>` element's attributes).
fn picture_size(svg: &str) -> (i64, i64) {
    let tag = svg.lines().next().unwrap();
    (attr(tag, "width"), attr(tag, "height"))
}

/// A rank-1 tiled copy: 32 threads of 8 consecutive values, a 256-element tile drawn as one
/// column. It is folded into blocks of rows side by side, so the picture stays within
/// MAX_WIDTH and is not a 5,000-pixel strip, and every element is still drawn once per side.
#[test]
fn a_rank_1_tiled_copy_folds_into_blocks_of_rows() {
    use tessel_layout::svg::{MAX_HEIGHT, MAX_WIDTH};
    let atom = copy_atom("UniversalCopy<uint32_t>")
        .unwrap()
        .typed(32)
        .unwrap();
    let copy = make_tiled_copy(&atom, &"32:1".parse().unwrap(), &"8:1".parse().unwrap()).unwrap();
    let svg = tiled_copy_svg(&copy).unwrap();
    let (width, height) = picture_size(&svg);
    assert!(width <= MAX_WIDTH, "{width}x{height}");
    assert!(height <= 2 * MAX_HEIGHT, "{width}x{height}");
    for op in ["S", "D"] {
        let cells = cells(&svg, op);
        assert_eq!(cells.len(), 256, "{op}");
        for cell in cells.values() {
            // make_tiled_copy: thread t holds elements 8t .. 8t + 7 (value v at 8t + v).
            assert_eq!((cell.row, cell.col), (8 * cell.thread + cell.value, 0));
        }
        // Row 32 starts a new block to the right of row 0's, at the same height.
        let (r0, r32) = (cells[&(0, 0)], cells[&(32, 0)]);
        assert!(r32.x > r0.x && r32.y == r0.y, "{op}: {r0:?} {r32:?}");
    }
}

/// A tiled MMA too large for CuTe's arrangement (C is 128 x 128) is drawn tile below tile,
/// each folded, within MAX_WIDTH.
#[test]
fn a_large_tiled_mma_stacks_its_folded_tiles() {
    use tessel_layout::svg::MAX_WIDTH;
    let atom = mma_atom("SM80_16x8x16_F32F16F16F32_TN").unwrap();
    let mma = make_tiled_mma(&atom, &"(8,16):(1,8)".parse().unwrap(), &[]).unwrap();
    let svg = tiled_mma_svg(&mma).unwrap();
    let (width, _) = picture_size(&svg);
    assert!(width <= MAX_WIDTH, "{width}");
    let (a, b, c) = (cells(&svg, "A"), cells(&svg, "B"), cells(&svg, "C"));
    assert_eq!((a.len(), b.len(), c.len()), (128 * 16, 16 * 128, 128 * 128));
    // A above B above C.
    assert!(a[&(0, 0)].y < b[&(0, 0)].y && b[&(0, 0)].y < c[&(0, 0)].y);
}
