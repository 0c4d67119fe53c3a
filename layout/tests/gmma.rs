//! GMMA shared-memory atoms, wgmma descriptors and TMA box layouts against their definitions:
//! CuTe's atom definitions (`include/cute/atom/mma_traits_sm90_gmma.hpp`), the canonical
//! layouts of the PTX ISA's wgmma "Shared Memory Matrix Layout" (as CuTe's `make_gmma_desc`
//! comments spell them, in 16-byte units), and closed forms of the descriptor fields of tiled
//! atoms derived by hand below.

use tessel_layout::gmma::{
    GmmaDescriptor, Major, SwizzleMode, check_box_matches, gmma_descriptor, smem_atom,
    smem_atom_bits, tma_box_layout,
};
use tessel_layout::{ComposedLayout, IntTuple, Layout, composition};

/// 16-byte chunks per swizzled row.
fn chunks(mode: SwizzleMode) -> i64 {
    mode.span_bytes() / 16
}

#[test]
fn bit_atoms_are_cute_definitions() {
    // CuTe: Layout_{MN,K}_{INTER,SW32,SW64,SW128}_Atom_Bits, swizzle Swizzle<B,4,3> on bytes.
    let cases = [
        (Major::MN, SwizzleMode::None, "(128,8):(1,128)"),
        (Major::MN, SwizzleMode::B32, "Sw<1,7,3> o (256,8):(1,256)"),
        (Major::MN, SwizzleMode::B64, "Sw<2,7,3> o (512,8):(1,512)"),
        (
            Major::MN,
            SwizzleMode::B128,
            "Sw<3,7,3> o (1024,8):(1,1024)",
        ),
        (Major::K, SwizzleMode::None, "(8,128):(128,1)"),
        (Major::K, SwizzleMode::B32, "Sw<1,7,3> o (8,256):(256,1)"),
        (Major::K, SwizzleMode::B64, "Sw<2,7,3> o (8,512):(512,1)"),
        (Major::K, SwizzleMode::B128, "Sw<3,7,3> o (8,1024):(1024,1)"),
    ];
    for (major, mode, want) in cases {
        assert_eq!(
            smem_atom_bits(major, mode).to_string(),
            want,
            "{major} {mode}"
        );
    }
}

#[test]
fn element_atoms_are_upcast_bit_atoms() {
    // The known fact (CuTe's GMMA layout atoms): 16-bit K-major SW128 is Sw<3,3,3> o (8,64):(64,1).
    assert_eq!(
        smem_atom(Major::K, SwizzleMode::B128, 16)
            .unwrap()
            .to_string(),
        "Sw<3,3,3> o (8,64):(64,1)"
    );
    for major in [Major::K, Major::MN] {
        for mode in SwizzleMode::ALL {
            for bits in [8, 16, 32] {
                let atom = smem_atom(major, mode, bits).unwrap();
                let bytes = mode.span_bytes() * 8;
                // Compact: 8 rows of one swizzled row each, every element once.
                assert_eq!(atom.layout().size() * bits / 8, bytes, "{atom}");
                let mut offsets = atom.offsets();
                offsets.sort_unstable();
                assert_eq!(
                    offsets,
                    (0..atom.layout().size()).collect::<Vec<_>>(),
                    "{atom}"
                );
                // Element (mn, k) lies at byte Sw<B,4,3>(row * span + column * elem_bytes).
                let eb = bits / 8;
                let (rows_mode, cols_mode) = if major == Major::K { (0, 1) } else { (1, 0) };
                let shape = atom.layout().shape();
                let (n0, n1) = (
                    shape.modes().get(0).unwrap().product().unwrap(),
                    shape.modes().get(1).unwrap().product().unwrap(),
                );
                for i1 in 0..n1 {
                    for i0 in 0..n0 {
                        let c = [i0, i1];
                        let (row, col) = (c[rows_mode], c[cols_mode]);
                        let want = mode
                            .byte_swizzle()
                            .apply(row * mode.span_bytes() + col * eb);
                        assert_eq!(
                            atom.offset(i0 + n0 * i1).unwrap() * eb,
                            want,
                            "{atom} at ({i0},{i1})"
                        );
                    }
                }
            }
        }
    }
    assert!(smem_atom(Major::K, SwizzleMode::B128, 256).is_err());
}

/// The canonical layout of the module table as a tessel layout over (mn, 16-byte unit of k) or
/// (16-byte unit of mn, k), in 16-byte units, for `mn` rows and the 32 bytes of K.
fn canonical_units(
    major: Major,
    mode: SwizzleMode,
    mn: i64,
    elem_bytes: i64,
    lbo: i64,
    sbo: i64,
) -> Layout {
    let t = 16 / elem_bytes;
    let w = chunks(mode);
    let (l, s) = (lbo / 16, sbo / 16);
    let text = match (major, mode) {
        (Major::K, SwizzleMode::None) => format!("((8,{}),2):((1,{s}),{l})", mn / 8),
        (Major::K, _) => format!("((8,{}),2):(({w},{s}),1)", mn / 8),
        (Major::MN, SwizzleMode::None) => format!("({},(8,2)):({s},(1,{l}))", mn / t),
        (Major::MN, _) => format!("(({w},{}),(8,2)):((1,{l}),({w},{s}))", mn / t / w),
    };
    text.parse().unwrap()
}

#[test]
fn descriptor_addresses_are_the_canonical_layouts() {
    let elem_bytes = 2;
    let t = 8;
    for major in [Major::K, Major::MN] {
        for mode in SwizzleMode::ALL {
            let w = chunks(mode);
            for (lbo, sbo) in [(256, 2048), (4096, 512), (1024, 1024)] {
                let mn = if major == Major::MN { 2 * w * t } else { 64 };
                let d = GmmaDescriptor {
                    major,
                    mode,
                    start_address: 2048,
                    leading_byte_offset: lbo,
                    stride_byte_offset: sbo,
                    base_offset: 0,
                };
                let units = canonical_units(major, mode, mn, elem_bytes, lbo, sbo);
                for k in 0..16 {
                    for m in 0..mn {
                        // Index the unit layout: K-major units are (mn, k / t), MN-major (mn / t, k).
                        let (index, within) = match major {
                            Major::K => (m + mn * (k / t), (k % t) * elem_bytes),
                            Major::MN => (m / t + (mn / t) * k, (m % t) * elem_bytes),
                        };
                        let unit = units.offset(index).unwrap();
                        let want = mode.byte_swizzle().apply(2048 + 16 * unit + within);
                        assert_eq!(
                            d.address(m, k, elem_bytes),
                            want,
                            "{major} {mode} {units} at ({m},{k})"
                        );
                    }
                }
            }
        }
    }
}

/// The wgmma operand of k-block `kb` (32 bytes of K) of `stage` (mode 0 MN, mode 1 K).
fn k_block(stage: &ComposedLayout, mn: i64, kb: i64, elem_bytes: i64) -> ComposedLayout {
    let kblk = 32 / elem_bytes;
    let pick: Layout = format!("({mn},{kblk}):(1,{mn})").parse().unwrap();
    let inner = composition(stage.layout(), &pick).unwrap();
    let shift = stage.layout().offset(mn * kblk * kb).unwrap();
    ComposedLayout::new(
        stage.swizzles().to_vec(),
        stage.base_offset() + shift,
        inner,
    )
}

#[test]
fn descriptors_of_tiled_atoms_have_the_closed_form_fields() {
    // A stage is tile_to_shape(atom, (MN, K)), atoms stacked along MN first. Closed forms, in
    // bytes, with R = 16 W the swizzled row and A = 8 R the atom:
    // - K-major, swizzled: SBO = A (the next 8 rows are the next atom), LBO 16 (unused);
    //   k-block kb starts 32 kb bytes into the row, in K-atom 32 kb / R, whose atoms start
    //   (MN / 8) A bytes apart.
    // - K-major, none: atoms are 8x8 core matrices of 128 bytes; SBO = 128, LBO = (MN/8) 128.
    // - MN-major, swizzled: an atom is W T elements of MN by 8 of K; LBO = A (next atom along
    //   MN), SBO = (MN / (W T)) A (next 8 of K); k-block kb starts 2 kb such column groups in.
    // - MN-major, none: atoms are T x 8; SBO = 128 (next along MN), LBO = (MN / T) 128.
    let base = 4096;
    for elem_bits in [8, 16, 32] {
        let eb = elem_bits / 8;
        let t = 16 / eb;
        for major in [Major::K, Major::MN] {
            if major == Major::MN && eb != 2 {
                continue;
            }
            for mode in SwizzleMode::ALL {
                let w = chunks(mode);
                let atom_bytes = 128 * w;
                let atom = smem_atom(major, mode, elem_bits).unwrap();
                let mn = if major == Major::K { 128 } else { 2 * w * t };
                let k_total = 4 * 32 / eb; // four k-blocks
                let stage = atom
                    .tile_to_shape(&IntTuple::from_ints([mn, k_total]))
                    .unwrap();
                for kb in 0..4 {
                    let op = k_block(&stage, mn, kb, eb);
                    let d = gmma_descriptor(&op, eb, base, Some(major)).unwrap_or_else(|e| {
                        panic!("{major} {mode} {elem_bits}-bit k-block {kb}: {e}")
                    });
                    let (start, lbo, sbo) = match (major, mode) {
                        (Major::K, SwizzleMode::None) => {
                            (base + kb * 2 * (mn / 8) * 128, (mn / 8) * 128, 128)
                        }
                        (Major::K, _) => {
                            let row = 16 * w;
                            let (atom_k, within) = ((32 * kb) / row, (32 * kb) % row);
                            (
                                base + atom_k * (mn / 8) * atom_bytes + within,
                                16,
                                atom_bytes,
                            )
                        }
                        (Major::MN, SwizzleMode::None) => {
                            (base + kb * 2 * (mn / t) * 128, (mn / t) * 128, 128)
                        }
                        (Major::MN, _) => {
                            let per_col = (mn / (w * t)) * atom_bytes;
                            (base + kb * 2 * per_col, atom_bytes, per_col)
                        }
                    };
                    let want = (mode, start, lbo, sbo);
                    let got = (
                        d.mode,
                        d.start_address,
                        d.leading_byte_offset,
                        d.stride_byte_offset,
                    );
                    assert_eq!(
                        got, want,
                        "{major} {mode} {elem_bits}-bit k-block {kb} of {stage}"
                    );
                    // Inferring the major mode finds the same descriptor.
                    assert_eq!(gmma_descriptor(&op, eb, base, None).unwrap(), d);
                }
            }
        }
    }
}

#[test]
fn the_cute_canonical_sw128_k_major_descriptor() {
    // The descriptor CUTLASS examples build by hand for a 128B-swizzled K-major fp16 operand
    // (64 rows): layout type 1, LBO field 1 (unused), SBO field 64 (1024 bytes = 8 rows of 128B).
    let atom = smem_atom(Major::K, SwizzleMode::B128, 16).unwrap();
    let stage = atom.tile_to_shape(&IntTuple::from_ints([64, 64])).unwrap();
    let d = gmma_descriptor(&k_block(&stage, 64, 0, 2), 2, 0, Some(Major::K)).unwrap();
    let bits = d.encode().unwrap();
    assert_eq!(bits >> 62, 1);
    assert_eq!((bits >> 16) & 0x3fff, 1);
    assert_eq!((bits >> 32) & 0x3fff, 64);
    assert_eq!(bits & 0x3fff, 0);
}

#[test]
fn layouts_no_descriptor_expresses_are_errors() {
    let err = |text: &str, eb: i64, base: i64, major: Option<Major>| {
        let l: ComposedLayout = text.parse().unwrap();
        gmma_descriptor(&l, eb, base, major)
            .unwrap_err()
            .to_string()
    };
    // Rows padded by 8 halves: row 1 is 144 bytes from row 0, not 16 (none) or 128 (128B).
    let e = err("(64,16):(72,1)", 2, 0, None);
    assert!(
        e.contains("as K-major") && e.contains("element (1,0) is at byte 144"),
        "{e}"
    );
    // K of 32 halves is two instructions.
    let e = err("(64,32):(32,1)", 2, 0, Some(Major::K));
    assert!(e.contains("32 bytes of K"), "{e}");
    // Sw<3,3,3> on fp32 is Sw<3,5,3> on bytes.
    let e = err("Sw<3,3,3> o ((8,8),8):((64,512),1)", 4, 0, Some(Major::K));
    assert!(e.contains("Sw<3,5,3> on bytes"), "{e}");
    // Two swizzles.
    let e = err(
        "Sw<1,3,3> o Sw<3,3,3> o ((8,8),16):((64,512),1)",
        2,
        0,
        Some(Major::K),
    );
    assert!(e.contains("chains 2 swizzles"), "{e}");
    // A 128B-swizzled tile at byte 128 sees a different swizzle pattern from the hardware's.
    let e = err(
        "Sw<3,3,3> o ((8,8),16):((64,512),1)",
        2,
        128,
        Some(Major::K),
    );
    assert!(e.contains("multiple of 1024 bytes"), "{e}");
    // MN-major tf32.
    let e = err("(64,8):(1,64)", 4, 0, Some(Major::MN));
    assert!(e.contains("16-bit"), "{e}");
    // The 32B swizzle with 128-byte rows: the 16-byte chunks of row 1 are not XORed as the
    // descriptor's 128B rows would be.
    let e = err("Sw<1,3,3> o ((8,8),16):((64,512),1)", 2, 0, Some(Major::K));
    assert!(e.contains("element ("), "{e}");
    // A start at byte 262144, past the 14 bits of (address >> 4).
    let e = err(
        "131072 o ((8,8),(8,2)):((8,64),(1,512))",
        2,
        0,
        Some(Major::K),
    );
    assert!(e.contains("start address"), "{e}");
}

#[test]
fn tma_boxes_write_the_gmma_atoms() {
    for elem_bytes in [1i64, 2, 4] {
        for mode in SwizzleMode::ALL {
            let span = mode.span_bytes() / elem_bytes;
            // K-major: a box of one swizzled row of K by 64 rows of MN.
            let atom = smem_atom(Major::K, mode, 8 * elem_bytes).unwrap();
            let stage = atom
                .tile_to_shape(&IntTuple::from_ints([64, span]))
                .unwrap();
            let boxed = tma_box_layout(&[span, 64], elem_bytes, mode).unwrap();
            check_box_matches(&boxed, &stage, Major::K).unwrap_or_else(|e| panic!("{e}"));
            if elem_bytes == 2 {
                // MN-major: a box of one swizzled row of MN by 16 of K.
                let atom = smem_atom(Major::MN, mode, 16).unwrap();
                let stage = atom
                    .tile_to_shape(&IntTuple::from_ints([span, 16]))
                    .unwrap();
                let boxed = tma_box_layout(&[span, 16], 2, mode).unwrap();
                check_box_matches(&boxed, &stage, Major::MN).unwrap_or_else(|e| panic!("{e}"));
            }
        }
    }
}

#[test]
fn tma_box_mismatches_name_the_first_element() {
    // A 64B-swizzled box of 32 halves x 16 rows against Sw<3,3,3> over the same 64-byte rows:
    // both leave rows 0-7 alike (bit 8 is clear), but row 8 (element offset 256) has bit 8
    // set, which Sw<3,3,3> moves to bit 5 and Sw<2,3,3> ignores: 256 against 288.
    let boxed = tma_box_layout(&[32, 16], 2, SwizzleMode::B64).unwrap();
    let expected: ComposedLayout = "Sw<3,3,3> o (16,32):(32,1)".parse().unwrap();
    let e = check_box_matches(&boxed, &expected, Major::K)
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("(mn,k) = (8,0) is written at element offset 256 but expected at 288"),
        "{e}"
    );
    // Box limits.
    assert!(tma_box_layout(&[8, 300], 2, SwizzleMode::None).is_err());
    assert!(
        tma_box_layout(&[4, 8], 2, SwizzleMode::None)
            .unwrap_err()
            .to_string()
            .contains("multiple of 16")
    );
    assert!(tma_box_layout(&[], 2, SwizzleMode::None).is_err());
}

#[test]
fn huge_bases_and_offsets_are_errors_not_overflows() {
    // An 8x8 fp32 K-major operand at byte i64::MAX: tile_base + 4 * offset overflows i64; the
    // descriptor's start address is 14 bits of (bytes >> 4), so every such base is refused.
    let op: ComposedLayout = "(8,8):(8,1)".parse().unwrap();
    for (base, major) in [
        (i64::MAX, None),
        (i64::MAX, Some(Major::K)),
        (i64::MIN, Some(Major::K)),
        (i64::MAX - 64, Some(Major::K)),
    ] {
        let e = gmma_descriptor(&op, 4, base, major)
            .unwrap_err()
            .to_string();
        assert!(e.contains("byte"), "{base}: {e}");
    }
    // Offsets whose bytes overflow i64 inside the layout.
    let far: ComposedLayout = "(8,8):(576460752303423488,1)".parse().unwrap();
    let e = gmma_descriptor(&far, 4, 0, Some(Major::K))
        .unwrap_err()
        .to_string();
    assert!(e.contains("overflow") || e.contains("byte"), "{e}");
    // GmmaDescriptor::address saturates instead of overflowing for fields no descriptor encodes.
    let d = GmmaDescriptor {
        major: Major::K,
        mode: SwizzleMode::None,
        start_address: i64::MAX,
        leading_byte_offset: i64::MAX,
        stride_byte_offset: i64::MAX,
        base_offset: 0,
    };
    assert!(d.encode().is_err());
    let _ = d.address(255, 31, 1);
}

#[test]
fn fp8_operands_of_the_fp8_gmma_atoms() {
    use tessel_layout::atom::mma_atom;
    // CuTe mma_traits_sm90_gmma.hpp: GMMA::Layout_K_SW128_Atom<T> = upcast<sizeof_bits<T>>(
    // Layout_K_SW128_Atom_Bits), the bits atom Sw<3,4,3> o smem_ptr_flag o (8,1024):(1024,1):
    // for float_e4m3_t, 8 rows of 128 one-byte elements under the byte swizzle itself.
    let atom = smem_atom(Major::K, SwizzleMode::B128, 8).unwrap();
    assert_eq!(atom.to_string(), "Sw<3,4,3> o (8,128):(128,1)");
    assert_eq!(
        smem_atom(Major::K, SwizzleMode::B64, 8)
            .unwrap()
            .to_string(),
        "Sw<2,4,3> o (8,64):(64,1)"
    );
    // Layout_K_SW32_Atom_Bits = Sw<1,4,3> o (8,256):(256,1) and Layout_K_INTER_Atom_Bits =
    // Sw<0,4,3> o (8,128):(128,1) (the identity swizzle) upcast to 8-bit elements.
    assert_eq!(
        smem_atom(Major::K, SwizzleMode::B32, 8)
            .unwrap()
            .to_string(),
        "Sw<1,4,3> o (8,32):(32,1)"
    );
    assert_eq!(
        smem_atom(Major::K, SwizzleMode::None, 8)
            .unwrap()
            .layout()
            .to_string(),
        "(8,16):(16,1)"
    );
    // The k32 blocks of 8-bit K-major stages of each swizzle (64 rows by 128 elements): SW32
    // rows hold one k-block (the next is the next column of atoms, (64/8) 256 bytes on), SW64
    // two, SW128 four; SBO the atom (8 rows of the swizzled row), LBO 16 (unused).
    for (mode, row) in [
        (SwizzleMode::B32, 32),
        (SwizzleMode::B64, 64),
        (SwizzleMode::B128, 128),
    ] {
        let stage = smem_atom(Major::K, mode, 8)
            .unwrap()
            .tile_to_shape(&IntTuple::from_ints([64, 128]))
            .unwrap();
        for kb in 0..4 {
            let d = gmma_descriptor(&k_block(&stage, 64, kb, 1), 1, 0, Some(Major::K)).unwrap();
            let (atom_k, within) = (32 * kb / row, 32 * kb % row);
            assert_eq!(
                (
                    d.mode,
                    d.start_address,
                    d.leading_byte_offset,
                    d.stride_byte_offset
                ),
                (mode, atom_k * 8 * (8 * row) + within, 16, 8 * row),
                "{mode} k-block {kb}"
            );
        }
    }
    // The FP8 GMMA atom reads K = 32 elements: one descriptor's 32 bytes (PTX ISA wgmma k32).
    let g = mma_atom("SM90_64x128x32_F32E4M3E4M3_SS_TN").unwrap();
    let [m, n, k] = g.shape_mnk();
    assert_eq!(k, 32);
    // Stages of 64 (A) and 128 (B) rows by 128 fp8: four k-blocks of 32 bytes per 128-byte
    // swizzled row, each a K-major 128B descriptor: SBO = 1024 (8 rows of 128 bytes),
    // LBO 16 (unused), the start 32 bytes further per k-block (the closed form of
    // descriptors_of_tiled_atoms_have_the_closed_form_fields, for 1-byte elements).
    for (rows, what) in [(m, "A"), (n, "B")] {
        let stage = atom
            .tile_to_shape(&IntTuple::from_ints([rows, 128]))
            .unwrap();
        for kb in 0..4 {
            let op = k_block(&stage, rows, kb, 1);
            let d = gmma_descriptor(&op, 1, 0, Some(Major::K)).unwrap();
            assert_eq!(
                (
                    d.mode,
                    d.start_address,
                    d.leading_byte_offset,
                    d.stride_byte_offset
                ),
                (SwizzleMode::B128, 32 * kb, 16, 1024),
                "{what} k-block {kb}"
            );
        }
    }
    // PTX ISA wgmma: only .f16/.bf16 operands may be MN-major (transposed); e4m3/e5m2 are K-major.
    let mn = smem_atom(Major::MN, SwizzleMode::B128, 8)
        .unwrap()
        .tile_to_shape(&IntTuple::from_ints([256, 32]))
        .unwrap();
    let err = gmma_descriptor(&mn, 1, 0, Some(Major::MN))
        .unwrap_err()
        .to_string();
    assert!(err.contains("16-bit"), "{err}");
}
