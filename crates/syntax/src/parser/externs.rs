//! `extern c, d within 2000 parallel { ok => ok, err | timeout | crash => fail }`: channels whose
//! other end is a real tool. `extern` is a keyword only where a declaration starts and a name
//! follows it, so a model that uses `extern` as a name keeps working.

use super::{PResult, Parser};
use crate::ast::{ExternDecl, OutcomeArm};
use crate::token::Tok;

impl Parser<'_> {
    /// At a declaration: a keyword that starts one, or `extern` followed by a name.
    pub(super) fn starts_item(&self) -> bool {
        self.tok().starts_item() || self.at_extern()
    }

    fn at_extern(&self) -> bool {
        self.word_at(0, "extern") && matches!(self.nth(1), Tok::Ident(_))
    }

    pub(super) fn extern_decl(&mut self) -> PResult<ExternDecl> {
        let start = self.bump();
        let mut chans = vec![self.ident("the name of a channel declared with `chan`")?];
        while self.eat(&Tok::Comma) {
            chans.push(self.ident("the name of a channel declared with `chan`")?);
        }
        let mut decl = ExternDecl {
            chans,
            within: None,
            parallel: false,
            outcomes: Vec::new(),
            span: start,
        };
        self.extern_clauses(&mut decl)?;
        decl.span = start.to(self.prev_span());
        Ok(decl)
    }

    /// `within N`, `parallel` and `{ ... }`, in any order, each at most once.
    fn extern_clauses(&mut self, decl: &mut ExternDecl) -> PResult<()> {
        let mut seen_arms = false;
        loop {
            if self.word_at(0, "within") && decl.within.is_none() {
                self.bump();
                decl.within = Some(self.deadline()?);
            } else if self.word_at(0, "parallel") && !decl.parallel {
                self.bump();
                decl.parallel = true;
            } else if self.at(&Tok::LBrace) && !seen_arms {
                self.bump();
                seen_arms = true;
                decl.outcomes = self.outcome_arms()?;
            } else {
                return Ok(());
            }
        }
    }

    /// The deadline after `within`: milliseconds, as a literal, a constant or in parentheses
    /// (a lower-case name cannot be one, so the next line's `extern` is not taken for it).
    fn deadline(&mut self) -> PResult<crate::ast::Expr> {
        match self.tok() {
            Tok::Int(_) | Tok::LParen => self.simple_expr(),
            Tok::Ident(name) if super::is_upper(name) => self.simple_expr(),
            _ => Err(self.unexpected("the deadline in milliseconds, as in `within 2000`")),
        }
    }

    /// The arms after `{`, through the closing `}`.
    fn outcome_arms(&mut self) -> PResult<Vec<OutcomeArm>> {
        let mut arms = Vec::new();
        while !self.at(&Tok::RBrace) {
            let mut kinds = vec![self.ident("`ok`, `err`, `timeout` or `crash`")?];
            while self.eat(&Tok::Bar) {
                kinds.push(self.ident("`ok`, `err`, `timeout` or `crash`")?);
            }
            self.expect(&Tok::FatArrow, "`=>` and the value answered")?;
            let value = self.expr()?;
            arms.push(OutcomeArm { kinds, value });
            if !self.eat(&Tok::Comma) {
                break;
            }
        }
        self.expect(&Tok::RBrace, "`,` or `}`")?;
        Ok(arms)
    }
}
