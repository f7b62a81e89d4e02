//! Patterns of inputs and `match` arms: binders get fresh slots, the rest is type-checked
//! against the value matched.

use super::Lowerer;
use crate::core::{Pattern, Slot, Type};
use crate::ty::Ty;
use agentpi_diagnostics::{Diagnostic, Span};
use agentpi_syntax::ast::{self, PatternKind};

/// Binders made by one pattern list; they enter scope when the whole list is done.
pub(crate) type Binds = Vec<(String, Slot)>;

impl Lowerer<'_> {
    pub(crate) fn pattern(
        &mut self,
        pat: &ast::Pattern,
        expected: &Ty,
        binds: &mut Binds,
    ) -> Pattern {
        match &pat.kind {
            PatternKind::Wild | PatternKind::Error => Pattern::Wild,
            PatternKind::Eq(expr) => Pattern::Eq(self.check_expr(expr, expected)),
            PatternKind::Name(name) => self.name_pattern(name, expected, binds),
            PatternKind::Ctor(name, args) => {
                self.ctor_pattern(name, args, expected, pat.span, binds)
            }
            PatternKind::Tuple(items) => self.tuple_pattern(items, expected, pat.span, binds),
        }
    }

    /// A constructor without payload, a constant (upper case), or a binder.
    fn name_pattern(&mut self, name: &ast::Ident, expected: &Ty, binds: &mut Binds) -> Pattern {
        if self.ctor(&name.name).is_some() {
            return self.ctor_pattern(name, &[], expected, name.span, binds);
        }
        if name.name.starts_with(|c: char| c.is_ascii_uppercase()) {
            let expr = ast::Expr {
                kind: ast::ExprKind::Name(name.clone()),
                span: name.span,
            };
            return Pattern::Eq(self.check_expr(&expr, expected));
        }
        if binds.iter().any(|(n, _)| *n == name.name) {
            self.error(
                Diagnostic::error(
                    "E0205",
                    format!("`{}` is bound twice in this pattern", name.name),
                )
                .at(name.span)
                .with_label("second binding")
                .with_help(format!(
                    "to require equal values, write `=` before the second `{}`",
                    name.name
                )),
            );
        }
        let slot = self.new_slot(name, expected.clone(), false);
        binds.push((name.name.clone(), slot));
        Pattern::Bind(slot, Type::Bool)
    }

    fn ctor_pattern(
        &mut self,
        name: &ast::Ident,
        args: &[ast::Pattern],
        expected: &Ty,
        span: Span,
        binds: &mut Binds,
    ) -> Pattern {
        let Some((e, i)) = self.ctor(&name.name) else {
            let ctors = self.ctor_names();
            let mut diag =
                Diagnostic::error("E0208", format!("unknown constructor `{}`", name.name))
                    .at(name.span)
                    .with_label("not a constructor of any enum type");
            if let Some(s) = crate::names::suggest(&name.name, ctors) {
                diag = diag.with_help(format!("did you mean `{s}`?"));
            }
            self.error(diag);
            return Pattern::Wild;
        };
        if !self.expect_type(expected, &Ty::Enum(e), span) {
            return Pattern::Wild;
        }
        let fields = self.ctor_fields(e, i);
        if fields.len() != args.len() {
            self.arity_error(
                span,
                &format!("constructor `{}`", name.name),
                fields.len(),
                args.len(),
                "values",
            );
            return Pattern::Wild;
        }
        let pats = args
            .iter()
            .zip(&fields)
            .map(|(p, f)| self.pattern(p, &Ty::from_core(f), binds))
            .collect();
        Pattern::Ctor(e, i, pats)
    }

    fn tuple_pattern(
        &mut self,
        items: &[ast::Pattern],
        expected: &Ty,
        span: Span,
        binds: &mut Binds,
    ) -> Pattern {
        let tys = match self.u.shallow(expected) {
            Ty::Tuple(tys) if tys.len() == items.len() => tys,
            Ty::Error => vec![Ty::Error; items.len()],
            _ => {
                let tys: Vec<Ty> = items.iter().map(|_| self.u.fresh()).collect();
                if !self.expect_type(expected, &Ty::Tuple(tys.clone()), span) {
                    return Pattern::Wild;
                }
                tys
            }
        };
        Pattern::Tuple(
            items
                .iter()
                .zip(&tys)
                .map(|(p, t)| self.pattern(p, t, binds))
                .collect(),
        )
    }

    pub(crate) fn add_binds(&mut self, binds: Binds) {
        self.body.scope.extend(binds);
    }
}
