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

/// The layout functions (`layout::NAME_crd`) of a tensor named `name`.
pub(crate) fn tensor_layout_fns(name: &str, t: &DeviceTensor) -> GpuResult<String> {
    Ok(format!(
        "// {name}: {t}\n{}",
        composed_fns(name, t.layout())?
    ))
}

/// The layout type and constructors of a tensor named `name` (in `namespace tensor`).
pub(crate) fn tensor_decl(name: &str, t: &DeviceTensor) -> GpuResult<String> {
    let extents = t.extents();
    let rank = extents.len();
    let args: Vec<String> = (0..rank).map(|i| format!("c[{i}]")).collect();
    let cosize = t.cosize()?;
    let ty = t.elem().name();
    let mut out = format!(
        "// {t}\nstruct {name}_layout {{\n  static constexpr int rank = {rank};\n  static constexpr \
         long long cosize = {cosize}LL;\n  static constexpr bool affine = {affine};\n  __host__ \
         __device__ static constexpr long long \
         extent(int i) {{ return {}; }}\n  __device__ __forceinline__ static long long \
         offset(const long long* c) {{ return layout::{name}_crd({}); }}\n}};\n",
        extent_fn(&extents),
        args.join(", "),
        affine = t.layout().is_plain(),
    );
    let lay = format!("{name}_layout");
    match t.space() {
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
                 {lay}>(tessel::smem<T>{{p}});\n}}\n"
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
        Space::Coord => {
            let (engine, init) = match t.bound() {
                Bound::None => ("tessel::counting", "0".to_string()),
                Bound::Below(b) => ("tessel::below", format!("{b}LL")),
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
    let (dev, call) = match c.call_body(&atom_fn)? {
        Some(call) => (copy_atom_fn(&atom_fn, c.atom())?, call),
        None => {
            // UniversalCopy: one vector of the atom's bits.
            let bytes = values_s * c.value_bits() / 8;
            (
                String::new(),
                format!("tessel::vector_copy<{bytes}>(s, d);"),
            )
        }
    };
    let decl = format!(
        "// {}\nstruct {name} {{\n  static constexpr int values = {values_s};\n  static \
         constexpr int dst_values = {values_d};\n  template <class S, class D> __device__ \
         __forceinline__ static void call(const S& s, const D& d) {{ {call} }}\n}};\n",
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
    let decl = format!(
        "// {}\nstruct {name} {{\n  template <class C, class A, class B> __device__ \
         __forceinline__ static void call(const C& c, const A& a, const B& b) {{ {call} }}\n}};\n",
        m.tiled()
    );
    Ok((dev, decl))
}
