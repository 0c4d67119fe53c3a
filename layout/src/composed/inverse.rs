//! Right and left inverses of swizzled layouts.
//!
//! CuTe inverts `Sw o 0 o L` as `composition(inverse(L), Sw)` ([`include/cute/swizzle_layout.hpp`](https://github.com/NVIDIA/cutlass/blob/v4.2.1/include/cute/swizzle_layout.hpp)):
//! the inverse of `L` is applied after the swizzle, and composing a layout with a swizzle maps
//! the swizzle's bits through the layout, giving `Sw' o inverse(L)`. tessel does the same for a
//! chain `Sw1 o ... o Swk o L` (the inverse undoes `Sw1` first, so the chain is moved in reverse
//! order), proves the move on the inverse's whole domain (see
//! [`conjugate`](super::conjugate)), and checks that every swizzle keeps that domain
//! `0..size(inverse(L))` in place, without which the defining property fails.

use crate::error::{Error, Result};
use crate::layout::Layout;
use crate::swizzle::Swizzle;

use super::ComposedLayout;
use super::conjugate::{move_through, simplify_chain};

impl ComposedLayout {
    /// CuTe's `right_inverse` of a swizzled layout `Sw1 o ... o Swk o L` (offset 0):
    /// `right_inverse(L) o Swk o ... o Sw1`, written as `Sw' o right_inverse(L)` with the
    /// swizzles moved through `right_inverse(L)`. Its size is `size(right_inverse(L))` and
    /// `self(R(i)) == i` for every `i` of its domain.
    ///
    /// ```
    /// use tessel_layout::ComposedLayout;
    /// // CuTe test/unit/cute/core/inverse_right.cpp (CUTLASS v4.2.1) ("Swizzle layouts").
    /// let l: ComposedLayout = "Sw<1,0,2> o (4,4):(1,4)".parse().unwrap();
    /// let r = l.right_inverse().unwrap();
    /// assert_eq!(r.to_string(), "Sw<1,0,2> o 16:1");
    /// for i in 0..r.size() {
    ///     assert_eq!(l.offset(r.offset(i).unwrap()).unwrap(), i);
    /// }
    /// ```
    pub fn right_inverse(&self) -> Result<ComposedLayout> {
        let inverse = crate::right_inverse(&self.layout)
            .map_err(|e| e.context(format!("right_inverse of {self}")))?;
        self.invert_through(inverse, "right_inverse")
    }

    /// CuTe's `left_inverse` of a swizzled layout `Sw1 o ... o Swk o L` (offset 0):
    /// `left_inverse(L) o Swk o ... o Sw1`, written as `Sw' o left_inverse(L)`, with
    /// `R(self(i)) == i` for every index `i` of `self`.
    ///
    /// ```
    /// use tessel_layout::ComposedLayout;
    /// // CuTe test/unit/cute/core/inverse_left.cpp (CUTLASS v4.2.1) ("Swizzle layouts").
    /// let l: ComposedLayout = "Sw<1,0,1> o (4,4):(8,1)".parse().unwrap();
    /// let inv = l.left_inverse().unwrap();
    /// for i in 0..l.size() {
    ///     assert_eq!(inv.offset(l.offset(i).unwrap()).unwrap(), i);
    /// }
    /// ```
    ///
    /// The swizzles must see non-negative values: a swizzle acts on the two's-complement bits of
    /// a negative offset (`Sw<1,0,2>` maps `-2` to `-1`), while the left inverse of a layout with
    /// negative strides reads its own negative arguments by truncating division
    /// (`Q(-x) = -Q(x)`), and no swizzle after such a `Q` undoes the first. A swizzled layout
    /// with a negative offset is an [`ErrorKind::Inadmissible`](crate::ErrorKind) error naming
    /// this sign condition (CuTe returns `left_inverse(L) o Sw` with a negative extent, which
    /// tessel's shapes do not allow).
    ///
    /// ```
    /// use tessel_layout::ComposedLayout;
    /// let l: ComposedLayout = "Sw<1,0,2> o 2:-2".parse().unwrap();
    /// assert_eq!(l.offsets(), vec![0, -1]);
    /// let err = l.left_inverse().unwrap_err();
    /// assert!(err.message().contains("sign condition"), "{err}");
    /// ```
    pub fn left_inverse(&self) -> Result<ComposedLayout> {
        let inverse = crate::left_inverse(&self.layout)
            .map_err(|e| e.context(format!("left_inverse of {self}")))?;
        if !self.swizzles.is_empty() {
            let (lo, _) = self.layout.offset_range()?;
            if lo < 0 {
                return Err(Error::inadmissible(format!(
                    "left_inverse of {self}: the sign condition fails: {} reaches the negative \
                     offset {lo}, and the swizzles act on its two's-complement bits, which no \
                     swizzle after the left inverse {inverse} (read at negative offsets as \
                     Q(-x) = -Q(x)) undoes (a swizzled layout needs non-negative offsets to \
                     have a left inverse)",
                    self.layout
                )));
            }
        }
        self.invert_through(inverse, "left_inverse")
    }

    /// `inverse o Swk o ... o Sw1` as a composed layout on the domain `0..size(inverse)`.
    fn invert_through(&self, inverse: Layout, what: &str) -> Result<ComposedLayout> {
        let fail = |why: String| Error::inadmissible(format!("{what} of {self}: {why}"));
        if self.offset != 0 {
            return Err(fail(format!(
                "the offset {} is not representable: the inverse subtracts it after undoing the \
                 swizzles, and a composed layout has its offset before them",
                self.offset
            )));
        }
        let size = inverse.size();
        if let Some(sw) = self.swizzles.iter().find(|sw| !keeps_prefix(sw, size)) {
            return Err(fail(format!(
                "the domain condition fails: {sw} moves indices of 0..{size} (the domain of \
                 {what}({})) outside it, so the inverse property would fail there",
                self.layout
            )));
        }
        let chain: Vec<Swizzle> = self.swizzles.iter().rev().copied().collect();
        let domain = Layout::vector(size, 1)?;
        let moved = move_through(&inverse, &chain, &domain, &inverse)
            .map_err(|e| fail(e.message().to_string()))?;
        Ok(ComposedLayout::new(simplify_chain(moved), 0, inverse))
    }
}

/// Whether the swizzle maps `0..n` into itself: either no index below `n` has a source bit set,
/// or `n` is a multiple of the power-of-two block (up to the highest target bit) within which
/// the swizzle moves an index.
fn keeps_prefix(sw: &Swizzle, n: i64) -> bool {
    if sw.is_identity() {
        return true;
    }
    let source_low = sw.yyy_mask().trailing_zeros();
    let target_high = 64 - sw.zzz_mask().leading_zeros();
    n <= 1i64 << source_low || n % (1i64 << target_high) == 0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prefix_kept_matches_enumeration() {
        for (b, m, s) in [(1, 0, 1), (1, 1, 1), (2, 0, -3), (1, 0, 2), (2, 1, 3)] {
            let sw = Swizzle::new(b, m, s).unwrap();
            for n in 1..80 {
                let kept = (0..n).all(|i| sw.apply(i) < n);
                assert!(!keeps_prefix(&sw, n) || kept, "{sw} {n}");
            }
        }
    }
}
