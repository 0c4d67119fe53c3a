//! `make_tma_copy` against CuTe's examples and against the definition of the TMA instruction.
//!
//! The examples are the four of CuTe's `make_tma_copy` documentation comment
//! (`include/cute/atom/copy_traits_sm90_tma.hpp`, CUTLASS v4.2.1: "Simple 2D", "GMMA 2D", "3D",
//! "cuTENSOR 4D"); their tensor maps are derived by hand below from the layouts and the driver's
//! definition of a tiled tensor map (`cuTensorMapEncodeTiled`: dimension 0 contiguous, byte
//! strides for the others, the box innermost first).
//!
//! Every derived copy is then executed here as the PTX ISA defines `cp.async.bulk.tensor` with a
//! tiled map: instruction `(CTA t, k)` reads the box at tensor coordinates `origin + b`, `b`
//! running over the box innermost first, each element from byte `sum_d coord_d * stride_d`, and
//! writes them densely from its shared start. The shared memory that results must be what the
//! layouts say: the tile element `v` at shared offset `smem(v)`, holding global element
//! `gmem(tile(v))`.

use std::collections::HashMap;

use tessel_layout::atom::TmaOp;
use tessel_layout::expr::{Value, eval};
use tessel_layout::gmma::{Major, SwizzleMode, smem_atom};
use tessel_layout::tiled::{TiledCopy, make_tma_copy};
use tessel_layout::{ComposedLayout, IntTuple, Layout, Tiler};

fn l(s: &str) -> Layout {
    s.parse().unwrap()
}

fn c(s: &str) -> ComposedLayout {
    s.parse().unwrap()
}

fn tiler(s: &str) -> Tiler {
    match eval(s).unwrap() {
        Value::Tiler(t) => t,
        v => v.as_tiler().unwrap().unwrap(),
    }
}

/// `(globalDim, globalStrides in bytes, boxDim, swizzle)` of a copy's tensor map.
fn map_of(copy: &TiledCopy) -> (Vec<i64>, Vec<i64>, Vec<i64>, SwizzleMode) {
    let map = copy.atom().atom().tma().unwrap().tensor_map();
    (
        map.dims().to_vec(),
        map.strides().to_vec(),
        map.box_dims().to_vec(),
        map.swizzle(),
    )
}

/// The global coordinate (one entry per flat mode of `gmem`) of every tile element, for a tile
/// at the origin given by `tile_modes`: for each top-level mode of the global layout, the tile's
/// extent along each of its flat sub-modes (the tile takes a prefix of each sub-mode, column-major
/// within the mode, as a shape tiler of the mode does). Computed here from the shapes alone.
fn tile_coords(tile_modes: &[Vec<i64>]) -> Vec<Vec<i64>> {
    let flat: Vec<i64> = tile_modes.iter().flatten().copied().collect();
    let size: i64 = flat.iter().product();
    (0..size)
        .map(|mut v| {
            flat.iter()
                .map(|&n| {
                    let x = v % n;
                    v /= n;
                    x
                })
                .collect()
        })
        .collect()
}

/// Executes every instruction of `copy` (see the module docs) and checks the shared memory it
/// produces against the layouts' definition. `coords[v]` is tile element `v`'s global coordinate.
fn execute_and_check(copy: &TiledCopy, gmem: &Layout, smem: &ComposedLayout, coords: &[Vec<i64>]) {
    let tma = copy.atom().atom().tma().unwrap();
    let map = tma.tensor_map();
    let eb = map.elem_bytes();
    let strides: Vec<i64> = gmem.stride().leaves().to_vec();
    let address = |c: &[i64]| c.iter().zip(&strides).map(|(x, d)| x * d).sum::<i64>();
    // The coordinate bases are the coordinate tensor's strides: they reach every element.
    for (v, coord) in coords.iter().enumerate() {
        let t = tma.tma_coord(coord).unwrap();
        assert_eq!(
            map.byte_offset(&t),
            Some(eb * address(coord)),
            "coordinate of tile element {v}"
        );
    }
    let tv = copy.layout_tv();
    let (ctas, values) = (tv.mode(0).unwrap(), tv.mode(1).unwrap());
    let box_dims = map.box_dims().to_vec();
    let per_instruction: i64 = box_dims.iter().product();
    let instructions = values.size() / per_instruction;
    let inner = smem.layout();
    let mut shared: HashMap<i64, i64> = HashMap::new(); // unswizzled offset -> global element
    for t in 0..ctas.size() {
        for k in 0..instructions {
            let first = ctas.offset(t).unwrap() + values.offset(k * per_instruction).unwrap();
            let start = inner.offset(first).unwrap();
            assert_eq!(
                start * eb % 128,
                0,
                "CTA {t} instruction {k}: 128-byte aligned"
            );
            let origin = tma.tma_coord(&coords[first as usize]).unwrap();
            for p in 0..per_instruction {
                let mut coord = origin.clone();
                let mut rest = p;
                for (x, &b) in coord.iter_mut().zip(&box_dims) {
                    *x += rest % b;
                    rest /= b;
                }
                let byte = map.byte_offset(&coord).unwrap();
                assert!(
                    shared.insert(start + p, byte / eb).is_none(),
                    "offset {} written twice",
                    start + p
                );
            }
        }
    }
    assert_eq!(
        shared.len() as i64,
        inner.size(),
        "every element written once"
    );
    for (v, coord) in coords.iter().enumerate() {
        let at = inner.offset(v as i64).unwrap();
        assert_eq!(
            shared.get(&at),
            Some(&address(coord)),
            "tile element {v} at shared offset {at}"
        );
    }
    // The swizzle is the tensor map's: TMA and the layout permute the same bytes.
    let mode = match smem.swizzles() {
        [] => SwizzleMode::None,
        [sw] => SwizzleMode::from_byte_swizzle(sw.downcast(eb).unwrap()).unwrap(),
        _ => panic!("two swizzles"),
    };
    assert_eq!(map.swizzle(), mode);
}

#[test]
fn cute_simple_2d() {
    // Tensor gtensor = make_tensor(gptr, make_shape(1024, 256), GenRowMajor{}); // K-Major GMEM
    // auto slayout   = make_layout(make_shape(_64{}, _32{}), GenRowMajor{});    // K-Major SMEM
    // (T = float.) K is contiguous in both: the box is 32 (K) x 64 (M), K first; the tensor
    // map's dimensions are K (256) and M (1024, rows of 256 floats = 1024 bytes).
    let (g, s) = (l("(1024,256):(256,1)"), c("(64,32):(32,1)"));
    let copy = make_tma_copy(TmaOp::Load, &g, &s, None, 1, 32).unwrap();
    assert_eq!(
        map_of(&copy),
        (vec![256, 1024], vec![1024], vec![32, 64], SwizzleMode::None)
    );
    assert_eq!(copy.tiler(), &[64, 32]);
    execute_and_check(&copy, &g, &s, &tile_coords(&[vec![64], vec![32]]));
}

#[test]
fn cute_gmma_2d() {
    // Tensor gtensor = make_tensor(gptr, make_shape(1024, 256));                                 // MN-Major GMEM
    // auto slayout   = tile_to_shape(GMMA::Layout_MN_SW128_Atom<T>{}, make_shape(_128{},_64{})); // MN-Major Swizzled+Tiled 128x64 SMEM
    // The fp32 MN-major SW128 atom is 32 (M, 128 bytes) x 8 (K); the atoms stack along M first,
    // so shared memory runs 32 of M, then 8 of K, then the next atom: the box is one atom,
    // 32 x 8, and the map is M (1024, contiguous) by K (256, 4096-byte columns), 128B swizzle.
    let g = l("(1024,256):(1,1024)");
    let s = smem_atom(Major::MN, SwizzleMode::B128, 32)
        .unwrap()
        .tile_to_shape(&IntTuple::from_ints([128, 64]))
        .unwrap();
    let copy = make_tma_copy(TmaOp::Load, &g, &s, None, 1, 32).unwrap();
    assert_eq!(
        map_of(&copy),
        (vec![1024, 256], vec![4096], vec![32, 8], SwizzleMode::B128)
    );
    execute_and_check(&copy, &g, &s, &tile_coords(&[vec![128], vec![64]]));
}

#[test]
fn cute_3d() {
    // Tensor gtensor = make_tensor(gptr, make_shape(1024, 32, 512), make_stride(64, Int<1>{}, 65536)); // GMEM
    // auto slayout   = make_layout(make_shape(_16{}, _8{}, _2{}), make_stride(_16{}, _1{}, _8{}));     // SMEM w/ same major-mode
    // Shared memory runs mode 1 (8, contiguous in both), then mode 2 (2), then mode 0 (16): the
    // box is 8 x 2 x 16 over global modes 1, 2, 0; dimensions 32, 512, 1024 with byte strides
    // 65536 * 4 and 64 * 4.
    let (g, s) = (l("(1024,32,512):(64,1,65536)"), c("(16,8,2):(16,1,8)"));
    let copy = make_tma_copy(TmaOp::Load, &g, &s, None, 1, 32).unwrap();
    assert_eq!(
        map_of(&copy),
        (
            vec![32, 512, 1024],
            vec![262144, 256],
            vec![8, 2, 16],
            SwizzleMode::None
        )
    );
    let tma = copy.atom().atom().tma().unwrap();
    assert_eq!(tma.dim_modes(), &[vec![1], vec![2], vec![0]]);
    execute_and_check(&copy, &g, &s, &tile_coords(&[vec![16], vec![8], vec![2]]));
}

#[test]
fn cute_cutensor_4d() {
    // auto layout = make_shape(make_shape(32,40),make_shape(make_shape(8,8),656)); // GMEM
    // auto cta_tile    = make_shape(_128{},make_shape(_32{},_2{}));                // GMEM Tiling:
    //   Take 128-elem from m: m0 must divide 128, m-last may be predicated
    //   Take 32-elem from k0, 2-elem from k1
    // auto slayout = make_layout(cta_tile);                                        // Col-Major SMEM
    // The tensor is column-major: strides ((1,32),((1280,10240),81920)). The tile's 128 of m are
    // 32 of m0 and 4 of m1, contiguous: one dimension of 128 over (m0, m1), extent
    // (32-1)*1 + (40-1)*32 + 1 = 1280. Its 32 of k0 are 8 x 4 of (8,8) at strides 1280, 10240:
    // one dimension of 32, stride 1280 elements, extent (8-1) + (8-1)*8 + 1 = 64. Then 2 of k1.
    let g = l("((32,40),((8,8),656)):((1,32),((1280,10240),81920))");
    let s = c("(128,(32,2)):(1,(128,4096))");
    let tile = tiler("[128, [32, 2]]");
    let copy = make_tma_copy(TmaOp::Load, &g, &s, Some(&tile), 1, 32).unwrap();
    assert_eq!(
        map_of(&copy),
        (
            vec![1280, 64, 656],
            vec![1280 * 4, 81920 * 4],
            vec![128, 32, 2],
            SwizzleMode::None
        )
    );
    let tma = copy.atom().atom().tma().unwrap();
    assert_eq!(tma.dim_modes(), &[vec![0, 1], vec![2, 3], vec![4]]);
    // Coordinates: m0 and m1 move dimension 0 by their element strides 1 and 32; k0 and k0'
    // move dimension 1 by 1 and 10240 / 1280 = 8.
    assert_eq!(
        tma.coord_basis(),
        &[
            Some((0, 1)),
            Some((0, 32)),
            Some((1, 1)),
            Some((1, 8)),
            Some((2, 1))
        ]
    );
    execute_and_check(&copy, &g, &s, &tile_coords(&[vec![32, 4], vec![8, 4, 2]]));
}

/// The Hopper GEMM's stages: K-major and MN-major GMMA atoms of every swizzle, for 8-, 16- and
/// 32-bit elements, tiled to a stage and loaded from a tensor of the same major mode.
#[test]
fn gmma_stages_of_every_swizzle_and_width() {
    for bits in [8, 16, 32] {
        for major in [Major::K, Major::MN] {
            for mode in SwizzleMode::ALL {
                let atom = smem_atom(major, mode, bits).unwrap();
                // Two atoms along each mode.
                let (mn, k) = (
                    2 * atom.layout().mode(0).unwrap().size(),
                    2 * atom.layout().mode(1).unwrap().size(),
                );
                let stage = atom.tile_to_shape(&IntTuple::from_ints([mn, k])).unwrap();
                // (MN, K) tensors of 512 x 256: K contiguous for K-major, MN for MN-major.
                let g = match major {
                    Major::K => l("(512,256):(256,1)"),
                    Major::MN => l("(512,256):(1,512)"),
                };
                let copy = make_tma_copy(TmaOp::Load, &g, &stage, None, 1, bits)
                    .unwrap_or_else(|e| panic!("{major} {mode} {bits}-bit: {e}"));
                // The box is one swizzled row of the atom wide (the whole span; 16 bytes without
                // a swizzle) along the contiguous mode.
                let (_, _, box_dims, swizzle) = map_of(&copy);
                assert_eq!(swizzle, mode);
                assert_eq!(
                    box_dims[0] * bits / 8,
                    mode.span_bytes(),
                    "{major} {mode} {bits}"
                );
                execute_and_check(&copy, &g, &stage, &tile_coords(&[vec![mn], vec![k]]));
            }
        }
    }
}

#[test]
fn multicast_splits_the_box_over_the_cluster() {
    // CuTe make_tma_copy_desc: "truncate the tma box by the num_multicast" from the outermost
    // dimension. A 128 x 64 fp16 K-major SW128 stage is one 64 x 128 box; 2 CTAs load 64 rows
    // each, 4 CTAs 32, 16 CTAs 8, each into all CTAs' shared memory.
    let g = l("(4096,4096):(4096,1)");
    let stage = smem_atom(Major::K, SwizzleMode::B128, 16)
        .unwrap()
        .tile_to_shape(&IntTuple::from_ints([128, 64]))
        .unwrap();
    for (cluster, rows) in [(1, 128), (2, 64), (4, 32), (16, 8)] {
        let copy = make_tma_copy(TmaOp::LoadMulticast, &g, &stage, None, cluster, 16).unwrap();
        let (_, _, box_dims, _) = map_of(&copy);
        assert_eq!(box_dims, [64, rows]);
        assert_eq!(copy.threads(), cluster);
        // The atom is one CTA's instruction: 64 x rows halves.
        assert_eq!(copy.atom().atom().src_bits().size(), 64 * rows * 16);
        assert_eq!(copy.atom().atom().tma().unwrap().multicast(), cluster);
        execute_and_check(&copy, &g, &stage, &tile_coords(&[vec![128], vec![64]]));
    }
    // A box of 3 rows cannot be split between 2 CTAs (CuTe asserts the same divisibility).
    let err = make_tma_copy(
        TmaOp::LoadMulticast,
        &l("(3,64):(128,1)"),
        &c("(3,64):(64,1)"),
        None,
        2,
        16,
    )
    .unwrap_err();
    assert!(err.to_string().contains("do not divide"), "{err}");
    // Only the multicast load takes a cluster; clusters are powers of two up to 16.
    let err = make_tma_copy(TmaOp::Load, &g, &stage, None, 2, 16).unwrap_err();
    assert!(
        err.to_string().contains("only SM90_TMA_LOAD_MULTICAST"),
        "{err}"
    );
    for bad in [3, 32, 0] {
        assert!(make_tma_copy(TmaOp::LoadMulticast, &g, &stage, None, bad, 16).is_err());
    }
}

#[test]
fn a_tile_past_the_tensor_edge_is_one_box() {
    // A 100-row tensor loaded in 128-row tiles: the box still covers 128 rows (TMA fills the
    // rows past the edge); the tensor map keeps the tensor's 100.
    let g = l("(4096,100):(1,4096)"); // (K, M), K contiguous
    let s = c("(64,128):(1,64)");
    let copy = make_tma_copy(TmaOp::Load, &g, &s, None, 1, 16).unwrap();
    assert_eq!(
        map_of(&copy),
        (
            vec![4096, 100],
            vec![8192],
            vec![64, 128],
            SwizzleMode::None
        )
    );
    execute_and_check(&copy, &g, &s, &tile_coords(&[vec![64], vec![128]]));
}

#[test]
fn padded_rows_are_one_box_per_row() {
    // Rows of 64 halves padded to 128: the contiguous vector is one row, one box per row, each
    // at a 256-byte (aligned) start.
    let g = l("(1024,1024):(1024,1)");
    let s = c("(64,64):(128,1)");
    let copy = make_tma_copy(TmaOp::Load, &g, &s, None, 1, 16).unwrap();
    assert_eq!(map_of(&copy).2, [64, 1]);
    execute_and_check(&copy, &g, &s, &tile_coords(&[vec![64], vec![64]]));
    // Padded to 72 halves, the second row starts at byte 144: TMA's shared address must be
    // 128-byte aligned.
    let err = make_tma_copy(TmaOp::Load, &g, &c("(64,64):(72,1)"), None, 1, 16).unwrap_err();
    assert!(
        err.to_string()
            .contains("instruction 1 of CTA 0 starts at shared byte 144"),
        "{err}"
    );
}

#[test]
fn the_store_is_the_load_reversed() {
    // SM90_TMA_STORE uses the same box and map; its instruction writes global memory.
    let g = l("(1024,256):(256,1)");
    let s = c("(64,32):(32,1)");
    let load = make_tma_copy(TmaOp::Load, &g, &s, None, 1, 32).unwrap();
    let store = make_tma_copy(TmaOp::Store, &g, &s, None, 1, 32).unwrap();
    assert_eq!(map_of(&load), map_of(&store));
    assert_eq!(
        store.atom().atom().asm_template().unwrap(),
        "cp.async.bulk.tensor.2d.global.shared::cta.bulk_group [%0, {%2, %3}], [%1];"
    );
}

#[test]
fn layouts_no_box_writes_are_errors_naming_the_condition() {
    let err = |g: &str, s: &str, tile: Option<&str>, bits: i64| {
        let t = tile.map(tiler);
        make_tma_copy(TmaOp::Load, &l(g), &c(s), t.as_ref(), 1, bits)
            .unwrap_err()
            .to_string()
    };
    // A K-major stage from an M-major tensor: CuTe asserts "Majorness of smem doesn't match
    // majorness of gmem".
    let e = err("(256,256):(1,256)", "(64,64):(64,1)", None, 16);
    assert!(e.contains("not contiguous in global memory"), "{e}");
    // Shared offset 1 is not a unit step along any global mode.
    let e = err("(256,256):(256,1)", "(64,64):(2,128)", None, 16);
    assert!(e.contains("no common vector"), "{e}");
    // A 128B-swizzled row of 128 halves (256 bytes) is wider than the swizzle span.
    let e = err("(256,256):(256,1)", "Sw<3,3,3> o (8,128):(128,1)", None, 16);
    assert!(e.contains("swizzled row"), "{e}");
    // Sw<2,3,3> on fp32 is Sw<2,5,3> on bytes: no TMA swizzle mode.
    let e = err("(256,256):(256,1)", "Sw<2,3,3> o (8,64):(64,1)", None, 32);
    assert!(e.contains("not one of TMA's"), "{e}");
    // One stage from its start; the tile and the shared layout must be the same size.
    let e = err("(256,256):(256,1)", "64 o (8,64):(64,1)", None, 16);
    assert!(e.contains("starts at element 64"), "{e}");
    let e = err("(256,256):(256,1)", "(8,64):(64,1)", Some("[16, 64]"), 16);
    assert!(e.contains("the CTA tile has 1024 elements"), "{e}");
    // Rows of 4 halves (8 bytes) at a 16-byte pitch: the box's innermost extent must be a
    // multiple of 16 bytes. (At a pitch of 4 halves the tensor is contiguous and the tile is one
    // 1-D box of 256 halves.)
    let e = err("(256,4):(8,1)", "(64,4):(4,1)", None, 16);
    assert!(e.contains("multiple of 16"), "{e}");
    // A row pitch of 1004 halves (2008 bytes) is not a multiple of 16 bytes.
    let e = err("(256,1000):(1004,1)", "(64,64):(64,1)", None, 16);
    assert!(e.contains("multiple of 16 bytes"), "{e}");
    // 12-bit elements.
    assert!(err("(256,256):(256,1)", "(64,64):(64,1)", None, 12).contains("8, 16, 32 or 64"));
}

#[test]
fn a_sixth_dimension_groups_into_the_fifth_and_the_check_finds_the_first_wrong_element() {
    // Six global modes the box steps along, none contiguous with the next: CuTe groups the
    // trailing two into the fifth dimension (`group<4,-1>`) with the stride gcd(65536, 1048576)
    // = 65536 and extent (2-1)*1 + (2-1)*16 + 1 = 18, so the box's 4 elements along it read
    // global elements 0, 65536, 131072, 196608 where the tile needs 0, 65536, 1048576, 1114112.
    // tessel's element check names the first one: box element 64 is the first at coordinate 2
    // of the fifth dimension (the box is 4 x 2 x 2 x 2 x 4).
    let g = l("(4,2,2,2,2,2):(1,16,256,4096,65536,1048576)");
    let s = c("(4,2,2,2,2,2):(1,4,8,16,32,64)");
    let err = make_tma_copy(TmaOp::Load, &g, &s, None, 1, 32)
        .unwrap_err()
        .to_string();
    assert!(
        err.contains(
            "reads its element 64 from tensor coordinate (0,0,0,0,2) (global element 131072)"
        ) && err.contains("global element 1048576"),
        "{err}"
    );
}

#[test]
fn make_tma_copy_in_the_expression_language() {
    let v =
        eval("make_tma_copy(SM90_TMA_LOAD, (1024,256):(256,1), (64,32):(32,1), _, 1, 32)").unwrap();
    assert_eq!(
        v.to_string(),
        "TiledCopy(Tiler_MN: (64,32), TiledLayout_TV: (1,(32,64)):(64,(64,1)), \
         Copy_Atom<SM90_TMA_LOAD, 32-bit, TensorMap(32-bit, globalDim (256,1024), globalStrides \
         (1024) B, boxDim (32,64), elementStrides (1,1), interleave none, swizzle none), dims of \
         modes ([1],[0])>)"
    );
    let err = eval("make_tma_copy(SM75_U32x4_LDSM_N, (64,64):(64,1), (64,64):(64,1))").unwrap_err();
    assert!(err.message().contains("a TMA operation"), "{err}");
}
