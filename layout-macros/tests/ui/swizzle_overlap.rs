const L: tessel_kit::ComposedLayout = tessel_kit::layout!(Sw<3,3,2> o (8,64):(64,1));

fn main() {}
