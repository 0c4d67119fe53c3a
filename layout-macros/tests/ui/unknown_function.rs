const L: tessel_kit::Layout = tessel_kit::layout!(logical_divde((8,8), 2:1));

fn main() {}
