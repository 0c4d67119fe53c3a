//! Hierarchical integer tuples: the values that shapes, strides and coordinates are made of.
//!
//! An [`IntTuple`] is a leaf or a tuple of `IntTuple`s, e.g. `(4,(2,3))`. Shapes, strides and
//! coordinates are all `IntTuple`s ([`Shape`], [`Stride`], [`Coord`]); what distinguishes them is
//! how a [`Layout`](crate::Layout) uses them. The leaf type is a parameter (see [`leaf`](crate::leaf)):
//! `i64`, the default, for the algebra, or a [`SymInt`](crate::codegen::SymInt) for a stride with
//! run-time symbols.
//!
//! A tuple node keeps its elements flat: the pre-order structure of their trees (one code per
//! leaf and per nested node) and their leaves in order, inline for up to six leaves and ten
//! codes, so small tuples (every layout of the algebra's working sizes) allocate nothing, and
//! the leaves of any subtree are one slice.
//! Elements are read as [`View`]s (borrowed) or as owned `IntTuple`s ([`Modes::iter`]).
//!
//! ```
//! use tessel_layout::IntTuple;
//! let t: IntTuple = "(4,(2,3))".parse().unwrap();
//! assert_eq!((t.rank(), t.depth(), t.product().unwrap()), (2, 2, 24));
//! assert_eq!(t.flatten().to_string(), "(4,2,3)");
//! ```

use std::cmp::Ordering;
use std::fmt;
use std::hash::{Hash, Hasher};

use smallvec::SmallVec;

use crate::error::{Error, Result, checked_add};
use crate::leaf::Leaf;

pub mod arith;
pub(crate) mod store;

use store::Store;

/// A leaf or a (possibly nested, possibly empty) tuple of `IntTuple`s.
///
/// ```
/// use tessel_layout::IntTuple;
/// let t = IntTuple::tuple([IntTuple::Int(4), IntTuple::from_ints([2, 3])]);
/// assert_eq!(t.to_string(), "(4,(2,3))");
/// assert_eq!(t.rank(), 2);
/// assert_eq!(t.depth(), 2);
/// assert_eq!(t.product().unwrap(), 24);
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum IntTuple<L: Leaf = i64> {
    /// A single leaf.
    Int(L),
    /// A tuple of sub-tuples (a node).
    Tuple(Modes<L>),
}

/// The elements of a tuple node, kept flat: the pre-order structure codes of their trees and
/// their leaves in order ([`Modes::codes`], [`Modes::leaf_slice`]); inline (no allocation) for
/// up to six leaves and ten codes, on the heap beyond, or in static storage for values built at
/// compile time. Compared, hashed and printed by their elements.
///
/// A structure code is `0` for a leaf and `1 + arity` for a nested node of up to 253 elements
/// (`255` followed by the arity as four little-endian bytes above).
///
/// ```
/// use tessel_layout::{IntTuple, int_tuple::Modes};
/// static FOUR_EIGHT: IntTuple = IntTuple::Tuple(Modes::from_static(&[0, 0], &[4, 8]));
/// assert_eq!(FOUR_EIGHT, IntTuple::from_ints([4, 8]));
/// assert_eq!(FOUR_EIGHT.to_string(), "(4,8)");
/// ```
#[derive(Clone)]
pub struct Modes<L: Leaf = i64> {
    store: Store<L>,
}

impl<L: Leaf> Modes<L> {
    /// No elements.
    ///
    /// ```
    /// use tessel_layout::{IntTuple, int_tuple::Modes};
    /// let mut m = Modes::new();
    /// m.push(IntTuple::Int(3));
    /// assert_eq!(IntTuple::Tuple(m).to_string(), "(3)");
    /// ```
    #[inline]
    pub const fn new() -> Self {
        Modes {
            store: Store::new(),
        }
    }

    /// Elements in static storage, given by their structure codes and leaves: what the
    /// compile-time macros build.
    ///
    /// # Panics
    ///
    /// When `codes` is not a sequence of whole trees over exactly `leaves` (in a `const` or
    /// `static`, that is a compile-time error).
    ///
    /// ```
    /// use tessel_layout::{IntTuple, int_tuple::Modes};
    /// const EMPTY: Modes = Modes::from_static(&[], &[]);
    /// assert!(EMPTY.is_empty());
    /// // (4,(2,3)): a leaf, then a node of two leaves.
    /// static NESTED: IntTuple = IntTuple::Tuple(Modes::from_static(&[0, 3, 0, 0], &[4, 2, 3]));
    /// assert_eq!(NESTED.to_string(), "(4,(2,3))");
    /// ```
    pub const fn from_static(codes: &'static [u8], leaves: &'static [L]) -> Self {
        Modes {
            store: Store::from_static(codes, leaves),
        }
    }

    /// The pre-order structure codes of the elements (usable in `const fn`s).
    ///
    /// ```
    /// let t: tessel_layout::IntTuple = "(4,(2,3))".parse().unwrap();
    /// assert_eq!(t.modes().codes(), &[0, 3, 0, 0]);
    /// ```
    #[inline]
    pub const fn codes(&self) -> &[u8] {
        self.store.codes()
    }

    /// The leaves of all elements, left to right (usable in `const fn`s).
    ///
    /// ```
    /// let t: tessel_layout::IntTuple = "(4,(2,3))".parse().unwrap();
    /// assert_eq!(t.modes().leaf_slice(), &[4, 2, 3]);
    /// ```
    #[inline]
    pub const fn leaf_slice(&self) -> &[L] {
        self.store.leaves()
    }

    /// The number of elements.
    ///
    /// ```
    /// let m: tessel_layout::Modes = tessel_layout::IntTuple::from_ints([1, 2]).modes();
    /// assert_eq!(m.len(), 2);
    /// ```
    #[inline]
    pub const fn len(&self) -> usize {
        self.store.arity()
    }

    /// Whether there are no elements.
    ///
    /// ```
    /// assert!(tessel_layout::Modes::<i64>::new().is_empty());
    /// ```
    #[inline]
    pub const fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Appends `item` as a new last element.
    ///
    /// ```
    /// use tessel_layout::{IntTuple, Modes};
    /// let mut m = Modes::new();
    /// m.push(IntTuple::Int(4));
    /// m.push(IntTuple::from_ints([2, 3]));
    /// assert_eq!(IntTuple::Tuple(m).to_string(), "(4,(2,3))");
    /// ```
    #[inline]
    pub fn push(&mut self, item: IntTuple<L>) {
        match item {
            IntTuple::Int(v) => self.push_leaf(v),
            IntTuple::Tuple(m) => self.store.push_node(m.len(), m.codes(), m.leaf_slice()),
        }
    }

    /// Appends a copy of `item` as a new last element (no move of the tuple itself).
    #[inline]
    pub(crate) fn push_copy(&mut self, item: &IntTuple<L>) {
        match item {
            IntTuple::Int(v) => self.push_leaf(v.clone()),
            IntTuple::Tuple(m) => self.store.push_node(m.len(), m.codes(), m.leaf_slice()),
        }
    }

    /// Appends the leaf `v` as a new last element.
    ///
    /// ```
    /// let mut m = tessel_layout::Modes::new();
    /// m.push_leaf(5);
    /// assert_eq!(m.len(), 1);
    /// ```
    #[inline]
    pub fn push_leaf(&mut self, v: L) {
        self.store.push_leaf(v);
    }

    /// Appends a copy of the view `item` as a new last element.
    ///
    /// ```
    /// use tessel_layout::{IntTuple, Modes};
    /// let t: IntTuple = "(4,(2,3))".parse().unwrap();
    /// let mut m = Modes::new();
    /// let views: Vec<_> = t.views().collect();
    /// for v in views.into_iter().rev() {
    ///     m.push_view(v);
    /// }
    /// assert_eq!(IntTuple::Tuple(m).to_string(), "((2,3),4)");
    /// ```
    #[inline]
    pub fn push_view(&mut self, item: View<'_, L>) {
        match item {
            View::Int(v) => self.push_leaf(v.clone()),
            View::Tuple(c) => self.store.push_node(c.remaining, c.codes, c.leaves),
        }
    }

    /// `arity` elements encoded by the first `n_codes` of `codes` over the first `n_leaves` of
    /// `leaves`, held inline (the counts must fit: at most ten codes and elements, six leaves).
    #[inline]
    pub(crate) fn from_inline_arrays(
        arity: usize,
        codes: &[u8; store::CODES],
        n_codes: usize,
        leaves: &[L; store::LEAVES],
        n_leaves: usize,
    ) -> Self
    where
        L: Copy,
    {
        debug_assert_eq!(
            store::count_trees(&codes[..n_codes]),
            Some((arity, n_leaves))
        );
        Modes {
            store: Store::from_inline_arrays(arity, codes, n_codes, leaves, n_leaves),
        }
    }

    /// `arity` elements encoded by the structure codes `codes` over clones of `leaves` (which
    /// the caller has made consistent).
    #[inline]
    pub(crate) fn from_raw_parts(arity: usize, codes: &[u8], leaves: &[L]) -> Self {
        debug_assert_eq!(store::count_trees(codes).map(|(a, _)| a), Some(arity));
        Modes {
            store: Store::from_parts(arity, codes, leaves),
        }
    }

    /// The elements as borrowed [`View`]s, left to right (allocates nothing).
    ///
    /// ```
    /// use tessel_layout::{IntTuple, int_tuple::View};
    /// let t: IntTuple = "(4,(2,3))".parse().unwrap();
    /// let IntTuple::Tuple(m) = &t else { unreachable!() };
    /// let ranks: Vec<usize> = m.views().map(|v| v.rank()).collect();
    /// assert_eq!(ranks, vec![1, 2]);
    /// assert!(matches!(m.views().next(), Some(View::Int(&4))));
    /// ```
    #[inline]
    pub fn views(&self) -> Children<'_, L> {
        Children {
            codes: self.codes(),
            leaves: self.leaf_slice(),
            remaining: self.len(),
        }
    }

    /// The elements as owned `IntTuple`s, left to right (each a copy).
    ///
    /// ```
    /// use tessel_layout::IntTuple;
    /// let m = IntTuple::from_ints([4, 8]).modes();
    /// assert_eq!(m.iter().collect::<Vec<_>>(), vec![IntTuple::Int(4), IntTuple::Int(8)]);
    /// ```
    #[inline]
    pub fn iter(&self) -> Iter<'_, L> {
        Iter(self.views())
    }

    /// Element `i`, `None` past the end.
    ///
    /// ```
    /// use tessel_layout::IntTuple;
    /// let m = IntTuple::from_ints([4, 8]).modes();
    /// assert_eq!(m.get(1), Some(IntTuple::Int(8)));
    /// assert_eq!(m.get(2), None);
    /// ```
    pub fn get(&self, i: usize) -> Option<IntTuple<L>> {
        self.views().nth(i).map(|v| v.to_int_tuple())
    }

    /// The first element, `None` when empty.
    ///
    /// ```
    /// assert_eq!(tessel_layout::IntTuple::from_ints([4, 8]).modes().first(), Some(tessel_layout::IntTuple::Int(4)));
    /// ```
    pub fn first(&self) -> Option<IntTuple<L>> {
        self.get(0)
    }

    /// The last element, `None` when empty.
    ///
    /// ```
    /// assert_eq!(tessel_layout::IntTuple::from_ints([4, 8]).modes().last(), Some(tessel_layout::IntTuple::Int(8)));
    /// ```
    pub fn last(&self) -> Option<IntTuple<L>> {
        self.views().last().map(|v| v.to_int_tuple())
    }

    /// The elements as an owned vector.
    ///
    /// ```
    /// use tessel_layout::{IntTuple, int_tuple::Modes};
    /// let m: Modes = vec![IntTuple::Int(3)].into();
    /// assert_eq!(m.into_vec(), vec![IntTuple::Int(3)]);
    /// ```
    pub fn into_vec(self) -> Vec<IntTuple<L>> {
        self.iter().collect()
    }

    /// The elements as an owned vector (a copy).
    ///
    /// ```
    /// use tessel_layout::IntTuple;
    /// assert_eq!(IntTuple::from_ints([3]).modes().to_vec(), vec![IntTuple::Int(3)]);
    /// ```
    pub fn to_vec(&self) -> Vec<IntTuple<L>> {
        self.iter().collect()
    }
}

impl<L: Leaf> From<Vec<IntTuple<L>>> for Modes<L> {
    fn from(items: Vec<IntTuple<L>>) -> Self {
        items.into_iter().collect()
    }
}

impl<L: Leaf, const N: usize> From<[IntTuple<L>; N]> for Modes<L> {
    fn from(items: [IntTuple<L>; N]) -> Self {
        items.into_iter().collect()
    }
}

impl<L: Leaf> FromIterator<IntTuple<L>> for Modes<L> {
    #[inline]
    fn from_iter<I: IntoIterator<Item = IntTuple<L>>>(iter: I) -> Self {
        let mut out = Modes::new();
        out.extend(iter);
        out
    }
}

impl<L: Leaf> Default for Modes<L> {
    fn default() -> Self {
        Modes::new()
    }
}

impl<L: Leaf> Extend<IntTuple<L>> for Modes<L> {
    #[inline]
    fn extend<I: IntoIterator<Item = IntTuple<L>>>(&mut self, iter: I) {
        for item in iter {
            self.push(item);
        }
    }
}

impl<'a, L: Leaf> IntoIterator for &'a Modes<L> {
    type Item = IntTuple<L>;
    type IntoIter = Iter<'a, L>;

    fn into_iter(self) -> Self::IntoIter {
        self.iter()
    }
}

impl<L: Leaf> IntoIterator for Modes<L> {
    type Item = IntTuple<L>;
    type IntoIter = IntoIter<L>;

    fn into_iter(self) -> Self::IntoIter {
        IntoIter {
            remaining: self.len(),
            modes: self,
            at: (0, 0),
        }
    }
}

/// The elements of [`Modes`] as owned `IntTuple`s ([`Modes::iter`]).
///
/// ```
/// let m = tessel_layout::IntTuple::from_ints([4, 8]).modes();
/// assert_eq!(m.iter().len(), 2);
/// ```
#[derive(Clone)]
pub struct Iter<'a, L: Leaf = i64>(Children<'a, L>);

impl<L: Leaf> Iterator for Iter<'_, L> {
    type Item = IntTuple<L>;

    #[inline]
    fn next(&mut self) -> Option<IntTuple<L>> {
        self.0.next().map(|v| v.to_int_tuple())
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        self.0.size_hint()
    }
}

impl<L: Leaf> ExactSizeIterator for Iter<'_, L> {}

/// The elements of [`Modes`] taken by value.
///
/// ```
/// let m = tessel_layout::IntTuple::from_ints([4, 8]).modes();
/// assert_eq!(m.into_iter().map(|t| t.as_int().unwrap()).sum::<i64>(), 12);
/// ```
pub struct IntoIter<L: Leaf = i64> {
    modes: Modes<L>,
    /// The next element's first code and first leaf.
    at: (usize, usize),
    remaining: usize,
}

impl<L: Leaf> Iterator for IntoIter<L> {
    type Item = IntTuple<L>;

    fn next(&mut self) -> Option<IntTuple<L>> {
        if self.remaining == 0 {
            return None;
        }
        let (code, leaf) = self.at;
        let (view, used) = View::read(
            &self.modes.codes()[code..],
            &self.modes.leaf_slice()[leaf..],
        );
        let item = view.to_int_tuple();
        self.at = (code + used.0, leaf + used.1);
        self.remaining -= 1;
        Some(item)
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        (self.remaining, Some(self.remaining))
    }
}

impl<L: Leaf> ExactSizeIterator for IntoIter<L> {}

impl<L: Leaf> PartialEq for Modes<L> {
    fn eq(&self, other: &Self) -> bool {
        self.len() == other.len()
            && self.codes() == other.codes()
            && self.leaf_slice() == other.leaf_slice()
    }
}

impl<L: Leaf> Eq for Modes<L> {}

impl<L: Leaf> Hash for Modes<L> {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.len().hash(state);
        self.codes().hash(state);
        self.leaf_slice().hash(state)
    }
}

impl<L: Leaf> PartialOrd for Modes<L> {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl<L: Leaf> Ord for Modes<L> {
    /// Lexicographic by elements (a leaf orders before a tuple), as a slice of `IntTuple`s.
    fn cmp(&self, other: &Self) -> Ordering {
        cmp_children(self.views(), other.views())
    }
}

fn cmp_children<L: Leaf>(mut a: Children<'_, L>, mut b: Children<'_, L>) -> Ordering {
    loop {
        match (a.next(), b.next()) {
            (None, None) => return Ordering::Equal,
            (None, Some(_)) => return Ordering::Less,
            (Some(_), None) => return Ordering::Greater,
            (Some(x), Some(y)) => {
                let o = match (x, y) {
                    (View::Int(x), View::Int(y)) => x.cmp(y),
                    (View::Int(_), View::Tuple(_)) => Ordering::Less,
                    (View::Tuple(_), View::Int(_)) => Ordering::Greater,
                    (View::Tuple(x), View::Tuple(y)) => cmp_children(x, y),
                };
                if o != Ordering::Equal {
                    return o;
                }
            }
        }
    }
}

impl<L: Leaf> fmt::Debug for Modes<L> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

/// A borrowed element of a tuple: a leaf, or the [`Children`] of a node. What reading a tuple
/// without copying it gives.
///
/// ```
/// use tessel_layout::{IntTuple, int_tuple::View};
/// let t: IntTuple = "(4,(2,3))".parse().unwrap();
/// let View::Tuple(mut top) = t.view() else { unreachable!() };
/// assert!(matches!(top.next(), Some(View::Int(&4))));
/// assert_eq!(top.next().unwrap().to_string(), "(2,3)");
/// ```
pub enum View<'a, L: Leaf = i64> {
    /// A leaf.
    Int(&'a L),
    /// A node: its elements.
    Tuple(Children<'a, L>),
}

impl<L: Leaf> Clone for View<'_, L> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<L: Leaf> Copy for View<'_, L> {}

/// The elements of a node, read left to right as [`View`]s.
///
/// ```
/// let t: tessel_layout::IntTuple = "(4,(2,3))".parse().unwrap();
/// assert_eq!(t.views().len(), 2);
/// ```
pub struct Children<'a, L: Leaf = i64> {
    codes: &'a [u8],
    leaves: &'a [L],
    remaining: usize,
}

impl<L: Leaf> Clone for Children<'_, L> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<L: Leaf> Copy for Children<'_, L> {}

impl<'a, L: Leaf> Children<'a, L> {
    /// The leaves of the elements not read yet, in order.
    ///
    /// ```
    /// let t: tessel_layout::IntTuple = "(4,(2,3))".parse().unwrap();
    /// assert_eq!(t.views().leaf_slice(), &[4, 2, 3]);
    /// ```
    pub fn leaf_slice(&self) -> &'a [L] {
        self.leaves
    }
}

impl<'a, L: Leaf> Iterator for Children<'a, L> {
    type Item = View<'a, L>;

    #[inline]
    fn next(&mut self) -> Option<View<'a, L>> {
        if self.remaining == 0 {
            return None;
        }
        let (view, (codes, leaves)) = View::read(self.codes, self.leaves);
        self.codes = &self.codes[codes..];
        self.leaves = &self.leaves[leaves..];
        self.remaining -= 1;
        Some(view)
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        (self.remaining, Some(self.remaining))
    }
}

impl<L: Leaf> ExactSizeIterator for Children<'_, L> {}

impl<'a, L: Leaf> View<'a, L> {
    /// The element that starts at `codes` and `leaves`, and the numbers of codes and leaves
    /// it takes.
    #[inline]
    fn read(codes: &'a [u8], leaves: &'a [L]) -> (View<'a, L>, (usize, usize)) {
        if codes[0] == store::LEAF {
            return (View::Int(&leaves[0]), (1, 1));
        }
        match store::read_code(codes, 0) {
            (None, _) => (View::Int(&leaves[0]), (1, 1)),
            (Some(arity), start) => {
                let (end, n) = store::skip(codes, start, arity);
                (
                    View::Tuple(Children {
                        codes: &codes[start..end],
                        leaves: &leaves[..n],
                        remaining: arity,
                    }),
                    (end, n),
                )
            }
        }
    }

    /// An owned copy.
    ///
    /// ```
    /// use tessel_layout::IntTuple;
    /// let t: IntTuple = "(4,(2,3))".parse().unwrap();
    /// assert_eq!(t.views().nth(1).unwrap().to_int_tuple(), IntTuple::from_ints([2, 3]));
    /// ```
    #[inline]
    pub fn to_int_tuple(&self) -> IntTuple<L> {
        match self {
            View::Int(v) => IntTuple::Int((*v).clone()),
            View::Tuple(c) => IntTuple::Tuple(Modes {
                store: Store::from_parts(c.remaining, c.codes, c.leaves),
            }),
        }
    }

    /// Number of top-level modes: 1 for a leaf, the length for a tuple.
    ///
    /// ```
    /// let t: tessel_layout::IntTuple = "(4,(2,3))".parse().unwrap();
    /// assert_eq!(t.views().map(|v| v.rank()).collect::<Vec<_>>(), vec![1, 2]);
    /// ```
    pub fn rank(&self) -> usize {
        match self {
            View::Int(_) => 1,
            View::Tuple(children) => children.remaining,
        }
    }

    /// Nesting depth: 0 for a leaf, 1 + the deepest element for a tuple.
    ///
    /// ```
    /// let t: tessel_layout::IntTuple = "(4,(2,(3)))".parse().unwrap();
    /// assert_eq!(t.views().map(|v| v.depth()).collect::<Vec<_>>(), vec![0, 2]);
    /// ```
    pub fn depth(&self) -> usize {
        match self {
            View::Int(_) => 0,
            View::Tuple(children) => 1 + children.map(|c| c.depth()).max().unwrap_or(0),
        }
    }

    /// The leaves, left to right.
    ///
    /// ```
    /// let t: tessel_layout::IntTuple = "(4,(2,3))".parse().unwrap();
    /// assert_eq!(t.views().nth(1).unwrap().leaves().copied().collect::<Vec<_>>(), vec![2, 3]);
    /// ```
    #[inline]
    pub fn leaves(&self) -> std::slice::Iter<'a, L> {
        self.leaf_slice().iter()
    }

    /// The leaves as one slice.
    ///
    /// ```
    /// let t: tessel_layout::IntTuple = "(4,(2,3))".parse().unwrap();
    /// assert_eq!(t.views().nth(1).unwrap().leaf_slice(), &[2, 3]);
    /// ```
    #[inline]
    pub fn leaf_slice(&self) -> &'a [L] {
        match self {
            View::Int(v) => std::slice::from_ref(*v),
            View::Tuple(c) => c.leaves,
        }
    }
}

impl View<'_> {
    /// Product of all leaves, checked for overflow.
    ///
    /// ```
    /// let t: tessel_layout::IntTuple = "(4,(2,3))".parse().unwrap();
    /// assert_eq!(t.views().nth(1).unwrap().product().unwrap(), 6);
    /// ```
    pub fn product(&self) -> Result<i64> {
        self.leaves()
            .try_fold(1i64, |acc, &v| acc.checked_mul(v))
            .ok_or_else(|| Error::overflow(format!("the product of {self} overflows i64")))
    }
}

impl<L: Leaf> fmt::Display for View<'_, L> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            View::Int(v) => write!(f, "{v}"),
            View::Tuple(children) => write_seq(f, ("(", ")"), *children, |f, c| write!(f, "{c}")),
        }
    }
}

impl<L: Leaf> fmt::Debug for View<'_, L> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&self.to_int_tuple(), f)
    }
}

/// A shape: the extent of every mode. Leaves are positive.
///
/// ```
/// let s: tessel_layout::Shape = "(4,(2,3))".parse().unwrap();
/// assert_eq!(s.product().unwrap(), 24);
/// ```
pub type Shape = IntTuple;
/// A stride: the step in the codomain for every mode, congruent to its shape.
///
/// ```
/// let d: tessel_layout::Stride = "(1,(8,16))".parse().unwrap();
/// assert_eq!(d.leaves().as_slice(), &[1, 8, 16]);
/// ```
pub type Stride = IntTuple;
/// A coordinate: an integer (1-D) or a tuple (flat or hierarchical) into a shape.
///
/// ```
/// use tessel_layout::{Coord, Layout};
/// let l: Layout = "(4,(2,3)):(1,(8,16))".parse().unwrap();
/// let c: Coord = "(1,(1,2))".parse().unwrap();
/// assert_eq!(l.crd2idx(&c).unwrap(), 1 + 8 + 32);
/// ```
pub type Coord = IntTuple;

/// A short list of leaves: flat shapes and strides rarely exceed eight modes.
///
/// ```
/// let t: tessel_layout::IntTuple = "(4,(2,3))".parse().unwrap();
/// let leaves: tessel_layout::Leaves = t.leaves();
/// assert_eq!(leaves.iter().product::<i64>(), 24);
/// ```
pub type Leaves = SmallVec<[i64; 8]>;

impl From<i64> for IntTuple {
    fn from(v: i64) -> Self {
        IntTuple::Int(v)
    }
}

impl From<i32> for IntTuple {
    /// An integer literal: `IntTuple::from(4)`, and the leaves of `IntTuple::from((4, 8))`.
    ///
    /// ```
    /// use tessel_layout::IntTuple;
    /// assert_eq!(IntTuple::from(4), IntTuple::Int(4));
    /// ```
    fn from(v: i32) -> Self {
        IntTuple::Int(i64::from(v))
    }
}

impl From<&IntTuple> for IntTuple {
    fn from(t: &IntTuple) -> Self {
        t.clone()
    }
}

/// `From` a Rust tuple of anything that converts to an `IntTuple`: the tuple of the converted
/// elements, so `(4, (2, 3))` is the tuple `(4,(2,3))` (CuTe's `make_shape(4, make_shape(2, 3))`).
/// Rank 1 to 8; `()` is the empty tuple.
macro_rules! from_rust_tuple {
    ($($name:ident),+) => {
        impl<$($name: Into<IntTuple>),+> From<($($name,)+)> for IntTuple {
            #[allow(non_snake_case)]
            fn from(($($name,)+): ($($name,)+)) -> Self {
                IntTuple::tuple([$($name.into()),+])
            }
        }
    };
}

from_rust_tuple!(A);
from_rust_tuple!(A, B);
from_rust_tuple!(A, B, C);
from_rust_tuple!(A, B, C, D);
from_rust_tuple!(A, B, C, D, F);
from_rust_tuple!(A, B, C, D, F, G);
from_rust_tuple!(A, B, C, D, F, G, H);
from_rust_tuple!(A, B, C, D, F, G, H, J);

impl From<()> for IntTuple {
    /// The empty tuple `()`.
    ///
    /// ```
    /// use tessel_layout::IntTuple;
    /// assert_eq!(IntTuple::from(()).to_string(), "()");
    /// assert_eq!(IntTuple::from((4, (2, 3))).to_string(), "(4,(2,3))");
    /// assert_eq!(IntTuple::from((8,)).to_string(), "(8)");
    /// ```
    fn from((): ()) -> Self {
        IntTuple::tuple([])
    }
}

impl<L: Leaf> IntTuple<L> {
    /// A tuple of the given elements.
    ///
    /// ```
    /// use tessel_layout::IntTuple;
    /// assert_eq!(IntTuple::tuple([IntTuple::Int(1)]).to_string(), "(1)");
    /// ```
    pub fn tuple(items: impl IntoIterator<Item = IntTuple<L>>) -> Self {
        IntTuple::Tuple(items.into_iter().collect())
    }

    /// A borrowed view (allocates nothing).
    ///
    /// ```
    /// use tessel_layout::{IntTuple, int_tuple::View};
    /// assert!(matches!(IntTuple::Int(3).view(), View::Int(&3)));
    /// assert_eq!(IntTuple::from_ints([1, 2]).view().rank(), 2);
    /// ```
    #[inline]
    pub fn view(&self) -> View<'_, L> {
        match self {
            IntTuple::Int(v) => View::Int(v),
            IntTuple::Tuple(m) => View::Tuple(m.views()),
        }
    }

    /// The top-level modes as borrowed views (an integer is its own only mode).
    ///
    /// ```
    /// use tessel_layout::IntTuple;
    /// assert_eq!(IntTuple::Int(5).views().len(), 1);
    /// assert_eq!(IntTuple::from_ints([1, 2, 3]).views().len(), 3);
    /// ```
    #[inline]
    pub fn views(&self) -> Children<'_, L> {
        match self {
            IntTuple::Int(v) => Children {
                codes: &[store::LEAF],
                leaves: std::slice::from_ref(v),
                remaining: 1,
            },
            IntTuple::Tuple(m) => m.views(),
        }
    }

    /// Whether this is a leaf.
    ///
    /// ```
    /// assert!(tessel_layout::IntTuple::Int(3).is_int());
    /// ```
    pub fn is_int(&self) -> bool {
        matches!(self, IntTuple::Int(_))
    }

    /// The leaf, `None` for a tuple.
    ///
    /// ```
    /// use tessel_layout::{IntTuple, codegen::SymInt};
    /// assert_eq!(IntTuple::Int(SymInt::Sym("ld".into())).as_leaf(), Some(&SymInt::Sym("ld".into())));
    /// ```
    pub fn as_leaf(&self) -> Option<&L> {
        match self {
            IntTuple::Int(v) => Some(v),
            IntTuple::Tuple(_) => None,
        }
    }

    /// A tuple congruent to `self` whose leaves are `f(leaf)`, visited left to right; `f` may
    /// change the leaf type.
    ///
    /// ```
    /// use tessel_layout::{IntTuple, codegen::SymInt};
    /// let t: IntTuple<SymInt> = IntTuple::from_ints([4, 1]).map_to(&mut |v| Ok(SymInt::Int(*v))).unwrap();
    /// assert_eq!(t.to_string(), "(4,1)");
    /// ```
    pub fn map_to<M: Leaf>(&self, f: &mut impl FnMut(&L) -> Result<M>) -> Result<IntTuple<M>> {
        Ok(match self {
            IntTuple::Int(v) => IntTuple::Int(f(v)?),
            IntTuple::Tuple(m) => {
                let leaves = m.leaf_slice();
                let mut mapped = SmallVec::<[M; 8]>::with_capacity(leaves.len());
                for v in leaves {
                    mapped.push(f(v)?);
                }
                IntTuple::Tuple(Modes {
                    store: Store::from_iter_parts(
                        m.len(),
                        m.codes(),
                        mapped.len(),
                        mapped.into_iter(),
                    ),
                })
            }
        })
    }

    /// A tuple congruent to `self` whose leaves are `f(leaf)`, visited left to right.
    ///
    /// ```
    /// use tessel_layout::{IntTuple, codegen::SymInt};
    /// let t: IntTuple<SymInt> = IntTuple::from_ints([4, 1]).map(&mut |v| SymInt::Int(*v));
    /// assert_eq!(t.to_string(), "(4,1)");
    /// ```
    pub fn map<M: Leaf>(&self, f: &mut impl FnMut(&L) -> M) -> IntTuple<M> {
        match self.map_to(&mut |v| Ok(f(v))) {
            Ok(t) => t,
            Err(_) => unreachable!("an infallible map failed"),
        }
    }

    /// The integer tuple of the known leaves, `None` if some leaf is not known.
    ///
    /// ```
    /// use tessel_layout::{IntTuple, codegen::SymInt};
    /// let t: IntTuple<SymInt> = "(ld,1)".parse().unwrap();
    /// assert_eq!(t.known(), None);
    /// let u: IntTuple<SymInt> = "(8,1)".parse().unwrap();
    /// assert_eq!(u.known(), Some(IntTuple::from_ints([8, 1])));
    /// ```
    pub fn known(&self) -> Option<IntTuple> {
        self.map_to(&mut |v| v.known().ok_or_else(|| Error::invalid("unknown leaf")))
            .ok()
    }

    /// Number of top-level modes: 1 for an integer, the length for a tuple.
    ///
    /// ```
    /// use tessel_layout::IntTuple;
    /// assert_eq!(IntTuple::Int(7).rank(), 1);
    /// assert_eq!(IntTuple::from_ints([1, 2, 3]).rank(), 3);
    /// ```
    #[inline]
    pub fn rank(&self) -> usize {
        match self {
            IntTuple::Int(_) => 1,
            IntTuple::Tuple(items) => items.len(),
        }
    }

    /// Nesting depth: 0 for an integer, 1 + the deepest element for a tuple.
    ///
    /// ```
    /// use tessel_layout::IntTuple;
    /// assert_eq!(IntTuple::Int(7).depth(), 0);
    /// assert_eq!(IntTuple::from_ints([1, 2]).depth(), 1);
    /// ```
    pub fn depth(&self) -> usize {
        self.view().depth()
    }

    /// The `i`-th top-level mode (a copy). An integer is its own only mode.
    ///
    /// ```
    /// use tessel_layout::IntTuple;
    /// let t = IntTuple::from_ints([4, 8]);
    /// assert_eq!(t.mode(1), Some(IntTuple::Int(8)));
    /// assert_eq!(IntTuple::Int(5).mode(0), Some(IntTuple::Int(5)));
    /// assert_eq!(t.mode(2), None);
    /// ```
    pub fn mode(&self, i: usize) -> Option<IntTuple<L>> {
        match self {
            IntTuple::Int(_) => (i == 0).then(|| self.clone()),
            IntTuple::Tuple(items) => items.get(i),
        }
    }

    /// The top-level modes (a copy; an integer is a one-mode tuple of itself).
    ///
    /// ```
    /// use tessel_layout::IntTuple;
    /// assert_eq!(IntTuple::Int(5).modes().len(), 1);
    /// assert_eq!(IntTuple::from_ints([4, 8]).modes().len(), 2);
    /// ```
    pub fn modes(&self) -> Modes<L> {
        match self {
            IntTuple::Int(v) => {
                let mut m = Modes::new();
                m.push_leaf(v.clone());
                m
            }
            IntTuple::Tuple(items) => items.clone(),
        }
    }

    /// All leaves in colexicographic (left-to-right) order.
    ///
    /// ```
    /// use tessel_layout::IntTuple;
    /// let t = IntTuple::tuple([IntTuple::Int(4), IntTuple::from_ints([2, 3])]);
    /// assert_eq!(t.leaves().as_slice(), &[4, 2, 3]);
    /// ```
    pub fn leaves(&self) -> SmallVec<[L; 8]> {
        self.iter_leaves().cloned().collect()
    }

    /// The leaves, left to right, borrowed (allocates nothing).
    ///
    /// ```
    /// use tessel_layout::IntTuple;
    /// let t: IntTuple = "(4,(2,3))".parse().unwrap();
    /// assert_eq!(t.iter_leaves().copied().collect::<Vec<_>>(), vec![4, 2, 3]);
    /// ```
    #[inline]
    pub fn iter_leaves(&self) -> std::slice::Iter<'_, L> {
        self.leaf_slice().iter()
    }

    /// The leaves, left to right, as one slice (read without walking the structure).
    ///
    /// ```
    /// use tessel_layout::IntTuple;
    /// let t: IntTuple = "(4,(2,3))".parse().unwrap();
    /// assert_eq!(t.leaf_slice(), &[4, 2, 3]);
    /// assert_eq!(IntTuple::Int(7).leaf_slice(), &[7]);
    /// ```
    #[inline]
    pub fn leaf_slice(&self) -> &[L] {
        match self {
            IntTuple::Int(v) => std::slice::from_ref(v),
            IntTuple::Tuple(m) => m.leaf_slice(),
        }
    }

    /// A flat tuple of the leaves; a leaf stays a leaf.
    ///
    /// ```
    /// use tessel_layout::IntTuple;
    /// let t = IntTuple::tuple([IntTuple::Int(4), IntTuple::from_ints([2, 3])]);
    /// assert_eq!(t.flatten().to_string(), "(4,2,3)");
    /// ```
    pub fn flatten(&self) -> IntTuple<L> {
        match self {
            IntTuple::Int(_) => self.clone(),
            IntTuple::Tuple(_) => {
                let mut m = Modes::new();
                for v in self.iter_leaves() {
                    m.push_leaf(v.clone());
                }
                IntTuple::Tuple(m)
            }
        }
    }

    /// Whether `self` and `other` have the same tree structure (profile).
    ///
    /// ```
    /// use tessel_layout::IntTuple;
    /// assert!(IntTuple::from_ints([1, 2]).congruent(&IntTuple::from_ints([5, 6])));
    /// assert!(!IntTuple::from_ints([1, 2]).congruent(&IntTuple::Int(3)));
    /// ```
    #[inline]
    pub fn congruent<M: Leaf>(&self, other: &IntTuple<M>) -> bool {
        match (self, other) {
            (IntTuple::Int(_), IntTuple::Int(_)) => true,
            (IntTuple::Tuple(a), IntTuple::Tuple(b)) => {
                a.len() == b.len() && a.codes() == b.codes()
            }
            _ => false,
        }
    }

    /// Whether `self` is weakly congruent to `other`: an integer in `self` may stand for a whole
    /// subtree of `other` (CuTe's `weakly_congruent`).
    ///
    /// ```
    /// use tessel_layout::IntTuple;
    /// let shape = IntTuple::tuple([IntTuple::Int(4), IntTuple::from_ints([2, 3])]);
    /// assert!(IntTuple::from_ints([1, 5]).weakly_congruent(&shape));
    /// assert!(!shape.weakly_congruent(&IntTuple::from_ints([1, 5])));
    /// ```
    pub fn weakly_congruent<M: Leaf>(&self, other: &IntTuple<M>) -> bool {
        fn go<L: Leaf, M: Leaf>(a: View<'_, L>, b: View<'_, M>) -> bool {
            match (a, b) {
                (View::Int(_), _) => true,
                (View::Tuple(_), View::Int(_)) => false,
                (View::Tuple(a), View::Tuple(b)) => {
                    a.len() == b.len() && a.zip(b).all(|(x, y)| go(x, y))
                }
            }
        }
        go(self.view(), other.view())
    }
}

impl IntTuple {
    /// A flat tuple of the `n` leaves `leaf(0), leaf(1), ...` (no intermediate list).
    #[inline]
    pub(crate) fn flat_with(n: usize, leaf: impl FnMut(usize) -> i64) -> Self {
        IntTuple::Tuple(Modes {
            store: Store::flat_with(n, leaf),
        })
    }

    /// A flat tuple of the first `n` (at most six, the leaves held inline) of `leaves`.
    #[inline(always)]
    pub(crate) fn flat_array(n: usize, leaves: [i64; store::LEAVES]) -> Self {
        IntTuple::Tuple(Modes {
            store: Store::flat_array(n, leaves),
        })
    }

    /// A flat tuple of integers.
    ///
    /// ```
    /// use tessel_layout::IntTuple;
    /// assert_eq!(IntTuple::from_ints([4, 8]).to_string(), "(4,8)");
    /// ```
    #[inline]
    pub fn from_ints(items: impl IntoIterator<Item = i64>) -> Self {
        let mut m = Modes::new();
        for v in items {
            m.push_leaf(v);
        }
        IntTuple::Tuple(m)
    }

    /// The integer of a leaf, `None` for a tuple.
    ///
    /// ```
    /// assert_eq!(tessel_layout::IntTuple::Int(3).as_int(), Some(3));
    /// ```
    pub fn as_int(&self) -> Option<i64> {
        match self {
            IntTuple::Int(v) => Some(*v),
            IntTuple::Tuple(_) => None,
        }
    }

    /// Product of all leaves (the size of a shape), checked for overflow.
    ///
    /// ```
    /// use tessel_layout::IntTuple;
    /// assert_eq!(IntTuple::from_ints([4, 8]).product().unwrap(), 32);
    /// assert_eq!(IntTuple::tuple([]).product().unwrap(), 1);
    /// assert!(IntTuple::from_ints([1 << 40, 1 << 40]).product().is_err());
    /// ```
    pub fn product(&self) -> Result<i64> {
        self.view().product()
    }

    /// The product of every top-level mode (CuTe's `product_each`): a tuple of the mode sizes,
    /// an integer for an integer.
    ///
    /// ```
    /// use tessel_layout::IntTuple;
    /// let t: IntTuple = "(4,(2,3),(5))".parse().unwrap();
    /// assert_eq!(t.product_each().unwrap().to_string(), "(4,6,5)");
    /// assert_eq!(IntTuple::Int(7).product_each().unwrap(), IntTuple::Int(7));
    /// ```
    pub fn product_each(&self) -> Result<IntTuple> {
        match self {
            IntTuple::Int(_) => Ok(self.clone()),
            IntTuple::Tuple(items) => {
                let mut out = Modes::new();
                for m in items.views() {
                    out.push_leaf(m.product()?);
                }
                Ok(IntTuple::Tuple(out))
            }
        }
    }

    /// Sum of all leaves, checked for overflow.
    ///
    /// ```
    /// use tessel_layout::IntTuple;
    /// assert_eq!(IntTuple::from_ints([4, 8]).sum().unwrap(), 12);
    /// ```
    pub fn sum(&self) -> Result<i64> {
        self.iter_leaves()
            .try_fold(0i64, |acc, &v| checked_add(acc, v, "sum"))
    }

    /// The exclusive prefix product of the leaves, congruent to `self`: the compact
    /// column-major (colexicographic) stride of the shape `self`.
    ///
    /// ```
    /// use tessel_layout::IntTuple;
    /// let shape = IntTuple::tuple([IntTuple::Int(4), IntTuple::from_ints([2, 3])]);
    /// assert_eq!(shape.prefix_product().unwrap().to_string(), "(1,(4,8))");
    /// ```
    pub fn prefix_product(&self) -> Result<IntTuple> {
        let mut running = 1i64;
        self.map_leaves(&mut |v| {
            let here = running;
            running = running.checked_mul(v).ok_or_else(|| {
                Error::overflow(format!(
                    "the prefix product of {self}: {running} * {v} overflows i64"
                ))
            })?;
            Ok(here)
        })
    }

    /// A tuple congruent to `self` whose leaves are `f(leaf)`, visited left to right.
    ///
    /// ```
    /// use tessel_layout::IntTuple;
    /// let t = IntTuple::from_ints([1, 2]);
    /// let doubled = t.map_leaves(&mut |v| Ok(2 * v)).unwrap();
    /// assert_eq!(doubled.to_string(), "(2,4)");
    /// ```
    pub fn map_leaves(&self, f: &mut impl FnMut(i64) -> Result<i64>) -> Result<IntTuple> {
        self.map_to(&mut |v| f(*v))
    }

    /// A tuple of the same structure as `self` with the given leaves substituted in order.
    /// Returns `None` when the number of leaves differs.
    ///
    /// ```
    /// use tessel_layout::IntTuple;
    /// let t = IntTuple::tuple([IntTuple::Int(0), IntTuple::from_ints([0, 0])]);
    /// assert_eq!(t.with_leaves(&[1, 2, 3]).unwrap().to_string(), "(1,(2,3))");
    /// ```
    pub fn with_leaves(&self, leaves: &[i64]) -> Option<IntTuple> {
        let mut it = leaves.iter().copied();
        let out = self
            .map_leaves(&mut |_| it.next().ok_or_else(|| Error::invalid("too few leaves")))
            .ok()?;
        it.next().is_none().then_some(out)
    }
}

impl IntTuple {
    /// The product of the leaves, `None` when it overflows `i64`; a `const fn`, so a tuple in
    /// static storage is measured at compile time.
    ///
    /// ```
    /// use tessel_layout::{IntTuple, int_tuple::Modes};
    /// static SHAPE: IntTuple = IntTuple::Tuple(Modes::from_static(&[0, 0], &[4, 8]));
    /// const SIZE: Option<i64> = SHAPE.checked_product();
    /// assert_eq!(SIZE, Some(32));
    /// assert_eq!(IntTuple::from_ints([1 << 40, 1 << 40]).checked_product(), None);
    /// ```
    #[inline]
    pub const fn checked_product(&self) -> Option<i64> {
        match self {
            IntTuple::Int(v) => Some(*v),
            IntTuple::Tuple(items) => {
                let leaves = items.leaf_slice();
                let mut acc = 1i64;
                let mut k = 0;
                while k < leaves.len() {
                    acc = match acc.checked_mul(leaves[k]) {
                        Some(p) => p,
                        None => return None,
                    };
                    k += 1;
                }
                Some(acc)
            }
        }
    }
}

impl<L: Leaf> fmt::Display for IntTuple<L> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.view().fmt(f)
    }
}

/// Writes `items` comma-separated without spaces between `delims.0` and `delims.1`, each with
/// `item`: the one list notation of tuples `(4,(2,3))` and by-mode tilers `[3:4,_]`.
pub(crate) fn write_seq<T>(
    f: &mut fmt::Formatter<'_>,
    delims: (&str, &str),
    items: impl IntoIterator<Item = T>,
    mut item: impl FnMut(&mut fmt::Formatter<'_>, T) -> fmt::Result,
) -> fmt::Result {
    f.write_str(delims.0)?;
    for (i, t) in items.into_iter().enumerate() {
        if i > 0 {
            f.write_str(",")?;
        }
        item(f, t)?;
    }
    f.write_str(delims.1)
}
