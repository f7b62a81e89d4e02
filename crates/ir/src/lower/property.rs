//! `check` declarations: the system, and label patterns resolved to channels (by creation
//! name: a `chan` declaration or any `new` in the model), events, `tau`, or variables bound on
//! the left of `leads to` or of `->` in an `ltl` formula.

use super::{Kind, Lowerer};
use crate::core::ltl::{Ltl, MAX_STATE_PREDS, MAX_UNTILS, Unsupported};
use crate::core::{ArgPattern, CheckDef, LabelHead, LabelPattern, Property, StateCheck, Type};
use crate::names::{Value, suggest};
use crate::ty::Ty;
use agentpi_diagnostics::Diagnostic;
use agentpi_syntax::ast;

pub(crate) fn lower_checks(lw: &mut Lowerer) {
    // Properties see globals and `forall` variables only.
    let saved = std::mem::take(&mut lw.body);
    for decl in lw.g.checks.clone() {
        let Some(&(system, _)) = lw.g.systems.get(decl.system.name.as_str()) else {
            super::unknown_system(lw, &decl.system);
            continue;
        };
        if matches!(decl.property, ast::Property::Forall(..)) {
            super::forall::lower(lw, decl, system, lower_property);
            continue;
        }
        let property = match &decl.property {
            ast::Property::Relation(r) => super::relation::lower_relation(lw, decl, r),
            p => lower_property(lw, p),
        };
        let Some(property) = property else {
            continue;
        };
        let Some(strong_on) = super::strong_on::lower(lw, &decl.strong_on) else {
            continue;
        };
        let check = CheckDef {
            system,
            property,
            fair: decl.fair,
            strong: decl.strong,
            strong_on,
            text: decl.text.clone(),
            span: decl.span,
        };
        lw.prog.checks.push(check);
    }
    lw.body = saved;
}

pub(super) fn lower_property(lw: &mut Lowerer, property: &ast::Property) -> Option<Property> {
    Some(match property {
        ast::Property::DeadlockFree => Property::DeadlockFree,
        ast::Property::Never(l) => Property::Never(label(lw, l, &[])?),
        ast::Property::Reachable(l) => Property::Reachable(label(lw, l, &[])?),
        ast::Property::Eventually(l) => Property::Eventually(label(lw, l, &[])?),
        ast::Property::AlwaysEventually(l) => Property::AlwaysEventually(label(lw, l, &[])?),
        ast::Property::LeadsTo(left, right) => {
            let left = label(lw, left, &[])?;
            let mut bound = Vec::new();
            left.args.iter().flatten().for_each(|a| vars(a, &mut bound));
            Property::LeadsTo(left, label(lw, right, &bound)?)
        }
        ast::Property::Ltl(f) => {
            let formula = ltl(lw, f, &[])?;
            if let Err(why) = crate::core::ltl::supported(&formula) {
                unsupported(lw, f.span, why);
                return None;
            }
            Property::Ltl(formula)
        }
        ast::Property::State(check, pred) => {
            let check = match check {
                ast::StateCheck::Never => StateCheck::Never,
                ast::StateCheck::Reachable => StateCheck::Reachable,
                ast::StateCheck::Always => StateCheck::Always,
            };
            Property::State(check, super::state::lower(lw, pred)?)
        }
        // Nested `forall`s are flattened by `forall::split`.
        ast::Property::Forall(..) | ast::Property::Relation(_) | ast::Property::Error => {
            return None;
        }
    })
}

/// Lowers a formula; `bound` are the variables bound by enclosing `A -> ...`.
fn ltl(lw: &mut Lowerer, f: &ast::Ltl, bound: &[String]) -> Option<Ltl> {
    use ast::LtlKind as K;
    let sub = |lw: &mut Lowerer, g: &ast::Ltl| ltl(lw, g, bound).map(Box::new);
    Some(match &f.kind {
        K::True => Ltl::True,
        K::False => Ltl::False,
        K::Atom(l) => Ltl::Atom(label(lw, l, bound)?),
        K::State(p) => Ltl::State(super::state::lower(lw, p)?),
        K::Not(a) => Ltl::Not(sub(lw, a)?),
        K::Always(a) => Ltl::Always(sub(lw, a)?),
        K::Eventually(a) => Ltl::Eventually(sub(lw, a)?),
        K::Next(a) => Ltl::Next(sub(lw, a)?),
        K::Implies(a, b) => return implies(lw, a, b, bound),
        K::And(a, b) => both(lw, a, b, bound, Ltl::And)?,
        K::Or(a, b) => both(lw, a, b, bound, Ltl::Or)?,
        K::Until(a, b) => both(lw, a, b, bound, Ltl::Until)?,
        K::Release(a, b) => both(lw, a, b, bound, Ltl::Release)?,
        K::WeakUntil(a, b) => both(lw, a, b, bound, Ltl::WeakUntil)?,
    })
}

/// Both operands, each lowered even when the other fails (so both report their errors).
fn both(
    lw: &mut Lowerer,
    a: &ast::Ltl,
    b: &ast::Ltl,
    bound: &[String],
    make: fn(Box<Ltl>, Box<Ltl>) -> Ltl,
) -> Option<Ltl> {
    let (a, b) = (ltl(lw, a, bound), ltl(lw, b, bound));
    Some(make(Box::new(a?), Box::new(b?)))
}

/// `A -> f`: a label pattern on the left binds its variables in `f`.
fn implies(lw: &mut Lowerer, a: &ast::Ltl, b: &ast::Ltl, bound: &[String]) -> Option<Ltl> {
    let left = ltl(lw, a, bound);
    let mut inner = bound.to_vec();
    if let Some(Ltl::Atom(p)) = &left {
        p.args.iter().flatten().for_each(|a| vars(a, &mut inner));
    }
    let right = ltl(lw, b, &inner);
    Some(Ltl::Implies(Box::new(left?), Box::new(right?)))
}

fn unsupported(lw: &mut Lowerer, span: agentpi_diagnostics::Span, why: Unsupported) {
    let diag = match why {
        Unsupported::RepeatedBinder(at) => Diagnostic::error(
            "E0213",
            "a pattern binds variables where its formula repeats, around an eventuality",
        )
        .at(at)
        .with_label("binds values afresh at every step")
        .with_help(
            "the checker follows one binding of each eventuality at a time; bind the values \
             once (`[] (call(r, _) -> X <> r(_))` is fine) or drop the variables",
        ),
        Unsupported::TooManyUntils(n) => Diagnostic::error(
            "E0214",
            format!(
                "the formula needs {n} eventualities in its negation; at most {MAX_UNTILS} are \
                 supported"
            ),
        )
        .at(span)
        .with_label("each `[]`, `R`, `W` (and each `<>`, `U` under `not`) is one")
        .with_help("split it into several `check` lines"),
        Unsupported::TooManyStatePreds(n) => Diagnostic::error(
            "E0214",
            format!(
                "the formula has {n} different state predicates; at most {MAX_STATE_PREDS} are \
                 supported"
            ),
        )
        .at(span)
        .with_label("each `at`, `len` and `contains` atom (and its negation) is one")
        .with_help("split it into several `check` lines"),
    };
    lw.error(diag);
}

fn vars(arg: &ArgPattern, out: &mut Vec<String>) {
    match arg {
        ArgPattern::Var(name) => out.push(name.clone()),
        ArgPattern::Ctor(_, _, items) | ArgPattern::Tuple(items) => {
            items.iter().for_each(|a| vars(a, out))
        }
        ArgPattern::Wild | ArgPattern::Value(_) => {}
    }
}

/// Resolves a label pattern; `bound` are the variables of the left side of `leads to`.
fn label(lw: &mut Lowerer, label: &ast::LabelPat, bound: &[String]) -> Option<LabelPattern> {
    let ast::LabelHead::Name(name) = &label.head else {
        return Some(LabelPattern {
            head: crate::core::LabelHead::Tau,
            dir: crate::core::LabelDir::Any,
            args: None,
            span: label.span,
        });
    };
    let (head, carried) = head(lw, name, &label.index, bound)?;
    let args = match &label.args {
        None => None,
        Some(pats) => {
            let what = format!("label `{}`", name.name);
            Some(super::label_args::carried_args(
                lw, pats, carried, label.span, &what,
            )?)
        }
    };
    let dir = match label.dir {
        ast::LabelDir::Any => crate::core::LabelDir::Any,
        ast::LabelDir::Send => crate::core::LabelDir::Send,
        ast::LabelDir::Receive => crate::core::LabelDir::Receive,
    };
    Some(LabelPattern {
        head,
        dir,
        args,
        span: label.span,
    })
}

/// The head of a label and the types it carries (`None` if unknown, as for variables).
fn head(
    lw: &mut Lowerer,
    name: &ast::Ident,
    index: &[ast::Pattern],
    bound: &[String],
) -> Option<(LabelHead, Option<Vec<Ty>>)> {
    if bound.contains(&name.name) {
        return Some((LabelHead::Var(name.name.clone()), None));
    }
    match lw.g.values.get(name.name.as_str()).map(|v| v.0) {
        Some(Value::Chan(id)) => {
            lw.use_global(Kind::Chan, &name.name);
            let declared = lw.declared_chan(id)?.clone();
            let carried = lw.chan_tys.get(declared.base.0 as usize).cloned();
            return Some((chan_head(lw, name, &declared, index, bound)?, carried));
        }
        Some(Value::Event(id)) => {
            lw.use_global(Kind::Event, &name.name);
            return Some((
                LabelHead::Event(id),
                lw.event_tys.get(id.0 as usize).cloned(),
            ));
        }
        _ => {}
    }
    let news: Vec<&Type> = lw
        .new_names
        .iter()
        .filter(|(n, _)| *n == name.name)
        .map(|(_, t)| t)
        .collect();
    if let Some(first) = news.first() {
        // Several `new` with this name: check arguments only if they all agree.
        let carried = match first {
            Type::Chan(tys) if news.iter().all(|t| t == first) => {
                Some(tys.iter().map(Ty::from_core).collect())
            }
            _ => None,
        };
        return Some((LabelHead::Chan(name.name.clone()), carried));
    }
    unknown_label(lw, name);
    None
}

fn unknown_label(lw: &mut Lowerer, name: &ast::Ident) {
    let mut names: Vec<&str> = lw.g.chans.iter().map(|c| c.name.name.as_str()).collect();
    names.extend(lw.g.events.iter().map(|e| e.name.name.as_str()));
    names.extend(lw.new_names.iter().map(|(n, _)| n.as_str()));
    names.sort_unstable();
    let mut diag = Diagnostic::error("E0204", format!("unknown label `{}`", name.name))
        .at(name.span)
        .with_label("not a channel, `new` name or event of this model");
    diag = match suggest(&name.name, names) {
        Some(s) => diag.with_help(format!("did you mean `{s}`?")),
        None => diag
            .with_help("a label names a channel (by its `chan` or `new` name), an event, or `tau`"),
    };
    lw.error(diag);
}

/// The head for a declared channel: the channel, one element of an array (`c[2]`), or any
/// element (`c[_]`, or `c` alone for an array).
fn chan_head(
    lw: &mut Lowerer,
    name: &ast::Ident,
    declared: &super::DeclaredChan,
    index: &[ast::Pattern],
    bound: &[String],
) -> Option<LabelHead> {
    let wild = |p: &ast::Pattern| matches!(p.kind, ast::PatternKind::Wild);
    if declared.dims.is_empty() && index.is_empty() {
        return Some(LabelHead::Chan(name.name.clone()));
    }
    if !declared.dims.is_empty() && (index.is_empty() || index.iter().all(wild)) {
        return Some(LabelHead::Family(name.name.clone()));
    }
    let exprs: Option<Vec<ast::Expr>> = index.iter().map(index_expr).collect();
    let Some(exprs) = exprs else {
        let help = "write constant indices (`c[2]`) or `_` for any (`c[_]`)";
        lw.not_a(
            name,
            "indexed by a pattern",
            "an element of a channel array",
            help,
        );
        return None;
    };
    if !index_vars_bound(lw, &exprs, bound) {
        return None;
    }
    let (chan, _) = match lw.g.values.get(name.name.as_str()).map(|v| v.0) {
        Some(Value::Chan(id)) => lw.global_chan(name, id, &exprs)?,
        _ => return None,
    };
    match chan {
        crate::core::Expr::Chan(id) => {
            Some(LabelHead::Chan(lw.prog.chans[id.0 as usize].name.clone()))
        }
        _ => {
            let help = "a label names an element by constant indices, such as `c[2]`";
            lw.not_a(
                name,
                "indexed by a non-constant",
                "an element of a channel array",
                help,
            );
            None
        }
    }
}

/// An index written in a label as the expression it stands for.
fn index_expr(pattern: &ast::Pattern) -> Option<ast::Expr> {
    let kind = match &pattern.kind {
        ast::PatternKind::Eq(e) => return Some(e.clone()),
        ast::PatternKind::Name(name) => ast::ExprKind::Name(name.clone()),
        _ => return None,
    };
    Some(ast::Expr {
        kind,
        span: pattern.span,
    })
}

/// Whether every variable in the index of a label is a `forall` variable; reports the others
/// (E0201): an index names one element, so a variable there must have one value per check.
fn index_vars_bound(lw: &mut Lowerer, exprs: &[ast::Expr], bound: &[String]) -> bool {
    let mut names = Vec::new();
    exprs.iter().for_each(|e| expr_names(e, &mut names));
    let mut ok = true;
    for name in names {
        let global = lw.g.values.contains_key(name.name.as_str());
        let upper = name.name.starts_with(|c: char| c.is_ascii_uppercase());
        if global || upper || lw.lookup_local(&name.name).is_some() {
            continue;
        }
        let why = match bound.contains(&name.name) {
            true => "bound by the left side: a label's index cannot be matched",
            false => "not bound in this property",
        };
        let diag = Diagnostic::error("E0201", format!("`{}` is not an index here", name.name))
            .at(name.span)
            .with_label(why)
            .with_help(format!(
                "bind it for the whole property: `forall {0} in 0..N-1: ...[{0}]...` (one check \
                 per value); an index in a label is a constant, a `forall` variable, or `_`",
                name.name
            ));
        lw.error(diag);
        ok = false;
    }
    ok
}

/// The lower-case names an expression reads.
fn expr_names<'e>(expr: &'e ast::Expr, out: &mut Vec<&'e ast::Ident>) {
    use ast::ExprKind as K;
    match &expr.kind {
        K::Name(n) => out.push(n),
        K::Apply(_, items) | K::Index(_, items) | K::Tuple(items) => {
            items.iter().for_each(|e| expr_names(e, out))
        }
        K::Unary(_, a) => expr_names(a, out),
        K::Binary(_, a, b) => {
            expr_names(a, out);
            expr_names(b, out);
        }
        K::Int(_) | K::Bool(_) | K::Error => {}
    }
}
