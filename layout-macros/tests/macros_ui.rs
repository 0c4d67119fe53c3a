//! Compile-fail tests of the macros: each error class gives a `compile_error!` at the offending
//! tokens that names the violated condition (messages and spans in `tests/ui/*.stderr`).
//!
//! They live in this package, not the facade's, so that trybuild's build of the cases depends on
//! `tessel-kit` with its default features (no cudarc) and this package's few dev-dependencies.

#[test]
fn macro_errors_point_at_the_offending_tokens() {
    let t = trybuild::TestCases::new();
    t.compile_fail("tests/ui/*.rs");
}
