const SRC: &str = tessel_kit::cuda_index!(int, 8:1);

fn main() {}
