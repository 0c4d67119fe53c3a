//! Which GEMM computes a problem: the Hopper GEMM (wgmma, TMA) where the code runs on sm_90
//! and TMA can load A and B, the mma.sync GEMM ([`super::sm80`]) everywhere else it can; an
//! error naming the reason where neither can.

use super::check::{Problem, Sm90Call, plan_sm90};
use super::sm80::{Sm80Call, plan_sm80};
use crate::Arch;
use crate::error::{GpuError, GpuResult};

/// The kernel family a call ran on.
///
/// ```
/// use tessel_kernels::blas::GemmPath;
/// assert_eq!(GemmPath::MmaSync.to_string(), "mma.sync (sm_80, sm_89 for 8-bit inputs)");
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum GemmPath {
    /// The Hopper GEMM: TMA loads, wgmma (sm_90a code).
    Wgmma,
    /// The mma.sync GEMM: cp.async loads, ldmatrix, mma.sync (sm_80 code, sm_89 for 8-bit
    /// inputs; runs on those and later).
    MmaSync,
}

impl std::fmt::Display for GemmPath {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            GemmPath::Wgmma => "wgmma (sm_90a)",
            GemmPath::MmaSync => "mma.sync (sm_80, sm_89 for 8-bit inputs)",
        })
    }
}

/// One checked call of the library GEMM: the launch of the path that computes it.
// A call is made once per GEMM and moved into the launch: the Hopper call's size (its tensor
// maps' matrices and run-time struct) costs nothing a box would save.
#[allow(clippy::large_enum_variant)]
#[derive(Clone, Debug, PartialEq)]
pub enum GemmCall {
    /// On the Hopper GEMM.
    Sm90(Sm90Call),
    /// On the mma.sync GEMM.
    Sm80(Sm80Call),
}

impl GemmCall {
    /// The path that runs the call.
    pub fn path(&self) -> GemmPath {
        match self {
            GemmCall::Sm90(_) => GemmPath::Wgmma,
            GemmCall::Sm80(_) => GemmPath::MmaSync,
        }
    }

    /// The grid of the launch: the persistent grid's blocks (Hopper), or `X x Y` tiles
    /// (mma.sync).
    pub fn grid(&self) -> String {
        match self {
            GemmCall::Sm90(c) => c.grid.to_string(),
            GemmCall::Sm80(c) => format!("{}x{}", c.grid.0, c.grid.1),
        }
    }

    /// Ranges of K each output tile is split into (1 on the mma.sync path, which does not
    /// split).
    pub fn splits(&self) -> i64 {
        match self {
            GemmCall::Sm90(c) => i64::from(c.args.splits),
            GemmCall::Sm80(_) => 1,
        }
    }

    /// The name of the kernel that runs the call.
    pub fn kernel_name(&self) -> String {
        match self {
            GemmCall::Sm90(c) => c.config.kernel_name(),
            GemmCall::Sm80(c) => c.config.kernel_name(),
        }
    }
}

/// The architectures the library compiles for: sm_90a (both paths), sm_89 (the mma.sync path
/// with 8-bit inputs) and sm_80 (the mma.sync path with 16-bit inputs), whose code runs on every
/// later GPU too. The target of a GPU is the newest of them its code runs on.
///
/// ```
/// use tessel_kernels::{Arch, blas::gemm_target};
/// assert_eq!(gemm_target(Arch::new(9, 0).unwrap()).unwrap(), Arch::SM90A);
/// assert_eq!(gemm_target(Arch::new(8, 9).unwrap()).unwrap(), Arch::SM89);
/// assert_eq!(gemm_target(Arch::new(8, 6).unwrap()).unwrap(), Arch::SM80);
/// assert!(gemm_target(Arch::new(7, 5).unwrap()).unwrap_err().is_unavailable());
/// ```
pub fn gemm_target(device: Arch) -> GpuResult<Arch> {
    [Arch::SM90A, Arch::SM89, Arch::SM80]
        .into_iter()
        .find(|t| t.runs_on(device))
        .ok_or_else(|| {
            GpuError::Unavailable(format!(
                "the library GEMM needs sm_80 or later (mma.sync); this GPU is {device}"
            ))
        })
}

/// Checks `p` for code compiled for `target` ([`gemm_target`]) on a GPU of `sms` SMs and
/// picks the path: on sm_90a the Hopper GEMM ([`plan_sm90`]) unless TMA cannot load A or B (an
/// address or leading dimension that is not a multiple of 16 bytes), then the mma.sync GEMM
/// ([`super::plan_sm80`]); on sm_89 and sm_80 the mma.sync GEMM. 8-bit inputs need sm_89's
/// `mma.sync` or sm_90's wgmma: for an sm_80 target they are an error that says so.
///
/// ```
/// use tessel_kernels::{Arch, Element, blas::{GemmPath, MatrixDesc, Order, Problem, plan_gemm}};
/// let mat = |address, ld, rows: i64, cols: i64, elem: Element| MatrixDesc {
///     address, bytes: (rows * cols * elem.bytes()) as usize + 64, elem, order: Order::RowMajor, ld };
/// let p = Problem {
///     m: 64, n: 64, k: 64,
///     a: mat(0x10000, 64, 64, 64, Element::F16),
///     b: mat(0x20000, 64, 64, 64, Element::F16),
///     c: None,
///     d: mat(0x30000, 64, 64, 64, Element::F32),
///     alpha: 1.0, beta: 0.0,
/// };
/// assert_eq!(plan_gemm(&p, Arch::SM90A, 132).unwrap().path(), GemmPath::Wgmma);
/// let shifted = Problem { a: MatrixDesc { address: 0x10002, ..p.a }, ..p };
/// assert_eq!(plan_gemm(&shifted, Arch::SM90A, 132).unwrap().path(), GemmPath::MmaSync);
/// assert_eq!(plan_gemm(&p, Arch::SM80, 108).unwrap().path(), GemmPath::MmaSync);
/// ```
pub fn plan_gemm(p: &Problem, target: Arch, sms: i64) -> GpuResult<GemmCall> {
    let fp8 = p.a.elem.is_fp8() || p.b.elem.is_fp8();
    if target != Arch::SM90A {
        if fp8 && !Arch::SM89.runs_on(target) {
            return Err(GpuError::InvalidArgument(format!(
                "A is {} and B {}: 8-bit inputs need sm_89 (mma.sync) or sm_90 (wgmma); the \
                 mma.sync GEMM for {target} takes f16 or bf16",
                p.a.elem, p.b.elem
            )));
        }
        return plan_sm80(p).map(GemmCall::Sm80);
    }
    let tma = p.a.check_tma("A").and_then(|()| p.b.check_tma("B"));
    match tma {
        Ok(()) => plan_sm90(p, sms).map(GemmCall::Sm90),
        Err(_) => plan_sm80(p).map(GemmCall::Sm80),
    }
}
