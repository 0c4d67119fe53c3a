//! The C++ of the tensor layer: each tensor's layout as a type of `tessel_tensor.cuh`'s
//! protocol (`rank`, `cosize`, `extent(i)`, `offset(c)`, the last being the emitted index math
//! of the layout) with a constructor in `namespace tensor`, and each tiled copy and MMA as a
//! struct whose `call` is one atom instruction.

use std::fmt::Write as _;

use super::copy::{DeviceCopy, Side};
use super::mma::DeviceMma;
use super::tensor::{Bound, DeviceTensor, Space};
use crate::emit::composed_fns;
use crate::error::GpuResult;
use crate::kernel::atom::{copy_atom_fn, mma_atom_fn};

/// `extent(i)` as one constant expression.
fn extent_fn(extents: &[i64]) -> String {
    let mut s = String::new();
    for (i, e) in extents.iter().enumerate() {
        if i + 1 == extents.len() {
            let _ = write!(s, "{e}LL");
        } else {
            let _ = write!(s, "i == {i} ? {e}LL : ");
        }
    }
    s
}

/// The layout functions of a tensor named `name`: `layout::NAME_crd`, or, for a swizzled
/// tensor whose offset splits ([`DeviceTensor::hoisted_modes`]), `layout::NAME_h_crd` over the
/// hoisted modes and `layout::NAME_mM_crd` for each other mode `M` that moves the offset.
pub(crate) fn tensor_layout_fns(name: &str, t: &DeviceTensor) -> GpuResult<String> {
    let mut out = format!("// {name}: {t}\n");
    if let Some(l) = t.runtime_layout() {
        // NAME_crd(c0, ..., symbols...): the run-time strides are the last parameters.
        out.push_str(&crate::emit::symbolic_fns(name, l)?);
        return Ok(out);
    }
    let f = t.device_offset()?;
    match (f.hoisted(), f.base()) {
        (Some(hoisted), Some(base)) => {
            let _ = writeln!(
                out,
                "// split: the modes {hoisted:?} together, plus one term per other mode"
            );
            out.push_str(&composed_fns(&format!("{name}_h"), base)?);
            for (m, term) in f.terms() {
                out.push_str(&composed_fns(&format!("{name}_m{m}"), term)?);
            }
        }
        _ => out.push_str(&composed_fns(name, t.layout())?),
    }
    Ok(out)
}

/// The members of a tensor's layout type that compute its offset: `offset(c)`, `affine` (no
/// swizzle: a sum of one term per mode, so slicing may move fixed coordinates into the engine),
/// and the split's
/// `hoisted` (mask of the hoisted modes, 0 when the offset is not split), `hoist_count` (the
/// coordinates of the hoisted modes other than mode 0), `set_hoist(c, j)` / `hoist_index(c)`
/// (the `j`-th of them, colexicographic, into `c` and back), `base(c)` (the hoisted modes' term)
/// and `terms(c)` (the others').
fn offset_members(name: &str, t: &DeviceTensor) -> GpuResult<String> {
    let fns = "__device__ __forceinline__ static";
    if t.runtime_layout().is_some() {
        // A layout object: the run-time strides are its members, `offset` reads them.
        let symbols = t.symbols();
        let mut args: Vec<String> = (0..t.rank()).map(|i| format!("c[{i}]")).collect();
        args.extend(symbols.iter().cloned());
        let members: String = symbols
            .iter()
            .map(|s| format!("  long long {s};\n"))
            .collect();
        return Ok(format!(
            "{members}  static constexpr bool affine = true;\n  static constexpr unsigned hoisted \
             = 0u;\n  static constexpr int hoist_count = 1;\n  __device__ __forceinline__ long \
             long offset(const long long* c) const {{ return layout::{name}_crd({}); }}\n",
            args.join(", ")
        ));
    }
    let f = t.device_offset()?;
    Ok(match f.hoisted() {
        None => {
            let args: Vec<String> = (0..t.rank()).map(|i| format!("c[{i}]")).collect();
            format!(
                "  static constexpr bool affine = {};\n  static constexpr unsigned hoisted = \
                 0u;\n  static constexpr int hoist_count = 1;\n  {fns} long long offset(const \
                 long long* c) {{ return layout::{name}_crd({}); }}\n",
                t.layout().swizzles().is_empty(),
                args.join(", ")
            )
        }
        Some(hoisted) => {
            let extents = t.extents();
            let mask: u32 = hoisted.iter().map(|&m| 1u32 << m).sum();
            let others: Vec<usize> = hoisted.iter().copied().filter(|&m| m != 0).collect();
            let count: i64 = others.iter().map(|&m| extents[m]).product();
            let (mut set, mut index, mut step) = (String::new(), Vec::new(), 1i64);
            for &m in &others {
                let _ = write!(set, " c[{m}] = j % {e}; j /= {e};", e = extents[m]);
                index.push(format!("c[{m}] * {step}"));
                step *= extents[m];
            }
            if index.is_empty() {
                index.push("0".into());
            }
            let args: Vec<String> = hoisted.iter().map(|i| format!("c[{i}]")).collect();
            let mut terms: Vec<String> = f
                .terms()
                .iter()
                .map(|(m, _)| format!("layout::{name}_m{m}_crd(c[{m}])"))
                .collect();
            if terms.is_empty() {
                terms.push("0".into());
            }
            format!(
                "  static constexpr bool affine = false;\n  static constexpr unsigned hoisted = \
                 {mask}u;\n  static constexpr int \
                 hoist_count = {count};\n  {fns} void set_hoist(long long* c, long long j) \
                 {{{set} (void)c; (void)j; }}\n  {fns} int hoist_index(const long long* c) {{ \
                 (void)c; return (int)({}); }}\n  {fns} long long base(const long long* c) {{ \
                 return layout::{name}_h_crd({}); }}\n  {fns} long long terms(const long long* \
                 c) {{ (void)c; return {}; }}\n  {fns} long long offset(const long long* c) {{ \
                 return base(c) + terms(c); }}\n",
                index.join(" + "),
                args.join(", "),
                terms.join(" + ")
            )
        }
    })
}

/// The layout type and constructors of a tensor named `name` (in `namespace tensor`).
pub(crate) fn tensor_decl(name: &str, t: &DeviceTensor) -> GpuResult<String> {
    let extents = t.extents();
    let rank = extents.len();
    let members = offset_members(name, t)?;
    // A tensor with run-time strides has no static cosize (0: nothing sizes storage by it).
    let cosize = if t.runtime_layout().is_some() {
        0
    } else {
        t.cosize()?
    };
    let ty = t.elem().name();
    let mut out = format!(
        "// {t}\nstruct {name}_layout {{\n  static constexpr int rank = {rank};\n  static constexpr \
         long long cosize = {cosize}LL;\n  __host__ __device__ static constexpr long long \
         extent(int i) {{ return {}; }}\n{members}}};\n",
        extent_fn(&extents),
    );
    let lay = format!("{name}_layout");
    match t.space() {
        Space::Global if t.runtime_layout().is_some() => {
            let symbols = t.symbols();
            let params: String = symbols.iter().map(|s| format!(", long long {s}")).collect();
            let _ = write!(
                out,
                "template <class T> __device__ __forceinline__ tessel::Tensor<tessel::gmem<T>, \
                 {lay}> {name}(T* p{params}) {{\n  static_assert(sizeof(T) == sizeof({ty}), \
                 \"tensor {name} holds {ty}\");\n  return tessel::make_tensor<tessel::gmem<T>, \
                 {lay}>(tessel::gmem<T>{{p}}, {lay}{{{}}});\n}}\n",
                symbols.join(", ")
            );
        }
        Space::Global => {
            let _ = write!(
                out,
                "template <class T> __device__ __forceinline__ tessel::Tensor<tessel::gmem<T>, \
                 {lay}> {name}(T* p) {{\n  static_assert(sizeof(T) == sizeof({ty}), \"tensor \
                 {name} holds {ty}\");\n  return tessel::make_tensor<tessel::gmem<T>, \
                 {lay}>(tessel::gmem<T>{{p}});\n}}\n"
            );
        }
        Space::Shared => {
            let _ = write!(
                out,
                "template <class T> __device__ __forceinline__ tessel::Tensor<tessel::smem<T>, \
                 {lay}> {name}(T* p) {{\n  static_assert(sizeof(T) == sizeof({ty}), \"tensor \
                 {name} holds {ty}\");\n  return tessel::make_tensor<tessel::smem<T>, \
                 {lay}>(tessel::smem<T>{{p}});\n}}\n__device__ __forceinline__ \
                 tessel::Tensor<tessel::saddr<{ty}>, {lay}> {name}(b32 addr) {{ return \
                 tessel::make_tensor<tessel::saddr<{ty}>, {lay}>(tessel::saddr<{ty}>{{addr}}); }}\n"
            );
        }
        Space::Register => {
            let _ = write!(
                out,
                "__device__ __forceinline__ tessel::Fragment<{ty}, {lay}> {name}() {{ return \
                 {{}}; }}\ntemplate <class L> __device__ __forceinline__ \
                 tessel::Tensor<tessel::rmem<{ty}>, {lay}> {name}(tessel::Fragment<{ty}, L>& f) \
                 {{\n  static_assert({lay}::cosize <= L::cosize, \"the view {name} reaches past \
                 its fragment\");\n  return tessel::make_tensor<tessel::rmem<{ty}>, \
                 {lay}>(tessel::rmem<{ty}>{{f.r}});\n}}\n"
            );
        }
        Space::Descriptor(base) => {
            let bits = base.bits()?;
            let (lo, hi) = (bits & 0xFFFF_FFFF, bits >> 32);
            // The engine carries the operand's major: wgmma's transpose immediate (tnsp) is
            // 1 for an MN-major operand, 0 for a K-major one.
            let tnsp = i32::from(base.fields.major == tessel_layout::gmma::Major::MN);
            let engine = format!("tessel::descriptors<{tnsp}>");
            let _ = writeln!(
                out,
                "__device__ __forceinline__ tessel::Tensor<{engine}, {lay}> {name}(b32 smem) {{ \
                 return tessel::make_tensor<{engine}, {lay}>({engine}{{{lo}u + (smem >> 4), \
                 {hi}u}}); }}"
            );
        }
        Space::Coord => {
            let (engine, init) = match t.bound() {
                Bound::None => ("tessel::counting", "0".to_string()),
                Bound::Always => ("tessel::always", String::new()),
            };
            let _ = writeln!(
                out,
                "__device__ __forceinline__ tessel::Tensor<{engine}, {lay}> {name}() {{ return \
                 tessel::make_tensor<{engine}, {lay}>({engine}{{{init}}}); }}"
            );
        }
    }
    Ok(out)
}

/// The atom function and struct of a tiled copy (`dev::NAME_atom`, `copy::NAME`).
pub(crate) fn copy_decl(c: &DeviceCopy) -> GpuResult<(String, String)> {
    let name = c.name();
    let atom_fn = format!("{name}_atom");
    let values_s = c.values(Side::Src);
    let values_d = c.values(Side::Dst);
    let (dev, call, vector) = match c.call_body(&atom_fn)? {
        Some(call) => (copy_atom_fn(&atom_fn, c.atom())?, call, false),
        None => {
            // UniversalCopy: one vector of the atom's bits.
            let bytes = values_s * c.value_bits() / 8;
            (
                String::new(),
                format!("tessel::vector_copy<{bytes}>(s, d);"),
                true,
            )
        }
    };
    let decl = format!(
        "// {}\nstruct {name} {{\n  static constexpr int values = {values_s};\n  static \
         constexpr int dst_values = {values_d};\n  static constexpr bool vector = {vector};\n  \
         template <class S, class D> __device__ __forceinline__ static void call(const S& s, \
         const D& d) {{ {call} }}\n}};\n",
        c.tiled()
    );
    Ok((dev, decl))
}

/// The atom function and struct of a tiled MMA (`dev::NAME_atom`, `mma::NAME`).
pub(crate) fn mma_decl(m: &DeviceMma) -> GpuResult<(String, String)> {
    let name = m.name();
    let atom_fn = format!("{name}_atom");
    let dev = mma_atom_fn(&atom_fn, m.atom())?;
    let call = m.call_body(&atom_fn)?;
    let state = if m.atom().b_source() == tessel_layout::atom::OperandSource::Registers {
        ""
    } else {
        // wgmma: D = A B when 0 (a tile's first k-block), D += A B when 1; every call leaves it
        // 1 (CuTe's `accumulate_`, set to `Zero` before a tile and `One` after its first call).
        "  mutable b32 scale_d = 1u;\n"
    };
    let decl = format!(
        "// {}\nstruct {name} {{\n{state}  template <class C, class A, class B> __device__ \
         __forceinline__ void call(const C& c, const A& a, const B& b) const {{ {call} }}\n}};\n",
        m.tiled()
    );
    Ok((dev, decl))
}
