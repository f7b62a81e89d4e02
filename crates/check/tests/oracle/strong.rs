//! Strong fairness of a lasso's loop, from its definition (docs/semantics.md, `strong fair`):
//! every obligation held to strong fairness (an instance, or a channel, each of them unless
//! `strong fair(...)` names some) that is enabled in a state of the loop is taken on one of
//! its steps. An instance is enabled when one of its components can move and taken when one
//! does; a channel is enabled when a communication on it can happen (a handshake, a message
//! put into its buffer or taken out; a lost message is none) and taken when one does.

use super::walk::{Run, runs};
use agentpi_check::CheckResult;
use agentpi_ir::core::{CheckDef, StrongOn};
use agentpi_semantics::label::Head;
use agentpi_semantics::{Chan, Label, Semantics, Transition, Value};
use std::collections::BTreeSet;

/// An instance (by number), a declared channel (by id) or the `new` that made a channel.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Obligation {
    Instance(u32),
    Declared(u32),
    Made(String),
}

/// Confirms that the loop of `result` (a lasso of `strong fair` check `c`) is strongly fair
/// on some run that prints as it; `Ok` for a trace without loop.
pub fn confirm_strong(
    sem: &Semantics<'_>,
    c: &CheckDef,
    result: &CheckResult,
) -> Result<(), String> {
    let Some(trace) = result.trace.as_ref().filter(|t| t.loop_start.is_some()) else {
        return Ok(());
    };
    let held = held(sem, c);
    let mut why = Vec::new();
    for run in runs(sem, c.system, trace, false)? {
        let unfair = starved(sem, &run, &held);
        if unfair.is_empty() {
            return Ok(());
        }
        why.push(format!(
            "the loop is not strongly fair: {unfair:?} enabled and never taken"
        ));
    }
    why.dedup();
    Err(why.join("; "))
}

/// The obligations `held` that are enabled in a state of the loop of `run` and taken on
/// none of its steps.
fn starved(sem: &Semantics<'_>, run: &Run, held: &dyn Fn(&Obligation) -> bool) -> Vec<Obligation> {
    let start = run.loop_start.expect("a lasso");
    let enabled: BTreeSet<Obligation> = run.states[start..run.steps.len()]
        .iter()
        .flat_map(|s| sem.successors(s))
        .filter(|t| t.fault.is_none())
        .flat_map(|t| obligations(&t))
        .filter(|o| held(o))
        .collect();
    let taken: BTreeSet<Obligation> = run.steps[start..].iter().flat_map(obligations).collect();
    enabled.difference(&taken).cloned().collect()
}

/// Which obligations check `c` holds to strong fairness.
pub fn held<'a>(sem: &'a Semantics<'_>, c: &'a CheckDef) -> impl Fn(&Obligation) -> bool + 'a {
    let instances = sem
        .initial_with_instances(c.system)
        .map(|(_, names)| names)
        .unwrap_or_default();
    move |o: &Obligation| selected(sem, &instances, &c.strong_on, o)
}

/// The obligations transition `t` takes.
fn obligations(t: &Transition) -> Vec<Obligation> {
    taken(&t.label, &t.actors)
}

/// The obligations a step labelled `label` by `actors` takes: its instances, and its channel
/// when it is a communication (a handshake, a send queued, a message received; not a loss).
pub fn taken(label: &Label, actors: &[u32]) -> Vec<Obligation> {
    let mut out: Vec<Obligation> = actors.iter().map(|&a| Obligation::Instance(a)).collect();
    let chan = match &label.head {
        Head::Chan(c) | Head::Send(c) | Head::Receive(c) => Some(c),
        Head::Lost(_) | Head::Tau | Head::Event(_) => None,
    };
    out.extend(chan.map(|c| match c {
        Chan::Global(id) => Obligation::Declared(id.0),
        Chan::Fresh { origin, .. } => Obligation::Made(format!("{origin:?}")),
    }));
    out
}

/// Whether `o` is held to strong fairness: every obligation when `on` is empty, else the
/// channels named and the instances started by a call named (with these arguments, or any;
/// a second instance of one call is named `P(1)#2`).
fn selected(sem: &Semantics<'_>, instances: &[String], on: &[StrongOn], o: &Obligation) -> bool {
    if on.is_empty() {
        return true;
    }
    on.iter().any(|s| match (s, o) {
        (StrongOn::Chans(ids), Obligation::Declared(id)) => ids.iter().any(|c| c.0 == *id),
        (StrongOn::Instances { def, args }, Obligation::Instance(i)) => {
            let name = instances.get(*i as usize).map_or("", |n| n.as_str());
            let (text, any) = match args {
                None => (sem.program.def(*def).name.clone(), true),
                Some(args) => {
                    let values: Vec<Value> = (args.iter())
                        .filter_map(|e| agentpi_semantics::eval::eval(e, &[]).ok())
                        .collect();
                    (sem.call_text(*def, &values), false)
                }
            };
            name.strip_prefix(text.as_str()).is_some_and(|rest| {
                rest.is_empty() || rest.starts_with('#') || (any && rest.starts_with('('))
            })
        }
        _ => false,
    })
}
