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
//!
//! With a selection (`strong fair(link, Receiver)`) only the obligations selected are held to
//! strong fairness and every instance to weak fairness: a part in which an instance is
//! enabled in every state and never moves holds no fair cycle, nor does any part of it.

use crate::graph::Graph;
use agentpi_ir::core::StrongOn;
use agentpi_semantics::eval::eval;
use agentpi_semantics::label::Head;
use agentpi_semantics::value::Chan;
use agentpi_semantics::{Actor, Semantics};
use rustc_hash::FxHashSet;

/// An instance or a channel (`(0, id)` a declared channel, `(1, origin)` a `new`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub(crate) enum Obligation {
    Instance(Actor),
    Channel(u8, u32),
}

/// The obligations `strong fair(...)` selects.
#[derive(Debug, PartialEq, Eq)]
pub struct Selection(FxHashSet<Obligation>);

impl Selection {
    /// The selection written, for a system whose instances are named `instances`; `None`
    /// when nothing is selected (every obligation).
    pub(crate) fn of(sem: &Semantics<'_>, instances: &[String], on: &[StrongOn]) -> Option<Self> {
        if on.is_empty() {
            return None;
        }
        let mut set = FxHashSet::default();
        for o in on {
            match o {
                StrongOn::Chans(ids) => {
                    set.extend(ids.iter().map(|id| Obligation::Channel(0, id.0)));
                }
                StrongOn::Instances { def, args } => {
                    let named = started_by(sem, instances, *def, args.as_deref());
                    set.extend(named.map(Obligation::Instance));
                }
            }
        }
        Some(Selection(set))
    }
}

/// The instances started by a call of `def` (with the values of `args`, or any); a second
/// instance of the same call is named `P(1)#2`.
fn started_by<'a>(
    sem: &Semantics<'_>,
    instances: &'a [String],
    def: agentpi_ir::core::DefId,
    args: Option<&[agentpi_ir::core::Expr]>,
) -> impl Iterator<Item = Actor> + 'a {
    let (text, any) = match args {
        Some(args) => {
            let values: Vec<_> = args.iter().filter_map(|e| eval(e, &[]).ok()).collect();
            (sem.call_text(def, &values), false)
        }
        None => (sem.program.def(def).name.clone(), true),
    };
    (0..instances.len() as Actor).filter(move |&i| {
        let name = &instances[i as usize];
        let rest = name.strip_prefix(text.as_str());
        rest.is_some_and(|r| r.is_empty() || r.starts_with('#') || (any && r.starts_with('(')))
    })
}

/// Whether `o` is held to strong fairness under `selection`.
fn selected(selection: Option<&Selection>, o: &Obligation) -> bool {
    selection.is_none_or(|s| s.0.contains(o))
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
pub(crate) fn taken_by(
    graph: &Graph,
    state: u32,
    edge: u32,
) -> impl Iterator<Item = Obligation> + '_ {
    let e = graph.successors(state).get(edge as usize);
    let actors = graph.actor_sets[e.actors as usize].iter();
    let actors = actors.map(|&a| Obligation::Instance(a));
    actors.chain(channel(graph, e.label))
}

/// Whether the `edge`-th transition of `state` takes `goal`.
pub(crate) fn takes(graph: &Graph, (state, edge): (u32, u32), goal: &Obligation) -> bool {
    taken_by(graph, state, edge).any(|o| o == *goal)
}

/// What the search needs of the product (a trait, so that this module does not depend on
/// the product's, which calls it).
pub(crate) trait Product {
    /// The system state of node `n`.
    fn state(&self, n: u32) -> u32;
    /// Calls `each` with the system transition, as (state, edge), of each inside edge of
    /// `part` that stays in it (not a list of them: about eight a node, on parts of millions).
    fn steps(&self, part: &[u32], each: &mut dyn FnMut(u32, u32));
    /// The eventualities pending on every inside edge of `part`.
    fn pending(&self, part: &[u32]) -> u64;
    /// The SCCs holding a cycle among the nodes `keep`, searched from `roots`; `None` when
    /// the search would take more than `room` bytes beyond its one number a node.
    fn sccs(
        &self,
        roots: &[u32],
        keep: &FxHashSet<u32>,
        room: Option<u64>,
    ) -> Option<Vec<Vec<u32>>>;
}

/// The obligations enabled in system state `state`.
fn enabled(graph: &Graph, state: u32) -> FxHashSet<Obligation> {
    (0..graph.successors(state).len() as u32)
        .flat_map(|i| taken_by(graph, state, i))
        .collect()
}

/// The obligations held to strong fairness enabled somewhere in `part`, sorted.
pub(crate) fn obligations_of(
    product: &impl Product,
    graph: &Graph,
    part: &[u32],
    selection: Option<&Selection>,
) -> Vec<Obligation> {
    let all: FxHashSet<Obligation> = part
        .iter()
        .flat_map(|&n| enabled(graph, product.state(n)))
        .filter(|o| selected(selection, o))
        .collect();
    let mut all: Vec<Obligation> = all.into_iter().collect();
    all.sort();
    all
}

/// Whether no instance is enabled in every state of `part` without taking one of its edges
/// (`taken`): else no cycle in it, nor in any part of it, is weakly fair.
fn weakly_fair(
    product: &impl Product,
    graph: &Graph,
    part: &[u32],
    taken: &FxHashSet<Obligation>,
) -> bool {
    let mut always: Option<FxHashSet<Obligation>> = None;
    for &n in part {
        let here = enabled(graph, product.state(n));
        let here = here
            .into_iter()
            .filter(|o| matches!(o, Obligation::Instance(_)));
        always = Some(match always {
            None => here.collect(),
            Some(a) => here.filter(|o| a.contains(o)).collect(),
        });
    }
    always.unwrap_or_default().iter().all(|o| taken.contains(o))
}

/// The parts of accepting SCC `scc` that hold a strongly fair accepting cycle (for the
/// obligations selected, and weakly fair for every instance under a selection); `None` when
/// a part's search would take more than `room` bytes (its set of nodes kept, about 16 bytes
/// a node with its roots, and the search's own: see `product::tarjan_within`).
pub(crate) fn fair_parts(
    product: &impl Product,
    graph: &Graph,
    scc: Vec<u32>,
    selection: Option<&Selection>,
    room: Option<u64>,
) -> Option<Vec<Vec<u32>>> {
    let mut work = vec![scc];
    let mut out = Vec::new();
    while let Some(part) = work.pop() {
        if product.pending(&part) != 0 {
            continue;
        }
        let mut taken: FxHashSet<Obligation> = FxHashSet::default();
        product.steps(&part, &mut |state, edge| {
            taken.extend(taken_by(graph, state, edge));
        });
        let unmet: FxHashSet<Obligation> = obligations_of(product, graph, &part, selection)
            .into_iter()
            .filter(|o| !taken.contains(o))
            .collect();
        if unmet.is_empty() {
            if selection.is_none() || weakly_fair(product, graph, &part, &taken) {
                out.push(part);
            }
            continue;
        }
        let sets = 16 * part.len() as u64;
        let room = match room {
            Some(room) => Some(room.checked_sub(sets)?),
            None => None,
        };
        let keep: FxHashSet<u32> = part
            .iter()
            .copied()
            .filter(|&n| {
                let here = enabled(graph, product.state(n));
                here.is_disjoint(&unmet)
            })
            .collect();
        let roots: Vec<u32> = part.iter().copied().filter(|n| keep.contains(n)).collect();
        work.extend(product.sccs(&roots, &keep, room)?);
    }
    out.sort();
    Some(out)
}
