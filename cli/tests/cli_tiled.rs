//! `tessel eval` with atoms, tiled copies and tiled MMAs; `tessel show --svg` of them; the
//! error contract for inadmissible tilings.

mod cli_support;

use cli_support::{failure, success};

fn eval(expr: &str) -> String {
    success(&["eval", expr]).trim_end().to_string()
}

fn eval_json(expr: &str) -> serde_json::Value {
    serde_json::from_str(&success(&["eval", "--json", expr])).expect("one JSON object")
}

/// CuTe media/docs/cpp/cute/0x_gemm_tutorial.md (gemm_nt): make_tiled_copy(
/// Copy_Atom<UniversalCopy<uint128_t>, float>, Layout<Shape<_32,_8>>, Layout<Shape<_4,_1>>):
/// 32x8 m-major threads reading 4x1 floats each; partition_S of the 128x8 tile gives each
/// thread a CPY mode of 4 elements (one 128-bit copy).
const TUTORIAL_COPY: &str = "make_tiled_copy(UniversalCopy<uint128_t>, (32,8), (4,1), 32)";

#[test]
fn the_gemm_tutorial_copy_partitions_four_floats_per_thread() {
    assert_eq!(eval(&format!("tile_shape({TUTORIAL_COPY})")), "(128,8)");
    // Thread 33 = (m 1, k 1) of the m-major 32x8 thread layout: rows 4..7 of column 1 of an
    // m-major (128,8) tile, i.e. offsets 4 + 128 .. 7 + 128.
    let p = eval(&format!(
        "partition_S({TUTORIAL_COPY}, 33, (128,8):(1,128))"
    ));
    assert_eq!(p, "132 o ((4,1),1,1):((1,0),0,0)");
    let size = eval(&format!(
        "size(mode(partition_D({TUTORIAL_COPY}, 0, (128,8):(1,128)), 0))"
    ));
    assert_eq!(size, "4");
    let v = eval_json(TUTORIAL_COPY);
    assert_eq!(v["kind"], "tiled copy");
    assert_eq!(v["tiled_copy"]["tiler"], serde_json::json!([128, 8]));
    assert_eq!(
        (
            v["tiled_copy"]["threads"].as_i64(),
            v["tiled_copy"]["values"].as_i64()
        ),
        (Some(256), Some(4))
    );
    assert_eq!(v["tiled_copy"]["value_bits"], 32);
}

/// CuTe test/unit/cute/ampere/tiled_cp_async.cu: Copy_Atom<SM80_CP_ASYNC_CACHEALWAYS<uint128_t>,
/// double> over threads (16,8):(1,16) with values (2,1): a 32x8 tile of doubles, each thread
/// one 128-bit cp.async of two doubles.
#[test]
fn the_cp_async_unit_test_copy() {
    let copy = "make_tiled_copy(SM80_CP_ASYNC_CACHEALWAYS<uint128_t>, (16,8):(1,16), (2,1), 64)";
    assert_eq!(eval(&format!("tile_shape({copy})")), "(32,8)");
    // Thread 17 = (m 1, k 1): rows 2, 3 of column 1.
    let p = eval(&format!("partition_S({copy}, 17, (32,8):(1,32))"));
    assert_eq!(p, "34 o ((2,1),1,1):((1,0),0,0)");
    // 16-bit values: two doubles' worth is 8 halves per thread, not the 2 given.
    let line = failure(&[
        "eval",
        "make_tiled_copy(SM80_CP_ASYNC_CACHEALWAYS<uint128_t>, (16,8):(1,16), (2,1))",
    ]);
    assert!(line.contains("AtomNumVal = 8"), "{line}");
}

/// PTX ISA, mma.m16n8k16 accumulator fragment: lane l holds c0,c1 at row l/4, columns
/// 2*(l%4), 2*(l%4)+1 and c2,c3 eight rows below.
#[test]
fn partition_c_of_one_atom_follows_the_ptx_fragment() {
    for lane in [0i64, 5, 18, 31] {
        let p = eval(&format!(
            "partition_C(SM80_16x8x16_F32F16F16F32_TN, {lane}, (16,8):(8,1))"
        ));
        let offset = (lane / 4) * 8 + 2 * (lane % 4);
        // The four values: +0, +1 (next column), +64, +65 (eight rows down).
        let expected = if offset == 0 {
            "((2,2),1,1):((1,64),0,0)".to_string()
        } else {
            format!("{offset} o ((2,2),1,1):((1,64),0,0)")
        };
        assert_eq!(p, expected, "lane {lane}");
    }
}

/// Four atoms, 2x2 over M and N (CuTe's make_tiled_mma(atom, Layout<Shape<_2,_2,_1>>)): 128
/// threads, a 32x16x16 tile; partition shapes of a 128x128 C and a 128x32 A.
#[test]
fn a_2x2_tiled_mma() {
    let mma = "make_tiled_mma(SM80_16x8x16_F32F16F16F32_TN, (2,2,1):(1,2,0))";
    assert_eq!(eval(&format!("tile_shape({mma})")), "(32,16,16)");
    assert_eq!(
        eval(&format!("partition_shape_C({mma}, (128,128))")),
        "((2,2),4,8)"
    );
    assert_eq!(
        eval(&format!("partition_shape_A({mma}, (128,32))")),
        "((2,2,2),4,2)"
    );
    // Thread 32 is the second atom along M: its C fragment starts at row 16.
    assert_eq!(eval(&format!("at(get_layoutC_TV({mma}), (32, 0))")), "16");
    let v = eval_json(mma);
    assert_eq!(v["kind"], "tiled mma");
    assert_eq!(v["tiled_mma"]["thr_layout_vmnk"], "(32,2,2,1):(1,32,64,0)");
    assert_eq!(v["tiled_mma"]["tile_mnk"], serde_json::json!([32, 16, 16]));
    assert_eq!(v["tiled_mma"]["threads"], 128);
}

#[test]
fn permutations_are_layouts_or_underscores() {
    // N permuted to 32 with two atoms along N, given as arguments or as one by-mode tiler.
    let a = eval(
        "tile_shape(make_tiled_mma(SM80_16x8x16_F32F16F16F32_TN, (1,2), _, (8,2,2):(1,16,8)))",
    );
    let b = eval(
        "tile_shape(make_tiled_mma(SM80_16x8x16_F32F16F16F32_TN, (1,2), [_, (8,2,2):(1,16,8)]))",
    );
    assert_eq!((a.as_str(), b.as_str()), ("(16,32,16)", "(16,32,16)"));
}

/// make_tiled_copy_A with ldmatrix.x4 on the 2x2 MMA: CuTe's copy of the A fragments, a 32x16
/// tile for 128 threads; the element width defaults to A's (f16).
#[test]
fn a_copy_of_the_a_fragments() {
    let copy = "make_tiled_copy_A(SM75_U32x4_LDSM_N, \
                make_tiled_mma(SM80_16x8x16_F32F16F16F32_TN, (2,2,1):(1,2,0)))";
    assert_eq!(eval(&format!("tile_shape({copy})")), "(32,16)");
    let v = eval_json(copy);
    assert_eq!(v["tiled_copy"]["value_bits"], 16);
    assert_eq!(v["tiled_copy"]["threads"], 128);
}

#[test]
fn atoms_are_values() {
    assert_eq!(eval("SM75_U32x4_LDSM_N"), "SM75_U32x4_LDSM_N");
    assert_eq!(eval("UniversalCopy<uint128_t>"), "UniversalCopy<uint128_t>");
    assert_eq!(eval_json("SM80_16x8x8_F16F16F16F16_TN")["kind"], "mma atom");
    assert_eq!(eval_json("SM75_U16x2_LDSM_T")["kind"], "copy atom");
    // Swizzles still parse.
    assert_eq!(
        eval("Sw<3,3,3> o (8,64):(64,1)"),
        "Sw<3,3,3> o (8,64):(64,1)"
    );
}

#[test]
fn bad_input_is_one_error_line_with_a_position() {
    // An unknown atom: where it is, and the nearest name.
    let line = failure(&["eval", "make_tiled_copy(SM75_U32x5_LDSM_N, 32:1, 8:1)"]);
    assert!(
        line.starts_with("error: at 16: unknown name 'SM75_U32x5_LDSM_N'"),
        "{line}"
    );
    assert!(line.contains("SM75_U32x1_LDSM_N"), "{line}");
    // Wrong arity.
    let line = failure(&["eval", "make_tiled_copy(UniversalCopy<uint32_t>, 32:1)"]);
    assert!(line.contains("takes 3 to 4 arguments, got 2"), "{line}");
    // An inadmissible tiling names the condition, at the call.
    let line = failure(&[
        "eval",
        "size(make_tiled_copy(SM75_U32x4_LDSM_N, 32:1, 3:1))",
    ]);
    assert!(line.starts_with("error: at 5: "), "{line}");
    assert!(line.contains("TiledNumVal = 3"), "{line}");
    // A thread outside the tiled MMA.
    let line = failure(&[
        "eval",
        "partition_C(SM80_16x8x16_F32F16F16F32_TN, 32, (16,8):(8,1))",
    ]);
    assert!(line.contains("thread 32"), "{line}");
    // A copy atom where an MMA is expected, and the other way round.
    let line = failure(&["eval", "make_tiled_mma(SM75_U32x4_LDSM_N)"]);
    assert!(line.contains("expects an MMA atom"), "{line}");
    let line = failure(&[
        "eval",
        "make_tiled_copy(SM80_16x8x8_F16F16F16F16_TN, 32:1, 2:1)",
    ]);
    assert!(line.contains("expects a copy atom"), "{line}");
    // An element width that does not divide the atom's bits.
    let line = failure(&[
        "eval",
        "make_tiled_copy(UniversalCopy<uint32_t>, 32:1, 1:0, 64)",
    ]);
    assert!(line.contains("64-bit"), "{line}");
    // A huge tiled MMA (3.2e11 threads): a thread's coordinate is computed, not searched for.
    // Thread 5 is lane 5 of atom (0,0): PTX ISA m16n8 accumulator rows lane/4 = 1 (+8 for
    // c2, c3), columns 2 (lane%4) = 2 (+1 for c1, c3); offset m + 16 n in a 16x8 tile.
    let out = success(&[
        "eval",
        "partition_C(make_tiled_mma(SM80_16x8x16_F32F16F16F32_TN, (100000,100000)), 5, (16,8))",
    ]);
    assert_eq!(out.trim(), "33 o ((2,2),1,1):((16,8),0,0)");
    // Show's --json is for layouts.
    let line = failure(&["show", "--json", "SM80_16x8x8_F16F16F16F16_TN"]);
    assert!(line.contains("eval --json"), "{line}");
}

#[test]
fn show_svg_draws_a_tiled_mma_and_a_tiled_copy() {
    let dir = std::env::temp_dir().join(format!("tessel-cli-tiled-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let mma_path = dir.join("mma.svg");
    let out = success(&[
        "show",
        "SM80_16x8x16_F32F16F16F32_TN",
        "--svg",
        mma_path.to_str().unwrap(),
    ]);
    assert_eq!(out, "SM80_16x8x16_F32F16F16F32_TN\n");
    let svg = std::fs::read_to_string(&mma_path).unwrap();
    assert_eq!(svg.matches(r#"data-op="C""#).count(), 128);
    // PTX ISA m16n8k16 C: lane 5 value 3 is at row 1 + 8, column 2*1 + 1.
    assert!(svg.contains(r#"data-op="C" data-row="9" data-col="3">T5V3<"#));

    let copy_path = dir.join("copy.svg");
    success(&[
        "show",
        "make_tiled_copy(SM75_U32x1_LDSM_N, (8,4):(4,1), (1,2):(0,1))",
        "--svg",
        copy_path.to_str().unwrap(),
    ]);
    let svg = std::fs::read_to_string(&copy_path).unwrap();
    assert_eq!(svg.matches(r#"data-op="S""#).count(), 64);
    assert_eq!(svg.matches(r#"data-op="D""#).count(), 64);
    // --tv and --elem-bytes are for layouts.
    let line = failure(&[
        "show",
        "SM80_16x8x16_F32F16F16F32_TN",
        "--svg",
        mma_path.to_str().unwrap(),
        "--elem-bytes",
        "2",
    ]);
    assert!(line.contains("--elem-bytes"), "{line}");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A rank-1 tiled copy (256 elements, one column) is drawn folded into blocks of rows: the
/// picture stays within the library's MAX_WIDTH x 2 MAX_HEIGHT (1280 pixels each) instead of a
/// strip 5,218 pixels high.
#[test]
fn a_rank_1_tiled_copy_picture_is_folded_to_a_readable_size() {
    let path = std::env::temp_dir().join(format!("tessel-rank1-{}.svg", std::process::id()));
    let copy = "make_tiled_copy(UniversalCopy<uint32_t>, 32:1, 8:1, 32)";
    success(&["show", copy, "--svg", path.to_str().unwrap()]);
    let svg = std::fs::read_to_string(&path).unwrap();
    let _ = std::fs::remove_file(&path);
    let size = |key: &str| -> i64 {
        let head = svg.lines().next().unwrap();
        let start = head.find(&format!("{key}=\"")).unwrap() + key.len() + 2;
        head[start..].split('"').next().unwrap().parse().unwrap()
    };
    let (width, height) = (size("width"), size("height"));
    assert!(width <= 1280 && height <= 2 * 1280, "{width}x{height}");
    // Every element of both sides is still drawn.
    assert_eq!(svg.matches("data-op=\"S\"").count(), 256);
    assert_eq!(svg.matches("data-op=\"D\"").count(), 256);
}
