//! Who is stuck where in a deadlock: each waiting component with the instance it belongs to,
//! the place in the source where it waits, what it offers (nobody takes), and whether it
//! waits where a server usually idles, the place newcomers forget to mark `daemon`/`end:`.

use crate::graph::Graph;
use crate::trace::actor_name;
use agentpi_diagnostics::Span;
use agentpi_ir::core::{DefId, Program, Term, TermId};
use agentpi_semantics::{Chan, MoveKind, Proc, Semantics, State};
use std::sync::Arc;

/// One waiting component of a stuck state.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Blocked {
    /// The instance it belongs to (`Phil(0)`), or the system's name.
    pub instance: String,
    /// Where the term it waits at is written.
    pub span: Span,
    /// What it offers, as written: `take[1]!`, `req?`, `c!(1) (buffer full)`.
    pub waits: Vec<String>,
    /// Set when it waits to receive at the top of a loop (a replication or the start of a
    /// recursive process's body), as a server idles: the process's name, or `!` for a
    /// replication.
    pub idles_in: Option<String>,
}

/// The waiting components of `state`, by instance (in the order the system's body starts
/// them), then in the state's order.
pub fn blocked(sem: &Semantics<'_>, graph: &Graph, system: &str, state: &State) -> Vec<Blocked> {
    let mut leaves = state.leaves();
    leaves.sort_by_key(|leaf| leaf.instance);
    leaves
        .into_iter()
        .map(|leaf| {
            let moves = sem.component_moves(&Proc::Leaf(Arc::new(leaf.clone())), false);
            let offers: Vec<&MoveKind> = moves
                .offers
                .iter()
                .filter(|m| !m.twin)
                .map(|m| &m.kind)
                .collect();
            let waits = offers.iter().map(|k| offer_text(sem, state, k)).collect();
            let receives = offers.iter().any(|k| matches!(k, MoveKind::In { .. }));
            Blocked {
                instance: actor_name(graph, leaf.instance, system),
                span: sem.program.info(leaf.term).span,
                waits,
                idles_in: receives.then(|| idle_loop(sem, leaf.term)).flatten(),
            }
        })
        .collect()
}

/// An offer as written in the model: `c!(1)`, `c?`; on a buffered channel, why it cannot go.
fn offer_text(sem: &Semantics<'_>, state: &State, kind: &MoveKind) -> String {
    let name = |c: Chan| sem.chan_name(c).to_string();
    match kind {
        MoveKind::Out { chan, values, .. } => {
            let mut text = format!("{}!", name(*chan));
            if !values.is_empty() {
                text.push('(');
                for (i, v) in values.iter().enumerate() {
                    if i > 0 {
                        text.push_str(", ");
                    }
                    sem.fmt_value(&mut text, v, &mut |c| sem.chan_name(c).to_string());
                }
                text.push(')');
            }
            if sem.buffer(*chan).is_some() {
                text.push_str(" (buffer full)");
            }
            text
        }
        MoveKind::In { chan, .. } => {
            let empty = !state.queues.iter().any(|q| q.chan == *chan);
            match sem.buffer(*chan) {
                Some(_) if empty => format!("{}? (buffer empty)", name(*chan)),
                Some(_) => format!("{}? (no message it accepts)", name(*chan)),
                None => format!("{}?", name(*chan)),
            }
        }
        MoveKind::Alone { label, .. } => sem.label_text(label),
        MoveKind::Fault(kind) => kind.to_string(),
    }
}

/// The loop whose top `term` is, when it is one: a replication, or the start of the body of
/// a process that calls itself.
fn idle_loop(sem: &Semantics<'_>, term: TermId) -> Option<String> {
    let program = sem.program;
    if sem.is_replication(term) {
        return Some("!".to_string());
    }
    let def = sem.owner(term)?;
    let starts = starts_of(program, program.def(def).body);
    (starts.contains(&term) && calls_itself(program, def)).then(|| program.def(def).name.clone())
}

/// The terms where running `term` first waits: through parallel composition, `new`, `if`,
/// `match` and the left of a sequence.
fn starts_of(program: &Program, term: TermId) -> Vec<TermId> {
    let mut out = Vec::new();
    let mut todo = vec![term];
    while let Some(t) = todo.pop() {
        match program.term(t) {
            Term::Par(ts) => todo.extend(ts),
            Term::New(_, body) => todo.push(*body),
            Term::If(_, a, b) => todo.extend([*a, *b]),
            Term::Match(_, arms) => todo.extend(arms.iter().map(|(_, t)| *t)),
            Term::Seq(left, _) => todo.push(*left),
            _ => out.push(t),
        }
    }
    out
}

/// Whether a term of `def`'s body calls `def`.
fn calls_itself(program: &Program, def: DefId) -> bool {
    program.terms.iter().enumerate().any(|(i, t)| {
        matches!(t, Term::Call(d, _) if *d == def)
            && program.info(TermId(i as u32)).owner == Some(def)
    })
}
