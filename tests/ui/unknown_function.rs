const L: tessel::Layout = tessel::layout!(logical_divde((8,8), 2:1));

fn main() {}
