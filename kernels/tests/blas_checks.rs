//! The library GEMM's host side (no GPU): every check of a call names its condition, the
//! operands' majors and tensor-map matrices follow their orders (a column-major D computes the
//! transposed problem), the epilogue and the tile follow the problem, the run-time arguments
//! describe it, and every configuration's plan is proven.

use tessel_kernels::Element;
use tessel_kernels::blas::{MatrixDesc, Order, Problem, choose_tile, plan_sm90, tiles_of};
use tessel_kernels::element::DeviceElement;
use tessel_kernels::hopper::{Epilogue, Sm90Config, Sm90Plan, Sm90Tile};
use tessel_kernels::hopper::{FP8_INPUTS, INPUTS, OUTPUTS};
use tessel_kernels::tma::TmaMatrix;
use tessel_layout::gmma::Major;

const SMS: i64 = 132;

/// A dense matrix (leading dimension its contiguous extent) at `address`, its buffer exactly
/// as large as it needs.
fn dense(address: u64, elem: Element, order: Order, rows: i64, cols: i64) -> MatrixDesc {
    let ld = if order == Order::RowMajor { cols } else { rows };
    MatrixDesc {
        address,
        bytes: (rows * cols * elem.bytes()) as usize,
        elem,
        order,
        ld,
    }
}

fn problem(m: i64, n: i64, k: i64, a: Order, b: Order, d: Order) -> Problem {
    Problem {
        m,
        n,
        k,
        a: dense(0x10_0000, Element::F16, a, m, k),
        b: dense(0x20_0000, Element::F16, b, k, n),
        c: None,
        d: dense(0x30_0000, Element::F32, d, m, n),
        alpha: 1.0,
        beta: 0.0,
    }
}

fn err(p: &Problem) -> String {
    plan_sm90(p, SMS).unwrap_err().to_string()
}

#[test]
fn majors_and_tensor_map_matrices_follow_the_orders() {
    use Order::{ColMajor as C, RowMajor as R};
    let (m, n, k) = (1000, 3000, 520);
    // A m x k row-major: K-major, the map's rows are the m rows of k; column-major: M-major,
    // k rows of m. B k x n row-major: N-major, k rows of n; column-major: K-major, n rows of k.
    let a_of = |o| match o {
        R => (Major::K, m, k),
        C => (Major::MN, k, m),
    };
    let b_of = |o| match o {
        R => (Major::MN, k, n),
        C => (Major::K, n, k),
    };
    for a in [R, C] {
        for b in [R, C] {
            let call = plan_sm90(&problem(m, n, k, a, b, R), SMS).unwrap();
            assert!(!call.transposed);
            for (got, want, ld) in [
                (call.a, a_of(a), if a == R { k } else { m }),
                (call.b, b_of(b), if b == R { n } else { k }),
            ] {
                assert_eq!(got.major, want.0);
                assert_eq!(
                    got.matrix,
                    TmaMatrix {
                        rows: want.1,
                        cols: want.2,
                        ld,
                        elem: Element::F16
                    }
                );
            }
            assert_eq!(
                (call.config.a_major, call.config.b_major),
                (a_of(a).0, b_of(b).0)
            );
            assert_eq!((call.args.m, call.args.n), (m as i32, n as i32));
        }
    }
}

#[test]
fn a_column_major_d_is_the_transposed_problem() {
    // D column-major (m x n, ld m) is the row-major n x m D^T = B^T A^T: the first operand is
    // B (its map unchanged), the second A; the kernel's extents swap.
    let (m, n, k) = (1000, 3000, 520);
    let p = problem(m, n, k, Order::RowMajor, Order::ColMajor, Order::ColMajor);
    let call = plan_sm90(&p, SMS).unwrap();
    assert!(call.transposed);
    assert_eq!(
        (call.args.m, call.args.n, call.args.ldd),
        (n as i32, m as i32, m)
    );
    assert_eq!((call.a.address, call.b.address), (p.b.address, p.a.address));
    // B column-major k x n: K-major (n rows of k); A row-major: K-major (m rows of k).
    assert_eq!((call.a.major, call.b.major), (Major::K, Major::K));
    assert_eq!((call.a.matrix.rows, call.a.matrix.cols), (n, k));
    assert_eq!((call.b.matrix.rows, call.b.matrix.cols), (m, k));
    assert_eq!(
        call.d_store.unwrap().0,
        TmaMatrix {
            rows: n,
            cols: m,
            ld: m,
            elem: Element::F32
        }
    );
}

#[test]
fn run_time_arguments_describe_the_problem() {
    let p = problem(
        1000,
        3000,
        520,
        Order::RowMajor,
        Order::RowMajor,
        Order::RowMajor,
    );
    let call = plan_sm90(&p, SMS).unwrap();
    // 1000 x 3000 has 8 x 12 = 96 tiles of 128 x 256 and 8 x 16 = 128 of 128 x 192: one wave
    // of either, the narrower one's the fuller.
    assert_eq!(call.config.tile, Sm90Tile::T128x192);
    assert_eq!((call.args.tiles_m, call.args.tiles_n), (8, 16));
    assert_eq!(call.args.k_tiles, 9); // ceil(520 / 64)
    assert_eq!(call.grid, 128);
    assert_eq!(call.args.splits, 1);
    assert_eq!(
        (call.args.d, call.args.ldd, call.args.d_pair),
        (p.d.address, 3000, 1)
    );
    // A problem with fewer tiles than SMs launches one block per tile.
    let small = plan_sm90(
        &problem(
            100,
            200,
            8,
            Order::RowMajor,
            Order::RowMajor,
            Order::RowMajor,
        ),
        SMS,
    )
    .unwrap();
    assert_eq!(small.grid, 2); // 1 x 2 tiles of 128 x 128
}

#[test]
fn few_tiles_and_long_k_split_k_into_a_workspace() {
    use Order::{ColMajor as C, RowMajor as R};
    use tessel_kernels::blas::split::{arrivals, partials_bytes, uses_workspace, with_workspace};
    // 100 x 4096 x 4096: 16 tiles of 128 x 256, 32 of 128 x 128 and 64 of 128 x 64, none
    // more than half of 132 SMs: 32 of 128 x 128; 64 k-tiles: four splits of 16 fill 128 SMs.
    let p = problem(100, 4096, 4096, R, C, R);
    let call = plan_sm90(&p, SMS).unwrap();
    assert!(!call.swapped);
    assert_eq!(call.config.tile, Sm90Tile::T128x128);
    assert_eq!(call.args.splits, 4);
    assert_eq!(call.grid, 128);
    // A 128 x 128 fp32 slab per unit (32 tiles x 4 splits), a counter per consumer half of
    // each tile.
    assert!(uses_workspace(&call));
    assert_eq!(partials_bytes(&call), 128 * 128 * 128 * 4);
    assert_eq!(arrivals(&call), 32 * 2);
    // The launch is the call's own (D, its store, C, alpha and beta: the unit that completes
    // a tile runs the epilogue) with the workspace's addresses; the plan leaves them 0.
    assert_eq!((call.args.partials, call.args.arrivals), (0, 0));
    let w = with_workspace(&call, 0x4000_0000, 0x5000_0000);
    assert_eq!(
        (w.args.partials, w.args.arrivals),
        (0x4000_0000, 0x5000_0000)
    );
    assert_eq!(
        (w.config, w.d_store, w.a, w.b, w.grid),
        (call.config, call.d_store, call.a, call.b, call.grid)
    );
    assert_eq!(
        (
            w.args.d,
            w.args.ldd,
            w.args.alpha,
            w.args.beta,
            w.args.splits
        ),
        (p.d.address, 4096, call.args.alpha, call.args.beta, 4)
    );
    // Whole tiles (M a multiple of 128, n a multiple of 4): the last unit stores D by TMA.
    let whole = plan_sm90(&problem(128, 4096, 8192, R, C, R), SMS).unwrap();
    assert_eq!((whole.args.splits, whole.grid), (4, 128)); // 4 x 32 tiles
    assert_eq!(whole.config.epilogue, Epilogue::TmaStore);
    assert_eq!(whole.d_store.unwrap().0.rows, 128);
    // 512 x 512 x 2048: 16 tiles of 128 x 128 and 32 k-tiles would take eight splits, but
    // their partial sums (8 x 512 x 512 x 4 bytes, written and read: 16.8 MB) would be eight
    // times A and B (2 x 1024 x 2048 bytes, half of it 2.1 MB): no split.
    let short = plan_sm90(&problem(512, 512, 2048, R, C, R), SMS).unwrap();
    assert_eq!(
        (short.config.tile, short.args.splits),
        (Sm90Tile::T128x128, 1)
    );
    // Enough tiles, or too little K: no split, no workspace.
    for (m, n, k) in [(4096, 4096, 4096), (128, 4096, 192), (1000, 3000, 520)] {
        let c = plan_sm90(&problem(m, n, k, R, C, R), SMS).unwrap();
        assert_eq!(c.args.splits, 1, "{m}x{n}x{k}");
        assert!(!uses_workspace(&c));
        assert_eq!((partials_bytes(&c), arrivals(&c)), (0, 0));
    }
}

#[test]
fn few_rows_compute_the_transpose_and_store_it() {
    use Order::{ColMajor as C, RowMajor as R};
    use tessel_kernels::blas::NARROW_ROWS;
    use tessel_kernels::blas::split::{arrivals, partials_bytes, uses_workspace};
    // 16 x 4096 x 4096, D row-major: the kernel computes D^T (4096 x 16) with the 128 x 32
    // tile, its first operand B^T (4096 rows of K) and its second A (16 rows of K); 32 tiles,
    // four splits of 16 k-tiles.
    let p = problem(16, 4096, 4096, R, C, R);
    let call = plan_sm90(&p, SMS).unwrap();
    assert!(call.swapped && !call.transposed);
    assert_eq!(call.config.tile, Sm90Tile::T128x32);
    assert_eq!((call.args.m, call.args.n), (4096, 16));
    assert_eq!((call.a.address, call.b.address), (p.b.address, p.a.address));
    assert_eq!((call.a.matrix.rows, call.b.matrix.rows), (4096, 16));
    assert_eq!((call.a.major, call.b.major), (Major::K, Major::K));
    assert_eq!((call.args.splits, call.grid), (4, 128));
    // 128 units of 128 x 32 fp32 partial sums; the unit completing a tile stores its
    // transpose into D: D's element (r, c), the kernel's (c, r), at c ldd + r d_col =
    // r 4096 + c; two adjacent kernel columns are never one vector.
    assert!(uses_workspace(&call));
    assert_eq!(
        (partials_bytes(&call), arrivals(&call)),
        (128 * 128 * 32 * 4, 64)
    );
    assert_eq!(
        (call.args.ldd, call.args.d_col, call.args.d_pair),
        (1, 4096, 0)
    );
    assert_eq!(
        (call.config.epilogue, call.config.output, call.d_store),
        (Epilogue::Direct, Element::F32, None)
    );
    // Unsplit (1 x 14336 has 112 tiles): no workspace, the same transposed store.
    let wide = plan_sm90(&problem(1, 14336, 4096, R, C, R), SMS).unwrap();
    assert!(wide.swapped && !uses_workspace(&wide));
    assert_eq!((wide.args.splits, wide.grid), (1, 112));
    assert_eq!(
        (wide.args.ldd, wide.args.d_col, wide.args.d_pair),
        (1, 14336, 0)
    );
    assert_eq!(partials_bytes(&wide), 0);
    // A 16-bit D takes the same 32-column tile (its epilogue chunk is the tile's 64 bytes)
    // and stores D itself; with 33 rows the 64-column tile.
    let mut half = problem(1, 14336, 4096, R, C, R);
    half.d.elem = Element::BF16;
    let half = plan_sm90(&half, SMS).unwrap();
    assert_eq!(half.config.tile, Sm90Tile::T128x32);
    assert!(half.swapped && !uses_workspace(&half));
    assert_eq!((half.args.ldd, half.args.d_col), (1, 14336));
    let mut rows33 = problem(33, 14336, 4096, R, C, R);
    rows33.d.elem = Element::BF16;
    let rows33 = plan_sm90(&rows33, SMS).unwrap();
    assert_eq!(rows33.config.tile, Sm90Tile::T128x64);
    assert!(rows33.swapped && !uses_workspace(&rows33));
    assert_eq!((rows33.args.ldd, rows33.args.d_col), (1, 14336));
    // A column-major D: the transposed problem has D^T's rows (4096) and is not swapped; with
    // N <= 64 it is (the kernel then computes D itself, row-major, and stores it
    // column-major: ldd 1, d_col D's leading dimension).
    let t = plan_sm90(&problem(16, 4096, 4096, R, C, C), SMS).unwrap();
    assert!(t.transposed && !t.swapped);
    let both = plan_sm90(&problem(4096, 16, 4096, R, C, C), SMS).unwrap();
    assert!(both.transposed && both.swapped);
    assert_eq!((both.args.m, both.args.n, both.args.splits), (4096, 16, 4));
    assert_eq!((both.args.ldd, both.args.d_col), (1, 4096));
    // Past NARROW_ROWS rows, or with as few columns: not swapped.
    assert!(
        plan_sm90(&problem(NARROW_ROWS, 4096, 4096, R, C, R), SMS)
            .unwrap()
            .swapped
    );
    for (m, n) in [(NARROW_ROWS + 1, 4096), (128, 4096), (16, 32)] {
        assert!(
            !plan_sm90(&problem(m, n, 4096, R, C, R), SMS)
                .unwrap()
                .swapped,
            "{m}x{n}"
        );
    }
}

#[test]
fn the_tile_follows_the_count_of_tiles() {
    // Tiles counted by hand, on 132 SMs (half a wave: 66).
    // 4096^2: 32 x 16 = 512 large tiles (0.97 of four waves; 1024 small ones 0.97 of eight).
    assert_eq!(tiles_of(4096, 4096, Sm90Tile::T128x256), 512);
    assert_eq!(choose_tile(4096, 4096, SMS), Sm90Tile::T128x256);
    assert_eq!(choose_tile(2048, 2048, SMS), Sm90Tile::T128x256); // 16 x 8 = 128: one wave
    // 1024 x 14336: 8 x 56 = 448 large tiles fill 448 / 528 = 0.85 of four waves, 896 small
    // ones 896 / 924 = 0.97 of seven; 0.85 < 0.9 x 0.97.
    assert_eq!(choose_tile(1024, 14336, SMS), Sm90Tile::T128x128);
    // 640 x 2048: 5 x 8 = 40 large tiles, 5 x 16 = 80 small ones (more than 66).
    assert_eq!(choose_tile(640, 2048, SMS), Sm90Tile::T128x128);
    // 512 x 2048: 32 large, 64 small, 4 x 32 = 128 narrow tiles.
    assert_eq!(choose_tile(512, 2048, SMS), Sm90Tile::T128x64);
    // 128 x 4096: 16, 32 and 64 tiles, none more than 66: the small tile (and split-K).
    assert_eq!(choose_tile(128, 4096, SMS), Sm90Tile::T128x128);
    // 64 columns: never the large tile.
    assert_eq!(choose_tile(1 << 20, 64, SMS), Sm90Tile::T128x128);
    // Every choice leaves no SM idle that a wider tile would not also leave idle: the chosen
    // tile has more than half a wave of tiles, or none has.
    for m in (1..=4096).step_by(97) {
        for n in (1..=16384).step_by(331) {
            let tile = choose_tile(m, n, SMS);
            let half = |t| 2 * tiles_of(m, n, t) > SMS;
            // The 32-column tile is the transposed calls' only (blas::plan_sm90).
            let by_count = Sm90Tile::ALL.iter().filter(|&&t| t != Sm90Tile::T128x32);
            assert!(
                half(tile) || !by_count.clone().any(|&t| half(t)),
                "{m}x{n}: {tile}"
            );
            assert!(n > 128 || tile != Sm90Tile::T128x256, "{m}x{n}");
        }
    }
}

#[test]
fn the_epilogue_is_tma_where_tma_can_store_d() {
    let base = problem(
        1000,
        3000,
        520,
        Order::RowMajor,
        Order::RowMajor,
        Order::RowMajor,
    );
    assert_eq!(
        plan_sm90(&base, SMS).unwrap().config.epilogue,
        Epilogue::TmaStore
    );
    // 3001 f32 columns (12004-byte rows), or D 4 bytes past a 16-byte boundary: direct
    // stores, and no pairs where two adjacent columns are not one aligned 8-byte vector.
    let ragged = Problem {
        n: 3001,
        b: dense(0x20_0000, Element::F16, Order::RowMajor, 520, 3008),
        d: MatrixDesc {
            ld: 3001,
            bytes: 1000 * 3001 * 4,
            ..base.d
        },
        ..base
    };
    let call = plan_sm90(&ragged, SMS).unwrap();
    assert_eq!(
        (call.config.epilogue, call.d_store, call.args.d_pair),
        (Epilogue::Direct, None, 0)
    );
    let shifted = Problem {
        d: MatrixDesc {
            address: base.d.address + 4,
            ..base.d
        },
        ..base
    };
    let call = plan_sm90(&shifted, SMS).unwrap();
    assert_eq!(
        (call.config.epilogue, call.args.d_pair),
        (Epilogue::Direct, 0)
    );
}

#[test]
fn beta_reads_c_of_ds_type_and_order() {
    let base = problem(
        256,
        512,
        64,
        Order::RowMajor,
        Order::ColMajor,
        Order::RowMajor,
    );
    let c = dense(0x40_0000, Element::F32, Order::RowMajor, 256, 512);
    let with_c = Problem {
        c: Some(c),
        beta: 0.5,
        ..base
    };
    let call = plan_sm90(&with_c, SMS).unwrap();
    assert!(call.config.source);
    assert_eq!(
        (call.args.c, call.args.ldc, call.args.beta, call.args.c_pair),
        (c.address, 512, 0.5, 1)
    );
    // beta = 0: C is not read (and may be absent).
    assert!(!plan_sm90(&base, SMS).unwrap().config.source);
    let e = err(&Problem { beta: 1.0, ..base });
    assert!(e.contains("beta = 1 but no C was given"), "{e}");
    let e = err(&Problem {
        c: Some(MatrixDesc {
            elem: Element::F16,
            ..c
        }),
        ..with_c
    });
    assert!(e.contains("C must have D's type and order"), "{e}");
    let e = err(&Problem {
        c: Some(MatrixDesc {
            order: Order::ColMajor,
            ld: 256,
            ..c
        }),
        ..with_c
    });
    assert!(e.contains("C must have D's type and order"), "{e}");
    let e = err(&Problem {
        c: Some(MatrixDesc {
            bytes: c.bytes - 4,
            ..c
        }),
        ..with_c
    });
    assert!(e.contains("C: the buffer holds"), "{e}");
}

#[test]
fn every_bad_input_is_an_error_naming_its_condition() {
    let p = problem(
        256,
        512,
        64,
        Order::RowMajor,
        Order::RowMajor,
        Order::RowMajor,
    );
    let cases: Vec<(Problem, &str)> = vec![
        (Problem { m: 0, ..p }, "M = 0 is outside 1..2^31"),
        (
            Problem { k: 1 << 31, ..p },
            "K = 2147483648 is outside 1..2^31",
        ),
        (
            Problem {
                b: MatrixDesc {
                    elem: Element::BF16,
                    ..p.b
                },
                ..p
            },
            "A is f16 but B is bf16",
        ),
        (
            Problem {
                b: MatrixDesc {
                    elem: Element::E5M2,
                    ..p.b
                },
                ..p
            },
            "A is f16 but B is e5m2: an 8-bit operand needs an 8-bit other operand",
        ),
        (
            Problem {
                a: MatrixDesc {
                    elem: Element::E4M3,
                    ..p.a
                },
                b: MatrixDesc {
                    elem: Element::E4M3,
                    ..p.b
                },
                ..p
            },
            "8-bit inputs need K-major operands, A row-major and B column-major",
        ),
        (
            Problem {
                a: MatrixDesc {
                    elem: Element::F32,
                    ..p.a
                },
                b: MatrixDesc {
                    elem: Element::F32,
                    ..p.b
                },
                ..p
            },
            "the Hopper GEMM takes f16, bf16, e4m3 or e5m2 inputs",
        ),
        (
            Problem {
                d: MatrixDesc {
                    elem: Element::E5M2,
                    ..p.d
                },
                ..p
            },
            "D of type e5m2: the Hopper GEMM writes f32, f16 or bf16",
        ),
        // Leading dimension below the contiguous extent.
        (
            Problem {
                a: MatrixDesc { ld: 63, ..p.a },
                ..p
            },
            "A: the leading dimension 63 is below 64, the contiguous extent of a row-major 256 x 64",
        ),
        (
            Problem {
                d: MatrixDesc { ld: 500, ..p.d },
                ..p
            },
            "D: the leading dimension 500 is below 512",
        ),
        // Buffers too small (a leading dimension above the extent needs more).
        (
            Problem {
                a: MatrixDesc {
                    bytes: p.a.bytes - 2,
                    ..p.a
                },
                ..p
            },
            "A: the buffer holds 32766 bytes, the row-major 256 x 64 f16 matrix with leading dimension 64 needs 32768",
        ),
        (
            Problem {
                b: MatrixDesc { ld: 520, ..p.b },
                ..p
            },
            "B: the buffer holds 65536 bytes",
        ),
        (
            Problem {
                d: MatrixDesc { bytes: 16, ..p.d },
                ..p
            },
            "D: the buffer holds 16 bytes",
        ),
        // Alignment.
        (
            Problem {
                d: MatrixDesc {
                    address: p.d.address + 2,
                    ..p.d
                },
                ..p
            },
            "D: the address 0x300002 is not aligned to its 4-byte elements",
        ),
        (
            Problem {
                a: MatrixDesc {
                    address: p.a.address + 8,
                    bytes: p.a.bytes,
                    ..p.a
                },
                ..p
            },
            "A: the address 0x100008 is not 16-byte aligned (TMA needs 16-byte aligned base addresses)",
        ),
        (
            Problem {
                a: MatrixDesc {
                    ld: 68,
                    bytes: 1 << 20,
                    ..p.a
                },
                ..p
            },
            "A: the leading dimension 68 (136 bytes) is not a multiple of 16 bytes below 2^40 (TMA needs 16-byte row pitches: for f16 a leading dimension that is a multiple of 8)",
        ),
        (
            Problem {
                b: MatrixDesc {
                    ld: 513,
                    bytes: 1 << 20,
                    ..p.b
                },
                ..p
            },
            "B: the leading dimension 513 (1026 bytes) is not a multiple of 16 bytes",
        ),
        // Overflow of the span.
        (
            Problem {
                a: MatrixDesc {
                    ld: i64::MAX / 2,
                    ..p.a
                },
                ..p
            },
            "overflows i64",
        ),
    ];
    for (bad, want) in cases {
        let e = err(&bad);
        assert!(e.contains(want), "expected {want:?}, got {e:?}");
    }
}

#[test]
fn a_leading_dimension_above_the_extent_is_taken() {
    // Sub-matrices: A a 256 x 64 block of a 256 x 1024 matrix, B a block with ld 4096.
    let p = problem(
        256,
        512,
        64,
        Order::RowMajor,
        Order::RowMajor,
        Order::RowMajor,
    );
    let sub = Problem {
        a: MatrixDesc {
            ld: 1024,
            bytes: 256 * 1024 * 2,
            ..p.a
        },
        b: MatrixDesc {
            ld: 4096,
            bytes: 64 * 4096 * 2,
            ..p.b
        },
        ..p
    };
    let call = plan_sm90(&sub, SMS).unwrap();
    assert_eq!((call.a.matrix.ld, call.b.matrix.ld), (1024, 4096));
    // The buffer of B must reach (k - 1) ld + n elements.
    let short = Problem {
        b: MatrixDesc {
            bytes: (63 * 4096 + 511) * 2,
            ..sub.b
        },
        ..sub
    };
    assert!(err(&short).contains("needs 517120"), "{}", err(&short));
}

/// Every configuration's plan is proven (boxes, descriptors, epilogue) and its kernel source
/// is the same for every shape (the configuration alone decides it).
/// 8-bit inputs (any mix of e4m3 and e5m2): TN only, the 128 x 128 tile whatever the shape
/// (the promotion's second fragment), k-tiles of 128, A's and B's formats swapped with the
/// operands when D is column-major, the scale `alpha` as given; TMA needs leading dimensions
/// of 16 bytes, 16 elements.
#[test]
fn fp8_calls_are_tn_with_the_small_tile_and_k_tiles_of_128() {
    use Order::{ColMajor as C, RowMajor as R};
    let (m, n, k) = (4096, 4096, 1008);
    let fp8 = [Element::E4M3, Element::E5M2];
    for ea in fp8 {
        for eb in fp8 {
            for d in [R, C] {
                let p = Problem {
                    a: dense(0x10_0000, ea, R, m, k),
                    b: dense(0x20_0000, eb, C, k, n),
                    alpha: 0.5,
                    ..problem(m, n, k, R, C, d)
                };
                let call = plan_sm90(&p, SMS).unwrap();
                let want = if d == C { (eb, ea) } else { (ea, eb) };
                assert_eq!((call.config.input, call.config.input_b), want);
                assert_eq!(call.transposed, d == C);
                assert_eq!(call.config.tile, Sm90Tile::T128x128);
                assert_eq!(
                    (call.config.a_major, call.config.b_major),
                    (Major::K, Major::K)
                );
                assert_eq!(call.args.k_tiles, 8); // ceil(1008 / 128)
                assert_eq!(call.args.alpha, 0.5);
                assert_eq!(call.a.matrix.elem, if d == C { eb } else { ea });
                for (a, b) in [(R, R), (C, C), (C, R)] {
                    let bad = Problem {
                        a: dense(0x10_0000, ea, a, m, k),
                        b: dense(0x20_0000, eb, b, k, n),
                        ..p
                    };
                    assert!(err(&bad).contains("8-bit inputs need K-major operands"));
                }
                let ld = Problem {
                    a: MatrixDesc {
                        ld: 1024,
                        bytes: 2 * p.a.bytes,
                        ..p.a
                    },
                    ..p
                };
                assert!(plan_sm90(&ld, SMS).is_ok());
                let ld = Problem {
                    a: MatrixDesc {
                        ld: 1012,
                        bytes: 2 * p.a.bytes,
                        ..p.a
                    },
                    ..p
                };
                assert!(err(&ld).contains("a multiple of 16"), "{}", err(&ld));
            }
        }
    }
}

#[test]
fn every_fp8_configuration_is_proven() {
    for (a, b) in FP8_INPUTS
        .iter()
        .flat_map(|&a| FP8_INPUTS.iter().map(move |&b| (a, b)))
    {
        for output in OUTPUTS {
            for epilogue in [Epilogue::TmaStore, Epilogue::Direct] {
                for source in [false, true] {
                    let config = Sm90Config {
                        tile: Sm90Tile::T128x128,
                        epilogue,
                        source,
                        ..Sm90Config::tn_pair(a, b, output)
                    };
                    let plan = Sm90Plan::for_config(config)
                        .unwrap_or_else(|e| panic!("{}: {e}", config.kernel_name()));
                    assert_eq!(plan.kernel().unwrap().name(), config.kernel_name());
                    assert!(plan.smem_bytes() <= 227 * 1024);
                    // One 128-byte swizzled row of K per stage row; a k-block of 32 bytes.
                    assert_eq!(plan.bk(), 128);
                    assert_eq!(plan.a_tma.box_dims(), [128, 128]);
                    let d = plan.desc_b();
                    assert_eq!(d.len(), 4);
                    assert_eq!(d[1].start_address - d[0].start_address, 32);
                }
            }
            // MN-major 8-bit operands are a named error.
            let mn = Sm90Config {
                a_major: Major::MN,
                tile: Sm90Tile::T128x128,
                ..Sm90Config::tn_pair(a, b, output)
            };
            let e = Sm90Plan::for_config(mn).unwrap_err().to_string();
            assert!(e.contains("8-bit inputs need K-major A and B"), "{e}");
        }
    }
}

#[test]
fn every_configuration_is_proven() {
    for input in INPUTS {
        for output in OUTPUTS {
            for a_major in [Major::K, Major::MN] {
                for b_major in [Major::K, Major::MN] {
                    for tile in Sm90Tile::ALL {
                        // The epilogue changes only D's store: both for one pair of majors.
                        let epilogues: &[Epilogue] = if a_major == b_major {
                            &[Epilogue::TmaStore, Epilogue::Direct]
                        } else {
                            &[Epilogue::TmaStore]
                        };
                        for &epilogue in epilogues {
                            let config = Sm90Config {
                                input,
                                input_b: input,
                                output,
                                a_major,
                                b_major,
                                tile,
                                epilogue,
                                source: a_major == b_major,
                            };
                            // The 32-column tile's B stage is whole 128-byte K rows: an
                            // MN-major B (64-element swizzle rows) is refused. Its epilogue
                            // chunk is the tile (64 bytes of a 16-bit output, 64B swizzle).
                            if tile == Sm90Tile::T128x32 && b_major == Major::MN {
                                let e = Sm90Plan::for_config(config).unwrap_err().to_string();
                                assert!(!e.is_empty(), "{}", config.kernel_name());
                                continue;
                            }
                            let plan = Sm90Plan::for_config(config)
                                .unwrap_or_else(|e| panic!("{}: {e}", config.kernel_name()));
                            let kernel = plan.kernel().unwrap();
                            assert_eq!(kernel.name(), config.kernel_name());
                            assert!(plan.smem_bytes() <= 227 * 1024, "{}", kernel.name());
                        }
                    }
                }
            }
        }
    }
}

/// The verification bound holds for any K: an fp32 accumulation (blocks of 16 products summed,
/// then added in order, as wgmma's k-steps) of random products passes at K = 65536, and a wrong
/// product (the rows of A taken in another order, or one product of each sum left out) fails.
#[test]
fn the_bound_accepts_fp32_rounding_and_rejects_wrong_products() {
    use tessel_kernels::blas::{HostGemm, HostMatrix, verify_gemm};
    use tessel_kernels::gemm::host::random_f16;
    let (m, n, k) = (4usize, 3usize, 65536usize);
    let val = |v: Vec<half::f16>| {
        v.into_iter()
            .map(|h| f64::from(h.to_f32()))
            .collect::<Vec<_>>()
    };
    let a = val(random_f16(m * k, 5)); // row-major m x k
    let b = val(random_f16(k * n, 6)); // column-major k x n
    let am = HostMatrix {
        values: &a,
        order: Order::RowMajor,
        ld: k as i64,
    };
    let bm = HostMatrix {
        values: &b,
        order: Order::ColMajor,
        ld: k as i64,
    };
    let g = HostGemm {
        m,
        n,
        k,
        a: am,
        b: bm,
        c: None,
        alpha: 1.0,
        beta: 0.0,
        fp8: false,
    };
    let fp32 = |row: usize, skip: Option<usize>| -> Vec<f64> {
        (0..n)
            .map(|j| {
                let mut acc = 0.0f32;
                for p0 in (0..k).step_by(16) {
                    let mut block = 0.0f32;
                    for p in p0..p0 + 16 {
                        if Some(p) != skip {
                            block += (am.at(row, p) * bm.at(p, j)) as f32;
                        }
                    }
                    acc += block;
                }
                f64::from(acc)
            })
            .collect()
    };
    let rows: Vec<usize> = (0..m).collect();
    let d = |f: &dyn Fn(usize) -> Vec<f64>| (0..m).flat_map(f).collect::<Vec<f64>>();
    let good = d(&|i| fp32(i, None));
    let dm = |v| HostMatrix {
        values: v,
        order: Order::RowMajor,
        ld: n as i64,
    };
    assert_eq!(verify_gemm(&g, dm(&good), Element::F32, &rows).bad, 0);
    // The same values rounded to bf16 pass as a bf16 output.
    let bf: Vec<f64> = good
        .iter()
        .map(|&x| Element::BF16.decode(Element::BF16.encode(x)))
        .collect();
    assert_eq!(verify_gemm(&g, dm(&bf), Element::BF16, &rows).bad, 0);
    let swapped = d(&|i| fp32((i + 1) % m, None));
    assert_eq!(
        verify_gemm(&g, dm(&swapped), Element::F32, &rows).bad,
        m * n
    );
    // One product of magnitude 1 left out of each sum is found at K = 1024 (at K = 65536 the
    // sum of |a b| is ~16384 and its fp32 bound exceeds one product).
    let k1 = 1024;
    let mut a1: Vec<f64> = (0..m).flat_map(|i| a[i * k..i * k + k1].to_vec()).collect();
    let mut b1: Vec<f64> = (0..n).flat_map(|j| b[j * k..j * k + k1].to_vec()).collect();
    for i in 0..m {
        a1[i * k1] = 1.0;
    }
    for j in 0..n {
        b1[j * k1] = 1.0;
    }
    let g1 = HostGemm {
        k: k1,
        a: HostMatrix {
            values: &a1,
            order: Order::RowMajor,
            ld: k1 as i64,
        },
        b: HostMatrix {
            values: &b1,
            order: Order::ColMajor,
            ld: k1 as i64,
        },
        ..g
    };
    let sum = |row: usize, skip: Option<usize>| -> Vec<f64> {
        (0..n)
            .map(|j| {
                let mut acc = 0.0f32;
                for p in (0..k1).filter(|&p| Some(p) != skip) {
                    acc += (a1[row * k1 + p] * b1[j * k1 + p]) as f32;
                }
                f64::from(acc)
            })
            .collect()
    };
    let full = d(&|i| sum(i, None));
    assert_eq!(verify_gemm(&g1, dm(&full), Element::F32, &rows).bad, 0);
    let missing = d(&|i| sum(i, Some(0)));
    assert_eq!(
        verify_gemm(&g1, dm(&missing), Element::F32, &rows).bad,
        m * n
    );
}

/// Keeps the 14 most significant bits of `x` (truncation toward zero): the FP8 accumulator
/// precision the DeepSeek-V3 report measured ("around 14 bits", arXiv:2412.19437, 3.3.2).
fn keep_14_bits(x: f64) -> f64 {
    if x == 0.0 {
        return 0.0;
    }
    let e = x.abs().log2().floor() as i32;
    let q = 2f64.powi(e - 13);
    (x / q).trunc() * q
}

/// The 8-bit bound ([`tessel_kernels::blas::FP8_ACCUMULATION`]) holds for a model of the
/// kernel's accumulation at K = 65536: e4m3 x e5m2 products summed 32 at a time (one k32
/// wgmma) into an accumulator kept to 14 bits, each k-tile of 128 promoted into an fp32 total;
/// a wrong product (the rows taken in another order) still fails.
#[test]
fn the_fp8_bound_accepts_the_promoted_accumulation() {
    use tessel_kernels::blas::{HostGemm, HostMatrix, verify_gemm};
    use tessel_kernels::gemm::host::random_f16;
    let (m, n, k) = (4usize, 16usize, 65536usize);
    let val = |v: Vec<half::f16>, e: Element| {
        v.into_iter()
            .map(|h| e.decode(e.encode(f64::from(h.to_f32()))))
            .collect::<Vec<_>>()
    };
    let a = val(random_f16(m * k, 7), Element::E4M3); // row-major m x k
    let b = val(random_f16(k * n, 8), Element::E5M2); // column-major k x n
    let model = |i: usize, j: usize| -> f64 {
        let mut total = 0.0f32;
        for t in (0..k).step_by(128) {
            let mut acc = 0.0f64;
            for s in (t..t + 128).step_by(32) {
                let step: f64 = (s..s + 32).map(|p| a[i * k + p] * b[j * k + p]).sum();
                acc = keep_14_bits(acc + step);
            }
            total += acc as f32;
        }
        f64::from(total)
    };
    let got: Vec<f64> = (0..m)
        .flat_map(|i| (0..n).map(move |j| (i, j)))
        .map(|(i, j)| model(i, j))
        .collect();
    let g = HostGemm {
        m,
        n,
        k,
        a: HostMatrix {
            values: &a,
            order: Order::RowMajor,
            ld: k as i64,
        },
        b: HostMatrix {
            values: &b,
            order: Order::ColMajor,
            ld: k as i64,
        },
        c: None,
        alpha: 1.0,
        beta: 0.0,
        fp8: true,
    };
    let d = |v| HostMatrix {
        values: v,
        order: Order::RowMajor,
        ld: n as i64,
    };
    let rows: Vec<usize> = (0..m).collect();
    assert_eq!(verify_gemm(&g, d(&got), Element::F32, &rows).bad, 0);
    let shifted: Vec<f64> = (0..m * n).map(|e| got[(e + n) % (m * n)]).collect();
    // At K = 65536 the bound is about 2^-11 S ~ 8 against sums spread over ~85: most, not all,
    // of the wrong elements are found.
    let bad = verify_gemm(&g, d(&shifted), Element::F32, &rows).bad;
    assert!(bad >= m * n * 9 / 10, "{bad} of {}", m * n);
}
