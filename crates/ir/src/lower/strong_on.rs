//! `strong fair(link, Receiver, Node(1))`: the channels (a channel, an element of an array,
//! or every element of one) and the instances (every instance a system starts by calling a
//! process, or the one started by a call with these arguments) held to strong fairness.

use super::{Kind, Lowerer};
use crate::core::{Expr, StrongOn};
use crate::names::{Value, sorted, suggest};
use agentpi_diagnostics::Diagnostic;
use agentpi_syntax::ast::{self, ExprKind};

/// The selection as written; `None` after an error, which is reported.
pub(super) fn lower(lw: &mut Lowerer, written: &[ast::Expr]) -> Option<Vec<StrongOn>> {
    let all: Vec<Option<StrongOn>> = written.iter().map(|e| one(lw, e)).collect();
    all.into_iter().collect()
}

fn one(lw: &mut Lowerer, e: &ast::Expr) -> Option<StrongOn> {
    let (name, index, args) = match &e.kind {
        ExprKind::Name(n) => (n, None, None),
        ExprKind::Index(n, index) => (n, Some(&index[..]), None),
        ExprKind::Apply(n, args) => (n, None, Some(&args[..])),
        _ => return not_named(lw, e),
    };
    if let Some(&(Value::Chan(decl), _)) = lw.g.values.get(name.name.as_str())
        && args.is_none()
    {
        return chans(lw, name, decl, index);
    }
    let Some(&(def, _)) = lw.g.procs.get(name.name.as_str()) else {
        return not_named(lw, e);
    };
    if index.is_some() {
        return not_named(lw, e);
    }
    lw.use_global(Kind::Proc, &name.name);
    if !super::state::started_by_a_system(lw, def) {
        return not_named(lw, e);
    }
    let args = match args {
        None => None,
        Some(args) => Some(super::state::instance_args(lw, def, name, args)?),
    };
    Some(StrongOn::Instances { def, args })
}

/// A channel, an element of an array (constant indices), or every element of an array.
fn chans(
    lw: &mut Lowerer,
    name: &ast::Ident,
    decl: crate::core::ChanId,
    index: Option<&[ast::Expr]>,
) -> Option<StrongOn> {
    let declared = lw.declared_chan(decl)?.clone();
    if index.is_none() {
        lw.use_global(Kind::Chan, &name.name);
        let count: u32 = declared.dims.iter().map(|d| d.dim.size).product();
        let ids = (0..count).map(|i| crate::core::ChanId(declared.base.0 + i));
        return Some(StrongOn::Chans(ids.collect()));
    }
    match lw.global_chan(name, decl, index.unwrap_or(&[]))?.0 {
        Expr::Chan(id) => Some(StrongOn::Chans(vec![id])),
        _ => {
            lw.error(
                Diagnostic::error(
                    "E0216",
                    "`strong fair` names an element by constant indices",
                )
                .at(name.span)
                .with_label("an index that is not constant")
                .with_help(format!(
                    "write constants, or `{}` for every element",
                    name.name
                )),
            );
            None
        }
    }
}

fn not_named<T>(lw: &mut Lowerer, e: &ast::Expr) -> Option<T> {
    let written = match &e.kind {
        ExprKind::Name(n) | ExprKind::Index(n, _) | ExprKind::Apply(n, _) => n.name.as_str(),
        _ => "",
    };
    let chans =
        lw.g.values
            .iter()
            .filter(|(_, v)| matches!(v.0, Value::Chan(_)));
    let names = sorted(chans.map(|(n, _)| *n).chain(lw.g.procs.keys().copied()));
    let help = match suggest(written, names).filter(|s| *s != written) {
        Some(s) => format!("did you mean `{s}`?"),
        None => "write a channel (`link`, `link[0]`) or a process the system's body calls (`Receiver`, `Node(1)`)".to_string(),
    };
    lw.error(
        Diagnostic::error("E0216", "`strong fair(...)` names channels and instances")
            .at(e.span)
            .with_label("neither a channel nor a process a system calls")
            .with_help(help),
    );
    None
}
