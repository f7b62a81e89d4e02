//! The pieces of `check` a distributed exploration (`crates/cluster`) puts together: the
//! compressed store on its own ([`Visited`]), the goals of a set of safety checks, and a
//! [`Graph`] made of the counterexample paths alone, for the report to render traces from as
//! it does for a graph the single-process engine explored.

use crate::Goals;
use crate::graph::{FaultEdge, Graph};
use crate::store::Store;
use agentpi_ir::core::{Program, Property};
use agentpi_semantics::{Fault, Semantics, State};
use rustc_hash::FxHashMap;

/// A set of states in the single-process engine's compressed store, numbered in the order
/// they were added.
#[derive(Default)]
pub struct Visited {
    store: Store,
}

impl Visited {
    /// Adds `state` unless it is there; its number, and whether it was new.
    pub fn insert(&mut self, state: &State) -> (u32, bool) {
        let key = self.store.intern(state);
        self.store.find_or_insert(None, &key.ids)
    }

    /// The number of `state`, if it was added.
    pub fn find(&self, state: &State) -> Option<u32> {
        self.store.find(&self.store.lookup(state)?)
    }

    /// State number `i`.
    pub fn state(&self, i: u32) -> State {
        self.store.state(i)
    }

    pub fn len(&self) -> usize {
        self.store.len()
    }

    pub fn is_empty(&self) -> bool {
        self.store.len() == 0
    }

    /// The bytes held, as `--max-memory` weighs the single-process store.
    pub fn bytes(&self) -> u64 {
        self.store.bytes()
    }
}

/// Whether a property is decided while exploring breadth first (deadlocks, `never`,
/// `reachable`, state checks): what a distributed exploration decides.
pub fn is_safety(property: &Property) -> bool {
    matches!(
        property,
        Property::DeadlockFree | Property::Never(_) | Property::Reachable(_) | Property::State(..)
    )
}

/// The goals `check_system` explores system `system` for, with the checks `checks`
/// (relations left out, as it leaves them).
pub fn goals_for<'a>(
    sem: &'a Semantics<'a>,
    program: &'a Program,
    system: usize,
    checks: &[usize],
) -> Goals<'a> {
    let defs: Vec<&'a agentpi_ir::core::CheckDef> = checks
        .iter()
        .map(|&c| &program.checks[c])
        .filter(|c| !matches!(c.property, Property::Relation(_)))
        .collect();
    let reads = defs
        .iter()
        .any(|c| matches!(c.property, Property::State(..)));
    let instances = match reads {
        true => sem
            .initial_with_instances(system)
            .map(|(_, i)| i)
            .unwrap_or_default(),
        false => Vec::new(),
    };
    crate::goals_of(sem, &defs, &instances)
}

/// What a distributed exploration found, for [`graph_of`]: counts, how it ended, and each
/// first finding as the path of states from the initial one to its source.
pub struct Findings {
    pub states: usize,
    pub transitions: usize,
    pub depth: usize,
    pub expanded: usize,
    pub bytes: u64,
    pub end: crate::End,
    pub deadlock: Option<Vec<State>>,
    /// The path to the faulty transition's source, its label and its fault.
    pub fault: Option<(Vec<State>, agentpi_semantics::Label, Fault)>,
    /// For each label goal, the path to the source and the edge's index among its edges.
    pub matches: Vec<Option<(Vec<State>, u32)>>,
    pub state_goals: Vec<Option<Vec<State>>>,
}

/// A graph holding the paths of `findings` and every successor of their states (what
/// rendering a trace reads), with the counts of the exploration that found them.
pub fn graph_of(sem: &Semantics<'_>, system: usize, f: Findings) -> Graph {
    let goals = f.matches.len();
    let mut graph = Graph::new(false, goals, f.state_goals.len());
    graph.instances = sem
        .initial_with_instances(system)
        .map(|(_, i)| i)
        .unwrap_or_default();
    let mut paths = Paths::new(sem, &mut graph);
    graph_paths(&mut paths, &f);
    let number = |p: &[State]| paths.number(p);
    let deadlock = f.deadlock.as_deref().map(number);
    let fault = f.fault.as_ref().map(|(p, l, fault)| (number(p), l, fault));
    let matches: Vec<_> = f
        .matches
        .iter()
        .map(|m| m.as_ref().map(|(p, e)| (number(p), *e)))
        .collect();
    let states: Vec<_> = f
        .state_goals
        .iter()
        .map(|s| s.as_deref().map(number))
        .collect();
    paths.finish();
    graph.first_deadlock = deadlock;
    if let Some((source, label, fault)) = fault {
        let label = label_number(&mut graph, label);
        graph.faults.push(FaultEdge {
            source,
            label,
            fault: fault.clone(),
        });
    }
    graph.first_matches = matches;
    graph.first_states = states;
    graph.counted = Some((f.states, f.bytes));
    graph.transitions = f.transitions;
    graph.max_depth = f.depth;
    graph.expanded = f.expanded;
    graph.limit = match &f.end {
        crate::End::Limit(l) => Some(l.clone()),
        _ => None,
    };
    graph.end = f.end;
    graph
}

fn graph_paths(paths: &mut Paths<'_, '_, '_>, f: &Findings) {
    let all = f
        .deadlock
        .iter()
        .chain(f.fault.iter().map(|(p, _, _)| p))
        .chain(f.matches.iter().flatten().map(|(p, _)| p))
        .chain(f.state_goals.iter().flatten());
    for path in all {
        paths.add(path);
    }
}

fn label_number(graph: &mut Graph, label: &agentpi_semantics::Label) -> u32 {
    match graph.labels.iter().position(|l| l == label) {
        Some(i) => i as u32,
        None => {
            graph.labels.push(label.clone());
            graph.labels.len() as u32 - 1
        }
    }
}

/// Builds the graph of the paths: every path state with its real parent (the one before it
/// on its path: the distributed search's parents are the single-process engine's), then
/// every successor of every path state, with labels and actor sets numbered.
struct Paths<'g, 's, 'p> {
    sem: &'s Semantics<'p>,
    graph: &'g mut Graph,
    sources: Vec<u32>,
    actors: FxHashMap<Vec<agentpi_semantics::Actor>, u32>,
}

impl<'g, 's, 'p> Paths<'g, 's, 'p> {
    fn new(sem: &'s Semantics<'p>, graph: &'g mut Graph) -> Self {
        Paths {
            sem,
            graph,
            sources: Vec::new(),
            actors: FxHashMap::default(),
        }
    }

    fn add(&mut self, path: &[State]) {
        let mut parent = None;
        for state in path {
            let key = self.graph.store.intern(state);
            let (n, new) = self.graph.store.find_or_insert(None, &key.ids);
            if new {
                if let Some(p) = parent {
                    self.graph.parent.push(p);
                }
                self.sources.push(n);
            }
            parent = Some(n);
        }
    }

    fn number(&self, path: &[State]) -> u32 {
        let last = path.last().expect("a path starts at the initial state");
        self.graph.find(last).expect("a path's states are added")
    }

    /// Adds every successor of the path states (after them, so that the path states keep
    /// the parents their paths give them), and numbers every label and set of actors.
    fn finish(mut self) {
        for s in std::mem::take(&mut self.sources) {
            for t in self.sem.successors(&self.graph.state(s)) {
                label_number(self.graph, &t.label);
                if t.fault.is_some() {
                    continue;
                }
                let next = self.graph.actor_sets.len() as u32;
                if let std::collections::hash_map::Entry::Vacant(v) =
                    self.actors.entry(t.actors.clone())
                {
                    v.insert(next);
                    self.graph.actor_sets.push(t.actors);
                }
                let key = self.graph.store.intern(&t.target);
                let (_, new) = self.graph.store.find_or_insert(None, &key.ids);
                if new {
                    self.graph.parent.push(s);
                }
            }
        }
    }
}
