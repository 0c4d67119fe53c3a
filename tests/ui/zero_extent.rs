const L: tessel::constant::ConstLayout = tessel::layout!((8,0):(1,8));

fn main() {}
