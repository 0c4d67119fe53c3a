const L: tessel_kit::Layout = tessel_kit::layout!((1099511627776,1099511627776):(1,1));

fn main() {}
