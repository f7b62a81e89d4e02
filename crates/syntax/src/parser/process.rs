//! Processes: `|` (loosest), `;`, `+`, then prefixes, `new`, `!`, `if`, `match`, calls.

use super::{Abandon, PResult, Parser, is_upper};
use crate::ast::*;
use crate::token::Tok;

impl Parser<'_> {
    /// The body of a `proc` or `system`; a syntax error turns the rest of it into an `Error`.
    pub(super) fn body(&mut self) -> Proc {
        let start = self.span();
        match self.process() {
            Ok(proc) => proc,
            Err(Abandon) => {
                while !self.at_eof() && !self.at_item() {
                    self.bump();
                }
                Proc {
                    kind: ProcKind::Error,
                    span: start.to(self.prev_span()),
                }
            }
        }
    }

    /// A full process: parallel composition is the loosest operator.
    pub(super) fn process(&mut self) -> PResult<Proc> {
        self.nested(|p| p.operator_list(&Tok::Bar, ProcKind::Par, Self::seq))
    }

    /// `||` where `|` is meant (CSP's and C's habit): one error, then read as `|`.
    fn double_bar(&mut self) -> bool {
        if !self.at(&Tok::BarBar) {
            return false;
        }
        let diag =
            agentpi_diagnostics::Diagnostic::error("E0114", "parallel composition is written `|`")
                .at(self.span())
                .with_label("write `|`")
                .with_help("`P | Q` runs P and Q side by side; `or` is the boolean operator");
        self.report(diag);
        true
    }

    fn seq(&mut self) -> PResult<Proc> {
        self.operator_list(&Tok::Semi, ProcKind::Seq, Self::choice)
    }

    fn choice(&mut self) -> PResult<Proc> {
        self.operator_list(&Tok::Plus, ProcKind::Choice, Self::unary)
    }

    /// `operand (op operand)*`, kept as one flat list.
    fn operator_list(
        &mut self,
        op: &Tok,
        make: fn(Vec<Proc>) -> ProcKind,
        operand: fn(&mut Self) -> PResult<Proc>,
    ) -> PResult<Proc> {
        let first = operand(self)?;
        let bars = *op == Tok::Bar;
        let more = self.at(op) || (bars && self.at(&Tok::BarBar));
        if !more {
            return Ok(first);
        }
        let mut items = vec![first];
        while self.eat(op) || (bars && self.double_bar() && self.eat(&Tok::BarBar)) {
            items.push(operand(self)?);
        }
        let span = items[0].span.to(items[items.len() - 1].span);
        Ok(Proc {
            kind: make(items),
            span,
        })
    }

    /// An operand of `+`, `;`, `|`. A syntax error inside it is recovered from by skipping to
    /// the next operator or closing bracket, so later mistakes are reported too.
    fn unary(&mut self) -> PResult<Proc> {
        let start = self.span();
        match self.nested(|p| p.unary_inner()) {
            Ok(proc) => Ok(proc),
            Err(Abandon) => {
                self.skip_balanced(RESUME)?;
                Ok(error_proc(start.to(self.prev_span())))
            }
        }
    }

    fn unary_inner(&mut self) -> PResult<Proc> {
        let start = self.span();
        let kind = match self.tok().clone() {
            Tok::Int(0) => {
                self.bump();
                ProcKind::Nil
            }
            Tok::New => return self.new_proc(),
            Tok::Bang => {
                self.bump();
                ProcKind::Repl(Box::new(self.unary()?))
            }
            Tok::If => return self.if_proc(),
            Tok::Ident(word) if word == "par" && self.at_family_or_end() => return self.par_for(),
            Tok::Ident(word) if word == "end" && self.at_family_or_end() => {
                self.bump();
                self.bump();
                ProcKind::End(Box::new(self.unary()?))
            }
            Tok::Ident(word) if !is_upper(&word) && self.peek_is(1, &Tok::Colon) => {
                let name = self.ident("a point's name")?;
                self.bump();
                ProcKind::Point(name, Box::new(self.unary()?))
            }
            Tok::Match => return self.match_proc(),
            Tok::LParen => return self.paren_proc(),
            Tok::Ident(name) if is_upper(&name) => {
                let name = self.ident("a process name")?;
                let args = if self.eat(&Tok::LParen) {
                    self.call_args()?
                } else {
                    Vec::new()
                };
                ProcKind::Call(name, args)
            }
            Tok::Ident(_) | Tok::Tau | Tok::Assert => return self.prefixed(),
            Tok::Int(_) => {
                let help = "`0` is the only number that is a process; to send an expression, \
                            parenthesise it: `c!(x + 1)`";
                return Err(self.unexpected_with("a process", help));
            }
            _ => return Err(self.unexpected("a process")),
        };
        Ok(Proc {
            kind,
            span: start.to(self.prev_span()),
        })
    }

    fn call_args(&mut self) -> PResult<Vec<Expr>> {
        self.list(&Tok::RParen, |p| p.expr())
    }

    fn starts_prefix(&self) -> bool {
        match self.tok() {
            Tok::Ident(name) => !is_upper(name) && !self.at_family_or_end(),
            Tok::Tau | Tok::Assert => true,
            _ => false,
        }
    }

    /// `par i in ...`, `end: ...` or `l: ...`: lower-case words that start a process, not a
    /// prefix.
    fn at_family_or_end(&self) -> bool {
        match self.tok() {
            Tok::Ident(word) if word == "par" => self.word_at(2, "in"),
            // `end:` and named points `l:`.
            Tok::Ident(word) if !is_upper(word) => self.peek_is(1, &Tok::Colon),
            _ => false,
        }
    }

    /// `prefix . prefix . ... . P`, or a bare prefix chain meaning `... . 0`.
    fn prefixed(&mut self) -> PResult<Proc> {
        let start = self.span();
        let mut prefixes = Vec::new();
        let mut broken = false;
        let cont = loop {
            match self.prefix() {
                Ok(prefix) => prefixes.push(prefix),
                Err(Abandon) => {
                    // Skip to the next `.` and parse the rest of the chain for more errors.
                    self.skip_balanced(RESUME)?;
                    broken = true;
                }
            }
            if !self.eat(&Tok::Dot) {
                let end = self.prev_span();
                let at = agentpi_diagnostics::Span::new(end.file, end.end, end.end);
                break Proc {
                    kind: ProcKind::Nil,
                    span: at,
                };
            }
            if !self.starts_prefix() {
                break self.unary()?;
            }
        };
        let span = start.to(cont.span);
        if broken {
            // A broken prefix may have bound names the rest uses: check none of it.
            return Ok(error_proc(span));
        }
        Ok(Proc {
            kind: ProcKind::Prefixed(prefixes, Box::new(cont)),
            span,
        })
    }

    fn prefix(&mut self) -> PResult<Prefix> {
        let start = self.span();
        let kind = match self.tok() {
            Tok::Tau => {
                self.bump();
                PrefixKind::Tau
            }
            Tok::Assert => {
                self.bump();
                self.expect(&Tok::LParen, "`(` after `assert`")?;
                let cond = self.expr()?;
                self.expect(&Tok::RParen, "`)`")?;
                PrefixKind::Assert(cond)
            }
            _ => self.named_prefix()?,
        };
        Ok(Prefix {
            kind,
            span: start.to(self.prev_span()),
        })
    }

    /// `c!...`, `c?...`, `c[i]!...`, `ev(...)` or `ev`.
    fn named_prefix(&mut self) -> PResult<PrefixKind> {
        let name = self.ident("a prefix")?;
        let index = self.indices()?;
        if !index.is_empty() && !matches!(self.tok(), Tok::Bang | Tok::Question) {
            return Err(self.unexpected("`!` or `?` after an element of a channel array"));
        }
        Ok(match self.tok() {
            Tok::Bang => {
                self.bump();
                PrefixKind::Output {
                    chan: name,
                    index,
                    args: self.output_args()?,
                }
            }
            Tok::Question => {
                self.bump();
                PrefixKind::Input {
                    chan: name,
                    index,
                    pats: self.input_patterns()?,
                }
            }
            Tok::LParen => {
                self.bump();
                PrefixKind::Event {
                    name,
                    args: self.call_args()?,
                }
            }
            _ => PrefixKind::Event {
                name,
                args: Vec::new(),
            },
        })
    }

    /// After `c!`: `(e, ...)`, a single simple expression, or nothing.
    fn output_args(&mut self) -> PResult<Vec<Expr>> {
        if self.eat(&Tok::LParen) {
            return self.call_args();
        }
        if self.starts_simple_expr() {
            return Ok(vec![self.simple_expr()?]);
        }
        Ok(Vec::new())
    }

    /// After `c?`: `(p, ...)`, a single simple pattern, or nothing.
    fn input_patterns(&mut self) -> PResult<Vec<Pattern>> {
        if self.eat(&Tok::LParen) {
            return self.list(&Tok::RParen, |p| p.pattern());
        }
        if matches!(
            self.tok(),
            Tok::Ident(_)
                | Tok::Underscore
                | Tok::Assign
                | Tok::Int(_)
                | Tok::Minus
                | Tok::True
                | Tok::False
        ) {
            return Ok(vec![self.pattern()?]);
        }
        Ok(Vec::new())
    }

    /// `new x: T, y . P`; the body extends as far to the right as possible.
    fn new_proc(&mut self) -> PResult<Proc> {
        let start = self.bump();
        let mut binders = Vec::new();
        loop {
            let name = self.ident("the name of a new channel")?;
            let ty = if self.eat(&Tok::Colon) {
                Some(self.type_expr()?)
            } else {
                None
            };
            let buffer = self.buffer()?;
            binders.push(NewBinder { name, ty, buffer });
            if !self.eat(&Tok::Comma) {
                break;
            }
        }
        self.expect(&Tok::Dot, "`.` and the scope of the new names")?;
        let body = self.process()?;
        let span = start.to(body.span);
        Ok(Proc {
            kind: ProcKind::New(binders, Box::new(body)),
            span,
        })
    }

    /// `par i in T . P`: the body extends as far to the right as possible (as `new`'s).
    fn par_for(&mut self) -> PResult<Proc> {
        let start = self.bump();
        let var = self.ident("the index of `par`")?;
        self.bump(); // `in`, checked by the caller
        let ty = self.type_expr()?;
        self.expect(&Tok::Dot, "`.` and the process to repeat")?;
        let body = self.process()?;
        let span = start.to(body.span);
        Ok(Proc {
            kind: ProcKind::ParFor(var, ty, Box::new(body)),
            span,
        })
    }

    /// `if e then P else Q`: `P` extends to `else`; `Q` is a single operand (like a prefix).
    fn if_proc(&mut self) -> PResult<Proc> {
        let start = self.bump();
        let cond = self.expr()?;
        if matches!(self.tok(), Tok::LBrace | Tok::Assign) {
            let help = match self.tok() {
                Tok::Assign => "comparison is `==`: `if x == 1 then P else Q`",
                _ => "agentpi's conditional is `if e then P else Q`, without braces",
            };
            return Err(self.unexpected_with("`then`", help));
        }
        self.expect(&Tok::Then, "`then`")?;
        let yes = self.process()?;
        self.expect(
            &Tok::Else,
            "`else` (an `if` needs both branches; write `else 0` for nothing)",
        )?;
        let no = self.unary()?;
        let span = start.to(no.span);
        Ok(Proc {
            kind: ProcKind::If(cond, Box::new(yes), Box::new(no)),
            span,
        })
    }

    fn match_proc(&mut self) -> PResult<Proc> {
        let start = self.bump();
        let scrutinee = self.expr()?;
        self.expect(&Tok::LBrace, "`{` and the arms of the match")?;
        let mut arms = Vec::new();
        while !self.at(&Tok::RBrace) && !self.at_eof() && !self.at_item() {
            let from = self.span();
            match self.arm() {
                Ok(arm) => arms.push(arm),
                Err(Abandon) => {
                    self.skip_balanced(&[Tok::Comma, Tok::RBrace])?;
                    // An arm that stands for the broken one, so `ir` does not also report the
                    // match as non-exhaustive.
                    let span = from.to(self.prev_span());
                    let pat = Pattern {
                        kind: PatternKind::Error,
                        span,
                    };
                    arms.push(Arm {
                        pat,
                        body: Proc {
                            kind: ProcKind::Error,
                            span,
                        },
                    });
                }
            }
            if !self.eat(&Tok::Comma) && !self.at(&Tok::RBrace) {
                return Err(self.unexpected("`,` or `}`"));
            }
        }
        let end = self.expect(&Tok::RBrace, "`}`")?;
        Ok(Proc {
            kind: ProcKind::Match(scrutinee, arms),
            span: start.to(end),
        })
    }

    fn arm(&mut self) -> PResult<Arm> {
        let pat = self.pattern()?;
        self.expect(&Tok::FatArrow, "`=>`")?;
        let body = self.process()?;
        Ok(Arm { pat, body })
    }

    fn paren_proc(&mut self) -> PResult<Proc> {
        let start = self.bump();
        let inner = match self.process() {
            Ok(inner) => inner,
            Err(Abandon) => {
                self.skip_balanced(&[Tok::RParen])?;
                Proc {
                    kind: ProcKind::Error,
                    span: start,
                }
            }
        };
        let end = self.expect(&Tok::RParen, "`)`")?;
        Ok(Proc {
            kind: inner.kind,
            span: start.to(end),
        })
    }

    /// Skips to one of `stops` outside any brackets opened while skipping. Fails at a
    /// top-level keyword or the end of the file: the error is then the enclosing item's.
    pub(super) fn skip_balanced(&mut self, stops: &[Tok]) -> PResult<()> {
        let mut depth = 0usize;
        loop {
            let tok = self.tok();
            if self.at_item() || *tok == Tok::Eof {
                return Err(Abandon);
            }
            if depth == 0 && stops.contains(tok) {
                return Ok(());
            }
            match tok {
                Tok::LParen | Tok::LBrace => depth += 1,
                Tok::RParen | Tok::RBrace if depth == 0 => return Err(Abandon),
                Tok::RParen | Tok::RBrace => depth -= 1,
                _ => {}
            }
            self.bump();
        }
    }
}

/// Where parsing resumes inside a process after an error.
const RESUME: &[Tok] = &[
    Tok::Dot,
    Tok::Bar,
    Tok::Plus,
    Tok::Semi,
    Tok::RParen,
    Tok::RBrace,
    Tok::Comma,
];

fn error_proc(span: agentpi_diagnostics::Span) -> Proc {
    Proc {
        kind: ProcKind::Error,
        span,
    }
}
