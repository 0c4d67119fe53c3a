//! Laws of max_common_vector / max_common_layout, upcast / downcast, is_injective /
//! is_bijective, and the injectivity and bijectivity of offset and swizzle chains (`verify`).
//!
//! Every property draws random inputs that are admissible by construction (decided by the
//! generator, independently of tessel), requires tessel to accept them (an `Err` on an admissible
//! input is a failure: tessel must never be stricter than CuTe), and checks the result by its
//! defining formula with a brute-force evaluator written in the test.
//!
//! The run is deterministic (a fixed seed, no regression files). `TESSEL_PROPTEST_CASES=N` sets
//! the number of cases per property (default 256, a few seconds in a debug build); a long run is
//! e.g. `TESSEL_PROPTEST_CASES=20000 cargo test -p tessel-layout --release --test laws_vector`.

mod laws_support;

use std::fmt;

use laws_support::*;
use proptest::prelude::*;
use proptest::test_runner::TestCaseError;
use tessel_layout::{
    ComposedLayout, IntTuple, Layout, Swizzle, downcast, is_bijective, is_injective,
    max_common_layout, max_common_vector, upcast, verify,
};

type Check = Result<(), TestCaseError>;

fn fail(what: String) -> TestCaseError {
    TestCaseError::fail(what)
}

/// Whether two tuples have the same tree structure.
fn same_profile(a: &IntTuple, b: &IntTuple) -> bool {
    match (a, b) {
        (IntTuple::Int(_), IntTuple::Int(_)) => true,
        (IntTuple::Tuple(x), IntTuple::Tuple(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(p, q)| same_profile(&p, &q))
        }
        _ => false,
    }
}

// ---------------------------------------------------------------------------------- max_common
// CuTe layout.hpp `max_common_layout(a, b)`: @post for all 0 <= i < size(R), a(R(i)) == i and
// b(R(i)) == i; `max_common_vector(a, b)` is that layout's size N >= 1 ("the maximum number of
// contiguous elements that logically correspond in a and b"). Checked: the post-condition with R
// inside both domains, N <= min(size(a), size(b)), and N at most the brute-force maximum, the
// largest M such that every j < M is a(x) == b(x) == j at one domain index x. When a and b start
// with contiguous vectors va:1 and vb:1 (and neither continues it), N >= min(va, vb).

/// The brute-force maximum common vector.
fn common_prefix(a: &Layout, b: &Layout) -> i64 {
    let (av, bv) = (values(a), values(b));
    let n = av.len().min(bv.len());
    let mut m = 0;
    while (0..n).any(|x| av[x] == m && bv[x] == m) {
        m += 1;
    }
    m
}

fn common_law(a: &Layout, b: &Layout, n: i64, r: &Layout) -> Check {
    let what = format!("max_common_vector({a}, {b}) = {n}, max_common_layout = {r}");
    let limit = size(a).min(size(b));
    prop_assert!(n >= 1 && n <= limit, "{}: outside 1..={}", what, limit);
    prop_assert!(
        n <= common_prefix(a, b).max(1),
        "{}: more than the {} common elements",
        what,
        common_prefix(a, b)
    );
    prop_assert_eq!(size(r), n, "{}: size of the common layout", what);
    let (am, bm) = (leaves(a), leaves(b));
    for (i, x) in values(r).into_iter().enumerate().skip(1) {
        prop_assert!(
            (0..limit).contains(&x),
            "{}: R({}) = {} outside both domains",
            what,
            i,
            x
        );
        prop_assert_eq!(eval(&am, x), i as i64, "{}: a(R({}))", what, i);
        prop_assert_eq!(eval(&bm, x), i as i64, "{}: b(R({}))", what, i);
    }
    Ok(())
}

/// Two layouts `(va, ...):(1, ...)` and `(vb, ...):(1, ...)` whose other strides exceed both
/// vectors, and `v = min(va, vb)`. `a` has other modes only when `va == vb`, so that
/// `a o right_inverse(b)` stays admissible in CuTe.
fn shared_vector(c: &mut Choices) -> (L, L, i64) {
    let va = c.range(2, 8);
    let vb = if c.one_in(2) { c.range(2, 8) } else { va };
    let top = va.max(vb);
    let side = |c: &mut Choices, v: i64, tail: bool| {
        let mut modes = vec![(v, 1)];
        for _ in 0..if tail { c.range(0, 2) } else { 0 } {
            modes.push((c.range(1, 4), top + c.range(1, 12)));
        }
        build(&modes, c)
    };
    let a = side(c, va, va == vb);
    let b = side(c, vb, true);
    (L(a), L(b), va.min(vb))
}

proptest! {
    #![proptest_config(config(200))]

    #[test]
    fn max_common_vector_law(ab in inputs(|c| (L(any_layout(c, false)), L(any_layout(c, false))))) {
        let (a, b) = (ab.0.0, ab.1.0);
        let (Ok(n), Ok(r)) = (max_common_vector(&a, &b), max_common_layout(&a, &b)) else {
            return Ok(());
        };
        common_law(&a, &b, n, &r)?;
    }

    #[test]
    fn max_common_vector_of_a_shared_vector(ab in inputs(shared_vector)) {
        let (a, b, v) = (ab.0.0, ab.1.0, ab.2);
        let n = max_common_vector(&a, &b).map_err(|e| fail(format!("max_common_vector({a}, {b}): {e}")))?;
        let r = max_common_layout(&a, &b).map_err(|e| fail(format!("max_common_layout({a}, {b}): {e}")))?;
        prop_assert!(n >= v, "max_common_vector({}, {}) = {} < {}", a, b, n, v);
        common_law(&a, &b, n, &r)?;
    }
}

// ---------------------------------------------------------------------------------- upcast / downcast
// CuTe layout.hpp `upcast<N>` / `downcast<N>` (used by `recast_layout`) re-express a layout of
// narrow elements in units N times wider, and back, leaf by leaf (the shape's profile is kept).
//
// downcast: every wide element w is the N narrow elements N*w + r, r < N. One leaf l of stride
// +-1 takes the sub-element index (its extent grows N times; CuTe: "downcast requires adjacent
// elements"); so at the coordinate with c_l replaced by N*c_l + r, D == N*L(c) + sign(d_l)*r,
// and every other coordinate is unchanged. D is injective iff L is, and upcast(D, N) == L.
//
// upcast: admissible when every non-zero stride is a multiple or a divisor of N (CuTe's
// "Divisibility condition"). A leaf of stride d with 0 < |d| < N advances N/|d| narrow steps per
// wide step, every other leaf one; at the narrow coordinate c_k = m_k * u_k of the wide
// coordinate u, L == N * U(u). For non-negative strides and an injective L every narrow element
// lies in a wide element of U: floor(L(x) / N) is a value of U (else data is silently dropped:
// CuTe's own upcast<6>((3,2):(2,3)) = (1,1):(1,1) drops L(5) = 7; its divisibility condition
// alone lets that input through).

fn upcast_case(c: &mut Choices) -> (L, i64) {
    let n = [1, 2, 4, 3, 6, 8][c.below(6) as usize];
    let divisors: Vec<i64> = (1..=n).filter(|d| n % d == 0).collect();
    let modes: Vec<Mode> = (0..c.range(1, 3))
        .map(|_| {
            let d = if c.one_in(2) {
                divisors[c.below(divisors.len() as u64) as usize]
            } else {
                n * c.range(0, 4)
            };
            (c.range(1, 6), if c.one_in(4) { -d } else { d })
        })
        .collect();
    (L(build(&modes, c)), n)
}

fn downcast_case(c: &mut Choices) -> (L, i64) {
    let a = any_layout(c, true);
    let mut modes = leaves(&a);
    let k = c.below(modes.len() as u64) as usize;
    modes[k].1 = if c.one_in(3) { -1 } else { 1 };
    let strides = a
        .stride()
        .with_leaves(&modes.iter().map(|m| m.1).collect::<Vec<_>>())
        .unwrap();
    (
        L(Layout::new(a.shape().clone(), strides).unwrap()),
        c.range(1, 4),
    )
}

proptest! {
    #![proptest_config(config(200))]

    #[test]
    fn upcast_law(case in inputs(upcast_case)) {
        let (l, n) = (case.0.0, case.1);
        let what = format!("upcast({l}, {n})");
        let u = match upcast(&l, n) {
            Ok(u) => u,
            Err(e) => {
                // Refusing is right only where the leaf-wise upcast would miss a wide element.
                prop_assert!(!leafwise_upcast_covers(&l, n), "admissible {} rejected: {}", what, e);
                return Ok(());
            }
        };
        prop_assert!(same_profile(l.shape(), u.shape()), "{} = {} changes the profile", what, u);
        let (lm, um) = (leaves(&l), leaves(&u));
        for j in 0..size_of(&um) {
            let mut rest = j;
            let mut narrow = 0;
            for (&(s, d), &(us, _)) in lm.iter().zip(&um) {
                let k = rest % us;
                rest /= us;
                let m = if d != 0 && d.abs() < n { n / d.abs() } else { 1 };
                prop_assert!(k * m < s, "{} = {}: wide coordinate {} of a leaf of extent {} is past it", what, u, k, s);
                narrow += k * m * d;
            }
            prop_assert_eq!(narrow, n * eval(&um, j), "{} = {}: at wide index {}", what, u, j);
        }
    }

    #[test]
    fn upcast_covers_every_narrow_element(case in inputs(upcast_case)) {
        upcast_cover_check(&case.0.0, case.1)?;
    }

    #[test]
    fn downcast_law(case in inputs(downcast_case)) {
        downcast_check(&case.0.0, case.1)?;
    }
}

fn upcast_cover_check(l: &Layout, n: i64) -> Check {
    let lv = values(l);
    if leaves(l).iter().any(|m| m.1 < 0) || !all_distinct(&lv) {
        return Ok(());
    }
    let what = format!("upcast({l}, {n})");
    let u = upcast(l, n).map_err(|e| fail(format!("admissible {what} rejected: {e}")))?;
    let wide: std::collections::HashSet<i64> = values(&u).into_iter().collect();
    for (x, v) in lv.iter().enumerate() {
        prop_assert!(
            wide.contains(&v.div_euclid(n)),
            "{} = {}: L({}) = {} is in no wide element",
            what,
            u,
            x,
            v
        );
    }
    Ok(())
}

fn downcast_check(l: &Layout, n: i64) -> Check {
    let what = format!("downcast({l}, {n})");
    let d = match downcast(l, n) {
        Ok(d) => d,
        Err(e) => {
            // CuTe's downcast needs a leaf of stride 1 (include/cute/layout.hpp, `has_int1`);
            // growing a stride -1 leaf of extent > 1 would order the narrow elements of each
            // element backwards. Only such layouts may be refused.
            let growable = leaves(l)
                .iter()
                .any(|&(s, st)| st == 1 || (s == 1 && st == -1));
            prop_assert!(n > 1 && !growable, "admissible {} rejected: {}", what, e);
            return Ok(());
        }
    };
    prop_assert!(
        same_profile(l.shape(), d.shape()),
        "{} = {} changes the profile",
        what,
        d
    );
    let (lm, dm) = (leaves(l), leaves(&d));
    let grown: Vec<usize> = (0..lm.len()).filter(|&k| dm[k].0 != lm[k].0).collect();
    let sub = match grown.as_slice() {
        [] if n == 1 => (0..lm.len()).find(|&k| lm[k].1.abs() == 1).unwrap(),
        [k] => *k,
        _ => {
            return Err(fail(format!(
                "{what} = {d}: not exactly one leaf takes the sub-element index"
            )));
        }
    };
    prop_assert!(
        lm[sub].1.abs() == 1 && dm[sub].0 == n * lm[sub].0,
        "{} = {}: leaf {}",
        what,
        d,
        sub
    );
    for i in 0..size_of(&lm) {
        let mut rest = i;
        let coords: Vec<i64> = lm
            .iter()
            .map(|&(s, _)| {
                let x = rest % s;
                rest /= s;
                x
            })
            .collect();
        for r in 0..n {
            let got: i64 = (0..lm.len())
                .map(|k| {
                    if k == sub {
                        (n * coords[k] + r) * dm[k].1
                    } else {
                        coords[k] * dm[k].1
                    }
                })
                .sum();
            prop_assert_eq!(
                got,
                // An extent-1 leaf has no direction: it grows upwards whatever its stride's sign.
                n * eval(&lm, i)
                    + if lm[sub].0 == 1 {
                        1
                    } else {
                        lm[sub].1.signum()
                    } * r,
                "{} = {}: narrow element {} of index {}",
                what,
                d,
                r,
                i
            );
        }
    }
    prop_assert_eq!(
        all_distinct(&values(&d)),
        all_distinct(&values(l)),
        "{} = {}: injectivity changed",
        what,
        d
    );
    let back = upcast(&d, n).map_err(|e| fail(format!("upcast({d}, {n}): {e}")))?;
    same_function(&back, &values(l), &format!("upcast({what} = {d}, {n})"))?;
    Ok(())
}

// ---------------------------------------------------------------------------------- is_injective / is_bijective
// Definitions: a layout is injective when no two domain indices have the same value, bijective
// when its values are exactly 0..size (each once). Decided here by enumerating the values.

/// A compact layout of a random shape with its modes permuted and some strides negated.
fn permuted_compact(c: &mut Choices) -> Layout {
    let shape: Vec<i64> = (0..c.range(1, 4))
        .map(|_| {
            if c.one_in(2) {
                1 << c.range(0, 2)
            } else {
                c.range(1, 4)
            }
        })
        .collect();
    let mut modes = col_major(&shape);
    c.shuffle(&mut modes);
    for m in &mut modes {
        if c.one_in(5) {
            m.1 = -m.1;
        }
    }
    build(&modes, c)
}

proptest! {
    #![proptest_config(config(300))]

    #[test]
    fn is_injective_and_is_bijective_by_enumeration(
        a in inputs(|c| L(if c.one_in(2) { permuted_compact(c) } else { any_layout(c, true) }))
    ) {
        let a = a.0;
        let v = values(&a);
        let inj = is_injective(&a).map_err(|e| fail(format!("is_injective({a}): {e}")))?;
        let bij = is_bijective(&a).map_err(|e| fail(format!("is_bijective({a}): {e}")))?;
        prop_assert_eq!(inj, all_distinct(&v), "is_injective({}), values {:?}", a, v);
        prop_assert_eq!(bij, is_permutation(&v), "is_bijective({}), values {:?}", a, v);
    }
}

// ---------------------------------------------------------------------------------- offsets and swizzle chains
// CuTe swizzle.hpp `Swizzle<B,M,S>::apply(x) = x ^ shiftr(x & yyy_msk, S)` with
// yyy_msk = ((1<<B)-1) << (M + max(0,S)) (a negative S shifts left); a composed layout is
// `Sw_0 o ... o Sw_k o offset o L`: value(i) = Sw_0(...Sw_k(offset + L(i))). Injective: the values
// are distinct; bijective: the values are exactly 0..size (e.g. offset 3 then 4:-1 gives 3,2,1,0).

fn swizzle_apply(sw: &Swizzle, x: i64) -> i64 {
    let (b, m, s) = (
        i64::from(sw.bits()),
        i64::from(sw.base()),
        i64::from(sw.shift()),
    );
    let yyy = ((1i64 << b) - 1) << (m + s.max(0));
    let picked = x & yyy;
    x ^ if s >= 0 { picked >> s } else { picked << -s }
}

struct Composed(ComposedLayout);

impl fmt::Debug for Composed {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.0)
    }
}

fn composed_case(c: &mut Choices) -> Composed {
    let l = if c.one_in(3) {
        any_layout(c, true)
    } else {
        permuted_compact(c)
    };
    let offset = match c.below(3) {
        0 => 0,
        1 => -values(&l).into_iter().min().unwrap_or(0),
        _ => c.signed(8),
    };
    let swizzles: Vec<Swizzle> = (0..c.below(3))
        .map(|_| {
            let b = c.range(0, 2);
            let s = b + c.range(0, 1);
            Swizzle::new(b, c.range(0, 3), if c.one_in(3) { -s } else { s }).unwrap()
        })
        .collect();
    Composed(ComposedLayout::new(swizzles, offset, l))
}

proptest! {
    #![proptest_config(config(300))]

    #[test]
    fn verify_injective_and_bijective_by_enumeration(c in inputs(composed_case)) {
        composed_check(&c.0)?;
    }
}

fn composed_check(c: &ComposedLayout) -> Check {
    let v: Vec<i64> = values(c.layout())
        .into_iter()
        .map(|x| {
            c.swizzles()
                .iter()
                .rev()
                .fold(x + c.base_offset(), |y, sw| swizzle_apply(sw, y))
        })
        .collect();
    let inj = verify::is_injective(c).map_err(|e| fail(format!("is_injective({c}): {e}")))?;
    let bij = verify::is_bijective(c).map_err(|e| fail(format!("is_bijective({c}): {e}")))?;
    prop_assert_eq!(
        inj,
        all_distinct(&v),
        "verify::is_injective({}), values {:?}",
        c,
        v
    );
    prop_assert_eq!(
        bij,
        is_permutation(&v),
        "verify::is_bijective({}), values {:?}",
        c,
        v
    );
    Ok(())
}

// ---------------------------------------------------------------------------------- known cases
// The laws above on inputs that once gave wrong answers, checked whatever the generators draw.

fn lay(s: &str) -> Layout {
    s.parse().unwrap()
}

#[test]
fn known_offset_before_a_negative_stride() {
    // Offset 3 then 4:-1: the values 3,2,1,0 are a bijection onto 0..4.
    composed_check(&ComposedLayout::new(vec![], 3, lay("4:-1"))).unwrap();
}

#[test]
fn known_downcast_with_two_stride_1_leaves() {
    downcast_check(&lay("(1,8):(1,1)"), 4).unwrap();
}

#[test]
fn known_common_vector_longer_than_a() {
    let (a, b) = (lay("32:1"), lay("64:1"));
    let n = max_common_vector(&a, &b).unwrap();
    let r = max_common_layout(&a, &b).unwrap();
    common_law(&a, &b, n, &r).unwrap();
}

#[test]
fn known_upcast_of_two_sub_element_strides() {
    // Not among them: the narrow offsets of (3,2):(2,3) are 0,2,4,3,5,7, so in units of 6 they
    // occupy the wide elements 0 and 1; CuTe's leaf-wise upcast<6> gives (1,1):(1,1), which
    // drops the element at 7. tessel refuses it.
    assert!(!leafwise_upcast_covers(&lay("(3,2):(2,3)"), 6));
    let e = upcast(&lay("(3,2):(2,3)"), 6).unwrap_err();
    assert!(e.to_string().contains("below one wide element"), "{e}");
}

/// Whether CuTe's leaf-wise upcast of `l` by `n` (a leaf `s:d` with `d` dividing `n` becomes
/// `ceil(s / (n/|d|)) : sign(d)`, a multiple `d` of `n` becomes `s : d/n`, stride 0 stays)
/// reaches every wide element `floor(l(i) / n)` that `l` touches.
fn leafwise_upcast_covers(l: &tessel_layout::Layout, n: i64) -> bool {
    let lm = leaves(l);
    let um: Vec<(i64, i64)> = lm
        .iter()
        .map(|&(s, d)| {
            if d == 0 {
                (s, 0)
            } else if d % n == 0 {
                (s, d / n)
            } else {
                let per = n / d.abs();
                (s / per + i64::from(s % per != 0), d.signum())
            }
        })
        .collect();
    let wide: std::collections::BTreeSet<i64> = (0..size_of(&lm))
        .map(|i| eval(&lm, i).div_euclid(n))
        .collect();
    let reached: std::collections::BTreeSet<i64> =
        (0..size_of(&um)).map(|j| eval(&um, j)).collect();
    wide == reached
}
