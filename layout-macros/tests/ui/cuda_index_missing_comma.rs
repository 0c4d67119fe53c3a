const SRC: &str = tessel_kit::cuda_index!(f (8,64):(64,1));

fn main() {}
