//! What a call of the Hopper GEMM needs, derived and checked on the host from the problem's
//! description alone (addresses, sizes, orders, leading dimensions; no GPU): the kernel
//! configuration, the matrices its tensor maps describe, its run-time arguments and its grid.
//! Every condition the kernel assumes is checked here and named in the error.

use tessel_layout::gmma::Major;

use super::order::Order;
use super::select::{choose_tile_for, split_for};
use crate::element::Element;
use crate::error::{GpuError, GpuResult};
use crate::hopper::{
    BM, Epilogue, OUTPUTS, RASTER_GROUP, Sm90Args, Sm90Config, Sm90Tile, input_pair, k_tile,
    promotes,
};
use crate::tiled::GroupedRaster;
use crate::tma::TmaMatrix;

/// A matrix in device memory as the checks see it: where it is, how many bytes its buffer
/// has, its element type, order and leading dimension (elements).
///
/// ```
/// use tessel_kernels::{Element, blas::{MatrixDesc, Order}};
/// let a = MatrixDesc { address: 0x1000, bytes: 2 * 64 * 64, elem: Element::F16, order: Order::RowMajor, ld: 64 };
/// assert_eq!(a.needed_elements("A", 64, 64).unwrap(), 64 * 64);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MatrixDesc {
    /// Device address of element (0, 0).
    pub address: u64,
    /// Bytes of the buffer from `address` on.
    pub bytes: usize,
    /// Element type.
    pub elem: Element,
    /// Storage order.
    pub order: Order,
    /// Leading dimension (elements).
    pub ld: i64,
}

impl MatrixDesc {
    /// Elements a `rows x cols` matrix of this order and leading dimension spans:
    /// `(outer - 1) ld + inner`. Errors: the leading dimension below the contiguous extent, or
    /// the span overflowing `i64`.
    pub fn needed_elements(&self, name: &str, rows: i64, cols: i64) -> GpuResult<i64> {
        let (outer, inner) = match self.order {
            Order::RowMajor => (rows, cols),
            Order::ColMajor => (cols, rows),
        };
        if self.ld < inner {
            return Err(GpuError::InvalidArgument(format!(
                "{name}: the leading dimension {} is below {inner}, the contiguous extent of a \
                 {} {rows} x {cols} matrix (ld >= {inner})",
                self.ld,
                order_name(self.order)
            )));
        }
        (outer - 1)
            .checked_mul(self.ld)
            .and_then(|x| x.checked_add(inner))
            .ok_or_else(|| {
                GpuError::InvalidArgument(format!(
                    "{name}: {rows} x {cols} with leading dimension {} overflows i64",
                    self.ld
                ))
            })
    }

    /// Checks that the buffer holds the `rows x cols` matrix and that its address is aligned
    /// to its element size.
    pub(crate) fn check_fits(&self, name: &str, rows: i64, cols: i64) -> GpuResult<()> {
        let need = self
            .needed_elements(name, rows, cols)?
            .checked_mul(self.elem.bytes())
            .ok_or_else(|| GpuError::InvalidArgument(format!("{name}: size overflows i64")))?;
        if (self.bytes as u128) < need as u128 {
            return Err(GpuError::InvalidArgument(format!(
                "{name}: the buffer holds {} bytes, the {} {rows} x {cols} {} matrix with \
                 leading dimension {} needs {need}",
                self.bytes,
                order_name(self.order),
                self.elem,
                self.ld
            )));
        }
        if !self.address.is_multiple_of(self.elem.bytes() as u64) {
            return Err(GpuError::InvalidArgument(format!(
                "{name}: the address {:#x} is not aligned to its {}-byte elements",
                self.address,
                self.elem.bytes()
            )));
        }
        Ok(())
    }

    /// Checks what TMA needs to load the matrix: a 16-byte aligned address and a leading
    /// dimension of a multiple of 16 bytes (below 2^40).
    pub(crate) fn check_tma(&self, name: &str) -> GpuResult<()> {
        if !self.address.is_multiple_of(16) {
            return Err(GpuError::InvalidArgument(format!(
                "{name}: the address {:#x} is not 16-byte aligned (TMA needs 16-byte aligned \
                 base addresses)",
                self.address
            )));
        }
        let pitch = self.ld.saturating_mul(self.elem.bytes());
        if pitch % 16 != 0 || pitch >= 1 << 40 {
            return Err(GpuError::InvalidArgument(format!(
                "{name}: the leading dimension {} ({pitch} bytes) is not a multiple of 16 bytes \
                 below 2^40 (TMA needs 16-byte row pitches: for {} a leading dimension that is a \
                 multiple of {})",
                self.ld,
                self.elem,
                16 / self.elem.bytes()
            )));
        }
        Ok(())
    }

    /// Whether TMA can store to the matrix (its address and row pitch as [`Self::check_tma`]).
    fn tma_storable(&self) -> bool {
        self.check_tma("").is_ok()
    }
}

pub(crate) fn order_name(o: Order) -> &'static str {
    match o {
        Order::RowMajor => "row-major",
        Order::ColMajor => "column-major",
    }
}

/// `D = alpha A B + beta C` as the checks see it: `A` is `m x k`, `B` `k x n`, `C` and `D`
/// `m x n`; `C` is read only when `beta != 0`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Problem {
    /// Rows of A and D.
    pub m: i64,
    /// Columns of B and D.
    pub n: i64,
    /// The reduction extent.
    pub k: i64,
    /// A (`m x k`).
    pub a: MatrixDesc,
    /// B (`k x n`).
    pub b: MatrixDesc,
    /// C (`m x n`), needed when `beta != 0`.
    pub c: Option<MatrixDesc>,
    /// D (`m x n`), written.
    pub d: MatrixDesc,
    /// Scale of `A B`.
    pub alpha: f32,
    /// Scale of C.
    pub beta: f32,
}

/// One operand as the kernel loads it: the major of its stages and the matrix (with address)
/// its tensor map describes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct OperandMap {
    /// Contiguous mode.
    pub major: Major,
    /// The tensor map's matrix (K-major: rows of K; MN-major: rows of MN).
    pub matrix: TmaMatrix,
    /// Device address.
    pub address: u64,
}

/// Everything one launch of the Hopper GEMM needs, derived from a [`Problem`].
#[derive(Clone, Debug, PartialEq)]
pub struct Sm90Call {
    /// The compiled kernel's configuration.
    pub config: Sm90Config,
    /// Whether the kernel computes `D^T = B^T A^T` (D column-major: its transpose is the
    /// row-major matrix the kernel writes, A and B swap places and keep their majors).
    pub transposed: bool,
    /// Whether the kernel computes the transpose of that row-major matrix `O` instead (`O` of
    /// [`NARROW_ROWS`] rows or fewer: the kernel's 128-row tiles run along O's columns, the
    /// 32-column tile [`Sm90Tile::T128x32`] along its rows, or the 64-column one where O has
    /// more than 32 rows or the kernel's B is M-major). The kernel stores each tile's
    /// transpose into O (`args.ldd` 1, `args.d_col` O's leading dimension; split or not).
    /// `args.m` and `args.n` are the kernel's: O's columns and rows.
    pub swapped: bool,
    /// The first operand (A, or B^T when transposed).
    pub a: OperandMap,
    /// The second operand (B, or A^T).
    pub b: OperandMap,
    /// The matrix the TMA store writes (D as the kernel sees it), with D's address; `None`
    /// for the direct epilogue.
    pub d_store: Option<(TmaMatrix, u64)>,
    /// The kernel's run-time arguments.
    pub args: Sm90Args,
    /// Blocks of the persistent grid: one per SM, at most one per unit of work.
    pub grid: u32,
}

/// Rows of the matrix the kernel writes (D, or D^T for a column-major D) at or below which the
/// call computes its transpose with a 32- or 64-column tile ([`Sm90Call::swapped`]): a 128-row
/// tile over so few rows leaves most of each wgmma's rows empty, and its stages hold rows that
/// do not exist. Measured (H200, f16 -> f32, `kernels/examples/split_sweep.rs`; the journal's
/// "The 32-column tile"): at 64 rows the transposed kernel's 9 stages take 64 x 14336 x
/// 14336 from 141 to 117 us, and the other shapes of N and K 4096 and 14336 within 3%.
pub const NARROW_ROWS: i64 = 64;

/// The strides (rows, columns) of D or C of leading dimension `ld` as the Hopper kernel indexes
/// them ([`crate::hopper::Sm90Args`]'s `ldd` and `d_col`): `(ld, 1)`, or `(1, ld)` where a
/// swapped call's kernel stores the transpose of its tile into D itself (D's rows are the
/// kernel's columns).
///
/// ```
/// use tessel_kernels::blas::store_strides;
/// assert_eq!(store_strides(4096, false), (4096, 1));
/// assert_eq!(store_strides(4096, true), (1, 4096));
/// ```
pub fn store_strides(ld: i64, transposed_store: bool) -> (i64, i64) {
    if transposed_store { (1, ld) } else { (ld, 1) }
}

/// A's and B's input types, or the error naming what the kernel takes.
fn input_type(a: Element, b: Element) -> GpuResult<(Element, Element)> {
    input_pair(a, b).map_err(|e| {
        if e.to_string().contains("takes f16 or bf16") {
            GpuError::InvalidArgument(format!(
                "A and B of type {a}: the Hopper GEMM takes f16, bf16, e4m3 or e5m2 inputs"
            ))
        } else {
            e
        }
    })
}

/// C where the call reads it (`beta != 0`), checked against D: C's type is D's, and its order
/// too where `same_order` (the Hopper GEMM stores D and reads C through one view; the
/// mma.sync GEMM addresses each with its own strides). Errors: a C of another type (or
/// order), or `beta != 0` without a C.
pub(crate) fn source_matrix(p: &Problem, same_order: bool) -> GpuResult<Option<MatrixDesc>> {
    match (p.c, p.beta != 0.0) {
        (Some(c), true) => {
            if c.elem != p.d.elem || (same_order && c.order != p.d.order) {
                let d = if same_order {
                    format!("{} {}", order_name(p.d.order), p.d.elem)
                } else {
                    p.d.elem.to_string()
                };
                let what = if same_order { "type and order" } else { "type" };
                return Err(GpuError::InvalidArgument(format!(
                    "C is {} {} but D is {d}: C must have D's {what}",
                    order_name(c.order),
                    c.elem,
                )));
            }
            Ok(Some(c))
        }
        (None, true) => Err(GpuError::InvalidArgument(format!(
            "beta = {} but no C was given (C is read when beta != 0)",
            p.beta
        ))),
        (_, false) => Ok(None),
    }
}

/// Checks `p` for the Hopper GEMM on a GPU of `sms` SMs and derives its launch. Errors name
/// the violated condition: an extent outside `1..2^31`, A and B of different or unsupported
/// types, an unsupported output type, C of another type or order than D, `beta != 0` without
/// C, a leading dimension below the contiguous extent, a buffer too small, an address not
/// aligned to its elements, and for A and B what TMA needs (16-byte aligned addresses and
/// leading dimensions of a multiple of 16 bytes).
///
/// ```
/// use tessel_kernels::{Element, blas::{MatrixDesc, Order, Problem, plan_sm90}};
/// let mat = |address, order, ld, rows: i64, cols: i64, elem: Element| MatrixDesc {
///     address, bytes: (rows * cols * elem.bytes()) as usize, elem, order, ld };
/// let (m, n, k) = (1000, 3000, 520);
/// let p = Problem {
///     m, n, k,
///     a: mat(0x10000, Order::RowMajor, k, m, k, Element::F16),
///     b: mat(0x20000, Order::RowMajor, n, k, n, Element::F16),
///     c: None,
///     d: mat(0x30000, Order::RowMajor, n, m, n, Element::F32),
///     alpha: 1.0, beta: 0.0,
/// };
/// let call = plan_sm90(&p, 132).unwrap();
/// // 96 tiles of 128 x 256 or 128 of 128 x 192: one wave of either, the narrower one fuller.
/// assert_eq!(call.config.kernel_name(), "gemm_sm90_ak_bn_f16_f32_128x192_tma");
/// let bad = Problem { a: MatrixDesc { ld: 519, ..p.a }, ..p };
/// assert!(plan_sm90(&bad, 132).unwrap_err().to_string().contains("leading dimension 519 is below 520"));
/// ```
pub fn plan_sm90(p: &Problem, sms: i64) -> GpuResult<Sm90Call> {
    for (name, v) in [("M", p.m), ("N", p.n), ("K", p.k)] {
        if !(1..=i64::from(i32::MAX)).contains(&v) {
            return Err(GpuError::InvalidArgument(format!(
                "{name} = {v} is outside 1..2^31"
            )));
        }
    }
    let (input, _) = input_type(p.a.elem, p.b.elem)?;
    if promotes(input) && (p.a.order, p.b.order) != (Order::RowMajor, Order::ColMajor) {
        return Err(GpuError::InvalidArgument(format!(
            "A is {} {} and B {} {}: 8-bit inputs need K-major operands, A row-major and B \
             column-major (\"TN\"; wgmma transposes only 16-bit operands, PTX ISA \
             \"wgmma.mma_async\")",
            order_name(p.a.order),
            p.a.elem,
            order_name(p.b.order),
            p.b.elem
        )));
    }
    let output = p.d.elem;
    if !OUTPUTS.contains(&output) {
        return Err(GpuError::InvalidArgument(format!(
            "D of type {output}: the Hopper GEMM writes f32, f16 or bf16"
        )));
    }
    let source = p.beta != 0.0;
    let c = source_matrix(p, true)?;
    p.a.check_fits("A", p.m, p.k)?;
    p.b.check_fits("B", p.k, p.n)?;
    p.d.check_fits("D", p.m, p.n)?;
    if let Some(c) = &c {
        c.check_fits("C", p.m, p.n)?;
    }
    p.a.check_tma("A")?;
    p.b.check_tma("B")?;

    // The operands' majors: A (m x k) row-major is K-major; B (k x n) row-major is N-major.
    let a_major = match p.a.order {
        Order::RowMajor => Major::K,
        Order::ColMajor => Major::MN,
    };
    let b_major = match p.b.order {
        Order::RowMajor => Major::MN,
        Order::ColMajor => Major::K,
    };
    // The kernel writes a row-major D; a column-major D is the row-major D^T = B^T A^T, whose
    // first operand B^T (n x k) has B's major and whose second A^T has A's.
    let transposed = p.d.order == Order::ColMajor;
    let (m, n, first, second) = if transposed {
        (p.n, p.m, (b_major, p.b), (a_major, p.a))
    } else {
        (p.m, p.n, (a_major, p.a), (b_major, p.b))
    };
    // A few rows and many columns (16-bit inputs): the kernel computes the transpose, its rows
    // along the many columns (Sm90Call::swapped).
    let swapped = m <= NARROW_ROWS && n > NARROW_ROWS && !promotes(p.a.elem);
    let (m, n, first, second) = if swapped {
        (n, m, second, first)
    } else {
        (m, n, first, second)
    };
    let operand = |(major, desc): (Major, MatrixDesc), mn: i64| {
        let (rows, cols) = match major {
            Major::K => (mn, p.k),
            Major::MN => (p.k, mn),
        };
        OperandMap {
            major,
            matrix: TmaMatrix {
                rows,
                cols,
                ld: desc.ld,
                elem: desc.elem,
            },
            address: desc.address,
        }
    };
    // A swapped call's kernel writes the transpose of its tile: direct stores.
    let epilogue = if !swapped && p.d.tma_storable() {
        Epilogue::TmaStore
    } else {
        Epilogue::Direct
    };
    // The kernel's first operand is B^T when transposed: the 8-bit formats swap with it.
    let (input, input_b) = input_type(first.1.elem, second.1.elem)?;
    let a = operand(first, m);
    let b = operand(second, n);
    // A swapped call's kernel columns are D's few rows: the 32-column tile, whose small
    // stages put the most of the streamed operand in flight; its B stage is whole 128-byte
    // K rows, so an M-major second operand (64-element swizzle rows) takes the 64-column one.
    let tile = if swapped && b.major == Major::K && n <= Sm90Tile::T128x32.bn() {
        Sm90Tile::T128x32
    } else if swapped {
        Sm90Tile::T128x64
    } else {
        choose_tile_for(input, m, n, sms)
    };
    let config = Sm90Config {
        input,
        input_b,
        output,
        a_major: a.major,
        b_major: b.major,
        tile,
        epilogue,
        source,
    };
    let d_store = (epilogue == Epilogue::TmaStore).then_some((
        TmaMatrix {
            rows: m,
            cols: n,
            ld: p.d.ld,
            elem: output,
        },
        p.d.address,
    ));
    let (tiles_m, tiles_n) = ((m + BM - 1) / BM, (n + tile.bn() - 1) / tile.bn());
    if tiles_m * tiles_n > i64::from(i32::MAX) {
        return Err(GpuError::InvalidArgument(format!(
            "{m} x {n} has {} tiles of {tile}: the kernel counts tiles below 2^31",
            tiles_m * tiles_n
        )));
    }
    let raster = GroupedRaster::new(tiles_m, tiles_n, RASTER_GROUP)?;
    // Split-K where the tiles leave half the SMs idle (super::split: the kernel adds the
    // splits' partial sums itself).
    let k_tiles = (p.k + k_tile(input) - 1) / k_tile(input);
    let splits = split_for((m, n, p.k), tiles_m * tiles_n, k_tiles, input.bytes(), sms);
    // A swapped call stores the transpose of its tile (store_strides); two adjacent columns
    // of its tile are then never one vector.
    let bytes = output.bytes() as u64;
    let pair = |d: &MatrixDesc| {
        i32::from(!swapped && d.address.is_multiple_of(2 * bytes) && d.ld % 2 == 0)
    };
    let (ldd, d_col) = store_strides(p.d.ld, swapped);
    let (ldc, c_col) = c.map_or((0, 1), |c| store_strides(c.ld, swapped));
    let args = Sm90Args {
        d: p.d.address,
        c: c.map_or(0, |c| c.address),
        partials: 0,
        arrivals: 0,
        ldd,
        ldc,
        d_col,
        c_col,
        m: m as i32,
        n: n as i32,
        k_tiles: k_tiles as i32,
        tiles_m: tiles_m as i32,
        tiles_n: tiles_n as i32,
        log2_group: raster.log2_group() as i32,
        splits: splits as i32,
        alpha: p.alpha,
        beta: p.beta,
        d_pair: pair(&p.d),
        c_pair: c.as_ref().map_or(0, pair),
    };
    let grid = (tiles_m * tiles_n * splits).min(sms.max(1));
    Ok(Sm90Call {
        config,
        transposed,
        swapped,
        a,
        b,
        d_store,
        args,
        grid: u32::try_from(grid).unwrap_or(u32::MAX),
    })
}
