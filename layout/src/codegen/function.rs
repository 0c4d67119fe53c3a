//! Whole C/CUDA functions: signature, prologue, the simplified offset expression, the swizzle
//! steps, and the `TESSEL_FN` qualifier macro.
//!
//! ```
//! use tessel_layout::codegen::{EmitOptions, index_function};
//! let l: tessel_layout::Layout = "(4,8):(8,1)".parse().unwrap();
//! let src = index_function("f", &l, &EmitOptions::default()).unwrap();
//! assert!(src.contains("TESSEL_FN long long f(long long i) {"));
//! assert!(src.contains("TESSEL_FN long long f_crd(long long c0, long long c1) {"));
//! ```

use std::fmt::Write as _;

use super::emit::emit;
use super::ir::{IndexExpr, Ty};
use super::ir::{Width, Widths};
use super::lower::{lower_coords, lower_index, sum_type, swizzle_term};
use super::simplify::{Bounds, simplify};
use super::symbolic::{SymComposedLayout, SymLayout};
use crate::error::{Error, Result, checked_add};
use crate::int_tuple::IntTuple;
use crate::swizzle::Swizzle;

/// The qualifier macro every emitted function starts with, defined once per translation unit:
/// `__device__ __forceinline__` under nvcc/NVRTC, `static inline` for host C/C++.
///
/// ```
/// assert!(tessel_layout::codegen::PRELUDE.contains("#ifndef TESSEL_FN"));
/// ```
pub const PRELUDE: &str = "#ifndef TESSEL_FN
#if defined(__CUDACC__) || defined(__CUDACC_RTC__)
#define TESSEL_FN __device__ __forceinline__
#else
#define TESSEL_FN static inline
#endif
#endif
";

/// How wide the arithmetic inside an emitted function is. The signature is `long long`
/// either way.
///
/// ```
/// use tessel_layout::codegen::IndexWidth;
/// assert_eq!(IndexWidth::default(), IndexWidth::Auto);
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum IndexWidth {
    /// Index arithmetic (coordinates, div/mod, swizzle masks) in `unsigned int` when
    /// `size <= 2^31` and every swizzle mask lies below bit 31; offsets in `int` when in
    /// addition the layout has no symbols and every offset (before and after the base offset
    /// and the swizzles) fits in `int`; `long long` otherwise (e.g. 32-bit coordinates scaled
    /// by a 64-bit leading dimension `ld`). Either way the offset sum is unsigned and converted
    /// to signed once (see [`index_function`]).
    #[default]
    Auto,
    /// Always 64-bit (`long long`/`unsigned long long`).
    Bits64,
}

/// Options of [`index_function`].
///
/// ```
/// let opts = tessel_layout::codegen::EmitOptions::default();
/// assert!(opts.coordinate_function && opts.prelude && opts.comment);
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct EmitOptions {
    /// Width of the internal arithmetic.
    pub width: IndexWidth,
    /// Also emit `NAME_crd(c0, c1, ...)`.
    pub coordinate_function: bool,
    /// Start with [`PRELUDE`] (guarded, so repeating it is harmless).
    pub prelude: bool,
    /// Put a comment with the layout above the functions.
    pub comment: bool,
}

impl Default for EmitOptions {
    fn default() -> Self {
        EmitOptions {
            width: IndexWidth::Auto,
            coordinate_function: true,
            prelude: true,
            comment: true,
        }
    }
}

/// Keywords of C99/C11 and C++20: not usable as names in code that compiles as both.
const C_KEYWORDS: &[&str] = &[
    "_Alignas",
    "_Alignof",
    "_Atomic",
    "_Bool",
    "_Complex",
    "_Generic",
    "_Imaginary",
    "_Noreturn",
    "_Static_assert",
    "_Thread_local",
    "alignas",
    "alignof",
    "asm",
    "auto",
    "bool",
    "break",
    "case",
    "catch",
    "char",
    "char16_t",
    "char32_t",
    "char8_t",
    "class",
    "co_await",
    "co_return",
    "co_yield",
    "concept",
    "const",
    "const_cast",
    "consteval",
    "constexpr",
    "constinit",
    "continue",
    "decltype",
    "default",
    "delete",
    "do",
    "double",
    "dynamic_cast",
    "else",
    "enum",
    "explicit",
    "export",
    "extern",
    "false",
    "float",
    "for",
    "friend",
    "goto",
    "if",
    "inline",
    "int",
    "long",
    "mutable",
    "namespace",
    "new",
    "noexcept",
    "nullptr",
    "operator",
    "private",
    "protected",
    "public",
    "register",
    "reinterpret_cast",
    "requires",
    "restrict",
    "return",
    "short",
    "signed",
    "sizeof",
    "static",
    "static_assert",
    "static_cast",
    "struct",
    "switch",
    "template",
    "this",
    "thread_local",
    "throw",
    "true",
    "try",
    "typedef",
    "typeid",
    "typename",
    "union",
    "unsigned",
    "using",
    "virtual",
    "void",
    "volatile",
    "wchar_t",
    "while",
];

fn is_c_identifier(s: &str) -> bool {
    let mut chars = s.chars();
    matches!(chars.next(), Some(c) if c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
        && !C_KEYWORDS.contains(&s)
        && !s.starts_with("__")
        && !(s.starts_with('_') && s[1..].starts_with(|c: char| c.is_ascii_uppercase()))
}

/// Names the emitted code uses itself: `i`, `u`, `o`, `cK`, `uK`, and anything `TESSEL`.
fn is_reserved(s: &str) -> bool {
    let numbered = |p: char| {
        s.strip_prefix(p)
            .is_some_and(|rest| !rest.is_empty() && rest.chars().all(|c| c.is_ascii_digit()))
    };
    matches!(s, "i" | "u" | "o") || numbered('c') || numbered('u') || s.starts_with("TESSEL")
}

fn check_names(name: &str, symbols: &[String]) -> Result<()> {
    if !is_c_identifier(name) || name.starts_with("TESSEL") {
        return Err(Error::invalid(format!(
            "the function name '{name}' is not a C identifier (or is a C/C++ keyword, a reserved \
             __x/_X name, or TESSEL*)"
        )));
    }
    for s in symbols {
        if !is_c_identifier(s) || is_reserved(s) {
            return Err(Error::invalid(format!(
                "the symbol '{s}' cannot be a parameter of {name}: it must be a C identifier \
                 other than a C/C++ keyword, a reserved __x/_X name, i, u, o, cN, uN and TESSEL*"
            )));
        }
    }
    Ok(())
}

/// The smallest power of two above `v` (saturating at `2^63`), for swizzle range bounds.
fn bit_ceiling(v: u64) -> u64 {
    v.checked_add(1)
        .and_then(u64::checked_next_power_of_two)
        .unwrap_or(1 << 63)
}

/// The range `(lo, hi)` of every value a function computes: the layout's offsets, the offsets
/// plus the base offset, and the results of each swizzle. `None` when strides are symbolic.
fn value_range(c: &SymComposedLayout) -> Result<Option<(i64, i64)>> {
    if !c.layout().symbols().is_empty() {
        return Ok(None);
    }
    let bound = c.bind(&|_| None)?;
    let (lo, hi) = bound.layout().offset_range()?;
    let what = format!("the offsets of {c}");
    let (mut lo_all, mut hi_all) = (lo, hi);
    let (mut lo_now, mut hi_now) = (
        checked_add(lo, c.base_offset(), &what)?,
        checked_add(hi, c.base_offset(), &what)?,
    );
    for sw in c.swizzles().iter().rev() {
        lo_all = lo_all.min(lo_now);
        hi_all = hi_all.max(hi_now);
        // x ^ t with 0 <= t <= zzz keeps the sign of x and stays below the next power of two.
        let reach = bit_ceiling(
            lo_now
                .unsigned_abs()
                .max(hi_now.unsigned_abs())
                .max(sw.zzz_mask() as u64),
        );
        let reach = i64::try_from(reach).unwrap_or(i64::MAX);
        if lo_now < 0 {
            lo_now = -reach;
        }
        hi_now = reach - 1;
    }
    Ok(Some((lo_all.min(lo_now), hi_all.max(hi_now))))
}

/// The arithmetic widths for `c` under `choice`: offsets are 32-bit when the layout has no
/// symbols and every value fits in `int`; index arithmetic is 32-bit when `size <= 2^31` and
/// every swizzle mask lies below bit 31 (the swizzle reads the offset's low bits only).
fn choose_widths(c: &SymComposedLayout, choice: IndexWidth) -> Result<Widths> {
    let range = value_range(c)?;
    let fits_int = |v: i64| i32::try_from(v).is_ok();
    let small_index = choice == IndexWidth::Auto
        && c.layout().size() - 1 <= i64::from(i32::MAX)
        && c.swizzles()
            .iter()
            .all(|sw| fits_int(sw.yyy_mask() | sw.zzz_mask()));
    let small_offset = small_index && range.is_some_and(|(lo, hi)| fits_int(lo) && fits_int(hi));
    let width = |small| if small { Width::Bits32 } else { Width::Bits64 };
    Ok(Widths {
        index: width(small_index),
        offset: width(small_offset),
    })
}

/// One emitted function: `TESSEL_FN long long NAME(params) { body }`, as IR.
///
/// ```
/// use tessel_layout::codegen::{EmitOptions, index_program};
/// let l: tessel_layout::Layout = "(4,8):(8,1)".parse().unwrap();
/// let p = index_program("f", &l, &EmitOptions::default()).unwrap();
/// assert_eq!(p.index.eval(&[5], &[]), Some(9)); // index 5 is coordinate (1,1)
/// assert_eq!(p.coords.unwrap().eval(&[1, 1], &[]), Some(9));
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct IndexFunction {
    /// The C name.
    pub name: String,
    /// `(parameter, unsigned local)` of each index parameter: `(i, u)` or `(cK, uK)`.
    pub index_params: Vec<(String, String)>,
    /// The run-time symbols: trailing `long long` parameters.
    pub symbols: Vec<String>,
    /// The signed offset before the swizzles, over the unsigned locals and the symbols.
    pub offset: IndexExpr,
    /// Each swizzle with its XOR term over the signed local `o`, innermost first.
    pub swizzle_steps: Vec<(Swizzle, IndexExpr)>,
    /// The arithmetic widths.
    pub widths: Widths,
}

impl IndexFunction {
    /// The value the emitted C returns for the index arguments `args` and symbol values
    /// `symbols` (in parameter order), evaluated with C semantics
    /// ([`IndexExpr::eval_c`]); `None` where the C would be undefined.
    ///
    /// ```
    /// use tessel_layout::codegen::{EmitOptions, SymLayout, index_program};
    /// let l: SymLayout = "(16,8):(ld,1)".parse().unwrap();
    /// let p = index_program("f", &l, &EmitOptions::default()).unwrap();
    /// assert_eq!(p.index.eval(&[17], &[72]), Some(72 + 1));
    /// ```
    pub fn eval(&self, args: &[i64], symbols: &[i64]) -> Option<i64> {
        if args.len() != self.index_params.len() || symbols.len() != self.symbols.len() {
            return None;
        }
        let modulus = 1i128 << self.widths.bits(Ty::Unsigned);
        let locals: Vec<(&str, i128)> = self
            .index_params
            .iter()
            .zip(args)
            .map(|((_, local), &a)| (local.as_str(), i128::from(a).rem_euclid(modulus)))
            .chain(
                self.symbols
                    .iter()
                    .zip(symbols)
                    .map(|(s, &v)| (s.as_str(), i128::from(v))),
            )
            .collect();
        let locals = &locals;
        let lookup = |o: Option<i128>| {
            move |name: &str| match name {
                "o" => o,
                _ => locals.iter().find(|(n, _)| *n == name).map(|(_, v)| *v),
            }
        };
        let w = self.widths;
        let mut o = self.offset.eval_c(w, &lookup(None))?;
        for (_, term) in &self.swizzle_steps {
            o ^= term.eval_c(w, &lookup(Some(o)))?;
        }
        i64::try_from(o).ok()
    }

    fn write(&self, out: &mut String) {
        let w = self.widths;
        let (s_ty, u_ty) = (w.c_type(Ty::Signed), w.c_type(Ty::Unsigned));
        let params: Vec<String> = self
            .index_params
            .iter()
            .map(|(p, _)| p)
            .chain(&self.symbols)
            .map(|p| format!("long long {p}"))
            .collect();
        let params = if params.is_empty() {
            "void".to_string()
        } else {
            params.join(", ")
        };
        let _ = writeln!(out, "TESSEL_FN long long {}({params}) {{", self.name);
        let used = self.offset.vars();
        for (param, local) in &self.index_params {
            if used.contains(local) {
                let _ = writeln!(out, "  const {u_ty} {local} = ({u_ty}){param};");
            } else {
                let _ = writeln!(out, "  (void){param};");
            }
        }
        for s in self.symbols.iter().filter(|s| !used.contains(s)) {
            let _ = writeln!(out, "  (void){s};");
        }
        let value = emit(&self.offset, w);
        if self.swizzle_steps.is_empty() {
            let _ = writeln!(out, "  return {value};");
        } else {
            let _ = writeln!(out, "  {s_ty} o = {value};");
            for (sw, term) in &self.swizzle_steps {
                let _ = writeln!(out, "  o ^= {}; /* {sw} */", emit(term, w));
            }
            let _ = writeln!(out, "  return o;");
        }
        let _ = writeln!(out, "}}");
    }
}

/// The index functions of one layout, as IR: what [`index_function`] prints.
///
/// ```
/// use tessel_layout::codegen::{EmitOptions, index_program};
/// let c: tessel_layout::codegen::SymComposedLayout = "Sw<3,3,3> o (8,64):(64,1)".parse().unwrap();
/// let p = index_program("smem", &c, &EmitOptions::default()).unwrap();
/// assert_eq!(p.index.eval(&[1], &[]), Some(72)); // docs/semantics.md
/// assert_eq!(p.coords.as_ref().unwrap().eval(&[7, 63], &[]), Some(455));
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct IndexProgram {
    /// The layout, as notation (for the comment).
    pub notation: String,
    /// The domain size.
    pub size: i64,
    /// `NAME(i, SYMS)`.
    pub index: IndexFunction,
    /// `NAME_crd(c0, ..., SYMS)`, unless disabled.
    pub coords: Option<IndexFunction>,
}

impl IndexProgram {
    /// The C source: optional [`PRELUDE`], optional comment, the functions.
    ///
    /// ```
    /// use tessel_layout::codegen::{EmitOptions, index_program};
    /// let l: tessel_layout::Layout = "8:1".parse().unwrap();
    /// let opts = EmitOptions { prelude: false, comment: false, coordinate_function: false, ..Default::default() };
    /// let p = index_program("f", &l, &opts).unwrap();
    /// assert_eq!(p.to_c(&opts), "TESSEL_FN long long f(long long i) {\n  const unsigned int u = (unsigned int)i;\n  return (int)u;\n}\n");
    /// ```
    pub fn to_c(&self, opts: &EmitOptions) -> String {
        let mut out = String::new();
        if opts.prelude {
            out.push_str(PRELUDE);
            out.push('\n');
        }
        if opts.comment {
            let w = self.index.widths;
            let (ib, ob) = (w.bits(Ty::Unsigned), w.bits(Ty::Signed));
            let arithmetic = if ib == ob {
                format!("{ib}-bit arithmetic")
            } else {
                format!("{ib}-bit index, {ob}-bit offset arithmetic")
            };
            let _ = writeln!(
                out,
                "/* {}: {} ({} indices, {arithmetic}) */",
                self.index.name, self.notation, self.size
            );
        }
        self.index.write(&mut out);
        if let Some(coords) = &self.coords {
            coords.write(&mut out);
        }
        out
    }
}

/// The extent of each top-level mode of `layout`.
fn mode_sizes(layout: &SymLayout) -> Vec<i64> {
    layout
        .shape()
        .modes()
        .iter()
        .map(|m| m.leaves().iter().product())
        .collect()
}

/// Lowers `layout` to the IR of its index functions (see [`index_function`] for what they
/// compute and when this fails).
///
/// ```
/// use tessel_layout::codegen::{EmitOptions, Width, Widths, index_program};
/// let l: tessel_layout::Layout = "(4,4):(4294967296,3)".parse().unwrap();
/// let widths = index_program("f", &l, &EmitOptions::default()).unwrap().index.widths;
/// assert_eq!(widths, Widths { index: Width::Bits32, offset: Width::Bits64 });
/// ```
pub fn index_program(
    name: &str,
    layout: impl Into<SymComposedLayout>,
    opts: &EmitOptions,
) -> Result<IndexProgram> {
    let layout: SymComposedLayout = layout.into();
    let symbols = layout.layout().symbols();
    check_names(name, &symbols)?;
    let widths = choose_widths(&layout, opts.width)?;
    let inner = layout.layout();
    let base = IndexExpr::Const(layout.base_offset(), sum_type(widths));
    // The offset sum is unsigned; its one conversion to signed is exact (see `index_function`).
    let finish = |sum: IndexExpr, bounds: &Bounds| {
        simplify(IndexExpr::Cast(Ty::Signed, Box::new(sum)), bounds)
    };
    let o = IndexExpr::var("o", Ty::Signed);
    let swizzle_steps: Vec<(Swizzle, IndexExpr)> = layout
        .swizzles()
        .iter()
        .rev()
        .map(|sw| (*sw, simplify(swizzle_term(sw, o.clone()), &Bounds::new())))
        .collect();
    let function = |name: String, index_params: Vec<(String, String)>, offset| IndexFunction {
        name,
        index_params,
        symbols: symbols.clone(),
        offset,
        swizzle_steps: swizzle_steps.clone(),
        widths,
    };

    let u = IndexExpr::var("u", Ty::Unsigned);
    let bounds = Bounds::from([("u".to_string(), (inner.size() - 1) as u128)]);
    let offset = IndexExpr::Add(vec![lower_index(inner, u, widths), base.clone()]);
    let index = function(
        name.to_string(),
        vec![("i".to_string(), "u".to_string())],
        finish(offset, &bounds),
    );

    let coords = opts.coordinate_function.then(|| {
        let sizes = mode_sizes(inner);
        let locals: Vec<String> = (0..sizes.len()).map(|k| format!("u{k}")).collect();
        let bounds: Bounds = locals
            .iter()
            .zip(&sizes)
            .map(|(l, s)| (l.clone(), (s - 1) as u128))
            .collect();
        let vars: Vec<IndexExpr> = locals
            .iter()
            .map(|l| IndexExpr::var(l, Ty::Unsigned))
            .collect();
        let offset = IndexExpr::Add(vec![lower_coords(inner, &vars, widths), base]);
        function(
            format!("{name}_crd"),
            (0..sizes.len())
                .map(|k| format!("c{k}"))
                .zip(locals)
                .collect(),
            finish(offset, &bounds),
        )
    });
    Ok(IndexProgram {
        notation: layout.to_string(),
        size: inner.size(),
        index,
        coords,
    })
}

/// C/CUDA source of the index functions of `layout`:
///
/// - `TESSEL_FN long long NAME(long long i, SYMS)`: the offset of the 1-D domain index `i`
///   (colexicographic: the first mode varies fastest), for `0 <= i < size`;
/// - `TESSEL_FN long long NAME_crd(long long c0, ..., long long cR-1, SYMS)` (unless
///   [`EmitOptions::coordinate_function`] is off): the offset of the coordinate with one
///   component per top-level mode, `0 <= cK < size(mode K)`; a leaf mode uses its component
///   directly (a multiply or shift, no division), a nested mode splits it colexicographically;
///   a rank-0 layout takes `(void)`;
///
/// where `SYMS` is `long long SYM` for every run-time symbol of the stride, in order of first
/// appearance. Outside those ranges the result is unspecified (yet computed without undefined
/// behaviour, see below). `TESSEL_FN` comes from
/// [`PRELUDE`] (`__device__ __forceinline__` under `__CUDACC__`/`__CUDACC_RTC__`, otherwise
/// `static inline`), so the text compiles as C99 and as CUDA C++, and several emitted functions
/// can share a file. The arithmetic inside is 32- or 64-bit per [`IndexWidth`]; div/mod by powers
/// of two are shifts and masks on unsigned values, swizzles are `o ^= ((o & YYY) >> S)` steps
/// (innermost first), and the result equals [`ComposedLayout::offset`](crate::ComposedLayout::offset)
/// bit for bit.
///
/// **No undefined behaviour.** The offset (coordinates times strides, plus the base offset) is
/// summed in unsigned arithmetic, modulo `2^32` or `2^64`, with negative strides and symbols as
/// their two's-complement residues, and converted to the signed type once; the swizzles then
/// only mask, shift (unsigned) and XOR. So no emitted operation can overflow a signed type, for
/// any argument and any symbol value. (The final conversion of a value above the signed maximum
/// is implementation-defined in C; gcc, clang, nvcc/NVRTC and MSVC define it as two's-complement
/// wrap-around, and C++20 requires that.) The result is exact whenever the true offset fits the
/// signed type: for a layout without symbols, at every index in range (the widths are chosen
/// from its whole value range); with symbols, at every index whose true offset for the given
/// symbol values fits in `long long`, however large the products and partial sums on the way.
///
/// Fails when `name` or a symbol is not a usable C identifier, or when the base offset pushes
/// an offset out of `i64`.
///
/// ```
/// use tessel_layout::codegen::{EmitOptions, index_function};
/// let c: tessel_layout::ComposedLayout = tessel_layout::ComposedLayout::new(
///     vec![tessel_layout::Swizzle::new(3, 3, 3).unwrap()], 0, "(8,64):(64,1)".parse().unwrap());
/// let opts = EmitOptions { prelude: false, ..EmitOptions::default() };
/// let src = index_function("smem_off", &c, &opts).unwrap();
/// assert_eq!(src, "\
/// /* smem_off: Sw<3,3,3> o (8,64):(64,1) (512 indices, 32-bit arithmetic) */
/// TESSEL_FN long long smem_off(long long i) {
///   const unsigned int u = (unsigned int)i;
///   int o = (int)(((u & 7u) << 6) + (u >> 3));
///   o ^= (int)(((unsigned int)o & 448u) >> 3); /* Sw<3,3,3> */
///   return o;
/// }
/// TESSEL_FN long long smem_off_crd(long long c0, long long c1) {
///   const unsigned int u0 = (unsigned int)c0;
///   const unsigned int u1 = (unsigned int)c1;
///   int o = (int)((u0 << 6) + u1);
///   o ^= (int)(((unsigned int)o & 448u) >> 3); /* Sw<3,3,3> */
///   return o;
/// }
/// ");
/// // With a run-time leading dimension:
/// let sym: tessel_layout::codegen::SymLayout = "(128,64):(ld,1)".parse().unwrap();
/// let src = index_function("tile_off", &sym, &opts).unwrap();
/// assert!(src.contains("TESSEL_FN long long tile_off(long long i, long long ld) {"));
/// assert!(src.contains("TESSEL_FN long long tile_off_crd(long long c0, long long c1, long long ld) {"));
/// // Names must work in C and C++ alike:
/// assert!(index_function("class", &sym, &opts).is_err());
/// let reserved: tessel_layout::codegen::SymLayout = "(4,4):(__ld,1)".parse().unwrap();
/// assert!(index_function("f", &reserved, &opts).is_err());
/// ```
pub fn index_function(
    name: &str,
    layout: impl Into<SymComposedLayout>,
    opts: &EmitOptions,
) -> Result<String> {
    Ok(index_program(name, layout, opts)?.to_c(opts))
}

/// The number of parameters of `NAME_crd` before the symbols: the rank of the layout.
///
/// ```
/// let l: tessel_layout::Layout = "(8,(2,4)):(1,(64,8))".parse().unwrap();
/// assert_eq!(tessel_layout::codegen::coordinate_rank(&(&l).into()), 2);
/// ```
pub fn coordinate_rank(layout: &SymComposedLayout) -> usize {
    match layout.layout().shape() {
        IntTuple::Int(_) => 1,
        IntTuple::Tuple(items) => items.len(),
    }
}
