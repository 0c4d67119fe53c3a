//! Host checks of the tensor layer (no GPU, no NVRTC): vectors through swizzled shared tiles,
//! register permutations between two copies, and the exactness of `copy_if`'s predicates. The
//! expected facts are computed element by element from the layouts' definitions here, never by
//! the function under test.

use tessel_kernels::kernel::CType;
use tessel_kernels::layer::{DeviceCopy, DeviceTensor};
use tessel_layout::atom::copy_atom;
use tessel_layout::tiled::make_tiled_copy;
use tessel_layout::{ComposedLayout, IntTuple, Layout};

fn copy(bits: i64, thr: &str, val: &str) -> DeviceCopy {
    let atom = copy_atom(&format!("UniversalCopy<uint{bits}_t>"))
        .unwrap()
        .typed(32)
        .unwrap();
    DeviceCopy::new(
        "c",
        make_tiled_copy(&atom, &thr.parse().unwrap(), &val.parse().unwrap()).unwrap(),
    )
}

/// Whether every thread's 4 values of every atom call are 4 consecutive offsets starting at a
/// multiple of 4 (the defining property of a 128-bit access), walking the partition.
fn runs_of_four(part_of: &dyn Fn(&DeviceTensor) -> Layout, smem: &ComposedLayout) -> bool {
    let inner = part_of(&DeviceTensor::shared(CType::B32, smem.clone()));
    let (threads, values) = (inner.mode(0).unwrap().size(), 4);
    (0..inner.size() / (threads * values)).all(|r| {
        (0..threads).all(|t| {
            let at = |v: i64| {
                let o = inner.offset(t + threads * (v + values * r)).unwrap();
                smem.swizzles().iter().fold(o, |o, s| s.apply(o))
            };
            at(0) % 4 == 0 && (1..4).all(|v| at(v) == at(0) + v)
        })
    })
}

#[test]
fn vectors_through_a_swizzled_tile_are_checked_by_their_definition() {
    // Column vectors of 4 floats of a column-major 64 x 64 tile: 16 x 16 threads, a 4 x 4
    // block each, written as four column vectors.
    let c = copy(128, "(16,16):(16,1)", "(4,4):(1,4)");
    let inner = |t: &DeviceTensor| {
        let plain = DeviceTensor::shared(CType::B32, t.layout().layout().clone().into());
        c.partition_d(&plain).unwrap().layout().layout().clone()
    };
    for (swizzle, ok) in [
        // Sw<3,2,6> keeps the low 2 bits: every run of 4 stays one aligned run.
        ("Sw<3,2,6> o (64,64):(1,64)", true),
        // Sw<3,1,6> moves bit 1: runs of 4 break.
        ("Sw<3,1,6> o (64,64):(1,64)", false),
        // Sw<2,0,6> moves bits 0 and 1.
        ("Sw<2,0,6> o (64,64):(1,64)", false),
    ] {
        let smem: ComposedLayout = swizzle.parse().unwrap();
        assert_eq!(runs_of_four(&inner, &smem), ok, "{swizzle}: the definition");
        let got = c.partition_d(&DeviceTensor::shared(CType::B32, smem.clone()));
        assert_eq!(got.is_ok(), ok, "{swizzle}: {got:?}");
    }
}

#[test]
fn a_retile_between_two_copies_holds_each_register_where_it_was_loaded() {
    // Thread blocks of 4 x 4 loaded as row vectors, written as column vectors; and the same
    // rows moved one element at a time.
    let tile = [64, 64];
    let index = Layout::col_major(&IntTuple::from_ints(tile)).unwrap();
    let rows = copy(128, "(16,16):(16,1)", "(4,4):(4,1)");
    let g = DeviceTensor::global(CType::B32, "(64,64):(64,1)".parse().unwrap());
    let regs = rows.partition_s(&g).unwrap().fragment_like(1..5).unwrap();
    for other in [
        copy(128, "(16,16):(16,1)", "(4,4):(1,4)"),
        copy(32, "(16,16):(16,1)", "(4,4):(4,1)"),
    ] {
        let view = other.retile_s_from(&regs, &rows, &tile).unwrap();
        // Register r of thread t holds tile element load(t, r); value j of the view must be
        // the register holding element other(t, j).
        let load = rows.tiled().tidfrg_s(&index).unwrap();
        let read = other.tiled().tidfrg_s(&index).unwrap();
        let values = regs.size();
        for t in 0..256 {
            for j in 0..values {
                let r = view.layout().offset(j).unwrap();
                assert_eq!(
                    load.offset(t + 256 * r).unwrap(),
                    read.offset(t + 256 * j).unwrap(),
                    "thread {t}, value {j}"
                );
            }
        }
    }
}

#[test]
fn a_predicate_is_exact_only_when_no_vector_straddles_the_bound() {
    // 8 threads x 4 consecutive columns of a 4 x 32 tile (128-bit vectors along rows).
    let c = copy(128, "(4,8):(8,1)", "(1,4):(0,1)");
    let cols = c
        .partition_s(&DeviceTensor::identity(&[4, 32], 1).unwrap())
        .unwrap();
    let rows = c
        .partition_s(&DeviceTensor::identity(&[4, 32], 0).unwrap())
        .unwrap();
    let calls = cols.size() / 4;
    for bound in 1..=32 {
        // Exact iff, for every atom call, its 4 columns lie all below the bound or all not.
        let exact = (0..calls).all(|call| {
            let below: Vec<bool> = (0..4)
                .map(|v| {
                    let i = call % 32 + 32 * (v + 4 * (call / 32));
                    cols.layout().offset(i).unwrap() < bound
                })
                .collect();
            below.iter().all(|&b| b == below[0])
        });
        assert_eq!(
            c.check_predicate(&cols, bound).is_ok(),
            exact,
            "bound {bound}"
        );
        // A vector lies in one row: any row bound is exact.
        c.check_predicate(&rows, bound).unwrap();
    }
}
