//! A tiled GEMM with the tensor layer: C (fp32) = A B^T (fp16, K-contiguous), 64 x 64 x 32 tiles:
//! `cp.async`, swizzled shared tiles, `ldmatrix`, `mma.sync`. `cargo run --example tiled_gemm`.

use tessel_kit::atom::{copy_atom, mma_atom};
use tessel_kit::kernels::gemm::host::{random_f16, reference_rows};
use tessel_kit::kernels::kernel::{Arg, CType as T, Kernel, KernelBuilder, Param};
use tessel_kit::kernels::layer::{DeviceCopy, DeviceMma, DeviceTensor};
use tessel_kit::kernels::measure::{bound::tolerance, compare::compare};
use tessel_kit::kernels::{Gpu, exec::alloc};
use tessel_kit::tiled::{make_tiled_copy, make_tiled_copy_a, make_tiled_copy_b};
type Res<T> = Result<T, Box<dyn std::error::Error>>;

const BODY: &str = r#"
  __shared__ __align__(128) b16 sA[64 * 32], sB[64 * 32];
  const int t = threadIdx.x, bm = blockIdx.x, bn = blockIdx.y;  // this block's tile of C: tCgC
  auto tCrA = tensor::tCrA(); auto tCrB = tensor::tCrB(); auto tCrC = tensor::tCrC(); tCrC.fill(0.0f);
  for (int k = 0; k < k::KT; ++k) {  // global -> shared (cp.async) -> registers (ldmatrix) -> MMA
    tessel::copy(copy::g2s{}, tensor::tAgA(A)(t, _, _, _, _, bm, k), tensor::tSs(sA)(t, _, _, _, _));
    tessel::copy(copy::g2s{}, tensor::tBgB(B)(t, _, _, _, _, bn, k), tensor::tSs(sB)(t, _, _, _, _));
    tessel_cp_async_commit(); tessel_cp_async_wait<0>(); __syncthreads();
    tessel::copy(copy::s2r_a{}, tensor::tXsA(sA)(t, _, _, _, _), tensor::tXrA(tCrA));
    tessel::copy(copy::s2r_b{}, tensor::tXsB(sB)(t, _, _, _, _), tensor::tXrB(tCrB));
    tessel::gemm(mma::mma{}, tCrA.tensor(), tCrB.tensor(), tCrC.tensor()); __syncthreads();
  }
#pragma unroll  // the accumulators to C, where the MMA's partition of C puts them
  for (int i = 0; i < (int)tCrC.size(); ++i) tensor::tCgC(C)(t, _, _, _, bm, bn)[i] = tCrC[i];
"#;

/// `C (m x n) = A (m x k) B (n x k)^T`, `m` and `n` multiples of 64, `k` of 32 (else an error).
pub fn tiled_gemm(m: usize, n: usize, k: usize) -> Res<Kernel> {
    // 2 x 2 warps, each two m16n8k16 atoms side by side (16 x 16 of C), repeated to 64 x 64.
    let atom = mma_atom("SM80_16x8x16_F32F16F16F32_TN")?;
    let n16 = Some("(8,2,2):(1,16,8)".parse()?);
    let tm = tessel_kit::tiled::make_tiled_mma(&atom, &"(2,2):(1,2)".parse()?, &[None, n16])?;
    let mma = DeviceMma::new("mma", tm.clone());
    let cp = copy_atom("SM80_CP_ASYNC_CACHEGLOBAL<uint128_t>")?.typed(16)?;
    let (thr, val) = ("(32,4):(4,1)".parse()?, "(1,8):(0,1)".parse()?);
    let g2s = DeviceCopy::new("g2s", make_tiled_copy(&cp, &thr, &val)?);
    let x4 = copy_atom("SM75_U32x4_LDSM_N")?.typed(16)?; // a warp's 16 x 16 of A or of B
    let s2r_a = DeviceCopy::new("s2r_a", make_tiled_copy_a(&x4, &tm)?);
    let s2r_b = DeviceCopy::new("s2r_b", make_tiled_copy_b(&x4, &tm)?);
    let g = |ty, r: usize, c: usize, tile_c: i64| -> Res<DeviceTensor> {
        let rows = DeviceTensor::global(ty, format!("({r},{c}):({c},1)").parse()?);
        Ok(rows.local_tile(&[64, tile_c])?)
    };
    let s = DeviceTensor::shared(T::B16, "Sw<2,3,3> o (64,32):(32,1)".parse()?); // 64-byte rows
    let ra = mma.partition_fragment('A', &[64, 32], T::B16)?;
    let rb = mma.partition_fragment('B', &[64, 32], T::B16)?;
    let rc = mma.partition_fragment('C', &[64, 64], T::F32)?;
    let (xa, xb) = (s2r_a.retile_d(&ra)?, s2r_b.retile_d(&rb)?);
    mma.check_fed_by('A', &s2r_a, &[64, 32], &xa, &ra)?; // ldmatrix fills what the MMA reads
    mma.check_fed_by('B', &s2r_b, &[64, 32], &xb, &rb)?;
    let (ga, gb) = (g(T::B16, m, k, 32)?, g(T::B16, n, k, 32)?);
    let gc = g(T::F32, m, n, 64)?;
    let mut ts = vec![g2s.partition_s(&ga)?, g2s.partition_s(&gb)?];
    ts.extend([mma.partition_c(&gc)?, g2s.partition_d(&s)?]);
    ts.extend([s2r_a.partition_s(&s)?, s2r_b.partition_s(&s)?]);
    ts.extend([ra, rb, rc, xa, xb]);
    let names = "tAgA tBgB tCgC tSs tXsA tXsB tCrA tCrB tCrC tXrA tXrB";
    let mut kb = KernelBuilder::new("tiled_gemm", BODY).int("KT", (k / 32) as i64);
    for (name, t) in names.split(' ').zip(&ts) {
        kb = kb.tensor(name, t);
    }
    let kb = kb.param(Param::input("A", T::B16.into()).len(m * k));
    let kb = kb.param(Param::input("B", T::B16.into()).len(n * k));
    let kb = kb.param(Param::output("C", T::F32.into()).len(m * n));
    let kb = kb.tiled_copy(&g2s).tiled_copy(&s2r_a).tiled_copy(&s2r_b);
    let kb = kb.tiled_mma(&mma).threads(128);
    Ok(kb.grid((m / 64) as u32, (n / 64) as u32, 1).build()?)
}

/// `tiled_gemm(256, 192, 128)` against the CPU on a GPU; without one, what it generated.
pub fn run() -> Res<String> {
    let (m, n, k) = (256, 192, 128);
    let kernel = tiled_gemm(m, n, k)?;
    let Ok(gpu) = Gpu::open(0) else {
        let lines = kernel.source().lines().count();
        return Ok(format!("no GPU: {} built, {lines} lines", kernel.name()));
    };
    let (a, b) = (random_f16(m * k, 1), random_f16(n * k, 2));
    let (da, db) = (gpu.stream().clone_htod(&a)?, gpu.stream().clone_htod(&b)?);
    let mut dc = alloc::<u32>(&gpu, m * n)?;
    let (want, scale) = reference_rows(&a, &b, n, k, &(0..m).collect::<Vec<_>>());
    let args = &mut [Arg::input(&da), Arg::input(&db), Arg::output(&mut dc)];
    let cmp = kernel.load(&gpu)?.run_verified(args, 2, |got: &[u32]| {
        let got: Vec<f32> = got.iter().map(|&x| f32::from_bits(x)).collect();
        let tol = |i: usize| tolerance(k, scale[i]);
        Ok(compare(&got, &want, tol, |i| i.to_string()))
    })?;
    match cmp.ok() {
        true => Ok(format!("{} verified on {}", kernel.name(), gpu.describe())),
        false => Err(cmp.failure(kernel.name(), "against the CPU").into()),
    }
}
fn main() {
    let extra = std::env::args()
        .nth(1)
        .map(|a| format!("this example takes no arguments, got '{a}'"));
    if let Err(e) = extra
        .map_or_else(run, |e| Err(e.into()))
        .map(|what| println!("{what}"))
    {
        eprintln!("error: {e}");
        std::process::exit(2);
    }
}
