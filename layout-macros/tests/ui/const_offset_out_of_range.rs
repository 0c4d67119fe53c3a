// An index outside 0..size in a const item is a compile error, never a wrapped value.
static L: tessel_kit::Layout = tessel_kit::layout!((4,8):(8,1));
const AT: i64 = L.const_offset(32);

fn main() {
    let _ = AT;
}
