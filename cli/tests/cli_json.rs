//! `--json` of every subcommand: the output is parsed with serde_json and its fields checked
//! against published CuTe facts or against formulas evaluated here, independently of tessel.

mod cli_support;

use cli_support::success;
use serde_json::{Value, json};

/// Runs `tessel ARGS` (which must succeed) and parses its one line of JSON.
fn json_of(args: &[&str]) -> Value {
    let text = success(args);
    assert_eq!(text.lines().count(), 1, "{args:?}: not one line: {text}");
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{args:?}: {e}: {text}"))
}

/// `Sw<B,M,S>(x)` by its definition (CuTe `swizzle.hpp`): XOR the B bits at M+S into the B
/// bits at M.
fn swizzle(b: u32, m: u32, s: u32, x: i64) -> i64 {
    let mask = ((1i64 << b) - 1) << (m + s);
    x ^ ((x & mask) >> s)
}

/// `(b, m, s)` of the text `Sw<B,M,S>`.
fn parse_swizzle(text: &str) -> (u32, u32, u32) {
    let inner = text
        .strip_prefix("Sw<")
        .and_then(|t| t.strip_suffix('>'))
        .unwrap_or_else(|| panic!("not a swizzle: {text}"));
    let n: Vec<u32> = inner.split(',').map(|v| v.parse().unwrap()).collect();
    (n[0], n[1], n[2])
}

#[test]
fn eval_json_has_the_kind_value_and_layout_facts() {
    // CuTe docs (02_layout_algebra.md): complement(4:2, 24) = (2,3):(1,8).
    let v = json_of(&["eval", "--json", "complement(4:2, 24)"]);
    assert_eq!(v["expression"], "complement(4:2, 24)");
    assert_eq!(v["kind"], "layout");
    assert_eq!(v["value"], "(2,3):(1,8)");
    // size 2*3; cosize 1 + (2-1)*1 + (3-1)*8.
    assert_eq!(
        v["layout"],
        json!({"shape": "(2,3)", "stride": "(1,8)", "size": 6, "cosize": 18, "rank": 2})
    );
    // CuTe (docs/semantics.md, reference values): Sw<3,3,3> o (8,64):(64,1) maps (7,63) to 455.
    let v = json_of(&["eval", "--json", "at(Sw<3,3,3> o (8,64):(64,1), (7,63))"]);
    assert_eq!(
        (&v["kind"], &v["integer"]),
        (&json!("integer"), &json!(455))
    );
    assert_eq!(v["value"], "455");
    let v = json_of(&["eval", "--json", "is_injective(4:0)"]);
    assert_eq!(
        (&v["kind"], &v["boolean"]),
        (&json!("boolean"), &json!(false))
    );
    let v = json_of(&["eval", "--json", "Sw<3,3,3> o (8,64):(64,1)"]);
    assert_eq!(v["kind"], "swizzled layout");
    assert_eq!(v["layout"]["stride"], "(64,1)");
    // Control characters in the echoed expression are escaped, not pasted into the JSON.
    let v = json_of(&["eval", "--json", "size(\t8:1\n)"]);
    assert_eq!(
        (&v["expression"], &v["integer"]),
        (&json!("size(\t8:1\n)"), &json!(8))
    );
}

#[test]
fn eval_json_of_static_integers_and_coordinate_layouts() {
    // CuTe 01_layout.md (CUTLASS v4.2.1): make_layout(make_shape(Int<2>{},4)) is (_2,4):(_1,_2).
    let v = json_of(&["eval", "--json", "make_layout((_2,4))"]);
    assert_eq!(
        (&v["kind"], &v["value"]),
        (&json!("layout"), &json!("(_2,4):(_1,_2)"))
    );
    assert_eq!(v["layout"]["size"], 8);
    // 01_layout.md: crd2idx(_16, Shape<_3,Shape<_2,_3>>, Stride<_3,Stride<_12,_1>>) is _17.
    let v = json_of(&[
        "eval",
        "--json",
        "crd2idx(_16, (_3,(_2,_3)), (_3,(_12,_1)))",
    ]);
    assert_eq!(
        (&v["kind"], &v["integer"], &v["value"]),
        (&json!("integer"), &json!(17), &json!("_17"))
    );
    let v = json_of(&["eval", "--json", "make_identity_layout((4,8))"]);
    assert_eq!(
        (&v["kind"], &v["value"]),
        (&json!("coordinate layout"), &json!("(4,8):(_1@0,_1@1)"))
    );
    assert_eq!(v["layout"], Value::Null);
}

#[test]
fn show_json_offsets_follow_the_layout_formula() {
    // (2,3):(3,1): L(r,c) = 3r + c.
    let v = json_of(&["show", "--json", "(2,3):(3,1)"]);
    assert_eq!((&v["rows"], &v["cols"]), (&json!(2), &json!(3)));
    assert_eq!(v["offsets"], json!([[0, 1, 2], [3, 4, 5]]));
    // The swizzled 8x64 fp16 tile: Sw<3,3,3>(64r + c) at every cell.
    let v = json_of(&["show", "--json", "Sw<3,3,3> o (8,64):(64,1)"]);
    for r in 0..8 {
        for c in 0..64 {
            assert_eq!(
                v["offsets"][r][c],
                swizzle(3, 3, 3, 64 * r as i64 + c as i64)
            );
        }
    }
    assert_eq!(v["offsets"][7][63], 455);
}

#[test]
fn swizzle_json_is_the_permutation_by_definition() {
    let v = json_of(&["swizzle", "--json", "3", "0", "3"]);
    assert_eq!(v["swizzle"], "Sw<3,0,3>");
    assert_eq!(
        (&v["bits"], &v["base"], &v["shift"]),
        (&json!(3), &json!(0), &json!(3))
    );
    let (rows, cols) = (v["rows"].as_i64().unwrap(), v["cols"].as_i64().unwrap());
    assert_eq!((rows, cols), (8, 8));
    for r in 0..rows {
        for c in 0..cols {
            assert_eq!(
                v["table"][r as usize][c as usize],
                swizzle(3, 0, 3, r * cols + c)
            );
        }
    }
}

/// The bank model by brute force for one-word accesses (lds.32/sts.32 of 4-byte elements):
/// per instruction, the busiest bank's number of distinct words.
fn wavefronts_32(offsets_of_instruction: impl Iterator<Item = Vec<i64>>) -> i64 {
    offsets_of_instruction
        .map(|words| {
            let mut per_bank = vec![Vec::new(); 32];
            for w in words {
                let bank = &mut per_bank[w.rem_euclid(32) as usize];
                if !bank.contains(&w) {
                    bank.push(w);
                }
            }
            per_bank.iter().map(Vec::len).max().unwrap_or(0) as i64
        })
        .sum()
}

#[test]
fn conflicts_json_matches_the_brute_force_bank_count() {
    // Column 0 of a row-major 32x32 fp32 tile: every lane in bank 0 (32 wavefronts).
    let v = json_of(&[
        "conflicts",
        "--json",
        "--smem",
        "(32,32):(32,1)",
        "--elem-bytes",
        "4",
        "--op",
        "lds.32",
        "--access",
        "32:1",
    ]);
    let expected = wavefronts_32(std::iter::once((0..32).map(|lane| lane * 32).collect()));
    assert_eq!(expected, 32);
    assert_eq!(
        v,
        json!({"smem": "(32,32):(32,1)", "elem_bytes": 4, "op": "lds.32", "access": "32:1",
               "wavefronts": expected, "ideal": 1, "excess": expected - 1})
    );
}

#[test]
fn synth_json_has_per_access_and_unswizzled_figures() {
    // The 32x32 fp32 transpose tile: row writes, column reads.
    let v = json_of(&[
        "synth",
        "--json",
        "--tile",
        "(32,32):(32,1)",
        "--elem-bytes",
        "4",
        "--access",
        "sts.32 (32,1,32):(32,0,1)",
        "--access",
        "lds.32 (32,1,32):(1,0,32)",
    ]);
    let swizzles = v["swizzles"].as_array().expect("a list");
    assert_eq!(swizzles.len(), 1, "{v}");
    let (b, m, s) = parse_swizzle(swizzles[0].as_str().unwrap());
    // Tile index i -> offset 32*(i%32) + i/32; access k: lane*lane_stride + k*instr_stride.
    let tile = |i: i64| 32 * (i % 32) + i / 32;
    let count = |lane_stride: i64, instr_stride: i64, swizzled: bool| {
        wavefronts_32((0..32).map(|k| {
            (0..32)
                .map(|lane| {
                    let o = tile(lane * lane_stride + k * instr_stride);
                    if swizzled { swizzle(b, m, s, o) } else { o }
                })
                .collect()
        }))
    };
    let strides = [(32, 1), (1, 32)];
    let ops = ["sts.32", "lds.32"];
    let mut total = (0, 0);
    for (k, ((lane, instr), op)) in strides.into_iter().zip(ops).enumerate() {
        let a = &v["accesses"][k];
        assert_eq!(a["op"], op, "{v}");
        let now = count(lane, instr, true);
        let before = count(lane, instr, false);
        assert_eq!(
            a["report"],
            json!({"wavefronts": now, "ideal": 32, "excess": now - 32})
        );
        assert_eq!(
            a["without_swizzle"],
            json!({"wavefronts": before, "ideal": 32, "excess": before - 32})
        );
        total = (total.0 + now, total.1 + before);
    }
    // The column read without a swizzle is 32-way conflicted; the found swizzle removes it.
    assert_eq!(total, (64, 32 + 32 * 32));
    assert_eq!(
        (&v["wavefronts"], &v["ideal"], &v["excess"]),
        (&json!(64), &json!(64), &json!(0))
    );
    assert_eq!(
        v["without_swizzle"],
        json!({"wavefronts": 1056, "ideal": 64, "excess": 992})
    );
    assert!(v["candidates"].as_u64().unwrap() > 1, "{v}");
    assert!(
        v["layout"].as_str().unwrap().ends_with("(32,32):(32,1)"),
        "{v}"
    );
}

#[test]
fn codegen_json_carries_the_exact_source() {
    let plain = success(&["codegen", "(128,64):(ld,1)", "--name", "gmem_off", "--wide"]);
    let v = json_of(&[
        "codegen",
        "--json",
        "(128,64):(ld,1)",
        "--name",
        "gmem_off",
        "--wide",
    ]);
    // The source (newlines, quotes and all) survives the JSON escaping unchanged.
    assert_eq!(v["source"], plain);
    assert_eq!(v["symbols"], json!(["ld"]));
    assert_eq!((&v["name"], &v["wide"]), (&json!("gmem_off"), &json!(true)));
    assert_eq!(v["coordinate_function"], true);
    assert_eq!(v["layout"], "(128,64):(ld,1)");
}

#[test]
fn tour_json_lists_chapters_and_their_computed_steps() {
    let list = json_of(&["tour", "--list", "--json"]);
    let text = success(&["tour", "--list"]);
    let chapters = list["chapters"].as_array().unwrap();
    assert_eq!(chapters.len(), text.lines().count());
    for (k, (c, line)) in chapters.iter().zip(text.lines()).enumerate() {
        assert_eq!(c["number"], k + 1);
        assert_eq!(
            format!("{:>2}. {}", k + 1, c["title"].as_str().unwrap()),
            line
        );
    }
    let one = json_of(&["tour", "1", "--json"]);
    assert_eq!(one["chapters"].as_array().map(Vec::len), Some(1));
    let steps = one["chapters"][0]["steps"].as_array().unwrap();
    let size = steps
        .iter()
        .find(|s| s["command"] == "tessel eval 'size((4,(2,3)):(1,(8,16)))'")
        .expect("the size step");
    // 4 * 2 * 3 coordinates.
    assert_eq!(size["output"], "24");
    let all = json_of(&["tour", "--json"]);
    assert_eq!(
        all["chapters"].as_array().map(Vec::len),
        Some(chapters.len())
    );
}

/// How `skipped` starts when no device was used: a build with the `kernels` feature found no
/// GPU; a build without it has no kernels to run.
const NOTHING_RAN: &str = if cfg!(feature = "kernels") {
    "no GPU: "
} else {
    "this tessel was built without the 'kernels' feature"
};

#[test]
fn bench_json_says_why_nothing_ran_or_lists_results() {
    let v = json_of(&[
        "bench",
        "copy",
        "--json",
        "--size",
        "64",
        "--repeats",
        "1",
        "--dtype",
        "f32",
    ]);
    if v["device"].is_null() {
        assert!(
            v["skipped"].as_str().unwrap().starts_with(NOTHING_RAN),
            "{v}"
        );
        assert_eq!(v["results"], json!([]));
        assert_eq!(v["arch"], Value::Null);
    } else {
        assert_eq!(v["skipped"], Value::Null);
        let results = v["results"].as_array().unwrap();
        assert_eq!(results[0]["kernel"], "memcpy_dtod");
        assert!(
            results.iter().all(|r| r["rows"] == 64 && r["cols"] == 64),
            "{v}"
        );
    }
}

#[test]
fn bench_attention_json_says_why_nothing_ran_or_lists_results() {
    let v = json_of(&[
        "bench",
        "attention",
        "--json",
        "--seqlen",
        "512",
        "--head-dim",
        "64",
        "--causal",
        "yes",
        "--attn-dtype",
        "f16",
        "--repeats",
        "1",
    ]);
    if v["device"].is_null() {
        assert!(
            v["skipped"].as_str().unwrap().starts_with(NOTHING_RAN),
            "{v}"
        );
        assert_eq!(v["results"], json!([]));
    } else if !v["skipped"].is_null() {
        assert!(
            v["skipped"].as_str().unwrap().contains("needs sm_90"),
            "{v}"
        );
    } else {
        let r = &v["results"][0];
        assert_eq!(r["kernel"], "attention_sm90_f16_d64_causal_fixed_n32s2b2");
        // 16384 / 512 sequences of 2048 / 64 heads.
        assert_eq!(
            (r["batch"].as_i64(), r["heads"].as_i64()),
            (Some(32), Some(32))
        );
        // TFLOP/s = 4 B H S^2 D / 2 (causal) over the median time.
        let flops = 4.0 * 32.0 * 32.0 * 512.0 * 512.0 * 64.0 / 2.0;
        let ms = r["median_ms"].as_f64().unwrap();
        let tflops = r["tflops"].as_f64().unwrap();
        assert!(
            (tflops - flops / (ms * 1e-3) / 1e12).abs() <= 1e-6 * tflops,
            "{v}"
        );
    }
}
