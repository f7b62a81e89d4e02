//! Counterexample traces: replaying a path through the semantics to print its labels, with
//! fresh channels keeping one name along the whole trace (`reply#1`, `reply#2`, numbered in
//! order of first appearance, the number shown only where one name has several instances).

use crate::graph::{FaultEdge, Graph};
use crate::product::Step;
use agentpi_semantics::{Actor, Chan, DEAD, Label, Semantics, State, Transition};
use rustc_hash::FxHashMap;

/// One printed step of a trace.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TraceStep {
    pub label: String,
    /// The components that moved, by definition name (the system's name for its body): the
    /// sender first for a communication.
    pub actors: Vec<String>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Trace {
    pub steps: Vec<TraceStep>,
    /// For a lasso, the index of the first step of the loop.
    pub loop_start: Option<usize>,
    /// The states along the trace: the one before the first step, then the one after each
    /// step (`check --states` shows them); empty for a trace not replayed from a model.
    pub states: Vec<State>,
}

/// Replays `steps` (and a last faulty transition) through the semantics and prints them.
pub fn render(
    sem: &Semantics<'_>,
    graph: &Graph,
    system: &str,
    steps: &[Step],
    fault: Option<&FaultEdge>,
    loop_start: Option<usize>,
) -> Trace {
    render_to_end(sem, graph, system, steps, fault, loop_start).0
}

/// [`render`], with the state the trace ends in (the state reached, which under symmetry
/// reduction may differ from the stored representative in who holds what).
pub fn render_to_end(
    sem: &Semantics<'_>,
    graph: &Graph,
    system: &str,
    steps: &[Step],
    fault: Option<&FaultEdge>,
    loop_start: Option<usize>,
) -> (Trace, State) {
    let start = steps
        .first()
        .map_or(fault.map_or(0, |f| f.source), |s| s.state);
    let taken = match &graph.symmetry {
        None => {
            let mut taken: Vec<Transition> = steps
                .iter()
                .map(|st| replay_edge(sem, graph, st.state, st.edge))
                .collect();
            taken.extend(fault.map(|f| replay_fault(sem, graph, f)));
            taken
        }
        Some(symmetry) => walk(sem, graph, symmetry, start, steps, fault),
    };
    let names = Instances::follow(sem, &graph.state(start), &taken);
    let steps = taken
        .iter()
        .enumerate()
        .map(|(i, t)| TraceStep {
            label: sem.fmt_label(&t.label, &mut |c| names.name(sem, i, c)),
            actors: t
                .actors
                .iter()
                .map(|a| actor_name(graph, *a, system))
                .collect(),
        })
        .collect();
    let mut states = vec![graph.state(start)];
    states.extend(taken.iter().map(|t| t.target.clone()));
    let end = states.last().cloned().expect("the trace starts somewhere");
    let trace = Trace {
        steps,
        loop_start,
        states,
    };
    (trace, end)
}

/// The transition of the semantics that a stored edge stands for: the first with its label,
/// target and actors (the graph keeps each such triple once).
pub fn replay_edge(sem: &Semantics<'_>, graph: &Graph, state: u32, edge: u32) -> Transition {
    let e = graph.edges_of(sem, state)[edge as usize];
    let (label, target) = (&graph.labels[e.label as usize], &graph.state(e.target));
    let actors = &graph.actor_sets[e.actors as usize];
    sem.successors(&graph.state(state))
        .into_iter()
        .find(|t| {
            t.fault.is_none() && t.label == *label && t.target == *target && t.actors == *actors
        })
        .expect("a stored edge is a transition of the semantics, which is deterministic")
}

/// With symmetry reduction the stored states are representatives: the run is followed from
/// the start, each step the transition of the state actually reached whose target is in the
/// orbit of the stored one (labels compared as printed: names in states of one orbit may be
/// numbered differently).
fn walk(
    sem: &Semantics<'_>,
    graph: &Graph,
    symmetry: &crate::symmetry::Symmetry,
    start: u32,
    steps: &[Step],
    fault: Option<&FaultEdge>,
) -> Vec<Transition> {
    let mut current = graph.state(start);
    let mut taken = Vec::new();
    for st in steps {
        let e = graph.edges_of(sem, st.state)[st.edge as usize];
        let label = sem.label_text(&graph.labels[e.label as usize]);
        let target = graph.state(e.target);
        let t = sem
            .successors(&current)
            .into_iter()
            .find(|t| {
                t.fault.is_none()
                    && sem.label_text(&t.label) == label
                    && symmetry.same_orbit(&t.target, &target)
            })
            .expect("a stored edge stands for a transition of every state of its source's orbit");
        current = t.target.clone();
        taken.push(t);
    }
    if let Some(f) = fault {
        let label = sem.label_text(&graph.labels[f.label as usize]);
        let t = sem
            .successors(&current)
            .into_iter()
            .find(|t| t.fault.as_ref() == Some(&f.fault) && sem.label_text(&t.label) == label)
            .expect("a stored fault is a transition of every state of its source's orbit");
        taken.push(t);
    }
    taken
}

fn replay_fault(sem: &Semantics<'_>, graph: &Graph, fault: &FaultEdge) -> Transition {
    let label = &graph.labels[fault.label as usize];
    sem.successors(&graph.state(fault.source))
        .into_iter()
        .find(|t| t.fault.as_ref() == Some(&fault.fault) && t.label == *label)
        .expect("a stored fault is a transition of the semantics, which is deterministic")
}

/// An instance by the call that started it (`Phil(3)`), or the system's name.
pub fn actor_name(graph: &Graph, actor: Actor, system: &str) -> String {
    match graph.instances.get(actor as usize) {
        Some(name) if actor > 0 => name.clone(),
        _ => system.to_string(),
    }
}

/// Which instance each fresh id is, step by step. Every fresh name gets an identity when it
/// first exists; instances are numbered per printed name in order of first appearance in a
/// label, so two `new r` in different processes never print alike, and names that never show
/// in a label take no number.
struct Instances {
    /// Per step: fresh id in the step's source numbering to its identity.
    per_step: Vec<FxHashMap<u32, u32>>,
    /// Identity to its instance number among names printed alike.
    number: FxHashMap<u32, u32>,
    /// Printed name to how many of its instances appear.
    counts: FxHashMap<String, u32>,
}

impl Instances {
    fn follow(sem: &Semantics<'_>, start: &State, taken: &[Transition]) -> Instances {
        let mut next_identity = 0;
        let mut current = FxHashMap::default();
        identify(start, &mut current, &mut next_identity);
        let mut per_step = Vec::new();
        let mut order = Vec::new();
        for t in taken {
            let mut here = current.clone();
            for_each_label_chan(&t.label, &mut |id, origin| {
                let identity = *here.entry(id).or_insert_with(|| bump(&mut next_identity));
                order.push((identity, origin));
            });
            let mut after = FxHashMap::default();
            for (&id, &identity) in &here {
                if let Some(&to) = t.renaming.get(id as usize).filter(|&&to| to != DEAD) {
                    after.insert(to, identity);
                }
            }
            identify(&t.target, &mut after, &mut next_identity);
            per_step.push(here);
            current = after;
        }
        let (mut number, mut counts) = (FxHashMap::default(), FxHashMap::default());
        for (identity, origin) in order {
            number.entry(identity).or_insert_with(|| {
                let k = counts
                    .entry(sem.origin_name(origin).to_string())
                    .or_insert(0);
                *k += 1;
                *k
            });
        }
        Instances {
            per_step,
            number,
            counts,
        }
    }

    fn name(&self, sem: &Semantics<'_>, step: usize, chan: Chan) -> String {
        let base = sem.chan_name(chan).to_string();
        let Chan::Fresh { id, .. } = chan else {
            return base;
        };
        let several = self.counts.get(&base).copied().unwrap_or(0) > 1;
        match self.per_step[step]
            .get(&id)
            .and_then(|i| self.number.get(i))
        {
            Some(k) if several => format!("{base}#{k}"),
            _ => base,
        }
    }
}

fn bump(counter: &mut u32) -> u32 {
    *counter += 1;
    *counter
}

/// Gives an identity to the fresh names of `state` that have none yet.
fn identify(state: &State, map: &mut FxHashMap<u32, u32>, next: &mut u32) {
    state.for_each_value(&mut |v| {
        each_fresh_chan(v, &mut |id, _| {
            map.entry(id).or_insert_with(|| bump(next));
        });
    });
}

/// The fresh channels of a label, the channel first, in order.
fn for_each_label_chan(label: &Label, f: &mut impl FnMut(u32, u32)) {
    if let Some(Chan::Fresh { id, origin }) = label.head.chan() {
        f(id, origin);
    }
    label.args.iter().for_each(|v| each_fresh_chan(v, f));
}

fn each_fresh_chan(value: &agentpi_semantics::Value, f: &mut impl FnMut(u32, u32)) {
    use agentpi_semantics::Value;
    match value {
        Value::Chan(Chan::Fresh { id, origin }) => f(*id, *origin),
        Value::Ctor(_, _, vs) | Value::Tuple(vs) => vs.iter().for_each(|v| each_fresh_chan(v, f)),
        _ => {}
    }
}

/// The label of a stored edge, printed without instance numbers (for `lts` output).
pub fn plain_label(sem: &Semantics<'_>, label: &Label, hide_fresh: bool) -> String {
    match label.head.chan() {
        Some(Chan::Fresh { .. }) if hide_fresh => "tau".to_string(),
        _ => sem.label_text(label),
    }
}

/// Stable names for the fresh channels of a run that is being taken step by step (`sim`):
/// each gets `name#k`, numbered per printed name in order of first appearance, and keeps it
/// while canonical states renumber their fresh ids.
#[derive(Clone, Debug, Default)]
pub struct RunNames {
    /// Fresh id in the current state to its identity.
    current: FxHashMap<u32, u32>,
    /// Identity to its number among names printed alike.
    number: FxHashMap<u32, u32>,
    counts: FxHashMap<String, u32>,
    next: u32,
}

impl RunNames {
    /// Names for a run starting in `state`.
    pub fn new(sem: &Semantics<'_>, state: &State) -> RunNames {
        let mut names = RunNames::default();
        names.meet(sem, state);
        names
    }

    /// How `chan` prints in the current state (and in the labels of its transitions, where a
    /// name made by the step prints with the number it will get).
    pub fn name(&self, sem: &Semantics<'_>, chan: Chan) -> String {
        let base = sem.chan_name(chan).to_string();
        let Chan::Fresh { id, .. } = chan else {
            return base;
        };
        match self.current.get(&id).and_then(|i| self.number.get(i)) {
            Some(k) => format!("{base}#{k}"),
            None => format!("{base}#new"),
        }
    }

    /// The names after `t` is taken.
    pub fn after(&self, sem: &Semantics<'_>, t: &Transition) -> RunNames {
        let mut next = self.clone();
        next.current = self
            .current
            .iter()
            .filter_map(|(&id, &identity)| {
                let to = *t.renaming.get(id as usize)?;
                (to != DEAD).then_some((to, identity))
            })
            .collect();
        next.meet(sem, &t.target);
        next
    }

    /// Gives the fresh names of `state` that have none an identity and a number.
    fn meet(&mut self, sem: &Semantics<'_>, state: &State) {
        state.for_each_value(&mut |v| {
            each_fresh_chan(v, &mut |id, origin| {
                if self.current.contains_key(&id) {
                    return;
                }
                self.next += 1;
                let identity = self.next;
                self.current.insert(id, identity);
                let k = self
                    .counts
                    .entry(sem.origin_name(origin).to_string())
                    .or_insert(0);
                *k += 1;
                self.number.insert(identity, *k);
            })
        });
    }
}
