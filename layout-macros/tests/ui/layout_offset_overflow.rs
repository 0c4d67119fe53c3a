// Index 1 maps to 2^63: refused at compile time, as `tessel eval` refuses it.
const L: tessel_kit::ComposedLayout = tessel_kit::layout!(9223372036854775807 o 2:1);

fn main() {}
