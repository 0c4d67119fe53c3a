//! The pieces a kernel is declared from: C element types, parameters and launch geometry.
//!
//! ```
//! use tessel_kernels::kernel::{CType, Elem, Param};
//! let p = Param::output("dst", Elem::alias("T")).len(1024);
//! assert_eq!(p.name(), "dst");
//! assert_eq!(CType::B16.bytes(), 2);
//! ```

use crate::element::{DeviceElement, Element};

/// A C element type as spelled in CUDA, with its size.
///
/// ```
/// use tessel_kernels::{Element, element::DeviceElement, kernel::CType};
/// assert_eq!(Element::F16.word(), CType::B16);
/// assert_eq!(CType::F32.name(), "float");
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct CType {
    name: &'static str,
    bytes: usize,
}

impl CType {
    /// A 32-bit word (`b32`, from `tessel.cuh`).
    ///
    /// ```
    /// assert_eq!(tessel_kernels::kernel::CType::B32.name(), "b32");
    /// ```
    pub const B32: CType = CType::new("b32", 4);
    /// A 16-bit word (`b16`, from `tessel.cuh`).
    ///
    /// ```
    /// assert_eq!(tessel_kernels::kernel::CType::B16.bytes(), 2);
    /// ```
    pub const B16: CType = CType::new("b16", 2);
    /// `float`.
    ///
    /// ```
    /// assert_eq!(tessel_kernels::kernel::CType::F32.bytes(), 4);
    /// ```
    pub const F32: CType = CType::new("float", 4);
    /// `unsigned char`: one byte (the storage of the 8-bit floating-point formats).
    ///
    /// ```
    /// assert_eq!(tessel_kernels::kernel::CType::U8.name(), "unsigned char");
    /// ```
    pub const U8: CType = CType::new("unsigned char", 1);
    /// `int`.
    ///
    /// ```
    /// assert_eq!(tessel_kernels::kernel::CType::I32.name(), "int");
    /// ```
    pub const I32: CType = CType::new("int", 4);

    /// A type named `name` of `bytes` bytes (the name is written into the source as is).
    ///
    /// ```
    /// use tessel_kernels::kernel::CType;
    /// assert_eq!(CType::new("double", 8).bytes(), 8);
    /// ```
    pub const fn new(name: &'static str, bytes: usize) -> CType {
        CType { name, bytes }
    }

    /// The C spelling.
    ///
    /// ```
    /// assert_eq!(tessel_kernels::kernel::CType::B16.name(), "b16");
    /// ```
    pub fn name(&self) -> &'static str {
        self.name
    }

    /// Size in bytes.
    ///
    /// ```
    /// assert_eq!(tessel_kernels::kernel::CType::B32.bytes(), 4);
    /// ```
    pub fn bytes(&self) -> usize {
        self.bytes
    }
}

/// The element type of a buffer parameter: a type alias of the kernel (`ty::NAME`) or a C type.
///
/// ```
/// use tessel_kernels::kernel::{CType, Elem};
/// assert_eq!(Elem::alias("T"), Elem::Alias("T".into()));
/// assert_eq!(Elem::from(CType::F32), Elem::Type(CType::F32));
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Elem {
    /// An alias declared with `KernelBuilder::alias`, written `ty::NAME`.
    Alias(String),
    /// A C type.
    Type(CType),
}

impl Elem {
    /// The alias `name`.
    ///
    /// ```
    /// use tessel_kernels::kernel::Elem;
    /// assert!(matches!(Elem::alias("TA"), Elem::Alias(n) if n == "TA"));
    /// ```
    pub fn alias(name: &str) -> Elem {
        Elem::Alias(name.to_string())
    }
}

impl From<Element> for Elem {
    /// The element's C storage type ([`DeviceElement::c_type`]).
    ///
    /// ```
    /// use tessel_kernels::{Element, kernel::{CType, Elem}};
    /// assert_eq!(Elem::from(Element::BF16), Elem::Type(CType::B16));
    /// ```
    fn from(e: Element) -> Elem {
        Elem::Type(e.c_type())
    }
}

impl From<CType> for Elem {
    fn from(t: CType) -> Elem {
        Elem::Type(t)
    }
}

/// How a kernel uses a buffer.
///
/// ```
/// use tessel_kernels::kernel::{Access, Elem, Param, CType};
/// assert_eq!(Param::input("a", CType::B16.into()).access(), Some(Access::Read));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Access {
    /// Read only: `const E* __restrict__`.
    Read,
    /// Written (and possibly read): `E* __restrict__`; the runtime poisons it before a verified
    /// run.
    Write,
}

/// The type of a scalar parameter (a kernel's run-time `int`, `long long` or `float` argument).
/// A parameter kind, not an element type: a buffer's element is an
/// [`Element`] (or a kernel alias of one).
///
/// ```
/// use tessel_kernels::kernel::Scalar;
/// assert_eq!(Scalar::I32.c_name(), "int");
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Scalar {
    /// `int` (`i32`).
    I32,
    /// `long long` (`i64`).
    I64,
    /// `float` (`f32`).
    F32,
}

impl Scalar {
    /// The C spelling.
    ///
    /// ```
    /// use tessel_kernels::kernel::Scalar;
    /// assert_eq!(Scalar::I64.c_name(), "long long");
    /// ```
    pub fn c_name(self) -> &'static str {
        match self {
            Scalar::I32 => "int",
            Scalar::I64 => "long long",
            Scalar::F32 => "float",
        }
    }
}

/// What a parameter is.
///
/// ```
/// use tessel_kernels::kernel::{Access, CType, Elem, Param, ParamKind};
/// let p = Param::input("x", CType::F32.into()).len(8);
/// assert_eq!(p.kind(), &ParamKind::Buffer { elem: Elem::Type(CType::F32), access: Access::Read, len: Some(8) });
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ParamKind {
    /// A device buffer of `elem`, at least `len` elements long when given.
    Buffer {
        /// Element type.
        elem: Elem,
        /// Read or written.
        access: Access,
        /// Elements the kernel may touch (checked at launch).
        len: Option<usize>,
    },
    /// A scalar passed by value.
    Scalar(Scalar),
    /// A TMA tensor map passed by value (`const __grid_constant__`, 128 bytes; built on the
    /// host with [`crate::tma::TensorMap`], given as [`super::Arg::TensorMap`]).
    TensorMap,
    /// A struct of run-time values passed by value (`const NAME_t NAME`, the body reads
    /// `NAME.field`): the scalars and device pointers a kernel takes per call, in one
    /// parameter ([`Param::values`], given as [`super::Arg::Values`]).
    Values(Vec<Field>),
}

/// What a field of a [`ParamKind::Values`] parameter holds.
///
/// ```
/// use tessel_kernels::kernel::{CType, FieldType, Scalar};
/// assert_eq!(FieldType::Scalar(Scalar::F32).bytes(), 4);
/// assert_eq!(FieldType::Pointer(CType::F32.into()).bytes(), 8);
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum FieldType {
    /// A scalar.
    Scalar(Scalar),
    /// A device pointer to elements of a type (`T*`; the kernel may read or write through it).
    Pointer(Elem),
}

impl FieldType {
    /// Bytes of the field (and its alignment).
    pub fn bytes(&self) -> usize {
        match self {
            FieldType::Scalar(Scalar::I32 | Scalar::F32) => 4,
            FieldType::Scalar(Scalar::I64) | FieldType::Pointer(_) => 8,
        }
    }
}

/// A named field of a [`ParamKind::Values`] parameter.
///
/// ```
/// use tessel_kernels::kernel::{Field, Scalar};
/// let f = Field::scalar("m", Scalar::I32);
/// assert_eq!(f.name(), "m");
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Field {
    name: String,
    ty: FieldType,
}

impl Field {
    /// A scalar field.
    pub fn scalar(name: &str, ty: Scalar) -> Field {
        Field {
            name: name.to_string(),
            ty: FieldType::Scalar(ty),
        }
    }

    /// A device pointer field.
    pub fn pointer(name: &str, elem: Elem) -> Field {
        Field {
            name: name.to_string(),
            ty: FieldType::Pointer(elem),
        }
    }

    /// The field's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// What it holds.
    pub fn ty(&self) -> &FieldType {
        &self.ty
    }
}

/// A typed kernel parameter, in signature order.
///
/// ```
/// use tessel_kernels::kernel::{Param, Scalar};
/// let p = Param::scalar("reps", Scalar::I32);
/// assert_eq!((p.name(), p.access()), ("reps", None));
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Param {
    name: String,
    kind: ParamKind,
}

impl Param {
    /// A buffer the kernel reads.
    ///
    /// ```
    /// use tessel_kernels::kernel::{Access, Elem, Param};
    /// assert_eq!(Param::input("src", Elem::alias("T")).access(), Some(Access::Read));
    /// ```
    pub fn input(name: &str, elem: Elem) -> Param {
        Param::buffer(name, elem, Access::Read)
    }

    /// A buffer the kernel writes.
    ///
    /// ```
    /// use tessel_kernels::kernel::{Access, Elem, Param};
    /// assert_eq!(Param::output("dst", Elem::alias("T")).access(), Some(Access::Write));
    /// ```
    pub fn output(name: &str, elem: Elem) -> Param {
        Param::buffer(name, elem, Access::Write)
    }

    fn buffer(name: &str, elem: Elem, access: Access) -> Param {
        Param {
            name: name.to_string(),
            kind: ParamKind::Buffer {
                elem,
                access,
                len: None,
            },
        }
    }

    /// A scalar.
    ///
    /// ```
    /// use tessel_kernels::kernel::{Param, Scalar, ParamKind};
    /// assert_eq!(Param::scalar("n", Scalar::I64).kind(), &ParamKind::Scalar(Scalar::I64));
    /// ```
    pub fn scalar(name: &str, ty: Scalar) -> Param {
        Param {
            name: name.to_string(),
            kind: ParamKind::Scalar(ty),
        }
    }

    /// A TMA tensor map (`const __grid_constant__ tessel_tensor_map NAME`), whose address the
    /// body hands to `cp.async.bulk.tensor`.
    ///
    /// ```
    /// use tessel_kernels::kernel::{KernelBuilder, Param, ParamKind};
    /// let p = Param::tensor_map("tmap");
    /// assert_eq!((p.kind(), p.access()), (&ParamKind::TensorMap, None));
    /// let k = KernelBuilder::new("n", "(void)&tmap;").param(p).threads(32).build().unwrap();
    /// assert!(k.source().contains("n(const __grid_constant__ tessel_tensor_map tmap)"));
    /// assert!(k.source().contains("struct alignas(64) tessel_tensor_map"));
    /// ```
    pub fn tensor_map(name: &str) -> Param {
        Param {
            name: name.to_string(),
            kind: ParamKind::TensorMap,
        }
    }

    /// A struct of run-time values (`const NAME_t NAME`; the body reads `NAME.field`). The
    /// fields are laid out 8-byte ones first, then 4-byte ones, in the order given within each
    /// size (no padding; [`Param::value_offsets`] gives each field's byte offset), so the host
    /// writes the same bytes the device reads.
    ///
    /// ```
    /// use tessel_kernels::kernel::{CType, Field, KernelBuilder, Param, Scalar};
    /// let p = Param::values("args", vec![Field::scalar("m", Scalar::I32),
    ///                                    Field::pointer("d", CType::F32.into()),
    ///                                    Field::scalar("alpha", Scalar::F32)]);
    /// assert_eq!(p.value_offsets(), vec![8, 0, 12]); // d first, then m and alpha
    /// let k = KernelBuilder::new("v", "args.d[0] = args.alpha * args.m;").param(p)
    ///     .threads(32).build().unwrap();
    /// assert!(k.source().contains("struct args_t {\n  float* d;\n  int m;\n  float alpha;\n};"));
    /// assert!(k.source().contains("v(const args_t args)"));
    /// ```
    pub fn values(name: &str, fields: Vec<Field>) -> Param {
        Param {
            name: name.to_string(),
            kind: ParamKind::Values(fields),
        }
    }

    /// For a [`Param::values`] parameter: the byte offset of each field (in declaration order)
    /// in the struct; empty for other parameters.
    pub fn value_offsets(&self) -> Vec<usize> {
        let ParamKind::Values(fields) = &self.kind else {
            return Vec::new();
        };
        let mut offsets = vec![0; fields.len()];
        let mut at = 0;
        for size in [8, 4] {
            for (i, f) in fields.iter().enumerate() {
                if f.ty().bytes() == size {
                    offsets[i] = at;
                    at += size;
                }
            }
        }
        offsets
    }

    /// For a [`Param::values`] parameter: the struct's size in bytes (a multiple of 8).
    pub fn values_bytes(&self) -> usize {
        let ParamKind::Values(fields) = &self.kind else {
            return 0;
        };
        fields
            .iter()
            .map(|f| f.ty().bytes())
            .sum::<usize>()
            .next_multiple_of(8)
    }

    /// The same buffer parameter, required to hold at least `elements` elements (checked at
    /// launch; no effect on a scalar).
    ///
    /// ```
    /// use tessel_kernels::kernel::{Elem, Param, ParamKind};
    /// let p = Param::input("a", Elem::alias("T")).len(64);
    /// assert!(matches!(p.kind(), ParamKind::Buffer { len: Some(64), .. }));
    /// ```
    pub fn len(mut self, elements: usize) -> Param {
        if let ParamKind::Buffer { len, .. } = &mut self.kind {
            *len = Some(elements);
        }
        self
    }

    /// The name (a bare identifier in the body).
    ///
    /// ```
    /// use tessel_kernels::kernel::{Param, Scalar};
    /// assert_eq!(Param::scalar("reps", Scalar::I32).name(), "reps");
    /// ```
    pub fn name(&self) -> &str {
        &self.name
    }

    /// What it is.
    ///
    /// ```
    /// use tessel_kernels::kernel::{Param, ParamKind, Scalar};
    /// assert!(matches!(Param::scalar("x", Scalar::F32).kind(), ParamKind::Scalar(_)));
    /// ```
    pub fn kind(&self) -> &ParamKind {
        &self.kind
    }

    /// Read or write for a buffer, `None` for a scalar.
    ///
    /// ```
    /// use tessel_kernels::kernel::{Param, Scalar};
    /// assert_eq!(Param::scalar("x", Scalar::F32).access(), None);
    /// ```
    pub fn access(&self) -> Option<Access> {
        match self.kind {
            ParamKind::Buffer { access, .. } => Some(access),
            ParamKind::Scalar(_) | ParamKind::TensorMap | ParamKind::Values(_) => None,
        }
    }
}

/// Grid, block and dynamic shared memory of a launch.
///
/// ```
/// use tessel_kernels::kernel::Launch;
/// let l = Launch { grid: (16, 1, 1), block: (256, 1, 1), dynamic_smem: 0 };
/// assert_eq!(l.threads(), 256);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Launch {
    /// Blocks in x, y, z.
    pub grid: (u32, u32, u32),
    /// Threads per block in x, y, z.
    pub block: (u32, u32, u32),
    /// Bytes of dynamic shared memory per block.
    pub dynamic_smem: u32,
}

impl Launch {
    /// Threads per block.
    ///
    /// ```
    /// use tessel_kernels::kernel::Launch;
    /// let l = Launch { grid: (1, 1, 1), block: (32, 4, 1), dynamic_smem: 0 };
    /// assert_eq!(l.threads(), 128);
    /// ```
    pub fn threads(&self) -> u32 {
        self.block.0 * self.block.1 * self.block.2
    }
}
