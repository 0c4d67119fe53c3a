//! A new GPU kernel in Rust, without touching cudarc: a transpose through a swizzled 32x32 shared
//! tile, one warp per tile, written with the tensor layer. Declare the tensors and the tiled
//! copies, let the host partition and check them and prove the shared accesses conflict-free,
//! assemble the kernel, launch it, verify it against a CPU replay.
//! `cargo run --example custom_kernel` (without a GPU it says so and exits 0; a failure exits 1
//! with one `error:` line).

use std::process::ExitCode;

use tessel_kit::ComposedLayout;
use tessel_kit::atom::{SmemSide, copy_atom};
use tessel_kit::bank::{BankReport, analyze_copy};
use tessel_kit::kernels::kernel::{Arg, CType, Kernel, KernelBuilder, Param, expect_bits};
use tessel_kit::kernels::layer::{DeviceCopy, DeviceTensor};
use tessel_kit::kernels::{Gpu, exec::alloc};
use tessel_kit::tiled::make_tiled_copy;

/// The device body: this warp's tile of the input into shared memory, then out of it into the
/// transposed tile of the output; every address is a tensor the host partitioned.
const BODY: &str = r#"
  __shared__ b32 smem[32 * 32];
  const long long bm = layout::tile_m(blockIdx.x), bn = layout::tile_n(blockIdx.x);
  // load: lanes along rows of the input (coalesced), into the swizzled tile
  tessel::copy(copy::load{}, tensor::tIgI(in)(threadIdx.x, _, _, _, _, bm, bn),
               tensor::tIsI(smem)(threadIdx.x, _, _, _, _));
  tessel_sync_block();
  // store: lanes along columns of the tile (coalesced in the transpose)
  tessel::copy(copy::store{}, tensor::tOsO(smem)(threadIdx.x, _, _, _, _),
               tensor::tOgO(out)(threadIdx.x, _, _, _, _, bm, bn));
"#;

/// The transpose of an `n x n` fp32 matrix (`n` a multiple of 32), proven conflict-free.
pub fn transpose_kernel(n: i64) -> Result<Kernel, Box<dyn std::error::Error>> {
    let tiles = (n > 0 && n % 32 == 0)
        .then_some(n / 32)
        .ok_or("n must be 32 k, k >= 1")?;
    let smem: ComposedLayout = "Sw<5,0,5> o (32,32):(32,1)".parse()?; // element (r, c)
    // One warp, one 4-byte element per lane and instruction: 32 lanes along a row (load) or a
    // column (store) of the tile (CuTe's make_tiled_copy).
    let atom = copy_atom("UniversalCopy<uint32_t>")?.typed(32)?;
    let load = DeviceCopy::new(
        "load",
        make_tiled_copy(&atom, &"(1,32):(0,1)".parse()?, &"1:0".parse()?)?,
    );
    let store = DeviceCopy::new(
        "store",
        make_tiled_copy(&atom, &"(32,1):(1,0)".parse()?, &"1:0".parse()?)?,
    );
    for (what, copy, side) in [
        ("store", &load, SmemSide::Destination),
        ("load", &store, SmemSide::Source),
    ] {
        let report: BankReport = analyze_copy(copy.tiled(), &smem, side)?.into_iter().sum();
        println!("shared {what}s: {report}");
        if report.excess != 0 {
            return Err(format!("shared {what}s conflict: {report}").into());
        }
    }
    // The matrices, divided into 32 x 32 tiles: (32, 32, tiles M, tiles N). The output is read
    // through its transpose: element (r, c) of `out^T` is out[c n + r].
    let input = DeviceTensor::global(CType::B32, format!("({n},{n}):({n},1)").parse()?);
    let output = DeviceTensor::global(CType::B32, format!("({n},{n}):(1,{n})").parse()?);
    let tile = DeviceTensor::shared(CType::B32, smem);
    let (g_in, g_out) = (input.local_tile(&[32, 32])?, output.local_tile(&[32, 32])?);
    let len = usize::try_from(n * n)?;
    Ok(KernelBuilder::new("transpose32_swizzled", BODY)
        .index_layout("tile_m", &format!("({tiles},{tiles}):(1,0)").parse()?)
        .index_layout("tile_n", &format!("({tiles},{tiles}):(0,1)").parse()?)
        .tiled_copy(&load)
        .tiled_copy(&store)
        .tensor("tIgI", &load.partition_s(&g_in)?)
        .tensor("tIsI", &load.partition_d(&tile)?)
        .tensor("tOsO", &store.partition_s(&tile)?)
        .tensor("tOgO", &store.partition_d(&g_out)?)
        .param(Param::input("in", CType::B32.into()).len(len))
        .param(Param::output("out", CType::B32.into()).len(len))
        .threads(32)
        .grid(u32::try_from(tiles * tiles)?, 1, 1)
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
