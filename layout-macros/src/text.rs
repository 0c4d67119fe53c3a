//! Macro input as notation text, with a map from byte positions back to the tokens they came
//! from, so an error of the layout parser lands on the tokens of its span
//! ([`tessel_layout::Error::span`], byte offsets into this text).
//!
//! Rendering checks two things at the token itself: groups nest at most
//! [`MAX_DEPTH`](tessel_layout::expr::MAX_DEPTH) levels (the one limit of every tessel parser; the
//! walk checks the depth before it recurses, so no input can exhaust the stack), and integer
//! literals are read by their value (`0x10`, `0b1_0000` and `16` are all 16) and must have no
//! type suffix (`16i64` is an error: notation integers are untyped `i64` values).

use proc_macro2::{Delimiter, Literal, Span, TokenStream, TokenTree};
use tessel_layout::expr::MAX_DEPTH;

/// One token tree and the byte range of its text; a group also holds its inner pieces.
struct Piece {
    start: usize,
    end: usize,
    tree: TokenTree,
    children: Vec<Piece>,
}

/// The notation text of a token stream and where each token sits in it.
pub struct TokenText {
    text: String,
    pieces: Vec<Piece>,
    whole: TokenStream,
}

fn is_word_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_'
}

impl TokenText {
    /// Renders `tokens` as text: no spaces except between two word-like tokens, integer
    /// literals in decimal. Fails at a group nested deeper than `MAX_DEPTH` and at an integer
    /// literal with a suffix.
    pub fn new(tokens: TokenStream) -> syn::Result<TokenText> {
        let mut text = String::new();
        let pieces = render(tokens.clone(), &mut text, 1)?;
        Ok(TokenText {
            text,
            pieces,
            whole: tokens,
        })
    }

    /// The notation text.
    pub fn text(&self) -> &str {
        &self.text
    }

    /// An error spanning the whole input (or the call site when the input is empty).
    pub fn error_all(&self, message: &str) -> syn::Error {
        if self.whole.is_empty() {
            syn::Error::new(Span::call_site(), message)
        } else {
            syn::Error::new_spanned(self.whole.clone(), message)
        }
    }

    /// An error at the tokens of the byte range `span` of the text: the tokens it overlaps, at
    /// the innermost group that holds them all. An empty span (a position) is the token at that
    /// position, extended over a call's argument list, a `Sw<...>` parameter list, or a
    /// `shape:stride` pair that starts there; past the last token, the last token.
    pub fn error_at(&self, span: tessel_layout::error::Span, message: &str) -> syn::Error {
        let trees = if span.is_empty() {
            anchor(&self.pieces, span.start)
        } else {
            covering(&self.pieces, span.start, span.end)
        };
        match trees {
            Some(trees) => {
                syn::Error::new_spanned(trees.into_iter().collect::<TokenStream>(), message)
            }
            None => match self.pieces.last() {
                Some(last) => syn::Error::new_spanned(last.tree.clone(), message),
                None => self.error_all(message),
            },
        }
    }

    /// An error at the first identifier token `name`, else over the whole input.
    pub fn error_at_ident(&self, name: &str, message: &str) -> syn::Error {
        match find_ident(&self.pieces, name) {
            Some(tree) => syn::Error::new_spanned(tree, message),
            None => self.error_all(message),
        }
    }

    /// Maps a layout-algebra error to a compile error at the tokens of its span (over the whole
    /// input when it has none); the text shown is the error kind and the message.
    pub fn error_from(&self, err: &tessel_layout::Error) -> syn::Error {
        let shown = format!("{}: {}", err.kind().name(), err.message());
        match err.span() {
            Some(span) => self.error_at(span, &shown),
            None => self.error_all(&shown),
        }
    }
}

/// Renders `tokens`, which sit inside `depth - 1` groups.
fn render(tokens: TokenStream, text: &mut String, depth: usize) -> syn::Result<Vec<Piece>> {
    let mut pieces = Vec::new();
    for tree in tokens {
        let start_word = match &tree {
            TokenTree::Ident(_) | TokenTree::Literal(_) => true,
            TokenTree::Group(_) | TokenTree::Punct(_) => false,
        };
        if start_word && text.ends_with(is_word_char) {
            text.push(' ');
        }
        let start = text.len();
        let children = match &tree {
            TokenTree::Group(g) => {
                if depth > MAX_DEPTH {
                    return Err(syn::Error::new(
                        g.span_open(),
                        format!("parse error: nesting deeper than {MAX_DEPTH} levels"),
                    ));
                }
                let (open, close) = match g.delimiter() {
                    Delimiter::Parenthesis => ("(", ")"),
                    Delimiter::Bracket => ("[", "]"),
                    Delimiter::Brace => ("{", "}"),
                    Delimiter::None => ("", ""),
                };
                text.push_str(open);
                let inner = render(g.stream(), text, depth + 1)?;
                text.push_str(close);
                inner
            }
            TokenTree::Ident(i) => {
                text.push_str(&i.to_string());
                Vec::new()
            }
            TokenTree::Punct(p) => {
                text.push(p.as_char());
                Vec::new()
            }
            TokenTree::Literal(l) => {
                text.push_str(&literal_text(l)?);
                Vec::new()
            }
        };
        pieces.push(Piece {
            start,
            end: text.len(),
            tree,
            children,
        });
    }
    Ok(pieces)
}

/// The notation text of a literal: an integer by its decimal value, anything else as written
/// (the layout parser then reports it).
fn literal_text(l: &Literal) -> syn::Result<String> {
    match syn::Lit::new(l.clone()) {
        syn::Lit::Int(i) if !i.suffix().is_empty() => Err(syn::Error::new(
            l.span(),
            format!(
                "parse error: the integer literal {l} has the type suffix '{}'; layout notation \
                 takes plain integers (write {})",
                i.suffix(),
                i.base10_digits()
            ),
        )),
        syn::Lit::Int(i) => Ok(i.base10_digits().to_string()),
        _ => Ok(l.to_string()),
    }
}

fn find_ident(pieces: &[Piece], name: &str) -> Option<TokenTree> {
    pieces.iter().find_map(|p| match &p.tree {
        TokenTree::Ident(i) if i == name => Some(p.tree.clone()),
        _ => find_ident(&p.children, name),
    })
}

fn is_punct(p: Option<&Piece>, ch: char) -> bool {
    matches!(p.map(|p| &p.tree), Some(TokenTree::Punct(q)) if q.as_char() == ch)
}

/// The token trees overlapping the non-empty byte range `start..end`: inside the one group that
/// holds the whole range if there is one, else at this level.
fn covering(pieces: &[Piece], start: usize, end: usize) -> Option<Vec<TokenTree>> {
    let hit: Vec<&Piece> = pieces
        .iter()
        .filter(|p| p.start < end && start < p.end)
        .collect();
    match hit.as_slice() {
        [] => None,
        [group] if !group.children.is_empty() && (start > group.start || end < group.end) => {
            covering(&group.children, start, end).or_else(|| Some(vec![group.tree.clone()]))
        }
        _ => Some(hit.iter().map(|p| p.tree.clone()).collect()),
    }
}

/// The token trees an error at the position `pos` should cover.
fn anchor(pieces: &[Piece], pos: usize) -> Option<Vec<TokenTree>> {
    let k = pieces.iter().position(|p| pos < p.end)?;
    let piece = &pieces[k];
    if pos > piece.start && !piece.children.is_empty() {
        if let Some(inner) = anchor(&piece.children, pos) {
            return Some(inner);
        }
    }
    let next = pieces.get(k + 1);
    let last = match &piece.tree {
        // A call `name(...)`.
        TokenTree::Ident(_) if matches!(next.map(|p| &p.tree), Some(TokenTree::Group(_))) => k + 1,
        // A swizzle `Sw<B,M,S>`.
        TokenTree::Ident(i) if i == "Sw" && is_punct(next, '<') => pieces[k..]
            .iter()
            .position(|p| is_punct(Some(p), '>'))
            .map_or(k, |d| k + d),
        // A layout `shape:stride`.
        TokenTree::Group(_) | TokenTree::Literal(_)
            if is_punct(next, ':') && pieces.len() > k + 2 =>
        {
            k + 2
        }
        _ => k,
    };
    Some(pieces[k..=last].iter().map(|p| p.tree.clone()).collect())
}
