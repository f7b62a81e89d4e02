//! The tool model of each `extern` channel, written as `.pi` text and composed with every
//! system: a daemon that takes each call with a fresh copy of itself, and the copy answers one
//! outcome, announced by an event of its own (`fetch_a_ok(r)`, `fetch_a_err(r)`, ...) that
//! names the call by its reply channel. `agentpi run` steps the same model, firing the event
//! of the outcome the real call had; `agentpi check` explores every outcome.

use crate::core::{Extern, OutcomeKind, Program};
use agentpi_diagnostics::Span;
use agentpi_syntax::ast;
use std::fmt::Write;

/// The display name of the generated source (shown if a diagnostic ever points into it).
pub const SOURCE_NAME: &str = "(tool models of the extern declarations)";

/// The event announcing that a call of `chan` had an outcome of this kind.
pub fn outcome_event(chan: &str, kind: OutcomeKind) -> String {
    format!("{chan}_{}", kind.name())
}

/// The process that models the tool behind `chan` (one instance per system).
pub fn tool_process(chan: &str) -> String {
    format!("Tool_{chan}")
}

/// The names a tool model declares: its outcome events and its process.
pub(crate) fn generated_names(chan: &str, deadline: bool) -> (Vec<String>, String) {
    let kinds = OutcomeKind::ALL
        .into_iter()
        .filter(|&k| k != OutcomeKind::Timeout || deadline);
    let events = kinds.map(|k| outcome_event(chan, k)).collect();
    (events, tool_process(chan))
}

/// The binder of the reply channel inside a tool model (not a name users see in labels: a
/// channel prints by where it was made).
const REPLY: &str = "reply__";

/// The tool models of every extern of `program`; `text_of` gives the source text of a span
/// (the reply channel's type and the values written in arms).
pub fn tool_models(program: &Program, text_of: &dyn Fn(Span) -> String) -> String {
    let mut out = String::from(
        "// The tool models of the `extern` declarations, written by agentpi: each call is\n\
         // taken by a fresh copy, which announces one outcome and answers it.\n",
    );
    for ext in &program.externs {
        tool_model(&mut out, ext, text_of);
    }
    out
}

fn tool_model(out: &mut String, ext: &Extern, text_of: &dyn Fn(Span) -> String) {
    let reply_type = text_of(ext.reply_type);
    for outcome in &ext.outcomes {
        let event = outcome_event(&ext.name, outcome.kind);
        let _ = writeln!(out, "event {event}({reply_type})");
    }
    let mut pattern: Vec<&str> = vec!["_"; ext.args.len()];
    pattern.push(REPLY);
    let answers: Vec<String> = ext
        .outcomes
        .iter()
        .map(|o| {
            let value = o.written.map_or_else(|| o.kind.name().to_string(), text_of);
            let event = outcome_event(&ext.name, o.kind);
            format!("{event}({REPLY}) . {REPLY}!({value})")
        })
        .collect();
    let process = tool_process(&ext.name);
    let _ = writeln!(
        out,
        "daemon proc {process} = {}?({}) . ({process} | ({}))",
        ext.name,
        pattern.join(", "),
        answers.join(" + ")
    );
}

/// Puts one instance of every tool model beside the body of each system of `files`; the
/// models are the processes `generated` declares.
pub(crate) fn compose(files: &mut [ast::File], generated: &ast::File) {
    let calls: Vec<ast::Proc> = generated
        .items
        .iter()
        .filter_map(|item| match item {
            ast::Item::Proc(p) => Some(ast::Proc {
                kind: ast::ProcKind::Call(p.name.clone(), Vec::new()),
                span: p.name.span,
            }),
            _ => None,
        })
        .collect();
    for file in files {
        for item in &mut file.items {
            if let ast::Item::System(system) = item {
                let body = std::mem::replace(&mut system.body.kind, ast::ProcKind::Nil);
                let inner = ast::Proc {
                    kind: body,
                    span: system.body.span,
                };
                let mut parts = vec![inner];
                parts.extend(calls.iter().cloned());
                system.body.kind = ast::ProcKind::Par(parts);
            }
        }
    }
}
