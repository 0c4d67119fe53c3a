//! Support for the `laws_*` property tests: a fixed-seed proptest configuration, a choice-driven
//! generator of admissible inputs, and brute-force oracles that never call tessel's own offset,
//! algebra or analysis functions (only its constructors and structural accessors: `shape()`,
//! `stride()`, `leaves()`, `mode()`, `modes()`).
//!
//! Inputs are built from a vector of bytes ("choices") that proptest generates and shrinks. A
//! generator reads one choice per decision, and the choice 0 (also what an exhausted vector gives)
//! always means the simplest option, so shrinking the bytes towards fewer and smaller values
//! shrinks the inputs towards small, flat, positive layouts.
#![allow(dead_code)]

use std::collections::{HashMap, HashSet};
use std::fmt;

use proptest::prelude::*;
use proptest::test_runner::{RngSeed, TestCaseError};
use tessel_layout::{IntTuple, Layout, Tiler};

/// The seed of every `laws_*` run: the same cases run on every machine and in CI.
pub const SEED: u64 = 0x7e55_e1a9;

/// Cases per property when `TESSEL_PROPTEST_CASES` is unset: small enough that each `laws_*`
/// file runs in seconds in a debug build.
pub const DEFAULT_CASES: u32 = 256;

/// The proptest configuration of the `laws_*` files: the fixed [`SEED`], no regression files, and
/// `TESSEL_PROPTEST_CASES` cases (default [`DEFAULT_CASES`]), scaled by `percent` for properties
/// whose single case is cheap (> 100) or expensive (< 100).
pub fn config(percent: u32) -> ProptestConfig {
    let base = std::env::var("TESSEL_PROPTEST_CASES")
        .ok()
        .and_then(|v| v.parse::<u32>().ok())
        .unwrap_or(DEFAULT_CASES);
    ProptestConfig {
        cases: (base.saturating_mul(percent) / 100).max(1),
        rng_seed: RngSeed::Fixed(SEED),
        failure_persistence: None,
        max_shrink_iters: 2048,
        ..ProptestConfig::default()
    }
}

// ------------------------------------------------------------------------------- choices

/// A stream of choices read from proptest's bytes; 0 (the default when exhausted) is simplest.
pub struct Choices {
    bytes: Vec<u8>,
    pos: usize,
}

impl Choices {
    pub fn new(bytes: Vec<u8>) -> Choices {
        Choices { bytes, pos: 0 }
    }

    /// A value in `0..n` (0 when `n <= 1`).
    pub fn below(&mut self, n: u64) -> u64 {
        if n <= 1 {
            return 0;
        }
        let b = self.bytes.get(self.pos).copied().unwrap_or(0);
        self.pos += 1;
        u64::from(b) % n
    }

    /// A value in `lo..=hi`, `lo` being the simplest.
    pub fn range(&mut self, lo: i64, hi: i64) -> i64 {
        lo + self.below((hi - lo + 1) as u64) as i64
    }

    /// True with probability about `1/n` (false is the simplest).
    pub fn one_in(&mut self, n: u64) -> bool {
        self.below(n) == n - 1
    }

    /// A signed value in `-m..=m` in the order 0, 1, -1, 2, -2, ...
    pub fn signed(&mut self, m: i64) -> i64 {
        let k = self.below((2 * m + 1) as u64) as i64;
        if k % 2 == 1 { k / 2 + 1 } else { -(k / 2) }
    }

    /// Shuffles `v`; all-zero choices keep the order.
    pub fn shuffle<T>(&mut self, v: &mut [T]) {
        for i in (1..v.len()).rev() {
            let j = i - self.below(i as u64 + 1) as usize;
            v.swap(i, j);
        }
    }
}

/// A strategy of inputs built by `f` from proptest-generated choices.
pub fn inputs<T: fmt::Debug>(f: fn(&mut Choices) -> T) -> impl Strategy<Value = T> {
    prop::collection::vec(any::<u8>(), 0..64).prop_map(move |b| f(&mut Choices::new(b)))
}

// ------------------------------------------------------------------------------- printing

/// A layout that prints as CuTe notation in proptest's failure reports.
#[derive(Clone, PartialEq, Eq)]
pub struct L(pub Layout);

impl fmt::Debug for L {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.0)
    }
}

/// A tiler that prints as `[T0,_,T2]` / a layout.
#[derive(Clone)]
pub struct T(pub Tiler);

impl fmt::Debug for T {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.0)
    }
}

// ------------------------------------------------------------------------------- evaluation

/// A flat mode `(extent, stride)`.
pub type Mode = (i64, i64);

/// The leaf modes of a layout, left to right (read from its shape and stride).
pub fn leaves(l: &Layout) -> Vec<Mode> {
    l.shape()
        .leaves()
        .iter()
        .copied()
        .zip(l.stride().leaves().iter().copied())
        .collect()
}

pub fn size_of(modes: &[Mode]) -> i64 {
    modes.iter().map(|m| m.0).product()
}

/// Colexicographic evaluation of the 1-D index `i` (first leaf fastest).
pub fn eval(modes: &[Mode], i: i64) -> i64 {
    let mut rest = i;
    let mut off = 0;
    for &(s, d) in modes {
        off += (rest % s) * d;
        rest /= s;
    }
    off
}

/// `eval` with the last leaf unbounded (CuTe's extension of a layout past its size, used by
/// composition: `coalesce_x` in CuTe's layout.hpp keeps the last stride for the extension).
pub fn eval_ext(modes: &[Mode], x: i64) -> i64 {
    let mut rest = x;
    let mut off = 0;
    for (k, &(s, d)) in modes.iter().enumerate() {
        if k + 1 == modes.len() {
            off += rest * d;
        } else {
            off += (rest % s) * d;
            rest /= s;
        }
    }
    off
}

/// The value of `l` at the 1-D index `i`, by brute force.
pub fn at(l: &Layout, i: i64) -> i64 {
    eval(&leaves(l), i)
}

pub fn size(l: &Layout) -> i64 {
    size_of(&leaves(l))
}

/// Every value of `l` in domain order.
pub fn values(l: &Layout) -> Vec<i64> {
    let m = leaves(l);
    (0..size_of(&m)).map(|i| eval(&m, i)).collect()
}

pub fn all_distinct(v: &[i64]) -> bool {
    v.iter().collect::<HashSet<_>>().len() == v.len()
}

/// Whether `v` is a permutation of `0..v.len()`.
pub fn is_permutation(v: &[i64]) -> bool {
    let n = v.len() as i64;
    all_distinct(v) && v.iter().all(|&x| (0..n).contains(&x))
}

/// One past the largest value (CuTe's cosize for non-negative strides).
pub fn cosize(l: &Layout) -> i64 {
    values(l).into_iter().max().unwrap_or(0) + 1
}

/// The inverse of an injective layout: value -> domain index.
pub fn inverse_map(l: &Layout) -> HashMap<i64, i64> {
    values(l)
        .into_iter()
        .enumerate()
        .map(|(i, v)| (v, i as i64))
        .collect()
}

/// CuTe's coalesce on flat modes: drop extent-1 modes, merge `s0:d0 ++ s1:d1` when
/// `d1 == s0*d0` (CuTe layout.hpp `bw_coalesce`).
pub fn coalesce_modes(modes: &[Mode]) -> Vec<Mode> {
    let mut out: Vec<Mode> = Vec::new();
    for &(s, d) in modes {
        if s == 1 {
            continue;
        }
        match out.last_mut() {
            Some(p) if p.0 * p.1 == d => p.0 *= s,
            _ => out.push((s, d)),
        }
    }
    out
}

/// The finite digits (extents) of `A` that composition divides B's strides by: the coalesced
/// modes of all leaves but the last, with the one that continues into the last leaf merged into
/// the unbounded last mode (CuTe layout.hpp `coalesce_x` then `composition_impl`).
pub fn digits_of(a: &Layout) -> Vec<i64> {
    let m = leaves(a);
    let (last, inner) = m.split_last().expect("a layout has a leaf");
    let mut inner = coalesce_modes(inner);
    if let Some(&p) = inner.last() {
        if p.0 * p.1 == last.1 {
            inner.pop();
        }
    }
    inner.into_iter().map(|m| m.0).collect()
}

/// CuTe's `compatible(B, R)`: every leaf of `B` is a leaf or a tuple of the same size in `R`.
pub fn compatible(b: &IntTuple, r: &IntTuple) -> bool {
    match (b, r) {
        (IntTuple::Int(s), _) => r.leaves().iter().product::<i64>() == *s,
        (IntTuple::Tuple(bs), IntTuple::Tuple(rs)) => {
            bs.len() == rs.len() && bs.iter().zip(rs).all(|(x, y)| compatible(&x, &y))
        }
        _ => false,
    }
}

/// Compares two layouts as functions on the domain of `want`, with a readable failure.
pub fn same_function(got: &Layout, want: &[i64], what: &str) -> Result<(), TestCaseError> {
    let g = values(got);
    prop_assert_eq!(g.len(), want.len(), "{}: {} has the wrong size", what, got);
    for (i, (x, y)) in g.iter().zip(want).enumerate() {
        prop_assert_eq!(x, y, "{}: {} at index {}", what, got, i);
    }
    Ok(())
}

// ------------------------------------------------------------------------------- building

/// Builds a layout from flat modes with a nesting chosen by `c`: all-zero choices give a flat
/// tuple (or an integer layout for one mode).
pub fn build(modes: &[Mode], c: &mut Choices) -> Layout {
    let items: Vec<(IntTuple, IntTuple)> = modes
        .iter()
        .map(|&(s, d)| (IntTuple::Int(s), IntTuple::Int(d)))
        .collect();
    let (s, d) = if items.len() == 1 && !c.one_in(4) {
        items[0].clone()
    } else {
        group(items, c, 0)
    };
    Layout::new(s, d).expect("generated layouts are valid")
}

fn group(items: Vec<(IntTuple, IntTuple)>, c: &mut Choices, depth: u32) -> (IntTuple, IntTuple) {
    let mut out = Vec::new();
    let mut it = items.into_iter().peekable();
    while it.peek().is_some() {
        let take = if depth < 2 {
            1 + c.below(3) as usize
        } else {
            1
        };
        let chunk: Vec<_> = it.by_ref().take(take).collect();
        if chunk.len() == 1 {
            out.push(chunk.into_iter().next().unwrap());
        } else {
            out.push(group(chunk, c, depth + 1));
        }
    }
    let (s, d) = out.into_iter().unzip();
    (IntTuple::Tuple(s), IntTuple::Tuple(d))
}

/// The layout whose top-level modes are `modes`.
pub fn of_modes(modes: Vec<Layout>) -> Layout {
    Layout::from_modes(modes).expect("valid modes")
}

/// The compact column-major layout of the flat shape `shape` (strides = prefix products).
pub fn col_major(shape: &[i64]) -> Vec<Mode> {
    let mut p = 1;
    shape
        .iter()
        .map(|&s| {
            let m = (s, p);
            p *= s;
            m
        })
        .collect()
}

fn prime_factors(mut n: i64) -> Vec<i64> {
    let mut out = Vec::new();
    let mut p = 2;
    while n > 1 {
        while n % p == 0 {
            out.push(p);
            n /= p;
        }
        p += 1;
    }
    out
}

/// An ordered factorization of `n` chosen by `c` (all-zero: `[n]`).
pub fn factorize(n: i64, c: &mut Choices) -> Vec<i64> {
    let mut primes = prime_factors(n);
    c.shuffle(&mut primes);
    let mut out: Vec<i64> = Vec::new();
    for p in primes {
        match out.last_mut() {
            Some(f) if !c.one_in(3) => *f *= p,
            _ => out.push(p),
        }
    }
    if out.is_empty() {
        out.push(1);
    }
    out
}

/// Inserts "junk" modes that change neither image nor admissibility: extent-1 modes with any
/// stride and (when `zeros`) stride-0 modes.
pub fn add_junk(modes: &mut Vec<Mode>, c: &mut Choices, zeros: bool) {
    for _ in 0..c.below(3) {
        let m = if zeros && c.one_in(2) {
            (c.range(2, 3), 0)
        } else {
            (1, c.signed(9))
        };
        let at = c.below(modes.len() as u64 + 1) as usize;
        modes.insert(at, m);
    }
}

// ------------------------------------------------------------------------------- generators

/// Any layout: 1..=4 leaves, extents 1..=5, strides in -12..=12 (non-negative with `signed` off).
pub fn any_layout(c: &mut Choices, signed: bool) -> Layout {
    let n = c.range(1, 4);
    let modes: Vec<Mode> = (0..n)
        .map(|_| {
            let s = c.range(1, 5);
            let d = if signed { c.signed(12) } else { c.range(0, 24) };
            (s, d)
        })
        .collect();
    build(&modes, c)
}

/// An injective layout with gaps and signs: sorted by |stride|, each |stride| exceeds the
/// largest offset reachable by the smaller modes, so no two coordinates collide.
pub fn injective_layout(c: &mut Choices) -> Layout {
    let n = c.range(1, 3);
    let mut modes = Vec::new();
    let mut reach = 0i64;
    for _ in 0..n {
        let s = c.range(2, 4);
        let d = reach + 1 + c.below(3) as i64;
        reach += (s - 1) * d;
        modes.push((s, d));
    }
    c.shuffle(&mut modes);
    for m in &mut modes {
        if c.one_in(4) {
            m.1 = -m.1;
        }
    }
    add_junk(&mut modes, c, false);
    build(&modes, c)
}

/// A layout admissible for CuTe's complement with possible gaps: non-negative strides and,
/// sorted by stride, every stride at least the previous `extent*stride` (CuTe layout.hpp
/// `complement`: "Non-injective Layout detected" otherwise), plus stride-0 and extent-1 modes.
pub fn gapped_layout(c: &mut Choices) -> Layout {
    let n = c.range(1, 3);
    let mut modes = Vec::new();
    let mut next = 1i64;
    for _ in 0..n {
        let s = c.range(2, 4);
        let d = next + c.below(4) as i64 * if c.one_in(2) { next } else { 1 };
        next = s * d;
        modes.push((s, d));
    }
    c.shuffle(&mut modes);
    add_junk(&mut modes, c, true);
    build(&modes, c)
}

/// A sub-layout of a compact column-major layout of the shape `factors`: the modes `used`,
/// plus junk. Its complement is known exactly (see [`Exact::complement`]).
#[derive(Clone)]
pub struct Exact {
    pub layout: Layout,
    pub factors: Vec<i64>,
    pub used: Vec<bool>,
}

impl fmt::Debug for Exact {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.layout)
    }
}

pub fn exact_layout(c: &mut Choices) -> Exact {
    exact_layout_n(c, 4)
}

/// [`exact_layout`] over a compact layout of at most `max_factors` modes.
pub fn exact_layout_n(c: &mut Choices, max_factors: i64) -> Exact {
    let n = c.range(1, max_factors) as usize;
    let factors: Vec<i64> = (0..n).map(|_| c.range(2, 4)).collect();
    let used: Vec<bool> = (0..n).map(|_| !c.one_in(3)).collect();
    let compact = col_major(&factors);
    let mut modes: Vec<Mode> = (0..n).filter(|&k| used[k]).map(|k| compact[k]).collect();
    c.shuffle(&mut modes);
    add_junk(&mut modes, c, true);
    if modes.is_empty() {
        modes.push((1, 0));
    }
    Exact {
        layout: build(&modes, c),
        factors,
        used,
    }
}

impl Exact {
    /// The complement of the layout for `cotarget` as flat modes, by construction: the unused
    /// factors below the highest used one, in stride order, then the rest
    /// `ceil(cotarget / top) : top` where `top` is the product of the factors up to the highest
    /// used one (CuTe layout.hpp `complement`: the holes between the sorted modes, then the rest).
    pub fn complement(&self, cotarget: i64) -> Vec<Mode> {
        let compact = col_major(&self.factors);
        let top = self.used.iter().rposition(|&u| u).map_or(0, |k| k + 1);
        let mut out: Vec<Mode> = (0..top)
            .filter(|&k| !self.used[k])
            .map(|k| compact[k])
            .collect();
        let p: i64 = self.factors[..top].iter().product();
        out.push(((cotarget + p - 1) / p, p));
        out
    }

    /// The digits of the complement's modes (for building admissible right operands of
    /// `complement o B`): the unused factors below the top; the rest mode is unbounded.
    pub fn complement_digits(&self) -> Vec<i64> {
        let top = self.used.iter().rposition(|&u| u).map_or(0, |k| k + 1);
        (0..top)
            .filter(|&k| !self.used[k])
            .map(|k| self.factors[k])
            .collect()
    }
}

/// A unit of A's domain that a run of the right operand may cover: `extent` indices starting at
/// the domain stride `stride`; `joins` is false when the unit may not extend the previous run.
struct Unit {
    extent: i64,
    stride: i64,
    joins: bool,
}

/// A right operand `B` of `A o B` that is admissible by construction for the digits of `A`
/// (see [`digits_of`]): its leaves are runs of consecutive factors of a refinement of the digits
/// (the last, unbounded digit gets free factors), or leaves packed inside one digit whose
/// elements fit in it without carry, or stride-0 / extent-1 leaves. Different leaves use disjoint
/// digits, so `A(B(c))` is the sum of `A` over B's leaves. With `signed`, some leaves get a
/// negative stride (CuTe's composition_impl takes `abs` and `signum` of B's stride).
pub fn compose_rhs(digits: &[i64], c: &mut Choices, signed: bool, max_size: i64) -> Layout {
    let mut units: Vec<Unit> = Vec::new();
    let mut packed: Vec<Mode> = Vec::new();
    let mut p = 1i64; // domain stride of the current digit
    let mut broken = true;
    for (k, &a) in digits.iter().chain(std::iter::once(&0)).enumerate() {
        let last = k == digits.len();
        if c.one_in(3) {
            // Packed leaves inside this digit.
            let mut budget = if last { 12 } else { a - 1 };
            for _ in 0..c.range(1, 2) {
                if budget < 1 {
                    break;
                }
                let r = c.range(1, budget.min(6));
                let s = c.range(2, 1 + budget / r);
                budget -= (s - 1) * r;
                packed.push((s, p * r));
            }
            broken = true;
        } else {
            let fs = if last {
                (0..c.range(0, 2)).map(|_| c.range(2, 4)).collect()
            } else {
                factorize(a, c)
            };
            let mut q = p;
            for f in fs {
                units.push(Unit {
                    extent: f,
                    stride: q,
                    joins: !broken,
                });
                broken = false;
                q *= f;
            }
        }
        if !last {
            p *= a;
        }
    }
    // Runs of consecutive joinable units; each kept run is a leaf.
    let mut modes: Vec<Mode> = Vec::new();
    let mut run: Option<Mode> = None;
    for u in units {
        match run {
            Some((s, d)) if u.joins && c.one_in(2) => run = Some((s * u.extent, d)),
            _ => {
                if let Some(m) = run.take() {
                    if !c.one_in(4) {
                        modes.push(m);
                    }
                }
                run = Some((u.extent, u.stride));
            }
        }
    }
    if let Some(m) = run {
        if !c.one_in(4) {
            modes.push(m);
        }
    }
    modes.extend(packed);
    // Keep brute force cheap.
    while size_of(&modes) > max_size {
        modes.pop();
    }
    add_junk(&mut modes, c, true);
    c.shuffle(&mut modes);
    if signed {
        for m in &mut modes {
            if c.one_in(3) {
                m.1 = -m.1;
            }
        }
    }
    if modes.is_empty() {
        modes.push((1, 0));
    }
    build(&modes, c)
}

/// A tiler `B` that divides the layout `a`: runs of consecutive factors of a refinement of
/// `a`'s coalesced modes (no stride-0 leaves, no index past `size(a)`), so `(B, complement(B,
/// size(a)))` is admissible for composition with `a` and tiles its domain exactly.
pub fn dividing_tiler(a: &Layout, c: &mut Choices) -> Layout {
    let digits: Vec<i64> = coalesce_modes(&leaves(a)).iter().map(|m| m.0).collect();
    let mut units: Vec<Mode> = Vec::new();
    let mut p = 1;
    for d in digits {
        for f in factorize(d, c) {
            units.push((f, p));
            p *= f;
        }
    }
    let mut modes: Vec<Mode> = Vec::new();
    let mut run: Option<Mode> = None;
    for (f, q) in units {
        match run {
            Some((s, d)) if c.one_in(2) => run = Some((s * f, d)),
            _ => {
                if let Some(m) = run.take() {
                    if !c.one_in(3) {
                        modes.push(m);
                    }
                }
                run = Some((f, q));
            }
        }
    }
    if let Some(m) = run {
        if !c.one_in(3) {
            modes.push(m);
        }
    }
    c.shuffle(&mut modes);
    add_junk(&mut modes, c, false);
    if modes.is_empty() {
        modes.push((1, 0));
    }
    build(&modes, c)
}
