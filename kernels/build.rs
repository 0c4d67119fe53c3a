//! Finds out, once per build, whether the tests that need libnvrtc or `nvdisasm` can run here,
//! so that those that cannot are reported as ignored (with the reason) instead of passing
//! without doing anything.
//!
//! - `cfg(tessel_nvrtc)`: libnvrtc loads here, by the search the runtime does (cudarc's
//!   `nvrtc::sys::is_culib_present`: `dlopen` of cudarc's candidate names, so through
//!   `LD_LIBRARY_PATH`, the loader cache and the system folders), or `TESSEL_REQUIRE_NVRTC=1`
//!   asks for the NVRTC tests to run (then a missing libnvrtc fails them).
//! - `cfg(tessel_nvdisasm)`: `TESSEL_NVDISASM` names an existing `nvdisasm`.
//!
//! The verdict goes to the packages that depend on this one as `DEP_TESSEL_KERNELS_NVRTC`
//! (`1` or `0`), so `tessel-kit`'s NVRTC tests use the same probe.

use std::env;
use std::path::Path;

/// cudarc 0.19's `get_lib_name_candidates("nvrtc")` (its `src/lib.rs`) for the CUDA version
/// this workspace selects (feature `cuda-13000`: major 13, minor 0), on 64-bit targets.
fn nvrtc_candidates() -> Vec<String> {
    let (pre, suf) = (env::consts::DLL_PREFIX, env::consts::DLL_SUFFIX);
    let mut names: Vec<String> = [
        "", "64", "64_13", "64_130", "64_130_0", "64_10", "64_11", "64_12", "64_9",
    ]
    .iter()
    .map(|tail| format!("{pre}nvrtc{tail}{suf}"))
    .collect();
    names.extend(
        ["13", "12", "11", "10", "9", "1"]
            .iter()
            .map(|major| format!("{pre}nvrtc{suf}.{major}")),
    );
    names
}

#[cfg(unix)]
fn loadable(name: &str) -> bool {
    use std::ffi::{CString, c_char, c_int, c_void};
    // The C library's loader (std links it on every Unix target).
    unsafe extern "C" {
        fn dlopen(filename: *const c_char, flag: c_int) -> *mut c_void;
        fn dlclose(handle: *mut c_void) -> c_int;
    }
    const RTLD_LAZY: c_int = 1;
    let Ok(name) = CString::new(name) else {
        return false;
    };
    // SAFETY: `name` is a NUL-terminated string that outlives the call; a handle that is
    // returned is closed at once and never used.
    unsafe {
        let handle = dlopen(name.as_ptr(), RTLD_LAZY);
        if handle.is_null() {
            return false;
        }
        dlclose(handle);
    }
    true
}

/// Without a probe for this platform the NVRTC tests are ignored unless
/// `TESSEL_REQUIRE_NVRTC=1` asks for them.
#[cfg(not(unix))]
fn loadable(_name: &str) -> bool {
    false
}

fn main() {
    println!("cargo::rustc-check-cfg=cfg(tessel_nvrtc)");
    println!("cargo::rustc-check-cfg=cfg(tessel_nvdisasm)");
    println!("cargo::rerun-if-changed=build.rs");
    for var in [
        "LD_LIBRARY_PATH",
        "DYLD_LIBRARY_PATH",
        "TESSEL_REQUIRE_NVRTC",
        "TESSEL_NVDISASM",
    ] {
        println!("cargo::rerun-if-env-changed={var}");
    }
    // A libnvrtc installed system-wide shows up in the loader cache.
    if Path::new("/etc/ld.so.cache").exists() {
        println!("cargo::rerun-if-changed=/etc/ld.so.cache");
    }

    let required = env::var("TESSEL_REQUIRE_NVRTC").as_deref() == Ok("1");
    let nvrtc = required || nvrtc_candidates().iter().any(|name| loadable(name));
    if nvrtc {
        println!("cargo::rustc-cfg=tessel_nvrtc");
    }
    println!("cargo::metadata=nvrtc={}", u8::from(nvrtc));

    if env::var_os("TESSEL_NVDISASM").is_some_and(|p| Path::new(&p).is_file()) {
        println!("cargo::rustc-cfg=tessel_nvdisasm");
    }
}
