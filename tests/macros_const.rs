//! The macros in `const`/`static` context, compared with the run-time algebra: the macros
//! build tessel's own `Layout`, `ComposedLayout` and `Swizzle` values in static storage, and
//! their `const fn`s agree with the run-time methods.

use tessel::{ComposedLayout, IntTuple, Layout, Modes, Swizzle, cuda_index, layout, swizzle};

static NESTED: Layout = layout!((8,(2,4)):(1,(64,8)));
static SWIZZLED: ComposedLayout = layout!(Sw<3,3,3> o (8,64):(64,1));
static CHAIN: ComposedLayout = layout!(Sw<2,0,2> o Sw<1,4,-1> o 32 o (16,4):(4,1));
static COL_MAJOR: Layout = layout!((4, 8));
static NEGATIVE: Layout = layout!((4,3):(-1,-4));
const SW: Swizzle = swizzle!(3, 4, 3);
const SW_NEG: Swizzle = swizzle!(2, 0, -3);
// Evaluated by the compiler:
const AT_1_0: i64 = SWIZZLED.const_offset(1);
const AT_7_63: i64 = SWIZZLED.const_offset(7 + 63 * 8);
const NESTED_SIZE: i64 = NESTED.size();
const SW_AT_72: i64 = SW.apply(72 << 1);

/// The const evaluation of every index equals the run-time evaluation, which computes
/// offsets by its own (non-const) code.
fn same_offsets(c: &ComposedLayout) {
    for i in 0..c.size() {
        assert_eq!(
            c.checked_offset(i),
            Some(c.offset(i).unwrap()),
            "index {i} of {c}"
        );
    }
}

/// A `const` (not `static`) macro value is an ordinary value at run time.
const AS_VALUE: Layout = layout!((2,3):(3,1));

#[test]
fn a_const_item_is_a_plain_value() {
    let l = AS_VALUE;
    assert_eq!(l, "(2,3):(3,1)".parse::<Layout>().unwrap());
    assert_eq!(l.offsets(), vec![0, 3, 1, 4, 2, 5]);
    // The algebra takes it like any other layout.
    assert_eq!(
        tessel::coalesce(&NESTED).unwrap().to_string(),
        "(8,2,4):(1,64,8)"
    );
}

#[test]
fn const_values_are_the_published_ones() {
    // docs/semantics.md: Sw<3,3,3> o (8,64):(64,1) maps (1,0) -> 72, (7,63) -> 455.
    assert_eq!((AT_1_0, AT_7_63), (72, 455));
    assert_eq!(NESTED_SIZE, 64);
    // Sw<3,4,3> moves bits 7..9 onto bits 4..6: 144 has bit 7 set, so bit 4 flips.
    assert_eq!(SW_AT_72, 144 ^ 16);
}

#[test]
fn const_layouts_round_trip_to_the_runtime_types() {
    assert_eq!(NESTED, "(8,(2,4)):(1,(64,8))".parse::<Layout>().unwrap());
    assert_eq!(COL_MAJOR.to_string(), "(4,8):(1,4)");
    assert_eq!(NEGATIVE.to_string(), "(4,3):(-1,-4)");
    assert_eq!(SWIZZLED.to_string(), "Sw<3,3,3> o (8,64):(64,1)");
    assert_eq!(
        CHAIN.to_string(),
        "Sw<2,0,2> o Sw<1,4,-1> o 32 o (16,4):(4,1)"
    );
    assert_eq!(SW, Swizzle::new(3, 4, 3).unwrap());
    assert_eq!(SW_NEG.to_string(), "Sw<2,0,-3>");
}

#[test]
fn const_offsets_match_the_runtime_algebra() {
    for c in [&SWIZZLED, &CHAIN] {
        same_offsets(c);
    }
    for l in [&NESTED, &COL_MAJOR, &NEGATIVE] {
        same_offsets(&ComposedLayout::from_layout(l.clone()));
        for i in 0..l.size() {
            assert_eq!(l.checked_offset(i), Some(l.offset(i).unwrap()));
        }
    }
    // The swizzle's definition: XOR the bits [M+S, M+S+B) onto [M, M+B) (S > 0), or the other
    // way for S < 0.
    for x in 0..4096i64 {
        assert_eq!(SW.apply(x), x ^ (((x >> 7) & 7) << 4));
        assert_eq!(SW_NEG.apply(x), x ^ ((x & 3) << 3));
    }
}

#[test]
fn macros_work_in_expression_position() {
    let l = layout!((2,2):(2,1));
    assert_eq!(l.offset(1).unwrap(), 2);
    let sw = swizzle!(1, 0, 1);
    assert_eq!(sw.apply(2), 3);
}

/// A kernel source assembled from macros at compile time.
const KERNEL: &str = concat!(
    cuda_index!(smem_off, Sw<3,3,3> o (8,64):(64,1)),
    cuda_index!(gmem_off, (128,64):(ld,1)),
    "extern \"C\" __global__ void copy(const unsigned short* g, long long ld) {\n",
    "  __shared__ unsigned short s[512];\n",
    "  long long i = threadIdx.x;\n",
    "  s[smem_off(i)] = g[gmem_off(i, ld)];\n",
    "}\n",
);

#[test]
fn cuda_index_is_the_shared_emitter() {
    let runtime = tessel::codegen::index_function(
        "smem_off",
        "Sw<3,3,3> o (8,64):(64,1)"
            .parse::<tessel::codegen::SymComposedLayout>()
            .unwrap(),
        &tessel::codegen::EmitOptions::default(),
    )
    .unwrap();
    assert_eq!(cuda_index!(smem_off, Sw<3,3,3> o (8,64):(64,1)), runtime);
    assert!(KERNEL.starts_with(&runtime));
    assert!(KERNEL.contains("TESSEL_FN long long gmem_off(long long i, long long ld) {"));
    assert!(KERNEL.contains("__global__ void copy"));
}

// Algebra calls evaluated at compile time (reference values of docs/semantics.md).
const DIVIDED: Layout = layout!(logical_divide((4,2,3):(2,1,8), 4:2));
const COMPOSED: Layout = layout!((6,2):(8,2) o (4,3):(3,1));
const BLOCKED: Layout = layout!(blocked_product((2,5):(5,1), (3,4):(1,3)));
const TILED: Layout = layout!(logical_divide((128,64):(64,1), [16:1, 16:1]));

#[test]
fn algebra_calls_are_evaluated_at_compile_time() {
    assert_eq!(DIVIDED.to_string(), "((2,2),(2,3)):((4,1),(2,8))");
    assert_eq!(COMPOSED.to_string(), "((2,2),3):((24,2),8)");
    assert_eq!(BLOCKED.to_string(), "((2,3),(5,4)):((5,10),(1,30))");
    assert_eq!(TILED.size(), 8192);
    assert_eq!(
        TILED.to_string(),
        tessel::expr::eval("logical_divide((128,64):(64,1), [16:1, 16:1])")
            .unwrap()
            .to_string()
    );
    assert!(
        cuda_index!(tiles, logical_divide((128,64):(64,1), [16:1, 16:1])).contains("tiles_crd")
    );
}

// Integer literals are read by their value, in any base Rust allows.
const HEX: Layout = layout!((0x10, 1_000):(0b1, 0o20));
const HEX_SW: ComposedLayout = layout!(Sw<0x3,0b11,3> o 0x20 o (8,64):(0x40,1));
const HEX_SW_FN: Swizzle = swizzle!(0x3, 0b100, 0o3);

#[test]
fn integer_literals_mean_their_value_in_any_base() {
    assert_eq!(HEX.to_string(), "(16,1000):(1,16)");
    assert_eq!(HEX_SW.to_string(), "Sw<3,3,3> o 32 o (8,64):(64,1)");
    assert_eq!(HEX_SW_FN.to_string(), "Sw<3,4,3>");
    assert_eq!(
        cuda_index!(f, (0x10, 8):(1, 0x10)),
        cuda_index!(f, (16, 8):(1, 16))
    );
}

// Exactly tessel::expr::MAX_DEPTH (64) nested groups: accepted.
static DEEPEST: Layout = layout!(((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((4)))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))):((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((1)))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))));

#[test]
fn nesting_up_to_the_depth_limit_is_accepted() {
    assert_eq!(tessel::expr::MAX_DEPTH, 64);
    assert_eq!(DEEPEST.size(), 4);
    assert_eq!(DEEPEST.const_offset(3), 3);
    assert_eq!(DEEPEST.offset(3).unwrap(), 3);
}

// The largest base offset that keeps every offset in i64 (one more is a compile error, see
// tests/ui/layout_offset_overflow.rs).
static EDGE: ComposedLayout = layout!(9223372036854775806 o 2:1);
const EDGE_LAST: i64 = EDGE.const_offset(1);
static MIN_EDGE: Layout = layout!((2,2):(-4611686018427387904,-4611686018427387904));

#[test]
fn const_offsets_are_exact_at_the_i64_limits_and_checked_elsewhere() {
    assert_eq!(EDGE_LAST, i64::MAX);
    assert_eq!(MIN_EDGE.const_offset(3), i64::MIN);
    same_offsets(&EDGE);
    // Out of range: None from checked_offset, a panic (not a wrapped value) from const_offset.
    for l in [&NESTED, &NEGATIVE, &MIN_EDGE] {
        assert_eq!(l.checked_offset(l.size()), None);
        assert_eq!(l.checked_offset(-1), None);
        assert!(std::panic::catch_unwind(|| l.const_offset(l.size())).is_err());
    }
    assert_eq!(EDGE.checked_offset(2), None);
    assert_eq!(SWIZZLED.checked_offset(512), None);
}

/// A hand-built compile-time flat tuple of two leaves.
fn pair(leaves: &'static [i64; 2]) -> IntTuple {
    IntTuple::Tuple(Modes::from_static(&[0, 0], leaves))
}

#[test]
fn hand_built_const_values_are_checked_like_runtime_ones() {
    // What the macros would refuse panics in the const constructors (a compile error in a
    // const item), with the condition Layout::new names.
    let zero_extent = || Layout::from_const(pair(&[4, 0]), pair(&[1, 4]));
    assert!(std::panic::catch_unwind(zero_extent).is_err());
    let not_congruent = || Layout::from_const(pair(&[4, 8]), IntTuple::Int(1));
    assert!(std::panic::catch_unwind(not_congruent).is_err());
    // 3:i64::MAX reaches 2 * i64::MAX.
    let far = || Layout::from_const(IntTuple::Int(3), IntTuple::Int(i64::MAX));
    assert!(std::panic::catch_unwind(far).is_err());
    assert!(Layout::new(IntTuple::Int(3), IntTuple::Int(i64::MAX)).is_err());
    let edge = Layout::from_const(IntTuple::Int(2), IntTuple::Int(i64::MAX - 1));
    assert_eq!(edge.checked_offset(1), Some(i64::MAX - 1));
    // An offset that pushes a value past i64.
    let over = || {
        ComposedLayout::from_const(
            &[],
            i64::MAX,
            Layout::from_const(IntTuple::Int(2), IntTuple::Int(1)),
        )
    };
    assert!(std::panic::catch_unwind(over).is_err());
    assert!(
        "9223372036854775807 o 2:1"
            .parse::<ComposedLayout>()
            .is_err()
    );
    let bad_sw = || Swizzle::from_const(3, 0, 1);
    assert!(std::panic::catch_unwind(bad_sw).is_err());
    assert!(Swizzle::new(3, 0, 1).is_err());
}

/// CuTe prints static integers as `_4` (`media/docs/cpp/cute/01_layout.md`, CUTLASS v4.2.1):
/// its printed layouts are macro input as they are, a compile-time layout being static anyway.
static PRINTED_BY_CUTE: Layout = layout!((_2,_4):(_1,_2));
const CUTE_SRC: &str = cuda_index!(tile_off, (_128,_64):(ld,_1));

#[test]
fn static_integers_are_macro_input() {
    assert_eq!(PRINTED_BY_CUTE, "(2,4):(1,2)".parse::<Layout>().unwrap());
    assert!(
        CUTE_SRC.contains("TESSEL_FN long long tile_off(long long i, long long ld)"),
        "{CUTE_SRC}"
    );
}
