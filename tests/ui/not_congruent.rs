const L: tessel::constant::ConstLayout = tessel::layout!((8,(2,4)):(1,64));

fn main() {}
