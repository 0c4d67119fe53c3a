const L: tessel::constant::ConstLayout = tessel::layout!((8;64):(64,1));

fn main() {}
