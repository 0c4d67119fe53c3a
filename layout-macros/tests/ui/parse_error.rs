const L: tessel_kit::Layout = tessel_kit::layout!((8;64):(64,1));

fn main() {}
