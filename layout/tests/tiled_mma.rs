//! Tiled MMAs against their definition (CuTe `include/cute/atom/mma_atom.hpp` and
//! `media/docs/cpp/cute/0t_mma_atom.md`, "TiledMMAs": the atom layout replicates the atom's
//! thread/value pattern over threads, atom `a` covering block `(am, an)` of the tile; a
//! permutation of a mode scatters the tile coordinates: coordinate `i` of the permuted tile is
//! coordinate `P(i)` of the data). The expected values are computed from the atom's own
//! layouts and the atom layout, not by the tiled MMA.

use tessel_layout::atom::{MmaAtom, mma_atom};
use tessel_layout::tiled::{TiledMma, make_tiled_mma};
use tessel_layout::{IntTuple, Layout};

fn l(s: &str) -> Layout {
    s.parse().unwrap()
}

fn tv(x: &Layout, t: i64, v: i64) -> i64 {
    x.offset(t + x.mode(0).unwrap().size() * v).unwrap()
}

/// `(row, col)` of the atom's TV layout `layout` in an `rows`-row tile.
fn atom_rc(layout: &Layout, rows: i64, lane: i64, v: i64) -> (i64, i64) {
    let i = tv(layout, lane, v);
    (i % rows, i / rows)
}

/// The atom index of thread `t` and its block `(am, an)` in the atom layout `(AM, AN)`.
fn block_of(atoms: &Layout, threads_per_atom: i64, t: i64) -> (i64, i64) {
    let a = t / threads_per_atom;
    let am_n = atoms.mode(0).unwrap().size();
    // Find the (am, an) that the atom layout maps to `a`.
    for an in 0..atoms.mode(1).unwrap().size() {
        for am in 0..am_n {
            if atoms.crd2idx(&IntTuple::from_ints([am, an])).unwrap() == a {
                return (am, an);
            }
        }
    }
    panic!("atom {a} not in {atoms}")
}

fn check_tiled(atom: &MmaAtom, atoms: &str) {
    let atoms = l(atoms);
    let mma = make_tiled_mma(atom, &atoms, &[]).unwrap();
    let [am, an, ak] = atom.shape_mnk();
    let tpa = atom.threads();
    let (big_m, big_n) = (
        am * atoms.mode(0).unwrap().size(),
        an * atoms.mode(1).unwrap().size(),
    );
    assert_eq!(mma.threads(), tpa * atoms.size());
    assert_eq!(
        (
            mma.tile_size(0).unwrap(),
            mma.tile_size(1).unwrap(),
            mma.tile_size(2).unwrap()
        ),
        (big_m, big_n, ak)
    );
    let (c, a, b) = (
        mma.layout_c_tv().unwrap(),
        mma.layout_a_tv().unwrap(),
        mma.layout_b_tv().unwrap(),
    );
    for t in 0..mma.threads() {
        let (bm, bn) = block_of(&atoms, tpa, t);
        let lane = t % tpa;
        for v in 0..atom.c_layout().mode(1).unwrap().size() {
            let (r, col) = atom_rc(atom.c_layout(), am, lane, v);
            assert_eq!(
                tv(&c, t, v),
                (r + am * bm) + big_m * (col + an * bn),
                "C t{t} v{v}"
            );
        }
        for v in 0..atom.a_layout().mode(1).unwrap().size() {
            let (r, k) = atom_rc(atom.a_layout(), am, lane, v);
            assert_eq!(tv(&a, t, v), (r + am * bm) + big_m * k, "A t{t} v{v}");
        }
        for v in 0..atom.b_layout().mode(1).unwrap().size() {
            let (r, k) = atom_rc(atom.b_layout(), an, lane, v);
            assert_eq!(tv(&b, t, v), (r + an * bn) + big_n * k, "B t{t} v{v}");
        }
    }
}

#[test]
fn tiled_layouts_replicate_the_atom_over_its_blocks() {
    let sm80 = mma_atom("SM80_16x8x16_F32F16F16F32_TN").unwrap();
    for atoms in [
        "(1,1):(0,0)",
        "(2,2):(1,2)",
        "(2,2):(2,1)",
        "(4,1):(1,0)",
        "(2,4):(4,1)",
    ] {
        check_tiled(&sm80, atoms);
    }
    check_tiled(
        &mma_atom("SM80_16x8x8_F16F16F16F16_TN").unwrap(),
        "(2,2):(1,2)",
    );
    // Two warpgroups of 64x64 wgmma along M; A and B come whole from shared memory.
    check_tiled(
        &mma_atom("SM90_64x64x16_F32F16F16_RS").unwrap(),
        "(2,1):(1,0)",
    );
    check_tiled(
        &mma_atom("SM90_64x32x16_F16F16F16_SS").unwrap(),
        "(2,1):(1,0)",
    );
}

/// Each thread's partition of a larger tensor: partition index `v + V*(rm + RM*rn)` is the
/// tensor element at the tiled C coordinate of `(t, v)` in tile `(rm, rn)`.
fn check_partition_c(mma: &TiledMma, data: &Layout) {
    let c = mma.layout_c_tv().unwrap();
    let (tm, tn) = (mma.tile_size(0).unwrap(), mma.tile_size(1).unwrap());
    let (dm, dn) = (data.mode(0).unwrap().size(), data.mode(1).unwrap().size());
    let (rm, rn) = (dm / tm, dn / tn);
    let values = c.mode(1).unwrap().size();
    let mut touched = vec![0; data.cosize() as usize];
    for t in 0..mma.threads() {
        let (p, off) = mma.get_slice(t).unwrap().partition_c(data).unwrap();
        assert_eq!(p.size(), values * rm * rn);
        for j in 0..rn {
            for i in 0..rm {
                for v in 0..values {
                    let x = tv(&c, t, v);
                    let (m, n) = (x % tm + tm * i, x / tm + tn * j);
                    let want = data.crd2idx(&IntTuple::from_ints([m, n])).unwrap();
                    assert_eq!(off + p.offset(v + values * (i + rm * j)).unwrap(), want);
                    touched[want as usize] += 1;
                }
            }
        }
    }
    assert!(touched.iter().all(|&k| k == 1));
}

#[test]
fn partition_c_covers_a_larger_tensor_tile_by_tile() {
    let mma = make_tiled_mma(
        &mma_atom("SM80_16x8x16_F32F16F16F32_TN").unwrap(),
        &l("(2,2):(1,2)"),
        &[],
    )
    .unwrap();
    check_partition_c(&mma, &l("(64,32):(32,1)"));
    check_partition_c(&mma, &l("(32,48):(1,32)"));
    assert_eq!(
        mma.partition_shape_c(&[64, 32]).unwrap().to_string(),
        "((2,2),2,2)"
    );
}

#[test]
fn partitions_of_a_and_b_agree_with_the_tv_layouts() {
    let mma = make_tiled_mma(
        &mma_atom("SM80_16x8x16_F32F16F16F32_TN").unwrap(),
        &l("(2,2):(1,2)"),
        &[],
    )
    .unwrap();
    let (a_tv, b_tv) = (mma.layout_a_tv().unwrap(), mma.layout_b_tv().unwrap());
    let s_a = l("(32,16):(16,1)"); // one tile, row-major (K-major)
    let s_b = l("(16,16):(16,1)");
    for t in 0..128 {
        let thr = mma.get_slice(t).unwrap();
        let (pa, oa) = thr.partition_a(&s_a).unwrap();
        for v in 0..8 {
            let x = tv(&a_tv, t, v);
            let want = s_a.crd2idx(&IntTuple::from_ints([x % 32, x / 32])).unwrap();
            assert_eq!(oa + pa.offset(v).unwrap(), want, "A t{t} v{v}");
        }
        let (pb, ob) = thr.partition_b(&s_b).unwrap();
        for v in 0..4 {
            let x = tv(&b_tv, t, v);
            let want = s_b.crd2idx(&IntTuple::from_ints([x % 16, x / 16])).unwrap();
            assert_eq!(ob + pb.offset(v).unwrap(), want, "B t{t} v{v}");
        }
    }
}

#[test]
fn a_permutation_scatters_the_tile_coordinates() {
    // CuTe 0t_mma_atom.md: a permutation tiler P of a mode puts coordinate i of the tiled MMA
    // at coordinate P(i) of the data. Two atoms along N with N permuted by (8,2,2):(1,16,8).
    let atom = mma_atom("SM80_16x8x16_F32F16F16F32_TN").unwrap();
    let plain = make_tiled_mma(&atom, &l("(1,2):(0,1)"), &[]).unwrap();
    // Without a permutation the two atoms cover N = 16; with one, each atom repeats over 32.
    let perm = l("(8,2,2):(1,16,8)");
    let mma = make_tiled_mma(&atom, &l("(1,2):(0,1)"), &[None, Some(perm.clone())]).unwrap();
    assert_eq!(mma.tile_size(1).unwrap(), 32);
    let (c0, c) = (plain.layout_c_tv().unwrap(), mma.layout_c_tv().unwrap());
    assert_eq!(c.mode(1).unwrap().size(), 2 * c0.mode(1).unwrap().size());
    for t in 0..64 {
        for v in 0..c.mode(1).unwrap().size() {
            // Value v = v0 + 4*r: r repeats the unpermuted 16 columns at i + 16 r.
            let (v0, r) = (v % 4, v / 4);
            let x = tv(&c0, t, v0);
            let (m, i) = (x % 16, x / 16 + 16 * r);
            assert_eq!(tv(&c, t, v), m + 16 * perm.offset(i).unwrap(), "t{t} v{v}");
        }
    }
}

#[test]
fn thread_coordinates_and_errors() {
    let mma = make_tiled_mma(
        &mma_atom("SM90_64x128x16_F32BF16BF16_SS").unwrap(),
        &l("(2,1):(1,0)"),
        &[],
    )
    .unwrap();
    assert_eq!(mma.thr_layout_vmnk().to_string(), "(128,2,1,1):(1,128,0,0)");
    assert_eq!(mma.get_slice(200).unwrap().coord(), [72, 1, 0, 0]);
    assert!(mma.get_slice(256).is_err());
    // The SS operands broadcast: every thread of a warpgroup sees all of A's 64x16 block.
    let a = mma.layout_a_tv().unwrap();
    assert_eq!(tv(&a, 5, 17), tv(&a, 100, 17));
    let atom = mma_atom("SM80_16x8x8_F16F16F16F16_TN").unwrap();
    let err = make_tiled_mma(&atom, &l("(2,2,2,2):(1,2,4,8)"), &[]).unwrap_err();
    assert!(err.message().contains("three modes"), "{err}");
    assert!(mma.thrfrg_c(&l("64:1")).is_err());
}

#[test]
fn thread_coordinates_invert_the_thread_layout() {
    // Definition: get_slice(t).coord() is the (v, m, n, k) whose offset under the thread
    // layout is t; found here by enumerating the layout, for column- and row-major atom grids.
    let atom = mma_atom("SM80_16x8x16_F32F16F16F32_TN").unwrap();
    for atoms in [
        "(2,2):(1,2)",
        "(2,2):(2,1)",
        "(2,1,2):(2,1,1)",
        "(4,2):(2,1)",
    ] {
        let mma = make_tiled_mma(&atom, &l(atoms), &[]).unwrap();
        let vmnk = mma.thr_layout_vmnk().clone();
        let sizes: Vec<i64> = (0..4).map(|k| vmnk.mode(k).unwrap().size()).collect();
        for index in 0..vmnk.size() {
            let t = vmnk.offset(index).unwrap();
            let mut rest = index;
            let want: Vec<i64> = sizes
                .iter()
                .map(|&s| {
                    let c = rest % s;
                    rest /= s;
                    c
                })
                .collect();
            assert_eq!(
                mma.get_slice(t).unwrap().coord().to_vec(),
                want,
                "{atoms} thread {t}"
            );
        }
    }
    // A huge grid of atoms: the coordinate is computed, not searched for.
    let mma = make_tiled_mma(&atom, &l("(100000,100000):(1,100000)"), &[]).unwrap();
    let t = 32 * (7 + 100000 * 9) + 5;
    assert_eq!(mma.get_slice(t).unwrap().coord(), [5, 7, 9, 0]);
    assert!(mma.get_slice(-1).is_err());
}

#[test]
fn the_gemm_accumulator_layout_is_a_permuted_tiled_mma() {
    // The SM80 GEMM's C fragments as the kernel first spelled them by hand (it now takes them
    // from this tiled MMA): a 128 x 128 block tile, 2 x 2
    // warps of 64 x 64, each warp 4 x 8 SM80 16x8 atoms; thread t = lane + 32 (wm + 2 wn),
    // value (v, mi, ni) at row 16 mi + 64 wm + r, column 8 ni + 64 wn + c, where (r, c) is the
    // atom's C fragment. Re-derived here; it is make_tiled_mma over (2,2) warps with M and N
    // permuted so each warp's atoms are contiguous.
    let atom = mma_atom("SM80_16x8x16_F32F16F16F32_TN").unwrap();
    let mma = make_tiled_mma(
        &atom,
        &l("(2,2):(1,2)"),
        &[Some(l("(16,2,4):(1,64,16)")), Some(l("(8,2,8):(1,64,8)"))],
    )
    .unwrap();
    assert_eq!(
        (mma.tile_size(0).unwrap(), mma.tile_size(1).unwrap()),
        (128, 128)
    );
    let tile = l("(128,128):(1,128)");
    for t in 0..128 {
        let (lane, w) = (t % 32, t / 32);
        let (wm, wn) = (w % 2, w / 2);
        let (p, off) = mma.get_slice(t).unwrap().partition_c(&tile).unwrap();
        assert_eq!(p.size(), 4 * 4 * 8);
        for ni in 0..8 {
            for mi in 0..4 {
                for v in 0..4 {
                    let (r, c) = atom_rc(atom.c_layout(), 16, lane, v);
                    let (m, n) = (16 * mi + 64 * wm + r, 8 * ni + 64 * wn + c);
                    let idx = v + 4 * (mi + 4 * ni);
                    assert_eq!(
                        off + p.offset(idx).unwrap(),
                        m + 128 * n,
                        "t{t} v{v} mi{mi} ni{ni}"
                    );
                }
            }
        }
    }
}

#[test]
fn a_permutation_must_be_a_bijection_of_its_tile() {
    // CuTe 0t_mma_atom.md ("TiledMMAs"): the permutation of a mode reorders the tile's
    // coordinates, so it maps 0..size onto 0..size exactly once each. 16:2 reaches only the
    // even rows up to 30 (twice the 16-row tile) and 16:0 only row 0: before this check the C
    // TV layout of the first mapped 256 (thread, value) pairs onto 144 offsets of the 128-element
    // tile (offsets outside it and offsets reached twice), checked here by its definition.
    let atom = mma_atom("SM80_16x8x16_F32F16F16F32_TN").unwrap();
    for bad in ["16:2", "16:0", "(8,2):(1,16)", "4:-1"] {
        let err =
            make_tiled_mma(&atom, &l("(1,1,1):(0,0,0)"), &[Some(l(bad)), None, None]).unwrap_err();
        assert!(
            err.message().contains("not a bijection") && err.message().contains(bad),
            "{bad}: {err}"
        );
    }
    // The admissible ones are bijections onto their size (permutations of a compact layout).
    for good in ["16:1", "(8,2):(2,1)", "(2,8,2):(1,4,2)"] {
        let mma = make_tiled_mma(&atom, &l("1:0"), &[Some(l(good))]).unwrap();
        let c = mma.layout_c_tv().unwrap();
        let tile = mma.tile_size(0).unwrap() * mma.tile_size(1).unwrap();
        let mut offsets = c.offsets();
        offsets.sort_unstable();
        let each_once: Vec<i64> = (0..tile).collect();
        assert_eq!(offsets, each_once, "{good}");
    }
    // The same in the expression language, as the finding was written.
    for bad in ["16:2", "16:0"] {
        let text = format!("make_tiled_mma(SM80_16x8x16_F32F16F16F32_TN, (1,1,1), {bad}, _, _)");
        let err = tessel_layout::expr::eval(&text).unwrap_err();
        assert!(err.message().contains("not a bijection"), "{text}: {err}");
    }
}

#[test]
fn the_sm70_tiled_mmas_of_cute_docs() {
    // CuTe media/docs/cpp/cute/0t_mma_atom.md (CUTLASS v4.2.1), "TiledMMAs":
    // make_tiled_mma(SM70_8x8x4_F32F16F16F32_NT{}, Layout<Shape<_2,_2>, Stride<_2,_1>>{},
    // Tile<_32,_32,_4>{}): "there are eight values that T0 receives from the A-matrix. Those reads
    // occur at coordinates T0V0 => (0,0) ... T0V3 => (3,0), T0V4 => (16,0) ... T0V7 => (19,0)".
    let atom = mma_atom("SM70_8x8x4_F32F16F16F32_NT").unwrap();
    let atoms = l("(2,2):(2,1)");
    let mma = make_tiled_mma(
        &atom,
        &atoms,
        &[Some(l("32:1")), Some(l("32:1")), Some(l("4:1"))],
    )
    .unwrap();
    let a = mma.layout_a_tv().unwrap();
    let t0: Vec<i64> = (0..8).map(|v| tv(&a, 0, v)).collect();
    assert_eq!(t0, [0, 1, 2, 3, 16, 17, 18, 19]); // (m, 0) -> m + 32 * 0
    // "Each quadrant of the C-matrix is a replica of the atom's partitioning pattern for a new
    // quadpair": the 2x2 tiled MMA (tile 16x16x4) uses threads 0..31, the quadpair of atom
    // (am, an) at lanes + 8 am + 4 an (the (2,2):(2,1) atom layout over the quadpairs).
    let small = make_tiled_mma(&atom, &atoms, &[]).unwrap();
    assert_eq!(
        small.thr_layout_vmnk().to_string(),
        "((4,2),2,2,1):((1,16),8,4,0)"
    );
    assert_eq!(
        (
            small.tile_size(0).unwrap(),
            small.tile_size(1).unwrap(),
            small.tile_size(2).unwrap()
        ),
        (16, 16, 4)
    );
    // With M permuted by (4,4,2):(1,8,4) ("old m-coord 16..19 -> new 4..7"), T0's reads are
    // contiguous: (0,0) .. (7,0).
    let permuted = make_tiled_mma(
        &atom,
        &atoms,
        &[Some(l("(4,4,2):(1,8,4)")), Some(l("32:1")), Some(l("4:1"))],
    )
    .unwrap();
    let a = permuted.layout_a_tv().unwrap();
    let t0: Vec<i64> = (0..8).map(|v| tv(&a, 0, v)).collect();
    assert_eq!(t0, [0, 1, 2, 3, 4, 5, 6, 7]);
    // Every (thread, value) of C covers the 32x32 tile exactly once.
    let mut c = permuted.layout_c_tv().unwrap().offsets();
    c.sort_unstable();
    assert_eq!(c, (0..1024).collect::<Vec<_>>());
}

#[test]
fn universal_fma_tiles_place_values_by_their_permutations() {
    // CuTe examples/cute/tutorial/sgemm_2.cu (CUTLASS v4.2.1): make_tiled_mma(UniversalFMA,
    // Layout<Shape<_16,_16,_1>>) is a 16 x 16 grid of one-thread atoms, thread t = m + 16 n
    // (column-major atom layout). Without a permutation, thread (tm, tn) of a 128 x 128 tile
    // owns rows tm + 16 i and columns tn + 16 j (the atom tile repeats); a permutation P of a
    // mode moves coordinate x of the tiled MMA to P(x) (0t_mma_atom.md), here the rows
    // 8 tm + i of (16,8):(8,1).
    let fma = mma_atom("UniversalFMA<float,float,float,float>").unwrap();
    let c: Layout = l("(128,128):(1,128)");
    let plain = make_tiled_mma(&fma, &l("(16,16):(1,16)"), &[]).unwrap();
    let perm = l("(16,8):(8,1)");
    let permuted = make_tiled_mma(&fma, &l("(16,16):(1,16)"), &[Some(perm.clone())]).unwrap();
    assert_eq!(
        (plain.threads(), permuted.tile_size(0).unwrap()),
        (256, 128)
    );
    for t in 0..256 {
        let (tm, tn) = (t % 16, t / 16);
        for (mma, row) in [
            (
                &plain,
                Box::new(|i: i64| tm + 16 * i) as Box<dyn Fn(i64) -> i64>,
            ),
            (
                &permuted,
                Box::new(|i: i64| perm.offset(tm + 16 * i).unwrap()),
            ),
        ] {
            let (p, off) = mma.get_slice(t).unwrap().partition_c(&c).unwrap();
            assert_eq!(p.shape().to_string(), "(1,8,8)");
            for j in 0..8 {
                for i in 0..8 {
                    let want = row(i) + 128 * (tn + 16 * j);
                    assert_eq!(off + p.offset(i + 8 * j).unwrap(), want, "t{t} ({i},{j})");
                }
            }
        }
    }
    // A hierarchical atom layout (warps of interleaved lanes, as CUTLASS's SIMT GEMMs): the
    // M threads (lm, wm) = (8, 2) and N threads (ln0, ln1, wn) = (2, 2, 4) at thread indices
    // ln0 + 2 lm + 16 ln1 + 32 wm + 64 wn; rows 4 lm + 64 wm + e + 32 r (permutation
    // (8,2,4,2):(4,64,1,32) of x = lm + 8 wm + 16 (e + 4 r)).
    let atoms = l("((8,2),(2,2,4)):((2,32),(1,16,64))");
    let pm = l("(8,2,4,2):(4,64,1,32)");
    let pn = l("(4,4,4,2):(4,32,1,16)");
    let warp = make_tiled_mma(&fma, &atoms, &[Some(pm), Some(pn)]).unwrap();
    for t in 0..256 {
        let (lane, w) = (t % 32, t / 32);
        let (ln0, lm, ln1) = (lane % 2, (lane / 2) % 8, lane / 16);
        let (wm, wn) = (w % 2, w / 2);
        let ln = ln0 + 2 * ln1;
        let (p, off) = warp.get_slice(t).unwrap().partition_c(&c).unwrap();
        for j in 0..8 {
            for i in 0..8 {
                let m = 4 * lm + 64 * wm + i % 4 + 32 * (i / 4);
                let n = 4 * ln + 32 * wn + j % 4 + 16 * (j / 4);
                assert_eq!(
                    off + p.offset(i + 8 * j).unwrap(),
                    m + 128 * n,
                    "t{t} ({i},{j})"
                );
            }
        }
    }
}
