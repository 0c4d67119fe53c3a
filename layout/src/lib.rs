//! # tessel-layout
//!
//! CuTe's layout algebra in Rust, every operation checked: hierarchical
//! [`IntTuple`]s, [`Layout`]s written `Shape:Stride`, the operations CuTe defines on them
//! (coalesce, composition, complement, divides, products, inverses, ...), XOR [`Swizzle`]s and
//! [`ComposedLayout`]s, GF(2) bijectivity proofs ([`verify`]), the shared-memory bank model
//! ([`bank`]) and a swizzle search ([`synth`]), CuTe's copy and MMA atoms ([`atom`]) with the
//! tiled copies and tiled MMAs built from them ([`tiled`]), Hopper's wgmma descriptors and TMA
//! boxes ([`gmma`]), the expression language of the `tessel` command line ([`expr`]), SVG
//! pictures ([`svg`]), and one emitter that turns any of these into C/CUDA index arithmetic
//! ([`codegen`]). There is no GPU code here; the `tessel-kernels` crate runs kernels built from
//! these layouts.
//!
//! Every operation either returns a value that satisfies its definition or an [`Error`] whose
//! [`ErrorKind`] and message name the violated condition and the operands. It never returns a
//! layout that disagrees with the definition, never panics on user input, and reports `i64`
//! overflow as an error.
//!
//! This page is a tutorial: the model, worked examples, and where each operation lives. The
//! full specification — every definition and admissibility condition, and the list of places
//! where tessel deliberately answers differently from CuTe — is `docs/semantics.md` in the
//! repository; the bank model and its Nsight Compute evidence are `docs/bank-model.md`.
//!
//! # The model
//!
//! A layout is a function from coordinates to integers ("offsets"). It is a *shape* and a
//! *stride* with the same nesting; a coordinate `c` of the shape maps to `sum(c_k * d_k)` over
//! the leaves. Take the 2x3 row-major layout `(2,3):(3,1)`:
//!
//! ```text
//!                  column 0   column 1   column 2
//!     row 0            0          1          2          L(r, c) = 3*r + 1*c
//!     row 1            3          4          5
//! ```
//!
//! Coordinates are **colexicographic**: the 1-D index `i` counts down the *first* mode fastest,
//! so index `i` is the coordinate `(i mod 2, i div 2)`:
//!
//! ```text
//!     index        0      1      2      3      4      5
//!     coordinate (0,0)  (1,0)  (0,1)  (1,1)  (0,2)  (1,2)
//!     offset       0      3      1      4      2      5
//! ```
//!
//! ```
//! use tessel_layout::{IntTuple, Layout};
//! let l: Layout = "(2,3):(3,1)".parse().unwrap();
//! assert_eq!(l.offsets(), vec![0, 3, 1, 4, 2, 5]);
//! assert_eq!(l.idx2crd(3).unwrap().to_string(), "(1,1)");
//! // With no stride, a shape is column-major (the exclusive prefix product).
//! assert_eq!(Layout::col_major(&IntTuple::from_ints([2, 3])).unwrap().to_string(), "(2,3):(1,2)");
//! ```
//!
//! Modes nest. `(4,(2,3)):(1,(8,16))` is a 4 x 6 matrix whose columns are themselves a 2 x 3
//! arrangement. It accepts a 1-D index, a flat coordinate `(row, column)` where the column is
//! split colexicographically over `(2,3)`, or the full hierarchical coordinate; all three name
//! the same element:
//!
//! ```
//! use tessel_layout::{IntTuple, Layout};
//! let l: Layout = "(4,(2,3)):(1,(8,16))".parse().unwrap();
//! let flat = IntTuple::from_ints([1, 3]); // column 3 of (2,3) is (1,1)
//! let deep: IntTuple = "(1,(1,1))".parse().unwrap();
//! assert_eq!(l.offset(13).unwrap(), 1 + 8 + 16); // 13 = 1 + 4*3
//! assert_eq!(l.crd2idx(&flat).unwrap(), 25);
//! assert_eq!(l.crd2idx(&deep).unwrap(), 25);
//! assert_eq!((l.size(), l.cosize(), l.rank(), l.depth()), (24, 44, 2, 2));
//! // Out of range is an error, never a wrap-around.
//! assert!(l.offset(24).is_err());
//! ```
//!
//! Everything else is built from a handful of operations on these functions. Composition
//! `A o B` is the layout of `c -> A(B(c))`; the complement of `A` is what `A` leaves out of its
//! codomain; a divide is a composition with a tiler and its complement; a product is the dual.
//! A swizzle is an XOR bit permutation applied after a layout.
//!
//! ## One family of layouts
//!
//! [`IntTuple`], [`Layout`] and [`ComposedLayout`] are generic over their stride leaves, the way
//! CuTe's tuples mix static and dynamic integers, and every operation is written once:
//!
//! - `Layout` (`Layout<i64>`): strides known now; the whole algebra works on these.
//! - `Layout<SymInt>` ([`codegen::SymLayout`]): a stride may be a run-time symbol such as
//!   `ld`; the code emitter takes these, and [`Layout::bind`] turns one into a `Layout`.
//! - `Layout<ScaledBasis, Integer>` ([`typed::TypedLayout`]): every leaf a static (`_4`) or
//!   dynamic (`4`) integer as CuTe has them, strides possibly basis elements (`_1@0`, the
//!   identity layouts); the algebra carries the kinds by CuTe's rule (`docs/semantics.md`,
//!   "Static and dynamic integers").
//! - A `Layout` built at compile time (the `layout!` macro of the `tessel-kit` crate): the same
//!   type with its tuples in static storage, made by the `const fn` [`Layout::from_const`] and
//!   evaluated by the `const fn`s [`Layout::size`] and [`Layout::checked_offset`].
//!
//! One parser ([`parse::Cursor::layout_of`]) and one printer serve all of them:
//!
//! ```
//! use tessel_layout::{Layout, codegen::{SymInt, SymLayout}};
//! let tile: SymLayout = "(128,64):(ld,1)".parse().unwrap();
//! assert_eq!(tile.to_string(), "(128,64):(ld,1)");
//! let bound: Layout = tile.bind(&|_| Some(72)).unwrap();
//! assert_eq!(bound.offset(1).unwrap(), 72);
//! assert_eq!(SymLayout::from(&bound), "(128,64):(72,1)".parse::<Layout<SymInt>>().unwrap());
//! ```
//!
//! # Worked examples
//!
//! ## Composition
//!
//! `R = A o B` has `B`'s shape and `R(c) = A(B(c))`. The stride of each mode of `B` is divided
//! out of `A`'s extents from the left, then `B`'s extent is kept ([CuTe docs](https://github.com/NVIDIA/cutlass/blob/v4.2.1/media/docs/cpp/cute/02_layout_algebra.md), "Composition"):
//!
//! ```
//! use tessel_layout::{composition, ErrorKind, Layout};
//! let a: Layout = "(6,2):(8,2)".parse().unwrap();
//! let b: Layout = "(4,3):(3,1)".parse().unwrap();
//! let r = composition(&a, &b).unwrap();
//! assert_eq!(r.to_string(), "((2,2),3):((24,2),8)");
//! // The definition, checked element by element:
//! for i in 0..b.size() {
//!     assert_eq!(r.offset(i).unwrap(), a.offset(b.offset(i).unwrap()).unwrap());
//! }
//! // Reading the 20-element vector 20:2 as a 5x4 row-major matrix:
//! let v: Layout = "20:2".parse().unwrap();
//! let m: Layout = "(5,4):(4,1)".parse().unwrap();
//! assert_eq!(composition(&v, &m).unwrap().to_string(), "(5,4):(8,2)");
//! // CuTe C++ answers (2,3):(6,3) here, whose value at index 2 is wrong (CUTLASS issue 3177);
//! // tessel says which condition fails instead.
//! let a: Layout = "(4,6,8):(2,3,5)".parse().unwrap();
//! let err = composition(&a, &"6:3".parse().unwrap()).unwrap_err();
//! assert_eq!(err.kind(), ErrorKind::Inadmissible);
//! assert!(err.message().contains("stride divisibility"));
//! ```
//!
//! ## Complement
//!
//! `complement(4:2, 24)` fills the holes of `4:2` (the odd offsets) with `2:1` and repeats the
//! whole 3 times up to 24 ([CuTe docs](https://github.com/NVIDIA/cutlass/blob/v4.2.1/media/docs/cpp/cute/02_layout_algebra.md), "Complement Examples"). The result is ordered and meets
//! `A`'s image only at 0:
//!
//! ```
//! use tessel_layout::{complement, Layout};
//! let a: Layout = "4:2".parse().unwrap();
//! let r = complement(&a, 24).unwrap();
//! assert_eq!(r.to_string(), "(2,3):(1,8)");
//! let (image, rest) = (a.offsets(), r.offsets());
//! assert!(rest.windows(2).all(|w| w[0] < w[1]));
//! assert!(rest.iter().skip(1).all(|x| !image.contains(x)));
//! ```
//!
//! ## Divide
//!
//! `logical_divide(A, B) = A o (B, complement(B, size(A)))`: mode 0 is one tile, mode 1 walks
//! over the tiles. A [`Tiler`] is either one layout or one tiler per mode:
//!
//! ```
//! use tessel_layout::{logical_divide, tiled_divide, Layout, Tiler};
//! // CuTe docs, "Logical Divide 1-D Example".
//! let a: Layout = "(4,2,3):(2,1,8)".parse().unwrap();
//! let b = Tiler::Layout("4:2".parse().unwrap());
//! assert_eq!(logical_divide(&a, &b).unwrap().to_string(), "((2,2),(2,3)):((4,1),(2,8))");
//! // An 8x8 column-major matrix cut into 2x4 tiles: (tile, tiles down, tiles across).
//! let m: Layout = "(8,8):(1,8)".parse().unwrap();
//! let t = Tiler::ByMode(vec![
//!     Some(Tiler::Layout("2:1".parse().unwrap())),
//!     Some(Tiler::Layout("4:1".parse().unwrap())),
//! ]);
//! assert_eq!(tiled_divide(&m, &t).unwrap().to_string(), "((2,4),4,2):((1,8),2,32)");
//! ```
//!
//! ## Product
//!
//! A product reproduces a block according to a layout of blocks. `blocked_product` keeps each
//! copy of the block contiguous; `raked_product` interleaves the copies ([CuTe docs](https://github.com/NVIDIA/cutlass/blob/v4.2.1/media/docs/cpp/cute/02_layout_algebra.md), "Blocked and
//! Raked Products"):
//!
//! ```
//! use tessel_layout::{blocked_product, raked_product, Layout};
//! let block: Layout = "(2,5):(5,1)".parse().unwrap(); // 2x5, row-major
//! let tiles: Layout = "(3,4):(1,3)".parse().unwrap(); // 3x4 blocks, column-major
//! let blocked = blocked_product(&block, &tiles).unwrap();
//! assert_eq!(blocked.to_string(), "((2,3),(5,4)):((5,10),(1,30))");
//! let raked = raked_product(&block, &tiles).unwrap();
//! assert_eq!(raked.to_string(), "((3,2),(4,5)):((10,5),(30,1))");
//! // Both are 6x20 matrices that use every offset 0..120 exactly once.
//! assert!(tessel_layout::is_bijective(&blocked).unwrap());
//! assert!(tessel_layout::is_bijective(&raked).unwrap());
//! ```
//!
//! ## Swizzle
//!
//! `Sw<B,M,S>(x) = x ^ ((x & YYY) >> S)` XORs `B` high bits into `B` low bits. On an 8x64 fp16
//! tile with 128-byte rows, `Sw<3,3,3>` XORs the row into the 16-byte chunk index — Hopper's
//! 128-byte swizzle, counted in 2-byte elements. It stays a bijection, proved over GF(2):
//!
//! ```
//! use tessel_layout::{verify, ComposedLayout, IntTuple};
//! let tile: ComposedLayout = "Sw<3,3,3> o (8,64):(64,1)".parse().unwrap();
//! // (1,0) is offset 64; its row bit 6 flips bit 3: 64 ^ 8 = 72.
//! assert_eq!(tile.at(&IntTuple::from_ints([1, 0])).unwrap(), 72);
//! assert_eq!(tile.at(&IntTuple::from_ints([7, 63])).unwrap(), 455);
//! assert!(verify::is_bijective(&tile).unwrap());
//! // The same swizzle on byte addresses is Sw<3,4,3>.
//! assert_eq!(tile.downcast(2).unwrap().swizzles()[0].to_string(), "Sw<3,4,3>");
//! ```
//!
//! ## Bank conflicts
//!
//! The bank model counts the wavefronts of one warp-wide shared-memory instruction. An access
//! is a layout from `(lane, value)` to an index of the tile. A warp reading one column of a
//! row-major 32x32 fp32 tile hits bank 0 thirty-two times; a swizzle spreads it, and the search
//! finds one:
//!
//! ```
//! use tessel_layout::{bank::analyze, synth::{synthesize, Access, Options}, ComposedLayout, Layout};
//! let tile: Layout = "(32,32):(32,1)".parse().unwrap();
//! let column: Layout = "32:1".parse().unwrap(); // lane l reads (l, 0)
//! let lds = "lds.32".parse().unwrap();
//! let r = analyze(&tile, 4, lds, &column).unwrap();
//! assert_eq!((r.wavefronts, r.ideal, r.excess), (32, 1, 31));
//! let swizzled: ComposedLayout = "Sw<5,0,5> o (32,32):(32,1)".parse().unwrap();
//! assert_eq!(analyze(&swizzled, 4, lds, &column).unwrap().excess, 0);
//! let found = synthesize(&tile, 4, &[Access::new(lds, column)], Options::default()).unwrap();
//! assert_eq!(found.total().excess, 0);
//! ```
//!
//! ## Code generation
//!
//! [`codegen::index_function`] emits a layout as C/CUDA source: constants folded, power-of-two
//! div/mod as shifts and masks, swizzles as XOR steps. The same program, kept as IR by
//! [`codegen::index_program`], can be evaluated on the host, and it computes exactly what the
//! layout does:
//!
//! ```
//! use tessel_layout::codegen::{index_function, index_program, EmitOptions};
//! use tessel_layout::ComposedLayout;
//! let tile: ComposedLayout = "Sw<3,3,3> o (8,64):(64,1)".parse().unwrap();
//! let c = index_function("smem_off", &tile, &EmitOptions::default()).unwrap();
//! assert!(c.contains("TESSEL_FN long long smem_off(long long i) {"));
//! assert!(c.contains("TESSEL_FN long long smem_off_crd(long long c0, long long c1) {"));
//! let program = index_program("smem_off", &tile, &EmitOptions::default()).unwrap();
//! for i in 0..tile.size() {
//!     assert_eq!(program.index.eval(&[i], &[]), Some(tile.offset(i).unwrap()));
//! }
//! ```
//!
//! The same algebra is available as text, as `tessel eval` uses it:
//!
//! ```
//! use tessel_layout::expr::eval;
//! assert_eq!(eval("(6,2):(8,2) o (4,3):(3,1)").unwrap().to_string(), "((2,2),3):((24,2),8)");
//! assert_eq!(eval("at(Sw<3,3,3> o (8,64):(64,1), (7,63))").unwrap().to_string(), "455");
//! ```
//!
//! # Where each operation lives
//!
//! | what | where |
//! |---|---|
//! | integer tuples: rank, depth, size, congruence, prefix products | [`int_tuple`] ([`IntTuple`]) |
//! | layouts: construction, size/cosize, modes, coordinates, slicing | [`layout`] ([`Layout`], [`crd2idx`], [`SliceCoord`]) |
//! | parsing CuTe notation | [`parse`], and `str::parse` on every value type |
//! | errors and checked arithmetic | [`error`] ([`Error`], [`ErrorKind`]) |
//! | coalesce, by-mode coalesce, filter | [`algebra::coalesce`](mod@algebra::coalesce) |
//! | composition, by-mode composition | [`algebra::composition`](mod@algebra::composition) ([`composition()`], [`compose_tiler`]) |
//! | complement | [`algebra::complement`](mod@algebra::complement) |
//! | logical / zipped / tiled / flat divide | [`algebra::divide`](mod@algebra::divide) |
//! | logical / zipped / tiled / flat / blocked / raked product | [`algebra::product`](mod@algebra::product) |
//! | tilers (one layout, or one per mode) | [`algebra::tiler`](mod@algebra::tiler) ([`Tiler`]) |
//! | make_ordered_layout, tile_to_shape, tile_to_shape_ordered | [`algebra::ordered`](mod@algebra::ordered) |
//! | right_inverse, left_inverse, nullspace | [`algebra::inverse`](mod@algebra::inverse) |
//! | max_common_vector, max_common_layout, is_injective, is_bijective | [`algebra::vector`](mod@algebra::vector) |
//! | upcast, downcast | [`algebra::cast`](mod@algebra::cast) |
//! | swizzles | [`swizzle`] ([`Swizzle`]) |
//! | swizzled layouts: `Sw o ... o offset o L` | [`composed`] ([`ComposedLayout`], [`OffsetMap`]) |
//! | composed layouts with a layout inside (`A o offset o L`), the algebra on composed layouts | [`composed`] ([`composed::Composition`], [`composed::ComposedAlgebra`]) |
//! | `Step` projections (`dice`) of `local_tile` and `local_partition` | [`algebra::projection`](mod@algebra::projection) |
//! | bijectivity of swizzled layouts (GF(2) rank or enumeration) | [`verify`], [`f2`] |
//! | the shared-memory bank model | [`bank`] |
//! | swizzle search | [`synth`] |
//! | text tables and SVG pictures | [`render`], [`svg`] |
//! | the expression language of `tessel eval` | [`expr`] |
//! | C/CUDA index functions | [`codegen`] |
//! | copy and MMA atoms as data: CuTe's traits layouts, PTX, asm operands, shared-memory access | [`atom`] |
//! | TiledCopy / TiledMMA (make_tiled_copy, make_tiled_mma, make_tma_copy) and per-thread partitions | [`tiled`] |
//! | host tensors: data and a layout, partitions, elementwise copy | [`tensor`] ([`Tensor`]) |
//! | Hopper operands: GMMA layout atoms, wgmma descriptors, TMA box layouts, tensor-map parameters | [`gmma`] |
//! | the leaf types (integers, run-time symbols); compile-time layouts in static storage | [`leaf`] ([`Leaf`]), [`Layout::from_const`], [`ComposedLayout::from_const`] |
//! | static and dynamic integers (`_4`, `4`) and their arithmetic | [`static_int`] ([`static_int::Integer`], [`leaf::Num`]) |
//! | basis elements (`_1@0`), identity (coordinate) layouts | [`basis`], [`typed::TypedLayout::identity`] |
//! | typed layouts (static/dynamic leaves, basis strides) and their algebra | [`typed`], [`typed::algebra`] |
//! | idx2crd, crd2idx, crd2crd, increment, compatible, elem_less and the orders | [`coord`] |
//! | shape_div, shape_mod, ceil_div, tuple arithmetic, compact strides | [`int_tuple::arith`] |
//! | make_shape, make_stride, make_coord, make_layout, make_tile, make_layout_like, domain_distribute | [`make`] |
//! | dice (the complement of slicing) | [`dice`] |
//!
//! All operations are re-exported at the crate root (`tessel_layout::composition`, ...).
//!
//! # Further reading
//!
//! In the repository: `docs/semantics.md` (the specification, including "Where tessel differs
//! from CuTe"), `docs/bank-model.md` (the bank model and its measurements), `docs/cli.md` (the
//! `tessel` command line), `docs/gpu-runtime.md` (how the kernels are compiled, run and timed),
//! `docs/macros.md` (the compile-time macros and the emitted code) and `docs/performance.md`
//! (every measurement).

// Where dependents link to these docs when they are not built next to them (`cargo doc
// --no-deps -p tessel-kit`); without it rustdoc prints such links as bracketed text.
// `tests/features.rs` (workspace root) checks that the version is this crate's.
#![doc(html_root_url = "https://docs.rs/tessel-layout/0.1.0")]

pub mod algebra;
pub mod atom;
pub mod bank;
pub mod basis;
pub mod budget;
pub mod codegen;
pub mod composed;
pub mod coord;
pub mod dice;
pub mod element;
pub mod error;
pub mod expr;
pub mod f2;
pub mod gmma;
pub mod int_tuple;
pub mod layout;
pub mod leaf;
pub mod make;
pub mod parse;
pub mod render;
pub mod static_int;
pub mod svg;
pub mod swizzle;
pub mod synth;
pub mod tensor;
pub mod tiled;
pub mod typed;
pub mod verify;

pub use algebra::*;
pub use composed::{ComposedLayout, OffsetMap};
pub use element::Element;
pub use error::{Error, ErrorKind, Result, checked_add, checked_mul};
pub use int_tuple::{Coord, IntTuple, Leaves, Modes, Shape, Stride};
pub use layout::{Layout, SliceCoord, crd2idx};
pub use leaf::Leaf;
pub use swizzle::Swizzle;
pub use tensor::Tensor;

// Test-only helpers come last: nothing after `#[cfg(test)]` is product code.
#[cfg(test)]
mod test_draw;
