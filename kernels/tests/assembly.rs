//! The kernel assembler's host-side checks (no NVRTC, no GPU): every piece a body refers to must
//! be given, every piece and parameter given must be referred to, no name twice; references in
//! comments and string literals do not count.

use tessel_kernels::kernel::{CType, Elem, KernelBuilder, Param, Scalar};
use tessel_layout::{ComposedLayout, Layout};

fn layout(text: &str) -> Layout {
    text.parse().unwrap()
}

/// A kernel with one piece of every kind, all used.
fn complete() -> KernelBuilder {
    let body = "const long long i = threadIdx.x;\n\
                if (i < k::N) out[layout::g_crd(0, i)] = in[layout::perm(i)] + dev::one() + (ty::T)reps;";
    KernelBuilder::new("complete", body)
        .alias("T", CType::B32)
        .int("N", 32)
        .coord_layout("g", &layout("(1,32):(32,1)"))
        .index_layout("perm", &layout("(4,8):(8,1)"))
        .device_fn("one", "__device__ __forceinline__ b32 one() { return 1u; }")
        .param(Param::input("in", Elem::alias("T")).len(32))
        .param(Param::output("out", Elem::alias("T")).len(32))
        .param(Param::scalar("reps", Scalar::I32))
        .threads(32)
}

fn err(b: KernelBuilder) -> String {
    b.build().unwrap_err().to_string()
}

#[test]
fn a_complete_kernel_assembles_in_order() {
    let k = complete().comment("hello").build().unwrap();
    let src = k.source();
    let at = |s: &str| src.find(s).unwrap_or_else(|| panic!("{s} missing:\n{src}"));
    // comment, prelude, header, declarations (ty, k, layout, dev), signature, body.
    let order = [
        "// hello",
        "#define TESSEL_FN",
        "typedef unsigned int b32;",
        "namespace ty {\ntypedef b32 T;",
        "namespace k {\nenum : int { N = 32 };",
        "namespace layout {",
        "TESSEL_FN long long g_crd(long long c0, long long c1)",
        "TESSEL_FN long long perm(long long i)",
        "namespace dev {",
        "extern \"C\" __global__ void __launch_bounds__(32) complete(const ty::T* __restrict__ in, \
         ty::T* __restrict__ out, int reps) {",
        "dev::one()",
    ];
    let pos: Vec<usize> = order.iter().map(|s| at(s)).collect();
    assert!(pos.windows(2).all(|w| w[0] < w[1]), "{pos:?}\n{src}");
    assert!(src.ends_with("(ty::T)reps;\n}\n"), "{src}");
}

#[test]
fn a_missing_piece_is_an_error_naming_it_and_the_kernel() {
    for (ns, body) in [
        ("k::M", "int x = k::M;"),
        ("layout::smem", "long long x = layout::smem(0);"),
        ("layout::smem_crd", "long long x = layout::smem_crd(0, 0);"),
        ("ty::U", "ty::U x;"),
        ("dev::helper", "dev::helper();"),
    ] {
        let e = err(KernelBuilder::new("needs_more", body).threads(32));
        assert_eq!(
            e,
            format!(
                "invalid argument: kernel needs_more: the body refers to {ns}, which was not given"
            ),
            "{body}"
        );
    }
}

#[test]
fn a_crd_reference_needs_a_coordinate_layout() {
    // An index-only layout emits no `_crd` function.
    let e = err(KernelBuilder::new("idx", "long long x = layout::f_crd(1);")
        .index_layout("f", &layout("8:1"))
        .threads(32));
    assert!(e.contains("layout::f_crd, which was not given"), "{e}");
}

#[test]
fn an_unused_piece_is_an_error_naming_it() {
    let cases: Vec<(&str, KernelBuilder)> = vec![
        ("k::EXTRA", complete().int("EXTRA", 3)),
        ("ty::U", complete().alias("U", CType::B16)),
        (
            "layout::spare",
            complete().index_layout("spare", &layout("4:1")),
        ),
        (
            "layout::sw",
            complete().composed_layout("sw", &ComposedLayout::from_layout(layout("(4,4):(4,1)"))),
        ),
        (
            "dev::two",
            complete().device_fn("two", "__device__ int two() { return 2; }"),
        ),
    ];
    for (piece, b) in cases {
        let e = err(b);
        assert!(
            e.contains(&format!(
                "kernel complete: piece {piece} is given but never referred to"
            )),
            "{piece}: {e}"
        );
    }
}

#[test]
fn an_unused_parameter_is_an_error() {
    let e = err(complete().param(Param::scalar("unused", Scalar::F32)));
    assert!(
        e.contains("kernel complete: parameter unused is given but never referred to"),
        "{e}"
    );
}

#[test]
fn duplicate_names_are_errors() {
    let e = err(complete().int("N", 64));
    assert!(e.contains("piece k::N is given twice"), "{e}");
    // Across namespaces too: `N` as a layout would shadow nothing but is ambiguous to readers.
    let e = err(complete().index_layout("N", &layout("4:1")));
    assert!(e.contains("piece layout::N is given twice"), "{e}");
    let e = err(complete().param(Param::scalar("reps", Scalar::I32)));
    assert!(e.contains("parameter reps is given twice"), "{e}");
}

#[test]
fn references_in_comments_and_strings_do_not_count() {
    // A body that mentions k::N only in a comment and a string: N is unused.
    let b = KernelBuilder::new(
        "quiet",
        "// uses k::N\n/* and k::N */ const char* s = \"k::N\"; (void)s;",
    )
    .int("N", 1)
    .threads(32);
    assert!(err(b).contains("piece k::N is given but never referred to"));
    // And a missing piece mentioned only in a comment is no error.
    assert!(
        KernelBuilder::new("quiet2", "// k::MISSING")
            .threads(32)
            .build()
            .is_ok()
    );
}

#[test]
fn device_functions_count_as_referrers_but_not_of_themselves() {
    // `k::N` used only inside the device function is referred to.
    let b = KernelBuilder::new("via_dev", "int x = dev::f();")
        .int("N", 4)
        .device_fn("f", "__device__ int f() { return k::N; }")
        .threads(32);
    assert!(b.build().is_ok());
    // A device function that only calls itself is never referred to.
    let b = KernelBuilder::new("self_ref", "")
        .device_fn(
            "g",
            "__device__ int g(int n) { return n ? dev::g(n - 1) : 0; }",
        )
        .threads(32);
    assert!(err(b).contains("piece dev::g is given but never referred to"));
    // Its code must define the name.
    let b = KernelBuilder::new("misnamed", "dev::h();")
        .device_fn("h", "__device__ void other() {}")
        .threads(32);
    assert!(err(b).contains("dev::h does not define h"));
}

#[test]
fn parameters_need_their_alias_and_names_must_be_identifiers() {
    let b = KernelBuilder::new("p", "x[0] = 0;")
        .param(Param::output("x", Elem::alias("T")))
        .threads(32);
    assert!(err(b).contains("parameter x has element type ty::T, which was not given"));
    let b = KernelBuilder::new("bad name", "").threads(32);
    assert!(err(b).contains("not a C identifier"));
    let b = KernelBuilder::new("bad_piece", "k::x;")
        .int("2x", 1)
        .threads(32);
    assert!(err(b).contains("piece k::2x is not a C identifier"));
    assert!(err(KernelBuilder::new("no_threads", "")).contains("threads per block not set"));
}

mod common;

#[test]
fn the_assembled_source_compiles_with_nvrtc() {
    if !common::nvrtc_or_skip("the_assembled_source_compiles_with_nvrtc") {
        return;
    }
    let k = complete().build().unwrap();
    let ptx = k.ptx(tessel_kernels::Arch::new(9, 0).unwrap()).unwrap();
    assert!(ptx.contains(".entry complete("), "{ptx}");
}

#[test]
fn arguments_are_checked_against_the_parameters() {
    use tessel_kernels::kernel::Arg;
    let k = KernelBuilder::new("scalars", "(void)(a + b + c);")
        .param(Param::scalar("a", Scalar::I32))
        .param(Param::scalar("b", Scalar::I64))
        .param(Param::scalar("c", Scalar::F32))
        .threads(32)
        .build()
        .unwrap();
    assert!(
        k.check_args(&[Arg::I32(1), Arg::I64(2), Arg::F32(3.0)])
            .is_ok()
    );
    let e = k
        .check_args(&[Arg::I32(1), Arg::I64(2)])
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("kernel scalars: 2 arguments for 3 parameters"),
        "{e}"
    );
    let e = k
        .check_args(&[Arg::I32(1), Arg::I32(2), Arg::F32(3.0)])
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("parameter b") && e.contains("given an i32"),
        "{e}"
    );
    // A buffer parameter refuses a scalar.
    let k = complete().build().unwrap();
    let e = k
        .check_args(&[Arg::I32(0), Arg::I32(0), Arg::I32(0)])
        .unwrap_err()
        .to_string();
    assert!(e.contains("parameter in"), "{e}");
}

// ---- Device functions generated from atoms (tessel_kernels::kernel::atom). ----

use tessel_kernels::kernel::atom::{copy_atom_fn, mma_atom_fn};
use tessel_layout::atom::{
    AsmOperand, Direction, copy_atom, copy_atom_names, mma_atom, mma_atom_names,
};

/// The operand expressions of the generated asm statement, in order (`"=r"(dst[0])`, ...).
fn asm_operands(code: &str) -> Vec<String> {
    let start = code.find("\\n\"").expect("template literal") + 3;
    let rest = &code[start..];
    let end = rest.find(");\n}").expect("end of asm");
    rest[..end]
        .split([':', ','])
        .map(str::trim)
        .filter(|s| s.starts_with('"') && s.contains('('))
        .map(str::to_string)
        .collect()
}

/// Checks the generated code against the atom: the template verbatim, and operand `%k` of the
/// template bound to the `k`-th expression, with the group's constraint and register.
fn check_generated(code: &str, template: &str, operands: &[AsmOperand]) {
    let literal = format!("\"{}\\n\"", template.replace('\n', "\\n"));
    assert!(code.contains(&literal), "{code}");
    let exprs = asm_operands(code);
    let total: u32 = operands.iter().map(|o| o.count).sum();
    assert_eq!(exprs.len() as u32, total, "{code}");
    for op in operands {
        for i in 0..op.count {
            let k = (op.first + i) as usize;
            let reg = if op.direction != Direction::In || op.count > 1 {
                format!("{}[{i}]", op.role)
            } else {
                op.role.to_string()
            };
            assert_eq!(
                exprs[k],
                format!("\"{}\"({reg})", op.constraint_string()),
                "operand %{k} of {code}"
            );
        }
    }
}

#[test]
fn atom_functions_have_the_fixed_calling_convention() {
    // kernels/src/kernel/atom.rs: groups in operand order named by role; written groups `T*`,
    // read-only groups of several registers `const T*`, of one register by value; gmem is
    // `const void*`.
    let cases = [
        ("SM75_U32x4_LDSM_N", "void ldsm(b32* dst, b32 smem)"),
        ("SM75_U16x8_LDSM_T", "void ldsm(b32* dst, b32 smem)"),
        (
            "SM80_CP_ASYNC_CACHEGLOBAL<uint128_t>",
            "void ldsm(b32 smem, const void* gmem)",
        ),
        ("SM90_U32x4_STSM_N", "void ldsm(b32 smem, const b32* src)"),
    ];
    for (name, signature) in cases {
        let atom = copy_atom(name).unwrap();
        let code = copy_atom_fn("ldsm", &atom).unwrap();
        assert!(code.contains(signature), "{name}: {code}");
        assert!(code.contains("asm volatile(") && code.ends_with(" : \"memory\");\n}\n"));
    }
    for (name, signature) in [
        (
            "SM80_16x8x16_F32F16F16F32_TN",
            "void mma(float* d, const b32* a, const b32* b, const float* c)",
        ),
        (
            "SM80_16x8x16_F16F16F16F16_TN",
            "void mma(b32* d, const b32* a, const b32* b, const b32* c)",
        ),
        // k8: B is one register, read-only: passed by value.
        (
            "SM80_16x8x8_F32BF16BF16F32_TN",
            "void mma(float* d, const b32* a, b32 b, const float* c)",
        ),
    ] {
        let code = mma_atom_fn("mma", &mma_atom(name).unwrap()).unwrap();
        assert!(code.contains(signature), "{name}: {code}");
        // mma.sync: not volatile, no memory clobber.
        assert!(
            code.contains("  asm(\"mma.sync") && !code.contains("memory"),
            "{code}"
        );
    }
}

#[test]
fn atom_functions_bind_every_operand_of_every_atom() {
    let mut checked = 0;
    for name in copy_atom_names() {
        let atom = copy_atom(&name).unwrap();
        match atom.asm_template() {
            Some(template) => {
                let code = copy_atom_fn("f", &atom).unwrap();
                check_generated(&code, template, atom.operands());
                checked += 1;
            }
            None => {
                let e = copy_atom_fn("f", &atom).unwrap_err().to_string();
                assert!(e.contains("not an instruction") && e.contains(&name), "{e}");
            }
        }
    }
    // 12 ldmatrix/stmatrix + movmatrix + 4 cp.async + 2 bulk copies (UniversalCopy,
    // SM90_BULK_COPY_AUTO and the TMA atoms by their bare names have no asm).
    assert_eq!(checked, 19);
    for name in mma_atom_names() {
        let atom = mma_atom(&name).unwrap();
        let code = mma_atom_fn("f", &atom).unwrap();
        // wgmma's immediates are template parameters, bound as "n" operands.
        check_generated(&code, atom.asm_template(), atom.operands());
        let wgmma = name.starts_with("SM90");
        assert_eq!(code.contains("template <int scale_a"), wgmma, "{name}");
        assert_eq!(code.contains("asm volatile("), wgmma, "{name}");
    }
    // A name that is not an identifier is refused.
    let ldsm = copy_atom("SM75_U32x1_LDSM_N").unwrap();
    assert!(copy_atom_fn("not a name", &ldsm).is_err());
}

#[test]
fn atom_pieces_precede_the_device_functions_and_are_checked() {
    let ldsm = copy_atom("SM75_U32x4_LDSM_N").unwrap();
    let k = KernelBuilder::new("k", "b32 r[4]; dev::load(r); out[0] = r[0];")
        .device_fn(
            "load",
            "__device__ __forceinline__ void load(b32* r) { dev::ldsm(r, 0u); }",
        )
        .copy_atom("ldsm", &ldsm)
        .param(Param::output("out", CType::B32.into()))
        .threads(32)
        .build()
        .unwrap();
    let src = k.source();
    let (at_atom, at_fn) = (
        src.find("void ldsm(").unwrap(),
        src.find("void load(").unwrap(),
    );
    assert!(at_atom < at_fn, "{src}");
    // An atom piece never called is refused like any piece.
    let e = err(KernelBuilder::new("k", "out[0] = 0;")
        .copy_atom("ldsm", &ldsm)
        .param(Param::output("out", CType::B32.into()))
        .threads(32));
    assert!(
        e.contains("dev::ldsm is given but never referred to"),
        "{e}"
    );
}
