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
use bits::{Bits, Set};
use rustc_hash::FxHashSet;

pub(crate) mod bits;

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
pub(crate) trait Product: Sync {
    /// The system state of node `n`.
    fn state(&self, n: u32) -> u32;
    /// Calls `each` with the system transition, as (state, edge), and the pending bits of
    /// each inside edge out of `nodes` (some of `part`'s) that stays in `part` (not a list of
    /// them: about eight a node, on parts of millions).
    fn inside(&self, part: &[u32], nodes: &[u32], each: &mut dyn FnMut(u32, u32, u64));
    /// The SCCs holding a cycle among the nodes `keep` (sorted), searched from each in
    /// order; `None` when the search would take more than `room` bytes.
    fn sccs(&self, keep: &[u32], room: Option<u64>) -> Option<Vec<Vec<u32>>>;
}

/// The obligations enabled in system state `state`.
fn enabled(graph: &Graph, state: u32) -> FxHashSet<Obligation> {
    (0..graph.successors(state).len() as u32)
        .flat_map(|i| taken_by(graph, state, i))
        .collect()
}

/// The obligations held to strong fairness enabled in some of system states `states`
/// (a loop's: the parts are read as bits, see [`bits`]), sorted.
pub(crate) fn obligations_of(
    graph: &Graph,
    states: &[u32],
    selection: Option<&Selection>,
) -> Vec<Obligation> {
    let all: FxHashSet<Obligation> = states
        .iter()
        .flat_map(|&s| enabled(graph, s))
        .filter(|o| selected(selection, o))
        .collect();
    let mut all: Vec<Obligation> = all.into_iter().collect();
    all.sort();
    all
}

/// The parts of the accepting SCCs `sccs` that hold a strongly fair accepting cycle (for
/// the obligations selected, and weakly fair for every instance under a selection), sorted;
/// `None` when the parts' searches would take more than `room` bytes.
///
/// The parts are searched a generation at a time: the SCCs, then the SCCs of what each
/// keeps, and so on. The parts of a generation are independent, and are searched on
/// `threads` threads at once (a generation of one part, such as a single large SCC, reads
/// its nodes by pieces on the threads instead); which parts are fair does not depend on the
/// order. So that the verdict does not depend on the thread count either, each part of a
/// generation may take a share of `room` (less the generation's lists of nodes, 4 bytes a
/// node) in proportion to its nodes, whichever parts run beside it: its list of the nodes
/// it keeps (4 bytes a node) and its search (see `product::tarjan_within`).
pub(crate) fn fair_parts(
    product: &impl Product,
    graph: &Graph,
    sccs: Vec<Vec<u32>>,
    selection: Option<&Selection>,
    (room, threads): (Option<u64>, usize),
) -> Option<Vec<Vec<u32>>> {
    parts_by(product, graph, sccs, selection, (room, threads, PIECE))
}

/// [`fair_parts`], a part read by pieces of `piece` nodes.
fn parts_by(
    product: &impl Product,
    graph: &Graph,
    sccs: Vec<Vec<u32>>,
    selection: Option<&Selection>,
    (room, threads, piece): (Option<u64>, usize, usize),
) -> Option<Vec<Vec<u32>>> {
    let bits = Bits::new(graph, selection);
    let judge = Judge {
        product,
        graph,
        bits: &bits,
        weak: selection.is_some(),
        piece,
    };
    let mut work = sccs;
    let mut out = Vec::new();
    while !work.is_empty() {
        let total: u64 = work.iter().map(|part| part.len() as u64).sum();
        let room = match room {
            Some(room) => Some(room.checked_sub(4 * total)?),
            None => None,
        };
        let inner = if work.len() == 1 { threads } else { 1 };
        let each = |part: Vec<u32>| {
            let share = room.map(|room| (room as u128 * part.len() as u128 / total as u128) as u64);
            judge.part(part, (share, inner))
        };
        let judged = crate::lean::parallel::each(threads, std::mem::take(&mut work), each);
        for part in judged {
            match part? {
                Part::Fair(part) => out.push(part),
                Part::Unfair => {}
                Part::Split(parts) => work.extend(parts),
            }
        }
    }
    out.sort_unstable();
    Some(out)
}

/// What a part turns out to hold.
enum Part {
    /// A strongly fair accepting cycle: the part itself is one of [`fair_parts`].
    Fair(Vec<u32>),
    /// No fair accepting cycle, nor does any part of it.
    Unfair,
    /// The SCCs of the nodes it keeps, each to be judged in turn.
    Split(Vec<Vec<u32>>),
}

/// What a part's nodes enable and its edges take, read by pieces.
struct Scan {
    /// The obligations enabled in some state.
    some: Set,
    /// The obligations enabled in every state.
    every: Set,
    /// The obligations taken on an edge inside the part.
    taken: Set,
    /// The eventualities pending on every edge inside the part.
    pending: u64,
}

impl Scan {
    fn join(mut self, other: Scan) -> Scan {
        bits::or(&mut self.some, &other.some);
        bits::and(&mut self.every, &other.every);
        bits::or(&mut self.taken, &other.taken);
        self.pending &= other.pending;
        self
    }
}

/// The nodes of a part read as one piece of work by a thread.
const PIECE: usize = 1 << 14;

/// Judges parts against the obligations.
struct Judge<'a, P> {
    product: &'a P,
    graph: &'a Graph,
    bits: &'a Bits,
    /// Every instance is held to weak fairness (under a selection).
    weak: bool,
    /// The nodes of a piece ([`PIECE`]).
    piece: usize,
}

impl<P: Product> Judge<'_, P> {
    /// `each` of the pieces of `part`, on `threads` threads.
    fn by_pieces<R: Send>(
        &self,
        part: &[u32],
        threads: usize,
        each: impl Fn(&[u32]) -> R + Sync,
    ) -> Vec<R> {
        let piece = self.piece;
        crate::lean::parallel::run(threads, part.len().div_ceil(piece), |k| {
            each(&part[k * piece..((k + 1) * piece).min(part.len())])
        })
    }

    /// Emerson and Lei's step on `part`, reading it on `threads` threads, its search taking
    /// at most `room` bytes; `None` past them.
    fn part(&self, part: Vec<u32>, (room, threads): (Option<u64>, usize)) -> Option<Part> {
        let scans = self.by_pieces(&part, threads, |nodes| self.scan(&part, nodes));
        let scan = scans
            .into_iter()
            .reduce(Scan::join)
            .expect("a part has nodes");
        if scan.pending != 0 {
            return Some(Part::Unfair);
        }
        // The obligations held to strong fairness enabled in the part and never taken.
        let mut unmet = scan.some;
        bits::and(&mut unmet, &self.bits.selected);
        if bits::within(&unmet, &unmet, &scan.taken) {
            let weak = !self.weak || bits::within(&scan.every, &self.bits.instances, &scan.taken);
            return Some(if weak { Part::Fair(part) } else { Part::Unfair });
        }
        unmet
            .iter_mut()
            .zip(&scan.taken)
            .for_each(|(u, t)| *u &= !t);
        let keep = self.by_pieces(&part, threads, |nodes| self.keep(nodes, &unmet));
        let keep = keep.concat();
        drop(part);
        let room = match room {
            Some(room) => Some(room.checked_sub(4 * keep.len() as u64)?),
            None => None,
        };
        Some(Part::Split(self.product.sccs(&keep, room)?))
    }

    /// What `nodes`, some of `part`'s, enable, and what the edges out of them inside the
    /// part take.
    fn scan(&self, part: &[u32], nodes: &[u32]) -> Scan {
        let (bits, graph) = (self.bits, self.graph);
        let mut here = bits.none();
        let mut scan = Scan {
            some: bits.none(),
            every: bits.every(),
            taken: bits.none(),
            pending: u64::MAX,
        };
        for &n in nodes {
            bits.enabled(graph, self.product.state(n), &mut here);
            bits::or(&mut scan.some, &here);
            bits::and(&mut scan.every, &here);
        }
        let taken = &mut scan.taken;
        let pending = &mut scan.pending;
        self.product.inside(part, nodes, &mut |state, edge, p| {
            *pending &= p;
            bits.take(graph.successors(state).get(edge as usize), taken);
        });
        scan
    }

    /// The nodes of `nodes` whose state enables none of `unmet`.
    fn keep(&self, nodes: &[u32], unmet: &[u64]) -> Vec<u32> {
        let mut here = self.bits.none();
        let mut keep = Vec::new();
        for &n in nodes {
            self.bits
                .enabled(self.graph, self.product.state(n), &mut here);
            if bits::disjoint(&here, unmet) {
                keep.push(n);
            }
        }
        keep
    }
}

#[cfg(test)]
mod tests;
