//! The atom catalog against CuTe's traits headers and the PTX ISA fragment descriptions.
//!
//! Golden layouts (CUTLASS v4.2.1): CuTe `include/cute/atom/mma_traits_sm70.hpp`,
//! `mma_traits_sm80.hpp`, `mma_traits_sm89.hpp`, `mma_traits_sm90_gmma.hpp`, `mma_traits_sm90_gmma_ext.hpp`,
//! `copy_traits_sm75.hpp`, `copy_traits_sm80.hpp`, `copy_traits_sm90.hpp`,
//! `copy_traits_sm90_tma.hpp`, `copy_traits.hpp` (all under `include/cute/atom/`). Fragment
//! formulas: PTX ISA, "Matrix Fragments for mma.m8n8k4 with .f16 floating point type", "Matrix
//! Fragments for mma.m16n8k16 with floating point type", "Matrix Fragments for mma.m16n8k8"
//! (f16/bf16), "Matrix Fragments for mma.m16n8k32" (8-bit types), "Register Fragments and Shared Memory Matrix Layouts" of `wgmma` (m64nNk16 and
//! m64nNk32), and the `ldmatrix` / `stmatrix` / `movmatrix` instruction descriptions.

use tessel_layout::atom::{
    Constraint, Direction, OperandSource, SmemAccess, copy_atom, copy_atom_names, mma_atom,
    mma_atom_names,
};
use tessel_layout::{Element, Layout};

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
            Element::F16,
            Element::F32,
            [4, 4, 2, 4],
        ),
        (
            "SM80_16x8x16_F16F16F16F16_TN",
            Element::F16,
            Element::F16,
            [2, 4, 2, 2],
        ),
        (
            "SM80_16x8x16_F32BF16BF16F32_TN",
            Element::BF16,
            Element::F32,
            [4, 4, 2, 4],
        ),
        (
            "SM80_16x8x8_F32F16F16F32_TN",
            Element::F16,
            Element::F32,
            [4, 2, 1, 4],
        ),
        (
            "SM80_16x8x8_F16F16F16F16_TN",
            Element::F16,
            Element::F16,
            [2, 2, 1, 2],
        ),
        (
            "SM80_16x8x8_F32BF16BF16F32_TN",
            Element::BF16,
            Element::F32,
            [4, 2, 1, 4],
        ),
    ];
    for (name, ab, cd, counts) in cases {
        let m = mma_atom(name).unwrap();
        assert_eq!((m.a_type(), m.b_type(), m.c_type()), (ab, ab, cd), "{name}");
        let got: Vec<u32> = m.operands().iter().map(|o| o.count).collect();
        assert_eq!(got, counts, "{name}");
        let acc = if cd == Element::F32 {
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

/// PTX ISA fragments of `mma.m16n8k32` (.e4m3/.e5m2 like .s8/.u8): A's `a0..a15` have row
/// `groupID` for `a0-a3` and `a8-a11`, `groupID + 8` for `a4-a7` and `a12-a15`, column
/// `4 threadID_in_group + (i & 3)`, plus 16 for `i >= 8`.
fn ptx_a_m16n8k32(l: i64, i: i64) -> (i64, i64) {
    let (g, t) = (l >> 2, l % 4);
    (g + 8 * ((i >> 2) & 1), 4 * t + (i & 3) + 16 * (i >> 3))
}

/// B's `b0..b7` of `mma.m16n8k32`: row (k) `4 threadID_in_group + (i & 3)`, plus 16 for
/// `i >= 4`; column `groupID`.
fn ptx_b_m16n8k32(l: i64, i: i64) -> (i64, i64) {
    let (g, t) = (l >> 2, l % 4);
    (4 * t + (i & 3) + 16 * (i >> 2), g) // (k, n)
}

/// A fragment formula: (lane, register element) -> (row, column).
type Fragment = fn(i64, i64) -> (i64, i64);

#[test]
fn mma_sync_fragments_match_the_ptx_isa() {
    // The SM80 atoms (k 16 and 8) and the 8-bit SM89 ones (k 32); C is the m16n8 f32 fragment
    // of every one of them.
    let mma_sync = |n: &&String| n.starts_with("SM80") || n.starts_with("SM89");
    for name in mma_atom_names().iter().filter(mma_sync) {
        let m = mma_atom(name).unwrap();
        let [mm, nn, kk] = m.shape_mnk();
        let (a_of, b_of): (Fragment, Fragment) = match kk {
            32 => (ptx_a_m16n8k32, ptx_b_m16n8k32),
            16 => (ptx_a_m16n8k16, ptx_b_m16n8k16),
            _ => (ptx_a_m16n8k8, ptx_b_m16n8k8),
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
        (Element::F32, Element::F32, Element::F32)
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
    // UniversalFMA, 8 SM70 (2 types x TN/NT/NN/TT), 6 SM80, 4 SM89 (mma_sm89.hpp: F32 accumulators,
    // E4M3/E5M2 A and B), 32 N x 3 types x SS/RS of 16-bit GMMA, 32 N x 8
    // types x SS/RS of FP8 GMMA (mma_traits_sm90_gmma.hpp lists N = 8, 16, 32, 64, 96, 128, 192,
    // 256, mma_traits_sm90_gmma_ext.hpp the other multiples of 8).
    assert_eq!(names.len(), 1 + 8 + 6 + 4 + 192 + 512);
    for name in &names {
        assert_eq!(mma_atom(name).unwrap().name(), name);
    }
    for bad in [
        "SM90_64x0x16_F16F16F16_SS",
        "SM90_64x264x16_F16F16F16_SS",
        "SM90_64x012x16_F16F16F16_SS",
        "SM90_64x8x16_F16F16F16_SR",
        "SM80_16x8x32_F32F16F16F32_TN",
        "SM89_16x8x32_F16E4M3E4M3F16_TN",
        "SM89_16x8x16_F32E4M3E4M3F32_TN",
        "SM89_16x8x32_F32E4M3E4M3F32",
        "SM70_8x8x4_F32F16F16F16_TN",
        "SM70_8x8x4_F16F16F16F16_XT",
        "SM90_64x8x32_F32E4M3E4M3_SS",
        "SM90_64x8x16_F32E4M3E4M3_SS_TN",
        "SM90_64x12x32_F32E4M3E4M3_SS_TN",
        "SM90_64x8x32_F32F16F16_SS_TN",
        "SM90_64x8x32_BF16E4M3E4M3_SS_TN",
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

#[test]
fn sm70_layouts_match_cute_traits() {
    // CuTe mma_traits_sm70.hpp: ThrID = SM70_QuadPair = (4,2):(1,16); SM70_8x4_Row =
    // (8,4):(1,8); SM70_8x4_Col = ((4,2),4):((8,4),1); SM70_8x8_16b = (8,8):(1,8);
    // SM70_8x8_32b = ((2,2,2),(2,2,2)):((1,16,4),(8,2,32)). TN: A Row, B Row; NT: A Col, B Col;
    // NN: A Col, B Row; TT: A Row, B Col.
    let (row, col) = ("(8,4):(1,8)", "((4,2),4):((8,4),1)");
    for (suffix, a, b, ptx) in [
        ("TN", row, row, "row.col"),
        ("NT", col, col, "col.row"),
        ("NN", col, row, "col.col"),
        ("TT", row, col, "row.row"),
    ] {
        for (token, c, d_regs, c_kind) in [
            ("F16F16F16F16", "(8,8):(1,8)", 4, Constraint::R),
            (
                "F32F16F16F32",
                "((2,2,2),(2,2,2)):((1,16,4),(8,2,32))",
                8,
                Constraint::F,
            ),
        ] {
            let name = format!("SM70_8x8x4_{token}_{suffix}");
            let m = mma_atom(&name).unwrap();
            assert_eq!(m.thr_id().to_string(), "(4,2):(1,16)", "{name}");
            assert_eq!(m.shape_mnk(), [8, 8, 4]);
            assert_eq!(m.a_layout().to_string(), a, "{name}");
            assert_eq!(m.b_layout().to_string(), b, "{name}");
            assert_eq!(m.c_layout().to_string(), c, "{name}");
            assert_eq!(m.threads(), 8);
            // CuTe include/cute/arch/mma_sm70.hpp: the instruction and DRegisters /
            // ARegisters / BRegisters / CRegisters (uint32_t[4] or float[8]; uint32_t[2]).
            let cd = if token.starts_with("F32") {
                "f32"
            } else {
                "f16"
            };
            assert_eq!(
                m.opcode(),
                format!("mma.sync.aligned.m8n8k4.{ptx}.{cd}.f16.f16.{cd}")
            );
            let ops = m.operands();
            assert_eq!(
                ops.iter().map(|o| (o.role, o.count)).collect::<Vec<_>>(),
                [("d", d_regs), ("a", 2), ("b", 2), ("c", d_regs)]
            );
            assert_eq!(
                (ops[0].constraint, ops[1].constraint),
                (c_kind, Constraint::R)
            );
            assert_eq!(m.k_major(), suffix == "TN");
        }
    }
}

#[test]
fn sm70_fragments_match_the_ptx_isa() {
    // PTX ISA, "Matrix Fragments for mma.m8n8k4 with .f16 floating point type": lanes 0-3 (low
    // group) and 16-19 (high group) compute MMA 1; with hi = (laneid >= 16):
    // A .row: row = laneid % 4 + 4 hi, col = i;        A .col: row = i % 4 + 4 hi, col = laneid % 4
    // B .col: row = i, col = laneid % 4 + 4 hi;        B .row: row = laneid % 4, col = i % 4 + 4 hi
    // C/D .f16: row = laneid % 4 + 4 hi, col = i
    // C/D .f32: row = X + 4 hi, X = (laneid & 1) + (i & 2); col = (laneid & 2) + (i & 1) + (i & 4)
    for name in mma_atom_names().iter().filter(|n| n.starts_with("SM70")) {
        let m = mma_atom(name).unwrap();
        let (a_row, b_row) = match &name[name.len() - 2..] {
            "TN" => (true, false),
            "NT" => (false, true),
            "NN" => (false, false),
            _ => (true, true),
        };
        for t in 0..8 {
            let lane = m.thr_id().offset(t).unwrap();
            assert!((0..4).contains(&lane) || (16..20).contains(&lane));
            let hi = i64::from(lane >= 16);
            for i in 0..4 {
                let (r, k) = if a_row {
                    (lane % 4 + 4 * hi, i)
                } else {
                    (i % 4 + 4 * hi, lane % 4)
                };
                assert_eq!(tv(m.a_layout(), t, i), r + 8 * k, "{name} A t{t} a{i}");
                let (k, n) = if b_row {
                    (lane % 4, i % 4 + 4 * hi)
                } else {
                    (i, lane % 4 + 4 * hi)
                };
                assert_eq!(tv(m.b_layout(), t, i), n + 8 * k, "{name} B t{t} b{i}");
            }
            for i in 0..8 {
                let (r, c) = if m.c_type() == Element::F16 {
                    (lane % 4 + 4 * hi, i)
                } else {
                    (
                        (lane & 1) + (i & 2) + 4 * hi,
                        (lane & 2) + (i & 1) + (i & 4),
                    )
                };
                assert_eq!(tv(m.c_layout(), t, i), r + 8 * c, "{name} C t{t} c{i}");
            }
        }
    }
}

#[test]
fn fp8_gmma_layouts_match_cute_traits() {
    // CuTe mma_traits_sm90_gmma.hpp, MMA_Traits<SM90_64xNx32_F32E4M3E4M3_SS_TN>: ValTypeA/B
    // float_e4m3_t, Shape_MNK (64,N,32), ThrID Layout<_128>, ALayout ABLayout<64,32>, BLayout
    // ABLayout<N,32>, CLayout CLayout_64xN; the _RS_TN atoms take ALayout_64x32 =
    // ((4,8,4),(4,2,2)):((256,1,16),(64,8,1024)). ABLayout<M,K> = (128,(M,K)):(0,(1,M)).
    for n in [8, 16, 24, 64, 136, 256] {
        for c in ["F16", "F32"] {
            for a in ["E4M3", "E5M2"] {
                for b in ["E4M3", "E5M2"] {
                    for kind in ["SS", "RS"] {
                        let name = format!("SM90_64x{n}x32_{c}{a}{b}_{kind}_TN");
                        let g = mma_atom(&name).unwrap();
                        assert_eq!(g.name(), name);
                        assert_eq!(g.shape_mnk(), [64, n, 32]);
                        assert_eq!(g.thr_id().to_string(), "128:1");
                        let want_a = if kind == "RS" {
                            "((4,8,4),(4,2,2)):((256,1,16),(64,8,1024))".to_string()
                        } else {
                            "(128,(64,32)):(0,(1,64))".to_string()
                        };
                        assert_eq!(g.a_layout().to_string(), want_a, "{name}");
                        assert_eq!(
                            g.b_layout().to_string(),
                            format!("(128,({n},32)):(0,(1,{n}))")
                        );
                        assert_eq!(
                            g.c_layout().to_string(),
                            format!("((4,8,4),(2,2,{})):((128,1,16),(64,8,512))", n / 8)
                        );
                        let ty = |t: &str| match t {
                            "E4M3" => Element::E4M3,
                            "E5M2" => Element::E5M2,
                            "F16" => Element::F16,
                            _ => Element::F32,
                        };
                        assert_eq!((g.a_type(), g.b_type(), g.c_type()), (ty(a), ty(b), ty(c)));
                        assert!(g.k_major());
                        // PTX ISA wgmma: .kind e4m3/e5m2 with k32.
                        assert_eq!(
                            g.opcode(),
                            format!(
                                "wgmma.mma_async.sync.aligned.m64n{n}k32.{}.{}.{}",
                                c.to_lowercase(),
                                a.to_lowercase(),
                                b.to_lowercase()
                            )
                        );
                    }
                }
            }
        }
    }
}

#[test]
fn fp8_gmma_operands_match_cute_arch() {
    // CuTe include/cute/arch/mma_sm90_gmma.hpp, MMA_64x8x32_F32E4M3E4M3_SS_TN: "+f" d0..d3,
    // "l" desc_a, "l" desc_b, "r" scale_D, "n" scaleA, "n" scaleB, no transpose immediates;
    // MMA_64x8x32_F16E4M3E5M2_RS_TN: "+r" d0, d1, "r" a0..a3.
    let ss = mma_atom("SM90_64x8x32_F32E4M3E4M3_SS_TN").unwrap();
    assert_eq!(
        ss.asm_template(),
        "{\n.reg .pred p;\nsetp.ne.b32 p, %6, 0;\n\
         wgmma.mma_async.sync.aligned.m64n8k32.f32.e4m3.e4m3 {%0, %1, %2, %3}, %4, %5, p, %7, %8;\n}"
    );
    let rs = mma_atom("SM90_64x8x32_F16E4M3E5M2_RS_TN").unwrap();
    assert_eq!(
        rs.asm_template(),
        "{\n.reg .pred p;\nsetp.ne.b32 p, %7, 0;\n\
         wgmma.mma_async.sync.aligned.m64n8k32.f16.e4m3.e5m2 {%0, %1}, {%2, %3, %4, %5}, %6, p, %8, %9;\n}"
    );
    assert_eq!(rs.operands()[0].constraint_string(), "+r");
    assert_eq!(
        (rs.a_source(), rs.b_source()),
        (OperandSource::Registers, OperandSource::SharedDescriptor)
    );
    let big = mma_atom("SM90_64x256x32_F32E5M2E5M2_SS_TN").unwrap();
    assert_eq!(big.operands()[0].count, 128);
}

#[test]
fn fp8_gmma_fragments_match_the_ptx_isa() {
    // PTX ISA, wgmma m64nNk32 with .e4m3/.e5m2, register fragment of A per warp w (rows
    // 16w..16w+15): a_i for i in 0..16, row = groupID + 8 ((i >> 2) & 1), col =
    // 4 threadID_in_group + (i & 3) + 16 (i >> 3); the accumulator D is the m64nNk16 one.
    for n in [8, 64, 256] {
        let g = mma_atom(&format!("SM90_64x{n}x32_F32E4M3E4M3_RS_TN")).unwrap();
        for thread in 0..128 {
            let (w, lane) = (thread / 32, thread % 32);
            let (gid, t) = (lane >> 2, lane % 4);
            for i in 0..16 {
                let row = 16 * w + gid + 8 * ((i >> 2) & 1);
                let col = 4 * t + (i & 3) + 16 * (i >> 3);
                assert_eq!(
                    tv(g.a_layout(), thread, i),
                    row + 64 * col,
                    "N={n} t{thread} a{i}"
                );
            }
            for i in 0..n / 2 {
                let row = 16 * w + gid + 8 * ((i >> 1) & 1);
                let col = 8 * (i >> 2) + 2 * t + (i & 1);
                assert_eq!(
                    tv(g.c_layout(), thread, i),
                    row + 64 * col,
                    "N={n} t{thread} d{i}"
                );
            }
        }
    }
}

#[test]
fn sm89_layouts_and_operands_match_cute() {
    // CuTe include/cute/atom/mma_traits_sm89.hpp (CUTLASS v4.2.1), MMA_Traits of
    // SM89_16x8x32_F32E4M3E4M3F32_TN (the other three inherit it): Shape_MNK (16,8,32), ThrID
    // Layout<_32>, ALayout ((_4,_8),(_4,_2,_2)):((_64,_1),(_16,_8,_256)), BLayout
    // ((_4,_8),(_4,_2)):((_32,_1),(_8,_128)), CLayout SM80_16x8_Row. include/cute/arch/mma_sm89.hpp:
    // DRegisters float[4], ARegisters uint32_t[4], BRegisters uint32_t[2], CRegisters float[4],
    // asm "mma.sync.aligned.m16n8k32.row.col.f32.e4m3.e5m2.f32" for F32E4M3E5M2F32.
    let ty = |t: &str| match t {
        "E4M3" => Element::E4M3,
        _ => Element::E5M2,
    };
    for a in ["E4M3", "E5M2"] {
        for b in ["E4M3", "E5M2"] {
            let name = format!("SM89_16x8x32_F32{a}{b}F32_TN");
            let m = mma_atom(&name).unwrap();
            assert_eq!(m.name(), name);
            assert_eq!(m.shape_mnk(), [16, 8, 32]);
            assert_eq!(m.thr_id().to_string(), "32:1");
            assert_eq!(
                m.a_layout().to_string(),
                "((4,8),(4,2,2)):((64,1),(16,8,256))"
            );
            assert_eq!(m.b_layout().to_string(), "((4,8),(4,2)):((32,1),(8,128))");
            assert_eq!(m.c_layout().to_string(), "((4,8),(2,2)):((32,1),(16,8))");
            assert_eq!(
                (m.a_type(), m.b_type(), m.c_type()),
                (ty(a), ty(b), Element::F32)
            );
            assert!(m.k_major());
            let counts: Vec<u32> = m.operands().iter().map(|o| o.count).collect();
            assert_eq!(counts, [4, 4, 2, 4], "{name}");
            let constraints: Vec<String> =
                m.operands().iter().map(|o| o.constraint_string()).collect();
            assert_eq!(constraints, ["=f", "r", "r", "f"], "{name}");
            assert_eq!(
                m.asm_template(),
                format!(
                    "mma.sync.aligned.m16n8k32.row.col.f32.{}.{}.f32 {{%0, %1, %2, %3}}, \
                     {{%4, %5, %6, %7}}, {{%8, %9}}, {{%10, %11, %12, %13}};",
                    a.to_lowercase(),
                    b.to_lowercase()
                )
            );
        }
    }
}

#[test]
fn element_typed_names_follow_sizeof_bits() {
    // CuTe copy_traits_sm80.hpp: Copy_Traits<SM80_CP_ASYNC_CACHEALWAYS<S,D>>::SrcLayout =
    // Layout<Shape<_1, Int<sizeof_bits<S>::value>>>; copy_traits.hpp: UniversalCopy<S,D> the
    // same. copy_sm80.hpp static_asserts sizeof(TS) in {4, 8, 16} (CACHEGLOBAL: 16).
    for (name, bits) in [
        ("SM80_CP_ASYNC_CACHEALWAYS<double>", 64),
        ("SM80_CP_ASYNC_CACHEALWAYS<float>", 32),
        ("SM80_CP_ASYNC_CACHEALWAYS<cute::uint128_t>", 128),
        ("SM80_CP_ASYNC_CACHEGLOBAL<uint128_t>", 128),
        ("UniversalCopy<uint64_t>", 64),
        ("UniversalCopy<half_t>", 16),
        ("UniversalCopy<bfloat16_t>", 16),
        ("UniversalCopy<float_e4m3_t>", 8),
        ("UniversalCopy<uint8_t>", 8),
        ("UniversalCopy<int>", 32),
        ("UniversalCopy<double>", 64),
    ] {
        let a = copy_atom(name).unwrap();
        assert_eq!(a.name(), name.replace("cute::", ""));
        assert_eq!(
            a.src_bits().to_string(),
            format!("(1,{bits}):(0,1)"),
            "{name}"
        );
        assert_eq!(a.thr_id().to_string(), "1:0");
    }
    assert_eq!(
        copy_atom("SM80_CP_ASYNC_CACHEALWAYS<double>")
            .unwrap()
            .asm_template(),
        Some("cp.async.ca.shared.global [%0], [%1], 8;")
    );
    assert_eq!(
        copy_atom("UniversalCopy<uint8_t>").unwrap().access(),
        SmemAccess::Vector { bits: 8 }
    );
    for bad in [
        "SM80_CP_ASYNC_CACHEALWAYS<half_t>",
        "SM80_CP_ASYNC_CACHEGLOBAL<double>",
        "UniversalCopy<float3>",
        "SM75_U32x4_LDSM_N<half_t>",
    ] {
        let err = copy_atom(bad).unwrap_err();
        assert!(err.message().contains(bad), "{bad}: {err}");
    }
}

#[test]
fn movmatrix_matches_cute_traits_and_the_ptx_isa() {
    // CuTe copy_traits_sm75.hpp, Copy_Traits<SM75_U32x1_MOVM_T>: ThrID Layout<_32>, SrcLayout =
    // DstLayout = RefLayout = (32,32):(32,1); copy_sm75.hpp:
    // "movmatrix.sync.aligned.m8n8.trans.b16 %0, %1;" with "=r"(dst), "r"(src). PTX ISA,
    // movmatrix: one .b32 register per lane holds the two b16 elements (laneid / 4,
    // 2 (laneid % 4) + {0,1}) of an 8x8 matrix; the destination holds the transpose's, so the
    // atom moves exactly one 32-bit register per lane, in registers only.
    let a = copy_atom("SM75_U32x1_MOVM_T").unwrap();
    assert_eq!(a.thr_id().to_string(), "32:1");
    for l in [a.src_bits(), a.dst_bits(), a.ref_bits()] {
        assert_eq!(l.to_string(), "(32,32):(32,1)");
    }
    assert_eq!(
        a.asm_template(),
        Some("movmatrix.sync.aligned.m8n8.trans.b16 %0, %1;")
    );
    assert_eq!(a.operands()[0].constraint_string(), "=r");
    assert_eq!(a.access(), SmemAccess::Registers);
    assert_eq!(a.typed(16).unwrap().src().to_string(), "(32,2):(2,1)");
}

#[test]
fn bulk_and_tma_atoms_match_cute_traits() {
    use tessel_layout::atom::{BulkCopyOp, SmemSide, TmaOp, bulk_copy_atom, tma_atom};
    // CuTe copy_traits_sm90_tma.hpp: Copy_Traits<SM90_TMA_LOAD, NumBitsPerTMA, ...> (and
    // _MULTICAST, SM90_TMA_STORE, SM90_BULK_COPY_G2S, SM90_BULK_COPY_S2G): ThrID Layout<_1>,
    // SrcLayout = DstLayout = Layout<Shape<_1,NumBitsPerTMA>>, RefLayout = SrcLayout;
    // SM90_BULK_COPY_AUTO: Layout<Shape<_1,_1>, Stride<_0,_0>>.
    for bits in [128, 4096, 65536] {
        for op in TmaOp::ALL {
            let a = tma_atom(op, bits, Some(3)).unwrap();
            assert_eq!(a.name(), op.name());
            assert_eq!(a.thr_id().to_string(), "1:0");
            for l in [a.src_bits(), a.dst_bits(), a.ref_bits()] {
                assert_eq!(l.to_string(), format!("(1,{bits}):(0,1)"));
            }
            let side = if op.is_load() {
                SmemSide::Destination
            } else {
                SmemSide::Source
            };
            assert_eq!(a.access().smem_side(), side);
        }
        for op in [BulkCopyOp::G2S, BulkCopyOp::S2G] {
            let a = bulk_copy_atom(op, bits).unwrap();
            assert_eq!(a.ref_bits().to_string(), format!("(1,{bits}):(0,1)"));
        }
    }
    let auto = copy_atom("SM90_BULK_COPY_AUTO").unwrap();
    assert_eq!(auto.src_bits().to_string(), "(1,1):(0,0)");
    assert_eq!(auto.opcode(), None);
    // CuTe copy_sm90_tma.hpp, SM90_TMA_LOAD_3D / SM90_TMA_LOAD_MULTICAST_3D / SM90_TMA_STORE_3D
    // (without the L2 cache hint), SM90_BULK_COPY_G2S / _S2G.
    let asm = |op, rank| {
        tma_atom(op, 128, Some(rank))
            .unwrap()
            .asm_template()
            .unwrap()
            .to_string()
    };
    assert_eq!(
        asm(TmaOp::Load, 3),
        "cp.async.bulk.tensor.3d.shared::cluster.global.mbarrier::complete_tx::bytes \
         [%0], [%1, {%3, %4, %5}], [%2];"
    );
    assert_eq!(
        asm(TmaOp::LoadMulticast, 2),
        "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes\
         .multicast::cluster [%0], [%1, {%4, %5}], [%2], %3;"
    );
    assert_eq!(
        asm(TmaOp::Store, 1),
        "cp.async.bulk.tensor.1d.global.shared::cta.bulk_group [%0, {%2}], [%1];"
    );
    assert_eq!(
        bulk_copy_atom(BulkCopyOp::S2G, 256).unwrap().asm_template(),
        Some("cp.async.bulk.global.shared::cta.bulk_group [%0], [%1], %2;")
    );
    // By the bare name: one 16-byte unit, the rank left as the ISA's `.dim`, no asm.
    let bare = copy_atom("SM90_TMA_LOAD").unwrap();
    assert_eq!(bare.src_bits().to_string(), "(1,128):(0,1)");
    assert_eq!(
        bare.opcode(),
        Some("cp.async.bulk.tensor.dim.shared::cluster.global.mbarrier::complete_tx::bytes")
    );
    assert_eq!(bare.asm_template(), None);
    // PTX ISA: whole 16-byte units; 1 to 5 tensor dimensions.
    assert!(tma_atom(TmaOp::Load, 64, Some(2)).is_err());
    assert!(tma_atom(TmaOp::Load, 128, Some(0)).is_err());
    assert!(bulk_copy_atom(BulkCopyOp::G2S, 0).is_err());
}
