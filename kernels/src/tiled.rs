//! Tiled copies through shared memory: the tiled copy and the transpose ladder.
//!
//! A [`TiledPlan`] is a set of layouts — the source and destination matrices, the shared-memory
//! tile (plain, padded or swizzled), the load and store thread/value partitions and the register
//! permutation between them — plus vector widths. [`TiledPlan::source`] turns it into CUDA C++
//! through the emitter; [`TiledPlan::validate`] checks on the host that the partitions are
//! bijections and that every vector access is contiguous and aligned under the layouts.
//!
//! ```
//! use tessel_kernels::{DType, tiled::{TiledKind, TiledPlan}};
//! let p = TiledPlan::new(TiledKind::Swizzled, DType::F32, 4096, 4096).unwrap();
//! assert_eq!(p.smem.as_ref().unwrap().to_string(), "Sw<5,0,5> o (32,32):(32,1)");
//! assert!(p.source().unwrap().contains("__global__"));
//! ```

use std::fmt;

use tessel_layout::atom::copy_atom;
use tessel_layout::bank::{OpKind, SmemOp, SmemTraffic, analyze_indices};
use tessel_layout::tiled::{TiledCopy, make_tiled_copy};
use tessel_layout::{ComposedLayout, Error, IntTuple, Layout, Result, Swizzle, coalesce};

use cudarc::driver::CudaSlice;

use crate::device::Gpu;
use crate::dtype::{DType, Elem};
use crate::emit::{offset2, storage};
use crate::error::{GpuError, GpuResult};
use crate::kernel::{
    Arg, CType, Elem as ParamElem, Kernel, KernelBuilder, Loaded, Param, expect_bits_labelled,
};

/// The device body of the tiled kernels that stage the tile through shared memory (the copy
/// and the transposes from `transpose_smem` on).
///
/// ```
/// use tessel_kernels::tiled::BODY;
/// assert!(BODY.contains("layout::smem(idx)") && !BODY.contains("{{"));
/// ```
pub const BODY: &str = include_str!("../cuda/tiled_copy.cu");
/// The device body of the naive transposes (registers only, no shared memory).
///
/// ```
/// use tessel_kernels::tiled::DIRECT_BODY;
/// assert!(DIRECT_BODY.contains("dev::load_tile") && !DIRECT_BODY.contains("layout::smem"));
/// ```
pub const DIRECT_BODY: &str = include_str!("../cuda/tiled_direct.cu");
/// The device function `dev::load_tile` both bodies use: a thread's values of the source tile
/// into registers through `layout::tv_ld`, vectorized for full tiles, predicated at the edges.
///
/// ```
/// use tessel_kernels::tiled::{BODY, DIRECT_BODY, LOAD_TILE};
/// assert!(LOAD_TILE.contains("void load_tile(") && LOAD_TILE.contains("layout::tv_ld"));
/// assert!(BODY.contains("dev::load_tile(") && DIRECT_BODY.contains("dev::load_tile("));
/// ```
pub const LOAD_TILE: &str = include_str!("../cuda/tiled_load.cuh");
/// The device function `dev::store_tile` both bodies use: the registers to the destination tile
/// through `layout::tv_st` (the load partition again for the naive transposes).
///
/// ```
/// use tessel_kernels::tiled::{BODY, DIRECT_BODY, STORE_TILE};
/// assert!(STORE_TILE.contains("void store_tile(") && STORE_TILE.contains("layout::tv_st"));
/// assert!(BODY.contains("dev::store_tile(") && DIRECT_BODY.contains("dev::store_tile("));
/// ```
pub const STORE_TILE: &str = include_str!("../cuda/tiled_store.cuh");

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
    /// 128-bit global and shared accesses: per-thread register transpose of a vec x vec block,
    /// a column-major tile swizzled on the packed-vector index (`Sw<3,log2 vec,log2 TM>`).
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

/// Every layout and width a tiled kernel is generated from.
///
/// ```
/// use tessel_kernels::{DType, tiled::{TiledKind, TiledPlan}};
/// let p = TiledPlan::new(TiledKind::Padded, DType::F16, 100, 70).unwrap();
/// assert_eq!((p.tm, p.tn, p.threads), (32, 32, 256));
/// // One 32-bit word of padding per row is two fp16 elements.
/// assert_eq!(p.smem.as_ref().unwrap().to_string(), "(32,32):(34,1)");
/// assert_eq!(p.g_dst.to_string(), "(100,70):(1,100)");
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TiledPlan {
    /// What it computes.
    pub kind: TiledKind,
    /// Element type.
    pub dtype: DType,
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
    /// Shared-memory tile `(r,c) -> offset`, or `None` when the kernel does not use it.
    pub smem: Option<ComposedLayout>,
    /// Load partition `(thread, value) -> r + TM * c`.
    pub tv_ld: Layout,
    /// Store partition `(thread, value) -> r + TM * c`.
    pub tv_st: Layout,
    /// `(e, q) -> register`: element `e` of shared-memory write vector `q`.
    pub reg_w: Layout,
    /// Elements per global load.
    pub gvl: i64,
    /// Elements per shared-memory write.
    pub sw: i64,
    /// Elements per shared-memory read.
    pub sr: i64,
    /// Elements per global store.
    pub gvs: i64,
    /// Block order: linear block id -> tile index `ty + TY * tx` ([`raster_layout`]).
    pub raster: Layout,
    /// Minimum resident blocks per SM requested from the compiler (`__launch_bounds__(NT, B)`),
    /// which caps registers per thread. `None` (the default) gives `__launch_bounds__(NT)` only:
    /// on the H200 an explicit 1 made ptxas take 255 (fp16) / 83 (fp32) registers and cost 20%,
    /// and no explicit value beat the default (docs/performance.md).
    pub min_blocks: Option<i64>,
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

/// Default raster group of the transposes: 2x2 tiles (an H200 sweep of 0, 2, 8, 16 put 2 first;
/// see docs/performance.md).
///
/// ```
/// use tessel_kernels::{DType, tiled::*};
/// let p = TiledPlan::new(TiledKind::Smem, DType::F32, 256, 256).unwrap();
/// assert_eq!(p.raster, raster_layout(8, 8, TRANSPOSE_RASTER_GROUP).unwrap());
/// ```
pub const TRANSPOSE_RASTER_GROUP: i64 = 2;

/// How a tiled kernel's threads and their values cover its `TM x TN` tile: each arrangement is one
/// CuTe `make_tiled_copy(atom, thr_layout, val_layout)` with `UniversalCopy` of `vec` elements
/// (layout/tests/tiled_copy.rs checks them against their definitions), repeated over the tile by
/// the copy's partition ([`tile_tv`]).
///
/// ```
/// use tessel_kernels::{DType, tiled::Arrangement};
/// let copy = Arrangement::RowsRaked.tiled_copy(DType::F32, 32, 32, 1, 256).unwrap();
/// assert_eq!(copy.tiler(), &[8, 32]); // 8 rows of 32 threads, repeated down the tile
/// let tv = Arrangement::RowsRaked.tv(DType::F32, 32, 32, 1, 256).unwrap();
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
    /// A `vec x vec` block per thread (values row-major), threads row-major over the
    /// `TM/vec x TN/vec` blocks: the register transpose of a block turns row vectors into
    /// column vectors.
    Blocks,
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
            Arrangement::Blocks => {
                let (br, bc) = (div(tm, vec, "block rows")?, div(tn, vec, "block columns")?);
                if br * bc != threads {
                    return Err(Error::invalid(format!(
                        "Blocks arrangement: {br} x {bc} blocks of {vec} x {vec} need {} \
                         threads, not {threads}",
                        br * bc
                    )));
                }
                (
                    format!("({br},{bc}):({bc},1)"),
                    format!("({vec},{vec}):({vec},1)"),
                )
            }
        };
        Ok((parse(&text.0)?, parse(&text.1)?))
    }

    /// The tiled copy of the arrangement: CuTe's `make_tiled_copy` of
    /// `UniversalCopy<uint{vec x bits}_t>` on `dtype` values.
    ///
    /// ```
    /// use tessel_kernels::{DType, tiled::Arrangement};
    /// let c = Arrangement::Blocks.tiled_copy(DType::F16, 128, 128, 8, 256).unwrap();
    /// assert_eq!(c.atom().atom().name(), "UniversalCopy<uint128_t>");
    /// assert!(Arrangement::ColsRaked.tiled_copy(DType::F32, 32, 32, 3, 256).is_err());
    /// ```
    pub fn tiled_copy(
        self,
        dtype: DType,
        tm: i64,
        tn: i64,
        vec: i64,
        threads: i64,
    ) -> Result<TiledCopy> {
        let (thr, val) = self.layouts(tm, tn, vec, threads)?;
        let bits = 8 * dtype.bytes();
        let atom = copy_atom(&format!("UniversalCopy<uint{}_t>", vec * bits))?.typed(bits)?;
        make_tiled_copy(&atom, &thr, &val)
    }

    /// The arrangement's `(thread, value) -> r + TM c` layout over the whole tile
    /// ([`tile_tv`] of [`Arrangement::tiled_copy`]).
    ///
    /// ```
    /// use tessel_kernels::{DType, tiled::Arrangement};
    /// let tv = Arrangement::ColsRaked.tv(DType::F32, 32, 32, 1, 256).unwrap();
    /// assert_eq!(tv.offset(1).unwrap(), 1); // thread 1, value 0: row 1, column 0
    /// ```
    pub fn tv(self, dtype: DType, tm: i64, tn: i64, vec: i64, threads: i64) -> Result<Layout> {
        tile_tv(&self.tiled_copy(dtype, tm, tn, vec, threads)?, tm, tn)
    }
}

/// The `(thread, value) -> r + TM c` layout of `copy` repeated over a `TM x TN` tile: CuTe's
/// `tidfrg_S` of the tile's column-major index layout, `(thread, (atom values, atoms), tiles)`,
/// with the values and tiles of one thread as one mode — value `v` of thread `t` is index `v` of
/// `copy.get_slice(t).partition_s(tile)` (its offset included). Each mode is coalesced.
///
/// ```
/// use tessel_kernels::{DType, tiled::{tile_tv, Arrangement}};
/// use tessel_layout::{IntTuple, Layout};
/// let copy = Arrangement::RowsRaked.tiled_copy(DType::F32, 64, 64, 4, 256).unwrap();
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

/// Checks that the partition `tv` (`(thread, value) -> tile index`) has `threads` threads and
/// maps its domain one-to-one onto the `size` elements of the tile.
fn check_partition(tv: &Layout, what: &str, threads: i64, size: i64) -> Result<()> {
    let fail = |why: String| Err(Error::invalid(format!("{what} partition {tv}: {why}")));
    if tv.rank() != 2 || tv.mode(0)?.size() != threads {
        return fail(format!(
            "needs modes (thread, value) with {threads} threads"
        ));
    }
    if tv.size() != size {
        return fail(format!(
            "has {} elements but the tile has {size}",
            tv.size()
        ));
    }
    let mut seen = vec![false; usize::try_from(size).unwrap_or(0)];
    for (at, o) in tv.offsets().into_iter().enumerate() {
        match usize::try_from(o).ok().and_then(|i| seen.get_mut(i)) {
            Some(slot) if !*slot => *slot = true,
            _ => {
                let (t, v) = (at as i64 % threads, at as i64 / threads);
                return fail(format!(
                    "thread {t}, value {v} maps to tile index {o}, outside 0..{size} or \
                     already taken: not a bijection onto the tile"
                ));
            }
        }
    }
    Ok(())
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
    Layout::new(
        tessel_layout::IntTuple::from_ints([m, n]),
        tessel_layout::IntTuple::from_ints(stride),
    )
}

fn parse(text: &str) -> Result<Layout> {
    text.parse()
}

impl TiledPlan {
    /// The plan of `kind` for an `m x n` source of `dtype`, with global vector widths reduced
    /// to what the matrix layouts allow (e.g. scalar accesses when `n` is odd).
    ///
    /// ```
    /// use tessel_kernels::{DType, tiled::{TiledKind, TiledPlan}};
    /// let p = TiledPlan::new(TiledKind::Vectorized, DType::F32, 8192, 8192).unwrap();
    /// assert_eq!(p.smem.as_ref().unwrap().to_string(), "Sw<3,2,6> o (64,64):(1,64)");
    /// assert_eq!((p.gvl, p.sw, p.sr, p.gvs), (4, 4, 4, 4));
    /// let odd = TiledPlan::new(TiledKind::Vectorized, DType::F32, 1000, 1001).unwrap();
    /// assert_eq!((odd.gvl, odd.gvs), (1, 4)); // rows of 1001 floats are not 16-byte aligned
    /// ```
    pub fn new(kind: TiledKind, dtype: DType, m: i64, n: i64) -> Result<TiledPlan> {
        let g_src = matrix(m, n, false)?;
        let g_dst = matrix(m, n, kind.is_transpose())?;
        let vec = dtype.per_128_bits();
        let (tm, tn, threads, smem, tv_ld, tv_st, reg_w, sw, sr) = match kind {
            TiledKind::Copy => {
                let (tm, tn) = (64, 8 * vec * 2);
                let tv = Arrangement::RowsRaked.tv(dtype, tm, tn, vec, 256)?;
                let smem = ComposedLayout::from_layout(parse(&format!("({tm},{tn}):({tn},1)"))?);
                let reg = parse(&format!("({vec},{}):(1,{vec})", tm * tn / 256 / vec))?;
                (tm, tn, 256, Some(smem), tv.clone(), tv, reg, vec, vec)
            }
            TiledKind::NaiveRead | TiledKind::NaiveWrite => {
                let arrangement = if kind == TiledKind::NaiveRead {
                    Arrangement::RowsRaked
                } else {
                    Arrangement::ColsRaked
                };
                let tv = arrangement.tv(dtype, 32, 32, 1, 256)?;
                (
                    32,
                    32,
                    256,
                    None,
                    tv.clone(),
                    tv,
                    parse("(1,4):(0,1)")?,
                    1,
                    1,
                )
            }
            TiledKind::Smem | TiledKind::Padded | TiledKind::Swizzled => {
                let smem = match kind {
                    TiledKind::Smem => ComposedLayout::from_layout(parse("(32,32):(32,1)")?),
                    // Pad each row by one 32-bit word: 1 fp32 or 2 fp16 elements.
                    TiledKind::Padded => ComposedLayout::from_layout(parse(&format!(
                        "(32,32):({},1)",
                        32 + 4 / dtype.bytes()
                    ))?),
                    _ => ComposedLayout::new(
                        vec![Swizzle::new(5, 0, 5)?],
                        0,
                        parse("(32,32):(32,1)")?,
                    ),
                };
                let ld = Arrangement::RowsRaked.tv(dtype, 32, 32, 1, 256)?;
                let st = Arrangement::ColsRaked.tv(dtype, 32, 32, 1, 256)?;
                (32, 32, 256, Some(smem), ld, st, parse("(1,4):(0,1)")?, 1, 1)
            }
            TiledKind::Vectorized => {
                let tm = 16 * vec;
                let tn = 16 * vec;
                let smem = ComposedLayout::new(
                    vec![Swizzle::new(3, log2(vec), log2(tm))?],
                    0,
                    parse(&format!("({tm},{tn}):(1,{tm})"))?,
                );
                let reg = parse(&format!("({vec},{vec}):({vec},1)"))?;
                let st = Arrangement::ColsRaked.tv(dtype, tm, tn, vec, 256)?;
                (
                    tm,
                    tn,
                    256,
                    Some(smem),
                    Arrangement::Blocks.tv(dtype, tm, tn, vec, 256)?,
                    st,
                    reg,
                    vec,
                    vec,
                )
            }
        };
        let lv = tm * tn / threads;
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
            smem,
            tv_ld,
            tv_st,
            reg_w,
            gvl: 1,
            sw,
            sr,
            gvs: 1,
            raster: Layout::vector(1, 0)?,
            min_blocks: None,
        };
        let group = if kind.is_transpose() {
            TRANSPOSE_RASTER_GROUP
        } else {
            0
        };
        plan.set_raster_group(group)?;
        let out_tv = if plan.smem.is_some() {
            &plan.tv_st
        } else {
            &plan.tv_ld
        };
        plan.gvl = widest_vector(&plan.tv_ld, &plan.g_src, tm, tn, threads, vec, lv)?;
        plan.gvs = widest_vector(out_tv, &plan.g_dst, tm, tn, threads, vec, lv)?;
        plan.validate()?;
        Ok(plan)
    }

    /// Changes the block order (see [`raster_layout`]); `0` is plain row order.
    ///
    /// ```
    /// use tessel_kernels::{DType, tiled::{TiledKind, TiledPlan}};
    /// let mut p = TiledPlan::new(TiledKind::Smem, DType::F32, 64, 96).unwrap();
    /// p.set_raster_group(0).unwrap();
    /// assert_eq!(p.raster.to_string(), "(3,2):(2,1)");
    /// ```
    pub fn set_raster_group(&mut self, group: i64) -> Result<()> {
        let (ty, tx) = self.tile_counts();
        if ty.checked_mul(tx).is_none_or(|b| b > i64::from(i32::MAX)) {
            return Err(Error::invalid(format!(
                "{}: {ty} x {tx} tiles exceed the 2^31-1 blocks of a CUDA grid",
                self.kind
            )));
        }
        self.raster = raster_layout(ty, tx, group)?;
        Ok(())
    }

    /// Tiles along rows and along columns (ragged edges included).
    ///
    /// ```
    /// use tessel_kernels::{DType, tiled::{TiledKind, TiledPlan}};
    /// let p = TiledPlan::new(TiledKind::Swizzled, DType::F32, 100, 70).unwrap();
    /// assert_eq!(p.tile_counts(), (4, 3)); // ceil(100 / 32), ceil(70 / 32)
    /// ```
    pub fn tile_counts(&self) -> (i64, i64) {
        (
            (self.m + self.tm - 1) / self.tm,
            (self.n + self.tn - 1) / self.tn,
        )
    }

    /// The layouts that place a tile and its elements, emitted as index functions:
    /// `tile_m0`/`tile_n0` (tile index `ty + TY * tx` -> first row / column), `g_src_tile` /
    /// `g_dst_tile` (tile element `r + TM * c` -> offset from the tile's origin in each matrix)
    /// and `tile_r`/`tile_c` (tile element -> row / column, for the edge predicates).
    ///
    /// ```
    /// use tessel_kernels::{DType, tiled::{TiledKind, TiledPlan}};
    /// let p = TiledPlan::new(TiledKind::Padded, DType::F32, 100, 70).unwrap();
    /// let names: Vec<String> = p.tile_layouts().unwrap().iter()
    ///     .map(|(n, l)| format!("{n} = {l}")).collect();
    /// assert_eq!(names, ["tile_m0 = (4,3):(32,0)", "tile_n0 = (4,3):(0,32)",
    ///                    "g_src_tile = (32,32):(70,1)", "g_dst_tile = (32,32):(1,100)",
    ///                    "tile_r = (32,32):(1,0)", "tile_c = (32,32):(0,1)"]);
    /// ```
    pub fn tile_layouts(&self) -> Result<Vec<(&'static str, Layout)>> {
        let (ty, tx) = self.tile_counts();
        let (tm, tn) = (self.tm, self.tn);
        let strides = |g: &Layout| {
            let m = g.flat_modes();
            (m.first().map_or(0, |x| x.1), m.get(1).map_or(0, |x| x.1))
        };
        let (s0, s1) = strides(&self.g_src);
        let (d0, d1) = strides(&self.g_dst);
        Ok(vec![
            ("tile_m0", parse(&format!("({ty},{tx}):({tm},0)"))?),
            ("tile_n0", parse(&format!("({ty},{tx}):(0,{tn})"))?),
            ("g_src_tile", parse(&format!("({tm},{tn}):({s0},{s1})"))?),
            ("g_dst_tile", parse(&format!("({tm},{tn}):({d0},{d1})"))?),
            ("tile_r", parse(&format!("({tm},{tn}):(1,0)"))?),
            ("tile_c", parse(&format!("({tm},{tn}):(0,1)"))?),
        ])
    }

    /// Values each thread moves.
    ///
    /// ```
    /// use tessel_kernels::{DType, tiled::{TiledKind, TiledPlan}};
    /// let p = TiledPlan::new(TiledKind::Vectorized, DType::F16, 1024, 1024).unwrap();
    /// assert_eq!(p.values_per_thread(), 128 * 128 / 256);
    /// ```
    pub fn values_per_thread(&self) -> i64 {
        self.tm * self.tn / self.threads
    }

    /// Kernel entry-point name, e.g. `transpose_vec128_f32`.
    ///
    /// ```
    /// use tessel_kernels::{DType, tiled::{TiledKind, TiledPlan}};
    /// let p = TiledPlan::new(TiledKind::Vectorized, DType::F16, 64, 64).unwrap();
    /// assert_eq!(p.kernel_name(), "transpose_vec128_f16");
    /// assert!(p.source().unwrap().contains("transpose_vec128_f16"));
    /// ```
    pub fn kernel_name(&self) -> String {
        format!("{}_{}", self.kind, self.dtype)
    }

    /// Grid `(x, y)`: one block per tile, linear in `x` (the raster layout orders them).
    ///
    /// ```
    /// use tessel_kernels::{DType, tiled::{TiledKind, TiledPlan}};
    /// let p = TiledPlan::new(TiledKind::Padded, DType::F32, 100, 70).unwrap();
    /// assert_eq!(p.grid(), (4 * 3, 1));
    /// ```
    pub fn grid(&self) -> (u32, u32) {
        let (ty, tx) = self.tile_counts();
        (u32::try_from(ty * tx).unwrap_or(u32::MAX), 1)
    }

    /// Bytes of global memory the kernel must move (read + write).
    ///
    /// ```
    /// use tessel_kernels::{DType, tiled::{TiledKind, TiledPlan}};
    /// let p = TiledPlan::new(TiledKind::Copy, DType::F16, 100, 70).unwrap();
    /// assert_eq!(p.bytes_moved(), 2 * 100 * 70 * 2); // read once, written once
    /// ```
    pub fn bytes_moved(&self) -> i64 {
        2 * self.m * self.n * self.dtype.bytes()
    }

    /// Checks the partitions are bijections onto the tile and that every shared-memory vector is
    /// contiguous and aligned under the tile layout (global vectors are checked by construction).
    ///
    /// ```
    /// use tessel_kernels::{DType, tiled::{TiledKind, TiledPlan}};
    /// let mut p = TiledPlan::new(TiledKind::Padded, DType::F32, 64, 64).unwrap();
    /// p.validate().unwrap();
    /// // A load partition where all four values of a thread hit the same element is no bijection.
    /// p.tv_ld = "(256,4):(1,0)".parse().unwrap();
    /// assert!(p.validate().is_err());
    /// ```
    pub fn validate(&self) -> Result<()> {
        let size = self.tm * self.tn;
        check_partition(&self.tv_ld, "load", self.threads, size)?;
        check_partition(&self.tv_st, "store", self.threads, size)?;
        let lv = self.values_per_thread();
        if self.reg_w.size() != lv && self.smem.is_some() {
            return Err(Error::invalid(format!(
                "register permutation {} has size {} but each thread holds {lv} values",
                self.reg_w,
                self.reg_w.size()
            )));
        }
        if let Some(smem) = &self.smem {
            let tile = |idx: i64| offset2(smem, idx % self.tm, idx / self.tm);
            for t in 0..self.threads {
                for q in 0..lv / self.sw {
                    let offs: Result<Vec<i64>> = (0..self.sw)
                        .map(|e| {
                            let v = self.reg_w.offset(e + self.sw * q)?;
                            tile(self.tv_ld.offset(t + self.threads * v)?)
                        })
                        .collect();
                    check_run(&offs?, self.sw, "shared-memory write", smem)?;
                }
                for q in 0..lv / self.sr {
                    let offs: Result<Vec<i64>> = (0..self.sr)
                        .map(|e| tile(self.tv_st.offset(t + self.threads * (q * self.sr + e))?))
                        .collect();
                    check_run(&offs?, self.sr, "shared-memory read", smem)?;
                }
            }
        }
        Ok(())
    }

    /// The kernel declared from the plan's pieces: element type `ty::T`, the sizes and vector
    /// widths as `k::` constants, every layout as `layout::` functions, the body
    /// [`BODY`] (through shared memory) or [`DIRECT_BODY`] (the naive transposes), launched
    /// over [`TiledPlan::grid`] with `__launch_bounds__(threads[, min_blocks])`.
    ///
    /// ```
    /// use tessel_kernels::{DType, tiled::{TiledKind, TiledPlan}};
    /// let p = TiledPlan::new(TiledKind::Padded, DType::F32, 100, 70).unwrap();
    /// let k = p.kernel().unwrap();
    /// assert_eq!(k.name(), "transpose_padded_f32");
    /// assert_eq!(k.launch().grid, (12, 1, 1));
    /// assert!(k.source().contains("smem_crd"));
    /// ```
    pub fn kernel(&self) -> GpuResult<Kernel> {
        let (gx, gy) = self.grid();
        let header = format!(
            "{} {} for a {} x {} matrix: generated by tessel-kernels from the layouts below.",
            self.kind, self.dtype, self.m, self.n
        );
        let len = usize::try_from(self.m * self.n).unwrap_or(usize::MAX);
        let body = if self.smem.is_some() {
            BODY
        } else {
            DIRECT_BODY
        };
        let mut b = KernelBuilder::new(&self.kernel_name(), body)
            .comment(&header)
            .alias("T", CType::of(self.dtype))
            .long("M", self.m)
            .long("N", self.n)
            .long("TM", self.tm)
            .long("TN", self.tn)
            .int("NT", self.threads)
            .int("LV", self.values_per_thread())
            .int("GVL", self.gvl)
            .int("GVS", self.gvs)
            .coord_layout("g_src", &self.g_src)
            .coord_layout("g_dst", &self.g_dst);
        if let Some(smem) = &self.smem {
            b = b
                .int("SW", self.sw)
                .int("SR", self.sr)
                .int("SMEM_SIZE", storage(smem)?)
                .composed_layout("smem", smem)
                .index_layout("tv_ld", &self.tv_ld)
                .index_layout("tv_st", &self.tv_st)
                .index_layout("reg_w", &self.reg_w);
        } else {
            // The naive transposes store through their load partition (tv_st == tv_ld).
            b = b
                .index_layout("tv_ld", &self.tv_ld)
                .index_layout("tv_st", &self.tv_st);
        }
        b = b
            .device_fn("load_tile", LOAD_TILE)
            .device_fn("store_tile", STORE_TILE);
        b = b.index_layout("raster", &self.raster);
        for (name, layout) in self.tile_layouts()? {
            b = b.index_layout(name, &layout);
        }
        b.param(Param::input("src", ParamElem::alias("T")).len(len))
            .param(Param::output("dst", ParamElem::alias("T")).len(len))
            .threads(u32::try_from(self.threads).unwrap_or(0))
            .min_blocks(self.min_blocks)
            .grid(gx, gy, 1)
            .build()
    }

    /// The complete CUDA C++ source of the kernel ([`TiledPlan::kernel`]).
    ///
    /// ```
    /// use tessel_kernels::{DType, tiled::{TiledKind, TiledPlan}};
    /// let p = TiledPlan::new(TiledKind::Padded, DType::F32, 100, 70).unwrap();
    /// let src = p.source().unwrap();
    /// assert!(src.contains("transpose_padded_f32"));
    /// assert!(src.contains("smem_crd"));
    /// ```
    pub fn source(&self) -> GpuResult<String> {
        Ok(self.kernel()?.source().to_string())
    }

    /// Checks every element of `out` against the CPU replay of the plan on `src` (copy:
    /// `out = src`; transpose: `out[n * M + m] = src[m * N + n]`), bit for bit.
    ///
    /// ```
    /// use tessel_kernels::{DType, dtype::random_data, tiled::{TiledKind, TiledPlan}};
    /// let (m, n) = (3, 5);
    /// let src: Vec<u32> = random_data(m * n, 1);
    /// let copy = TiledPlan::new(TiledKind::Copy, DType::F32, 3, 5).unwrap();
    /// copy.verify(&src, &src).unwrap();
    /// let transpose = TiledPlan::new(TiledKind::Padded, DType::F32, 3, 5).unwrap();
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
    pub fn verify<E: Elem>(&self, src: &[E], out: &[E]) -> GpuResult<()> {
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
}

/// Compiles (cached), launches on poisoned `dst` and verifies one tiled kernel against
/// [`TiledPlan::verify`]; returns the loaded kernel for timing.
///
/// ```
/// let Ok(gpu) = tessel_kernels::Gpu::open(0) else { return }; // no GPU: nothing to run
/// use tessel_kernels::{DType, exec::*, tiled::{run_and_verify, TiledKind, TiledPlan}};
/// let (host, src) = upload_random::<half::f16>(&gpu, 1000 * 1001, 2).unwrap();
/// let mut dst = alloc::<half::f16>(&gpu, 1000 * 1001).unwrap();
/// for kind in TiledKind::LADDER {
///     let plan = TiledPlan::new(kind, DType::F16, 1000, 1001).unwrap();
///     run_and_verify(&gpu, &plan, &host, &src, &mut dst).unwrap();
/// }
/// ```
pub fn run_and_verify<'g, E: Elem>(
    gpu: &'g Gpu,
    plan: &TiledPlan,
    host_src: &[E],
    src: &CudaSlice<E>,
    dst: &mut CudaSlice<E>,
) -> GpuResult<Loaded<'g>> {
    if E::DTYPE != plan.dtype {
        return Err(GpuError::InvalidArgument(format!(
            "{}: buffers of {} for a {} kernel",
            plan.kernel_name(),
            E::DTYPE,
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

fn check_run(offsets: &[i64], width: i64, what: &str, layout: &ComposedLayout) -> Result<()> {
    let first = offsets.first().copied().unwrap_or(0);
    let contiguous = offsets.iter().zip(first..).all(|(&o, want)| o == want);
    if !contiguous || first % width != 0 {
        return Err(Error::invalid(format!(
            "{what} of {width} elements is not contiguous and aligned under {layout}: offsets {offsets:?}"
        )));
    }
    Ok(())
}

/// Global offset of `(m, n)` under a flat rank-2 matrix layout, coordinates unbounded
/// (tile origins beyond the matrix are evaluated by the same strides).
fn affine(layout: &Layout, m: i64, n: i64) -> i64 {
    let modes = layout.flat_modes();
    let s0 = modes.first().map(|x| x.1).unwrap_or(0);
    let s1 = modes.get(1).map(|x| x.1).unwrap_or(0);
    m * s0 + n * s1
}

/// The widest power-of-two vector (at most `max`) such that, for every thread of `tv` and every
/// full tile, groups of that many consecutive values are contiguous and aligned in `global`.
///
/// Contiguity is `tessel_layout::max_common_vector` of the per-thread value layout seen through
/// the global layout (`global restricted to the tile o value mode of tv`) and the thread's
/// registers (`LV:1`); alignment (each vector's first offset, every thread's base and every tile
/// origin divisible by the width) is checked on the same layouts.
fn widest_vector(
    tv: &Layout,
    global: &Layout,
    tm: i64,
    tn: i64,
    threads: i64,
    max: i64,
    lv: i64,
) -> Result<i64> {
    let modes = global.flat_modes();
    let (s0, s1) = (
        modes.first().map_or(0, |x| x.1),
        modes.get(1).map_or(0, |x| x.1),
    );
    let tile = Layout::new(
        tessel_layout::IntTuple::from_ints([tm, tn]),
        tessel_layout::IntTuple::from_ints([s0, s1]),
    )?;
    let per_thread = tessel_layout::composition(&tile, &tv.mode(1)?)?;
    let run = tessel_layout::max_common_vector(&per_thread, &Layout::vector(lv, 1)?)?;
    let mut width = max;
    while width > 1 {
        let aligned = run % width == 0
            && lv % width == 0
            && [affine(global, tm, 0), affine(global, 0, tn)]
                .iter()
                .all(|d| d % width == 0)
            && (0..lv / width).all(|q| per_thread.offset(q * width).is_ok_and(|o| o % width == 0))
            && (0..threads).all(|t| {
                tv.offset(t)
                    .is_ok_and(|idx| affine(global, idx % tm, idx / tm) % width == 0)
            });
        if aligned {
            return Ok(width);
        }
        width /= 2;
    }
    Ok(1)
}

impl TiledPlan {
    /// Shared-memory traffic of one launch under the bank model (`tessel_layout::bank`), from
    /// the same layouts the kernel is generated from: every warp's shared-memory writes and
    /// reads, each lane's vector listed element by element through the partitions and
    /// evaluated by [`analyze_indices`]; `None` for kernels without shared memory.
    ///
    /// ```
    /// use tessel_kernels::{DType, tiled::{TiledKind, TiledPlan}};
    /// let smem = TiledPlan::new(TiledKind::Smem, DType::F32, 32, 32).unwrap();
    /// let p = smem.predict().unwrap().unwrap();
    /// // Column reads: 32-way conflicts.
    /// assert_eq!((p.loads.wavefronts, p.loads.ideal), (8 * 4 * 32, 8 * 4));
    /// let vec = TiledPlan::new(TiledKind::Vectorized, DType::F32, 64, 64).unwrap();
    /// assert_eq!(vec.predict().unwrap().unwrap().excess(), 0);
    /// ```
    pub fn predict(&self) -> Result<Option<SmemTraffic>> {
        let Some(smem) = &self.smem else {
            return Ok(None);
        };
        let bytes = self.dtype.bytes();
        let lv = self.values_per_thread();
        let op = |kind: OpKind, width: i64| -> Result<SmemOp> {
            let bits = u32::try_from(width * bytes * 8).unwrap_or(0);
            SmemOp::new(kind, bits, false)
        };
        // Tile indices `r + TM * c` ordered [instruction][lane][element]: the shared-memory
        // layout's domain.
        let (mut writes, mut reads) = (Vec::new(), Vec::new());
        for warp in 0..self.threads / 32 {
            for q in 0..lv / self.sw {
                for t in 32 * warp..32 * warp + 32 {
                    for e in 0..self.sw {
                        let v = self.reg_w.offset(e + self.sw * q)?;
                        writes.push(self.tv_ld.offset(t + self.threads * v)?);
                    }
                }
            }
            for q in 0..lv / self.sr {
                for t in 32 * warp..32 * warp + 32 {
                    for e in 0..self.sr {
                        reads.push(self.tv_st.offset(t + self.threads * (q * self.sr + e))?);
                    }
                }
            }
        }
        let stores = analyze_indices(smem, bytes, op(OpKind::Sts, self.sw)?, &writes)?;
        let loads = analyze_indices(smem, bytes, op(OpKind::Lds, self.sr)?, &reads)?;
        let traffic = SmemTraffic {
            loads: loads.into_iter().sum(),
            stores: stores.into_iter().sum(),
        };
        let (gx, gy) = self.grid();
        Ok(Some(traffic.scaled(i64::from(gx) * i64::from(gy))))
    }
}
