const SRC: &str = tessel::cuda_index!(int, 8:1);

fn main() {}
