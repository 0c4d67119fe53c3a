//! Problem 3 of the tensor-core swizzle problems, from layout declaration to launch: two 16x256
//! fp16 matrices `A`, `B` in shared memory, read by 16 warps in two modes —
//! `C1_j = Asub_j * Bsub_j^T` for the 16x16 column blocks `j`, and `C2_i = Asub_i * Bsub_i^T`
//! for each row `i` viewed as a 16x16 block — with one swizzle that keeps both modes free of
//! bank conflicts. `cargo run --example swizzle_problem3` (without a GPU it stops after step 3
//! and exits 0; a failure exits 1 with one `error:` line).
//!
//! 1. Declare the tile and derive every fragment from CuTe's atoms (tiled MMA, tiled copies).
//! 2. Let synthesis pick the swizzle for all the shared accesses, and prove the verdict.
//! 3. Assemble the kernel from the derived layouts (`tessel_kernels::mma::modes::BODY_SHARED`).
//! 4. Launch it over many problems and check every result against the CPU reference.

use std::process::ExitCode;

use tessel_kit::atom::{copy_atom, mma_atom};
use tessel_kit::bank::analyze;
use tessel_kit::kernels::Gpu;
use tessel_kit::kernels::kernel::{CType, Kernel, KernelBuilder, Param};
use tessel_kit::kernels::mma::modes::{BODY_SHARED, ModesKind, ModesPlan};
use tessel_kit::kernels::mma::{flat_tv, per_warp, ptx, starts, vec_copy};
use tessel_kit::synth::{Access, Options, synthesize};
use tessel_kit::tiled::{make_tiled_copy_a, make_tiled_copy_b, make_tiled_mma};
use tessel_kit::{ComposedLayout, Layout, composition};

type Res<T> = Result<T, Box<dyn std::error::Error>>;

/// Steps 1-3: the kernel for `problems` independent problems (one block of 512 threads each).
pub fn problem3_kernel(problems: u32) -> Res<Kernel> {
    // 1. The tile: A (and B) row-major in global and, before swizzling, in shared memory. The
    //    partitions below work on tile coordinates, column-major: (r, c) -> r + 16 c.
    let tile: Layout = "(16,256):(256,1)".parse()?;
    let coords: Layout = "(16,256):(1,16)".parse()?;
    // Row i as a 16x16 block: (r, c, i) -> i + 16 (16 r + c).
    let rows: Layout = "(16,16,16):(256,16,1)".parse()?;
    // One warp computes a 16x16x16 product: the SM80 atom, N permuted to 16 (two n8 blocks).
    let mma = make_tiled_mma(
        &mma_atom("SM80_16x8x16_F32F16F16F32_TN")?,
        &"1:0".parse()?,
        &[None, Some("16:1".parse()?)],
    )?;
    let ldsm = copy_atom("SM75_U32x4_LDSM_N")?.typed(16)?;
    let (copy_a, copy_b) = (
        make_tiled_copy_a(&ldsm, &mma)?,
        make_tiled_copy_b(&ldsm, &mma)?,
    );
    // (thread, (values, atoms), (warp...)) -> tile index, per operand and mode: in mode 1 the
    // 16 column blocks are the copy's rest mode, in mode 2 the 16 rows.
    let mode1 = [copy_a.tidfrg_s(&coords)?, copy_b.tidfrg_s(&coords)?];
    let mode2 = [copy_a.tidfrg_s(&rows)?, copy_b.tidfrg_s(&rows)?];
    println!("mode 1, A: {}", flat_tv(&mode1[0])?);
    println!("mode 2, A: {}", flat_tv(&mode2[0])?);
    // The 128-bit copies that fill the tile: 512 threads, one 16-byte chunk each.
    let fill = vec_copy(16, 256, 512)?.tidfrg_s(&coords)?;

    // 2. Synthesis over every shared access: the fill stores, both modes' ldmatrix reads.
    let op = "ldsm.x4".parse()?;
    let mut accesses = vec![Access::new("sts.128".parse()?, per_warp(&flat_tv(&fill)?)?)];
    for part in mode1.iter().chain(&mode2) {
        accesses.push(Access::new(op, flat_tv(part)?));
    }
    let found = synthesize(&tile, 2, &accesses, Options::default())?;
    let smem: ComposedLayout = found.layout.clone();
    println!("synthesized: {found}");
    for (a, plain) in accesses.iter().zip(&found.baseline) {
        let report = analyze(&smem, 2, a.op, &a.tv)?;
        println!("  {}: {report} (unswizzled: {plain})", a.op);
        if report.excess != 0 {
            return Err(format!("{} through {smem} conflicts: {report}", a.op).into());
        }
    }

    // 3. The kernel: every index a function of the layouts above.
    let c_tv = mma.layout_c_tv()?; // (thread, value) -> m + 16 n
    let c_tiles = Layout::from_modes([c_tv.mode(0)?, c_tv.mode(1)?, "16:256".parse()?])?;
    let c_out = composition(&"(16,16,16):(16,1,256)".parse()?, &c_tiles)?;
    let n = problems as usize * 4096;
    let mut b = KernelBuilder::new("mma_modes_swizzled", BODY_SHARED)
        .comment(&format!(
            "tessel-kernels mma modes: shared layouts {smem} / {smem}"
        ))
        .int("TILE", 4096)
        .int("NB", 2)
        .int("B_REGS", 2)
        .index_layout("fill_g", &composition(&tile, &starts(&fill)?)?)
        .composed_layout("fill_s", &smem.compose(&starts(&fill)?)?);
    for (name, part) in [
        ("ldsm_a1", &mode1[0]),
        ("ldsm_b1", &mode1[1]),
        ("ldsm_a2", &mode2[0]),
        ("ldsm_b2", &mode2[1]),
    ] {
        b = b.composed_layout(name, &smem.compose(&starts(part)?)?);
    }
    use ptx::Instruction::{Ldsm, Mma, MmaTile, StorePairs};
    b = ptx::with(b, &[Ldsm, Mma, MmaTile, StorePairs])?;
    Ok(b.coord_layout("c_out", &c_out)
        .param(Param::input("A", CType::B16.into()).len(n))
        .param(Param::input("B", CType::B16.into()).len(n))
        .param(Param::output("C1", CType::F32.into()).len(n))
        .param(Param::output("C2", CType::F32.into()).len(n))
        .threads(512)
        .grid(problems, 1, 1)
        .build()?)
}

fn run() -> Res<()> {
    if let Some(extra) = std::env::args().nth(1) {
        return Err(format!("this example takes no arguments, got '{extra}'").into());
    }
    let problems = 4096;
    let kernel = problem3_kernel(problems)?;
    println!(
        "kernel {}: {} lines of CUDA",
        kernel.name(),
        kernel.source().lines().count()
    );
    // 4. On a GPU: the library's runner uploads random A and B, launches the same kernel (the
    //    plan builds it from the same derivation), checks every C1 and C2 element within the
    //    fp32-accumulation bound of tessel_kernels::mma::host, then times it.
    let gpu = match Gpu::open(0) {
        Ok(gpu) => gpu,
        Err(e) => {
            println!("no GPU: {e}");
            return Ok(());
        }
    };
    let plan = tessel_kit::kernels::mma::run::MmaKernel::Modes(Box::new(ModesPlan::new(
        ModesKind::Shared,
        true,
        i64::from(problems),
    )?));
    let timing = plan.run(&gpu, Some((3, 20)))?.ok_or("no timing")?;
    println!(
        "{} verified on {}: {:.4} ms for {problems} problems",
        kernel.name(),
        gpu.describe(),
        timing.median_ms
    );
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
