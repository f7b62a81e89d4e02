//! `check --states`: the state along a counterexample, after each step: where each waiting
//! component of each instance is (its source position) with its values, and what each
//! buffered channel holds.

use crate::model::Model;
use agentpi_semantics::{Semantics, State};

/// The instance names of system `system` (by instance number), as traces print them.
pub fn instance_names(sem: &Semantics<'_>, model: &Model, system: &str) -> Vec<String> {
    let index = model.program.system(system);
    index
        .and_then(|i| sem.initial_with_instances(i).ok())
        .map(|(_, names)| names)
        .unwrap_or_default()
}

/// The lines that show `state`, each indented by `indent`.
pub fn describe(
    sem: &Semantics<'_>,
    model: &Model,
    names: &[String],
    state: &State,
    indent: &str,
) -> String {
    let mut leaves = state.leaves();
    leaves.sort_by_key(|leaf| leaf.instance);
    let mut out = String::new();
    if leaves.is_empty() {
        out.push_str(&format!("{indent}(every component has terminated)\n"));
    }
    let plain = &mut |c| sem.chan_name(c).to_string();
    for leaf in leaves {
        let who = names
            .get(leaf.instance as usize)
            .map_or("?", String::as_str);
        let at = model.sources.position(model.program.info(leaf.term).span);
        let mut values = String::new();
        for (i, v) in leaf.env.iter().enumerate() {
            if i > 0 {
                values.push_str(", ");
            }
            sem.fmt_value(&mut values, v, plain);
        }
        out.push_str(&format!("{indent}{who} at {at} [{values}]\n"));
    }
    for queue in state.queues.iter() {
        let messages: Vec<String> = queue
            .messages
            .iter()
            .map(|m| {
                let mut text = String::from("(");
                for (i, v) in m.iter().enumerate() {
                    if i > 0 {
                        text.push_str(", ");
                    }
                    sem.fmt_value(&mut text, v, plain);
                }
                text + ")"
            })
            .collect();
        let chan = sem.chan_name(queue.chan);
        out.push_str(&format!("{indent}{chan} holds {}\n", messages.join(" ")));
    }
    out
}
