//! The atom catalog against CuTe's traits headers and the PTX ISA fragment descriptions.
//!
//! Golden layouts: CuTe `include/cute/atom/mma_traits_sm80.hpp`,
//! `include/cute/atom/mma_traits_sm90_gmma.hpp`, `include/cute/atom/copy_traits_sm75.hpp`,
//! `include/cute/atom/copy_traits_sm80.hpp`, `include/cute/atom/copy_traits_sm90.hpp`,
//! `include/cute/atom/copy_traits.hpp`. Fragment formulas: PTX ISA, "Matrix Fragments for
//! mma.m16n8k16 with floating point type", "Matrix Fragments for mma.m16n8k8" (f16/bf16),
//! "Register Fragments and Shared Memory Matrix Layouts" of `wgmma` (m64nNk16), and the
//! `ldmatrix` / `stmatrix` instruction descriptions.

use tessel_layout::Layout;
use tessel_layout::atom::{
    Constraint, Direction, OperandSource, SmemAccess, ValueType, copy_atom, copy_atom_names,
    mma_atom, mma_atom_names,
};

/// `layout(t, v)` for the domain index `t + threads * v`.
fn tv(l: &Layout, t: i64, v: i64) -> i64 {
    let threads = l.mode(0).unwrap().size();
    l.offset(t + threads * v).unwrap()
}

#[test]
fn sm80_layouts_match_cute_traits() {
    // CuTe mma_traits_sm80.hpp: SM80_16x8x16 A, B and SM80_16x8_Row C.
    for name in [
        "SM80_16x8x16_F32F16F16F32_TN",
        "SM80_16x8x16_F16F16F16F16_TN",
        "SM80_16x8x16_F32BF16BF16F32_TN",
    ] {
        let m = mma_atom(name).unwrap();
        assert_eq!(
            m.a_layout().to_string(),
            "((4,8),(2,2,2)):((32,1),(16,8,128))"
        );
        assert_eq!(m.b_layout().to_string(), "((4,8),(2,2)):((16,1),(8,64))");
        assert_eq!(m.c_layout().to_string(), "((4,8),(2,2)):((32,1),(16,8))");
        assert_eq!(m.thr_id().to_string(), "32:1");
        assert_eq!(m.shape_mnk(), [16, 8, 16]);
    }
    // 16x8x8: ALayout = CLayout = SM80_16x8_Row, BLayout = SM80_8x8_Row.
    for name in [
        "SM80_16x8x8_F32F16F16F32_TN",
        "SM80_16x8x8_F16F16F16F16_TN",
        "SM80_16x8x8_F32BF16BF16F32_TN",
    ] {
        let m = mma_atom(name).unwrap();
        assert_eq!(m.a_layout().to_string(), "((4,8),(2,2)):((32,1),(16,8))");
        assert_eq!(m.b_layout().to_string(), "((4,8),2):((16,1),8)");
        assert_eq!(m.c_layout().to_string(), "((4,8),(2,2)):((32,1),(16,8))");
    }
}

#[test]
fn sm80_types_and_registers_match_cute_arch() {
    // CuTe include/cute/arch/mma_sm80.hpp: DRegisters/ARegisters/BRegisters/CRegisters.
    let cases = [
        (
            "SM80_16x8x16_F32F16F16F32_TN",
            ValueType::F16,
            ValueType::F32,
            [4, 4, 2, 4],
        ),
        (
            "SM80_16x8x16_F16F16F16F16_TN",
            ValueType::F16,
            ValueType::F16,
            [2, 4, 2, 2],
        ),
        (
            "SM80_16x8x16_F32BF16BF16F32_TN",
            ValueType::BF16,
            ValueType::F32,
            [4, 4, 2, 4],
        ),
        (
            "SM80_16x8x8_F32F16F16F32_TN",
            ValueType::F16,
            ValueType::F32,
            [4, 2, 1, 4],
        ),
        (
            "SM80_16x8x8_F16F16F16F16_TN",
            ValueType::F16,
            ValueType::F16,
            [2, 2, 1, 2],
        ),
        (
            "SM80_16x8x8_F32BF16BF16F32_TN",
            ValueType::BF16,
            ValueType::F32,
            [4, 2, 1, 4],
        ),
    ];
    for (name, ab, cd, counts) in cases {
        let m = mma_atom(name).unwrap();
        assert_eq!((m.a_type(), m.b_type(), m.c_type()), (ab, ab, cd), "{name}");
        let got: Vec<u32> = m.operands().iter().map(|o| o.count).collect();
        assert_eq!(got, counts, "{name}");
        let acc = if cd == ValueType::F32 {
            Constraint::F
        } else {
            Constraint::R
        };
        assert_eq!(m.operands()[0].constraint, acc);
        assert_eq!(m.operands()[0].direction, Direction::Out);
        assert_eq!(m.operands()[1].constraint, Constraint::R);
    }
    let m = mma_atom("SM80_16x8x16_F32BF16BF16F32_TN").unwrap();
    // The PTX ISA spelling: mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32.
    assert_eq!(
        m.asm_template(),
        "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0, %1, %2, %3}, \
         {%4, %5, %6, %7}, {%8, %9}, {%10, %11, %12, %13};"
    );
}

/// PTX ISA fragments of `mma.m16n8k16` (f16/bf16): register element `i` of lane `l`, with
/// `groupID = l >> 2` and `threadID_in_group = l % 4`.
fn ptx_a_m16n8k16(l: i64, i: i64) -> (i64, i64) {
    let (g, t) = (l >> 2, l % 4);
    let row = if i < 2 || (4..6).contains(&i) {
        g
    } else {
        g + 8
    };
    let col = if i < 4 {
        t * 2 + (i & 1)
    } else {
        t * 2 + (i & 1) + 8
    };
    (row, col)
}

fn ptx_b_m16n8k16(l: i64, i: i64) -> (i64, i64) {
    let (g, t) = (l >> 2, l % 4);
    let row = if i < 2 {
        t * 2 + (i & 1)
    } else {
        t * 2 + (i & 1) + 8
    };
    (row, g) // (k, n)
}

fn ptx_c_m16n8(l: i64, i: i64) -> (i64, i64) {
    let (g, t) = (l >> 2, l % 4);
    let row = if i < 2 { g } else { g + 8 };
    (row, t * 2 + (i & 1))
}

/// PTX ISA fragments of `mma.m16n8k8` (f16/bf16).
fn ptx_a_m16n8k8(l: i64, i: i64) -> (i64, i64) {
    let (g, t) = (l >> 2, l % 4);
    let row = if i < 2 { g } else { g + 8 };
    (row, t * 2 + (i & 1))
}

fn ptx_b_m16n8k8(l: i64, i: i64) -> (i64, i64) {
    let (g, t) = (l >> 2, l % 4);
    (t * 2 + i, g) // (k, n)
}

/// A fragment formula: (lane, register element) -> (row, column).
type Fragment = fn(i64, i64) -> (i64, i64);

#[test]
fn sm80_fragments_match_the_ptx_isa() {
    for name in mma_atom_names().iter().filter(|n| n.starts_with("SM80")) {
        let m = mma_atom(name).unwrap();
        let [mm, nn, kk] = m.shape_mnk();
        let (a_of, b_of): (Fragment, Fragment) = if kk == 16 {
            (ptx_a_m16n8k16, ptx_b_m16n8k16)
        } else {
            (ptx_a_m16n8k8, ptx_b_m16n8k8)
        };
        for lane in 0..32 {
            for i in 0..m.a_layout().mode(1).unwrap().size() {
                let (row, col) = a_of(lane, i);
                assert_eq!(
                    tv(m.a_layout(), lane, i),
                    row + mm * col,
                    "{name} A lane {lane} a{i}"
                );
            }
            for i in 0..m.b_layout().mode(1).unwrap().size() {
                let (k, n) = b_of(lane, i);
                assert_eq!(
                    tv(m.b_layout(), lane, i),
                    n + nn * k,
                    "{name} B lane {lane} b{i}"
                );
            }
            for i in 0..4 {
                let (row, col) = ptx_c_m16n8(lane, i);
                assert_eq!(
                    tv(m.c_layout(), lane, i),
                    row + mm * col,
                    "{name} C lane {lane} c{i}"
                );
            }
        }
    }
}

/// Whether `l` maps its domain one-to-one onto `0..n`.
fn is_bijection_onto(l: &Layout, n: i64) -> bool {
    let mut seen = vec![false; n as usize];
    l.size() == n
        && l.offsets()
            .into_iter()
            .all(|o| (0..n).contains(&o) && !std::mem::replace(&mut seen[o as usize], true))
}

#[test]
fn every_register_tv_layout_is_a_bijection_onto_its_tile() {
    for name in mma_atom_names() {
        let m = mma_atom(&name).unwrap();
        let [mm, nn, kk] = m.shape_mnk();
        assert!(is_bijection_onto(m.c_layout(), mm * nn), "{name} C");
        assert_eq!(m.c_layout().mode(0).unwrap().size(), m.threads());
        for (l, size, src) in [
            (m.a_layout(), mm * kk, m.a_source()),
            (m.b_layout(), nn * kk, m.b_source()),
        ] {
            match src {
                OperandSource::Registers => assert!(is_bijection_onto(l, size), "{name} {l}"),
                OperandSource::SharedDescriptor => {
                    // CuTe's ABLayout: every thread sees the whole tile (thread stride 0), and
                    // its values cover the tile once.
                    let (thr, val) = (l.mode(0).unwrap(), l.mode(1).unwrap());
                    assert_eq!(thr.size(), 128);
                    assert!(thr.offsets().iter().all(|&o| o == 0), "{name} {l}");
                    assert!(is_bijection_onto(&val, size), "{name} {l}");
                }
            }
        }
    }
}

#[test]
fn gmma_layouts_match_cute_traits() {
    // CuTe mma_traits_sm90_gmma.hpp: CLayout_64xN, ALayout_64x16, ABLayout<M,K>.
    for n in [8, 16, 24, 64, 96, 128, 200, 256] {
        for token in ["F32F16F16", "F16F16F16", "F32BF16BF16"] {
            for kind in ["SS", "RS"] {
                let name = format!("SM90_64x{n}x16_{token}_{kind}");
                let g = mma_atom(&name).unwrap();
                assert_eq!(
                    g.c_layout().to_string(),
                    format!("((4,8,4),(2,2,{})):((128,1,16),(64,8,512))", n / 8)
                );
                assert_eq!(
                    g.b_layout().to_string(),
                    format!("(128,({n},16)):(0,(1,{n}))")
                );
                let a = if kind == "RS" {
                    "((4,8,4),(2,2,2)):((128,1,16),(64,8,512))"
                } else {
                    "(128,(64,16)):(0,(1,64))"
                };
                assert_eq!(g.a_layout().to_string(), a);
                assert_eq!(g.thr_id().to_string(), "128:1");
                assert!(g.k_major());
            }
        }
    }
}

#[test]
fn gmma_fragments_match_the_ptx_isa() {
    // PTX ISA, wgmma m64nNk16: warp w of the warpgroup owns rows 16w..16w+15; within a warp
    // the D fragment repeats the m16n8 C fragment every 8 columns (d_i: row g + 8*((i>>1)&1),
    // column 8*(i>>2) + 2*t + (i&1)); A from registers is the m16n8k16 A fragment per warp.
    for n in [8, 32, 256] {
        let g = mma_atom(&format!("SM90_64x{n}x16_F32F16F16_RS")).unwrap();
        for thread in 0..128 {
            let (w, lane) = (thread / 32, thread % 32);
            let (gid, t) = (lane >> 2, lane % 4);
            for i in 0..n / 2 {
                let row = 16 * w + gid + 8 * ((i >> 1) & 1);
                let col = 8 * (i >> 2) + 2 * t + (i & 1);
                assert_eq!(
                    tv(g.c_layout(), thread, i),
                    row + 64 * col,
                    "N={n} t{thread} d{i}"
                );
            }
            for i in 0..8 {
                let (r, c) = ptx_a_m16n8k16(lane, i);
                assert_eq!(tv(g.a_layout(), thread, i), 16 * w + r + 64 * c);
            }
        }
    }
}

#[test]
fn gmma_operands_match_cute_arch() {
    // CuTe include/cute/arch/mma_sm90_gmma.hpp: MMA_64x8x16_F16F16F16_SS has 2 "+r"
    // accumulators, "l" descriptors, "r" scale_D and four "n" immediates; _RS has 4 "r" A
    // registers and no tnspA; F32 accumulators are N/2 "+f".
    let ss = mma_atom("SM90_64x8x16_F16F16F16_SS").unwrap();
    assert_eq!(
        ss.asm_template(),
        "{\n.reg .pred p;\nsetp.ne.b32 p, %4, 0;\n\
         wgmma.mma_async.sync.aligned.m64n8k16.f16.f16.f16 {%0, %1}, %2, %3, p, %5, %6, %7, %8;\n}"
    );
    let rs = mma_atom("SM90_64x16x16_F32BF16BF16_RS").unwrap();
    assert_eq!(
        rs.asm_template(),
        "{\n.reg .pred p;\nsetp.ne.b32 p, %13, 0;\n\
         wgmma.mma_async.sync.aligned.m64n16k16.f32.bf16.bf16 {%0, %1, %2, %3, %4, %5, %6, %7}, \
         {%8, %9, %10, %11}, %12, p, %14, %15, %16;\n}"
    );
    let big = mma_atom("SM90_64x256x16_F32F16F16_SS").unwrap();
    assert_eq!(big.operands()[0].count, 128);
    assert_eq!(big.operands()[0].constraint_string(), "+f");
    assert_eq!(big.operands()[1].constraint, Constraint::L);
}

#[test]
fn universal_fma_matches_cute_traits_and_the_ptx_isa() {
    // CuTe include/cute/atom/mma_traits.hpp (CUTLASS v4.2.1), MMA_Traits<UniversalFMA<D,A,B,C>>:
    // Shape_MNK = Shape<_1,_1,_1>, ThrID = Layout<_1>, ALayout = BLayout = CLayout =
    // Layout<Shape<_1,_1>> (compact, so the extent-1 modes have stride 0).
    let m = mma_atom("UniversalFMA<float,float,float,float>").unwrap();
    assert_eq!(m.shape_mnk(), [1, 1, 1]);
    assert_eq!(m.thr_id().to_string(), "1:0");
    for l in [m.a_layout(), m.b_layout(), m.c_layout()] {
        assert_eq!(l.to_string(), "(1,1):(0,0)");
    }
    assert_eq!(
        (m.a_type(), m.b_type(), m.c_type()),
        (ValueType::F32, ValueType::F32, ValueType::F32)
    );
    assert_eq!(
        (m.a_source(), m.b_source()),
        (OperandSource::Registers, OperandSource::Registers)
    );
    // include/cute/arch/mma.hpp: UniversalFMA::fma(d, a, b, c) with D/A/B/CRegisters = T[1];
    // PTX ISA, "fma": fma.rn.f32 d, a, b, c computes d = a * b + c rounded once.
    assert_eq!(m.asm_template(), "fma.rn.f32 %0, %1, %2, %3;");
    let roles: Vec<(&str, u32, String)> = m
        .operands()
        .iter()
        .map(|o| (o.role, o.count, o.constraint_string()))
        .collect();
    assert_eq!(
        roles,
        [
            ("d", 1, "=f".to_string()),
            ("a", 1, "f".to_string()),
            ("b", 1, "f".to_string()),
            ("c", 1, "f".to_string())
        ]
    );
}

#[test]
fn mma_names_round_trip_and_unknown_names_are_errors() {
    let names = mma_atom_names();
    assert_eq!(names.len(), 199);
    for name in &names {
        assert_eq!(mma_atom(name).unwrap().name(), name);
    }
    for bad in [
        "SM90_64x0x16_F16F16F16_SS",
        "SM90_64x264x16_F16F16F16_SS",
        "SM90_64x012x16_F16F16F16_SS",
        "SM90_64x8x16_F16F16F16_SR",
        "SM80_16x8x32_F32F16F16F32_TN",
    ] {
        let err = mma_atom(bad).unwrap_err();
        assert!(err.message().contains(bad), "{err}");
    }
}

#[test]
fn ldsm_and_stsm_layouts_match_cute_traits() {
    // CuTe copy_traits_sm75.hpp and copy_traits_sm90.hpp (STSM swaps Src and Dst of LDSM and
    // takes Src as its reference).
    let cases = [
        (
            "SM75_U32x1_LDSM_N",
            "((8,4),128):((128,0),1)",
            "(32,32):(32,1)",
        ),
        (
            "SM75_U32x2_LDSM_N",
            "((16,2),128):((128,0),1)",
            "(32,(32,2)):(32,(1,1024))",
        ),
        (
            "SM75_U32x4_LDSM_N",
            "(32,128):(128,1)",
            "(32,(32,4)):(32,(1,1024))",
        ),
        (
            "SM75_U16x2_LDSM_T",
            "((8,4),128):((128,0),1)",
            "((4,8),(16,2)):((256,16),(1,128))",
        ),
        (
            "SM75_U16x4_LDSM_T",
            "((16,2),128):((128,0),1)",
            "((4,8),(16,2,2)):((256,16),(1,128,1024))",
        ),
        (
            "SM75_U16x8_LDSM_T",
            "(32,128):(128,1)",
            "((4,8),(16,2,4)):((256,16),(1,128,1024))",
        ),
    ];
    for (name, src, dst) in cases {
        let a = copy_atom(name).unwrap();
        assert_eq!(a.src_bits().to_string(), src, "{name}");
        assert_eq!(a.dst_bits().to_string(), dst, "{name}");
        assert_eq!(a.ref_bits(), a.dst_bits(), "{name}");
        let st = copy_atom(&name.replace("SM75", "SM90").replace("LDSM", "STSM")).unwrap();
        assert_eq!(st.src_bits().to_string(), dst, "{name}");
        assert_eq!(st.dst_bits().to_string(), src, "{name}");
        assert_eq!(st.ref_bits(), st.src_bits(), "{name}");
    }
}

#[test]
fn ldsm_fragments_match_the_ptx_isa() {
    // PTX ISA, ldmatrix: lanes 8i..8i+7 give the addresses of the 8 rows of matrix i; lane l's
    // register j holds elements (l/4, 2*(l%4)+{0,1}) of matrix j, or with .trans the elements
    // (2*(l%4)+{0,1}, l/4). In the reference space every matrix is 64 b16 elements, row-major,
    // and lane 8i+r addresses row r of matrix i.
    for (matrices, suffix) in [(1, 1), (2, 2), (4, 4)] {
        for trans in [false, true] {
            let name = if trans {
                format!("SM75_U16x{}_LDSM_T", 2 * suffix)
            } else {
                format!("SM75_U32x{suffix}_LDSM_N")
            };
            let a = copy_atom(&name).unwrap();
            assert_eq!(a.access(), SmemAccess::Ldmatrix { matrices, trans });
            let typed = a.typed(16).unwrap();
            let pos = |m: i64, r: i64, c: i64| 64 * m + 8 * r + c;
            for lane in 0..32 {
                for j in 0..i64::from(matrices) {
                    for e in 0..2 {
                        let (r, c) = if trans {
                            (2 * (lane % 4) + e, lane / 4)
                        } else {
                            (lane / 4, 2 * (lane % 4) + e)
                        };
                        assert_eq!(tv(typed.dst(), lane, e + 2 * j), pos(j, r, c), "{name}");
                    }
                }
                // Source: the lane's row address; lanes past 8*matrices repeat the used ones.
                let used = lane % (8 * i64::from(matrices));
                for c in 0..8 {
                    assert_eq!(
                        tv(typed.src(), lane, c),
                        pos(used / 8, used % 8, c),
                        "{name}"
                    );
                }
            }
            // The stmatrix counterpart moves the same data the other way.
            let st = copy_atom(&name.replace("SM75", "SM90").replace("LDSM", "STSM")).unwrap();
            let st16 = st.typed(16).unwrap();
            assert_eq!(st16.src(), typed.dst());
            assert_eq!(st16.dst(), typed.src());
            assert_eq!(st.access(), SmemAccess::Stmatrix { matrices, trans });
        }
    }
}

#[test]
fn one_thread_copies_match_cute_traits() {
    // CuTe copy_traits.hpp (UniversalCopy) and copy_traits_sm80.hpp (cp.async): ThrID
    // Layout<_1>, Src = Dst = Ref = Layout<Shape<_1, bits>> (compact strides (_0,_1)).
    for (name, bits) in [
        ("UniversalCopy<uint16_t>", 16),
        ("UniversalCopy<uint32_t>", 32),
        ("UniversalCopy<uint64_t>", 64),
        ("UniversalCopy<uint128_t>", 128),
        ("SM80_CP_ASYNC_CACHEALWAYS<uint32_t>", 32),
        ("SM80_CP_ASYNC_CACHEALWAYS<uint64_t>", 64),
        ("SM80_CP_ASYNC_CACHEALWAYS<uint128_t>", 128),
        ("SM80_CP_ASYNC_CACHEGLOBAL<uint128_t>", 128),
    ] {
        let a = copy_atom(name).unwrap();
        assert_eq!(a.thr_id().to_string(), "1:0");
        let l = format!("(1,{bits}):(0,1)");
        assert_eq!(a.src_bits().to_string(), l);
        assert_eq!(a.dst_bits().to_string(), l);
        assert_eq!(a.ref_bits().to_string(), l);
        let expected = if name.starts_with("SM80") {
            SmemAccess::CpAsync { bytes: bits / 8 }
        } else {
            SmemAccess::Vector { bits }
        };
        assert_eq!(a.access(), expected);
    }
    // PTX ISA, cp.async: .cg requires a cp-size of 16.
    assert!(copy_atom("SM80_CP_ASYNC_CACHEGLOBAL<uint64_t>").is_err());
    assert_eq!(
        copy_atom("SM80_CP_ASYNC_CACHEGLOBAL<uint128_t>")
            .unwrap()
            .asm_template(),
        Some("cp.async.cg.shared.global [%0], [%1], 16;")
    );
}

#[test]
fn typed_views_divide_or_fail() {
    // CuTe Copy_Atom<Traits, T>: recast_layout<uint1_t, T> = upcast<sizeof_bits<T>>.
    let u128 = copy_atom("UniversalCopy<uint128_t>").unwrap();
    assert_eq!(u128.typed(16).unwrap().src().to_string(), "(1,8):(0,1)");
    assert_eq!(u128.typed(128).unwrap().num_val_src(), 1);
    let err = u128.typed(48).unwrap_err();
    assert!(err.message().contains("48"), "{err}");
    assert!(u128.typed(0).is_err());
    let ldsm = copy_atom("SM75_U16x8_LDSM_T").unwrap().typed(16).unwrap();
    assert_eq!(ldsm.dst().to_string(), "((4,8),(1,2,4)):((16,1),(1,8,64))");
    // 32-bit values cannot be split by .trans' 16-bit elements.
    assert!(copy_atom("SM75_U16x8_LDSM_T").unwrap().typed(32).is_err());
    for name in copy_atom_names() {
        assert_eq!(copy_atom(&name).unwrap().name(), name);
    }
}

#[test]
fn copy_atom_layouts_cover_their_bits() {
    // Every RefLayout is a bijection onto the bits one instruction moves; Src and Dst reach
    // exactly those bits (the LDSM .x1/.x2 sources repeat the used lanes' rows: CuTe's stride-0
    // thread modes).
    for name in copy_atom_names() {
        let a = copy_atom(&name).unwrap();
        let bits = a.ref_bits().size();
        assert!(is_bijection_onto(a.ref_bits(), bits), "{name}");
        assert_eq!(a.ref_bits().mode(0).unwrap().size(), a.threads(), "{name}");
        for side in [a.src_bits(), a.dst_bits()] {
            let mut image = side.offsets();
            image.sort_unstable();
            image.dedup();
            assert_eq!(image, (0..bits).collect::<Vec<_>>(), "{name} {side}");
            assert_eq!(side.mode(0).unwrap().size(), a.threads(), "{name}");
        }
    }
}
