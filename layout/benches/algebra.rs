//! Host-side algebra benchmarks: composition, complement, logical_divide, and evaluating a
//! layout over its whole domain.

use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};
use tessel_layout::{Layout, Tiler, complement, composition, logical_divide};

fn layout(s: &str) -> Layout {
    s.parse().expect("benchmark layouts are valid")
}

fn bench_composition(c: &mut Criterion) {
    let mut g = c.benchmark_group("composition");
    // CuTe docs examples and a typical tile reshape.
    let cases = [
        ("docs_2x2", "(6,2):(8,2)", "(4,3):(3,1)"),
        (
            "tile_128x64_rowmajor",
            "(128,64):(64,1)",
            "((8,16),(8,8)):((1,64),(8,512))",
        ),
        (
            "tv_sm80_c",
            "(16,8):(1,16)",
            "((4,8),(2,2)):((32,1),(16,8))",
        ),
    ];
    for (name, a, b) in cases {
        let (a, b) = (layout(a), layout(b));
        g.bench_function(name, |bench| {
            bench.iter(|| composition(black_box(&a), black_box(&b)))
        });
    }
    g.finish();
}

fn bench_complement(c: &mut Criterion) {
    let mut g = c.benchmark_group("complement");
    let cases = [
        ("docs_4_2", "4:2", 24),
        ("docs_2x2", "(2,2):(1,6)", 24),
        ("deep", "((2,2),(4,2),2):((1,64),(2,512),4096)", 1 << 16),
    ];
    for (name, a, m) in cases {
        let a = layout(a);
        g.bench_function(name, |bench| {
            bench.iter(|| complement(black_box(&a), black_box(m)))
        });
    }
    g.finish();
}

fn bench_logical_divide(c: &mut Criterion) {
    let mut g = c.benchmark_group("logical_divide");
    let a = layout("(4,2,3):(2,1,8)");
    let t = Tiler::Layout(layout("4:2"));
    g.bench_function("docs_1d", |bench| {
        bench.iter(|| logical_divide(black_box(&a), black_box(&t)))
    });
    let a = layout("(9,(4,8)):(59,(13,1))");
    let t = Tiler::ByMode(vec![
        Some(Tiler::Layout(layout("3:3"))),
        Some(Tiler::Layout(layout("(2,4):(1,8)"))),
    ]);
    g.bench_function("docs_2d", |bench| {
        bench.iter(|| logical_divide(black_box(&a), black_box(&t)))
    });
    let a = layout("(4096,4096):(4096,1)");
    let t = Tiler::ByMode(vec![
        Some(Tiler::Layout(layout("128:1"))),
        Some(Tiler::Layout(layout("64:1"))),
    ]);
    g.bench_function("gemm_tile_128x64", |bench| {
        bench.iter(|| logical_divide(black_box(&a), black_box(&t)))
    });
    g.finish();
}

fn bench_evaluation(c: &mut Criterion) {
    let mut g = c.benchmark_group("evaluation");
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
    bench_evaluation
);
criterion_main!(benches);
