//! The mma.sync GEMM's host side (no GPU): the copy width each operand's alignment allows, the
//! path the library takes on each architecture and for each alignment, the run-time arguments,
//! and the host proofs of every configuration's kernel.

use tessel_kernels::blas::{
    GemmCall, GemmPath, MatrixDesc, Order, Problem, Sm80Config, copy_width, gemm_target, plan_gemm,
    plan_sm80,
};
use tessel_kernels::kernel::Value;
use tessel_kernels::{Arch, Element};
use tessel_layout::gmma::Major;

const SMS: i64 = 132;

fn sm80() -> Arch {
    Arch::new(8, 0).unwrap()
}

/// A matrix with leading dimension `ld` at `address`, its buffer large enough.
fn mat(address: u64, elem: Element, order: Order, ld: i64, rows: i64, cols: i64) -> MatrixDesc {
    let outer = if order == Order::RowMajor { rows } else { cols };
    MatrixDesc {
        address,
        bytes: ((outer * ld + 64) * elem.bytes()) as usize,
        elem,
        order,
        ld,
    }
}

fn problem(m: i64, n: i64, k: i64, input: Element, a: Order, b: Order) -> Problem {
    let ld = |o: Order, rows: i64, cols: i64| if o == Order::RowMajor { cols } else { rows };
    Problem {
        m,
        n,
        k,
        a: mat(0x10_0000, input, a, ld(a, m, k), m, k),
        b: mat(0x20_0000, input, b, ld(b, k, n), k, n),
        c: None,
        d: mat(0x30_0000, Element::F32, Order::RowMajor, n, m, n),
        alpha: 1.0,
        beta: 0.0,
    }
}

/// PTX ISA 9.0, "cp.async": "cp-size ... can only be 4, 8 and 16" bytes, and the source and
/// destination addresses must be aligned to cp-size; a 2-byte element needs no more than its own
/// alignment. So a copy of `w` elements of 2 bytes is possible from every row start of a matrix
/// when the address and the row pitch are multiples of `2 w` bytes; the width is the widest
/// such `w`. CUDA driver API, cuTensorMapEncodeTiled (CUDA 13.0): "globalAddress ... must be
/// 16 byte aligned" and "globalStrides ... must be a multiple of 16": exactly the operands with
/// 16-byte copies.
#[test]
fn copy_width_is_the_widest_copy_every_row_start_allows() {
    for elem in [Element::F16, Element::BF16] {
        for offset in (0..32u64).step_by(2) {
            for ld in [1i64, 2, 3, 4, 6, 8, 9, 12, 16, 24, 520, 521, 522, 524] {
                let m = mat(0x4000 + offset, elem, Order::RowMajor, ld, 4, 1);
                let want = [8i64, 4, 2, 1]
                    .into_iter()
                    .find(|&w| offset % (2 * w as u64) == 0 && (2 * ld) % (2 * w) == 0)
                    .unwrap();
                assert_eq!(copy_width(&m), want, "{elem} +{offset} bytes, ld {ld}");
                let tma = offset % 16 == 0 && (2 * ld) % 16 == 0;
                assert_eq!(copy_width(&m) == 8, tma, "{elem} +{offset} bytes, ld {ld}");
            }
        }
    }
}

#[test]
fn the_target_follows_the_architecture() {
    for (major, minor, want) in [
        (9, 0, Some(Arch::SM90A)),
        (8, 0, Some(sm80())),
        (8, 6, Some(sm80())),
        (8, 9, Some(Arch::SM89)),
        (7, 5, None),
    ] {
        let got = gemm_target(Arch::new(major, minor).unwrap()).ok();
        assert_eq!(got, want, "sm_{major}{minor}");
    }
}

#[test]
fn the_path_follows_the_target_and_the_alignment() {
    use Order::{ColMajor as C, RowMajor as R};
    let p = problem(1000, 3000, 520, Element::F16, R, C);
    let path = |p: &Problem, t: Arch| plan_gemm(p, t, SMS).unwrap().path();
    assert_eq!(path(&p, Arch::SM90A), GemmPath::Wgmma);
    assert_eq!(path(&p, sm80()), GemmPath::MmaSync);
    // A one element past a 16-byte boundary, B with a leading dimension of 521 (1042 bytes):
    // TMA cannot load them, the mma.sync path can.
    let shifted = Problem {
        a: MatrixDesc {
            address: p.a.address + 2,
            ..p.a
        },
        ..p
    };
    let odd = Problem {
        b: mat(0x20_0000, Element::F16, C, 521, 520, 3000),
        ..p
    };
    for (q, a_width, b_width) in [(&shifted, 1, 8), (&odd, 8, 1)] {
        let GemmCall::Sm80(call) = plan_gemm(q, Arch::SM90A, SMS).unwrap() else {
            panic!("{q:?} did not take the mma.sync path");
        };
        assert_eq!(
            (call.config.a_width, call.config.b_width),
            (a_width, b_width)
        );
    }
    // 8-bit inputs: wgmma where TMA loads them, else sm_89's mma.sync (one byte per copy of
    // A one byte past a 16-byte boundary); on sm_89 always mma.sync; on sm_80 an error.
    let fp8 = problem(1000, 3000, 512, Element::E4M3, R, C);
    assert_eq!(path(&fp8, Arch::SM90A), GemmPath::Wgmma);
    assert_eq!(path(&fp8, Arch::SM89), GemmPath::MmaSync);
    let fp8_shifted = Problem {
        a: MatrixDesc {
            address: fp8.a.address + 1,
            ..fp8.a
        },
        ..fp8
    };
    let GemmCall::Sm80(call) = plan_gemm(&fp8_shifted, Arch::SM90A, SMS).unwrap() else {
        panic!("misaligned 8-bit A did not take the mma.sync path");
    };
    assert_eq!(
        (call.config.a_width, call.config.b_width, call.config.arch()),
        (1, 16, Arch::SM89)
    );
    let e = plan_gemm(&fp8, sm80(), SMS).unwrap_err().to_string();
    assert!(e.contains("8-bit inputs need sm_89"), "{e}");
    // 8-bit operands the mma.sync GEMM cannot read: B row-major (N-major), or A and B of two
    // types; each a named error, on sm_89 and for misaligned ones on sm_90.
    let nn = problem(1000, 3000, 512, Element::E5M2, R, R);
    let nn_shifted = Problem {
        b: MatrixDesc {
            ld: nn.b.ld + 1,
            ..nn.b
        },
        ..nn
    };
    for (q, t) in [(&nn, Arch::SM89), (&nn_shifted, Arch::SM90A)] {
        let e = plan_gemm(q, t, SMS).unwrap_err().to_string();
        assert!(e.contains("K-major only"), "{e}");
    }
    let mixed = Problem {
        b: MatrixDesc {
            elem: Element::E5M2,
            ..fp8.b
        },
        ..fp8
    };
    assert_eq!(path(&mixed, Arch::SM90A), GemmPath::Wgmma);
    let e = plan_gemm(&mixed, Arch::SM89, SMS).unwrap_err().to_string();
    assert!(e.contains("A and B of one type"), "{e}");
}

#[test]
fn the_majors_follow_the_orders() {
    use Order::{ColMajor as C, RowMajor as R};
    // A (m x k) row-major is K-major; B (k x n) column-major is K-major.
    for (a, b, a_major, b_major) in [
        (R, C, Major::K, Major::K),
        (R, R, Major::K, Major::MN),
        (C, C, Major::MN, Major::K),
        (C, R, Major::MN, Major::MN),
    ] {
        let call = plan_sm80(&problem(17, 33, 9, Element::BF16, a, b)).unwrap();
        assert_eq!(
            (call.config.a_major, call.config.b_major),
            (a_major, b_major)
        );
        assert_eq!(call.config.input, Element::BF16);
    }
}

#[test]
fn the_arguments_describe_the_problem() {
    use Order::{ColMajor as C, RowMajor as R};
    let mut p = problem(1000, 3000, 520, Element::F16, R, R);
    p.d = mat(0x30_0000, Element::F16, C, 1003, 1000, 3000);
    p.c = Some(mat(0x40_0000, Element::F16, R, 3001, 1000, 3000));
    p.alpha = 0.5;
    p.beta = -1.25;
    let call = plan_sm80(&p).unwrap();
    assert!(call.config.source);
    assert_eq!(call.grid, (8, 24)); // ceil(1000 / 128), ceil(3000 / 128)
    let want = [
        Value::Pointer(0x10_0000),
        Value::Pointer(0x20_0000),
        Value::Pointer(0x40_0000),
        Value::Pointer(0x30_0000),
        Value::I64(520),
        Value::I64(3000),
        Value::I64(3001), // C row-major: (i, j) at i ld + j
        Value::I64(1),
        Value::I64(1), // D column-major: (i, j) at i + j ld
        Value::I64(1003),
        Value::I32(1000),
        Value::I32(3000),
        Value::I32(520),
        Value::F32(0.5),
        Value::F32(-1.25),
    ];
    assert_eq!(call.args, want);
}

#[test]
fn every_condition_is_named() {
    use Order::{ColMajor as C, RowMajor as R};
    let p = problem(64, 64, 64, Element::F16, R, C);
    let err = |q: &Problem| plan_sm80(q).unwrap_err().to_string();
    let mixed = Problem {
        b: MatrixDesc {
            elem: Element::BF16,
            ..p.b
        },
        ..p
    };
    assert!(err(&mixed).contains("A and B of one type"));
    assert!(err(&Problem { beta: 1.0, ..p }).contains("no C was given"));
    assert!(err(&Problem { k: 0, ..p }).contains("K = 0 is outside"));
    // A tile's last row, 2^31 - 1 + 127, would overflow the kernel's 32-bit coordinates.
    assert!(
        err(&Problem {
            m: i64::from(i32::MAX),
            ..p
        })
        .contains("below 2^31")
    );
    assert!(
        err(&Problem {
            n: 65536 * 128,
            ..p
        })
        .contains("65536 tiles")
    );
    let short = Problem {
        a: MatrixDesc { ld: 63, ..p.a },
        ..p
    };
    assert!(err(&short).contains("leading dimension 63 is below 64"));
    let odd = Problem {
        a: MatrixDesc {
            address: p.a.address + 1,
            ..p.a
        },
        ..p
    };
    assert!(err(&odd).contains("not aligned to its 2-byte elements"));
    let e4m3_out = Problem {
        d: MatrixDesc {
            elem: Element::E4M3,
            ..p.d
        },
        ..p
    };
    assert!(err(&e4m3_out).contains("writes f32, f16 or bf16"));
}

/// Every order and type pair, with 16-byte and 2-byte copies, and the 8-bit inputs (K-major)
/// at every copy width: the kernel's host proofs hold (the layer's partitions, the loads, the
/// ldmatrix hand-offs) and the names differ.
#[test]
fn every_configuration_is_proven_on_the_host() {
    let mut names = std::collections::HashSet::new();
    for input in [Element::E4M3, Element::E5M2] {
        for (a_width, b_width) in [(16, 16), (8, 4), (2, 1)] {
            let c = Sm80Config {
                input,
                output: Element::BF16,
                a_major: Major::K,
                b_major: Major::K,
                a_width,
                b_width,
                source: true,
            };
            c.kernel().unwrap_or_else(|e| panic!("{c}: {e}"));
            assert!(names.insert(c.kernel_name()), "{c}");
        }
    }
    for input in [Element::F16, Element::BF16] {
        for output in [Element::F32, Element::F16, Element::BF16] {
            for a_major in [Major::K, Major::MN] {
                for b_major in [Major::K, Major::MN] {
                    for (a_width, b_width) in [(8, 8), (1, 2), (4, 1)] {
                        let c = Sm80Config {
                            input,
                            output,
                            a_major,
                            b_major,
                            a_width,
                            b_width,
                            source: output != Element::F32,
                        };
                        c.kernel().unwrap_or_else(|e| panic!("{c}: {e}"));
                        assert!(names.insert(c.kernel_name()), "{c}");
                    }
                }
            }
        }
    }
    let bad = Sm80Config {
        input: Element::F16,
        output: Element::F32,
        a_major: Major::K,
        b_major: Major::K,
        a_width: 3,
        b_width: 8,
        source: false,
    };
    assert!(
        bad.kernel()
            .unwrap_err()
            .to_string()
            .contains("a power of two of at most 16 bytes")
    );
    let wide = Sm80Config {
        input: Element::E4M3,
        a_width: 32,
        ..bad
    };
    assert!(wide.check().unwrap_err().to_string().contains("32 bytes"));
    let n_major = Sm80Config {
        input: Element::E4M3,
        b_major: Major::MN,
        a_width: 16,
        ..bad
    };
    assert!(
        n_major
            .check()
            .unwrap_err()
            .to_string()
            .contains("K-major only")
    );
}

/// The bank model of every operand order and copy width: the copies into a stage and the
/// `ldmatrix` reads (`.trans` on the `Sw<3,3,4>` MN-major stages) take the wavefronts their
/// bytes need and no more.
#[test]
fn shared_memory_traffic_is_free_of_bank_conflicts() {
    for a_major in [Major::K, Major::MN] {
        for b_major in [Major::K, Major::MN] {
            for width in [8, 4, 2, 1] {
                let c = Sm80Config {
                    input: Element::BF16,
                    output: Element::F32,
                    a_major,
                    b_major,
                    a_width: width,
                    b_width: width,
                    source: false,
                };
                let banks = c.bank_reports().unwrap();
                assert_eq!(banks.excess(), 0, "{c}: {banks:?}");
                // 128 x 32 two-byte elements per operand: 64 wavefronts of 128 bytes, or one
                // per warp-wide 2-byte store (128). Each stage is read by the two warps whose
                // 64 x 64 tiles share its rows: 2 x 8 KiB in 128-byte wavefronts.
                let stores = if width == 1 { 128 } else { 64 };
                assert_eq!(banks.store_a.wavefronts, stores, "{c}");
                assert_eq!(banks.ldsm_b.ideal, 2 * 128 * 32 * 2 / 128, "{c}");
            }
        }
    }
    // 8-bit inputs: 128 x 64 bytes per operand and stage under Sw<2,4,3>. A warp's copies of
    // w bytes each take 32 w bytes, one wavefront up to 128 bytes: 8192 / min(128, 32 w)
    // wavefronts per stage; the ldmatrix reads move the same bytes as for 16-bit inputs.
    for width in [16, 8, 4, 2, 1] {
        let c = Sm80Config {
            input: Element::E4M3,
            output: Element::F32,
            a_major: Major::K,
            b_major: Major::K,
            a_width: width,
            b_width: width,
            source: false,
        };
        let banks = c.bank_reports().unwrap();
        assert_eq!(banks.excess(), 0, "{c}: {banks:?}");
        let stores = 8192 / (32 * width).min(128);
        assert_eq!(banks.store_a.wavefronts, stores, "{c}");
        assert_eq!(banks.store_b.wavefronts, stores, "{c}");
        assert_eq!(banks.ldsm_a.ideal, 2 * 128 * 64 / 128, "{c}");
        assert_eq!(banks.ldsm_b.ideal, 2 * 128 * 64 / 128, "{c}");
    }
}
