const S: tessel_kit::Swizzle = tessel_kit::swizzle!(-1, 3, 3);

fn main() {}
