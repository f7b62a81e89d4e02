//! A deliberately simple explorer, the reference the engine is tested against: serial
//! breadth-first search over `Semantics::successors`, every state stored whole in a hash map.
//! Not used by any command; kept obvious rather than fast.

use agentpi_semantics::{Actor, Fault, Label, Renaming, Semantics, State};
use std::collections::HashMap;

/// One transition, kept once per (label, target, actors) in the order the semantics gives.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Edge {
    pub label: Label,
    pub target: u32,
    pub actors: Vec<Actor>,
    /// The renaming of the first transition with this label, target and actors.
    pub renaming: Renaming,
}

/// What the reference explored.
#[derive(Debug, Default)]
pub struct Explored {
    /// In breadth-first order of discovery.
    pub states: Vec<State>,
    /// The edges of each expanded state.
    pub edges: Vec<Vec<Edge>>,
    /// (source, label, fault) of every faulty transition, in order.
    pub faults: Vec<(u32, Label, Fault)>,
    /// For each state but the first: the state and edge index it was first reached by.
    pub parent: Vec<(u32, u32)>,
    /// A limit of the semantics stopped it (at the first state with such a fault).
    pub limited: bool,
}

/// Explores from `initial`, expanding at most `max_expanded` states.
pub fn explore(sem: &Semantics<'_>, initial: State, max_expanded: usize) -> Explored {
    let mut out = Explored::default();
    let mut index: HashMap<State, u32> = HashMap::new();
    index.insert(initial.clone(), 0);
    out.states.push(initial);
    while out.edges.len() < out.states.len().min(max_expanded) {
        let source = out.edges.len() as u32;
        let transitions = sem.successors(&out.states[source as usize]);
        if transitions
            .iter()
            .any(|t| t.fault.iter().any(|f| f.kind.is_limit()))
        {
            out.limited = true;
            break;
        }
        let mut edges: Vec<Edge> = Vec::new();
        for t in transitions {
            if let Some(fault) = t.fault {
                out.faults.push((source, t.label, fault));
                continue;
            }
            let target = match index.get(&t.target) {
                Some(&target) => target,
                None => {
                    let target = out.states.len() as u32;
                    index.insert(t.target.clone(), target);
                    out.states.push(t.target);
                    out.parent.push((source, edges.len() as u32));
                    target
                }
            };
            let same = |e: &Edge| e.label == t.label && e.target == target && e.actors == t.actors;
            if !edges.iter().any(same) {
                edges.push(Edge {
                    label: t.label,
                    target,
                    actors: t.actors,
                    renaming: t.renaming,
                });
            }
        }
        out.edges.push(edges);
    }
    out
}
