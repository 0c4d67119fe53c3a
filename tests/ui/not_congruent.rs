const L: tessel::Layout = tessel::layout!((8,(2,4)):(1,64));

fn main() {}
