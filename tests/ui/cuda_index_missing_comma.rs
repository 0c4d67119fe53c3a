const SRC: &str = tessel::cuda_index!(f (8,64):(64,1));

fn main() {}
