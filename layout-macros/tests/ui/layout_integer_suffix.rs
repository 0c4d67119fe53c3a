// Layout integers are untyped: a type suffix is an error at the literal.
const L: tessel_kit::Layout = tessel_kit::layout!((16i64, 8):(1, 16));

fn main() {}
