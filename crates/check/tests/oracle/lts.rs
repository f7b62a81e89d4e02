//! A system's whole state space, explored breadth first through `Semantics::successors`
//! with every state kept whole: the oracle's own, for deciding properties by brute force.

use agentpi_semantics::{Label, Renaming, Semantics, State};
use std::collections::HashMap;

/// One transition that does not fault, kept once per (label, target, instances, renaming).
#[derive(Clone, Debug)]
pub struct Edge {
    pub label: Label,
    pub target: usize,
    pub actors: Vec<u32>,
    /// The source's fresh ids as the target numbers them.
    pub renaming: Renaming,
}

pub struct Lts {
    /// In breadth-first order: `depth` is each state's distance from state 0.
    pub states: Vec<State>,
    pub depth: Vec<usize>,
    pub edges: Vec<Vec<Edge>>,
    /// Whether the state has a transition that faults (an assertion, a run-time error).
    pub faults: Vec<bool>,
}

impl Lts {
    /// System `system` of `sem`'s program, all of it; an error past `max_states` states.
    pub fn explore(sem: &Semantics<'_>, system: usize, max_states: usize) -> Result<Lts, String> {
        let initial = sem
            .initial(system)
            .map_err(|f| format!("the initial state faults: {f:?}"))?;
        let mut lts = Lts {
            states: vec![initial.clone()],
            depth: vec![0],
            edges: Vec::new(),
            faults: Vec::new(),
        };
        let mut index = HashMap::from([(initial, 0)]);
        while lts.edges.len() < lts.states.len() {
            let source = lts.edges.len();
            let (mut edges, mut faults) = (Vec::<Edge>::new(), false);
            for t in sem.successors(&lts.states[source]) {
                if t.fault.is_some() {
                    faults = true;
                    continue;
                }
                let next = lts.states.len();
                let target = *index.entry(t.target.clone()).or_insert(next);
                if target == next {
                    lts.states.push(t.target);
                    lts.depth.push(lts.depth[source] + 1);
                }
                let edge = Edge {
                    label: t.label,
                    target,
                    actors: t.actors,
                    renaming: t.renaming,
                };
                let same = |e: &Edge| {
                    (&e.label, e.target, &e.actors, &e.renaming)
                        == (&edge.label, edge.target, &edge.actors, &edge.renaming)
                };
                if !edges.iter().any(same) {
                    edges.push(edge);
                }
            }
            if lts.states.len() > max_states {
                return Err(format!("more than {max_states} states"));
            }
            lts.edges.push(edges);
            lts.faults.push(faults);
        }
        Ok(lts)
    }

    /// A state without any transition, faulty or not: a finite maximal path ends there.
    pub fn stuck(&self, state: usize) -> bool {
        self.edges[state].is_empty() && !self.faults[state]
    }

    /// The instances that can move in `state`.
    pub fn enabled(&self, state: usize) -> Vec<u32> {
        let mut all: Vec<u32> = self.edges[state]
            .iter()
            .flat_map(|e| e.actors.iter().copied())
            .collect();
        all.sort_unstable();
        all.dedup();
        all
    }
}
