//! `check --states`: the state along a counterexample, after each step: where each waiting
//! component of each instance is (its source position) with its values, and what each
//! buffered channel holds.

use crate::model::Model;
use agentpi_semantics::{Semantics, State, Value};
use serde_json::json;

/// The instance names of system `system` (by instance number), as traces print them.
pub fn instance_names(sem: &Semantics<'_>, model: &Model, system: &str) -> Vec<String> {
    let index = model.program.system(system);
    index
        .and_then(|i| sem.initial_with_instances(i).ok())
        .map(|(_, names)| names)
        .unwrap_or_default()
}

/// The names of the values a closure at `term` keeps (its free slots, in order); empty when
/// unknown.
pub fn slot_names(model: &Model, term: agentpi_ir::core::TermId) -> Vec<&str> {
    let program = &model.program;
    let info = program.info(term);
    let names = match info.owner {
        Some(def) => &program.def(def).slot_names,
        // System bodies are lowered after every definition, one after another: a term
        // belongs to the first system whose root comes at or after it.
        None => match program.systems.iter().find(|s| s.body.0 >= term.0) {
            Some(system) => &system.slot_names,
            None => return Vec::new(),
        },
    };
    let found: Option<Vec<&str>> = info
        .free
        .iter()
        .map(|&slot| names.get(slot as usize).map(String::as_str))
        .collect();
    found.unwrap_or_default()
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
        let slots = slot_names(model, leaf.term);
        for (i, v) in leaf.env.iter().enumerate() {
            if i > 0 {
                values.push_str(", ");
            }
            if let Some(name) = slots.get(i) {
                values.push_str(&format!("{name} = "));
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

/// `state` as JSON: `{"components": [{"instance", "at", "values"}], "queues": [{"channel",
/// "messages": [[value, ...], ...]}]}`, values as printed.
pub fn json(
    sem: &Semantics<'_>,
    model: &Model,
    names: &[String],
    state: &State,
) -> serde_json::Value {
    let mut leaves = state.leaves();
    leaves.sort_by_key(|leaf| leaf.instance);
    let text = |v: &Value| {
        let mut out = String::new();
        sem.fmt_value(&mut out, v, &mut |c| sem.chan_name(c).to_string());
        out
    };
    let components: Vec<_> = leaves
        .iter()
        .map(|leaf| {
            let who = names
                .get(leaf.instance as usize)
                .map_or("?", String::as_str);
            let at = model.sources.position(model.program.info(leaf.term).span);
            let slots = slot_names(model, leaf.term);
            let values: Vec<_> = leaf
                .env
                .iter()
                .enumerate()
                .map(|(i, v)| json!({ "name": slots.get(i), "value": text(v) }))
                .collect();
            json!({ "instance": who, "at": at, "values": values })
        })
        .collect();
    let queues: Vec<_> = state
        .queues
        .iter()
        .map(|q| {
            let messages: Vec<Vec<String>> = q
                .messages
                .iter()
                .map(|m| m.iter().map(text).collect())
                .collect();
            json!({ "channel": sem.chan_name(q.chan), "messages": messages })
        })
        .collect();
    json!({ "components": components, "queues": queues })
}
