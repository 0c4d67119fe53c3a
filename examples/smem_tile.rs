//! Designing a shared-memory tile with tessel: from a plain layout to a verified, conflict-free,
//! swizzled layout and the CUDA index math for it.
//!
//! The tile is 8 rows x 64 fp16 columns, stored row-major (128 bytes per row), and read with
//! `ldmatrix.x1`: lane `l` supplies row `l` of an 8x8 matrix, i.e. the 16 bytes at columns 0..8 of
//! row `l`. Without a swizzle all eight rows start in bank 0.
//!
//! Run with `cargo run --example smem_tile`.

use std::process::ExitCode;

use tessel_kit::bank::{SmemOp, analyze};
use tessel_kit::codegen::{EmitOptions, index_function};
use tessel_kit::synth::{Access, Options, synthesize};
use tessel_kit::{Layout, verify};

fn run() -> Result<(), Box<dyn std::error::Error>> {
    if let Some(extra) = std::env::args().nth(1) {
        return Err(format!("this example takes no arguments, got '{extra}'").into());
    }
    // Domain index i = r + 8c (colexicographic), offset 64r + c.
    let tile: Layout = "(8,64):(64,1)".parse()?;
    // (lane, value) -> domain index: lane = row (stride 1), value = column (stride 8).
    let rows: Layout = "(8,8):(1,8)".parse()?;
    let ldsm: SmemOp = "ldsm.x1".parse()?;

    let plain = analyze(&tile, 2, ldsm, &rows)?;
    println!("{tile}: ldmatrix.x1 takes {plain}");

    // Let tessel find a swizzle that makes the access conflict-free, and prove it.
    let found = synthesize(
        &tile,
        2,
        &[Access::new(ldsm, rows.clone())],
        Options::default(),
    )?;
    let swizzled = found.layout;
    println!("synthesised {swizzled}: {}", found.reports[0]);
    println!(
        "bijective onto 0..512: {}",
        verify::is_bijective(&swizzled)?
    );

    // CuTe's fp16 128-byte swizzle Sw<3,3,3> solves it too (docs/semantics.md: (7,63) -> 455).
    let cute: tessel_kit::ComposedLayout = "Sw<3,3,3> o (8,64):(64,1)".parse()?;
    println!(
        "{cute}: ldmatrix.x1 takes {}",
        analyze(&cute, 2, ldsm, &rows)?
    );
    println!("{cute} at (7,63) = {}", cute.offset(7 + 8 * 63)?);

    // The index math a kernel would use, from the same layout.
    println!(
        "{}",
        index_function("smem_off", cute, &EmitOptions::default())?
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
