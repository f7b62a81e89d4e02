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

use crate::engine::{Engine, Expansion, FastSucc, Miss, Target};
use crate::store::{Key, Store, state_bytes};
use agentpi_semantics::{Actor, Fault, Label, Semantics, State, Transition};
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
    /// The states, numbered in breadth-first order of discovery (see [`Graph::state`]).
    store: Store,
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
    /// How many of them the engine's fast path expanded (the others took the reference
    /// semantics: fresh names, or moves not cached yet).
    pub fast: usize,
    pub max_depth: usize,
    /// Distinct (source, printed label, target) triples: the transitions of the state space
    /// as `agentpi lts` writes them with restricted channels kept.
    pub transitions: usize,
}

impl Graph {
    /// State number `s`.
    pub fn state(&self, s: u32) -> State {
        self.store.state(s)
    }

    /// How many states are stored (expanded or not).
    pub fn state_count(&self) -> usize {
        self.store.len()
    }

    /// The bytes the exploration holds, which `--max-memory` bounds: the visited store (see
    /// [`Store::bytes`]), the edges and the parent links.
    pub fn bytes(&self) -> u64 {
        let edges = std::mem::size_of::<Edge>() * self.edges.len();
        let parents = 8 * self.parent.len();
        self.store.bytes() + (edges + parents) as u64
    }

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
            store: Store::default(),
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
            fast: 0,
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
    let key = run.graph.store.intern(&initial);
    run.graph.store.insert(&key);
    let (mut next, mut level_end) = (0usize, 1usize);
    while next < run.graph.state_count() {
        let chunk_end = (next + run.chunk()).min(level_end);
        let (store, engine) = (&run.graph.store, &run.engine);
        let succ: Vec<_> = pool.install(|| {
            (next..chunk_end)
                .into_par_iter()
                .map(|s| expand(sem, engine, store, s as u32))
                .collect()
        });
        for (s, expanded) in (next..chunk_end).zip(succ) {
            if let Some(end) = run.merge(s as u32, expanded) {
                run.graph.end = end;
                return run.finish(progress);
            }
        }
        next = chunk_end;
        if next == level_end && next < run.graph.state_count() {
            level_end = run.graph.state_count();
            run.graph.max_depth += 1;
        }
        record(progress, &run.graph);
    }
    run.finish(progress)
}

/// What a worker made of one frontier state.
enum Expanded {
    /// By the engine's fast path.
    Fast(Vec<FastSucc>),
    /// By the reference semantics, with what the engine's cache was missing.
    Slow(Keyed, Vec<Miss>),
}

fn expand(sem: &Semantics<'_>, engine: &Engine<'_, '_>, store: &Store, s: u32) -> Expanded {
    match engine.expand(store, s) {
        Expansion::Fast(succ) => Expanded::Fast(succ),
        Expansion::Slow(misses) => {
            Expanded::Slow(keyed(store, sem.successors(&store.state(s))), misses)
        }
    }
}

/// One exploration in progress.
struct Run<'g, 's, 'p> {
    sem: &'s Semantics<'p>,
    engine: Engine<'s, 'p>,
    /// The graph's number of each of the engine's labels (`u32::MAX`: not seen yet).
    engine_labels: Vec<u32>,
    options: &'g Options,
    goals: &'g Goals<'g>,
    graph: Graph,
    names: Names,
    /// Which label goals have been met.
    met: Vec<bool>,
    deadlock_found: bool,
    fault_found: bool,
    /// The labels that have been held to the goals.
    watched: Vec<bool>,
}

impl<'g, 's, 'p> Run<'g, 's, 'p> {
    fn new(sem: &'s Semantics<'p>, options: &'g Options, goals: &'g Goals<'g>) -> Self {
        Run {
            sem,
            engine: Engine::new(sem),
            engine_labels: Vec::new(),
            options,
            goals,
            graph: Graph::new(),
            names: Names::default(),
            met: vec![false; goals.labels.len()],
            deadlock_found: false,
            fault_found: false,
            watched: Vec::new(),
        }
    }

    /// How many frontier states to expand at once: [`CHUNK`], or fewer near a bound, so that
    /// no more successors are computed than the bound can still take.
    fn chunk(&self) -> usize {
        let states = self.graph.state_count();
        let mut chunk = CHUNK;
        if let Some(max) = self.options.max_states {
            chunk = chunk.min(max.saturating_sub(states));
        }
        if let Some(max) = self.options.max_memory {
            let bytes = self.graph.bytes();
            let per_state = (bytes / states.max(1) as u64).max(1);
            let left = max.saturating_sub(bytes) / per_state;
            chunk = chunk.min(left as usize);
        }
        chunk.max(1)
    }

    /// Adds the transitions of `source`; returns how exploration ends if it must stop here.
    /// A source whose transitions would pass a bound is left unexpanded, whole.
    fn merge(&mut self, source: u32, expanded: Expanded) -> Option<End> {
        match expanded {
            Expanded::Fast(succ) => {
                self.graph.fast += 1;
                self.merge_fast(source, succ)
            }
            Expanded::Slow(transitions, misses) => {
                let end = self.merge_slow(source, transitions);
                if end.is_none() {
                    self.engine.fill(&mut self.graph.store, misses);
                }
                end
            }
        }
    }

    fn merge_slow(&mut self, source: u32, transitions: Keyed) -> Option<End> {
        if let Some(fault) = limit_fault(transitions.iter().map(|(_, t)| t.fault.as_ref())) {
            return Some(self.stop(Limit::Model(fault.clone())));
        }
        let transitions = self.complete_keys(transitions);
        let new = transitions.iter().filter_map(|(key, _)| key.as_ref());
        if let Some(limit) = self.bound_passed(new, transitions.len()) {
            return Some(self.stop(limit));
        }
        let mut seen: FxHashSet<Edge> = FxHashSet::default();
        let (mut moves, mut faults) = (false, false);
        for (key, t) in transitions {
            let label = self.names.label(&mut self.graph, t.label);
            match (t.fault, key) {
                (Some(fault), _) => {
                    faults = true;
                    self.fault(source, label, fault);
                }
                (None, Some(key)) => {
                    moves = true;
                    let target = self.target(source, &key);
                    let actors = self.names.actors(&mut self.graph, t.actors);
                    self.edge(target, label, actors, t.renaming, &mut seen);
                }
                (None, None) => unreachable!("every transition has its key (complete_keys)"),
            }
        }
        self.expanded(source, moves, faults)
    }

    fn merge_fast(&mut self, source: u32, succ: Vec<FastSucc>) -> Option<End> {
        let faults = succ.iter().map(|t| match t {
            FastSucc::Fault { fault, .. } => Some(fault),
            FastSucc::To { .. } => None,
        });
        if let Some(fault) = limit_fault(faults) {
            return Some(self.stop(Limit::Model(fault.clone())));
        }
        let new = succ.iter().filter_map(|t| match t {
            FastSucc::To {
                target: Target::New(key),
                ..
            } => Some(key),
            _ => None,
        });
        if let Some(limit) = self.bound_passed(new, succ.len()) {
            return Some(self.stop(limit));
        }
        let mut seen: FxHashSet<Edge> = FxHashSet::default();
        let (mut moves, mut faults) = (false, false);
        for t in succ {
            match t {
                FastSucc::Fault { label, fault } => {
                    faults = true;
                    let label = self.engine_label(label);
                    self.fault(source, label, fault);
                }
                FastSucc::To {
                    label,
                    actors,
                    target,
                } => {
                    moves = true;
                    let label = self.engine_label(label);
                    let target = match target {
                        Target::Known(t) => t,
                        Target::New(key) => self.target(source, &key),
                    };
                    let actors = self.names.actors(&mut self.graph, actors.to_vec());
                    self.edge(target, label, actors, Box::default(), &mut seen);
                }
            }
        }
        self.expanded(source, moves, faults)
    }

    /// Ends the expansion of `source`: its edges are complete; a state without transitions
    /// may be a deadlock.
    fn expanded(&mut self, source: u32, moves: bool, faults: bool) -> Option<End> {
        self.graph.offsets.push(self.graph.edges.len() as u32);
        self.graph.expanded += 1;
        if !moves && !faults && self.goals.deadlock {
            let state = self.graph.state(source);
            self.deadlock_found |= !self.sem.is_valid_end(&state);
        }
        self.decided().then_some(End::Decided)
    }

    fn stop(&mut self, limit: Limit) -> End {
        self.graph.limit = Some(limit.clone());
        End::Limit(limit)
    }

    /// The graph's number of one of the engine's labels.
    fn engine_label(&mut self, label: u32) -> u32 {
        let i = label as usize;
        if let Some(&known) = self.engine_labels.get(i).filter(|&&l| l != u32::MAX) {
            return known;
        }
        let text = self.engine.labels.items[i].clone();
        let number = self.names.label(&mut self.graph, text);
        if self.engine_labels.len() <= i {
            self.engine_labels.resize(i + 1, u32::MAX);
        }
        self.engine_labels[i] = number;
        number
    }

    /// The number of the target with this key, storing it (reached from `source` by the
    /// edge about to be added) when new.
    fn target(&mut self, source: u32, key: &Key) -> u32 {
        match self.graph.store.find(key) {
            Some(target) => target,
            None => {
                let index = self.graph.edges.len() - self.graph.offsets[source as usize] as usize;
                self.graph.parent.push((source, index as u32));
                self.graph.store.insert(key)
            }
        }
    }

    /// Interns, in frontier order, the targets that held a component the store did not know
    /// when the workers looked them up.
    fn complete_keys(&mut self, transitions: Keyed) -> Keyed {
        let store = &mut self.graph.store;
        let complete = |(key, t): (Option<Key>, Transition)| match (key, &t.fault) {
            (None, None) => (Some(store.intern(&t.target)), t),
            (key, _) => (key, t),
        };
        transitions.into_iter().map(complete).collect()
    }

    /// The bound that merging these transitions (`count` of them, with the keys `keys` of
    /// targets not known before) would pass: more states or memory than the options allow.
    /// (Their new components are interned already and counted.)
    fn bound_passed<'k>(&self, keys: impl Iterator<Item = &'k Key>, count: usize) -> Option<Limit> {
        if self.options.max_states.is_none() && self.options.max_memory.is_none() {
            return None;
        }
        let (mut states, mut bytes) = (0usize, 0u64);
        let mut new: FxHashSet<&Key> = FxHashSet::default();
        for key in keys {
            if self.graph.store.find(key).is_none() && new.insert(key) {
                states += 1;
                // A new state also adds an edge and a parent link.
                bytes += state_bytes(key) + 8;
            }
        }
        let edges = count as u64 * std::mem::size_of::<Edge>() as u64;
        let states = self.graph.state_count() + states;
        if let Some(max) = self.options.max_states.filter(|&m| states > m) {
            return Some(Limit::States(max));
        }
        let bytes = self.graph.bytes() + bytes + edges;
        self.options
            .max_memory
            .filter(|&m| bytes > m)
            .map(Limit::Memory)
    }

    /// A faulty transition (an assertion or a run-time error).
    fn fault(&mut self, source: u32, label: u32, fault: Fault) {
        self.graph.faults.push(FaultEdge {
            source,
            label,
            fault,
        });
        self.fault_found = true;
    }

    /// A transition into a stored state, kept once per (label, target, actors).
    fn edge(
        &mut self,
        target: u32,
        label: u32,
        actors: u32,
        renaming: agentpi_semantics::Renaming,
        seen: &mut FxHashSet<Edge>,
    ) {
        self.watch_label(label);
        let edge = Edge {
            label,
            target,
            actors,
        };
        if seen.insert(edge) {
            if self.options.keep_renamings {
                self.graph.renamings.push(renaming);
            }
            self.graph.edges.push(edge);
        }
    }

    /// A label seen on an edge for the first time may meet a goal. (A label seen first on a
    /// fault is watched when an edge first carries it: a fault is no edge.)
    fn watch_label(&mut self, label: u32) {
        let i = label as usize;
        if self.watched.len() <= i {
            self.watched.resize(i + 1, false);
        }
        if std::mem::replace(&mut self.watched[i], true) {
            return;
        }
        let label = &self.graph.labels[i];
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
    progress.states.store(graph.state_count(), Relaxed);
    progress.transitions.store(graph.edges.len(), Relaxed);
    progress.depth.store(graph.max_depth, Relaxed);
}

/// Transitions, each with its target's key when the workers could compute it.
type Keyed = Vec<(Option<Key>, Transition)>;

/// Pairs each transition with its target's key, computed here in the parallel part when the
/// store knows every component of the target already (nearly always: a step moves one or two
/// components, and those into states seen before); the merge interns the rest in frontier
/// order, so the store is the same whatever the thread count.
fn keyed(store: &Store, transitions: Vec<Transition>) -> Keyed {
    let key = |mut t: Transition| {
        let key = t.fault.is_none().then(|| store.lookup(&t.target)).flatten();
        if key.is_some() {
            // The merge needs only the key: the target is freed here, in parallel.
            t.target = empty_state();
        }
        (key, t)
    };
    transitions.into_iter().map(key).collect()
}

fn empty_state() -> State {
    State {
        procs: Box::default(),
        queues: Box::default(),
        fresh: 0,
    }
}

/// A limit of the semantics met by one of the transitions.
fn limit_fault<'f>(faults: impl Iterator<Item = Option<&'f Fault>>) -> Option<&'f Fault> {
    faults.flatten().find(|f| f.kind.is_limit())
}

/// The interned labels and actor sets.
#[derive(Default)]
struct Names {
    labels: FxHashMap<Label, u32>,
    actor_sets: FxHashMap<Vec<Actor>, u32>,
}

impl Names {
    fn label(&mut self, graph: &mut Graph, label: Label) -> u32 {
        if let Some(&known) = self.labels.get(&label) {
            return known;
        }
        let next = graph.labels.len() as u32;
        *self.labels.entry(label.clone()).or_insert_with(|| {
            graph.labels.push(label);
            next
        })
    }

    fn actors(&mut self, graph: &mut Graph, actors: Vec<Actor>) -> u32 {
        if let Some(&known) = self.actor_sets.get(&actors) {
            return known;
        }
        let next = graph.actor_sets.len() as u32;
        *self.actor_sets.entry(actors.clone()).or_insert_with(|| {
            graph.actor_sets.push(actors);
            next
        })
    }
}
