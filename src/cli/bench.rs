//! `tessel bench`: the GPU benchmarks of tessel-kernels (all logic lives in
//! `tessel_kernels::bench`; this file only adapts it to the command table).

use std::io::Write;

use tessel::{Error, Result};

use super::Command;

pub const COMMAND: Command = Command {
    name: "bench",
    usage: "[copy|transpose|conflicts|all|gemm] [--size N|RxC] [--dtype f32|f16] [--json] [--repeats K] [--raster G] [--min-blocks B] [--profile]",
    summary: "verify and time the GPU kernels against cudaMemcpy device-to-device",
    help: "Runs the tiled copy, the transpose ladder and the bank-conflict microkernels on GPU 0.\n\
        Each kernel is first checked element by element against a CPU reference (random\n\
        non-zero input, poisoned output), then timed with CUDA events (median of --repeats,\n\
        default 30) next to cuMemcpyDtoD on the same buffers: the table gives time, effective\n\
        GB/s (bytes read + written) and the ratio to memcpy. Default sizes 8192^2 and 16384^2,\n\
        both dtypes. --profile launches each kernel once, untimed, and prints the bank-model\n\
        predictions (for scripts/ncu_conflicts.sh). `gemm` verifies the tensor-core GEMM against\n\
        the CPU and cuBLAS and times both (default 4096^3 and 8192^3; --size N runs N^3).\n\
        Without a GPU it says so and exits 0.",
    run,
};

fn run(args: &[String], out: &mut dyn Write) -> Result<()> {
    let parsed = tessel_kernels::bench::parse_args(args).map_err(Error::invalid)?;
    let stderr = std::io::stderr();
    tessel_kernels::bench::run(&parsed, out, &mut stderr.lock())
        .map_err(|e| Error::invalid(e.to_string()))
}
