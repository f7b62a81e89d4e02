//! State predicates in properties: `at P.l`, `at P(e, ...).l`, `len(c) OP e`,
//! `c contains p`, combined with `not`, `and`, `or` and parentheses. They follow `never`,
//! `reachable` and `always`, and stand as atoms in `ltl` formulas. A predicate is told from a
//! label pattern by its first atom: `at Upper`, `len(...)` followed by a comparison, or a
//! channel followed by the word `contains`.

use super::{PResult, Parser, is_upper};
use crate::ast::{BinOp, Expr, StatePred, StatePredKind};
use crate::token::Tok;

impl Parser<'_> {
    /// Whether a state predicate starts `ahead` tokens on (after any `not` and `(`).
    pub(super) fn starts_state_pred(&self, mut ahead: usize) -> bool {
        while matches!(self.nth(ahead), Tok::Not | Tok::LParen) {
            ahead += 1;
        }
        self.starts_state_atom(ahead)
    }

    /// Whether a state atom starts `ahead` tokens on.
    pub(super) fn starts_state_atom(&self, ahead: usize) -> bool {
        match self.nth(ahead) {
            Tok::Ident(w) if w == "at" => {
                matches!(self.nth(ahead + 1), Tok::Ident(p) if is_upper(p))
            }
            Tok::Ident(w) if w == "len" && self.nth(ahead + 1) == &Tok::LParen => {
                let close = self.closing(ahead + 1);
                compare_op(self.nth(close + 1)).is_some()
            }
            Tok::Ident(_) => {
                let mut k = ahead + 1;
                while self.nth(k) == &Tok::LBracket {
                    k = self.closing(k) + 1;
                }
                self.word_at(k, "contains")
            }
            _ => false,
        }
    }

    /// The offset of the bracket closing the one `open` tokens on (or of the end).
    fn closing(&self, open: usize) -> usize {
        let mut depth = 0usize;
        let mut k = open;
        loop {
            match self.nth(k) {
                Tok::LParen | Tok::LBracket => depth += 1,
                Tok::RParen | Tok::RBracket => {
                    depth = depth.saturating_sub(1);
                    if depth == 0 {
                        return k;
                    }
                }
                Tok::Eof => return k,
                _ => {}
            }
            k += 1;
        }
    }

    /// `pred := and { 'or' and }`, `and := unary { 'and' unary }`,
    /// `unary := 'not' unary | '(' pred ')' | atom`.
    pub(super) fn state_pred(&mut self) -> PResult<StatePred> {
        self.nested(|p| {
            let mut left = p.state_and()?;
            while p.eat(&Tok::Or) {
                let right = p.state_and()?;
                left = join(StatePredKind::Or, left, right);
            }
            Ok(left)
        })
    }

    fn state_and(&mut self) -> PResult<StatePred> {
        let mut left = self.state_unary()?;
        while self.eat(&Tok::And) {
            let right = self.state_unary()?;
            left = join(StatePredKind::And, left, right);
        }
        Ok(left)
    }

    fn state_unary(&mut self) -> PResult<StatePred> {
        let start = self.span();
        if self.eat(&Tok::Not) {
            let inner = self.nested(|p| p.state_unary())?;
            let span = start.to(inner.span);
            return Ok(StatePred {
                kind: StatePredKind::Not(Box::new(inner)),
                span,
            });
        }
        if self.eat(&Tok::LParen) {
            let inner = self.state_pred()?;
            self.expect(&Tok::RParen, "`)` closing the predicate")?;
            return Ok(StatePred {
                span: start.to(self.prev_span()),
                ..inner
            });
        }
        self.state_atom()
    }

    /// One atom: `at P.l`, `at P(e, ...).l`, `len(c) OP e`, `c contains p`.
    pub(super) fn state_atom(&mut self) -> PResult<StatePred> {
        let start = self.span();
        if !self.starts_state_atom(0) {
            return Err(self.unexpected_with(
                "a state predicate",
                "a state predicate is `at Proc.point`, `at Proc(args).point`, `len(c) == n` \
                 (or `!=`, `<`, `<=`, `>`, `>=`), `c contains v`, or `not`, `and`, `or` of them",
            ));
        }
        let kind = if self.word_at(0, "at") {
            self.bump();
            self.at_atom()?
        } else if self.word_at(0, "len") && self.nth(1) == &Tok::LParen {
            self.bump();
            self.bump();
            let (chan, index) = self.buffer_name()?;
            self.expect(&Tok::RParen, "`)` after the channel")?;
            let op = compare_op(self.tok()).expect("checked by starts_state_atom");
            self.bump();
            let value = self.arith_expr()?;
            StatePredKind::Len {
                chan,
                index,
                op,
                value,
            }
        } else {
            let (chan, index) = self.buffer_name()?;
            self.bump(); // `contains`
            let args = if self.eat(&Tok::LParen) {
                self.list(&Tok::RParen, |p| p.pattern())?
            } else {
                vec![self.pattern()?]
            };
            StatePredKind::Contains { chan, index, args }
        };
        Ok(StatePred {
            kind,
            span: start.to(self.prev_span()),
        })
    }

    /// After `at`: `P.l` or `P(e, ...).l`.
    fn at_atom(&mut self) -> PResult<StatePredKind> {
        let proc = self.ident("a process name")?;
        let args = match self.eat(&Tok::LParen) {
            true => Some(self.list(&Tok::RParen, |p| p.expr())?),
            false => None,
        };
        self.expect(
            &Tok::Dot,
            "`.` and the name of a point, as in `at Client.ready`",
        )?;
        let point = self.ident("the name of a point (`ready:` in the process)")?;
        Ok(StatePredKind::At { proc, args, point })
    }

    /// A buffered channel: `c`, `c[e]`, `c[e][f]`.
    fn buffer_name(&mut self) -> PResult<(crate::ast::Ident, Vec<Expr>)> {
        let chan = self.ident("a buffered channel")?;
        let mut index = Vec::new();
        while self.eat(&Tok::LBracket) {
            index.extend(self.list(&Tok::RBracket, |p| p.expr())?);
        }
        Ok((chan, index))
    }
}

fn compare_op(tok: &Tok) -> Option<BinOp> {
    Some(match tok {
        Tok::EqEq => BinOp::Eq,
        Tok::NotEq => BinOp::Ne,
        Tok::Lt => BinOp::Lt,
        Tok::Le => BinOp::Le,
        Tok::Gt => BinOp::Gt,
        Tok::Ge => BinOp::Ge,
        _ => return None,
    })
}

fn join(
    make: fn(Box<StatePred>, Box<StatePred>) -> StatePredKind,
    left: StatePred,
    right: StatePred,
) -> StatePred {
    let span = left.span.to(right.span);
    StatePred {
        kind: make(Box::new(left), Box::new(right)),
        span,
    }
}
