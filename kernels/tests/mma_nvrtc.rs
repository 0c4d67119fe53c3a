//! Every tensor-core swizzle kernel (`tessel_kernels::mma`, four problems, swizzled and plain)
//! compiles with NVRTC for sm_80 and sm_90 (no GPU needed; ignored, with the reason, when
//! the build found no libnvrtc: `cfg(tessel_nvrtc)`, `kernels/build.rs`), and its PTX holds the
//! instructions the plan counts on: the ldmatrix loads (with .trans where the B operand is
//! N-contiguous), the mma.sync products, the 128-bit shared stores, no local memory, and for
//! problem 4 the fp16 `C2` path through shared memory (pack, 32-bit shared stores, 128-bit
//! read-out and global store).

mod common;

use common::nvrtc_or_skip;
use tessel_kernels::Arch;
use tessel_kernels::compile::compile_ptx;
use tessel_kernels::mma::run::{MmaKernel, Problem};

fn compile_all(arch: Arch) {
    for problem in Problem::ALL {
        for swizzled in [true, false] {
            let k = MmaKernel::new(problem, swizzled, 64).unwrap();
            let kernel = k.kernel().unwrap();
            let ptx = compile_ptx(kernel.source(), kernel.name(), arch)
                .unwrap_or_else(|e| panic!("{}: {e}", k.name()))
                .to_src();
            let name = k.name();
            assert!(ptx.contains(&format!(".target {arch}")), "{name}");
            assert!(!ptx.contains(".local"), "{name} uses local memory");
            // Loads per operand read, products per 16x16 tile (two n8 blocks).
            let (ldsm, trans, mma) = match problem {
                Problem::Power => (2, 1, 2),
                Problem::Pair => (2, 1, 2),
                Problem::Modes | Problem::Relayout => (4, 0, 4),
            };
            assert_eq!(
                ptx.matches("ldmatrix.sync.aligned.m8n8.x4").count(),
                ldsm,
                "{name}"
            );
            assert_eq!(ptx.matches(".x4.trans.shared.b16").count(), trans, "{name}");
            assert_eq!(
                ptx.matches("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32")
                    .count(),
                mma,
                "{name}"
            );
            assert!(
                ptx.contains("st.shared.v4"),
                "{name}: no 128-bit shared stores"
            );
            if problem == Problem::Relayout {
                // C1 straight to global (4 float2 per thread); C2 as 4 fp16 pairs per thread
                // into shared memory, read out with one 128-bit load (after the re-layout's
                // two) and stored to global with one 128-bit store.
                for (instruction, count) in [
                    ("st.global.v2.f32", 4),
                    ("cvt.rn.f16x2.f32", 4),
                    ("st.shared.u32", 4),
                    ("ld.shared.v4", 3),
                    ("st.global.v4", 1),
                ] {
                    assert_eq!(
                        ptx.matches(instruction).count(),
                        count,
                        "{name}: {instruction}"
                    );
                }
            }
        }
    }
}

#[test]
#[cfg_attr(
    not(tessel_nvrtc),
    ignore = "needs libnvrtc: see the README's Testing section"
)]
fn every_mma_kernel_compiles_for_sm80() {
    if nvrtc_or_skip("mma_nvrtc") {
        compile_all(Arch::new(8, 0).unwrap());
    }
}

#[test]
#[cfg_attr(
    not(tessel_nvrtc),
    ignore = "needs libnvrtc: see the README's Testing section"
)]
fn every_mma_kernel_compiles_for_sm90() {
    if nvrtc_or_skip("mma_nvrtc") {
        compile_all(Arch::new(9, 0).unwrap());
    }
}
