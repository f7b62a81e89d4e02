//! The recursive-descent parser: token cursor, error reporting and recovery.
//!
//! Recovery: after an error the parser skips to a synchronisation token (a top-level keyword,
//! or `.`, `)`, `}` inside processes) and carries on. Errors that start inside the span of the
//! previous error are dropped, so one mistake gives one diagnostic, not a cascade.

mod expr;
mod externs;
mod forall;
mod items;
mod ltl;
mod process;
mod property;
mod relation;
mod state;

use crate::MAX_DEPTH;
use crate::ast::Ident;
use crate::token::{Tok, Token};
use agentpi_diagnostics::{Diagnostic, Span};

pub(crate) struct Parser<'a> {
    tokens: Vec<Token>,
    pos: usize,
    text: &'a str,
    diags: &'a mut Vec<Diagnostic>,
    depth: usize,
    /// End offset of the last reported error; errors before it are cascades.
    last_error_end: Option<u32>,
}

/// Signals that parsing of the current construct was abandoned (the error is already reported).
pub(crate) struct Abandon;

pub(crate) type PResult<T> = Result<T, Abandon>;

impl<'a> Parser<'a> {
    pub(crate) fn new(tokens: Vec<Token>, text: &'a str, diags: &'a mut Vec<Diagnostic>) -> Self {
        Parser {
            tokens,
            pos: 0,
            text,
            diags,
            depth: 0,
            last_error_end: None,
        }
    }

    fn tok(&self) -> &Tok {
        &self.tokens[self.pos].tok
    }

    /// Whether the token `ahead` places on is `tok`.
    fn peek_is(&self, ahead: usize, tok: &Tok) -> bool {
        self.nth(ahead) == tok
    }

    /// Whether the token `ahead` places on is the contextual word `word`.
    fn word_at(&self, ahead: usize, word: &str) -> bool {
        matches!(self.nth(ahead), Tok::Ident(w) if w == word)
    }

    fn nth(&self, ahead: usize) -> &Tok {
        let index = (self.pos + ahead).min(self.tokens.len() - 1);
        &self.tokens[index].tok
    }

    fn span(&self) -> Span {
        self.tokens[self.pos].span
    }

    /// The span of the token just consumed.
    fn prev_span(&self) -> Span {
        self.tokens[self.pos.saturating_sub(1)].span
    }

    fn at(&self, tok: &Tok) -> bool {
        self.tok() == tok
    }

    /// At a top-level keyword that starts its line: where recovery resumes. (`chan` also
    /// occurs inside types, so a keyword in the middle of a line is not trusted.)
    fn at_item(&self) -> bool {
        if !self.starts_item() {
            return false;
        }
        let start = self.span().start as usize;
        let line = self.text[..start].rsplit('\n').next().unwrap_or("");
        line.trim().is_empty()
    }

    fn at_eof(&self) -> bool {
        self.at(&Tok::Eof)
    }

    fn bump(&mut self) -> Span {
        let span = self.span();
        if !self.at_eof() {
            self.pos += 1;
        }
        span
    }

    fn eat(&mut self, tok: &Tok) -> bool {
        let found = self.at(tok);
        if found {
            self.bump();
        }
        found
    }

    fn expect(&mut self, tok: &Tok, what: &str) -> PResult<Span> {
        if self.at(tok) {
            return Ok(self.bump());
        }
        Err(self.unexpected(what))
    }

    /// Reports "expected WHAT, found TOKEN" at the current token.
    fn unexpected(&mut self, what: &str) -> Abandon {
        let found = self.tok().describe();
        let span = self.span();
        let diag = Diagnostic::error("E0110", format!("expected {what}, found {found}"))
            .at(span)
            .with_label(format!("expected {what}"));
        self.report(diag);
        Abandon
    }

    /// Like [`Self::unexpected`], with a hint.
    fn unexpected_with(&mut self, what: &str, help: &str) -> Abandon {
        let found = self.tok().describe();
        let diag = Diagnostic::error("E0110", format!("expected {what}, found {found}"))
            .at(self.span())
            .with_label(format!("expected {what}"))
            .with_help(help);
        self.report(diag);
        Abandon
    }

    /// Records an error unless it is a cascade of the previous one.
    fn report(&mut self, diag: Diagnostic) {
        let span = diag.span().unwrap_or_default();
        if self.last_error_end.is_some_and(|end| span.start < end) {
            return;
        }
        self.last_error_end = Some(span.end.max(span.start + 1));
        self.diags.push(diag);
    }

    fn ident(&mut self, what: &str) -> PResult<Ident> {
        match self.tok().clone() {
            Tok::Ident(name) => Ok(Ident {
                name,
                span: self.bump(),
            }),
            _ => Err(self.unexpected(what)),
        }
    }

    /// Enters one nesting level; too deep is an error (never a stack overflow).
    fn enter(&mut self) -> PResult<()> {
        self.depth += 1;
        if self.depth <= MAX_DEPTH {
            return Ok(());
        }
        let diag = Diagnostic::error("E0111", "nesting is too deep")
            .at(self.span())
            .with_label(format!("more than {MAX_DEPTH} levels of nesting here"))
            .with_help("split the term into process definitions or named constants");
        self.report(diag);
        self.depth -= 1;
        // Skip to the next declaration: everything up to there is inside the deep term.
        while !self.at_eof() && !self.at_item() {
            self.bump();
        }
        Err(Abandon)
    }

    fn leave(&mut self) {
        self.depth -= 1;
    }

    /// Runs `f` one nesting level deeper.
    fn nested<T>(&mut self, f: impl FnOnce(&mut Self) -> PResult<T>) -> PResult<T> {
        self.enter()?;
        let result = f(self);
        self.leave();
        result
    }

    /// A comma-separated list closed by `close` (the opening token is already consumed). An
    /// item with a syntax error becomes an error node, and the list goes on after the next
    /// `,`, so the list keeps its length and later items are still checked.
    fn list<T: Recover>(
        &mut self,
        close: &Tok,
        mut item: impl FnMut(&mut Self) -> PResult<T>,
    ) -> PResult<Vec<T>> {
        let mut items = Vec::new();
        while !self.at(close) {
            let start = self.span();
            match item(self) {
                Ok(value) => items.push(value),
                Err(Abandon) => {
                    self.skip_balanced(&[Tok::Comma, close.clone()])?;
                    items.push(T::error(start.to(self.prev_span())));
                }
            }
            if !self.eat(&Tok::Comma) {
                break;
            }
        }
        let what = format!("`,` or {}", close.describe());
        self.expect(close, &what)?;
        Ok(items)
    }

    fn text_of(&self, span: Span) -> &str {
        self.text
            .get(span.start as usize..span.end as usize)
            .unwrap_or("")
    }
}

/// Whether a name starts with an upper-case letter (types, processes, constants, systems).
pub(crate) fn is_upper(name: &str) -> bool {
    name.starts_with(|c: char| c.is_ascii_uppercase())
}

/// Syntax nodes that have an error form, standing for an item that failed to parse.
pub(crate) trait Recover {
    fn error(span: Span) -> Self;
}

impl Recover for crate::ast::Expr {
    fn error(span: Span) -> Self {
        crate::ast::Expr {
            kind: crate::ast::ExprKind::Error,
            span,
        }
    }
}

impl Recover for crate::ast::Pattern {
    fn error(span: Span) -> Self {
        crate::ast::Pattern {
            kind: crate::ast::PatternKind::Error,
            span,
        }
    }
}

impl Recover for crate::ast::TypeExpr {
    fn error(span: Span) -> Self {
        crate::ast::TypeExpr::Error(span)
    }
}

impl Recover for crate::ast::Param {
    fn error(span: Span) -> Self {
        let name = Ident {
            name: "_".to_string(),
            span,
        };
        crate::ast::Param {
            name,
            ty: crate::ast::TypeExpr::Error(span),
        }
    }
}
