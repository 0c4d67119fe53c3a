//! Recursive-descent parser: tokens to an [`Expr`] tree.
//!
//! Grammar (lowest precedence first):
//!
//! ```text
//! expr    := layout ('o' layout)*              composition chain, applied right to left
//! layout  := primary (':' primary)?            shape:stride
//! primary := INT                             4, -3; STATIC _4; BASIS _1@0 (see crate::basis)
//!          | '(' [item (',' item)*] ')'        tuple; (x) is rank 1, not a grouping;
//!                                              item := '_' | 'X' | expr ('_' in a
//!                                              coordinate; CuTe's X is its '_')
//!          | '[' elem (',' elem)* ']'          by-mode tiler, elem := '_' | expr
//!          | ('Sw' | 'Swizzle') '<' INT ',' INT ',' INT '>'
//!          | 'Step' '<' step (',' step)* '>'   CuTe's Step: a tuple, X and '_' keep no mode,
//!                                              step := '_N' | INT | 'X' | '_' | 'Step<...>'
//!          | NAME '(' [item (',' item)*] ')'   function call
//!          | NAME ['<' NAME '>']                an atom by its CuTe name
//! ```
//!
//! Nesting is capped at [`MAX_DEPTH`] levels so no input can exhaust the stack.

use super::ast::{Expr, ExprKind};
use super::lexer::{Spanned, Token, tokenize};
use crate::error::{Error, ErrorKind, Result, Span};
pub use crate::parse::MAX_DEPTH;
use crate::parse::too_deep;

/// Parses a whole expression; anything after it is an error.
///
/// ```
/// use tessel_layout::expr::parse;
/// assert!(parse("logical_divide((4,2,3):(2,1,8), 4:2)").is_ok());
/// let err = parse("(4,8]").unwrap_err();
/// assert_eq!(err.to_string(), "at 4: expected ',' or ')' but found ']'");
/// assert_eq!(err.span().unwrap().range(), 4..5);
/// // Nesting past MAX_DEPTH levels is an error, not a stack overflow.
/// let deep = "size(".repeat(20_000);
/// let err = parse(&deep).unwrap_err();
/// assert_eq!(err.to_string(), "at 320: nesting deeper than 64 levels");
/// ```
pub fn parse(text: &str) -> Result<Expr> {
    let tokens = tokenize(text)?;
    let mut parser = Parser {
        tokens,
        next: 0,
        depth: 0,
        last_end: 0,
    };
    let expr = parser.expr()?;
    parser.expect(&Token::End, "an operator 'o' or the end of the input")?;
    Ok(expr)
}

struct Parser {
    tokens: Vec<Spanned>,
    next: usize,
    depth: usize,
    /// The end of the last consumed token: where the node being parsed ends so far.
    last_end: usize,
}

impl Parser {
    fn peek(&self) -> &Spanned {
        // `tokenize` always ends with `End`, and `bump` never moves past it.
        let last = self.tokens.len().saturating_sub(1);
        &self.tokens[self.next.min(last)]
    }

    fn peek_at(&self, ahead: usize) -> &Token {
        let last = self.tokens.len().saturating_sub(1);
        &self.tokens[(self.next + ahead).min(last)].token
    }

    fn bump(&mut self) -> Spanned {
        let tok = self.peek().clone();
        if tok.token != Token::End {
            self.next += 1;
            self.last_end = tok.span.end;
        }
        tok
    }

    fn eat(&mut self, token: &Token) -> bool {
        if &self.peek().token == token {
            self.bump();
            true
        } else {
            false
        }
    }

    fn error(&self, expected: &str) -> Error {
        let found = self.peek();
        Error::new(
            ErrorKind::Parse,
            format!("expected {expected} but found {}", found.token.describe()),
        )
        .at(found.span)
    }

    /// The span from `start` to the end of the last consumed token.
    fn span_from(&self, start: Span) -> Span {
        Span::new(start.start, self.last_end)
    }

    fn expect(&mut self, token: &Token, expected: &str) -> Result<()> {
        if self.eat(token) {
            Ok(())
        } else {
            Err(self.error(expected))
        }
    }

    fn enter(&mut self, open: Span) -> Result<()> {
        if self.depth >= MAX_DEPTH {
            return Err(too_deep(open.start));
        }
        self.depth += 1;
        Ok(())
    }

    fn leave(&mut self) {
        self.depth -= 1;
    }

    fn expr(&mut self) -> Result<Expr> {
        let first = self.layout()?;
        if self.peek().token != Token::Compose {
            return Ok(first);
        }
        let start = first.span;
        let mut chain = vec![first];
        while self.eat(&Token::Compose) {
            chain.push(self.layout()?);
        }
        Ok(Expr {
            span: self.span_from(start),
            kind: ExprKind::Compose(chain),
        })
    }

    fn layout(&mut self) -> Result<Expr> {
        let shape = self.primary()?;
        if !self.eat(&Token::Colon) {
            return Ok(shape);
        }
        let stride = self.primary()?;
        Ok(Expr {
            span: shape.span.to(stride.span),
            kind: ExprKind::Layout {
                shape: Box::new(shape),
                stride: Box::new(stride),
            },
        })
    }

    fn primary(&mut self) -> Result<Expr> {
        let Spanned { token, span } = self.peek().clone();
        let kind = match token {
            Token::Int(v) => {
                self.bump();
                ExprKind::Int(v)
            }
            Token::Static(v) => {
                self.bump();
                ExprKind::Static(v)
            }
            Token::Basis(b) => {
                self.bump();
                ExprKind::Basis(b)
            }
            Token::LParen => {
                self.bump();
                ExprKind::Tuple(self.list(span, &Token::RParen, "')'")?)
            }
            Token::LBracket => {
                self.bump();
                ExprKind::Tiler(self.tiler(span)?)
            }
            Token::Ident(name) if name == "Step" && *self.peek_at(1) == Token::Lt => {
                self.bump();
                self.bump();
                ExprKind::Tuple(self.step(span)?)
            }
            Token::Ident(name)
                if (name == "Sw" || name == "Swizzle") && *self.peek_at(1) == Token::Lt =>
            {
                self.bump();
                self.bump();
                self.swizzle()?
            }
            Token::Ident(name) => {
                self.bump();
                let name = self.template_argument(name);
                if !self.eat(&Token::LParen) {
                    if super::registry::lookup(&name).is_none() {
                        if super::atoms::is_atom(&name) {
                            return Ok(Expr {
                                span: self.span_from(span),
                                kind: ExprKind::Name(name),
                            });
                        }
                        let hint = super::atoms::nearest_atoms(&name)
                            .first()
                            .map(|n| format!("; the nearest atom is '{n}'"))
                            .unwrap_or_default();
                        return Err(Error::new(
                            ErrorKind::Parse,
                            format!(
                                "unknown name '{name}' (functions are called as name(...), \
                                 swizzles written Sw<B,M,S>, atoms named as CuTe names \
                                 them){hint}"
                            ),
                        )
                        .at(self.span_from(span)));
                    }
                    return Err(self.error(&format!("'(' after the function name '{name}'")));
                }
                let args = self.list(span, &Token::RParen, "')'")?;
                ExprKind::Call { name, args }
            }
            Token::Underscore => {
                return Err(Error::new(
                    ErrorKind::Parse,
                    "'_' may only stand for a mode of a tiler [..] or of a coordinate (..)",
                )
                .at(span));
            }
            _ => return Err(self.error("a layout, an integer, '(', '[', 'Sw<' or a function name")),
        };
        Ok(Expr {
            span: self.span_from(span),
            kind,
        })
    }

    /// Comma-separated expressions up to `close` (the opener is consumed); may be empty.
    fn list(&mut self, open: Span, close: &Token, close_name: &str) -> Result<Vec<Expr>> {
        self.enter(open)?;
        let mut items = Vec::new();
        if !self.eat(close) {
            loop {
                let item = self.peek().span;
                if self.eat(&Token::Underscore) || self.eat_x(close) {
                    // `_` in a coordinate such as (_,1): CuTe's slicing underscore.
                    items.push(Expr {
                        span: item,
                        kind: ExprKind::Underscore,
                    });
                } else {
                    items.push(self.expr()?);
                }
                if self.eat(close) {
                    break;
                }
                self.expect(&Token::Comma, &format!("',' or {close_name}"))?;
            }
        }
        self.leave();
        Ok(items)
    }

    /// `X` standing alone as a tuple item (followed by `,` or `close`): CuTe's `X`, an alias of
    /// its `Underscore`.
    fn eat_x(&mut self, close: &Token) -> bool {
        let is_x = matches!(&self.peek().token, Token::Ident(name) if name == "X");
        let next = self.peek_at(1);
        if is_x && (next == &Token::Comma || next == close) {
            self.bump();
            return true;
        }
        false
    }

    /// The entries of CuTe's `Step<...>` after the `<`, up to and including the `>`: `_N` (a
    /// static integer) or `N` is an integer, `X` or `_` keeps no mode, `Step<...>` nests.
    fn step(&mut self, open: Span) -> Result<Vec<Expr>> {
        self.enter(open)?;
        let mut items = Vec::new();
        loop {
            let Spanned { token, span } = self.peek().clone();
            let kind = match &token {
                Token::Int(v) => ExprKind::Int(*v),
                Token::Underscore => ExprKind::Underscore,
                Token::Ident(name) if name == "X" => ExprKind::Underscore,
                Token::Ident(name) if name == "Step" && *self.peek_at(1) == Token::Lt => {
                    self.bump();
                    self.bump();
                    let nested = self.step(span)?;
                    items.push(Expr {
                        span: self.span_from(span),
                        kind: ExprKind::Tuple(nested),
                    });
                    if self.eat(&Token::Gt) {
                        break;
                    }
                    self.expect(&Token::Comma, "',' or '>'")?;
                    continue;
                }
                Token::Static(v) => ExprKind::Int(*v),
                _ => return Err(self.error("a step entry: _N, an integer, X, '_' or Step<...>")),
            };
            self.bump();
            items.push(Expr { span, kind });
            if self.eat(&Token::Gt) {
                break;
            }
            self.expect(&Token::Comma, "',' or '>'")?;
        }
        self.leave();
        Ok(items)
    }

    fn tiler(&mut self, open: Span) -> Result<Vec<Option<Expr>>> {
        self.enter(open)?;
        let mut items = Vec::new();
        loop {
            if self.eat(&Token::Underscore) {
                items.push(None);
            } else {
                items.push(Some(self.expr()?));
            }
            if self.eat(&Token::RBracket) {
                break;
            }
            self.expect(&Token::Comma, "',' or ']'")?;
        }
        self.leave();
        Ok(items)
    }

    /// A name's template argument, as in CuTe's `UniversalCopy<uint128_t>`: `NAME '<' NAME '>'`
    /// is one name (the language has no comparison, and a swizzle's `<` is followed by an
    /// integer, so this is unambiguous).
    fn template_argument(&mut self, name: String) -> String {
        if self.peek().token != Token::Lt || *self.peek_at(2) != Token::Gt {
            return name;
        }
        let Token::Ident(argument) = self.peek_at(1).clone() else {
            return name;
        };
        for _ in 0..3 {
            self.bump();
        }
        format!("{name}<{argument}>")
    }

    fn swizzle(&mut self) -> Result<ExprKind> {
        let bits = self.integer("the swizzle's B (an integer)")?;
        self.expect(&Token::Comma, "','")?;
        let base = self.integer("the swizzle's M (an integer)")?;
        self.expect(&Token::Comma, "','")?;
        let shift = self.integer("the swizzle's S (an integer)")?;
        self.expect(&Token::Gt, "'>'")?;
        Ok(ExprKind::Swizzle { bits, base, shift })
    }

    fn integer(&mut self, expected: &str) -> Result<i64> {
        match self.peek().token {
            Token::Int(v) => {
                self.bump();
                Ok(v)
            }
            _ => Err(self.error(expected)),
        }
    }
}
