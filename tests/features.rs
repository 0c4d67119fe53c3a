//! The crate features: `default-features = false` gives the algebra and the macros without
//! cudarc, the kernels or the command line (`cargo tree` is asked, as a user would).

use std::process::Command;

/// The package names in `cargo tree -p tessel` (normal, build and dev edges) with `flags`.
fn tree(flags: &[&str]) -> Vec<String> {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let manifest = concat!(env!("CARGO_MANIFEST_DIR"), "/Cargo.toml");
    let out = Command::new(cargo)
        .args(["tree", "--manifest-path", manifest, "-p", "tessel"])
        .args([
            "--prefix",
            "none",
            "-e",
            "normal,build,dev",
            "--format",
            "{p}",
        ])
        .args(flags)
        .output()
        .expect("cargo runs");
    assert!(
        out.status.success(),
        "cargo tree failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter_map(|l| l.split_whitespace().next().map(str::to_string))
        .collect()
}

#[test]
fn no_default_features_pulls_in_neither_cudarc_nor_the_kernels_nor_clap() {
    let lean = tree(&["--no-default-features"]);
    assert!(lean.iter().any(|p| p == "tessel-layout"), "{lean:?}");
    assert!(lean.iter().any(|p| p == "tessel-macros"), "{lean:?}");
    for heavy in ["cudarc", "tessel-kernels", "clap", "indicatif"] {
        assert!(!lean.iter().any(|p| p == heavy), "{heavy} in {lean:?}");
    }
    // The default build has them: the check above can fail.
    let full = tree(&[]);
    for heavy in ["cudarc", "tessel-kernels", "clap", "indicatif"] {
        assert!(
            full.iter().any(|p| p == heavy),
            "{heavy} missing from {full:?}"
        );
    }
    // `cli` alone is the command line without the kernels.
    let cli = tree(&["--no-default-features", "--features", "cli"]);
    assert!(cli.iter().any(|p| p == "clap"), "{cli:?}");
    assert!(!cli.iter().any(|p| p == "cudarc"), "{cli:?}");
}
