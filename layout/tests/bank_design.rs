//! The bank model of docs/bank-model.md ("The rules"), case by case.

use tessel_layout::bank::{BankReport, SmemOp, analyze};
use tessel_layout::{ComposedLayout, ErrorKind, Layout, OffsetMap};

fn run(smem: &impl OffsetMap, elem_bytes: i64, op: &str, tv: &str) -> BankReport {
    let tv: Layout = tv.parse().unwrap();
    analyze(smem, elem_bytes, op.parse().unwrap(), &tv).unwrap()
}

fn report(wavefronts: i64, ideal: i64) -> BankReport {
    BankReport {
        wavefronts,
        ideal,
        excess: wavefronts - ideal,
    }
}

fn layout(text: &str) -> ComposedLayout {
    text.parse().unwrap()
}

#[test]
fn conflict_free_vectors_take_1_2_4_wavefronts() {
    // docs/bank-model.md: ideal 1, 2, 4 wavefronts for 32, 64, 128-bit accesses.
    let smem = layout("1024:1"); // fp32 elements
    assert_eq!(run(&smem, 4, "lds.32", "32:1"), report(1, 1));
    assert_eq!(run(&smem, 4, "lds.64", "(32,2):(2,1)"), report(2, 2));
    assert_eq!(run(&smem, 4, "lds.128", "(32,4):(4,1)"), report(4, 4));
    assert_eq!(run(&smem, 4, "sts.128", "(32,4):(4,1)"), report(4, 4));
    // fp16 pairs and octets are the same bytes.
    assert_eq!(run(&smem, 2, "sts.32", "(32,2):(2,1)"), report(1, 1));
    assert_eq!(run(&smem, 2, "lds.128", "(32,8):(8,1)"), report(4, 4));
}

#[test]
fn whole_warp_counts_together() {
    // docs/bank-model.md: the whole warp counts together on Hopper. 64-bit loads of lanes 0..15 and
    // 16..31 hitting the same banks in different words are still 2 wavefronts: the warp
    // requests 256 bytes spread over 2 words per bank.
    let smem = layout("4096:1");
    assert_eq!(
        run(&smem, 4, "lds.64", "((16,2),2):((2,64),1)"),
        report(2, 2)
    );
    // 128-bit loads at a 32-byte stride: 16 banks see 8 words each.
    assert_eq!(run(&smem, 4, "lds.128", "(32,4):(8,1)"), report(8, 4));
}

#[test]
fn ldmatrix_rows_at_128_byte_pitch() {
    // docs/bank-model.md: rows at a 128-byte pitch without swizzle: 8/16/32 wavefronts (x1/x2/x4);
    // a 3-bit XOR swizzle of the 16-byte chunk index by the row gives the ideal.
    // fp16 tile of 32 rows x 64 columns, row-major: 128 bytes per row. Domain index =
    // row + 32*col; lane l reads row l, its 8 values are columns 0..7.
    let plain = layout("(32,64):(64,1)");
    let swizzled = layout("Sw<3,3,3> o (32,64):(64,1)");
    for (op, lanes, ideal) in [("ldsm.x1", 8, 1), ("ldsm.x2", 16, 2), ("ldsm.x4", 32, 4)] {
        let tv = format!("({lanes},8):(1,32)");
        assert_eq!(run(&plain, 2, op, &tv), report(8 * ideal, ideal), "{op}");
        assert_eq!(run(&swizzled, 2, op, &tv), report(ideal, ideal), "{op}");
        let trans = format!("{op}.trans");
        assert_eq!(
            run(&plain, 2, &trans, &tv),
            report(8 * ideal, ideal),
            "{trans}"
        );
        let store = op.replace("ldsm", "stsm");
        assert_eq!(
            run(&swizzled, 2, &store, &tv),
            report(ideal, ideal),
            "{store}"
        );
    }
    // x1 may also be given 32 lanes: only lanes 0..7 are used.
    assert_eq!(run(&plain, 2, "ldsm.x1", "(32,8):(1,32)"), report(8, 1));
}

#[test]
fn fp32_tile_column_reads() {
    // docs/bank-model.md: the 32-way column read of a 32x32 fp32 tile, the padded tile, broadcast.
    let tile = layout("(32,32):(32,1)");
    assert_eq!(run(&tile, 4, "lds.32", "32:1"), report(32, 1));
    assert_eq!(
        run(&layout("(32,32):(33,1)"), 4, "lds.32", "32:1"),
        report(1, 1)
    );
    assert_eq!(run(&tile, 4, "lds.32", "32:0"), report(1, 1));
    // a row read is conflict-free
    assert_eq!(run(&tile, 4, "sts.32", "32:32"), report(1, 1));
}

#[test]
fn several_instructions_add_up() {
    // Mode 2 enumerates instructions: 4 column reads of the 32x32 tile, 32 wavefronts each.
    let tile = layout("(32,32):(32,1)");
    assert_eq!(run(&tile, 4, "lds.32", "(32,1,4):(1,0,32)"), report(128, 4));
}

#[test]
fn broken_vectors_are_errors_naming_the_lane() {
    let tile = layout("(32,32):(32,1)");
    // values down a column are not one 64-bit vector
    let tv: Layout = "(32,2):(2,1)".parse().unwrap();
    let err = analyze(&tile, 4, "lds.64".parse().unwrap(), &tv).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::InvalidArgument);
    assert!(err.to_string().contains("lane 0"), "{err}");
    assert!(err.to_string().contains("not one contiguous"), "{err}");
    // a vector starting at an odd element is misaligned
    let shifted = layout("1 o 1024:1");
    let tv: Layout = "(32,2):(2,1)".parse().unwrap();
    let err = analyze(&shifted, 4, "lds.64".parse().unwrap(), &tv).unwrap_err();
    assert!(err.to_string().contains("not aligned"), "{err}");
    // a swizzle that splits vectors is caught after the layout
    let split = layout("Sw<1,0,5> o 1024:1");
    let tv: Layout = "(32,4):(4,1)".parse().unwrap();
    let err = analyze(&split, 4, "lds.128".parse().unwrap(), &tv).unwrap_err();
    assert!(err.to_string().contains("lane 8"), "{err}");
    // wrong lane or value counts
    let tv: Layout = "(16,1):(1,0)".parse().unwrap();
    assert!(analyze(&tile, 4, "lds.32".parse().unwrap(), &tv).is_err());
    let tv: Layout = "(32,2):(1,32)".parse().unwrap();
    assert!(analyze(&tile, 4, "lds.32".parse().unwrap(), &tv).is_err());
    // an index outside the layout's domain
    let tv: Layout = "32:64".parse().unwrap();
    let err = analyze(&tile, 4, "lds.32".parse().unwrap(), &tv).unwrap_err();
    assert!(err.to_string().contains("outside the domain"), "{err}");
}

#[test]
fn op_names() {
    for name in [
        "lds.32",
        "lds.64",
        "lds.128",
        "sts.32",
        "sts.64",
        "sts.128",
        "ldsm.x1",
        "ldsm.x2",
        "ldsm.x4",
        "stsm.x1",
        "stsm.x2",
        "stsm.x4",
        "ldsm.x4.trans",
        "stsm.x2.trans",
        "lds.16",
        "sts.16",
        "lds.8",
        "sts.8",
    ] {
        assert_eq!(name.parse::<SmemOp>().unwrap().to_string(), name);
    }
    for bad in [
        "lds",
        "lds.4",
        "sts.8.trans",
        "ldsm.x3",
        "lds.32.trans",
        "ldsm.x4.t",
        "mov.32",
        "",
    ] {
        assert!(bad.parse::<SmemOp>().is_err(), "{bad}");
    }
}

/// Nsight Compute measurements of single lds/sts instructions on an H100 (docs/bank-model.md,
/// "Evidence for wide accesses": the `conflict_p*` / `conflict_s*` microkernels of
/// `tessel_kernels::micro::PATTERNS`): lane word offsets on a plain fp32 buffer, the
/// instruction, and the measured wavefronts.
const MEASURED: [(&str, &str, i64); 47] = [
    ("(2,4,2,2):(32,4,16,64)", "lds.128", 8),
    ("(8,4):(4,0)", "lds.128", 4),
    ("(8,4):(0,4)", "lds.128", 2),
    ("(16,2):(0,8)", "lds.128", 2),
    ("(16,2):(8,0)", "lds.128", 8),
    ("32:0", "lds.128", 2),
    ("(4,8):(4,0)", "lds.128", 4),
    ("(16,2):(4,0)", "lds.128", 4),
    ("(2,16):(0,4)", "lds.128", 2),
    ("(4,8):(0,4)", "lds.128", 2),
    ("(16,2):(0,4)", "lds.128", 2),
    ("32:8", "lds.128", 8),
    ("(8,4):(4,4)", "lds.128", 4),
    ("(8,2,2):(4,0,32)", "lds.128", 4),
    ("(8,2,2):(0,4,0)", "lds.128", 2),
    ("(8,4):(32,0)", "lds.128", 32),
    ("(8,4):(0,32)", "lds.128", 4),
    ("(2,16):(4,0)", "lds.128", 2),
    ("(8,2,2):(4,0,4)", "lds.128", 4),
    ("(4,2,2,2):(0,32,4,0)", "lds.128", 8),
    ("(2,16):(32,0)", "lds.128", 8),
    ("(2,2,8):(4,0,0)", "lds.128", 2),
    ("32:2", "lds.64", 2),
    ("32:0", "lds.64", 1),
    ("(16,2):(2,0)", "lds.64", 2),
    ("(8,4):(2,0)", "lds.64", 2),
    ("(2,16):(0,2)", "lds.64", 1),
    ("(8,4):(0,2)", "lds.64", 1),
    ("(16,2):(0,2)", "lds.64", 1),
    ("(16,2):(8,0)", "lds.64", 8),
    ("32:8", "lds.64", 8),
    ("(2,8,2):(32,2,16)", "lds.64", 4),
    ("(16,2):(32,0)", "lds.64", 32),
    ("(8,2,2):(2,0,16)", "lds.64", 2),
    ("(8,2,2):(0,2,0)", "lds.64", 1),
    ("(2,16):(2,0)", "lds.64", 1),
    ("(4,8):(2,0)", "lds.64", 2),
    ("(8,2,2):(0,32,2)", "lds.64", 4),
    ("(2,16):(32,0)", "lds.64", 4),
    ("(8,4):(1,0)", "lds.32", 1),
    ("(8,4):(0,1)", "lds.32", 1),
    ("32:4", "sts.128", 4),
    ("(2,4,2,2):(32,4,16,64)", "sts.128", 8),
    ("(8,4):(32,4)", "sts.128", 32),
    ("32:8", "sts.128", 8),
    ("(2,8,2):(32,2,16)", "sts.64", 4),
    ("32:2", "sts.64", 2),
];

#[test]
fn wide_accesses_take_the_wavefronts_measured_on_an_h100() {
    let buffer: Layout = "1024:1".parse().unwrap();
    for (lanes, op, measured) in MEASURED {
        let op: SmemOp = op.parse().unwrap();
        let words = op.vector_bytes() / 4;
        let tv = Layout::from_modes([
            lanes.parse().unwrap(),
            format!("{}:1", words.max(1)).parse().unwrap(),
        ])
        .unwrap();
        let r = analyze(&buffer, 4, op, &tv).unwrap();
        assert_eq!(r.wavefronts, measured, "{op} lanes {lanes}");
        assert!(r.excess >= 0, "{op} lanes {lanes}: {r}");
    }
}

#[test]
fn broadcasts_lower_the_ideal_and_conflicts_split_requests() {
    let buffer: Layout = "1024:1".parse().unwrap();
    // docs/bank-model.md: every lane the same 16 bytes: one wavefront per half-warp.
    assert_eq!(run(&buffer, 4, "lds.128", "(32,4):(0,1)"), report(2, 2));
    // One vector per quarter-warp, 4 banks groups apart: each half-warp fits one wavefront.
    assert_eq!(
        run(&buffer, 4, "lds.128", "((8,4),4):((0,4),1)"),
        report(2, 2)
    );
    // The same, but the quarter-warps' vectors share banks: each quarter-warp on its own.
    assert_eq!(
        run(&buffer, 4, "lds.128", "((8,4),4):((0,32),1)"),
        report(4, 2)
    );
    // 64-bit: lane pairs share a vector, 16 vectors in 16 bank pairs: the warp in one wavefront.
    assert_eq!(
        run(&buffer, 4, "lds.64", "((2,16),2):((0,2),1)"),
        report(1, 1)
    );
    // docs example: the warp spreads evenly, each quarter-warp puts 2 vectors in a bank group.
    assert_eq!(
        run(&buffer, 4, "lds.128", "((2,4,2,2),4):((32,4,16,64),1)"),
        report(8, 4)
    );
}
