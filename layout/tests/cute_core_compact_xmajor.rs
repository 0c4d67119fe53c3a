//! CuTe's core unit tests for the compact column- and row-major strides, as data: the cases of
//! `test/unit/cute/core/compact_xmajor.cpp` (NVIDIA/cutlass) that tessel states, checked against
//! the strides that file expects of [`Layout::col_major`] and [`Layout::row_major`].

mod common;

use common::t;
use tessel_layout::Layout;

/// `(shape, column-major strides, row-major strides)`: the "Dynamic" tests of
/// CuTe test/unit/cute/core/compact_xmajor.cpp (compact_col_major / compact_row_major).
const CASES: &[(&str, &str, &str)] = &[
    ("1", "1", "1"),
    ("8", "1", "1"),
    ("(4,8)", "(1,4)", "(8,1)"),
    ("(4,8,2)", "(1,4,32)", "(16,2,1)"),
    ("(4,8,1,2)", "(1,4,32,32)", "(16,2,2,1)"),
    ("((4,8),1,2)", "((1,4),32,32)", "((16,2),2,1)"),
    ("(4,(8,1,2))", "(1,(4,32,32))", "(16,(2,2,1))"),
    ("(4,(8,1,(2,3)))", "(1,(4,32,(32,64)))", "(48,(6,6,(3,1)))"),
];

/// Cases of the file that tessel does not state, with the reason.
#[allow(dead_code)]
const NOT_STATED: &[(&str, &str)] = &[
    (
        "compact_col_major(8, 3) == 3, compact_col_major(1, 3) == 3 (and row-major)",
        "tessel's Layout::col_major / row_major take no starting stride",
    ),
    (
        "the \"Static\" tests: a static extent _1 gets the stride _0",
        "tessel has one kind of integer and follows the dynamic tests (the running product); \
         the stride of an extent-1 mode does not change the layout's offsets",
    ),
];

#[test]
fn compact_strides() {
    for &(shape, col, row) in CASES {
        let shape = t(shape);
        assert_eq!(
            Layout::col_major(&shape).unwrap().stride(),
            &t(col),
            "col-major {shape}"
        );
        assert_eq!(
            Layout::row_major(&shape).unwrap().stride(),
            &t(row),
            "row-major {shape}"
        );
    }
}
