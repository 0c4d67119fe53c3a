const L: tessel::Layout = tessel::layout!(is_bijective((4,8):(1,4)));

fn main() {}
