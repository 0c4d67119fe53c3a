const S: tessel_kit::Swizzle = tessel_kit::swizzle!(3, 3, 1);

fn main() {}
