const S: tessel::Swizzle = tessel::swizzle!(3, 3, 1);

fn main() {}
