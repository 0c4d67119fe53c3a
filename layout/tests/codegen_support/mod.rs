//! Shared helpers of the codegen tests (here and, through `#[path]`, the root package's
//! `codegen_cli` and `nvrtc_compile`): cases, a C harness that prints every offset, the host C
//! compiler (through the `cc` crate), and a seeded generator of random layouts.
#![allow(dead_code)]

use std::fmt::Write as _;
use std::path::PathBuf;
use std::process::Command;

use tessel_layout::codegen::{EmitOptions, IndexWidth, SymComposedLayout, index_function};

/// One emitted function pair and the symbol values to call it with.
#[derive(Clone, Debug)]
pub struct Case {
    pub name: String,
    pub layout: SymComposedLayout,
    pub symbols: Vec<(String, i64)>,
    pub width: IndexWidth,
}

impl Case {
    pub fn new(name: &str, notation: &str) -> Case {
        Case {
            name: name.to_string(),
            layout: notation
                .parse()
                .unwrap_or_else(|e| panic!("{notation}: {e}")),
            symbols: Vec::new(),
            width: IndexWidth::Auto,
        }
    }

    /// The case, or `None` when `notation` is not a valid layout.
    pub fn parse(name: &str, notation: &str) -> Option<Case> {
        Some(Case {
            name: name.to_string(),
            layout: notation.parse().ok()?,
            symbols: Vec::new(),
            width: IndexWidth::Auto,
        })
    }

    pub fn with_symbols(mut self, symbols: &[(&str, i64)]) -> Case {
        self.symbols = symbols.iter().map(|(s, v)| (s.to_string(), *v)).collect();
        self
    }

    pub fn wide(mut self) -> Case {
        self.width = IndexWidth::Bits64;
        self
    }

    fn value(&self, symbol: &str) -> Option<i64> {
        self.symbols
            .iter()
            .find(|(s, _)| s == symbol)
            .map(|(_, v)| *v)
    }

    /// The algebra's answer: offsets of every index, once for `NAME` and once for `NAME_crd`.
    pub fn expected(&self) -> Vec<i64> {
        let bound = self
            .layout
            .bind(&|s| self.value(s))
            .unwrap_or_else(|e| panic!("{}: {e}", self.name));
        let offsets: Vec<i64> = (0..bound.size())
            .map(|i| bound.offset(i).expect("index in range"))
            .collect();
        offsets.iter().chain(&offsets).copied().collect()
    }

    pub fn source(&self) -> String {
        let opts = EmitOptions {
            width: self.width,
            ..EmitOptions::default()
        };
        index_function(&self.name, &self.layout, &opts)
            .unwrap_or_else(|e| panic!("{}: {e}", self.name))
    }

    fn mode_sizes(&self) -> Vec<i64> {
        self.layout
            .layout()
            .shape()
            .modes()
            .iter()
            .map(|m| m.leaves().iter().product())
            .collect()
    }

    /// C statements printing `NAME(i)` and `NAME_crd(...)` for every index.
    fn calls(&self) -> String {
        let size = self.layout.layout().size();
        let syms: String = self
            .layout
            .layout()
            .symbols()
            .iter()
            .map(|s| format!(", {}LL", self.value(s).expect("symbol value")))
            .collect();
        let mut out = String::new();
        let _ = writeln!(
            out,
            "  for (long long i = 0; i < {size}LL; ++i) printf(\"%lld\\n\", {}(i{syms}));",
            self.name
        );
        let sizes = self.mode_sizes();
        let _ = writeln!(out, "  for (long long i = 0; i < {size}LL; ++i) {{");
        let _ = writeln!(out, "    long long r = i;");
        let mut args = Vec::new();
        for (k, s) in sizes.iter().enumerate() {
            let _ = writeln!(out, "    long long c{k} = r % {s}LL; r /= {s}LL;");
            args.push(format!("c{k}"));
        }
        let _ = writeln!(out, "    (void)r;");
        let args = args.join(", ");
        let call_args = if args.is_empty() {
            syms.trim_start_matches(", ").to_string()
        } else {
            format!("{args}{syms}")
        };
        let _ = writeln!(
            out,
            "    printf(\"%lld\\n\", {}_crd({call_args}));",
            self.name
        );
        let _ = writeln!(out, "  }}");
        out
    }
}

/// One translation unit with every case's functions and a `main` printing all offsets.
pub fn harness(cases: &[Case]) -> String {
    let mut src = String::from("#include <stdio.h>\n\n");
    for c in cases {
        src.push_str(&c.source());
        src.push('\n');
    }
    src.push_str("int main(void) {\n");
    for c in cases {
        src.push_str(&c.calls());
    }
    src.push_str("  return 0;\n}\n");
    src
}

/// The source language a harness is compiled as.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Lang {
    C99,
    Cxx17,
}

fn scratch(file: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("codegen");
    std::fs::create_dir_all(&dir).expect("scratch dir");
    dir.join(format!("{}-{file}", std::process::id()))
}

fn host_triple() -> String {
    let arch = std::env::consts::ARCH;
    match std::env::consts::OS {
        "macos" => format!("{arch}-apple-darwin"),
        _ => format!("{arch}-unknown-linux-gnu"),
    }
}

/// Compiles `src` with the host compiler (warnings are errors, UBSan aborts on the first
/// report), runs it, and returns the printed numbers.
pub fn compile_and_run(stem: &str, src: &str, lang: Lang) -> Vec<i64> {
    let triple = host_triple();
    let compiler = cc::Build::new()
        .cargo_metadata(false)
        .opt_level(0)
        .host(&triple)
        .target(&triple)
        .cpp(lang == Lang::Cxx17)
        .get_compiler();
    let (ext, std) = match lang {
        Lang::C99 => ("c", "-std=c99"),
        Lang::Cxx17 => ("cpp", "-std=c++17"),
    };
    let source = scratch(&format!("{stem}.{ext}"));
    let binary = scratch(&format!("{stem}-{ext}.bin"));
    std::fs::write(&source, src).expect("write harness");
    let out = compiler
        .to_command()
        .args([
            std,
            "-Wall",
            "-Wextra",
            "-Werror",
            "-fsanitize=undefined",
            "-fno-sanitize-recover=all",
        ])
        .arg(&source)
        .arg("-o")
        .arg(&binary)
        .output()
        .expect("run the host C compiler");
    assert!(
        out.status.success(),
        "{} failed to compile {}:\n{}",
        compiler.path().display(),
        source.display(),
        String::from_utf8_lossy(&out.stderr)
    );
    let run = Command::new(&binary).output().expect("run harness");
    assert!(
        run.status.success(),
        "harness {} failed: {}",
        binary.display(),
        String::from_utf8_lossy(&run.stderr)
    );
    assert!(
        run.stderr.is_empty(),
        "UBSan: {}",
        String::from_utf8_lossy(&run.stderr)
    );
    let _ = std::fs::remove_file(&binary);
    let _ = std::fs::remove_file(&source);
    String::from_utf8_lossy(&run.stdout)
        .lines()
        .map(|l| l.parse().expect("a number"))
        .collect()
}

/// Compiles and runs all `cases` in one harness and compares every value with the algebra.
pub fn check_cases(stem: &str, cases: &[Case], lang: Lang) -> usize {
    let got = compile_and_run(stem, &harness(cases), lang);
    let mut at = 0usize;
    for c in cases {
        let want = c.expected();
        let have = got
            .get(at..at + want.len())
            .unwrap_or_else(|| panic!("harness printed too few values (case {})", c.name));
        for (k, (h, w)) in have.iter().zip(&want).enumerate() {
            let half = want.len() / 2;
            let (which, i) = if k < half {
                ("", k)
            } else {
                ("_crd", k - half)
            };
            assert_eq!(
                h,
                w,
                "{}{which} at index {i} for {}:\n{}",
                c.name,
                c.layout,
                c.source()
            );
        }
        at += want.len();
    }
    assert_eq!(at, got.len(), "harness printed extra values");
    at
}

/// A small deterministic generator (SplitMix64).
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed)
    }

    pub fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    pub fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }

    pub fn pick<T: Copy>(&mut self, items: &[T]) -> T {
        items[self.below(items.len() as u64) as usize]
    }
}

const EXTENTS: &[i64] = &[1, 2, 2, 3, 4, 4, 5, 6, 8, 8, 16];
const STRIDES: &[i64] = &[
    0, 1, 1, 2, 3, 4, 8, 8, 16, 32, 64, 96, 128, -1, -2, -3, -8, 5, 7, 12,
];
/// Strides at the edges of `int` and near the `long long` limits.
const BIG_STRIDES: &[i64] = &[
    1,
    -1,
    i32::MAX as i64,
    -(i32::MAX as i64),
    i32::MIN as i64,
    1 << 31,
    1 << 30,
    -(1 << 30),
    (1 << 30) + 1,
    -(1 << 30) - 1,
    1 << 32,
    -(1 << 40) - 3,
    1 << 61,
    -(1 << 61),
    (1 << 62) - 1,
    -(1 << 62),
    i64::MAX / 3,
    i64::MIN / 3,
];
/// Base offsets at the edges of `int` and `long long`.
const BIG_OFFSETS: &[i64] = &[
    i32::MAX as i64,
    i32::MIN as i64,
    -(1 << 31) - 1,
    1 << 62,
    -(1 << 62),
    i64::MAX - 4096,
    i64::MIN + 4096,
];

/// How strides are drawn.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Strides {
    Small,
    Symbolic,
    /// Multiples of 2^33: 64-bit offsets.
    Huge,
    /// Near the 32- and 64-bit limits (and offsets there too).
    Big,
}

/// A random layout notation: up to 4 top-level modes, some nested, size at most `max_size`,
/// optionally swizzled (up to 2 layers, either shift sign), offset, with symbolic strides
/// (`ld`, `k`), strides that need 64-bit arithmetic, or strides and offsets near the limits of
/// `int` and `long long` (only valid layouts: those whose offsets fit in `i64`).
pub fn random_case(rng: &mut Rng, name: &str, max_size: i64) -> Case {
    let strides = match rng.below(40) {
        0..8 => Strides::Symbolic,
        8..12 => Strides::Huge,
        12..17 => Strides::Big,
        _ => Strides::Small,
    };
    random_case_of(rng, name, max_size, strides)
}

/// A random case (as [`random_case`]) whose strides and offsets lie near the limits of `int`
/// and `long long`.
pub fn random_big_case(rng: &mut Rng, name: &str, max_size: i64) -> Case {
    random_case_of(rng, name, max_size, Strides::Big)
}

/// A random case (as [`random_case`]) with symbolic strides `ld` and `k`.
pub fn random_symbolic_case(rng: &mut Rng, name: &str, max_size: i64) -> Case {
    random_case_of(rng, name, max_size, Strides::Symbolic)
}

fn random_case_of(rng: &mut Rng, name: &str, max_size: i64, strides: Strides) -> Case {
    loop {
        if let Some(case) = random_attempt(rng, name, max_size, strides) {
            return case;
        }
    }
}

fn random_attempt(rng: &mut Rng, name: &str, max_size: i64, kind: Strides) -> Option<Case> {
    let symbolic = kind == Strides::Symbolic;
    let mut size = 1i64;
    let mut modes = Vec::new();
    for _ in 0..1 + rng.below(4) {
        let leaves = if rng.below(3) == 0 {
            2 + rng.below(2)
        } else {
            1
        };
        let mut shapes = Vec::new();
        let mut strides = Vec::new();
        for _ in 0..leaves {
            let mut e = rng.pick(EXTENTS);
            while size * e > max_size {
                e = 1;
            }
            size *= e;
            shapes.push(e.to_string());
            let stride = if symbolic && rng.below(3) == 0 {
                rng.pick(&["ld", "k"]).to_string()
            } else if kind == Strides::Huge && rng.below(2) == 0 {
                (rng.pick(STRIDES) << 33).to_string()
            } else if kind == Strides::Big && rng.below(3) != 0 {
                rng.pick(BIG_STRIDES).to_string()
            } else {
                rng.pick(STRIDES).to_string()
            };
            strides.push(stride);
        }
        if leaves == 1 {
            modes.push((shapes.remove(0), strides.remove(0)));
        } else {
            modes.push((
                format!("({})", shapes.join(",")),
                format!("({})", strides.join(",")),
            ));
        }
    }
    let (shape, stride): (Vec<String>, Vec<String>) = modes.into_iter().unzip();
    let layout = if shape.len() == 1 && rng.below(2) == 0 {
        format!("{}:{}", shape[0], stride[0])
    } else {
        format!("({}):({})", shape.join(","), stride.join(","))
    };
    let mut prefix = String::new();
    for _ in 0..rng.below(3) {
        let b = rng.below(4) as i64;
        let m = rng.below(5) as i64;
        let s = (b + rng.below(3) as i64) * if rng.below(3) == 0 { -1 } else { 1 };
        let s = if s == 0 && b == 0 { 1 } else { s };
        prefix.push_str(&format!("Sw<{b},{m},{s}> o "));
    }
    match rng.below(4) {
        0 => prefix.push_str("32 o "),
        1 => prefix.push_str("-16 o "),
        2 if kind == Strides::Big => {
            prefix.push_str(&format!("{} o ", rng.pick(BIG_OFFSETS)));
        }
        _ => {}
    }
    let mut case = Case::parse(name, &format!("{prefix}{layout}"))?;
    if symbolic {
        let ld = rng.pick(&[1i64, 9, 64, 100, -7, 1 << 20, 1 << 40, -(1 << 33) - 1]);
        let k = rng.pick(&[0i64, 3, 128, -64, i32::MAX as i64, i32::MIN as i64]);
        case = case.with_symbols(&[("ld", ld), ("k", k)]);
    }
    if rng.below(6) == 0 {
        case = case.wide();
    }
    // Only layouts whose every offset fits in i64 (for those symbol values) are valid.
    case.layout.bind(&|s| case.value(s)).ok()?;
    Some(case)
}
