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
use super::buf::Buf;
use super::built::{Appended, Built, same_codes};
use super::flat::{LeafSlices, Modes, ceil_div, continues, leaf_slices, push_coalesced};
use super::tiler::by_mode;

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
    /// Extent of the last mode before it is unbounded: `coalesce(A)` is `inner` followed by
    /// `last_extent:last_stride` (dropped when the extent is 1).
    pub(crate) last_extent: i64,
}

impl Extended {
    /// Makes `self` (empty, [`Extended::unit`]) `A` extended, for the layout `A` whose leaves
    /// are `shapes:strides`: `A` coalesced the way CuTe's `coalesce_x` does, which keeps `A`'s
    /// value at every index, inside and past its domain. One pass, in place: a returned
    /// `Extended` would be moved with wide loads right after its fields were written with
    /// narrow stores, which the processor cannot forward (a stall of some 15 cycles).
    #[inline(always)]
    pub(crate) fn fill_leaves(&mut self, (shapes, strides): LeafSlices<'_>) {
        self.fill(shapes.iter().copied().zip(strides.iter().copied()))
    }

    /// Makes `self` (empty, [`Extended::unit`]) [`Extended::fill_leaves`] of the layout whose flat
    /// modes are `modes` (borrowed: one pass, no copy of the list), in place.
    #[inline]
    pub(crate) fn fill_mode_slice(&mut self, modes: &[(i64, i64)]) {
        self.fill(modes.iter().copied())
    }

    /// Makes `self` (empty) [`Extended::fill_leaves`] of the layout whose flat modes are `modes`: every
    /// mode but the last coalesced into `inner`, the last one ending it
    /// ([`Extended::end_with`]); built in place (no move of the mode list).
    #[inline(always)]
    fn fill(&mut self, modes: impl Iterator<Item = (i64, i64)>) {
        let mut pending = None;
        for mode in modes {
            if let Some(before) = pending.replace(mode) {
                push_coalesced(&mut self.inner, before);
            }
        }
        if let Some(last) = pending {
            self.end_with(last);
        }
    }

    /// No modes: the extended layout of a layout without leaves.
    #[inline(always)]
    pub(crate) fn unit() -> Extended {
        Extended {
            inner: Modes::new(),
            last_stride: 0,
            last_extent: 1,
        }
    }

    /// Ends the coalesced modes `inner` with the mode `last`, which merges into the last of
    /// `inner` where it continues it.
    #[inline(always)]
    fn end_with(&mut self, last: (i64, i64)) {
        let (mut last_extent, mut last_stride) = last;
        if let Some(&prev) = self.inner.last() {
            if continues(prev, last_stride) {
                self.inner.pop();
                // A valid layout's extents multiply within i64 (as in coalescing).
                last_extent = prev.0.saturating_mul(last_extent);
                last_stride = prev.1;
            }
        }
        self.last_stride = last_stride;
        self.last_extent = last_extent;
    }

    /// The extents of `shape(coalesce(A))`, possibly with extents of 1 among them (which no
    /// shape division by them notices).
    pub(crate) fn coalesced_extents(&self) -> impl Iterator<Item = i64> + '_ {
        self.inner
            .iter()
            .map(|m| m.0)
            .chain(std::iter::once(self.last_extent))
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
/// `(4,6,8):(2,3,5) o 6:3`, [CUTLASS issue 3177](https://github.com/NVIDIA/cutlass/issues/3177).) Stride-0 leaves of `B` give stride-0 leaves.
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
/// // CuTe docs (media/docs/cpp/cute/02_layout_algebra.md, CUTLASS v4.2.1).
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
/// // CuTe test/unit/cute/core/composition.cpp (CUTLASS v4.2.1): negative strides in B.
/// let a: Layout = "4:1".parse().unwrap();
/// assert_eq!(composition(&a, &"4:-1".parse().unwrap()).unwrap().to_string(), "4:-1");
/// let a: Layout = "(1,(2,4)):(0,(-1,512))".parse().unwrap();
/// assert_eq!(composition(&a, &"4:-1".parse().unwrap()).unwrap().to_string(), "(2,2):(1,-512)");
/// ```
pub fn composition(a: &Layout, b: &Layout) -> Result<Layout> {
    let mut ext = Extended::unit();
    ext.fill_leaves(leaf_slices(a));
    compose_extended(&ext, &[Node::Tree(b.shape(), b.stride())]).map_err(|e| describe(a, b, e))
}

/// `A o B` for `A` given by [`Extended::fill_leaves`] and `B` given by its top-level nodes: one node is
/// `B` itself, several are the modes of `B` (and the result has one mode per node). Errors are
/// those of [`composition`] without its description of the operands.
pub(crate) fn compose_extended(ext: &Extended, nodes: &[Node<'_>]) -> Result<Layout> {
    let mut built = Built::new();
    let (element, bounds) = Composer::run(ext, Bounds::EMPTY, |composer| {
        let element = if let [node] = nodes {
            composer.elements_into(*node, &mut built)?
        } else {
            for node in nodes {
                composer.node_into(*node, &mut built)?;
            }
            Appended::Node(nodes.len())
        };
        Ok((element, composer.finish()?))
    })?;
    // The layout is built at one place, after the checks: built where several paths meet, it
    // would be built aside and copied into the result.
    match bounds {
        Some(b) if b.fits() => Ok(built.layout_of(element)),
        _ => built.failed_layout(element),
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
    Composer::run(ext, Bounds::EMPTY, |composer| {
        for node in nodes {
            composer.node_into(*node, out)?;
        }
        composer.finish()
    })
}

/// A composition `A o B` under way, node by node of `B`, each node into a builder of the
/// caller's choice (so the halves of a divide can go to different builders while the
/// disjointness and sign conditions are checked across all of `B`).
pub(crate) struct Composer<'a> {
    ext: &'a Extended,
    usage: Usage,
}

impl<'a> Composer<'a> {
    /// Runs `f` on a composition with nothing composed yet; the bounds of the result's leaves
    /// are folded onto `start` (the bounds of leaves the caller has placed before them).
    ///
    /// The composer lives here and `f` borrows it: built in place with constant fields and
    /// its lists sized after, it is never moved. (A composer returned by value is copied right
    /// after its fields were written with narrow stores, and the processor cannot serve the
    /// copy's wide loads from them: a stall of some 15 cycles per copy.)
    #[inline(always)]
    pub(crate) fn run<T>(
        ext: &'a Extended,
        start: Bounds,
        f: impl FnOnce(&mut Composer<'a>) -> Result<T>,
    ) -> Result<T> {
        let mut composer = Composer {
            ext,
            usage: Usage::new(start),
        };
        composer.usage.size_for(ext);
        f(&mut composer)
    }

    /// Appends `A o node` to `out` as one element.
    #[inline(always)]
    pub(crate) fn node_into(&mut self, node: Node<'_>, out: &mut Built) -> Result<()> {
        compose_node_into(self.ext, node, &mut self.usage, out, true).map(|_| ())
    }

    /// Appends the elements of `A o node` to `out` without a node around them: the one leaf
    /// of a leaf result, or the elements of a node.
    #[inline(always)]
    pub(crate) fn elements_into(&mut self, node: Node<'_>, out: &mut Built) -> Result<Appended> {
        compose_node_into(self.ext, node, &mut self.usage, out, false)
    }

    /// Checks the disjointness and sign conditions over every node composed; returns the
    /// checks of [`Layout::new`] folded over the leaves appended (`None` once one fails).
    pub(crate) fn finish(&self) -> Result<Option<Bounds>> {
        check_disjoint(self.ext, &self.usage)?;
        Ok(self.usage.bounds)
    }
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

/// Whether a leaf of positive stride moves a mode of `A` ([`Usage::moved`]).
const POSITIVE: u8 = 1;
/// Whether a leaf of negative stride moves a mode of `A` ([`Usage::moved`]).
const NEGATIVE: u8 = 2;

/// What the leaves of `B` occupy in `A`: per bounded mode of `A` the largest coordinate they
/// add up to, and the signs of the leaves that reach past index 0.
struct Usage {
    /// Per bounded mode of `A`, the largest coordinate (inline for up to [`USAGE_INLINE`]
    /// modes).
    reach: Buf<i64, USAGE_INLINE>,
    /// Per mode of `A` (the last, unbounded one included): whether a leaf of positive
    /// ([`POSITIVE`]) / of negative ([`NEGATIVE`]) stride moves its coordinate.
    moved: Buf<u8, { USAGE_INLINE + 1 }>,
    /// The signs of all leaves that moved a mode (the union of `moved`).
    signs: u8,
    /// The sign of the leaf being composed.
    negative_now: bool,
    /// Whether negating a stride of the leaf being composed overflowed.
    negation_overflowed: bool,
    /// The checks of [`Layout::new`] on the result's leaves so far; `None` once one fails.
    bounds: Option<Bounds>,
}

/// The bounded modes of `A` whose usage is kept inline.
const USAGE_INLINE: usize = 8;

impl Usage {
    /// Nothing occupied yet, in lists of no modes ([`Usage::size_for`] sizes them); the
    /// result's bounds start at `start`.
    #[inline(always)]
    fn new(start: Bounds) -> Usage {
        Usage {
            reach: Buf::new(),
            moved: Buf::new(),
            signs: 0,
            negative_now: false,
            negation_overflowed: false,
            bounds: Some(start),
        }
    }

    /// Sizes the lists for the modes of `ext`, nothing occupied.
    #[inline(always)]
    fn size_for(&mut self, ext: &Extended) {
        let bounded = ext.inner.len();
        self.reach.list(bounded);
        self.moved.list(bounded + 1);
    }

    /// The largest coordinate per bounded mode of `A`.
    #[inline]
    fn reach(&self) -> &[i64] {
        self.reach.as_slice()
    }

    /// The sign bits per mode of `A` (the unbounded last one included).
    #[inline]
    fn moved(&self) -> &[u8] {
        self.moved.as_slice()
    }

    /// Both lists, to update.
    #[inline]
    fn lists_mut(&mut self) -> (&mut [i64], &mut [u8]) {
        (self.reach.as_mut_slice(), self.moved.as_mut_slice())
    }
}

/// Appends `A o node` to `out` as one element: `node`'s nesting, every leaf of `node` replaced
/// by its result (a leaf for one mode, a flat node otherwise). Without `with_code`, a node's own
/// structure code is left out (only its elements are appended); returns what was appended.
#[inline]
fn compose_node_into(
    ext: &Extended,
    node: Node<'_>,
    usage: &mut Usage,
    out: &mut Built,
    with_code: bool,
) -> Result<Appended> {
    let leaf = |s, d, usage: &mut Usage, out: &mut Built| -> Result<Appended> {
        let n = leaf_modes_into(ext, s, d, usage, out)?;
        if n == 1 {
            out.codes.push(store::LEAF);
            return Ok(Appended::Leaf);
        }
        if with_code {
            out.push_node_code(n);
        }
        push_leaf_codes(out, n);
        Ok(Appended::Node(n))
    };
    match node {
        Node::Tree(IntTuple::Int(s), IntTuple::Int(d)) => leaf(*s, *d, usage, out),
        Node::Tree(IntTuple::Tuple(ss), IntTuple::Tuple(ds)) if same_codes(ss, ds) => {
            if with_code {
                out.push_node_code(ss.len());
            }
            let (codes, shapes, strides) = (ss.codes(), ss.leaf_slice(), ds.leaf_slice());
            let (mut k, mut leaf) = (0, 0);
            while k < codes.len() {
                let (arity, next) = store::read_code(codes, k);
                match arity {
                    None => {
                        leaf_into(ext, shapes[leaf], strides[leaf], usage, out)?;
                        leaf += 1;
                    }
                    // B's nodes are the result's nodes.
                    Some(_) => out.codes.extend_from_slice(&codes[k..next]),
                }
                k = next;
            }
            Ok(Appended::Node(ss.len()))
        }
        Node::Tree(..) => Err(Error::invalid("internal: shape and stride not congruent")),
        Node::Flat([]) => leaf(1, 0, usage, out),
        Node::Flat(&[(s, d)]) => leaf(s, d, usage, out),
        Node::Flat(modes) => {
            if with_code {
                out.push_node_code(modes.len());
            }
            for &(s, d) in modes {
                leaf_into(ext, s, d, usage, out)?;
            }
            Ok(Appended::Node(modes.len()))
        }
    }
}

/// Checks that the leaves of `B` never carry into each other in `A`'s coordinates: for every
/// bounded mode `k` of `A`, the largest coordinate the leaves can add up to stays below its
/// extent, and leaves of both signs only meet in `A`'s unbounded last mode. Then `A(B(c))` is
/// the sum over `B`'s leaves of `A(B_leaf(c_leaf))`, which is what the by-leaf result computes.
fn check_disjoint(ext: &Extended, usage: &Usage) -> Result<()> {
    for (k, (&(a_k, _), &used)) in ext.inner.iter().zip(usage.reach()).enumerate() {
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
    let moved = usage.moved();
    if usage.signs == POSITIVE | NEGATIVE && moved.iter().filter(|&&m| m != 0).count() > 1 {
        let moved: Vec<usize> = (0..moved.len()).filter(|&k| moved[k] != 0).collect();
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
#[inline(always)]
fn occupy(usage: &mut Usage, k: usize, count: i64, step: i64) -> Result<()> {
    let reach = checked_mul(count - 1, step, "the coordinates of the composition")?;
    let sign = if usage.negative_now {
        NEGATIVE
    } else {
        POSITIVE
    };
    if reach > 0 {
        usage.signs |= sign;
    }
    let (reaches, moved) = usage.lists_mut();
    if reach > 0 {
        let last = moved.len() - 1;
        moved[k.min(last)] |= sign;
    }
    if let Some(u) = reaches.get_mut(k) {
        *u = u.saturating_add(reach);
    }
    Ok(())
}

/// Appends `A o s:d` to `out` as one element (a leaf for one mode, a flat node otherwise);
/// records the coordinates of `A` it occupies and the bounds of its leaves in `usage`.
#[inline(always)]
fn leaf_into(ext: &Extended, s: i64, d: i64, usage: &mut Usage, out: &mut Built) -> Result<()> {
    let n = leaf_modes_into(ext, s, d, usage, out)?;
    if n != 1 {
        out.push_node_code(n);
    }
    push_leaf_codes(out, n);
    Ok(())
}

/// Appends the codes of `n` leaves.
#[inline]
fn push_leaf_codes(out: &mut Built, n: usize) {
    for _ in 0..n {
        out.codes.push(store::LEAF);
    }
}

/// Appends the extents and strides of the modes of `A o s:d` to `out` without their codes,
/// records the coordinates of `A` they occupy and their bounds in `usage`; returns how many.
#[inline(always)]
fn leaf_modes_into(
    ext: &Extended,
    s: i64,
    d: i64,
    usage: &mut Usage,
    out: &mut Built,
) -> Result<usize> {
    let first = out.shapes.len();
    leaf_modes(ext, s, d, usage, out)?;
    Ok(out.shapes.len() - first)
}

/// Appends the mode `s:d` of a leaf's result to `out` (its stride negated when the leaf has a
/// negative stride; an overflow of that negation is recorded in `usage`) and folds its bounds
/// into `usage`.
#[inline(always)]
fn push_result(out: &mut Built, usage: &mut Usage, s: i64, d: i64) {
    let d = if usage.negative_now {
        d.checked_neg().unwrap_or_else(|| {
            usage.negation_overflowed = true;
            d
        })
    } else {
        d
    };
    out.push_mode(s, d);
    usage.bounds = usage.bounds.and_then(|b| b.add(s, Some(d)));
}

/// Appends the extents and strides of the flat modes of `A o s:d` to `out` (without their
/// codes; at least one mode).
#[inline(always)]
fn leaf_modes(ext: &Extended, s: i64, d: i64, usage: &mut Usage, out: &mut Built) -> Result<()> {
    let what = "the strides of the composition";
    if d == 0 {
        usage.negative_now = false;
        push_result(out, usage, s, 0);
        return Ok(());
    }
    if s == 1 {
        // A single element: any stride represents it; use CuTe's (the carried stride).
        let mut r = d.saturating_abs();
        for &(a_k, _) in &ext.inner {
            r = ceil_div(r, a_k);
        }
        let stride = checked_mul(r * d.signum(), ext.last_stride, what)?;
        usage.negative_now = false;
        push_result(out, usage, 1, stride);
        return Ok(());
    }
    if d < 0 {
        // CuTe: A(-x) == -A(x), so s:d composes as s:|d| with its strides negated (as the
        // modes are pushed; an overflow is reported once the leaf's modes are complete).
        usage.negative_now = true;
        let magnitude = d.checked_neg().ok_or_else(|| {
            Error::overflow(format!("the stride {d} of B cannot be negated in i64"))
        })?;
        positive_leaf(ext, s, magnitude, usage, out)?;
        if std::mem::take(&mut usage.negation_overflowed) {
            return Err(Error::overflow(
                "the strides of the composition overflow i64",
            ));
        }
        return Ok(());
    }
    usage.negative_now = false;
    positive_leaf(ext, s, d, usage, out)
}

/// `A o s:d` for a leaf with `s > 1` and `d > 0`: its modes' extents and strides appended to
/// `out`.
fn positive_leaf(ext: &Extended, s: i64, d: i64, usage: &mut Usage, out: &mut Built) -> Result<()> {
    let what = "the strides of the composition";
    let first = out.shapes.len();
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
                push_result(out, usage, m, checked_mul(r, e_k, what)?);
                m = 1;
            } else if m % q == 0 {
                occupy(usage, k, q, r)?;
                push_result(out, usage, q, checked_mul(r, e_k, what)?);
                m /= q;
                r = 1;
            } else {
                return Err(shape_divisibility_fails((s, d), k, a_k, q, m));
            }
            continue;
        }
        if r < a_k && r.checked_mul(m - 1).is_some_and(|x| x < a_k) {
            occupy(usage, k, m, r)?;
            push_result(out, usage, m, checked_mul(r, e_k, what)?);
            m = 1;
            continue;
        }
        return Err(stride_divisibility_fails((s, d), k, a_k, r, m));
    }
    if m != 1 || out.shapes.len() == first {
        occupy(usage, ext.inner.len(), m, r)?;
        push_result(out, usage, m, checked_mul(r, ext.last_stride, what)?);
    }
    Ok(())
}

/// The error of the shape divisibility condition for the mode `s:d` of `B` at mode `k` of `A`
/// (out of line: the error path only).
#[cold]
#[inline(never)]
fn shape_divisibility_fails((s, d): (i64, i64), k: usize, a_k: i64, q: i64, m: i64) -> Error {
    Error::inadmissible(format!(
        "the shape divisibility condition fails for the mode {s}:{d} of B: after dividing out \
         the stride, mode {k} of A (extent {a_k}) holds {q} of the remaining {m} elements, and \
         {q} does not divide {m}"
    ))
}

/// The error of the stride divisibility condition for the mode `s:d` of `B` at mode `k` of
/// `A` (out of line: the error path only).
#[cold]
#[inline(never)]
fn stride_divisibility_fails((s, d): (i64, i64), k: usize, a_k: i64, r: i64, m: i64) -> Error {
    Error::inadmissible(format!(
        "the stride divisibility condition fails for the mode {s}:{d} of B: the remaining \
         stride {r} neither divides nor is a multiple of the extent {a_k} of mode {k} of A, and \
         the remaining {m} elements do not fit inside that mode"
    ))
}

/// Composition with a [`Tiler`]: a [`Tiler::Layout`] is plain [`composition`]; a by-mode tiler
/// `[T0, T1, ...]` composes mode `i` of `A` with `Ti` (recursively; `None` keeps the mode), and
/// keeps the modes of `A` past the tiler's rank. The tiler's rank may not exceed `A`'s.
///
/// ```
/// use tessel_layout::{compose_tiler, Layout, Tiler};
/// // CuTe docs (media/docs/cpp/cute/02_layout_algebra.md, CUTLASS v4.2.1), by-mode composition with the tiler <3:4, 8:2>.
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
