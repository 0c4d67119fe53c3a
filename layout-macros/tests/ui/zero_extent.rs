const L: tessel_kit::Layout = tessel_kit::layout!((8,0):(1,8));

fn main() {}
