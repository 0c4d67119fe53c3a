//! Macro input as notation text, with a map from byte positions back to the tokens they came
//! from, so an error `at N: ...` of the layout parser lands on the offending token.

use proc_macro2::{Delimiter, Span, TokenStream, TokenTree};

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
    /// Renders `tokens` as text: no spaces except between two word-like tokens.
    pub fn new(tokens: TokenStream) -> TokenText {
        let mut text = String::new();
        let pieces = render(tokens.clone(), &mut text);
        TokenText {
            text,
            pieces,
            whole: tokens,
        }
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

    /// An error at the tokens that start at byte `pos`: the token there, extended over a call's
    /// argument list, a `Sw<...>` parameter list, or a `shape:stride` pair that starts there.
    pub fn error_at(&self, pos: usize, message: &str) -> syn::Error {
        match anchor(&self.pieces, pos) {
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

    /// Maps a layout-algebra error to a compile error: a message `at N: at M: ...` points at the
    /// innermost position `M`; the text shown is the error kind and the message without positions.
    pub fn error_from(&self, err: &tessel_layout::Error) -> syn::Error {
        let (pos, message) = tessel_layout::codegen::split_position(err.message());
        let shown = format!("{}: {message}", err.kind().name());
        match pos {
            Some(p) => self.error_at(p, &shown),
            None => self.error_all(&shown),
        }
    }
}

fn render(tokens: TokenStream, text: &mut String) -> Vec<Piece> {
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
                let (open, close) = match g.delimiter() {
                    Delimiter::Parenthesis => ("(", ")"),
                    Delimiter::Bracket => ("[", "]"),
                    Delimiter::Brace => ("{", "}"),
                    Delimiter::None => ("", ""),
                };
                text.push_str(open);
                let inner = render(g.stream(), text);
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
                text.push_str(&l.to_string());
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
    pieces
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

/// The token trees the error at `pos` should cover.
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
