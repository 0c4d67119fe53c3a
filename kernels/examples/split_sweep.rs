//! An experiment, not a product path: the library GEMM's tile and split-K choices forced one
//! by one on each shape, every variant checked against cuBLAS and timed beside it, so that the
//! selection heuristic (`tessel_kernels::blas::choose_splits`, `choose_tile`) can be compared
//! with what the hardware rewards. f16 inputs, f32 output, A row-major, B column-major.
//!
//! `cargo run --release -p tessel-kernels --example split_sweep [MxNxK ...]`. Each line: the
//! variant, its time per call timed call by call with CUDA events (as `tessel bench gemm`
//! does) and over 20 calls back to back (launch overhead hidden), cuBLAS's two times, and the
//! ratios. `*` marks the library's own choice. A variant more than 1e-3 (of the largest element)
//! away from cuBLAS stops the run with exit status 1. Without a GPU it says so and exits 0; a bad
//! argument exits 2 with one `error:` line.

use std::process::ExitCode;

use cudarc::driver::{CudaSlice, DevicePtr, DevicePtrMut};
use tessel_kernels::blas::{
    Gemm, GemmArgs, GemmCall, MatrixMut, MatrixRef, Order, plan_gemm, store_strides,
};
use tessel_kernels::error::{GpuResult, cuda};
use tessel_kernels::gemm::host::random_f16;
use tessel_kernels::hopper::{BM, RASTER_GROUP, Sm90Tile};
use tessel_kernels::measure::cublas::{self as cublas_ref, GemmOperands};
use tessel_kernels::tiled::GroupedRaster;
use tessel_kernels::timing::time_events;
use tessel_kernels::{Element, Gpu};

const DEFAULT: &str = "1x4096x4096,1x14336x4096,16x4096x14336,16x14336x14336,64x4096x4096,\
64x14336x4096,64x4096x14336,256x4096x14336,256x14336x4096,1024x4096x4096,1000x3000x520,\
2048x2048x2048";

fn parse(text: &str) -> Result<Vec<(i64, i64, i64)>, String> {
    text.split(',')
        .map(|s| {
            let v: Vec<i64> = s.split('x').filter_map(|x| x.parse().ok()).collect();
            match v[..] {
                [m, n, k] if m > 0 && n > 0 && k > 0 => Ok((m, n, k)),
                _ => Err(format!("expected MxNxK, got '{s}'")),
            }
        })
        .collect()
}

/// Per-call milliseconds over `calls` launches back to back between one pair of events.
fn batched(gpu: &Gpu, calls: usize, mut work: impl FnMut() -> GpuResult<()>) -> GpuResult<f64> {
    let t = time_events(gpu, 1, 5, || {
        for _ in 0..calls {
            work()?;
        }
        Ok(())
    })?;
    Ok(t.median_ms / calls as f64)
}

fn shape(
    gpu: &Gpu,
    gemm: &Gemm<'_>,
    blas: &cudarc::cublas::CudaBlas,
    (m, n, k): (i64, i64, i64),
) -> GpuResult<()> {
    let stream = gpu.stream();
    let bytes = |len: i64, seed| -> Vec<u8> {
        random_f16(len as usize, seed)
            .iter()
            .flat_map(|h| h.to_bits().to_le_bytes())
            .collect()
    };
    let a: CudaSlice<u8> = cuda("htod", stream.clone_htod(&bytes(m * k, 1)))?;
    let b: CudaSlice<u8> = cuda("htod", stream.clone_htod(&bytes(k * n, 2)))?;
    let mut d: CudaSlice<u8> = cuda("alloc", stream.alloc_zeros((4 * m * n) as usize))?;
    let mut d_ref: CudaSlice<u8> = cuda("alloc", stream.alloc_zeros((4 * m * n) as usize))?;
    let mut args = GemmArgs {
        m,
        n,
        k,
        a: MatrixRef {
            buf: &a,
            elem: Element::F16,
            order: Order::RowMajor,
            ld: k,
        },
        b: MatrixRef {
            buf: &b,
            elem: Element::F16,
            order: Order::ColMajor,
            ld: k,
        },
        c: None,
        d: MatrixMut {
            buf: &mut d,
            elem: Element::F32,
            order: Order::RowMajor,
            ld: n,
        },
        alpha: 1.0,
        beta: 0.0,
        scale_a: 1.0,
        scale_b: 1.0,
    };
    let problem = args.problem(stream);
    let GemmCall::Sm90(chosen) = plan_gemm(&problem, gemm.target(), gemm.sms())? else {
        println!("{m}x{n}x{k}: not the Hopper path");
        return Ok(());
    };
    let (pa, pb) = (a.device_ptr(stream).0, b.device_ptr(stream).0);
    let pd = d_ref.device_ptr_mut(stream).0;
    let mut run_cublas = || {
        let ops = GemmOperands {
            a: (pa, Order::RowMajor),
            b: (pb, Order::ColMajor),
            input: Element::F16,
            d: pd,
            output: Element::F32,
        };
        // SAFETY: a, b and d_ref hold the matrices and outlive every launch (synchronized below).
        unsafe { cublas_ref::gemm(blas, (m, n, k), ops) }
    };
    run_cublas()?;
    gpu.synchronize()?;
    let floats = |v: Vec<u8>| -> Vec<f32> {
        v.chunks(4)
            .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
            .collect()
    };
    let want = floats(cuda("dtoh", stream.clone_dtoh(&d_ref))?);
    let scale = want.iter().fold(0.0f32, |s, x| s.max(x.abs())).max(1e-30);
    let their_each = time_events(gpu, 3, 20, &mut run_cublas)?.median_ms;
    let their_batch = batched(gpu, 20, &mut run_cublas)?;
    // The kernel's own extents (a swapped call's are D's columns and rows) and k-tiles.
    let (km, kn) = (i64::from(chosen.args.m), i64::from(chosen.args.n));
    let k_tiles = i64::from(chosen.args.k_tiles);
    for tile in Sm90Tile::ALL {
        for splits in [1i64, 2, 3, 4, 5, 6, 7, 8, 10, 12, 16] {
            if k_tiles / splits < 1 {
                continue;
            }
            let mut call = chosen.clone();
            call.config.tile = tile;
            let (tm, tn) = ((km + BM - 1) / BM, (kn + tile.bn() - 1) / tile.bn());
            call.args.tiles_m = tm as i32;
            call.args.tiles_n = tn as i32;
            call.args.log2_group = GroupedRaster::new(tm, tn, RASTER_GROUP)
                .map_err(|e| tessel_kernels::error::GpuError::InvalidArgument(e.to_string()))?
                .log2_group() as i32;
            call.args.splits = splits as i32;
            // D (row-major, leading dimension n) as plan_sm90 gives it to this variant: a
            // swapped one stores the transpose of its tiles.
            (call.args.ldd, call.args.d_col) = store_strides(n, call.swapped);
            call.args.d_pair = i32::from(!call.swapped && n % 2 == 0);
            call.grid = (tm * tn * splits).min(gemm.sms()) as u32;
            let call = GemmCall::Sm90(call);
            gemm.launch(&call)?;
            gpu.synchronize()?;
            let got = floats(cuda("dtoh", stream.clone_dtoh(&d))?);
            let err = got
                .iter()
                .zip(&want)
                .map(|(x, y)| (x - y).abs())
                .fold(0.0f32, |e, d| {
                    if e.is_nan() || d.is_nan() {
                        f32::NAN
                    } else {
                        e.max(d)
                    }
                })
                / scale;
            // fp16 inputs in [-1, 1] with fp32 sums: both results agree to about 1e-6 of the
            // largest element; a variant far outside that computes something else.
            if err.is_nan() || err > 1e-3 {
                return Err(tessel_kernels::error::GpuError::Verify(format!(
                    "{m}x{n}x{k} {tile} in {splits} splits: largest difference from cuBLAS \
                     {err:.1e} of the largest element"
                )));
            }
            let ours_each = time_events(gpu, 3, 20, || gemm.launch(&call))?.median_ms;
            let ours_batch = batched(gpu, 20, || gemm.launch(&call))?;
            let mark = if tile == chosen.config.tile && splits == i64::from(chosen.args.splits) {
                "*"
            } else {
                " "
            };
            println!(
                "{m:>5}x{n:>5}x{k:>5} {tile} s{splits:<2}{mark} each {:8.2} us batch {:8.2} us | cuBLAS {:8.2} / {:8.2} us | x {:.3} / {:.3} | err {err:.1e}",
                ours_each * 1e3,
                ours_batch * 1e3,
                their_each * 1e3,
                their_batch * 1e3,
                their_each / ours_each,
                their_batch / ours_batch
            );
        }
    }
    Ok(())
}

fn main() -> ExitCode {
    let arg = std::env::args()
        .nth(1)
        .unwrap_or_else(|| DEFAULT.to_string());
    let shapes = match parse(&arg) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::from(2);
        }
    };
    let Ok(gpu) = Gpu::open(0) else {
        println!("no GPU");
        return ExitCode::SUCCESS;
    };
    let run = || -> GpuResult<()> {
        let gemm = Gemm::new(&gpu)?;
        let blas = cublas_ref::cublas(&gpu)?;
        println!("device: {}", gpu.describe());
        for s in &shapes {
            shape(&gpu, &gemm, &blas, *s)?;
        }
        Ok(())
    };
    match run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}
