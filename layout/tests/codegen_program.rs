//! Property tests of the lowering and simplification, without a C compiler: the IR of the
//! emitted functions, evaluated with C semantics (undefined behaviour is a failure), equals the
//! algebra at every index of thousands of random layouts.

mod codegen_support;

use codegen_support::{Case, Rng, random_big_case, random_case, random_symbolic_case};
use proptest::prelude::*;
use tessel_layout::codegen::{EmitOptions, IndexWidth, index_program};

/// Checks `NAME` and `NAME_crd` of `case` at every index; returns a description of a mismatch.
fn check(case: &Case, width: IndexWidth) -> Result<(), String> {
    let opts = EmitOptions {
        width,
        ..EmitOptions::default()
    };
    let program = index_program(&case.name, &case.layout, &opts).map_err(|e| e.to_string())?;
    let expected = case.expected();
    let size = case.layout.layout().size();
    let symbols: Vec<i64> = case
        .layout
        .layout()
        .symbols()
        .iter()
        .map(|s| {
            case.symbols
                .iter()
                .find(|(n, _)| n == s)
                .map_or(0, |(_, v)| *v)
        })
        .collect();
    let sizes: Vec<i64> = case
        .layout
        .layout()
        .shape()
        .modes()
        .iter()
        .map(|m| m.leaves().iter().product())
        .collect();
    let coords = program.coords.as_ref().ok_or("no NAME_crd")?;
    for i in 0..size {
        let want = expected[i as usize];
        let got = program.index.eval(&[i], &symbols);
        if got != Some(want) {
            return Err(format!("{} at {i}: {got:?} != {want}", case.layout));
        }
        let mut rest = i;
        let crd: Vec<i64> = sizes
            .iter()
            .map(|s| {
                let c = rest % s;
                rest /= s;
                c
            })
            .collect();
        let got = coords.eval(&crd, &symbols);
        if got != Some(want) {
            return Err(format!("{}_crd at {crd:?}: {got:?} != {want}", case.layout));
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn emitted_ir_matches_the_algebra(seed in any::<u64>()) {
        let case = random_case(&mut Rng::new(seed), "f", 128);
        prop_assert_eq!(check(&case, case.width), Ok(()));
    }

    #[test]
    fn literal_parser_agrees_with_the_expression_evaluator(seed in any::<u64>()) {
        let case = random_case(&mut Rng::new(seed), "f", 256);
        prop_assume!(case.layout.layout().symbols().is_empty());
        let text = case.layout.to_string();
        let literal = case.layout.bind(&|_| None).unwrap();
        let evaluated = match tessel_layout::expr::eval(&text).unwrap() {
            tessel_layout::expr::Value::Layout(l) => tessel_layout::ComposedLayout::new(vec![], 0, l),
            tessel_layout::expr::Value::Composed(c) => c,
            other => panic!("{text} evaluated to {other}"),
        };
        prop_assert_eq!(literal.offsets(), evaluated.offsets(), "{}", text);
    }

    #[test]
    fn wide_and_narrow_arithmetic_agree(seed in any::<u64>()) {
        let case = random_case(&mut Rng::new(seed), "f", 64);
        prop_assert_eq!(check(&case, IndexWidth::Auto), Ok(()));
        prop_assert_eq!(check(&case, IndexWidth::Bits64), Ok(()));
    }
}

/// The true offset of index `i` of `case` for the symbol values `values`, in `i128` (`None` when
/// the value before the swizzles does not fit in `i64`), computed from the definition: the
/// colexicographic coordinate times the strides, plus the base offset, then the swizzles.
fn true_offset(case: &Case, i: i64, values: &dyn Fn(&str) -> i64) -> Option<i64> {
    use tessel_layout::codegen::SymInt;
    let l = case.layout.layout();
    let mut rest = i128::from(i);
    let mut sum = i128::from(case.layout.base_offset());
    for (s, d) in l.shape().leaves().into_iter().zip(l.stride().leaves()) {
        let d = match d {
            SymInt::Int(v) => v,
            SymInt::Sym(name) => values(&name),
        };
        sum += (rest % i128::from(s)) * i128::from(d);
        rest /= i128::from(s);
    }
    let pre = i64::try_from(sum).ok()?;
    Some(
        case.layout
            .swizzles()
            .iter()
            .rev()
            .fold(pre, |x, sw| sw.apply(x)),
    )
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(1000))]

    #[test]
    fn emitted_ir_near_the_integer_limits_matches_the_algebra(seed in any::<u64>()) {
        let case = random_big_case(&mut Rng::new(seed), "f", 64);
        prop_assert_eq!(check(&case, case.width), Ok(()));
    }

    /// Any symbol values whatsoever: the emitted code has no undefined behaviour at any index,
    /// and returns the true offset wherever that fits in `long long` (the pre-swizzle value
    /// too), however large the products and partial sums.
    #[test]
    fn any_symbol_values_give_no_undefined_behaviour_and_every_offset_that_fits(
        seed in any::<u64>(),
        ld in prop_oneof![any::<i64>(), Just(i64::MIN), Just(i64::MAX), -4096i64..4096],
        k in prop_oneof![any::<i64>(), Just(i64::MIN), Just(1i64 << 62), -4096i64..4096],
    ) {
        let case = random_symbolic_case(&mut Rng::new(seed), "f", 64);
        let program = index_program("f", &case.layout, &EmitOptions::default()).unwrap();
        let names = case.layout.layout().symbols();
        let value = |s: &str| if s == "ld" { ld } else { k };
        let symbols: Vec<i64> = names.iter().map(|s| value(s)).collect();
        for i in 0..case.layout.layout().size() {
            let got = program.index.eval(&[i], &symbols);
            prop_assert!(got.is_some(), "{} at {}: undefined behaviour", case.layout, i);
            if let Some(want) = true_offset(&case, i, &value) {
                prop_assert_eq!(got, Some(want), "{} at {}", case.layout, i);
            }
        }
    }
}

#[test]
fn large_offsets_near_the_32_bit_limit_are_exact() {
    // Offsets just below 2^31 stay 32-bit; one more and the emitter must widen.
    for notation in [
        "(2,2):(1073741823,1)",
        "(2,2):(2147483646,1)",
        "(2,2):(2147483647,1)",
        "(3,2):(1073741824,1)",
        "Sw<3,28,3> o (2,8):(268435456,1)",
        "Sw<1,30,1> o (2,2):(1073741824,1)",
        "Sw<1,29,-1> o (2,2):(1073741824,1)",
        "-2147483648 o (4,4):(4,1)",
        "-2147483649 o (4,4):(4,1)",
        "2147483632 o (4,4):(4,1)",
        "2147483633 o (4,4):(4,1)",
        "(8,8):(-268435456,1)",
        "(9,8):(-268435456,1)",
        // Once a bug: (int)(u >> 1) * 1073741824 overflowed at index 4.
        "(2,3):(1,-1073741824)",
        "(2,2):(-2147483648,1)",
        "(2,2):(2147483647,-2147483648)",
        "(2,2):(-4611686018427387904,-4611686018427387904)",
        "(2,2):(9223372036854775806,-9223372036854775807)",
        "9223372036854775806 o (2,2):(-1,-4611686018427387904)",
    ] {
        let case = Case::new("f", notation);
        assert_eq!(check(&case, IndexWidth::Auto), Ok(()), "{notation}");
    }
}
