//! The tensor layer's generated C++ compiles with NVRTC and lowers to the atoms' instructions
//! (skipped with a reason when libnvrtc cannot be loaded, failing under
//! `TESSEL_REQUIRE_NVRTC=1`).

mod common;

use common::nvrtc_or_skip;
use tessel_kernels::Arch;
use tessel_kernels::compile::compile_ptx;
use tessel_kernels::kernel::{CType, KernelBuilder, Param};
use tessel_kernels::layer::{DeviceCopy, DeviceMma, DeviceTensor};
use tessel_layout::atom::{copy_atom, mma_atom};
use tessel_layout::tiled::{make_tiled_copy, make_tiled_mma};

fn ptx(k: &tessel_kernels::kernel::Kernel, arch: Arch) -> String {
    compile_ptx(k.source(), k.name(), arch)
        .unwrap_or_else(|e| panic!("{}: {e}\n{}", k.name(), k.source()))
        .to_src()
}

#[test]
#[cfg_attr(
    not(tessel_nvrtc),
    ignore = "needs libnvrtc: see the README's Testing section"
)]
fn vector_copy_through_registers_is_one_128_bit_load_and_store_per_thread() {
    if !nvrtc_or_skip("vector_copy") {
        return;
    }
    let atom = copy_atom("UniversalCopy<uint128_t>")
        .unwrap()
        .typed(32)
        .unwrap();
    let load = DeviceCopy::new(
        "load",
        make_tiled_copy(
            &atom,
            &"(32,8):(8,1)".parse().unwrap(),
            &"(1,4):(0,1)".parse().unwrap(),
        )
        .unwrap(),
    );
    let src = DeviceTensor::global(CType::F32, "(64,64):(64,1)".parse().unwrap());
    let dst = DeviceTensor::global(CType::F32, "(64,64):(64,1)".parse().unwrap());
    let s = load
        .partition_s(&src.local_tile(&[32, 32]).unwrap())
        .unwrap();
    let d = load
        .partition_d(&dst.local_tile(&[32, 32]).unwrap())
        .unwrap();
    let r = s.fragment_like(1..5).unwrap();
    let body = "const int bm = blockIdx.x % 2, bn = blockIdx.x / 2;\n  \
                auto gs = tensor::s(in)(threadIdx.x, _, _, _, _, bm, bn);\n  \
                auto gd = tensor::d(out)(threadIdx.x, _, _, _, _, bm, bn);\n  \
                auto r = tensor::r();\n  \
                tessel::copy(copy::load{}, gs, r.tensor());\n  \
                tessel::copy(copy::load{}, r.tensor(), gd);\n";
    let k = KernelBuilder::new("copy64", body)
        .tiled_copy(&load)
        .tensor("s", &s)
        .tensor("d", &d)
        .tensor("r", &r)
        .param(Param::input("in", CType::F32.into()).len(64 * 64))
        .param(Param::output("out", CType::F32.into()).len(64 * 64))
        .threads(256)
        .grid(4, 1, 1)
        .build()
        .unwrap();
    let text = ptx(&k, Arch::new(8, 0).unwrap());
    if std::env::var("DUMP").is_ok() {
        std::fs::write("/tmp/copy64.ptx", &text).unwrap();
    }
    assert!(!text.contains(".local"), "local memory:\n{text}");
    assert_eq!(
        text.matches("ld.global.v4").count() + text.matches("ld.global.nc.v4").count(),
        1,
        "{text}"
    );
    assert_eq!(text.matches("st.global.v4").count(), 1, "{text}");
}

#[test]
#[cfg_attr(
    not(tessel_nvrtc),
    ignore = "needs libnvrtc: see the README's Testing section"
)]
fn ldmatrix_and_mma_sync_over_fragments() {
    if !nvrtc_or_skip("ldmatrix_mma") {
        return;
    }
    let tm = make_tiled_mma(
        &mma_atom("SM80_16x8x16_F32F16F16F32_TN").unwrap(),
        &"(2,2):(1,2)".parse().unwrap(),
        &[],
    )
    .unwrap();
    let mma = DeviceMma::new("mma", tm.clone());
    let ldsm = copy_atom("SM75_U32x4_LDSM_N").unwrap().typed(16).unwrap();
    let copy_a = DeviceCopy::new(
        "ldsm_a",
        tessel_layout::tiled::make_tiled_copy_a(&ldsm, &tm).unwrap(),
    );
    let s_a = DeviceTensor::shared(CType::B16, "Sw<3,3,3> o (32,64):(64,1)".parse().unwrap());
    let frag_a = mma.partition_fragment('A', &[32, 64], CType::B16).unwrap();
    let t_a = copy_a.partition_s(&s_a).unwrap();
    let view = copy_a.retile_d(&frag_a).unwrap();
    mma.check_fed_by('A', &copy_a, &[32, 64], &view, &frag_a)
        .unwrap();
    let frag_b = mma.partition_fragment('B', &[16, 64], CType::B16).unwrap();
    let acc = mma.partition_fragment('C', &[32, 16], CType::F32).unwrap();
    let body = "__shared__ __align__(128) b16 sa[32 * 64];\n  \
                for (int i = threadIdx.x; i < 32 * 64; i += 128) sa[i] = in[i];\n  \
                __syncthreads();\n  \
                auto a = tensor::fa(); auto b = tensor::fb(); auto c = tensor::acc();\n  \
                c.fill(0.0f);\n  \
                for (int i = 0; i < (int)b.size(); ++i) b[i] = in[i];\n  \
                tessel::copy(copy::ldsm_a{}, tensor::sa(sa)(threadIdx.x, _, _, _, _), tensor::va(a));\n  \
                tessel::gemm(mma::mma{}, a.tensor(), b.tensor(), c.tensor());\n  \
                for (int i = 0; i < (int)c.size(); ++i) out[threadIdx.x * c.size() + i] = c[i];\n";
    let k = KernelBuilder::new("mma_frag", body)
        .tiled_copy(&copy_a)
        .tiled_mma(&mma)
        .tensor("sa", &t_a)
        .tensor("fa", &frag_a)
        .tensor("va", &view)
        .tensor("fb", &frag_b)
        .tensor("acc", &acc)
        .param(Param::input("in", CType::B16.into()).len(32 * 64))
        .param(Param::output("out", CType::F32.into()).len(128 * 16))
        .threads(128)
        .build()
        .unwrap();
    let text = ptx(&k, Arch::new(8, 0).unwrap());
    if std::env::var("DUMP").is_ok() {
        std::fs::write("/tmp/mma.ptx", &text).unwrap();
    }
    assert!(!text.contains(".local"), "local memory:\n{text}");
    // One ldmatrix.x4 per 16-wide k block of the warp's 16 x 64 slice of A; one mma per k block
    // (each warp's 16 x 8 x 64 share of the 32 x 16 x 64 product).
    assert_eq!(
        text.matches("ldmatrix.sync.aligned.m8n8.x4").count(),
        4,
        "{text}"
    );
    assert_eq!(
        text.matches("mma.sync.aligned.m16n8k16").count(),
        4,
        "{text}"
    );
}

/// A swizzled shared partition the host splits (the thread's part of the offset hoisted, the
/// atoms and the stage added): its swizzle is computed once per thread, however many atoms and
/// stages the loop copies; and an element of a fully indexed tensor is an lvalue.
#[test]
#[cfg_attr(
    not(tessel_nvrtc),
    ignore = "needs libnvrtc: see the README's Testing section"
)]
fn a_split_partition_computes_its_swizzle_once_per_thread() {
    if !nvrtc_or_skip("split_partition") {
        return;
    }
    let atom = copy_atom("SM80_CP_ASYNC_CACHEGLOBAL<uint128_t>")
        .unwrap()
        .typed(16)
        .unwrap();
    // 64 threads, 16-byte chunks: an 8 x 64 fp16 tile per pass, 4 passes down 32 rows.
    let g2s = DeviceCopy::new(
        "g2s",
        make_tiled_copy(
            &atom,
            &"(8,8):(8,1)".parse().unwrap(),
            &"(1,8):(0,1)".parse().unwrap(),
        )
        .unwrap(),
    );
    let src = DeviceTensor::global(CType::B16, "(32,64):(64,1)".parse().unwrap());
    let stages = DeviceTensor::shared(
        CType::B16,
        "Sw<3,3,3> o (32,64,4):(64,1,2048)".parse().unwrap(),
    );
    let s = g2s.partition_s(&src).unwrap();
    let d = g2s.partition_d(&stages).unwrap();
    assert_eq!(d.hoisted_modes().unwrap(), Some(vec![0]));
    let body = "__shared__ __align__(128) b16 sm[4 * 32 * 64];\n  \
                auto g = tensor::s(in)(threadIdx.x, _, _, _, _);\n  \
                auto st = tensor::d(sm)(threadIdx.x, _, _, _, _, _);\n  \
                for (int r = 0; r < reps; ++r) {\n    \
                  tessel::copy(copy::g2s{}, g, st(_, _, _, _, r % 4));\n    \
                  tessel_cp_async_commit();\n  \
                }\n  \
                tessel_cp_async_wait<0>();\n  \
                __syncthreads();\n  \
                out[threadIdx.x] = tensor::d(sm)(threadIdx.x, 0, 0, 1, 0, 3);\n";
    let k = KernelBuilder::new("split_copy", body)
        .tiled_copy(&g2s)
        .tensor("s", &s)
        .tensor("d", &d)
        .param(Param::input("in", CType::B16.into()).len(32 * 64))
        .param(Param::output("out", CType::B16.into()).len(64))
        .param(Param::scalar("reps", tessel_kernels::kernel::Scalar::I32))
        .threads(64)
        .build()
        .unwrap();
    assert!(k.source().contains("static constexpr int hoist_count = 1;"));
    let text = ptx(&k, Arch::new(8, 0).unwrap());
    assert!(!text.contains(".local"), "local memory:\n{text}");
    assert_eq!(
        text.matches("cp.async.cg.shared.global").count(),
        4,
        "{text}"
    );
    // One swizzle for the copies' base (the element read at the end has its own).
    assert!(text.matches("xor.b32").count() <= 2, "{text}");
}

/// A global tensor with run-time strides (a tile of a matrix whose leading dimension is a
/// kernel parameter): its layout object holds the stride, the body slices a row and stores
/// into it, and the offsets are `r * ld + c` for the stride given at run time.
#[test]
fn global_tensors_with_run_time_strides_hold_them() {
    let tile =
        DeviceTensor::global_strided(CType::F32, "(64,128):(ld,1)".parse().unwrap()).unwrap();
    // The host twin: bound to ld = 1000, element (3, 5) is at 3005.
    let bound = tile.bind(&|s| (s == "ld").then_some(1000)).unwrap();
    assert_eq!(bound.layout().offset(3 + 64 * 5).unwrap(), 3005);
    // Its host derivations that need integer strides are refused, naming the reason.
    let id = DeviceTensor::identity(&[64, 128], 0).unwrap();
    assert!(tile.group(&[&[0, 1]]).is_err() && id.group(&[&[0, 1]]).is_ok());
    if !nvrtc_or_skip("runtime_strides") {
        return;
    }
    let body = "auto row = tensor::gd(out + (long long)blockIdx.x * 64 * ld, ld)(threadIdx.x % 64, _);\n  \
                for (int c = 0; c < 128; ++c) row(c) = (float)c;\n";
    let k = KernelBuilder::new("strided_fill", body)
        .tensor("gd", &tile)
        .param(Param::output("out", CType::F32.into()))
        .param(Param::scalar("ld", tessel_kernels::kernel::Scalar::I64))
        .threads(64)
        .build()
        .unwrap();
    assert!(k.source().contains("long long ld;"), "{}", k.source());
    assert!(
        k.source().contains("gd_crd(c[0], c[1], ld)"),
        "{}",
        k.source()
    );
    let text = ptx(&k, Arch::new(8, 0).unwrap());
    // The slice folds the row's offset into the pointer: the loop stores at constant offsets.
    assert!(text.contains("st.global.f32"), "{text}");
    assert!(!text.contains(".local"), "local memory:\n{text}");
}

#[test]
#[cfg_attr(
    not(tessel_nvrtc),
    ignore = "needs libnvrtc: see the README's Testing section"
)]
fn a_strided_register_view_stores_the_registers_its_layout_names() {
    if !nvrtc_or_skip("strided_view") {
        return;
    }
    // One thread stores a 4 x 4 row-major tile, a row (4 consecutive floats) per 128-bit store,
    // from a column-major fragment: register r + 4 c holds element (r, c), so one store's 4
    // values are registers r, r + 4, r + 8, r + 12 (the view's mode 0 has stride 4).
    let atom = copy_atom("UniversalCopy<uint128_t>")
        .unwrap()
        .typed(32)
        .unwrap();
    let st = DeviceCopy::new(
        "st",
        make_tiled_copy(
            &atom,
            &"(1,1):(0,0)".parse().unwrap(),
            &"(4,4):(4,1)".parse().unwrap(),
        )
        .unwrap(),
    );
    let out = DeviceTensor::global(CType::F32, "(4,4):(4,1)".parse().unwrap());
    let d = st.partition_d(&out).unwrap();
    let frag = DeviceTensor::fragment(CType::F32, &"(1,4,4)".parse().unwrap()).unwrap();
    let view = st.retile_s(&frag).unwrap();
    assert_eq!(view.layout().layout().mode(0).unwrap().to_string(), "4:4");
    let body = "auto r = tensor::frag();\n  \
                for (int i = 0; i < 16; ++i) r.r[i] = (float)i;\n  \
                tessel::copy(copy::st{}, tensor::view(r), tensor::d(out)(0, _, _, _, _));\n";
    let k = KernelBuilder::new("strided_view", body)
        .tiled_copy(&st)
        .tensor("frag", &frag)
        .tensor("view", &view)
        .tensor("d", &d)
        .param(Param::output("out", CType::F32.into()).len(16))
        .threads(1)
        .build()
        .unwrap_or_else(|e| panic!("{e}\n{d}\n{view}"));
    let text = ptx(&k, Arch::new(8, 0).unwrap());
    // The stores, in order: row r stores the registers r, r + 4, r + 8, r + 12, whose values the
    // compiler folds into immediates (`mov.u32 %rN, BITS;`, the float's bits).
    let mut immediates = std::collections::BTreeMap::new();
    for line in text.lines() {
        let t = line.trim().trim_end_matches(';');
        if let Some(rest) = t.strip_prefix("mov.u32") {
            if let Some((reg, value)) = rest.split_once(',') {
                if let Ok(v) = value.trim().parse::<u32>() {
                    immediates.insert(reg.trim().to_string(), f32::from_bits(v));
                }
            }
        }
    }
    let stores: Vec<Vec<f32>> = text
        .lines()
        .filter(|l| l.contains("st.global.v4"))
        .map(|l| {
            let regs = &l[l.find('{').unwrap() + 1..l.find('}').unwrap()];
            regs.split(',')
                .map(|r| immediates.get(r.trim()).copied().unwrap_or(0.0))
                .collect()
        })
        .collect();
    let want: Vec<Vec<f32>> = (0..4)
        .map(|r| (0..4).map(|c| (r + 4 * c) as f32).collect())
        .collect();
    assert_eq!(stores, want, "{text}");
}

#[test]
#[cfg_attr(
    not(tessel_nvrtc),
    ignore = "needs libnvrtc: see the README's Testing section"
)]
fn copy_if_reads_its_predicates_once_per_atom_call_and_drops_proven_ones() {
    // 64 threads copy a 64 x 16 fp32 tile, 4 consecutive floats (one 128-bit vector) each, of
    // a 60 x 16 matrix stored in 64 rows: rows 60..64 are beyond it. The predicate is the row
    // coordinate below 60, read once per vector.
    let atom = copy_atom("UniversalCopy<uint128_t>")
        .unwrap()
        .typed(32)
        .unwrap();
    let load = DeviceCopy::new(
        "load",
        make_tiled_copy(
            &atom,
            &"(16,4):(4,1)".parse().unwrap(),
            &"(1,4):(0,1)".parse().unwrap(),
        )
        .unwrap(),
    );
    let g = DeviceTensor::global(CType::F32, "(64,16):(16,1)".parse().unwrap());
    let s = load.partition_s(&g).unwrap();
    let rows = load
        .partition_s(&DeviceTensor::identity(&[64, 16], 0).unwrap())
        .unwrap();
    load.check_predicate(&rows, 60).unwrap();
    // A column bound inside a vector cannot be read at its first value: refused.
    let cols = load
        .partition_s(&DeviceTensor::identity(&[64, 16], 1).unwrap())
        .unwrap();
    let err = load.check_predicate(&cols, 14).unwrap_err();
    assert!(err.to_string().contains("straddle"), "{err}");
    // Every row below 64 is not every row below 60: the host refuses to drop the check.
    assert!(rows.unchecked(60).is_err());
    let whole = rows.unchecked(64).unwrap();
    if !nvrtc_or_skip("copy_if") {
        return;
    }
    let r = s.fragment_like(1..s.rank()).unwrap();
    let body = "auto frag = tensor::r();\n  frag.fill(0.f);\n  \
                tessel::copy_if(copy::load{}, tessel::elem_less(tensor::p()(threadIdx.x, _, _, _, _), 60),\n  \
                                tensor::s(in)(threadIdx.x, _, _, _, _), frag.tensor());\n  \
                for (int i = 0; i < 16; ++i) out[16 * threadIdx.x + i] = frag.r[i];\n";
    let kernel = |pred: &DeviceTensor| {
        KernelBuilder::new("pred", body)
            .tiled_copy(&load)
            .tensor("s", &s)
            .tensor("r", &r)
            .tensor("p", pred)
            .param(Param::input("in", CType::F32.into()).len(64 * 16))
            .param(Param::output("out", CType::F32.into()).len(64 * 16))
            .threads(64)
            .build()
            .unwrap()
    };
    let checked = ptx(&kernel(&rows), Arch::new(8, 0).unwrap());
    let plain = ptx(&kernel(&whole), Arch::new(8, 0).unwrap());
    let loads = |t: &str| {
        t.lines()
            .filter(|l| l.contains("ld.global.nc.v4") || l.contains("ld.global.v4"))
            .count()
    };
    // 16 floats per thread: 4 vectors, rows 0..16, 16..32, 32..48, 48..64 of the thread.
    assert_eq!((loads(&checked), loads(&plain)), (4, 4), "{checked}");
    assert!(checked.contains("setp."), "{checked}");
    assert!(!plain.contains("setp."), "{plain}");
}
