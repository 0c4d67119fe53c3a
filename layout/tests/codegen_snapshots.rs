//! Snapshots of the emitted code for the seed swizzles. A change in the emitted text shows up as
//! a reviewable diff; correctness itself is tested in `codegen_host_c` and `nvrtc_compile`.

use tessel_layout::codegen::{EmitOptions, SymComposedLayout, index_function};

fn emitted(name: &str, notation: &str) -> String {
    let layout: SymComposedLayout = notation.parse().expect("valid notation");
    index_function(name, &layout, &EmitOptions::default()).expect("emits")
}

#[test]
fn sw333_on_an_8x64_fp16_tile() {
    insta::assert_snapshot!(emitted("smem_8x64_f16", "Sw<3,3,3> o (8,64):(64,1)"));
}

#[test]
fn xor_transpose_32x32_fp32() {
    insta::assert_snapshot!(emitted("transpose_32x32_f32", "Sw<5,0,5> o (32,32):(32,1)"));
}

#[test]
fn two_layer_chain() {
    insta::assert_snapshot!(emitted("chain", "Sw<2,0,2> o Sw<1,4,-1> o (16,4):(4,1)"));
}

#[test]
fn symbolic_leading_dimension() {
    insta::assert_snapshot!(emitted("tile_off", "(128,64):(ld,1)"));
}
