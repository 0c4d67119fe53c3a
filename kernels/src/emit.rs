//! Layout -> CUDA index functions, the one place kernel index math comes from.
//!
//! Interim emitter: the shared emitter `tessel_layout::codegen` (branch `codegen`) had not landed
//! when this was written. It emits the same shape of code — `TESSEL_FN long long NAME(long long i)`
//! for a domain index and `NAME_crd(c0, c1, ...)` for a coordinate — from the layout's own
//! shape and stride, so that every offset a kernel computes is the value of a tessel layout.
//! Switching to the shared emitter changes only this module.

use tessel_layout::{ComposedLayout, Error, Layout, Result};

/// The macro that qualifies emitted functions (`__device__ __forceinline__` under CUDA, `static
/// inline` for host C). Every generated source starts with this prelude.
///
/// ```
/// assert!(tessel_kernels::emit::PRELUDE.contains("#define TESSEL_FN"));
/// ```
pub const PRELUDE: &str = "#ifndef TESSEL_FN\n#ifdef __CUDACC__\n#define TESSEL_FN __device__ \
__forceinline__\n#else\n#define TESSEL_FN static inline\n#endif\n#endif\n";

/// Statements that add the offset of index variable `var` through the flat modes `modes`
/// (colexicographic: the first mode varies fastest) to `acc`.
fn mode_statements(var: &str, acc: &str, modes: &[(i64, i64)]) -> String {
    let mut out = String::new();
    let live: Vec<&(i64, i64)> = modes.iter().filter(|(s, _)| *s != 1).collect();
    for (k, (shape, stride)) in live.iter().enumerate() {
        let last = k + 1 == live.len();
        let term = if last {
            var.to_string()
        } else {
            format!("({var} % {shape}LL)")
        };
        if *stride != 0 {
            out.push_str(&format!("  {acc} += {term} * {stride}LL;\n"));
        }
        if !last {
            out.push_str(&format!("  {var} /= {shape}LL;\n"));
        }
    }
    out
}

fn check_name(name: &str) -> Result<()> {
    let ok = name
        .chars()
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
    if ok {
        Ok(())
    } else {
        Err(Error::invalid(format!(
            "function name {name:?} is not a C identifier"
        )))
    }
}

/// `TESSEL_FN long long NAME(long long i)`: the offset of domain index `i` of `layout`.
///
/// ```
/// use tessel_kernels::emit::index_fn;
/// let l: tessel_layout::Layout = "(4,8):(8,1)".parse().unwrap();
/// let src = index_fn("row_major", &l).unwrap();
/// assert!(src.contains("TESSEL_FN long long row_major(long long i)"));
/// assert!(src.contains("(i % 4LL) * 8LL"));
/// ```
pub fn index_fn(name: &str, layout: &Layout) -> Result<String> {
    check_name(name)?;
    Ok(format!(
        "TESSEL_FN long long {name}(long long i) {{\n  long long o = 0;\n{}  return o;\n}}\n",
        mode_statements("i", "o", &layout.flat_modes())
    ))
}

/// `TESSEL_FN long long NAME_crd(long long c0, ...)`: the offset of a coordinate with one
/// (possibly hierarchical, then colexicographically linearized) entry per top-level mode.
///
/// ```
/// use tessel_kernels::emit::coord_fn;
/// let l: tessel_layout::Layout = "(64,64):(1,64)".parse().unwrap();
/// let src = coord_fn("tile", &l).unwrap();
/// assert!(src.contains("long long tile_crd(long long c0, long long c1)"));
/// ```
pub fn coord_fn(name: &str, layout: &Layout) -> Result<String> {
    check_name(name)?;
    let modes = layout.modes();
    let params: Vec<String> = (0..modes.len())
        .map(|k| format!("long long c{k}"))
        .collect();
    let mut body = String::from("  long long o = 0;\n");
    for (k, mode) in modes.iter().enumerate() {
        body.push_str(&mode_statements(&format!("c{k}"), "o", &mode.flat_modes()));
    }
    Ok(format!(
        "TESSEL_FN long long {name}_crd({}) {{\n{body}  return o;\n}}\n",
        params.join(", ")
    ))
}

/// Index and coordinate functions of a swizzled layout `Sw o ... o off o L`: the inner layout's
/// functions as `NAME_inner` / `NAME_inner_crd`, then `NAME` / `NAME_crd` apply offset and swizzles.
///
/// ```
/// use tessel_kernels::emit::composed_fns;
/// use tessel_layout::{ComposedLayout, Swizzle};
/// let c = ComposedLayout::new(vec![Swizzle::new(3, 2, 6).unwrap()], 0,
///                             "(64,64):(1,64)".parse().unwrap());
/// let src = composed_fns("smem", &c).unwrap();
/// assert!(src.contains("smem_crd(long long c0, long long c1)"));
/// assert!(src.contains(">> 6"));
/// ```
pub fn composed_fns(name: &str, layout: &ComposedLayout) -> Result<String> {
    check_name(name)?;
    let inner = format!("{name}_inner");
    let mut out = index_fn(&inner, layout.layout())?;
    out.push_str(&coord_fn(&inner, layout.layout())?);
    let mut apply = String::new();
    for sw in layout.swizzles().iter().rev() {
        let yyy = sw.yyy_mask();
        let s = sw.shift();
        let shifted = if s >= 0 {
            format!("((x & {yyy}LL) >> {s})")
        } else {
            format!("((x & {yyy}LL) << {})", -s)
        };
        apply.push_str(&format!("  x ^= {shifted};\n"));
    }
    let off = layout.base_offset();
    out.push_str(&format!(
        "TESSEL_FN long long {name}_outer(long long x) {{\n  x += {off}LL;\n{apply}  return x;\n}}\n"
    ));
    out.push_str(&format!(
        "TESSEL_FN long long {name}(long long i) {{ return {name}_outer({inner}(i)); }}\n"
    ));
    let rank = layout.layout().rank();
    let params: Vec<String> = (0..rank).map(|k| format!("long long c{k}")).collect();
    let args: Vec<String> = (0..rank).map(|k| format!("c{k}")).collect();
    out.push_str(&format!(
        "TESSEL_FN long long {name}_crd({}) {{ return {name}_outer({inner}_crd({})); }}\n",
        params.join(", "),
        args.join(", ")
    ));
    Ok(out)
}

/// Coordinate and index functions of either a plain or a swizzled layout under one name.
///
/// ```
/// use tessel_kernels::emit::{any_fns, AnyLayout};
/// let l = AnyLayout::Plain("(32,32):(33,1)".parse().unwrap());
/// assert!(any_fns("pad", &l).unwrap().contains("pad_crd"));
/// ```
pub fn any_fns(name: &str, layout: &AnyLayout) -> Result<String> {
    match layout {
        AnyLayout::Plain(l) => Ok(format!("{}{}", index_fn(name, l)?, coord_fn(name, l)?)),
        AnyLayout::Swizzled(c) => composed_fns(name, c),
    }
}

/// A shared-memory layout: plain, or swizzled.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum AnyLayout {
    /// `Shape:Stride`.
    Plain(Layout),
    /// `Sw<B,M,S> o off o Shape:Stride`.
    Swizzled(ComposedLayout),
}

impl AnyLayout {
    /// The offset of coordinate `(r, c)` of a rank-2 layout (host-side twin of `NAME_crd`).
    ///
    /// ```
    /// use tessel_kernels::emit::AnyLayout;
    /// let l = AnyLayout::Plain("(32,32):(33,1)".parse().unwrap());
    /// assert_eq!(l.offset2(1, 2).unwrap(), 35);
    /// ```
    pub fn offset2(&self, r: i64, c: i64) -> Result<i64> {
        let inner = self.inner();
        let rows = inner.mode(0)?.size();
        let index =
            tessel_layout::checked_add(r, tessel_layout::checked_mul(c, rows, "index")?, "index")?;
        match self {
            AnyLayout::Plain(l) => l.offset(index),
            AnyLayout::Swizzled(c) => c.offset(index),
        }
    }

    /// The plain layout under any swizzle.
    pub fn inner(&self) -> &Layout {
        match self {
            AnyLayout::Plain(l) => l,
            AnyLayout::Swizzled(c) => c.layout(),
        }
    }

    /// Number of elements the layout's storage spans (max offset + 1, swizzles included).
    pub fn storage(&self) -> Result<i64> {
        let offsets = match self {
            AnyLayout::Plain(l) => l.offsets(),
            AnyLayout::Swizzled(c) => c.offsets(),
        };
        offsets
            .iter()
            .max()
            .map(|m| m + 1)
            .ok_or_else(|| Error::invalid("empty layout has no storage"))
    }
}

impl std::fmt::Display for AnyLayout {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            AnyLayout::Plain(l) => write!(f, "{l}"),
            AnyLayout::Swizzled(c) => write!(f, "{c}"),
        }
    }
}
