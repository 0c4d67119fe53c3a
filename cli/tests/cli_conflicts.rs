//! The `conflicts`, `swizzle` and `show --svg` subcommands (the contract of docs/cli.md).

mod cli_support;

use cli_support::{failure, success};

/// `(wavefronts, ideal, excess)` of `tessel conflicts --json`, read with serde_json.
fn conflicts(smem: &str, elem: &str, op: &str, tv: &str) -> (i64, i64, i64) {
    let text = success(&[
        "conflicts",
        "--smem",
        smem,
        "--elem-bytes",
        elem,
        "--op",
        op,
        "--access",
        tv,
        "--json",
    ]);
    let v: serde_json::Value = serde_json::from_str(&text).expect("one JSON value");
    assert_eq!(v["op"], op, "{text}");
    assert_eq!(v["elem_bytes"], elem.parse::<i64>().unwrap(), "{text}");
    let field = |k: &str| v[k].as_i64().unwrap_or_else(|| panic!("{k} in {text}"));
    (field("wavefronts"), field("ideal"), field("excess"))
}

#[test]
fn conflicts_json_reproduces_design_cases() {
    // docs/bank-model.md: the 32-way column read, the padded tile, broadcast, the ldmatrix rows.
    let json = |w: i64, i: i64| (w, i, w - i);
    assert_eq!(
        conflicts("(32,32):(32,1)", "4", "lds.32", "32:1"),
        json(32, 1)
    );
    assert_eq!(
        conflicts("(32,32):(33,1)", "4", "lds.32", "32:1"),
        json(1, 1)
    );
    assert_eq!(
        conflicts("(32,32):(32,1)", "4", "lds.32", "32:0"),
        json(1, 1)
    );
    // The quarter-warp example, 8 wavefronts as measured on an H100 (docs/bank-model.md,
    // conflict_p128_docs), and every lane on one vector: one wavefront per half-warp.
    assert_eq!(
        conflicts("1024:1", "4", "lds.128", "((2,4,2,2),4):((32,4,16,64),1)"),
        json(8, 4)
    );
    assert_eq!(
        conflicts("1024:1", "4", "lds.128", "(32,4):(0,1)"),
        json(2, 2)
    );
    assert_eq!(
        conflicts("1024:1", "4", "lds.128", "(32,4):(4,1)"),
        json(4, 4)
    );
    assert_eq!(
        conflicts("(32,64):(64,1)", "2", "ldsm.x4", "(32,8):(1,32)"),
        json(32, 4)
    );
    assert_eq!(
        conflicts(
            "Sw<3,3,3> o (32,64):(64,1)",
            "2",
            "ldsm.x4.trans",
            "(32,8):(1,32)"
        ),
        json(4, 4)
    );
    let plain = success(&[
        "conflicts",
        "--smem",
        "(32,32):(32,1)",
        "--elem-bytes=4",
        "--op=lds.32",
        "--access=32:1",
    ]);
    assert_eq!(plain, "wavefronts 32, ideal 1, excess 31\n");
}

#[test]
fn conflicts_errors_are_one_line() {
    let e = failure(&[
        "conflicts",
        "--smem",
        "(32,32):(32,1)",
        "--elem-bytes",
        "4",
        "--op",
        "lds.64",
        "--access",
        "(32,2):(2,1)",
    ]);
    assert!(e.contains("lane 0") && e.contains("contiguous"), "{e}");
    let e = failure(&[
        "conflicts",
        "--smem",
        "8:1",
        "--elem-bytes",
        "4",
        "--op",
        "lds.32",
    ]);
    assert!(e.contains("--access"), "{e}");
    let e = failure(&[
        "conflicts",
        "--smem",
        "8:1",
        "--elem-bytes",
        "4",
        "--op",
        "ld.32",
        "--access",
        "32:1",
    ]);
    assert!(e.contains("unknown shared-memory op"), "{e}");
    failure(&[
        "conflicts",
        "--smem",
        "(8,",
        "--elem-bytes",
        "4",
        "--op",
        "lds.32",
        "--access",
        "32:1",
    ]);
    failure(&["conflicts", "--smem", "8:1", "--smem", "8:1"]);
    failure(&["conflicts", "--bogus"]);
    failure(&[
        "conflicts",
        "--smem",
        "1024:1",
        "--elem-bytes",
        "x",
        "--op",
        "lds.32",
        "--access",
        "32:1",
    ]);
    failure(&[
        "conflicts",
        "--smem",
        "1024:1",
        "--elem-bytes",
        "3",
        "--op",
        "lds.32",
        "--access",
        "32:1",
    ]);
}

#[test]
fn swizzle_prints_the_permutation_table() {
    let out = success(&["swizzle", "3", "0", "3"]);
    // row r, column c holds 8r + (c XOR r)
    let row3 = out.lines().find(|l| l.starts_with("3 |")).expect("row 3");
    let cells: Vec<i64> = row3
        .split('|')
        .skip(1)
        .filter_map(|c| c.trim().parse().ok())
        .collect();
    assert_eq!(cells, (0..8).map(|c| 24 + (c ^ 3)).collect::<Vec<_>>());
    let small = success(&["swizzle", "1", "0", "1", "--rows", "2", "--cols", "2"]);
    assert!(small.contains("| 3 | 2 |"), "{small}");
    failure(&["swizzle", "3", "3", "2"]);
    failure(&["swizzle", "3", "3"]);
    failure(&["swizzle", "3", "3", "3", "--rows", "0"]);
    failure(&["swizzle", "3", "30", "20"]);
}

#[test]
fn show_writes_svg_pictures() {
    let dir = std::env::temp_dir().join(format!("tessel-svg-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let grid = dir.join("grid.svg");
    let out = success(&[
        "show",
        "Sw<3,3,3> o (8,64):(64,1)",
        "--svg",
        grid.to_str().unwrap(),
        "--elem-bytes",
        "2",
    ]);
    assert!(out.contains("455"), "the table is still printed");
    let svg = std::fs::read_to_string(&grid).unwrap();
    assert!(svg.starts_with("<svg") && svg.trim_end().ends_with("</svg>"));
    assert!(svg.contains(">bank 31<") && svg.contains(">455<"));
    // Each cell names its bank: offset 455 of 2-byte elements is byte 910, bank 227 % 32 = 3.
    assert!(svg.contains(">b3<") && svg.contains(">b31<"));
    let tv = dir.join("tv.svg");
    success(&[
        "show",
        "((4,8),(2,2)):((32,1),(16,8))",
        "--svg",
        tv.to_str().unwrap(),
        "--tv",
        "16x8",
    ]);
    let svg = std::fs::read_to_string(&tv).unwrap();
    assert!(svg.contains(">T31V3<"));
    failure(&["show", "8:1", "--elem-bytes", "4"]);
    failure(&[
        "show",
        "(4,2):(1,4)",
        "--svg",
        tv.to_str().unwrap(),
        "--tv",
        "2x2",
    ]);
    failure(&[
        "show",
        "8:1",
        "--svg",
        dir.join("no/such/dir.svg").to_str().unwrap(),
    ]);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn eval_knows_swizzled_layouts() {
    let eval = |e: &str| success(&["eval", e]);
    assert_eq!(
        eval("is_bijective(Sw<1,3,3> o Sw<3,3,5> o (16,256):(256,1))"),
        "true\n"
    );
    assert_eq!(eval("is_injective(Sw<3,3,3> o (8,64):(64,2))"), "false\n");
    assert_eq!(
        eval("is_bijective(Sw<3,3,3> o 32 o (8,64):(64,1))"),
        "false\n"
    );
    assert_eq!(
        eval("Sw<1,3,3> o 4096:1 o Sw<3,3,5> o (16,256):(256,1)"),
        "Sw<1,3,3> o Sw<3,3,5> o (16,256):(256,1)\n"
    );
    // docs/semantics.md: the 128-byte swizzle is Sw<3,4,3> on bytes, Sw<3,3,3> on fp16 elements.
    assert_eq!(
        eval("downcast(Sw<3,3,3> o (8,64):(64,1), 2)"),
        "Sw<3,4,3> o (8,128):(128,1)\n"
    );
    let e = failure(&["eval", "upcast(Sw<3,3,3> o (8,64):(64,1), 16)"]);
    assert!(e.contains("not representable"), "{e}");
    let e = failure(&["eval", "(8,8):(8,1) o Sw<3,3,5> o (16,256):(256,1)"]);
    assert!(e.contains("not a composed layout"), "{e}");
}

#[test]
fn synth_finds_the_two_layer_swizzle() {
    // The 16x256 fp16 tile of tensor-core swizzle problem 3 read as 16x16 blocks and as rows viewed as 16x16 blocks.
    let out = success(&[
        "synth",
        "--tile",
        "(16,256):(256,1)",
        "--elem-bytes",
        "2",
        "--access",
        "ldsm.x4 ((8,2,2),8,16):((1,8,128),16,256)",
        "--access",
        "ldsm.x4 ((8,2,2),8,16):((256,2048,128),16,1)",
        "--json",
    ]);
    let v: serde_json::Value = serde_json::from_str(&out).expect("one JSON value");
    assert_eq!(
        (&v["wavefronts"], &v["ideal"], &v["excess"]),
        (&128.into(), &128.into(), &0.into()),
        "{out}"
    );
    assert_eq!(v["swizzles"].as_array().map(Vec::len), Some(2), "{out}");
    let e = failure(&["synth", "--tile", "(32,32):(32,1)", "--elem-bytes", "4"]);
    assert!(e.contains("--access"), "{e}");
    failure(&[
        "synth",
        "--tile",
        "(32,32):(32,1)",
        "--elem-bytes",
        "4",
        "--access",
        "lds.32",
    ]);
    failure(&[
        "synth",
        "--tile",
        "(32,32):(32,1)",
        "--elem-bytes",
        "4",
        "--access",
        "lds.32 32:1",
        "--layers",
        "3",
    ]);
    // instruction modes are capped instead of exhausting memory
    let e = failure(&[
        "conflicts",
        "--smem",
        "1024:1",
        "--elem-bytes",
        "4",
        "--op",
        "lds.32",
        "--access",
        "(32,1,1099511627776):(1,0,0)",
    ]);
    assert!(e.contains("instructions"), "{e}");
}

#[test]
fn swizzle_tables_wider_than_the_line_are_folded() {
    // Sw<3,3,3>: 8 rows of 64 columns, 3-digit cells: 6 characters a column, too wide for the
    // 100 columns used when stdout is not a terminal.
    let out = success(&["swizzle", "3", "3", "3"]);
    assert!(out.lines().all(|l| l.len() <= 100), "{out}");
    // Cell (r, c) of a block still holds Sw<3,3,3>(64r + c), by definition
    // x ^ ((x & 0b111_000_000) >> 3), and every column appears in one block header.
    let mut seen = Vec::new();
    let mut header: Vec<i64> = Vec::new();
    for line in out.lines().skip(1) {
        if line.trim_start().starts_with('+') || line.trim().is_empty() {
            continue;
        }
        if !line.contains('|') {
            header = line
                .split_whitespace()
                .map(|w| w.parse().unwrap())
                .collect();
            seen.extend(header.iter().copied());
            continue;
        }
        let (label, cells) = line.split_once(' ').unwrap();
        let r: i64 = label.trim().parse().unwrap();
        let values: Vec<i64> = cells
            .split('|')
            .map(str::trim)
            .filter(|v| !v.is_empty())
            .map(|v| v.parse().unwrap())
            .collect();
        assert_eq!(values.len(), header.len(), "{line}");
        for (&c, &v) in header.iter().zip(&values) {
            let x = 64 * r + c;
            assert_eq!(v, x ^ ((x & 0b111_000_000) >> 3), "({r},{c})");
        }
    }
    assert_eq!(seen, (0..64).collect::<Vec<_>>());
    // --width folds narrower; a width below one column still shows one column per block.
    let narrow = success(&["swizzle", "3", "3", "3", "--width", "40"]);
    assert!(narrow.lines().skip(1).all(|l| l.len() <= 40), "{narrow}");
    let one = success(&["swizzle", "1", "0", "1", "--width", "1"]);
    assert_eq!(one.matches("+---+\n").count(), 6, "{one}");
}
