const S: tessel::constant::ConstSwizzle = tessel::swizzle!(-1, 3, 3);

fn main() {}
