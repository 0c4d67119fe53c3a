//! Whole C/CUDA functions: signature, prologue, the simplified offset expression, the swizzle
//! steps, and the `TESSEL_FN` qualifier macro.

use std::fmt::Write as _;

use super::emit::{Width, emit};
use super::ir::{IndexExpr, Ty};
use super::lower::{lower_coords, lower_index, swizzle_term};
use super::simplify::{Bounds, simplify};
use super::symbolic::{SymComposedLayout, SymLayout};
use crate::error::{Error, Result, checked_add};
use crate::int_tuple::IntTuple;

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
    /// 32-bit (`int`/`unsigned int`) when the layout has no symbols, `size <= 2^31`, every
    /// offset (before and after the base offset and the swizzles) fits in `int`, and every
    /// swizzle mask lies below bit 31; 64-bit otherwise.
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

const C_KEYWORDS: &[&str] = &[
    "auto",
    "bool",
    "break",
    "case",
    "char",
    "class",
    "const",
    "continue",
    "default",
    "delete",
    "do",
    "double",
    "else",
    "enum",
    "extern",
    "false",
    "float",
    "for",
    "goto",
    "if",
    "inline",
    "int",
    "long",
    "namespace",
    "new",
    "operator",
    "register",
    "restrict",
    "return",
    "short",
    "signed",
    "sizeof",
    "static",
    "struct",
    "switch",
    "template",
    "this",
    "true",
    "typedef",
    "typename",
    "union",
    "unsigned",
    "using",
    "void",
    "volatile",
    "while",
];

fn is_c_identifier(s: &str) -> bool {
    let mut chars = s.chars();
    matches!(chars.next(), Some(c) if c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
        && !C_KEYWORDS.contains(&s)
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
            "the function name '{name}' is not a C identifier (or is a keyword or TESSEL_*)"
        )));
    }
    for s in symbols {
        if !is_c_identifier(s) || is_reserved(s) {
            return Err(Error::invalid(format!(
                "the symbol '{s}' cannot be a parameter of {name}: it must be a C identifier \
                 other than a keyword, i, u, o, cN, uN and TESSEL*"
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
    let Ok(bound) = c.bind(&|_| None) else {
        return Ok(None);
    };
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

/// The arithmetic width for `c` under `choice`.
fn choose_width(c: &SymComposedLayout, choice: IndexWidth) -> Result<Width> {
    let range = value_range(c)?;
    let fits_int = |v: i64| i32::try_from(v).is_ok();
    let narrow = choice == IndexWidth::Auto
        && c.layout().size() - 1 <= i64::from(i32::MAX)
        && range.is_some_and(|(lo, hi)| fits_int(lo) && fits_int(hi))
        && c.swizzles()
            .iter()
            .all(|sw| fits_int(sw.yyy_mask() | sw.zzz_mask()));
    Ok(if narrow { Width::Bits32 } else { Width::Bits64 })
}

/// One function: `TESSEL_FN long long NAME(params) { body }`.
struct Function<'a> {
    name: String,
    /// `(parameter name, local unsigned copy)` of the index-like parameters.
    index_params: Vec<(String, String)>,
    symbols: &'a [String],
    /// The offset before the swizzles (signed).
    offset: IndexExpr,
    layout: &'a SymComposedLayout,
    width: Width,
}

impl Function<'_> {
    fn write(&self, out: &mut String) {
        let w = self.width;
        let (s_ty, u_ty) = (w.c_type(Ty::Signed), w.c_type(Ty::Unsigned));
        let params: Vec<String> = self
            .index_params
            .iter()
            .map(|(p, _)| p)
            .chain(self.symbols)
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
        if self.layout.swizzles().is_empty() {
            let _ = writeln!(out, "  return {value};");
        } else {
            let _ = writeln!(out, "  {s_ty} o = {value};");
            let o = IndexExpr::var("o", Ty::Signed);
            for sw in self.layout.swizzles().iter().rev() {
                let term = simplify(swizzle_term(sw, o.clone()), &Bounds::new());
                let _ = writeln!(out, "  o ^= {}; /* {sw} */", emit(&term, w));
            }
            let _ = writeln!(out, "  return o;");
        }
        let _ = writeln!(out, "}}");
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
/// appearance. Outside those ranges the result is unspecified. `TESSEL_FN` comes from
/// [`PRELUDE`] (`__device__ __forceinline__` under `__CUDACC__`/`__CUDACC_RTC__`, otherwise
/// `static inline`), so the text compiles as C99 and as CUDA C++, and several emitted functions
/// can share a file. The arithmetic inside is 32- or 64-bit per [`IndexWidth`]; div/mod by powers
/// of two are shifts and masks on unsigned values, swizzles are `o ^= ((o & YYY) >> S)` steps
/// (innermost first), and the result equals [`ComposedLayout::offset`](crate::ComposedLayout::offset)
/// bit for bit.
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
/// ```
pub fn index_function(
    name: &str,
    layout: impl Into<SymComposedLayout>,
    opts: &EmitOptions,
) -> Result<String> {
    let layout: SymComposedLayout = layout.into();
    let symbols = layout.layout().symbols();
    check_names(name, &symbols)?;
    let width = choose_width(&layout, opts.width)?;
    let inner = layout.layout();
    let base = IndexExpr::Const(layout.base_offset(), Ty::Signed);

    let mut out = String::new();
    if opts.prelude {
        out.push_str(PRELUDE);
        out.push('\n');
    }
    if opts.comment {
        let bits = match width {
            Width::Bits32 => 32,
            Width::Bits64 => 64,
        };
        let _ = writeln!(
            out,
            "/* {name}: {layout} ({} indices, {bits}-bit arithmetic) */",
            inner.size()
        );
    }

    let u = IndexExpr::var("u", Ty::Unsigned);
    let bounds = Bounds::from([("u".to_string(), (inner.size() - 1) as u128)]);
    let offset = IndexExpr::Add(vec![lower_index(inner, u), base.clone()]);
    Function {
        name: name.to_string(),
        index_params: vec![("i".to_string(), "u".to_string())],
        symbols: &symbols,
        offset: simplify(offset, &bounds),
        layout: &layout,
        width,
    }
    .write(&mut out);

    if opts.coordinate_function {
        let sizes = mode_sizes(inner);
        let locals: Vec<String> = (0..sizes.len()).map(|k| format!("u{k}")).collect();
        let bounds: Bounds = locals
            .iter()
            .zip(&sizes)
            .map(|(l, s)| (l.clone(), (s - 1) as u128))
            .collect();
        let coords: Vec<IndexExpr> = locals
            .iter()
            .map(|l| IndexExpr::var(l, Ty::Unsigned))
            .collect();
        let offset = IndexExpr::Add(vec![lower_coords(inner, &coords), base]);
        Function {
            name: format!("{name}_crd"),
            index_params: (0..sizes.len())
                .map(|k| format!("c{k}"))
                .zip(locals)
                .collect(),
            symbols: &symbols,
            offset: simplify(offset, &bounds),
            layout: &layout,
            width,
        }
        .write(&mut out);
    }
    Ok(out)
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
