//! A new GPU kernel in Rust, without touching cudarc: a transpose through a swizzled 32x32 shared
//! tile, one warp per tile. Declare the layouts, prove the shared accesses conflict-free, assemble
//! the kernel, launch it, verify it against a CPU replay. `cargo run --example custom_kernel`
//! (without a GPU it says so and exits 0; a failure exits 1 with one `error:` line).

use std::process::ExitCode;

use tessel_kit::kernels::kernel::{Arg, CType, Elem, Kernel, KernelBuilder, Param, expect_bits};
use tessel_kit::kernels::{DType, Gpu, exec::alloc, tiled::Arrangement};
use tessel_kit::{ComposedLayout, Layout, bank::analyze};

/// The device body: every index is a layout function (`layout::`) or a constant (`k::`).
const BODY: &str = r#"
  __shared__ b32 tile[k::SMEM];
  const long long t = threadIdx.x;
  const long long r0 = layout::tile_r0(blockIdx.x), c0 = layout::tile_c0(blockIdx.x);
  for (int v = 0; v < 32; ++v) {  // load: lanes along rows of the input (coalesced)
    const long long i = layout::tv_ld(t + 32 * v);
    tile[layout::smem(i)] = in[layout::g_in_crd(r0 + i % 32, c0 + i / 32)];
  }
  tessel_sync_block();
  for (int v = 0; v < 32; ++v) {  // store: lanes along columns (coalesced in the transpose)
    const long long i = layout::tv_st(t + 32 * v);
    out[layout::g_out_crd(r0 + i % 32, c0 + i / 32)] = tile[layout::smem(i)];
  }
"#;

/// The transpose of an `n x n` fp32 matrix (`n` a multiple of 32), proven conflict-free.
pub fn transpose_kernel(n: i64) -> Result<Kernel, Box<dyn std::error::Error>> {
    let tiles = (n > 0 && n % 32 == 0)
        .then_some(n / 32)
        .ok_or("n must be 32 k, k >= 1")?;
    let smem: ComposedLayout = "Sw<5,0,5> o (32,32):(32,1)".parse()?; // tile element r + 32c
    // One warp: loads along rows, stores along columns (CuTe make_tiled_copy arrangements).
    let tv_ld = Arrangement::RowsRaked.tv(DType::F32, 32, 32, 1, 32)?;
    let tv_st = Arrangement::ColsRaked.tv(DType::F32, 32, 32, 1, 32)?;
    for (what, tv) in [("store", &tv_ld), ("load", &tv_st)] {
        // (lane, value, instruction) view of the warp's 32 accesses of 4 bytes.
        let warp = Layout::from_modes(vec![tv.mode(0)?, "1:0".parse()?, tv.mode(1)?])?;
        let report = analyze(&smem, 4, "lds.32".parse()?, &warp)?;
        println!("shared {what}s: {report}");
        if report.excess != 0 {
            return Err(format!("shared {what}s conflict: {report}").into());
        }
    }
    Ok(KernelBuilder::new("transpose32_swizzled", BODY)
        .int("SMEM", 32 * 32)
        .index_layout("tile_r0", &format!("({tiles},{tiles}):(32,0)").parse()?)
        .index_layout("tile_c0", &format!("({tiles},{tiles}):(0,32)").parse()?)
        .coord_layout("g_in", &format!("({n},{n}):({n},1)").parse()?)
        .coord_layout("g_out", &format!("({n},{n}):(1,{n})").parse()?)
        .composed_layout("smem", &smem)
        .index_layout("tv_ld", &tv_ld)
        .index_layout("tv_st", &tv_st)
        .param(Param::input("in", Elem::Type(CType::B32)).len((n * n) as usize))
        .param(Param::output("out", Elem::Type(CType::B32)).len((n * n) as usize))
        .threads(32)
        .grid((tiles * tiles) as u32, 1, 1)
        .build()?)
}

fn run() -> Result<(), Box<dyn std::error::Error>> {
    if let Some(extra) = std::env::args().nth(1) {
        return Err(format!("this example takes no arguments, got '{extra}'").into());
    }
    let kernel = transpose_kernel(256)?;
    let gpu = match Gpu::open(0) {
        Ok(gpu) => gpu,
        Err(e) => {
            println!("no GPU: {e}");
            return Ok(());
        }
    };
    let input: Vec<u32> = (0..256 * 256).collect();
    let src = gpu.stream().clone_htod(&input)?;
    let mut dst = alloc::<u32>(&gpu, input.len())?;
    // The CPU replay: out[r + 256 c] = in[256 r + c].
    let check = |got: &[u32]| expect_bits(kernel.name(), got, |i| input[(i % 256) * 256 + i / 256]);
    let args = &mut [Arg::input(&src), Arg::output(&mut dst)];
    kernel.load(&gpu)?.run_verified(args, 1, check)?;
    println!("{} verified on {}", kernel.name(), gpu.describe());
    Ok(())
}

/// The examples' contract: exit status 1 and one `error:` line on stderr on any failure.
fn main() -> ExitCode {
    match run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {}", e.to_string().replace('\n', " "));
            ExitCode::FAILURE
        }
    }
}
