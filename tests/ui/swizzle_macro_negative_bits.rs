const S: tessel::Swizzle = tessel::swizzle!(-1, 3, 3);

fn main() {}
