const L: tessel::Layout = tessel::layout!((8,64):(ld,1));

fn main() {}
