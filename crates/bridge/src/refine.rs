//! The direction's failures refinement, checked at start as `agentpi compare` checks it: the
//! legacy client's direct session `[F=` the same client through the bridge, the modern wire
//! hidden (`compare mcp/bridge:LegacyDirect mcp/bridge:LegacyBridged --equiv failures --hide
//! mc2s --hide ms2c`). The state spaces are built as `agentpi lts` builds them.

use crate::model::Model;
use agentpi_check::{Options, Progress};
use agentpi_lts::{Lts, LtsBuilder, Mapping, refines};

/// Whether `spec [F= implementation` with `hidden` channels hidden; `Err` names why it
/// could not be decided or does not hold.
pub fn failures(
    model: &Model,
    spec: &str,
    implementation: &str,
    hidden: &[&str],
) -> Result<(), String> {
    let mut mapping = Mapping::default();
    for chan in hidden {
        mapping
            .hide(chan)
            .map_err(|e| format!("--hide {chan}: {e}"))?;
    }
    let left = mapping.apply(&lts(model, spec)?);
    let right = mapping.apply(&lts(model, implementation)?);
    let result = refines(&left, &right, agentpi_lts::Model::Failures);
    match result.refines {
        true => Ok(()),
        false => Err(format!(
            "{spec} [F= {implementation} fails (failures refinement)"
        )),
    }
}

/// The whole state space of a system, labels printed as `agentpi lts` prints them.
fn lts(model: &Model, system: &str) -> Result<Lts, String> {
    let sem = &model.sem;
    let index = sem
        .program
        .system(system)
        .ok_or_else(|| format!("mcp/bridge has no system {system}"))?;
    let options = Options {
        threads: 1,
        ..Options::default()
    };
    let graph = agentpi_check::explore_system(sem, index, &options, &Progress::default())
        .map_err(|f| format!("{system} faults: {:?}", f.kind))?;
    if let Some(limit) = &graph.limit {
        return Err(format!("{system}: cannot explore it all: {limit}"));
    }
    let mut builder = LtsBuilder::new();
    let labels: Vec<u32> = graph
        .labels
        .iter()
        .map(|l| builder.intern(&agentpi_check::trace::plain_label(sem, l, true)))
        .collect();
    builder.require_states(graph.state_count());
    for s in 0..graph.state_count() as u32 {
        for e in graph.successors(s) {
            builder.add_transition_id(s, labels[e.label as usize], e.target);
        }
    }
    Ok(builder.finish(0))
}
