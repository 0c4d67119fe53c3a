//! Tiled copies through shared memory, on the tensor layer: the tiled copy and the transpose
//! ladder.
//!
//! A [`TiledPlan`] declares a kernel in the algebra: the source and destination matrices, the
//! tile, the shared-memory layout of the tile (plain, padded or swizzled: [`SharedTile`]) and four
//! tiled copies, each CuTe's `make_tiled_copy` of a `UniversalCopy` vector ([`Arrangement`]):
//! `load` (global to registers), `write` (registers to the shared tile), `read` (the shared tile
//! to registers) and `store` (registers to global). The kinds of the ladder differ only in these
//! declarations; two bodies run them — [`BODY`] through shared memory, [`DIRECT_BODY`] for the
//! naive transposes — with `tessel::copy` and, at the ragged edges, `tessel::copy_if` over
//! identity tensors partitioned like the data ([`crate::layer`]).
//!
//! Everything the bodies assume is proved on the host when the kernel is built
//! ([`TiledPlan::validate`]): each copy's partition of its tensor (element widths, vectors
//! contiguous and aligned in global and shared memory), the register permutation between two
//! copies (the transpose of a thread's block in the 128-bit kernel,
//! [`DeviceCopy::retile_s_from`]) and that each predicated vector lies inside or outside the
//! matrix as a whole ([`DeviceCopy::check_predicate`]). The global vector widths are the widest
//! the matrix layouts allow: the widest for which those checks pass.
//!
//! ```
//! use tessel_kernels::{Element, tiled::{TiledKind, TiledPlan}};
//! let p = TiledPlan::new(TiledKind::Swizzled, Element::F32, 4096, 4096).unwrap();
//! assert_eq!(p.smem().unwrap().to_string(), "Sw<5,0,5> o (32,32):(32,1)");
//! assert!(p.source().unwrap().contains("__global__"));
//! ```

use std::fmt;

use tessel_layout::atom::copy_atom;
use tessel_layout::bank::{OpKind, SmemOp, SmemTraffic, analyze_indices};
use tessel_layout::tiled::{TiledCopy, make_tiled_copy};
use tessel_layout::{ComposedLayout, Error, IntTuple, Layout, Result, Swizzle, coalesce};

use cudarc::driver::CudaSlice;

use crate::bits::BitsElement;
use crate::device::Gpu;
use crate::element::{DeviceElement, Element};
use crate::emit::storage;
use crate::error::{GpuError, GpuResult};
use crate::kernel::{
    Arg, Elem as ParamElem, Kernel, KernelBuilder, Loaded, Param, expect_bits_labelled,
};
use crate::layer::{DeviceCopy, DeviceTensor};

/// The element types the copy ladder moves (its kernels move raw words: `b32` and `b16`);
/// [`TiledPlan::new`] refuses the others with an error naming these.
///
/// ```
/// use tessel_kernels::{Element, tiled::COPY_ELEMENTS};
/// assert_eq!(COPY_ELEMENTS, [Element::F32, Element::F16]);
/// ```
pub const COPY_ELEMENTS: [Element; 2] = [Element::F32, Element::F16];

/// The device body of the tiled kernels that stage the tile through shared memory (the copy
/// and the transposes from `transpose_smem` on): load, write, read, store.
///
/// ```
/// use tessel_kernels::tiled::BODY;
/// for copy in ["copy::load", "copy::write", "copy::read", "copy::store"] {
///     assert!(BODY.contains(copy), "{copy}");
/// }
/// assert!(!BODY.contains("layout::smem") && !BODY.contains("#if"));
/// ```
pub const BODY: &str = include_str!("../cuda/tiled_copy.cu");
/// The device body of the naive transposes (registers only, no shared memory): load, store.
///
/// ```
/// use tessel_kernels::tiled::DIRECT_BODY;
/// assert!(DIRECT_BODY.contains("copy::load") && DIRECT_BODY.contains("copy::store"));
/// assert!(!DIRECT_BODY.contains("smem"));
/// ```
pub const DIRECT_BODY: &str = include_str!("../cuda/tiled_direct.cu");

/// What a tiled kernel computes.
///
/// ```
/// use tessel_kernels::tiled::TiledKind;
/// assert_eq!(TiledKind::Padded.to_string(), "transpose_padded");
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TiledKind {
    /// `dst = src` through shared memory, 128-bit vectors.
    Copy,
    /// Transpose, each thread reads along rows (coalesced) and writes strided. No shared memory.
    NaiveRead,
    /// Transpose, strided reads, coalesced writes. No shared memory.
    NaiveWrite,
    /// Transpose through a 32x32 shared tile, row-major: the column reads conflict 32-way.
    Smem,
    /// The same tile with each row padded by one 32-bit word (pitch 33 fp32 / 34 fp16).
    Padded,
    /// The same tile with the XOR swizzle `Sw<5,0,5>` (fp32) instead of padding.
    Swizzled,
    /// 128-bit global and shared accesses: each thread loads a vec x vec block as row vectors
    /// and writes it as column vectors (the register transpose of a block), into a
    /// column-major tile swizzled on the packed-vector index (`Sw<3,log2 vec,log2 TM>`).
    Vectorized,
}

impl TiledKind {
    /// Every kind of the transpose ladder, in order.
    ///
    /// ```
    /// use tessel_kernels::tiled::TiledKind;
    /// assert!(TiledKind::LADDER.iter().all(|k| k.is_transpose()));
    /// assert_eq!(TiledKind::LADDER.last(), Some(&TiledKind::Vectorized));
    /// ```
    pub const LADDER: [TiledKind; 6] = [
        TiledKind::NaiveRead,
        TiledKind::NaiveWrite,
        TiledKind::Smem,
        TiledKind::Padded,
        TiledKind::Swizzled,
        TiledKind::Vectorized,
    ];

    /// Short name used in kernel names, tables and JSON.
    ///
    /// ```
    /// use tessel_kernels::tiled::TiledKind;
    /// assert_eq!(TiledKind::Vectorized.name(), "transpose_vec128");
    /// ```
    pub fn name(self) -> &'static str {
        match self {
            TiledKind::Copy => "copy",
            TiledKind::NaiveRead => "transpose_naive_read",
            TiledKind::NaiveWrite => "transpose_naive_write",
            TiledKind::Smem => "transpose_smem",
            TiledKind::Padded => "transpose_padded",
            TiledKind::Swizzled => "transpose_swizzled",
            TiledKind::Vectorized => "transpose_vec128",
        }
    }

    /// True for the transposes.
    ///
    /// ```
    /// use tessel_kernels::tiled::TiledKind;
    /// assert!(!TiledKind::Copy.is_transpose() && TiledKind::NaiveRead.is_transpose());
    /// ```
    pub fn is_transpose(self) -> bool {
        self != TiledKind::Copy
    }
}

impl fmt::Display for TiledKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// The shared-memory stage of a tiled kernel: the tile's layout and the two copies that write
/// it from registers and read it back.
///
/// ```
/// use tessel_kernels::{Element, tiled::{TiledKind, TiledPlan}};
/// let p = TiledPlan::new(TiledKind::Vectorized, Element::F32, 256, 256).unwrap();
/// let s = p.shared.as_ref().unwrap();
/// assert_eq!(s.layout.to_string(), "Sw<3,2,6> o (64,64):(1,64)");
/// assert_eq!(s.write.atom().atom().name(), "UniversalCopy<uint128_t>");
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SharedTile {
    /// The tile `(r, c) -> offset` in shared memory (plain, padded or swizzled).
    pub layout: ComposedLayout,
    /// Registers to the shared tile.
    pub write: TiledCopy,
    /// The shared tile to registers (the threads and values of the store).
    pub read: TiledCopy,
}

/// Every layout and copy a tiled kernel is generated from.
///
/// ```
/// use tessel_kernels::{Element, tiled::{TiledKind, TiledPlan}};
/// let p = TiledPlan::new(TiledKind::Padded, Element::F16, 100, 70).unwrap();
/// assert_eq!((p.tm, p.tn, p.threads), (32, 32, 256));
/// // One 32-bit word of padding per row is two fp16 elements.
/// assert_eq!(p.smem().unwrap().to_string(), "(32,32):(34,1)");
/// assert_eq!(p.g_dst.to_string(), "(100,70):(1,100)");
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TiledPlan {
    /// What it computes.
    pub kind: TiledKind,
    /// Element type.
    pub dtype: Element,
    /// Rows of the source matrix.
    pub m: i64,
    /// Columns of the source matrix.
    pub n: i64,
    /// Tile rows.
    pub tm: i64,
    /// Tile columns.
    pub tn: i64,
    /// Threads per block.
    pub threads: i64,
    /// Source matrix `(M,N) -> offset` (row-major `(M,N):(N,1)`).
    pub g_src: Layout,
    /// Destination `(m,n) -> offset`: row-major for the copy, `(M,N):(1,M)` for transposes.
    pub g_dst: Layout,
    /// Global to registers over a `TM x TN` tile.
    pub load: TiledCopy,
    /// The shared-memory stage, or `None` for the naive transposes.
    pub shared: Option<SharedTile>,
    /// Registers to global over the tile (the naive transposes: the load's threads and values).
    pub store: TiledCopy,
    /// Block order: linear block id -> tile index `ty + TY * tx` ([`raster_layout`]).
    pub raster: Layout,
}

/// Tiles visited in groups of `group x group` (column-major inside a group, groups down the
/// tile rows first) so that the blocks resident at one time read and write long runs of both
/// matrices; `group == 0` is plain row order (`tx` fastest). A group that does not divide both
/// tile counts falls back to the largest power of two that does.
///
/// ```
/// use tessel_kernels::tiled::raster_layout;
/// assert_eq!(raster_layout(4, 6, 0).unwrap().to_string(), "(6,4):(4,1)");
/// let g = raster_layout(4, 6, 2).unwrap();
/// assert_eq!(g.to_string(), "((2,2),(2,3)):((1,4),(2,8))");
/// assert_eq!(g.offset(2).unwrap(), 4); // third block: tile (ty 0, tx 1)
/// ```
pub fn raster_layout(ty: i64, tx: i64, group: i64) -> Result<Layout> {
    if group <= 0 {
        return parse(&format!("({tx},{ty}):({ty},1)"));
    }
    let mut g = 1;
    while g * 2 <= group && ty % (g * 2) == 0 && tx % (g * 2) == 0 {
        g *= 2;
    }
    parse(&format!(
        "(({g},{g}),({},{})):((1,{ty}),({g},{}))",
        ty / g,
        tx / g,
        g * ty
    ))
}

/// [`raster_layout`] with run-time extents: the tile order a kernel computes from its run-time
/// tile counts (one compiled kernel for every shape) instead of a layout emitted per shape.
/// Iteration `i` decomposes as the grouped layout `((g,g),(ty/g,tx/g)):((1,ty),(g,g ty))`
/// does: `i0 = i % g`, `i1 = (i / g) % g`, `i2 = (i / g^2) % (ty / g)`, `i3 = i / (g ty)`,
/// the tile `(ym, xn) = (i0 + g i2, i1 + g i3)`, whose index is `ym + ty xn`. `g` is the group
/// [`raster_layout`] picks (the largest power of two up to `group` that divides both counts);
/// the device twin is `tessel::GroupedRaster` (`kernels/cuda/tessel_tensor.cuh`), computing
/// the same with shifts by `log2 g`.
///
/// ```
/// use tessel_kernels::tiled::{GroupedRaster, raster_layout};
/// let r = GroupedRaster::new(6, 4, 16).unwrap();
/// assert_eq!(r.group(), 2); // 2 divides 6 and 4, 4 does not divide 6
/// let l = raster_layout(6, 4, 16).unwrap();
/// for i in 0..24 {
///     let (ym, xn) = r.tile(i);
///     assert_eq!(ym + 6 * xn, l.offset(i).unwrap());
/// }
/// assert!(GroupedRaster::new(0, 4, 8).is_err());
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct GroupedRaster {
    ty: i64,
    tx: i64,
    log2_group: u32,
}

impl GroupedRaster {
    /// The order of `ty x tx` tiles in groups of at most `group` (at least 1). Errors: a count
    /// outside `1..2^31`, or `group < 1`.
    pub fn new(ty: i64, tx: i64, group: i64) -> Result<GroupedRaster> {
        if !(1..1 << 31).contains(&ty) || !(1..1 << 31).contains(&tx) || ty * tx >= 1 << 31 {
            return Err(Error::invalid(format!(
                "a grouped raster of {ty} x {tx} tiles: the counts and their product must be in \
                 1..2^31"
            )));
        }
        if group < 1 {
            return Err(Error::invalid(format!(
                "a grouped raster needs a group of at least 1, not {group}"
            )));
        }
        let mut log2_group = 0;
        while (2 << log2_group) <= group
            && ty % (2 << log2_group) == 0
            && tx % (2 << log2_group) == 0
        {
            log2_group += 1;
        }
        Ok(GroupedRaster { ty, tx, log2_group })
    }

    /// Tile rows.
    pub fn ty(&self) -> i64 {
        self.ty
    }

    /// Tile columns.
    pub fn tx(&self) -> i64 {
        self.tx
    }

    /// The group `g` in use.
    pub fn group(&self) -> i64 {
        1 << self.log2_group
    }

    /// `log2` of the group (the kernel's shift).
    pub fn log2_group(&self) -> u32 {
        self.log2_group
    }

    /// Tiles in all.
    pub fn tiles(&self) -> i64 {
        self.ty * self.tx
    }

    /// The tile `(row, column)` of iteration `i` (`0 <= i < ty tx`), as the device computes it.
    pub fn tile(&self, i: i64) -> (i64, i64) {
        let (g, s) = (self.group(), self.log2_group);
        let groups_y = self.ty >> s;
        let (i0, r) = (i & (g - 1), i >> s);
        let (i1, q) = (r & (g - 1), r >> s);
        let (i2, i3) = (q % groups_y, q / groups_y);
        (i0 + (i2 << s), i1 + (i3 << s))
    }
}

/// Raster group of the transposes: 2x2 tiles (an H200 sweep of 0, 2, 8, 16 put 2 first;
/// docs/decisions.md). The copy visits its tiles in row order (group 0).
///
/// ```
/// use tessel_kernels::{Element, tiled::*};
/// let p = TiledPlan::new(TiledKind::Smem, Element::F32, 256, 256).unwrap();
/// assert_eq!(p.raster, raster_layout(8, 8, TRANSPOSE_RASTER_GROUP).unwrap());
/// ```
pub const TRANSPOSE_RASTER_GROUP: i64 = 2;

/// How a tiled copy's threads and their values cover its `TM x TN` tile: each arrangement is one
/// CuTe `make_tiled_copy(atom, thr_layout, val_layout)` (layout/tests/tiled_copy.rs checks them
/// against their definitions), repeated over the tile by the copy's partition ([`tile_tv`]).
/// A thread holds blocks of `vec` values; the atom moves `width` of them at once
/// (`UniversalCopy` of `width` elements, `width` dividing `vec`).
///
/// ```
/// use tessel_kernels::{Element, tiled::Arrangement};
/// let copy = Arrangement::RowsRaked.tiled_copy(Element::F32, 32, 32, 1, 256).unwrap();
/// assert_eq!(copy.tiler(), &[8, 32]); // 8 rows of 32 threads, repeated down the tile
/// let tv = Arrangement::RowsRaked.tv(Element::F32, 32, 32, 1, 256).unwrap();
/// assert_eq!(tv.offset(1).unwrap(), 32); // thread 1, value 0: row 0, column 1
/// assert_eq!(tv.offset(256).unwrap(), 8); // thread 0, value 1: row 8, column 0
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Arrangement {
    /// Threads along the tile's columns (contiguous in a row-major matrix), `vec` consecutive
    /// columns each: `thr (threads / (TN/vec), TN/vec)` row-major, `val (1, vec)`; the thread
    /// rows repeat down the tile.
    RowsRaked,
    /// Threads along the tile's rows (contiguous in the transposed output), `vec` consecutive
    /// rows each: `thr (TM/vec, threads / (TM/vec))` column-major, `val (vec, 1)`; the thread
    /// columns repeat across the tile.
    ColsRaked,
    /// A `vec x vec` block per thread, values row-major (`val (vec, vec):(vec, 1)`: row
    /// vectors), threads row-major over the `TM/vec x TN/vec` blocks.
    Blocks,
    /// The same blocks with the values column-major (`val (vec, vec):(1, vec)`: column vectors):
    /// the block of [`Blocks`](Self::Blocks) transposed in registers.
    BlockColumns,
}

impl Arrangement {
    /// `(thr_layout, val_layout)` of the arrangement, or the error naming the extent that does
    /// not divide.
    fn layouts(self, tm: i64, tn: i64, vec: i64, threads: i64) -> Result<(Layout, Layout)> {
        let div = |a: i64, b: i64, what: &str| -> Result<i64> {
            if b > 0 && a % b == 0 {
                Ok(a / b)
            } else {
                Err(Error::invalid(format!(
                    "{self:?} arrangement of {threads} threads, {vec} values per vector over a \
                     {tm} x {tn} tile: {what} ({b} does not divide {a})"
                )))
            }
        };
        let text = match self {
            Arrangement::RowsRaked => {
                let tc = div(tn, vec, "vectors per tile row")?;
                let tr = div(threads, tc, "thread rows")?;
                div(tm, tr, "thread rows per tile")?;
                (format!("({tr},{tc}):({tc},1)"), format!("(1,{vec}):(0,1)"))
            }
            Arrangement::ColsRaked => {
                let tr = div(tm, vec, "vectors per tile column")?;
                let tc = div(threads, tr, "thread columns")?;
                div(tn, tc, "thread columns per tile")?;
                (format!("({tr},{tc}):(1,{tr})"), format!("({vec},1):(1,0)"))
            }
            Arrangement::Blocks | Arrangement::BlockColumns => {
                let (br, bc) = (div(tm, vec, "block rows")?, div(tn, vec, "block columns")?);
                if br * bc != threads {
                    return Err(Error::invalid(format!(
                        "{self:?} arrangement: {br} x {bc} blocks of {vec} x {vec} need {} \
                         threads, not {threads}",
                        br * bc
                    )));
                }
                let val = if self == Arrangement::Blocks {
                    format!("({vec},{vec}):({vec},1)")
                } else {
                    format!("({vec},{vec}):(1,{vec})")
                };
                (format!("({br},{bc}):({bc},1)"), val)
            }
        };
        Ok((parse(&text.0)?, parse(&text.1)?))
    }

    /// The tiled copy of the arrangement: CuTe's `make_tiled_copy` of
    /// `UniversalCopy<uint{vec x bits}_t>` on `dtype` values (one vector per block of values).
    ///
    /// ```
    /// use tessel_kernels::{Element, tiled::Arrangement};
    /// let c = Arrangement::Blocks.tiled_copy(Element::F16, 128, 128, 8, 256).unwrap();
    /// assert_eq!(c.atom().atom().name(), "UniversalCopy<uint128_t>");
    /// assert!(Arrangement::ColsRaked.tiled_copy(Element::F32, 32, 32, 3, 256).is_err());
    /// ```
    pub fn tiled_copy(
        self,
        dtype: Element,
        tm: i64,
        tn: i64,
        vec: i64,
        threads: i64,
    ) -> Result<TiledCopy> {
        self.tiled_copy_width(dtype, tm, tn, vec, vec, threads)
    }

    /// [`tiled_copy`](Self::tiled_copy) with an atom of `width` elements (`UniversalCopy<uint{width
    /// x bits}_t>`, `width` dividing `vec`): the same threads and values, each block moved in
    /// `vec / width` instructions.
    ///
    /// ```
    /// use tessel_kernels::{Element, tiled::Arrangement};
    /// let wide = Arrangement::Blocks.tiled_copy(Element::F16, 128, 128, 8, 256).unwrap();
    /// let narrow = Arrangement::Blocks.tiled_copy_width(Element::F16, 128, 128, 8, 1, 256).unwrap();
    /// assert_eq!(narrow.atom().atom().name(), "UniversalCopy<uint16_t>");
    /// assert_eq!(narrow.layout_tv(), wide.layout_tv());
    /// ```
    pub fn tiled_copy_width(
        self,
        dtype: Element,
        tm: i64,
        tn: i64,
        vec: i64,
        width: i64,
        threads: i64,
    ) -> Result<TiledCopy> {
        let (thr, val) = self.layouts(tm, tn, vec, threads)?;
        let bits = 8 * dtype.bytes();
        let atom = copy_atom(&format!("UniversalCopy<uint{}_t>", width * bits))?.typed(bits)?;
        make_tiled_copy(&atom, &thr, &val)
    }

    /// The arrangement's `(thread, value) -> r + TM c` layout over the whole tile
    /// ([`tile_tv`] of [`Arrangement::tiled_copy`]).
    ///
    /// ```
    /// use tessel_kernels::{Element, tiled::Arrangement};
    /// let tv = Arrangement::ColsRaked.tv(Element::F32, 32, 32, 1, 256).unwrap();
    /// assert_eq!(tv.offset(1).unwrap(), 1); // thread 1, value 0: row 1, column 0
    /// ```
    pub fn tv(self, dtype: Element, tm: i64, tn: i64, vec: i64, threads: i64) -> Result<Layout> {
        tile_tv(&self.tiled_copy(dtype, tm, tn, vec, threads)?, tm, tn)
    }
}

/// The `(thread, value) -> r + TM c` layout of `copy` repeated over a `TM x TN` tile: CuTe's
/// `tidfrg_S` of the tile's column-major index layout, `(thread, (atom values, atoms), tiles)`,
/// with the values and tiles of one thread as one mode — value `v` of thread `t` is index `v` of
/// `copy.get_slice(t).partition_s(tile)` (its offset included). Each mode is coalesced.
///
/// ```
/// use tessel_kernels::{Element, tiled::{tile_tv, Arrangement}};
/// use tessel_layout::{IntTuple, Layout};
/// let copy = Arrangement::RowsRaked.tiled_copy(Element::F32, 64, 64, 4, 256).unwrap();
/// let tv = tile_tv(&copy, 64, 64).unwrap();
/// let tile = Layout::col_major(&IntTuple::from_ints([64, 64])).unwrap();
/// let (part, off) = copy.get_slice(17).unwrap().partition_s(&tile).unwrap();
/// for v in 0..16 {
///     assert_eq!(tv.offset(17 + 256 * v).unwrap(), off + part.offset(v).unwrap());
/// }
/// // The tile must be whole copies.
/// assert!(tile_tv(&copy, 64, 30).is_err());
/// ```
pub fn tile_tv(copy: &TiledCopy, tm: i64, tn: i64) -> Result<Layout> {
    let tiler = copy.tiler();
    if tiler.len() != 2 || tm % tiler[0] != 0 || tn % tiler[1] != 0 {
        return Err(Error::invalid(format!(
            "the {tm} x {tn} tile is not whole tiles {tiler:?} of {copy}"
        )));
    }
    let tile = Layout::col_major(&IntTuple::from_ints([tm, tn]))?;
    let frg = copy.tidfrg_s(&tile)?;
    let values = Layout::from_modes([frg.mode(1)?, frg.mode(2)?])?;
    Layout::from_modes([coalesce(&frg.mode(0)?)?, coalesce(&values)?])
}

fn log2(x: i64) -> i64 {
    i64::from(63 - x.leading_zeros() as i32)
}

fn matrix(m: i64, n: i64, transposed: bool) -> Result<Layout> {
    if m < 1 || n < 1 {
        return Err(Error::invalid(format!(
            "matrix size {m} x {n}: extents must be >= 1"
        )));
    }
    let stride = if transposed { [1, m] } else { [n, 1] };
    Layout::new(IntTuple::from_ints([m, n]), IntTuple::from_ints(stride))
}

fn parse(text: &str) -> Result<Layout> {
    text.parse()
}

/// The tensors of a tiled kernel, each with the host checks of its derivation done.
struct Tensors {
    /// The source tile through the load copy, its coordinates (row, column) and the registers.
    g_a: DeviceTensor,
    c_a: [DeviceTensor; 2],
    r_a: DeviceTensor,
    /// The shared stage: write partition, the registers in the write copy's order, read
    /// partition, the registers read.
    shared: Option<[DeviceTensor; 4]>,
    /// The registers in the store copy's order, the destination tile through the store copy
    /// and its coordinates.
    r_s: DeviceTensor,
    g_b: DeviceTensor,
    c_b: [DeviceTensor; 2],
    /// The coordinates of the tile's elements.
    c_t: [DeviceTensor; 2],
}

impl TiledPlan {
    /// The plan of `kind` for an `m x n` source of `dtype`, with global vector widths reduced
    /// to what the matrix layouts allow (e.g. scalar accesses when `n` is odd).
    ///
    /// ```
    /// use tessel_kernels::{Element, tiled::{TiledKind, TiledPlan}};
    /// let p = TiledPlan::new(TiledKind::Vectorized, Element::F32, 8192, 8192).unwrap();
    /// assert_eq!(p.smem().unwrap().to_string(), "Sw<3,2,6> o (64,64):(1,64)");
    /// assert_eq!(p.vector_widths(), [4, 4, 4, 4]);
    /// let odd = TiledPlan::new(TiledKind::Vectorized, Element::F32, 1000, 1001).unwrap();
    /// // Rows of 1001 floats are not 16-byte aligned; columns of 1000 are.
    /// assert_eq!(odd.vector_widths(), [1, 4, 4, 4]);
    /// // The ladder moves f32 and f16 only.
    /// let e = TiledPlan::new(TiledKind::Copy, Element::BF16, 64, 64).unwrap_err();
    /// assert!(e.to_string().contains("takes f32 or f16, not bf16"), "{e}");
    /// ```
    pub fn new(kind: TiledKind, dtype: Element, m: i64, n: i64) -> GpuResult<TiledPlan> {
        use Arrangement::{BlockColumns, Blocks, ColsRaked, RowsRaked};
        let dtype = dtype.require(&COPY_ELEMENTS, "the copy ladder")?;
        let g_src = matrix(m, n, false)?;
        let g_dst = matrix(m, n, kind.is_transpose())?;
        let vec = dtype.per_128_bits();
        let threads = 256;
        let (tm, tn) = match kind {
            TiledKind::Copy => (64, 16 * vec),
            TiledKind::Vectorized => (16 * vec, 16 * vec),
            _ => (32, 32),
        };
        // (arrangement, values per thread block) of the load and of the store.
        let (load, store) = match kind {
            TiledKind::Copy => ((RowsRaked, vec), (RowsRaked, vec)),
            TiledKind::NaiveRead => ((RowsRaked, 1), (RowsRaked, 1)),
            TiledKind::NaiveWrite => ((ColsRaked, 1), (ColsRaked, 1)),
            TiledKind::Smem | TiledKind::Padded | TiledKind::Swizzled => {
                ((RowsRaked, 1), (ColsRaked, 1))
            }
            TiledKind::Vectorized => ((Blocks, vec), (ColsRaked, vec)),
        };
        // The shared tile and the arrangement that writes it (the read is the store's).
        let shared = match kind {
            TiledKind::NaiveRead | TiledKind::NaiveWrite => None,
            TiledKind::Copy => Some((parse(&format!("({tm},{tn}):({tn},1)"))?.into(), load.0)),
            TiledKind::Smem => Some((parse("(32,32):(32,1)")?.into(), RowsRaked)),
            // Pad each row by one 32-bit word: 1 fp32 or 2 fp16 elements.
            TiledKind::Padded => Some((
                parse(&format!("(32,32):({},1)", 32 + 4 / dtype.bytes()))?.into(),
                RowsRaked,
            )),
            TiledKind::Swizzled => Some((
                ComposedLayout::new(vec![Swizzle::new(5, 0, 5)?], 0, parse("(32,32):(32,1)")?),
                RowsRaked,
            )),
            // Column-major, so a column of `vec` is one vector; swizzled on the vector index.
            TiledKind::Vectorized => Some((
                ComposedLayout::new(
                    vec![Swizzle::new(3, log2(vec), log2(tm))?],
                    0,
                    parse(&format!("({tm},{tn}):(1,{tm})"))?,
                ),
                BlockColumns,
            )),
        };
        let copy = |(arr, v): (Arrangement, i64), width| {
            arr.tiled_copy_width(dtype, tm, tn, v, width, threads)
        };
        let shared = match shared {
            Some((layout, write)) => Some(SharedTile {
                layout,
                write: copy((write, load.1), load.1)?,
                read: copy(store, store.1)?,
            }),
            None => None,
        };
        let group = if kind.is_transpose() {
            TRANSPOSE_RASTER_GROUP
        } else {
            0
        };
        let mut plan = TiledPlan {
            kind,
            dtype,
            m,
            n,
            tm,
            tn,
            threads,
            g_src,
            g_dst,
            load: copy(load, 1)?,
            shared,
            store: copy(store, 1)?,
            raster: Layout::vector(1, 0)?,
        };
        let (ty, tx) = plan.tile_counts();
        if ty.checked_mul(tx).is_none_or(|b| b > i64::from(i32::MAX)) {
            return Err(GpuError::InvalidArgument(format!(
                "{kind}: {ty} x {tx} tiles exceed the 2^31-1 blocks of a CUDA grid"
            )));
        }
        plan.raster = raster_layout(ty, tx, group)?;
        // The widest global vectors whose partitions and predicates the layer accepts.
        plan.load = plan.widest(load, |p, c| p.global_side(c, &p.g_src, true).map(|_| ()))?;
        plan.store = plan.widest(store, |p, c| p.global_side(c, &p.g_dst, false).map(|_| ()))?;
        plan.validate()?;
        Ok(plan)
    }

    /// The copy of `arrangement` with the widest vector (a power of two up to its block of
    /// values) that `accepts`; one element per instruction is the last resort.
    fn widest(
        &self,
        (arr, vec): (Arrangement, i64),
        accepts: impl Fn(&TiledPlan, &DeviceCopy) -> GpuResult<()>,
    ) -> GpuResult<TiledCopy> {
        let mut width = vec;
        loop {
            let copy =
                arr.tiled_copy_width(self.dtype, self.tm, self.tn, vec, width, self.threads)?;
            match accepts(self, &DeviceCopy::new("c", copy.clone())) {
                Ok(()) => return Ok(copy),
                Err(e) if width == 1 => return Err(e),
                Err(_) => width /= 2,
            }
        }
    }

    /// The matrix `g` over whole tiles (its extents rounded up to the tile, the strides kept:
    /// the elements past the matrix are never accessed) as `(TM, TN, tiles)`, the tile index
    /// `ty + TY tx` in the last mode.
    fn tiles(&self, g: DeviceTensor) -> GpuResult<DeviceTensor> {
        g.local_tile(&[self.tm, self.tn])?
            .group(&[&[0], &[1], &[2, 3]])
    }

    /// Extents of the matrix over whole tiles.
    fn whole(&self) -> [i64; 2] {
        let (ty, tx) = self.tile_counts();
        [ty * self.tm, tx * self.tn]
    }

    /// A global matrix through `copy` (the source through the load when `src`, else the
    /// destination through the store), with its coordinates and their predicates checked.
    fn global_side(
        &self,
        copy: &DeviceCopy,
        g: &Layout,
        src: bool,
    ) -> GpuResult<(DeviceTensor, [DeviceTensor; 2])> {
        let strides: Vec<i64> = g.flat_modes().iter().map(|m| m.1).collect();
        let whole = Layout::new(
            IntTuple::from_ints(self.whole()),
            IntTuple::from_ints(strides),
        )?;
        let part = |t: &DeviceTensor| {
            if src {
                copy.partition_s(t)
            } else {
                copy.partition_d(t)
            }
        };
        let data = part(&self.tiles(DeviceTensor::global(self.dtype.word(), whole))?)?;
        let mut coords = Vec::with_capacity(2);
        for (which, bound) in [(0, self.m), (1, self.n)] {
            let c = part(&self.tiles(DeviceTensor::identity(&self.whole(), which)?)?)?;
            copy.check_predicate(&c, bound)?;
            coords.push(c);
        }
        let coords: [DeviceTensor; 2] = coords
            .try_into()
            .unwrap_or_else(|_| unreachable!("two coordinates"));
        Ok((data, coords))
    }

    fn device_copies(&self) -> (DeviceCopy, Option<(DeviceCopy, DeviceCopy)>, DeviceCopy) {
        let shared = self.shared.as_ref().map(|s| {
            (
                DeviceCopy::new("write", s.write.clone()),
                DeviceCopy::new("read", s.read.clone()),
            )
        });
        (
            DeviceCopy::new("load", self.load.clone()),
            shared,
            DeviceCopy::new("store", self.store.clone()),
        )
    }

    /// Every tensor of the kernel, derived with the layer's checks.
    fn tensors(&self) -> GpuResult<Tensors> {
        let (load, shared, store) = self.device_copies();
        let tile = [self.tm, self.tn];
        let (g_a, c_a) = self.global_side(&load, &self.g_src, true)?;
        let r_a = g_a.fragment_like(1..5)?;
        let (shared, r_s) = match (&self.shared, shared) {
            (Some(s), Some((write, read))) => {
                let s_tile = DeviceTensor::shared(self.dtype.word(), s.layout.clone());
                let s_w = write.partition_d(&s_tile)?;
                let r_w = write.retile_s_from(&r_a, &load, &tile)?;
                let s_r = read.partition_s(&s_tile)?;
                let r_b = s_r.fragment_like(1..5)?;
                let r_s = store.retile_s_from(&r_b, &read, &tile)?;
                (Some([s_w, r_w, s_r, r_b]), r_s)
            }
            _ => (None, store.retile_s_from(&r_a, &load, &tile)?),
        };
        let (g_b, c_b) = self.global_side(&store, &self.g_dst, false)?;
        let corner = |which| self.tiles(DeviceTensor::identity(&self.whole(), which)?);
        Ok(Tensors {
            g_a,
            c_a,
            r_a,
            shared,
            r_s,
            g_b,
            c_b,
            c_t: [corner(0)?, corner(1)?],
        })
    }

    /// Tiles along rows and along columns (ragged edges included).
    ///
    /// ```
    /// use tessel_kernels::{Element, tiled::{TiledKind, TiledPlan}};
    /// let p = TiledPlan::new(TiledKind::Swizzled, Element::F32, 100, 70).unwrap();
    /// assert_eq!(p.tile_counts(), (4, 3)); // ceil(100 / 32), ceil(70 / 32)
    /// ```
    pub fn tile_counts(&self) -> (i64, i64) {
        (
            (self.m + self.tm - 1) / self.tm,
            (self.n + self.tn - 1) / self.tn,
        )
    }

    /// The shared tile's layout, or `None` for the naive transposes.
    ///
    /// ```
    /// use tessel_kernels::{Element, tiled::{TiledKind, TiledPlan}};
    /// let p = TiledPlan::new(TiledKind::Smem, Element::F32, 64, 64).unwrap();
    /// assert_eq!(p.smem().unwrap().to_string(), "(32,32):(32,1)");
    /// assert!(TiledPlan::new(TiledKind::NaiveRead, Element::F32, 64, 64).unwrap().smem().is_none());
    /// ```
    pub fn smem(&self) -> Option<&ComposedLayout> {
        self.shared.as_ref().map(|s| &s.layout)
    }

    /// Elements per instruction of the global load, the shared write, the shared read and the
    /// global store (the shared ones are 0 without a shared tile).
    ///
    /// ```
    /// use tessel_kernels::{Element, tiled::{TiledKind, TiledPlan}};
    /// let p = TiledPlan::new(TiledKind::Copy, Element::F16, 4096, 4100).unwrap();
    /// assert_eq!(p.vector_widths(), [4, 8, 8, 4]); // rows of 4100 halves: 8-byte aligned
    /// ```
    pub fn vector_widths(&self) -> [i64; 4] {
        let w = |c: &TiledCopy| c.atom().num_val_src();
        let (sw, sr) = self
            .shared
            .as_ref()
            .map_or((0, 0), |s| (w(&s.write), w(&s.read)));
        [w(&self.load), sw, sr, w(&self.store)]
    }

    /// The load's `(thread, value) -> r + TM c` over the tile ([`tile_tv`]).
    ///
    /// ```
    /// use tessel_kernels::{Element, tiled::{TiledKind, TiledPlan}};
    /// let p = TiledPlan::new(TiledKind::Smem, Element::F32, 64, 64).unwrap();
    /// assert_eq!(p.tv_load().unwrap().offset(1).unwrap(), 32); // thread 1: row 0, column 1
    /// ```
    pub fn tv_load(&self) -> Result<Layout> {
        tile_tv(&self.load, self.tm, self.tn)
    }

    /// The store's `(thread, value) -> r + TM c` over the tile ([`tile_tv`]).
    ///
    /// ```
    /// use tessel_kernels::{Element, tiled::{TiledKind, TiledPlan}};
    /// let p = TiledPlan::new(TiledKind::Smem, Element::F32, 64, 64).unwrap();
    /// assert_eq!(p.tv_store().unwrap().offset(1).unwrap(), 1); // thread 1: row 1, column 0
    /// ```
    pub fn tv_store(&self) -> Result<Layout> {
        tile_tv(&self.store, self.tm, self.tn)
    }

    /// Values each thread moves.
    ///
    /// ```
    /// use tessel_kernels::{Element, tiled::{TiledKind, TiledPlan}};
    /// let p = TiledPlan::new(TiledKind::Vectorized, Element::F16, 1024, 1024).unwrap();
    /// assert_eq!(p.values_per_thread(), 128 * 128 / 256);
    /// ```
    pub fn values_per_thread(&self) -> i64 {
        self.tm * self.tn / self.threads
    }

    /// Kernel entry-point name, e.g. `transpose_vec128_f32`.
    ///
    /// ```
    /// use tessel_kernels::{Element, tiled::{TiledKind, TiledPlan}};
    /// let p = TiledPlan::new(TiledKind::Vectorized, Element::F16, 64, 64).unwrap();
    /// assert_eq!(p.kernel_name(), "transpose_vec128_f16");
    /// assert!(p.source().unwrap().contains("transpose_vec128_f16"));
    /// ```
    pub fn kernel_name(&self) -> String {
        format!("{}_{}", self.kind, self.dtype)
    }

    /// Grid `(x, y)`: one block per tile, linear in `x` (the raster layout orders them).
    ///
    /// ```
    /// use tessel_kernels::{Element, tiled::{TiledKind, TiledPlan}};
    /// let p = TiledPlan::new(TiledKind::Padded, Element::F32, 100, 70).unwrap();
    /// assert_eq!(p.grid(), (4 * 3, 1));
    /// ```
    pub fn grid(&self) -> (u32, u32) {
        let (ty, tx) = self.tile_counts();
        (u32::try_from(ty * tx).unwrap_or(u32::MAX), 1)
    }

    /// Bytes of global memory the kernel must move (read + write).
    ///
    /// ```
    /// use tessel_kernels::{Element, tiled::{TiledKind, TiledPlan}};
    /// let p = TiledPlan::new(TiledKind::Copy, Element::F16, 100, 70).unwrap();
    /// assert_eq!(p.bytes_moved(), 2 * 100 * 70 * 2); // read once, written once
    /// ```
    pub fn bytes_moved(&self) -> i64 {
        2 * self.m * self.n * self.dtype.bytes()
    }

    /// Derives every tensor of the kernel with the layer's host checks: the copies fit their
    /// tensors (threads, element widths, vectors contiguous and aligned in global and shared
    /// memory), the registers pass from one copy to the next within each thread, and every
    /// predicated vector lies inside or outside the matrix as a whole.
    ///
    /// ```
    /// use tessel_kernels::{Element, tiled::{TiledKind, TiledPlan}};
    /// let mut p = TiledPlan::new(TiledKind::Vectorized, Element::F32, 64, 64).unwrap();
    /// p.validate().unwrap();
    /// // The column vectors of the write are not contiguous in a row-major tile.
    /// p.shared.as_mut().unwrap().layout = "(64,64):(64,1)".parse().unwrap();
    /// let err = p.validate().unwrap_err();
    /// assert!(err.to_string().contains("write: each thread's 4 values"), "{err}");
    /// ```
    pub fn validate(&self) -> GpuResult<()> {
        self.tensors().map(|_| ())
    }

    /// The kernel: the copies (`copy::load`, `write`, `read`, `store`), the tensors, the
    /// extents as `k::` constants and the block order `layout::raster`, with the body [`BODY`]
    /// (through shared memory) or [`DIRECT_BODY`] (the naive transposes), launched over
    /// [`TiledPlan::grid`] with `__launch_bounds__(threads)`.
    ///
    /// ```
    /// use tessel_kernels::{Element, tiled::{TiledKind, TiledPlan}};
    /// let p = TiledPlan::new(TiledKind::Padded, Element::F32, 100, 70).unwrap();
    /// let k = p.kernel().unwrap();
    /// assert_eq!(k.name(), "transpose_padded_f32");
    /// assert_eq!(k.launch().grid, (12, 1, 1));
    /// assert!(k.source().contains("struct sW_layout"));
    /// ```
    pub fn kernel(&self) -> GpuResult<Kernel> {
        let t = self.tensors()?;
        let (load, shared, store) = self.device_copies();
        let (gx, gy) = self.grid();
        let header = format!(
            "{} {} for a {} x {} matrix: generated by tessel-kernels from the layouts below.",
            self.kind, self.dtype, self.m, self.n
        );
        let len = usize::try_from(self.m * self.n).unwrap_or(usize::MAX);
        let body = if self.shared.is_some() {
            BODY
        } else {
            DIRECT_BODY
        };
        let mut b = KernelBuilder::new(&self.kernel_name(), body)
            .comment(&header)
            .alias("T", self.dtype.word())
            .long("M", self.m)
            .long("N", self.n)
            .int("TM", self.tm)
            .int("TN", self.tn)
            .index_layout("raster", &self.raster)
            .tiled_copy(&load)
            .tiled_copy(&store)
            .tensor("gA", &t.g_a)
            .tensor("cA_m", &t.c_a[0])
            .tensor("cA_n", &t.c_a[1])
            .tensor("rA", &t.r_a)
            .tensor("rS", &t.r_s)
            .tensor("gB", &t.g_b)
            .tensor("cB_m", &t.c_b[0])
            .tensor("cB_n", &t.c_b[1])
            .tensor("cT_m", &t.c_t[0])
            .tensor("cT_n", &t.c_t[1]);
        if let (Some(s), Some((write, read)), Some([s_w, r_w, s_r, r_b])) =
            (&self.shared, shared, &t.shared)
        {
            b = b
                .int("SMEM_SIZE", storage(&s.layout)?)
                .tiled_copy(&write)
                .tiled_copy(&read)
                .tensor("sW", s_w)
                .tensor("rW", r_w)
                .tensor("sR", s_r)
                .tensor("rB", r_b);
        }
        b.param(Param::input("src", ParamElem::alias("T")).len(len))
            .param(Param::output("dst", ParamElem::alias("T")).len(len))
            .threads(u32::try_from(self.threads).unwrap_or(0))
            .grid(gx, gy, 1)
            .build()
    }

    /// The complete CUDA C++ source of the kernel ([`TiledPlan::kernel`]).
    ///
    /// ```
    /// use tessel_kernels::{Element, tiled::{TiledKind, TiledPlan}};
    /// let p = TiledPlan::new(TiledKind::Padded, Element::F32, 100, 70).unwrap();
    /// let src = p.source().unwrap();
    /// assert!(src.contains("transpose_padded_f32"));
    /// assert!(src.contains("tessel::copy(copy::write{}"));
    /// ```
    pub fn source(&self) -> GpuResult<String> {
        Ok(self.kernel()?.source().to_string())
    }

    /// Checks every element of `out` against the CPU replay of the plan on `src` (copy:
    /// `out = src`; transpose: `out[n * M + m] = src[m * N + n]`), bit for bit.
    ///
    /// ```
    /// use tessel_kernels::{Element, bits::random_data, tiled::{TiledKind, TiledPlan}};
    /// let (m, n) = (3, 5);
    /// let src: Vec<u32> = random_data(m * n, 1);
    /// let copy = TiledPlan::new(TiledKind::Copy, Element::F32, 3, 5).unwrap();
    /// copy.verify(&src, &src).unwrap();
    /// let transpose = TiledPlan::new(TiledKind::Padded, Element::F32, 3, 5).unwrap();
    /// let mut out = vec![0u32; m * n];
    /// for r in 0..m {
    ///     for c in 0..n {
    ///         out[c * m + r] = src[r * n + c];
    ///     }
    /// }
    /// transpose.verify(&src, &out).unwrap();
    /// // The untransposed input is wrong almost everywhere.
    /// let err = transpose.verify(&src, &src).unwrap_err();
    /// assert!(err.to_string().contains("transpose_padded_f32 on 3 x 5"), "{err}");
    /// ```
    pub fn verify<E: BitsElement>(&self, src: &[E], out: &[E]) -> GpuResult<()> {
        let (m, n) = (self.m as usize, self.n as usize);
        if src.len() != m * n || out.len() < m * n {
            return Err(GpuError::InvalidArgument(
                "verify: buffer sizes differ from the plan".into(),
            ));
        }
        let out = &out[..m * n];
        let transpose = self.kind.is_transpose();
        // Output row `o` of the reference: copy -> src row o; transpose -> src column o.
        let out_cols = if transpose { m } else { n };
        let expected = |o: usize, j: usize| {
            if transpose {
                src[j * n + o]
            } else {
                src[o * n + j]
            }
        };
        let kernel = format!("{} on {} x {}", self.kernel_name(), self.m, self.n);
        expect_bits_labelled(
            &kernel,
            out,
            |i| expected(i / out_cols, i % out_cols),
            |i| format!("out[{}][{}]", i / out_cols, i % out_cols),
        )
    }

    /// Shared-memory traffic of one launch under the bank model (`tessel_layout::bank`), from
    /// the kernel's own shared-memory partitions: every warp's writes (the write copy's
    /// partition of the tile) and reads (the read copy's), one instruction per atom call,
    /// evaluated by [`analyze_indices`]; `None` for kernels without shared memory.
    ///
    /// ```
    /// use tessel_kernels::{Element, tiled::{TiledKind, TiledPlan}};
    /// let smem = TiledPlan::new(TiledKind::Smem, Element::F32, 32, 32).unwrap();
    /// let p = smem.predict().unwrap().unwrap();
    /// // Column reads: 32-way conflicts.
    /// assert_eq!((p.loads.wavefronts, p.loads.ideal), (8 * 4 * 32, 8 * 4));
    /// let vec = TiledPlan::new(TiledKind::Vectorized, Element::F32, 64, 64).unwrap();
    /// assert_eq!(vec.predict().unwrap().unwrap().excess(), 0);
    /// ```
    pub fn predict(&self) -> GpuResult<Option<SmemTraffic>> {
        let Some([s_w, _, s_r, _]) = self.tensors()?.shared else {
            return Ok(None);
        };
        let traffic = SmemTraffic {
            loads: warp_traffic(&s_r, OpKind::Lds, self.dtype)?,
            stores: warp_traffic(&s_w, OpKind::Sts, self.dtype)?,
        };
        let (gx, gy) = self.grid();
        Ok(Some(traffic.scaled(i64::from(gx) * i64::from(gy))))
    }
}

/// The bank model of every warp instruction of a copy's partition `part` of a shared tile
/// (`(thread, atom values, rest...)`): one instruction per warp and atom call, its lanes' values
/// listed in the partition's domain `[instruction][lane][value]`.
fn warp_traffic(
    part: &DeviceTensor,
    kind: OpKind,
    dtype: Element,
) -> GpuResult<tessel_layout::bank::BankReport> {
    let ext = part.extents();
    let (threads, values) = (ext[0], ext[1]);
    let calls = part.size() / (threads * values);
    let mut indices = Vec::with_capacity(usize::try_from(part.size()).unwrap_or(0));
    for warp in 0..threads / 32 {
        for r in 0..calls {
            for t in 32 * warp..32 * warp + 32 {
                indices.extend((0..values).map(|v| t + threads * (v + values * r)));
            }
        }
    }
    let bits = u32::try_from(values * dtype.bytes() * 8).unwrap_or(0);
    let op = SmemOp::new(kind, bits, false)?;
    Ok(analyze_indices(part.layout(), dtype.bytes(), op, &indices)?
        .into_iter()
        .sum())
}

/// Compiles (cached), launches on poisoned `dst` and verifies one tiled kernel against
/// [`TiledPlan::verify`]; returns the loaded kernel for timing.
///
/// ```
/// let Ok(gpu) = tessel_kernels::Gpu::open(0) else { return }; // no GPU: nothing to run
/// use tessel_kernels::{Element, exec::*, tiled::{run_and_verify, TiledKind, TiledPlan}};
/// let (host, src) = upload_random::<half::f16>(&gpu, 1000 * 1001, 2).unwrap();
/// let mut dst = alloc::<half::f16>(&gpu, 1000 * 1001).unwrap();
/// for kind in TiledKind::LADDER {
///     let plan = TiledPlan::new(kind, Element::F16, 1000, 1001).unwrap();
///     run_and_verify(&gpu, &plan, &host, &src, &mut dst).unwrap();
/// }
/// ```
pub fn run_and_verify<'g, E: BitsElement>(
    gpu: &'g Gpu,
    plan: &TiledPlan,
    host_src: &[E],
    src: &CudaSlice<E>,
    dst: &mut CudaSlice<E>,
) -> GpuResult<Loaded<'g>> {
    if E::ELEMENT != plan.dtype {
        return Err(GpuError::InvalidArgument(format!(
            "{}: buffers of {} for a {} kernel",
            plan.kernel_name(),
            E::ELEMENT,
            plan.dtype
        )));
    }
    let loaded = plan.kernel()?.load(gpu)?;
    loaded.run_verified(
        &mut [Arg::input(src), Arg::output(dst)],
        1,
        |out: &[E]| plan.verify(host_src, out),
    )?;
    Ok(loaded)
}
