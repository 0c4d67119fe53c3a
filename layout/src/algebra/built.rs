//! [`Built`]: a result tuple being built leaf by leaf (the composition's and the by-mode
//! tiler's output buffer), and [`same_codes`], the congruence test both use. Below
//! `composition` and `tiler`, so that neither imports the other for it.

use super::buf::Buf;
use crate::int_tuple::store;
use crate::layout::Bounds;
use crate::{Error, IntTuple, Layout, Result};

/// What [`compose_node_into`] appended: a leaf, or a node of some arity.
#[derive(Clone, Copy)]
pub(crate) enum Appended {
    /// One leaf.
    Leaf,
    /// A node of this many elements.
    Node(usize),
}

/// Whether the tuples `ss` and `ds` have the same structure codes (are congruent), compared
/// byte by byte (a few bytes: cheaper than a call to `memcmp`).
#[inline]
pub(crate) fn same_codes(ss: &crate::Modes, ds: &crate::Modes) -> bool {
    let (a, b) = (ss.codes(), ds.codes());
    a.len() == b.len() && a.iter().zip(b).all(|(x, y)| x == y)
}

/// The structure codes and leaves of a result tuple being built: `B`'s structure with every
/// leaf replaced by its result. Inline up to the inline capacity of a tuple's storage, so a
/// small result becomes its tuples by copying whole arrays.
pub(crate) struct Built {
    pub(crate) codes: Buf<u8, { store::CODES }>,
    pub(crate) shapes: Buf<i64, { store::LEAVES }>,
    pub(crate) strides: Buf<i64, { store::LEAVES }>,
}

impl Default for Built {
    fn default() -> Self {
        Built::new()
    }
}

impl Built {
    /// Nothing built yet.
    #[inline]
    pub(crate) fn new() -> Built {
        Built {
            codes: Buf::new(),
            shapes: Buf::new(),
            strides: Buf::new(),
        }
    }

    /// Appends the code of a node of `arity` elements (its elements follow).
    #[inline]
    pub(crate) fn push_node_code(&mut self, arity: usize) {
        store::push_node_code(&mut self.codes, arity);
    }

    /// Appends one leaf `s:d`.
    #[inline]
    pub(crate) fn push_leaf(&mut self, (s, d): (i64, i64)) {
        self.codes.push(store::LEAF);
        self.push_mode(s, d);
    }

    /// Appends the extent and stride of a leaf without its code.
    #[inline]
    pub(crate) fn push_mode(&mut self, s: i64, d: i64) {
        self.shapes.push(s);
        self.strides.push(d);
    }

    /// Appends the elements whose structure codes are `codes` over the leaves
    /// `shapes:strides`.
    #[inline]
    pub(crate) fn push_raw(&mut self, codes: &[u8], shapes: &[i64], strides: &[i64]) {
        self.codes.extend_from_slice(codes);
        self.shapes.extend_from_slice(shapes);
        self.strides.extend_from_slice(strides);
    }

    /// Appends the whole of `layout` as one element (a leaf, or a node).
    pub(crate) fn push_layout(&mut self, layout: &Layout) -> Result<()> {
        match (layout.shape(), layout.stride()) {
            (IntTuple::Tuple(ss), IntTuple::Tuple(ds)) => {
                self.push_node_code(ss.len());
                self.push_elements(ss, ds);
            }
            (IntTuple::Int(s), IntTuple::Int(d)) => self.push_leaf((*s, *d)),
            _ => return Err(Error::invalid("internal: shape and stride not congruent")),
        }
        Ok(())
    }

    /// Appends the elements of `other` as they are.
    pub(crate) fn append(&mut self, other: &Built) {
        self.push_raw(
            other.codes.as_slice(),
            other.shapes.as_slice(),
            other.strides.as_slice(),
        );
    }

    /// Appends a node of the `arity` elements of `body`.
    pub(crate) fn push_node(&mut self, arity: usize, body: &Built) {
        self.push_node_code(arity);
        self.append(body);
    }

    /// The leaves built so far, as `(extent, stride)`.
    pub(crate) fn leaf_modes(&self) -> impl Iterator<Item = (i64, i64)> + '_ {
        self.shapes
            .as_slice()
            .iter()
            .copied()
            .zip(self.strides.as_slice().iter().copied())
    }

    /// Whether the leaves pass the checks of [`Layout::new`] ([`Bounds`]), and their size.
    pub(crate) fn checked_size(&self) -> Option<i64> {
        Bounds::of_modes(self.leaf_modes())
            .filter(|b| b.fits())
            .map(|b| b.size)
    }

    /// Appends the elements of the congruent tuples `ss:ds` (without a node around them).
    pub(crate) fn push_elements(&mut self, ss: &crate::Modes, ds: &crate::Modes) {
        self.push_raw(ss.codes(), ss.leaf_slice(), ds.leaf_slice());
    }

    /// The shape and stride of what was built as `element`: a leaf, or a node of that many
    /// elements (its own code left out).
    #[inline]
    pub(crate) fn element(&self, element: Appended) -> (IntTuple, IntTuple) {
        self.with_element(element, |shape, stride| (shape, stride))
    }

    /// `then` of the shape and stride of [`Built::element`], called in each case, so that
    /// what it builds of them is written straight into its place (not built where the cases
    /// meet and copied there).
    #[inline(always)]
    fn with_element<R>(&self, element: Appended, then: impl FnOnce(IntTuple, IntTuple) -> R) -> R {
        match element {
            Appended::Leaf => then(
                IntTuple::Int(self.shapes.as_slice()[0]),
                IntTuple::Int(self.strides.as_slice()[0]),
            ),
            Appended::Node(arity) => self.with_tuples_from(arity, 0, then),
        }
    }

    /// The layout of what was built as `element` ([`Built::element`]), whose leaves the caller
    /// has checked ([`Layout::new`]'s checks).
    #[inline]
    pub(crate) fn layout_of(&self, element: Appended) -> Layout {
        self.with_element(element, Layout::from_checked_parts)
    }

    /// The error of [`Layout::new`] on what was built as `element`, whose leaves fail its
    /// checks (out of line: the error path only).
    #[cold]
    #[inline(never)]
    pub(crate) fn failed_layout(&self, element: Appended) -> Result<Layout> {
        let (shape, stride) = self.element(element);
        Layout::new(shape, stride)
    }

    /// The shape and stride of the one element built: a leaf, or a node.
    pub(crate) fn single(&self) -> (IntTuple, IntTuple) {
        match store::read_code(self.codes.as_slice(), 0) {
            (None, _) => self.element(Appended::Leaf),
            // The node's elements: the codes after its own.
            (Some(arity), body) => self.tuples_from(arity, body),
        }
    }

    /// Tuples of `arity` elements encoded by `codes` over the leaves built (on the heap where
    /// they do not fit inline; out of line).
    #[inline(never)]
    pub(crate) fn tuples(&self, arity: usize, codes: &[u8]) -> (IntTuple, IntTuple) {
        (
            IntTuple::Tuple(crate::Modes::from_raw_parts(
                arity,
                codes,
                self.shapes.as_slice(),
            )),
            IntTuple::Tuple(crate::Modes::from_raw_parts(
                arity,
                codes,
                self.strides.as_slice(),
            )),
        )
    }

    /// The layout whose shape and stride are tuples of the `arity` elements built, or `None`
    /// when its leaves fail the checks of [`Layout::new`] ([`Built::checked_size`]).
    pub(crate) fn checked_layout(&self, arity: usize) -> Option<Layout> {
        self.checked_size()?;
        self.with_tuples_from(arity, 0, |shape, stride| {
            Some(Layout::from_checked_parts(shape, stride))
        })
    }

    /// The result's shape and stride, tuples of `arity` elements.
    pub(crate) fn finish(&self, arity: usize) -> (IntTuple, IntTuple) {
        self.tuples_from(arity, 0)
    }

    /// Tuples of the `arity` elements whose codes start at `skip` (after the codes of a node
    /// around them, or at 0), over the leaves built: copies of whole arrays when they fit
    /// inline.
    #[inline]
    pub(crate) fn tuples_from(&self, arity: usize, skip: usize) -> (IntTuple, IntTuple) {
        self.with_tuples_from(arity, skip, |shape, stride| (shape, stride))
    }

    /// `then` of the tuples of [`Built::tuples_from`], called in each case (see
    /// [`Built::with_element`]).
    #[inline(always)]
    fn with_tuples_from<R>(
        &self,
        arity: usize,
        skip: usize,
        then: impl FnOnce(IntTuple, IntTuple) -> R,
    ) -> R {
        if let (Some(inline), Some(shapes), Some(strides)) = (
            self.codes.inline_array(),
            self.shapes.inline_array(),
            self.strides.inline_array(),
        ) {
            if arity <= store::CODES {
                let shifted;
                let codes = if skip == 0 {
                    inline
                } else {
                    let mut body = [store::LEAF; store::CODES];
                    body[..store::CODES - skip].copy_from_slice(&inline[skip..]);
                    shifted = body;
                    &shifted
                };
                let (n_codes, n_leaves) = (self.codes.len() - skip, self.shapes.len());
                return then(
                    IntTuple::Tuple(crate::Modes::from_inline_arrays(
                        arity, codes, n_codes, shapes, n_leaves,
                    )),
                    IntTuple::Tuple(crate::Modes::from_inline_arrays(
                        arity, codes, n_codes, strides, n_leaves,
                    )),
                );
            }
        }
        let (shape, stride) = self.tuples(arity, &self.codes.as_slice()[skip..]);
        then(shape, stride)
    }
}
