//! Expressions (a Pratt parser), patterns and type expressions.

use super::{PResult, Parser, is_upper};
use crate::MAX_DEPTH;
use crate::ast::*;
use crate::token::Tok;
use agentpi_diagnostics::Diagnostic;

/// Binding powers: `or` < `and` < `not` < comparisons < `+ -` < `* / %` < unary `-`.
const NOT_BP: u8 = 3;
const ADD_BP: u8 = 5;
const NEG_BP: u8 = 7;

fn binary_op(tok: &Tok) -> Option<(BinOp, u8)> {
    Some(match tok {
        Tok::Or | Tok::BarBar => (BinOp::Or, 1),
        Tok::And | Tok::AmpAmp => (BinOp::And, 2),
        Tok::EqEq => (BinOp::Eq, 4),
        Tok::NotEq => (BinOp::Ne, 4),
        Tok::Lt => (BinOp::Lt, 4),
        Tok::Le => (BinOp::Le, 4),
        Tok::Gt => (BinOp::Gt, 4),
        Tok::Ge => (BinOp::Ge, 4),
        Tok::Plus => (BinOp::Add, ADD_BP),
        Tok::Minus => (BinOp::Sub, ADD_BP),
        Tok::Star => (BinOp::Mul, 6),
        Tok::Slash => (BinOp::Div, 6),
        Tok::Percent => (BinOp::Rem, 6),
        _ => return None,
    })
}

impl Parser<'_> {
    pub(super) fn expr(&mut self) -> PResult<Expr> {
        self.nested(|p| p.expr_bp(0))
    }

    /// An expression without comparisons or boolean operators (`N - 1`, `2 * k`).
    pub(super) fn arith_expr(&mut self) -> PResult<Expr> {
        self.nested(|p| p.expr_bp(ADD_BP))
    }

    fn expr_bp(&mut self, min: u8) -> PResult<Expr> {
        let mut lhs = self.expr_prefix()?;
        let mut count = 0;
        while let Some((op, bp)) = binary_op(self.tok()) {
            // `->` (an implication of `ltl`) is no subtraction.
            if bp < min || (op == BinOp::Sub && self.nth(1) == &Tok::Gt) {
                break;
            }
            count += 1;
            if count > MAX_DEPTH {
                // A left-nested chain this long would nest the tree as deep.
                return Err(self.too_long());
            }
            self.foreign_operator();
            self.bump();
            let rhs = self.nested(|p| p.expr_bp(bp + 1))?;
            let span = lhs.span.to(rhs.span);
            lhs = Expr {
                kind: ExprKind::Binary(op, Box::new(lhs), Box::new(rhs)),
                span,
            };
        }
        Ok(lhs)
    }

    fn too_long(&mut self) -> super::Abandon {
        let diag = Diagnostic::error("E0111", "expression is too long")
            .at(self.span())
            .with_label(format!("more than {MAX_DEPTH} operators in one expression"))
            .with_help("split it with named constants or intermediate variables");
        self.report(diag);
        super::Abandon
    }

    /// `&&` and `||` are C's spelling: one error saying agentpi's, then parsing goes on as
    /// if it had been written so.
    fn foreign_operator(&mut self) {
        let (written, ours) = match self.tok() {
            Tok::AmpAmp => ("&&", "and"),
            Tok::BarBar => ("||", "or"),
            _ => return,
        };
        let diag = Diagnostic::error("E0114", format!("`{written}` is written `{ours}` here"))
            .at(self.span())
            .with_label(format!("write `{ours}`"))
            .with_help(format!(
                "agentpi spells the boolean operators `and`, `or` and `not`: `a {ours} b`"
            ));
        self.report(diag);
    }

    fn expr_prefix(&mut self) -> PResult<Expr> {
        let start = self.span();
        let (op, bp) = match self.tok() {
            Tok::Minus => (UnOp::Neg, NEG_BP),
            Tok::Not => (UnOp::Not, NOT_BP),
            Tok::Bang => {
                let diag = Diagnostic::error("E0114", "`!` is not negation here")
                    .at(self.span())
                    .with_label("write `not`")
                    .with_help("negation is `not e`; `!` sends on a channel (`c!v`) or replicates a process (`!P`)");
                self.report(diag);
                (UnOp::Not, NOT_BP)
            }
            _ => return self.atom(),
        };
        self.bump();
        let operand = self.nested(|p| p.expr_bp(bp))?;
        let span = start.to(operand.span);
        Ok(negate_literal(op, operand, span))
    }

    /// Whether the current token can start a [`Self::simple_expr`].
    pub(super) fn starts_simple_expr(&self) -> bool {
        matches!(
            self.tok(),
            Tok::Int(_) | Tok::Ident(_) | Tok::True | Tok::False | Tok::Minus | Tok::LParen
        )
    }

    /// An expression without binary operators: what may follow `c!` unparenthesised.
    pub(super) fn simple_expr(&mut self) -> PResult<Expr> {
        let start = self.span();
        if self.eat(&Tok::Minus) {
            let operand = self.nested(|p| p.atom())?;
            let span = start.to(operand.span);
            return Ok(negate_literal(UnOp::Neg, operand, span));
        }
        self.atom()
    }

    fn atom(&mut self) -> PResult<Expr> {
        let start = self.span();
        let kind = match self.tok().clone() {
            Tok::Int(value) => {
                self.bump();
                ExprKind::Int(value)
            }
            tok @ (Tok::True | Tok::False) => {
                self.bump();
                ExprKind::Bool(tok == Tok::True)
            }
            Tok::Ident(_) => {
                let name = self.ident("a name")?;
                if self.eat(&Tok::LParen) {
                    ExprKind::Apply(name, self.list(&Tok::RParen, |p| p.expr())?)
                } else if self.at(&Tok::LBracket) {
                    ExprKind::Index(name, self.indices()?)
                } else {
                    ExprKind::Name(name)
                }
            }
            Tok::LParen => {
                self.bump();
                let mut items = self.nested(|p| p.list(&Tok::RParen, |p| p.expr()))?;
                match items.len() {
                    1 => items.pop().map(|e| e.kind).unwrap_or(ExprKind::Error),
                    0 => return Err(self.empty_parens(start)),
                    _ => ExprKind::Tuple(items),
                }
            }
            _ => return Err(self.unexpected("an expression")),
        };
        Ok(Expr {
            kind,
            span: start.to(self.prev_span()),
        })
    }

    /// `[e][f]...` or `[e, f]` after a channel array's name: its element's indices.
    pub(super) fn indices(&mut self) -> PResult<Vec<Expr>> {
        let mut out = Vec::new();
        while self.eat(&Tok::LBracket) {
            out.extend(self.nested(|p| p.list(&Tok::RBracket, |p| p.expr()))?);
        }
        Ok(out)
    }

    fn empty_parens(&mut self, start: agentpi_diagnostics::Span) -> super::Abandon {
        let diag = Diagnostic::error("E0110", "expected an expression, found `()`")
            .at(start.to(self.prev_span()))
            .with_label("empty parentheses")
            .with_help(
                "there is no unit value; a channel that carries nothing is used as `c!` and `c?`",
            );
        self.report(diag);
        super::Abandon
    }

    /// A pattern: `x`, `x: T`, `_`, `=e`, a literal, `ctor(p, ...)`, `(p, ...)`.
    pub(super) fn pattern(&mut self) -> PResult<Pattern> {
        self.nested(|p| p.pattern_inner())
    }

    fn pattern_inner(&mut self) -> PResult<Pattern> {
        let start = self.span();
        let kind = match self.tok().clone() {
            Tok::Underscore => {
                self.bump();
                PatternKind::Wild
            }
            Tok::Assign => {
                self.bump();
                PatternKind::Eq(self.simple_expr()?)
            }
            Tok::Int(_) | Tok::Minus | Tok::True | Tok::False => {
                PatternKind::Eq(self.simple_expr()?)
            }
            Tok::Ident(_) => {
                let name = self.ident("a pattern")?;
                if self.eat(&Tok::LParen) {
                    PatternKind::Ctor(name, self.list(&Tok::RParen, |p| p.pattern())?)
                } else if self.eat(&Tok::Colon) {
                    PatternKind::Typed(name, self.type_expr()?)
                } else {
                    PatternKind::Name(name)
                }
            }
            Tok::LParen => {
                self.bump();
                let mut items = self.list(&Tok::RParen, |p| p.pattern())?;
                match items.len() {
                    1 => items.pop().map(|p| p.kind).unwrap_or(PatternKind::Error),
                    _ => PatternKind::Tuple(items),
                }
            }
            _ => return Err(self.unexpected("a pattern")),
        };
        Ok(Pattern {
            kind,
            span: start.to(self.prev_span()),
        })
    }

    /// A type: `Name`, `lo..hi`, `(T, ...)`, `chan`, `chan T`, `chan (T, ...)`.
    pub(super) fn type_expr(&mut self) -> PResult<TypeExpr> {
        self.nested(|p| p.type_inner())
    }

    fn type_inner(&mut self) -> PResult<TypeExpr> {
        let start = self.span();
        match self.tok().clone() {
            Tok::Chan => {
                self.bump();
                let carried = self.chan_carried()?;
                Ok(TypeExpr::Chan(carried, start.to(self.prev_span())))
            }
            Tok::LParen => {
                self.bump();
                let mut items = self.list(&Tok::RParen, |p| p.type_expr())?;
                let span = start.to(self.prev_span());
                Ok(match items.len() {
                    1 => items.pop().unwrap_or(TypeExpr::Error(span)),
                    _ => TypeExpr::Tuple(items, span),
                })
            }
            Tok::Ident(name) if is_upper(&name) && *self.nth(1) != Tok::DotDot => {
                Ok(TypeExpr::Named(self.ident("a type")?))
            }
            Tok::Ident(_) | Tok::Int(_) | Tok::Minus => {
                let lo = self.nested(|p| p.expr_bp(ADD_BP))?;
                self.expect(&Tok::DotDot, "`..` (a range is written `lo..hi`)")?;
                let hi = self.nested(|p| p.expr_bp(ADD_BP))?;
                Ok(TypeExpr::Range(
                    Box::new(lo),
                    Box::new(hi),
                    start.to(self.prev_span()),
                ))
            }
            _ => Err(self.unexpected("a type")),
        }
    }

    /// What follows `chan` in a type: `(T, ...)`, one type, or nothing.
    fn chan_carried(&mut self) -> PResult<Vec<TypeExpr>> {
        match self.tok() {
            Tok::LParen => self.carried(),
            Tok::Chan | Tok::Int(_) | Tok::Minus => Ok(vec![self.type_expr()?]),
            Tok::Ident(name) if is_upper(name) => Ok(vec![self.type_expr()?]),
            _ => Ok(Vec::new()),
        }
    }

    /// What a channel carries: `(T, U, ...)` is a list of values, anything else one value.
    pub(super) fn carried(&mut self) -> PResult<Vec<TypeExpr>> {
        if self.eat(&Tok::LParen) {
            return self.list(&Tok::RParen, |p| p.type_expr());
        }
        Ok(vec![self.type_expr()?])
    }
}

/// `-5` is the literal `-5`, not a negation of `5`.
fn negate_literal(op: UnOp, operand: Expr, span: agentpi_diagnostics::Span) -> Expr {
    match (op, &operand.kind) {
        (UnOp::Neg, ExprKind::Int(value)) => Expr {
            kind: ExprKind::Int(-value),
            span,
        },
        _ => Expr {
            kind: ExprKind::Unary(op, Box::new(operand)),
            span,
        },
    }
}
