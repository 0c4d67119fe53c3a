//! `tessel atom`: an atom's layouts as CuTe's traits give them, the list of atoms, and the
//! error contract for unknown names.

mod cli_support;

use cli_support::{failure, success};

/// The value after `key:` in `tessel atom` text output.
fn field<'a>(text: &'a str, key: &str) -> &'a str {
    text.lines()
        .find_map(|l| l.trim_start().strip_prefix(&format!("{key}:")))
        .unwrap_or_else(|| panic!("no {key} in {text}"))
        .trim()
}

fn json(args: &[&str]) -> serde_json::Value {
    serde_json::from_str(&success(args)).expect("one JSON object")
}

// CuTe include/cute/atom/mma_traits_sm80.hpp: MMA_Traits<SM80_16x8x16_F16F16F16F16_TN> (the
// F32 accumulator variant inherits its layouts): ALayout ((4,8),(2,2,2)):((32,1),(16,8,128)),
// BLayout ((4,8),(2,2)):((16,1),(8,64)), CLayout SM80_16x8_Row = ((4,8),(2,2)):((32,1),(16,8)).
#[test]
fn sm80_16x8x16_prints_cute_traits() {
    let text = success(&["atom", "SM80_16x8x16_F32F16F16F32_TN"]);
    assert_eq!(field(&text, "Shape_MNK"), "(16,8,16)");
    assert_eq!(field(&text, "ThrID"), "32:1");
    assert_eq!(
        field(&text, "ALayout"),
        "((4,8),(2,2,2)):((32,1),(16,8,128))"
    );
    assert_eq!(field(&text, "BLayout"), "((4,8),(2,2)):((16,1),(8,64))");
    assert_eq!(field(&text, "CLayout"), "((4,8),(2,2)):((32,1),(16,8))");
    // PTX ISA: mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32.
    assert_eq!(
        field(&text, "opcode"),
        "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32"
    );
    assert!(field(&text, "ValTypeA").starts_with("f16"), "{text}");
    assert!(field(&text, "ValTypeC").starts_with("f32"), "{text}");
}

#[test]
fn an_mma_atom_as_json() {
    let v = json(&["atom", "SM80_16x8x16_F32F16F16F32_TN", "--json"]);
    assert_eq!(v["kind"], "mma");
    assert_eq!(v["shape_mnk"], serde_json::json!([16, 8, 16]));
    assert_eq!(v["a_layout"], "((4,8),(2,2,2)):((32,1),(16,8,128))");
    assert_eq!(v["c_layout"], "((4,8),(2,2)):((32,1),(16,8))");
    assert_eq!(
        (v["a_type"].as_str(), v["c_type"].as_str()),
        (Some("f16"), Some("f32"))
    );
    assert_eq!(v["a_source"], "registers");
    // CuTe mma_traits_sm90_gmma.hpp: the _SS atoms read A and B through shared-memory
    // descriptors, the _RS atoms A from registers; a warpgroup of 128 threads.
    let g = json(&["atom", "SM90_64x64x16_F16F16F16_RS", "--json"]);
    assert_eq!(
        (g["a_source"].as_str(), g["b_source"].as_str()),
        (Some("registers"), Some("shared descriptor"))
    );
    assert_eq!(g["thr_id"], "128:1");
    assert_eq!(g["shape_mnk"], serde_json::json!([64, 64, 16]));
}

// CuTe include/cute/atom/copy_traits_sm75.hpp: Copy_Traits<SM75_U32x4_LDSM_N>: ThrID 32,
// SrcLayout (32,128):(128,1), DstLayout (32,(32,4)):(32,(1,1024)), RefLayout = DstLayout.
#[test]
fn ldsm_x4_prints_cute_traits_in_bits() {
    let text = success(&["atom", "SM75_U32x4_LDSM_N"]);
    assert_eq!(field(&text, "ThrID"), "32:1");
    assert_eq!(field(&text, "SrcLayout"), "(32,128):(128,1)");
    assert_eq!(field(&text, "DstLayout"), "(32,(32,4)):(32,(1,1024))");
    assert_eq!(field(&text, "RefLayout"), "(32,(32,4)):(32,(1,1024))");
    // PTX ISA: ldmatrix.sync.aligned.m8n8.x4.shared.b16.
    assert_eq!(
        field(&text, "opcode"),
        "ldmatrix.sync.aligned.m8n8.x4.shared.b16"
    );
    assert!(
        field(&text, "SmemAccess").contains("ldmatrix of 4"),
        "{text}"
    );

    let v = json(&["atom", "SM75_U32x4_LDSM_N", "--json"]);
    assert_eq!(v["kind"], "copy");
    assert_eq!(v["src_layout"], "(32,128):(128,1)");
    assert_eq!(v["ref_layout"], v["dst_layout"]);
    assert_eq!(
        v["smem_access"],
        serde_json::json!({"kind":"ldmatrix","smem_side":"source","matrices":4,"trans":false})
    );
}

// CuTe include/cute/atom/copy_traits_sm75.hpp: Copy_Traits<SM75_U16x8_LDSM_T>: DstLayout
// ((4,8),(16,2,4)):((256,16),(1,128,1024)).
#[test]
fn ldsm_t_destination_layout() {
    let v = json(&["atom", "SM75_U16x8_LDSM_T", "--json"]);
    assert_eq!(v["dst_layout"], "((4,8),(16,2,4)):((256,16),(1,128,1024))");
    assert_eq!(v["smem_access"]["trans"], true);
}

// CuTe include/cute/atom/copy_traits_sm80.hpp: Copy_Traits<SM80_CP_ASYNC_CACHEGLOBAL<S,D>>:
// one thread, SrcLayout = DstLayout = (1,sizeof_bits<S>):(0,1). The name with <...> is one
// shell argument.
#[test]
fn a_templated_name_is_one_argument() {
    let text = success(&["atom", "SM80_CP_ASYNC_CACHEGLOBAL<uint128_t>"]);
    assert!(
        text.starts_with("SM80_CP_ASYNC_CACHEGLOBAL<uint128_t> "),
        "{text}"
    );
    assert_eq!(field(&text, "ThrID"), "1:0");
    assert_eq!(field(&text, "SrcLayout"), "(1,128):(0,1)");
    assert_eq!(field(&text, "DstLayout"), "(1,128):(0,1)");
    // PTX ISA cp.async: .cg caches in L2 only.
    assert_eq!(field(&text, "opcode"), "cp.async.cg.shared.global");
    let v = json(&["atom", "SM80_CP_ASYNC_CACHEGLOBAL<uint128_t>", "--json"]);
    assert_eq!(
        v["smem_access"],
        serde_json::json!({"kind":"cp.async","smem_side":"destination","bits":128})
    );
    // UniversalCopy is a plain assignment: no opcode.
    let u = json(&["atom", "UniversalCopy<uint64_t>", "--json"]);
    assert!(u["opcode"].is_null());
    assert_eq!(u["src_layout"], "(1,64):(0,1)");
}

#[test]
fn list_names_every_atom_once_with_its_kind() {
    let text = success(&["atom", "--list"]);
    let rows: Vec<(&str, &str)> = text
        .lines()
        .map(|l| l.split_once(char::is_whitespace).expect("kind and name"))
        .map(|(k, n)| (k, n.trim()))
        .collect();
    let copies: Vec<&str> = rows.iter().filter(|r| r.0 == "copy").map(|r| r.1).collect();
    let mmas: Vec<&str> = rows.iter().filter(|r| r.0 == "mma").map(|r| r.1).collect();
    assert_eq!(copies.len() + mmas.len(), rows.len(), "{text}");
    // 6 ldmatrix + 6 stmatrix + 1 movmatrix + 4 cp.async + 5 UniversalCopy + 3 bulk copies +
    // 3 TMA; UniversalFMA, 8 SM70 + 6 SM80 + 4 SM89 mma.sync, 32 N x 3 types x 2 16-bit GMMA,
    // 32 N x 8 types x 2 FP8 GMMA.
    assert_eq!(
        (copies.len(), mmas.len()),
        (28, 1 + 8 + 6 + 4 + 32 * 3 * 2 + 32 * 8 * 2)
    );
    assert!(copies.contains(&"SM90_TMA_LOAD_MULTICAST"));
    assert!(copies.contains(&"SM75_U32x1_MOVM_T"));
    assert!(mmas.contains(&"SM70_8x8x4_F32F16F16F32_NT"));
    assert!(mmas.contains(&"SM90_64x192x32_F16E5M2E4M3_RS_TN"));
    assert!(copies.contains(&"SM90_U16x8_STSM_T"));
    assert!(mmas.contains(&"SM90_64x256x16_F32BF16BF16_SS"));
    // Every listed name is accepted, as the kind it is listed as.
    for (kind, name) in rows.iter().step_by(23) {
        let v = json(&["atom", name, "--json"]);
        assert_eq!(v["kind"], *kind, "{name}");
        assert_eq!(v["name"], *name);
    }
    let v = json(&["atom", "--list", "--json"]);
    assert_eq!(v["copy"].as_array().unwrap().len(), 28);
    assert_eq!(
        v["mma"].as_array().unwrap().len(),
        1 + 8 + 6 + 4 + 32 * 3 * 2 + 32 * 8 * 2
    );
}

#[test]
fn unknown_names_are_one_error_line_with_a_suggestion() {
    let line = failure(&["atom", "SM75_U32x4_LDSM"]);
    assert_eq!(
        line,
        "error: unknown atom 'SM75_U32x4_LDSM'; did you mean SM75_U32x4_LDSM_N?"
    );
    let line = failure(&["atom", "SM80_16x8x16_F32F16F16F32_NT"]);
    assert!(line.contains("SM80_16x8x16_F32F16F16F32_TN"), "{line}");
    let line = failure(&["atom", "frobnicate"]);
    assert!(line.contains("tessel atom --list"), "{line}");
    assert!(failure(&["atom"]).contains("<NAME>"));
    assert!(failure(&["atom", "SM75_U32x4_LDSM_N", "--list"]).contains("--list"));
}

// CuTe mma_traits_sm70.hpp (SM70_QuadPair, SM70_8x4_Col, SM70_8x8_32b), copy_traits.hpp
// (UniversalCopy<S>: (1,sizeof_bits<S>):(0,1)), copy_traits_sm90_tma.hpp (one thread,
// (1,NumBitsPerTMA):(0,1)), mma_traits_sm90_gmma.hpp (FP8 inputs, K = 32).
#[test]
fn the_new_families_print_cute_traits() {
    let text = success(&["atom", "SM70_8x8x4_F32F16F16F32_NT"]);
    assert_eq!(field(&text, "ThrID"), "(4,2):(1,16)");
    assert_eq!(field(&text, "ALayout"), "((4,2),4):((8,4),1)");
    assert_eq!(
        field(&text, "CLayout"),
        "((2,2,2),(2,2,2)):((1,16,4),(8,2,32))"
    );
    let u = json(&["atom", "UniversalCopy<double>", "--json"]);
    assert_eq!(u["name"], "UniversalCopy<double>");
    assert_eq!(u["src_layout"], "(1,64):(0,1)");
    let t = json(&["atom", "SM90_TMA_STORE", "--json"]);
    assert_eq!(
        t["smem_access"],
        serde_json::json!({"kind":"bulk","smem_side":"source"})
    );
    let m = json(&["atom", "SM75_U32x1_MOVM_T", "--json"]);
    assert_eq!(m["smem_access"]["kind"], "registers");
    let f = json(&["atom", "SM90_64x32x32_F16E5M2E4M3_SS_TN", "--json"]);
    assert_eq!(
        (
            f["a_type"].as_str(),
            f["b_type"].as_str(),
            f["c_type"].as_str()
        ),
        (Some("e5m2"), Some("e4m3"), Some("f16"))
    );
    assert_eq!(f["shape_mnk"], serde_json::json!([64, 32, 32]));
    let line = failure(&["atom", "SM80_CP_ASYNC_CACHEALWAYS<half_t>"]);
    assert!(line.starts_with("error: "), "{line}");
}
