//! `check S: refines Spec`, `equivalent Other`, `deterministic`: the other system resolved by
//! name; fairness, which is about paths, does not apply to a relation between state spaces.

use super::Lowerer;
use crate::core::{Property, Relation};
use agentpi_diagnostics::Diagnostic;
use agentpi_syntax::ast;

pub(super) fn lower_relation(
    lw: &mut Lowerer,
    decl: &ast::CheckDecl,
    relation: &ast::Relation,
) -> Option<Property> {
    if decl.fair {
        let diag = Diagnostic::error("E0215", "fairness does not apply to a relation")
            .at(decl.span)
            .with_label("`fair` before a relation")
            .with_help("`refines`, `equivalent` and `deterministic` compare whole state spaces: drop `fair`");
        lw.error(diag);
        return None;
    }
    let other = match &relation.other {
        None => None,
        Some(name) => match lw.g.systems.get(name.name.as_str()) {
            Some(&(index, _)) => Some(index),
            None => {
                super::unknown_system(lw, name);
                return None;
            }
        },
    };
    Some(Property::Relation(Relation {
        kind: relation.kind,
        other,
    }))
}
