//! Atoms, tiled copies and tiled MMAs in the expression language, by CuTe's names.
//!
//! An atom is written by its CuTe name, bare: `SM75_U32x4_LDSM_N`,
//! `SM80_CP_ASYNC_CACHEGLOBAL<uint128_t>`, `SM80_16x8x16_F32F16F16F32_TN` (see
//! [`crate::atom`]). The functions here build and partition tiled copies and tiled MMAs
//! ([`crate::tiled`]):
//!
//! - `make_tiled_copy(ATOM, thr, val[, bits])`: CuTe's `make_tiled_copy(Copy_Atom<ATOM, T>{},
//!   thr, val)` for elements `T` of `bits` bits (default 16, CuTe's `half_t`);
//!   `make_tiled_copy_A/B/C(ATOM, MMA[, bits])` copy the A/B/C fragments of a tiled MMA
//!   (default bits: the MMA's element type of that operand).
//! - `make_tiled_mma(ATOM[, atom_layout[, perm_M, perm_N, perm_K]])`: a permutation is a layout
//!   or `_`; a by-mode tiler `[_, P, _]` may stand for all three.
//! - `make_tma_copy(OP, gmem, smem[, tile[, cluster[, bits]]])`: CuTe's `make_tma_copy` for
//!   `OP` one of `SM90_TMA_LOAD`, `SM90_TMA_LOAD_MULTICAST`, `SM90_TMA_STORE` (tile: a tiler or
//!   `_` for the shared layout's shape; cluster default 1; bits default 16): a tiled copy whose
//!   atom carries the tensor map (see [`crate::tiled::make_tma_copy`]).
//! - `partition_S/D(COPY, thread, L)` and `partition_A/B/C(MMA, thread, L)`: the thread's
//!   elements of `L`, at their offset (`OFFSET o LAYOUT`, like `local_partition`);
//!   `partition_shape_A/B/C(MMA, shape)`; `get_layoutS_TV/D_TV(COPY)`,
//!   `get_layoutA_TV/B_TV/C_TV(MMA)`; `tile_shape(COPY or MMA)`.
//!
//! Wherever a tiled MMA is expected an MMA atom stands for `make_tiled_mma(ATOM)`.
//!
//! ```
//! use tessel_layout::expr::eval;
//! // CuTe media/docs/cpp/cute/0x_gemm_tutorial.md (CUTLASS v4.2.1): 32x8 threads of 4x1 floats, 128-bit copies.
//! let c = eval("make_tiled_copy(UniversalCopy<uint128_t>, (32,8):(1,32), (4,1):(1,0), 32)").unwrap();
//! assert_eq!(c.to_string(), "TiledCopy(Tiler_MN: (128,8), TiledLayout_TV: (256,4):(4,1), \
//!                            Copy_Atom<UniversalCopy<uint128_t>, 32-bit>)");
//! // Thread 1's source elements of a 128x8 column-major tile start at row 4.
//! let p = eval("partition_S(make_tiled_copy(UniversalCopy<uint128_t>, (32,8):(1,32), (4,1):(1,0), 32), \
//!               1, (128,8):(1,128))").unwrap();
//! assert_eq!(p.to_string(), "4 o ((4,1),1,1):((1,0),0,0)");
//! ```

use super::functions::{Args, Function, edit_distance, f, suggestion_cutoff};
use super::value::Value;
use crate::algebra::Tiler;
use crate::atom::{TmaOp, copy_atom, copy_atom_names, mma_atom, mma_atom_names};
use crate::composed::ComposedLayout;
use crate::error::{Error, Result};
use crate::int_tuple::IntTuple;
use crate::layout::Layout;
use crate::tiled::{
    TiledCopy, TiledMma, make_tiled_copy, make_tiled_copy_a, make_tiled_copy_b, make_tiled_copy_c,
    make_tiled_mma, make_tma_copy,
};

/// The element width `make_tiled_copy` types its atom for when no width is given: 16 bits,
/// CuTe's `half_t` (the `b16` of `ldmatrix`/`stmatrix`).
///
/// ```
/// use tessel_layout::expr::{atoms::DEFAULT_VALUE_BITS, eval};
/// assert_eq!(DEFAULT_VALUE_BITS, 16);
/// let c = eval("make_tiled_copy(SM75_U32x4_LDSM_N, 32:1, 8:1)").unwrap();
/// assert!(c.to_string().ends_with("Copy_Atom<SM75_U32x4_LDSM_N, 16-bit>)"));
/// ```
pub const DEFAULT_VALUE_BITS: i64 = 16;

/// Whether `name` is a copy or MMA atom's CuTe name.
///
/// ```
/// use tessel_layout::expr::atoms::is_atom;
/// assert!(is_atom("SM75_U32x4_LDSM_N") && is_atom("SM90_64x64x16_F32F16F16_SS"));
/// assert!(!is_atom("SM75_U32x3_LDSM_N"));
/// ```
pub fn is_atom(name: &str) -> bool {
    copy_atom(name).is_ok() || mma_atom(name).is_ok()
}

/// The value of an atom name: a [`Value::CopyAtom`] or a [`Value::MmaAtom`]; an unknown name
/// is an error naming the nearest atoms.
///
/// ```
/// use tessel_layout::expr::{atoms::atom_value, Value};
/// assert!(matches!(atom_value("SM75_U16x8_LDSM_T").unwrap(), Value::CopyAtom(_)));
/// let err = atom_value("SM75_U32x3_LDSM_N").unwrap_err();
/// assert!(err.message().contains("SM75_U32x1_LDSM_N"), "{err}");
/// ```
pub fn atom_value(name: &str) -> Result<Value> {
    if let Ok(a) = copy_atom(name) {
        return Ok(Value::CopyAtom(Box::new(a)));
    }
    if let Ok(a) = mma_atom(name) {
        return Ok(Value::MmaAtom(Box::new(a)));
    }
    Err(unknown_atom(name))
}

/// The error for an unknown atom name, with the nearest names when there are some; for an
/// element type the family does not take (or does not know), the family's reason.
///
/// ```
/// use tessel_layout::expr::atoms::unknown_atom;
/// let err = unknown_atom("UniversalCopy<uint16>");
/// assert!(err.message().contains("unknown element type `uint16`"), "{err}");
/// let err = unknown_atom("SM80_CP_ASYNC_CACHEALWAYS<half_t>");
/// assert!(err.message().contains("takes element types of 32, 64, 128 bits"), "{err}");
/// let err = unknown_atom("SM75_U32x4_LDSM");
/// assert_eq!(err.message(), "unknown atom 'SM75_U32x4_LDSM'; did you mean SM75_U32x4_LDSM_N?");
/// ```
pub fn unknown_atom(name: &str) -> Error {
    // A known family with an element type it does not take: its own reason says why.
    if let Err(e) = copy_atom(name)
        && !e.message().contains("the known ones are")
    {
        return e;
    }
    let near = nearest_atoms(name);
    let hint = if near.is_empty() {
        "; 'tessel atom --list' lists the atoms".to_string()
    } else {
        format!("; did you mean {}?", near.join(" or "))
    };
    Error::invalid(format!("unknown atom '{name}'{hint}"))
}

/// The atom names closest to `name` (up to three): those at the least edit distance, within
/// [`suggestion_cutoff`] edits, the ones sharing the longest prefix with `name` first.
///
/// ```
/// use tessel_layout::expr::atoms::nearest_atoms;
/// assert_eq!(nearest_atoms("SM75_U32x4_LDSM"), vec!["SM75_U32x4_LDSM_N"]);
/// assert!(nearest_atoms("frobnicate").is_empty());
/// ```
pub fn nearest_atoms(name: &str) -> Vec<String> {
    let cutoff = suggestion_cutoff(name);
    let mut scored: Vec<(usize, usize, String)> = copy_atom_names()
        .into_iter()
        .chain(mma_atom_names())
        .map(|n| {
            let prefix = n
                .chars()
                .zip(name.chars())
                .take_while(|(a, b)| a == b)
                .count();
            (edit_distance(name, &n), prefix, n)
        })
        .filter(|&(d, _, _)| d <= cutoff)
        .collect();
    scored.sort_by(|a, b| a.0.cmp(&b.0).then(b.1.cmp(&a.1)));
    let best = scored.first().map_or(0, |s| s.0);
    scored
        .into_iter()
        .take_while(|s| s.0 == best)
        .take(3)
        .map(|(_, _, n)| n)
        .collect()
}

/// The functions of tiled copies and tiled MMAs.
///
/// ```
/// use tessel_layout::expr::atoms::FUNCTIONS;
/// assert!(FUNCTIONS.iter().any(|f| f.name == "make_tiled_copy"));
/// assert!(FUNCTIONS.iter().any(|f| f.name == "partition_C"));
/// ```
pub const FUNCTIONS: &[Function] = &[
    f(
        "make_tiled_copy",
        "(ATOM, thr, val[, bits])",
        3,
        4,
        "tiled copy of a copy atom typed for bits-bit values (default 16): thr x val threads",
        tiled_copy,
    ),
    f(
        "make_tiled_copy_A",
        "(ATOM, MMA[, bits])",
        2,
        3,
        "tiled copy of the tiled MMA's A fragments (bits: default A's type)",
        |a| tiled_copy_for(a, Operand::A),
    ),
    f(
        "make_tiled_copy_B",
        "(ATOM, MMA[, bits])",
        2,
        3,
        "tiled copy of the tiled MMA's B fragments (bits: default B's type)",
        |a| tiled_copy_for(a, Operand::B),
    ),
    f(
        "make_tiled_copy_C",
        "(ATOM, MMA[, bits])",
        2,
        3,
        "tiled copy of the tiled MMA's C fragments (bits: default C's type)",
        |a| tiled_copy_for(a, Operand::C),
    ),
    f(
        "make_tma_copy",
        "(OP, gmem, smem[, tile[, cluster[, bits]]])",
        3,
        6,
        "TMA copy of a CTA tile: the box, the tensor map and the (CTA, value) layout",
        tma_copy,
    ),
    f(
        "make_tiled_mma",
        "(ATOM[, atoms[, pM, pN, pK]])",
        1,
        5,
        "tiled MMA: the atom over an (M,N,K) atom layout, modes permuted by pM, pN, pK or _",
        tiled_mma,
    ),
    f(
        "partition_S",
        "(COPY, thread, L)",
        3,
        3,
        "the thread's source elements of L as (CPY, CPY_M, CPY_N, ...), at their offset",
        |a| partition_copy(a, true),
    ),
    f(
        "partition_D",
        "(COPY, thread, L)",
        3,
        3,
        "the thread's destination elements of L as (CPY, CPY_M, CPY_N, ...), at their offset",
        |a| partition_copy(a, false),
    ),
    f(
        "partition_A",
        "(MMA, thread, L)",
        3,
        3,
        "the thread's A elements of an (M,K) layout as (MMA, MMA_M, MMA_K), at their offset",
        |a| partition_mma(a, Operand::A),
    ),
    f(
        "partition_B",
        "(MMA, thread, L)",
        3,
        3,
        "the thread's B elements of an (N,K) layout as (MMA, MMA_N, MMA_K), at their offset",
        |a| partition_mma(a, Operand::B),
    ),
    f(
        "partition_C",
        "(MMA, thread, L)",
        3,
        3,
        "the thread's C elements of an (M,N) layout as (MMA, MMA_M, MMA_N), at their offset",
        |a| partition_mma(a, Operand::C),
    ),
    f(
        "partition_shape_A",
        "(MMA, shape)",
        2,
        2,
        "the shape of one thread's A fragment of an (M,K) shape",
        |a| partition_shape(a, Operand::A),
    ),
    f(
        "partition_shape_B",
        "(MMA, shape)",
        2,
        2,
        "the shape of one thread's B fragment of an (N,K) shape",
        |a| partition_shape(a, Operand::B),
    ),
    f(
        "partition_shape_C",
        "(MMA, shape)",
        2,
        2,
        "the shape of one thread's C fragment of an (M,N) shape",
        |a| partition_shape(a, Operand::C),
    ),
    f(
        "get_layoutS_TV",
        "(COPY)",
        1,
        1,
        "(thread, value) -> index in the tile of the copy's source",
        |a| Ok(Value::Layout(copy_arg(a, 0)?.layout_s_tv()?)),
    ),
    f(
        "get_layoutD_TV",
        "(COPY)",
        1,
        1,
        "(thread, value) -> index in the tile of the copy's destination",
        |a| Ok(Value::Layout(copy_arg(a, 0)?.layout_d_tv()?)),
    ),
    f(
        "get_layoutA_TV",
        "(MMA)",
        1,
        1,
        "(thread, value) -> m + M*k in the MMA's M x K tile",
        |a| Ok(Value::Layout(mma_arg(a, 0)?.layout_a_tv()?)),
    ),
    f(
        "get_layoutB_TV",
        "(MMA)",
        1,
        1,
        "(thread, value) -> n + N*k in the MMA's N x K tile",
        |a| Ok(Value::Layout(mma_arg(a, 0)?.layout_b_tv()?)),
    ),
    f(
        "get_layoutC_TV",
        "(MMA)",
        1,
        1,
        "(thread, value) -> m + M*n in the MMA's M x N tile",
        |a| Ok(Value::Layout(mma_arg(a, 0)?.layout_c_tv()?)),
    ),
    f(
        "tile_shape",
        "(COPY | MMA)",
        1,
        1,
        "the tile of a tiled copy (Tiler_MN) or of a tiled MMA (M,N,K)",
        tile_shape,
    ),
];

/// An MMA operand.
#[derive(Clone, Copy)]
enum Operand {
    A,
    B,
    C,
}

/// Argument `i` as a copy atom.
fn copy_atom_arg(a: &Args<'_>, i: usize) -> Result<crate::atom::CopyAtom> {
    match a.value(i)? {
        Value::CopyAtom(atom) => Ok((**atom).clone()),
        _ => Err(a.mismatch(i, "a copy atom (e.g. SM75_U32x4_LDSM_N)")),
    }
}

/// Argument `i` as an element width in bits, or `default` when it is absent.
fn bits_arg(a: &Args<'_>, i: usize, default: i64) -> Result<i64> {
    if i < a.len() { a.int(i) } else { Ok(default) }
}

/// Argument `i` as a tiled copy.
fn copy_arg(a: &Args<'_>, i: usize) -> Result<TiledCopy> {
    match a.value(i)? {
        Value::TiledCopy(c) => Ok((**c).clone()),
        _ => Err(a.mismatch(i, "a tiled copy (make_tiled_copy(...))")),
    }
}

/// Argument `i` as a tiled MMA; an MMA atom is `make_tiled_mma(ATOM)`.
fn mma_arg(a: &Args<'_>, i: usize) -> Result<TiledMma> {
    match a.value(i)? {
        Value::TiledMma(m) => Ok((**m).clone()),
        Value::MmaAtom(atom) => make_tiled_mma(atom, &Layout::vector(1, 0)?, &[]),
        _ => Err(a.mismatch(i, "a tiled MMA or an MMA atom")),
    }
}

fn tiled_copy(a: &Args<'_>) -> Result<Value> {
    let atom = copy_atom_arg(a, 0)?;
    let typed = atom.typed(bits_arg(a, 3, DEFAULT_VALUE_BITS)?)?;
    let copy = make_tiled_copy(&typed, &a.layout(1)?, &a.layout(2)?)?;
    Ok(Value::TiledCopy(Box::new(copy)))
}

fn tiled_copy_for(a: &Args<'_>, op: Operand) -> Result<Value> {
    let atom = copy_atom_arg(a, 0)?;
    let mma = mma_arg(a, 1)?;
    let ty = match op {
        Operand::A => mma.atom().a_type(),
        Operand::B => mma.atom().b_type(),
        Operand::C => mma.atom().c_type(),
    };
    let typed = atom.typed(bits_arg(a, 2, ty.bits())?)?;
    let copy = match op {
        Operand::A => make_tiled_copy_a(&typed, &mma),
        Operand::B => make_tiled_copy_b(&typed, &mma),
        Operand::C => make_tiled_copy_c(&typed, &mma),
    }?;
    Ok(Value::TiledCopy(Box::new(copy)))
}

/// `make_tma_copy(OP, gmem, smem[, tile[, cluster[, bits]]])`.
fn tma_copy(a: &Args<'_>) -> Result<Value> {
    let op = match a.value(0)? {
        Value::CopyAtom(atom) => TmaOp::from_name(atom.name()),
        _ => None,
    }
    .ok_or_else(|| {
        a.mismatch(
            0,
            "a TMA operation (SM90_TMA_LOAD, SM90_TMA_LOAD_MULTICAST or SM90_TMA_STORE)",
        )
    })?;
    let tile = if a.len() > 3 && !matches!(a.value(3)?, Value::Slice(crate::SliceCoord::All)) {
        Some(a.tiler(3)?)
    } else {
        None
    };
    let cluster = if a.len() > 4 { a.int(4)? } else { 1 };
    let bits = bits_arg(a, 5, DEFAULT_VALUE_BITS)?;
    let copy = make_tma_copy(
        op,
        &a.layout(1)?,
        &a.composed(2)?,
        tile.as_ref(),
        cluster,
        bits,
    )?;
    Ok(Value::TiledCopy(Box::new(copy)))
}

/// The permutations of `make_tiled_mma`: arguments 2.. (each a layout or `_`), or one by-mode
/// tiler whose modes are layouts or `_`.
fn permutations(a: &Args<'_>) -> Result<Vec<Option<Layout>>> {
    if a.len() == 3
        && let Value::Tiler(Tiler::ByMode(modes)) = a.value(2)?
    {
        return modes
            .iter()
            .map(|m| match m {
                None => Ok(None),
                Some(Tiler::Layout(l)) => Ok(Some(l.clone())),
                Some(_) => Err(a.mismatch(2, "a tiler whose modes are layouts or '_'")),
            })
            .collect();
    }
    (2..a.len())
        .map(|i| match a.value(i)? {
            Value::Slice(crate::SliceCoord::All) => Ok(None),
            Value::Composed(_) | Value::Tiler(_) => {
                Err(a.mismatch(i, "a permutation layout or '_'"))
            }
            v => v
                .as_layout()
                .ok_or_else(|| a.mismatch(i, "a permutation layout or '_'"))?
                .map(Some),
        })
        .collect()
}

fn tiled_mma(a: &Args<'_>) -> Result<Value> {
    let atom = match a.value(0)? {
        Value::MmaAtom(atom) => (**atom).clone(),
        _ => return Err(a.mismatch(0, "an MMA atom (e.g. SM80_16x8x16_F32F16F16F32_TN)")),
    };
    let atom_layout = if a.len() > 1 {
        a.layout(1)?
    } else {
        Layout::vector(1, 0)?
    };
    let mma = make_tiled_mma(&atom, &atom_layout, &permutations(a)?)?;
    Ok(Value::TiledMma(Box::new(mma)))
}

/// Argument `i` as a thread index.
fn thread_arg(a: &Args<'_>, i: usize) -> Result<i64> {
    a.int(i)
}

/// A partition `(layout, offset)` of the inner layout of `c`, as `OFFSET o LAYOUT` keeping the
/// swizzles (the partition composes on the right of the whole offset).
fn at_offset(c: &ComposedLayout, (inner, offset): (Layout, i64)) -> Result<Value> {
    let total = crate::checked_add(c.base_offset(), offset, "the offset")?;
    Ok(Value::from_composed(ComposedLayout::new(
        c.swizzles().to_vec(),
        total,
        inner,
    )))
}

fn partition_copy(a: &Args<'_>, source: bool) -> Result<Value> {
    let copy = copy_arg(a, 0)?;
    let slice = copy.get_slice(thread_arg(a, 1)?)?;
    let c = a.composed(2)?;
    let part = if source {
        slice.partition_s(c.layout())?
    } else {
        slice.partition_d(c.layout())?
    };
    at_offset(&c, part)
}

fn partition_mma(a: &Args<'_>, op: Operand) -> Result<Value> {
    let mma = mma_arg(a, 0)?;
    let slice = mma.get_slice(thread_arg(a, 1)?)?;
    let c = a.composed(2)?;
    let part = match op {
        Operand::A => slice.partition_a(c.layout()),
        Operand::B => slice.partition_b(c.layout()),
        Operand::C => slice.partition_c(c.layout()),
    }?;
    at_offset(&c, part)
}

fn partition_shape(a: &Args<'_>, op: Operand) -> Result<Value> {
    let mma = mma_arg(a, 0)?;
    let shape = a.int_tuple(1)?;
    let sizes: Vec<i64> = match &shape {
        IntTuple::Int(n) => vec![*n],
        t => t
            .modes()
            .iter()
            .map(|m| m.product())
            .collect::<Result<Vec<_>>>()?,
    };
    let out = match op {
        Operand::A => mma.partition_shape_a(&sizes),
        Operand::B => mma.partition_shape_b(&sizes),
        Operand::C => mma.partition_shape_c(&sizes),
    }?;
    Ok(Value::from_int_tuple(out))
}

fn tile_shape(a: &Args<'_>) -> Result<Value> {
    let sizes: Vec<i64> = match a.value(0)? {
        Value::TiledCopy(c) => c.tiler().to_vec(),
        Value::TiledMma(_) | Value::MmaAtom(_) => {
            let mma = mma_arg(a, 0)?;
            (0..3)
                .map(|i| mma.tile_size(i))
                .collect::<Result<Vec<_>>>()?
        }
        _ => return Err(a.mismatch(0, "a tiled copy or a tiled MMA")),
    };
    Ok(Value::from_int_tuple(IntTuple::from_ints(sizes)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::expr::eval;

    /// The offsets of every element of `OFFSET o LAYOUT` (or a plain layout).
    fn offsets(v: &Value) -> Vec<i64> {
        let c = v.as_composed().unwrap().unwrap();
        c.layout()
            .offsets()
            .into_iter()
            .map(|o| o + c.base_offset())
            .collect()
    }

    /// Partitions of all threads cover the tile exactly once (each element one thread's), for
    /// the source and destination of a copy and A, B, C of an MMA: checked by enumeration.
    #[test]
    fn partitions_of_all_threads_tile_the_tensor_once() {
        let cases = [
            (
                "make_tiled_copy(UniversalCopy<uint128_t>, (32,8), (4,1), 32)",
                256,
                &["partition_S", "partition_D"][..],
                "(128,8):(1,128)",
            ),
            (
                "make_tiled_copy(SM75_U32x1_LDSM_N, (8,4):(4,1), (1,2):(0,1))",
                32,
                &["partition_D"][..],
                "(16,16):(16,1)",
            ),
            (
                "make_tiled_mma(SM80_16x8x16_F32F16F16F32_TN, (2,1):(1,0))",
                64,
                &["partition_C"][..],
                "(64,16):(1,64)",
            ),
            (
                "make_tiled_mma(SM80_16x8x16_F32F16F16F32_TN, (2,1):(1,0))",
                64,
                &["partition_A"][..],
                "(32,32):(32,1)",
            ),
        ];
        for (tiled, threads, functions, tensor) in cases {
            for function in functions {
                let mut seen = Vec::new();
                for t in 0..threads {
                    let v = eval(&format!("{function}({tiled}, {t}, {tensor})")).unwrap();
                    seen.extend(offsets(&v));
                }
                seen.sort_unstable();
                let size = eval(&format!("size({tensor})")).unwrap();
                let want: Vec<i64> = (0..size.to_string().parse::<i64>().unwrap()).collect();
                assert_eq!(seen, want, "{function} of {tiled} over {tensor}");
            }
        }
    }

    #[test]
    fn names_are_unique_across_tables() {
        let mut names: Vec<_> = super::super::registry::all().map(|f| f.name).collect();
        names.sort_unstable();
        let before = names.len();
        names.dedup();
        assert_eq!(before, names.len());
    }
}
