const L: tessel::Layout = tessel::layout!((8;64):(64,1));

fn main() {}
