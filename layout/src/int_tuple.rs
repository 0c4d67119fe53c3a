//! Hierarchical integer tuples: the values that shapes, strides and coordinates are made of.
//!
//! An [`IntTuple`] is a leaf or a tuple of `IntTuple`s, e.g. `(4,(2,3))`. Shapes, strides and
//! coordinates are all `IntTuple`s ([`Shape`], [`Stride`], [`Coord`]); what distinguishes them is
//! how a [`Layout`](crate::Layout) uses them. The leaf type is a parameter (see [`leaf`](crate::leaf)):
//! `i64`, the default, for the algebra, or a [`SymInt`](crate::codegen::SymInt) for a stride with
//! run-time symbols.
//!
//! ```
//! use tessel_layout::IntTuple;
//! let t: IntTuple = "(4,(2,3))".parse().unwrap();
//! assert_eq!((t.rank(), t.depth(), t.product().unwrap()), (2, 2, 24));
//! assert_eq!(t.flatten().to_string(), "(4,2,3)");
//! ```

use std::fmt;
use std::hash::{Hash, Hasher};
use std::ops::Deref;

use smallvec::SmallVec;

use crate::error::{Error, Result, checked_add};
use crate::leaf::Leaf;

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

/// The elements of a tuple node: a slice of [`IntTuple`]s, held on the heap or, for values
/// built at compile time, in static storage. Both compare, hash and print by their elements.
///
/// ```
/// use tessel_layout::{IntTuple, int_tuple::Modes};
/// static FOUR_EIGHT: [IntTuple; 2] = [IntTuple::Int(4), IntTuple::Int(8)];
/// let fixed = IntTuple::Tuple(Modes::from_static(&FOUR_EIGHT));
/// assert_eq!(fixed, IntTuple::from_ints([4, 8]));
/// assert_eq!(fixed.to_string(), "(4,8)");
/// ```
#[derive(Clone)]
pub struct Modes<L: Leaf = i64>(Storage<L>);

#[derive(Clone)]
enum Storage<L: Leaf> {
    Owned(Vec<IntTuple<L>>),
    Static(&'static [IntTuple<L>]),
}

impl<L: Leaf> Modes<L> {
    /// Elements in static storage: what the compile-time macros build.
    ///
    /// ```
    /// use tessel_layout::{IntTuple, int_tuple::Modes};
    /// const EMPTY: Modes = Modes::from_static(&[]);
    /// assert!(EMPTY.is_empty());
    /// ```
    pub const fn from_static(items: &'static [IntTuple<L>]) -> Self {
        Modes(Storage::Static(items))
    }

    /// The elements as a slice (usable in `const fn`s).
    ///
    /// ```
    /// use tessel_layout::{IntTuple, int_tuple::Modes};
    /// let m: Modes = vec![IntTuple::Int(3)].into();
    /// assert_eq!(m.as_slice(), &[IntTuple::Int(3)]);
    /// ```
    pub const fn as_slice(&self) -> &[IntTuple<L>] {
        match &self.0 {
            Storage::Owned(v) => v.as_slice(),
            Storage::Static(s) => s,
        }
    }

    /// The elements as an owned vector.
    ///
    /// ```
    /// use tessel_layout::{IntTuple, int_tuple::Modes};
    /// let m: Modes = vec![IntTuple::Int(3)].into();
    /// assert_eq!(m.into_vec(), vec![IntTuple::Int(3)]);
    /// ```
    pub fn into_vec(self) -> Vec<IntTuple<L>> {
        match self.0 {
            Storage::Owned(v) => v,
            Storage::Static(s) => s.to_vec(),
        }
    }
}

impl<L: Leaf> Deref for Modes<L> {
    type Target = [IntTuple<L>];

    fn deref(&self) -> &[IntTuple<L>] {
        self.as_slice()
    }
}

impl<L: Leaf> From<Vec<IntTuple<L>>> for Modes<L> {
    fn from(items: Vec<IntTuple<L>>) -> Self {
        Modes(Storage::Owned(items))
    }
}

impl<L: Leaf> FromIterator<IntTuple<L>> for Modes<L> {
    fn from_iter<I: IntoIterator<Item = IntTuple<L>>>(iter: I) -> Self {
        Modes(Storage::Owned(iter.into_iter().collect()))
    }
}

impl<L: Leaf> Default for Modes<L> {
    fn default() -> Self {
        Modes(Storage::Owned(Vec::new()))
    }
}

impl<L: Leaf> Extend<IntTuple<L>> for Modes<L> {
    fn extend<I: IntoIterator<Item = IntTuple<L>>>(&mut self, iter: I) {
        if let Storage::Static(items) = self.0 {
            self.0 = Storage::Owned(items.to_vec());
        }
        if let Storage::Owned(v) = &mut self.0 {
            v.extend(iter);
        }
    }
}

impl<'a, L: Leaf> IntoIterator for &'a Modes<L> {
    type Item = &'a IntTuple<L>;
    type IntoIter = std::slice::Iter<'a, IntTuple<L>>;

    fn into_iter(self) -> Self::IntoIter {
        self.as_slice().iter()
    }
}

impl<L: Leaf> IntoIterator for Modes<L> {
    type Item = IntTuple<L>;
    type IntoIter = std::vec::IntoIter<IntTuple<L>>;

    fn into_iter(self) -> Self::IntoIter {
        self.into_vec().into_iter()
    }
}

impl<L: Leaf> PartialEq for Modes<L> {
    fn eq(&self, other: &Self) -> bool {
        self.as_slice() == other.as_slice()
    }
}

impl<L: Leaf> Eq for Modes<L> {}

impl<L: Leaf> Hash for Modes<L> {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.as_slice().hash(state)
    }
}

impl<L: Leaf> PartialOrd for Modes<L> {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl<L: Leaf> Ord for Modes<L> {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        self.as_slice().cmp(other.as_slice())
    }
}

impl<L: Leaf> fmt::Debug for Modes<L> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.as_slice()).finish()
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
            IntTuple::Tuple(items) => {
                IntTuple::Tuple(items.iter().map(|t| t.map_to(f)).collect::<Result<_>>()?)
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
        match self {
            IntTuple::Int(v) => IntTuple::Int(f(v)),
            IntTuple::Tuple(items) => IntTuple::Tuple(items.iter().map(|t| t.map(f)).collect()),
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
        match self {
            IntTuple::Int(_) => 0,
            IntTuple::Tuple(items) => 1 + items.iter().map(IntTuple::<L>::depth).max().unwrap_or(0),
        }
    }

    /// The `i`-th top-level mode. An integer is its own only mode.
    ///
    /// ```
    /// use tessel_layout::IntTuple;
    /// let t = IntTuple::from_ints([4, 8]);
    /// assert_eq!(t.mode(1), Some(&IntTuple::Int(8)));
    /// assert_eq!(IntTuple::Int(5).mode(0), Some(&IntTuple::Int(5)));
    /// assert_eq!(t.mode(2), None);
    /// ```
    pub fn mode(&self, i: usize) -> Option<&IntTuple<L>> {
        match self {
            IntTuple::Int(_) => (i == 0).then_some(self),
            IntTuple::Tuple(items) => items.get(i),
        }
    }

    /// The top-level modes as a slice (an integer is a one-mode slice of itself).
    ///
    /// ```
    /// use tessel_layout::IntTuple;
    /// assert_eq!(IntTuple::Int(5).modes().len(), 1);
    /// ```
    pub fn modes(&self) -> &[IntTuple<L>] {
        match self {
            IntTuple::Int(_) => std::slice::from_ref(self),
            IntTuple::Tuple(items) => items,
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
        let mut out = SmallVec::new();
        self.collect_leaves(&mut out);
        out
    }

    fn collect_leaves(&self, out: &mut SmallVec<[L; 8]>) {
        match self {
            IntTuple::Int(v) => out.push(v.clone()),
            IntTuple::Tuple(items) => items.iter().for_each(|t| t.collect_leaves(out)),
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
                IntTuple::Tuple(self.leaves().into_iter().map(IntTuple::Int).collect())
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
    pub fn congruent<M: Leaf>(&self, other: &IntTuple<M>) -> bool {
        match (self, other) {
            (IntTuple::Int(_), IntTuple::Int(_)) => true,
            (IntTuple::Tuple(a), IntTuple::Tuple(b)) => {
                a.len() == b.len() && a.iter().zip(b).all(|(x, y)| x.congruent(y))
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
        match (self, other) {
            (IntTuple::Int(_), _) => true,
            (IntTuple::Tuple(_), IntTuple::Int(_)) => false,
            (IntTuple::Tuple(a), IntTuple::Tuple(b)) => {
                a.len() == b.len() && a.iter().zip(b).all(|(x, y)| x.weakly_congruent(y))
            }
        }
    }
}

impl IntTuple {
    /// Folds `f` over the leaves left to right, stopping at the first `None`. Allocates nothing.
    fn try_fold_leaves(
        &self,
        acc: i64,
        f: &mut impl FnMut(i64, i64) -> Option<i64>,
    ) -> Option<i64> {
        match self {
            IntTuple::Int(v) => f(acc, *v),
            IntTuple::Tuple(items) => items
                .iter()
                .try_fold(acc, |acc, t| t.try_fold_leaves(acc, f)),
        }
    }

    /// A flat tuple of integers.
    ///
    /// ```
    /// use tessel_layout::IntTuple;
    /// assert_eq!(IntTuple::from_ints([4, 8]).to_string(), "(4,8)");
    /// ```
    pub fn from_ints(items: impl IntoIterator<Item = i64>) -> Self {
        IntTuple::Tuple(items.into_iter().map(IntTuple::Int).collect())
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
        self.try_fold_leaves(1i64, &mut |acc, v| acc.checked_mul(v))
            .ok_or_else(|| Error::overflow(format!("the product of {self} overflows i64")))
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
            IntTuple::Tuple(items) => items
                .iter()
                .map(|m| m.product().map(IntTuple::Int))
                .collect::<Result<Modes>>()
                .map(IntTuple::Tuple),
        }
    }

    /// Sum of all leaves, checked for overflow.
    ///
    /// ```
    /// use tessel_layout::IntTuple;
    /// assert_eq!(IntTuple::from_ints([4, 8]).sum().unwrap(), 12);
    /// ```
    pub fn sum(&self) -> Result<i64> {
        self.leaves()
            .iter()
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
        Ok(match self {
            IntTuple::Int(v) => IntTuple::Int(f(*v)?),
            IntTuple::Tuple(items) => IntTuple::Tuple(
                items
                    .iter()
                    .map(|t| t.map_leaves(f))
                    .collect::<Result<_>>()?,
            ),
        })
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
    /// static SHAPE: IntTuple = IntTuple::Tuple(Modes::from_static(&[IntTuple::Int(4), IntTuple::Int(8)]));
    /// const SIZE: Option<i64> = SHAPE.checked_product();
    /// assert_eq!(SIZE, Some(32));
    /// assert_eq!(IntTuple::from_ints([1 << 40, 1 << 40]).checked_product(), None);
    /// ```
    pub const fn checked_product(&self) -> Option<i64> {
        match self {
            IntTuple::Int(v) => Some(*v),
            IntTuple::Tuple(items) => {
                let items = items.as_slice();
                let mut acc = 1i64;
                let mut k = 0;
                while k < items.len() {
                    acc = match items[k].checked_product() {
                        Some(p) => match acc.checked_mul(p) {
                            Some(v) => v,
                            None => return None,
                        },
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
        match self {
            IntTuple::Int(v) => write!(f, "{v}"),
            IntTuple::Tuple(items) => write_seq(f, ("(", ")"), items, |f, t| write!(f, "{t}")),
        }
    }
}

/// Writes `items` comma-separated without spaces between `delims.0` and `delims.1`, each with
/// `item`: the one list notation of tuples `(4,(2,3))` and by-mode tilers `[3:4,_]`.
pub(crate) fn write_seq<T>(
    f: &mut fmt::Formatter<'_>,
    delims: (&str, &str),
    items: &[T],
    mut item: impl FnMut(&mut fmt::Formatter<'_>, &T) -> fmt::Result,
) -> fmt::Result {
    f.write_str(delims.0)?;
    for (i, t) in items.iter().enumerate() {
        if i > 0 {
            f.write_str(",")?;
        }
        item(f, t)?;
    }
    f.write_str(delims.1)
}
