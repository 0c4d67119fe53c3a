//! Host-side algebra benchmarks: every operation of the layout algebra on CuTe-docs-like inputs,
//! and evaluating a layout at one index and over its whole domain.
//!
//! The group and function names (`composition/docs_2x2`, ...) are the keys that
//! `scripts/pycute_ratio.py` reads from `target/criterion/<group>/<function>/new/estimates.json`
//! and times in pycute with the same inputs; keep the two lists in step.

use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};
use tessel_layout::{
    Layout, Tiler, blocked_product, coalesce, complement, composition, left_inverse,
    logical_divide, logical_product, raked_product, right_inverse, zipped_product,
};

fn layout(s: &str) -> Layout {
    s.parse().expect("benchmark layouts are valid")
}

fn by_mode(parts: &[&str]) -> Tiler {
    Tiler::ByMode(
        parts
            .iter()
            .map(|p| Some(Tiler::Layout(layout(p))))
            .collect(),
    )
}

/// Benchmarks `op` on each `(name, input, expected)` of a group, after checking that `op` gives
/// the expected layout (the string `scripts/pycute_ratio.py` checks pycute's answer against).
fn group<T>(c: &mut Criterion, name: &str, cases: Vec<(&str, T, &str)>, op: impl Fn(&T) -> Layout) {
    let mut g = c.benchmark_group(name);
    for (case, input, expected) in &cases {
        assert_eq!(op(input).to_string(), *expected, "{name}/{case}");
        g.bench_function(*case, |bench| bench.iter(|| op(black_box(input))));
    }
    g.finish();
}

fn bench_composition(c: &mut Criterion) {
    let cases = vec![
        // CuTe docs (02_layout_algebra.md).
        (
            "docs_2x2",
            ("(6,2):(8,2)", "(4,3):(3,1)"),
            "((2,2),3):((24,2),8)",
        ),
        ("docs_20_2", ("20:2", "(5,4):(4,1)"), "(5,4):(8,2)"),
        // A typical tile reshape and the SM80 16x8 accumulator TV layout.
        (
            "tile_128x64_rowmajor",
            ("(128,64):(64,1)", "((8,16),(8,8)):((1,64),(8,512))"),
            "((8,(2,8)),(8,8)):((64,(4096,1)),(512,4))",
        ),
        (
            "tv_sm80_c",
            ("(16,8):(1,16)", "((4,8),(2,2)):((32,1),(16,8))"),
            "((4,8),(2,2)):((32,1),(16,8))",
        ),
    ];
    let cases = cases
        .into_iter()
        .map(|(n, (a, b), e)| (n, (layout(a), layout(b)), e))
        .collect();
    group(c, "composition", cases, |(a, b)| composition(a, b).unwrap());
}

fn bench_complement(c: &mut Criterion) {
    let cases = vec![
        ("docs_4_2", (layout("4:2"), 24), "(2,3):(1,8)"),
        ("docs_2x2", (layout("(2,2):(1,6)"), 24), "(3,2):(2,12)"),
        (
            "deep",
            (layout("((2,2),(4,2),2):((1,64),(2,512),4096)"), 1 << 16),
            "(8,4,4,8):(8,128,1024,8192)",
        ),
    ];
    group(c, "complement", cases, |(a, m)| complement(a, *m).unwrap());
}

fn bench_logical_divide(c: &mut Criterion) {
    let cases = vec![
        (
            "docs_1d",
            (layout("(4,2,3):(2,1,8)"), Tiler::Layout(layout("4:2"))),
            "((2,2),(2,3)):((4,1),(2,8))",
        ),
        (
            "docs_2d",
            (
                layout("(9,(4,8)):(59,(13,1))"),
                by_mode(&["3:3", "(2,4):(1,8)"]),
            ),
            "((3,3),((2,4),(2,2))):((177,59),((13,2),(26,1)))",
        ),
        (
            "gemm_tile_128x64",
            (layout("(4096,4096):(4096,1)"), by_mode(&["128:1", "64:1"])),
            "((128,32),(64,64)):((4096,524288),(1,64))",
        ),
    ];
    group(c, "logical_divide", cases, |(a, t)| {
        logical_divide(a, t).unwrap()
    });
}

fn bench_products(c: &mut Criterion) {
    let cases = vec![
        (
            "docs_1d",
            (layout("(2,2):(4,1)"), Tiler::Layout(layout("6:1"))),
            "((2,2),(2,3)):((4,1),(2,8))",
        ),
        (
            "docs_2d",
            (layout("(2,5):(5,1)"), Tiler::Layout(layout("(3,4):(1,3)"))),
            "((2,5),(3,4)):((5,1),(10,30))",
        ),
    ];
    group(c, "logical_product", cases, |(a, t)| {
        logical_product(a, t).unwrap()
    });
    let cases = vec![(
        "tile_by_mode",
        (layout("(2,2):(1,2)"), by_mode(&["3:1", "2:1"])),
        "((2,2),(3,2)):((1,2),(2,1))",
    )];
    group(c, "zipped_product", cases, |(a, t)| {
        zipped_product(a, t).unwrap()
    });
    let docs = |expected| {
        vec![(
            "docs_2d",
            (layout("(2,5):(5,1)"), layout("(3,4):(1,3)")),
            expected,
        )]
    };
    // CuTe docs (02_layout_algebra.md).
    let blocked = docs("((2,3),(5,4)):((5,10),(1,30))");
    group(c, "blocked_product", blocked, |(a, b)| {
        blocked_product(a, b).unwrap()
    });
    let raked = docs("((3,2),(4,5)):((10,5),(30,1))");
    group(c, "raked_product", raked, |(a, b)| {
        raked_product(a, b).unwrap()
    });
}

fn bench_inverses(c: &mut Criterion) {
    let cases = vec![
        // docs/semantics.md reference value.
        ("semantics", layout("(2,4,6):(4,1,8)"), "(4,2,6):(2,1,8)"),
        ("rowmajor_4x8", layout("(4,8):(8,1)"), "(8,4):(4,1)"),
        (
            "tv_sm80_c",
            layout("((4,8),(2,2)):((32,1),(16,8))"),
            "(8,2,2,4):(4,64,32,1)",
        ),
    ];
    group(c, "right_inverse", cases.clone(), |a| {
        right_inverse(a).unwrap()
    });
    // Bijective inputs only: there pycute's left inverse equals CuTe's.
    group(c, "left_inverse", cases, |a| left_inverse(a).unwrap());
}

fn bench_coalesce(c: &mut Criterion) {
    let cases = vec![
        // CuTe docs (02_layout_algebra.md).
        ("docs", layout("(2,(1,6)):(1,(6,2))"), "12:1"),
        ("rowmajor_4x3", layout("(4,3):(3,1)"), "(4,3):(3,1)"),
        (
            "tile_8192",
            layout("((8,16),(8,8)):((1,8),(128,1024))"),
            "8192:1",
        ),
    ];
    group(c, "coalesce", cases, |a| coalesce(a).unwrap());
}

fn bench_evaluation(c: &mut Criterion) {
    let mut g = c.benchmark_group("evaluation");
    let rank2 = layout("(4,8):(8,1)");
    assert_eq!(rank2.offset(5).unwrap(), 9); // index 5 is the coordinate (1,1)
    g.bench_function("offset_rank2", |bench| {
        bench.iter(|| black_box(&rank2).offset(black_box(5)).unwrap())
    });
    let nested = layout("((4,8),(2,2)):((32,1),(16,8))");
    assert_eq!(nested.offset(37).unwrap(), 49); // ((1,1),(1,0)): 32 + 1 + 16
    g.bench_function("offset_rank2_nested", |bench| {
        bench.iter(|| black_box(&nested).offset(black_box(37)).unwrap())
    });
    let l = layout("((8,16),(8,8)):((1,64),(8,512))"); // 8192 elements
    g.bench_function("offset_each_index_8192", |bench| {
        bench.iter(|| {
            let mut acc = 0i64;
            for i in 0..l.size() {
                acc = acc.wrapping_add(l.offset_unchecked(black_box(i)));
            }
            acc
        })
    });
    g.bench_function("offsets_all_8192", |bench| {
        bench.iter(|| black_box(&l).offsets())
    });
    g.finish();
}

criterion_group!(
    benches,
    bench_composition,
    bench_complement,
    bench_logical_divide,
    bench_products,
    bench_inverses,
    bench_coalesce,
    bench_evaluation
);
criterion_main!(benches);
