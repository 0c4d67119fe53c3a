const L: tessel::Layout = tessel::layout!((1099511627776,1099511627776):(1,1));

fn main() {}
