//! Emitted index functions compiled with the host C compiler (C99 and C++17, `-Wall -Wextra
//! -Werror -fsanitize=undefined`) and compared index by index with the algebra's offsets.

mod codegen_support;

use codegen_support::{
    Case, Lang, Rng, check_cases, compile_and_run, random_big_case, random_case,
};
use tessel_layout::codegen::{EmitOptions, index_function};

/// Layouts whose values are published CuTe facts (docs/semantics.md) plus the seed swizzles.
fn golden_cases() -> Vec<Case> {
    vec![
        // CuTe docs (layout algebra): (4,(2,3)):(1,(8,16)) and the composition results.
        Case::new("g_nested", "(4,(2,3)):(1,(8,16))"),
        Case::new("g_compose1", "((2,2),3):((24,2),8)"),
        Case::new("g_compose2", "(5,4):(8,2)"),
        Case::new("g_divide", "((2,2),(2,3)):((4,1),(2,8))"),
        Case::new("g_blocked", "((2,3),(5,4)):((5,10),(1,30))"),
        Case::new("g_raked", "((3,2),(4,5)):((10,5),(30,1))"),
        // SM80 16x8x16 C fragment TV layout.
        Case::new("g_tv", "((4,8),(2,2)):((32,1),(16,8))"),
        // Sw<3,3,3> o (8,64):(64,1): (1,0) -> 72, (7,63) -> 455.
        Case::new("g_sw333", "Sw<3,3,3> o (8,64):(64,1)"),
        Case::new("g_sw333_64", "Sw<3,3,3> o (8,64):(64,1)").wide(),
        // 32x32 fp32 XOR transpose tile and Hopper byte swizzles.
        Case::new("g_transpose", "Sw<5,0,5> o (32,32):(32,1)"),
        Case::new("g_sw143", "Sw<1,4,3> o (8,32):(32,1)"),
        Case::new("g_sw243", "Sw<2,4,3> o (8,64):(64,1)"),
        Case::new("g_sw343", "Sw<3,4,3> o (8,128):(128,1)"),
        // A two-layer chain, a negative shift, an offset.
        Case::new("g_chain", "Sw<2,0,2> o Sw<1,4,-1> o (16,4):(4,1)"),
        Case::new("g_offset", "Sw<3,3,3> o 32 o (8,64):(64,1)"),
        // Negative strides, zero strides, unit modes.
        Case::new("g_negative", "(4,3):(-1,-4)"),
        Case::new("g_broadcast", "(4,1,8,2):(0,5,1,0)"),
        Case::new("g_scalar", "1:0"),
        Case::new("g_rank0", "():()"),
        // Symbolic leading dimension.
        Case::new("g_ld", "(16,8):(ld,1)").with_symbols(&[("ld", 72)]),
        Case::new("g_ld_neg", "Sw<1,2,3> o (4,(2,3)):(1,(ld,-5))").with_symbols(&[("ld", -9)]),
        // Large strides need 64-bit arithmetic.
        Case::new("g_wide", "(4,4):(4294967296,3)"),
        // At the 32-bit limit: the last that fits, and the first that needs 64-bit arithmetic.
        Case::new("g_int_max", "(2,2):(2147483646,1)"),
        Case::new("g_int_over", "(2,2):(2147483647,1)"),
        Case::new("g_int_min", "-2147483648 o (4,4):(4,1)"),
        Case::new("g_int_under", "-2147483649 o (4,4):(4,1)"),
        Case::new("g_mask_bit31", "Sw<1,30,1> o (2,2):(1073741824,1)"),
    ]
}

#[test]
fn golden_layouts_match_the_algebra_in_c99() {
    let n = check_cases("golden", &golden_cases(), Lang::C99);
    assert!(n > 3000, "only {n} values compared");
}

#[test]
fn golden_layouts_match_the_algebra_in_cxx() {
    check_cases("golden", &golden_cases(), Lang::Cxx17);
}

#[test]
fn random_layouts_match_the_algebra() {
    let mut rng = Rng::new(0x7e55e1);
    let cases: Vec<Case> = (0..400)
        .map(|k| random_case(&mut rng, &format!("r{k}"), 256))
        .collect();
    let swizzled = cases
        .iter()
        .filter(|c| !c.layout.swizzles().is_empty())
        .count();
    let chained = cases
        .iter()
        .filter(|c| c.layout.swizzles().len() > 1)
        .count();
    let symbolic = cases
        .iter()
        .filter(|c| !c.layout.layout().symbols().is_empty())
        .count();
    assert!(
        swizzled > 100 && chained > 30 && symbolic > 40,
        "{swizzled} {chained} {symbolic}"
    );
    let n = check_cases("random", &cases, Lang::C99);
    assert!(n > 20_000, "only {n} values compared");
}

/// Strides and offsets at the edges of `int` and `long long`: every product, partial sum and
/// swizzle operand of the emitted code must stay free of signed overflow (UBSan aborts on the
/// first), and every value must equal the algebra's.
fn edge_cases() -> Vec<Case> {
    vec![
        // Once a bug: (u >> 1) * 1073741824 overflowed int at index 4.
        Case::new("e_issue9", "(2,3):(1,-1073741824)"),
        Case::new("e_int_min_stride", "(2,2):(-2147483648,1)"),
        Case::new("e_int_min_sum", "(3,2):(-1073741824,1)"),
        Case::new("e_int_both", "(2,2):(2147483647,-2147483648)"),
        Case::new(
            "e_int_cancel",
            "(2,2,2):(1073741824,1073741823,-2147483648)",
        ),
        Case::new("e_int_base", "-2147483648 o (2,2):(2147483647,1)"),
        Case::new(
            "e_int_base_max",
            "2147483647 o (2,2):(-1073741824,-1073741823)",
        ),
        Case::new("e_int_wide", "(2,2):(-2147483648,1)").wide(),
        // 64-bit: offsets reaching i64::MIN and i64::MAX - 1.
        Case::new(
            "e_ll_min",
            "(2,2):(-4611686018427387904,-4611686018427387904)",
        ),
        Case::new(
            "e_ll_max",
            "(2,2):(4611686018427387904,4611686018427387902)",
        ),
        Case::new("e_ll_neg", "(2,2):(-9223372036854775807,1)"),
        Case::new(
            "e_ll_both",
            "(2,2):(9223372036854775806,-9223372036854775807)",
        ),
        Case::new(
            "e_ll_base",
            "-9223372036854775807 o (2,2):(1,4611686018427387904)",
        ),
        Case::new(
            "e_ll_base_max",
            "9223372036854775806 o (2,2):(-1,-4611686018427387904)",
        ),
        // Swizzles of offsets near the limits (negative values included).
        Case::new("e_sw_neg", "Sw<3,3,3> o (8,64,2):(64,1,-1073741824)"),
        Case::new("e_sw_int", "Sw<2,4,3> o (8,64,2):(64,1,1073741824)"),
        Case::new(
            "e_sw_ll",
            "Sw<3,3,3> o (8,64,2):(64,1,-4611686018427387904)",
        ),
        Case::new(
            "e_sw_base",
            "Sw<1,30,1> o -2147483648 o (2,2):(1073741824,1)",
        ),
        // Symbols near the limits.
        Case::new("e_sym_big", "(4,4):(ld,k)").with_symbols(&[("ld", 1 << 61), ("k", -(1 << 61))]),
        Case::new("e_sym_min", "(2,2):(ld,ld)").with_symbols(&[("ld", -(1 << 62))]),
        Case::new("e_sym_int", "Sw<3,3,3> o (8,64):(ld,1)").with_symbols(&[("ld", -2147483648)]),
        Case::new("e_sym_base", "-9223372036854775807 o (2,2):(1,ld)")
            .with_symbols(&[("ld", 1 << 62)]),
    ]
}

#[test]
fn offsets_near_the_integer_limits_are_exact_without_undefined_behaviour() {
    let n = check_cases("edges", &edge_cases(), Lang::C99);
    assert!(n > 2000, "only {n} values compared");
    check_cases("edges", &edge_cases(), Lang::Cxx17);
}

#[test]
fn symbol_values_whose_partial_sums_overflow_still_give_every_offset_that_fits() {
    // (2,2,2):(ld,ld,k) with ld = 2^62, k = -2^62: the offset of coordinate (1,1,1) is 2^62,
    // but c0*ld + c1*ld reaches 2^63 on the way; (1,1,0) itself is 2^63 and does not fit. The
    // emitted code must run every index without undefined behaviour and return every offset
    // that fits in long long exactly.
    let layout = "(2,2,2):(ld,ld,k)";
    let (ld, k) = (1i64 << 62, -(1i64 << 62));
    let opts = EmitOptions::default();
    let src = format!(
        "#include <stdio.h>\n{}int main(void) {{\n  for (long long i = 0; i < 8; ++i) \
         printf(\"%lld\\n\", f(i, {ld}LL, {k}LL));\n  return 0;\n}}\n",
        index_function(
            "f",
            layout.parse::<tessel_layout::codegen::SymLayout>().unwrap(),
            &opts
        )
        .unwrap()
    );
    let got = compile_and_run("partial", &src, Lang::C99);
    assert_eq!(got.len(), 8);
    let mut exact = 0;
    for (i, value) in got.iter().enumerate() {
        let c = [i & 1, (i >> 1) & 1, (i >> 2) & 1].map(|b| b as i128);
        let want = c[0] * i128::from(ld) + c[1] * i128::from(ld) + c[2] * i128::from(k);
        if let Ok(want) = i64::try_from(want) {
            assert_eq!(*value, want, "index {i}");
            exact += 1;
        }
    }
    assert_eq!(exact, 7, "only (1,1,0) overflows");
}

#[test]
fn random_layouts_near_the_integer_limits_match_the_algebra() {
    let mut rng = Rng::new(0xb16_0ff5e7);
    let cases: Vec<Case> = (0..300)
        .map(|k| random_big_case(&mut rng, &format!("b{k}"), 64))
        .collect();
    let wide = cases
        .iter()
        .filter(|c| {
            let r = c
                .layout
                .bind(&|_| None)
                .unwrap()
                .layout()
                .offset_range()
                .unwrap();
            r.0 < i64::from(i32::MIN) || r.1 > i64::from(i32::MAX)
        })
        .count();
    assert!(wide > 100, "only {wide} cases need 64-bit offsets");
    let n = check_cases("random_big", &cases, Lang::C99);
    assert!(n > 10_000, "only {n} values compared");
}
