//! CuTe's core unit tests for `nullspace`, as data: every case of
//! `test/unit/cute/core/nullspace.cpp` (NVIDIA/cutlass), checked with that file's
//! `test_postconditions` (`layout(ker(i)) == 0` for every `i`, and
//! `size(ker) == size(layout) / size(filter(layout))`), and with the definition of a kernel by
//! enumeration: `ker` is injective and has exactly as many elements as there are indices the
//! layout maps to 0.

mod common;

use std::collections::HashSet;

use common::{ext_eval, filtered_size, l};
use tessel_layout::{ErrorKind, Layout, nullspace};

/// CuTe test/unit/cute/core/nullspace.cpp, in the order of the file.
const CASES: &[&str] = &[
    "(2,2,2):(0,0,0)",
    "(7,5,16):(0,0,0)",
    "(2,2,2):(1,0,2)",
    "(7,5,16):(3,1,0)",
];

/// Layouts whose non-zero strides have both signs, so that coordinates other than the stride-0
/// ones cancel out to offset 0. CuTe's construction (one mode per stride-0 leaf) misses those,
/// and its size post-condition `size(layout) / size(filter(layout))` no longer counts the
/// kernel; tessel's kernel is checked by enumeration.
const CANCELLING: &[&str] = &[
    "(3,4):(-1,2)",
    "(4,4):(-1,1)",
    "(2,3,4):(0,-2,3)",
    "(5,3):(-2,3)",
];

fn zero_count(a: &Layout) -> usize {
    (0..a.size()).filter(|&i| ext_eval(a, i) == 0).count()
}

fn check_kernel(a: &Layout, k: &Layout) {
    for i in 0..k.size() {
        assert_eq!(
            ext_eval(a, ext_eval(k, i)),
            0,
            "nullspace({a}) = {k} at {i}"
        );
    }
    let image: HashSet<i64> = (0..k.size()).map(|i| ext_eval(k, i)).collect();
    assert_eq!(
        image.len() as i64,
        k.size(),
        "nullspace({a}) = {k} is not injective"
    );
    assert!(
        image.iter().all(|&i| (0..a.size()).contains(&i)),
        "{k} leaves the domain of {a}"
    );
    assert_eq!(
        k.size() as usize,
        zero_count(a),
        "nullspace({a}) = {k} misses indices"
    );
}

#[test]
fn nullspace_postconditions() {
    for &layout in CASES {
        let a = l(layout);
        let k = nullspace(&a).unwrap();
        assert_eq!(
            k.size(),
            a.size() / filtered_size(&a),
            "nullspace({a}) = {k}"
        );
        check_kernel(&a, &k);
    }
}

#[test]
fn cancelling_coordinates_are_in_the_kernel() {
    // (3,4):(-1,2) maps the coordinate (2,1) to -2 + 2 = 0 as well as (0,0).
    let a = l("(3,4):(-1,2)");
    assert_eq!(ext_eval(&a, 2 + 3), 0);
    assert_eq!(nullspace(&a).unwrap().size(), 2);
    for &layout in CANCELLING {
        let a = l(layout);
        let k = nullspace(&a).unwrap_or_else(|e| panic!("nullspace({a}) rejected: {e}"));
        check_kernel(&a, &k);
    }
}

#[test]
fn kernel_that_is_no_layout_is_rejected() {
    // (3,3,3):(1,1,-1): x + y = z, six coordinates forming a triangle, which no layout (a box of
    // coordinates) enumerates.
    let a = l("(3,3,3):(1,1,-1)");
    assert_eq!(zero_count(&a), 6);
    let e = nullspace(&a).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Inadmissible, "{e}");
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(2000))]

    /// Any signs: the kernel is exact, or the kernel is no layout and that is said.
    #[test]
    fn nullspace_is_the_exact_kernel(a in common::signed_layout()) {
        match nullspace(&a) {
            Ok(k) => check_kernel(&a, &k),
            Err(e) => proptest::prop_assert_eq!(e.kind(), ErrorKind::Inadmissible, "{}", e),
        }
    }
}
