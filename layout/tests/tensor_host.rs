//! The host tensor: indexing by definition (colexicographic coordinates, `data[layout(i)]`),
//! bounds errors, and CPU replays of a tiled copy and a tiled MMA partitioning.

use tessel_layout::atom::{copy_atom, mma_atom};
use tessel_layout::tensor::{Tensor, copy};
use tessel_layout::tiled::{make_tiled_copy, make_tiled_mma};
use tessel_layout::{ComposedLayout, IntTuple, Layout, SliceCoord, Tiler};

fn l(s: &str) -> Layout {
    s.parse().unwrap()
}

#[test]
fn indexing_follows_the_layout_definition() {
    // (3,(2,2)):(1,(12,3)) with colexicographic coordinates: i -> (i%3, (i/3)%2, i/6).
    let t = Tensor::new((0..100).collect::<Vec<i64>>(), l("(3,(2,2)):(1,(12,3))")).unwrap();
    let mut expected = Vec::new();
    for i in 0..12 {
        let (a, b, c) = (i % 3, (i / 3) % 2, i / 6);
        let off = a + 12 * b + 3 * c;
        expected.push(off);
        assert_eq!(*t.get(i).unwrap(), off);
        let crd = IntTuple::tuple([IntTuple::Int(a), IntTuple::from_ints([b, c])]);
        assert_eq!(*t.at(&crd).unwrap(), off);
    }
    assert_eq!(t.to_vec(), expected);
    assert!(t.get(12).is_err() && t.get(-1).is_err());
    assert!(t.at(&IntTuple::from_ints([3, 0])).is_err());
}

#[test]
fn layouts_outside_the_data_are_errors() {
    assert!(Tensor::new(vec![0; 15], l("(4,4):(4,1)")).is_err());
    assert!(Tensor::new(vec![0; 16], l("4:-1")).is_err());
    // A negative stride inside the data is fine once offset.
    let rev: ComposedLayout = "3 o 4:-1".parse().unwrap();
    let t = Tensor::new(vec![10, 11, 12, 13], rev).unwrap();
    assert_eq!(t.to_vec(), [13, 12, 11, 10]);
    // A tile past the edge of a non-dividing tiling is reported, not read.
    let t = Tensor::new((0..6).collect::<Vec<i32>>(), l("6:1")).unwrap();
    let tiler = Tiler::Layout(l("4:1"));
    assert!(t.view().local_tile(&tiler, &SliceCoord::Index(1)).is_err());
    let mut small = Tensor::new(vec![0; 3], l("3:1")).unwrap();
    assert!(copy(&t, &mut small).is_err());
    assert!(small.set(3, 1).is_err());
}

#[test]
fn swizzled_views_are_checked_exactly() {
    // Sw<3,0,3> o 8:1 is the identity on 0..8, but the swizzle's value bound is 2^6: the
    // tensor is accepted by enumerating its 8 values.
    let small: ComposedLayout = "Sw<3,0,3> o 8:1".parse().unwrap();
    assert_eq!(small.value_range().unwrap(), (0, 63));
    let t = Tensor::new((0..8).collect::<Vec<i64>>(), small).unwrap();
    assert_eq!(t.to_vec(), (0..8).collect::<Vec<_>>());
    // A swizzled 8x8 tile permutes 0..64.
    let tile: ComposedLayout = "Sw<3,0,3> o (8,8):(8,1)".parse().unwrap();
    let t = Tensor::new((0..64).collect::<Vec<i64>>(), tile.clone()).unwrap();
    for i in 0..64 {
        assert_eq!(*t.get(i).unwrap(), tile.offset(i).unwrap());
    }
    let mut seen = t.to_vec();
    seen.sort_unstable();
    assert_eq!(seen, (0..64).collect::<Vec<_>>());
}

#[test]
fn tiled_copy_replay_moves_every_element_once() {
    // CuTe 0x_gemm_tutorial.md's copy: 32x8 threads, 4x1 floats, global (128,8) column-major
    // to a swizzled row-major shared tile, thread by thread with partition_S / partition_D.
    let atom = copy_atom("UniversalCopy<uint128_t>")
        .unwrap()
        .typed(32)
        .unwrap();
    let tc = make_tiled_copy(&atom, &l("(32,8):(1,32)"), &l("(4,1):(1,0)")).unwrap();
    let g = Tensor::new(
        (0..1024).map(|x| x as f32).collect::<Vec<f32>>(),
        l("(128,8):(1,128)"),
    )
    .unwrap();
    let smem: ComposedLayout = "Sw<2,2,3> o (128,8):(8,1)".parse().unwrap();
    let mut s = Tensor::new(vec![-1.0f32; 1024], smem).unwrap();
    for t in 0..tc.threads() {
        let thr = tc.get_slice(t).unwrap();
        let src = g.view().partition_s(&thr).unwrap();
        let mut dst = s.view_mut().partition_d(&thr).unwrap();
        assert_eq!(src.size(), 4);
        copy(&src, &mut dst).unwrap();
    }
    for n in 0..8 {
        for m in 0..128 {
            let c = IntTuple::from_ints([m, n]);
            assert_eq!(s.at(&c).unwrap(), g.at(&c).unwrap(), "({m},{n})");
        }
    }
}

#[test]
fn tiled_mma_replay_computes_the_product() {
    // Every thread computes its C partition from coordinates partitioned the same way (CuTe's
    // identity-tensor idiom); together they must produce C = A * B^T exactly once per element.
    let mma = make_tiled_mma(
        &mma_atom("SM80_16x8x16_F32F16F16F32_TN").unwrap(),
        &l("(2,2):(1,2)"),
        &[],
    )
    .unwrap();
    let (m, n, k) = (64i64, 32i64, 16i64);
    let a: Vec<i64> = (0..m * k).map(|x| x % 7 - 3).collect(); // (m,k) row-major
    let b: Vec<i64> = (0..n * k).map(|x| x % 5 - 2).collect(); // (n,k) row-major
    let coords: Vec<(i64, i64)> = (0..m * n).map(|i| (i % m, i / m)).collect();
    let coord_t = Tensor::new(coords, l(&format!("({m},{n}):(1,{m})"))).unwrap();
    let mut c = Tensor::new(
        vec![i64::MIN; (m * n) as usize],
        l(&format!("({m},{n}):({n},1)")),
    )
    .unwrap();
    for t in 0..mma.threads() {
        let thr = mma.get_slice(t).unwrap();
        let mine = coord_t.view().partition_c(&thr).unwrap();
        let mut out = c.view_mut().partition_c(&thr).unwrap();
        assert_eq!(mine.size(), out.size());
        let coords = mine.to_vec();
        for (i, (mm, nn)) in coords.into_iter().enumerate() {
            let dot: i64 = (0..k)
                .map(|kk| a[(mm * k + kk) as usize] * b[(nn * k + kk) as usize])
                .sum();
            assert_eq!(
                *out.get(i as i64).unwrap(),
                i64::MIN,
                "({mm},{nn}) written twice"
            );
            out.set(i as i64, dot).unwrap();
        }
    }
    for mm in 0..m {
        for nn in 0..n {
            let dot: i64 = (0..k)
                .map(|kk| a[(mm * k + kk) as usize] * b[(nn * k + kk) as usize])
                .sum();
            assert_eq!(*c.at(&IntTuple::from_ints([mm, nn])).unwrap(), dot);
        }
    }
}

#[test]
fn local_tile_and_partition_match_their_definitions() {
    let t = Tensor::new((0..64).collect::<Vec<i64>>(), l("(8,8):(8,1)")).unwrap();
    let tiler = Tiler::ByMode(vec![
        Some(Tiler::Layout(l("4:1"))),
        Some(Tiler::Layout(l("2:1"))),
    ]);
    for (tm, tn) in [(0, 0), (1, 3)] {
        let tile = t
            .view()
            .local_tile(&tiler, &SliceCoord::from(&IntTuple::from_ints([tm, tn])))
            .unwrap();
        for j in 0..2 {
            for i in 0..4 {
                let want = (4 * tm + i) * 8 + (2 * tn + j);
                assert_eq!(*tile.at(&IntTuple::from_ints([i, j])).unwrap(), want);
            }
        }
    }
    // local_partition by a 2x4 column-major thread layout: thread (r, c) takes (r + 2i, c + 4j).
    let thr = l("(2,4):(1,2)");
    for index in 0..8 {
        let (r, c) = (index % 2, index / 2);
        let mine = t.view().local_partition(&thr, index).unwrap();
        assert_eq!(mine.size(), 8);
        for j in 0..2 {
            for i in 0..4 {
                assert_eq!(
                    *mine.at(&IntTuple::from_ints([i, j])).unwrap(),
                    (r + 2 * i) * 8 + c + 4 * j
                );
            }
        }
    }
}
