//! `cargo run --release -p tessel-kernels --example bench -- [args of tessel bench]`.
fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    std::process::exit(tessel_kernels::bench::main_with_args(&args));
}
