//! Breadth-first exploration of a system's state space into a [`Graph`].
//!
//! Level-synchronous: the successors of a whole level are computed in parallel, then merged
//! into the visited store in the order of the level, so state numbers, edges and everything
//! printed from them are the same whatever the thread count. Breadth-first order makes the
//! parent links give shortest paths.

use agentpi_semantics::{Actor, Fault, Label, Semantics, State, Transition};
use hashbrown::HashTable;
use rayon::prelude::*;
use rustc_hash::FxHashMap;

/// One stored transition.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Edge {
    pub label: u32,
    pub target: u32,
    /// Index of the set of actors that moved (see [`Graph::actor_sets`]).
    pub actors: u32,
}

/// A transition that failed: an assertion, a range error, ...
#[derive(Clone, Debug)]
pub struct FaultEdge {
    pub source: u32,
    /// Its position among the source's transitions, for replaying the trace.
    pub index: u32,
    pub label: u32,
    pub fault: Fault,
}

/// Why exploration stopped before the whole state space was seen.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Limit {
    States(usize),
    Memory(u64),
}

impl std::fmt::Display for Limit {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Limit::States(n) => write!(f, "--max-states {n}"),
            Limit::Memory(bytes) => write!(f, "--max-memory {} MiB", bytes / (1024 * 1024)),
        }
    }
}

/// Resource bounds and parallelism of one exploration.
#[derive(Clone, Debug, Default)]
pub struct Options {
    pub max_states: Option<usize>,
    /// An estimate of the bytes the store may hold.
    pub max_memory: Option<u64>,
    /// Worker threads for successor computation; 0 means one per core.
    pub threads: usize,
    /// Keep each edge's renaming of fresh names (`leads to` follows bound channels with it).
    pub keep_renamings: bool,
}

/// Counters a progress reporter may read while exploration runs.
#[derive(Debug, Default)]
pub struct Progress {
    pub states: std::sync::atomic::AtomicUsize,
    pub transitions: std::sync::atomic::AtomicUsize,
    pub depth: std::sync::atomic::AtomicUsize,
}

/// The explored state space.
pub struct Graph {
    pub states: Vec<State>,
    /// `edges[offsets[s]..offsets[s + 1]]` are the transitions of state `s` (faults excluded),
    /// in the order the semantics gives them.
    pub offsets: Vec<u32>,
    pub edges: Vec<Edge>,
    /// With [`Options::keep_renamings`]: for each edge, the source's fresh ids as the target
    /// numbers them.
    pub renamings: Vec<agentpi_semantics::Renaming>,
    /// For each state but the initial one: the state and edge index it was first reached by.
    pub parent: Vec<(u32, u32)>,
    pub labels: Vec<Label>,
    pub actor_sets: Vec<Vec<Actor>>,
    pub faults: Vec<FaultEdge>,
    /// Set when a bound stopped exploration; states past the last expanded one have no edges.
    pub limit: Option<Limit>,
    /// Number of states whose edges are known.
    pub expanded: usize,
    pub max_depth: usize,
}

impl Graph {
    pub fn successors(&self, s: u32) -> &[Edge] {
        let s = s as usize;
        if s + 1 >= self.offsets.len() {
            return &[];
        }
        &self.edges[self.offsets[s] as usize..self.offsets[s + 1] as usize]
    }

    pub fn is_expanded(&self, s: u32) -> bool {
        (s as usize) < self.expanded
    }

    pub fn transition_count(&self) -> usize {
        self.edges.len() + self.faults.len()
    }

    /// The edges from the initial state to `s`, as (source, edge index within source).
    pub fn path_to(&self, mut s: u32) -> Vec<(u32, u32)> {
        let mut path = Vec::new();
        while s != 0 {
            let (p, e) = self.parent[s as usize - 1];
            path.push((p, e));
            s = p;
        }
        path.reverse();
        path
    }
}

struct Store {
    keep_renamings: bool,
    index: HashTable<u32>,
    hashes: Vec<u64>,
    labels: FxHashMap<Label, u32>,
    actor_sets: FxHashMap<Vec<Actor>, u32>,
    bytes: u64,
}

/// Explores from `initial`.
pub fn explore(
    sem: &Semantics<'_>,
    initial: State,
    options: &Options,
    progress: &Progress,
) -> Graph {
    // Big stacks: spawning a deeply nested term recurses (see the binary's main thread).
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(options.threads)
        .stack_size(256 * 1024 * 1024)
        .build()
        .expect("thread pool");
    let mut graph = Graph {
        states: Vec::new(),
        offsets: vec![0],
        edges: Vec::new(),
        renamings: Vec::new(),
        parent: Vec::new(),
        labels: Vec::new(),
        actor_sets: Vec::new(),
        faults: Vec::new(),
        limit: None,
        expanded: 0,
        max_depth: 0,
    };
    let mut store = Store {
        keep_renamings: options.keep_renamings,
        index: HashTable::new(),
        hashes: Vec::new(),
        labels: FxHashMap::default(),
        actor_sets: FxHashMap::default(),
        bytes: 0,
    };
    store.insert(&mut graph, initial.fingerprint(), initial);
    let mut level = 0..1usize;
    while !level.is_empty() {
        if let Some(limit) = over_limit(&graph, &store, options) {
            graph.limit = Some(limit);
            break;
        }
        let ids: Vec<u32> = level.clone().map(|s| s as u32).collect();
        let succ: Vec<_> = pool.install(|| {
            ids.par_iter()
                .map(|&s| fingerprinted(sem.successors(&graph.states[s as usize])))
                .collect()
        });
        let next_start = graph.states.len();
        for (&s, transitions) in ids.iter().zip(succ) {
            merge(&mut graph, &mut store, s, transitions);
        }
        graph.max_depth += usize::from(graph.states.len() > next_start);
        level = next_start..graph.states.len();
        record(progress, &graph);
    }
    graph
}

fn over_limit(graph: &Graph, store: &Store, options: &Options) -> Option<Limit> {
    if let Some(max) = options.max_states.filter(|&m| graph.states.len() > m) {
        return Some(Limit::States(max));
    }
    options
        .max_memory
        .filter(|&m| store.bytes > m)
        .map(Limit::Memory)
}

fn record(progress: &Progress, graph: &Graph) {
    use std::sync::atomic::Ordering::Relaxed;
    progress.states.store(graph.states.len(), Relaxed);
    progress
        .transitions
        .store(graph.transition_count(), Relaxed);
    progress.depth.store(graph.max_depth, Relaxed);
}

/// Pairs each transition with its target's fingerprint, computed here in the parallel part.
fn fingerprinted(transitions: Vec<Transition>) -> Vec<(u64, Transition)> {
    transitions
        .into_iter()
        .map(|t| (t.target.fingerprint(), t))
        .collect()
}

fn merge(graph: &mut Graph, store: &mut Store, source: u32, transitions: Vec<(u64, Transition)>) {
    for (index, (hash, t)) in transitions.into_iter().enumerate() {
        let label = store.label(graph, t.label);
        if let Some(fault) = t.fault {
            graph.faults.push(FaultEdge {
                source,
                index: index as u32,
                label,
                fault,
            });
            continue;
        }
        let actors = store.actors(graph, t.actors);
        let before = graph.states.len();
        let target = store.insert(graph, hash, t.target);
        if graph.states.len() > before {
            graph.parent.push((
                source,
                (graph.edges.len() - graph.offsets[source as usize] as usize) as u32,
            ));
        }
        if store.keep_renamings {
            graph.renamings.push(t.renaming);
        }
        graph.edges.push(Edge {
            label,
            target,
            actors,
        });
    }
    graph.offsets.push(graph.edges.len() as u32);
    graph.expanded += 1;
    store.bytes += 12 * graph.successors(source).len() as u64;
}

impl Store {
    /// Adds `state` if it is new; returns its number.
    fn insert(&mut self, graph: &mut Graph, hash: u64, state: State) -> u32 {
        let states = &graph.states;
        if let Some(&id) = self.index.find(hash, |&id| states[id as usize] == state) {
            return id;
        }
        let id = graph.states.len() as u32;
        self.bytes += state_bytes(&state);
        graph.states.push(state);
        self.hashes.push(hash);
        let hashes = &self.hashes;
        self.index
            .insert_unique(hash, id, |&id| hashes[id as usize]);
        id
    }

    fn label(&mut self, graph: &mut Graph, label: Label) -> u32 {
        let next = graph.labels.len() as u32;
        *self.labels.entry(label.clone()).or_insert_with(|| {
            graph.labels.push(label);
            next
        })
    }

    fn actors(&mut self, graph: &mut Graph, actors: Vec<Actor>) -> u32 {
        let next = graph.actor_sets.len() as u32;
        *self.actor_sets.entry(actors.clone()).or_insert_with(|| {
            graph.actor_sets.push(actors);
            next
        })
    }
}

/// A rough estimate of the heap bytes a stored state takes, for `--max-memory`.
fn state_bytes(state: &State) -> u64 {
    // Every closure, also those waiting in nested sequences, and every part of every value
    // (a recursive enum can be large), so that growth of any kind reaches the bound.
    let mut closures = 0u64;
    let mut parts = 0u64;
    agentpi_semantics::state::for_each_closure(&state.procs, &mut |c| {
        closures += 1;
        parts += c.env.iter().map(value_parts).sum::<u64>();
    });
    64 + 64 * closures + 32 * parts
}

fn value_parts(value: &agentpi_semantics::Value) -> u64 {
    use agentpi_semantics::Value;
    match value {
        Value::Ctor(_, _, vs) | Value::Tuple(vs) => 1 + vs.iter().map(value_parts).sum::<u64>(),
        _ => 1,
    }
}
