const L: tessel::Layout = tessel::layout!((8,0):(1,8));

fn main() {}
