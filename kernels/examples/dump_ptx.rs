//! Prints a generated kernel's CUDA source and its sm_90 PTX: `dump_ptx KIND DTYPE M N`
//! (KIND: copy naive_read naive_write smem padded swizzled vec128; DTYPE: f32 f16; every argument
//! optional, in that order: vec128 f32 8192 8192). Needs NVRTC, no GPU. A bad argument or a
//! failed compilation exits with status 1 and one `error:` line on stderr.

use std::process::ExitCode;

use tessel_kernels::tiled::{TiledKind, TiledPlan};
use tessel_kernels::{Arch, Element};

type Res<T> = Result<T, Box<dyn std::error::Error>>;

fn kind(name: &str) -> Res<TiledKind> {
    Ok(match name {
        "copy" => TiledKind::Copy,
        "naive_read" => TiledKind::NaiveRead,
        "naive_write" => TiledKind::NaiveWrite,
        "smem" => TiledKind::Smem,
        "padded" => TiledKind::Padded,
        "swizzled" => TiledKind::Swizzled,
        "vec128" => TiledKind::Vectorized,
        other => {
            return Err(format!(
                "unknown KIND '{other}' (copy naive_read naive_write smem padded swizzled vec128)"
            )
            .into());
        }
    })
}

fn extent(what: &str, text: Option<&String>) -> Res<i64> {
    match text {
        None => Ok(8192),
        Some(t) => t
            .parse()
            .map_err(|_| format!("{what} must be an integer, got '{t}'").into()),
    }
}

fn run() -> Res<()> {
    let a: Vec<String> = std::env::args().skip(1).collect();
    if a.len() > 4 {
        return Err(format!("expected at most KIND DTYPE M N, got {} arguments", a.len()).into());
    }
    let kind = kind(a.first().map_or("vec128", String::as_str))?;
    let dtype: Element = a.get(1).map_or("f32", String::as_str).parse()?;
    let (m, n) = (extent("M", a.get(2))?, extent("N", a.get(3))?);
    let plan = TiledPlan::new(kind, dtype, m, n)?;
    let src = plan.source()?;
    let ptx = tessel_kernels::compile::compile_ptx(&src, &plan.kernel_name(), Arch::new(9, 0)?)?;
    println!("{src}");
    println!("{}", ptx.to_src());
    Ok(())
}

fn main() -> ExitCode {
    match run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {}", e.to_string().replace('\n', " "));
            ExitCode::FAILURE
        }
    }
}
