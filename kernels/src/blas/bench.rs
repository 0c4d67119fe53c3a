//! `tessel bench gemm` through the library: for each shape, type pair and pair of operand
//! orders, the library GEMM ([`Gemm`]) and cuBLAS (`cublasGemmEx`, the same types and orders,
//! fp32 compute; for 8-bit inputs cuBLASLt, [`crate::measure::cublaslt`], TN with per-tensor
//! scales 0.5 and 0.25 given to both, and only the TN orders) in the same process: both checked
//! against the f64 CPU reference on spread rows within the K-proportional bound
//! ([`reference_bounds`]), and against each other within the sum of their bounds; then timed
//! with CUDA events (balanced order, [`time_pair`]).

use std::io::Write;

use cudarc::cublas::CudaBlas;
use cudarc::driver::{CudaSlice, DevicePtr, DevicePtrMut};

use super::{
    Gemm, GemmArgs, HostGemm, HostMatrix, MatrixMut, MatrixRef, Order, reference_bounds,
    spread_rows,
};
use crate::Arch;
use crate::bench::io;
use crate::device::Gpu;
use crate::element::{DeviceElement, Element};
use crate::error::{GpuError, GpuResult, cuda};
use crate::gemm::host::random_f16;
use crate::gemm::run::{VsCublas, cublas};
use crate::measure::compare::compare_rows;
use crate::measure::cublas::{self as cublas_ref, GemmOperands};
use crate::measure::cublaslt::fp8_cublaslt;
use crate::timing::{Side, time_events, time_pair};

/// One row of the benchmark.
#[derive(Clone, Debug, PartialEq)]
pub struct BlasRow {
    /// M, N, K.
    pub size: (i64, i64, i64),
    /// Input type (A and B).
    pub input: Element,
    /// Output type (D).
    pub output: Element,
    /// A's order.
    pub a: Order,
    /// B's order.
    pub b: Order,
    /// The kernel the library chose (its configuration's name).
    pub kernel: String,
    /// Ranges of K the library split each output tile into (1: no split).
    pub splits: i64,
    /// The measurement.
    pub result: VsCublas,
}

/// `rc`-style name of a pair of orders (A's, then B's: `r` row-major, `c` column-major).
///
/// ```
/// use tessel_kernels::blas::{Order, bench::orders_name};
/// assert_eq!(orders_name(Order::RowMajor, Order::ColMajor), "rc");
/// ```
pub fn orders_name(a: Order, b: Order) -> String {
    let c = |o| if o == Order::RowMajor { 'r' } else { 'c' };
    format!("{}{}", c(a), c(b))
}

/// Parses `rc`-style pairs of orders (see [`orders_name`]).
///
/// ```
/// use tessel_kernels::blas::{Order, bench::parse_orders};
/// assert_eq!(parse_orders("cr").unwrap(), (Order::ColMajor, Order::RowMajor));
/// assert!(parse_orders("tn").is_err());
/// ```
pub fn parse_orders(text: &str) -> GpuResult<(Order, Order)> {
    let o = |c| match c {
        'r' => Some(Order::RowMajor),
        'c' => Some(Order::ColMajor),
        _ => None,
    };
    let mut chars = text.chars();
    match (
        chars.next().and_then(o),
        chars.next().and_then(o),
        chars.next(),
    ) {
        (Some(a), Some(b), None) => Ok((a, b)),
        _ => Err(GpuError::InvalidArgument(format!(
            "expected the orders of A and B as two letters r (row-major) or c (column-major), \
             e.g. rc, got '{text}'"
        ))),
    }
}

/// Values per chunk of [`random`]: each chunk has its own seed, so threads fill the chunks.
const RANDOM_CHUNK: usize = 1 << 20;

/// Random values of `elem` (`q / 1024`, `|q| <= 1024`, rounded to the type): bytes and values.
/// Chunk `i` of [`RANDOM_CHUNK`] values is `random_f16` of seed `seed + i`, filled in parallel.
fn random(len: usize, seed: u64, elem: Element) -> (Vec<u8>, Vec<f64>) {
    let w = elem.bytes() as usize;
    let mut bytes = vec![0u8; len * w];
    let mut values = vec![0.0f64; len];
    let threads = std::thread::available_parallelism().map_or(1, |t| t.get());
    // Each thread fills a share of whole chunks (the first chunk of share t is chunk t per).
    let per = len.div_ceil(RANDOM_CHUNK).div_ceil(threads.max(1)).max(1);
    std::thread::scope(|scope| {
        let shares = bytes
            .chunks_mut(per * RANDOM_CHUNK * w)
            .zip(values.chunks_mut(per * RANDOM_CHUNK));
        for (t, (bytes, values)) in shares.enumerate() {
            scope.spawn(move || {
                let chunks = bytes
                    .chunks_mut(RANDOM_CHUNK * w)
                    .zip(values.chunks_mut(RANDOM_CHUNK));
                for (i, (bytes, values)) in chunks.enumerate() {
                    let chunk = (t * per + i) as u64;
                    let hs = random_f16(values.len(), seed.wrapping_add(chunk));
                    let outs = hs.iter().zip(values.iter_mut()).zip(bytes.chunks_mut(w));
                    for ((h, v), out) in outs {
                        let bits = elem.encode(f64::from(h.to_f32()));
                        out.copy_from_slice(&bits.to_le_bytes()[..w]);
                        *v = elem.decode(bits);
                    }
                }
            });
        }
    });
    (bytes, values)
}

/// Rows `rows` of the row-major `rows x n` matrix of `elem` in `bytes`, as f32 (NaN past
/// the end).
fn row_values(elem: Element, bytes: &[u8], n: usize, rows: &[usize]) -> Vec<f32> {
    let w = elem.bytes() as usize;
    rows.iter()
        .flat_map(|&i| (0..n).map(move |j| i * n + j))
        .map(|e| {
            bytes.get(e * w..(e + 1) * w).map_or(f32::NAN, |c| {
                let mut b = [0u8; 4];
                b[..w].copy_from_slice(c);
                elem.decode(u32::from_le_bytes(b)) as f32
            })
        })
        .collect()
}

fn len(x: i64, y: i64) -> GpuResult<usize> {
    usize::try_from(x * y).map_err(|_| GpuError::InvalidArgument(format!("{x} x {y} too large")))
}

/// Measures one shape, type pair and pair of orders (see the module docs). `Verify` when the
/// library's result or cuBLAS's is outside its bound.
#[allow(clippy::too_many_arguments)]
pub fn bench_one(
    gpu: &Gpu,
    gemm: &Gemm<'_>,
    blas: &CudaBlas,
    (m, n, k): (i64, i64, i64),
    (input, output): (Element, Element),
    (oa, ob): (Order, Order),
    repeats: usize,
    progress: &mut dyn Write,
) -> GpuResult<BlasRow> {
    let seed = (m as u64) << 32 ^ (n as u64) << 16 ^ k as u64;
    // Per-tensor scales of A and B: 8-bit inputs are dequantized (and cuBLASLt given the same
    // scales as device scalars); 16-bit ones are not scaled.
    let scales = if input.is_fp8() {
        (0.5f32, 0.25f32)
    } else {
        (1.0, 1.0)
    };
    let (a_bytes, a_host) = random(len(m, k)?, seed, input);
    let (b_bytes, b_host) = random(len(k, n)?, seed ^ 0xB0B, input);
    let stream = gpu.stream();
    let a: CudaSlice<u8> = cuda("cuMemcpyHtoD", stream.clone_htod(&a_bytes))?;
    let b: CudaSlice<u8> = cuda("cuMemcpyHtoD", stream.clone_htod(&b_bytes))?;
    let d_bytes = len(m, n)? * output.bytes() as usize;
    let mut d: CudaSlice<u8> = cuda("cuMemcpyHtoD", stream.clone_htod(&vec![0xFFu8; d_bytes]))?;
    let mut d_cublas: CudaSlice<u8> =
        cuda("cuMemcpyHtoD", stream.clone_htod(&vec![0xFFu8; d_bytes]))?;
    let ld = |o: Order, rows: i64, cols: i64| if o == Order::RowMajor { cols } else { rows };
    let call = gemm.run(GemmArgs {
        m,
        n,
        k,
        a: MatrixRef {
            buf: &a,
            elem: input,
            order: oa,
            ld: ld(oa, m, k),
        },
        b: MatrixRef {
            buf: &b,
            elem: input,
            order: ob,
            ld: ld(ob, k, n),
        },
        c: None,
        d: MatrixMut {
            buf: &mut d,
            elem: output,
            order: Order::RowMajor,
            ld: n,
        },
        alpha: 1.0,
        beta: 0.0,
        scale_a: scales.0,
        scale_b: scales.1,
    })?;
    let name = format!("{} {m}x{n}x{k}", call.kernel_name());
    let (pa, pb) = (a.device_ptr(stream).0, b.device_ptr(stream).0);
    let pd = d_cublas.device_ptr_mut(stream).0;
    let scales_dev = cuda(
        "cuMemcpyHtoD",
        stream.clone_htod(&[scales.0, 0.0, 0.0, 0.0, scales.1]),
    )?;
    let ps = scales_dev.device_ptr(stream).0;
    let mut run_cublas: Box<dyn FnMut() -> GpuResult<()> + '_> = if input.is_fp8() {
        // SAFETY: a, b, d_cublas and scales_dev hold the matrices and scales (sizes above)
        // and outlive every launch (timed below, synchronized before they drop).
        Box::new(unsafe {
            fp8_cublaslt(
                gpu,
                (m, n, k),
                (pa, input),
                (pb, input),
                (pd, output),
                (ps, ps + 16),
            )?
        })
    } else {
        Box::new(move || {
            // SAFETY: a, b and d_cublas hold the matrices (sizes above), on the handle's stream.
            let ops = GemmOperands {
                a: (pa, oa),
                b: (pb, ob),
                input,
                d: pd,
                output,
            };
            unsafe { cublas_ref::gemm(blas, (m, n, k), ops) }
        })
    };
    run_cublas()?;
    gpu.synchronize()?;
    let ours = cuda("cuMemcpyDtoH", stream.clone_dtoh(&d))?;
    let theirs = cuda("cuMemcpyDtoH", stream.clone_dtoh(&d_cublas))?;
    // The CPU reference and the bounds on spread rows; ours and cuBLAS each within the bound,
    // and within twice the bound of each other.
    let rows = spread_rows(m as usize, 32);
    let g = HostGemm {
        m: m as usize,
        n: n as usize,
        k: k as usize,
        a: HostMatrix {
            values: &a_host,
            order: oa,
            ld: ld(oa, m, k),
        },
        b: HostMatrix {
            values: &b_host,
            order: ob,
            ld: ld(ob, k, n),
        },
        c: None,
        alpha: f64::from(scales.0) * f64::from(scales.1),
        beta: 0.0,
        fp8: input.is_fp8(),
    };
    let (want, tol) = reference_bounds(&g, output, &rows);
    let ours_rows = row_values(output, &ours, n as usize, &rows);
    let theirs_rows = row_values(output, &theirs, n as usize, &rows);
    let n_cols = n as usize;
    let cpu = compare_rows(&ours_rows, &want, &tol, "D", n_cols, &rows);
    if cpu.bad > 0 {
        return Err(cpu.failure(&name, "vs CPU reference"));
    }
    let cublas_cpu = compare_rows(&theirs_rows, &want, &tol, "D", n_cols, &rows);
    if cublas_cpu.bad > 0 {
        return Err(cublas_cpu.failure(&format!("cuBLAS {m}x{n}x{k}"), "vs CPU reference"));
    }
    let theirs_f64: Vec<f64> = theirs_rows.iter().map(|&x| f64::from(x)).collect();
    let twice: Vec<f64> = tol.iter().map(|t| 2.0 * t).collect();
    let vs = compare_rows(&ours_rows, &theirs_f64, &twice, "D", n_cols, &rows);
    if vs.bad > 0 {
        return Err(vs.failure(&name, "vs cuBLAS"));
    }
    io(writeln!(
        progress,
        "[{name}] grid {}, {} split(s) of K; rel err vs CPU {:.2e}, vs cuBLAS {:.2e}",
        call.grid(),
        call.splits(),
        cpu.rel_err,
        vs.rel_err
    ))?;
    let (t_ours, t_theirs) = time_pair(|side| match side {
        Side::Ours => time_events(gpu, 3, repeats, || gemm.launch(&call)),
        Side::Theirs => time_events(gpu, 3, repeats, &mut run_cublas),
    })?;
    let flops = 2.0 * m as f64 * n as f64 * k as f64;
    let result = VsCublas::new(flops, t_ours, t_theirs, cpu.rel_err, vs.rel_err);
    // Each row as it is measured, so a run cut short still reports the shapes it finished.
    io(writeln!(
        progress,
        "[{name}] {:.1} TFLOP/s, cuBLAS {:.1}: {:.3}x",
        result.ours_tflops,
        result.cublas_tflops,
        result.ours_tflops / result.cublas_tflops
    ))?;
    Ok(BlasRow {
        size: (m, n, k),
        input,
        output,
        a: oa,
        b: ob,
        kernel: call.kernel_name(),
        splits: call.splits(),
        result,
    })
}

/// [`bench_one`] for every shape, type pair and pair of orders (in that nesting), with the
/// library compiling for `target` ([`Gemm::for_arch`]; `None`: the GPU's own, [`Gemm::new`]).
/// `Unavailable` when the GPU does not run the target's code or cuBLAS is missing.
///
/// ```
/// use tessel_kernels::{Arch, Element, blas::{Order, bench}};
/// let Ok(gpu) = tessel_kernels::Gpu::open(0) else { return };
/// let Ok(rows) = bench::bench(&gpu, Some(Arch::SM80), &[(300, 500, 72)],
///     &[(Element::F16, Element::F32)], &[(Order::RowMajor, Order::ColMajor)], 2,
///     &mut Vec::new()) else { return };
/// assert!(rows[0].kernel.starts_with("gemm_sm80_"));
/// ```
#[allow(clippy::too_many_arguments)]
pub fn bench(
    gpu: &Gpu,
    target: Option<Arch>,
    shapes: &[(i64, i64, i64)],
    types: &[(Element, Element)],
    orders: &[(Order, Order)],
    repeats: usize,
    progress: &mut dyn Write,
) -> GpuResult<Vec<BlasRow>> {
    let gemm = match target {
        Some(t) => Gemm::for_arch(gpu, t)?,
        None => Gemm::new(gpu)?,
    };
    let blas = cublas(gpu)?;
    let mut rows = Vec::new();
    for &shape in shapes {
        for &types in types {
            // 8-bit inputs are TN only (A row-major, B column-major): that pair of orders.
            let tn = [(Order::RowMajor, Order::ColMajor)];
            let orders = if types.0.is_fp8() { &tn[..] } else { orders };
            for &o in orders {
                rows.push(bench_one(
                    gpu, &gemm, &blas, shape, types, o, repeats, progress,
                )?);
            }
        }
    }
    Ok(rows)
}
