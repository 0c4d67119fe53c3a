//! Splits expression text into tokens, each with its byte span.
//!
//! ```
//! use tessel_layout::expr::lexer::{tokenize, Token};
//! let tokens = tokenize("4:1").unwrap();
//! let kinds: Vec<Token> = tokens.into_iter().map(|t| t.token).collect();
//! assert_eq!(kinds, vec![Token::Int(4), Token::Colon, Token::Int(1), Token::End]);
//! ```

use crate::basis::ScaledBasis;
use crate::error::{Error, ErrorKind, Result, Span};
use crate::leaf::Leaf;
use crate::parse::integer_literal;
use crate::static_int::Integer;

/// A token of the expression language.
///
/// ```
/// use tessel_layout::expr::lexer::{tokenize, Token};
/// let toks = tokenize("Sw<3,3,3> o 8:1").unwrap();
/// assert_eq!(toks[0].token, Token::Ident("Sw".to_string()));
/// assert_eq!(toks[8].token, Token::Compose);
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Token {
    /// An integer literal (a leading `-` belongs to the literal).
    Int(i64),
    /// A name: letters, digits and `_`, not starting with a digit (but not `_` or `o` alone).
    Ident(String),
    /// `(`
    LParen,
    /// `)`
    RParen,
    /// `[`
    LBracket,
    /// `]`
    RBracket,
    /// `,`
    Comma,
    /// `:`
    Colon,
    /// `<`
    Lt,
    /// `>`
    Gt,
    /// `_` (leave a tiler mode alone)
    Underscore,
    /// `o` (composition)
    Compose,
    /// The end of the input.
    End,
    /// A static integer, `_4` (CuTe's `Int<4>{}`).
    Static(i64),
    /// A basis element, `_1@0` or `4@1@0` (CuTe's `ScaledBasis`).
    Basis(ScaledBasis),
}

impl Token {
    /// How the token is named in "expected ... but found ..." messages.
    ///
    /// ```
    /// use tessel_layout::expr::lexer::Token;
    /// assert_eq!(Token::RBracket.describe(), "']'");
    /// assert_eq!(Token::End.describe(), "the end of the input");
    /// ```
    pub fn describe(&self) -> String {
        match self {
            Token::Int(v) => format!("the integer {v}"),
            Token::Ident(name) => format!("'{name}'"),
            Token::LParen => "'('".into(),
            Token::RParen => "')'".into(),
            Token::LBracket => "'['".into(),
            Token::RBracket => "']'".into(),
            Token::Comma => "','".into(),
            Token::Colon => "':'".into(),
            Token::Lt => "'<'".into(),
            Token::Gt => "'>'".into(),
            Token::Underscore => "'_'".into(),
            Token::Compose => "'o'".into(),
            Token::End => "the end of the input".into(),
            Token::Static(v) => format!("the static integer _{v}"),
            Token::Basis(b) => format!("the basis element {b}"),
        }
    }
}

/// A token and the bytes of the text it was read from.
///
/// ```
/// use tessel_layout::expr::lexer::tokenize;
/// assert_eq!(tokenize("  -8 ").unwrap()[0].span.range(), 2..4);
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Spanned {
    /// The token.
    pub token: Token,
    /// Its bytes in the text (empty for [`Token::End`], at the end of the text).
    pub span: Span,
}

/// Splits `text` into tokens, ending with [`Token::End`].
///
/// ```
/// use tessel_layout::expr::lexer::tokenize;
/// assert_eq!(tokenize("(4,-8)").unwrap().len(), 6);
/// let err = tokenize("8 % 2").unwrap_err();
/// assert_eq!(err.to_string(), "at 2: unexpected character '%'");
/// assert_eq!(err.span().unwrap().range(), 2..3);
/// ```
pub fn tokenize(text: &str) -> Result<Vec<Spanned>> {
    let bytes = text.as_bytes();
    let mut out = Vec::new();
    let mut pos = 0;
    while let Some(ch) = text[pos..].chars().next() {
        let start = pos;
        let token = match ch {
            c if c.is_whitespace() => {
                pos += c.len_utf8();
                continue;
            }
            '(' => Token::LParen,
            ')' => Token::RParen,
            '[' => Token::LBracket,
            ']' => Token::RBracket,
            ',' => Token::Comma,
            ':' => Token::Colon,
            '<' => Token::Lt,
            '>' => Token::Gt,
            '-' | '0'..='9' => {
                let (token, end) = leaf_literal(text, start)?;
                out.push(Spanned {
                    token,
                    span: Span::new(start, end),
                });
                pos = end;
                continue;
            }
            '_' if static_integer_follows(text, start) => {
                let (token, end) = leaf_literal(text, start)?;
                out.push(Spanned {
                    token,
                    span: Span::new(start, end),
                });
                pos = end;
                continue;
            }
            c if c == '_' || c.is_ascii_alphabetic() => {
                let mut end = start;
                while end < bytes.len()
                    && (bytes[end] == b'_' || bytes[end].is_ascii_alphanumeric())
                {
                    end += 1;
                }
                let word = &text[start..end];
                let token = match word {
                    "_" => Token::Underscore,
                    "o" => Token::Compose,
                    _ => Token::Ident(word.to_string()),
                };
                out.push(Spanned {
                    token,
                    span: Span::new(start, end),
                });
                pos = end;
                continue;
            }
            other => {
                return Err(Error::new(
                    ErrorKind::Parse,
                    format!("unexpected character '{}'", other.escape_debug()),
                )
                .at(start..start + other.len_utf8()));
            }
        };
        pos += ch.len_utf8();
        out.push(Spanned {
            token,
            span: Span::new(start, pos),
        });
    }
    out.push(Spanned {
        token: Token::End,
        span: Span::at(text.len()),
    });
    Ok(out)
}

/// Reads an optionally negative decimal literal starting at `start`; returns it and its end.
fn integer(text: &str, start: usize) -> Result<(i64, usize)> {
    integer_literal(text, start)?.ok_or_else(|| {
        Error::new(ErrorKind::Parse, "expected digits after '-'").at(start..start + 1)
    })
}

/// Whether `_` at byte `start` begins a static integer (`_4`, `_-1`) rather than the
/// underscore `_` or an identifier.
fn static_integer_follows(text: &str, start: usize) -> bool {
    let rest = &text.as_bytes()[start + 1..];
    matches!(rest, [b'0'..=b'9', ..] | [b'-', b'0'..=b'9', ..])
}

/// The integer literal at `start` (`4`, `-3`, `_4`), or the basis element it begins (`_1@0`):
/// [`Token::Int`] for a dynamic integer, [`Token::Static`] for a static one, [`Token::Basis`]
/// when `@` follows.
fn leaf_literal(text: &str, start: usize) -> Result<(Token, usize)> {
    if !text[start..].starts_with('_') {
        // A dynamic integer: the same scanner (and errors) as before.
        let (value, end) = integer(text, start)?;
        if text.as_bytes().get(end) != Some(&b'@') {
            return Ok((Token::Int(value), end));
        }
    }
    match ScaledBasis::scan(text, start)? {
        Some((b, end)) if b.is_integer() => match b.value() {
            Integer::Static(v) => Ok((Token::Static(v), end)),
            Integer::Dynamic(v) => Ok((Token::Int(v), end)),
        },
        Some((b, end)) => Ok((Token::Basis(b), end)),
        None => Err(Error::new(ErrorKind::Parse, "expected digits after '_'").at(start..start + 1)),
    }
}
