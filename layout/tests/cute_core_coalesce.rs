//! CuTe's core unit tests for `coalesce`, as data: every case of
//! `test/unit/cute/core/coalesce.cpp` (NVIDIA/cutlass), checked with that file's
//! `test_coalesce` post-conditions: depth at most 1, the same size, and the same offset at every
//! index of the domain (enumerated).

mod common;

use common::{ext_eval, l};
use tessel_layout::coalesce;

/// CuTe test/unit/cute/core/coalesce.cpp, in the order of the file. `make_layout(shape)` is
/// column-major and `GenRowMajor` row-major, both with the running product as the stride of an
/// extent-1 mode (CuTe's dynamic form); static and dynamic integers are plain integers.
const CASES: &[&str] = &[
    "1:0",
    "1:1",
    "(2,4):(1,2)",
    "(2,4,6):(1,2,8)",
    "(2,1,6):(1,6,2)",
    "(2,1,6):(1,7,2)",
    "(2,1,6):(4,7,8)",
    "(2,4,6):(1,2,8)",
    "(2,4,6):(1,2,8)",
    "(2,4,6):(1,2,8)",
    "(2,4):(4,1)",
    "(2,4,6):(24,6,1)",
    "(2,4,6):(24,6,1)",
    "(2,4,6):(24,6,1)",
    "(2,4,6):(24,6,1)",
    "(2,1,3):(3,3,1)",
    "(2,1,3):(3,3,1)",
    "(2,1,3):(2,4,4)",
    "(2,1,3):(2,0,4)",
    "((2,2),(2,2)):((1,4),(8,32))",
];

/// Cases of the file that tessel notation does not state, with the reason.
#[allow(dead_code)]
const NOT_STATED: &[(&str, &str)] = &[(
    "make_layout((_2,_1,_3), GenRowMajor) with a static _1",
    "CuTe gives a static extent-1 mode the stride 0 and a dynamic one the running product; \
     tessel has one kind of integer, and the stride of an extent-1 mode does not change the \
     layout's function, so both are stated as (2,1,3):(3,3,1)",
)];

#[test]
fn coalesce_postconditions() {
    for &layout in CASES {
        let a = l(layout);
        let c = coalesce(&a).unwrap();
        assert!(c.depth() <= 1, "coalesce({a}) = {c} is nested");
        assert_eq!(c.size(), a.size(), "coalesce({a}) = {c}");
        for i in 0..a.size() {
            assert_eq!(
                ext_eval(&c, i),
                ext_eval(&a, i),
                "coalesce({a}) = {c} at {i}"
            );
        }
    }
}
