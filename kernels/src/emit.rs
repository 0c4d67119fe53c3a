//! Layout -> CUDA index functions, the one place kernel index math comes from.
//!
//! A thin adapter over the shared emitter [`tessel_layout::codegen`] (the same one behind
//! `tessel codegen` and the `cuda_index!` macro): `TESSEL_FN long long NAME(long long i)` for a
//! domain index and `NAME_crd(c0, c1, ...)` for a coordinate, so that every offset a kernel
//! computes is the value of a tessel layout. The emitter picks 32-bit arithmetic when every
//! offset fits.
//!
//! ```
//! let l: tessel_layout::Layout = "(8,4):(4,1)".parse().unwrap();
//! let src = tessel_kernels::emit::coord_fn("g", &l).unwrap();
//! assert!(src.contains("long long g(long long i)") && src.contains("g_crd("));
//! ```

use tessel_layout::codegen::{EmitOptions, SymComposedLayout, index_function};
use tessel_layout::{ComposedLayout, Error, Layout, Result};

/// The guarded `TESSEL_FN` definition (`__device__ __forceinline__` under CUDA/NVRTC, `static
/// inline` for host C). Every generated source starts with it.
///
/// ```
/// assert!(tessel_kernels::emit::PRELUDE.contains("#define TESSEL_FN"));
/// ```
pub const PRELUDE: &str = tessel_layout::codegen::PRELUDE;

fn emit(name: &str, layout: SymComposedLayout, coordinates: bool) -> Result<String> {
    let opts = EmitOptions {
        coordinate_function: coordinates,
        prelude: false,
        comment: true,
        ..EmitOptions::default()
    };
    index_function(name, layout, &opts)
}

/// `TESSEL_FN long long NAME(long long i)`: the offset of domain index `i` of `layout`.
///
/// ```
/// use tessel_kernels::emit::index_fn;
/// let l: tessel_layout::Layout = "(4,8):(8,1)".parse().unwrap();
/// let src = index_fn("row_major", &l).unwrap();
/// assert!(src.contains("TESSEL_FN long long row_major(long long i)"));
/// assert!(!src.contains("row_major_crd"));
/// ```
pub fn index_fn(name: &str, layout: &Layout) -> Result<String> {
    emit(name, layout.into(), false)
}

/// `NAME(i)` and `TESSEL_FN long long NAME_crd(long long c0, ...)`: the offset of a coordinate
/// with one (possibly hierarchical, then colexicographically linearized) entry per top-level
/// mode.
///
/// ```
/// use tessel_kernels::emit::coord_fn;
/// let l: tessel_layout::Layout = "(64,64):(1,64)".parse().unwrap();
/// let src = coord_fn("tile", &l).unwrap();
/// assert!(src.contains("long long tile_crd(long long c0, long long c1)"));
/// ```
pub fn coord_fn(name: &str, layout: &Layout) -> Result<String> {
    emit(name, layout.into(), true)
}

/// `NAME` and `NAME_crd` of a swizzled layout `Sw o ... o off o L`.
///
/// ```
/// use tessel_kernels::emit::composed_fns;
/// use tessel_layout::{ComposedLayout, Swizzle};
/// let c = ComposedLayout::new(vec![Swizzle::new(3, 2, 6).unwrap()], 0,
///                             "(64,64):(1,64)".parse().unwrap());
/// let src = composed_fns("smem", &c).unwrap();
/// assert!(src.contains("smem_crd(long long c0, long long c1)"));
/// assert!(src.contains("Sw<3,2,6>"));
/// ```
pub fn composed_fns(name: &str, layout: &ComposedLayout) -> Result<String> {
    emit(name, layout.into(), true)
}

/// `NAME(i, symbols...)` and `NAME_crd(c0, ..., symbols...)` of a layout whose strides may be
/// run-time symbols (the symbols, in order of first appearance, are the last parameters).
///
/// ```
/// use tessel_kernels::emit::symbolic_fns;
/// let l = "(64,128):(ld,1)".parse().unwrap();
/// let src = symbolic_fns("gd", &l).unwrap();
/// assert!(src.contains("gd_crd(long long c0, long long c1, long long ld)"));
/// ```
pub fn symbolic_fns(name: &str, layout: &tessel_layout::codegen::SymLayout) -> Result<String> {
    emit(name, layout.into(), true)
}

/// The offset of coordinate `(r, c)` of a rank-2 (possibly swizzled) layout: the host-side
/// twin of the emitted `NAME_crd`.
///
/// ```
/// use tessel_kernels::emit::offset2;
/// use tessel_layout::ComposedLayout;
/// let sw: ComposedLayout = "Sw<5,0,5> o (32,32):(32,1)".parse().unwrap();
/// // Column 0: row r lands in bank r, not bank 0.
/// assert_eq!(offset2(&sw, 3, 0).unwrap(), 3 * 32 + 3);
/// let padded: ComposedLayout = "(32,32):(33,1)".parse().unwrap();
/// assert_eq!(offset2(&padded, 1, 2).unwrap(), 35);
/// ```
pub fn offset2(layout: &ComposedLayout, r: i64, c: i64) -> Result<i64> {
    layout.at(&tessel_layout::IntTuple::from_ints([r, c]))
}

/// Number of elements a shared-memory layout's storage spans: its largest value plus one,
/// swizzles included.
///
/// ```
/// use tessel_kernels::emit::storage;
/// // A pitch of 33: the last element is at 31 * 33 + 31.
/// let padded = "(32,32):(33,1)".parse().unwrap();
/// assert_eq!(storage(&padded).unwrap(), 31 * 33 + 31 + 1);
/// ```
pub fn storage(layout: &ComposedLayout) -> Result<i64> {
    layout
        .offsets()
        .iter()
        .max()
        .map(|m| m + 1)
        .ok_or_else(|| Error::invalid("empty layout has no storage"))
}
