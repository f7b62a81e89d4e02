//! `ltl FORMULA`: linear temporal logic over labels. Loosest to tightest: `->` (right
//! associative), `or`, `and`, the binary temporal operators `U`/`until`, `R`/`release`,
//! `W`/`unless` (right associative), then the prefixes `not`, `[]`/`always`,
//! `<>`/`eventually`, `X`/`next`. Atoms are `true`, `false`, label patterns and parenthesised
//! formulas. The operator words are reserved inside a formula only.

use super::{PResult, Parser};
use crate::ast::{Ltl, LtlKind};
use crate::token::Tok;
use agentpi_diagnostics::Diagnostic;

/// Words that are operators inside a formula, so never label names there.
const OPERATOR_WORDS: [&str; 10] = [
    "X",
    "next",
    "U",
    "until",
    "R",
    "release",
    "W",
    "unless",
    "always",
    "eventually",
];

#[derive(Clone, Copy)]
enum Binary {
    Until,
    Release,
    WeakUntil,
}

impl Parser<'_> {
    pub(super) fn ltl(&mut self) -> PResult<Ltl> {
        self.nested(|p| p.ltl_implies())
    }

    fn ltl_implies(&mut self) -> PResult<Ltl> {
        let left = self.ltl_or()?;
        if !(self.at(&Tok::Minus) && self.nth(1) == &Tok::Gt) {
            return Ok(left);
        }
        self.bump();
        self.bump();
        let right = self.nested(|p| p.ltl_implies())?;
        Ok(join(LtlKind::Implies, left, right))
    }

    fn ltl_or(&mut self) -> PResult<Ltl> {
        let mut left = self.ltl_and()?;
        while self.ltl_connective(&Tok::Or, &Tok::BarBar, "or") {
            let right = self.nested(|p| p.ltl_and())?;
            left = join(LtlKind::Or, left, right);
        }
        Ok(left)
    }

    fn ltl_and(&mut self) -> PResult<Ltl> {
        let mut left = self.ltl_binary()?;
        while self.ltl_connective(&Tok::And, &Tok::AmpAmp, "and") {
            let right = self.nested(|p| p.ltl_binary())?;
            left = join(LtlKind::And, left, right);
        }
        Ok(left)
    }

    /// Eats `ours` (or C's spelling `theirs`, reported as E0114 and read as `ours`).
    fn ltl_connective(&mut self, ours: &Tok, theirs: &Tok, word: &str) -> bool {
        if self.at(theirs) {
            let written = if theirs == &Tok::AmpAmp { "&&" } else { "||" };
            let diag = Diagnostic::error("E0114", format!("`{written}` is written `{word}` here"))
                .at(self.span())
                .with_label(format!("write `{word}`"))
                .with_help("formulas spell the boolean operators `and`, `or`, `not` and `->`");
            self.report(diag);
        }
        self.eat(ours) || self.eat(theirs)
    }

    fn ltl_binary(&mut self) -> PResult<Ltl> {
        let left = self.ltl_unary()?;
        let op = match self.tok() {
            Tok::Ident(w) if w == "U" || w == "until" => Binary::Until,
            Tok::Ident(w) if w == "R" || w == "release" => Binary::Release,
            Tok::Ident(w) if w == "W" || w == "unless" => Binary::WeakUntil,
            _ => return Ok(left),
        };
        self.bump();
        let right = self.nested(|p| p.ltl_binary())?;
        let kind = match op {
            Binary::Until => LtlKind::Until,
            Binary::Release => LtlKind::Release,
            Binary::WeakUntil => LtlKind::WeakUntil,
        };
        Ok(join(kind, left, right))
    }

    fn ltl_unary(&mut self) -> PResult<Ltl> {
        let start = self.span();
        let make: fn(Box<Ltl>) -> LtlKind = match self.tok() {
            Tok::Not => LtlKind::Not,
            Tok::Bang => {
                let diag = Diagnostic::error("E0114", "`!` is not negation here")
                    .at(self.span())
                    .with_label("write `not`")
                    .with_help("negation is `not f`; `c!` in a label matches sends on `c`");
                self.report(diag);
                LtlKind::Not
            }
            Tok::LBracket if self.nth(1) == &Tok::RBracket => {
                self.bump();
                LtlKind::Always
            }
            Tok::Lt if self.nth(1) == &Tok::Gt => {
                self.bump();
                LtlKind::Eventually
            }
            Tok::Ident(w) if w == "always" => LtlKind::Always,
            Tok::Ident(w) if w == "eventually" => LtlKind::Eventually,
            Tok::Ident(w) if w == "X" || w == "next" => LtlKind::Next,
            _ => return self.ltl_primary(),
        };
        self.bump();
        let operand = self.nested(|p| p.ltl_unary())?;
        let span = start.to(operand.span);
        Ok(Ltl {
            kind: make(Box::new(operand)),
            span,
        })
    }

    fn ltl_primary(&mut self) -> PResult<Ltl> {
        let start = self.span();
        let kind = match self.tok() {
            Tok::True => LtlKind::True,
            Tok::False => LtlKind::False,
            Tok::LParen => {
                self.bump();
                let inner = self.nested(|p| p.ltl_implies())?;
                self.expect(&Tok::RParen, "`)` closing the formula")?;
                return Ok(Ltl {
                    kind: inner.kind,
                    span: start.to(self.prev_span()),
                });
            }
            Tok::Ident(w) if OPERATOR_WORDS.contains(&w.as_str()) => {
                return Err(self.operator_word(w.clone()));
            }
            Tok::Ident(_) if self.starts_state_atom(0) => {
                let pred = self.state_atom()?;
                let span = pred.span;
                return Ok(Ltl {
                    kind: LtlKind::State(pred),
                    span,
                });
            }
            Tok::Ident(_) | Tok::Tau => {
                let label = self.label()?;
                let span = label.span;
                return Ok(Ltl {
                    kind: LtlKind::Atom(label),
                    span,
                });
            }
            _ => {
                return Err(self.unexpected_with(
                    "a formula",
                    "a formula is a label pattern, `true`, `false`, `not f`, `[] f`, `<> f`, \
                     `X f`, `f U g`, `f R g`, `f W g`, `f and g`, `f or g`, `f -> g` or `(f)`",
                ));
            }
        };
        self.bump();
        Ok(Ltl { kind, span: start })
    }

    /// An operator word where a formula was expected: E0115.
    fn operator_word(&mut self, word: String) -> super::Abandon {
        let diag = Diagnostic::error("E0115", format!("`{word}` is an operator in a formula"))
            .at(self.span())
            .with_label("expected a formula here")
            .with_help(
                "inside `ltl`, the words X, next, U, until, R, release, W, unless, always and \
                 eventually are temporal operators, not label names; binary ones go between \
                 two formulas (`a U b`)",
            );
        self.report(diag);
        super::Abandon
    }
}

fn join(make: fn(Box<Ltl>, Box<Ltl>) -> LtlKind, left: Ltl, right: Ltl) -> Ltl {
    let span = left.span.to(right.span);
    Ltl {
        kind: make(Box::new(left), Box::new(right)),
        span,
    }
}
