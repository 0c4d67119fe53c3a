//! The macros in `const`/`static` context, compared with the run-time algebra.

use tessel::constant::{ConstComposedLayout, ConstLayout, ConstSwizzle};
use tessel::{ComposedLayout, Layout, cuda_index, layout, swizzle};

const NESTED: ConstLayout = layout!((8,(2,4)):(1,(64,8)));
static SWIZZLED: ConstComposedLayout = layout!(Sw<3,3,3> o (8,64):(64,1));
const CHAIN: ConstComposedLayout = layout!(Sw<2,0,2> o Sw<1,4,-1> o 32 o (16,4):(4,1));
const COL_MAJOR: ConstLayout = layout!((4, 8));
const NEGATIVE: ConstLayout = layout!((4,3):(-1,-4));
const SW: ConstSwizzle = swizzle!(3, 4, 3);
const SW_NEG: ConstSwizzle = swizzle!(2, 0, -3);
// Evaluated by the compiler:
const AT_1_0: i64 = SWIZZLED.offset(1);
const AT_7_63: i64 = SWIZZLED.offset(7 + 63 * 8);
const NESTED_SIZE: i64 = NESTED.size();

/// Every offset of a const layout equals the run-time layout's.
fn same_offsets(c: &ConstComposedLayout, r: &ComposedLayout) {
    assert_eq!(c.size(), r.size());
    for i in 0..r.size() {
        assert_eq!(c.offset(i), r.offset(i).unwrap(), "index {i} of {r}");
    }
}

#[test]
fn const_values_are_the_published_ones() {
    // docs/semantics.md: Sw<3,3,3> o (8,64):(64,1) maps (1,0) -> 72, (7,63) -> 455.
    assert_eq!((AT_1_0, AT_7_63), (72, 455));
    assert_eq!(NESTED_SIZE, 64);
}

#[test]
fn const_layouts_round_trip_to_the_runtime_types() {
    assert_eq!(
        NESTED.to_layout().unwrap(),
        "(8,(2,4)):(1,(64,8))".parse::<Layout>().unwrap()
    );
    assert_eq!(COL_MAJOR.to_layout().unwrap().to_string(), "(4,8):(1,4)");
    assert_eq!(NEGATIVE.to_string(), "(4,3):(-1,-4)");
    assert_eq!(SWIZZLED.to_string(), "Sw<3,3,3> o (8,64):(64,1)");
    assert_eq!(
        CHAIN.to_string(),
        "Sw<2,0,2> o Sw<1,4,-1> o 32 o (16,4):(4,1)"
    );
    assert_eq!(SW.to_swizzle().unwrap().to_string(), "Sw<3,4,3>");
    assert_eq!(SW_NEG.to_string(), "Sw<2,0,-3>");
}

#[test]
fn const_offsets_match_the_runtime_algebra() {
    for c in [SWIZZLED, CHAIN] {
        same_offsets(&c, &c.to_composed().unwrap());
    }
    for l in [NESTED, COL_MAJOR, NEGATIVE] {
        let r = l.to_layout().unwrap();
        for i in 0..r.size() {
            assert_eq!(l.offset(i), r.offset(i).unwrap());
        }
    }
    let sw = SW.to_swizzle().unwrap();
    for x in 0..4096 {
        assert_eq!(SW.apply(x), sw.apply(x));
        assert_eq!(SW_NEG.apply(x), SW_NEG.to_swizzle().unwrap().apply(x));
    }
}

#[test]
fn macros_work_in_expression_position() {
    let l = layout!((2,2):(2,1));
    assert_eq!(l.offset(1), 2);
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
const DIVIDED: ConstLayout = layout!(logical_divide((4,2,3):(2,1,8), 4:2));
const COMPOSED: ConstLayout = layout!((6,2):(8,2) o (4,3):(3,1));
const BLOCKED: ConstLayout = layout!(blocked_product((2,5):(5,1), (3,4):(1,3)));
const TILED: ConstLayout = layout!(logical_divide((128,64):(64,1), [16:1, 16:1]));

#[test]
fn algebra_calls_are_evaluated_at_compile_time() {
    assert_eq!(DIVIDED.to_string(), "((2,2),(2,3)):((4,1),(2,8))");
    assert_eq!(COMPOSED.to_string(), "((2,2),3):((24,2),8)");
    assert_eq!(BLOCKED.to_string(), "((2,3),(5,4)):((5,10),(1,30))");
    assert_eq!(TILED.size(), 8192);
    assert_eq!(
        TILED.to_layout().unwrap().to_string(),
        tessel::expr::eval("logical_divide((128,64):(64,1), [16:1, 16:1])")
            .unwrap()
            .to_string()
    );
    assert!(
        cuda_index!(tiles, logical_divide((128,64):(64,1), [16:1, 16:1])).contains("tiles_crd")
    );
}

// Integer literals are read by their value, in any base Rust allows.
const HEX: ConstLayout = layout!((0x10, 1_000):(0b1, 0o20));
const HEX_SW: ConstComposedLayout = layout!(Sw<0x3,0b11,3> o 0x20 o (8,64):(0x40,1));
const HEX_SW_FN: ConstSwizzle = swizzle!(0x3, 0b100, 0o3);

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
const DEEPEST: ConstLayout = layout!(((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((4)))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))):((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((1)))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))));

#[test]
fn nesting_up_to_the_depth_limit_is_accepted() {
    assert_eq!(tessel::expr::MAX_DEPTH, 64);
    assert_eq!(DEEPEST.size(), 4);
    assert_eq!(DEEPEST.offset(3), 3);
}

// The largest base offset that keeps every offset in i64 (one more is a compile error, see
// tests/ui/layout_offset_overflow.rs).
const EDGE: ConstComposedLayout = layout!(9223372036854775806 o 2:1);
const EDGE_LAST: i64 = EDGE.offset(1);
const MIN_EDGE: ConstLayout = layout!((2,2):(-4611686018427387904,-4611686018427387904));

#[test]
fn const_offsets_are_exact_at_the_i64_limits_and_checked_elsewhere() {
    assert_eq!(EDGE_LAST, i64::MAX);
    assert_eq!(MIN_EDGE.offset(3), i64::MIN);
    same_offsets(&EDGE, &EDGE.to_composed().unwrap());
    // Out of range: None from checked_offset, a panic (not a wrapped value) from offset.
    for l in [NESTED, NEGATIVE, MIN_EDGE] {
        assert_eq!(l.checked_offset(l.size()), None);
        assert_eq!(l.checked_offset(-1), None);
        assert!(std::panic::catch_unwind(|| l.offset(l.size())).is_err());
    }
    assert_eq!(EDGE.checked_offset(2), None);
    assert_eq!(SWIZZLED.checked_offset(512), None);
    // Hand-written values the macros would refuse: never a wrapped number.
    use tessel::constant::ConstIntTuple as T;
    let over = ConstComposedLayout {
        swizzles: &[],
        offset: i64::MAX,
        layout: ConstLayout {
            shape: T::Int(2),
            stride: T::Int(1),
        },
    };
    assert_eq!(over.checked_offset(0), Some(i64::MAX));
    assert_eq!(over.checked_offset(1), None);
    assert!(over.to_composed().unwrap().offset(1).is_err());
    let far = ConstLayout {
        shape: T::Int(3),
        stride: T::Int(i64::MAX),
    };
    assert_eq!(far.checked_offset(1), Some(i64::MAX));
    assert_eq!(far.checked_offset(2), None);
    let zero = ConstLayout {
        shape: T::Tuple(&[T::Int(4), T::Int(0)]),
        stride: T::Tuple(&[T::Int(1), T::Int(4)]),
    };
    assert_eq!(zero.checked_offset(0), None);
    let bad_sw = ConstSwizzle {
        bits: 3,
        base: 0,
        shift: 1,
    };
    assert_eq!(bad_sw.checked_apply(5), None);
    assert!(bad_sw.to_swizzle().is_err());
}
