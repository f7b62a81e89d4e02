//! Deciding each kind of property on an explored graph.

use crate::graph::Graph;
use crate::lasso::find_lasso;
use crate::lean::{Lean, Monitor, Move};
use crate::pattern::{Bindings, match_label, rename_bindings};
pub use crate::product::OverMemory;
use crate::product::{Fairness, GraphSpace, LOOK, Lasso, Product, Space};
use agentpi_ir::core::LabelPattern;
use agentpi_semantics::{Label, Semantics};
use std::hash::{BuildHasher, Hash};

/// How a liveness property is searched: the paths that count and the memory left under
/// `--max-memory`.
#[derive(Clone, Copy)]
pub struct Search<'a> {
    pub fair: Fairness<'a>,
    /// The bytes the product and its search may take beyond exploration's (`None`: no bound).
    pub room: Option<u64>,
    /// The threads the product and its search may use (the verdict and the lasso are the
    /// same on any number).
    pub threads: usize,
}

/// What a liveness search finds: a counterexample or none, unless memory ran out.
pub type Found = Result<Option<Lasso>, OverMemory>;

impl Search<'_> {
    pub(crate) fn within(&self, bytes: u64) -> Result<(), OverMemory> {
        match self.room {
            Some(room) if bytes > room => Err(OverMemory),
            _ => Ok(()),
        }
    }

    /// Searches `space` (holding `bytes`) for a counterexample, if its search fits: Tarjan's
    /// number of each node that may cycle (4 bytes, with its index: see
    /// `product::tarjan_within`), its path, its stack and the components it finds, and the
    /// search for the stem, counted as they grow.
    pub(crate) fn lasso(&self, space: &(impl Space + Sync), bytes: u64, graph: &Graph) -> Found {
        self.within(bytes)?;
        let room = self.room.map(|room| room - bytes);
        find_lasso(space, graph, self.fair, room, self.threads)
    }

    /// Builds `lean` to its end with `monitor` on the search's threads, looking at its memory
    /// at each level, then searches it for a counterexample.
    pub(crate) fn lean(
        &self,
        mut lean: Lean<'_>,
        monitor: &mut impl Monitor,
        graph: &Graph,
    ) -> Found {
        // Past what 32-bit node numbers count, the product is as unknown as past the bound.
        if !lean.build(monitor, self.threads, &|bytes| self.within(bytes).is_ok()) {
            return Err(OverMemory);
        }
        self.lasso(&lean, lean.bytes(), graph)
    }
}

/// `eventually P`: a path from the start that never does `P` and stops or cycles.
pub fn eventually(
    sem: &Semantics<'_>,
    graph: &Graph,
    pattern: &LabelPattern,
    how: Search,
) -> Found {
    let matching = label_mask(sem, graph, pattern);
    let mut builder = Builder::new(0u32, 0, true);
    while let Some((n, s)) = builder.next() {
        let edges = graph.successors(*s).iter().enumerate();
        for (i, e) in edges.filter(|(_, e)| !matching[e.label as usize]) {
            let to = builder.node(e.target, e.target, true, n);
            builder.edge(to, i as u32, true);
        }
        if n % LOOK == 0 {
            how.within(builder.bytes())?;
        }
    }
    let bytes = builder.product.bytes();
    how.lasso(&builder.finish(), bytes, graph)
}

/// Numbers the nodes of a product breadth-first, by key, as they are first reached. Each key
/// is kept once (the index holds node numbers, hashed by their keys) and dropped by
/// [`Builder::finish`] before the product is searched.
pub(crate) struct Builder<K> {
    pub(crate) product: Product,
    keys: Vec<K>,
    index: hashbrown::HashTable<u32>,
    next: usize,
}

fn hash<K: Hash>(key: &K) -> u64 {
    rustc_hash::FxBuildHasher.hash_one(key)
}

impl<K: Hash + Eq + Clone> Builder<K> {
    pub(crate) fn new(root: K, state: u32, avoid: bool) -> Self {
        let mut product = Product::default();
        product.add_node(state, avoid, None);
        let mut index = hashbrown::HashTable::new();
        index.insert_unique(hash(&root), 0, |_| 0);
        Builder {
            product,
            keys: vec![root],
            index,
            next: 0,
        }
    }

    /// The next node to expand, with its key: the edges added until the next call are its.
    pub(crate) fn next(&mut self) -> Option<(u32, &K)> {
        let n = self.next;
        if n >= self.keys.len() {
            return None;
        }
        self.next += 1;
        self.product.start(n as u32);
        Some((n as u32, &self.keys[n]))
    }

    /// The node for `key`; a new one is first reached by the next edge out of `from`, the
    /// node being expanded.
    pub(crate) fn node(&mut self, key: K, state: u32, avoid: bool, from: u32) -> u32 {
        let h = hash(&key);
        let keys = &self.keys;
        if let Some(&n) = self.index.find(h, |&n| keys[n as usize] == key) {
            return n;
        }
        let n = self.product.add_node(state, avoid, Some(from));
        self.keys.push(key);
        let keys = &self.keys;
        self.index.insert_unique(h, n, |&m| hash(&keys[m as usize]));
        n
    }

    /// An edge out of the node being expanded, by its system transition's index.
    pub(crate) fn edge(&mut self, to: u32, edge: u32, inside: bool) {
        self.edge_pending(to, edge, inside, 0);
    }

    /// An edge that leaves the eventualities `pending` unfulfilled (see
    /// [`crate::product::ProductEdge`]).
    pub(crate) fn edge_pending(&mut self, to: u32, edge: u32, inside: bool, pending: u64) {
        self.product.push_edge(to, edge, inside, pending);
    }

    /// The bytes held: the product, the keys and their index.
    pub(crate) fn bytes(&self) -> u64 {
        // Room reserved and not written yet is not resident: the keys as filled, and the
        // index's control bytes (all written) with its slots as filled.
        let keys = std::mem::size_of::<K>() * self.keys.len();
        let index = self.index.capacity() + 4 * self.index.len();
        self.product.bytes() + (keys + index) as u64
    }

    /// The product, without the keys and their index.
    pub(crate) fn finish(self) -> Product {
        self.product
    }
}

/// `always eventually P`: a reachable cycle without `P`, or a reachable state without
/// transitions (a finite maximal path stutters there forever, never doing `P`).
pub fn always_eventually(
    sem: &Semantics<'_>,
    graph: &Graph,
    pattern: &LabelPattern,
    how: Search,
) -> Found {
    let leaves = label_mask(sem, graph, pattern);
    let space = GraphSpace { sem, graph, leaves };
    how.lasso(&space, 0, graph)
}

fn label_mask(sem: &Semantics<'_>, graph: &Graph, pattern: &LabelPattern) -> Vec<bool> {
    graph
        .labels
        .iter()
        .map(|l| match_label(sem, pattern, l, &Vec::new()).is_some())
        .collect()
}

/// `L leads to R`: the product with a monitor that picks one `L` transition, remembers the
/// values it bound (renaming fresh channels as states are renumbered) and waits for `R`.
/// Needs the graph explored with [`crate::Options::keep_renamings`].
///
/// The product keeps its nodes, not its edges ([`Lean`]): the monitor's moves on each kind of
/// step (matching labels, renaming bindings) are learnt once, on the first node that takes
/// one, and found again for the others and by the search.
pub fn leads_to(
    sem: &Semantics<'_>,
    graph: &Graph,
    (left, right): (&LabelPattern, &LabelPattern),
    how: Search,
) -> Found {
    let mut monitor = LeadsTo {
        sem,
        graph,
        patterns: (left, right),
        envs: Interned::default(),
    };
    how.lean(Lean::new(graph, Vec::new(), IDLE), &mut monitor, graph)
}

/// The monitor of `leads to`: its states are the bindings watched, by number in `envs`
/// ([`IDLE`] when idle).
struct LeadsTo<'a> {
    sem: &'a Semantics<'a>,
    graph: &'a Graph,
    patterns: (&'a LabelPattern, &'a LabelPattern),
    envs: Interned<Bindings>,
}

impl Monitor for LeadsTo<'_> {
    fn moves(&mut self, q: u32, (s, j): (u32, usize), _: u64) -> Vec<Move> {
        let graph = self.graph;
        let watching = (q != IDLE).then(|| self.envs.list[q as usize].clone());
        let label = &graph.labels[graph.successors(s).get(j).label as usize];
        let renaming = graph.renaming(s, j).expect("renamings kept for `leads to`");
        let (left, right) = self.patterns;
        let moves = monitor_moves(self.sem, left, right, watching.as_ref(), label, renaming);
        let to_move = |(m, inside): (Option<Bindings>, bool)| Move {
            to: m.map_or(IDLE, |b| self.envs.number(b)),
            inside,
            pending: 0,
        };
        moves.into_iter().map(to_move).collect()
    }

    fn flags(&mut self, q: u32, _: u64) -> [bool; 3] {
        [q != IDLE, q != IDLE, false]
    }
}

/// The monitor of `leads to` watching nothing.
const IDLE: u32 = u32::MAX;

/// Each distinct value once, by number: a product node keeps the number of its monitor's
/// bindings or obligations (a few distinct ones serve millions of nodes).
pub(crate) struct Interned<T> {
    pub(crate) list: Vec<T>,
    index: rustc_hash::FxHashMap<T, u32>,
}

impl<T> Default for Interned<T> {
    fn default() -> Self {
        Interned {
            list: Vec::new(),
            index: Default::default(),
        }
    }
}

impl<T: Hash + Eq + Clone> Interned<T> {
    pub(crate) fn number(&mut self, b: T) -> u32 {
        if let Some(&n) = self.index.get(&b) {
            return n;
        }
        self.list.push(b.clone());
        self.index.insert(b, self.list.len() as u32 - 1);
        self.list.len() as u32 - 1
    }
}

/// Where the monitor can go on transition `t`: keep idling, start watching an `L` (with its
/// bindings renamed into the target's numbering), stop on a matching `R`, or keep waiting
/// (the only move that stays inside the region to avoid).
fn monitor_moves(
    sem: &Semantics<'_>,
    left: &LabelPattern,
    right: &LabelPattern,
    watching: Option<&Bindings>,
    label: &Label,
    renaming: &[u32],
) -> Vec<(Option<Bindings>, bool)> {
    match watching {
        None => {
            let start = match_label(sem, left, label, &Vec::new());
            let start = start.map(|theta| (Some(rename_bindings(&theta, renaming)), false));
            std::iter::once((None, false)).chain(start).collect()
        }
        Some(theta) if match_label(sem, right, label, theta).is_some() => vec![(None, false)],
        Some(theta) => vec![(Some(rename_bindings(theta, renaming)), true)],
    }
}
