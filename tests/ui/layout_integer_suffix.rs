// Layout integers are untyped: a type suffix is an error at the literal.
const L: tessel::Layout = tessel::layout!((16i64, 8):(1, 16));

fn main() {}
