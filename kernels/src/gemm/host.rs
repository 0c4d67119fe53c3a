//! Host side of the GEMM: fp16 data, the CPU reference, the comparison and a CPU replay of the
//! kernel's data movement through the plan's layouts.
//!
//! ```
//! use tessel_kernels::gemm::host::random_f16;
//! let a = random_f16(64, 3);
//! assert!(a.iter().all(|&x| x.to_f32().abs() <= 1.0));
//! ```

use half::f16;
use tessel_layout::{ComposedLayout, Error, Layout, Result};

use super::{GemmPlan, LD_SMEM_HOISTED, LDSM_HOISTED, MI, NI, split_offset};

/// `q / 1024` for `|q| <= 1024` (exactly representable), built from its fp16 bit fields.
fn f16_of_q(q: i32) -> f16 {
    let sign: u16 = if q < 0 { 0x8000 } else { 0 };
    let mag = q.unsigned_abs().min(1024);
    if mag == 0 {
        return f16::from_bits(sign);
    }
    let e = 31 - mag.leading_zeros(); // 0..=10
    let man = ((mag << (10 - e)) & 0x3FF) as u16;
    f16::from_bits(sign | (((e + 5) as u16) << 10) | man)
}

/// `len` random fp16 values `q / 1024`, `q` uniform in `-1024..=1024` (so in [-1, 1], exact).
///
/// ```
/// use tessel_kernels::gemm::host::random_f16;
/// let v = random_f16(1000, 3);
/// assert!(v.iter().all(|x| (-1.0..=1.0).contains(&x.to_f32())));
/// assert!(v.iter().any(|x| x.to_f32() < 0.0));
/// ```
pub fn random_f16(len: usize, seed: u64) -> Vec<f16> {
    let mut state = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    (0..len)
        .map(|_| {
            state ^= state >> 12;
            state ^= state << 25;
            state ^= state >> 27;
            let r = state.wrapping_mul(0x2545_F491_4F6C_DD1D) >> 32;
            f16_of_q((r % 2049) as i32 - 1024)
        })
        .collect()
}

/// Reference rows of `C = A * B^T` in f64: for each row in `rows`, the `n` values and the sums
/// of `|a b|` (the scale of the rounding error). `a` is `m x k`, `b` is `n x k`, both row-major.
///
/// ```
/// use half::f16;
/// use tessel_kernels::gemm::host::reference_rows;
/// // A = [[1, 2]], B = [[3, 4], [5, 6]], so C = A B^T = [[11, 17]].
/// let h = |x: f32| f16::from_f32(x);
/// let (vals, scale) = reference_rows(&[h(1.0), h(2.0)], &[h(3.0), h(4.0), h(5.0), h(6.0)], 2, 2, &[0]);
/// assert_eq!(vals, vec![11.0, 17.0]);
/// assert_eq!(scale, vec![11.0, 17.0]); // sum of |a b|
/// ```
pub fn reference_rows(
    a: &[f16],
    b: &[f16],
    n: usize,
    k: usize,
    rows: &[usize],
) -> (Vec<f64>, Vec<f64>) {
    let af: Vec<f32> = a.iter().map(|x| x.to_f32()).collect();
    let bf: Vec<f32> = b.iter().map(|x| x.to_f32()).collect();
    reference_rows_f32(&af, &bf, n, k, rows)
}

/// [`reference_rows`] for operands already widened to `f32` (fp16 and bf16 values are exact
/// there), the rows computed in parallel. A row or column past the end of `a` or `b` counts as
/// empty (its values are 0).
///
/// ```
/// use tessel_kernels::gemm::host::reference_rows_f32;
/// let (vals, scale) = reference_rows_f32(&[1.0, -2.0], &[3.0, 4.0, 5.0, 6.0], 2, 2, &[0]);
/// assert_eq!((vals, scale), (vec![-5.0, -7.0], vec![11.0, 17.0]));
/// ```
pub fn reference_rows_f32(
    a: &[f32],
    b: &[f32],
    n: usize,
    k: usize,
    rows: &[usize],
) -> (Vec<f64>, Vec<f64>) {
    let threads = std::thread::available_parallelism()
        .map(|p| p.get())
        .unwrap_or(1)
        .min(32);
    let chunk = rows.len().div_ceil(threads).max(1);
    let parts: Vec<(Vec<f64>, Vec<f64>)> = std::thread::scope(|s| {
        let handles: Vec<_> = rows
            .chunks(chunk)
            .map(|rs| {
                s.spawn(move || {
                    let mut vals = Vec::with_capacity(rs.len() * n);
                    let mut scale = Vec::with_capacity(rs.len() * n);
                    for &r in rs {
                        let ar = a.get(r * k..(r + 1) * k).unwrap_or(&[]);
                        for j in 0..n {
                            let bj = b.get(j * k..(j + 1) * k).unwrap_or(&[]);
                            let (mut acc, mut abs) = (0.0f64, 0.0f64);
                            for (&x, &y) in ar.iter().zip(bj) {
                                let p = f64::from(x) * f64::from(y);
                                acc += p;
                                abs += p.abs();
                            }
                            vals.push(acc);
                            scale.push(abs);
                        }
                    }
                    (vals, scale)
                })
            })
            .collect();
        handles.into_iter().filter_map(|h| h.join().ok()).collect()
    });
    let mut vals = Vec::with_capacity(rows.len() * n);
    let mut scale = Vec::with_capacity(rows.len() * n);
    for (v, s) in parts {
        vals.extend(v);
        scale.extend(s);
    }
    (vals, scale)
}

/// Outcome of comparing a result with a reference.
///
/// ```
/// use tessel_kernels::gemm::host::compare;
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
    /// use tessel_kernels::gemm::host::compare;
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
    /// use tessel_kernels::gemm::host::compare;
    /// let cmp = compare(&[1.5], &[1.0], |_| 0.1, |i| format!("C[{i}]"));
    /// let e = cmp.failure("k", "vs CPU").to_string();
    /// assert!(e.contains("k (vs CPU): 1 elements wrong") && e.contains("C[0]"), "{e}");
    /// ```
    pub fn failure(&self, kernel: &str, what: &str) -> crate::error::GpuError {
        crate::error::GpuError::Verify(format!(
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
/// use tessel_kernels::gemm::host::compare;
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

/// Tolerance of one fp32-accumulated dot product of `k` terms whose `|a b|` sum to `scale`.
///
/// ```
/// use tessel_kernels::gemm::host::tolerance;
/// assert!(tolerance(4096, 1.0) > tolerance(1024, 1.0));
/// assert!(tolerance(4096, 1.0) < 1e-4);
/// ```
pub fn tolerance(k: usize, scale: f64) -> f64 {
    // fp16 products are exact in fp32; each of the <= k fp32 additions rounds by <= 2^-24 of the
    // running magnitude (<= scale). Random rounding grows like sqrt(k); allow 4 sqrt(k) units.
    4.0 * (k as f64).sqrt() * scale * f64::from(f32::EPSILON) + 1e-6
}

/// Offset of the coordinate `crd` (one entry per top-level mode) under `offset_of_index`.
fn at(layout: &Layout, crd: &[i64], offset_of_index: impl Fn(i64) -> Result<i64>) -> Result<i64> {
    let modes = layout.modes();
    if modes.len() != crd.len() {
        return Err(Error::invalid(format!(
            "{} coordinates for the rank-{} layout {layout}",
            crd.len(),
            modes.len()
        )));
    }
    let (mut index, mut step) = (0i64, 1i64);
    for (m, &c) in modes.iter().zip(crd) {
        index += c * step;
        step *= m.size();
    }
    offset_of_index(index)
}

fn at_plain(layout: &Layout, crd: &[i64]) -> Result<i64> {
    at(layout, crd, |i| layout.offset(i))
}

fn get<T: Copy>(v: &[T], i: i64, what: &str) -> Result<T> {
    usize::try_from(i)
        .ok()
        .and_then(|i| v.get(i).copied())
        .ok_or_else(|| Error::invalid(format!("{what}: offset {i} is outside 0..{}", v.len())))
}

/// `ldmatrix.x4` (non-transposed) for one warp: lane `l` hands the row address `rows[l]`; the
/// result is `regs[lane][matrix]` = elements `2 (lane % 4)` and `+1` of row `lane / 4` of
/// matrix `matrix` (whose rows come from lanes `8 matrix ..`), as (low, high) halves.
fn ldmatrix_x4(smem: &[f16], rows: &[i64; 32]) -> Result<[[[f16; 2]; 4]; 32]> {
    let mut regs = [[[f16::ZERO; 2]; 4]; 32];
    for (lane, r) in regs.iter_mut().enumerate() {
        for (mat, reg) in r.iter_mut().enumerate() {
            let row = rows[8 * mat + lane / 4];
            let col = 2 * (lane % 4) as i64;
            *reg = [
                get(smem, row + col, "ldmatrix")?,
                get(smem, row + col + 1, "ldmatrix")?,
            ];
        }
    }
    Ok(regs)
}

/// `mma.sync.m16n8k16.row.col` for one warp, by the PTX fragment rules: A element `(row, col)`
/// of register `r` half `h` of lane `l` is row `l/4 + 8 (r % 2)`, col `2 (l % 4) + h + 8 (r / 2)`;
/// B (k x n) register `r` half `h`: k `2 (l % 4) + h + 8 r`, n `l / 4`; C value `v`: row
/// `l / 4 + 8 (v / 2)`, col `2 (l % 4) + v % 2`.
fn mma(acc: &mut [[f32; 4]; 32], a: &[[[f16; 2]; 4]; 32], b: &[[[f16; 2]; 2]; 32]) {
    let mut am = [[0f32; 16]; 16];
    let mut bm = [[0f32; 8]; 16];
    for l in 0..32 {
        for r in 0..4 {
            for h in 0..2 {
                am[l / 4 + 8 * (r % 2)][2 * (l % 4) + h + 8 * (r / 2)] = a[l][r][h].to_f32();
            }
        }
        for r in 0..2 {
            for h in 0..2 {
                bm[2 * (l % 4) + h + 8 * r][l / 4] = b[l][r][h].to_f32();
            }
        }
    }
    for (l, c) in acc.iter_mut().enumerate() {
        for (v, cv) in c.iter_mut().enumerate() {
            let (row, col) = (l / 4 + 8 * (v / 2), 2 * (l % 4) + v % 2);
            *cv += (0..16).map(|kx| am[row][kx] * bm[kx][col]).sum::<f32>();
        }
    }
}

/// Replays the kernel on the CPU through the plan's layouts: `cp.async` chunks from the global
/// offsets to the swizzled shared offsets, `ldmatrix.x4` from the row addresses, `mma.sync` by
/// the PTX fragment rules and the stores through the C fragment layout. Returns C (`m x n`,
/// every element NaN until written).
///
/// ```
/// use tessel_kernels::gemm::{host, GemmPlan};
/// let plan = GemmPlan::new(128, 128, 32).unwrap();
/// let a = host::random_f16(128 * 32, 1);
/// let b = host::random_f16(128 * 32, 2);
/// let c = host::simulate(&plan, &a, &b).unwrap();
/// let (want, _) = host::reference_rows(&a, &b, 128, 32, &[5]);
/// for (x, y) in c[5 * 128..6 * 128].iter().zip(&want) {
///     assert!((f64::from(*x) - y).abs() < 1e-3);
/// }
/// ```
pub fn simulate(plan: &GemmPlan, a: &[f16], b: &[f16]) -> Result<Vec<f32>> {
    let cfg = plan.cfg;
    let ops = [(&plan.a, a), (&plan.b, b)];
    let mut loads = Vec::new();
    for (op, _) in ops {
        loads.push((
            plan.ld_smem(op)?,
            plan.ld_global(op)?,
            op.ld_tv.mode(2)?.size(),
        ));
    }
    let ldsm_a = plan.ldsm(&plan.a, &plan.ldsm_a_tv)?;
    let ldsm_b = plan.ldsm(&plan.b, &plan.ldsm_b_tv)?;
    let c_out = plan.c_out()?;
    let smem_len = |rows: i64| usize::try_from(rows * cfg.bk * cfg.stages).unwrap_or(0);
    let mut c = vec![f32::NAN; usize::try_from(plan.m * plan.n).unwrap_or(0)];
    let threads = cfg.threads();
    for block in 0..i64::from(plan.blocks()) {
        let tile = plan.raster.offset(block)?;
        let (m0, n0) = (plan.tile_m0.offset(tile)?, plan.tile_n0.offset(tile)?);
        let ga = at_plain(&plan.g_a, &[m0, 0])?;
        let gb = at_plain(&plan.g_b, &[n0, 0])?;
        let gc = at_plain(&plan.g_c, &[m0, n0])?;
        // Unwritten shared memory is a NaN pattern, so a read before a write shows in C.
        let unwritten = f16::from_bits(0xFFFF);
        let mut smem = [
            vec![unwritten; smem_len(plan.a.rows)],
            vec![unwritten; smem_len(plan.b.rows)],
        ];
        let mut acc = vec![[[[0f32; 4]; 32]; (MI * NI) as usize]; (threads / 32) as usize];
        for kt in 0..plan.k_tiles() {
            let s = kt % cfg.stages;
            for (((ld_smem, ld_global, iters), (_, src)), (dst, origin)) in
                loads.iter().zip(ops).zip(smem.iter_mut().zip([ga, gb]))
            {
                for t in 0..threads {
                    for j in 0..*iters {
                        let g = origin + at_plain(ld_global, &[t, j, kt])?;
                        let o = split_offset(ld_smem, &[t, j, s], LD_SMEM_HOISTED)?;
                        for e in 0..8 {
                            let oi = usize::try_from(o + e).unwrap_or(usize::MAX);
                            *dst.get_mut(oi)
                                .ok_or_else(|| Error::invalid("smem store"))? =
                                get(src, g + e, "global load")?;
                        }
                    }
                }
            }
            let [sa, sb] = &smem;
            for (w, acc_w) in acc.iter_mut().enumerate() {
                for kk in 0..cfg.bk / 16 {
                    let rows = |layout: &ComposedLayout, f: i64| -> Result<[i64; 32]> {
                        let mut r = [0i64; 32];
                        for (l, x) in r.iter_mut().enumerate() {
                            *x = split_offset(
                                layout,
                                &[32 * w as i64 + l as i64, f, kk, s],
                                LDSM_HOISTED,
                            )?;
                        }
                        Ok(r)
                    };
                    let mut af = Vec::new();
                    for i in 0..MI {
                        af.push(ldmatrix_x4(sa, &rows(&ldsm_a, i)?)?);
                    }
                    let mut bf = Vec::new();
                    for j in 0..NI / 2 {
                        bf.push(ldmatrix_x4(sb, &rows(&ldsm_b, j)?)?);
                    }
                    for i in 0..MI as usize {
                        for j in 0..NI as usize {
                            let mut bj = [[[f16::ZERO; 2]; 2]; 32];
                            for (l, x) in bj.iter_mut().enumerate() {
                                *x = [bf[j / 2][l][2 * (j % 2)], bf[j / 2][l][2 * (j % 2) + 1]];
                            }
                            mma(&mut acc_w[i * NI as usize + j], &af[i], &bj);
                        }
                    }
                }
            }
        }
        for (w, acc_w) in acc.iter().enumerate() {
            for i in 0..MI {
                for j in 0..NI {
                    for l in 0..32 {
                        for v in 0..4 {
                            let t = 32 * w as i64 + l;
                            let o = gc + at_plain(&c_out, &[t, v, i, j])?;
                            let oi = usize::try_from(o).unwrap_or(usize::MAX);
                            *c.get_mut(oi).ok_or_else(|| Error::invalid("C store"))? =
                                acc_w[(i * NI + j) as usize][l as usize][v as usize];
                        }
                    }
                }
            }
        }
    }
    Ok(c)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn f16_round_trip_of_the_random_grid() {
        for q in -1024..=1024 {
            let x = f16_of_q(q);
            assert_eq!(x.to_f32(), q as f32 / 1024.0, "q = {q}");
            // The bit fields agree with half's own rounding of the (exact) value.
            assert_eq!(
                x.to_bits(),
                f16::from_f32(q as f32 / 1024.0).to_bits(),
                "q = {q}"
            );
        }
    }
}
