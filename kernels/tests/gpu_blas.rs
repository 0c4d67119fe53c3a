//! The library GEMM on an sm_90 GPU (`#[ignore]`d; run with `TESSEL_REQUIRE_GPU=1 cargo test -p
//! tessel-kernels --test gpu_blas -- --include-ignored`): every order of A, B and D, ragged
//! shapes, K from 1 to 65536, leading dimensions above the extents (the padding filled with
//! values that would spoil the result if read), alpha and beta with C, every output type, D at
//! addresses TMA cannot store to, A and B TMA cannot load (misaligned addresses, leading
//! dimensions of no multiple of 16 bytes) computed on the mma.sync path, and the host latency of
//! a new shape; 8-bit inputs (every pair of e4m3 and e5m2, every output type, per-tensor scales,
//! K up to 65536, other majors refused, misaligned operands on sm_89's mma.sync path); the
//! mma.sync path through `Gemm::for_arch(&gpu, Arch::new(8, 0))` on any sm_80+ GPU (every
//! order of A, B and D, ragged shapes, bf16 with alpha, beta and C, 8-bit inputs refused) and
//! through `Gemm::for_arch(&gpu, Arch::SM89)` on any sm_89+ GPU (8-bit inputs).
//! Every element of the checked rows is compared with the f64 CPU reference
//! ([`verify_gemm`]); D's padding must stay untouched.

mod common;

use common::gpu_or_skip;
use cudarc::driver::CudaSlice;
use tessel_kernels::blas::{
    Gemm, GemmArgs, GemmCall, GemmPath, HostGemm, HostMatrix, MatrixMut, MatrixRef, Order,
    spread_rows, verify_gemm,
};
use tessel_kernels::element::DeviceElement;
use tessel_kernels::gemm::host::random_f16;
use tessel_kernels::{Arch, Element, Gpu};

/// A matrix on the device and its values on the host (in storage order, padding included).
struct Mat {
    dev: CudaSlice<u8>,
    host: Vec<f64>,
    order: Order,
    ld: i64,
    elem: Element,
}

/// Elements a `rows x cols` matrix of `order` and `ld` spans.
fn span(order: Order, rows: usize, cols: usize, ld: i64) -> usize {
    let (outer, inner) = match order {
        Order::RowMajor => (rows, cols),
        Order::ColMajor => (cols, rows),
    };
    (outer - 1) * ld as usize + inner
}

/// Whether storage index `e` is an element of the matrix (not padding).
fn inside(order: Order, rows: usize, cols: usize, ld: i64, e: usize) -> bool {
    let (outer, inner) = match order {
        Order::RowMajor => (rows, cols),
        Order::ColMajor => (cols, rows),
    };
    let ld = ld as usize;
    e % ld < inner && e / ld < outer
}

fn bytes_of(elem: Element, values: &[f64]) -> Vec<u8> {
    let w = elem.bytes() as usize;
    values
        .iter()
        .flat_map(|&x| elem.encode(x).to_le_bytes().into_iter().take(w))
        .collect()
}

fn values_of(elem: Element, bytes: &[u8]) -> Vec<f64> {
    let w = elem.bytes() as usize;
    bytes
        .chunks(w)
        .map(|c| {
            let mut b = [0u8; 4];
            b[..w].copy_from_slice(c);
            elem.decode(u32::from_le_bytes(b))
        })
        .collect()
}

/// A random `rows x cols` matrix (values `q / 1024`, `|q| <= 1024`, rounded to `elem`), its
/// padding 1000.0 (an element read from the padding spoils the result).
fn random(
    gpu: &Gpu,
    elem: Element,
    order: Order,
    rows: usize,
    cols: usize,
    ld: i64,
    seed: u64,
) -> Mat {
    let len = span(order, rows, cols, ld);
    let r = random_f16(len, seed);
    let host: Vec<f64> = (0..len)
        .map(|e| {
            if inside(order, rows, cols, ld, e) {
                elem.decode(elem.encode(f64::from(r[e].to_f32())))
            } else {
                1000.0
            }
        })
        .collect();
    let dev = gpu.stream().clone_htod(&bytes_of(elem, &host)).unwrap();
    Mat {
        dev,
        host,
        order,
        ld,
        elem,
    }
}

/// D: all bytes 0xFF (NaN in every output type) before the call.
fn poisoned(gpu: &Gpu, elem: Element, order: Order, rows: usize, cols: usize, ld: i64) -> Mat {
    let len = span(order, rows, cols, ld);
    let dev = gpu
        .stream()
        .clone_htod(&vec![0xFFu8; len * elem.bytes() as usize])
        .unwrap();
    Mat {
        dev,
        host: vec![f64::NAN; len],
        order,
        ld,
        elem,
    }
}

fn host(m: &Mat) -> HostMatrix<'_> {
    HostMatrix {
        values: &m.host,
        order: m.order,
        ld: m.ld,
    }
}

/// One case: shape, orders, leading-dimension padding, types, scalars.
#[derive(Clone, Copy, Debug)]
struct Case {
    m: usize,
    n: usize,
    k: usize,
    a: Order,
    b: Order,
    d: Order,
    input: Element,
    output: Element,
    alpha: f32,
    beta: f32,
    /// Extra elements of every leading dimension (A and B keep it a multiple of 8).
    pad: i64,
    /// Elements D starts after its buffer's start (1: not 16-byte aligned, direct stores).
    d_offset: usize,
    /// B's type where it differs from A's (8-bit mixes); `None`: `input`.
    input_b: Option<Element>,
    /// The per-tensor scales of A and B.
    scales: (f32, f32),
    /// What A's and B's leading dimensions are rounded up to a multiple of (elements);
    /// `None`: 16 bytes (what TMA needs).
    ab_align: Option<i64>,
    /// Elements A and B start after their buffers' starts (1: not 16-byte aligned).
    ab_offset: usize,
    /// The path the call must take; `None`: either.
    path: Option<GemmPath>,
}

const BASE: Case = Case {
    m: 1000,
    n: 3000,
    k: 520,
    a: Order::RowMajor,
    b: Order::RowMajor,
    d: Order::RowMajor,
    input: Element::F16,
    output: Element::F32,
    alpha: 1.0,
    beta: 0.0,
    pad: 0,
    d_offset: 0,
    input_b: None,
    scales: (1.0, 1.0),
    ab_align: None,
    ab_offset: 0,
    path: None,
};

/// The leading dimension of a `rows x cols` matrix of `order`: its contiguous extent plus
/// `pad`, rounded up to a multiple of `align` elements (A and B: 16 bytes, for TMA).
fn ld_of(order: Order, rows: usize, cols: usize, pad: i64, align: i64) -> i64 {
    let ld = if order == Order::RowMajor { cols } else { rows } as i64 + pad;
    (ld + align - 1) / align * align
}

/// Elements of 16 bytes of `elem`.
fn per_16_bytes(elem: Element) -> i64 {
    16 / elem.bytes()
}

/// What the library chose for a case: the splits of K and the kernel's name; and D's bytes.
struct Chosen {
    splits: i32,
    kernel: String,
    d: Vec<u8>,
}

impl Chosen {
    /// Asserts that the kernel's name holds `tile` and, where `unsplit`, that K was not split.
    fn assert_tile(&self, tile: &str, unsplit: bool, label: &str) {
        assert!(
            self.kernel.contains(tile) && (!unsplit || self.splits == 1),
            "{label}: {} in {} splits (expected the {tile} tile{})",
            self.kernel,
            self.splits,
            if unsplit { ", unsplit" } else { "" }
        );
    }
}

/// Runs and verifies one case; returns what the library chose.
fn run_case(gpu: &Gpu, gemm: &Gemm<'_>, c: Case, seed: u64) -> Chosen {
    let label = format!("{c:?}");
    let a = random(
        gpu,
        c.input,
        c.a,
        c.m,
        c.k,
        ld_of(
            c.a,
            c.m,
            c.k,
            c.pad,
            c.ab_align.unwrap_or(per_16_bytes(c.input)),
        ),
        seed,
    );
    let input_b = c.input_b.unwrap_or(c.input);
    let b = random(
        gpu,
        input_b,
        c.b,
        c.k,
        c.n,
        ld_of(
            c.b,
            c.k,
            c.n,
            c.pad,
            c.ab_align.unwrap_or(per_16_bytes(input_b)),
        ),
        seed ^ 0xB,
    );
    // A and B `ab_offset` elements into buffers that much larger (the bytes before them NaN).
    let shift = |m: &Mat| -> CudaSlice<u8> {
        let mut bytes = vec![0xFFu8; c.ab_offset * m.elem.bytes() as usize];
        bytes.extend(gpu.stream().clone_dtoh(&m.dev).unwrap());
        gpu.stream().clone_htod(&bytes).unwrap()
    };
    let (a_dev, b_dev) = (shift(&a), shift(&b));
    let a_view = a_dev.slice(c.ab_offset * a.elem.bytes() as usize..);
    let b_view = b_dev.slice(c.ab_offset * b.elem.bytes() as usize..);
    let ldd = ld_of(c.d, c.m, c.n, c.pad, 1);
    let src = (c.beta != 0.0).then(|| random(gpu, c.output, c.d, c.m, c.n, ldd, seed ^ 0xC));
    let mut d = poisoned(gpu, c.output, c.d, c.m, c.n, ldd);
    let off = c.d_offset * c.output.bytes() as usize;
    if off > 0 {
        // D starts `d_offset` elements into a buffer that much larger.
        let len = d.dev.len() + off;
        d.dev = gpu.stream().clone_htod(&vec![0xFFu8; len]).unwrap();
    }
    let chosen = {
        let mut view = d.dev.slice_mut(off..);
        let call = gemm
            .run(GemmArgs {
                m: c.m as i64,
                n: c.n as i64,
                k: c.k as i64,
                a: MatrixRef {
                    buf: &a_view,
                    elem: a.elem,
                    order: a.order,
                    ld: a.ld,
                },
                b: MatrixRef {
                    buf: &b_view,
                    elem: b.elem,
                    order: b.order,
                    ld: b.ld,
                },
                c: src.as_ref().map(|s| MatrixRef {
                    buf: &s.dev,
                    elem: s.elem,
                    order: s.order,
                    ld: s.ld,
                }),
                d: MatrixMut {
                    buf: &mut view,
                    elem: c.output,
                    order: c.d,
                    ld: ldd,
                },
                alpha: c.alpha,
                beta: c.beta,
                scale_a: c.scales.0,
                scale_b: c.scales.1,
            })
            .unwrap_or_else(|e| panic!("{label}: {e}"));
        eprintln!("{label}: {} grid {}", call.kernel_name(), call.grid());
        if let Some(path) = c.path {
            assert_eq!(call.path(), path, "{label}: {}", call.kernel_name());
        }
        Chosen {
            splits: match &call {
                GemmCall::Sm90(c) => c.args.splits,
                GemmCall::Sm80(_) => 1,
            },
            kernel: call.kernel_name(),
            d: Vec::new(),
        }
    };
    gpu.synchronize().unwrap();
    let raw = gpu.stream().clone_dtoh(&d.dev).unwrap();
    let got = values_of(c.output, &raw[off..]);
    // D's padding (and the bytes before it) untouched.
    assert!(
        raw[..off].iter().all(|&x| x == 0xFF),
        "{label}: bytes before D written"
    );
    let w = c.output.bytes() as usize;
    for (e, chunk) in raw[off..].chunks(w).enumerate() {
        if !inside(c.d, c.m, c.n, ldd, e) {
            assert!(
                chunk.iter().all(|&x| x == 0xFF),
                "{label}: D's padding element {e} written"
            );
        }
    }
    let g = HostGemm {
        m: c.m,
        n: c.n,
        k: c.k,
        a: host(&a),
        b: host(&b),
        c: src.as_ref().map(host),
        alpha: f64::from(c.alpha) * f64::from(c.scales.0) * f64::from(c.scales.1),
        beta: f64::from(c.beta),
        fp8: c.input.is_fp8(),
    };
    let rows = spread_rows(c.m, 48);
    let cmp = verify_gemm(
        &g,
        HostMatrix {
            values: &got,
            order: c.d,
            ld: ldd,
        },
        c.output,
        &rows,
    );
    assert_eq!(cmp.bad, 0, "{label}: {cmp:?}");
    Chosen { d: raw, ..chosen }
}

/// Runs `body` with the GPU and its library GEMM; skips (with the reason) where there is no
/// GPU or it is not an sm_90 one, failing instead under `TESSEL_REQUIRE_GPU=1`.
fn with_gemm(test: &str, body: impl FnOnce(&Gpu, &Gemm<'_>)) {
    let Some(gpu) = gpu_or_skip(test) else {
        return;
    };
    match Gemm::new(&gpu) {
        Ok(gemm) if gemm.target() == Arch::SM90A => body(&gpu, &gemm),
        Ok(gemm) => assert!(
            std::env::var("TESSEL_REQUIRE_GPU").as_deref() != Ok("1"),
            "{test}: not an sm_90 GPU: the library compiles for {}",
            gemm.target()
        ),
        Err(e) => assert!(
            std::env::var("TESSEL_REQUIRE_GPU").as_deref() != Ok("1"),
            "{test}: not an sm_90 GPU: {e}"
        ),
    }
}

#[test]
#[ignore = "needs an sm_90 GPU"]
fn gpu_every_order_ragged() {
    with_gemm("gpu_every_order_ragged", |gpu, gemm| {
        use Order::{ColMajor as C, RowMajor as R};
        let mut seed = 1;
        for (m, n, k) in [
            (1000, 3000, 520),
            (129, 257, 72),
            (1, 1, 1),
            (7, 13, 5),
            (300, 100, 1000),
        ] {
            for a in [R, C] {
                for b in [R, C] {
                    for d in [R, C] {
                        seed += 1;
                        run_case(
                            gpu,
                            gemm,
                            Case {
                                m,
                                n,
                                k,
                                a,
                                b,
                                d,
                                ..BASE
                            },
                            seed,
                        );
                    }
                }
            }
        }
    });
}

#[test]
#[ignore = "needs an sm_90 GPU"]
fn gpu_every_type_pair_alpha_beta_and_padding() {
    with_gemm("gpu_every_type_pair_alpha_beta_and_padding", |gpu, gemm| {
        let mut seed = 100;
        for input in [Element::F16, Element::BF16] {
            for output in [Element::F32, Element::F16, Element::BF16] {
                for (alpha, beta) in [(1.0, 0.0), (0.5, -1.25), (-2.0, 1.0)] {
                    seed += 1;
                    let c = Case {
                        m: 515,
                        n: 777,
                        k: 333,
                        input,
                        output,
                        alpha,
                        beta,
                        pad: 24,
                        b: Order::ColMajor,
                        ..BASE
                    };
                    run_case(gpu, gemm, c, seed);
                    run_case(
                        gpu,
                        gemm,
                        Case {
                            d: Order::ColMajor,
                            a: Order::ColMajor,
                            ..c
                        },
                        seed + 1000,
                    );
                }
            }
        }
    });
}

#[test]
#[ignore = "needs an sm_90 GPU"]
fn gpu_d_where_tma_cannot_store() {
    with_gemm("gpu_d_where_tma_cannot_store", |gpu, gemm| {
        // D one element past a 16-byte boundary, and D with an odd leading dimension: the direct
        // epilogue (predicated stores, element by element where pairs are not aligned).
        for output in [Element::F32, Element::F16, Element::BF16] {
            run_case(
                gpu,
                gemm,
                Case {
                    output,
                    d_offset: 1,
                    ..BASE
                },
                7,
            );
            run_case(
                gpu,
                gemm,
                Case {
                    output,
                    n: 1001,
                    pad: 0,
                    beta: 0.75,
                    ..BASE
                },
                8,
            );
            run_case(
                gpu,
                gemm,
                Case {
                    output,
                    pad: 3,
                    d: Order::ColMajor,
                    ..BASE
                },
                9,
            );
        }
    });
}

#[test]
#[ignore = "needs an sm_90 GPU"]
fn gpu_long_and_short_k() {
    with_gemm("gpu_long_and_short_k", |gpu, gemm| {
        for k in [1, 2, 8, 63, 64, 65, 16384, 65536] {
            let m = if k > 4096 { 256 } else { 200 };
            run_case(
                gpu,
                gemm,
                Case {
                    m,
                    n: 384,
                    k,
                    ..BASE
                },
                k as u64,
            );
            run_case(
                gpu,
                gemm,
                Case {
                    m,
                    n: 384,
                    k,
                    a: Order::ColMajor,
                    b: Order::ColMajor,
                    input: Element::BF16,
                    ..BASE
                },
                k as u64 + 1,
            );
        }
        // Large problems of both tiles.
        run_case(
            gpu,
            gemm,
            Case {
                m: 4096,
                n: 4096,
                k: 4096,
                ..BASE
            },
            11,
        );
        run_case(
            gpu,
            gemm,
            Case {
                m: 128,
                n: 4096,
                k: 4096,
                b: Order::ColMajor,
                ..BASE
            },
            12,
        );
    });
}

/// The error of a 64 x 64 x 64 call that the library must refuse before it launches anything:
/// A of type and order `a`, starting `a_offset` bytes into its buffer, B of `b`, both with
/// leading dimension 64; D f32 row-major; no C.
fn refusal(
    gpu: &Gpu,
    gemm: &Gemm<'_>,
    a: (Element, Order),
    a_offset: usize,
    b: (Element, Order),
) -> String {
    let bytes = |e: Element| 64 * 64 * e.bytes() as usize;
    let a_buf = gpu
        .stream()
        .alloc_zeros::<u8>(a_offset + bytes(a.0))
        .unwrap();
    let b_buf = gpu.stream().alloc_zeros::<u8>(bytes(b.0)).unwrap();
    let mut d = gpu.stream().alloc_zeros::<f32>(64 * 64).unwrap();
    let a_view = a_buf.slice(a_offset..);
    gemm.run(GemmArgs {
        m: 64,
        n: 64,
        k: 64,
        a: MatrixRef {
            buf: &a_view,
            elem: a.0,
            order: a.1,
            ld: 64,
        },
        b: MatrixRef {
            buf: &b_buf,
            elem: b.0,
            order: b.1,
            ld: 64,
        },
        c: None,
        d: MatrixMut {
            buf: &mut d,
            elem: Element::F32,
            order: Order::RowMajor,
            ld: 64,
        },
        alpha: 1.0,
        beta: 0.0,
        scale_a: 1.0,
        scale_b: 1.0,
    })
    .unwrap_err()
    .to_string()
}

/// On sm_90, 8-bit operands TMA cannot load (A one byte past 16 bytes, leading dimensions of
/// no multiple of 16 bytes) take sm_89's mma.sync path and compute: e4m3 and e5m2, every output
/// type, copies of 1, 2 and 4 bytes, ragged shapes, alpha, beta and C, per-tensor scales; A and
/// B of two types there are an error that says so.
#[test]
#[ignore = "needs an sm_90 GPU"]
fn gpu_misaligned_8bit_operands_take_the_mma_sync_path() {
    with_gemm(
        "gpu_misaligned_8bit_operands_take_the_mma_sync_path",
        |gpu, gemm| {
            let mut seed = 2500;
            for input in [Element::E4M3, Element::E5M2] {
                for output in [Element::F32, Element::F16, Element::BF16] {
                    for ((m, n, k), (align, offset)) in [
                        ((515, 777, 333), (1, 1)),
                        ((17, 33, 9), (2, 2)),
                        ((129, 257, 200), (4, 0)),
                    ] {
                        seed += 1;
                        let c = Case {
                            m,
                            n,
                            k,
                            ab_align: Some(align),
                            ab_offset: offset,
                            pad: 3,
                            alpha: 0.5,
                            beta: if output == Element::F32 { 0.0 } else { -1.25 },
                            scales: (2.0, 0.375),
                            d: if seed % 2 == 0 {
                                Order::RowMajor
                            } else {
                                Order::ColMajor
                            },
                            path: Some(GemmPath::MmaSync),
                            ..fp8_case(input, input, output)
                        };
                        run_case(gpu, gemm, c, seed);
                    }
                }
            }
            let e = refusal(
                gpu,
                gemm,
                (Element::E4M3, Order::RowMajor),
                1,
                (Element::E5M2, Order::ColMajor),
            );
            assert!(e.contains("A and B of one type"), "{e}");
        },
    );
}

/// On sm_90, A and B TMA cannot load (an address one element past 16 bytes, leading
/// dimensions that are not multiples of 16 bytes) take the mma.sync path and compute: every
/// order of A and B, every copy width (1, 2 and 4 elements), ragged shapes.
#[test]
#[ignore = "needs an sm_90 GPU"]
fn gpu_misaligned_operands_take_the_mma_sync_path() {
    with_gemm(
        "gpu_misaligned_operands_take_the_mma_sync_path",
        |gpu, gemm| {
            use Order::{ColMajor as C, RowMajor as R};
            let mut seed = 3000;
            let misaligned = Case {
                ab_offset: 1,
                ab_align: Some(1),
                pad: 3,
                path: Some(GemmPath::MmaSync),
                ..BASE
            };
            for (m, n, k) in [(1000, 3000, 520), (17, 33, 9)] {
                for (a, b) in [(R, R), (R, C), (C, R), (C, C)] {
                    seed += 1;
                    let d = if seed % 2 == 0 { R } else { C };
                    let c = Case {
                        m,
                        n,
                        k,
                        a,
                        b,
                        d,
                        ..misaligned
                    };
                    run_case(gpu, gemm, c, seed);
                }
            }
            // 4- and 8-byte copies: leading dimensions of multiples of 2 and 4 elements.
            for (align, offset, a, b) in [(2, 2, R, C), (4, 0, C, R)] {
                seed += 1;
                let c = Case {
                    m: 129,
                    n: 257,
                    k: 75,
                    a,
                    b,
                    ab_align: Some(align),
                    ab_offset: offset,
                    ..misaligned
                };
                run_case(gpu, gemm, c, seed);
            }
        },
    );
}

/// Runs `body` with the GPU and the library GEMM compiling sm_80 code (every call on the
/// mma.sync path, as on an sm_80 GPU); skips where there is no GPU of sm_80 or later, failing
/// instead under `TESSEL_REQUIRE_GPU=1`.
fn with_sm80_gemm(test: &str, body: impl FnOnce(&Gpu, &Gemm<'_>)) {
    let Some(gpu) = gpu_or_skip(test) else {
        return;
    };
    match Gemm::for_arch(&gpu, Arch::new(8, 0).unwrap()) {
        Ok(gemm) => body(&gpu, &gemm),
        Err(e) => assert!(
            std::env::var("TESSEL_REQUIRE_GPU").as_deref() != Ok("1"),
            "{test}: not an sm_80+ GPU: {e}"
        ),
    }
}

/// The mma.sync path through the sm_80 constructor: f16 -> f32, every order of A and B (D
/// row- and column-major), ragged shapes.
#[test]
#[ignore = "needs an sm_80 or later GPU"]
fn gpu_sm80_every_order_ragged() {
    with_sm80_gemm("gpu_sm80_every_order_ragged", |gpu, gemm| {
        use Order::{ColMajor as C, RowMajor as R};
        let mut seed = 4000;
        for (m, n, k) in [(1000, 3000, 520), (1, 4096, 72), (17, 33, 9)] {
            for (a, b) in [(R, R), (R, C), (C, R), (C, C)] {
                for d in [R, C] {
                    seed += 1;
                    let c = Case {
                        m,
                        n,
                        k,
                        a,
                        b,
                        d,
                        path: Some(GemmPath::MmaSync),
                        ..BASE
                    };
                    run_case(gpu, gemm, c, seed);
                }
            }
        }
    });
}

/// The mma.sync path through the sm_80 constructor: bf16 -> bf16 with alpha, beta and C
/// (and f16 -> f16), every order of A and B, ragged shapes, padded leading dimensions.
#[test]
#[ignore = "needs an sm_80 or later GPU"]
fn gpu_sm80_bf16_alpha_beta_and_c() {
    with_sm80_gemm("gpu_sm80_bf16_alpha_beta_and_c", |gpu, gemm| {
        use Order::{ColMajor as C, RowMajor as R};
        let mut seed = 5000;
        for (m, n, k) in [(1000, 3000, 520), (17, 33, 9)] {
            for (a, b) in [(R, R), (R, C), (C, R), (C, C)] {
                seed += 1;
                let c = Case {
                    m,
                    n,
                    k,
                    a,
                    b,
                    d: if seed % 2 == 0 { R } else { C },
                    input: Element::BF16,
                    output: Element::BF16,
                    alpha: 0.5,
                    beta: -1.25,
                    pad: 24,
                    path: Some(GemmPath::MmaSync),
                    ..BASE
                };
                run_case(gpu, gemm, c, seed);
            }
        }
        let f16 = Case {
            m: 515,
            n: 777,
            k: 333,
            input: Element::F16,
            output: Element::F16,
            alpha: -2.0,
            beta: 1.0,
            b: C,
            path: Some(GemmPath::MmaSync),
            ..BASE
        };
        run_case(gpu, gemm, f16, seed + 1);
    });
}

/// 8-bit inputs on the sm_80 code: an error that names the architectures that take them.
#[test]
#[ignore = "needs an sm_80 or later GPU"]
fn gpu_sm80_refuses_8bit_inputs() {
    with_sm80_gemm("gpu_sm80_refuses_8bit_inputs", |gpu, gemm| {
        let e = refusal(
            gpu,
            gemm,
            (Element::E4M3, Order::RowMajor),
            0,
            (Element::E4M3, Order::ColMajor),
        );
        assert!(e.contains("8-bit inputs need sm_89"), "{e}");
    });
}

/// The 8-bit mma.sync path through the sm_89 constructor (every call on it, as on an sm_89
/// GPU): e4m3 and e5m2 with every output type, ragged shapes, K from 1 to 65536 (k tiles of 64:
/// partial, exact, over), alpha, beta and C with per-tensor scales, D row- and column-major.
#[test]
#[ignore = "needs an sm_89 or later GPU"]
fn gpu_sm89_8bit_inputs() {
    let test = "gpu_sm89_8bit_inputs";
    let Some(gpu) = gpu_or_skip(test) else {
        return;
    };
    let gemm = match Gemm::for_arch(&gpu, Arch::SM89) {
        Ok(gemm) => gemm,
        Err(e) => {
            assert!(
                std::env::var("TESSEL_REQUIRE_GPU").as_deref() != Ok("1"),
                "{test}: not an sm_89+ GPU: {e}"
            );
            return;
        }
    };
    let mut seed = 6000;
    for input in [Element::E4M3, Element::E5M2] {
        for output in [Element::F32, Element::F16, Element::BF16] {
            for (m, n, k) in [(1, 1, 1), (17, 33, 9), (515, 777, 333)] {
                for d in [Order::RowMajor, Order::ColMajor] {
                    seed += 1;
                    let c = Case {
                        m,
                        n,
                        k,
                        d,
                        alpha: -2.0,
                        beta: 0.5,
                        scales: (0.125, 8.0),
                        pad: 24,
                        path: Some(GemmPath::MmaSync),
                        ..fp8_case(input, input, output)
                    };
                    run_case(&gpu, &gemm, c, seed);
                }
            }
        }
    }
    // Long K: each k tile's products are promoted into the fp32 sums, so the error stays within
    // the bound at any K (fp32 output shows it; bf16 rounds it away).
    for (k, output) in [
        (63, Element::BF16),
        (64, Element::BF16),
        (65, Element::BF16),
        (4096, Element::BF16),
        (16384, Element::F32),
        (65536, Element::F32),
    ] {
        seed += 1;
        let c = Case {
            m: 200,
            n: 384,
            k,
            path: Some(GemmPath::MmaSync),
            ..fp8_case(Element::E4M3, Element::E4M3, output)
        };
        run_case(&gpu, &gemm, c, seed);
    }
}

/// Host time of a call with a new shape once its configuration is loaded: no compile, the
/// checks, three tensor maps and the launch (median of 9 shapes; under 1 ms).
#[test]
#[ignore = "needs an sm_90 GPU"]
fn gpu_new_shape_host_latency() {
    with_gemm("gpu_new_shape_host_latency", |gpu, gemm| {
        let (mm, nn, kk) = (4096usize, 4096usize, 4096usize);
        let a = gpu.stream().alloc_zeros::<u16>(mm * kk).unwrap();
        let b = gpu.stream().alloc_zeros::<u16>(kk * nn).unwrap();
        let mut d = gpu.stream().alloc_zeros::<f32>(mm * nn).unwrap();
        let mut call = |m: i64, n: i64, k: i64| {
            let t = std::time::Instant::now();
            gemm.run(GemmArgs {
                m,
                n,
                k,
                a: MatrixRef {
                    buf: &a,
                    elem: Element::F16,
                    order: Order::RowMajor,
                    ld: k,
                },
                b: MatrixRef {
                    buf: &b,
                    elem: Element::F16,
                    order: Order::ColMajor,
                    ld: k,
                },
                c: None,
                d: MatrixMut {
                    buf: &mut d,
                    elem: Element::F32,
                    order: Order::RowMajor,
                    ld: n,
                },
                alpha: 1.0,
                beta: 0.0,
                scale_a: 1.0,
                scale_b: 1.0,
            })
            .unwrap();
            t.elapsed()
        };
        let first = call(4096, 4096, 4096); // loads (compiles, or reads the disk cache)
        let small = call(128, 128, 64); // the other tile's configuration
        let mut warm: Vec<_> = (1..=9)
            .map(|i| call(4096 - 8 * i, 4096 - 16 * i, 4096 - 24 * i))
            .collect();
        warm.sort();
        gpu.synchronize().unwrap();
        eprintln!(
            "library GEMM host latency: first call {first:?} (load), other tile {small:?}, new shape \
         with a loaded kernel: median {:?} (min {:?}, max {:?})",
            warm[4], warm[0], warm[8]
        );
        assert_eq!(gemm.loaded(), 2);
        assert!(
            warm[4] < std::time::Duration::from_millis(1),
            "median {:?}",
            warm[4]
        );
    });
}

/// The 8-bit pairs (A, B) in every mix.
const FP8_PAIRS: [(Element, Element); 4] = [
    (Element::E4M3, Element::E4M3),
    (Element::E4M3, Element::E5M2),
    (Element::E5M2, Element::E4M3),
    (Element::E5M2, Element::E5M2),
];

/// An 8-bit TN case (A row-major, B column-major) of the pair `(a, b)`.
fn fp8_case(a: Element, b: Element, output: Element) -> Case {
    Case {
        input: a,
        input_b: Some(b),
        output,
        b: Order::ColMajor,
        ..BASE
    }
}

/// Every 8-bit type pair with every output type: ragged shapes, padded leading dimensions,
/// per-tensor scales with alpha and beta (C read), D row- and column-major (the column-major D
/// swaps A and B and their formats).
#[test]
#[ignore = "needs an sm_90 GPU"]
fn gpu_fp8_every_type_pair_and_output() {
    with_gemm("gpu_fp8_every_type_pair_and_output", |gpu, gemm| {
        let mut seed = 300;
        for (a, b) in FP8_PAIRS {
            for output in [Element::F32, Element::F16, Element::BF16] {
                for (alpha, beta, scales) in [
                    (1.0, 0.0, (1.0, 1.0)),
                    (0.5, -1.25, (2.0, 0.375)),
                    (-2.0, 1.0, (0.125, 8.0)),
                ] {
                    seed += 1;
                    let c = Case {
                        m: 515,
                        n: 777,
                        k: 333,
                        alpha,
                        beta,
                        scales,
                        pad: 24,
                        ..fp8_case(a, b, output)
                    };
                    run_case(gpu, gemm, c, seed);
                    run_case(
                        gpu,
                        gemm,
                        Case {
                            d: Order::ColMajor,
                            ..c
                        },
                        seed + 1000,
                    );
                }
                for (m, n, k) in [(1, 1, 1), (7, 13, 5), (129, 257, 72), (300, 100, 1000)] {
                    seed += 1;
                    run_case(
                        gpu,
                        gemm,
                        Case {
                            m,
                            n,
                            k,
                            ..fp8_case(a, b, output)
                        },
                        seed,
                    );
                }
            }
        }
    });
}

/// 8-bit inputs with K from 1 to 65536 (k-tiles of 128: one partial, one exact, one over; the
/// promotion over 512 k-tiles), large problems, and D where TMA cannot store.
#[test]
#[ignore = "needs an sm_90 GPU"]
fn gpu_fp8_long_and_short_k() {
    with_gemm("gpu_fp8_long_and_short_k", |gpu, gemm| {
        for (i, k) in [1, 16, 127, 128, 129, 4096, 16384, 65536]
            .into_iter()
            .enumerate()
        {
            let m = if k > 4096 { 256 } else { 200 };
            let (a, b) = FP8_PAIRS[i % 4];
            for output in [Element::BF16, Element::F32] {
                run_case(
                    gpu,
                    gemm,
                    Case {
                        m,
                        n: 384,
                        k,
                        ..fp8_case(a, b, output)
                    },
                    k as u64,
                );
            }
        }
        for (m, n, k) in [(4096, 4096, 4096), (128, 4096, 4096)] {
            run_case(
                gpu,
                gemm,
                Case {
                    m,
                    n,
                    k,
                    ..fp8_case(Element::E4M3, Element::E4M3, Element::BF16)
                },
                11,
            );
        }
        run_case(
            gpu,
            gemm,
            Case {
                d_offset: 1,
                beta: 0.5,
                ..fp8_case(Element::E5M2, Element::E4M3, Element::F16)
            },
            12,
        );
    });
}

/// 8-bit operands that are not K-major (A column-major or B row-major) are refused with the
/// named condition, nothing launched.
#[test]
#[ignore = "needs an sm_90 GPU"]
fn gpu_fp8_other_majors_are_refused() {
    with_gemm("gpu_fp8_other_majors_are_refused", |gpu, gemm| {
        for (oa, ob) in [
            (Order::ColMajor, Order::ColMajor),
            (Order::RowMajor, Order::RowMajor),
        ] {
            let e = refusal(gpu, gemm, (Element::E4M3, oa), 0, (Element::E5M2, ob));
            assert!(e.contains("8-bit inputs need K-major operands"), "{e}");
        }
    });
}

/// Split-K (tiles leaving half the SMs idle, K long enough): small M with N 4096 or 1000 and
/// long or ragged K, f16 -> f32 and bf16 -> bf16 with alpha, beta and C, an 8-bit pair, row- and
/// column-major D; each verified against the f64 reference, D's padding untouched, and the
/// library's choice to split checked.
#[test]
#[ignore = "needs an sm_90 GPU: TESSEL_REQUIRE_GPU=1 cargo test -p tessel-kernels --test gpu_blas -- --include-ignored"]
fn gpu_split_k_for_few_tiles() {
    with_gemm("gpu_split_k_for_few_tiles", |gpu, gemm| {
        let mut i = 0;
        for (m, n, k) in [
            (1, 4096, 4096),
            (16, 4096, 14336),
            (64, 1000, 4096),
            (100, 4096, 4000),
            (16, 1000, 4104),
        ] {
            for (input, output, alpha, beta, d) in [
                (Element::F16, Element::F32, 1.0, 0.0, Order::RowMajor),
                (Element::BF16, Element::BF16, 0.5, -1.5, Order::RowMajor),
                (Element::F16, Element::F16, 2.0, 0.25, Order::ColMajor),
            ] {
                let splits = run_case(
                    gpu,
                    gemm,
                    Case {
                        m,
                        n,
                        k,
                        b: Order::ColMajor,
                        d,
                        input,
                        output,
                        alpha,
                        beta,
                        ..BASE
                    },
                    i,
                )
                .splits;
                i += 1;
                assert!(splits > 1, "{m}x{n}x{k} {input}->{output}: not split");
            }
        }
        let splits = run_case(
            gpu,
            gemm,
            Case {
                m: 64,
                n: 4096,
                k: 8192,
                alpha: 0.75,
                beta: 0.5,
                scales: (0.5, 2.0),
                ..fp8_case(Element::E4M3, Element::E5M2, Element::BF16)
            },
            99,
        )
        .splits;
        assert!(splits > 1, "e4m3 x e5m2: not split");
    });
}

/// Split-K adds the units' partial sums in split order whichever unit finishes a tile last: the
/// same call twice gives the same bits. Every split call leaves the tiles' arrival counters at
/// zero for the next: split calls of other tiles, types and shapes in between, and the first
/// call again, are each right against the f64 reference (a counter left behind would make a
/// later tile's epilogue run early, or never) and the repeat gives the first call's bits.
#[test]
#[ignore = "needs an sm_90 GPU"]
fn gpu_split_k_is_deterministic_and_leaves_its_counters_zero() {
    use Order::{ColMajor as C, RowMajor as R};
    with_gemm(
        "gpu_split_k_is_deterministic_and_leaves_its_counters_zero",
        |gpu, gemm| {
            let first = Case {
                m: 100,
                n: 4096,
                k: 4000,
                b: C,
                ..BASE
            };
            let others = [
                Case {
                    m: 16,
                    n: 4096,
                    k: 14336,
                    b: C,
                    input: Element::BF16,
                    output: Element::BF16,
                    alpha: 0.5,
                    beta: -1.5,
                    ..BASE
                },
                Case {
                    m: 64,
                    n: 1000,
                    k: 4096,
                    b: C,
                    d: C,
                    output: Element::F16,
                    ..BASE
                },
                Case {
                    m: 200,
                    n: 2048,
                    k: 8192,
                    a: C,
                    b: R,
                    ..BASE
                },
            ];
            let once = run_case(gpu, gemm, first, 500);
            let twice = run_case(gpu, gemm, first, 500);
            assert!(once.splits > 1, "{}: not split", once.kernel);
            assert!(once.d == twice.d, "the same split call gave other bits");
            for (i, c) in others.into_iter().enumerate() {
                let chosen = run_case(gpu, gemm, c, 501 + i as u64);
                assert!(chosen.splits > 1, "{c:?}: {} not split", chosen.kernel);
            }
            let again = run_case(gpu, gemm, first, 500);
            assert!(
                once.d == again.d,
                "the split call after the others gave other bits"
            );
        },
    );
}

/// Where the 128 x 256 tiles take one wave with a quarter of it idle (1000 x 3000: 96 tiles on
/// 132 SMs), the 128 x 192 tiles (128) take it too: every output type (a 16-bit output's
/// three epilogue chunks through three buffers), TMA and direct stores (D one element past a
/// 16-byte boundary), alpha, beta and C, both orders of B, ragged extents; each against the
/// f64 reference.
#[test]
#[ignore = "needs an sm_90 GPU"]
fn gpu_one_wave_of_192_column_tiles() {
    with_gemm("gpu_one_wave_of_192_column_tiles", |gpu, gemm| {
        for (i, (n, b, output, alpha, beta, d_offset)) in [
            (3000, Order::ColMajor, Element::F32, 1.0, 0.0, 0),
            (3000, Order::RowMajor, Element::BF16, 0.5, -1.5, 0),
            (2999, Order::ColMajor, Element::F16, 2.0, 0.25, 1),
            (2990, Order::RowMajor, Element::F32, 1.0, 0.5, 1),
        ]
        .into_iter()
        .enumerate()
        {
            let chosen = run_case(
                gpu,
                gemm,
                Case {
                    n,
                    b,
                    output,
                    alpha,
                    beta,
                    d_offset,
                    input: if output == Element::BF16 {
                        Element::BF16
                    } else {
                        Element::F16
                    },
                    ..BASE
                },
                600 + i as u64,
            );
            chosen.assert_tile("_128x192", true, &format!("1000x{n} {output}"));
        }
    });
}

/// A case of the transposed-kernel tests: M x N x K, the orders of A, B and D, and the tile
/// the chosen kernel's name holds.
type RowsCase = ((usize, usize, usize), (Order, Order, Order), &'static str);

/// Runs every case with every (input, output, alpha, beta) of `types`, the leading dimensions
/// padded by `pad`, case `i` seeded `seed + i`, each against the f64 reference, and checks the
/// tile chosen, and where `unsplit` that K is not split.
fn run_few_rows(
    gpu: &Gpu,
    gemm: &Gemm<'_>,
    cases: &[RowsCase],
    types: &[(Element, Element, f32, f32)],
    pad: i64,
    seed: u64,
    unsplit: bool,
) {
    for (i, &((m, n, k), (a, b, d), tile)) in cases.iter().enumerate() {
        for &(input, output, alpha, beta) in types {
            let chosen = run_case(
                gpu,
                gemm,
                Case {
                    m,
                    n,
                    k,
                    a,
                    b,
                    d,
                    input,
                    output,
                    alpha,
                    beta,
                    pad,
                    ..BASE
                },
                seed + i as u64,
            );
            chosen.assert_tile(tile, unsplit, &format!("{m}x{n}x{k}"));
        }
    }
}

/// Few rows and many columns: at most `blas::NARROW_ROWS` rows (1, 7, 33, 64, and a
/// column-major D of 16 columns, whose transpose has 16 rows) take the transposed kernel, split
/// or not, which stores its tiles' transposes into D: the 128 x 32 tile for at most 32 rows
/// and a K-major A (the kernel's B), else the 128 x 64 one; just above (65 rows) the 128-row
/// tiles. Every order of A and B (the transposed kernel's operands are B^T and A^T), ragged
/// and odd extents, alpha, beta and C; each against the f64 reference.
#[test]
#[ignore = "needs an sm_90 GPU: TESSEL_REQUIRE_GPU=1 cargo test -p tessel-kernels --test gpu_blas -- --include-ignored"]
fn gpu_few_rows_take_the_transposed_kernel() {
    use Order::{ColMajor as C, RowMajor as R};
    with_gemm("gpu_few_rows_take_the_transposed_kernel", |gpu, gemm| {
        let cases = [
            ((1, 4096, 4096), (R, R, R), "_128x32"),
            ((64, 3000, 1000), (R, R, R), "_128x64"),
            ((33, 5000, 520), (R, C, R), "_128x64"),
            ((7, 1000, 4104), (C, C, R), "_128x64"),
            ((32, 2000, 1000), (R, C, R), "_128x32"),
            ((4096, 16, 4096), (R, C, C), "_128x32"),
            ((65, 2000, 700), (R, C, R), "_128x128"),
        ];
        let types = [
            (Element::F16, Element::F32, 1.0, 0.0),
            (Element::BF16, Element::BF16, 0.5, -1.5),
        ];
        run_few_rows(gpu, gemm, &cases, &types, 3, 200, false);
    });
}

/// Few rows and so many columns that the transposed kernel's tiles fill more than half the
/// SMs: unsplit, the kernel stores each tile's transpose into D itself (D's rows are its
/// columns: `Sm90Args::d_col`), reading C the same way (a 16-bit D too: the 32-column tile's
/// epilogue chunk is its 64 bytes). Both tiles, every order of A and B, a column-major D,
/// ragged extents and padded leading dimensions; each against the f64 reference.
#[test]
#[ignore = "needs an sm_90 GPU"]
fn gpu_few_rows_unsplit_store_the_transpose() {
    use Order::{ColMajor as C, RowMajor as R};
    with_gemm("gpu_few_rows_unsplit_store_the_transpose", |gpu, gemm| {
        // More than half a wave of 128-row tiles along the many columns.
        let wide = 128 * (gpu.sm_count() as usize / 2 + 3) - 37;
        let cases = [
            ((1, wide, 296), (R, C, R), "_128x32"),
            ((29, wide, 200), (R, R, R), "_128x32"),
            ((50, wide, 264), (R, R, R), "_128x64"),
            ((61, wide, 136), (C, C, R), "_128x64"),
            ((wide, 20, 200), (R, C, C), "_128x32"),
        ];
        let types = [
            (Element::F16, Element::F32, 1.0, 0.0),
            (Element::F16, Element::F32, 2.0, 0.5),
            (Element::BF16, Element::BF16, 0.5, -1.5),
        ];
        run_few_rows(gpu, gemm, &cases, &types, 5, 400, true);
    });
}

/// Rows for two 128-row tiles and columns for more than half a wave of 128 x 64 tiles but at
/// most half a wave of 128 x 128 ones: the 128 x 64 tile, unsplit, writes D itself. Every
/// output type (a 16-bit output's 64 columns are one epilogue chunk through one buffer), TMA
/// and direct stores (a ragged N), alpha, beta and C, a column-major D of as many rows as the
/// others have columns (the kernel computes its transpose, of 256 rows); each against the f64
/// reference.
#[test]
#[ignore = "needs an sm_90 GPU"]
fn gpu_narrow_tiles_fill_the_wave() {
    with_gemm("gpu_narrow_tiles_fill_the_wave", |gpu, gemm| {
        // 2 x (sms / 4 + 1) tiles of 64 columns: more than sms / 2; half as many of 128.
        let wide = 64 * (gpu.sm_count() as usize / 4 + 1);
        for (i, (m, n, d, output, alpha, beta)) in [
            (256, wide, Order::RowMajor, Element::F32, 1.0, 0.0),
            (256, wide, Order::RowMajor, Element::BF16, 0.5, -1.5),
            (250, wide - 3, Order::RowMajor, Element::F16, 2.0, 0.25),
            (wide, 256, Order::ColMajor, Element::BF16, 1.0, 0.5),
        ]
        .into_iter()
        .enumerate()
        {
            let chosen = run_case(
                gpu,
                gemm,
                Case {
                    m,
                    n,
                    k: 1000,
                    b: Order::ColMajor,
                    d,
                    input: Element::F16,
                    output,
                    alpha,
                    beta,
                    pad: 5,
                    ..BASE
                },
                300 + i as u64,
            );
            chosen.assert_tile("_128x64", true, &format!("{m}x{n} {output}"));
        }
    });
}
