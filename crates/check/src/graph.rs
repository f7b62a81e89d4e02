//! The explored state space: the visited store, and the edges where a property needs them.
//!
//! A safety check (deadlocks, assertions, `never`, `reachable`) is decided while exploring,
//! so its exploration keeps no edges: a state's parent link is the state alone (four bytes),
//! and the few edges a counterexample follows are found again by the semantics
//! ([`Graph::edges_of`]), in the order exploration first stored them.

pub use crate::edges::Edge;
use crate::edges::{EdgeStore, Edges};
use crate::store::Store;
use agentpi_semantics::{Actor, Fault, Label, Semantics, State};
use rustc_hash::FxHashMap;
use std::borrow::Cow;

/// Why exploration stopped before the whole state space was seen.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Limit {
    States(usize),
    Memory(u64),
    /// A bound of the semantics itself (nesting, value size): the model grows past what can
    /// be represented, so what lies beyond is unknown.
    Model(Fault),
    /// Not even one worker thread could be started: nothing was explored.
    Threads(String),
    /// The run's cancel flag was set ([`crate::Options::cancel`]).
    Cancelled,
}

impl std::fmt::Display for Limit {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Limit::States(n) => write!(f, "--max-states {n}"),
            Limit::Memory(bytes) => write!(f, "--max-memory {} MiB", bytes / (1024 * 1024)),
            Limit::Model(fault) => write!(f, "a bound of the semantics ({})", fault.kind),
            Limit::Threads(why) => write!(f, "the threads it could get ({why})"),
            Limit::Cancelled => write!(f, "cancellation"),
        }
    }
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

/// A transition that failed: an assertion, a range error, ...
#[derive(Clone, Debug)]
pub struct FaultEdge {
    pub source: u32,
    pub label: u32,
    pub fault: Fault,
}

/// The explored state space.
pub struct Graph {
    /// The states, numbered in breadth-first order of discovery (see [`Graph::state`]).
    pub(crate) store: Store,
    /// Whether edges are kept (see [`crate::Options::drop_edges`]).
    pub(crate) edges_kept: bool,
    /// With edges kept, the transitions of each expanded state (faults excluded), each
    /// (label, target, actors) once, in the order the semantics first gives them; with
    /// [`crate::Options::keep_renamings`], each with the source's fresh ids as the target
    /// numbers them.
    pub(crate) kept: EdgeStore,
    /// For each state but the initial one: the state it was first reached from (by the first
    /// of that state's edges into it).
    pub parent: Vec<u32>,
    pub labels: Vec<Label>,
    pub actor_sets: Vec<Vec<Actor>>,
    /// The name of each instance (see [`agentpi_semantics::Instance`]), by number.
    pub instances: Vec<String>,
    pub faults: Vec<FaultEdge>,
    pub end: End,
    /// Set when a bound stopped exploration: the states past `expanded` have no edges.
    pub limit: Option<Limit>,
    /// Set when fewer threads than asked could be started: what was refused.
    pub threads_note: Option<String>,
    /// Number of states whose edges are known (states `0..expanded`).
    pub expanded: usize,
    /// How many of them the engine's fast path expanded (the others took the reference
    /// semantics: fresh names, or moves not cached yet).
    pub fast: usize,
    /// How many of them were merged while the workers ran, their new states stored in the
    /// store the workers were reading (the others after them: see `explore::chunk_of`).
    pub alongside: usize,
    /// How many were expanded by a stubborn set smaller than all their transitions.
    pub reduced: usize,
    pub max_depth: usize,
    /// Distinct (source, printed label, target) triples: the transitions of the state space
    /// as `agentpi lts` writes them with restricted channels kept.
    pub transitions: usize,
    /// The first expanded state, in breadth-first order, without transitions that is not a
    /// valid end (watched when exploring for `deadlock free`).
    pub first_deadlock: Option<u32>,
    /// For each label goal of the exploration ([`crate::Goals::labels`]), the first edge in
    /// breadth-first order whose label meets it, as (source, edge index within the source).
    pub first_matches: Vec<Option<(u32, u32)>>,
    /// For each state goal ([`crate::Goals::states`]), the first expanded state in
    /// breadth-first order that meets it.
    pub first_states: Vec<Option<u32>>,
    /// The classes of interchangeable instances, with `--symmetry`: states are stored as
    /// representatives of their orbits.
    pub(crate) symmetry: Option<crate::symmetry::Symmetry>,
    /// The number of each label and each set of actors, for finding edges again (made the
    /// first time it is needed, once exploration is over).
    numbers: std::sync::OnceLock<Numbers>,
    /// For a graph of counterexample paths alone (see [`crate::parts::graph_of`]): the states
    /// and bytes of the exploration that found them, which the report gives.
    pub(crate) counted: Option<(usize, u64)>,
}

type Numbers = (FxHashMap<Label, u32>, FxHashMap<Vec<Actor>, u32>);

impl Graph {
    pub(crate) fn new(edges_kept: bool, goals: usize, state_goals: usize) -> Graph {
        Graph {
            store: Store::default(),
            edges_kept,
            kept: EdgeStore::default(),
            parent: Vec::new(),
            labels: Vec::new(),
            actor_sets: Vec::new(),
            instances: Vec::new(),
            faults: Vec::new(),
            end: End::Complete,
            limit: None,
            threads_note: None,
            expanded: 0,
            fast: 0,
            alongside: 0,
            reduced: 0,
            max_depth: 0,
            transitions: 0,
            first_deadlock: None,
            first_matches: vec![None; goals],
            first_states: vec![None; state_goals],
            numbers: std::sync::OnceLock::new(),
            symmetry: None,
            counted: None,
        }
    }

    /// State number `s`.
    pub fn state(&self, s: u32) -> State {
        self.store.state(s)
    }

    /// The number of a state of the graph.
    pub fn find(&self, state: &State) -> Option<u32> {
        self.store.find(&self.store.lookup(state)?)
    }

    /// How many states are stored (expanded or not).
    pub fn state_count(&self) -> usize {
        self.store.len()
    }

    /// The bytes the exploration holds, which `--max-memory` bounds: the visited store (see
    /// [`Store::bytes`]), the edges with their renamings, and the parent links.
    pub fn bytes(&self) -> u64 {
        let parents = 4 * self.parent.len();
        self.store.bytes() + self.kept.bytes() + parents as u64
    }

    /// The states the report gives: those stored, or those of the exploration that found a
    /// graph of paths.
    pub fn reported_states(&self) -> usize {
        self.counted.map_or_else(|| self.state_count(), |(s, _)| s)
    }

    /// The bytes the report gives (see [`Graph::reported_states`]).
    pub fn reported_bytes(&self) -> u64 {
        self.counted.map_or_else(|| self.bytes(), |(_, b)| b)
    }

    /// The stored edges of an expanded state (none when edges are not kept: see
    /// [`Graph::edges_of`]).
    pub fn successors(&self, s: u32) -> Edges<'_> {
        self.kept.of(s)
    }

    /// The kind of state `s`'s `i`-th stored edge (see [`crate::edges`]).
    pub(crate) fn kind(&self, s: u32, i: usize) -> u32 {
        self.kept.kind(s, i)
    }

    /// How many edges are stored (none when edges are not kept).
    pub fn stored_edges(&self) -> usize {
        self.kept.len()
    }

    /// The renaming of fresh names of state `s`'s `i`-th stored edge (`None` without
    /// [`crate::Options::keep_renamings`]).
    pub fn renaming(&self, s: u32, i: usize) -> Option<&[u32]> {
        self.kept.renaming(s, i)
    }

    /// The edges of an expanded state, stored or found again by the semantics: each
    /// (label, target, actors) once, in the order the semantics gives them, as exploration
    /// numbered them.
    pub fn edges_of(&self, sem: &Semantics<'_>, s: u32) -> Cow<'_, [Edge]> {
        if self.edges_kept {
            return Cow::Owned(self.successors(s).iter().collect());
        }
        let (labels, actors) = self.numbers.get_or_init(|| {
            let labels = self.labels.iter().cloned().zip(0..).collect();
            let actors = self.actor_sets.iter().cloned().zip(0..).collect();
            (labels, actors)
        });
        let mut edges: Vec<Edge> = Vec::new();
        for t in sem.successors(&self.state(s)) {
            if t.fault.is_some() {
                continue;
            }
            let edge = Edge {
                label: labels[&t.label],
                target: self
                    .find(&t.target)
                    .expect("every target of an expanded state"),
                actors: actors[&t.actors],
            };
            if !edges.contains(&edge) {
                edges.push(edge);
            }
        }
        Cow::Owned(edges)
    }

    pub fn is_expanded(&self, s: u32) -> bool {
        (s as usize) < self.expanded
    }

    pub fn transition_count(&self) -> usize {
        self.transitions
    }

    /// With `--symmetry`, how many classes of interchangeable instances were found.
    pub fn symmetric_classes(&self) -> usize {
        self.symmetry.as_ref().map_or(0, |s| s.classes())
    }

    /// Whether the whole state space was seen.
    pub fn is_complete(&self) -> bool {
        self.end == End::Complete
    }

    /// The edge that first reached `s` (for every state but the initial one), as (source,
    /// edge index within the source): the first of the source's edges into `s`.
    pub fn parent_edge(&self, sem: &Semantics<'_>, s: u32) -> Option<(u32, u32)> {
        let p = *self.parent.get((s as usize).checked_sub(1)?)?;
        let edges = self.edges_of(sem, p);
        let e = edges.iter().position(|e| e.target == s);
        Some((p, e.expect("a parent has an edge into its child") as u32))
    }

    /// The edges from the initial state to `s`, as (source, edge index within source).
    pub fn path_to(&self, sem: &Semantics<'_>, mut s: u32) -> Vec<(u32, u32)> {
        let mut path = Vec::new();
        while let Some((p, e)) = self.parent_edge(sem, s) {
            path.push((p, e));
            s = p;
        }
        path.reverse();
        path
    }
}
