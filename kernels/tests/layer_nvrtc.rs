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

/// The registers `%rdN` that `st.global` instructions of `text` address, each with how it was
/// computed: `Some((base, displacement))` when by `add.s64 %rdN, base, displacement`.
fn store_addresses(text: &str, opcode: &str) -> Vec<(String, Option<(String, i64)>)> {
    let lines: Vec<&str> = text.lines().map(str::trim).collect();
    lines
        .iter()
        .filter_map(|l| l.strip_prefix(opcode))
        .map(|rest| {
            let reg = rest.trim().trim_start_matches('[');
            let reg = reg[..reg.find(']').unwrap()].to_string();
            let def = lines.iter().find_map(|l| {
                let args = l.strip_prefix("add.s64")?.trim();
                let parts: Vec<&str> = args.trim_end_matches(';').split(", ").collect();
                (parts.len() == 3 && parts[0] == reg)
                    .then(|| Some((parts[1].to_string(), parts[2].parse::<i64>().ok()?)))
                    .flatten()
            });
            (reg, def)
        })
        .collect()
}

// A tensor whose offset is the sum of its modes' contributions (every layout without a swizzle,
// and a swizzle whose XOR stays inside one mode) is emitted `additive`, and slicing it moves the
// pointer, as CuTe's slicing does: the stores of one thread's accumulator pairs then share one
// base address and constant displacements. A swizzle that mixes the thread's rows into the
// columns an atom's values select is not additive, and keeps the whole offset per access.
#[test]
fn slicing_an_additive_tensor_moves_the_pointer_once() {
    let tm = make_tiled_mma(
        &mma_atom("SM80_16x8x16_F32F16F16F32_TN").unwrap(),
        &"1:0".parse().unwrap(),
        &[None, Some("16:1".parse().unwrap())],
    )
    .unwrap();
    let mma = DeviceMma::new("mma", tm.clone());
    let pairs = copy_atom("UniversalCopy<uint64_t>")
        .unwrap()
        .typed(32)
        .unwrap();
    let store = DeviceCopy::new(
        "store",
        tessel_layout::tiled::make_tiled_copy_c(&pairs, &tm).unwrap(),
    );
    // (16, 16, tiles): the accumulators of tile b go to rows 16 b ..
    let c = DeviceTensor::global(CType::F32, "(16,16,8):(16,1,256)".parse().unwrap());
    let acc = mma.partition_fragment('C', &[16, 16], CType::F32).unwrap();
    let ldsm = copy_atom("SM75_U32x4_LDSM_N").unwrap().typed(16).unwrap();
    let copy_a = DeviceCopy::new(
        "ldsm_a",
        tessel_layout::tiled::make_tiled_copy_a(&ldsm, &tm).unwrap(),
    );
    let s_a = DeviceTensor::shared(CType::B16, "Sw<3,3,3> o (16,64):(64,1)".parse().unwrap());
    let body = "auto acc = tensor::acc();\n  \
                for (int i = 0; i < (int)acc.size(); ++i) acc[i] = (float)(threadIdx.x + i);\n  \
                tessel::copy(copy::store{}, tensor::view(acc), \
                tensor::c(out)(threadIdx.x, _, _, _, _, blockIdx.x));\n  \
                copy::ldsm_a unused; (void)unused; (void)&tensor::sa<b16>;\n";
    let k = KernelBuilder::new("store_pairs", body)
        .tiled_copy(&store)
        .tiled_copy(&copy_a)
        .tensor("acc", &acc)
        .tensor("view", &store.retile_s(&acc).unwrap())
        .tensor("c", &store.partition_d(&c).unwrap())
        .tensor("sa", &copy_a.partition_s(&s_a).unwrap())
        .param(Param::output("out", CType::F32.into()).len(8 * 256))
        .threads(32)
        .grid(8, 1, 1)
        .build()
        .unwrap();
    let src = k.source();
    // The `additive` constant of a tensor's layout type.
    let flag = |name: &str| {
        let at = src.find(&format!("struct {name}_layout {{")).unwrap();
        let end = at + src[at..].find("};").unwrap();
        src[at..end].contains("additive = true")
    };
    assert!(flag("c") && flag("view") && flag("acc"));
    assert!(
        !flag("sa"),
        "the ldmatrix rows of a Sw<3,3,3> tile are not additive"
    );
    if !nvrtc_or_skip("additive_slicing") {
        return;
    }
    let text = ptx(&k, Arch::new(8, 0).unwrap());
    let stores = store_addresses(&text, "st.global.v2.b32");
    assert_eq!(stores.len(), 4, "{text}");
    // The first store's address is the thread's base; the others add constants to it.
    let base = &stores[0].0;
    let displaced: Vec<i64> = stores[1..]
        .iter()
        .map(|(_, def)| match def {
            Some((b, d)) if b == base => *d,
            other => panic!("a store not displaced from {base}: {other:?}\n{text}"),
        })
        .collect();
    // Accumulator pairs: (row + 8), (column + 8), both; 4 bytes per float.
    assert_eq!(displaced, [8 * 16 * 4, 8 * 4, (8 * 16 + 8) * 4], "{text}");
}
