//! The tour's chapter on atoms, tiled copies and tiled MMAs.

use super::tour::{Action, Chapter, Step};

const fn eval(expr: &'static str, note: &'static str) -> Step {
    Step {
        action: Action::Eval,
        expr,
        note,
    }
}

/// The chapter: an MMA atom's layouts, a tiled MMA and one thread's fragment, a tiled copy.
pub const CHAPTER: Chapter = Chapter {
    title: "Atoms, tiled MMAs and tiled copies",
    intro: "An atom is one PTX instruction with CuTe's TV layouts: (thread, value) -> element\n\
        ('tessel atom NAME' prints them). make_tiled_mma and make_tiled_copy replicate an atom\n\
        over threads; partition_C, partition_S, ... give one thread its elements of a tile.\n\
        'tessel show EXPR --svg FILE' draws them, cells labelled T<thread>V<value>.",
    steps: &[
        eval(
            "get_layoutC_TV(SM80_16x8x16_F32F16F16F32_TN)",
            "the m16n8k16 accumulator, index m + 16n: lane = (column pair, row), values = (column, +8 rows)",
        ),
        eval(
            "partition_C(SM80_16x8x16_F32F16F16F32_TN, 5, (16,8):(8,1))",
            "lane 5 holds rows 1 and 9, columns 2 and 3 of a row-major 16x8 C (offset 10)",
        ),
        eval(
            "tile_shape(make_tiled_mma(SM80_16x8x16_F32F16F16F32_TN, (2,2,1):(1,2,0)))",
            "four atoms, 2x2 over M and N: 128 threads cover a 32x16x16 tile",
        ),
        eval(
            "partition_shape_C(make_tiled_mma(SM80_16x8x16_F32F16F16F32_TN, (2,2,1):(1,2,0)), (128,128))",
            "each thread's share of a 128x128 accumulator: 4 values x 4 x 8 tiles",
        ),
        eval(
            "make_tiled_copy(UniversalCopy<uint128_t>, (32,8), (4,1), 32)",
            "the CuTe GEMM tutorial's copy: 32x8 threads, 4 floats (128 bits) each",
        ),
        eval(
            "partition_S(make_tiled_copy(UniversalCopy<uint128_t>, (32,8), (4,1), 32), 33, (128,8):(1,128))",
            "thread 33 copies rows 4..7 of column 1 in one 128-bit access",
        ),
        Step {
            action: Action::Reject,
            expr: "make_tiled_copy(SM75_U32x4_LDSM_N, 32:1, 3:1)",
            note: "ldmatrix.x4 moves 8 halves per thread: 3 values per thread cannot feed it",
        },
    ],
};
