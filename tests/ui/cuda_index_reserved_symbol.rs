const SRC: &str = tessel::cuda_index!(f, (8,64):(u,1));

fn main() {}
