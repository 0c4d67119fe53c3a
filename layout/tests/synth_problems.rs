//! Swizzle synthesis on shared-memory tiles whose accesses conflict (a two-layer fp16 tile, an
//! fp32 transpose tile, vector row writes with column reads). Each test checks that the unswizzled tile
//! has conflicts, that the found chain is conflict-free for every access (proved again here with
//! the public analyzer), and that the tile stays a bijection.

use tessel_layout::bank::analyze;
use tessel_layout::synth::{Access, Options, Synthesis, synthesize};
use tessel_layout::{Layout, verify};

fn access(op: &str, tv: &str) -> Access {
    Access::new(op.parse().unwrap(), tv.parse().unwrap())
}

fn solve(tile: &str, elem_bytes: i64, accesses: &[Access]) -> Synthesis {
    let tile: Layout = tile.parse().unwrap();
    let s = synthesize(&tile, elem_bytes, accesses, Options::default()).unwrap();
    assert!(s.baseline_total().excess > 0, "{s}");
    assert!(verify::is_bijective(&s.layout).unwrap(), "{s}");
    for a in accesses {
        let r = analyze(&s.layout, elem_bytes, a.op, &a.tv).unwrap();
        assert_eq!(r.excess, 0, "{a} on {}", s.layout);
    }
    s
}

/// (a) A 16x256 fp16 tile (row-major, 512-byte rows; domain index = row + 16*col) read by 16
/// warps with ldmatrix.x4 in two ways:
/// - as the 16 16x16 blocks along the row: warp b reads columns 16b..16b+15; lane l addresses
///   row l%16 at column 16b + 8*(l/16) (matrices: rows 0-7/8-15 x columns 0-7/8-15); its 8
///   values are the next 8 columns;
/// - as each tile row r of 256 elements viewed as a 16x16 block B(i,j) = tile(r, 16i+j):
///   warp r reads B, lane l addresses block row i = l%16 at block column 8*(l/16).
///
/// The first needs the 16-byte chunk index XORed by the row (3 bits); the second puts 8 rows of
/// 32 bytes into one 128-byte line twice, which only a second layer flipping the chunk by the
/// 128-byte-line bit resolves. No single Sw<B,M,S> does both.
#[test]
fn two_layer_fp16_tile() {
    let blocks = access("ldsm.x4", "((8,2,2),8,16):((1,8,128),16,256)");
    let rows = access("ldsm.x4", "((8,2,2),8,16):((256,2048,128),16,1)");
    let s = solve("(16,256):(256,1)", 2, &[blocks.clone(), rows.clone()]);
    assert_eq!(s.layout.swizzles().len(), 2, "{s}");
    assert!(s.baseline[0].excess > 0 && s.baseline[1].excess > 0, "{s}");
    // single layers cannot do it
    let single = synthesize(
        &"(16,256):(256,1)".parse().unwrap(),
        2,
        &[blocks, rows],
        Options { max_layers: 1 },
    )
    .unwrap();
    assert!(single.total().excess > 0, "{single}");
    eprintln!("{s}");
}

/// (b) The 32x32 fp32 transpose tile: rows written with sts.32 (lane = column), columns read
/// with lds.32 (lane = row), all 32 of each.
#[test]
fn fp32_transpose_tile() {
    let write = access("sts.32", "(32,1,32):(32,0,1)");
    let read = access("lds.32", "(32,1,32):(1,0,32)");
    let s = solve("(32,32):(32,1)", 4, &[write, read]);
    assert_eq!(s.layout.swizzles().len(), 1, "{s}");
    eprintln!("{s}");
}

/// (c) fp32 32x32 tile written along rows with sts.128 (lane t: row t/8 of a 4-row band,
/// columns 4(t%8)..+4), read down the columns with lds.32 by groups of 8 lanes (lane t: row
/// t%8 of an 8-row band, column t/8 of a 4-column band).
#[test]
fn vector_row_writes_scalar_column_reads() {
    let write = access("sts.128", "((8,4),4,8):((128,1),32,4)");
    let read = access("lds.32", "((8,4),1,(4,8)):((1,32),0,(8,128))");
    let s = solve("(32,32):(32,1)", 4, &[write, read]);
    assert_eq!(s.layout.swizzles().len(), 1, "{s}");
    eprintln!("{s}");
}

/// (c') The packed-vector variant: the same row writes, and columns of 128-bit vectors read
/// with lds.128 (lane t reads row t, columns 4c..4c+3).
#[test]
fn vector_row_writes_vector_column_reads() {
    let write = access("sts.128", "((8,4),4,8):((128,1),32,4)");
    let read = access("lds.128", "(32,4,8):(1,32,128)");
    let s = solve("(32,32):(32,1)", 4, &[write, read]);
    assert_eq!(s.layout.swizzles().len(), 1, "{s}");
}

/// A 32-lane scalar read of one column cannot be conflict-free next to 128-bit row writes:
/// the two lowest offset bits belong to the vector, so the read reaches only 8 banks with 32
/// words (at best 4 wavefronts). Synthesis reports the best it can: excess 3 per read.
#[test]
fn impossible_problem_reports_the_fewest_wavefronts() {
    let write = access("sts.128", "((8,4),4,8):((128,1),32,4)");
    let read = access("lds.32", "(32,1,4):(1,0,32)"); // columns 0..3
    let tile: Layout = "(32,32):(32,1)".parse().unwrap();
    let s = synthesize(&tile, 4, &[write, read], Options::default()).unwrap();
    eprintln!("{s}");
    assert_eq!(s.reports[0].excess, 0, "{s}");
    assert_eq!(s.reports[1].excess, 3 * 4, "{s}");
    assert_eq!(s.baseline[1].excess, 31 * 4, "{s}");
}

#[test]
fn conflict_free_tiles_keep_no_swizzle() {
    let write = access("sts.32", "(32,1,32):(32,0,1)");
    let s = synthesize(
        &"(32,32):(32,1)".parse().unwrap(),
        4,
        &[write],
        Options::default(),
    )
    .unwrap();
    assert!(s.layout.swizzles().is_empty(), "{s}");
    assert!(synthesize(&"(4,4):(1,1)".parse().unwrap(), 4, &[], Options::default()).is_err());
}
