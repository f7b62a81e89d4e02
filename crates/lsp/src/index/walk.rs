//! Building the index: top-level definitions of every file first (they are visible
//! everywhere, whatever the order), then each body with its scopes.

use super::{Def, Index, Kind, doc};
use agentpi_diagnostics::{FileId, SourceMap, Span};
use agentpi_syntax::ast::*;
use rustc_hash::FxHashMap;

/// The namespaces of top-level names: values in expressions and labels, types, processes,
/// systems.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
enum Ns {
    Value,
    Type,
    Proc,
    System,
}

fn namespace(kind: Kind) -> Ns {
    match kind {
        Kind::Type => Ns::Type,
        Kind::Proc => Ns::Proc,
        Kind::System => Ns::System,
        _ => Ns::Value,
    }
}

struct Walker<'a> {
    sources: &'a SourceMap,
    index: Index,
    /// The first definition of each top-level name (a second one is an error `ir` reports).
    globals: FxHashMap<(Ns, String), usize>,
    /// The locals in scope, innermost last.
    env: Vec<(String, usize)>,
    /// The top-level definition being walked, and the span locals of it are visible in.
    current: Option<usize>,
    scope: Span,
}

pub(super) fn build(sources: &SourceMap, files: &[(FileId, File)]) -> Index {
    let mut walker = Walker {
        sources,
        index: Index::default(),
        globals: FxHashMap::default(),
        env: Vec::new(),
        current: None,
        scope: Span::default(),
    };
    let mut tops = Vec::new();
    for (_, tree) in files {
        for item in &tree.items {
            tops.push(walker.declare(item));
        }
    }
    let items = files.iter().flat_map(|(_, tree)| &tree.items);
    for (item, top) in items.zip(tops) {
        walker.body(item, top);
    }
    walker.index
}

impl Walker<'_> {
    fn snippet(&self, span: Span) -> String {
        self.sources.snippet(span).to_string()
    }

    fn define(&mut self, name: &Ident, kind: Kind, full: Span, detail: String) -> usize {
        let text = &self.sources.get(name.span.file).text;
        let doc = match kind.is_local() {
            true => None,
            false => doc::comment(text, full.start as usize, full.end as usize),
        };
        self.index.defs.push(Def {
            name: name.name.clone(),
            kind,
            span: name.span,
            full,
            detail,
            doc,
            carries: Vec::new(),
            parent: self.current,
        });
        let id = self.index.defs.len() - 1;
        if !kind.is_local() {
            self.globals
                .entry((namespace(kind), name.name.clone()))
                .or_insert(id);
        }
        id
    }

    /// The top-level definitions of `item` (and an enum's constructors); returns the item's.
    fn declare(&mut self, item: &Item) -> Option<usize> {
        self.current = None;
        let before = self.index.defs.len();
        match item {
            Item::Type(decl) => {
                let head = first_line(&self.snippet(decl.span));
                let ty = self.define(&decl.name, Kind::Type, decl.span, head);
                if let TypeDef::Enum(variants) = &decl.def {
                    self.current = Some(ty);
                    for v in variants {
                        let fields: Vec<String> =
                            v.fields.iter().map(|f| self.snippet(f.span())).collect();
                        let detail = match fields.is_empty() {
                            true => v.name.name.clone(),
                            false => format!("{}({})", v.name.name, fields.join(", ")),
                        };
                        let detail = format!("{detail} : {}", decl.name.name);
                        let id = self.define(&v.name, Kind::Ctor, decl.span, detail);
                        self.index.defs[id].carries = fields;
                    }
                }
            }
            Item::Const(decl) => {
                let detail = self.snippet(decl.span);
                self.define(&decl.name, Kind::Const, decl.span, detail);
            }
            Item::Chan(decl) => {
                let detail = self.snippet(decl.span);
                let id = self.define(&decl.name, Kind::Chan, decl.span, detail);
                self.index.defs[id].carries = self.snippets(&decl.carries);
            }
            Item::Event(decl) => {
                let detail = self.snippet(decl.span);
                let id = self.define(&decl.name, Kind::Event, decl.span, detail);
                self.index.defs[id].carries = self.snippets(&decl.args);
            }
            Item::Proc(decl) => {
                let params: Vec<String> = decl
                    .params
                    .iter()
                    .map(|p| format!("{}: {}", p.name.name, self.snippet(p.ty.span())))
                    .collect();
                let daemon = if decl.daemon { "daemon " } else { "" };
                let params = match params.is_empty() {
                    true => String::new(),
                    false => format!("({})", params.join(", ")),
                };
                let detail = format!("{daemon}proc {}{params}", decl.name.name);
                self.define(&decl.name, Kind::Proc, decl.span, detail);
            }
            Item::System(decl) => {
                let detail = format!("system {}", decl.name.name);
                self.define(&decl.name, Kind::System, decl.span, detail);
            }
            Item::Import(_) | Item::Check(_) | Item::Extern(_) => {}
        }
        (self.index.defs.len() > before).then_some(before)
    }

    fn snippets(&self, types: &[TypeExpr]) -> Vec<String> {
        types.iter().map(|t| self.snippet(t.span())).collect()
    }

    /// Walks the bodies of `item`, whose definition is `top`.
    fn body(&mut self, item: &Item, top: Option<usize>) {
        self.current = top;
        match item {
            Item::Type(decl) => match &decl.def {
                TypeDef::Enum(variants) => {
                    for v in variants {
                        v.fields.iter().for_each(|f| self.ty(f));
                    }
                }
                TypeDef::Alias(ty) => self.ty(ty),
            },
            Item::Const(decl) => {
                self.expr(&decl.value);
            }
            Item::Chan(decl) => {
                decl.dims
                    .iter()
                    .chain(&decl.carries)
                    .for_each(|t| self.ty(t));
                if let Some(buffer) = &decl.buffer {
                    self.expr(&buffer.capacity);
                }
            }
            Item::Event(decl) => {
                decl.args.iter().for_each(|t| self.ty(t));
            }
            Item::Proc(decl) => {
                self.scope = decl.span;
                for p in &decl.params {
                    self.ty(&p.ty);
                    let detail = format!("{}: {}", p.name.name, self.snippet(p.ty.span()));
                    let id = self.define(&p.name, Kind::Param, decl.span, detail);
                    self.index.defs[id].carries = self.carried(&p.ty);
                    self.env.push((p.name.name.clone(), id));
                }
                self.proc(&decl.body);
                self.env.clear();
            }
            Item::System(decl) => {
                self.scope = decl.span;
                self.proc(&decl.body);
            }
            Item::Check(decl) => {
                self.scope = decl.span;
                self.refer(&decl.system, Ns::System);
                decl.strong_on.iter().for_each(|e| self.fair_on(e));
                self.property(&decl.property);
                self.env.clear();
            }
            Item::Extern(decl) => {
                decl.chans.iter().for_each(|c| {
                    self.refer(c, Ns::Value);
                });
                if let Some(within) = &decl.within {
                    self.expr(within);
                }
                decl.outcomes.iter().for_each(|arm| self.expr(&arm.value));
            }
            Item::Import(_) => {}
        }
    }

    /// The types a channel type carries, as written.
    fn carried(&self, ty: &TypeExpr) -> Vec<String> {
        match ty {
            TypeExpr::Chan(types, _) => self.snippets(types),
            _ => Vec::new(),
        }
    }

    /// A channel or an instance (`Receiver`, `Node(1)`) after `strong fair(...)`.
    fn fair_on(&mut self, expr: &Expr) {
        match &expr.kind {
            ExprKind::Name(name) | ExprKind::Apply(name, _) if is_upper(&name.name) => {
                self.refer(name, Ns::Proc);
                if let ExprKind::Apply(_, args) = &expr.kind {
                    args.iter().for_each(|a| self.expr(a));
                }
            }
            _ => self.expr(expr),
        }
    }

    /// Resolves `name` (locals first for values) and records the use.
    fn refer(&mut self, name: &Ident, ns: Ns) -> Option<usize> {
        let local = match ns {
            Ns::Value => self.env.iter().rev().find(|(n, _)| *n == name.name),
            _ => None,
        };
        let def = local
            .map(|&(_, d)| d)
            .or_else(|| self.globals.get(&(ns, name.name.clone())).copied())?;
        self.index.refs.push((name.span, def));
        Some(def)
    }

    /// Defines a local visible in `scope`, with its type when known.
    fn local(&mut self, name: &Ident, ty: Option<String>, scope: Span) -> usize {
        let detail = match &ty {
            Some(ty) => format!("{}: {ty}", name.name),
            None => name.name.clone(),
        };
        let id = self.define(name, Kind::Var, scope, detail);
        self.env.push((name.name.clone(), id));
        id
    }

    fn ty(&mut self, ty: &TypeExpr) {
        match ty {
            TypeExpr::Named(name) => {
                self.refer(name, Ns::Type);
            }
            TypeExpr::Range(lo, hi, _) => {
                self.expr(lo);
                self.expr(hi);
            }
            TypeExpr::Tuple(types, _) | TypeExpr::Chan(types, _) => {
                types.iter().for_each(|t| self.ty(t))
            }
            TypeExpr::Error(_) => {}
        }
    }

    fn expr(&mut self, expr: &Expr) {
        match &expr.kind {
            ExprKind::Name(name) => {
                self.refer(name, Ns::Value);
            }
            ExprKind::Apply(name, args) | ExprKind::Index(name, args) => {
                self.refer(name, Ns::Value);
                args.iter().for_each(|a| self.expr(a));
            }
            ExprKind::Tuple(items) => items.iter().for_each(|e| self.expr(e)),
            ExprKind::Unary(_, e) => self.expr(e),
            ExprKind::Binary(_, a, b) => {
                self.expr(a);
                self.expr(b);
            }
            ExprKind::Int(_) | ExprKind::Bool(_) | ExprKind::Error => {}
        }
    }

    fn proc(&mut self, proc: &Proc) {
        let depth = self.env.len();
        match &proc.kind {
            ProcKind::Prefixed(prefixes, body) => {
                for prefix in prefixes {
                    let scope = Span::new(proc.span.file, prefix.span.end, proc.span.end);
                    self.prefix(prefix, scope);
                }
                self.proc(body);
            }
            ProcKind::Choice(procs) | ProcKind::Seq(procs) | ProcKind::Par(procs) => {
                procs.iter().for_each(|p| self.proc(p))
            }
            ProcKind::New(binders, body) => {
                for b in binders {
                    if let Some(ty) = &b.ty {
                        self.ty(ty);
                    }
                    if let Some(buffer) = &b.buffer {
                        self.expr(&buffer.capacity);
                    }
                    let written = b.ty.as_ref().map(|t| self.snippet(t.span()));
                    let id = self.local(&b.name, written, proc.span);
                    let carries = b.ty.as_ref().map(|t| self.carried(t)).unwrap_or_default();
                    self.index.defs[id].carries = carries;
                }
                self.proc(body);
            }
            ProcKind::Repl(body) | ProcKind::End(body) => self.proc(body),
            ProcKind::ParFor(name, ty, body) => {
                self.ty(ty);
                let written = self.snippet(ty.span());
                self.local(name, Some(written), proc.span);
                self.proc(body);
            }
            ProcKind::Point(name, body) => {
                let head = format!("{}: (a point)", name.name);
                self.define(name, Kind::Point, self.scope, head);
                self.proc(body);
            }
            ProcKind::If(cond, yes, no) => {
                self.expr(cond);
                self.proc(yes);
                self.proc(no);
            }
            ProcKind::Match(scrutinee, arms) => {
                self.expr(scrutinee);
                for arm in arms {
                    let inner = self.env.len();
                    let scope = arm.pat.span.to(arm.body.span);
                    self.pattern(&arm.pat, None, Some(scope));
                    self.proc(&arm.body);
                    self.env.truncate(inner);
                }
            }
            ProcKind::Call(name, args) => {
                self.refer(name, Ns::Proc);
                args.iter().for_each(|a| self.expr(a));
            }
            ProcKind::Nil | ProcKind::Error => {}
        }
        self.env.truncate(depth);
    }

    fn prefix(&mut self, prefix: &Prefix, scope: Span) {
        match &prefix.kind {
            PrefixKind::Output { chan, index, args } => {
                self.refer(chan, Ns::Value);
                index.iter().chain(args).for_each(|e| self.expr(e));
            }
            PrefixKind::Input { chan, index, pats } => {
                let def = self.refer(chan, Ns::Value);
                index.iter().for_each(|e| self.expr(e));
                let carries = def.map(|d| self.index.defs[d].carries.clone());
                for (i, pat) in pats.iter().enumerate() {
                    let hint = carries.as_ref().and_then(|c| c.get(i).cloned());
                    self.pattern(pat, hint, Some(scope));
                }
            }
            PrefixKind::Event { name, args } => {
                self.refer(name, Ns::Value);
                args.iter().for_each(|e| self.expr(e));
            }
            PrefixKind::Assert(e) => self.expr(e),
            PrefixKind::Tau => {}
        }
    }

    /// A pattern; with a `scope`, its unresolved names are binders visible there (in a
    /// property they are only uses).
    fn pattern(&mut self, pat: &Pattern, hint: Option<String>, scope: Option<Span>) {
        match &pat.kind {
            PatternKind::Name(name) => {
                let global = self.globals.get(&(Ns::Value, name.name.clone())).copied();
                let constant =
                    global.filter(|&d| matches!(self.index.defs[d].kind, Kind::Ctor | Kind::Const));
                match (constant, scope) {
                    (Some(d), _) => self.index.refs.push((name.span, d)),
                    (None, Some(scope)) => {
                        self.local(name, hint, scope);
                    }
                    (None, None) => {
                        self.refer(name, Ns::Value);
                    }
                }
            }
            PatternKind::Typed(name, ty) => {
                self.ty(ty);
                let written = self.snippet(ty.span());
                match scope {
                    Some(scope) => {
                        self.local(name, Some(written), scope);
                    }
                    None => {
                        self.refer(name, Ns::Value);
                    }
                }
            }
            PatternKind::Eq(e) => self.expr(e),
            PatternKind::Ctor(name, pats) => {
                let def = self.refer(name, Ns::Value);
                let fields = def.map(|d| self.index.defs[d].carries.clone());
                for (i, p) in pats.iter().enumerate() {
                    let hint = fields.as_ref().and_then(|f| f.get(i).cloned());
                    self.pattern(p, hint, scope);
                }
            }
            PatternKind::Tuple(pats) => pats.iter().for_each(|p| self.pattern(p, None, scope)),
            PatternKind::Wild | PatternKind::Error => {}
        }
    }

    fn property(&mut self, property: &Property) {
        match property {
            Property::Never(l)
            | Property::Reachable(l)
            | Property::Eventually(l)
            | Property::AlwaysEventually(l) => self.label(l),
            Property::LeadsTo(a, b) => {
                self.label(a);
                self.label(b);
            }
            Property::Ltl(ltl) => self.ltl(ltl),
            Property::Forall(binders, inner) => {
                for b in binders {
                    self.ty(&b.ty);
                    let written = self.snippet(b.ty.span());
                    let scope = self.scope;
                    self.local(&b.name, Some(written), scope);
                }
                self.property(inner);
            }
            Property::State(_, pred) => self.state(pred),
            Property::Relation(relation) => {
                if let Some(other) = &relation.other {
                    self.refer(other, Ns::System);
                }
            }
            Property::DeadlockFree | Property::Error => {}
        }
    }

    fn label(&mut self, label: &LabelPat) {
        let mut fields = None;
        if let LabelHead::Name(name) = &label.head {
            fields = self
                .refer(name, Ns::Value)
                .map(|d| self.index.defs[d].carries.clone());
        }
        label.index.iter().for_each(|p| self.pattern(p, None, None));
        for (i, p) in label.args.iter().flatten().enumerate() {
            let hint = fields.as_ref().and_then(|f| f.get(i).cloned());
            self.pattern(p, hint, None);
        }
    }

    fn ltl(&mut self, ltl: &Ltl) {
        match &ltl.kind {
            LtlKind::Atom(label) => self.label(label),
            LtlKind::State(pred) => self.state(pred),
            LtlKind::Not(a) | LtlKind::Always(a) | LtlKind::Eventually(a) | LtlKind::Next(a) => {
                self.ltl(a)
            }
            LtlKind::And(a, b)
            | LtlKind::Or(a, b)
            | LtlKind::Implies(a, b)
            | LtlKind::Until(a, b)
            | LtlKind::Release(a, b)
            | LtlKind::WeakUntil(a, b) => {
                self.ltl(a);
                self.ltl(b);
            }
            LtlKind::True | LtlKind::False => {}
        }
    }

    fn state(&mut self, pred: &StatePred) {
        match &pred.kind {
            StatePredKind::At { proc, args, point } => {
                let owner = self.refer(proc, Ns::Proc);
                args.iter().flatten().for_each(|e| self.expr(e));
                let found = self.index.defs.iter().position(|d| {
                    d.kind == Kind::Point && d.parent == owner && d.name == point.name
                });
                if let Some(def) = found.filter(|_| owner.is_some()) {
                    self.index.refs.push((point.span, def));
                }
            }
            StatePredKind::Len {
                chan, index, value, ..
            } => {
                self.refer(chan, Ns::Value);
                index.iter().for_each(|e| self.expr(e));
                self.expr(value);
            }
            StatePredKind::Contains { chan, index, args } => {
                self.refer(chan, Ns::Value);
                index.iter().for_each(|e| self.expr(e));
                args.iter().for_each(|p| self.pattern(p, None, None));
            }
            StatePredKind::Not(a) => self.state(a),
            StatePredKind::And(a, b) | StatePredKind::Or(a, b) => {
                self.state(a);
                self.state(b);
            }
        }
    }
}

fn is_upper(name: &str) -> bool {
    name.starts_with(|c: char| c.is_ascii_uppercase())
}

fn first_line(text: &str) -> String {
    text.lines().next().unwrap_or("").to_string()
}
