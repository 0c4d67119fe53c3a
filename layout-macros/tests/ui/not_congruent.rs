const L: tessel_kit::Layout = tessel_kit::layout!((8,(2,4)):(1,64));

fn main() {}
