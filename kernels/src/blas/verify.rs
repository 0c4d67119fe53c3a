//! Checking a GEMM's result on the host against an f64 reference, within a bound that holds for
//! any K: each element within the fp32 accumulation bound of its own `sum_k |a_ik b_kj|`
//! ([`crate::measure::bound::tolerance`], scaled by `|alpha|`), plus the rounding of the
//! scaling, of `beta C` and of the output type ([`crate::measure::bound::rounded`]); for 8-bit
//! inputs also the reduced precision of the tensor cores' accumulation inside one promotion
//! interval ([`FP8_ACCUMULATION`]). 8-bit inputs and their products are exact in f64, so the
//! reference is exact.

use super::Order;
use crate::element::Element;
use crate::measure::bound::{rounded, tolerance};
use crate::measure::compare::{Comparison, compare_rows};

/// A matrix on the host: its values in storage order (as f64), its order and leading
/// dimension.
///
/// ```
/// use tessel_kernels::blas::{HostMatrix, Order};
/// let v = [1.0, 2.0, 3.0, 4.0, 5.0, 6.0];
/// let a = HostMatrix { values: &v, order: Order::ColMajor, ld: 3 };
/// assert_eq!(a.at(2, 1), 6.0); // element (2, 1) of a 3 x 2 column-major matrix
/// assert!(a.at(9, 9).is_nan()); // outside the values
/// ```
#[derive(Clone, Copy, Debug)]
pub struct HostMatrix<'a> {
    /// Values in storage order.
    pub values: &'a [f64],
    /// Storage order.
    pub order: Order,
    /// Leading dimension.
    pub ld: i64,
}

impl HostMatrix<'_> {
    /// Element `(i, j)` (NaN outside the values).
    pub fn at(&self, i: usize, j: usize) -> f64 {
        let ld = self.ld as usize;
        let at = match self.order {
            Order::RowMajor => i * ld + j,
            Order::ColMajor => i + j * ld,
        };
        self.values.get(at).copied().unwrap_or(f64::NAN)
    }
}

/// The operands and scalars of `D = alpha A B + beta C` on the host.
#[derive(Clone, Copy, Debug)]
pub struct HostGemm<'a> {
    /// Rows of A and D.
    pub m: usize,
    /// Columns of B and D.
    pub n: usize,
    /// The reduction extent.
    pub k: usize,
    /// A (`m x k`).
    pub a: HostMatrix<'a>,
    /// B (`k x n`).
    pub b: HostMatrix<'a>,
    /// C (`m x n`; ignored when `beta == 0`).
    pub c: Option<HostMatrix<'a>>,
    /// Scale of `A B`.
    pub alpha: f64,
    /// Scale of C.
    pub beta: f64,
    /// Whether A and B are 8-bit (the bound adds [`FP8_ACCUMULATION`] `|alpha| S`).
    pub fp8: bool,
}

/// The error of the wgmma accumulation of 8-bit products inside one promotion interval (a
/// k-tile of 128), relative to the sum `S` of the products' magnitudes: `2^-11`. The tensor
/// cores keep about 14 bits of the FP8 accumulation (DeepSeek-V3 Technical Report,
/// arXiv:2412.19437, section 3.3.2, measured on H800), so each of the four k32 steps of a
/// k-tile loses at most `2^-13` of the magnitude it adds to; the kernel adds each k-tile's
/// partial sum to an fp32 total ([`crate::hopper`]), which [`crate::measure::bound::tolerance`]
/// covers.
///
/// ```
/// assert_eq!(tessel_kernels::blas::FP8_ACCUMULATION, 4.0 * 2f64.powi(-13));
/// ```
pub const FP8_ACCUMULATION: f64 = 1.0 / 2048.0;

/// Compares rows `rows` of `d` (every column) with the f64 reference of `g`: element `(i, j)`
/// within `t + u (|want| + t) + s`, where `t = |alpha| tolerance(k, S) + 2^-23 (|alpha| S +
/// |beta c_ij|)` with `S = sum_k |a_ik b_kj|` (the fp32 accumulation, scaling and addition of C),
/// `u` the output type's unit roundoff and `s` its smallest subnormal; 8-bit inputs
/// (`g.fp8`) add [`FP8_ACCUMULATION`] `|alpha| S` to `t`.
///
/// ```
/// use tessel_kernels::{Element, blas::{HostGemm, HostMatrix, Order, verify_gemm}};
/// fn rm(values: &[f64]) -> HostMatrix<'_> { HostMatrix { values, order: Order::RowMajor, ld: 2 } }
/// let (a, b) = ([1.0, 2.0, 3.0, 4.0], [1.0, 0.0, 0.0, 1.0]); // A B = A
/// let g = HostGemm { m: 2, n: 2, k: 2, a: rm(&a), b: rm(&b), c: None, alpha: 1.0, beta: 0.0, fp8: false };
/// assert_eq!(verify_gemm(&g, rm(&[1.0, 2.0, 3.0, 4.0]), Element::F32, &[0, 1]).bad, 0);
/// assert_eq!(verify_gemm(&g, rm(&[1.0, 3.0, 2.0, 4.0]), Element::F32, &[0, 1]).bad, 2); // A^T
/// ```
pub fn verify_gemm(
    g: &HostGemm<'_>,
    d: HostMatrix<'_>,
    out: Element,
    rows: &[usize],
) -> Comparison {
    let (want, tol) = reference_bounds(g, out, rows);
    let got: Vec<f32> = rows
        .iter()
        .flat_map(|&i| (0..g.n).map(move |j| (i, j)))
        .map(|(i, j)| d.at(i, j) as f32)
        .collect();
    compare_rows(&got, &want, &tol, "D", g.n, rows)
}

/// The f64 reference of rows `rows` of `g` (row by row, every column) and each element's
/// bound (see [`verify_gemm`]).
///
/// ```
/// use tessel_kernels::{Element, blas::{HostGemm, HostMatrix, Order, reference_bounds}};
/// let v = [1.0, -2.0];
/// let a = HostMatrix { values: &v, order: Order::RowMajor, ld: 2 }; // 1 x 2
/// let b = HostMatrix { values: &v, order: Order::ColMajor, ld: 2 }; // 2 x 1
/// let g = HostGemm { m: 1, n: 1, k: 2, a, b, c: None, alpha: 1.0, beta: 0.0, fp8: false };
/// let (want, tol) = reference_bounds(&g, Element::F32, &[0]);
/// assert_eq!(want, vec![5.0]);
/// assert!(tol[0] > 0.0 && tol[0] < 1e-5);
/// ```
pub fn reference_bounds(g: &HostGemm<'_>, out: Element, rows: &[usize]) -> (Vec<f64>, Vec<f64>) {
    // Rows are independent: each thread takes a contiguous share of them. Every element's sum
    // runs over p = 0 .. k in order whatever the loop nest, so the result does not depend on
    // the threads.
    let threads = std::thread::available_parallelism().map_or(1, |t| t.get());
    let share = rows.len().div_ceil(threads.max(1)).max(1);
    let parts: Vec<(Vec<f64>, Vec<f64>)> = std::thread::scope(|scope| {
        let handles: Vec<_> = rows
            .chunks(share)
            .map(|chunk| scope.spawn(move || reference_rows(g, out, chunk)))
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().unwrap_or_else(|e| std::panic::resume_unwind(e)))
            .collect()
    });
    let mut want = Vec::with_capacity(rows.len() * g.n);
    let mut tol = Vec::with_capacity(rows.len() * g.n);
    for (w, t) in parts {
        want.extend(w);
        tol.extend(t);
    }
    (want, tol)
}

/// [`reference_bounds`] of `rows` on this thread. A row-major B is read a row of B at a time
/// (all `n` sums advance together), a column-major one a column at a time, so that B is read
/// in storage order either way.
fn reference_rows(g: &HostGemm<'_>, out: Element, rows: &[usize]) -> (Vec<f64>, Vec<f64>) {
    let mut want = Vec::with_capacity(rows.len() * g.n);
    let mut tol = Vec::with_capacity(rows.len() * g.n);
    let u = out.unit_roundoff();
    let eps = f64::from(f32::EPSILON);
    let (mut acc, mut abs) = (vec![0.0f64; g.n], vec![0.0f64; g.n]);
    for &i in rows {
        let a_row: Vec<f64> = (0..g.k).map(|p| g.a.at(i, p)).collect();
        match g.b.order {
            Order::RowMajor => {
                acc.fill(0.0);
                abs.fill(0.0);
                for (p, &a) in a_row.iter().enumerate() {
                    for j in 0..g.n {
                        let x = a * g.b.at(p, j);
                        acc[j] += x;
                        abs[j] += x.abs();
                    }
                }
            }
            Order::ColMajor => {
                for j in 0..g.n {
                    let (mut s, mut t) = (0.0f64, 0.0f64);
                    for (p, &a) in a_row.iter().enumerate() {
                        let x = a * g.b.at(p, j);
                        s += x;
                        t += x.abs();
                    }
                    acc[j] = s;
                    abs[j] = t;
                }
            }
        }
        for j in 0..g.n {
            let c = match (g.c, g.beta != 0.0) {
                (Some(c), true) => g.beta * c.at(i, j),
                _ => 0.0,
            };
            let w = g.alpha * acc[j] + c;
            let fp8 = if g.fp8 {
                FP8_ACCUMULATION * abs[j]
            } else {
                0.0
            };
            let t = g.alpha.abs() * (tolerance(g.k, abs[j]) + fp8)
                + eps * (g.alpha.abs() * abs[j] + c.abs());
            want.push(w);
            tol.push(rounded(t, w, u, out.min_subnormal()));
        }
    }
    (want, tol)
}

/// Rows to check: every row up to `max_rows`, else `max_rows` rows spread over `0..m` (the
/// first and the last included).
///
/// ```
/// assert_eq!(tessel_kernels::blas::spread_rows(5, 10), vec![0, 1, 2, 3, 4]);
/// assert_eq!(tessel_kernels::blas::spread_rows(1000, 3), vec![0, 500, 999]);
/// ```
pub fn spread_rows(m: usize, max_rows: usize) -> Vec<usize> {
    if m <= max_rows || max_rows < 2 {
        return (0..m.min(max_rows.max(1))).collect();
    }
    let step = (m - 1) as f64 / (max_rows - 1) as f64;
    let mut rows: Vec<usize> = (0..max_rows)
        .map(|i| ((i as f64 * step).round() as usize).min(m - 1))
        .collect();
    rows.dedup();
    rows
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The reference of a small product, element by element from the definition
    /// `sum_p a_ip b_pj`, whichever order B is stored in and however many rows are asked for
    /// (rows go to threads in shares).
    #[test]
    fn the_reference_is_the_definition_for_both_orders_of_b() {
        let (m, n, k) = (37, 19, 23);
        let value = |i: usize, j: usize| ((i * 7 + j * 3) % 11) as f64 - 5.0;
        let a: Vec<f64> = (0..m * k).map(|e| value(e / k, e % k)).collect();
        let b_rows: Vec<f64> = (0..k * n).map(|e| value(e / n + 1, e % n)).collect();
        let b_cols: Vec<f64> = (0..k * n).map(|e| value(e % k + 1, e / k)).collect();
        let rows: Vec<usize> = (0..m).collect();
        for (values, order, ld) in [(&b_rows, Order::RowMajor, n), (&b_cols, Order::ColMajor, k)] {
            let g = HostGemm {
                m,
                n,
                k,
                a: HostMatrix {
                    values: &a,
                    order: Order::RowMajor,
                    ld: k as i64,
                },
                b: HostMatrix {
                    values,
                    order,
                    ld: ld as i64,
                },
                c: None,
                alpha: 1.0,
                beta: 0.0,
                fp8: false,
            };
            let (want, tol) = reference_bounds(&g, Element::F32, &rows);
            for i in 0..m {
                for j in 0..n {
                    let exact: f64 = (0..k).map(|p| value(i, p) * value(p + 1, j)).sum();
                    assert_eq!(want[i * n + j], exact, "{order:?} ({i}, {j})");
                    assert!(tol[i * n + j] > 0.0);
                }
            }
        }
    }
}
