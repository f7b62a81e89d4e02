//! Strong fairness (`strong fair`): a path is strongly fair when every *obligation* enabled
//! infinitely often along it is taken infinitely often. The obligations are the instances
//! (enabled when one of their components can take a transition, taken when one moves) and
//! the channels (enabled when a communication on the channel can happen: a handshake, a
//! message put into its buffer or taken out of it; taken when one does; a message a `lossy`
//! channel loses is no communication), a channel being its `chan` declaration (each element
//! of an array its own) or the `new` that made it.
//!
//! The check is Emerson and Lei's: an SCC of the avoid region holds a strongly fair accepting
//! cycle when every obligation enabled somewhere in it is taken on one of its edges (a cycle
//! through all its edges is then strongly fair) and every eventuality is cleared somewhere.
//! Otherwise each obligation enabled in it but never taken there must not be enabled on a fair
//! cycle infinitely often: the states where it is enabled are removed, and the SCCs of what
//! is left are examined the same way. Each round removes at least one node, so it ends.

use crate::graph::Graph;
use crate::product::{Product, ProductEdge, always_pending, internal, tarjan_within};
use agentpi_semantics::Actor;
use agentpi_semantics::label::Head;
use agentpi_semantics::value::Chan;
use rustc_hash::FxHashSet;

/// An instance or a channel (`(0, id)` a declared channel, `(1, origin)` a `new`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub(crate) enum Obligation {
    Instance(Actor),
    Channel(u8, u32),
}

/// The channel a graph edge communicates on, if it does (a lost message does not).
fn channel(graph: &Graph, label: u32) -> Option<Obligation> {
    let chan = match graph.labels[label as usize].head {
        Head::Chan(c) | Head::Send(c) | Head::Receive(c) => c,
        Head::Lost(_) | Head::Tau | Head::Event(_) => return None,
    };
    Some(match chan {
        Chan::Global(id) => Obligation::Channel(0, id.0),
        Chan::Fresh { origin, .. } => Obligation::Channel(1, origin),
    })
}

/// The obligations the `edge`-th transition of `state` takes.
fn taken_by(graph: &Graph, state: u32, edge: u32) -> impl Iterator<Item = Obligation> + '_ {
    let e = &graph.successors(state)[edge as usize];
    let actors = graph.actor_sets[e.actors as usize].iter();
    let actors = actors.map(|&a| Obligation::Instance(a));
    actors.chain(channel(graph, e.label))
}

/// Whether product edge `e` takes `goal`.
pub(crate) fn takes(graph: &Graph, e: &ProductEdge, goal: &Obligation) -> bool {
    taken_by(graph, e.step.state, e.step.edge).any(|o| o == *goal)
}

/// The obligations enabled in system state `state`.
fn enabled(graph: &Graph, state: u32) -> FxHashSet<Obligation> {
    (0..graph.successors(state).len() as u32)
        .flat_map(|i| taken_by(graph, state, i))
        .collect()
}

/// The obligations enabled somewhere in `part`, sorted.
pub(crate) fn obligations_of(product: &Product, graph: &Graph, part: &[u32]) -> Vec<Obligation> {
    let all: FxHashSet<Obligation> = part
        .iter()
        .flat_map(|&n| enabled(graph, product.state[n as usize]))
        .collect();
    let mut all: Vec<Obligation> = all.into_iter().collect();
    all.sort();
    all
}

/// The parts of accepting SCC `scc` that hold a strongly fair accepting cycle.
pub(crate) fn fair_parts(product: &Product, graph: &Graph, scc: Vec<u32>) -> Vec<Vec<u32>> {
    let mut work = vec![scc];
    let mut out = Vec::new();
    while let Some(part) = work.pop() {
        if always_pending(product, &part) != 0 {
            continue;
        }
        let members: FxHashSet<u32> = part.iter().copied().collect();
        let taken: FxHashSet<Obligation> = internal(product, &part, &members)
            .flat_map(|e| taken_by(graph, e.step.state, e.step.edge))
            .collect();
        let unmet: FxHashSet<Obligation> = obligations_of(product, graph, &part)
            .into_iter()
            .filter(|o| !taken.contains(o))
            .collect();
        if unmet.is_empty() {
            out.push(part);
            continue;
        }
        let keep: FxHashSet<u32> = part
            .iter()
            .copied()
            .filter(|&n| {
                let here = enabled(graph, product.state[n as usize]);
                here.is_disjoint(&unmet)
            })
            .collect();
        let roots: Vec<u32> = part.iter().copied().filter(|n| keep.contains(n)).collect();
        work.extend(tarjan_within(product, &roots, &|n| keep.contains(&n)));
    }
    out.sort();
    out
}
