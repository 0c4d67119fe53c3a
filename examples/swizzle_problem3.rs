//! Problem 3 of the tensor-core swizzle problems, from layout declaration to launch: two 16x256
//! fp16 matrices `A`, `B` in shared memory, read by 16 warps in two modes —
//! `C1_j = Asub_j * Bsub_j^T` for the 16x16 column blocks `j`, and `C2_i = Asub_i * Bsub_i^T`
//! for each row `i` viewed as a 16x16 block — with one swizzle that keeps both modes free of
//! bank conflicts. `cargo run --example swizzle_problem3`.
//!
//! 1. Declare the tile and derive every fragment from CuTe's atoms (tiled MMA, tiled copies).
//! 2. Let synthesis pick the swizzle for all the shared accesses, and prove the verdict.
//! 3. Declare the kernel in the tensor layer over the swizzled tile (every partition checked on
//!    the host, every `ldmatrix` checked against the MMA's registers) and assemble it with the
//!    body `tessel_kernels::mma::modes::BODY_SHARED`, written with `tessel::copy` and
//!    `tessel::gemm`.
//! 4. Launch it over many problems and check every result against the CPU reference.

use tessel_kit::atom::{copy_atom, mma_atom};
use tessel_kit::bank::analyze;
use tessel_kit::kernels::Gpu;
use tessel_kit::kernels::kernel::{CType, Kernel, KernelBuilder, Param};
use tessel_kit::kernels::layer::{DeviceCopy, DeviceMma, DeviceTensor};
use tessel_kit::kernels::mma::modes::{BODY_SHARED, ModesKind, ModesPlan};
use tessel_kit::kernels::mma::{flat_tv, per_warp, vec_copy};
use tessel_kit::synth::{Access, Options, synthesize};
use tessel_kit::tiled::{make_tiled_copy_a, make_tiled_copy_b, make_tiled_copy_c, make_tiled_mma};
use tessel_kit::{ComposedLayout, Layout};

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
    let chunk = vec_copy(16, 256, 512)?;
    let fill = chunk.tidfrg_s(&coords)?;

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

    // 3. The kernel in the tensor layer. The tiled MMA and the ldmatrix copies feeding its
    //    fragments, checked register by register (a copy that fills the wrong registers is an
    //    error here, not a wrong answer on the GPU).
    let mma = DeviceMma::new("mma", mma);
    let (ldsm_a, ldsm_b) = (
        DeviceCopy::new("ldsm_a", copy_a),
        DeviceCopy::new("ldsm_b", copy_b),
    );
    let frag_a = mma.partition_fragment('A', &[16, 16], CType::B16)?;
    let frag_b = mma.partition_fragment('B', &[16, 16], CType::B16)?;
    let acc = mma.partition_fragment('C', &[16, 16], CType::F32)?;
    let (view_a, view_b) = (ldsm_a.retile_d(&frag_a)?, ldsm_b.retile_d(&frag_b)?);
    mma.check_fed_by('A', &ldsm_a, &[16, 16], &view_a, &frag_a)?;
    mma.check_fed_by('B', &ldsm_b, &[16, 16], &view_b, &frag_b)?;
    //    The tensors: A and B in global memory, in the swizzled shared tile (16-byte chunks), the
    //    16x16 column blocks (mode 1) and the rows as 16x16 blocks (mode 2) partitioned by the
    //    ldmatrix copies, and each warp's 16x16 tile of C1 and C2 partitioned by a copy of the
    //    accumulators in fp32 pairs (make_tiled_copy_C of a 64-bit UniversalCopy).
    let chunk = DeviceCopy::new("chunk", chunk);
    let tile_g = chunk.partition_s(&DeviceTensor::global(CType::B16, tile))?;
    let shared = DeviceTensor::shared(CType::B16, smem.clone());
    let by_rows = DeviceTensor::shared(CType::B16, smem.compose(&rows)?);
    let store_c = DeviceCopy::new(
        "store_c",
        make_tiled_copy_c(
            &copy_atom("UniversalCopy<uint64_t>")?.typed(32)?,
            mma.tiled(),
        )?,
    );
    let c_tiles = DeviceTensor::global(CType::F32, "(16,16,16):(16,1,256)".parse()?);
    let n = problems as usize * 4096;
    Ok(KernelBuilder::new("mma_modes_swizzled", BODY_SHARED)
        .tiled_mma(&mma)
        .tiled_copy(&ldsm_a)
        .tiled_copy(&ldsm_b)
        .tensor("frag_a", &frag_a)
        .tensor("frag_b", &frag_b)
        .tensor("acc", &acc)
        .tensor("view_a", &view_a)
        .tensor("view_b", &view_b)
        .comment(&format!(
            "tessel-kernels mma modes: shared layouts {smem} / {smem}"
        ))
        .int("TILE", 4096)
        .tiled_copy(&chunk)
        .tiled_copy(&store_c)
        .tensor("tile_g", &tile_g)
        .tensor("regs", &tile_g.fragment_like(1..5)?)
        .tensor("a1", &ldsm_a.partition_s(&shared.local_tile(&[16, 16])?)?)
        .tensor("b1", &ldsm_b.partition_s(&shared.local_tile(&[16, 16])?)?)
        .tensor("a2", &ldsm_a.partition_s(&by_rows)?)
        .tensor("b2", &ldsm_b.partition_s(&by_rows)?)
        .tensor("view_c", &store_c.retile_s(&acc)?)
        .tensor("c_g", &store_c.partition_d(&c_tiles)?)
        .tensor("tile_s", &chunk.partition_s(&shared)?)
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

fn main() -> std::process::ExitCode {
    match run() {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {}", e.to_string().replace('\n', " "));
            std::process::ExitCode::FAILURE
        }
    }
}
