//! The argument patterns of labels and of `contains` (`c(_, ok(x))`), checked against the
//! values the channel or event carries: constructors, `chan` names, constants and `forall`
//! variables are values; any other lower-case name is a variable.

use super::Lowerer;
use crate::core::{ArgPattern, Expr};
use crate::names::Value;
use crate::ty::Ty;
use agentpi_diagnostics::Diagnostic;
use agentpi_syntax::ast::{self, PatternKind};

/// Argument patterns checked against the values a channel or event carries (`None`: not
/// known); `what` names it in an arity error.
pub(super) fn carried_args(
    lw: &mut Lowerer,
    pats: &[ast::Pattern],
    carried: Option<Vec<Ty>>,
    span: agentpi_diagnostics::Span,
    what: &str,
) -> Option<Vec<ArgPattern>> {
    Some(match carried {
        Some(tys) if pats.len() > 1 && tuple_len(lw, &tys) == Some(pats.len()) => {
            // `jobs(add, 3)` for a channel carrying one pair, as in `jobs!(add, 3)`.
            let items = args(lw, pats, Some(tuple_items(lw, &tys)));
            vec![ArgPattern::Tuple(items)]
        }
        Some(tys) if pats.len() != tys.len() => {
            lw.arity_error(span, what, tys.len(), pats.len(), "values");
            return None;
        }
        tys => args(lw, pats, tys),
    })
}

fn args(lw: &mut Lowerer, pats: &[ast::Pattern], tys: Option<Vec<Ty>>) -> Vec<ArgPattern> {
    let tys = tys.unwrap_or_else(|| vec![Ty::Error; pats.len()]);
    pats.iter()
        .zip(&tys)
        .map(|(p, t)| arg_pattern(lw, p, t))
        .collect()
}

/// The length of the tuple a channel carries, if it carries exactly one tuple.
fn tuple_len(lw: &Lowerer, tys: &[Ty]) -> Option<usize> {
    match tys {
        [one] => match lw.u.shallow(one) {
            Ty::Tuple(items) => Some(items.len()),
            _ => None,
        },
        _ => None,
    }
}

fn tuple_items(lw: &Lowerer, tys: &[Ty]) -> Vec<Ty> {
    match tys.first().map(|t| lw.u.shallow(t)) {
        Some(Ty::Tuple(items)) => items,
        _ => Vec::new(),
    }
}

/// An argument pattern of a label, checked against the carried type when it is known.
fn arg_pattern(lw: &mut Lowerer, pat: &ast::Pattern, ty: &Ty) -> ArgPattern {
    match &pat.kind {
        PatternKind::Wild | PatternKind::Error => ArgPattern::Wild,
        PatternKind::Name(name) => name_arg(lw, name, ty),
        PatternKind::Typed(name, _) => ArgPattern::Var(name.name.clone()),
        PatternKind::Eq(expr) => ArgPattern::Value(closed_expr(lw, expr, ty)),
        PatternKind::Ctor(name, items) => {
            let Some((e, i)) = lw.ctor(&name.name) else {
                lw.error(
                    Diagnostic::error("E0208", format!("unknown constructor `{}`", name.name))
                        .at(name.span)
                        .with_label("not a constructor of any enum type"),
                );
                return ArgPattern::Wild;
            };
            lw.expect_type(ty, &Ty::Enum(e), pat.span);
            let fields = lw.ctor_fields(e, i);
            if fields.len() != items.len() {
                lw.arity_error(
                    pat.span,
                    &format!("constructor `{}`", name.name),
                    fields.len(),
                    items.len(),
                    "values",
                );
                return ArgPattern::Wild;
            }
            ArgPattern::Ctor(
                e,
                i,
                items
                    .iter()
                    .zip(&fields)
                    .map(|(p, f)| arg_pattern(lw, p, &Ty::from_core(f)))
                    .collect(),
            )
        }
        PatternKind::Tuple(items) => {
            let tys = match lw.u.shallow(ty) {
                Ty::Tuple(tys) if tys.len() == items.len() => tys,
                _ => vec![Ty::Error; items.len()],
            };
            ArgPattern::Tuple(
                items
                    .iter()
                    .zip(&tys)
                    .map(|(p, t)| arg_pattern(lw, p, t))
                    .collect(),
            )
        }
    }
}

/// A constructor, a `chan` name or constant as a value; any other name is a variable.
fn name_arg(lw: &mut Lowerer, name: &ast::Ident, ty: &Ty) -> ArgPattern {
    let global = lw.g.values.get(name.name.as_str()).map(|v| v.0);
    let is_upper = name.name.starts_with(|c: char| c.is_ascii_uppercase());
    match global {
        Some(Value::Ctor(..) | Value::Chan(_) | Value::Const(_)) => {}
        _ if is_upper || lw.lookup_local(&name.name).is_some() => {}
        _ => return ArgPattern::Var(name.name.clone()),
    }
    let expr = ast::Expr {
        kind: ast::ExprKind::Name(name.clone()),
        span: name.span,
    };
    ArgPattern::Value(closed_expr(lw, &expr, ty))
}

/// An expression over globals and `forall` variables (the only locals of a property).
fn closed_expr(lw: &mut Lowerer, expr: &ast::Expr, ty: &Ty) -> Expr {
    lw.check_expr(expr, ty)
}
