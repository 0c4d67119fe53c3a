//! The modules of tessel-layout use one another without cycles: every top-level module of
//! `layout/src` can be understood (and tested) from the modules it uses, never from one that
//! uses it back. The graph is read from the sources: every `crate::NAME` path and every name of
//! a `crate::{...}` list outside comments and `#[cfg(test)]` code, with the names the crate root
//! re-exports (`pub use MODULE::...` in `lib.rs`, and the names behind `pub use algebra::*`)
//! counted as uses of the module that defines them.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};

const SRC: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/src");

/// The code of a source file: comment lines dropped, and nothing from `#[cfg(test)]` on.
fn code_of(path: &Path) -> String {
    let text = fs::read_to_string(path).unwrap();
    let text = match text.find("#[cfg(test)]") {
        Some(at) => &text[..at],
        None => &text[..],
    };
    text.lines()
        .filter(|l| !l.trim_start().starts_with("//"))
        .collect::<Vec<_>>()
        .join("\n")
}

/// Every `.rs` file under `dir`, with the top-level module it belongs to (`lib` for lib.rs).
fn sources(dir: &Path, top: Option<&str>, out: &mut Vec<(String, PathBuf)>) {
    for entry in fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        let stem = path.file_stem().unwrap().to_string_lossy().to_string();
        if path.is_dir() {
            sources(&path, Some(top.unwrap_or(&stem)), out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push((top.unwrap_or(&stem).to_string(), path));
        }
    }
}

fn identifiers(text: &str) -> Vec<&str> {
    text.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .filter(|w| !w.is_empty())
        .collect()
}

/// The modules named by `crate::` paths in `code`, through `reexports` for root names.
fn uses(
    code: &str,
    reexports: &BTreeMap<String, String>,
    modules: &BTreeSet<String>,
) -> Vec<String> {
    let mut out = Vec::new();
    let mut name = |n: &str| {
        if modules.contains(n) {
            out.push(n.to_string());
        } else if let Some(m) = reexports.get(n) {
            out.push(m.clone());
        }
    };
    let mut rest = code;
    while let Some(at) = rest.find("crate::") {
        rest = &rest[at + "crate::".len()..];
        if let Some(list) = rest.strip_prefix('{') {
            let end = list.find('}').unwrap_or(list.len());
            for item in list[..end].split(',') {
                if let Some(first) = identifiers(item).first() {
                    name(first);
                }
            }
        } else if let Some(first) = identifiers(rest).first() {
            if rest.starts_with(first) {
                name(first);
            }
        }
    }
    out
}

/// The names `pub use` lines of `code` make visible, with the module each comes from
/// (`pub use MODULE::...`); a glob `pub use MODULE::*` is returned as the name `*`.
fn pub_uses(code: &str) -> Vec<(String, String)> {
    let mut out = Vec::new();
    for stmt in code.split(';') {
        let stmt = stmt.trim();
        let Some(path) = stmt.strip_prefix("pub use ") else {
            continue;
        };
        let path = path
            .trim_start_matches("crate::")
            .trim_start_matches("self::");
        let module = identifiers(path)[0].to_string();
        match path.find('{') {
            Some(open) => {
                for item in path[open + 1..].trim_end_matches('}').split(',') {
                    let ids = identifiers(item);
                    if let Some(last) = ids.last() {
                        out.push((last.to_string(), module.clone()));
                    }
                }
            }
            None if path.ends_with('*') => out.push(("*".into(), module)),
            None => {
                let ids = identifiers(path);
                out.push((ids.last().unwrap().to_string(), module));
            }
        }
    }
    out
}

#[test]
fn the_modules_of_tessel_layout_use_each_other_without_cycles() {
    let mut files = Vec::new();
    sources(Path::new(SRC), None, &mut files);
    let modules: BTreeSet<String> = files
        .iter()
        .map(|(m, _)| m.clone())
        .filter(|m| m != "lib")
        .collect();
    // Root re-exports: `pub use MODULE::{names}` in lib.rs; a glob re-exports what the module's
    // own `pub use` lines re-export.
    let mut reexports = BTreeMap::new();
    for (name, module) in pub_uses(&code_of(&Path::new(SRC).join("lib.rs"))) {
        if name == "*" {
            let mod_rs = Path::new(SRC).join(&module).join("mod.rs");
            for (inner, _) in pub_uses(&code_of(&mod_rs)) {
                reexports.insert(inner, module.clone());
            }
        } else {
            reexports.insert(name, module);
        }
    }
    assert!(reexports.get("Layout").is_some_and(|m| m == "layout"));
    assert!(reexports.get("composition").is_some_and(|m| m == "algebra"));

    let mut graph: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for (module, path) in &files {
        if module == "lib" {
            continue;
        }
        for used in uses(&code_of(path), &reexports, &modules) {
            if &used != module {
                graph.entry(module.clone()).or_default().insert(used);
            }
        }
    }
    assert!(
        graph["parse"].contains("leaf"),
        "the graph is read: parse uses leaf"
    );

    // A cycle exists iff some module reaches itself.
    let reach = |from: &str| {
        let mut seen = BTreeSet::new();
        let mut todo = vec![from.to_string()];
        while let Some(m) = todo.pop() {
            for next in graph.get(&m).into_iter().flatten() {
                if seen.insert(next.clone()) {
                    todo.push(next.clone());
                }
            }
        }
        seen
    };
    let cycles: Vec<String> = graph
        .iter()
        .flat_map(|(m, used)| {
            used.iter()
                .filter(|u| reach(u).contains(m))
                .map(move |u| format!("{m} -> {u}"))
        })
        .collect();
    assert!(cycles.is_empty(), "edges on import cycles: {cycles:?}");
}
