// CUTLASS issue 3177: CuTe returns a wrong layout here; tessel rejects it.
const L: tessel_kit::Layout = tessel_kit::layout!(logical_divide(composition((4,6,8):(2,3,5), 6:3), 2:1));

fn main() {}
