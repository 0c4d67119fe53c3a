//! The crate features, as `cargo tree` shows them to a user: `tessel-kit` with its default
//! features is the algebra and the macros, without the command line's dependencies (they belong
//! to `tessel-cli`) and without cudarc (only the `kernels` feature brings it in).

use std::process::Command;

/// The package names `cargo tree -p PACKAGE` prints (normal and build edges: what a crate
/// depending on it compiles) with `flags`.
fn tree(package: &str, flags: &[&str]) -> Vec<String> {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let manifest = concat!(env!("CARGO_MANIFEST_DIR"), "/Cargo.toml");
    let out = Command::new(cargo)
        .args(["tree", "--manifest-path", manifest, "-p", package])
        .args(["--prefix", "none", "-e", "normal,build", "--format", "{p}"])
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

/// The command line's own dependencies: none of them may reach a library user.
const CLI_ONLY: [&str; 5] = [
    "clap",
    "clap_complete",
    "serde_json",
    "indicatif",
    "console",
];

fn has(tree: &[String], package: &str) -> bool {
    tree.iter().any(|p| p == package)
}

#[test]
fn the_default_library_is_the_algebra_and_the_macros_without_cudarc_or_the_cli() {
    let lib = tree("tessel-kit", &[]);
    assert!(has(&lib, "tessel-layout"), "{lib:?}");
    assert!(has(&lib, "tessel-macros"), "{lib:?}");
    for heavy in CLI_ONLY.iter().chain(&["cudarc", "tessel-kernels"]) {
        assert!(!has(&lib, heavy), "{heavy} in {lib:?}");
    }
}

#[test]
fn the_kernels_feature_adds_cudarc_and_nothing_of_the_cli() {
    let gpu = tree("tessel-kit", &["--features", "kernels"]);
    assert!(has(&gpu, "cudarc"), "{gpu:?}");
    assert!(has(&gpu, "tessel-kernels"), "{gpu:?}");
    for cli in CLI_ONLY {
        assert!(!has(&gpu, cli), "{cli} in {gpu:?}");
    }
}

#[test]
fn the_command_line_package_has_them_and_drops_cudarc_without_kernels() {
    // The same query finds what it is looking for: the checks above can fail.
    let cli = tree("tessel-cli", &[]);
    for dep in CLI_ONLY.iter().chain(&["cudarc"]) {
        assert!(has(&cli, dep), "{dep} missing from {cli:?}");
    }
    let lean = tree("tessel-cli", &["--no-default-features"]);
    assert!(has(&lean, "clap"), "{lean:?}");
    assert!(!has(&lean, "cudarc"), "{lean:?}");
}

/// The `html_root_url` of each library (where other crates' docs link to it when its pages are
/// not built next to theirs) names the crate and the workspace's version.
#[test]
fn doc_root_urls_name_the_current_version() {
    let root = env!("CARGO_MANIFEST_DIR");
    for (file, krate) in [
        ("layout/src/lib.rs", "tessel-layout"),
        ("kernels/src/lib.rs", "tessel-kernels"),
    ] {
        let text = std::fs::read_to_string(format!("{root}/{file}")).expect(file);
        let want = format!(
            "#![doc(html_root_url = \"https://docs.rs/{krate}/{}\")]",
            env!("CARGO_PKG_VERSION")
        );
        assert!(text.contains(&want), "{file} lacks {want}");
    }
}
