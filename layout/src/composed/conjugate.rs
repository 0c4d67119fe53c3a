//! Moving swizzles through a layout: `A o Sw = Sw' o A` on the values of a layout `B`.
//!
//! CuTe composes a layout `A` with a swizzle by mapping the swizzle's source bits (`yyy`) and
//! target bits (`zzz`) through `A` and building the swizzle of the images (`composition(Layout,
//! Swizzle)` in `include/cute/swizzle_layout.hpp`); the CuTe source itself says this "works in
//! simple cases". tessel maps the bits one pair at a time, so a pairing that is not one
//! `Swizzle<B,M,S>` becomes a chain of swizzles, and then *proves* that the rewrite is exact on
//! every value it is used on, or refuses:
//!
//! - **proof**: `A` splits additively at the target bits (an index `x` is the sum of its parts
//!   below, on and above each target bit, and `A` of the sum is the sum of `A` of the parts), so
//!   flipping a target bit `z` of `x` changes `A(x)` by `±A(2^z)`; if moreover, for every value
//!   `y` the swizzle sees, bit `p` of `A(y)` equals the source bit of `y` and bit `q` equals its
//!   target bit (`2^p`, `2^q` being the images of the two bits), then `Sw'` flipping bit `q` of
//!   `A(y)` when bit `p` is set is exactly `A(Sw(y))`. The bit equalities are decided as GF(2)
//!   linear functionals when `B` and `A o B` are GF(2)-affine (power-of-two modes on disjoint
//!   bits, see [`crate::verify::affine_map`]);
//! - **enumeration** otherwise: `A(Sw(B(i))) == Sw'((A o B)(i))` for every `i`, up to
//!   [`EXHAUSTIVE_LIMIT`] elements.

use crate::error::{Error, Result, checked_add, checked_mul};
use crate::f2::{AffineMap, exact_log2};
use crate::layout::Layout;
use crate::swizzle::Swizzle;

use super::ComposedLayout;
use super::affine::{EXHAUSTIVE_LIMIT, affine_map};

/// A layout read as a function on all non-negative integers (CuTe's convention, which the
/// composition uses: an index past `size(A)` runs on in the last mode). Modes before the last
/// are coalesced; the last one is unbounded.
pub(crate) struct ExtendedLayout {
    /// `(extent, stride)` of the bounded modes.
    bounded: Vec<(i64, i64)>,
    /// Stride of the unbounded last mode.
    last_stride: i64,
}

impl ExtendedLayout {
    pub(crate) fn of(a: &Layout) -> ExtendedLayout {
        let mut modes = a.flat_modes();
        let last = modes.pop().unwrap_or((1, 0));
        let mut bounded: Vec<(i64, i64)> = Vec::new();
        for (s, d) in modes {
            if s == 1 {
                continue;
            }
            match bounded.last_mut() {
                Some(prev) if prev.0.checked_mul(prev.1) == Some(d) => prev.0 *= s,
                _ => bounded.push((s, d)),
            }
        }
        let mut last_stride = last.1;
        if let Some(&(s, d)) = bounded.last() {
            if s.checked_mul(d) == Some(last_stride) {
                bounded.pop();
                last_stride = d;
            }
        }
        ExtendedLayout {
            bounded,
            last_stride,
        }
    }

    /// Whether the function is the identity (coalescing merges every mode of an identity into
    /// the unbounded last mode of stride 1).
    pub(crate) fn is_identity(&self) -> bool {
        self.bounded.is_empty() && self.last_stride == 1
    }

    /// `A(x)` for `x >= 0`.
    pub(crate) fn eval(&self, x: i64) -> Result<i64> {
        if x < 0 {
            return Err(Error::invalid(format!(
                "the index {x} is negative: a layout is a function of non-negative indices"
            )));
        }
        let what = "the value of a layout past its domain";
        let mut rest = x;
        let mut value = 0i64;
        for &(s, d) in &self.bounded {
            value = checked_add(value, checked_mul(rest % s, d, what)?, what)?;
            rest /= s;
        }
        checked_add(value, checked_mul(rest, self.last_stride, what)?, what)
    }

    /// Whether the function splits at `2^j`: `A(u + 2^j v) == A(u) + A(2^j v)` for every
    /// `u < 2^j` and `v >= 0`. True when `2^j` falls into mode `k` (`P_k <= 2^j < P_(k+1)` for
    /// the prefix products `P` of the extents) with `P_k | 2^j` and, unless `k` is the last
    /// (unbounded) mode, `2^j | P_(k+1)`: then mode `k`'s coordinate is the sum of the parts
    /// from `u` and from `v`, and every other mode sees only one of them.
    fn splits_at_bit(&self, j: u32) -> bool {
        let boundary = 1i64 << j;
        let mut below = 1i64; // P_k
        for &(s, _) in &self.bounded {
            let Some(above) = below.checked_mul(s) else {
                return false;
            };
            if boundary < above {
                return boundary % below == 0 && above % boundary == 0;
            }
            below = above;
        }
        boundary % below == 0
    }
}

/// One source/target bit pair of a swizzle and the single bits `A` maps them to.
#[derive(Clone, Copy)]
struct Pair {
    source: u32,
    target: u32,
    image_source: u32,
    image_target: u32,
}

/// `A o sw = result o A` for one swizzle: the pairs that survive `A` and the swizzles of their
/// images (one per run of consecutive pairs; they touch disjoint bits, so they commute).
struct Moved {
    pairs: Vec<Pair>,
    swizzles: Vec<Swizzle>,
}

/// The source and target bit positions of a swizzle, pair by pair.
fn bit_pairs(sw: &Swizzle) -> impl Iterator<Item = (u32, u32)> {
    let source = sw.yyy_mask().trailing_zeros();
    let target = sw.zzz_mask().trailing_zeros();
    (0..sw.bits()).map(move |t| (source + t, target + t))
}

/// Maps one swizzle through `A`: each target bit `z` whose image `A(2^z)` is 0 drops out (the
/// flip does not change `A`); every other pair must map to two single bits.
fn move_one(ext: &ExtendedLayout, a: &Layout, sw: &Swizzle) -> Result<Moved> {
    let single_bit = |j: u32, role: &str| -> Result<Option<u32>> {
        let image = ext.eval(1i64 << j)?;
        if image == 0 {
            return Ok(None);
        }
        exact_log2(image).map(Some).ok_or_else(|| {
            Error::inadmissible(format!(
                "the single-bit condition fails: {a} maps bit {j} (a {role} bit of {sw}) to \
                 {image}, which is not a single bit, so no swizzle after {a} equals {a} o {sw} \
                 (the swizzle's source and target bits must each map to one bit)"
            ))
        })
    };
    let mut pairs = Vec::new();
    for (source, target) in bit_pairs(sw) {
        let Some(image_target) = single_bit(target, "target")? else {
            continue;
        };
        let Some(image_source) = single_bit(source, "source")? else {
            return Err(Error::inadmissible(format!(
                "the single-bit condition fails: {a} maps the source bit {source} of {sw} to 0 \
                 but its target bit {target} to bit {image_target}, so the flip depends on a bit \
                 that {a} discards"
            )));
        };
        pairs.push(Pair {
            source,
            target,
            image_source,
            image_target,
        });
    }
    let mut seen = 0u64;
    for p in &pairs {
        for bit in [p.image_source, p.image_target] {
            if seen & (1u64 << bit) != 0 {
                return Err(Error::inadmissible(format!(
                    "the distinct-bits condition fails: {a} maps two source or target bits of \
                     {sw} to the same bit {bit}, so no swizzle after {a} equals {a} o {sw}"
                )));
            }
            seen |= 1u64 << bit;
        }
    }
    let mut swizzles = Vec::new();
    let mut start = 0;
    while start < pairs.len() {
        let first = pairs[start];
        let mut len = 1;
        while let Some(next) = pairs.get(start + len) {
            let step = len as u32;
            let consecutive = next.source == first.source + step
                && next.image_source == first.image_source + step
                && next.image_target == first.image_target + step;
            if !consecutive {
                break;
            }
            len += 1;
        }
        let base = first.image_source.min(first.image_target);
        let shift = i64::from(first.image_source) - i64::from(first.image_target);
        swizzles.push(Swizzle::new(len as i64, i64::from(base), shift)?);
        start += len;
    }
    Ok(Moved { pairs, swizzles })
}

/// Rewrites `A o chain` (chain outermost first, applied to the values of `b`) as
/// `chain' o A`, where `c` is `A o b` (`c(i) == A(b(i))`): returns `chain'`, outermost first, or
/// an error naming the condition that fails. The rewrite is proved or checked on every index of
/// `b` (see the module docs).
pub(crate) fn move_through(
    a: &Layout,
    chain: &[Swizzle],
    b: &Layout,
    c: &Layout,
) -> Result<Vec<Swizzle>> {
    let ext = ExtendedLayout::of(a);
    let moved = chain
        .iter()
        .map(|sw| move_one(&ext, a, sw))
        .collect::<Result<Vec<_>>>()?;
    if !proved(&ext, chain, &moved, b, c)? {
        check_every_index(&ext, a, chain, &moved, b, c)?;
    }
    Ok(moved.into_iter().flat_map(|m| m.swizzles).collect())
}

/// Bit `j` of an affine map as a GF(2) functional: the bit of the constant and of each column.
fn bit_functional(m: &AffineMap, j: u32) -> Vec<bool> {
    std::iter::once(m.constant())
        .chain(m.columns().iter().copied())
        .map(|v| (v >> j) & 1 == 1)
        .collect()
}

/// `sw o m` for a GF(2)-affine `m` (a swizzle is linear over GF(2)).
fn swizzle_map(m: &AffineMap, sw: &Swizzle) -> AffineMap {
    let apply = |v: u64| sw.apply(v as i64) as u64;
    AffineMap::new(
        m.columns().iter().map(|&v| apply(v)).collect(),
        apply(m.constant()),
    )
}

/// The structural proof (module docs); `false` when the structure does not decide it.
fn proved(
    ext: &ExtendedLayout,
    chain: &[Swizzle],
    moved: &[Moved],
    b: &Layout,
    c: &Layout,
) -> Result<bool> {
    let affine = |l: &Layout| affine_map(&ComposedLayout::from_layout(l.clone()));
    let (Some(mut inner), Some(mut outer)) = (affine(b)?, affine(c)?) else {
        return Ok(false);
    };
    // Innermost swizzle first: `inner` holds the values the swizzle sees, `outer` A of them.
    for (sw, m) in chain.iter().zip(moved).rev() {
        let splits = bit_pairs(sw)
            .flat_map(|(_, target)| [target, target + 1])
            .all(|j| ext.splits_at_bit(j));
        if !splits {
            return Ok(false);
        }
        let exposed = m.pairs.iter().all(|p| {
            bit_functional(&inner, p.source) == bit_functional(&outer, p.image_source)
                && bit_functional(&inner, p.target) == bit_functional(&outer, p.image_target)
        });
        if !exposed {
            return Ok(false);
        }
        inner = swizzle_map(&inner, sw);
        for s in m.swizzles.iter().rev() {
            outer = swizzle_map(&outer, s);
        }
    }
    Ok(true)
}

/// Checks `A(chain(b(i))) == chain'(c(i))` for every index of `b`.
fn check_every_index(
    ext: &ExtendedLayout,
    a: &Layout,
    chain: &[Swizzle],
    moved: &[Moved],
    b: &Layout,
    c: &Layout,
) -> Result<()> {
    let show = |sws: &[Swizzle]| {
        sws.iter()
            .map(ToString::to_string)
            .collect::<Vec<_>>()
            .join(" o ")
    };
    let after: Vec<Swizzle> = moved.iter().flat_map(|m| m.swizzles.clone()).collect();
    if b.size() > EXHAUSTIVE_LIMIT {
        return Err(Error::inadmissible(format!(
            "cannot establish {a} o {} == {} o {a} on the values of {b}: the structure does not \
             prove it ({a} does not split at the target bits, or {b} and {c} are not GF(2)-affine) \
             and {b} has {} elements, over the enumeration limit {EXHAUSTIVE_LIMIT}",
            show(chain),
            show(&after),
            b.size()
        )));
    }
    crate::budget::charge(b.size(), "checking a swizzle rewrite index by index")?;
    for i in 0..b.size() {
        let seen = chain
            .iter()
            .rev()
            .fold(b.offset_unchecked(i), |y, sw| sw.apply(y));
        let left = ext.eval(seen)?;
        let right = after
            .iter()
            .rev()
            .fold(c.offset_unchecked(i), |y, sw| sw.apply(y));
        if left != right {
            return Err(Error::inadmissible(format!(
                "the commuting condition fails: {a} o {} differs from {} o {a} on the values of \
                 {b}: at index {i}, {a} maps the swizzled value {seen} to {left}, but the moved \
                 swizzles give {right}",
                show(chain),
                show(&after)
            )));
        }
    }
    Ok(())
}

/// Drops identity swizzles and cancels adjacent equal ones (every swizzle is an involution).
pub(crate) fn simplify_chain(chain: Vec<Swizzle>) -> Vec<Swizzle> {
    let mut out: Vec<Swizzle> = Vec::with_capacity(chain.len());
    for sw in chain {
        if sw.is_identity() {
            continue;
        }
        if out.last() == Some(&sw) {
            out.pop();
        } else {
            out.push(sw);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn l(s: &str) -> Layout {
        s.parse().unwrap()
    }

    #[test]
    fn extended_layout_runs_past_the_domain() {
        let a = l("(4,1):(1,100)");
        let ext = ExtendedLayout::of(&a);
        for x in 0..4 {
            assert_eq!(ext.eval(x).unwrap(), a.offset(x).unwrap());
        }
        // past the domain the last mode (extent 1, stride 100) runs on
        assert_eq!(ext.eval(4).unwrap(), 100);
        assert!(ext.eval(-1).is_err());
    }

    #[test]
    fn split_points_follow_the_mode_boundaries() {
        // (3,8):(1,5): 2^j for j >= 1 falls inside mode 0 (extent 3, not a multiple of 2^j) or
        // inside the last mode, which needs 3 | 2^j.
        let ext = ExtendedLayout::of(&l("(3,8):(1,5)"));
        assert!(ext.splits_at_bit(0));
        assert!(!ext.splits_at_bit(1));
        assert!(!ext.splits_at_bit(3));
        // (3,8):(1,3) is the identity: it splits everywhere
        assert!((0..10).all(|j| ExtendedLayout::of(&l("(3,8):(1,3)")).splits_at_bit(j)));
        let ext = ExtendedLayout::of(&l("(8,8):(8,1)"));
        assert!((0..10).all(|j| ext.splits_at_bit(j)));
        let ext = ExtendedLayout::of(&l("(2,3,4):(12,4,1)"));
        assert!(ext.splits_at_bit(1));
        assert!(!ext.splits_at_bit(2));
        assert!(!ext.splits_at_bit(3));
        // brute force: the split property itself
        for j in 0..5u32 {
            let claimed = ext.splits_at_bit(j);
            let holds = (0..(1i64 << j)).all(|u| {
                (0..20).all(|v| {
                    ext.eval(u + (v << j)).unwrap()
                        == ext.eval(u).unwrap() + ext.eval(v << j).unwrap()
                })
            });
            assert!(!claimed || holds, "bit {j}");
        }
    }

    /// Soundness of the proof: whenever it claims the rewrite, enumeration agrees.
    #[test]
    fn the_proof_never_claims_a_wrong_rewrite() {
        let strides = [0i64, 1, 2, 4, 8, 16];
        let mut layouts = Vec::new();
        for s0 in [2i64, 4] {
            for s1 in [2i64, 4] {
                for d0 in strides {
                    for d1 in strides {
                        layouts.push(l(&format!("({s0},{s1}):({d0},{d1})")));
                    }
                }
            }
        }
        let swizzles = [(1, 0, 1), (1, 0, -2), (2, 0, 2), (1, 1, 2), (2, 1, -2)]
            .map(|(b, m, s)| Swizzle::new(b, m, s).unwrap());
        let mut proofs = 0;
        for a in &layouts {
            let ext = ExtendedLayout::of(a);
            for b in layouts.iter().step_by(3) {
                let Ok(c) = crate::composition(a, b) else {
                    continue;
                };
                for sw in &swizzles {
                    let Ok(m) = move_one(&ext, a, sw) else {
                        continue;
                    };
                    let chain = [*sw];
                    let moved = [m];
                    if proved(&ext, &chain, &moved, b, &c).unwrap() {
                        proofs += 1;
                        let checked = check_every_index(&ext, a, &chain, &moved, b, &c);
                        assert!(checked.is_ok(), "{a} o {sw} o {b}: {checked:?}");
                    }
                }
            }
        }
        assert!(proofs > 100, "only {proofs} proofs");
    }

    #[test]
    fn equal_neighbours_cancel() {
        let s = |b, m, sh| Swizzle::new(b, m, sh).unwrap();
        let chain = vec![
            s(1, 0, 1),
            s(2, 0, 3),
            s(2, 0, 3),
            s(1, 0, 1),
            s(0, 0, 0),
            s(1, 1, 1),
        ];
        assert_eq!(simplify_chain(chain), vec![s(1, 1, 1)]);
    }
}
