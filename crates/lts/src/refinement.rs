//! Refinement in the CSP models, as FDR checks it: `SPEC [T= IMPL`, `[F=` and `[FD=`.
//!
//! The specification is normalised on the fly (subset construction over `tau`-closures):
//! a normal-form node is the set of specification states reachable by one visible trace.
//! The product of implementation states and normal-form nodes is explored breadth-first by
//! trace length (`tau`-steps cost nothing), so the first violation found has a shortest trace.
//! - traces: every visible step of the implementation must be possible in the node;
//! - failures: at a stable implementation state, some stable state of the node must refuse
//!   at least as much (its initial actions are a subset of the implementation's);
//! - failures-divergences: as failures, plus the implementation may not diverge unless the
//!   specification can after the same trace (after which anything is allowed).

use crate::lts::{Lts, TAU};
use crate::scc::tau_sccs;
use crate::witness::Step;
use rustc_hash::FxHashMap;
use std::rc::Rc;

/// The semantic model of a refinement check.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Model {
    Traces,
    Failures,
    FailuresDivergences,
}

/// What the implementation does that the specification does not allow.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Violation {
    /// After the trace the implementation performs `action`, which the specification cannot.
    Action(String),
    /// After the trace the implementation is stable and refuses `refused`, which no stable
    /// state of the specification after that trace refuses.
    Refusal(Vec<String>),
    /// After the trace the implementation can perform `tau` forever; the specification cannot.
    Divergence,
}

/// A shortest counterexample.
#[derive(Clone, Debug)]
pub struct Counterexample {
    /// The visible trace (no `tau`).
    pub trace: Vec<String>,
    /// The implementation's path, `tau`-steps included, from its initial state.
    pub path: Vec<Step>,
    pub violation: Violation,
}

/// The verdict of a refinement check.
#[derive(Clone, Debug)]
pub struct RefinementResult {
    pub refines: bool,
    pub counterexample: Option<Counterexample>,
    /// How many (implementation state, normal-form node) pairs were explored.
    pub pairs: usize,
}

/// Per-state facts: stable, on a `tau`-cycle, and the sorted initial visible labels (by text).
struct Facts {
    stable: Vec<bool>,
    cyclic: Vec<bool>,
}

impl Facts {
    fn new(lts: &Lts) -> Self {
        let (scc, count) = tau_sccs(lts);
        let mut size = vec![0u32; count as usize];
        for &c in &scc {
            size[c as usize] += 1;
        }
        let n = lts.num_states() as u32;
        let stable = (0..n)
            .map(|s| lts.tau_successors(s).next().is_none())
            .collect();
        let cyclic = (0..n)
            .map(|s| size[scc[s as usize] as usize] > 1 || lts.tau_successors(s).any(|t| t == s))
            .collect();
        Facts { stable, cyclic }
    }
}

/// The specification's normal form, built on demand.
struct Normal<'a> {
    spec: &'a Lts,
    facts: Facts,
    /// Each node's states, shared with `index` so that every set is stored once.
    nodes: Vec<Rc<[u32]>>,
    index: FxHashMap<Rc<[u32]>, u32>,
    after: FxHashMap<(u32, u32), Option<u32>>,
}

impl<'a> Normal<'a> {
    fn new(spec: &'a Lts) -> Self {
        let mut n = Normal {
            spec,
            facts: Facts::new(spec),
            nodes: vec![],
            index: FxHashMap::default(),
            after: FxHashMap::default(),
        };
        n.intern(vec![spec.initial()]);
        n
    }

    /// The node of the `tau`-closure of `states`.
    fn intern(&mut self, states: Vec<u32>) -> u32 {
        let closed = self.closure(states);
        if let Some(&id) = self.index.get(closed.as_slice()) {
            return id;
        }
        let id = self.nodes.len() as u32;
        let shared: Rc<[u32]> = closed.into();
        self.nodes.push(shared.clone());
        self.index.insert(shared, id);
        id
    }

    fn closure(&self, mut states: Vec<u32>) -> Vec<u32> {
        let mut seen: rustc_hash::FxHashSet<u32> = states.iter().copied().collect();
        let mut i = 0;
        while i < states.len() {
            for t in self.spec.tau_successors(states[i]) {
                if seen.insert(t) {
                    states.push(t);
                }
            }
            i += 1;
        }
        states.sort_unstable();
        states
    }

    /// The node after visible spec label `label`, or `None` if no state can do it.
    fn step(&mut self, node: u32, label: u32) -> Option<u32> {
        if let Some(&r) = self.after.get(&(node, label)) {
            return r;
        }
        let mut targets: Vec<u32> = Vec::new();
        for &s in self.nodes[node as usize].iter() {
            targets.extend(
                self.spec
                    .successors(s)
                    .filter(|&(l, _)| l == label)
                    .map(|(_, t)| t),
            );
        }
        targets.sort_unstable();
        targets.dedup();
        let r = (!targets.is_empty()).then(|| self.intern(targets));
        self.after.insert((node, label), r);
        r
    }

    fn divergent(&self, node: u32) -> bool {
        self.nodes[node as usize]
            .iter()
            .any(|&s| self.facts.cyclic[s as usize])
    }
}

/// Checks whether `implementation` refines `spec` in `model` (FDR's `spec [X= implementation`).
pub fn refines(spec: &Lts, implementation: &Lts, model: Model) -> RefinementResult {
    Product::new(spec, implementation, model).run()
}

/// Checks whether `lts` is deterministic in `model` (`Failures` or `FailuresDivergences`, as
/// FDR's `:[deterministic [F]]` and `:[deterministic [FD]]`): after no trace can it both
/// perform an action and, stable, refuse it (nor, in `FailuresDivergences`, diverge). The
/// product of `lts` with its own normal form is explored breadth-first, so the counterexample
/// has a shortest trace: a [`Violation::Refusal`] of actions it can also perform after that
/// trace, or a [`Violation::Divergence`].
pub fn deterministic(lts: &Lts, model: Model) -> RefinementResult {
    let mut product = Product::new(lts, lts, model);
    product.determinism = true;
    product.run()
}

/// The on-the-fly product exploration.
struct Product<'a> {
    norm: Normal<'a>,
    imp: &'a Lts,
    imp_facts: Facts,
    model: Model,
    /// Implementation label -> specification label (by text), `None` if the spec lacks it.
    to_spec: Vec<Option<u32>>,
    pairs: Vec<(u32, u32)>,
    parent: Vec<Option<(usize, u32)>>,
    seen: FxHashMap<(u32, u32), usize>,
    /// Checking determinism (the specification is the implementation's own normal form).
    determinism: bool,
}

impl<'a> Product<'a> {
    fn new(spec: &'a Lts, imp: &'a Lts, model: Model) -> Self {
        let to_spec = imp.labels().iter().map(|l| spec.label_id(l)).collect();
        Product {
            norm: Normal::new(spec),
            imp,
            imp_facts: Facts::new(imp),
            model,
            to_spec,
            pairs: vec![],
            parent: vec![],
            seen: FxHashMap::default(),
            determinism: false,
        }
    }

    fn visit(&mut self, pair: (u32, u32), parent: Option<(usize, u32)>, layer: &mut Vec<usize>) {
        if self.seen.contains_key(&pair) {
            return;
        }
        self.seen.insert(pair, self.pairs.len());
        layer.push(self.pairs.len());
        self.pairs.push(pair);
        self.parent.push(parent);
    }

    /// Breadth-first by trace length; `tau`-steps stay in the current layer.
    fn run(mut self) -> RefinementResult {
        let mut layer = Vec::new();
        self.visit((self.imp.initial(), 0), None, &mut layer);
        while !layer.is_empty() {
            let mut next = Vec::new();
            let mut i = 0;
            while i < layer.len() {
                let index = layer[i];
                if let Some(v) = self.expand(index, &mut layer, &mut next) {
                    return self.counterexample(index, v);
                }
                i += 1;
            }
            layer = next;
        }
        RefinementResult {
            refines: true,
            counterexample: None,
            pairs: self.pairs.len(),
        }
    }

    /// Checks one pair and queues its successors; returns a violation found there.
    fn expand(
        &mut self,
        index: usize,
        layer: &mut Vec<usize>,
        next: &mut Vec<usize>,
    ) -> Option<Violation> {
        let (i, node) = self.pairs[index];
        let fd = self.model == Model::FailuresDivergences;
        if fd && !self.determinism && self.norm.divergent(node) {
            return None;
        }
        if fd && self.imp_facts.cyclic[i as usize] {
            return Some(Violation::Divergence);
        }
        if self.determinism
            && self.imp_facts.stable[i as usize]
            && let Some(refused) = self.also_possible(i, node)
        {
            return Some(Violation::Refusal(refused));
        }
        if !self.determinism
            && self.model != Model::Traces
            && self.imp_facts.stable[i as usize]
            && let Some(refused) = self.refusal(i, node)
        {
            return Some(Violation::Refusal(refused));
        }
        for (l, t) in self.imp.successors(i) {
            if l == TAU {
                self.visit((t, node), Some((index, l)), layer);
                continue;
            }
            match self.to_spec[l as usize].and_then(|sl| self.norm.step(node, sl)) {
                Some(after) => self.visit((t, after), Some((index, l)), next),
                None => {
                    self.visit((t, u32::MAX), Some((index, l)), &mut Vec::new());
                    return Some(Violation::Action(self.imp.label_name(l).to_string()));
                }
            }
        }
        None
    }

    /// At stable implementation state `i`: `None` if some stable spec state of `node`
    /// refuses everything `i` refuses; otherwise a set `i` refuses that no such state does.
    fn refusal(&self, i: u32, node: u32) -> Option<Vec<String>> {
        let offered: Vec<&str> = self
            .imp
            .successors(i)
            .map(|(l, _)| self.imp.label_name(l))
            .collect();
        let spec = self.norm.spec;
        let mut refused: Vec<String> = Vec::new();
        for &s in self.norm.nodes[node as usize].iter() {
            if !self.norm.facts.stable[s as usize] {
                continue;
            }
            let missing: Vec<&str> = spec
                .successors(s)
                .map(|(l, _)| spec.label_name(l))
                .filter(|l| !offered.contains(l))
                .collect();
            if missing.is_empty() {
                return None;
            }
            refused.extend(missing.iter().map(|l| l.to_string()));
        }
        refused.sort();
        refused.dedup();
        Some(refused)
    }

    /// At stable state `i` reached by the trace of `node`: the actions some state of `node`
    /// can perform (after `tau`-steps) that `i` refuses, if any.
    fn also_possible(&self, i: u32, node: u32) -> Option<Vec<String>> {
        let offered: Vec<u32> = self.imp.successors(i).map(|(l, _)| l).collect();
        let mut possible: Vec<String> = Vec::new();
        for &s in self.norm.nodes[node as usize].iter() {
            let missing = self.imp.successors(s).map(|(l, _)| l);
            let missing = missing.filter(|&l| l != TAU && !offered.contains(&l));
            possible.extend(missing.map(|l| self.imp.label_name(l).to_string()));
        }
        possible.sort();
        possible.dedup();
        (!possible.is_empty()).then_some(possible)
    }

    fn counterexample(self, index: usize, violation: Violation) -> RefinementResult {
        let mut path = Vec::new();
        let mut at = if matches!(violation, Violation::Action(_)) {
            self.pairs.len() - 1
        } else {
            index
        };
        while let Some((prev, l)) = self.parent[at] {
            path.push(Step {
                label: self.imp.label_name(l).to_string(),
                state: self.pairs[at].0,
            });
            at = prev;
        }
        path.reverse();
        let trace = path
            .iter()
            .filter(|s| s.label != "tau")
            .map(|s| s.label.clone())
            .collect();
        let counterexample = Counterexample {
            trace,
            path,
            violation,
        };
        RefinementResult {
            refines: false,
            counterexample: Some(counterexample),
            pairs: self.pairs.len(),
        }
    }
}
