//! Every emitted index helper compiles with NVRTC for sm_80 and sm_90, without a GPU.
//!
//! libnvrtc comes from the `nvidia-cuda-nvrtc` PyPI wheel that `.ci/run` installs under
//! `target/nvrtc-wheel` and puts on `LD_LIBRARY_PATH`. Without the library the tests are reported
//! as ignored (`cfg(tessel_nvrtc)`, from `kernels/build.rs` through `build.rs`); with
//! `TESSEL_REQUIRE_NVRTC=1` they run, and a missing library fails them.

// The codegen tests' shared helpers live with the emitter's own tests in tessel-layout.
#[path = "../layout/tests/codegen_support/mod.rs"]
mod codegen_support;

use std::fmt::Write as _;

use codegen_support::{Case, Rng, random_case};
use cudarc::nvrtc::{CompileOptions, compile_ptx_with_opts};
use tessel_kernels::cudarc;

/// Whether libnvrtc can be loaded; cudarc panics on first use when it cannot, so probe first.
fn nvrtc_available() -> bool {
    // SAFETY: only tries to dlopen the candidate library names; no symbol is called.
    let present = unsafe { cudarc::nvrtc::sys::is_culib_present() };
    if !present {
        let reason = format!(
            "skipped: libnvrtc could not be loaded (LD_LIBRARY_PATH={:?}, TESSEL_NVRTC_LIB={:?}); \
             .ci/run installs it from the nvidia-cuda-nvrtc wheel",
            std::env::var("LD_LIBRARY_PATH").unwrap_or_default(),
            std::env::var("TESSEL_NVRTC_LIB").unwrap_or_default()
        );
        assert!(
            std::env::var("TESSEL_REQUIRE_NVRTC").as_deref() != Ok("1"),
            "TESSEL_REQUIRE_NVRTC=1 but {reason}"
        );
        println!("{reason}");
    }
    present
}

/// The snapshot set (seed swizzles, symbolic leading dimension) plus random layouts.
fn cases() -> Vec<Case> {
    let mut cases = vec![
        Case::new("smem_8x64_f16", "Sw<3,3,3> o (8,64):(64,1)"),
        Case::new("transpose_32x32_f32", "Sw<5,0,5> o (32,32):(32,1)"),
        Case::new("chain", "Sw<2,0,2> o Sw<1,4,-1> o (16,4):(4,1)"),
        Case::new("tile_off", "(128,64):(ld,1)").with_symbols(&[("ld", 64)]),
        Case::new("gmma_128b", "Sw<3,4,3> o (8,128):(128,1)"),
        Case::new("wide", "(4,4):(4294967296,3)"),
        Case::new("rank0", "():()"),
    ];
    let mut rng = Rng::new(0x9e37);
    cases.extend((0..150).map(|k| random_case(&mut rng, &format!("r{k}"), 256)));
    cases
}

/// One CUDA translation unit: every helper, and a kernel that calls each of them.
fn kernel_source(cases: &[Case]) -> String {
    let mut src = String::new();
    let mut body = String::new();
    for (n, c) in cases.iter().enumerate() {
        src.push_str(&c.source());
        let size = c.layout.layout().size();
        let syms: String = c
            .layout
            .layout()
            .symbols()
            .iter()
            .map(|s| format!(", {s}"))
            .collect();
        let rank = tessel_kit::codegen::coordinate_rank(&c.layout);
        let crd: Vec<String> = (0..rank).map(|_| "t".to_string()).collect();
        let crd_args = if crd.is_empty() {
            syms.trim_start_matches(", ").to_string()
        } else {
            format!("{}{syms}", crd.join(", "))
        };
        let _ = writeln!(
            body,
            "  out[{}] = {}(t % {size}{syms}) + {}_crd({crd_args});",
            n, c.name, c.name
        );
    }
    src.push_str(
        "extern \"C\" __global__ void tessel_probe(long long* out, long long ld, long long k) {\n",
    );
    src.push_str("  long long t = threadIdx.x;\n  (void)ld; (void)k;\n");
    src.push_str(&body);
    src.push_str("}\n");
    src
}

#[test]
#[cfg_attr(
    not(tessel_nvrtc),
    ignore = "needs libnvrtc: see the README's Testing section"
)]
fn emitted_helpers_compile_with_nvrtc_for_sm80_and_sm90() {
    if !nvrtc_available() {
        return;
    }
    let src = kernel_source(&cases());
    for arch in ["sm_80", "sm_90"] {
        let opts = CompileOptions {
            arch: Some(arch),
            name: Some("tessel_codegen.cu".to_string()),
            ..CompileOptions::default()
        };
        let ptx = compile_ptx_with_opts(&src, opts)
            .unwrap_or_else(|e| panic!("NVRTC rejected the emitted code for {arch}: {e:?}"))
            .to_src();
        assert!(ptx.contains(&format!(".target {arch}")), "PTX for {arch}");
        assert!(ptx.contains("tessel_probe"));
    }
}

/// A kernel assembled from `cuda_index!` at compile time.
const MACRO_KERNEL: &str = concat!(
    tessel_kit::cuda_index!(smem_off, Sw<3,3,3> o (8,64):(64,1)),
    tessel_kit::cuda_index!(gmem_off, (128,64):(ld,1)),
    tessel_kit::cuda_index!(tiles, logical_divide((128,64):(64,1), [16:1, 16:1])),
    "extern \"C\" __global__ void load(const unsigned short* g, unsigned short* o, long long ld) {\n",
    "  __shared__ unsigned short s[512];\n",
    "  long long i = threadIdx.x;\n",
    "  s[smem_off(i)] = g[gmem_off(i, ld)];\n",
    "  __syncthreads();\n",
    "  o[tiles(i)] = s[smem_off_crd(i % 8, i / 8)];\n",
    "}\n",
);

#[test]
#[cfg_attr(
    not(tessel_nvrtc),
    ignore = "needs libnvrtc: see the README's Testing section"
)]
fn a_kernel_assembled_from_macros_compiles_with_nvrtc() {
    if !nvrtc_available() {
        return;
    }
    for arch in ["sm_80", "sm_90"] {
        let opts = CompileOptions {
            arch: Some(arch),
            ..CompileOptions::default()
        };
        let ptx = compile_ptx_with_opts(MACRO_KERNEL, opts)
            .unwrap_or_else(|e| panic!("NVRTC rejected the macro kernel for {arch}: {e:?}"))
            .to_src();
        assert!(ptx.contains(".entry load"), "{arch}");
    }
}
