//! Properties after `check S:`: `deadlock free`, `never`, `reachable`, `eventually`,
//! `always eventually`, `leads to`, `ltl FORMULA` (see `ltl.rs`). The property words are not reserved: they are recognised
//! by position.

use super::{PResult, Parser};
use crate::ast::*;
use crate::token::Tok;
use agentpi_diagnostics::Diagnostic;

const FORMS: &str = "a property is one of `deadlock free`, `never PAT`, `reachable PAT`, \
`eventually PAT`, `always eventually PAT`, `PAT leads to PAT`, `ltl FORMULA`, `never PRED`, \
`reachable PRED`, `always PRED` (PRED over states: `at Proc.point`, `len(c) == n`, \
`c contains v`), optionally after `fair`, `strong fair` or `forall i in T:`; or \
`refines System`, `equivalent System`, `deterministic`";

impl Parser<'_> {
    pub(super) fn property(&mut self) -> PResult<Property> {
        if self.at_relation() {
            return self.relation();
        }
        let word = match self.tok() {
            Tok::Ident(word) => word.clone(),
            _ => String::new(),
        };
        if let Some(check) = self.state_check(&word) {
            self.bump();
            return Ok(Property::State(check, self.state_pred()?));
        }
        let takes_label = matches!(self.nth(1), Tok::Ident(_) | Tok::Tau);
        let ahead = if word == "always" { 2 } else { 1 };
        if matches!(
            word.as_str(),
            "never" | "reachable" | "eventually" | "always"
        ) && self.formula_in_parens(ahead)
        {
            return Err(self.formula_not_label(&word, ahead));
        }
        match word.as_str() {
            "forall" if matches!(self.nth(1), Tok::Ident(_)) => self.forall(),
            "deadlock" => {
                self.bump();
                self.word("free")?;
                Ok(Property::DeadlockFree)
            }
            "never" if takes_label => Ok(Property::Never(self.after_word()?)),
            "reachable" if takes_label => Ok(Property::Reachable(self.after_word()?)),
            "eventually" if takes_label => Ok(Property::Eventually(self.after_word()?)),
            "always" => {
                self.bump();
                self.word("eventually")?;
                Ok(Property::AlwaysEventually(self.label()?))
            }
            "ltl" if !self.word_at(1, "leads") => {
                self.bump();
                Ok(Property::Ltl(self.ltl()?))
            }
            _ => self.leads_to(),
        }
    }

    /// `never`, `reachable` or `always` followed by a state predicate.
    fn state_check(&self, word: &str) -> Option<StateCheck> {
        let check = match word {
            "never" => StateCheck::Never,
            "reachable" => StateCheck::Reachable,
            "always" => StateCheck::Always,
            _ => return None,
        };
        self.starts_state_pred(1).then_some(check)
    }

    /// Whether a parenthesised formula (`(a or b)`, `(not a)`) starts `ahead` tokens on,
    /// where a label pattern was expected.
    fn formula_in_parens(&self, ahead: usize) -> bool {
        if !matches!(self.nth(ahead), Tok::LParen) {
            return false;
        }
        let mut depth = 0;
        for k in ahead..self.tokens.len() - self.pos {
            match self.nth(k) {
                Tok::LParen => depth += 1,
                Tok::RParen if depth == 1 => return false,
                Tok::RParen => depth -= 1,
                Tok::Or | Tok::And | Tok::Not | Tok::BarBar | Tok::AmpAmp => return depth == 1,
                Tok::Eof => return false,
                _ => {}
            }
        }
        false
    }

    /// `eventually (a or b)`: these forms take one label pattern; `ltl` says the rest.
    fn formula_not_label(&mut self, word: &str, ahead: usize) -> super::Abandon {
        let span = self.tokens[self.pos + ahead].span;
        let (form, help) = match word {
            "never" => ("never", "write it with `ltl`: `ltl [] not (a or b)`"),
            "reachable" => (
                "reachable",
                "write one `reachable PAT` check for each label",
            ),
            "always" => (
                "always eventually",
                "write it with `ltl`: `ltl [] <> (a or b)`",
            ),
            _ => ("eventually", "write it with `ltl`: `ltl <> (a or b)`"),
        };
        let diag = Diagnostic::error(
            "E0110",
            format!("`{form}` takes one label pattern, not a formula over labels"),
        )
        .at(span)
        .with_label("a formula")
        .with_help(format!("{help} (see `ltl FORMULA` in docs/language.md)"));
        self.report(diag);
        super::Abandon
    }

    fn after_word(&mut self) -> PResult<LabelPat> {
        self.bump();
        self.label()
    }

    fn leads_to(&mut self) -> PResult<Property> {
        let left = self.label()?;
        if !matches!(self.tok(), Tok::Ident(w) if w == "leads") {
            let diag = Diagnostic::error("E0113", "expected a property")
                .at(left.span)
                .with_label("not a property")
                .with_help(FORMS);
            self.report(diag);
            return Err(super::Abandon);
        }
        self.bump();
        self.word("to")?;
        let right = self.label()?;
        Ok(Property::LeadsTo(left, right))
    }

    /// Expects the contextual keyword `word`.
    fn word(&mut self, word: &str) -> PResult<()> {
        if matches!(self.tok(), Tok::Ident(w) if w == word) {
            self.bump();
            return Ok(());
        }
        Err(self.unexpected(&format!("`{word}`")))
    }

    /// An index of a channel in a label: `_` (any element) or an expression over constants
    /// and `forall` variables (`c[2]`, `c[i]`, `c[(i + 1) % N]`).
    fn label_index(&mut self) -> PResult<Pattern> {
        let start = self.span();
        if self.eat(&Tok::Underscore) {
            return Ok(Pattern {
                kind: PatternKind::Wild,
                span: start,
            });
        }
        let expr = self.expr()?;
        let span = expr.span;
        let kind = match expr.kind {
            ExprKind::Name(name) => PatternKind::Name(name),
            _ => PatternKind::Eq(expr),
        };
        Ok(Pattern { kind, span })
    }

    /// A label pattern: `tau`, `c`, `c(p, ...)`.
    pub(super) fn label(&mut self) -> PResult<LabelPat> {
        let start = self.span();
        if self.eat(&Tok::Tau) {
            return Ok(LabelPat {
                head: LabelHead::Tau,
                index: Vec::new(),
                dir: LabelDir::Any,
                args: None,
                span: start,
            });
        }
        if !matches!(self.tok(), Tok::Ident(_)) {
            return Err(self.unexpected("a label pattern such as `c(_, x)`, `ev` or `tau`"));
        }
        let name = self.ident("a label")?;
        let mut index = Vec::new();
        while self.eat(&Tok::LBracket) {
            index.extend(self.list(&Tok::RBracket, |p| p.label_index())?);
        }
        let dir = if self.eat(&Tok::Bang) {
            LabelDir::Send
        } else if self.eat(&Tok::Question) {
            LabelDir::Receive
        } else {
            LabelDir::Any
        };
        let args = if self.eat(&Tok::LParen) {
            Some(self.list(&Tok::RParen, |p| p.pattern())?)
        } else {
            None
        };
        Ok(LabelPat {
            head: LabelHead::Name(name),
            index,
            dir,
            args,
            span: start.to(self.prev_span()),
        })
    }
}
