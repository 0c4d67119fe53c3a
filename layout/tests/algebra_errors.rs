//! Every rejected input is an error of the right kind whose message names the violated
//! condition and the operands.

mod common;

use common::{l, t};
use tessel_layout::{
    ErrorKind, Result, Tiler, coalesce_profile, complement, composition, downcast, is_injective,
    left_inverse, logical_divide, logical_product, make_ordered_layout, tile_to_shape, upcast,
};

/// Asserts an error of `kind` whose message contains every one of `needles`.
fn assert_err<T: std::fmt::Debug>(r: Result<T>, kind: ErrorKind, needles: &[&str]) {
    let e = r.expect_err("expected an error");
    assert_eq!(e.kind(), kind, "{e}");
    for n in needles {
        assert!(e.message().contains(n), "{e:?} does not mention {n:?}");
    }
}

#[test]
fn composition_errors() {
    // Stride divisibility (CUTLASS issue 3177).
    assert_err(
        composition(&l("(4,6,8):(2,3,5)"), &l("6:3")),
        ErrorKind::Inadmissible,
        &["stride divisibility", "(4,6,8):(2,3,5)", "6:3"],
    );
    // Shape divisibility: 8 elements of stride 2 leave 4 for a mode holding 3 per step.
    assert_err(
        composition(&l("(4,3,5):(1,10,100)"), &l("8:2")),
        ErrorKind::Inadmissible,
        &["shape divisibility", "(4,3,5):(1,10,100)", "8:2"],
    );
    // Overlapping modes of B.
    assert_err(
        composition(&l("(4,4):(1,10)"), &l("(2,2):(2,2)")),
        ErrorKind::Inadmissible,
        &["disjointness", "(4,4):(1,10)", "(2,2):(2,2)"],
    );
    // Strides of both signs in B that reach a bounded mode of A: B(1,1) = -3 borrows in A
    // (A(-3) = -3, but A(1) + A(-4) = -9). A negative stride alone is admissible (CuTe).
    assert_err(
        composition(&l("(4,4):(1,10)"), &l("(2,2):(1,-4)")),
        ErrorKind::Inadmissible,
        &["sign condition", "(4,4):(1,10)", "(2,2):(1,-4)"],
    );
    // Offsets past i64.
    assert_err(
        composition(&l("8:1152921504606846976"), &l("16:1")),
        ErrorKind::Overflow,
        &["8:1152921504606846976", "16:1"],
    );
}

#[test]
fn complement_errors() {
    assert_err(
        complement(&l("(2,2):(1,1)"), 8),
        ErrorKind::Inadmissible,
        &["complement condition", "(2,2):(1,1)", "cotarget 8"],
    );
    assert_err(
        complement(&l("(3,2):(2,3)"), 12),
        ErrorKind::Inadmissible,
        &["complement condition", "(3,2):(2,3)"],
    );
    assert_err(
        complement(&l("4:-1"), 8),
        ErrorKind::Inadmissible,
        &["negative stride", "4:-1"],
    );
    assert_err(
        complement(&l("4:1"), 0),
        ErrorKind::InvalidArgument,
        &["cotarget 0"],
    );
}

#[test]
fn inverse_errors() {
    assert_err(
        left_inverse(&l("(2,2):(1,1)")),
        ErrorKind::Inadmissible,
        &["left inverse divisibility", "(2,2):(1,1)"],
    );
    // Strides of both signs (CuTe's inverse_left.cpp leaves these cases out).
    assert_err(
        left_inverse(&l("(2,4):(-1,2)")),
        ErrorKind::Inadmissible,
        &["both signs", "(2,4):(-1,2)"],
    );
}

#[test]
fn tiler_rank_errors() {
    let two = Tiler::ByMode(vec![
        Some(Tiler::Layout(l("2:1"))),
        Some(Tiler::Layout(l("2:1"))),
    ]);
    assert_err(
        logical_divide(&l("8:1"), &two),
        ErrorKind::InvalidArgument,
        &["rank", "8:1"],
    );
    assert_err(
        logical_product(&l("8:1"), &two),
        ErrorKind::InvalidArgument,
        &["rank", "8:1"],
    );
    assert_err(
        coalesce_profile(&l("(2,2):(1,2)"), &t("(1,1,1)")),
        ErrorKind::InvalidArgument,
        &["profile", "(2,2):(1,2)", "(1,1,1)"],
    );
}

#[test]
fn ordered_and_tiling_errors() {
    assert_err(
        make_ordered_layout(&t("(2,3)"), &t("(1,1)")),
        ErrorKind::InvalidArgument,
        &["distinct", "(2,3)", "(1,1)"],
    );
    assert_err(
        make_ordered_layout(&t("(2,3)"), &t("(0,1,2)")),
        ErrorKind::NotCongruent,
        &["congruent", "(2,3)", "(0,1,2)"],
    );
    assert_err(
        tile_to_shape(&l("(3,2):(1,3)"), &t("(8,4)")),
        ErrorKind::Inadmissible,
        &["divide", "(3,2):(1,3)", "(8,4)"],
    );
    assert_err(
        tile_to_shape(&l("(2,2,2):(1,2,4)"), &t("(8,4)")),
        ErrorKind::InvalidArgument,
        &["rank", "(2,2,2):(1,2,4)", "(8,4)"],
    );
}

#[test]
fn cast_errors() {
    assert_err(
        upcast(&l("(8,4):(1,6)"), 4),
        ErrorKind::Inadmissible,
        &["divisibility", "(8,4):(1,6)", "6"],
    );
    assert_err(
        upcast(&l("8:1"), 0),
        ErrorKind::InvalidArgument,
        &["factor", "8:1"],
    );
    assert_err(
        downcast(&l("4:2"), 2),
        ErrorKind::Inadmissible,
        &["stride-1", "4:2"],
    );
}

#[test]
fn injectivity_too_large_to_decide() {
    // 4096*4096 offsets with overlapping strides cannot be decided analytically.
    assert_err(
        is_injective(&l("(4096,4096):(1,1)")),
        ErrorKind::InvalidArgument,
        &["too large to decide", "(4096,4096):(1,1)"],
    );
    // Large but analytically decidable layouts are fine.
    assert!(is_injective(&l("(4096,4096):(1,4096)")).unwrap());
    assert!(!is_injective(&l("(4096,4096):(1,0)")).unwrap());
}
