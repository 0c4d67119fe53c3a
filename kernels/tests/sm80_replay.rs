//! The mma.sync GEMM replayed on the CPU through its own tensors
//! (`tessel_kernels::blas::replay_sm80`: the copies from the identity tensors' coordinates with
//! zeros past the edges, `ldmatrix` and `.trans`, `mma.sync` by the PTX fragment rules, the
//! epilogue at `crow`/`ccol`), no GPU needed: every order of A, B and D, every copy width, f16,
//! bf16, e4m3 and e5m2 in, every output type, alpha, beta and C, ragged shapes, padded leading
//! dimensions whose padding would spoil the result if read. Checked against the f64 reference with the
//! library's bounds (`verify_gemm`); D's padding must stay unwritten.

use tessel_kernels::Element;
use tessel_kernels::blas::{
    HostGemm, HostMatrix, Order, Sm80Config, replay_sm80, spread_rows, verify_gemm,
};
use tessel_kernels::element::DeviceElement;
use tessel_kernels::gemm::host::random_f16;
use tessel_layout::gmma::Major;

/// A `rows x cols` matrix of `order` with leading dimension `ld`: random values `q / 1024` of
/// `elem`, its padding 1000.
fn matrix(elem: Element, order: Order, rows: usize, cols: usize, ld: usize, seed: u64) -> Vec<f64> {
    let (outer, inner) = match order {
        Order::RowMajor => (rows, cols),
        Order::ColMajor => (cols, rows),
    };
    let len = (outer - 1) * ld + inner;
    let r = random_f16(len, seed);
    (0..len)
        .map(|e| {
            if e % ld < inner {
                elem.decode(elem.encode(f64::from(r[e].to_f32())))
            } else {
                1000.0
            }
        })
        .collect()
}

fn ld(order: Order, rows: usize, cols: usize, pad: usize) -> usize {
    pad + if order == Order::RowMajor { cols } else { rows }
}

#[allow(clippy::too_many_arguments)]
fn check(
    (m, n, k): (usize, usize, usize),
    (a_order, b_order, d_order): (Order, Order, Order),
    input: Element,
    output: Element,
    (a_width, b_width): (i64, i64),
    (alpha, beta): (f64, f64),
    pad: usize,
    seed: u64,
) {
    let major = |o: Order, row_major_is_k: bool| {
        if (o == Order::RowMajor) == row_major_is_k {
            Major::K
        } else {
            Major::MN
        }
    };
    let config = Sm80Config {
        input,
        output,
        a_major: major(a_order, true),
        b_major: major(b_order, false),
        a_width,
        b_width,
        source: beta != 0.0,
    };
    let (lda, ldb, ldd) = (
        ld(a_order, m, k, pad),
        ld(b_order, k, n, pad),
        ld(d_order, m, n, pad),
    );
    let a = matrix(input, a_order, m, k, lda, seed);
    let b = matrix(input, b_order, k, n, ldb, seed ^ 0xB);
    let c = matrix(output, d_order, m, n, ldd, seed ^ 0xC);
    let host = |values, order, ld: usize| HostMatrix {
        values,
        order,
        ld: ld as i64,
    };
    let g = HostGemm {
        m,
        n,
        k,
        a: host(&a, a_order, lda),
        b: host(&b, b_order, ldb),
        c: (beta != 0.0).then(|| host(&c, d_order, ldd)),
        alpha,
        beta,
        fp8: false,
    };
    let label = format!("{config} {m}x{n}x{k} D {d_order:?} alpha {alpha} beta {beta}");
    let d =
        replay_sm80(&config, &g, d_order, ldd as i64).unwrap_or_else(|e| panic!("{label}: {e}"));
    let rows: Vec<usize> = if m <= 64 {
        (0..m).collect()
    } else {
        spread_rows(m, 24)
    };
    let cmp = verify_gemm(&g, host(&d, d_order, ldd), output, &rows);
    assert_eq!(cmp.bad, 0, "{label}: {cmp:?}");
    // D's padding unwritten.
    let inner = if d_order == Order::RowMajor { n } else { m };
    for (e, x) in d.iter().enumerate() {
        if e % ldd >= inner {
            assert!(x.is_nan(), "{label}: D's padding element {e} written");
        }
    }
}

#[test]
fn every_order_and_copy_width_computes_the_product() {
    use Order::{ColMajor as C, RowMajor as R};
    let mut seed = 1;
    for (a, b) in [(R, R), (R, C), (C, R), (C, C)] {
        for (widths, pad) in [((8, 8), 8), ((1, 2), 1), ((4, 1), 4), ((2, 4), 2)] {
            seed += 1;
            let d = if seed % 2 == 0 { R } else { C };
            check(
                (17, 33, 9),
                (a, b, d),
                Element::F16,
                Element::F32,
                widths,
                (1.0, 0.0),
                pad,
                seed,
            );
        }
    }
}

#[test]
fn ragged_tiles_types_alpha_beta_and_c() {
    use Order::{ColMajor as C, RowMajor as R};
    let mut seed = 100;
    for (input, output) in [
        (Element::BF16, Element::BF16),
        (Element::F16, Element::F16),
        (Element::BF16, Element::F32),
    ] {
        for (a, b, d) in [(R, C, R), (C, R, C)] {
            seed += 1;
            check(
                (130, 140, 40),
                (a, b, d),
                input,
                output,
                (8, 8),
                (0.5, -1.25),
                8,
                seed,
            );
        }
    }
    check(
        (1, 200, 72),
        (R, R, R),
        Element::F16,
        Element::F32,
        (1, 8),
        (-2.0, 0.0),
        0,
        seed + 1,
    );
}

#[test]
fn eight_bit_inputs_take_the_k32_mma_at_every_copy_width() {
    // e4m3 and e5m2 (A row-major, B column-major: K-major both), copy widths of 16, 8, 4, 2 and
    // 1 bytes, ragged M, N and K (one partial k tile of 64), both orders of D.
    use Order::{ColMajor as C, RowMajor as R};
    let mut seed = 300;
    for input in [Element::E4M3, Element::E5M2] {
        for (widths, pad, d) in [
            ((16, 16), 16, R),
            ((8, 1), 8, C),
            ((4, 2), 4, R),
            ((1, 16), 1, C),
        ] {
            seed += 1;
            check(
                (17, 33, 9),
                (R, C, d),
                input,
                Element::F32,
                widths,
                (0.75, 0.0),
                pad,
                seed,
            );
        }
    }
    // Two tiles of M and N, K across whole and partial k tiles; C read, alpha and beta.
    check(
        (130, 140, 200),
        (R, C, C),
        Element::E5M2,
        Element::BF16,
        (2, 16),
        (0.75, 0.0),
        2,
        seed + 1,
    );
    check(
        (64, 129, 128),
        (R, C, R),
        Element::E4M3,
        Element::F16,
        (16, 16),
        (2.0, -0.5),
        0,
        seed + 2,
    );
}
