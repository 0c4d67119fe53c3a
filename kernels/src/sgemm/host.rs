//! The CPU reference of an SGEMM and the tolerance a GPU result is held to.
//!
//! The reference accumulates in f64. A float dot product of length K computed in any order (with
//! or without FMA) differs from the exact one by at most `gamma_K * sum_k |a_ik b_kj|` with
//! `gamma_K = K u / (1 - K u)`, `u = 2^-24` (Higham, *Accuracy and Stability of Numerical
//! Algorithms*, 2nd ed., eq. 3.5; [`crate::measure::bound::gamma`]); the f64 reference is exact
//! to far below that. An element passes when
//! `|got - ref| <= gamma_K * sum_k |a_ik b_kj| + 1e-30`.
//!
//! ```
//! use tessel_kernels::sgemm::{Major, host};
//! let (a, b) = (vec![1.0f32, 2.0], vec![3.0f32, 4.0]); // 1x2 times 2x1
//! let c = host::reference(&a, Major::Row, &b, Major::Row, 1, 1, 2);
//! assert_eq!(c, vec![11.0]);
//! ```

use super::Major;
use crate::error::{GpuError, GpuResult};
use crate::measure::bound::gamma;

/// Element `(r, c)` of a `rows x cols` matrix stored `major`.
///
/// ```
/// use tessel_kernels::sgemm::{Major, host::at};
/// assert_eq!(at(&[1.0, 2.0, 3.0, 4.0], Major::Col, 2, 2, 0, 1), 3.0);
/// ```
pub fn at(x: &[f32], major: Major, rows: usize, cols: usize, r: usize, c: usize) -> f32 {
    match major {
        Major::Row => x[r * cols + c],
        Major::Col => x[r + rows * c],
    }
}

/// `(sum_k a_ik b_kj, sum_k |a_ik b_kj|)` in f64.
///
/// ```
/// use tessel_kernels::sgemm::{Major, host::dot};
/// assert_eq!(dot(&[1.0, -2.0], Major::Row, &[3.0, 4.0], Major::Row, 1, 1, 2, 0, 0), (-5.0, 11.0));
/// ```
#[allow(clippy::too_many_arguments)]
pub fn dot(
    a: &[f32],
    am: Major,
    b: &[f32],
    bm: Major,
    m: usize,
    n: usize,
    k: usize,
    i: usize,
    j: usize,
) -> (f64, f64) {
    let (mut s, mut abs) = (0.0f64, 0.0f64);
    for kk in 0..k {
        let p = at(a, am, m, k, i, kk) as f64 * at(b, bm, k, n, kk, j) as f64;
        s += p;
        abs += p.abs();
    }
    (s, abs)
}

/// The row-major `M x N` product, rounded to f32.
///
/// ```
/// use tessel_kernels::sgemm::{Major, host::reference};
/// // A = [[1,2],[3,4]] column-major is [1,3,2,4]; times the identity.
/// let c = reference(&[1.0, 3.0, 2.0, 4.0], Major::Col, &[1.0, 0.0, 0.0, 1.0], Major::Row, 2, 2, 2);
/// assert_eq!(c, vec![1.0, 2.0, 3.0, 4.0]);
/// ```
pub fn reference(
    a: &[f32],
    am: Major,
    b: &[f32],
    bm: Major,
    m: usize,
    n: usize,
    k: usize,
) -> Vec<f32> {
    let mut c = vec![0.0f32; m * n];
    for i in 0..m {
        for j in 0..n {
            c[i * n + j] = dot(a, am, b, bm, m, n, k, i, j).0 as f32;
        }
    }
    c
}

/// The worst element of a comparison.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Check {
    /// Elements compared.
    pub checked: usize,
    /// Largest `|got - ref| / (gamma_K sum |a b|)` (<= 1 passes).
    pub worst_ratio: f64,
    /// Largest `|got - ref| / max(|ref|, tiny)`.
    pub max_rel: f64,
}

/// Compares a row-major `M x N` GPU result with the f64 reference at `elements` (all when `None`),
/// failing with the first element outside the bound of the module doc.
///
/// ```
/// use tessel_kernels::sgemm::{Major, host::check};
/// let (a, b) = (vec![1.0f32, 2.0], vec![3.0f32, 4.0]);
/// assert!(check(&[11.0], &a, Major::Row, &b, Major::Row, (1, 1, 2), None).is_ok());
/// assert!(check(&[11.01], &a, Major::Row, &b, Major::Row, (1, 1, 2), None).is_err());
/// ```
pub fn check(
    got: &[f32],
    a: &[f32],
    am: Major,
    b: &[f32],
    bm: Major,
    (m, n, k): (usize, usize, usize),
    elements: Option<&[(usize, usize)]>,
) -> GpuResult<Check> {
    let all: Vec<(usize, usize)>;
    let list = match elements {
        Some(l) => l,
        None => {
            all = (0..m).flat_map(|i| (0..n).map(move |j| (i, j))).collect();
            &all
        }
    };
    let g = gamma(k);
    let mut out = Check {
        checked: 0,
        worst_ratio: 0.0,
        max_rel: 0.0,
    };
    for &(i, j) in list {
        let (want, abs) = dot(a, am, b, bm, m, n, k, i, j);
        let x = got[i * n + j] as f64;
        let err = (x - want).abs();
        let bound = g * abs + 1e-30;
        if err.is_nan() || err > bound {
            return Err(GpuError::Verify(format!(
                "sgemm C({i},{j}) = {x}, reference {want}: |error| {err:e} exceeds gamma_K sum|ab| = {bound:e}"
            )));
        }
        out.checked += 1;
        out.worst_ratio = out.worst_ratio.max(err / bound);
        out.max_rel = out.max_rel.max(err / want.abs().max(1e-30));
    }
    Ok(out)
}

/// `count` pseudo-random positions of an `M x N` result (always including the four corners).
///
/// ```
/// let s = tessel_kernels::sgemm::host::sample(100, 50, 10, 1);
/// assert_eq!(s.len(), 14);
/// assert!(s.contains(&(99, 49)) && s.iter().all(|&(i, j)| i < 100 && j < 50));
/// ```
pub fn sample(m: usize, n: usize, count: usize, seed: u64) -> Vec<(usize, usize)> {
    let mut x = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    let mut next = move || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    };
    let mut out = vec![(0, 0), (0, n - 1), (m - 1, 0), (m - 1, n - 1)];
    for _ in 0..count {
        out.push(((next() % m as u64) as usize, (next() % n as u64) as usize));
    }
    out
}

/// Uniform pseudo-random values in `[-1, 1)`, from [`crate::bits::random_data`].
///
/// ```
/// let v = tessel_kernels::sgemm::host::random(1000, 3);
/// assert!(v.iter().all(|x| (-1.0..1.0).contains(x)) && v[0] != v[1]);
/// ```
pub fn random(len: usize, seed: u64) -> Vec<f32> {
    // random_data's fp32 values lie in [1, 2); (v - 1.5) * 2 is exact.
    crate::bits::random_data::<u32>(len, seed)
        .into_iter()
        .map(|bits| (f32::from_bits(bits) - 1.5) * 2.0)
        .collect()
}
