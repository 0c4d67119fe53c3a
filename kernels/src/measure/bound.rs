//! The error bounds a result is held to against an exact (f64) reference: how far a dot product
//! accumulated in fp32 may be from the exact one, as a multiple of `S = sum_k |a_k b_k|` (the
//! scale of its rounding error), and how rounding the result to an output type widens a bound.
//!
//! - [`tolerance`]: the bound the tensor-core GEMMs, the GEMM library and attention are held
//!   to: rounding errors of random sign grow like `sqrt(K)`, so `4 sqrt(K)` units of `2^-23`
//!   times `S`, plus `1e-6`.
//! - [`gamma`]: the worst case for any summation order, with or without FMA, `gamma_K S`
//!   (Higham), which the SGEMM ladder is held to.
//! - [`rounded`]: a bound after the result is rounded to an output type.
//!
//! ```
//! use tessel_kernels::measure::bound::{gamma, tolerance};
//! // The worst case grows like K, the random-sign bound like sqrt(K).
//! assert!(gamma(4096) > tolerance(4096, 1.0));
//! ```

/// Tolerance of one fp32-accumulated dot product of `k` terms whose `|a b|` sum to `scale`.
///
/// ```
/// use tessel_kernels::measure::bound::tolerance;
/// assert!(tolerance(4096, 1.0) > tolerance(1024, 1.0));
/// assert!(tolerance(4096, 1.0) < 1e-4);
/// ```
pub fn tolerance(k: usize, scale: f64) -> f64 {
    // fp16 products are exact in fp32; each of the <= k fp32 additions rounds by <= 2^-24 of the
    // running magnitude (<= scale). Random rounding grows like sqrt(k); allow 4 sqrt(k) units.
    4.0 * (k as f64).sqrt() * scale * f64::from(f32::EPSILON) + 1e-6
}

/// `gamma_K = K u / (1 - K u)` with `u = 2^-24`: a float dot product of length K computed in
/// any order (with or without FMA) differs from the exact one by at most `gamma_K sum_k |a_k
/// b_k|` (Higham, *Accuracy and Stability of Numerical Algorithms*, 2nd ed., eq. 3.5).
///
/// ```
/// let g = tessel_kernels::measure::bound::gamma(1024);
/// let ku = 1024.0 / 16777216.0; // K u
/// assert!(g > ku && g - ku < 2.0 * ku * ku); // K u / (1 - K u) = K u + (K u)^2 + ...
/// ```
pub fn gamma(k: usize) -> f64 {
    let ku = k as f64 * (2.0f64).powi(-24);
    ku / (1.0 - ku)
}

/// The bound `t` on a result's error before rounding, widened by rounding the result (of
/// reference value `value`) to an output type of unit roundoff `unit` and smallest subnormal
/// `subnormal`: `t + unit (|value| + t) + subnormal`.
///
/// ```
/// use tessel_kernels::{Element, measure::bound::rounded};
/// let u = Element::F16.unit_roundoff();
/// assert_eq!(rounded(0.0, 1.0, u, 0.0), u); // half an fp16 ulp at 1
/// assert_eq!(rounded(1e-3, 2.0, 0.0, 2f64.powi(-24)), 1e-3 + 2f64.powi(-24));
/// ```
pub fn rounded(t: f64, value: f64, unit: f64, subnormal: f64) -> f64 {
    t + unit * (value.abs() + t) + subnormal
}
