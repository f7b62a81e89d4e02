//! `check S: forall i in T, j in U: PROPERTY`: the property once per combination of index
//! values, each a check of its own (all explored together, as every check of one system is),
//! named by the text as written with the values after it: `... [i = 2]`.
//!
//! The index variables are lowered as the index of `par` is: a slot fixed to a constant in
//! each copy, so `ping[i]`, `ping[(i + 1) % N]` and `eat(i)` mean the element and the value.

use super::Lowerer;
use super::family::Domain;
use crate::core::{CheckDef, Expr};
use agentpi_syntax::ast;

/// The binders of `forall` (nested ones flattened) and the property under them.
pub(super) fn split(property: &ast::Property) -> (Vec<&ast::ForallBinder>, &ast::Property) {
    let mut binders = Vec::new();
    let mut inner = property;
    while let ast::Property::Forall(bs, body) = inner {
        binders.extend(bs.iter());
        inner = body;
    }
    (binders, inner)
}

/// How the property under the binders is lowered (`property::lower_property`, passed in so
/// that the two modules do not import each other).
type LowerProperty = fn(&mut Lowerer, &ast::Property) -> Option<crate::core::Property>;

/// Lowers `decl`, a `forall`, into one check per combination of its index values.
pub(super) fn lower(
    lw: &mut Lowerer,
    decl: &ast::CheckDecl,
    system: usize,
    inner_of: LowerProperty,
) {
    let (binders, inner) = split(&decl.property);
    let domains: Option<Vec<Domain>> = binders.iter().map(|b| lw.domain(&b.ty)).collect();
    let Some(domains) = domains else {
        return;
    };
    let first_diag = lw.diags.len();
    for values in combinations(&domains) {
        let slots: Vec<_> = binders
            .iter()
            .zip(&domains)
            .map(|(b, d)| lw.new_slot(&b.name, d.ty.clone(), false))
            .collect();
        for ((b, slot), (value, _)) in binders.iter().zip(&slots).zip(&values) {
            lw.body.scope.push((b.name.name.clone(), *slot));
            lw.body.fixed.insert(*slot, value.clone());
        }
        let property = inner_of(lw, inner);
        let strong_on = super::strong_on::lower(lw, &decl.strong_on);
        lw.body.scope.clear();
        lw.body.fixed.clear();
        let (Some(property), Some(strong_on)) = (property, strong_on) else {
            continue;
        };
        let named: Vec<String> = binders
            .iter()
            .zip(&values)
            .map(|(b, (_, shown))| format!("{} = {shown}", b.name.name))
            .collect();
        lw.prog.checks.push(CheckDef {
            system,
            property,
            fair: decl.fair,
            strong: decl.strong,
            strong_on,
            text: format!("{} [{}]", decl.text, named.join(", ")),
            span: decl.span,
        });
    }
    super::dedup_diags(lw, first_diag);
}

/// Every combination of one value per domain, the last varying fastest.
fn combinations(domains: &[Domain]) -> Vec<Vec<(Expr, String)>> {
    let mut out: Vec<Vec<(Expr, String)>> = vec![Vec::new()];
    for d in domains {
        out = out
            .iter()
            .flat_map(|prefix| {
                d.values.iter().map(move |v| {
                    let mut next = prefix.clone();
                    next.push(v.clone());
                    next
                })
            })
            .collect();
    }
    out
}
