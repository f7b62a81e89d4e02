//! Breadth-first exploration of a system's state space into a [`Graph`].
//!
//! The frontier is taken in chunks: the successors of a chunk are computed in parallel, then
//! merged into the visited store in frontier order, so state numbers, edges and everything
//! printed from them are the same whatever the thread count. Breadth-first order makes the
//! parent links give shortest paths.
//!
//! Exploration stops at the first of: the whole state space seen; every property decided (see
//! [`Goals`]); a resource bound reached, checked at every state, so a bound of N states stores
//! exactly N.

use agentpi_semantics::{Actor, Fault, Label, Semantics, State, Transition};
use hashbrown::HashTable;
use rayon::prelude::*;
use rustc_hash::{FxHashMap, FxHashSet};

/// One stored transition.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
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
    pub label: u32,
    pub fault: Fault,
}

/// Why exploration stopped before the whole state space was seen.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Limit {
    States(usize),
    Memory(u64),
    /// A bound of the semantics itself (nesting, value size): the model grows past what can
    /// be represented, so what lies beyond is unknown.
    Model(Fault),
}

impl std::fmt::Display for Limit {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Limit::States(n) => write!(f, "--max-states {n}"),
            Limit::Memory(bytes) => write!(f, "--max-memory {} MiB", bytes / (1024 * 1024)),
            Limit::Model(fault) => write!(f, "a bound of the semantics ({})", fault.kind),
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

/// A label to watch for: true for a label that decides a property.
pub type LabelGoal<'a> = Box<dyn Fn(&Label) -> bool + Sync + 'a>;

/// What exploration watches for, so that it can stop as soon as every property has its
/// verdict: a deadlock, a fault, or a transition whose label matches. With `whole` set (some
/// property needs the whole state space) or nothing to watch, it explores everything.
#[derive(Default)]
pub struct Goals<'a> {
    pub deadlock: bool,
    pub fault: bool,
    pub labels: Vec<LabelGoal<'a>>,
    pub whole: bool,
}

impl Goals<'_> {
    fn everything(&self) -> bool {
        self.whole || (!self.deadlock && !self.fault && self.labels.is_empty())
    }
}

/// Counters a progress reporter may read while exploration runs.
#[derive(Debug, Default)]
pub struct Progress {
    pub states: std::sync::atomic::AtomicUsize,
    pub transitions: std::sync::atomic::AtomicUsize,
    pub depth: std::sync::atomic::AtomicUsize,
}

/// How an exploration ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum End {
    /// Every reachable state was expanded.
    Complete,
    /// Every property was decided before the whole state space was seen.
    Decided,
    /// A bound stopped it.
    Limit(Limit),
}

/// The explored state space.
pub struct Graph {
    pub states: Vec<State>,
    /// `edges[offsets[s]..offsets[s + 1]]` are the transitions of an expanded state `s`
    /// (faults excluded), each (label, target, actors) once, in the order the semantics
    /// first gives them.
    pub offsets: Vec<u32>,
    pub edges: Vec<Edge>,
    /// With [`Options::keep_renamings`]: for each edge, the source's fresh ids as the target
    /// numbers them.
    pub renamings: Vec<agentpi_semantics::Renaming>,
    /// For each state but the initial one: the state and edge index it was first reached by.
    pub parent: Vec<(u32, u32)>,
    pub labels: Vec<Label>,
    pub actor_sets: Vec<Vec<Actor>>,
    /// The name of each instance (see [`agentpi_semantics::Instance`]), by number.
    pub instances: Vec<String>,
    pub faults: Vec<FaultEdge>,
    pub end: End,
    /// Set when a bound stopped exploration: the states past `expanded` have no edges.
    pub limit: Option<Limit>,
    /// Number of states whose edges are known (states `0..expanded`).
    pub expanded: usize,
    pub max_depth: usize,
    /// Distinct (source, printed label, target) triples: the transitions of the state space
    /// as `agentpi lts` writes them with restricted channels kept.
    pub transitions: usize,
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
        self.transitions
    }

    /// Whether the whole state space was seen.
    pub fn is_complete(&self) -> bool {
        self.end == End::Complete
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

    fn new() -> Graph {
        Graph {
            states: Vec::new(),
            offsets: vec![0],
            edges: Vec::new(),
            renamings: Vec::new(),
            parent: Vec::new(),
            labels: Vec::new(),
            actor_sets: Vec::new(),
            instances: Vec::new(),
            faults: Vec::new(),
            end: End::Complete,
            limit: None,
            expanded: 0,
            max_depth: 0,
            transitions: 0,
        }
    }
}

/// How many frontier states have their successors computed at once: enough to keep every
/// thread busy, few enough that the successors of one chunk take little memory.
const CHUNK: usize = 4096;

/// Explores from `initial`.
pub fn explore(
    sem: &Semantics<'_>,
    initial: State,
    options: &Options,
    goals: &Goals<'_>,
    progress: &Progress,
) -> Graph {
    // Big stacks: spawning a deeply nested term recurses (see the binary's main thread).
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(options.threads)
        .stack_size(256 * 1024 * 1024)
        .build()
        .expect("thread pool");
    let mut run = Run::new(sem, options, goals);
    run.store
        .insert(&mut run.graph, initial.fingerprint(), initial);
    let (mut next, mut level_end) = (0usize, 1usize);
    while next < run.graph.states.len() {
        let chunk_end = (next + CHUNK).min(level_end);
        let succ: Vec<_> = pool.install(|| {
            (next..chunk_end)
                .into_par_iter()
                .map(|s| fingerprinted(sem.successors(&run.graph.states[s])))
                .collect()
        });
        for (s, transitions) in (next..chunk_end).zip(succ) {
            if let Some(end) = run.merge(s as u32, transitions) {
                run.graph.end = end;
                return run.finish(progress);
            }
        }
        next = chunk_end;
        if next == level_end && next < run.graph.states.len() {
            level_end = run.graph.states.len();
            run.graph.max_depth += 1;
        }
        record(progress, &run.graph);
    }
    run.finish(progress)
}

/// One exploration in progress.
struct Run<'g, 's, 'p> {
    sem: &'s Semantics<'p>,
    options: &'g Options,
    goals: &'g Goals<'g>,
    graph: Graph,
    store: Store,
    /// Which label goals have been met.
    met: Vec<bool>,
    deadlock_found: bool,
    fault_found: bool,
}

impl<'g, 's, 'p> Run<'g, 's, 'p> {
    fn new(sem: &'s Semantics<'p>, options: &'g Options, goals: &'g Goals<'g>) -> Self {
        Run {
            sem,
            options,
            goals,
            graph: Graph::new(),
            store: Store::default(),
            met: vec![false; goals.labels.len()],
            deadlock_found: false,
            fault_found: false,
        }
    }

    /// Adds the transitions of `source`; returns how exploration ends if it must stop here.
    /// A source whose transitions would pass a bound is left unexpanded, whole.
    fn merge(&mut self, source: u32, transitions: Vec<(u64, Transition)>) -> Option<End> {
        if let Some(limit) = self.bound_passed(&transitions) {
            self.graph.limit = Some(limit.clone());
            return Some(End::Limit(limit));
        }
        let mut seen: FxHashSet<Edge> = FxHashSet::default();
        let (mut moves, mut faults) = (false, false);
        for (hash, t) in transitions {
            match t.fault {
                Some(fault) => {
                    faults = true;
                    self.fault(source, t.label, fault);
                }
                None => {
                    moves = true;
                    self.edge(source, hash, t, &mut seen);
                }
            }
        }
        self.graph.offsets.push(self.graph.edges.len() as u32);
        self.graph.expanded += 1;
        self.store.bytes += 12 * self.graph.successors(source).len() as u64;
        let state = &self.graph.states[source as usize];
        if !moves && !faults && self.goals.deadlock && !self.sem.is_valid_end(state) {
            self.deadlock_found = true;
        }
        self.decided().then_some(End::Decided)
    }

    /// The bound that merging these transitions would pass: a limit of the semantics met by
    /// one of them, or more states or memory than the options allow.
    fn bound_passed(&self, transitions: &[(u64, Transition)]) -> Option<Limit> {
        let limit_fault = transitions
            .iter()
            .find_map(|(_, t)| t.fault.as_ref().filter(|f| f.kind.is_limit()));
        if let Some(fault) = limit_fault {
            return Some(Limit::Model(fault.clone()));
        }
        if self.options.max_states.is_none() && self.options.max_memory.is_none() {
            return None;
        }
        let (mut count, mut bytes) = (0usize, 0u64);
        let mut new: FxHashMap<u64, Vec<&State>> = FxHashMap::default();
        for (hash, t) in transitions.iter().filter(|(_, t)| t.fault.is_none()) {
            let stored = !self.store.find(&self.graph, *hash, &t.target).1;
            let same_hash = new.entry(*hash).or_default();
            if !stored && !same_hash.contains(&&t.target) {
                same_hash.push(&t.target);
                count += 1;
                bytes += state_bytes(&t.target);
            }
        }
        let states = self.graph.states.len() + count;
        if let Some(max) = self.options.max_states.filter(|&m| states > m) {
            return Some(Limit::States(max));
        }
        let bytes = self.store.bytes + bytes;
        self.options
            .max_memory
            .filter(|&m| bytes > m)
            .map(Limit::Memory)
    }

    /// A faulty transition (an assertion or a run-time error).
    fn fault(&mut self, source: u32, label: Label, fault: Fault) {
        let label = self.store.label(&mut self.graph, label);
        self.graph.faults.push(FaultEdge {
            source,
            label,
            fault,
        });
        self.fault_found = true;
    }

    /// A transition into a state, stored once per (label, target, actors).
    fn edge(&mut self, source: u32, hash: u64, t: Transition, seen: &mut FxHashSet<Edge>) {
        let (mut target, fresh) = self.store.find(&self.graph, hash, &t.target);
        if fresh {
            target = self.store.insert(&mut self.graph, hash, t.target);
            let index = self.graph.edges.len() - self.graph.offsets[source as usize] as usize;
            self.graph.parent.push((source, index as u32));
        }
        let edge = self.new_edge(t.label, target, t.actors);
        if seen.insert(edge) {
            if self.options.keep_renamings {
                self.graph.renamings.push(t.renaming);
            }
            self.graph.edges.push(edge);
        }
    }

    fn new_edge(&mut self, label: Label, target: u32, actors: Vec<Actor>) -> Edge {
        let known = self.graph.labels.len();
        let label = self.store.label(&mut self.graph, label);
        if label as usize == known {
            self.watch_label(label);
        }
        let actors = self.store.actors(&mut self.graph, actors);
        Edge {
            label,
            target,
            actors,
        }
    }

    /// A label seen for the first time may meet a goal.
    fn watch_label(&mut self, label: u32) {
        let label = &self.graph.labels[label as usize];
        for (k, goal) in self.goals.labels.iter().enumerate() {
            if !self.met[k] && goal(label) {
                self.met[k] = true;
            }
        }
    }

    fn decided(&self) -> bool {
        let goals = self.goals;
        !goals.everything()
            && (!goals.deadlock || self.deadlock_found)
            && (!goals.fault || self.fault_found)
            && self.met.iter().all(|&m| m)
    }

    fn finish(mut self, progress: &Progress) -> Graph {
        self.graph.transitions = count_transitions(self.sem, &self.graph);
        record(progress, &self.graph);
        self.graph
    }
}

/// Distinct (source, printed label, target) triples over the expanded states.
fn count_transitions(sem: &Semantics<'_>, graph: &Graph) -> usize {
    let mut printed: FxHashMap<String, u32> = FxHashMap::default();
    let ids: Vec<u32> = graph
        .labels
        .iter()
        .map(|l| {
            let next = printed.len() as u32;
            *printed.entry(sem.label_text(l)).or_insert(next)
        })
        .collect();
    let mut count = 0;
    let mut seen = FxHashSet::default();
    for s in 0..graph.expanded as u32 {
        seen.clear();
        for e in graph.successors(s) {
            count += usize::from(seen.insert((ids[e.label as usize], e.target)));
        }
    }
    count
}

fn record(progress: &Progress, graph: &Graph) {
    use std::sync::atomic::Ordering::Relaxed;
    progress.states.store(graph.states.len(), Relaxed);
    progress.transitions.store(graph.edges.len(), Relaxed);
    progress.depth.store(graph.max_depth, Relaxed);
}

/// Pairs each transition with its target's fingerprint, computed here in the parallel part.
fn fingerprinted(transitions: Vec<Transition>) -> Vec<(u64, Transition)> {
    transitions
        .into_iter()
        .map(|t| (t.target.fingerprint(), t))
        .collect()
}

/// The visited states, by fingerprint, and the interned labels and actor sets.
#[derive(Default)]
struct Store {
    index: HashTable<u32>,
    hashes: Vec<u64>,
    labels: FxHashMap<Label, u32>,
    actor_sets: FxHashMap<Vec<Actor>, u32>,
    bytes: u64,
}

impl Store {
    /// The number of `state` and false if it is stored, else the number it would get and
    /// true.
    fn find(&self, graph: &Graph, hash: u64, state: &State) -> (u32, bool) {
        let states = &graph.states;
        match self.index.find(hash, |&id| states[id as usize] == *state) {
            Some(&id) => (id, false),
            None => (states.len() as u32, true),
        }
    }

    /// Adds a state that is not stored yet; returns its number.
    fn insert(&mut self, graph: &mut Graph, hash: u64, state: State) -> u32 {
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
