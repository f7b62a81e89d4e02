//! Liveness on the product of the state space with a property monitor.
//!
//! A liveness property fails when some path reaches the monitor's *avoid* region (a response is
//! owed, or the awaited action has not happened) and then either stops there (a stuck state) or
//! cycles there forever, under weak or strong fairness when asked. Cycles are found with
//! Tarjan's SCCs on the avoid region; an SCC holds a weakly fair cycle exactly when every
//! component enabled in all its states moves on some edge inside it. Strong fairness is
//! decided the Emerson–Lei way (see [`crate::strong`]). The counterexample, a lasso, is built
//! by [`crate::lasso`].

mod peel;

use crate::graph::Graph;
use crate::strong::{self, bits::Bits};
use agentpi_semantics::Actor;
use rustc_hash::FxHashSet;

/// Which paths count for a liveness property.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Fairness<'a> {
    /// Every path.
    None,
    /// Weakly fair paths (`fair`): no instance enabled in every state from some point on
    /// without moving.
    Weak,
    /// Strongly fair paths (`strong fair`): no instance and no channel enabled infinitely
    /// often and taken only finitely often; with a selection (`strong fair(link)`), that of
    /// the instances and channels selected, and the others weakly fair.
    Strong(Option<&'a crate::strong::Selection>),
}

impl Fairness<'_> {
    /// Whether instances are held to weak fairness apart from strong fairness: under a
    /// selection (strong fairness of an instance implies its weak fairness).
    pub(crate) fn weak_goals(self) -> bool {
        matches!(self, Fairness::Weak | Fairness::Strong(Some(_)))
    }
}

/// A system transition: the `edge`-th transition of `state` in the graph.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Step {
    pub state: u32,
    pub edge: u32,
}

/// An edge of the product, as the searches see it (made on the fly: see [`Space`]).
#[derive(Clone, Copy, Debug)]
pub struct ProductEdge {
    pub to: u32,
    pub step: Step,
    /// The edge stays in the avoid region (it neither leaves nor discharges it).
    pub inside: bool,
    /// The eventualities of an LTL automaton still pending after this edge, one bit each
    /// (always 0 for the fixed shapes): a cycle is accepting when, for every bit, some edge on
    /// it has the bit clear.
    pub pending: u64,
}

/// What the searches read of a product: its nodes, numbered breadth-first from node 0, and
/// each node's edges by position. A stored [`Product`] is one, a [`crate::lean::Lean`]
/// product (its edges found again) another; the state space read as its
/// own product (`always eventually`) a third, so that it is never copied.
pub trait Space {
    fn nodes(&self) -> usize;
    /// The system state of node `n`.
    fn state(&self, n: u32) -> u32;
    /// Node `n` lies in the region to avoid.
    fn avoid(&self, n: u32) -> bool;
    /// A path that stops at node `n` (its state has no transitions) violates the property.
    fn stutter(&self, n: u32) -> bool;
    /// Every continuation from node `n` violates the property: reaching it is enough.
    fn universal(&self, n: u32) -> bool;
    /// Node `n` may lie on an accepting cycle: a product may know that some nodes lie on
    /// none (see `crate::lean::cycles`), and the cycle search leaves them out.
    fn on_cycles(&self, _n: u32) -> bool {
        true
    }
    /// The eventualities that may be pending on an inside edge between nodes that may
    /// cycle, one bit each: the trimming before the cycle search keeps, for each, only what
    /// an edge clearing it reaches (see [`peel`]); none for the fixed shapes.
    fn cycle_bits(&self) -> u64;
    fn degree(&self, n: u32) -> usize;
    /// The `i`-th edge out of node `n`.
    fn edge(&self, n: u32, i: usize) -> ProductEdge;
    /// The steps of the path by which node `n` was first reached.
    fn stem(&self, n: u32) -> Vec<Step>;

    /// The first node that `hit` accepts in the breadth-first order the product was built
    /// in, with [`Space::stem`]'s steps to it; a search for it may take `room` bytes. Nodes
    /// numbered in that order are read by number.
    fn first_reached(&self, hit: &dyn Fn(u32) -> bool, _room: Option<u64>) -> Reached {
        let found = (0..self.nodes() as u32).find(|&n| hit(n));
        Ok(found.map(|n| (n, self.stem(n))))
    }

    fn edges(&self, n: u32) -> impl Iterator<Item = ProductEdge> + '_ {
        (0..self.degree(n)).map(move |i| self.edge(n, i))
    }

    /// Calls `each` with the target and the pending bits of each inside edge out of node `n`,
    /// in order.
    fn each_inside(&self, n: u32, each: &mut impl FnMut(u32, u64)) {
        for e in self.edges(n).filter(|e| e.inside) {
            each(e.to, e.pending);
        }
    }

    /// The first inside edge out of node `n`, at position `from` or later, into a node that
    /// `keep` keeps: its position and its target. A position is the edge's index, unless a
    /// product numbers them otherwise (in the order of the edges, from 0, one past position
    /// `i` being `i + 1`).
    fn next_inside(&self, n: u32, from: usize, keep: &dyn Fn(u32) -> bool) -> Option<(usize, u32)> {
        (from..self.degree(n)).find_map(|i| {
            let e = self.edge(n, i);
            (e.inside && keep(e.to)).then_some((i, e.to))
        })
    }
}

const AVOID: u8 = 1;
const STUTTER: u8 = 2;
const UNIVERSAL: u8 = 4;
/// The bit of [`Stored::edge`] that says the edge stays inside the avoid region.
const INSIDE: u32 = 1 << 31;
const NO_PARENT: usize = usize::MAX;

/// A stored edge: the target node and the index of the system transition, its top bit set when
/// the edge stays inside (8 bytes: the source's state is the node's own).
#[derive(Clone, Copy, Debug)]
struct Stored {
    to: u32,
    edge: u32,
}

/// A product graph, built breadth-first from node 0; each node's edges are stored
/// contiguously, as it is expanded (see [`Product::start`]).
#[derive(Default)]
pub struct Product {
    /// The system state of each node.
    state: Vec<u32>,
    /// [`AVOID`], [`STUTTER`], [`UNIVERSAL`].
    flags: Vec<u8>,
    /// `edges[offsets[n]..offsets[n + 1]]` are node `n`'s edges (to the end for the last
    /// node started).
    offsets: Vec<usize>,
    edges: Vec<Stored>,
    /// The pending bits of each edge, by position in `edges`; shorter (often empty) when the
    /// rest are 0.
    pending: Vec<u64>,
    /// The position in `edges` of the edge each node was first reached by.
    parent: Vec<usize>,
}

impl Product {
    /// Room for `nodes` more nodes.
    pub fn reserve(&mut self, nodes: usize) {
        self.state.reserve(nodes);
        self.flags.reserve(nodes);
        self.offsets.reserve(nodes);
        self.parent.reserve(nodes);
    }

    /// A new node, first reached by the next edge out of `parent` (the node being expanded).
    pub fn add_node(&mut self, state: u32, avoid: bool, parent: Option<u32>) -> u32 {
        self.state.push(state);
        let flags = if avoid { AVOID | STUTTER } else { 0 };
        self.flags.push(flags);
        self.parent
            .push(parent.map_or(NO_PARENT, |_| self.edges.len()));
        self.state.len() as u32 - 1
    }

    /// Node `n`'s edges follow: nodes are expanded in order, each once.
    pub fn start(&mut self, n: u32) {
        debug_assert_eq!(self.offsets.len(), n as usize);
        self.offsets.push(self.edges.len());
    }

    /// An edge out of the node last started.
    pub fn push_edge(&mut self, to: u32, edge: u32, inside: bool, pending: u64) {
        if pending != 0 {
            self.pending.resize(self.edges.len(), 0);
            self.pending.push(pending);
        }
        let inside = if inside { INSIDE } else { 0 };
        self.edges.push(Stored {
            to,
            edge: edge | inside,
        });
    }

    /// The bytes held (as filled, not as reserved).
    pub fn bytes(&self) -> u64 {
        let nodes = (4 + 1 + 8 + 8) * self.state.len();
        let edges = 8 * self.edges.len() + 8 * self.pending.len();
        (nodes + edges) as u64
    }

    pub fn node_count(&self) -> usize {
        self.state.len()
    }

    pub fn set_stutter(&mut self, n: u32, on: bool) {
        self.set(n, STUTTER, on);
    }

    pub fn set_universal(&mut self, n: u32, on: bool) {
        self.set(n, UNIVERSAL, on);
    }

    fn set(&mut self, n: u32, bit: u8, on: bool) {
        let f = &mut self.flags[n as usize];
        *f = if on { *f | bit } else { *f & !bit };
    }

    fn range(&self, n: u32) -> std::ops::Range<usize> {
        let n = n as usize;
        let Some(&from) = self.offsets.get(n) else {
            return 0..0;
        };
        from..self.offsets.get(n + 1).copied().unwrap_or(self.edges.len())
    }

    /// The node whose edges hold position `at`.
    fn source(&self, at: usize) -> u32 {
        (self.offsets.partition_point(|&o| o <= at) - 1) as u32
    }

    /// The edge at position `at`, out of node `source`.
    fn stored(&self, source: u32, at: usize) -> ProductEdge {
        let e = self.edges[at];
        ProductEdge {
            to: e.to,
            step: Step {
                state: self.state[source as usize],
                edge: e.edge & !INSIDE,
            },
            inside: e.edge & INSIDE != 0,
            pending: self.pending.get(at).copied().unwrap_or(0),
        }
    }
}

impl Space for Product {
    fn nodes(&self) -> usize {
        self.state.len()
    }

    fn state(&self, n: u32) -> u32 {
        self.state[n as usize]
    }

    fn avoid(&self, n: u32) -> bool {
        self.flags[n as usize] & AVOID != 0
    }

    fn stutter(&self, n: u32) -> bool {
        self.flags[n as usize] & STUTTER != 0
    }

    fn universal(&self, n: u32) -> bool {
        self.flags[n as usize] & UNIVERSAL != 0
    }

    fn cycle_bits(&self) -> u64 {
        self.pending.iter().fold(0, |all, p| all | p)
    }

    fn degree(&self, n: u32) -> usize {
        self.range(n).len()
    }

    fn edge(&self, n: u32, i: usize) -> ProductEdge {
        self.stored(n, self.range(n).start + i)
    }

    fn stem(&self, mut node: u32) -> Vec<Step> {
        let mut steps = Vec::new();
        while self.parent[node as usize] != NO_PARENT {
            let at = self.parent[node as usize];
            node = self.source(at);
            steps.push(self.stored(node, at).step);
        }
        steps.reverse();
        steps
    }
}

/// The state space read as a product with a monitor that never moves: node `n` is state `n`,
/// every node lies in the avoid region, and an edge stays inside unless its label is in
/// `leaves` (by label index). Nothing is copied: the edges are the graph's.
pub struct GraphSpace<'a> {
    pub sem: &'a agentpi_semantics::Semantics<'a>,
    pub graph: &'a Graph,
    pub leaves: Vec<bool>,
}

impl Space for GraphSpace<'_> {
    fn nodes(&self) -> usize {
        self.graph.state_count()
    }

    fn state(&self, n: u32) -> u32 {
        n
    }

    fn avoid(&self, _: u32) -> bool {
        true
    }

    fn stutter(&self, _: u32) -> bool {
        true
    }

    fn universal(&self, _: u32) -> bool {
        false
    }

    fn cycle_bits(&self) -> u64 {
        0
    }

    fn degree(&self, n: u32) -> usize {
        self.graph.successors(n).len()
    }

    fn edge(&self, n: u32, i: usize) -> ProductEdge {
        let e = self.graph.successors(n).get(i);
        ProductEdge {
            to: e.target,
            step: Step {
                state: n,
                edge: i as u32,
            },
            inside: !self.leaves[e.label as usize],
            pending: 0,
        }
    }

    fn stem(&self, n: u32) -> Vec<Step> {
        let path = self.graph.path_to(self.sem, n);
        path.into_iter()
            .map(|(state, edge)| Step { state, edge })
            .collect()
    }
}

/// A liveness counterexample: `steps[loop_start..]` repeats forever; no loop means the path
/// ends in a stuck state.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Lasso {
    pub steps: Vec<Step>,
    pub loop_start: Option<usize>,
}

/// The product, or its search, would take more memory than `--max-memory` leaves.
#[derive(Debug)]
pub struct OverMemory;

/// How many nodes a product adds between two looks at its memory.
pub(crate) const LOOK: u32 = 4096;

/// What [`Space::first_reached`] finds: a node with the steps to it, or none, unless its
/// search ran out of memory.
pub type Reached = Result<Option<(u32, Vec<Step>)>, OverMemory>;

/// The product as [`crate::strong`] sees it.
impl<P: Space + Sync> crate::strong::Product for P {
    fn state(&self, n: u32) -> u32 {
        Space::state(self, n)
    }

    fn inside(&self, part: &[u32], nodes: &[u32], each: &mut dyn FnMut(u32, u32, u64)) {
        for e in internal_from(self, part, nodes) {
            each(e.step.state, e.step.edge, e.pending);
        }
    }

    fn sccs(&self, keep: &[u32], room: Option<u64>) -> Option<Vec<Vec<u32>>> {
        tarjan_within(self, keep, room).ok()
    }
}

/// The accepting SCCs (or parts of them, under strong fairness) that hold a fair cycle; the
/// search for them may take `room` bytes beyond its one number a node (see [`tarjan_within`]).
/// Each component's edges are read on `threads` threads to tell whether it is accepting and
/// weakly fair.
pub(crate) fn bad_sccs(
    product: &(impl Space + Sync),
    graph: &Graph,
    fair: Fairness,
    room: Option<u64>,
    threads: usize,
) -> Result<Vec<Vec<u32>>, OverMemory> {
    let mut sccs = accepting_sccs(product, room, threads)?;
    Ok(match fair {
        Fairness::None => sccs,
        Fairness::Weak => {
            let bits = Bits::new(graph, None);
            sccs.retain(|scc| weakly_fair(product, (graph, &bits), scc, threads));
            sccs
        }
        Fairness::Strong(selection) => {
            // The components' lists are held while their parts are searched.
            let held: u64 = sccs.iter().map(|scc| 4 * scc.len() as u64 + 24).sum();
            let room = room.map(|room| room.saturating_sub(held));
            let parts = crate::strong::fair_parts(product, graph, sccs, selection, (room, threads));
            parts.ok_or(OverMemory)?
        }
    })
}

/// The SCCs of the avoid region with a cycle that clears every pending bit somewhere (a
/// cycle through all of an SCC's edges does).
pub fn accepting_sccs(
    product: &(impl Space + Sync),
    room: Option<u64>,
    threads: usize,
) -> Result<Vec<Vec<u32>>, OverMemory> {
    let mut sccs = tarjan(product, room, threads)?;
    sccs.retain(|scc| pending_on_all(product, scc, threads) == 0);
    Ok(sccs)
}

/// Inside edges of `scc` (sorted: membership is a binary search, no set of its nodes) that
/// stay in it.
#[cfg(test)]
fn internal<'a, P: Space>(
    product: &'a P,
    scc: &'a [u32],
) -> impl Iterator<Item = ProductEdge> + 'a {
    internal_from(product, scc, scc)
}

/// The edges of [`internal`] out of `nodes`, some of `scc`'s.
fn internal_from<'a, P: Space>(
    product: &'a P,
    scc: &'a [u32],
    nodes: &'a [u32],
) -> impl Iterator<Item = ProductEdge> + 'a {
    nodes.iter().flat_map(move |&n| {
        product
            .edges(n)
            .filter(|e| e.inside && scc.binary_search(&e.to).is_ok())
    })
}

/// The nodes of a component read as one piece of work by a thread.
const PIECE: usize = 1 << 14;

/// `each` of the pieces of `scc`, on `threads` threads (one for a small component).
fn by_pieces<R: Send>(scc: &[u32], threads: usize, each: impl Fn(&[u32]) -> R + Sync) -> Vec<R> {
    let pieces = scc.len().div_ceil(PIECE);
    crate::lean::parallel::run(threads, pieces, |k| {
        each(&scc[k * PIECE..((k + 1) * PIECE).min(scc.len())])
    })
}

/// The bits pending on every edge of `scc`, its pieces read on `threads` threads (each
/// stops at 0: no bit can be pending on all the edges then).
fn pending_on_all(product: &(impl Space + Sync), scc: &[u32], threads: usize) -> u64 {
    let fold = |nodes: &[u32]| {
        let mut all = u64::MAX;
        for e in internal_from(product, scc, nodes) {
            all &= e.pending;
            if all == 0 {
                break;
            }
        }
        all
    };
    let pieces = by_pieces(scc, threads, fold).into_iter();
    pieces.fold(u64::MAX, |all, a| all & a)
}

#[cfg(test)]
fn always_pending(product: &impl Space, scc: &[u32]) -> u64 {
    internal(product, scc).fold(u64::MAX, |all, e| all & e.pending)
}

/// Strongly connected components of the avoid region (inside edges only) that hold a cycle,
/// the nodes no cycle reaches taken off first on `threads` threads (see [`peel`]).
fn tarjan(
    product: &(impl Space + Sync),
    room: Option<u64>,
    threads: usize,
) -> Result<Vec<Vec<u32>>, OverMemory> {
    let dense = Dense::new(product, threads);
    let bytes = dense.bytes();
    if room.is_some_and(|room| bytes > room) {
        return Err(OverMemory);
    }
    let numbers = peel::peel(product, &dense, threads);
    let rindex = Numbered { dense, numbers };
    // The roots one by one: a list of them would be four more bytes a node. The search
    // reads a node's number first: the nodes taken off are not asked their flags.
    search(product, 0..product.nodes() as u32, (room, bytes), rindex)
}

/// Marks a node of [`tarjan_within`] whose component is found.
const DONE: u32 = u32::MAX;

/// The search path of [`tarjan_within`]: its nodes (4 bytes each) and, a bit each, whether
/// each is still a root. Where a node's walk over its edges had got to is not kept: see
/// [`tarjan_within`].
#[derive(Default)]
struct Path {
    nodes: Vec<u32>,
    roots: Vec<u64>,
}

impl Path {
    fn len(&self) -> usize {
        self.nodes.len()
    }

    fn top(&self) -> Option<u32> {
        self.nodes.last().copied()
    }

    /// Goes on to `n`, a root until it reaches lower.
    fn push(&mut self, n: u32) {
        let d = self.nodes.len();
        self.nodes.push(n);
        if d / 64 == self.roots.len() {
            self.roots.push(0);
        }
        self.roots[d / 64] |= 1 << (d % 64);
    }

    /// The top node is not a root.
    fn not_root(&mut self) {
        let d = self.nodes.len() - 1;
        self.roots[d / 64] &= !(1 << (d % 64));
    }

    /// Takes the top node off, with whether it is a root.
    fn pop(&mut self) -> Option<(u32, bool)> {
        let n = self.nodes.pop()?;
        let d = self.nodes.len();
        Some((n, self.roots[d / 64] & (1 << (d % 64)) != 0))
    }
}

/// A number from 0 for each node that may lie on a cycle ([`Space::on_cycles`]): the cycle
/// search keeps its numbers for those only. Under `ltl` and `leads to` about half the
/// product's nodes cannot cycle (see `crate::lean::cycles`): the numbers take 4 bytes of
/// each of the others, and a bit and half a bit of each node for the index, instead of 4
/// bytes of every node.
enum Dense {
    /// Every node: node `n` is number `n`.
    All(usize),
    /// The nodes whose bit is set, numbered in order: a node's number is the count of the
    /// bits set before its own, that of its word's from `before`.
    Some {
        bits: Vec<u64>,
        before: Vec<u32>,
        count: usize,
    },
    /// The nodes of a list (sorted), numbered by their place in it: for a part of a
    /// component too small for a bit of every node to be worth it.
    Sorted(Vec<u32>),
}

impl Dense {
    /// The nodes of `product` that may cycle, asked by pieces on `threads` threads.
    fn new(product: &(impl Space + Sync), threads: usize) -> Self {
        let nodes = product.nodes();
        let word = |w: usize| {
            let bits = (w * 64..(w * 64 + 64).min(nodes)).map(|n| n as u32);
            let on = bits.filter(|&n| product.on_cycles(n));
            on.fold(0u64, |word, n| word | 1 << (n % 64))
        };
        let pieces = nodes.div_ceil(PIECE);
        let words = PIECE / 64;
        let bits = crate::lean::parallel::run(threads, pieces, |k| {
            let end = ((k + 1) * words).min(nodes.div_ceil(64));
            (k * words..end).map(word).collect::<Vec<u64>>()
        });
        Dense::of_bits(bits.concat(), nodes)
    }

    /// The nodes `list` (sorted) of a product of `nodes` nodes, numbered in order: by a bit
    /// of each node with a count every 64 (12 bytes for 64 nodes), or, when a copy of the
    /// list takes less, by a binary search in that copy.
    fn listed(nodes: usize, list: &[u32]) -> Self {
        if 4 * list.len() < 12 * nodes.div_ceil(64) {
            return Dense::Sorted(list.to_vec());
        }
        let mut bits = vec![0u64; nodes.div_ceil(64)];
        for &n in list {
            bits[n as usize / 64] |= 1 << (n % 64);
        }
        Dense::of_bits(bits, nodes)
    }

    /// The nodes whose bit is set, of `nodes`.
    fn of_bits(bits: Vec<u64>, nodes: usize) -> Self {
        let mut count = 0;
        let before = (bits.iter())
            .map(|w| (count, count += w.count_ones()).0)
            .collect();
        match count as usize == nodes {
            true => Dense::All(nodes),
            false => Dense::Some {
                bits,
                before,
                count: count as usize,
            },
        }
    }

    /// The numbers a search keeps.
    fn len(&self) -> usize {
        match self {
            Dense::All(nodes) => *nodes,
            Dense::Some { count, .. } => *count,
            Dense::Sorted(list) => list.len(),
        }
    }

    /// Whether node `n` may cycle.
    fn holds(&self, n: u32) -> bool {
        match self {
            Dense::All(nodes) => (n as usize) < *nodes,
            Dense::Some { bits, .. } => bits[n as usize / 64] & (1 << (n % 64)) != 0,
            Dense::Sorted(list) => list.binary_search(&n).is_ok(),
        }
    }

    /// The number of node `n`, one that may cycle.
    fn of(&self, n: u32) -> usize {
        match self {
            Dense::All(_) => n as usize,
            Dense::Some { bits, before, .. } => {
                let (word, bit) = (n as usize / 64, n % 64);
                debug_assert!(bits[word] & (1 << bit) != 0, "node {n} may cycle");
                let below = bits[word] & ((1u64 << bit) - 1);
                before[word] as usize + below.count_ones() as usize
            }
            Dense::Sorted(list) => list.binary_search(&n).expect("a node of the list"),
        }
    }

    /// The bytes held, with 4 bytes a number.
    fn bytes(&self) -> u64 {
        let index = match self {
            Dense::All(_) => 0,
            Dense::Some { bits, before, .. } => 8 * bits.len() + 4 * before.len(),
            Dense::Sorted(list) => 4 * list.len(),
        };
        (index + 4 * self.len()) as u64
    }
}

/// Tarjan's numbers (see [`tarjan_within`]), read and written by node.
struct Numbered {
    dense: Dense,
    numbers: Vec<u32>,
}

impl Numbered {
    fn new(dense: Dense) -> Self {
        let numbers = vec![0; dense.len()];
        Numbered { dense, numbers }
    }
}

impl std::ops::Index<usize> for Numbered {
    type Output = u32;

    fn index(&self, n: usize) -> &u32 {
        &self.numbers[self.dense.of(n as u32)]
    }
}

impl std::ops::IndexMut<usize> for Numbered {
    fn index_mut(&mut self, n: usize) -> &mut u32 {
        &mut self.numbers[self.dense.of(n as u32)]
    }
}

/// Strongly connected components, holding a cycle, of the graph of inside edges between
/// the nodes `part` (sorted; a part of a component, under strong fairness), searched from
/// each in order.
///
/// Tarjan's search in Pearce's form ("A space-efficient algorithm for finding strongly
/// connected components", 2016): one number a node of `part` (4 bytes, by its
/// [`Dense`] number: its rank in `part`, a bit of every node and 4 bytes of every 64
/// to find it; before 2026-12-07, the numbers were those of every node that may cycle,
/// found by asking each node of the product, for each part searched), 0 until it is
/// visited, then
/// its visit index lowered to the smallest one it reaches on the stack (index and low link
/// in one), [`DONE`] once its component is out; whether a node on the search path is a root
/// is a bit of its frame.
///
/// A frame is its node: back from a child, its parent's walk over its edges goes on after
/// its first inside edge into the child, which is the one it went by (an earlier one would
/// have gone there first), found again (keeping where it was instead, 2 bytes a frame, was
/// tried and saved only 2 % of the walk's instructions on philosophers, 579 M to 567 M: the
/// child's edge is most often the first one left; not kept). Beyond the numbers (with their index), the search takes 4 bytes a node on its
/// path, 4 a node waiting for its component and 4 a node of a component found: on a long
/// path as many as the nodes. Past `room` bytes of all that it
/// stops with [`OverMemory`].
fn tarjan_within(
    product: &impl Space,
    part: &[u32],
    room: Option<u64>,
) -> Result<Vec<Vec<u32>>, OverMemory> {
    let dense = Dense::listed(product.nodes(), part);
    let numbers = dense.bytes();
    if room.is_some_and(|room| numbers > room) {
        return Err(OverMemory);
    }
    search(
        product,
        part.iter().copied(),
        (room, numbers),
        Numbered::new(dense),
    )
}

/// [`tarjan_within`]'s search over the nodes numbered in `rindex`, with its numbers
/// (`numbers` bytes of them): 0 for a node not visited yet, [`DONE`] for one known to lie in
/// no component. It starts from each of `roots` in order that is numbered, not visited yet
/// and in the avoid region.
fn search(
    product: &impl Space,
    roots: impl IntoIterator<Item = u32>,
    (room, numbers): (Option<u64>, u64),
    mut rindex: Numbered,
) -> Result<Vec<Vec<u32>>, OverMemory> {
    let (mut stack, mut out): (Vec<u32>, Vec<Vec<u32>>) = (Vec::new(), Vec::new());
    let mut found = 0u64;
    let over = |path: usize, waiting: usize, found: u64| {
        let search = 4 * (path + waiting) as u64 + path as u64 / 8 + found;
        room.is_some_and(|room| numbers + search > room)
    };
    let mut counter = 1u32;
    let mut path = Path::default();
    for root in roots {
        let (held, r) = (rindex.dense.holds(root), root as usize);
        if !held || rindex[r] != 0 || !product.avoid(root) {
            continue;
        }
        rindex[root as usize] = counter;
        counter += 1;
        path.push(root);
        // Where the top node's walk over its edges goes on, and the top node's place in
        // the numbers (found once, not at each of its edges).
        let (mut from, mut top) = (0, rindex.dense.of(root));
        while let Some(v) = path.top() {
            let next = product.next_inside(v, from, &|n| rindex.dense.holds(n));
            if let Some((i, w)) = next {
                from = i + 1;
                let at = rindex.dense.of(w);
                let number = rindex.numbers[at];
                if number == 0 {
                    rindex.numbers[at] = counter;
                    counter += 1;
                    path.push(w);
                    (from, top) = (0, at);
                    if over(path.len(), stack.len(), found) {
                        return Err(OverMemory);
                    }
                } else if number < rindex.numbers[top] {
                    rindex.numbers[top] = number;
                    path.not_root();
                }
                continue;
            }
            let (_, is_root) = path.pop().expect("the top node");
            if let Some(parent) = path.top() {
                let up = rindex.dense.of(parent);
                if rindex.numbers[top] < rindex.numbers[up] {
                    rindex.numbers[up] = rindex.numbers[top];
                    path.not_root();
                }
                top = up;
                let by = product.next_inside(parent, 0, &|n| n == v);
                from = by.expect("the edge into a child").0 + 1;
            }
            if !is_root {
                stack.push(v);
                if over(path.len(), stack.len(), found) {
                    return Err(OverMemory);
                }
                continue;
            }
            let mut scc = component(&mut stack, &mut rindex, v);
            if scc.len() > 1 || product.edges(v).any(|e| e.inside && e.to == v) {
                scc.sort_unstable();
                found += 4 * scc.len() as u64 + std::mem::size_of::<Vec<u32>>() as u64;
                if over(path.len(), stack.len(), found) {
                    return Err(OverMemory);
                }
                out.push(scc);
            }
        }
    }
    Ok(out)
}

/// Takes the component of root `v` off `stack`: `v` and the nodes above the last one that
/// reaches lower, marked [`DONE`]. When that is the whole stack, as for a component of most
/// of the product, the stack itself becomes the component's list, not copied.
fn component(stack: &mut Vec<u32>, rindex: &mut Numbered, v: u32) -> Vec<u32> {
    let low = |w: &u32| rindex[*w as usize] < rindex[v as usize];
    let at = stack.iter().rposition(low).map_or(0, |i| i + 1);
    let mut scc = match at {
        0 => std::mem::take(stack),
        _ => stack.split_off(at),
    };
    scc.push(v);
    for &w in &scc {
        rindex[w as usize] = DONE;
    }
    scc
}

/// The instances enabled in system state `state`.
pub(crate) fn enabled(graph: &Graph, state: u32) -> FxHashSet<Actor> {
    graph
        .successors(state)
        .iter()
        .flat_map(|e| graph.actor_sets[e.actors as usize].iter().copied())
        .collect()
}

/// Whether no instance is enabled in every state of `scc` without moving inside it (one
/// that is makes every cycle of the SCC unfair). The instances are bits (`bits`: two array
/// reads an edge; before 2026-12-07, a hash set made for each node). The pieces of a large
/// component are read on `threads` threads; when no instance is enabled in all its states
/// (most often), its edges are not read.
fn weakly_fair(
    product: &(impl Space + Sync),
    (graph, bits): (&Graph, &Bits),
    scc: &[u32],
    threads: usize,
) -> bool {
    let pieces = by_pieces(scc, threads, |nodes| {
        always_enabled(product, graph, bits, nodes)
    });
    let always = (pieces.into_iter()).fold(bits.instances.clone(), |mut a, b| {
        strong::bits::and(&mut a, &b);
        a
    });
    if always.iter().all(|&w| w == 0) {
        return true;
    }
    let taken = by_pieces(scc, threads, |nodes| {
        taken_from(product, graph, bits, scc, nodes)
    });
    let taken = (taken.into_iter()).fold(bits.none(), |mut a, b| {
        strong::bits::or(&mut a, &b);
        a
    });
    strong::bits::within(&always, &always, &taken)
}

/// The instances enabled in every state of `nodes` (it stops once there is none).
fn always_enabled(
    product: &impl Space,
    graph: &Graph,
    bits: &Bits,
    nodes: &[u32],
) -> strong::bits::Set {
    let mut always = bits.instances.clone();
    let mut here = bits.none();
    for &n in nodes {
        bits.enabled(graph, product.state(n), &mut here);
        strong::bits::and(&mut always, &here);
        if always.iter().all(|&w| w == 0) {
            break;
        }
    }
    always
}

/// The obligations taken on an edge out of `nodes` (some of `scc`'s) inside `scc`.
fn taken_from(
    product: &impl Space,
    graph: &Graph,
    bits: &Bits,
    scc: &[u32],
    nodes: &[u32],
) -> strong::bits::Set {
    let mut taken = bits.none();
    for e in internal_from(product, scc, nodes) {
        bits.take(
            graph.successors(e.step.state).get(e.step.edge as usize),
            &mut taken,
        );
    }
    taken
}
