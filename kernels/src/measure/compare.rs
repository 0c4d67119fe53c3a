//! Comparing a kernel's result with a reference element by element, each element within its own
//! bound ([`super::bound`]): the counts, norms and first wrong elements of a comparison
//! ([`Comparison`], [`compare`]), its common forms (rows of a matrix against the CPU reference,
//! [`compare_rows`]; two GPU results within a relative bound, [`compare_relative`]), and the
//! pass-or-fail check in fp32 ([`expect_close`]).
//!
//! NaN never passes: a poisoned output holds NaN wherever nothing was written.
//!
//! ```
//! use tessel_kernels::measure::compare::compare;
//! let c = compare(&[1.0, f32::NAN], &[1.0, 2.0], |_| 1e-6, |i| format!("x[{i}]"));
//! assert_eq!(c.bad, 1);
//! ```

use crate::error::{GpuError, GpuResult};

/// Outcome of comparing a result with a reference.
///
/// ```
/// use tessel_kernels::measure::compare::compare;
/// let c = compare(&[1.0, f32::NAN], &[1.0, 2.0], |_| 1e-6, |i| format!("x[{i}]"));
/// assert_eq!(c.bad, 1);
/// assert!(c.examples[0].starts_with("x[1] = NaN"));
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct Comparison {
    /// `||got - want|| / ||want||` (Frobenius norms).
    pub rel_err: f64,
    /// Largest `|got - want|`.
    pub max_abs: f64,
    /// Elements outside their tolerance (NaN, e.g. never written, counts as wrong).
    pub bad: usize,
    /// The first few wrong elements, as text.
    pub examples: Vec<String>,
}

impl Comparison {
    /// True when nothing is wrong and the relative error is below `1e-3`.
    ///
    /// ```
    /// use tessel_kernels::measure::compare::compare;
    /// assert!(compare(&[1.0], &[1.0], |_| 0.0, |_| String::new()).ok());
    /// assert!(!compare(&[1.5], &[1.0], |_| 0.1, |_| String::new()).ok());
    /// ```
    pub fn ok(&self) -> bool {
        self.bad == 0 && self.rel_err < 1e-3
    }

    /// The verification error of a comparison that failed: the kernel, what it was compared
    /// with, the counts and the first wrong elements.
    ///
    /// ```
    /// use tessel_kernels::measure::compare::compare;
    /// let cmp = compare(&[1.5], &[1.0], |_| 0.1, |i| format!("C[{i}]"));
    /// let e = cmp.failure("k", "vs CPU").to_string();
    /// assert!(e.contains("k (vs CPU): 1 elements wrong") && e.contains("C[0]"), "{e}");
    /// ```
    pub fn failure(&self, kernel: &str, what: &str) -> GpuError {
        GpuError::Verify(format!(
            "{kernel} ({what}): {} elements wrong, relative error {:.3e}, max |diff| {:.3e}; {}",
            self.bad,
            self.rel_err,
            self.max_abs,
            self.examples.join("; ")
        ))
    }
}

/// Compares `got` (fp32) with `want` element by element: element `i` passes when
/// `|got - want| <= tol(i)`; `label(i)` names an element in the examples.
///
/// ```
/// use tessel_kernels::measure::compare::compare;
/// let c = compare(&[3.0, 4.0], &[3.0, 4.0 + 1e-9], |_| 1e-6, |i| i.to_string());
/// assert_eq!(c.bad, 0);
/// assert!(c.rel_err < 1e-9 && c.max_abs < 1e-8);
/// ```
pub fn compare(
    got: &[f32],
    want: &[f64],
    tol: impl Fn(usize) -> f64,
    label: impl Fn(usize) -> String,
) -> Comparison {
    let (mut diff2, mut ref2, mut max_abs, mut bad) = (0.0f64, 0.0f64, 0.0f64, 0usize);
    let mut examples = Vec::new();
    for (i, (&g, &w)) in got.iter().zip(want).enumerate() {
        let d = (f64::from(g) - w).abs();
        if d <= tol(i) {
            diff2 += d * d;
            max_abs = max_abs.max(d);
        } else {
            bad += 1;
            diff2 += if d.is_finite() { d * d } else { f64::INFINITY };
            max_abs = f64::INFINITY.min(if d.is_finite() { max_abs.max(d) } else { d });
            if examples.len() < 4 {
                examples.push(format!("{} = {g}, expected {w}", label(i)));
            }
        }
        ref2 += w * w;
    }
    if got.len() != want.len() {
        bad += got.len().abs_diff(want.len());
        examples.push(format!(
            "{} values for {} references",
            got.len(),
            want.len()
        ));
    }
    Comparison {
        rel_err: if ref2 > 0.0 {
            (diff2 / ref2).sqrt()
        } else {
            diff2.sqrt()
        },
        max_abs,
        bad,
        examples,
    }
}

/// Compares rows `rows` of a matrix of `n` columns (`got`: those rows, every column, row by row)
/// with the reference `want` within the per-element bounds `tol`, naming elements
/// `{name}[row][column]`.
///
/// ```
/// use tessel_kernels::measure::compare::compare_rows;
/// // Rows 3 and 7 of a 2-column matrix; the last element is off by 0.5.
/// let c = compare_rows(&[1.0, 2.0, 3.0, 4.5], &[1.0, 2.0, 3.0, 4.0], &[1e-6; 4], "D", 2, &[3, 7]);
/// assert_eq!(c.bad, 1);
/// assert!(c.examples[0].starts_with("D[7][1] = 4.5"), "{:?}", c.examples);
/// ```
pub fn compare_rows(
    got: &[f32],
    want: &[f64],
    tol: &[f64],
    name: &str,
    n: usize,
    rows: &[usize],
) -> Comparison {
    compare(
        got,
        want,
        |e| tol.get(e).copied().unwrap_or(0.0),
        |e| {
            format!(
                "{name}[{}][{}]",
                rows.get(e / n.max(1)).copied().unwrap_or(0),
                e % n.max(1)
            )
        },
    )
}

/// Compares two GPU results of an `m x n` row-major matrix element by element within a relative
/// bound, `|x - y| <= rel (1 + |y|)` (`got` is `x`, `want` is `y`), naming elements `C[i][j]`.
///
/// ```
/// use tessel_kernels::measure::compare::compare_relative;
/// assert!(compare_relative(&[1.0, 2.0], &[1.0, 2.0], 1e-4, 2).ok());
/// assert_eq!(compare_relative(&[1.0, 2.5], &[1.0, 2.0], 1e-4, 2).bad, 1);
/// ```
pub fn compare_relative(got: &[f32], want: &[f32], rel: f64, n: usize) -> Comparison {
    let want64: Vec<f64> = want.iter().map(|&x| f64::from(x)).collect();
    compare(
        got,
        &want64,
        |i| rel * (1.0 + want64.get(i).map_or(0.0, |w| w.abs())),
        |i| format!("C[{}][{}]", i / n.max(1), i % n.max(1)),
    )
}

/// Compares `got` with `want` element by element in fp32: `|got - want| <= bound` (NaN never
/// passes; a NaN is what the poisoned output holds where nothing was written). `Err(Verify)`
/// names the kernel, the count of bad elements and the first few.
///
/// ```
/// use tessel_kernels::measure::compare::expect_close;
/// assert!(expect_close("k", &[1.0, 2.0], &[1.0, 2.5], &[0.0, 0.5]).is_ok());
/// let err = expect_close("k", &[1.0, f32::NAN], &[1.0, 2.0], &[0.0, 1.0]).unwrap_err();
/// assert!(err.to_string().contains("1 of 2"), "{err}");
/// ```
pub fn expect_close(kernel: &str, got: &[f32], want: &[f32], bound: &[f32]) -> GpuResult<()> {
    if got.len() != want.len() || want.len() != bound.len() {
        return Err(GpuError::Verify(format!(
            "{kernel}: {} results for {} expected ({} bounds)",
            got.len(),
            want.len(),
            bound.len()
        )));
    }
    let mut bad = 0usize;
    let mut examples = Vec::new();
    for (i, ((&g, &w), &b)) in got.iter().zip(want).zip(bound).enumerate() {
        let ok = (g - w).abs() <= b;
        if !ok {
            bad += 1;
            if examples.len() < 4 {
                examples.push(format!("[{i}] = {g}, expected {w} +- {b}"));
            }
        }
    }
    if bad > 0 {
        return Err(GpuError::Verify(format!(
            "{kernel}: {bad} of {} elements outside the error bound; {}",
            got.len(),
            examples.join("; ")
        )));
    }
    Ok(())
}
