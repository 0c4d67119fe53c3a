//! Declaring a kernel from its pieces and assembling its CUDA source, with the host-side checks
//! that every piece the body refers to was given and every given piece is referred to.
//!
//! ```
//! use tessel_kernels::kernel::{CType, Elem, KernelBuilder, Param};
//! let body = "const long long i = threadIdx.x; out[layout::perm(i)] = (ty::T)k::V;";
//! let kernel = KernelBuilder::new("fill", body)
//!     .alias("T", CType::B32)
//!     .int("V", 7)
//!     .index_layout("perm", &"(4,8):(8,1)".parse().unwrap())
//!     .param(Param::output("out", Elem::alias("T")).len(32))
//!     .threads(32)
//!     .build()
//!     .unwrap();
//! assert!(kernel.source().contains("namespace layout {"));
//! assert!(kernel.source().contains("extern \"C\" __global__ void __launch_bounds__(32) fill("));
//! ```

use std::collections::BTreeSet;

use tessel_layout::{ComposedLayout, Layout};

use super::piece::{Access, CType, Elem, Launch, Param, ParamKind};
use super::scan::References;
use crate::emit::{PRELUDE, composed_fns, coord_fn, index_fn};
use crate::error::{GpuError, GpuResult};

/// The header of tessel device primitives every kernel source includes: 32/16/64-bit word types,
/// vector loads and stores, `cp.async` commit/wait and sync wrappers (the atoms' instructions
/// are generated: [`super::atom`]).
///
/// ```
/// use tessel_kernels::kernel::TESSEL_CUH;
/// assert!(TESSEL_CUH.contains("typedef unsigned int b32;"));
/// assert!(TESSEL_CUH.contains("tessel_cp_async_wait") && !TESSEL_CUH.contains("ldmatrix.sync"));
/// ```
pub const TESSEL_CUH: &str = include_str!("../../cuda/tessel.cuh");

/// The device side of the tensor layer ([`crate::layer`]): tensors over emitted layouts,
/// slicing, fragments, and the `copy` and `gemm` algorithms. Every kernel source includes it
/// after [`TESSEL_CUH`].
///
/// ```
/// assert!(tessel_kernels::kernel::TENSOR_CUH.contains("namespace tessel {"));
/// ```
pub const TENSOR_CUH: &str = include_str!("../../cuda/tessel_tensor.cuh");

/// The Hopper components of the tensor layer (`namespace tessel::sm90`: the TMA + mbarrier
/// pipeline, register reallocation, wgmma ordering, TMA loads and stores), included in every
/// kernel built for [`crate::Arch::SM90A`].
///
/// ```
/// assert!(tessel_kernels::kernel::SM90_CUH.contains("struct Pipeline"));
/// ```
pub const SM90_CUH: &str = include_str!("../../cuda/tessel_sm90.cuh");

/// The first statement of every kernel body: `_`, the slice that keeps a mode
/// (`t(_, 3)`).
const UNDERSCORE: &str = "  [[maybe_unused]] const tessel::Underscore _{};\n";

/// The device-side type of a [`ParamKind::TensorMap`] parameter: the driver's opaque 128-byte
/// `CUtensorMap`, 64-byte aligned (CUDA driver API, `cuTensorMapEncodeTiled`), declared by the
/// assembler only in sources that take one (NVRTC has no `cuda.h`).
///
/// ```
/// use tessel_kernels::kernel::build::{TENSOR_MAP_STRUCT, TENSOR_MAP_TYPE};
/// assert!(TENSOR_MAP_STRUCT.contains(&format!("struct alignas(64) {TENSOR_MAP_TYPE}")));
/// ```
pub const TENSOR_MAP_TYPE: &str = "tessel_tensor_map";
/// The definition of [`TENSOR_MAP_TYPE`] placed before the generated declarations.
///
/// ```
/// assert!(tessel_kernels::kernel::build::TENSOR_MAP_STRUCT.contains("opaque[16]"));
/// ```
pub const TENSOR_MAP_STRUCT: &str =
    "struct alignas(64) tessel_tensor_map { unsigned long long opaque[16]; };\n";

/// How a layout is emitted into `namespace layout`.
#[derive(Clone, Debug)]
enum LayoutFns {
    /// `name(i)` only.
    Index(Layout),
    /// `name(i)` and `name_crd(c0, ...)`.
    Coord(Layout),
    /// `name(i)` and `name_crd(...)` of a swizzled layout.
    Composed(ComposedLayout),
}

#[derive(Clone, Debug)]
enum Piece {
    Alias(CType),
    Int {
        value: i64,
        long: bool,
    },
    Layout(LayoutFns),
    DeviceFn(String),
    /// A device function generated from an atom (placed before the other device functions,
    /// which may call it), or why it could not be generated.
    AtomFn(Result<String, String>),
    /// A tensor of the tensor layer (`tensor::NAME`).
    Tensor(Box<crate::layer::DeviceTensor>),
    /// A tiled copy of the tensor layer (`copy::NAME`).
    Copy(Box<crate::layer::DeviceCopy>),
    /// A tiled MMA of the tensor layer (`mma::NAME`).
    Mma(Box<crate::layer::DeviceMma>),
}

impl Piece {
    fn namespace(&self) -> &'static str {
        match self {
            Piece::Alias(_) => "ty",
            Piece::Int { .. } => "k",
            Piece::Layout(_) => "layout",
            Piece::DeviceFn(_) | Piece::AtomFn(_) => "dev",
            Piece::Tensor(_) => "tensor",
            Piece::Copy(_) => "copy",
            Piece::Mma(_) => "mma",
        }
    }
}

/// A kernel under construction: its name, its hole-free body and the pieces the body uses.
/// Nothing is checked until [`KernelBuilder::build`].
///
/// The naming scheme the body uses (and the assembler emits):
/// - `ty::NAME`: element type aliases ([`KernelBuilder::alias`]),
/// - `k::NAME`: integer constants ([`KernelBuilder::int`], [`KernelBuilder::long`]),
/// - `layout::NAME(i)` / `layout::NAME_crd(c0, ...)`: layout functions
///   ([`KernelBuilder::index_layout`], [`KernelBuilder::coord_layout`],
///   [`KernelBuilder::composed_layout`]),
/// - `dev::NAME`: device functions generated in Rust ([`KernelBuilder::device_fn`]),
/// - parameters by their bare names.
///
/// ```
/// use tessel_kernels::kernel::KernelBuilder;
/// let err = KernelBuilder::new("k0", "int x = k::MISSING;").threads(32).build().unwrap_err();
/// assert!(err.to_string().contains("k::MISSING"), "{err}");
/// ```
#[derive(Clone, Debug)]
pub struct KernelBuilder {
    name: String,
    body: String,
    comment: String,
    pieces: Vec<(String, Piece)>,
    params: Vec<Param>,
    threads: u32,
    min_blocks: Option<i64>,
    grid: (u32, u32, u32),
    dynamic_smem: u32,
    target: Option<crate::Arch>,
}

impl KernelBuilder {
    /// A kernel named `name` (its `extern "C"` entry point) whose function body is `body`.
    ///
    /// ```
    /// use tessel_kernels::kernel::KernelBuilder;
    /// let k = KernelBuilder::new("noop", "").threads(32).build().unwrap();
    /// assert_eq!(k.name(), "noop");
    /// ```
    pub fn new(name: &str, body: &str) -> KernelBuilder {
        KernelBuilder {
            name: name.to_string(),
            body: body.to_string(),
            comment: String::new(),
            pieces: Vec::new(),
            params: Vec::new(),
            threads: 0,
            min_blocks: None,
            grid: (1, 1, 1),
            dynamic_smem: 0,
            target: None,
        }
    }

    /// A comment placed at the top of the source (each line prefixed with `// `).
    ///
    /// ```
    /// use tessel_kernels::kernel::KernelBuilder;
    /// let k = KernelBuilder::new("noop", "").comment("hello").threads(32).build().unwrap();
    /// assert!(k.source().starts_with("// hello\n"));
    /// ```
    pub fn comment(mut self, text: &str) -> KernelBuilder {
        for line in text.lines() {
            self.comment.push_str(&format!("// {line}\n"));
        }
        self
    }

    fn piece(mut self, name: &str, piece: Piece) -> KernelBuilder {
        self.pieces.push((name.to_string(), piece));
        self
    }

    /// The element type alias `ty::NAME`.
    ///
    /// ```
    /// use tessel_kernels::kernel::{CType, KernelBuilder};
    /// let k = KernelBuilder::new("n", "ty::T x;").alias("T", CType::F32).threads(32).build().unwrap();
    /// assert!(k.source().contains("typedef float T;"));
    /// ```
    pub fn alias(self, name: &str, ty: CType) -> KernelBuilder {
        self.piece(name, Piece::Alias(ty))
    }

    /// The `int` constant `k::NAME`.
    ///
    /// ```
    /// use tessel_kernels::kernel::KernelBuilder;
    /// let k = KernelBuilder::new("n", "int x = k::N;").int("N", 4).threads(32).build().unwrap();
    /// assert!(k.source().contains("enum : int { N = 4 };"));
    /// ```
    pub fn int(self, name: &str, value: i64) -> KernelBuilder {
        self.piece(name, Piece::Int { value, long: false })
    }

    /// The `long long` constant `k::NAME`.
    ///
    /// ```
    /// use tessel_kernels::kernel::KernelBuilder;
    /// let k = KernelBuilder::new("n", "long long x = k::M;").long("M", 1 << 40).threads(32).build().unwrap();
    /// assert!(k.source().contains("enum : long long { M = 1099511627776LL };"));
    /// ```
    pub fn long(self, name: &str, value: i64) -> KernelBuilder {
        self.piece(name, Piece::Int { value, long: true })
    }

    /// `layout::NAME(i)`: the offset of domain index `i` ([`crate::emit::index_fn`]).
    ///
    /// ```
    /// use tessel_kernels::kernel::KernelBuilder;
    /// let k = KernelBuilder::new("n", "long long x = layout::f(3);")
    ///     .index_layout("f", &"8:2".parse().unwrap()).threads(32).build().unwrap();
    /// assert!(k.source().contains("TESSEL_FN long long f(long long i)"));
    /// ```
    pub fn index_layout(self, name: &str, layout: &Layout) -> KernelBuilder {
        self.piece(name, Piece::Layout(LayoutFns::Index(layout.clone())))
    }

    /// `layout::NAME(i)` and `layout::NAME_crd(c0, ...)` ([`crate::emit::coord_fn`]).
    ///
    /// ```
    /// use tessel_kernels::kernel::KernelBuilder;
    /// let k = KernelBuilder::new("n", "long long x = layout::g_crd(1, 2);")
    ///     .coord_layout("g", &"(4,4):(4,1)".parse().unwrap()).threads(32).build().unwrap();
    /// assert!(k.source().contains("g_crd(long long c0, long long c1)"));
    /// ```
    pub fn coord_layout(self, name: &str, layout: &Layout) -> KernelBuilder {
        self.piece(name, Piece::Layout(LayoutFns::Coord(layout.clone())))
    }

    /// `layout::NAME(i)` and `layout::NAME_crd(...)` of a (swizzled) composed layout
    /// ([`crate::emit::composed_fns`]).
    ///
    /// ```
    /// use tessel_kernels::kernel::KernelBuilder;
    /// let sw = "Sw<3,2,6> o (64,64):(1,64)".parse().unwrap();
    /// let k = KernelBuilder::new("n", "long long x = layout::smem(5);")
    ///     .composed_layout("smem", &sw).threads(32).build().unwrap();
    /// assert!(k.source().contains("Sw<3,2,6>"));
    /// ```
    pub fn composed_layout(self, name: &str, layout: &ComposedLayout) -> KernelBuilder {
        self.piece(name, Piece::Layout(LayoutFns::Composed(layout.clone())))
    }

    /// `dev::NAME`: device code generated in Rust (e.g. an instruction wrapper), placed in
    /// `namespace dev`. `code` must define `NAME`; it may use the other pieces.
    ///
    /// ```
    /// use tessel_kernels::kernel::KernelBuilder;
    /// let code = "__device__ __forceinline__ int twice(int x) { return 2 * x; }";
    /// let k = KernelBuilder::new("n", "int y = dev::twice(3);")
    ///     .device_fn("twice", code).threads(32).build().unwrap();
    /// assert!(k.source().contains("namespace dev {"));
    /// ```
    pub fn device_fn(self, name: &str, code: &str) -> KernelBuilder {
        self.piece(name, Piece::DeviceFn(code.to_string()))
    }

    /// `dev::NAME`: the device function executing one copy atom's instruction, generated from
    /// its asm template and operands ([`super::atom`] gives the calling convention:
    /// `dev::ldsm(b32* dst, b32 smem)` for `SM75_U32x4_LDSM_N`). Generated functions precede
    /// the [`device_fn`](Self::device_fn)s, which may call them. An atom without an instruction
    /// (`UniversalCopy`) makes [`build`](Self::build) fail.
    ///
    /// ```
    /// use tessel_kernels::kernel::{CType, KernelBuilder, Param};
    /// use tessel_layout::atom::copy_atom;
    /// let ldsm = copy_atom("SM75_U32x4_LDSM_N").unwrap();
    /// let k = KernelBuilder::new("n", "b32 r[4]; dev::ldsm(r, 0u); out[0] = r[0];")
    ///     .copy_atom("ldsm", &ldsm)
    ///     .param(Param::output("out", CType::B32.into()))
    ///     .threads(32).build().unwrap();
    /// assert!(k.source().contains("__device__ __forceinline__ void ldsm(b32* dst, b32 smem)"));
    /// let plain = copy_atom("UniversalCopy<uint32_t>").unwrap();
    /// let err = KernelBuilder::new("n", "dev::mov();").copy_atom("mov", &plain).threads(32)
    ///     .build().unwrap_err();
    /// assert!(err.to_string().contains("not an instruction"), "{err}");
    /// ```
    pub fn copy_atom(self, name: &str, atom: &tessel_layout::atom::CopyAtom) -> KernelBuilder {
        let code = super::atom::copy_atom_fn(name, atom).map_err(|e| e.to_string());
        self.piece(name, Piece::AtomFn(code))
    }

    /// `dev::NAME`: the device function executing one MMA atom, generated from its asm template
    /// and operands ([`super::atom`]: `dev::mma(float* d, const b32* a, const b32* b, const
    /// float* c)` for `SM80_16x8x16_F32F16F16F32_TN`), placed like [`copy_atom`](Self::copy_atom)'s.
    ///
    /// ```
    /// use tessel_kernels::kernel::{CType, KernelBuilder, Param};
    /// use tessel_layout::atom::mma_atom;
    /// let mma = mma_atom("SM80_16x8x16_F32F16F16F32_TN").unwrap();
    /// let body = "float d[4] = {}; b32 a[4] = {}, b[2] = {}; dev::mma(d, a, b, d); out[0] = d[0];";
    /// let k = KernelBuilder::new("n", body).mma_atom("mma", &mma)
    ///     .param(Param::output("out", CType::F32.into())).threads(32).build().unwrap();
    /// assert!(k.source().contains("void mma(float* d, const b32* a, const b32* b, const float* c)"));
    /// ```
    pub fn mma_atom(self, name: &str, atom: &tessel_layout::atom::MmaAtom) -> KernelBuilder {
        let code = super::atom::mma_atom_fn(name, atom).map_err(|e| e.to_string());
        self.piece(name, Piece::AtomFn(code))
    }

    /// `tensor::NAME(...)`: a tensor of the tensor layer ([`crate::layer`]). The body gets a
    /// constructor by the tensor's space: `tensor::NAME(p)` over a pointer `p` for global and
    /// shared memory, `tensor::NAME()` for a fresh register fragment (and `tensor::NAME(frag)`
    /// for the same layout over another fragment's registers), `tensor::NAME()` for
    /// coordinates.
    ///
    /// ```
    /// use tessel_kernels::{kernel::{CType, KernelBuilder, Param}, layer::DeviceTensor};
    /// let t = DeviceTensor::global(CType::F32, "(4,8):(8,1)".parse().unwrap());
    /// let k = KernelBuilder::new("n", "tensor::g(x)(1, 2) = 3.0f;")
    ///     .tensor("g", &t)
    ///     .param(Param::output("x", CType::F32.into()).len(32))
    ///     .threads(32).build().unwrap();
    /// assert!(k.source().contains("struct g_layout {"));
    /// ```
    pub fn tensor(self, name: &str, tensor: &crate::layer::DeviceTensor) -> KernelBuilder {
        self.piece(name, Piece::Tensor(Box::new(tensor.clone())))
    }

    /// `copy::NAME`: a tiled copy of the tensor layer, whose `call` executes its atom's
    /// instruction on one slice of mode 0 (`tessel::copy(copy::NAME{}, src, dst)`).
    ///
    /// ```
    /// use tessel_kernels::{kernel::KernelBuilder, layer::DeviceCopy};
    /// use tessel_layout::{atom::copy_atom, tiled::make_tiled_copy};
    /// let atom = copy_atom("SM80_CP_ASYNC_CACHEGLOBAL<uint128_t>").unwrap().typed(16).unwrap();
    /// let tc = make_tiled_copy(&atom, &"(16,8):(8,1)".parse().unwrap(),
    ///                          &"(1,8):(0,1)".parse().unwrap()).unwrap();
    /// let k = KernelBuilder::new("n", "copy::g2s x; (void)x;").tiled_copy(&DeviceCopy::new("g2s", tc))
    ///     .threads(128).build().unwrap();
    /// assert!(k.source().contains("void g2s_atom(b32 smem, const void* gmem)"));
    /// ```
    pub fn tiled_copy(self, copy: &crate::layer::DeviceCopy) -> KernelBuilder {
        self.piece(copy.name(), Piece::Copy(Box::new(copy.clone())))
    }

    /// `mma::NAME`: a tiled MMA of the tensor layer, whose `call` executes its atom on one
    /// slice of mode 0 of each fragment (`tessel::gemm(mma::NAME{}, a, b, c)`).
    ///
    /// ```
    /// use tessel_kernels::{kernel::KernelBuilder, layer::DeviceMma};
    /// use tessel_layout::{atom::mma_atom, tiled::make_tiled_mma};
    /// let tm = make_tiled_mma(&mma_atom("SM80_16x8x16_F32F16F16F32_TN").unwrap(),
    ///                         &"1:0".parse().unwrap(), &[]).unwrap();
    /// let k = KernelBuilder::new("n", "mma::m x; (void)x;").tiled_mma(&DeviceMma::new("m", tm))
    ///     .threads(32).build().unwrap();
    /// assert!(k.source().contains("struct m {"));
    /// ```
    pub fn tiled_mma(self, mma: &crate::layer::DeviceMma) -> KernelBuilder {
        self.piece(mma.name(), Piece::Mma(Box::new(mma.clone())))
    }

    /// Appends a parameter to the signature.
    ///
    /// ```
    /// use tessel_kernels::kernel::{CType, KernelBuilder, Param, Scalar};
    /// let k = KernelBuilder::new("n", "x[0] = r;")
    ///     .param(Param::output("x", CType::B32.into()))
    ///     .param(Param::scalar("r", Scalar::I32))
    ///     .threads(32).build().unwrap();
    /// assert!(k.source().contains("n(b32* __restrict__ x, int r)"));
    /// ```
    pub fn param(mut self, param: Param) -> KernelBuilder {
        self.params.push(param);
        self
    }

    /// Threads per block (one-dimensional), also the kernel's `__launch_bounds__`.
    ///
    /// ```
    /// use tessel_kernels::kernel::KernelBuilder;
    /// assert_eq!(KernelBuilder::new("n", "").threads(128).build().unwrap().launch().block, (128, 1, 1));
    /// ```
    pub fn threads(mut self, threads: u32) -> KernelBuilder {
        self.threads = threads;
        self
    }

    /// Minimum resident blocks per SM in `__launch_bounds__(threads, B)` (`None`: omitted).
    ///
    /// ```
    /// use tessel_kernels::kernel::KernelBuilder;
    /// let k = KernelBuilder::new("n", "").threads(256).min_blocks(Some(2)).build().unwrap();
    /// assert!(k.source().contains("__launch_bounds__(256, 2)"));
    /// ```
    pub fn min_blocks(mut self, blocks: Option<i64>) -> KernelBuilder {
        self.min_blocks = blocks;
        self
    }

    /// Blocks per launch (default 1 x 1 x 1).
    ///
    /// ```
    /// use tessel_kernels::kernel::KernelBuilder;
    /// let k = KernelBuilder::new("n", "").threads(32).grid(8, 2, 1).build().unwrap();
    /// assert_eq!(k.launch().grid, (8, 2, 1));
    /// ```
    pub fn grid(mut self, x: u32, y: u32, z: u32) -> KernelBuilder {
        self.grid = (x, y, z);
        self
    }

    /// Bytes of dynamic shared memory per block (the runtime raises the function's limit when
    /// it is loaded).
    ///
    /// ```
    /// use tessel_kernels::kernel::KernelBuilder;
    /// let k = KernelBuilder::new("n", "").threads(32).dynamic_smem(1 << 16).build().unwrap();
    /// assert_eq!(k.launch().dynamic_smem, 65536);
    /// ```
    pub fn dynamic_smem(mut self, bytes: u32) -> KernelBuilder {
        self.dynamic_smem = bytes;
        self
    }

    /// The architecture the kernel must be compiled for (e.g. [`crate::Arch::SM90A`] for
    /// `wgmma`), instead of the device's own; [`Kernel::load`] refuses devices it does not run
    /// on.
    ///
    /// ```
    /// use tessel_kernels::{Arch, kernel::KernelBuilder};
    /// let k = KernelBuilder::new("n", "").threads(32).target(Arch::SM90A).build().unwrap();
    /// assert_eq!(k.target(), Some(Arch::SM90A));
    /// ```
    pub fn target(mut self, arch: crate::Arch) -> KernelBuilder {
        self.target = Some(arch);
        self
    }

    fn err(&self, what: String) -> GpuError {
        GpuError::InvalidArgument(format!("kernel {}: {what}", self.name))
    }

    fn is_identifier(s: &str) -> bool {
        let mut chars = s.chars();
        chars
            .next()
            .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
            && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
    }

    /// Checks names: identifiers, no duplicates, every reference of the body given, every piece
    /// referred to.
    fn check(&self) -> GpuResult<()> {
        if !Self::is_identifier(&self.name) {
            return Err(self.err("the kernel name is not a C identifier".into()));
        }
        if self.threads == 0 {
            return Err(self.err("threads per block not set (KernelBuilder::threads)".into()));
        }
        let mut seen = BTreeSet::new();
        for (name, piece) in &self.pieces {
            let full = format!("{}::{name}", piece.namespace());
            if !Self::is_identifier(name) {
                return Err(self.err(format!("piece {full} is not a C identifier")));
            }
            // Layouts share their namespace with the `_crd` functions they emit.
            if !seen.insert(name.clone()) {
                return Err(self.err(format!("piece {full} is given twice")));
            }
        }
        let mut params = BTreeSet::new();
        for p in &self.params {
            if !Self::is_identifier(p.name()) {
                return Err(self.err(format!("parameter {} is not a C identifier", p.name())));
            }
            if !params.insert(p.name().to_string()) {
                return Err(self.err(format!("parameter {} is given twice", p.name())));
            }
            if let ParamKind::Buffer {
                elem: Elem::Alias(a),
                ..
            } = p.kind()
                && !self
                    .pieces
                    .iter()
                    .any(|(n, piece)| n == a && matches!(piece, Piece::Alias(_)))
            {
                return Err(self.err(format!(
                    "parameter {} has element type ty::{a}, which was not given",
                    p.name()
                )));
            }
            if let ParamKind::Values(fields) = p.kind() {
                let mut names = BTreeSet::new();
                for f in fields {
                    if !Self::is_identifier(f.name()) || !names.insert(f.name()) {
                        return Err(self.err(format!(
                            "field {} of parameter {} is not a C identifier or is given twice",
                            f.name(),
                            p.name()
                        )));
                    }
                    if let super::piece::FieldType::Pointer(Elem::Alias(a)) = f.ty()
                        && !self
                            .pieces
                            .iter()
                            .any(|(n, piece)| n == a && matches!(piece, Piece::Alias(_)))
                    {
                        return Err(self.err(format!(
                            "field {} of parameter {} points to ty::{a}, which was not given",
                            f.name(),
                            p.name()
                        )));
                    }
                }
            }
        }
        // References: the body, the device functions (each without its own definition) and
        // the parameters' element types.
        let body = References::scan(&self.body);
        let mut used = body.qualified.clone();
        for (name, piece) in &self.pieces {
            let code = match piece {
                Piece::DeviceFn(code) | Piece::AtomFn(Ok(code)) => code,
                Piece::AtomFn(Err(e)) => return Err(self.err(e.clone())),
                _ => continue,
            };
            {
                let refs = References::scan(code);
                if !refs.identifiers.contains(name) {
                    return Err(self.err(format!(
                        "the code of device function dev::{name} does not define {name}"
                    )));
                }
                used.extend(
                    refs.qualified
                        .into_iter()
                        .filter(|(ns, n)| !(ns == "dev" && n == name)),
                );
            }
        }
        for p in &self.params {
            if let ParamKind::Buffer {
                elem: Elem::Alias(a),
                ..
            } = p.kind()
            {
                used.insert(("ty".into(), a.clone()));
            }
            if let ParamKind::Values(fields) = p.kind() {
                for f in fields {
                    if let super::piece::FieldType::Pointer(Elem::Alias(a)) = f.ty() {
                        used.insert(("ty".into(), a.clone()));
                    }
                }
            }
        }
        // The piece (namespace, name) a reference resolves to: itself, or for
        // `layout::NAME_crd` the layout (or the tensor with run-time strides, whose layout
        // function it is) named NAME.
        let resolve = |ns: &str, name: &str| -> Option<(&'static str, &str)> {
            let direct = self
                .pieces
                .iter()
                .find(|(n, p)| n == name && p.namespace() == ns);
            if let Some((n, p)) = direct {
                return Some((p.namespace(), n.as_str()));
            }
            // A tensor's layout type (`tensor::NAME_layout::cosize` sizes a shared buffer).
            if let Some(base) = name.strip_suffix("_layout").filter(|_| ns == "tensor") {
                return self
                    .pieces
                    .iter()
                    .find(|(n, p)| n == base && matches!(p, Piece::Tensor(_)))
                    .map(|(n, p)| (p.namespace(), n.as_str()));
            }
            let base = name.strip_suffix("_crd")?;
            self.pieces
                .iter()
                .find(|(n, p)| {
                    n == base
                        && ns == "layout"
                        && match p {
                            Piece::Layout(LayoutFns::Coord(_) | LayoutFns::Composed(_)) => true,
                            Piece::Tensor(t) => t.runtime_layout().is_some(),
                            _ => false,
                        }
                })
                .map(|(n, p)| (p.namespace(), n.as_str()))
        };
        let mut referred = BTreeSet::new();
        for (ns, name) in &used {
            match resolve(ns, name) {
                Some((piece_ns, piece)) => {
                    referred.insert((piece_ns.to_string(), piece.to_string()));
                }
                None => {
                    return Err(self.err(format!(
                        "the body refers to {ns}::{name}, which was not given"
                    )));
                }
            }
        }
        for (name, piece) in &self.pieces {
            if !referred.contains(&(piece.namespace().to_string(), name.clone())) {
                return Err(self.err(format!(
                    "piece {}::{name} is given but never referred to",
                    piece.namespace()
                )));
            }
        }
        for p in &self.params {
            if !body.identifiers.contains(p.name()) {
                return Err(self.err(format!(
                    "parameter {} is given but never referred to",
                    p.name()
                )));
            }
        }
        Ok(())
    }

    fn elem_name(elem: &Elem) -> String {
        match elem {
            Elem::Alias(a) => format!("ty::{a}"),
            Elem::Type(t) => t.name().to_string(),
        }
    }

    /// The struct types of the [`ParamKind::Values`] parameters: the fields in the order of
    /// their offsets ([`Param::value_offsets`]).
    fn value_structs(&self) -> String {
        let mut out = String::new();
        for p in &self.params {
            let ParamKind::Values(fields) = p.kind() else {
                continue;
            };
            let offsets = p.value_offsets();
            let mut order: Vec<usize> = (0..fields.len()).collect();
            order.sort_by_key(|&i| offsets[i]);
            out.push_str(&format!("struct {}_t {{\n", p.name()));
            for i in order {
                let f = &fields[i];
                let ty = match f.ty() {
                    super::piece::FieldType::Scalar(s) => s.c_name().to_string(),
                    super::piece::FieldType::Pointer(e) => format!("{}*", Self::elem_name(e)),
                };
                out.push_str(&format!("  {ty} {};\n", f.name()));
            }
            out.push_str("};\n");
        }
        out
    }

    fn signature(&self) -> String {
        let params: Vec<String> = self
            .params
            .iter()
            .map(|p| match p.kind() {
                ParamKind::Buffer { elem, access, .. } => {
                    let c = if *access == Access::Read {
                        "const "
                    } else {
                        ""
                    };
                    format!("{c}{}* __restrict__ {}", Self::elem_name(elem), p.name())
                }
                ParamKind::Scalar(s) => format!("{} {}", s.c_name(), p.name()),
                ParamKind::TensorMap => {
                    format!("const __grid_constant__ {TENSOR_MAP_TYPE} {}", p.name())
                }
                ParamKind::Values(_) => format!("const {0}_t {0}", p.name()),
            })
            .collect();
        let bounds = match self.min_blocks {
            Some(b) => format!("{}, {b}", self.threads),
            None => self.threads.to_string(),
        };
        format!(
            "extern \"C\" __global__ void __launch_bounds__({bounds}) {}({})",
            self.name,
            params.join(", ")
        )
    }

    fn declarations(&self) -> GpuResult<String> {
        let mut types = String::new();
        let mut ints = String::new();
        let mut layouts = String::new();
        let mut devs = String::new();
        let mut atom_devs = String::new();
        let (mut tensors, mut copies, mut mmas) = (String::new(), String::new(), String::new());
        for (name, piece) in &self.pieces {
            match piece {
                Piece::Alias(t) => types.push_str(&format!("typedef {} {name};\n", t.name())),
                Piece::Int { value, long: false } => {
                    ints.push_str(&format!("enum : int {{ {name} = {value} }};\n"))
                }
                Piece::Int { value, long: true } => {
                    ints.push_str(&format!("enum : long long {{ {name} = {value}LL }};\n"))
                }
                Piece::Layout(l) => {
                    let (text, code) = match l {
                        LayoutFns::Index(l) => (l.to_string(), index_fn(name, l)?),
                        LayoutFns::Coord(l) => (l.to_string(), coord_fn(name, l)?),
                        LayoutFns::Composed(l) => (l.to_string(), composed_fns(name, l)?),
                    };
                    layouts.push_str(&format!("// {name} = {text}\n{code}"));
                }
                Piece::DeviceFn(code) => {
                    devs.push_str(code);
                    if !code.ends_with('\n') {
                        devs.push('\n');
                    }
                }
                Piece::AtomFn(code) => {
                    atom_devs.push_str(code.as_deref().map_err(|e| self.err(e.clone()))?)
                }
                Piece::Tensor(t) => {
                    layouts.push_str(&crate::layer::emit::tensor_layout_fns(name, t)?);
                    tensors.push_str(&crate::layer::emit::tensor_decl(name, t)?);
                }
                Piece::Copy(c) => {
                    let (dev, decl) = crate::layer::emit::copy_decl(c)?;
                    atom_devs.push_str(&dev);
                    copies.push_str(&decl);
                }
                Piece::Mma(m) => {
                    let (dev, decl) = crate::layer::emit::mma_decl(m)?;
                    atom_devs.push_str(&dev);
                    mmas.push_str(&decl);
                }
            }
        }
        let devs = atom_devs + &devs;
        let mut out = String::new();
        for (ns, text) in [
            ("ty", types),
            ("k", ints),
            ("layout", layouts),
            ("dev", devs),
            ("tensor", tensors),
            ("copy", copies),
            ("mma", mmas),
        ] {
            if !text.is_empty() {
                out.push_str(&format!("namespace {ns} {{\n{text}}}  // namespace {ns}\n"));
            }
        }
        Ok(out)
    }

    /// Checks the declaration and assembles the source: the comment, [`PRELUDE`], [`TESSEL_CUH`],
    /// the generated declarations (`namespace ty`, `k`, `layout`, `dev`), the signature and the
    /// body. `Err` (naming the kernel and the piece) when the body refers to a piece that was not
    /// given, a piece is never referred to, or a name is given twice.
    ///
    /// ```
    /// use tessel_kernels::kernel::KernelBuilder;
    /// let unused = KernelBuilder::new("k1", "").int("N", 1).threads(32).build().unwrap_err();
    /// assert!(unused.to_string().contains("k::N is given but never referred to"), "{unused}");
    /// let twice = KernelBuilder::new("k2", "k::N;").int("N", 1).int("N", 2).threads(32).build();
    /// assert!(twice.unwrap_err().to_string().contains("given twice"));
    /// ```
    pub fn build(self) -> GpuResult<Kernel> {
        self.check()?;
        let decls = self.declarations()?;
        let mut body = self.body.clone();
        if !body.ends_with('\n') {
            body.push('\n');
        }
        // sm_90a kernels get the Hopper components of the tensor layer (which name tensor maps).
        let sm90 = self.target == Some(crate::Arch::SM90A);
        let tensor_map = if sm90
            || self
                .params
                .iter()
                .any(|p| matches!(p.kind(), ParamKind::TensorMap))
        {
            TENSOR_MAP_STRUCT
        } else {
            ""
        };
        let sm90_cuh = if sm90 { SM90_CUH } else { "" };
        let structs = self.value_structs();
        let source = format!(
            "{}{PRELUDE}{TESSEL_CUH}{TENSOR_CUH}{tensor_map}{sm90_cuh}{decls}{structs}{} \
             {{\n{UNDERSCORE}{body}}}\n",
            self.comment,
            self.signature()
        );
        Ok(Kernel {
            name: self.name,
            source,
            params: self.params,
            launch: Launch {
                grid: self.grid,
                block: (self.threads, 1, 1),
                dynamic_smem: self.dynamic_smem,
            },
            target: self.target,
            aliases: self
                .pieces
                .iter()
                .filter_map(|(n, p)| match p {
                    Piece::Alias(t) => Some((n.clone(), *t)),
                    _ => None,
                })
                .collect(),
        })
    }
}

/// A kernel ready to compile: its name, full CUDA source, typed parameters and launch geometry.
///
/// ```
/// use tessel_kernels::kernel::{CType, KernelBuilder, Param};
/// let k = KernelBuilder::new("one", "x[0] = 1u;")
///     .param(Param::output("x", CType::B32.into()).len(1))
///     .threads(32).build().unwrap();
/// assert_eq!(k.params().len(), 1);
/// assert_eq!(k.launch().threads(), 32);
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Kernel {
    name: String,
    source: String,
    params: Vec<Param>,
    launch: Launch,
    target: Option<crate::Arch>,
    aliases: Vec<(String, CType)>,
}

impl Kernel {
    /// The entry point's name.
    ///
    /// ```
    /// use tessel_kernels::kernel::KernelBuilder;
    /// assert_eq!(KernelBuilder::new("zz", "").threads(32).build().unwrap().name(), "zz");
    /// ```
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The complete CUDA C++ source.
    ///
    /// ```
    /// use tessel_kernels::kernel::KernelBuilder;
    /// let k = KernelBuilder::new("zz", "").threads(32).build().unwrap();
    /// assert!(k.source().contains("#define TESSEL_FN"));
    /// ```
    pub fn source(&self) -> &str {
        &self.source
    }

    /// The parameters in signature order.
    ///
    /// ```
    /// use tessel_kernels::kernel::KernelBuilder;
    /// assert!(KernelBuilder::new("zz", "").threads(32).build().unwrap().params().is_empty());
    /// ```
    pub fn params(&self) -> &[Param] {
        &self.params
    }

    /// Grid, block and dynamic shared memory.
    ///
    /// ```
    /// use tessel_kernels::kernel::KernelBuilder;
    /// let k = KernelBuilder::new("zz", "").threads(64).grid(3, 1, 1).build().unwrap();
    /// assert_eq!((k.launch().grid.0, k.launch().block.0), (3, 64));
    /// ```
    pub fn launch(&self) -> Launch {
        self.launch
    }

    /// The architecture the kernel is compiled for when it is not the device's own
    /// ([`KernelBuilder::target`]).
    ///
    /// ```
    /// use tessel_kernels::kernel::KernelBuilder;
    /// assert_eq!(KernelBuilder::new("zz", "").threads(32).build().unwrap().target(), None);
    /// ```
    pub fn target(&self) -> Option<crate::Arch> {
        self.target
    }

    /// The same kernel launched over another grid.
    ///
    /// ```
    /// use tessel_kernels::kernel::KernelBuilder;
    /// let k = KernelBuilder::new("zz", "").threads(64).build().unwrap().with_grid(5, 1, 1);
    /// assert_eq!(k.launch().grid, (5, 1, 1));
    /// ```
    pub fn with_grid(mut self, x: u32, y: u32, z: u32) -> Kernel {
        self.launch.grid = (x, y, z);
        self
    }

    /// Bytes per element of a buffer parameter's element type.
    pub(crate) fn elem_bytes(&self, elem: &Elem) -> usize {
        match elem {
            Elem::Type(t) => t.bytes(),
            Elem::Alias(a) => self
                .aliases
                .iter()
                .find(|(n, _)| n == a)
                .map_or(0, |(_, t)| t.bytes()),
        }
    }

    /// Compiles the source to PTX for `arch` with NVRTC (no GPU needed).
    ///
    /// ```
    /// use tessel_kernels::{Arch, kernel::KernelBuilder};
    /// let k = KernelBuilder::new("zz", "").threads(32).build().unwrap();
    /// match k.ptx(Arch::new(9, 0).unwrap()) {
    ///     Ok(ptx) => assert!(ptx.contains(".entry zz")),
    ///     Err(e) => assert!(e.is_unavailable()),
    /// }
    /// ```
    pub fn ptx(&self, arch: crate::Arch) -> GpuResult<String> {
        Ok(crate::compile::compile_ptx(&self.source, &self.name, arch)?.to_src())
    }
}
