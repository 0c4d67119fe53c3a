//! Every tensor-core swizzle kernel (`tessel_kernels::mma`, four problems, swizzled and plain)
//! compiles with NVRTC for sm_80 and sm_90 (no GPU needed; ignored, with the reason, when
//! the build found no libnvrtc: `cfg(tessel_nvrtc)`, `kernels/build.rs`), and its PTX holds exactly
//! the instructions the plan counts on, at their widths: the 128-bit chunk loads and stores, the
//! ldmatrix loads (with .trans where the B operand is N-contiguous), the mma.sync products, the
//! accumulators' stores, no local memory, and for problem 4 the fp16 `C2` path through shared
//! memory (pack, 32-bit shared stores, 128-bit read-out and global store).

mod common;

use common::nvrtc_or_skip;
use tessel_kernels::Arch;
use tessel_kernels::compile::compile_ptx;
use tessel_kernels::mma::run::{MmaKernel, Problem};

/// The tensor-core instruction of every product.
const MMA: &str = "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32";

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
            // Every memory, tensor-core and conversion instruction of the kernel, counted at its
            // width: 128-bit global loads and shared stores of the 16-byte chunks, one
            // ldmatrix.x4 per operand read (.trans where B is N-contiguous), two mma.sync per
            // 16x16 product, the accumulators as fp32 pairs (64-bit global stores) or fp16
            // pairs (cvt.rn.f16x2, 32-bit shared stores), and the 128-bit read-outs.
            let expect: &[(&str, usize)] = match problem {
                Problem::Power => &[
                    ("ld.global.nc.v4.u32", 1),
                    ("st.shared.v4.b32", 2),
                    ("ldmatrix.sync.aligned.m8n8.x4.shared.b16", 1),
                    ("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16", 1),
                    (MMA, 2),
                    ("cvt.rn.f16x2.f32", 4),
                    ("st.shared.b32", 4),
                    ("ld.shared.v4.u32", 1),
                    ("st.global.v4.b32", 1),
                    ("st.global.v2.b32", 0),
                ],
                Problem::Pair => &[
                    ("ld.global.nc.v4.u32", 2),
                    ("st.shared.v4.b32", 2),
                    ("ldmatrix.sync.aligned.m8n8.x4.shared.b16", 1),
                    ("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16", 1),
                    (MMA, 2),
                    ("st.global.v2.b32", 4),
                    ("ld.shared", 0),
                ],
                Problem::Modes => &[
                    ("ld.global.nc.v4.u32", 2),
                    ("st.shared.v4.b32", 2),
                    ("ldmatrix.sync.aligned.m8n8.x4.shared.b16", 4),
                    ("ldmatrix.sync.aligned.m8n8.x4.trans", 0),
                    (MMA, 4),
                    ("st.global.v2.b32", 8),
                    ("bar.sync", 1),
                ],
                Problem::Relayout => &[
                    ("ld.global.nc.v4.u32", 2),
                    ("st.shared.v4.b32", 4),
                    ("ldmatrix.sync.aligned.m8n8.x4.shared.b16", 4),
                    ("ldmatrix.sync.aligned.m8n8.x4.trans", 0),
                    (MMA, 4),
                    ("st.global.v2.b32", 4),
                    ("cvt.rn.f16x2.f32", 4),
                    ("st.shared.b32", 4),
                    ("ld.shared.v4.u32", 3),
                    ("st.global.v4.b32", 1),
                    ("bar.sync", 5),
                ],
            };
            for &(instruction, count) in expect {
                assert_eq!(
                    ptx.matches(instruction).count(),
                    count,
                    "{name}: {instruction}"
                );
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
