//! Emitted index functions compiled with the host C compiler (C99 and C++17, `-Wall -Wextra
//! -Werror -fsanitize=undefined`) and compared index by index with the algebra's offsets.

mod codegen_support;

use codegen_support::{Case, Lang, Rng, check_cases, random_case};

/// Layouts whose values are published CuTe facts (DESIGN.md, CuTe docs) plus the seed swizzles.
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
