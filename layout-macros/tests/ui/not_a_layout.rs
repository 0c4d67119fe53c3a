const L: tessel_kit::Layout = tessel_kit::layout!(is_bijective((4,8):(1,4)));

fn main() {}
