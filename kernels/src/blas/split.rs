//! Split-K: a problem whose output tiles leave half the SMs idle runs each tile's k-tiles in
//! [`split_for`](super::split_for) ranges, every range a unit of work of the persistent
//! Hopper kernel writing its fp32 partial sums to its own slab of a workspace, then a reduction
//! kernel adds the slabs into D (`D = alpha sum_s W_s + beta C`, converted to D's type).
//!
//! [`plan_sm90`](super::plan_sm90) decides the split (`Sm90Call::args.splits`); this module
//! turns such a call into the two launches: [`into_workspace`] (the GEMM's call with D replaced
//! by the workspace) and [`ReduceArgs`] (what the reduction reads and writes), and declares the
//! reduction ([`reduce_kernel`], body [`REDUCE_BODY`]).

use super::check::Sm90Call;
use crate::Arch;
use crate::element::{DeviceElement, Element};
use crate::error::GpuResult;
use crate::hopper::{BM, Epilogue, Sm90Config, Sm90Plan, Sm90Tile, output_code};
use crate::kernel::{Elem, Field, Kernel, KernelBuilder, Param, Scalar, Value};
use crate::tma::TmaMatrix;

/// The reduction's device body (`kernels/cuda/splitk_reduce.cu`).
///
/// ```
/// assert!(tessel_kernels::blas::split::REDUCE_BODY.contains("args.splits"));
/// ```
pub const REDUCE_BODY: &str = include_str!("../../cuda/splitk_reduce.cu");

/// Threads per block of the reduction.
pub const REDUCE_THREADS: u32 = 256;

/// Rows of a slab: the kernel's M rounded up to whole tiles, so that a tile's stores (whole
/// tiles when TMA stores them) stay inside its split's slab.
///
/// ```
/// use tessel_kernels::blas::split::slab_rows;
/// assert_eq!((slab_rows(1), slab_rows(128), slab_rows(200)), (128, 128, 256));
/// ```
pub fn slab_rows(m: i64) -> i64 {
    (m + BM - 1) / BM * BM
}

/// Whether a call of `splits` ranges of K with tile `tile` and outputs of type `output`,
/// swapped or not, goes through the workspace and the reduction: a split of K, or a swapped
/// call ([`Sm90Call::swapped`]) whose tile holds no whole epilogue chunk of the output type
/// (the 32-column tile of a 16-bit D: [`Sm90Plan::holds_chunks`]). Other swapped calls write D's
/// transpose themselves (run-time strides of D, [`crate::hopper::Sm90Args::d_col`]).
///
/// ```
/// use tessel_kernels::{Element, blas::split::writes_workspace, hopper::Sm90Tile};
/// let (t32, t64) = (Sm90Tile::T128x32, Sm90Tile::T128x64);
/// assert!(writes_workspace(2, false, t64, Element::F32));
/// assert!(!writes_workspace(1, true, t32, Element::F32) && !writes_workspace(1, true, t64, Element::BF16));
/// assert!(writes_workspace(1, true, t32, Element::BF16));
/// assert!(!writes_workspace(1, false, t64, Element::F32));
/// ```
pub fn writes_workspace(splits: i64, swapped: bool, tile: Sm90Tile, output: Element) -> bool {
    splits > 1 || (swapped && !Sm90Plan::holds_chunks(tile.bn(), output))
}

/// [`writes_workspace`] of `call`.
pub fn uses_workspace(call: &Sm90Call) -> bool {
    writes_workspace(
        i64::from(call.args.splits),
        call.swapped,
        call.config.tile,
        call.config.output,
    )
}

/// Bytes of the fp32 workspace a call needs (0 where it writes D itself).
pub fn workspace_bytes(call: &Sm90Call) -> usize {
    if !uses_workspace(call) {
        return 0;
    }
    let (m, n) = (i64::from(call.args.m), i64::from(call.args.n));
    usize::try_from(i64::from(call.args.splits) * slab_rows(m) * n * 4).unwrap_or(usize::MAX)
}

/// The GEMM's launch of a split call: the same operands, tiles and split, D replaced by the
/// fp32 workspace at `workspace` (slab `s` at rows `s slab_rows(m)`, the call's `split_rows`,
/// leading dimension `n`), no C, alpha 1 (the reduction applies alpha and beta). Rows past M are stored only where
/// every tile is whole (M a multiple of the tile): otherwise the stores are predicated, so a
/// small M writes only its rows.
pub fn into_workspace(call: &Sm90Call, workspace: u64) -> Sm90Call {
    let (m, n) = (i64::from(call.args.m), i64::from(call.args.n));
    let rows = slab_rows(m);
    let tma = m % BM == 0 && n % 4 == 0;
    let config = Sm90Config {
        output: Element::F32,
        epilogue: if tma {
            Epilogue::TmaStore
        } else {
            Epilogue::Direct
        },
        source: false,
        ..call.config
    };
    let mut args = call.args;
    args.d = workspace;
    args.c = 0;
    args.ldd = n;
    args.ldc = 0;
    args.d_col = 1;
    args.c_col = 1;
    args.alpha = 1.0;
    args.beta = 0.0;
    args.d_pair = i32::from(n % 2 == 0);
    args.c_pair = 0;
    Sm90Call {
        config,
        d_store: tma.then_some((
            TmaMatrix {
                rows: i64::from(call.args.splits) * rows,
                cols: n,
                ld: n,
                elem: Element::F32,
            },
            workspace,
        )),
        args,
        ..*call
    }
}

/// The reduction's run-time struct `args`: the workspace, C and D (the GEMM call's, in the
/// kernel's row-major view), the extents, the split and the scalars.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ReduceArgs {
    /// The workspace.
    pub w: u64,
    /// C (read when the reduction's configuration reads C).
    pub c: u64,
    /// D.
    pub d: u64,
    /// Elements between slabs.
    pub slab: i64,
    /// Elements of the workspace between element `(r, c)` and `(r + 1, c)` of D's view.
    pub w_rs: i64,
    /// Elements of the workspace between element `(r, c)` and `(r, c + 1)` of D's view (1,
    /// or the kernel's columns for a swapped call, whose workspace holds the transpose).
    pub w_cs: i64,
    /// C's row stride.
    pub ldc: i64,
    /// D's row stride.
    pub ldd: i64,
    /// Rows.
    pub m: i32,
    /// Columns.
    pub n: i32,
    /// Slabs.
    pub splits: i32,
    /// Scale of the sum.
    pub alpha: f32,
    /// Scale of C.
    pub beta: f32,
    /// 1 when two adjacent columns of the workspace are one aligned vector (never when
    /// `w_cs != 1`).
    pub w_pair: i32,
    /// 1 when two adjacent columns of C are one aligned vector.
    pub c_pair: i32,
    /// 1 when two adjacent columns of D are one aligned vector.
    pub d_pair: i32,
}

/// The fields of [`ReduceArgs`] in declaration order.
const FIELDS: [&str; 16] = [
    "w", "c", "d", "slab", "w_rs", "w_cs", "ldc", "ldd", "m", "n", "splits", "alpha", "beta",
    "w_pair", "c_pair", "d_pair",
];

impl ReduceArgs {
    /// The reduction of `call` (split) from the workspace at `workspace`.
    ///
    /// ```
    /// use tessel_kernels::blas::split::ReduceArgs;
    /// # use tessel_kernels::blas::{MatrixDesc, Order, Problem, plan_sm90};
    /// # use tessel_kernels::Element;
    /// let md = |address, elem, order, ld, bytes| MatrixDesc { address, bytes, elem, order, ld };
    /// let p = Problem {
    ///     m: 16, n: 4096, k: 4096,
    ///     a: md(0x10000, Element::F16, Order::RowMajor, 4096, 2 * 16 * 4096),
    ///     b: md(0x100000, Element::F16, Order::ColMajor, 4096, 2 * 4096 * 4096),
    ///     c: None,
    ///     d: md(0x2000000, Element::BF16, Order::RowMajor, 4096, 2 * 16 * 4096),
    ///     alpha: 2.0, beta: 0.0,
    /// };
    /// let call = plan_sm90(&p, 132).unwrap();
    /// assert_eq!(call.args.splits, 4);
    /// let r = ReduceArgs::for_call(&call, 0x4000000);
    /// // 16 rows: the kernel computes the transpose (4096 x 16) into the workspace, which the
    /// // reduction reads column by column.
    /// assert!(call.swapped);
    /// assert_eq!((r.m, r.n, r.w_rs, r.w_cs, r.w_pair), (16, 4096, 1, 16, 0));
    /// assert_eq!((r.slab, r.splits, r.alpha, r.d), (4096 * 16, 4, 2.0, 0x2000000));
    /// ```
    pub fn for_call(call: &Sm90Call, workspace: u64) -> ReduceArgs {
        // The kernel's extents; the workspace is row-major in them (leading dimension n).
        let (m, n) = (i64::from(call.args.m), i64::from(call.args.n));
        // D's view (the reduction's rows and columns) and where its element (r, c) is in W.
        let (rows, cols, w_rs, w_cs) = if call.swapped {
            (call.args.n, call.args.m, 1, n)
        } else {
            (call.args.m, call.args.n, n, 1)
        };
        ReduceArgs {
            w: workspace,
            c: call.args.c,
            d: call.args.d,
            slab: slab_rows(m) * n,
            w_rs,
            w_cs,
            ldc: call.args.ldc,
            ldd: call.args.ldd,
            m: rows,
            n: cols,
            splits: call.args.splits,
            alpha: call.args.alpha,
            beta: call.args.beta,
            w_pair: i32::from(w_cs == 1 && n % 2 == 0),
            c_pair: call.args.c_pair,
            d_pair: call.args.d_pair,
        }
    }

    /// The struct's field values in declaration order.
    pub fn values(&self) -> Vec<Value> {
        vec![
            Value::Pointer(self.w),
            Value::Pointer(self.c),
            Value::Pointer(self.d),
            Value::I64(self.slab),
            Value::I64(self.w_rs),
            Value::I64(self.w_cs),
            Value::I64(self.ldc),
            Value::I64(self.ldd),
            Value::I32(self.m),
            Value::I32(self.n),
            Value::I32(self.splits),
            Value::F32(self.alpha),
            Value::F32(self.beta),
            Value::I32(self.w_pair),
            Value::I32(self.c_pair),
            Value::I32(self.d_pair),
        ]
    }

    /// Blocks of the grid-stride launch on a GPU of `sms` SMs: one thread per column pair, at
    /// most 8 blocks per SM.
    pub fn blocks(&self, sms: i64) -> u32 {
        let pairs = i64::from(self.m) * ((i64::from(self.n) + 1) / 2);
        let blocks = (pairs + i64::from(REDUCE_THREADS) - 1) / i64::from(REDUCE_THREADS);
        u32::try_from(blocks.clamp(1, 8 * sms.max(1))).unwrap_or(1)
    }
}

/// The reduction for outputs of type `output` (f32, f16 or bf16), reading C when `source`.
///
/// ```
/// use tessel_kernels::{Element, blas::split::reduce_kernel};
/// let k = reduce_kernel(Element::BF16, true).unwrap();
/// assert_eq!(k.name(), "splitk_reduce_bf16_c");
/// assert!(reduce_kernel(Element::E4M3, false).is_err());
/// ```
pub fn reduce_kernel(output: Element, source: bool) -> GpuResult<Kernel> {
    let name = format!("splitk_reduce_{output}{}", if source { "_c" } else { "" });
    let tc = || Elem::alias("TC");
    let fields = FIELDS
        .iter()
        .map(|&f| match f {
            "w" => Field::pointer(f, Elem::from(Element::F32)),
            "c" | "d" => Field::pointer(f, tc()),
            "slab" | "w_rs" | "w_cs" | "ldc" | "ldd" => Field::scalar(f, Scalar::I64),
            "alpha" | "beta" => Field::scalar(f, Scalar::F32),
            _ => Field::scalar(f, Scalar::I32),
        })
        .collect();
    KernelBuilder::new(&name, REDUCE_BODY)
        .alias("TC", output.c_type())
        .int("OUT", output_code(output)?)
        .int("SOURCE", i64::from(source))
        .param(Param::values("args", fields))
        .threads(REDUCE_THREADS)
        .grid(1, 1, 1)
        .target(Arch::SM90A)
        .build()
}
