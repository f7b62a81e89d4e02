//! `extern` declarations: each names a plain channel whose values are a tool call's request
//! values and a reply channel last; each kind of outcome gets a value of the reply's type (its
//! arm, or the constructor named like the kind). The tool models themselves are written by
//! `crate::externs` from what is recorded here, once the model has no error.

use super::{Kind, Lowerer};
use crate::core::{ChanId, Extern, ExternOutcome, OutcomeKind};
use crate::externs::generated_names;
use crate::names::Value;
use crate::ty::Ty;
use agentpi_diagnostics::{Diagnostic, Span};
use agentpi_syntax::ast;
use rustc_hash::FxHashMap;

/// The arms of one declaration by kind: the value written, or `None` for the default.
type Arms<'a> = Vec<(OutcomeKind, Option<&'a ast::Expr>)>;

pub(super) fn lower(lw: &mut Lowerer) {
    let mut declared: FxHashMap<ChanId, Span> = FxHashMap::default();
    for decl in lw.g.externs.clone() {
        let within = decl.within.as_ref().and_then(|e| deadline(lw, e));
        let Some(arms) = arms(lw, decl, decl.within.is_some()) else {
            continue;
        };
        for name in &decl.chans {
            let Some((chan, reply_type)) = extern_chan(lw, name) else {
                continue;
            };
            if let Some(first) = declared.insert(chan, name.span) {
                twice(lw, name, first);
                continue;
            }
            if let Some(found) = lower_one(lw, decl, name, chan, reply_type, &arms) {
                lw.prog.externs.push(Extern {
                    within_ms: within,
                    ..found
                });
            }
        }
    }
}

fn lower_one(
    lw: &mut Lowerer,
    decl: &ast::ExternDecl,
    name: &ast::Ident,
    chan: ChanId,
    reply_type: Span,
    arms: &Arms,
) -> Option<Extern> {
    let (args, reply) = signature(lw, name, chan)?;
    let mut outcomes = Vec::new();
    for &(kind, written) in arms {
        outcomes.push(outcome(lw, name, &reply, kind, written)?);
    }
    names_free(lw, name, decl.within.is_some())?;
    lw.use_global(Kind::Chan, &name.name);
    Some(Extern {
        chan,
        name: name.name.clone(),
        args: args.iter().map(|t| lw.core(t)).collect(),
        reply: lw.core(&reply),
        within_ms: None,
        parallel: decl.parallel,
        outcomes,
        span: name.span,
        reply_type,
    })
}

/// `within N`: a positive constant number of milliseconds.
fn deadline(lw: &mut Lowerer, expr: &ast::Expr) -> Option<u64> {
    let (value, ty) = lw.in_global_scope_pub(|lw| lw.infer_expr(expr));
    if ty == Ty::Error {
        return None;
    }
    match crate::eval::int(&value) {
        Some(ms) if ms > 0 => Some(ms as u64),
        _ => {
            lw.error(
                Diagnostic::error("E0317", "a deadline must be a positive constant integer")
                    .at(expr.span)
                    .with_label("not a positive number of milliseconds")
                    .with_help("write the deadline in milliseconds, as in `within 2000`"),
            );
            None
        }
    }
}

/// The declaration's arms by kind, every kind the tool can have listed once: `timeout` only
/// with a deadline. `None` after an error.
fn arms<'a>(lw: &mut Lowerer, decl: &'a ast::ExternDecl, deadline: bool) -> Option<Arms<'a>> {
    let mut written: FxHashMap<OutcomeKind, (&'a ast::Expr, Span)> = FxHashMap::default();
    let mut ok = true;
    for arm in &decl.outcomes {
        for kind in &arm.kinds {
            let Some(k) = OutcomeKind::from_name(&kind.name) else {
                ok = false;
                outcome_error(
                    lw,
                    kind.span,
                    format!("`{}` is not a kind of outcome", kind.name),
                    "the kinds are `ok`, `err`, `timeout` and `crash`",
                );
                continue;
            };
            if k == OutcomeKind::Timeout && !deadline {
                ok = false;
                outcome_error(
                    lw,
                    kind.span,
                    "`timeout` without a deadline".to_string(),
                    "add `within N` (milliseconds): without a deadline a call never times out",
                );
            }
            if written.insert(k, (&arm.value, kind.span)).is_some() {
                ok = false;
                outcome_error(
                    lw,
                    kind.span,
                    format!("`{}` has two values", kind.name),
                    "give each kind of outcome one arm",
                );
            }
        }
    }
    let kinds = OutcomeKind::ALL
        .into_iter()
        .filter(|&k| k != OutcomeKind::Timeout || deadline);
    let arms = kinds
        .map(|k| (k, written.get(&k).map(|(e, _)| *e)))
        .collect();
    ok.then_some(arms)
}

fn outcome_error(lw: &mut Lowerer, span: Span, message: String, help: &str) {
    lw.error(
        Diagnostic::error("E0316", message)
            .at(span)
            .with_label("in this `extern` declaration")
            .with_help(help),
    );
}

/// The plain channel `name` stands for, and where its reply channel's type is written.
fn extern_chan(lw: &mut Lowerer, name: &ast::Ident) -> Option<(ChanId, Span)> {
    let decl = match lw.g.values.get(name.name.as_str()).map(|v| v.0) {
        Some(Value::Chan(decl)) => decl,
        Some(_) => {
            let help = "declare the channel with `chan`, then name it in `extern`";
            lw.not_a(name, "not a channel", "a channel", help);
            return None;
        }
        None => {
            lw.unknown_value(name);
            return None;
        }
    };
    let ast_decl = lw.g.chans[decl.0 as usize];
    if !ast_decl.dims.is_empty() || ast_decl.buffer.is_some() {
        let what = match ast_decl.dims.is_empty() {
            true => "a buffered channel",
            false => "an array of channels",
        };
        lw.error(
            Diagnostic::error("E0314", format!("`{}` is {what}: a tool call cannot be one", name.name))
                .at(name.span)
                .with_label("declared `extern` here")
                .with_help("a tool is called by a handshake on a plain channel: `chan c : (Args..., chan Outcome)`"),
        );
        return None;
    }
    let reply_type = ast_decl.carries.last().map_or(ast_decl.span, |t| t.span());
    let base = lw.declared_chan(decl).map(|d| d.base)?;
    Some((base, reply_type))
}

/// The request values' types and what the reply channel carries.
fn signature(lw: &mut Lowerer, name: &ast::Ident, chan: ChanId) -> Option<(Vec<Ty>, Ty)> {
    let carried = lw
        .chan_tys
        .get(chan.0 as usize)
        .cloned()
        .unwrap_or_default();
    if carried.contains(&Ty::Error) {
        return None;
    }
    if let Some((Ty::Chan(reply), args)) = carried.split_last()
        && let [reply] = reply.as_slice()
    {
        return Some((args.to_vec(), reply.clone()));
    }
    let found = lw.show(&Ty::Chan(carried));
    lw.error(
        Diagnostic::error("E0315", format!("`{}` cannot be a tool call: it is a `{found}`", name.name))
            .at(name.span)
            .with_label("declared `extern` here")
            .with_help("a tool call carries its request values and, last, the reply channel of one value: `chan c : (Args..., chan Outcome)`"),
    );
    None
}

/// The value answered for `kind`: the arm's, type-checked, or the constructor of its name.
fn outcome(
    lw: &mut Lowerer,
    name: &ast::Ident,
    reply: &Ty,
    kind: OutcomeKind,
    written: Option<&ast::Expr>,
) -> Option<ExternOutcome> {
    if let Some(expr) = written {
        let errors = lw.diags.len();
        lw.global_expr(expr, reply);
        let clean = lw.diags[errors..].iter().all(|d| !d.is_error());
        return clean.then_some(ExternOutcome {
            kind,
            written: Some(expr.span),
        });
    }
    let ctor = lw.ctor(kind.name());
    let fits = match (ctor, reply) {
        (Some((e, i)), Ty::Enum(r)) => e == *r && lw.ctor_fields(e, i).is_empty(),
        _ => false,
    };
    if fits {
        return Some(ExternOutcome {
            kind,
            written: None,
        });
    }
    let ty = lw.show(reply);
    lw.error(
        Diagnostic::error(
            "E0316",
            format!(
                "no value for the outcome `{}` of `{}`",
                kind.name(),
                name.name
            ),
        )
        .at(name.span)
        .with_label(format!(
            "its reply carries `{ty}`, which has no constructor `{}`",
            kind.name()
        ))
        .with_help(format!(
            "say what the tool answers, as in `extern {} {{ {} => ... }}`",
            name.name,
            kind.name()
        )),
    );
    None
}

/// The names of the tool model must be free: its outcome events and its process.
fn names_free(lw: &mut Lowerer, name: &ast::Ident, deadline: bool) -> Option<()> {
    let (events, process) = generated_names(&name.name, deadline);
    // Once the tool models are loaded, their own declarations hold these names.
    let theirs = |at: &Span| Some(at.file) == lw.generated;
    let taken_value = events.iter().find_map(|e| {
        let at = lw.g.values.get(e.as_str()).map(|(_, at)| *at)?;
        (!theirs(&at)).then(|| (e.clone(), at))
    });
    let taken_proc = || {
        let at = lw.g.procs.get(process.as_str()).map(|(_, at)| *at)?;
        (!theirs(&at)).then(|| (process.clone(), at))
    };
    let taken = taken_value.or_else(taken_proc);
    let Some((taken, at)) = taken else {
        return Some(());
    };
    lw.error(
        Diagnostic::error(
            "E0318",
            format!("the tool model of `{}` needs the name `{taken}`", name.name),
        )
        .at(name.span)
        .with_label("declared `extern` here")
        .with_secondary(at, "the model already declares it here")
        .with_help(format!(
            "rename that declaration: `{taken}` belongs to the tool model"
        )),
    );
    None
}

/// A channel named in two `extern` declarations.
fn twice(lw: &mut Lowerer, name: &ast::Ident, first: Span) {
    lw.error(
        Diagnostic::error(
            "E0318",
            format!("`{}` is declared `extern` twice", name.name),
        )
        .at(name.span)
        .with_label("declared again here")
        .with_secondary(first, "first declared here")
        .with_help("declare each tool call once"),
    );
}
