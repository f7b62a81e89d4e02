//! Process terms: operators, `new`, `match`, calls. Choice and parallel composition are
//! flattened; long `;` chains and prefix chains are built without recursion.

use super::{Kind, Lowerer, PendingMatch};
use crate::core::{NewName, Term, TermId, Type};
use crate::names::suggest;
use crate::ty::Ty;
use agentpi_diagnostics::{Diagnostic, Span};
use agentpi_syntax::ast::{self, ProcKind};

impl Lowerer<'_> {
    pub(crate) fn proc(&mut self, proc: &ast::Proc) -> TermId {
        let term = match &proc.kind {
            ProcKind::Nil | ProcKind::Error => Term::Nil,
            ProcKind::Prefixed(prefixes, cont) => return self.prefixed(prefixes, cont, proc.span),
            ProcKind::Choice(items) => Term::Choice(self.flat(items, choice_items)),
            ProcKind::Par(items) => Term::Par(self.flat(items, par_items)),
            ProcKind::Seq(items) => return self.seq(items),
            ProcKind::New(binders, body) => self.new_term(binders, body),
            ProcKind::Repl(body) => Term::Repl(self.proc(body)),
            ProcKind::ParFor(var, ty, body) => self.par_for(var, ty, body),
            ProcKind::End(body) => {
                let id = self.proc(body);
                self.end_point(id, proc.span);
                return id;
            }
            ProcKind::Point(name, body) => {
                let id = self.proc(body);
                self.named_point(name, id, proc.span);
                return id;
            }
            ProcKind::If(cond, yes, no) => {
                let cond = self.check_expr(cond, &Ty::Bool);
                Term::If(cond, self.proc(yes), self.proc(no))
            }
            ProcKind::Match(scrutinee, arms) => self.match_term(scrutinee, arms, proc.span),
            ProcKind::Call(name, args) => self.call(name, args, proc.span),
        };
        self.push(term, proc.span)
    }

    fn prefixed(&mut self, prefixes: &[ast::Prefix], cont: &ast::Proc, span: Span) -> TermId {
        let mark = self.body.scope.len();
        let mut lowered = Vec::with_capacity(prefixes.len());
        for prefix in prefixes {
            let mut binds = Vec::new();
            lowered.push((self.prefix(prefix, &mut binds), prefix.span));
            self.add_binds(binds);
        }
        let mut id = self.proc(cont);
        for (prefix, at) in lowered.into_iter().rev() {
            id = self.push(
                Term::Prefix(prefix, id),
                Span::new(at.file, at.start, span.end),
            );
        }
        self.body.scope.truncate(mark);
        id
    }

    /// Lowers the operands of `+` or `|`, splicing in nested operands of the same operator.
    fn flat(
        &mut self,
        items: &[ast::Proc],
        same: fn(&ast::Proc) -> Option<&[ast::Proc]>,
    ) -> Vec<TermId> {
        let mut out = Vec::new();
        let mut stack: Vec<&ast::Proc> = items.iter().rev().collect();
        while let Some(item) = stack.pop() {
            match same(item) {
                Some(inner) => stack.extend(inner.iter().rev()),
                None => out.push(self.proc(item)),
            }
        }
        out
    }

    /// `P1 ; P2 ; ... ; Pn` as `Seq(P1, Seq(P2, ...))`.
    fn seq(&mut self, items: &[ast::Proc]) -> TermId {
        let ids: Vec<TermId> = items.iter().map(|p| self.proc(p)).collect();
        let end = items.last().map_or(0, |p| p.span.end);
        let mut rest = ids[ids.len() - 1];
        for (item, &id) in items.iter().zip(&ids).rev().skip(1) {
            rest = self.push(
                Term::Seq(id, rest),
                Span::new(item.span.file, item.span.start, end),
            );
        }
        rest
    }

    fn new_term(&mut self, binders: &[ast::NewBinder], body: &ast::Proc) -> Term {
        let mark = self.body.scope.len();
        let mut names = Vec::new();
        for binder in binders {
            let ty = match &binder.ty {
                Some(ty) => self.new_type(binder, ty),
                None => self.u.fresh(),
            };
            let slot = self.new_slot(&binder.name, ty, true);
            let buffer = binder.buffer.as_ref().and_then(|b| self.buffer_spec(b));
            names.push(NewName {
                slot,
                name: binder.name.name.clone(),
                ty: Type::Bool,
                buffer,
            });
            self.body.scope.push((binder.name.name.clone(), slot));
        }
        let body = self.proc(body);
        self.body.scope.truncate(mark);
        Term::New(names, body)
    }

    /// The declared type of a `new` name, which must be a channel type.
    fn new_type(&mut self, binder: &ast::NewBinder, ty: &ast::TypeExpr) -> Ty {
        let resolved = self.resolve_type(ty);
        match self.u.shallow(&resolved) {
            Ty::Chan(_) | Ty::Error => resolved,
            other => {
                let shown = self.show(&other);
                self.error(
                    Diagnostic::error(
                        "E0301",
                        format!(
                            "`new` makes channels, but `{}` has type `{shown}`",
                            binder.name.name
                        ),
                    )
                    .at(ty.span())
                    .with_label("not a channel type")
                    .with_help(format!(
                        "write `new {}: chan {shown}` for a channel carrying `{shown}`",
                        binder.name.name
                    )),
                );
                Ty::Error
            }
        }
    }

    /// `end: P`: the places where `P` waits become valid ends. A call there is refused: its
    /// body's start is shared by every call of the process, so only `daemon proc` can mark it.
    fn end_point(&mut self, id: TermId, span: Span) {
        if let Some(def) = self.call_at_start(id) {
            let name = self.prog.def(def).name.clone();
            self.error(
                        Diagnostic::error("E0313", format!("`end:` marks a call of `{name}`"))
                            .at(span)
                            .with_label("a call, not a place where this process waits")
                            .with_help(format!(
                                "put `end:` before a prefix, a choice or a replication, or declare `daemon proc {name}` to make waiting at its start a valid end"
                    )),
            );
            return;
        }
        self.prog.end_points.push(id);
    }

    /// A call where spawning `id` starts (through `|`, `new`, `if`, `match`), if any.
    fn call_at_start(&self, id: TermId) -> Option<crate::core::DefId> {
        let mut todo = vec![id];
        while let Some(t) = todo.pop() {
            match self.prog.term(t) {
                Term::Par(ts) => todo.extend(ts),
                Term::New(_, body) => todo.push(*body),
                Term::If(_, a, b) => todo.extend([*a, *b]),
                Term::Match(_, arms) => todo.extend(arms.iter().map(|(_, t)| *t)),
                Term::Call(def, _) => return Some(*def),
                _ => {}
            }
        }
        None
    }

    /// `l: P`: a point that `at Proc.l` names. A call there is refused, as for `end:`.
    fn named_point(&mut self, name: &ast::Ident, id: TermId, span: Span) {
        if let Some(def) = self.call_at_start(id) {
            let callee = self.prog.def(def).name.clone();
            self.error(
                Diagnostic::error("E0313", format!("`{}:` marks a call of `{callee}`", name.name))
                    .at(span)
                    .with_label("a call, not a place where this process waits")
                    .with_help(format!(
                        "put `{}:` before a prefix, a choice or a replication (inside `{callee}` for a place there)",
                        name.name
                    )),
            );
            return;
        }
        let point = crate::core::Point {
            name: name.name.clone(),
            def: self.body.owner,
            term: id,
            span: name.span,
        };
        self.prog.points.push(point);
    }

    fn match_term(&mut self, scrutinee: &ast::Expr, arms: &[ast::Arm], span: Span) -> Term {
        let (value, ty) = self.infer_expr(scrutinee);
        let mut lowered = Vec::with_capacity(arms.len());
        for arm in arms {
            let mark = self.body.scope.len();
            let mut binds = Vec::new();
            let pat = self.pattern(&arm.pat, &ty, &mut binds);
            self.add_binds(binds);
            let body = self.proc(&arm.body);
            self.body.scope.truncate(mark);
            lowered.push((pat, body));
        }
        let broken = arms.iter().any(|a| a.pat.kind == ast::PatternKind::Error);
        if !broken {
            let pats = lowered.iter().map(|(p, _)| p.clone()).collect();
            let at = Span::new(span.file, span.start, scrutinee.span.end);
            self.body.matches.push(PendingMatch { ty, pats, span: at });
        }
        Term::Match(value, lowered)
    }

    fn call(&mut self, name: &ast::Ident, args: &[ast::Expr], span: Span) -> Term {
        let Some(&(id, _)) = self.g.procs.get(name.name.as_str()) else {
            self.unknown_proc(name);
            args.iter().for_each(|a| drop(self.infer_expr(a)));
            return Term::Nil;
        };
        if self.body.owner != Some(id) {
            self.use_global(Kind::Proc, &name.name);
        }
        let params = self.sigs[id.0 as usize].clone();
        if params.len() != args.len() {
            self.arity_error(
                span,
                &format!("process `{}`", name.name),
                params.len(),
                args.len(),
                "arguments",
            );
            args.iter().for_each(|a| drop(self.infer_expr(a)));
            return Term::Nil;
        }
        let args = args
            .iter()
            .zip(&params)
            .map(|(a, t)| self.check_expr(a, t))
            .collect();
        Term::Call(id, args)
    }

    fn unknown_proc(&mut self, name: &ast::Ident) {
        let names = crate::names::sorted(self.g.procs.keys().copied());
        let mut diag = Diagnostic::error("E0202", format!("unknown process `{}`", name.name))
            .at(name.span)
            .with_label("no process of this name");
        diag = match suggest(&name.name, names) {
            Some(s) => diag.with_help(format!("did you mean `{s}`?")),
            None => diag.with_help(format!("define it with `proc {} = ...`", name.name)),
        };
        self.error(diag);
    }
}

fn choice_items(proc: &ast::Proc) -> Option<&[ast::Proc]> {
    match &proc.kind {
        ProcKind::Choice(items) => Some(items),
        _ => None,
    }
}

fn par_items(proc: &ast::Proc) -> Option<&[ast::Proc]> {
    match &proc.kind {
        ProcKind::Par(items) => Some(items),
        _ => None,
    }
}
