//! A CPU replay of the mma.sync GEMM ([`super::sm80`]) through its own tensors, as the body
//! uses them: the copies of every k tile from the identity tensors' coordinates into the
//! stages (zeros past the matrix's edge, as `tessel::copy_zfill`), `ldmatrix` (`.trans` for an
//! MN-major operand) and `mma.sync` (m16n8k16, or m16n8k32 for 8-bit inputs, whose products of
//! each k tile are summed from zero and then added to the accumulators) by the PTX fragment
//! rules ([`crate::gemm::host`]), and the
//! epilogue at the coordinates of `crow` and `ccol`. A read of shared memory no copy wrote is a
//! NaN in D.

use super::order::Order;
use super::sm80::{SM80_TILE, Sm80Config};
use super::verify::HostGemm;
use crate::element::DeviceElement;
use crate::error::{GpuError, GpuResult};
use crate::gemm::BM;
use crate::gemm::host::{Slice, Tensor, get, slot};
use crate::hopper::promotes;
use crate::layer::DeviceTensor;
use crate::mma::host::{ldmatrix_x4_values, mma_of};
use tessel_layout::gmma::Major;

/// One thread's registers: the MMA's fragments and accumulators, and (8-bit inputs) the
/// partial sums of the k tile, added to the accumulators after it (`tessel::gemm_promoted`).
struct Registers {
    a: Vec<f32>,
    b: Vec<f32>,
    c: Vec<f32>,
    p: Vec<f32>,
}

fn invalid(what: String) -> GpuError {
    GpuError::InvalidArgument(format!("mma.sync GEMM replay: {what}"))
}

/// Replays `config`'s kernel on the problem `g` (A, B and C as the device reads them: values
/// of the input and output types) with D of `d_order` and leading dimension `d_ld`. Returns D
/// in storage order, rounded to the output type, NaN where the kernel does not write.
///
/// ```
/// use tessel_kernels::{Element, blas::{HostGemm, HostMatrix, Order, Sm80Config, replay_sm80}};
/// use tessel_layout::gmma::Major;
/// let (m, n, k) = (3, 2, 5);
/// let a: Vec<f64> = (0..m * k).map(|x| x as f64).collect(); // row-major 3 x 5
/// let b: Vec<f64> = vec![1.0; k * n];                       // row-major 5 x 2
/// let g = HostGemm { m, n, k, c: None, alpha: 1.0, beta: 0.0, fp8: false,
///     a: HostMatrix { values: &a, order: Order::RowMajor, ld: 5 },
///     b: HostMatrix { values: &b, order: Order::RowMajor, ld: 2 } };
/// let c = Sm80Config { input: Element::F16, output: Element::F32, a_major: Major::K,
///                      b_major: Major::MN, a_width: 1, b_width: 2, source: false };
/// let d = replay_sm80(&c, &g, Order::RowMajor, 2).unwrap();
/// assert_eq!(d, vec![10.0, 10.0, 35.0, 35.0, 60.0, 60.0]); // row sums of A
/// ```
pub fn replay_sm80(
    config: &Sm80Config,
    g: &HostGemm<'_>,
    d_order: Order,
    d_ld: i64,
) -> GpuResult<Vec<f64>> {
    let parts = config.parts()?;
    let cfg = SM80_TILE;
    let (bn, bk, pipe, threads) = (cfg.bn, config.bk(), cfg.stages, cfg.threads());
    // Elements per 32-bit register of the fragments: 2 of 16 bits, 4 of 8 bits; an MMA's k step
    // is 8 of them per register pair.
    let vals = usize::try_from(4 / config.input.bytes()).unwrap_or(2);
    let atom_k = 8 * vals as i64;
    let promote = promotes(config.input);
    let (m, n, k) = (g.m as i64, g.n as i64, g.k as i64);
    let t = |name: &str| -> GpuResult<Tensor> { Tensor::of(parts.tensor(name)?) };
    let (sa, sb) = (t("tAsA")?, t("tBsB")?);
    let (xsa, xsb, xra, xrb) = (t("tXsA")?, t("tXsB")?, t("tXrA")?, t("tXrB")?);
    let (fa, fb, fc) = (t("tCrA")?, t("tCrB")?, t("tCrC")?);
    let coord = |name: &str| parts.tensor(name).map(DeviceTensor::layout);
    let cosize = |name: &str| -> GpuResult<usize> {
        Ok(usize::try_from(parts.tensor(name)?.cosize()?).unwrap_or(0))
    };
    let (d_rs, d_cs) = match d_order {
        Order::RowMajor => (d_ld, 1),
        Order::ColMajor => (1, d_ld),
    };
    let span = if m == 0 || n == 0 {
        0
    } else {
        (m - 1) * d_rs + (n - 1) * d_cs + 1
    };
    let mut d = vec![f64::NAN; usize::try_from(span).unwrap_or(0)];
    // The operands as the copies see them: an `outer x inner` matrix, element (o, i) at
    // o ld + i, in (outer, inner) tiles.
    let extents = |major: Major, mn: i64| match major {
        Major::K => (mn, k),
        Major::MN => (k, mn),
    };
    let ops = [
        (
            &g.a,
            config.a_major,
            config.a_width,
            extents(config.a_major, m),
            ("tAcA_o", "tAcA_i"),
            &sa,
            BM,
        ),
        (
            &g.b,
            config.b_major,
            config.b_width,
            extents(config.b_major, n),
            ("tBcB_o", "tBcB_i"),
            &sb,
            bn,
        ),
    ];
    let kts = (k + bk - 1) / bk;
    for tm in 0..(m + BM - 1) / BM {
        for tn in 0..(n + bn - 1) / bn {
            let (m0, n0) = (tm * BM, tn * bn);
            let mut smem = [
                vec![f32::NAN; cosize("tAsA")?],
                vec![f32::NAN; cosize("tBsB")?],
            ];
            let mut regs: Vec<Registers> = (0..threads)
                .map(|_| -> GpuResult<Registers> {
                    Ok(Registers {
                        a: vec![0.0; cosize("tCrA")?],
                        b: vec![0.0; cosize("tCrB")?],
                        c: vec![0.0; cosize("tCrC")?],
                        p: vec![0.0; cosize("tCrC")?],
                    })
                })
                .collect::<GpuResult<_>>()?;
            for kt in 0..kts {
                let s = kt % pipe;
                let k0 = kt * bk;
                // The copies of k tile kt into stage s (tessel::copy_zfill).
                for (op, (x, major, width, (oe, ie), (co, ci), dst, mn0)) in ops.iter().enumerate()
                {
                    let (o0, i0) = match major {
                        Major::K => (*mn0 * if op == 0 { tm } else { tn }, k0),
                        Major::MN => (k0, *mn0 * if op == 0 { tm } else { tn }),
                    };
                    let (co, ci) = (coord(co)?, coord(ci)?);
                    let per_thread = co.layout().size() / threads / width;
                    let rank = dst.extents.len();
                    for thread in 0..threads {
                        let mut fixed = vec![None; rank];
                        (fixed[0], fixed[rank - 1]) = (Some(thread), Some(s));
                        let ds = Slice::new(dst, &fixed)?;
                        if ds.calls() != per_thread {
                            return Err(invalid(format!(
                                "{} copies per thread into the stage, {per_thread} coordinates",
                                ds.calls()
                            )));
                        }
                        for r in 0..per_thread {
                            let first = thread + threads * width * r;
                            let o = o0 + co.offset(first)?;
                            let i = i0 + ci.offset(first)?;
                            let valid = if o < *oe {
                                (ie - i).clamp(0, *width)
                            } else {
                                0
                            };
                            for e in 0..*width {
                                let v = if e < valid {
                                    get(x.values, o * x.ld + i + e, "global load")? as f32
                                } else {
                                    0.0
                                };
                                *slot(&mut smem[op], ds.at(e, r)?, "shared store")? = v;
                            }
                        }
                    }
                }
                for kb in 0..bk / atom_k {
                    for (sx, rx, op, major) in [
                        (&xsa, &xra, 0, config.a_major),
                        (&xsb, &xrb, 1, config.b_major),
                    ] {
                        for w in 0..threads / 32 {
                            let view = Slice::new(rx, &[None, None, None, Some(kb)])?;
                            let rows_of = (0..32)
                                .map(|l| {
                                    Slice::new(
                                        sx,
                                        &[Some(32 * w + l), None, None, None, Some(kb), Some(s)],
                                    )
                                })
                                .collect::<GpuResult<Vec<_>>>()?;
                            for r in 0..view.calls() {
                                let mut rows = [0i64; 32];
                                for (l, x) in rows.iter_mut().enumerate() {
                                    *x = rows_of[l].at(0, r)?;
                                }
                                let got =
                                    ldmatrix_x4_values(&smem[op], &rows, vals, major == Major::MN)?;
                                let first = view.at(0, r)?;
                                for (l, lane) in got.iter().enumerate() {
                                    let dst = &mut regs[(32 * w) as usize + l];
                                    let dst = if op == 0 { &mut dst.a } else { &mut dst.b };
                                    for (mat, reg) in lane.iter().enumerate() {
                                        for (h, &x) in reg.iter().take(vals).enumerate() {
                                            *slot(dst, first + (vals * mat + h) as i64, "ldsm")? =
                                                x;
                                        }
                                    }
                                }
                            }
                        }
                    }
                    let (mi, ni) = (fa.extents[1], fb.extents[1]);
                    for w in 0..threads / 32 {
                        let lanes = &mut regs[(32 * w) as usize..(32 * w + 32) as usize];
                        for mm in 0..mi {
                            for nn in 0..ni {
                                let (oa, ob, oc) = (
                                    fa.offset.at(&[0, mm, kb])?,
                                    fb.offset.at(&[0, nn, kb])?,
                                    fc.offset.at(&[0, mm, nn])?,
                                );
                                let mut av = [[0f32; 16]; 32];
                                let mut bv = [[0f32; 8]; 32];
                                let mut cv = [[0f32; 4]; 32];
                                for (l, reg) in lanes.iter().enumerate() {
                                    for (i, x) in av[l].iter_mut().take(4 * vals).enumerate() {
                                        *x = get(&reg.a, oa + i as i64, "a")?;
                                    }
                                    for (i, x) in bv[l].iter_mut().take(2 * vals).enumerate() {
                                        *x = get(&reg.b, ob + i as i64, "b")?;
                                    }
                                    let sum = if promote { &reg.p } else { &reg.c };
                                    for (v, x) in cv[l].iter_mut().enumerate() {
                                        *x = get(sum, oc + v as i64, "c")?;
                                    }
                                }
                                mma_of(vals, &mut cv, &av, &bv);
                                for (l, reg) in lanes.iter_mut().enumerate() {
                                    let sum = if promote { &mut reg.p } else { &mut reg.c };
                                    for (v, &x) in cv[l].iter().enumerate() {
                                        *slot(sum, oc + v as i64, "d")? = x;
                                    }
                                }
                            }
                        }
                    }
                }
                if promote {
                    // The k tile's partial sums into the fp32 accumulators, one add each.
                    for reg in &mut regs {
                        for (c, p) in reg.c.iter_mut().zip(reg.p.iter_mut()) {
                            *c += std::mem::take(p);
                        }
                    }
                }
            }
            // The epilogue: each accumulator at its (row, column) inside D.
            let (rows, cols) = (coord("crow")?, coord("ccol")?);
            let acc = parts.tensor("tCrC")?.layout();
            for (thread, reg) in regs.iter().enumerate() {
                for i in 0..acc.layout().size() {
                    let at = thread as i64 + threads * i;
                    let (r, c) = (m0 + rows.offset(at)?, n0 + cols.offset(at)?);
                    if r >= m || c >= n {
                        continue;
                    }
                    let mut v =
                        f64::from(g.alpha as f32) * f64::from(get(&reg.c, acc.offset(i)?, "acc")?);
                    if config.source {
                        let cm = g.c.as_ref().ok_or_else(|| invalid("no C".to_string()))?;
                        v += f64::from(g.beta as f32) * cm.at(r as usize, c as usize);
                    }
                    let rounded = f64::from(v as f32);
                    let out = config.output;
                    *slot(&mut d, r * d_rs + c * d_cs, "D store")? =
                        out.decode(out.encode(rounded));
                }
            }
        }
    }
    Ok(d)
}
