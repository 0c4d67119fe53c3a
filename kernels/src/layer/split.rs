//! The offset split of a swizzled tensor: its offset as a base over a few *hoisted* modes (the
//! thread, and whatever the swizzle mixes with it) plus one term per other mode, proven on the
//! host so that the device computes the base once per thread and adds the other terms (compile
//! time constants in unrolled loops, or a pipeline stage) without re-applying the swizzle.
//!
//! A swizzled tensor's offset is `F(c) = Sw(o + Σ_m g_m(c_m))`, `g_m` the (affine) term of mode
//! `m` and `Sw` a chain of XOR swizzles, which are linear over GF(2) with `Sw(0) = 0`. Group the
//! terms: `x_H = o + Σ_{h ∈ H} g_h(c_h)` and `x_m = g_m(c_m)` for every mode `m` outside `H`.
//! When the groups' possible bits before the swizzle are pairwise disjoint, their sum is their
//! XOR (no carries); when the possible bits of the swizzled groups `Sw(x_H)`, `Sw(x_m)` are
//! pairwise disjoint too, linearity gives
//! `F(c) = Sw(XOR x) = XOR Sw(x) = Sw(x_H) + Σ_m Sw(x_m)`: the split is exact for every
//! coordinate. [`split_conflict`] checks these two conditions (each group's bits are the OR of
//! all its values, enumerated) and names the first pair of groups that share a bit.

use tessel_layout::{ComposedLayout, Layout, checked_add};

use crate::error::{GpuError, GpuResult};

/// One group of an offset split: the hoisted modes together, or one other mode.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Group {
    /// The modes of the group (ascending).
    modes: Vec<usize>,
    /// The OR of the group's possible values before the swizzles.
    raw: i64,
    /// The OR of the group's possible values after them.
    swizzled: i64,
}

/// The swizzles of `layout` applied to `x` (as [`ComposedLayout::offset`] applies them).
fn swizzle(layout: &ComposedLayout, x: i64) -> i64 {
    layout.swizzles().iter().rev().fold(x, |x, sw| sw.apply(x))
}

/// The values of the modes `modes` of `layout`'s inner layout together (every coordinate of
/// those modes, the others at 0), plus `base`.
fn values(layout: &ComposedLayout, modes: &[usize], base: i64) -> GpuResult<Vec<i64>> {
    let all = layout.layout().modes();
    let inner = Layout::from_modes(modes.iter().map(|&m| all[m].clone()))?;
    inner
        .offsets()
        .into_iter()
        .map(|v| checked_add(v, base, "split offset").map_err(GpuError::from))
        .collect()
}

fn group(layout: &ComposedLayout, modes: Vec<usize>, base: i64) -> GpuResult<Option<Group>> {
    let (mut raw, mut swizzled) = (0i64, 0i64);
    for v in values(layout, &modes, base)? {
        if v < 0 {
            // Negative offsets have no finite bit set: no split through bits.
            return Ok(None);
        }
        raw |= v;
        swizzled |= swizzle(layout, v);
    }
    Ok(Some(Group {
        modes,
        raw,
        swizzled,
    }))
}

/// Why a split is not proven.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Conflict {
    /// The group of these modes reaches negative offsets (no finite bit set).
    Negative(Vec<usize>),
    /// The groups of the modes `a` and `b` may both set the bits `bits` (before or after the
    /// swizzles), so their offsets do not simply add.
    Shared {
        a: Vec<usize>,
        b: Vec<usize>,
        bits: i64,
    },
}

impl Conflict {
    /// Every mode the conflict names.
    fn modes(self) -> Vec<usize> {
        match self {
            Conflict::Negative(m) => m,
            Conflict::Shared { mut a, b, .. } => {
                a.extend(b);
                a
            }
        }
    }
}

/// Why the split of `layout` with the hoisted modes `hoisted` is not proven: the first two groups
/// whose possible bits overlap before or after the swizzles; `None` when the split is exact.
/// The hoisted modes must be valid mode indices.
pub(crate) fn split_conflict(
    layout: &ComposedLayout,
    hoisted: &[usize],
) -> GpuResult<Option<Conflict>> {
    let rank = layout.layout().rank();
    let mut hoisted_modes: Vec<usize> = hoisted.to_vec();
    hoisted_modes.sort_unstable();
    hoisted_modes.dedup();
    let mut groups = Vec::new();
    match group(layout, hoisted_modes.clone(), layout.base_offset())? {
        Some(g) => groups.push(g),
        None => return Ok(Some(Conflict::Negative(hoisted_modes))),
    }
    for m in (0..rank).filter(|m| !hoisted_modes.contains(m)) {
        match group(layout, vec![m], 0)? {
            Some(g) => groups.push(g),
            None => return Ok(Some(Conflict::Negative(vec![m]))),
        }
    }
    for (i, a) in groups.iter().enumerate() {
        for b in &groups[i + 1..] {
            let bits = (a.raw & b.raw) | (a.swizzled & b.swizzled);
            if bits != 0 {
                return Ok(Some(Conflict::Shared {
                    a: a.modes.clone(),
                    b: b.modes.clone(),
                    bits,
                }));
            }
        }
    }
    Ok(None)
}

/// The smallest set of hoisted modes, containing mode 0, that [`split_conflict`] proves, found
/// by moving the modes of each conflict into the hoisted set; `None` when only hoisting every
/// mode would do (no split).
pub(crate) fn find_split(layout: &ComposedLayout) -> GpuResult<Option<Vec<usize>>> {
    let rank = layout.layout().rank();
    let mut hoisted = vec![0usize];
    while hoisted.len() < rank {
        match split_conflict(layout, &hoisted)? {
            None => return Ok(Some(hoisted)),
            Some(conflict) => {
                let before = hoisted.len();
                for m in conflict.modes() {
                    if !hoisted.contains(&m) {
                        hoisted.push(m);
                    }
                }
                hoisted.sort_unstable();
                if hoisted.len() == before {
                    // The hoisted group reaches negative offsets: nothing to move.
                    return Ok(None);
                }
            }
        }
    }
    Ok(None)
}

/// The terms of a proven split: the hoisted modes' layout (swizzles and base offset kept) and,
/// for every other mode whose values are not all 0, its own layout, without the swizzles when
/// they leave each of its values unchanged.
fn split_terms(
    layout: &ComposedLayout,
    hoisted: &[usize],
) -> GpuResult<(ComposedLayout, Vec<(usize, ComposedLayout)>)> {
    let modes = layout.layout().modes();
    let base = ComposedLayout::new(
        layout.swizzles().to_vec(),
        layout.base_offset(),
        Layout::from_modes(hoisted.iter().map(|&m| modes[m].clone()))?,
    );
    let mut terms = Vec::new();
    for m in (0..modes.len()).filter(|m| !hoisted.contains(m)) {
        let vals = values(layout, &[m], 0)?;
        if vals.iter().all(|&v| v == 0) {
            continue;
        }
        let inner = Layout::from_modes([modes[m].clone()])?;
        let term = if vals.iter().all(|&v| swizzle(layout, v) == v) {
            ComposedLayout::from_layout(inner)
        } else {
            ComposedLayout::new(layout.swizzles().to_vec(), 0, inner)
        };
        terms.push((m, term));
    }
    Ok((base, terms))
}

/// A tensor's offset function as its emitted code computes it: the layout at the coordinate
/// or, when the layout is swizzled and splits ([`DeviceTensor::hoisted_modes`]), the base over
/// the hoisted modes plus one term per other mode that moves the offset. The host twin of
/// `offset(c)` in the emitted layout type, for CPU replays of a kernel.
///
/// [`DeviceTensor::hoisted_modes`]: super::DeviceTensor::hoisted_modes
///
/// ```
/// use tessel_kernels::{kernel::CType, layer::DeviceTensor};
/// let t = DeviceTensor::shared(CType::B16, "Sw<2,3,3> o (32,2,3):(32,16,4096)".parse().unwrap());
/// let f = t.device_offset().unwrap();
/// assert_eq!(f.hoisted(), Some(&[0, 1][..]));
/// assert_eq!(f.terms().len(), 1); // the stage
/// // Row 2, k step 1, stage 2: Sw<2,3,3>(64 + 16) + 2 * 4096.
/// assert_eq!(f.at(&[2, 1, 2]).unwrap(), (80 ^ 8) + 8192);
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DeviceOffset {
    layout: ComposedLayout,
    split: Option<Split>,
}

/// A proven split: the hoisted modes, their layout, and the other terms.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Split {
    hoisted: Vec<usize>,
    base: ComposedLayout,
    terms: Vec<(usize, ComposedLayout)>,
}

impl DeviceOffset {
    pub(crate) fn new(layout: &ComposedLayout) -> GpuResult<DeviceOffset> {
        let split = if layout.swizzles().is_empty() {
            None
        } else {
            match find_split(layout)? {
                Some(hoisted) => {
                    let (base, terms) = split_terms(layout, &hoisted)?;
                    Some(Split {
                        hoisted,
                        base,
                        terms,
                    })
                }
                None => None,
            }
        };
        Ok(DeviceOffset {
            layout: layout.clone(),
            split,
        })
    }

    /// The hoisted modes, when the offset is split.
    pub fn hoisted(&self) -> Option<&[usize]> {
        self.split.as_ref().map(|s| s.hoisted.as_slice())
    }

    /// The layout of the hoisted modes together, when the offset is split.
    pub fn base(&self) -> Option<&ComposedLayout> {
        self.split.as_ref().map(|s| &s.base)
    }

    /// The other terms `(mode, its layout)`, when the offset is split (modes whose values are
    /// all 0 have none).
    pub fn terms(&self) -> &[(usize, ComposedLayout)] {
        self.split.as_ref().map_or(&[], |s| s.terms.as_slice())
    }

    /// The offset of the coordinate `crd` (one 1-D index per top-level mode).
    pub fn at(&self, crd: &[i64]) -> GpuResult<i64> {
        let modes = self.layout.layout().modes();
        if crd.len() != modes.len() {
            return Err(GpuError::InvalidArgument(format!(
                "{} coordinates for the rank-{} layout {}",
                crd.len(),
                modes.len(),
                self.layout
            )));
        }
        let index = |ms: &mut dyn Iterator<Item = usize>| -> GpuResult<i64> {
            let (mut idx, mut step) = (0i64, 1i64);
            for m in ms {
                let n = modes[m].size();
                if !(0..n).contains(&crd[m]) {
                    return Err(GpuError::InvalidArgument(format!(
                        "coordinate {} of mode {m} (extent {n}) of {}",
                        crd[m], self.layout
                    )));
                }
                idx += crd[m] * step;
                step *= n;
            }
            Ok(idx)
        };
        match &self.split {
            None => Ok(self.layout.offset(index(&mut (0..modes.len()))?)?),
            Some(split) => {
                let mut sum = split
                    .base
                    .offset(index(&mut split.hoisted.iter().copied())?)?;
                for (m, term) in &split.terms {
                    let v = term.offset(index(&mut std::iter::once(*m))?)?;
                    sum = checked_add(sum, v, "split offset")?;
                }
                Ok(sum)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(s: &str) -> ComposedLayout {
        s.parse().unwrap()
    }

    /// The split's defining formula, `F(c) = F(c_H, 0) + Σ_{m ∉ H} (F(e_m c_m) - F(0))`, checked
    /// at every coordinate.
    fn holds_everywhere(l: &ComposedLayout, hoisted: &[usize]) -> bool {
        let sizes: Vec<i64> = l.layout().modes().iter().map(Layout::size).collect();
        let at = |crd: &[i64]| {
            let (mut idx, mut step) = (0, 1);
            for (c, n) in crd.iter().zip(&sizes) {
                idx += c * step;
                step *= n;
            }
            l.offset(idx).unwrap()
        };
        let zero = vec![0; sizes.len()];
        (0..l.layout().size()).all(|i| {
            let mut crd = vec![0; sizes.len()];
            let mut r = i;
            for (c, n) in crd.iter_mut().zip(&sizes) {
                *c = r % n;
                r /= n;
            }
            let mut h = zero.clone();
            for &m in hoisted {
                h[m] = crd[m];
            }
            let mut sum = at(&h);
            for m in (0..sizes.len()).filter(|m| !hoisted.contains(m)) {
                let mut e = zero.clone();
                e[m] = crd[m];
                sum += at(&e) - at(&zero);
            }
            sum == at(&crd)
        })
    }

    #[test]
    fn the_proven_split_holds_at_every_coordinate() {
        // Sw<1,3,3> XORs bit 6 into bit 3: rows (stride 64) and the stage (stride 1024) add,
        // the 8-element chunk index (stride 8) does not.
        let l = parse("Sw<1,3,3> o (2,8,2):(64,8,1024)");
        assert_eq!(find_split(&l).unwrap(), Some(vec![0, 1]));
        assert!(holds_everywhere(&l, &[0, 1]));
        assert!(!holds_everywhere(&l, &[0]));
        assert_eq!(
            split_conflict(&l, &[0]).unwrap(),
            Some(Conflict::Shared {
                a: vec![0],
                b: vec![1],
                bits: 8
            })
        );
    }

    #[test]
    fn a_plain_tensor_splits_at_the_thread_and_a_base_offset_stays_hoisted() {
        let l = parse("Sw<2,3,3> o 16 o (4,8,3):(64,8,4096)");
        let h = find_split(&l).unwrap().unwrap();
        assert!(h.contains(&0));
        assert!(holds_everywhere(&l, &h));
        let (base, terms) = split_terms(&l, &h).unwrap();
        assert_eq!(base.base_offset(), 16);
        // The stage term's bits are outside the swizzle: emitted without it.
        assert!(terms.iter().any(|(m, t)| *m == 2 && t.is_plain()));
    }

    #[test]
    fn negative_strides_are_not_split() {
        let l = parse("Sw<1,3,3> o (2,8):(-64,8)");
        assert_eq!(find_split(&l).unwrap(), None);
    }
}
