//! The tour chapter on the four tensor-core swizzle problems (`tessel_kernels::mma`): the shared
//! layouts, the `ldmatrix`/store access patterns the kernels derive from CuTe's atoms, the bank
//! reports without and with the swizzles synthesis picks. Pure algebra: no launch.

use super::tour::{Action, Chapter, Step};

const fn conflicts(expr: &'static str, note: &'static str) -> Step {
    Step {
        action: Action::Conflicts,
        expr,
        note,
    }
}

const fn eval(expr: &'static str, note: &'static str) -> Step {
    Step {
        action: Action::Eval,
        expr,
        note,
    }
}

const fn show(expr: &'static str, note: &'static str) -> Step {
    Step {
        action: Action::Show,
        expr,
        note,
    }
}

/// The chapter (listed in `tour::chapters`).
pub const CHAPTER: Chapter = Chapter {
    title: "Tensor-core swizzle problems",
    intro: "Four classic problems: 16x16 fp16 tiles read by ldmatrix.x4 into mma.sync.m16n8k16.\n\
        Every access below is what tessel-kernels derives from CuTe's atoms (make_tiled_copy_A/B\n\
        of SM75_U32x4_LDSM_N and SM75_U16x8_LDSM_T for SM80_16x8x16_F32F16F16F32_TN), as\n\
        (lane, value, instruction) -> tile index; every swizzle is the one 'tessel synth' finds\n\
        for all of a kernel's accesses. 'tessel bench mma' runs the kernels and their unswizzled\n\
        twins on a GPU; scripts/ncu_conflicts.sh mma measures the wavefronts predicted here.",
    steps: &[
        show(
            "Sw<1,3,3> o (16,16):(16,1)",
            "1. A^n: the 16x16 fp16 tile of A and of the product P, as synthesis swizzles it",
        ),
        conflicts(
            "(16,16):(16,1) | 2 | ldsm.x4.trans | ((16,2),8):((1,128),16)",
            "unswizzled, P read as the B operand with ldmatrix.trans (B(n,k) = P[k][n]): 2-way",
        ),
        conflicts(
            "Sw<1,3,3> o (16,16):(16,1) | 2 | ldsm.x4.trans | ((16,2),8):((1,128),16)",
            "Sw<1,3,3> moves every second 128-byte line by one 16-byte chunk",
        ),
        conflicts(
            "(16,16):(16,1) | 2 | sts.32 | ((4,8),2,(2,2)):((32,1),16,(8,128))",
            "the accumulators written back as fp16 pairs (the C fragment): 2-way as well",
        ),
        conflicts(
            "Sw<1,3,3> o (16,16):(16,1) | 2 | sts.32 | ((4,8),2,(2,2)):((32,1),16,(8,128))",
            "the same swizzle serves the write-back",
        ),
        conflicts(
            "(16,32):(32,1) | 2 | ldsm.x4 | ((16,2),8):((1,128),16)",
            "2. M = [A B], 16x32: A's ldmatrix hits 64-byte rows, 4 rows share each bank group",
        ),
        conflicts(
            "Sw<2,3,3> o (16,32):(32,1) | 2 | ldsm.x4 | ((16,2),8):((1,128),16)",
            "Sw<2,3,3>: the chunk XOR the row pair",
        ),
        conflicts(
            "Sw<2,3,3> o (16,32):(32,1) | 2 | ldsm.x4.trans | ((16,2),8,2):((1,128),16,256)",
            "B = M[:, 16:32] through ldmatrix.trans (both halves shown): conflict-free too",
        ),
        conflicts(
            "(16,256):(256,1) | 2 | ldsm.x4 | ((16,2),8,16):((1,128),16,256)",
            "3. 16x256, mode 1: warp j reads the 16x16 column block j: 8-way",
        ),
        conflicts(
            "(16,256):(256,1) | 2 | ldsm.x4 | ((16,2),8,16):((256,128),16,1)",
            "mode 2: warp i reads row i as a 16x16 block: 2-way",
        ),
        conflicts(
            "Sw<3,3,5> o Sw<1,3,3> o (16,256):(256,1) | 2 | ldsm.x4 | ((16,2),8,16):((1,128),16,256)",
            "synthesis needs two layers for both modes: mode 1 is ideal",
        ),
        conflicts(
            "Sw<3,3,5> o Sw<1,3,3> o (16,256):(256,1) | 2 | ldsm.x4 | ((16,2),8,16):((256,128),16,1)",
            "and so is mode 2",
        ),
        conflicts(
            "Sw<3,3,5> o Sw<1,3,3> o (16,256):(256,1) | 2 | sts.128 | (32,8,16):(128,16,1)",
            "the 128-bit stores that fill the tile (one row per warp) stay ideal",
        ),
        eval(
            "is_bijective(Sw<3,3,5> o Sw<1,3,3> o (16,256):(256,1))",
            "and the two-layer tile is still a bijection",
        ),
        conflicts(
            "Sw<3,3,5> o (16,256):(256,1) | 2 | ldsm.x4 | ((16,2),8,16):((256,128),16,1)",
            "4. one swizzle per mode: mode 1's Sw<3,3,5> alone leaves mode 2 2-way",
        ),
        conflicts(
            "Sw<1,3,3> o (16,256):(256,1) | 2 | ldsm.x4 | ((16,2),8,16):((256,128),16,1)",
            "so the block re-lays the tile out into Sw<1,3,3>, ideal for mode 2",
        ),
        conflicts(
            "Sw<1,3,3> o (16,256):(256,1) | 2 | sts.128 | (32,8,16):(128,16,1)",
            "the re-layout's 128-bit stores (and loads, through Sw<3,3,5>) are conflict-free",
        ),
        conflicts(
            "(16,256):(256,1) | 2 | sts.32 | ((4,8),2,(2,2),16):((32,256),16,(2048,128),1)",
            "C2 leaves through the second layout: warp i writes its fp16 pairs into row i: 2-way",
        ),
        conflicts(
            "Sw<1,3,3> o (16,256):(256,1) | 2 | sts.32 | ((4,8),2,(2,2),16):((32,256),16,(2048,128),1)",
            "Sw<1,3,3> serves it too; the 128-bit read-out to global memory is the fill's pattern",
        ),
    ],
};
