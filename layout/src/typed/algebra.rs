//! The layout algebra on [`TypedLayout`]s: the plain algebra's values, with CuTe's kinds.
//!
//! CuTe's rule is that a result leaf is static exactly when everything it is computed from is
//! static. tessel computes every value with the one plain algebra ([`crate::algebra`]) and gives
//! each result leaf a kind from what the operation computes it from:
//!
//! - [`coalesce`] is CuTe's: it merges two modes only when the merge is decided by static
//!   leaves, as CuTe decides at compile time, so dynamic modes stay apart.
//! - [`composition`] reads each leaf of `B` as one composition: a piece of the result that
//!   comes from the leaf `s:d` of `B` and lies in the (coalesced) mode `k` of `A` has a static
//!   extent when `s`, `d` and the extents of `A`'s modes up to `k` (but the unbounded last) are
//!   static, and a static stride when `d`, `A`'s stride in mode `k` and `A`'s extents before
//!   `k` are (a stride `_0` in `B` gives `_0`). This is CuTe's rule applied with `A`'s modes
//!   taken whole, so a leaf may come out dynamic where CuTe's finer arithmetic keeps it static,
//!   never the other way round. With basis strides in `A`, the composition is computed on a
//!   stand-in integer layout (every mode of `A` given a distinct prime stride larger than every
//!   extent and every stride of `B`) whose result decodes back to basis elements.
//! - [`complement`]'s strides are static when `B`'s leaves are, its extents too, and its last
//!   extent (the one reaching the cotarget) when the cotarget is also static.
//! - The divides and partitions are built from these ([`logical_divide`] is
//!   `A o (T, complement(T, size(A)))`), so they carry the same kinds.
//! - Every other operation ([`lift`]): the result is static when every input is, dynamic
//!   otherwise.
//!
//! ```
//! use tessel_layout::typed::{TypedLayout, algebra::{local_tile, TypedTiler}};
//! // A run-time M x K matrix, column-major, tiled by a static 128 x 32 tile: the tile has
//! // static extents and unit stride, and the leading dimension M stays a run-time value.
//! let ga: TypedLayout = "(4096,1024):(_1,4096)".parse().unwrap();
//! let tiler: TypedTiler = "[_128:_1,_32:_1]".parse().unwrap();
//! let (tile, offset) = local_tile(&ga, &tiler, &"(2,3)".parse().unwrap()).unwrap();
//! assert_eq!(tile.to_string(), "(_128,_32):(_1,4096)");
//! assert_eq!(offset.to_string(), (2 * 128 + 3 * 32 * 4096).to_string());
//! ```

use std::fmt;

use super::{TypedLayout, TypedShape};
use crate::algebra::{Tiler, local};
use crate::basis::ScaledBasis;
use crate::error::{Error, Result};
use crate::int_tuple::IntTuple;
use crate::layout::{Layout, SliceCoord};
use crate::leaf::Num;
use crate::static_int::Integer;

/// A tiler of typed layouts: one layout for the whole domain, or one tiler per mode
/// (CuTe's `Tile`); the typed counterpart of [`Tiler`].
///
/// ```
/// use tessel_layout::typed::algebra::TypedTiler;
/// let t: TypedTiler = "[_2:_1,(_4,8)]".parse().unwrap();
/// assert_eq!(t.to_string(), "[_2:_1,[_4:_1,8:_1]]");
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum TypedTiler {
    /// One layout for the whole (1-D) domain.
    Layout(Box<TypedLayout>),
    /// One tiler per top-level mode.
    ByMode(Vec<TypedTiler>),
}

impl TypedTiler {
    /// The plain tiler of the values.
    ///
    /// ```
    /// use tessel_layout::typed::algebra::TypedTiler;
    /// let t: TypedTiler = "[_2:_1,_4:_2]".parse().unwrap();
    /// assert_eq!(t.values().unwrap().to_string(), "[2:1,4:2]");
    /// ```
    pub fn values(&self) -> Result<Tiler> {
        Ok(match self {
            TypedTiler::Layout(l) => Tiler::Layout(l.values()?),
            TypedTiler::ByMode(parts) => Tiler::ByMode(
                parts
                    .iter()
                    .map(|p| p.values().map(Some))
                    .collect::<Result<_>>()?,
            ),
        })
    }

    /// The typed tiler of a plain one, every leaf of the kind `is_static`; `None` for a
    /// by-mode tiler with a kept mode `_` (typed tilers have none).
    ///
    /// ```
    /// use tessel_layout::{Tiler, typed::algebra::TypedTiler};
    /// let t: Tiler = "[2:1,4:2]".parse().unwrap();
    /// assert_eq!(TypedTiler::of(&t, true).unwrap().to_string(), "[_2:_1,_4:_2]");
    /// assert!(TypedTiler::of(&"[2:1,_]".parse().unwrap(), true).is_none());
    /// ```
    pub fn of(tiler: &Tiler, is_static: bool) -> Option<TypedTiler> {
        Some(match tiler {
            Tiler::Layout(l) => TypedTiler::Layout(Box::new(TypedLayout::of(l, is_static))),
            Tiler::ByMode(parts) => TypedTiler::ByMode(
                parts
                    .iter()
                    .map(|p| p.as_ref().and_then(|t| TypedTiler::of(t, is_static)))
                    .collect::<Option<_>>()?,
            ),
        })
    }

    /// Whether every leaf is static.
    ///
    /// ```
    /// use tessel_layout::typed::algebra::TypedTiler;
    /// assert!("[_2:_1,_4:_2]".parse::<TypedTiler>().unwrap().is_static());
    /// ```
    pub fn is_static(&self) -> bool {
        match self {
            TypedTiler::Layout(l) => l.is_static(),
            TypedTiler::ByMode(parts) => parts.iter().all(TypedTiler::is_static),
        }
    }
}

impl fmt::Display for TypedTiler {
    /// A layout, or `[T0,T1,...]`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TypedTiler::Layout(l) => write!(f, "{l}"),
            TypedTiler::ByMode(parts) => {
                f.write_str("[")?;
                for (i, p) in parts.iter().enumerate() {
                    if i > 0 {
                        f.write_str(",")?;
                    }
                    write!(f, "{p}")?;
                }
                f.write_str("]")
            }
        }
    }
}

/// The plain result `result` of an operation whose typed inputs are all static
/// (`inputs_static`) or not: CuTe's rule taken over whole operands, for the operations with no
/// finer rule. A static result is static throughout; otherwise every leaf is dynamic.
///
/// ```
/// use tessel_layout::{Layout, typed::algebra::lift};
/// let r: Layout = "(2,3):(1,8)".parse().unwrap();
/// assert_eq!(lift(true, Ok(r.clone())).unwrap().to_string(), "(_2,_3):(_1,_8)");
/// assert_eq!(lift(false, Ok(r)).unwrap().to_string(), "(2,3):(1,8)");
/// ```
pub fn lift(inputs_static: bool, result: Result<Layout>) -> Result<TypedLayout> {
    result.map(|l| TypedLayout::of(&l, inputs_static))
}

/// CuTe's `coalesce`: flattens, drops static extent-1 modes, and merges `s0:d0 ++ s1:s0*d0`
/// into `s0*s1:d0` where that is decided by static leaves (as CuTe decides it at compile time);
/// a layout of only static extent-1 modes is `_1:_0`.
///
/// ```
/// use tessel_layout::typed::{TypedLayout, algebra::coalesce};
/// let l: TypedLayout = "(_2,(_1,_6)):(_1,(_6,_2))".parse().unwrap();
/// assert_eq!(coalesce(&l).to_string(), "_12:_1");
/// // A dynamic extent cannot be merged at compile time.
/// let d: TypedLayout = "(2,_6):(_1,_2)".parse().unwrap();
/// assert_eq!(coalesce(&d).to_string(), "(2,_6):(_1,_2)");
/// let id = TypedLayout::identity(&"(_4,_8)".parse().unwrap()).unwrap();
/// assert_eq!(coalesce(&id).to_string(), "(_4,_8):(_1@0,_1@1)");
/// ```
pub fn coalesce(layout: &TypedLayout) -> TypedLayout {
    let mut modes: Vec<(Integer, ScaledBasis)> = Vec::new();
    let leaves = layout
        .shape()
        .iter_leaves()
        .copied()
        .zip(layout.stride().iter_leaves().cloned());
    for (s, d) in leaves {
        if s.is_static() && s.value() == 1 {
            continue;
        }
        if let Some((ps, pd)) = modes.last_mut() {
            if statically_continues(*ps, pd, &d) {
                if let Ok(merged) = ps.times(s) {
                    *ps = merged;
                    continue;
                }
            }
        }
        modes.push((s, d));
    }
    match modes.len() {
        0 => TypedLayout::from_parts(
            IntTuple::Int(Integer::Static(1)),
            IntTuple::Int(ScaledBasis::from(Integer::Static(0))),
        ),
        1 => {
            let (s, d) = modes.pop().expect("one mode");
            TypedLayout::from_parts(IntTuple::Int(s), IntTuple::Int(d))
        }
        _ => {
            let (shapes, strides): (Vec<_>, Vec<_>) = modes
                .into_iter()
                .map(|(s, d)| (IntTuple::Int(s), IntTuple::Int(d)))
                .unzip();
            TypedLayout::from_parts(
                IntTuple::Tuple(shapes.into()),
                IntTuple::Tuple(strides.into()),
            )
        }
    }
}

/// Whether `next` continues the mode `extent:stride` (`next == extent * stride`), decided by
/// static leaves: the same basis direction and static values.
fn statically_continues(extent: Integer, stride: &ScaledBasis, next: &ScaledBasis) -> bool {
    extent.is_static()
        && stride.value().is_static()
        && next.value().is_static()
        && stride.modes() == next.modes()
        && extent.value().checked_mul(stride.value().value()) == Some(next.value().value())
}

/// The modes of `A` as tessel's composition reads it (`Extended` in the plain algebra): every
/// mode but the last coalesced by value (extent-1 modes dropped, `s0:d0 ++ s1:s0*d0` merged,
/// here within one basis direction), then the last merged into the one before when it continues
/// it. Each mode keeps which of its parts are static: its extent and its stride (a merged mode's
/// only when all its parts are, and the decision to merge the next leaf or not is static), and
/// whether everything before it is (the extents, and every decision to drop or merge a leaf).
#[derive(Clone, Debug)]
struct Run {
    extent: i64,
    stride: ScaledBasis,
    extent_static: bool,
    stride_static: bool,
    prefix_static: bool,
}

fn runs_of(a: &TypedLayout) -> Vec<Run> {
    let leaves: Vec<(Integer, ScaledBasis)> = a
        .shape()
        .iter_leaves()
        .copied()
        .zip(a.stride().iter_leaves().cloned())
        .collect();
    let mut runs: Vec<Run> = Vec::new();
    let mut prefix_static = true;
    let n = leaves.len();
    for (k, (s, d)) in leaves.into_iter().enumerate() {
        let last = k + 1 == n;
        // Whether dropping or merging this leaf is decided by static leaves only; if not, the
        // mode before it may absorb it and every mode after it may move.
        // (The last leaf is never dropped; a leaf merges only into a mode before it.)
        let decided = (last || s.is_static())
            && runs.last().is_none_or(|prev| {
                prev.extent_static && prev.stride_static && d.value().is_static()
            });
        if !decided {
            if let Some(prev) = runs.last_mut() {
                prev.extent_static = false;
            }
            prefix_static = false;
        }
        if s.value() == 1 && !last {
            continue;
        }
        if let Some(prev) = runs.last_mut() {
            let continues = prev.stride.modes() == d.modes()
                && prev.extent.checked_mul(prev.stride.value().value()) == Some(d.value().value());
            if continues {
                prev.extent = prev.extent.saturating_mul(s.value());
                prev.extent_static &= s.is_static();
                prev.stride_static &= d.value().is_static() && s.is_static();
                prev.prefix_static &= prefix_static;
                continue;
            }
        }
        runs.push(Run {
            extent: s.value(),
            stride_static: d.value().is_static(),
            stride: d,
            extent_static: s.is_static(),
            prefix_static,
        });
    }
    runs
}

/// The largest extent or stride a composition of typed layouts reads through its stand-in.
const STAND_IN_LIMIT: i64 = 1 << 31;

/// Distinct primes, each larger than `bound`.
fn primes_above(bound: i64, count: usize) -> Result<Vec<i64>> {
    let is_prime = |p: i64| p >= 2 && (2..).take_while(|d| d * d <= p).all(|d| p % d != 0);
    let mut out = Vec::with_capacity(count);
    let mut p = bound
        .checked_add(1)
        .ok_or_else(|| Error::overflow("the stand-in primes"))?;
    while out.len() < count {
        if is_prime(p) {
            out.push(p);
        }
        p = p
            .checked_add(1)
            .ok_or_else(|| Error::overflow("the stand-in primes"))?;
    }
    Ok(out)
}

/// The leaves of `r` (a composition result, whose shape has `b`'s structure with every leaf of
/// `b` become a leaf or a flat tuple) grouped by the leaf of `b` they come from: for each leaf
/// of `r`, the index of `b`'s leaf. `None` when `r` does not have that structure.
fn leaf_origins<T: crate::leaf::Leaf, U: crate::leaf::Leaf>(
    b: &IntTuple<T>,
    r: &IntTuple<U>,
) -> Option<Vec<usize>> {
    fn go<T: crate::leaf::Leaf, U: crate::leaf::Leaf>(
        b: &IntTuple<T>,
        r: &IntTuple<U>,
        next: &mut usize,
        out: &mut Vec<usize>,
    ) -> Option<()> {
        match (b, r) {
            (IntTuple::Int(_), IntTuple::Int(_)) => out.push(*next),
            (IntTuple::Int(_), IntTuple::Tuple(items)) => {
                for item in items.iter() {
                    if !item.is_int() {
                        return None;
                    }
                    out.push(*next);
                }
            }
            (IntTuple::Tuple(bs), IntTuple::Tuple(rs)) if bs.len() == rs.len() => {
                for (x, y) in bs.iter().zip(rs.iter()) {
                    go(&x, &y, next, out)?;
                }
                return Some(());
            }
            _ => return None,
        }
        *next += 1;
        Some(())
    }
    let mut out = Vec::new();
    go(b, r, &mut 0, &mut out)?;
    Some(out)
}

/// CuTe's `composition(A, B)`: `R(c) = A(B(c))` with `B`'s structure, computed by the plain
/// [`composition`](fn@crate::algebra::composition) (the same conditions, the same errors), with
/// the kinds described in the [module docs](self). `A`'s strides may be basis elements (the
/// composition of an identity layout is a coordinate layout); `B`'s must be integers.
///
/// ```
/// use tessel_layout::typed::{TypedLayout, algebra::composition};
/// let a: TypedLayout = "(_6,_2):(_8,_2)".parse().unwrap();
/// let b: TypedLayout = "(_4,_3):(_3,_1)".parse().unwrap();
/// assert_eq!(composition(&a, &b).unwrap().to_string(), "((_2,_2),_3):((_24,_2),_8)");
/// // The identity layout of an 8 x 16 tile, read as 32 rows of 4: coordinates, not offsets.
/// let id = TypedLayout::identity(&"(_8,_16)".parse().unwrap()).unwrap();
/// let r = composition(&id, &"(_4,_32):(_32,_1)".parse().unwrap()).unwrap();
/// assert_eq!(r.to_string(), "(_4,(_8,_4)):(_4@1,(_1@0,_1@1))");
/// ```
pub fn composition(a: &TypedLayout, b: &TypedLayout) -> Result<TypedLayout> {
    let b_values = b.values().map_err(|e| {
        e.context(format!(
            "composition {a} o {b}: the right operand needs integer strides"
        ))
    })?;
    let runs = runs_of(a);
    // The stand-in: A's modes with distinct prime strides larger than every extent of A and
    // every stride of B, so that every stride of the result is m * p for exactly one mode.
    let bound = runs
        .iter()
        .map(|r| r.extent)
        .chain(b_values.stride().iter_leaves().map(|d| d.saturating_abs()))
        .max()
        .unwrap_or(1)
        .max(1);
    if bound > STAND_IN_LIMIT {
        // The stand-in's strides would not fit: integer strides take the plain composition
        // (kinds over the whole operands); basis strides have no other way.
        if let (Ok(plain), Ok(_)) = (a.values(), b.values()) {
            return lift(
                a.is_static() && b.is_static(),
                crate::algebra::composition(&plain, &b_values),
            );
        }
        return Err(Error::invalid(format!(
            "composition {a} o {b}: an extent or stride beyond {STAND_IN_LIMIT} in a composition \
             of basis strides (its stand-in integer layout would overflow i64)"
        )));
    }
    let primes = primes_above(bound, runs.len())?;
    let stand_in = Layout::new(
        IntTuple::Tuple(runs.iter().map(|r| IntTuple::Int(r.extent)).collect()),
        IntTuple::Tuple(primes.iter().map(|&p| IntTuple::Int(p)).collect()),
    )
    .map_err(|e| {
        e.context(format!(
            "composition {a} o {b}: the stand-in layout of A's modes overflows (extents and \
             strides this large are not supported for typed layouts)"
        ))
    })?;
    let stand_r = crate::algebra::composition(&stand_in, &b_values).map_err(|e| {
        // The stand-in has A's extents: the conditions that fail are the plain ones, stated
        // for A itself.
        match a.values() {
            Ok(plain) => crate::algebra::composition(&plain, &b_values)
                .err()
                .unwrap_or(e),
            Err(_) => {
                let condition = e
                    .message()
                    .split_once("): ")
                    .map_or(e.message(), |(_, rest)| rest)
                    .to_string();
                Error::new(
                    e.kind(),
                    format!("composition {a} o {b} is not admissible: {condition}"),
                )
            }
        }
    })?;
    let b_leaves: Vec<(Integer, Integer)> = b
        .shape()
        .iter_leaves()
        .copied()
        .zip(b.stride().iter_leaves().map(|d| d.value()))
        .collect();
    let origins = leaf_origins(b.shape(), stand_r.shape()).ok_or_else(|| {
        Error::invalid(format!(
            "internal: composition {a} o {b} changed B's structure"
        ))
    })?;
    let last_run = runs.len().saturating_sub(1);
    let extents_static_before =
        |k: usize| runs[..k].iter().all(|r| r.extent_static) && runs[k].prefix_static;
    let mut result_shape_leaves = Vec::new();
    let mut result_stride_leaves = Vec::new();
    for (leaf, (&ext, &d)) in stand_r
        .shape()
        .iter_leaves()
        .zip(stand_r.stride().iter_leaves())
        .enumerate()
    {
        let (b_ext, b_str) = b_leaves[origins[leaf]];
        let b_static = b_ext.is_static() && b_str.is_static();
        if d == 0 {
            // A stride-0 piece is B's leaf `s:0` itself, or B's leaf of extent 1.
            let zero = b_str.is_static() && (b_str.value() == 0 || b_ext.is_static());
            result_shape_leaves.push(Integer::of(ext, b_ext.is_static()));
            // A static zero is `_0`; a dynamic one keeps a direction of A (CuTe's
            // `A-stride * 0`), so that it adds to coordinates.
            let stride = match runs.first() {
                Some(run) if !zero => run.stride.scaled(|_| Ok(Integer::Dynamic(0)))?,
                _ => ScaledBasis::from(Integer::of(0, zero)),
            };
            result_stride_leaves.push(stride);
            continue;
        }
        let (k, m) = primes
            .iter()
            .enumerate()
            .find_map(|(k, &p)| (d % p == 0).then_some((k, d / p)))
            .ok_or_else(|| {
                Error::invalid(format!(
                    "internal: composition {a} o {b}: the stride {d} decodes to no mode"
                ))
            })?;
        let run = &runs[k];
        let upto = if k == last_run { k } else { k + 1 };
        let ext_static =
            b_static && runs[..upto].iter().all(|r| r.extent_static) && run.prefix_static;
        // A piece of extent 1 takes its stride from where the composition puts an extent-1 leaf,
        // which depends on B's extent being 1.
        let stride_static = b_str.is_static()
            && run.stride_static
            && extents_static_before(k)
            && (ext != 1 || b_ext.is_static());
        let stride = run
            .stride
            .scaled(|v| v.times(Integer::Dynamic(m)))?
            .scaled(|v| Ok(Integer::of(v.value(), stride_static)))?;
        result_shape_leaves.push(Integer::of(ext, ext_static));
        result_stride_leaves.push(stride);
    }
    let mut shapes = result_shape_leaves.into_iter();
    let mut strides = result_stride_leaves.into_iter();
    let shape = stand_r
        .shape()
        .map(&mut |_| shapes.next().unwrap_or(Integer::Dynamic(1)));
    let stride = stand_r.stride().map(&mut |_| {
        strides
            .next()
            .unwrap_or_else(|| ScaledBasis::from(Integer::Dynamic(0)))
    });
    let result = TypedLayout::new(shape, stride)?;
    // With integer strides, the values are the plain composition's, exactly.
    if let Ok(plain) = a.values() {
        let expected = crate::algebra::composition(&plain, &b_values)?;
        if result.values().ok().as_ref() != Some(&expected) {
            return lift(a.is_static() && b.is_static(), Ok(expected));
        }
    }
    Ok(result)
}

/// Composition with a tiler: a layout tiler is [`composition`]; a by-mode tiler composes
/// mode `i` of `A` with tiler `i`, keeping `A`'s modes past the tiler's rank.
///
/// ```
/// use tessel_layout::typed::{TypedLayout, algebra::{compose_tiler, TypedTiler}};
/// let a: TypedLayout = "(12,(4,8)):(59,(13,1))".parse().unwrap();
/// let t: TypedTiler = "[_3:_4,_8:_2]".parse().unwrap();
/// // CuTe media/docs/cpp/cute/02_layout_algebra.md, "By-mode Composition".
/// assert_eq!(compose_tiler(&a, &t).unwrap().values().unwrap().to_string(), "(3,(2,4)):(236,(26,1))");
/// ```
pub fn compose_tiler(a: &TypedLayout, tiler: &TypedTiler) -> Result<TypedLayout> {
    by_mode(a, tiler, "composition", &composition)
}

/// `op(A_i, T_i)` for every mode `i` of a by-mode tiler, `A`'s modes past its rank kept;
/// `op(A, T)` for a layout tiler.
fn by_mode(
    a: &TypedLayout,
    tiler: &TypedTiler,
    name: &str,
    op: &dyn Fn(&TypedLayout, &TypedLayout) -> Result<TypedLayout>,
) -> Result<TypedLayout> {
    match tiler {
        TypedTiler::Layout(t) => op(a, t),
        TypedTiler::ByMode(parts) => {
            if parts.len() > a.rank() {
                return Err(Error::invalid(format!(
                    "{name} of {a} by a by-mode tiler of rank {}: the tiler's rank must not \
                     exceed the layout's rank {}",
                    parts.len(),
                    a.rank()
                )));
            }
            let modes = a
                .modes()
                .into_iter()
                .enumerate()
                .map(|(i, m)| match parts.get(i) {
                    Some(t) => by_mode(&m, t, name, op),
                    None => Ok(m),
                })
                .collect::<Result<Vec<_>>>()?;
            Ok(TypedLayout::from_modes(modes))
        }
    }
}

/// CuTe's `complement(B, cotarget)`: the plain [`complement_to_shape`](crate::complement_to_shape)
/// with kinds: the strides static when `B` is, the extents too, and the last extent (the one
/// reaching the cotarget) only when the cotarget also is.
///
/// ```
/// use tessel_layout::typed::{TypedLayout, algebra::complement};
/// let b: TypedLayout = "_4:_2".parse().unwrap();
/// assert_eq!(complement(&b, &"_24".parse().unwrap()).unwrap().to_string(), "(_2,_3):(_1,_8)");
/// assert_eq!(complement(&b, &"24".parse().unwrap()).unwrap().to_string(), "(_2,3):(_1,_8)");
/// ```
pub fn complement(b: &TypedLayout, cotarget: &TypedShape) -> Result<TypedLayout> {
    let plain = crate::algebra::complement_to_shape(&b.values()?, &cotarget.values())?;
    let b_static = b.is_static();
    let co_static = b_static && cotarget.is_static();
    let n = plain.shape().leaf_slice().len();
    let mut k = 0usize;
    let shape = plain.shape().map(&mut |&v| {
        k += 1;
        Integer::of(v, if k == n { co_static } else { b_static })
    });
    // Every stride is a product of B's leaves, except in `1:0`, what is left when the cotarget
    // needs no mode: its 0 depends on the cotarget too.
    let empty = plain.size() == 1 && plain.stride().iter_leaves().all(|&d| d == 0);
    let stride = plain
        .stride()
        .map(&mut |&v| ScaledBasis::from(Integer::of(v, if empty { co_static } else { b_static })));
    TypedLayout::new(shape, stride)
}

/// CuTe's `logical_divide(A, T)`: `A o (T, complement(T, size(A)))` for a layout tiler, mode by
/// mode for a by-mode tiler.
///
/// ```
/// use tessel_layout::typed::{TypedLayout, algebra::{logical_divide, TypedTiler}};
/// // CuTe 02_layout_algebra.md, "Logical Divide 1-D Example", with static integers.
/// let a: TypedLayout = "(_4,_2,_3):(_2,_1,_8)".parse().unwrap();
/// let t: TypedTiler = "_4:_2".parse().unwrap();
/// assert_eq!(logical_divide(&a, &t).unwrap().to_string(), "((_2,_2),(_2,_3)):((_4,_1),(_2,_8))");
/// ```
pub fn logical_divide(a: &TypedLayout, tiler: &TypedTiler) -> Result<TypedLayout> {
    by_mode(a, tiler, "logical_divide", &|a, t| {
        let rest = complement(t, &IntTuple::Int(a.size()))?;
        composition(a, &TypedLayout::from_modes([t.clone(), rest]))
    })
}

/// The tile and rest halves of `logical_divide(A, T)`: for a layout tiler its two modes; for a
/// by-mode tiler the tile of every tiled mode and the rests followed by `A`'s untiled modes.
fn halves(a: &TypedLayout, tiler: &TypedTiler) -> Result<(Vec<TypedLayout>, Vec<TypedLayout>)> {
    let divided = logical_divide(a, tiler)?;
    match tiler {
        TypedTiler::Layout(_) => Ok((vec![divided.mode(0)?], vec![divided.mode(1)?])),
        TypedTiler::ByMode(parts) => {
            let (mut tiles, mut rests) = (Vec::new(), Vec::new());
            let mut extra = Vec::new();
            for (i, m) in divided.modes().into_iter().enumerate() {
                if i < parts.len() {
                    tiles.push(m.mode(0)?);
                    rests.push(m.mode(1)?);
                } else {
                    extra.push(m);
                }
            }
            rests.extend(extra);
            Ok((tiles, rests))
        }
    }
}

fn one_or_tuple(mut modes: Vec<TypedLayout>) -> TypedLayout {
    if modes.len() == 1 {
        modes.pop().expect("one mode")
    } else {
        TypedLayout::from_modes(modes)
    }
}

/// CuTe's `zipped_divide(A, T)`: `(tile, rest)`, the tile modes gathered in mode 0 and the
/// rest (with `A`'s untiled modes) in mode 1.
///
/// ```
/// use tessel_layout::typed::{TypedLayout, algebra::{zipped_divide, TypedTiler}};
/// let a: TypedLayout = "(_8,_8):(_1,_8)".parse().unwrap();
/// let t: TypedTiler = "[_2:_1,_4:_1]".parse().unwrap();
/// assert_eq!(zipped_divide(&a, &t).unwrap().to_string(), "((_2,_4),(_4,_2)):((_1,_8),(_2,_32))");
/// ```
pub fn zipped_divide(a: &TypedLayout, tiler: &TypedTiler) -> Result<TypedLayout> {
    let (tiles, rests) = halves(a, tiler)?;
    Ok(TypedLayout::from_modes([
        one_or_tuple(tiles),
        one_or_tuple(rests),
    ]))
}

/// CuTe's `tiled_divide(A, T)`: `(tile, rest modes...)`.
///
/// ```
/// use tessel_layout::typed::{TypedLayout, algebra::{tiled_divide, TypedTiler}};
/// let a: TypedLayout = "(_8,_8):(_1,_8)".parse().unwrap();
/// let t: TypedTiler = "[_2:_1,_4:_1]".parse().unwrap();
/// assert_eq!(tiled_divide(&a, &t).unwrap().to_string(), "((_2,_4),_4,_2):((_1,_8),_2,_32)");
/// ```
pub fn tiled_divide(a: &TypedLayout, tiler: &TypedTiler) -> Result<TypedLayout> {
    let (tiles, rests) = halves(a, tiler)?;
    let mut modes = vec![one_or_tuple(tiles)];
    modes.extend(flat_rest(rests)?);
    Ok(TypedLayout::from_modes(modes))
}

/// CuTe's `flat_divide(A, T)`: `(tile modes..., rest modes...)`.
///
/// ```
/// use tessel_layout::typed::{TypedLayout, algebra::{flat_divide, TypedTiler}};
/// let a: TypedLayout = "(_8,_8):(_1,_8)".parse().unwrap();
/// let t: TypedTiler = "[_2:_1,_4:_1]".parse().unwrap();
/// assert_eq!(flat_divide(&a, &t).unwrap().to_string(), "(_2,_4,_4,_2):(_1,_8,_2,_32)");
/// ```
pub fn flat_divide(a: &TypedLayout, tiler: &TypedTiler) -> Result<TypedLayout> {
    let (tiles, rests) = halves(a, tiler)?;
    let mut modes = match tiler {
        TypedTiler::Layout(_) => tiles[0].modes_or_self(),
        TypedTiler::ByMode(_) => tiles,
    };
    modes.extend(flat_rest(rests)?);
    Ok(TypedLayout::from_modes(modes))
}

/// The rest modes as top-level modes (a layout tiler's one rest mode spread into its modes).
fn flat_rest(rests: Vec<TypedLayout>) -> Result<Vec<TypedLayout>> {
    if let [one] = rests.as_slice() {
        return Ok(one.modes_or_self());
    }
    Ok(rests)
}

impl TypedLayout {
    /// The top-level modes of a tuple-shaped layout, or the layout itself for an integer shape.
    fn modes_or_self(&self) -> Vec<TypedLayout> {
        if self.shape().is_int() {
            vec![self.clone()]
        } else {
            self.modes()
        }
    }
}

/// CuTe's `local_tile(A, tiler, coord)`: the tile at `coord` of `zipped_divide(A, tiler)`, and
/// the value (an integer, or a coordinate for basis strides) where it starts.
///
/// ```
/// use tessel_layout::typed::{TypedLayout, algebra::{local_tile, TypedTiler}};
/// // Predication: the identity layout of a 100 x 70 problem, tiled by 32 x 32: tile (3,2)
/// // holds the coordinates (96..128, 64..96), of which (96..100, 64..70) are in bounds.
/// let id = TypedLayout::identity(&"(100,70)".parse().unwrap()).unwrap();
/// let t: TypedTiler = "[_32:_1,_32:_1]".parse().unwrap();
/// let (tile, start) = local_tile(&id, &t, &"(3,2)".parse().unwrap()).unwrap();
/// assert_eq!(tile.to_string(), "(_32,_32):(_1@0,_1@1)");
/// assert_eq!(start.to_string(), "(96,64)");
/// ```
pub fn local_tile(
    a: &TypedLayout,
    tiler: &TypedTiler,
    coord: &SliceCoord,
) -> Result<(TypedLayout, TypedShape)> {
    let what = format!("local_tile of {a} by {tiler} at {coord}");
    let inner = || -> Result<(TypedLayout, TypedShape)> {
        let zipped = zipped_divide(a, tiler)?;
        let tile_rank = zipped.mode(0)?.rank();
        let rest_rank = zipped.mode(1)?.rank();
        let rest = local::pad_coord(coord, rest_rank, "the tile coordinate")?;
        zipped.slice(&SliceCoord::Tuple(vec![local::keep_all(tile_rank), rest]))
    };
    inner().map_err(|e| e.context(what))
}

/// CuTe's `local_partition(A, thr, index)`: thread `index`'s elements of every `thr`-shaped
/// tile of `A`, and where they start; the thread layout's values choose the thread's
/// coordinate (it must be compact, as CuTe's `get_flat_coord` needs).
///
/// ```
/// use tessel_layout::typed::{TypedLayout, algebra::local_partition};
/// // 8 x 8 threads over the identity layout of a 64 x 32 tile: thread 9 is (1,1).
/// let id = TypedLayout::identity(&"(_64,_32)".parse().unwrap()).unwrap();
/// let thr: TypedLayout = "(_8,_8)".parse().unwrap();
/// let (part, start) = local_partition(&id, &thr, 9).unwrap();
/// assert_eq!(part.to_string(), "(_8,_4):(_8@0,_8@1)");
/// assert_eq!(start.to_string(), "(1,1)");
/// ```
pub fn local_partition(
    a: &TypedLayout,
    thr: &TypedLayout,
    index: i64,
) -> Result<(TypedLayout, TypedShape)> {
    let what = format!("local_partition of {a} over the threads {thr} for thread {index}");
    let inner = || -> Result<(TypedLayout, TypedShape)> {
        let thr_values = thr.values()?;
        let coord = local::thread_coord(&thr_values, index)?;
        let sizes: Vec<Integer> = thr
            .shape()
            .modes()
            .iter()
            .map(|m| crate::int_tuple::arith::product(&m))
            .collect::<Result<_>>()?;
        let tile_of = |n: Integer| -> Result<TypedLayout> {
            TypedLayout::new(
                IntTuple::Int(n),
                IntTuple::Int(ScaledBasis::from(Integer::Static(1))),
            )
        };
        let tiler = match thr.shape() {
            IntTuple::Int(_) => TypedTiler::Layout(Box::new(tile_of(sizes[0])?)),
            IntTuple::Tuple(_) => TypedTiler::ByMode(
                sizes
                    .into_iter()
                    .map(|n| tile_of(n).map(|l| TypedTiler::Layout(Box::new(l))))
                    .collect::<Result<_>>()?,
            ),
        };
        let zipped = zipped_divide(a, &tiler)?;
        let tile_rank = zipped.mode(0)?.rank();
        let rest_rank = zipped.mode(1)?.rank();
        let tile = local::pad_coord(&coord, tile_rank, "the thread coordinate")?;
        zipped.slice(&SliceCoord::Tuple(vec![tile, local::keep_all(rest_rank)]))
    };
    inner().map_err(|e| e.context(what))
}
