//! The f64 CPU reference of attention, and the error bound the kernel's output is held to.
//!
//! The reference evaluates the definition per query row: `s_j = scale q . k_j` over the keys
//! the row sees, `m = max s_j`, `l = sum exp(s_j - m)`, `O = sum exp(s_j - m) v_j / l`,
//! `LSE = m + ln l` (a row that sees no key: `O = 0`, `LSE = -inf`), in f64 from the inputs'
//! exact values.
//!
//! The bound follows the kernel's arithmetic. Write `w_j = exp(s_j - m) / l` (weights summing
//! to 1) and `V_d = max |v_jd|` over the keys the row sees. The kernel perturbs each weight
//! relatively, in the numerator and in the denominator of `O`, by at most
//! - `scale e_j`: the error `e_j` of the fp32 dot product `q . k_j`
//!   ([`tolerance`]`(D, sum |q k|)`) moves `exp(scale s)` by that
//!   much relatively;
//! - `2^-20` per exponential (`ex2.approx.ftz.f32`, the special function unit's `2^x`, whose
//!   error is of the order `2^-22`; the fused multiply-add before it rounds once more), once for
//!   `p_j` and once per rescale of the running sums (at most one per block of 16 keys);
//! - `4 sqrt(n) 2^-24` for the fp32 sum of the `n` weights in `l`;
//!
//! their sum `R`; the numerator's weights are also rounded to the element type (`u`, its unit
//! roundoff) before `O += P V`. A convex combination whose weights move by relative `R` and
//! `R + u` moves by at most `(2 R + u) V_d`; the fp32 accumulation of `P V` adds
//! [`tolerance`]`(n, V_d)`; rounding `O` to the element type adds
//! `u |O|`. The LSE moves by `scale max e_j + R` (the max and the sum) plus `2^-20 (1 + |ln
//! l|)` for `__logf`.
//!
//! ```
//! use tessel_kernels::attention::{Problem, reference::{HostOperands, reference_row}};
//! // One query against two keys with scores 0 and ln 3 (scale 1): weights 1/4 and 3/4.
//! let p = Problem::new(1, 1, 2, 1, 1, 64).scale(1.0);
//! let mut q = vec![0.0f32; 64];
//! q[0] = 1.0;
//! let mut k = vec![0.0f32; 128];
//! k[64] = 3f32.ln();
//! let mut v = vec![0.0f32; 128];
//! v[0] = 4.0; // v_0 = (4, 0, ...), v_1 = (0, 8, ...)
//! v[65] = 8.0;
//! let r = reference_row(&p, &HostOperands { q: &q, k: &k, v: &v }, 2f64.powi(-11), 0, 0, 0);
//! assert!((r.o[0] - 1.0).abs() < 1e-6 && (r.o[1] - 6.0).abs() < 1e-6);
//! assert!((r.lse - 4f64.ln()).abs() < 1e-6);
//! ```

use super::problem::Problem;
use crate::measure::bound::tolerance;
use crate::measure::compare::{Comparison, compare};

/// The inputs on the host, as the exact values of the device's 16-bit elements, laid out as
/// the [`Problem`]'s strides say.
#[derive(Clone, Copy, Debug)]
pub struct HostOperands<'a> {
    /// Q's values.
    pub q: &'a [f32],
    /// K's values.
    pub k: &'a [f32],
    /// V's values.
    pub v: &'a [f32],
}

/// The reference of one query row and the tolerances the kernel's results are held to.
#[derive(Clone, Debug, PartialEq)]
pub struct RowReference {
    /// `O` of the row, `head_dim` values.
    pub o: Vec<f64>,
    /// Its LSE (natural logarithm; `-inf` for a row that sees no key).
    pub lse: f64,
    /// The bound on `|O_kernel - O|`, per value.
    pub o_tol: Vec<f64>,
    /// The bound on `|LSE_kernel - LSE|`.
    pub lse_tol: f64,
}

/// Relative error budgeted per `ex2.approx.ftz.f32` (with the rounding of its argument).
const EXP_ERR: f64 = 1.0 / (1u64 << 20) as f64;
/// fp32's unit roundoff.
const U32: f64 = 1.0 / (1u64 << 24) as f64;

/// The keys query row `row` of a sequence of `sq` queries and `sk` keys sees: all of them, or
/// (causal, bottom-right aligned) `j <= row + sk - sq`.
///
/// ```
/// use tessel_kernels::attention::reference::visible_keys;
/// assert_eq!(visible_keys(false, 3, 10, 10), 10);
/// assert_eq!(visible_keys(true, 3, 10, 10), 4);
/// assert_eq!(visible_keys(true, 0, 10, 4), 0); // 10 queries, 4 keys: row 0 sees none
/// assert_eq!(visible_keys(true, 9, 10, 4), 4);
/// ```
pub fn visible_keys(causal: bool, row: i64, sq: i64, sk: i64) -> i64 {
    if causal {
        (row + sk - sq + 1).clamp(0, sk)
    } else {
        sk
    }
}

/// The f64 reference of query row `row` of head `head` of sequence `b`, with the tolerances
/// of the module's bound for elements of unit roundoff `unit` (`2^-11` fp16, `2^-8` bf16).
pub fn reference_row(
    p: &Problem,
    ops: &HostOperands<'_>,
    unit: f64,
    b: i64,
    head: i64,
    row: i64,
) -> RowReference {
    let d = p.head_dim as usize;
    let (sq, sk) = p.seqlens.len(b);
    let kv_head = head / (p.heads / p.kv_heads).max(1);
    let n = visible_keys(p.causal, row, sq, sk);
    if n == 0 {
        return RowReference {
            o: vec![0.0; d],
            lse: f64::NEG_INFINITY,
            o_tol: vec![0.0; d],
            lse_tol: 0.0,
        };
    }
    let scale = f64::from(p.scale);
    let q0 = p.offset('q', b, row, head, 0);
    let q = &ops.q[q0..q0 + d];
    let mut s = Vec::with_capacity(n as usize);
    let mut dot_err = 0.0f64;
    for j in 0..n {
        let k0 = p.offset('k', b, j, kv_head, 0);
        let k = &ops.k[k0..k0 + d];
        let (mut dot, mut abs) = (0.0f64, 0.0f64);
        for (x, y) in q.iter().zip(k) {
            let prod = f64::from(*x) * f64::from(*y);
            dot += prod;
            abs += prod.abs();
        }
        s.push(scale * dot);
        dot_err = dot_err.max(scale * tolerance(d, abs));
    }
    let m = s.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let w: Vec<f64> = s.iter().map(|x| (x - m).exp()).collect();
    let l: f64 = w.iter().sum();
    let mut o = vec![0.0f64; d];
    let mut vmax = vec![0.0f64; d];
    for (j, wj) in w.iter().enumerate() {
        let v0 = p.offset('v', b, j as i64, kv_head, 0);
        for (dd, x) in ops.v[v0..v0 + d].iter().enumerate() {
            o[dd] += wj * f64::from(*x);
            vmax[dd] = vmax[dd].max(f64::from(*x).abs());
        }
    }
    for x in &mut o {
        *x /= l;
    }
    let rescales = (sk + 15) / 16;
    let r = dot_err + EXP_ERR * (1.0 + rescales as f64) + 4.0 * (n as f64).sqrt() * U32;
    let o_tol = o
        .iter()
        .zip(&vmax)
        .map(|(&x, &vm)| {
            let acc = (2.0 * r + unit) * vm + tolerance(n as usize, vm);
            acc + unit * (x.abs() + acc) + 4.0 * U32 * x.abs()
        })
        .collect();
    let lse = m + l.ln();
    let lse_tol = dot_err + r + EXP_ERR * (1.0 + l.ln().abs()) + U32 * lse.abs() + 1e-6;
    RowReference {
        o,
        lse,
        o_tol,
        lse_tol,
    }
}

/// The query rows a check covers: every `(sequence, head, row)` when there are at most
/// `max_rows` of them, else `max_rows` spread over them (the first and last rows of every
/// sequence, then evenly spaced ones).
///
/// ```
/// use tessel_kernels::attention::{Problem, reference::checked_rows};
/// let p = Problem::new(2, 3, 5, 2, 1, 64);
/// assert_eq!(checked_rows(&p, 100).len(), 2 * 2 * 3);
/// let big = Problem::new(1, 4097, 4097, 4, 4, 128);
/// let rows = checked_rows(&big, 64);
/// assert!(rows.len() <= 64 && rows.contains(&(0, 0, 4096)) && rows.contains(&(0, 3, 0)));
/// ```
pub fn checked_rows(p: &Problem, max_rows: usize) -> Vec<(i64, i64, i64)> {
    let mut all = Vec::new();
    let mut ends = Vec::new();
    for b in 0..p.seqlens.batch() {
        let sq = p.seqlens.len(b).0;
        for h in 0..p.heads {
            if sq > 0 {
                ends.push((b, h, 0));
                ends.push((b, h, sq - 1));
            }
            if all.len() <= max_rows {
                all.extend((0..sq).map(|r| (b, h, r)));
            }
        }
    }
    if all.len() <= max_rows {
        return all;
    }
    ends.sort_unstable();
    ends.dedup();
    ends.truncate(max_rows);
    let total: i64 = (0..p.seqlens.batch())
        .map(|b| p.seqlens.len(b).0 * p.heads)
        .sum();
    let spare = max_rows.saturating_sub(ends.len()).max(1) as i64;
    let mut rows = ends;
    for i in 0..spare {
        // The (i * total / spare)-th row in (sequence, head, row) order.
        let mut at = i * total / spare;
        'find: for b in 0..p.seqlens.batch() {
            let sq = p.seqlens.len(b).0;
            for h in 0..p.heads {
                if at < sq {
                    rows.push((b, h, at));
                    break 'find;
                }
                at -= sq;
            }
        }
    }
    rows.sort_unstable();
    rows.dedup();
    rows.truncate(max_rows);
    rows
}

/// Compares the kernel's `o` and `lse` (downloaded as f32, laid out as the problem says) with
/// the reference at `rows`: one comparison for O (every value of every row) and one for the
/// LSE, each element within its bound ([`reference_row`]).
pub fn compare_rows(
    p: &Problem,
    ops: &HostOperands<'_>,
    unit: f64,
    o: &[f32],
    lse: &[f32],
    rows: &[(i64, i64, i64)],
) -> (Comparison, Comparison) {
    let d = p.head_dim;
    let (mut got_o, mut want_o, mut tol_o) = (Vec::new(), Vec::new(), Vec::new());
    let (mut got_l, mut want_l, mut tol_l) = (Vec::new(), Vec::new(), Vec::new());
    for &(b, h, r) in rows {
        let reference = reference_row(p, ops, unit, b, h, r);
        for dd in 0..d {
            got_o.push(
                o.get(p.offset('o', b, r, h, dd))
                    .copied()
                    .unwrap_or(f32::NAN),
            );
        }
        want_o.extend(&reference.o);
        tol_o.extend(&reference.o_tol);
        let l = lse.get(p.lse_offset(b, r, h)).copied().unwrap_or(f32::NAN);
        if reference.lse == f64::NEG_INFINITY {
            // -inf is compared exactly: 0 difference when both are -inf.
            got_l.push(if l == f32::NEG_INFINITY {
                0.0
            } else {
                f32::NAN
            });
            want_l.push(0.0);
        } else {
            got_l.push(l);
            want_l.push(reference.lse);
        }
        tol_l.push(reference.lse_tol);
    }
    let label = |i: usize, per: i64| {
        let (b, h, r) = rows[i / per as usize];
        if per == 1 {
            format!("LSE[b{b} h{h} row {r}]")
        } else {
            format!("O[b{b} h{h} row {r}][{}]", i % per as usize)
        }
    };
    (
        compare(&got_o, &want_o, |i| tol_o[i], |i| label(i, d)),
        compare(&got_l, &want_l, |i| tol_l[i], |i| label(i, 1)),
    )
}
