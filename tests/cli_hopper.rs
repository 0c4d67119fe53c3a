//! `tessel gmma` and `tessel tma`: descriptors, GMMA atoms and TMA box layouts through the
//! command line, their JSON, and the error contract.

mod cli_support;

use cli_support::{failure, success};

fn json(args: &[&str]) -> serde_json::Value {
    serde_json::from_str(&success(args)).expect("one JSON object")
}

// The 128B-swizzled K-major fp16 operand of 64 rows: the descriptor CUTLASS users build by hand
// (layout type 1 = SWIZZLE_128B in bits 62-63, LBO field 1 (unused), SBO field 64 = 1024 bytes
// between 8-row groups; PTX ISA matrix-descriptor format).
#[test]
fn gmma_prints_the_canonical_sw128_descriptor() {
    let layout = "Sw<3,3,3> o ((8,8),16):((64,512),1)";
    let text = success(&["gmma", layout, "--elem-bytes", "2"]);
    assert!(
        text.contains("swizzle:             128B (layout type 1)"),
        "{text}"
    );
    assert!(
        text.contains("stride byte offset:  1024 bytes (field 64)"),
        "{text}"
    );
    assert!(
        text.contains("leading byte offset: 16 bytes (field 1)"),
        "{text}"
    );
    assert!(
        text.contains("descriptor:          0x4000004000010000"),
        "{text}"
    );
    let j = json(&["gmma", layout, "--elem-bytes", "2", "--json"]);
    assert_eq!(j["major"], "K");
    assert_eq!(j["swizzle"], "128B");
    assert_eq!(j["layout_type"], 1);
    assert_eq!(j["stride_byte_offset"], 1024);
    assert_eq!(j["leading_byte_offset"], 16);
    assert_eq!(j["descriptor"], "0x4000004000010000");
    // At shared byte 2048 only the start address changes: field 128.
    let j = json(&[
        "gmma",
        layout,
        "--elem-bytes",
        "2",
        "--base",
        "2048",
        "--json",
    ]);
    assert_eq!(j["start_address"], 2048);
    assert_eq!(j["descriptor"], "0x4000004000010080");
}

#[test]
fn gmma_infers_mn_major() {
    // fp16 MN-major SW128, N = 128: two 64-element atoms along N (LBO = 1024 bytes apart), K
    // rows 8-15 in the next atom column (SBO = 2 * 1024 bytes).
    let layout = "Sw<3,3,3> o ((64,2),(8,2)):((1,512),(64,1024))";
    let j = json(&["gmma", layout, "--elem-bytes", "2", "--json"]);
    assert_eq!(j["major"], "MN");
    assert_eq!(j["leading_byte_offset"], 1024);
    assert_eq!(j["stride_byte_offset"], 2048);
}

#[test]
fn gmma_atoms_are_cute_definitions() {
    // CuTe: Layout_K_SW128_Atom<half_t> = upcast<16>(Sw<3,4,3> o smem_ptr o (8,1024):(1024,1)).
    let text = success(&["gmma", "--atom", "128B", "--elem-bytes", "2"]);
    assert_eq!(
        text,
        "K-major 128B GMMA atom of 2-byte elements: Sw<3,3,3> o (8,64):(64,1)\n"
    );
    let j = json(&[
        "gmma",
        "--atom",
        "SW64",
        "--major",
        "MN",
        "--elem-bytes",
        "2",
        "--tile",
        "64,16",
        "--json",
    ]);
    assert_eq!(j["atom"], "Sw<2,3,3> o (32,8):(1,32)");
    assert_eq!(j["tiled"], "Sw<2,3,3> o ((32,2),(8,2)):((1,256),(32,512))");
}

#[test]
fn gmma_errors_name_the_condition() {
    // Padded rows: no descriptor reaches row 1 at byte 144.
    let e = failure(&["gmma", "(64,16):(72,1)", "--elem-bytes", "2"]);
    assert!(e.contains("element (1,0) is at byte 144"), "{e}");
    let e = failure(&[
        "gmma",
        "(64,32):(32,1)",
        "--elem-bytes",
        "2",
        "--major",
        "K",
    ]);
    assert!(e.contains("32 bytes of K"), "{e}");
    let e = failure(&["gmma", "(64,16):(16,1)", "--elem-bytes", "3"]);
    assert!(e.contains("1-, 2- or 4-byte"), "{e}");
    let e = failure(&[
        "gmma",
        "(64,16):(16,1)",
        "--elem-bytes",
        "2",
        "--major",
        "X",
    ]);
    assert!(e.contains("expected K or MN"), "{e}");
    let e = failure(&["gmma", "--atom", "96B", "--elem-bytes", "2"]);
    assert!(e.contains("unknown swizzle mode"), "{e}");
    let e = failure(&[
        "gmma",
        "--atom",
        "128B",
        "--elem-bytes",
        "2",
        "--tile",
        "12,64",
    ]);
    assert!(e.contains("tile_to_shape"), "{e}");
    let e = failure(&["gmma", "(64,16", "--elem-bytes", "2"]);
    assert!(e.contains("LAYOUT: at 6: expected ','"), "{e}");
}

#[test]
fn tma_prints_the_box_layout_and_checks_it() {
    assert_eq!(
        success(&[
            "tma",
            "--box",
            "64,8",
            "--elem-bytes",
            "2",
            "--swizzle",
            "128B"
        ]),
        "Sw<3,3,3> o (64,8):(1,64)\n"
    );
    // The 128B box of 64 K by 128 MN writes the K-major SW128 atom tiled to 128x64.
    let stage = "Sw<3,3,3> o ((8,16),(64,1)):((64,512),(1,8192))";
    let text = success(&[
        "tma",
        "--box",
        "64,128",
        "--elem-bytes",
        "2",
        "--swizzle",
        "128B",
        "--expect",
        stage,
    ]);
    assert!(text.ends_with("every element\n"), "{text}");
    // A 64B box against the 128B swizzle over 64-byte rows: rows 0-7 agree; row 8 (element
    // 256, bit 8 set) is moved to 288 by Sw<3,3,3> and left by Sw<2,3,3>.
    let j = json(&[
        "tma",
        "--box",
        "32,16",
        "--elem-bytes",
        "2",
        "--swizzle",
        "64B",
        "--expect",
        "Sw<3,3,3> o (16,32):(32,1)",
        "--json",
    ]);
    assert_eq!(j["layout"], "Sw<2,3,3> o (32,16):(1,32)");
    assert_eq!(j["matches"], false);
    let why = j["mismatch"].as_str().unwrap();
    assert!(
        why.contains("(8,0) is written at element offset 256 but expected at 288"),
        "{why}"
    );
    let j = json(&["tma", "--box", "16,8", "--elem-bytes", "4", "--json"]);
    assert_eq!(j["matches"], serde_json::Value::Null);
}

#[test]
fn tma_errors_name_the_condition() {
    let e = failure(&[
        "tma",
        "--box",
        "256,8",
        "--elem-bytes",
        "2",
        "--swizzle",
        "128B",
    ]);
    assert!(e.contains("512 bytes, more than the 128 bytes"), "{e}");
    let e = failure(&["tma", "--box", "4,8", "--elem-bytes", "2"]);
    assert!(e.contains("multiple of 16"), "{e}");
    let e = failure(&["tma", "--box", "8,0", "--elem-bytes", "2"]);
    assert!(e.contains("positive integers"), "{e}");
    let e = failure(&["tma", "--box", "8,300", "--elem-bytes", "2"]);
    assert!(e.contains("1 to 256"), "{e}");
    let e = failure(&[
        "tma",
        "--box",
        "64,8,2",
        "--elem-bytes",
        "2",
        "--expect",
        "(8,64):(64,1)",
    ]);
    assert!(e.contains("rank-2"), "{e}");
}

// CuTe include/cute/atom/copy_traits_sm90_tma.hpp, make_tma_copy's "Simple 2D" example: a
// 1024 x 256 row-major fp32 tensor and a 64 x 32 row-major tile: the box is 32 (K, contiguous)
// x 64 (M), the tensor map K (256) by M (1024, 1024-byte rows).
#[test]
fn tma_derives_make_tma_copy() {
    let text = success(&[
        "tma",
        "--gmem",
        "(1024,256):(256,1)",
        "--smem",
        "(64,32):(32,1)",
        "--elem-bytes",
        "4",
    ]);
    assert!(text.contains("globalDim:      (256,1024)"), "{text}");
    assert!(text.contains("globalStrides:  (1024) bytes"), "{text}");
    assert!(
        text.contains("boxDim:         (32,64) (8192 bytes)"),
        "{text}"
    );
    assert!(text.contains("swizzle:        none"), "{text}");
    let v = json(&[
        "tma",
        "--gmem",
        "(4096,4096):(4096,1)",
        "--smem",
        "Sw<3,3,3> o ((8,16),(64,1)):((64,512),(1,8192))",
        "--elem-bytes",
        "2",
        "--op",
        "SM90_TMA_LOAD_MULTICAST",
        "--cluster",
        "2",
        "--json",
    ]);
    // Multicast over 2 CTAs halves the box's outermost dimension (CuTe make_tma_copy_desc).
    assert_eq!(v["box_dims"], serde_json::json!([64, 64]));
    assert_eq!(v["swizzle"], "128B");
    assert_eq!(v["coord_basis"], serde_json::json!([[1, 1], [0, 1]]));
    // An M-major tensor cannot fill a K-major tile: one error line, exit status 2.
    let line = failure(&[
        "tma",
        "--gmem",
        "(4096,4096):(1,4096)",
        "--smem",
        "(64,64):(64,1)",
        "--elem-bytes",
        "2",
    ]);
    assert!(line.contains("not contiguous in global memory"), "{line}");
    assert!(failure(&["tma", "--gmem", "(8,8):(8,1)", "--elem-bytes", "2"]).contains("--smem"));
}
