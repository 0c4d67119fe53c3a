//! The storage of a tuple node's elements: the pre-order structure codes of their trees and
//! their leaves, inline for small tuples (no allocation), on the heap beyond, or in static
//! storage for tuples built at compile time.
//!
//! A structure code is one byte per leaf (`0`) and per nested node (`1 + arity` for an arity up
//! to 253; `255` and the arity as four little-endian bytes above). The leaves are kept apart, in
//! order, so the leaves of every subtree form one contiguous slice.

use std::mem::MaybeUninit;

use crate::leaf::Leaf;

/// Leaves held inline.
pub(crate) const LEAVES: usize = 6;
/// Structure codes held inline: with [`LEAVES`], an `IntTuple<i64>` takes 64 bytes and a
/// `Layout` 128, and every layout of the algebra benchmark is inline.
pub(crate) const CODES: usize = 10;

/// The code of a leaf.
pub(crate) const LEAF: u8 = 0;
/// The code that announces a four-byte arity.
const WIDE: u8 = 255;

/// One structure code read at `k`: `None` for a leaf, `Some(arity)` for a node, and the index
/// after it (a `const fn`).
#[inline(always)]
pub(crate) const fn read_code(codes: &[u8], k: usize) -> (Option<usize>, usize) {
    match codes[k] {
        LEAF => (None, k + 1),
        WIDE => {
            let a = u32::from_le_bytes([codes[k + 1], codes[k + 2], codes[k + 3], codes[k + 4]]);
            (Some(a as usize), k + 5)
        }
        c => (Some(c as usize - 1), k + 1),
    }
}

/// The codes and leaves taken by `count` consecutive elements starting at code `k`, as
/// `(end code index, leaves)` (a `const fn`).
#[inline]
pub(crate) const fn skip(codes: &[u8], k: usize, count: usize) -> (usize, usize) {
    let mut k = k;
    let mut pending = count;
    let mut leaves = 0;
    while pending > 0 {
        let (arity, next) = read_code(codes, k);
        k = next;
        pending -= 1;
        match arity {
            None => leaves += 1,
            Some(a) => pending += a,
        }
    }
    (k, leaves)
}

/// The number of elements and of leaves encoded by `codes`, or `None` when `codes` is not a
/// sequence of whole trees (a node missing elements, or a wide arity cut short); a `const fn`.
pub(crate) const fn count_trees(codes: &[u8]) -> Option<(usize, usize)> {
    let mut k = 0;
    // Elements still owed to the nodes opened so far.
    let mut owed: usize = 0;
    let (mut elements, mut leaves) = (0, 0);
    while k < codes.len() {
        if owed == 0 {
            elements += 1;
        } else {
            owed -= 1;
        }
        match codes[k] {
            LEAF => {
                leaves += 1;
                k += 1;
            }
            WIDE => {
                if k + 4 >= codes.len() {
                    return None;
                }
                let a =
                    u32::from_le_bytes([codes[k + 1], codes[k + 2], codes[k + 3], codes[k + 4]]);
                owed += a as usize;
                k += 5;
            }
            c => {
                owed += c as usize - 1;
                k += 1;
            }
        }
    }
    if owed == 0 {
        Some((elements, leaves))
    } else {
        None
    }
}

/// Appends the structure code of a node of `arity` elements to `codes`.
#[inline(always)]
pub(crate) fn push_node_code(codes: &mut impl Extend<u8>, arity: usize) {
    if arity < usize::from(WIDE) - 1 {
        codes.extend([arity as u8 + 1]);
    } else {
        codes.extend([WIDE]);
        codes.extend(count(arity).to_le_bytes());
    }
}

/// A tuple node's elements.
pub(crate) enum Store<L: Leaf> {
    /// Few elements: the first `n_codes` codes and `n_leaves` leaves are set.
    Inline {
        arity: u8,
        n_codes: u8,
        n_leaves: u8,
        codes: [u8; CODES],
        leaves: [MaybeUninit<L>; LEAVES],
    },
    /// More than fit inline.
    Heap {
        arity: u32,
        codes: Vec<u8>,
        leaves: Vec<L>,
    },
    /// Built at compile time.
    Static {
        arity: u32,
        codes: &'static [u8],
        leaves: &'static [L],
    },
}

impl<L: Leaf> Store<L> {
    /// No elements.
    #[inline]
    pub(crate) const fn new() -> Self {
        Store::Inline {
            arity: 0,
            n_codes: 0,
            n_leaves: 0,
            codes: [0; CODES],
            leaves: [const { MaybeUninit::uninit() }; LEAVES],
        }
    }

    /// The number of elements.
    #[inline]
    pub(crate) const fn arity(&self) -> usize {
        match self {
            Store::Inline { arity, .. } => *arity as usize,
            Store::Heap { arity, .. } | Store::Static { arity, .. } => *arity as usize,
        }
    }

    /// The structure codes.
    #[inline]
    pub(crate) const fn codes(&self) -> &[u8] {
        match self {
            Store::Inline { n_codes, codes, .. } => codes.split_at(*n_codes as usize).0,
            Store::Heap { codes, .. } => codes.as_slice(),
            Store::Static { codes, .. } => codes,
        }
    }

    /// The leaves, in order.
    #[inline]
    pub(crate) const fn leaves(&self) -> &[L] {
        match self {
            // SAFETY: the first `n_leaves` leaves are initialized.
            Store::Inline {
                n_leaves, leaves, ..
            } => unsafe {
                std::slice::from_raw_parts(leaves.as_ptr() as *const L, *n_leaves as usize)
            },
            Store::Heap { leaves, .. } => leaves.as_slice(),
            Store::Static { leaves, .. } => leaves,
        }
    }

    /// Elements encoded by `codes` in static storage.
    pub(crate) const fn from_static(codes: &'static [u8], leaves: &'static [L]) -> Self {
        match count_trees(codes) {
            Some((arity, n)) if n == leaves.len() && arity <= u32::MAX as usize => Store::Static {
                arity: arity as u32,
                codes,
                leaves,
            },
            _ => panic!(
                "Modes::from_static: the structure codes are not whole trees over the leaves"
            ),
        }
    }

    /// `arity` elements encoded by `codes` over clones of `leaves`.
    #[inline]
    pub(crate) fn from_parts(arity: usize, codes: &[u8], leaves: &[L]) -> Self {
        Self::from_iter_parts(arity, codes, leaves.len(), leaves.iter().cloned())
    }

    /// `arity` elements encoded by `codes` over the `n` leaves of `leaves`.
    #[inline]
    pub(crate) fn from_iter_parts(
        arity: usize,
        codes: &[u8],
        n: usize,
        leaves: impl Iterator<Item = L>,
    ) -> Self {
        if codes.len() <= CODES && n <= LEAVES && arity <= CODES {
            let mut out = Store::new();
            if let Store::Inline {
                arity: a,
                n_codes,
                n_leaves,
                codes: c,
                leaves: l,
            } = &mut out
            {
                c[..codes.len()].copy_from_slice(codes);
                *n_codes = codes.len() as u8;
                *a = arity as u8;
                for (slot, v) in l.iter_mut().zip(leaves) {
                    slot.write(v);
                    // Counted as written, so a panicking iterator leaks nothing.
                    *n_leaves += 1;
                }
            }
            out
        } else {
            Store::Heap {
                arity: count(arity),
                codes: codes.to_vec(),
                leaves: leaves.collect(),
            }
        }
    }

    /// `arity` elements encoded by the first `n_codes` of `codes` over the first `n_leaves` of
    /// `leaves`, inline: whole arrays are copied (no loop, no call to `memcpy`). The counts must
    /// fit inline (`n_codes, arity <= CODES`, `n_leaves <= LEAVES`).
    #[inline]
    pub(crate) fn from_inline_arrays(
        arity: usize,
        codes: &[u8; CODES],
        n_codes: usize,
        leaves: &[L; LEAVES],
        n_leaves: usize,
    ) -> Self
    where
        L: Copy,
    {
        assert!(
            n_codes <= CODES && n_leaves <= LEAVES && arity <= CODES,
            "internal: an inline store over more than its capacity"
        );
        Store::Inline {
            arity: arity as u8,
            n_codes: n_codes as u8,
            n_leaves: n_leaves as u8,
            codes: *codes,
            leaves: leaves.map(MaybeUninit::new),
        }
    }

    /// A flat tuple of the `n` leaves `leaf(0), leaf(1), ...`, written in place.
    #[inline]
    pub(crate) fn flat_with(n: usize, mut leaf: impl FnMut(usize) -> L) -> Self {
        if n > LEAVES {
            return Store::Heap {
                arity: count(n),
                codes: vec![LEAF; n],
                leaves: (0..n).map(leaf).collect(),
            };
        }
        let mut leaves = [const { MaybeUninit::uninit() }; LEAVES];
        for (i, slot) in leaves.iter_mut().enumerate().take(n) {
            // A panicking `leaf` leaks the leaves written so far (never reads them).
            slot.write(leaf(i));
        }
        Store::Inline {
            arity: n as u8,
            n_codes: n as u8,
            n_leaves: n as u8,
            codes: [LEAF; CODES],
            leaves,
        }
    }

    /// Moves the elements to the heap (with room for more).
    #[cold]
    fn spill(&mut self) {
        let heap = Store::Heap {
            arity: count(self.arity()),
            codes: self.codes().to_vec(),
            leaves: self.leaves().to_vec(),
        };
        *self = heap;
    }

    /// The elements on the heap, moved there first if they are inline or static: their count,
    /// codes and leaves, to append to.
    fn heap_mut(&mut self) -> (&mut u32, &mut Vec<u8>, &mut Vec<L>) {
        if !matches!(self, Store::Heap { .. }) {
            self.spill();
        }
        match self {
            Store::Heap {
                arity,
                codes,
                leaves,
            } => (arity, codes, leaves),
            _ => unreachable!("spill moves the elements to the heap"),
        }
    }

    /// Appends a leaf element.
    #[inline]
    pub(crate) fn push_leaf(&mut self, v: L) {
        if let Store::Inline {
            arity,
            n_codes,
            n_leaves,
            codes,
            leaves,
        } = self
        {
            if (*n_codes as usize) < CODES && (*n_leaves as usize) < LEAVES {
                codes[*n_codes as usize] = LEAF;
                leaves[*n_leaves as usize].write(v);
                *n_codes += 1;
                *n_leaves += 1;
                *arity += 1;
                return;
            }
        }
        let (arity, codes, leaves) = self.heap_mut();
        codes.push(LEAF);
        leaves.push(v);
        *arity += 1;
    }

    /// Appends a node element of `node_arity` elements encoded by `body` over `node_leaves`.
    #[inline]
    pub(crate) fn push_node(&mut self, node_arity: usize, body: &[u8], node_leaves: &[L]) {
        // A node code of one byte (a wide arity never goes inline).
        let narrow = node_arity < usize::from(WIDE) - 1;
        if let Store::Inline {
            arity,
            n_codes,
            n_leaves,
            codes,
            leaves,
        } = self
        {
            let (nc, nl) = (*n_codes as usize, *n_leaves as usize);
            if narrow && nc + 1 + body.len() <= CODES && nl + node_leaves.len() <= LEAVES {
                codes[nc] = node_arity as u8 + 1;
                codes[nc + 1..nc + 1 + body.len()].copy_from_slice(body);
                *n_codes += 1 + body.len() as u8;
                for (slot, v) in leaves[nl..].iter_mut().zip(node_leaves) {
                    slot.write(v.clone());
                    *n_leaves += 1;
                }
                *arity += 1;
                return;
            }
        }
        let (arity, codes, leaves) = self.heap_mut();
        push_node_code(codes, node_arity);
        codes.extend_from_slice(body);
        leaves.extend_from_slice(node_leaves);
        *arity += 1;
    }
}

impl Store<i64> {
    /// A flat tuple of the first `n` (at most [`LEAVES`]) of `leaves`: a constructor without a
    /// loop, which the optimizer writes straight into its destination.
    #[inline(always)]
    pub(crate) fn flat_array(n: usize, leaves: [i64; LEAVES]) -> Self {
        Store::from_inline_arrays(n, &[LEAF; CODES], n, &leaves, n)
    }
}

/// `n` as a `u32` count.
fn count(n: usize) -> u32 {
    u32::try_from(n).expect("a tuple of more than u32::MAX elements")
}

impl<L: Leaf> Drop for Store<L> {
    fn drop(&mut self) {
        if let Store::Inline {
            n_leaves, leaves, ..
        } = self
        {
            if std::mem::needs_drop::<L>() {
                for slot in &mut leaves[..*n_leaves as usize] {
                    // SAFETY: the first `n_leaves` leaves are initialized, each dropped once.
                    unsafe { slot.assume_init_drop() };
                }
            }
        }
    }
}

impl<L: Leaf> Clone for Store<L> {
    #[inline]
    fn clone(&self) -> Self {
        match self {
            Store::Static {
                arity,
                codes,
                leaves,
            } => Store::Static {
                arity: *arity,
                codes,
                leaves,
            },
            _ => Store::from_parts(self.arity(), self.codes(), self.leaves()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{WIDE, count_trees, push_node_code};
    use crate::IntTuple;
    use crate::int_tuple::Modes;

    #[test]
    fn count_trees_accepts_whole_trees_only() {
        // (4,(2,3)): a leaf, then a node of two leaves.
        assert_eq!(count_trees(&[0, 3, 0, 0]), Some((2, 3)));
        assert_eq!(count_trees(&[]), Some((0, 0)));
        // A node of two elements with one given, and a wide arity cut short.
        assert_eq!(count_trees(&[0, 3, 0]), None);
        assert_eq!(count_trees(&[WIDE, 1, 0]), None);
        // A node of 300 leaves takes the wide code.
        let mut codes = Vec::new();
        push_node_code(&mut codes, 300);
        codes.extend(std::iter::repeat_n(0, 300));
        assert_eq!((codes[0], count_trees(&codes)), (WIDE, Some((1, 300))));
    }

    #[test]
    #[should_panic(expected = "not whole trees over the leaves")]
    fn from_static_refuses_codes_that_disagree_with_the_leaves() {
        static LEAVES: [i64; 2] = [4, 8];
        // Three leaf codes over two leaves.
        let _ = IntTuple::Tuple(Modes::from_static(&[0, 0, 0], &LEAVES));
    }
}
