//! A CUDA kernel whose index math is generated at compile time by tessel's macros.
//!
//! `layout!` checks a layout while the crate compiles (a malformed or inadmissible layout is a
//! compile error), and `cuda_index!` turns a layout into a `__device__` function. The kernel
//! source below is a `&'static str` assembled by `concat!`, ready for NVRTC (see
//! `tessel-kernels` for compiling and launching).
//!
//! Run with `cargo run --example kernel_source`.

use std::process::ExitCode;

use tessel_kit::ComposedLayout;
use tessel_kit::{cuda_index, layout};

/// The swizzled 8x64 fp16 shared-memory tile, evaluated at compile time.
static SMEM: ComposedLayout = layout!(Sw<3,3,3> o (8,64):(64,1));

/// Loads an 8x64 tile of a row-major matrix with run-time leading dimension `ld` into the
/// swizzled shared-memory tile, one element per thread.
const KERNEL: &str = concat!(
    cuda_index!(smem_off, Sw<3,3,3> o (8,64):(64,1)),
    cuda_index!(gmem_off, (8,64):(ld,1)),
    "extern \"C\" __global__ void load_tile(const unsigned short* g, unsigned short* out, long long ld) {\n",
    "  __shared__ unsigned short s[512];\n",
    "  for (long long i = threadIdx.x; i < 512; i += blockDim.x) s[smem_off(i)] = g[gmem_off(i, ld)];\n",
    "  __syncthreads();\n",
    "  for (long long i = threadIdx.x; i < 512; i += blockDim.x) out[i] = s[smem_off(i)];\n",
    "}\n",
);

/// The offset of coordinate (7,63), computed by the compiler (docs/semantics.md: 455).
const LAST: i64 = SMEM.const_offset(7 + 8 * 63);

fn run() -> Result<(), Box<dyn std::error::Error>> {
    if let Some(extra) = std::env::args().nth(1) {
        return Err(format!("this example takes no arguments, got '{extra}'").into());
    }
    println!("Sw<3,3,3> o (8,64):(64,1) maps (7,63) to {LAST}");
    println!("{KERNEL}");
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
