//! A product of the state space with a monitor (or automaton) that keeps its nodes and not
//! its edges: each edge is found again from the graph's stored edge and the monitor's moves on
//! that edge's *kind* (its label, actors and renaming: see [`crate::edges`]), learnt once.
//!
//! A node is a pair (system state, monitor state). Its number says its state: the first
//! node of state `s` reached is node `s`, the second `S + s` (`S` states), the others in
//! further layers of a number a state or in a small table ([`nodes`]). So a node costs the
//! number of its monitor state among those met (1 byte while they are at most 255); its flags
//! are its monitor state's in its state's valuation, kept once for each pair. A number not
//! taken by a node is a hole: no edge goes there, and it lies in no region. An edge costs
//! nothing beyond the graph's.
//!
//! The product is built breadth first, each node's edges in the order of the state's edges
//! and, on each, of the monitor's moves: those of the stored [`crate::product::Product`].
//! The searches that choose a counterexample's start read the nodes in that breadth-first
//! order ([`Space::first_reached`]), not by number, so the lassos printed are the same.

mod build;
mod cycles;
mod nodes;
pub(crate) mod parallel;

use crate::graph::Graph;
use crate::product::{LOOK, OverMemory, ProductEdge, Reached, Space, Step};
use nodes::{Key, Nodes};
use rustc_hash::FxHashMap;

/// A move of the monitor on a step: its state after, whether the product edge stays in the
/// avoid region, and the eventualities it leaves pending (see [`ProductEdge`]).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Move {
    pub(crate) to: u32,
    pub(crate) inside: bool,
    pub(crate) pending: u64,
}

const AVOID: u8 = 1;
const STUTTER: u8 = 2;
const UNIVERSAL: u8 = 4;
/// No node (yet).
const NONE: u32 = u32::MAX;
/// The bits of a position of [`Space::next_inside`] that number the move on its edge.
const MOVE_BITS: u32 = usize::BITS / 2;

/// What the product asks of its monitor.
pub(crate) trait Monitor {
    /// The moves from monitor state `q` on the `j`-th edge of state `s` (for every edge of the
    /// same kind from a state of the same valuation).
    fn moves(&mut self, q: u32, s_j: (u32, usize), valuation: u64) -> Vec<Move>;
    /// Whether a node with monitor state `q`, in a state of this valuation, lies in the avoid
    /// region, is one where stopping violates, and one where every continuation does.
    fn flags(&mut self, q: u32, valuation: u64) -> [bool; 3];
}

/// A monitor state (by its number in [`Lean::monitor`]) on a kind of step, in a state with a
/// valuation of the formula's state predicates (0 when it has none).
type Cell = (u32, u32, u64);

/// The product's nodes, with the monitor's moves learnt so far.
pub(crate) struct Lean<'g> {
    graph: &'g Graph,
    /// The number of states, `S`.
    states: u32,
    /// The valuation of each state (empty: all 0).
    valuations: Vec<u64>,
    /// The monitor states met, by number (a node keeps the number).
    monitor: Vec<u32>,
    numbers: FxHashMap<u32, u32>,
    /// The flags of each monitor state (by number) in a state of each valuation met.
    marks: FxHashMap<(u32, u64), u8>,
    /// The nodes, numbered by their state.
    nodes: Nodes,
    /// The moves of each cell, as a range of `moves`, each to a monitor state by number.
    cells: FxHashMap<Cell, (u32, u32)>,
    moves: Vec<Move>,
    /// The nodes of the last level reached, not expanded yet, in the order they were reached.
    frontier: Vec<u32>,
    /// Whether each monitor state (by number) may lie on an accepting cycle, once the
    /// product is built (see [`cycles`]).
    accepting: Vec<bool>,
    /// The bits some inside move between two such states leaves pending.
    cycle_bits: u64,
    /// The moves of each cell by its monitor state and kind, `table[c * kinds + kind]`, once
    /// the product is built, when its formula reads no state predicate and the table is
    /// small (a byte a state at most): for each edge the searches walk, a read of an array
    /// rather than a look-up in `cells` (half the cycle search's walk on philosophers).
    table: Vec<(u32, u32)>,
    kinds: usize,
}

impl<'g> Lean<'g> {
    /// A product whose node 0 is state 0 with monitor state `root`.
    pub(crate) fn new(graph: &'g Graph, valuations: Vec<u64>, root: u32) -> Self {
        let states = graph.state_count();
        let mut lean = Lean {
            graph,
            states: states as u32,
            valuations,
            monitor: Vec::new(),
            numbers: FxHashMap::default(),
            marks: FxHashMap::default(),
            nodes: Nodes::new(states as u32),
            cells: FxHashMap::default(),
            moves: Vec::new(),
            frontier: Vec::new(),
            accepting: Vec::new(),
            cycle_bits: 0,
            table: Vec::new(),
            kinds: 0,
        };
        let root = lean.number(root);
        let (node, _) = lean
            .nodes
            .insert((0, root))
            .expect("a number for the first node");
        lean.frontier.push(node);
        lean
    }

    /// The number of monitor state `q`.
    fn number(&mut self, q: u32) -> u32 {
        *self.numbers.entry(q).or_insert_with(|| {
            self.monitor.push(q);
            self.monitor.len() as u32 - 1
        })
    }

    /// Node `n`'s (state, monitor state number), `None` for a hole.
    fn key_of(&self, n: u32) -> Option<Key> {
        self.nodes.key_of(n)
    }

    fn key(&self, n: u32) -> (u32, u32) {
        self.key_of(n).expect("a node")
    }

    fn flags(&self, n: u32) -> u8 {
        let Some((s, c)) = self.key_of(n) else {
            return 0;
        };
        let flags = self.marks.get(&(c, self.valuation(s)));
        flags.copied().unwrap_or(0)
    }

    fn valuation(&self, s: u32) -> u64 {
        self.valuations.get(s as usize).copied().unwrap_or(0)
    }

    fn find(&self, key: Key) -> Option<u32> {
        self.nodes.find(key)
    }

    /// Learns node `n`'s flags from `monitor`, unless its monitor state's in its state's
    /// valuation are known.
    pub(crate) fn mark_with(&mut self, monitor: &mut impl Monitor, n: u32) {
        let (s, c) = self.key(n);
        self.mark(monitor, c, self.valuation(s));
    }

    /// Learns the flags of monitor state `c` (by number) in a state of this valuation.
    fn mark(&mut self, monitor: &mut impl Monitor, c: u32, valuation: u64) {
        if self.marks.contains_key(&(c, valuation)) {
            return;
        }
        let flags = monitor.flags(self.monitor[c as usize], valuation);
        let [avoid, stutter, universal] = flags;
        let bit = |on, b| if on { b } else { 0 };
        let flags = bit(avoid, AVOID) | bit(stutter, STUTTER) | bit(universal, UNIVERSAL);
        self.marks.insert((c, valuation), flags);
    }

    /// The bytes held: the nodes (see [`Nodes::bytes`]), the nodes of the level to expand,
    /// the monitor states and flags met, and the moves learnt.
    pub(crate) fn bytes(&self) -> u64 {
        let met = 16 * self.monitor.len() + 24 * self.marks.len() + 4 * self.frontier.len();
        let moves = 16 * self.moves.len() + 32 * self.cells.len() + 8 * self.valuations.len();
        let moves = moves + 8 * self.table.len();
        self.nodes.bytes() + (met + moves) as u64
    }

    /// Learns which monitor states may lie on an accepting cycle, from the moves learnt.
    fn find_accepting(&mut self) {
        let mut moves: Vec<(u32, u32, u64)> = (self.cells.iter())
            .flat_map(|(&(c, _, _), &(from, len))| {
                let learnt = &self.moves[from as usize..(from + len) as usize];
                learnt
                    .iter()
                    .filter(|m| m.inside)
                    .map(move |m| (c, m.to, m.pending))
            })
            .collect();
        moves.sort_unstable();
        moves.dedup();
        self.accepting = cycles::accepting(self.monitor.len(), &moves);
        let on = |c: u32| self.accepting[c as usize];
        self.cycle_bits = (moves.iter())
            .filter(|&&(c, to, _)| on(c) && on(to))
            .fold(0, |all, m| all | m.2);
    }

    /// Makes [`Lean::table`] of the cells learnt, if it is to be made.
    fn tabulate(&mut self) {
        let kinds = self.cells.keys().map(|&(_, k, _)| k as usize + 1).max();
        let entries = self.monitor.len() * kinds.unwrap_or(0);
        if !self.valuations.is_empty() || entries > (self.states as usize / 8).max(1 << 10) {
            return;
        }
        self.kinds = kinds.unwrap_or(0);
        // A cell no node meets is never asked for.
        self.table = vec![(u32::MAX, 0); entries];
        for (&(c, kind, _), &range) in &self.cells {
            self.table[c as usize * self.kinds + kind as usize] = range;
        }
    }

    /// The moves on the `j`-th edge of node `n`'s state.
    fn moves_on(&self, (s, q): (u32, u32), j: usize) -> &[Move] {
        let kind = self.graph.kind(s, j);
        let (from, len) = match self.table.is_empty() {
            false => self.table[q as usize * self.kinds + kind as usize],
            true => self.cells[&(q, kind, self.valuation(s))],
        };
        &self.moves[from as usize..(from + len) as usize]
    }

    fn product_edge(&self, (s, j): (u32, usize), m: &Move) -> ProductEdge {
        let target = self.graph.successors(s).get(j).target;
        let to = self.find((target, m.to)).expect("a node for every edge");
        ProductEdge {
            to,
            step: Step {
                state: s,
                edge: j as u32,
            },
            inside: m.inside,
            pending: m.pending,
        }
    }
}

impl Lean<'_> {
    /// The steps from node 0 to `order[at]`, each from the node that first reached the next:
    /// the first node of the level before (`order[levels[k]..levels[k + 1]]` is level `k`,
    /// in the order the search met it) with an edge into it, by its first such edge (the one
    /// the search went by). Each level is read once, back to node 0.
    fn unwind(&self, order: &[u32], levels: &[usize], at: usize) -> Vec<Step> {
        let mut n = order[at];
        let level = levels.partition_point(|&l| l <= at) - 1;
        let mut steps = Vec::with_capacity(level);
        for k in (0..level).rev() {
            let (e, p) = (order[levels[k]..levels[k + 1]].iter())
                .find_map(|&p| Some((self.edges(p).find(|e| e.to == n)?, p)))
                .expect("a node of the level before reaches each node");
            steps.push(e.step);
            n = p;
        }
        steps.reverse();
        steps
    }
}

/// A set of node numbers, a bit each.
struct Bits(Vec<u64>);

impl Bits {
    fn new(len: usize) -> Self {
        Bits(vec![0; len.div_ceil(64)])
    }

    /// Adds `n`; whether it was new.
    fn insert(&mut self, n: u32) -> bool {
        let (word, bit) = (&mut self.0[n as usize / 64], 1 << (n % 64));
        let new = *word & bit == 0;
        *word |= bit;
        new
    }
}

impl Space for Lean<'_> {
    fn nodes(&self) -> usize {
        self.nodes.end() as usize
    }

    fn state(&self, n: u32) -> u32 {
        self.key(n).0
    }

    fn avoid(&self, n: u32) -> bool {
        self.flags(n) & AVOID != 0
    }

    fn stutter(&self, n: u32) -> bool {
        self.flags(n) & STUTTER != 0
    }

    fn universal(&self, n: u32) -> bool {
        self.flags(n) & UNIVERSAL != 0
    }

    fn on_cycles(&self, n: u32) -> bool {
        let accepting = |(_, c): (u32, u32)| self.accepting.get(c as usize) != Some(&false);
        self.key_of(n).is_some_and(accepting)
    }

    fn cycle_bits(&self) -> u64 {
        self.cycle_bits
    }

    fn degree(&self, n: u32) -> usize {
        let key = self.key(n);
        let edges = self.graph.successors(key.0).len();
        (0..edges).map(|j| self.moves_on(key, j).len()).sum()
    }

    fn edge(&self, n: u32, mut i: usize) -> ProductEdge {
        let key = self.key(n);
        for j in 0.. {
            let moves = self.moves_on(key, j);
            if let Some(m) = moves.get(i) {
                return self.product_edge((key.0, j), m);
            }
            i -= moves.len();
        }
        unreachable!("edge {i} of node {n}")
    }

    fn edges(&self, n: u32) -> impl Iterator<Item = ProductEdge> + '_ {
        let key = self.key(n);
        let edges = self.graph.successors(key.0).len();
        (0..edges).flat_map(move |j| {
            let moves = self.moves_on(key, j).iter();
            moves.map(move |m| self.product_edge((key.0, j), m))
        })
    }

    /// One walk over the state's edges, looking up the targets of inside edges only.
    fn each_inside(&self, n: u32, each: &mut impl FnMut(u32, u64)) {
        let key = self.key(n);
        let edges = self.graph.successors(key.0);
        for j in 0..edges.len() {
            for m in self.moves_on(key, j).iter().filter(|m| m.inside) {
                let to = self.find((edges.get(j).target, m.to));
                each(to.expect("a node for every edge"), m.pending);
            }
        }
    }

    /// One walk over the state's edges from where `from` says, looking up the targets of
    /// inside edges only. A position is the state's edge `j` and the move `k` on it, as `j <<`
    /// [`MOVE_BITS`] `| k` (in the order of the edges, one past position `i` being `i + 1`),
    /// so that the walk goes on at its edge: the cycle search comes back to a node once for
    /// each of its children, and a walk from the first edge each time (before 2026-12-07)
    /// looked the moves of every edge before up again, in a table.
    fn next_inside(&self, n: u32, from: usize, keep: &dyn Fn(u32) -> bool) -> Option<(usize, u32)> {
        let key = self.key(n);
        let edges = self.graph.successors(key.0);
        let (first, mut skip) = (from >> MOVE_BITS, from & ((1 << MOVE_BITS) - 1));
        for j in first..edges.len() {
            let moves = self.moves_on(key, j);
            for (k, m) in moves.iter().enumerate().skip(skip) {
                if !m.inside {
                    continue;
                }
                let to = self.find((edges.get(j).target, m.to));
                let to = to.expect("a node for every edge");
                if keep(to) {
                    return Some((j << MOVE_BITS | k, to));
                }
            }
            skip = 0;
        }
        None
    }

    fn stem(&self, n: u32) -> Vec<Step> {
        let found = self.first_reached(&|m| m == n, None);
        found.ok().flatten().expect("a node reached").1
    }

    /// A breadth-first search from node 0, edges in order: it meets the nodes in the order
    /// the product was built in. It keeps a bit a node (whether it is reached) and the nodes
    /// reached, in order (4 bytes each: on philosophers under `ltl`, the first node of a
    /// component is a few steps from the start, and a parent a node was 4 bytes of each of
    /// the product's nodes); the steps are found again from the levels (see
    /// [`Lean::unwind`]). Past `room` bytes of them it stops with [`OverMemory`].
    fn first_reached(&self, hit: &dyn Fn(u32) -> bool, room: Option<u64>) -> Reached {
        let mut seen = Bits::new(self.nodes());
        let bits = 8 * seen.0.len();
        let over = |order: usize| room.is_some_and(|room| (bits + 4 * order) as u64 > room);
        seen.insert(0);
        let (mut order, mut levels) = (vec![0u32], vec![0, 1]);
        let mut at = 0;
        while let Some(&n) = order.get(at) {
            if hit(n) {
                return Ok(Some((n, self.unwind(&order, &levels, at))));
            }
            for e in self.edges(n) {
                if seen.insert(e.to) {
                    order.push(e.to);
                    if order.len().is_multiple_of(LOOK as usize) && over(order.len()) {
                        return Err(OverMemory);
                    }
                }
            }
            at += 1;
            if at == levels[levels.len() - 1] {
                levels.push(order.len());
            }
        }
        Ok(None)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Goals, Options, Progress, explore_until};
    use agentpi_ir::{MemoryLoader, load_with};
    use agentpi_semantics::Semantics;
    use std::cell::RefCell;

    /// A monitor of `k` states that moves two ways on every step: enough states to widen the
    /// numbers past a byte and to reach states with more than two of them.
    struct Counter(u32);

    impl Monitor for Counter {
        fn moves(&mut self, q: u32, _: (u32, usize), _: u64) -> Vec<Move> {
            let to = |to| Move {
                to,
                inside: true,
                pending: 0,
            };
            vec![to((q + 1) % self.0), to((7 * q + 3) % self.0)]
        }

        fn flags(&mut self, q: u32, _: u64) -> [bool; 3] {
            [q.is_multiple_of(2), false, false]
        }
    }

    /// A monitor of `k` states that moves two ways on every step, the second by the step's
    /// label, leaving bit 0 pending on the first unless from a state that is a multiple of 4,
    /// and bit 1 on the second from odd states: components that clear every bit, and some
    /// that do not.
    struct Pending<'g>(u32, &'g Graph);

    impl Monitor for Pending<'_> {
        fn moves(&mut self, q: u32, (s, j): (u32, usize), _: u64) -> Vec<Move> {
            let to = |to, pending| Move {
                to,
                inside: true,
                pending,
            };
            let first = u64::from(!q.is_multiple_of(4));
            let second = u64::from(q % 2 == 1) << 1;
            let label = self.1.successors(s).get(j).label;
            let by_label = (3 * q + 1 + label) % self.0;
            vec![to((q + 1) % self.0, first), to(by_label, second)]
        }

        fn flags(&mut self, q: u32, _: u64) -> [bool; 3] {
            [q % 3 != 2, false, false]
        }
    }

    /// The product of philosophers `Fixed` (3 of them) with `monitor`.
    fn philosophers<'g>(graph: &'g Graph, monitor: &mut impl Monitor) -> Lean<'g> {
        let mut lean = Lean::new(graph, Vec::new(), 0);
        lean.mark_with(monitor, 0);
        assert!(lean.build_by(monitor, (1, 4096), &|_| true));
        lean
    }

    /// `lean` stored: the same nodes (a hole a node with no edges, outside the region), each
    /// with its edges in order.
    fn stored(lean: &Lean<'_>) -> crate::product::Product {
        let mut product = crate::product::Product::default();
        for n in 0..lean.nodes() as u32 {
            let state = lean.key_of(n).map_or(0, |k| k.0);
            product.add_node(state, lean.avoid(n), None);
        }
        for n in 0..lean.nodes() as u32 {
            product.start(n);
            let edges: Vec<ProductEdge> = match lean.key_of(n) {
                Some(_) => lean.edges(n).collect(),
                None => Vec::new(),
            };
            for e in edges {
                product.push_edge(e.to, e.step.edge, e.inside, e.pending);
            }
        }
        product
    }

    /// The cycle search (with the trimming before it) walks a lean product's edges by
    /// [`Space::next_inside`] and [`Space::each_inside`], its own: it finds the accepting
    /// components it finds on the same product stored, whose walks are the plain ones, on 1
    /// to 3 threads.
    #[test]
    fn a_lean_products_components_are_those_of_the_product_stored() {
        let graph = philosophers_graph();
        for k in [7, 12, 30] {
            let mut monitor = Pending(k, &graph);
            let lean = philosophers(&graph, &mut monitor);
            assert!(lean.cycle_bits() != 0, "bits pending on cycles");
            assert!(!lean.table.is_empty(), "the moves read from the table");
            edges_are_the_monitors(&lean, &mut monitor);
            let product = stored(&lean);
            let all = crate::product::accepting_sccs(&product, None, 1).unwrap();
            assert!(!all.is_empty(), "{k} states: accepting components");
            let sorted = |mut sccs: Vec<Vec<u32>>| (sccs.sort(), sccs).1;
            for threads in 1..4 {
                let found = crate::product::accepting_sccs(&lean, None, threads).unwrap();
                assert_eq!(
                    sorted(found),
                    sorted(all.clone()),
                    "{k} states, {threads} threads"
                );
            }
        }
    }

    /// Each edge of each node of `lean` is a move of `monitor` on an edge of its state, in
    /// order.
    fn edges_are_the_monitors(lean: &Lean<'_>, monitor: &mut impl Monitor) {
        for n in (0..lean.nodes() as u32).filter(|&n| lean.key_of(n).is_some()) {
            let (s, c) = lean.key(n);
            let mut expected = Vec::new();
            for j in 0..lean.graph.successors(s).len() {
                let target = lean.graph.successors(s).get(j).target;
                for m in monitor.moves(lean.monitor[c as usize], (s, j), 0) {
                    let to = lean.find((target, lean.numbers[&m.to])).expect("a node");
                    expected.push((to, j as u32, m.pending));
                }
            }
            let edges = lean.edges(n).map(|e| (e.to, e.step.edge, e.pending));
            assert_eq!(edges.collect::<Vec<_>>(), expected, "node {n}");
        }
    }

    /// The state space of philosophers `Fixed` with 3 of them.
    fn philosophers_graph() -> Graph {
        let file = "models/philosophers.pi";
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
        let text = std::fs::read_to_string(root.join(file)).unwrap();
        let loader = MemoryLoader {
            files: vec![(file.to_string(), text)],
        };
        let loaded = load_with(file, &loader, &[("N".to_string(), "3".to_string())]);
        assert!(!loaded.has_errors(), "{:?}", loaded.diagnostics);
        let sem = Semantics::new(&loaded.program);
        let sys = loaded
            .program
            .systems
            .iter()
            .position(|s| s.name == "Fixed");
        let goals = Goals {
            whole: true,
            ..Goals::default()
        };
        let (options, progress) = (Options::default(), Progress::default());
        explore_until(&sem, sys.unwrap(), &options, &goals, &progress).unwrap()
    }

    /// The product's nodes as breadth-first search meets them, (state, monitor state) each,
    /// found by brute force: a hash map from pairs.
    fn reference(graph: &Graph, monitor: &mut Counter, root: u32) -> Vec<(u32, u32)> {
        let mut order = vec![(0, root)];
        let mut seen: rustc_hash::FxHashSet<(u32, u32)> = order.iter().copied().collect();
        let mut at = 0;
        while let Some(&(s, q)) = order.get(at) {
            at += 1;
            for j in 0..graph.successors(s).len() {
                let target = graph.successors(s).get(j).target;
                for m in monitor.moves(q, (s, j), 0) {
                    if seen.insert((target, m.to)) {
                        order.push((target, m.to));
                    }
                }
            }
        }
        order
    }

    /// Philosophers `Fixed` with 3 of them, with a monitor of 300 states: every node is found
    /// again by its key, and the nodes are met in the brute force's breadth-first order.
    #[test]
    fn nodes_numbered_by_state_are_met_in_breadth_first_order() {
        let graph = philosophers_graph();
        let mut monitor = Counter(300);
        let expected = reference(&graph, &mut monitor, 5);
        // Chunks of 1 and 5 nodes: levels in many chunks, learning moves in several rounds.
        // Each node has the same number whatever the threads and chunks.
        let mut numbers = None;
        for (threads, chunk) in [(1, 4096), (2, 4096), (3, 1), (2, 5)] {
            let mut lean = Lean::new(&graph, Vec::new(), 5);
            lean.mark_with(&mut monitor, 0);
            assert!(lean.build_by(&mut monitor, (threads, chunk), &|_| true));
            met_in_order(&lean, &expected);
            let numbered: Vec<Option<u32>> = (expected.iter())
                .map(|&(s, q)| lean.find((s, lean.numbers[&q])))
                .collect();
            let first = numbers.get_or_insert_with(|| numbered.clone());
            assert_eq!(&numbered, first, "{threads} threads, chunks of {chunk}");
        }
    }

    /// `lean`'s nodes are met in the `expected` order, each found again by its key.
    fn met_in_order(lean: &Lean<'_>, expected: &[(u32, u32)]) {
        assert!(
            lean.monitor.len() > 256,
            "monitor state numbers past a byte"
        );
        let nodes = &lean.nodes;
        assert!(nodes.in_table() > 0, "nodes in the table past the layers");
        assert!(nodes.layers() > 2, "layers past the second");
        let met = RefCell::new(Vec::new());
        let none = lean.first_reached(
            &|n| {
                met.borrow_mut().push(n);
                false
            },
            None,
        );
        assert!(matches!(none, Ok(None)));
        let keys: Vec<(u32, u32)> = (met.into_inner().iter())
            .map(|&n| lean.key(n))
            .map(|(s, c)| (s, lean.monitor[c as usize]))
            .collect();
        assert_eq!(keys, expected);
        // A state's first node reached is `s`, its second `S + s`; no two share a number.
        let states = lean.states;
        let mut met = vec![0; states as usize];
        let mut taken = rustc_hash::FxHashSet::default();
        for &(s, q) in expected {
            let n = lean.find((s, lean.numbers[&q])).expect("a node");
            assert!(taken.insert(n) && n < nodes.end(), "node {n} numbered once");
            met[s as usize] += 1;
            match met[s as usize] {
                1 => assert_eq!(n, s, "the number of ({s}, {q})"),
                2 => assert_eq!(n, states + s, "the number of ({s}, {q})"),
                _ => {}
            }
            assert_eq!(
                lean.avoid(n),
                q.is_multiple_of(2),
                "the flags of ({s}, {q})"
            );
        }
    }
}
