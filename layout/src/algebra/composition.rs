//! composition: `R = A o B` with `R(c) = A(B(c))` for every coordinate `c` of `B`.
//!
//! ```
//! use tessel_layout::{composition, ErrorKind, Layout};
//! // CuTe docs (docs/semantics.md): 20:2 o (5,4):(4,1) = (5,4):(8,2).
//! let a: Layout = "20:2".parse().unwrap();
//! let b: Layout = "(5,4):(4,1)".parse().unwrap();
//! assert_eq!(composition(&a, &b).unwrap().to_string(), "(5,4):(8,2)");
//! // CUTLASS issue 3177: rejected rather than answered wrongly.
//! let a: Layout = "(4,6,8):(2,3,5)".parse().unwrap();
//! let err = composition(&a, &"6:3".parse().unwrap()).unwrap_err();
//! assert_eq!(err.kind(), ErrorKind::Inadmissible);
//! ```

use super::Tiler;
use super::flat::{Modes, ceil_div, coalesce_in_place, continues, modes_of, node_of_modes};
use super::tiler::by_mode;
use smallvec::SmallVec;

use crate::int_tuple::store;
use crate::layout::Bounds;
use crate::{Error, IntTuple, Layout, Result, checked_mul};

/// `A` as a function on all non-negative integers: its flat modes coalesced, where the last
/// mode is unbounded (CuTe lets an index past `size(A)` run on in the last mode).
pub(crate) struct Extended {
    /// Coalesced modes before the last one.
    pub(crate) inner: Modes,
    /// Stride of the last (unbounded) mode.
    pub(crate) last_stride: i64,
}

impl Extended {
    /// Coalesces `a` the way CuTe's `coalesce_x` does: it keeps `a`'s value at every index,
    /// inside and past its domain.
    pub(crate) fn of(a: &Layout) -> Extended {
        Extended::of_modes(modes_of(a))
    }

    /// [`Extended::of`] the layout whose flat modes are `modes`.
    pub(crate) fn of_modes(mut modes: Modes) -> Extended {
        let Some(last) = modes.pop() else {
            return Extended {
                inner: modes,
                last_stride: 0,
            };
        };
        coalesce_in_place(&mut modes);
        let mut last_stride = last.1;
        if let Some(&prev) = modes.last() {
            if continues(prev, last_stride) {
                modes.pop();
                last_stride = prev.1;
            }
        }
        Extended {
            inner: modes,
            last_stride,
        }
    }
}

/// A node of `B` for [`compose_extended`]: a (sub)tree of a layout, or a flat list of modes
/// (a leaf for one mode, a flat tuple otherwise, `1:0` for none) that need not be built.
#[derive(Clone, Copy)]
pub(crate) enum Node<'a> {
    /// `shape:stride` of a layout.
    Tree(&'a IntTuple, &'a IntTuple),
    /// Flat modes.
    Flat(&'a [(i64, i64)]),
}

/// Functional composition `A o B`: the layout `R` with `R(c) = A(B(c))` for every coordinate
/// `c` of `B`, whose shape has `B`'s structure (every leaf of `B` becomes a leaf or a flat tuple).
///
/// `A` is read as a function on all non-negative integers (CuTe's convention: indices past
/// `size(A)` continue in `A`'s last mode), so `B`'s image may run past `size(A)`.
///
/// Each leaf `s:d` of `B` is composed with `A` flattened and coalesced, `(a0,a1,...):(e0,e1,...)`,
/// by dividing the stride `d` out of the extents from the left and then keeping `s` elements.
/// At every mode (except the last) the current stride `r` and remaining extent `m` must satisfy
/// - the **stride divisibility condition**: `a_k % r == 0`, or `r % a_k == 0`, or all `m`
///   remaining elements lie inside that mode (`r*(m-1) < a_k`);
/// - the **shape divisibility condition**: when `r` divides `a_k` into `q = a_k/r` steps and
///   `m > q`, then `q` divides `m`.
///
/// Across all leaves of `B` (which add up: `B(c)` is the sum over its leaves) the result is the
/// sum of the per-leaf results only if no carry happens between `A`'s modes, so tessel also checks
/// - the **disjointness condition**: in every mode `k` of `A` but the last, the largest
///   coordinates the leaves of `B` occupy add up to less than `a_k`. It holds for an injective
///   `B` whose leaves split `A`'s modes cleanly (e.g. any injective power-of-two `B`); CuTe does
///   not check it, and without it the per-leaf result differs from `A(B(c))` — e.g.
///   `(4,4):(1,10) o (2,2):(2,2)` at `c = (1,1)`.
///
/// An inadmissible composition is an [`ErrorKind::Inadmissible`](crate::ErrorKind) error naming
/// the condition and both operands; tessel never returns a layout that disagrees with
/// `A(B(c))`. (CuTe C++ only checks `r < a_k` and returns the wrong `(2,3):(6,3)` for
/// `(4,6,8):(2,3,5) o 6:3`, CUTLASS issue 3177.) Stride-0 leaves of `B` give stride-0 leaves.
///
/// **Negative strides in `B`.** A leaf `s:-d` of `B` maps into negative indices of `A`. CuTe
/// evaluates `A` at a negative index `-x` by C++'s truncating division, which gives every
/// coordinate of `x` negated, so `A(-x) == -A(x)`; the leaf's result is the result for `s:d`
/// with its strides negated (`4:1 o 4:-1 = 4:-1`). When `B` has leaves of both signs, the sum
/// of a positive and a negative index borrows between `A`'s modes, so such a `B` is admissible
/// only where no leaf reaches a bounded mode of `A` (the **sign condition**; e.g. `A` with a
/// single mode). CuTe does not check this.
///
/// ```
/// use tessel_layout::{composition, ErrorKind, Layout};
/// // CuTe docs (02_layout_algebra.md).
/// let a: Layout = "(6,2):(8,2)".parse().unwrap();
/// let b: Layout = "(4,3):(3,1)".parse().unwrap();
/// assert_eq!(composition(&a, &b).unwrap().to_string(), "((2,2),3):((24,2),8)");
/// let a: Layout = "20:2".parse().unwrap();
/// let b: Layout = "(5,4):(4,1)".parse().unwrap();
/// assert_eq!(composition(&a, &b).unwrap().to_string(), "(5,4):(8,2)");
/// // CUTLASS issue 3177: rejected, not miscomputed.
/// let a: Layout = "(4,6,8):(2,3,5)".parse().unwrap();
/// let b: Layout = "6:3".parse().unwrap();
/// let err = composition(&a, &b).unwrap_err();
/// assert_eq!(err.kind(), ErrorKind::Inadmissible);
/// assert!(err.message().contains("stride divisibility"));
/// // B overlaps itself: (4,4):(1,10) o (2,2):(2,2) would need A(4) = 10 at c = (1,1).
/// let a: Layout = "(4,4):(1,10)".parse().unwrap();
/// let err = composition(&a, &"(2,2):(2,2)".parse().unwrap()).unwrap_err();
/// assert!(err.message().contains("disjointness"));
/// // CuTe test/unit/cute/core/composition.cpp: negative strides in B.
/// let a: Layout = "4:1".parse().unwrap();
/// assert_eq!(composition(&a, &"4:-1".parse().unwrap()).unwrap().to_string(), "4:-1");
/// let a: Layout = "(1,(2,4)):(0,(-1,512))".parse().unwrap();
/// assert_eq!(composition(&a, &"4:-1".parse().unwrap()).unwrap().to_string(), "(2,2):(1,-512)");
/// ```
pub fn composition(a: &Layout, b: &Layout) -> Result<Layout> {
    let ext = Extended::of(a);
    compose_extended(&ext, &[Node::Tree(b.shape(), b.stride())]).map_err(|e| describe(a, b, e))
}

/// `A o B` for `A` given by [`Extended::of`] and `B` given by its top-level nodes: one node is
/// `B` itself, several are the modes of `B` (and the result has one mode per node). Errors are
/// those of [`composition`] without its description of the operands.
pub(crate) fn compose_extended(ext: &Extended, nodes: &[Node<'_>]) -> Result<Layout> {
    let (shape, stride, bounds) = match nodes {
        // One leaf: its result's modes need no builder.
        [Node::Tree(IntTuple::Int(s), IntTuple::Int(d))] => {
            let mut usage = Usage::new(ext);
            let mut modes = Modes::new();
            leaf_result(ext, *s, *d, &mut usage, &mut modes)?;
            check_disjoint(ext, &usage)?;
            let (shape, stride) = node_of_modes(&modes);
            (shape, stride, usage.bounds)
        }
        _ => {
            let mut built = Built::default();
            let bounds = compose_nodes_into(ext, nodes, &mut built)?;
            let (shape, stride) = if let [_] = nodes {
                built.single()
            } else {
                built.finish(nodes.len())
            };
            (shape, stride, bounds)
        }
    };
    match bounds {
        Some(b) if b.fits() => Ok(Layout::from_checked_parts(shape, stride)),
        // Reports the failed check.
        _ => Layout::new(shape, stride),
    }
}

/// Appends the result of `A o B` to `out`, one element per node of `B` (see
/// [`compose_extended`]), after checking the disjointness and sign conditions; returns the
/// checks of [`Layout::new`] folded over the appended leaves (`None` once one fails).
pub(crate) fn compose_nodes_into(
    ext: &Extended,
    nodes: &[Node<'_>],
    out: &mut Built,
) -> Result<Option<Bounds>> {
    let mut usage = Usage::new(ext);
    // The modes of one leaf's result, reused for every leaf.
    let mut scratch = Modes::new();
    for node in nodes {
        compose_node_into(ext, *node, &mut usage, &mut scratch, out)?;
    }
    check_disjoint(ext, &usage)?;
    Ok(usage.bounds)
}

/// The error of `a o b`, naming both operands and `a` coalesced.
fn describe(a: &Layout, b: &Layout, e: Error) -> Error {
    {
        let what = match e.kind() {
            crate::ErrorKind::Overflow => "overflows",
            _ => "is inadmissible",
        };
        Error::new(
            e.kind(),
            format!(
                "composition {a} o {b} {what} (A coalesced: {}): {}",
                super::coalesce(a).map_or_else(|_| a.to_string(), |c| c.to_string()),
                e.message()
            ),
        )
    }
}

/// What the leaves of `B` occupy in `A`: per bounded mode of `A` the largest coordinate they
/// add up to, and the signs of the leaves that reach past index 0.
struct Usage {
    reach: smallvec::SmallVec<[i64; 8]>,
    /// Per mode of `A` (the last, unbounded one included): whether a leaf of positive / of
    /// negative stride moves its coordinate.
    signs: smallvec::SmallVec<[(bool, bool); 8]>,
    /// The sign of the leaf being composed.
    negative_now: bool,
    /// The checks of [`Layout::new`] on the result's leaves so far; `None` once one fails.
    bounds: Option<Bounds>,
}

impl Usage {
    /// Nothing occupied yet in the modes of `ext`.
    fn new(ext: &Extended) -> Usage {
        Usage {
            reach: smallvec::smallvec![0i64; ext.inner.len()],
            signs: smallvec::smallvec![(false, false); ext.inner.len() + 1],
            negative_now: false,
            bounds: Some(Bounds::EMPTY),
        }
    }
}

/// Appends `A o node` to `out` as one element: `node`'s nesting, every leaf of `node` replaced
/// by its result (a leaf for one mode, a flat node otherwise).
fn compose_node_into(
    ext: &Extended,
    node: Node<'_>,
    usage: &mut Usage,
    scratch: &mut Modes,
    out: &mut Built,
) -> Result<()> {
    match node {
        Node::Tree(IntTuple::Int(s), IntTuple::Int(d)) => {
            leaf_result(ext, *s, *d, usage, scratch)?;
            out.push_leaf_result(scratch);
        }
        Node::Tree(IntTuple::Tuple(ss), IntTuple::Tuple(ds)) if ss.codes() == ds.codes() => {
            store::push_node_code(&mut out.codes, ss.len());
            let (codes, shapes, strides) = (ss.codes(), ss.leaf_slice(), ds.leaf_slice());
            let (mut k, mut leaf) = (0, 0);
            while k < codes.len() {
                let (arity, next) = store::read_code(codes, k);
                match arity {
                    None => {
                        leaf_result(ext, shapes[leaf], strides[leaf], usage, scratch)?;
                        out.push_leaf_result(scratch);
                        leaf += 1;
                    }
                    // B's nodes are the result's nodes.
                    Some(_) => out.codes.extend_from_slice(&codes[k..next]),
                }
                k = next;
            }
        }
        Node::Tree(..) => return Err(Error::invalid("internal: shape and stride not congruent")),
        Node::Flat([]) => {
            leaf_result(ext, 1, 0, usage, scratch)?;
            out.push_leaf_result(scratch);
        }
        Node::Flat(&[(s, d)]) => {
            leaf_result(ext, s, d, usage, scratch)?;
            out.push_leaf_result(scratch);
        }
        Node::Flat(modes) => {
            store::push_node_code(&mut out.codes, modes.len());
            for &(s, d) in modes {
                leaf_result(ext, s, d, usage, scratch)?;
                out.push_leaf_result(scratch);
            }
        }
    }
    Ok(())
}

/// The structure codes and leaves of a result tuple being built (on the stack for small ones):
/// `B`'s structure with every leaf replaced by its result.
#[derive(Default)]
pub(crate) struct Built {
    pub(crate) codes: SmallVec<[u8; 16]>,
    pub(crate) shapes: SmallVec<[i64; 8]>,
    pub(crate) strides: SmallVec<[i64; 8]>,
}

impl Built {
    /// Appends the result of one leaf of `B`: a leaf for one mode, a flat node otherwise.
    fn push_leaf_result(&mut self, modes: &[(i64, i64)]) {
        if modes.len() != 1 {
            store::push_node_code(&mut self.codes, modes.len());
        }
        for &mode in modes {
            self.push_leaf(mode);
        }
    }

    /// Appends one leaf `s:d`.
    pub(crate) fn push_leaf(&mut self, (s, d): (i64, i64)) {
        self.codes.push(store::LEAF);
        self.shapes.push(s);
        self.strides.push(d);
    }

    /// Appends the whole of `layout` as one element (a leaf, or a node).
    pub(crate) fn push_layout(&mut self, layout: &Layout) -> Result<()> {
        match (layout.shape(), layout.stride()) {
            (IntTuple::Tuple(ss), IntTuple::Tuple(ds)) => {
                store::push_node_code(&mut self.codes, ss.len());
                self.push_elements(ss, ds);
            }
            (IntTuple::Int(s), IntTuple::Int(d)) => self.push_leaf((*s, *d)),
            _ => return Err(Error::invalid("internal: shape and stride not congruent")),
        }
        Ok(())
    }

    /// Appends the elements of `other` as they are.
    pub(crate) fn append(&mut self, other: Built) {
        self.codes.extend_from_slice(&other.codes);
        self.shapes.extend_from_slice(&other.shapes);
        self.strides.extend_from_slice(&other.strides);
    }

    /// Appends a node of the `arity` elements of `body`.
    pub(crate) fn push_node(&mut self, arity: usize, body: Built) {
        store::push_node_code(&mut self.codes, arity);
        self.append(body);
    }

    /// Whether the leaves pass the checks of [`Layout::new`] ([`Bounds`]), and their size.
    pub(crate) fn checked_size(&self) -> Option<i64> {
        Bounds::of_modes(
            self.shapes
                .iter()
                .copied()
                .zip(self.strides.iter().copied()),
        )
        .filter(|b| b.fits())
        .map(|b| b.size)
    }

    /// Appends the elements of the congruent tuples `ss:ds` (without a node around them).
    pub(crate) fn push_elements(&mut self, ss: &crate::Modes, ds: &crate::Modes) {
        self.codes.extend_from_slice(ss.codes());
        self.shapes.extend_from_slice(ss.leaf_slice());
        self.strides.extend_from_slice(ds.leaf_slice());
    }

    /// The shape and stride of the one element built: a leaf, or a node.
    fn single(self) -> (IntTuple, IntTuple) {
        match store::read_code(&self.codes, 0) {
            (None, _) => (
                IntTuple::Int(self.shapes[0]),
                IntTuple::Int(self.strides[0]),
            ),
            (Some(arity), body) => {
                let codes = &self.codes[body..];
                (
                    IntTuple::Tuple(crate::Modes::from_raw_parts(arity, codes, &self.shapes)),
                    IntTuple::Tuple(crate::Modes::from_raw_parts(arity, codes, &self.strides)),
                )
            }
        }
    }

    /// The layout whose shape and stride are tuples of the `arity` elements built, or `None`
    /// when its leaves fail the checks of [`Layout::new`] ([`Built::checked_size`]).
    pub(crate) fn into_checked_layout(self, arity: usize) -> Option<Layout> {
        self.checked_size()?;
        let (shape, stride) = self.finish(arity);
        Some(Layout::from_checked_parts(shape, stride))
    }

    /// The result's shape and stride, tuples of `arity` elements.
    pub(crate) fn finish(self, arity: usize) -> (IntTuple, IntTuple) {
        (
            IntTuple::Tuple(crate::Modes::from_raw_parts(
                arity,
                &self.codes,
                &self.shapes,
            )),
            IntTuple::Tuple(crate::Modes::from_raw_parts(
                arity,
                &self.codes,
                &self.strides,
            )),
        )
    }
}

/// Checks that the leaves of `B` never carry into each other in `A`'s coordinates: for every
/// bounded mode `k` of `A`, the largest coordinate the leaves can add up to stays below its
/// extent, and leaves of both signs only meet in `A`'s unbounded last mode. Then `A(B(c))` is
/// the sum over `B`'s leaves of `A(B_leaf(c_leaf))`, which is what the by-leaf result computes.
fn check_disjoint(ext: &Extended, usage: &Usage) -> Result<()> {
    for (k, (&(a_k, _), &used)) in ext.inner.iter().zip(&usage.reach).enumerate() {
        if used >= a_k {
            return Err(Error::inadmissible(format!(
                "the disjointness condition fails: together the modes of B reach coordinate \
                 {used} of mode {k} of A, whose extent is {a_k}, so A(B(c)) carries between \
                 modes and is not the sum of A over B's modes (B's modes must occupy disjoint \
                 coordinates of A; B is not injective or overlaps itself in A)"
            )));
        }
    }
    // With A(-x) == -A(x), leaves of both signs that move one and the same mode of A (and no
    // other) add and subtract inside that mode; once they move two modes, a negative index
    // borrows from the next mode and A(B(c)) is no longer the sum of A over B's leaves.
    let positive = usage.signs.iter().any(|s| s.0);
    let negative = usage.signs.iter().any(|s| s.1);
    let moved = || -> Vec<usize> {
        (0..usage.signs.len())
            .filter(|&k| usage.signs[k].0 || usage.signs[k].1)
            .collect()
    };
    if positive && negative && moved().len() > 1 {
        let moved = moved();
        return Err(Error::inadmissible(format!(
            "the sign condition fails: B has modes with positive and with negative strides \
             and together they move modes {moved:?} of A, so a negative index borrows between \
             A's modes and A(B(c)) is not the sum of A over B's modes (leaves of both signs \
             must move one and the same mode of A)"
        )));
    }
    Ok(())
}

/// Records that a piece of `count` steps of `step` occupies mode `k` of `A`.
fn occupy(usage: &mut Usage, k: usize, count: i64, step: i64) -> Result<()> {
    let reach = checked_mul(count - 1, step, "the coordinates of the composition")?;
    if reach > 0 {
        let last = usage.signs.len() - 1;
        let moved = &mut usage.signs[k.min(last)];
        if usage.negative_now {
            moved.1 = true;
        } else {
            moved.0 = true;
        }
    }
    if let Some(u) = usage.reach.get_mut(k) {
        *u = u.saturating_add(reach);
    }
    Ok(())
}

/// The flat modes of `A o s:d` in `modes`; records the coordinates of `A` they occupy and the
/// bounds of the result's leaves in `usage`.
fn leaf_result(ext: &Extended, s: i64, d: i64, usage: &mut Usage, modes: &mut Modes) -> Result<()> {
    modes.clear();
    leaf_modes(ext, s, d, usage, modes)?;
    usage.bounds = usage
        .bounds
        .and_then(|b| modes.iter().try_fold(b, |b, &(s, d)| b.add(s, Some(d))));
    Ok(())
}

/// The flat modes of `A o s:d` (a leaf for one mode, a flat tuple otherwise).
fn leaf_modes(ext: &Extended, s: i64, d: i64, usage: &mut Usage, out: &mut Modes) -> Result<()> {
    let what = "the strides of the composition";
    if d == 0 {
        out.push((s, 0));
        return Ok(());
    }
    if s == 1 {
        // A single element: any stride represents it; use CuTe's (the carried stride).
        let mut r = d.saturating_abs();
        for &(a_k, _) in &ext.inner {
            r = ceil_div(r, a_k);
        }
        let stride = checked_mul(r * d.signum(), ext.last_stride, what)?;
        out.push((1, stride));
        return Ok(());
    }
    if d < 0 {
        // CuTe: A(-x) == -A(x), so s:d composes as s:|d| with its strides negated.
        usage.negative_now = true;
        let magnitude = d.checked_neg().ok_or_else(|| {
            Error::overflow(format!("the stride {d} of B cannot be negated in i64"))
        })?;
        positive_leaf(ext, s, magnitude, usage, out)?;
        for m in out.iter_mut() {
            m.1 = m
                .1
                .checked_neg()
                .ok_or_else(|| Error::overflow("the strides of the composition overflow i64"))?;
        }
        return Ok(());
    }
    usage.negative_now = false;
    positive_leaf(ext, s, d, usage, out)
}

/// `A o s:d` for a leaf with `s > 1` and `d > 0`.
fn positive_leaf(ext: &Extended, s: i64, d: i64, usage: &mut Usage, out: &mut Modes) -> Result<()> {
    let what = "the strides of the composition";
    let mut r = d; // stride still to divide out
    let mut m = s; // elements still to place
    for (k, &(a_k, e_k)) in ext.inner.iter().enumerate() {
        if m == 1 {
            break;
        }
        if r % a_k == 0 {
            r /= a_k;
            continue;
        }
        if a_k % r == 0 {
            let q = a_k / r;
            if m <= q {
                occupy(usage, k, m, r)?;
                out.push((m, checked_mul(r, e_k, what)?));
                m = 1;
            } else if m % q == 0 {
                occupy(usage, k, q, r)?;
                out.push((q, checked_mul(r, e_k, what)?));
                m /= q;
                r = 1;
            } else {
                return Err(Error::inadmissible(format!(
                    "the shape divisibility condition fails for the mode {s}:{d} of B: after \
                     dividing out the stride, mode {k} of A (extent {a_k}) holds {q} of the \
                     remaining {m} elements, and {q} does not divide {m}"
                )));
            }
            continue;
        }
        if r < a_k && r.checked_mul(m - 1).is_some_and(|x| x < a_k) {
            occupy(usage, k, m, r)?;
            out.push((m, checked_mul(r, e_k, what)?));
            m = 1;
            continue;
        }
        return Err(Error::inadmissible(format!(
            "the stride divisibility condition fails for the mode {s}:{d} of B: the remaining \
             stride {r} neither divides nor is a multiple of the extent {a_k} of mode {k} of A, \
             and the remaining {m} elements do not fit inside that mode"
        )));
    }
    if m != 1 || out.is_empty() {
        occupy(usage, ext.inner.len(), m, r)?;
        out.push((m, checked_mul(r, ext.last_stride, what)?));
    }
    Ok(())
}

/// Composition with a [`Tiler`]: a [`Tiler::Layout`] is plain [`composition`]; a by-mode tiler
/// `[T0, T1, ...]` composes mode `i` of `A` with `Ti` (recursively; `None` keeps the mode), and
/// keeps the modes of `A` past the tiler's rank. The tiler's rank may not exceed `A`'s.
///
/// ```
/// use tessel_layout::{compose_tiler, Layout, Tiler};
/// // CuTe docs (02_layout_algebra.md), by-mode composition with the tiler <3:4, 8:2>.
/// let a: Layout = "(12,(4,8)):(59,(13,1))".parse().unwrap();
/// let tiler = Tiler::ByMode(vec![
///     Some(Tiler::Layout("3:4".parse().unwrap())),
///     Some(Tiler::Layout("8:2".parse().unwrap())),
/// ]);
/// assert_eq!(compose_tiler(&a, &tiler).unwrap().to_string(), "(3,(2,4)):(236,(26,1))");
/// ```
pub fn compose_tiler(a: &Layout, tiler: &Tiler) -> Result<Layout> {
    match tiler {
        Tiler::Layout(b) => composition(a, b),
        Tiler::ByMode(parts) => by_mode(a, parts, "composition", compose_tiler),
    }
}
