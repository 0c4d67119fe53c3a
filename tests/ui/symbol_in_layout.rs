const L: tessel::constant::ConstLayout = tessel::layout!((8,64):(ld,1));

fn main() {}
