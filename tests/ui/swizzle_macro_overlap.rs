const S: tessel::constant::ConstSwizzle = tessel::swizzle!(3, 3, 1);

fn main() {}
