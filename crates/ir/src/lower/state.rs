//! State predicates of properties: `at P.l` resolved to the terms the point `l:` of `proc P`
//! marks, `at P(e, ...).l` to those of `P`'s point `l:` or, when `P` has none, of any
//! process's (an instance runs what it calls), `len(c) OP e` and `c contains p` to a declared buffered
//! channel (an element of an array by constant or `forall` indices).

use super::{Kind, Lowerer};
use crate::core::{ArgPattern, AtPoint, BinOp, ChanId, DefId, Expr, StatePred};
use crate::names::{Value, sorted, suggest};
use crate::ty::Ty;
use agentpi_diagnostics::Diagnostic;
use agentpi_syntax::ast::{self, StatePredKind as K};

/// Lowers a state predicate; `None` after reporting what is wrong.
pub(super) fn lower(lw: &mut Lowerer, pred: &ast::StatePred) -> Option<StatePred> {
    let both = |lw: &mut Lowerer, a, b| (lower(lw, a), lower(lw, b));
    Some(match &pred.kind {
        K::At { proc, args, point } => StatePred::At(at(lw, proc, args.as_deref(), point)?),
        K::Len {
            chan,
            index,
            op,
            value,
        } => {
            let chan = buffered(lw, chan, index)?;
            let value = lw.check_expr(value, &Ty::Int(i64::MIN, i64::MAX));
            let Some(value) = crate::eval::int(&value) else {
                let diag = Diagnostic::error("E0308", "not a constant number")
                    .at(pred.span)
                    .with_label("compared with the length of a buffer")
                    .with_help("compare with a constant expression: `len(c) == N - 1`");
                lw.error(diag);
                return None;
            };
            let op = core_op(*op);
            StatePred::Len { chan, op, value }
        }
        K::Contains { chan, index, args } => {
            let id = buffered(lw, chan, index)?;
            let carried = lw.chan_tys.get(id.0 as usize).cloned();
            let what = format!("channel `{}`", chan.name);
            let args = super::label_args::carried_args(lw, args, carried, pred.span, &what)?;
            no_variables(lw, &args, pred)?;
            StatePred::Contains { chan: id, args }
        }
        K::Not(a) => StatePred::Not(Box::new(lower(lw, a)?)),
        K::And(a, b) => match both(lw, a, b) {
            (Some(a), Some(b)) => StatePred::And(Box::new(a), Box::new(b)),
            _ => return None,
        },
        K::Or(a, b) => match both(lw, a, b) {
            (Some(a), Some(b)) => StatePred::Or(Box::new(a), Box::new(b)),
            _ => return None,
        },
    })
}

/// `at P.l` / `at P(e, ...).l`.
fn at(
    lw: &mut Lowerer,
    proc: &ast::Ident,
    args: Option<&[ast::Expr]>,
    point: &ast::Ident,
) -> Option<AtPoint> {
    let Some(&(def, _)) = lw.g.procs.get(proc.name.as_str()) else {
        let names = sorted(lw.g.procs.keys().copied());
        let mut diag = Diagnostic::error("E0202", format!("unknown process `{}`", proc.name))
            .at(proc.span)
            .with_label("no process of this name");
        if let Some(s) = suggest(&proc.name, names) {
            diag = diag.with_help(format!("did you mean `{s}`?"));
        }
        lw.error(diag);
        return None;
    };
    lw.use_global(Kind::Proc, &proc.name);
    let named = |lw: &Lowerer, own: bool| -> Vec<_> {
        let points = lw.prog.points.iter();
        points
            .filter(|p| p.name == point.name && (!own || p.def == Some(def)))
            .map(|p| p.term)
            .collect()
    };
    // An instance runs the processes it calls too: `at Node(3).waiting` may name a point
    // of `Relay`, which `Node` calls. A process alone names its own points.
    let mut terms = named(lw, true);
    if terms.is_empty() && args.is_some() {
        terms = named(lw, false);
    }
    if terms.is_empty() {
        unknown_point(lw, def, proc, point);
        return None;
    }
    let instance = match args {
        None => None,
        Some(args) => Some(instance_args(lw, def, proc, args)?),
    };
    if instance.is_some() && !started_by_a_system(lw, def) {
        let diag = Diagnostic::error(
            "E0202",
            format!("no system starts an instance of `{}`", proc.name),
        )
        .at(proc.span)
        .with_label("not called in any system's body")
        .with_help(format!(
            "`at {}(...).l` names an instance by the call that starts it in the system; \
             write `at {}.l` for any component at that point",
            proc.name, proc.name
        ));
        lw.error(diag);
        return None;
    }
    Some(AtPoint {
        def,
        instance,
        point: point.name.clone(),
        terms,
    })
}

/// Whether some system's body calls `def` (each such call starts an instance).
pub(super) fn started_by_a_system(lw: &Lowerer, def: DefId) -> bool {
    let terms = lw.prog.terms.iter().zip(&lw.prog.info);
    terms.into_iter().any(|(t, info)| {
        info.owner.is_none() && matches!(t, crate::core::Term::Call(d, _) if *d == def)
    })
}

/// The values of `P(e, ...)`, checked against `P`'s parameters.
pub(super) fn instance_args(
    lw: &mut Lowerer,
    def: DefId,
    proc: &ast::Ident,
    args: &[ast::Expr],
) -> Option<Vec<Expr>> {
    let params = lw.sigs[def.0 as usize].clone();
    if params.len() != args.len() {
        let what = format!("process `{}`", proc.name);
        lw.arity_error(proc.span, &what, params.len(), args.len(), "arguments");
        return None;
    }
    Some(
        args.iter()
            .zip(&params)
            .map(|(e, t)| lw.check_expr(e, t))
            .collect(),
    )
}

fn unknown_point(lw: &mut Lowerer, def: DefId, proc: &ast::Ident, point: &ast::Ident) {
    let mut own: Vec<&str> = lw
        .prog
        .points
        .iter()
        .filter(|p| p.def == Some(def))
        .map(|p| p.name.as_str())
        .collect();
    own.sort_unstable();
    own.dedup();
    let elsewhere = lw.prog.points.iter().find(|p| p.name == point.name);
    let help = match (elsewhere.and_then(|p| p.def), own.is_empty()) {
        (Some(other), _) => format!(
            "`{}:` is written in `proc {}`: write `at {}.{}`",
            point.name,
            lw.prog.def(other).name,
            lw.prog.def(other).name,
            point.name
        ),
        (None, true) => format!(
            "name a place in `proc {}` by writing `{}:` before a prefix, a choice or a replication",
            proc.name, point.name
        ),
        (None, false) => format!("its points: {}", own.join(", ")),
    };
    let diag = Diagnostic::error(
        "E0204",
        format!("`proc {}` has no point `{}`", proc.name, point.name),
    )
    .at(point.span)
    .with_label("no `l:` of this name in that process")
    .with_help(help);
    lw.error(diag);
}

/// A declared buffered channel, or an element of an array of them.
fn buffered(lw: &mut Lowerer, name: &ast::Ident, index: &[ast::Expr]) -> Option<ChanId> {
    let Some(Value::Chan(decl)) = lw.g.values.get(name.name.as_str()).map(|v| v.0) else {
        let help = "`len` and `contains` read a channel declared `chan c : T buffer N`";
        lw.not_a(name, "not a declared channel", "a buffered channel", help);
        return None;
    };
    lw.use_global(Kind::Chan, &name.name);
    let (chan, _) = lw.global_chan(name, decl, index)?;
    let Expr::Chan(id) = chan else {
        let help = "index it by constants or `forall` variables";
        lw.not_a(
            name,
            "indexed by a non-constant",
            "one buffered channel",
            help,
        );
        return None;
    };
    if lw.prog.chans[id.0 as usize].buffer.is_none() {
        let help = "a synchronous channel holds no messages; declare it `chan c : T buffer N`";
        lw.not_a(name, "a synchronous channel", "a buffered channel", help);
        return None;
    }
    Some(id)
}

/// A state predicate binds nothing: a variable in `contains` is refused.
fn no_variables(lw: &mut Lowerer, args: &[ArgPattern], pred: &ast::StatePred) -> Option<()> {
    fn has_var(a: &ArgPattern) -> bool {
        match a {
            ArgPattern::Var(_) => true,
            ArgPattern::Ctor(_, _, items) | ArgPattern::Tuple(items) => items.iter().any(has_var),
            ArgPattern::Wild | ArgPattern::Value(_) => false,
        }
    }
    if !args.iter().any(has_var) {
        return Some(());
    }
    let diag = Diagnostic::error("E0201", "a variable in a state predicate")
        .at(pred.span)
        .with_label("binds a value nothing reads")
        .with_help("write `_` for any value, or a constant, constructor or `forall` variable");
    lw.error(diag);
    None
}

fn core_op(op: ast::BinOp) -> BinOp {
    match op {
        ast::BinOp::Eq => BinOp::Eq,
        ast::BinOp::Ne => BinOp::Ne,
        ast::BinOp::Lt => BinOp::Lt,
        ast::BinOp::Le => BinOp::Le,
        ast::BinOp::Gt => BinOp::Gt,
        _ => BinOp::Ge,
    }
}
