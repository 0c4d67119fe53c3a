//! The references a kernel body makes to its pieces: a small tokenizer over CUDA C++ that skips
//! comments, string and character literals and collects `ns::name` references for the fixed
//! namespaces of the naming scheme, and every bare identifier (for parameters).
//!
//! ```
//! use tessel_kernels::kernel::scan::References;
//! let r = References::scan("k::NT + layout::smem_crd(0, 1); // layout::not_this\n\"k::nor_this\"");
//! assert!(r.qualified.contains(&("k".to_string(), "NT".to_string())));
//! assert!(r.qualified.contains(&("layout".to_string(), "smem_crd".to_string())));
//! assert_eq!(r.qualified.len(), 2);
//! ```

use std::collections::BTreeSet;

/// The namespaces of the naming scheme: element type aliases, integer constants, layout
/// functions and device functions supplied from Rust, and the tensor layer's tensors, tiled
/// copies and tiled MMAs ([`crate::layer`]).
///
/// ```
/// assert_eq!(tessel_kernels::kernel::scan::NAMESPACES,
///            ["ty", "k", "layout", "dev", "tensor", "copy", "mma"]);
/// ```
pub const NAMESPACES: [&str; 7] = ["ty", "k", "layout", "dev", "tensor", "copy", "mma"];

/// What a piece of CUDA source refers to.
///
/// ```
/// use tessel_kernels::kernel::scan::References;
/// let r = References::scan("const ty::T* p = src + dev::helper(x);");
/// assert!(r.identifiers.contains("src") && r.identifiers.contains("x"));
/// assert!(!r.identifiers.contains("T")); // qualified names are not bare identifiers
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct References {
    /// `(namespace, name)` for every `ns::name` with `ns` one of [`NAMESPACES`] (and not itself
    /// qualified, e.g. `a::k::x` is not a reference to `k::x`).
    pub qualified: BTreeSet<(String, String)>,
    /// Every identifier that is not part of a qualified name.
    pub identifiers: BTreeSet<String>,
}

#[derive(Debug, PartialEq)]
enum Token {
    Ident(String),
    Scope,
    Other,
}

fn tokens(src: &str) -> Vec<Token> {
    let b = src.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        if c == b'/' && b.get(i + 1) == Some(&b'/') {
            while i < b.len() && b[i] != b'\n' {
                i += 1;
            }
        } else if c == b'/' && b.get(i + 1) == Some(&b'*') {
            i += 2;
            while i < b.len() && !(b[i] == b'*' && b.get(i + 1) == Some(&b'/')) {
                i += 1;
            }
            i += 2;
        } else if c == b'"' || c == b'\'' {
            i += 1;
            while i < b.len() && b[i] != c {
                if b[i] == b'\\' {
                    i += 1;
                }
                i += 1;
            }
            i += 1;
            out.push(Token::Other);
        } else if c == b':' && b.get(i + 1) == Some(&b':') {
            out.push(Token::Scope);
            i += 2;
        } else if c.is_ascii_alphabetic() || c == b'_' {
            let start = i;
            while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'_') {
                i += 1;
            }
            out.push(Token::Ident(src[start..i].to_string()));
        } else if c.is_ascii_digit() {
            // Numbers (with suffixes such as 32LL or 1.0f) are not identifiers.
            while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'_' || b[i] == b'.') {
                i += 1;
            }
            out.push(Token::Other);
        } else {
            if !c.is_ascii_whitespace() {
                out.push(Token::Other);
            }
            i += 1;
        }
    }
    out
}

impl References {
    /// Scans `src` (comments and literals skipped).
    ///
    /// ```
    /// use tessel_kernels::kernel::scan::References;
    /// let r = References::scan("/* dev::a */ x = 'k'; y = dev::b; z = std::k::c;");
    /// let q: Vec<_> = r.qualified.iter().map(|(n, x)| format!("{n}::{x}")).collect();
    /// assert_eq!(q, ["dev::b"]);
    /// ```
    pub fn scan(src: &str) -> References {
        let toks = tokens(src);
        let mut refs = References::default();
        let mut i = 0;
        while i < toks.len() {
            let qualified_before = i > 0 && toks[i - 1] == Token::Scope;
            match (&toks[i], toks.get(i + 1), toks.get(i + 2)) {
                (Token::Ident(ns), Some(Token::Scope), Some(Token::Ident(name))) => {
                    if !qualified_before && NAMESPACES.contains(&ns.as_str()) {
                        refs.qualified.insert((ns.clone(), name.clone()));
                    }
                    i += 3;
                    // Skip the rest of a longer qualified name.
                    while toks.get(i) == Some(&Token::Scope) {
                        i += 2;
                    }
                }
                (Token::Ident(id), _, _) if !qualified_before => {
                    if toks.get(i + 1) != Some(&Token::Scope) {
                        refs.identifiers.insert(id.clone());
                    }
                    i += 1;
                }
                _ => i += 1,
            }
        }
        refs
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escaped_quotes_do_not_end_a_string() {
        let r = References::scan(r#"asm("a \" k::x"); k::y"#);
        let names: Vec<_> = r.qualified.iter().map(|q| q.1.as_str()).collect();
        assert_eq!(names, ["y"]);
    }

    #[test]
    fn whitespace_around_the_scope_is_allowed() {
        let r = References::scan("layout :: smem (i)");
        assert!(r.qualified.contains(&("layout".into(), "smem".into())));
    }

    #[test]
    fn numbers_with_suffixes_are_not_identifiers() {
        let r = References::scan("x = 32LL + 1.0f + 0x1Fu;");
        assert_eq!(r.identifiers.iter().collect::<Vec<_>>(), ["x"]);
    }
}
