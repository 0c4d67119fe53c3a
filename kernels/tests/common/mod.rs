//! Shared by the GPU and NVRTC tests: open the GPU or load NVRTC, or explain the skip.
//!
//! The NVRTC tests are `#[cfg_attr(not(tessel_nvrtc), ignore = ...)]` (the probe is
//! `kernels/build.rs`), and the GPU tests `#[ignore]`d, so cargo reports them as ignored where they
//! cannot run; the run-time checks below cover a run that includes them anyway
//! (`-- --include-ignored`).

// Each test binary uses only some of these helpers.
#![allow(dead_code)]

use tessel_kernels::compile::{Cubin, compile_cubin};
use tessel_kernels::{Arch, Gpu, GpuResult};

/// `Some(value)`, or `None` after printing why `test` is skipped. Panics (fails the test) when
/// the environment variable `require` is `1`.
fn found_or_skip<T>(test: &str, require: &str, found: GpuResult<T>) -> Option<T> {
    match found {
        Ok(value) => Some(value),
        Err(e) => {
            if std::env::var(require).as_deref() == Ok("1") {
                panic!("{test}: {require}=1 but {e}");
            }
            eprintln!("{test}: skipped: {e}");
            None
        }
    }
}

/// The GPU, or `None` after printing why the test is skipped. Panics (fails the test) when
/// `TESSEL_REQUIRE_GPU=1` and no GPU is available.
pub fn gpu_or_skip(test: &str) -> Option<Gpu> {
    let gpu = found_or_skip(test, "TESSEL_REQUIRE_GPU", Gpu::open(0))?;
    eprintln!("{test}: running on {}", gpu.describe());
    Some(gpu)
}

/// True when NVRTC can be loaded; otherwise false after printing why the test is skipped.
/// Panics (fails the test) when `TESSEL_REQUIRE_NVRTC=1` and NVRTC is missing.
pub fn nvrtc_or_skip(test: &str) -> bool {
    found_or_skip(
        test,
        "TESSEL_REQUIRE_NVRTC",
        tessel_kernels::device::require_nvrtc(),
    )
    .is_some()
}

/// The rows `tessel bench all` measures for `opts` (copy and transpose ladder, then the
/// microkernels); panics on a failed run.
pub fn bench_rows(
    gpu: &Gpu,
    opts: &tessel_kernels::bench::BenchOptions,
) -> Vec<tessel_kernels::bench::Row> {
    use tessel_kernels::tiled::TiledKind;
    let mut kinds = vec![TiledKind::Copy];
    kinds.extend(TiledKind::LADDER);
    let mut progress = Vec::new();
    let mut rows = tessel_kernels::bench::matrix_rows(gpu, opts, &kinds, &mut progress).unwrap();
    rows.extend(tessel_kernels::bench::micro_rows(gpu, opts, &mut progress).unwrap());
    rows
}

/// Whether the long sweeps run (`TESSEL_LONG_TESTS=1`): every combination of a sweep, where the
/// default checks each rung and plan once with a smaller set of the other parameters.
pub fn long_tests() -> bool {
    std::env::var("TESSEL_LONG_TESTS").as_deref() == Ok("1")
}

/// The `cases` checked with the `i`-th item of an outer sweep (a rung, a kernel): all of them
/// under `TESSEL_LONG_TESTS=1`, else the `i`-th in turn, so that every item is checked and,
/// over an outer sweep at least as long as `cases`, every case too.
pub fn in_turn<T: Clone>(cases: &[T], i: usize) -> Vec<T> {
    if long_tests() {
        cases.to_vec()
    } else {
        vec![cases[i % cases.len()].clone()]
    }
}

/// The SASS of `cubin` by `nvdisasm -c` (`nvdisasm -c FILE` through a file in a temporary folder
/// named after `test` and the process, removed afterwards); panics if nvdisasm fails.
pub fn sass_of(nvdisasm: &str, cubin: &[u8], test: &str) -> String {
    let dir = std::env::temp_dir().join(format!("tessel_{test}_{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("kernel.cubin");
    std::fs::write(&file, cubin).unwrap();
    let out = std::process::Command::new(nvdisasm)
        .arg("-c")
        .arg(&file)
        .output()
        .unwrap_or_else(|e| panic!("cannot run {nvdisasm}: {e}"));
    let _ = std::fs::remove_dir_all(&dir);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// Asserts that the descriptors of every `op` instruction that follows another of the same
/// k-tile (at most 16 lines after it) in `sass` are formed in uniform registers: none of the
/// four uniform registers its `gdesc[URn]` names (A's pair and B's) is moved there from an
/// ordinary register (`R2UR`) between the two.
pub fn assert_gmma_descriptors_uniform(name: &str, sass: &str, op: &str) {
    let lines: Vec<&str> = sass.lines().collect();
    let at: Vec<usize> = (0..lines.len())
        .filter(|&i| lines[i].contains(op))
        .collect();
    let mut pairs = 0;
    for w in at.windows(2).filter(|w| w[1] - w[0] <= 16) {
        let gdesc = lines[w[1]]
            .split("gdesc[UR")
            .nth(1)
            .and_then(|rest| rest.split(']').next())
            .and_then(|n| n.parse::<u32>().ok())
            .unwrap_or_else(|| panic!("{name}: no gdesc[URn] in {}", lines[w[1]]));
        pairs += 1;
        let between = &lines[w[0]..=w[1]];
        for r in gdesc..gdesc + 4 {
            let moved = format!("R2UR UR{r},");
            assert!(
                !between.iter().any(|l| l.contains(&moved)),
                "{name}: descriptor register UR{r} of an {op} moved from an ordinary register:\n{}",
                between.join("\n")
            );
        }
    }
    assert!(pairs > 0, "{name}: no two {op} of one k-tile");
}

/// NVRTC's CUBIN of kernel `name` from `source` for `arch`, with ptxas's verbose report
/// (registers, stack, spills, warnings) in the log; a compile error fails the test.
pub fn verbose_cubin(source: &str, name: &str, arch: Arch) -> Cubin {
    compile_cubin(source, name, arch, &["--ptxas-options=--verbose"])
        .unwrap_or_else(|e| panic!("{name}: {e}"))
}

/// Asserts that ptxas's verbose log of `name` reports no stack frame and no spills.
pub fn assert_no_spills(name: &str, log: &str) {
    assert!(
        log.contains("0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads"),
        "{name}: {log}"
    );
}

/// Asserts that ptxas's verbose log of `name` has no performance warning (a spill-free,
/// unserialized kernel: no "Performance Loss", "serialized", C7508 or other warning).
pub fn assert_ptxas_log_clean(name: &str, log: &str) {
    for bad in ["Performance Loss", "serialized", "C7508", "warning"] {
        assert!(!log.contains(bad), "{name}: ptxas says {bad}: {log}");
    }
}
