//! A product of the state space with a monitor (or automaton) that keeps its nodes and not
//! its edges: each edge is found again from the graph's stored edge and the monitor's moves on
//! that edge's *kind* (its label, actors and renaming: see [`crate::edges`]), learnt once.
//!
//! A node is a pair (system state, monitor state), numbered breadth first as it is first
//! reached, each node's edges in the order of the state's edges and, on each, of the
//! monitor's moves: the numbering and the edges of the stored [`crate::product::Product`],
//! so the searches and the lassos printed are the same. A node costs its key: its state (4
//! bytes) and its monitor state by its number among those met (1 byte while they are at most
//! 256); its flags are its monitor state's in its state's valuation, kept once for each
//! pair. A state costs the number of its first node (4 bytes) and, once some state has two,
//! of its second (4 bytes); a state reached with more than two monitor states, a slot in a
//! small index of its other nodes. An edge
//! costs nothing beyond the graph's, and no parent is kept: breadth-first numbering makes a
//! node's parent the first node with an edge into it, found again by [`Lean::parents`] when
//! a stem is asked for.

use crate::graph::Graph;
use crate::product::{ProductEdge, Space, Step};
use rustc_hash::FxHashMap;
use std::hash::BuildHasher;

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

/// The monitor state of each node, by its number among those met: a byte each while there
/// are at most 256 of them (the shapes' monitors and most formulas' automata have a few).
enum Monitors {
    Narrow(Vec<u8>),
    Wide(Vec<u32>),
}

/// The key of each node: (system state, number of its monitor state).
struct Keys {
    states: Vec<u32>,
    monitors: Monitors,
}

impl Keys {
    fn len(&self) -> usize {
        self.states.len()
    }

    fn get(&self, n: usize) -> Option<(u32, u32)> {
        let s = *self.states.get(n)?;
        let c = match &self.monitors {
            Monitors::Narrow(c) => c[n] as u32,
            Monitors::Wide(c) => c[n],
        };
        Some((s, c))
    }

    fn push(&mut self, (s, c): (u32, u32)) {
        self.states.push(s);
        if let Monitors::Narrow(narrow) = &mut self.monitors
            && c > u8::MAX as u32
        {
            let wide = narrow.iter().map(|&c| c as u32).collect();
            self.monitors = Monitors::Wide(wide);
        }
        match &mut self.monitors {
            Monitors::Narrow(narrow) => narrow.push(c as u8),
            Monitors::Wide(wide) => wide.push(c),
        }
    }

    fn bytes(&self) -> usize {
        let width = match self.monitors {
            Monitors::Narrow(_) => 1,
            Monitors::Wide(_) => 4,
        };
        (4 + width) * self.len()
    }
}

/// The product's nodes, with the monitor's moves learnt so far.
pub(crate) struct Lean<'g> {
    graph: &'g Graph,
    /// The valuation of each state (empty: all 0).
    valuations: Vec<u64>,
    keys: Keys,
    /// The monitor states met, by number (a node keeps the number).
    monitor: Vec<u32>,
    numbers: FxHashMap<u32, u32>,
    /// The flags of each monitor state (by number) in a state of each valuation met.
    marks: FxHashMap<(u32, u64), u8>,
    /// The first node of each state ([`NONE`] until it is reached).
    first: Vec<u32>,
    /// The second node of each state (0, which is always a first, while it has none; empty
    /// until some state has two): a product often has two nodes a state (the monitor waiting
    /// or not), and an array of them is smaller than their slots in `more`.
    second: Vec<u32>,
    /// The nodes that are neither the first nor the second of their state, hashed by their
    /// keys: most states are reached with one or two monitor states, so this is much smaller
    /// than an index of all.
    more: hashbrown::HashTable<u32>,
    /// The moves of each cell, as a range of `moves`, each to a monitor state by number.
    cells: FxHashMap<Cell, (u32, u32)>,
    moves: Vec<Move>,
    /// The next node to expand.
    next: usize,
}

fn hash(key: &(u32, u32)) -> u64 {
    rustc_hash::FxBuildHasher.hash_one(key)
}

impl<'g> Lean<'g> {
    /// A product whose node 0 is state 0 with monitor state `root`.
    pub(crate) fn new(graph: &'g Graph, valuations: Vec<u64>, root: u32) -> Self {
        let mut lean = Lean {
            graph,
            valuations,
            keys: Keys {
                states: Vec::new(),
                monitors: Monitors::Narrow(Vec::new()),
            },
            monitor: Vec::new(),
            numbers: FxHashMap::default(),
            marks: FxHashMap::default(),
            first: vec![NONE; graph.state_count()],
            second: Vec::new(),
            more: hashbrown::HashTable::new(),
            cells: FxHashMap::default(),
            moves: Vec::new(),
            next: 0,
        };
        // Every state is reached with some monitor state: at least as many nodes.
        lean.keys.states.reserve(graph.state_count());
        let root = lean.number(root);
        lean.node((0, root));
        lean
    }

    /// The number of monitor state `q`.
    fn number(&mut self, q: u32) -> u32 {
        *self.numbers.entry(q).or_insert_with(|| {
            self.monitor.push(q);
            self.monitor.len() as u32 - 1
        })
    }

    fn key(&self, n: u32) -> (u32, u32) {
        self.keys.get(n as usize).expect("a node")
    }

    fn flags(&self, n: u32) -> u8 {
        let (s, c) = self.key(n);
        let flags = self.marks.get(&(c, self.valuation(s)));
        flags.copied().unwrap_or(0)
    }

    fn valuation(&self, s: u32) -> u64 {
        self.valuations.get(s as usize).copied().unwrap_or(0)
    }

    fn find(&self, key: (u32, u32)) -> Option<u32> {
        let first = self.first[key.0 as usize];
        if first == NONE || self.key(first) == key {
            return (first != NONE).then_some(first);
        }
        let second = self.second.get(key.0 as usize).copied().unwrap_or(0);
        if second == 0 || self.key(second) == key {
            return (second != 0).then_some(second);
        }
        let keys = &self.keys;
        self.more
            .find(hash(&key), |&n| keys.get(n as usize) == Some(key))
            .copied()
    }

    /// The node of `key`, and whether it is new.
    fn node(&mut self, key: (u32, u32)) -> (u32, bool) {
        if let Some(n) = self.find(key) {
            return (n, false);
        }
        let n = self.keys.len() as u32;
        self.keys.push(key);
        let s = key.0 as usize;
        if self.first[s] == NONE {
            self.first[s] = n;
            return (n, true);
        }
        if self.second.is_empty() {
            self.second = vec![0; self.first.len()];
        }
        if self.second[s] == 0 {
            self.second[s] = n;
        } else {
            let keys = &self.keys;
            let rehash = |&m: &u32| hash(&keys.get(m as usize).expect("a node"));
            self.more.insert_unique(hash(&key), n, rehash);
        }
        (n, true)
    }

    /// Expands the next node, asking `monitor` for its moves on a kind of step not seen yet
    /// and for the flags of each new node. `false` when every node is expanded.
    pub(crate) fn expand_next(&mut self, monitor: &mut impl Monitor) -> bool {
        let n = self.next;
        let Some((s, c)) = self.keys.get(n) else {
            return false;
        };
        self.next += 1;
        let graph = self.graph;
        let edges = graph.successors(s);
        let valuation = self.valuation(s);
        for j in 0..edges.len() {
            let cell = (c, graph.kind(s, j), valuation);
            let (from, len) = match self.cells.get(&cell) {
                Some(&range) => range,
                None => {
                    let learnt = monitor.moves(self.monitor[c as usize], (s, j), valuation);
                    let range = (self.moves.len() as u32, learnt.len() as u32);
                    for m in learnt {
                        let to = self.number(m.to);
                        self.moves.push(Move { to, ..m });
                    }
                    self.cells.insert(cell, range);
                    range
                }
            };
            let target = edges.get(j).target;
            for m in from..from + len {
                let to = self.moves[m as usize].to;
                let (node, fresh) = self.node((target, to));
                if fresh {
                    self.mark_with(monitor, node);
                }
            }
        }
        true
    }

    /// Learns node `n`'s flags from `monitor`, unless its monitor state's in its state's
    /// valuation are known.
    pub(crate) fn mark_with(&mut self, monitor: &mut impl Monitor, n: u32) {
        let (s, c) = self.key(n);
        let valuation = self.valuation(s);
        if self.marks.contains_key(&(c, valuation)) {
            return;
        }
        let flags = monitor.flags(self.monitor[c as usize], valuation);
        let [avoid, stutter, universal] = flags;
        let bit = |on, b| if on { b } else { 0 };
        let flags = bit(avoid, AVOID) | bit(stutter, STUTTER) | bit(universal, UNIVERSAL);
        self.marks.insert((c, valuation), flags);
    }

    /// The bytes held: the keys, the first node of each state, the index of the others (its
    /// control bytes, all written, and its slots as filled), the monitor states and flags
    /// met, and the moves learnt.
    pub(crate) fn bytes(&self) -> u64 {
        let more = self.more.capacity() + 4 * self.more.len();
        let met = 16 * self.monitor.len() + 24 * self.marks.len();
        let firsts = 4 * (self.first.len() + self.second.len());
        let nodes = self.keys.bytes() + firsts + more + met;
        let moves = 16 * self.moves.len() + 32 * self.cells.len() + 8 * self.valuations.len();
        (nodes + moves) as u64
    }

    /// The moves on the `j`-th edge of node `n`'s state.
    fn moves_on(&self, (s, q): (u32, u32), j: usize) -> &[Move] {
        let cell = (q, self.graph.kind(s, j), self.valuation(s));
        let (from, len) = self.cells[&cell];
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
    /// The node that first reached each node up to `last` (at least), by its first edge
    /// into it.
    ///
    /// Nodes are numbered as they are first reached, expanding them in order: walking the
    /// nodes' edges in that order again, an edge reaches a new node exactly when its target
    /// is the next number not reached yet. Called for a counterexample's stem only, once the
    /// cycle search's memory is given back (4 bytes a node, as that search's).
    fn parents(&self, last: u32) -> Vec<u32> {
        let mut parents = vec![NONE];
        for n in 0.. {
            if parents.len() > last as usize {
                break;
            }
            for e in self.edges(n) {
                if e.to as usize == parents.len() {
                    parents.push(n);
                }
            }
        }
        parents
    }
}

impl Space for Lean<'_> {
    fn nodes(&self) -> usize {
        self.keys.len()
    }

    fn state(&self, n: u32) -> u32 {
        self.keys.states[n as usize]
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
    fn next_inside(&self, n: u32, from: usize, keep: &dyn Fn(u32) -> bool) -> Option<(usize, u32)> {
        let key = self.key(n);
        let edges = self.graph.successors(key.0);
        let mut at = 0;
        for j in 0..edges.len() {
            let moves = self.moves_on(key, j);
            for (i, m) in (at..).zip(moves) {
                if i < from || !m.inside {
                    continue;
                }
                let to = self.find((edges.get(j).target, m.to));
                let to = to.expect("a node for every edge");
                if keep(to) {
                    return Some((i, to));
                }
            }
            at += moves.len();
        }
        None
    }

    fn stem(&self, mut n: u32) -> Vec<Step> {
        let parents = self.parents(n);
        let mut steps = Vec::new();
        while n != 0 {
            let p = parents[n as usize];
            let e = self.edges(p).find(|e| e.to == n);
            steps.push(e.expect("a parent has an edge into its child").step);
            n = p;
        }
        steps.reverse();
        steps
    }
}
