//! Prints a generated kernel's CUDA source and its sm_90 PTX: `dump_ptx KIND DTYPE M N`
//! (KIND: copy naive_read naive_write smem padded swizzled vec128).
use tessel_kernels::tiled::{TiledKind, TiledPlan};
use tessel_kernels::{Arch, DType};

fn main() {
    let a: Vec<String> = std::env::args().skip(1).collect();
    let kind = match a.first().map(String::as_str) {
        Some("copy") => TiledKind::Copy,
        Some("naive_read") => TiledKind::NaiveRead,
        Some("naive_write") => TiledKind::NaiveWrite,
        Some("smem") => TiledKind::Smem,
        Some("padded") => TiledKind::Padded,
        Some("swizzled") => TiledKind::Swizzled,
        _ => TiledKind::Vectorized,
    };
    let dtype: DType = a
        .get(1)
        .map_or("f32", String::as_str)
        .parse()
        .unwrap_or(DType::F32);
    let m = a.get(2).and_then(|s| s.parse().ok()).unwrap_or(8192);
    let n = a.get(3).and_then(|s| s.parse().ok()).unwrap_or(8192);
    let plan = match TiledPlan::new(kind, dtype, m, n) {
        Ok(p) => p,
        Err(e) => {
            eprintln!("error: {e}");
            std::process::exit(2);
        }
    };
    let src = plan.source().unwrap_or_default();
    println!("{src}");
    let ptx = Arch::new(9, 0)
        .and_then(|arch| tessel_kernels::compile::compile_ptx(&src, &plan.kernel_name(), arch));
    match ptx {
        Ok(ptx) => println!("{}", ptx.to_src()),
        Err(e) => eprintln!("error: {e}"),
    }
}
