//! Host side of the GEMM: fp16 data, the CPU reference (checked within
//! [`crate::measure::bound::tolerance`] by [`crate::measure::compare`]) and a CPU replay of the
//! kernel's data movement through the plan's layouts.
//!
//! ```
//! use tessel_kernels::gemm::host::random_f16;
//! let a = random_f16(64, 3);
//! assert!(a.iter().all(|&x| x.to_f32().abs() <= 1.0));
//! ```

use half::f16;

use super::GemmPlan;
use crate::error::{GpuError, GpuResult};
use crate::layer::{DeviceOffset, DeviceTensor};
use crate::mma::host::{ldmatrix_x4_values, mma_of};

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

pub(crate) fn get<T: Copy>(v: &[T], i: i64, what: &str) -> GpuResult<T> {
    usize::try_from(i)
        .ok()
        .and_then(|i| v.get(i).copied())
        .ok_or_else(|| invalid(format!("{what}: offset {i} is outside 0..{}", v.len())))
}

fn invalid(what: String) -> GpuError {
    GpuError::InvalidArgument(format!("gemm replay: {what}"))
}

pub(crate) fn slot<'v, T>(v: &'v mut [T], i: i64, what: &str) -> GpuResult<&'v mut T> {
    let len = v.len();
    usize::try_from(i)
        .ok()
        .and_then(|i| v.get_mut(i))
        .ok_or_else(|| invalid(format!("{what}: offset {i} is outside 0..{len}")))
}

/// A tensor sliced the way the kernel body slices it: some modes fixed (`Some`), the others
/// free; `at(v, r)` is the offset (computed as the emitted code computes it) of value `v` of
/// the first free mode with the other free modes at the 1-D index `r` (colexicographic), the
/// slice `rest(r)` that one atom call of `tessel::copy` works on.
pub(crate) struct Slice<'t> {
    offset: &'t DeviceOffset,
    extents: Vec<i64>,
    fixed: Vec<Option<i64>>,
}

impl<'t> Slice<'t> {
    pub(crate) fn new(t: &'t Tensor, fixed: &[Option<i64>]) -> GpuResult<Slice<'t>> {
        if fixed.len() != t.extents.len() {
            return Err(invalid(format!(
                "{} coordinates for a rank-{} tensor",
                fixed.len(),
                t.extents.len()
            )));
        }
        Ok(Slice {
            offset: &t.offset,
            extents: t.extents.clone(),
            fixed: fixed.to_vec(),
        })
    }

    /// Atom calls: the elements of the free modes after the first.
    pub(crate) fn calls(&self) -> i64 {
        let mut free = self
            .extents
            .iter()
            .zip(&self.fixed)
            .filter(|(_, f)| f.is_none());
        free.next();
        free.map(|(e, _)| e).product()
    }

    pub(crate) fn at(&self, v: i64, mut r: i64) -> GpuResult<i64> {
        let mut crd = Vec::with_capacity(self.extents.len());
        let mut first = true;
        for (&e, f) in self.extents.iter().zip(&self.fixed) {
            crd.push(match f {
                Some(c) => *c,
                None if first => {
                    first = false;
                    v
                }
                None => {
                    let c = r % e;
                    r /= e;
                    c
                }
            });
        }
        self.offset.at(&crd)
    }
}

/// `mma.sync.m16n8k16.row.col` for one warp, by the PTX fragment rules ([`mma_of`] with two
/// values per register).
pub(crate) fn mma<T: Copy>(acc: &mut [[f32; 4]; 32], a: &[[[T; 2]; 4]; 32], b: &[[[T; 2]; 2]; 32])
where
    f32: From<T>,
{
    let mut av = [[0f32; 16]; 32];
    let mut bv = [[0f32; 8]; 32];
    for l in 0..32 {
        for r in 0..4 {
            for h in 0..2 {
                av[l][2 * r + h] = f32::from(a[l][r][h]);
            }
        }
        for r in 0..2 {
            for h in 0..2 {
                bv[l][2 * r + h] = f32::from(b[l][r][h]);
            }
        }
    }
    mma_of(2, acc, &av, &bv);
}

/// A tensor of the plan as the replay reads it: its mode extents and its offset function as
/// the emitted code computes it.
pub(crate) struct Tensor {
    pub(crate) extents: Vec<i64>,
    pub(crate) offset: DeviceOffset,
}

impl Tensor {
    pub(crate) fn of(t: &DeviceTensor) -> GpuResult<Tensor> {
        Ok(Tensor {
            extents: t.extents(),
            offset: t.device_offset()?,
        })
    }
}

/// One thread's registers: the MMA's fragments and accumulators.
struct Registers {
    a: Vec<f16>,
    b: Vec<f16>,
    c: Vec<f32>,
}

/// Replays the kernel on the CPU through the plan's tensors ([`GemmPlan::tensors`]), sliced as
/// the body slices them and with their offsets computed as the emitted code computes them
/// ([`DeviceTensor::device_offset`], the split included): `cp.async` chunks of 8 halves from
/// `tAgA`/`tBgB` to `tAsA`/`tBsB`, `ldmatrix.x4` from the row addresses of `tXsA`/`tXsB` into
/// the registers `tXrA`/`tXrB` name, `mma.sync` on `tCrA`/`tCrB`/`tCrC` by the PTX fragment
/// rules, and the stores of `tDrC` to `tDgC`. Returns C (`m x n`, every element NaN until
/// written).
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
pub fn simulate(plan: &GemmPlan, a: &[f16], b: &[f16]) -> GpuResult<Vec<f32>> {
    let cfg = plan.cfg;
    let tensors: Vec<(&str, Tensor)> = plan
        .tensors
        .iter()
        .map(|(n, t)| Ok((n.as_str(), Tensor::of(t)?)))
        .collect::<GpuResult<_>>()?;
    let t = |name: &str| -> GpuResult<&Tensor> {
        tensors
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(_, t)| t)
            .ok_or_else(|| invalid(format!("no tensor {name}")))
    };
    let threads = cfg.threads();
    let (rank_g, rank_s) = (t("tAgA")?.extents.len(), t("tAsA")?.extents.len());
    let cosize = |name: &str| -> GpuResult<usize> {
        Ok(usize::try_from(plan.tensor(name)?.cosize()?).unwrap_or(0))
    };
    let mut c = vec![f32::NAN; usize::try_from(plan.m * plan.n).unwrap_or(0)];
    for block in 0..i64::from(plan.blocks()) {
        let tile = plan.raster.offset(block)?;
        let (bm, bn) = (plan.tile_m.offset(tile)?, plan.tile_n.offset(tile)?);
        // Unwritten shared memory is a NaN pattern, so a read before a write shows in C.
        let unwritten = f16::from_bits(0xFFFF);
        let mut smem = [
            vec![unwritten; cosize("tAsA")?],
            vec![unwritten; cosize("tBsB")?],
        ];
        let mut regs: Vec<Registers> = (0..threads)
            .map(|_| -> GpuResult<Registers> {
                Ok(Registers {
                    a: vec![f16::ZERO; cosize("tCrA")?],
                    b: vec![f16::ZERO; cosize("tCrB")?],
                    c: vec![0.0; cosize("tCrC")?],
                })
            })
            .collect::<GpuResult<_>>()?;
        for kt in 0..plan.k_tiles() {
            let s = kt % cfg.stages;
            // cp.async: 8 consecutive halves from each chunk's first element.
            let [sa, sb] = &mut smem;
            for (g, sh, tile, src, dst) in
                [("tAgA", "tAsA", bm, a, sa), ("tBgB", "tBsB", bn, b, sb)]
            {
                for thread in 0..threads {
                    let mut fg = vec![None; rank_g];
                    (fg[0], fg[rank_g - 2], fg[rank_g - 1]) = (Some(thread), Some(tile), Some(kt));
                    let mut fs = vec![None; rank_s];
                    (fs[0], fs[rank_s - 1]) = (Some(thread), Some(s));
                    let (gs, ss) = (Slice::new(t(g)?, &fg)?, Slice::new(t(sh)?, &fs)?);
                    for r in 0..gs.calls() {
                        let (go, so) = (gs.at(0, r)?, ss.at(0, r)?);
                        for e in 0..8 {
                            *slot(dst, so + e, "cp.async store")? =
                                get(src, go + e, "cp.async load")?;
                        }
                    }
                }
            }
            for kb in 0..cfg.bk / 16 {
                // ldmatrix.x4: lane l of each warp hands the row of value 0 of its slice.
                for (sx, rx, sm, op) in [
                    ("tXsA", "tXrA", &smem[0], 'A'),
                    ("tXsB", "tXrB", &smem[1], 'B'),
                ] {
                    for w in 0..threads / 32 {
                        let view = Slice::new(t(rx)?, &[None, None, None, Some(kb)])?;
                        let mut rows_of = Vec::new();
                        for l in 0..32 {
                            rows_of.push(Slice::new(
                                t(sx)?,
                                &[Some(32 * w + l), None, None, None, Some(kb), Some(s)],
                            )?);
                        }
                        for r in 0..view.calls() {
                            let mut rows = [0i64; 32];
                            for (l, x) in rows.iter_mut().enumerate() {
                                *x = rows_of[l].at(0, r)?;
                            }
                            let got = ldmatrix_x4_values(sm, &rows, 2, false)?;
                            let first = view.at(0, r)?;
                            for (l, lane) in got.iter().enumerate() {
                                let dst = &mut regs[(32 * w) as usize + l];
                                let dst = if op == 'A' { &mut dst.a } else { &mut dst.b };
                                for (m, pair) in lane.iter().enumerate() {
                                    for (h, &x) in pair.iter().take(2).enumerate() {
                                        *slot(dst, first + 2 * m as i64 + h as i64, "ldmatrix")? =
                                            x;
                                    }
                                }
                            }
                        }
                    }
                }
                // mma.sync over every (m, n) of the k step.
                let (fa, fb, fc) = (&t("tCrA")?.offset, &t("tCrB")?.offset, &t("tCrC")?.offset);
                let (mi, ni) = (t("tCrA")?.extents[1], t("tCrB")?.extents[1]);
                for w in 0..threads / 32 {
                    let lanes = &mut regs[(32 * w) as usize..(32 * w + 32) as usize];
                    for m in 0..mi {
                        for n in 0..ni {
                            let (oa, ob, oc) =
                                (fa.at(&[0, m, kb])?, fb.at(&[0, n, kb])?, fc.at(&[0, m, n])?);
                            let mut av = [[[f16::ZERO; 2]; 4]; 32];
                            let mut bv = [[[f16::ZERO; 2]; 2]; 32];
                            let mut cv = [[0f32; 4]; 32];
                            for (l, reg) in lanes.iter().enumerate() {
                                for r in 0..8 {
                                    av[l][r / 2][r % 2] = get(&reg.a, oa + r as i64, "mma a")?;
                                }
                                for r in 0..4 {
                                    bv[l][r / 2][r % 2] = get(&reg.b, ob + r as i64, "mma b")?;
                                }
                                for (v, x) in cv[l].iter_mut().enumerate() {
                                    *x = get(&reg.c, oc + v as i64, "mma c")?;
                                }
                            }
                            mma(&mut cv, &av, &bv);
                            for (l, reg) in lanes.iter_mut().enumerate() {
                                for (v, &x) in cv[l].iter().enumerate() {
                                    *slot(&mut reg.c, oc + v as i64, "mma d")? = x;
                                }
                            }
                        }
                    }
                }
            }
        }
        // The epilogue: two consecutive accumulators per store.
        let src = Slice::new(t("tDrC")?, &vec![None; t("tDrC")?.extents.len()])?;
        let rank_c = t("tDgC")?.extents.len();
        for (thread, reg) in regs.iter().enumerate() {
            let mut fixed = vec![None; rank_c];
            (fixed[0], fixed[rank_c - 2], fixed[rank_c - 1]) =
                (Some(thread as i64), Some(bm), Some(bn));
            let dst = Slice::new(t("tDgC")?, &fixed)?;
            for r in 0..src.calls() {
                let (from, to) = (src.at(0, r)?, dst.at(0, r)?);
                for e in 0..2 {
                    *slot(&mut c, to + e, "C store")? = get(&reg.c, from + e, "accumulator")?;
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
