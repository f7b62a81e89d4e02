//! `ltl FORMULA`: the negated formula as a transition-based generalised Büchi automaton, built
//! on the fly in the product with the state space (a tableau in the manner of Gerth, Peled,
//! Vardi and Wolper, expanded against each concrete label).
//!
//! A product node is a system state and a set of obligations: subformulas, each with the values
//! its enclosing `A -> f` bound, that must hold from the next step on. Expanding the set
//! against a transition's label gives the possible obligation sets after it; an edge carries,
//! one bit per `U` of the negated formula, whether that eventuality was postponed. A
//! counterexample (a run of the negated formula) is then, as for the fixed shapes, a reachable
//! fair cycle that clears every bit somewhere, a stuck state where stuttering forever is
//! accepted, or a node with no obligation left (every continuation violates: a bad prefix).
//!
//! The stutter step that extends a finite maximal path matches no label pattern. A state
//! predicate holds at a step whose source state satisfies it (at the stutter step, the state
//! the path stops in).

use crate::graph::Graph;
use crate::lean::{Lean, Monitor, Move};
use crate::pattern::{Bindings, match_label, rename_bindings};
use crate::product::accepting_sccs;
use crate::props::{Builder, Found, Interned, Search};
use crate::state::Compiled;
use agentpi_ir::core::{LabelPattern, StatePred};
use agentpi_ir::ltl::{Ltl, Nnf, nnf};
use agentpi_semantics::Semantics;
use rustc_hash::FxHashMap;

/// A subformula of the negated formula, by index into [`Automaton::nodes`].
#[derive(Clone, Copy, Debug)]
enum Node {
    True,
    False,
    Atom(usize),
    NotAtom(usize),
    /// A state predicate, by its bit in a state's valuation.
    State(u32),
    And(u32, u32),
    Or(u32, u32),
    Next(u32),
    /// With its bit among the eventualities.
    Until(u32, u32, u32),
    Release(u32, u32),
    Imp(usize, u32),
    When(usize, u32),
}

/// An obligation: a subformula and the environment (by index) its variables take values from.
type Ob = (u32, u32);

/// An obligation set that can follow a step, with the eventualities it postpones.
type Successor = (Vec<Ob>, u64);

/// What expansion reads: a transition's label, by index, or the stutter step, each with the
/// valuation of the state predicates in its source state (one bit each).
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
enum Letter {
    Label(u32, u64),
    Stutter(u64),
}

impl Letter {
    fn valuation(self) -> u64 {
        match self {
            Letter::Label(_, v) | Letter::Stutter(v) => v,
        }
    }
}

struct Automaton<'a> {
    sem: &'a Semantics<'a>,
    graph: &'a Graph,
    nodes: Vec<Node>,
    patterns: Vec<LabelPattern>,
    /// For each pattern and label index: whether it matches with no variables bound.
    plain: Vec<Vec<bool>>,
    envs: Vec<Bindings>,
    env_index: FxHashMap<Bindings, u32>,
    /// The state predicates of the formula, each once.
    states: Vec<StatePred>,
    expansions: FxHashMap<(Vec<Ob>, Letter), Vec<Successor>>,
    stutter_ok: FxHashMap<(Vec<Ob>, u64), bool>,
    untils: u32,
}

/// A partly expanded cover: obligations still to expand now, those expanded, the obligations
/// for the next step and the eventualities postponed.
#[derive(Clone, Default)]
struct Cover {
    todo: Vec<Ob>,
    seen: Vec<Ob>,
    next: Vec<Ob>,
    pending: u64,
}

impl<'a> Automaton<'a> {
    fn new(sem: &'a Semantics<'a>, graph: &'a Graph) -> Self {
        Automaton {
            sem,
            graph,
            nodes: Vec::new(),
            patterns: Vec::new(),
            plain: Vec::new(),
            envs: vec![Vec::new()],
            env_index: FxHashMap::from_iter([(Vec::new(), 0)]),
            states: Vec::new(),
            expansions: FxHashMap::default(),
            stutter_ok: FxHashMap::default(),
            untils: 0,
        }
    }

    /// Adds `f` and its subformulas; returns its index.
    fn add(&mut self, f: &Nnf) -> u32 {
        let node = match f {
            Nnf::True => Node::True,
            Nnf::False => Node::False,
            Nnf::Atom(p) => Node::Atom(self.pattern(p)),
            Nnf::NotAtom(p) => Node::NotAtom(self.pattern(p)),
            Nnf::State(p) => Node::State(self.state_bit(p)),
            Nnf::And(a, b) => Node::And(self.add(a), self.add(b)),
            Nnf::Or(a, b) => Node::Or(self.add(a), self.add(b)),
            Nnf::Next(a) => Node::Next(self.add(a)),
            Nnf::Until(a, b) => {
                let bit = self.untils;
                self.untils += 1;
                Node::Until(self.add(a), self.add(b), bit)
            }
            Nnf::Release(a, b) => Node::Release(self.add(a), self.add(b)),
            Nnf::Imp(p, a) => Node::Imp(self.pattern(p), self.add(a)),
            Nnf::When(p, a) => Node::When(self.pattern(p), self.add(a)),
        };
        self.nodes.push(node);
        self.nodes.len() as u32 - 1
    }

    fn pattern(&mut self, p: &LabelPattern) -> usize {
        let (sem, labels) = (self.sem, &self.graph.labels);
        let mask = labels
            .iter()
            .map(|l| match_label(sem, p, l, &Vec::new()).is_some())
            .collect();
        self.plain.push(mask);
        self.patterns.push(p.clone());
        self.patterns.len() - 1
    }

    /// The bit of a state predicate (at most 64 distinct ones: lowering refuses more).
    fn state_bit(&mut self, p: &StatePred) -> u32 {
        match self.states.iter().position(|q| q == p) {
            Some(i) => i as u32,
            None => {
                self.states.push(p.clone());
                self.states.len() as u32 - 1
            }
        }
    }

    /// Which state predicates each state satisfies, one bit each (none without predicates).
    fn valuations(&self) -> Vec<u64> {
        if self.states.is_empty() {
            return Vec::new();
        }
        let sem = self.sem;
        let compiled: Vec<Compiled> = self
            .states
            .iter()
            .map(|p| Compiled::new(sem, p, &self.graph.instances))
            .collect();
        (0..self.graph.state_count() as u32)
            .map(|s| {
                let state = self.graph.state(s);
                let bits = compiled.iter().enumerate();
                bits.filter(|(_, c)| c.holds(&state))
                    .fold(0, |v, (i, _)| v | 1 << i)
            })
            .collect()
    }

    fn env(&mut self, bindings: Bindings) -> u32 {
        if let Some(&i) = self.env_index.get(&bindings) {
            return i;
        }
        self.envs.push(bindings.clone());
        self.env_index.insert(bindings, self.envs.len() as u32 - 1);
        self.envs.len() as u32 - 1
    }

    /// The bindings of pattern `p` on `step` under environment `env`, if it matches.
    fn matches(&self, p: usize, env: u32, step: Letter) -> Option<Bindings> {
        let Letter::Label(l, _) = step else {
            return None;
        };
        if env == 0 && !self.plain[p][l as usize] {
            return None;
        }
        let label = &self.graph.labels[l as usize];
        match_label(self.sem, &self.patterns[p], label, &self.envs[env as usize])
    }

    /// The obligation sets that can follow `obs` on `step`, each with its postponed
    /// eventualities (before fresh channels are renamed into the target's numbering).
    fn expand(&mut self, obs: &[Ob], step: Letter) -> Vec<Successor> {
        let key = (obs.to_vec(), step);
        if let Some(found) = self.expansions.get(&key) {
            return found.clone();
        }
        let mut out = Vec::new();
        let mut work = vec![Cover {
            todo: obs.to_vec(),
            ..Cover::default()
        }];
        while let Some(mut cover) = work.pop() {
            match cover.todo.pop() {
                None => {
                    cover.next.sort_unstable();
                    cover.next.dedup();
                    out.push((cover.next, cover.pending));
                }
                Some(ob) if cover.seen.contains(&ob) => work.push(cover),
                Some(ob) => {
                    cover.seen.push(ob);
                    self.expand_one(ob, cover, step, &mut work);
                }
            }
        }
        out.sort_unstable();
        out.dedup();
        let out = minimal(out);
        self.expansions.insert(key, out.clone());
        out
    }

    /// Expands one obligation of `cover`, pushing what remains possible onto `work`.
    fn expand_one(&mut self, (f, env): Ob, mut cover: Cover, step: Letter, work: &mut Vec<Cover>) {
        match self.nodes[f as usize] {
            Node::True => work.push(cover),
            Node::False => {}
            Node::Atom(p) => {
                if self.matches(p, env, step).is_some() {
                    work.push(cover);
                }
            }
            Node::NotAtom(p) => {
                if self.matches(p, env, step).is_none() {
                    work.push(cover);
                }
            }
            Node::State(bit) => {
                if step.valuation() & (1 << bit) != 0 {
                    work.push(cover);
                }
            }
            Node::And(a, b) => {
                cover.todo.extend([(a, env), (b, env)]);
                work.push(cover);
            }
            Node::Or(a, b) => {
                let mut other = cover.clone();
                other.todo.push((b, env));
                cover.todo.push((a, env));
                work.extend([cover, other]);
            }
            Node::Next(a) => {
                cover.next.push((a, env));
                work.push(cover);
            }
            Node::Until(a, b, bit) => {
                let mut later = cover.clone();
                later.todo.push((a, env));
                later.next.push((f, env));
                later.pending |= 1 << bit;
                cover.todo.push((b, env));
                work.extend([cover, later]);
            }
            Node::Release(a, b) => {
                let mut later = cover.clone();
                later.todo.push((b, env));
                later.next.push((f, env));
                cover.todo.extend([(b, env), (a, env)]);
                work.extend([cover, later]);
            }
            Node::Imp(p, a) => {
                if let Some(theta) = self.matches(p, env, step) {
                    let bound = self.env(theta);
                    cover.todo.push((a, bound));
                }
                work.push(cover);
            }
            Node::When(p, a) => {
                if let Some(theta) = self.matches(p, env, step) {
                    let bound = self.env(theta);
                    cover.todo.push((a, bound));
                    work.push(cover);
                }
            }
        }
    }

    /// Renames the fresh channels of each obligation's values into the target's numbering.
    fn rename(&mut self, obs: &[Ob], renaming: Option<&[u32]>) -> Vec<Ob> {
        let Some(renaming) = renaming else {
            return obs.to_vec();
        };
        let mut out: Vec<Ob> = obs
            .iter()
            .map(|&(f, env)| match env {
                0 => (f, 0),
                _ => {
                    let renamed = rename_bindings(&self.envs[env as usize], renaming);
                    (f, self.env(renamed))
                }
            })
            .collect();
        out.sort_unstable();
        out.dedup();
        out
    }

    /// Whether stuttering forever from `obs` is a run of the negated formula: a path that
    /// stops in a state with these obligations violates the property.
    fn accepts_stutter(&mut self, obs: &[Ob], valuation: u64) -> bool {
        let key = (obs.to_vec(), valuation);
        if let Some(&known) = self.stutter_ok.get(&key) {
            return known;
        }
        let mut builder: Builder<Vec<Ob>> = Builder::new(obs.to_vec(), 0, true);
        let mut universal = obs.is_empty();
        while let Some((n, q)) = builder.next() {
            let q = q.clone();
            universal |= q.is_empty();
            for (next, pending) in self.expand(&q, Letter::Stutter(valuation)) {
                let to = builder.node(next, 0, true, n);
                builder.edge_pending(to, 0, true, pending);
            }
        }
        let sccs = accepting_sccs(&builder.product, None, 1).expect("no bound on memory");
        let ok = universal || !sccs.is_empty();
        self.stutter_ok.insert(key, ok);
        ok
    }
}

/// Drops each (set, pending) that another makes redundant: a subset of its obligations with a
/// subset of its postponed eventualities accepts at least the same continuations.
fn minimal(covers: Vec<Successor>) -> Vec<Successor> {
    let dominated = |i: usize| {
        let (q, p) = &covers[i];
        covers.iter().enumerate().any(|(j, (r, o))| {
            j != i
                && o & !p == 0
                && r.iter().all(|x| q.contains(x))
                && (r.len() < q.len() || o != p || j < i)
        })
    };
    (0..covers.len())
        .filter(|&i| !dominated(i))
        .map(|i| covers[i].clone())
        .collect()
}

/// Searches for a path of the state space that violates `formula`: a lasso, a path into a
/// stuck state, or a path after which every continuation violates.
///
/// The product keeps its nodes, not its edges ([`Lean`]): the automaton's moves on each kind
/// of step, from a state of each valuation, are learnt once and found again by the search.
pub fn violation(sem: &Semantics<'_>, graph: &Graph, formula: &Ltl, how: Search) -> Found {
    let mut aut = Automaton::new(sem, graph);
    let root = aut.add(&nnf(formula, true));
    let valuations = aut.valuations();
    // A monitor state is an obligation set, by number.
    let mut sets: Interned<Vec<Ob>> = Interned::default();
    let root = sets.number(vec![(root, 0)]);
    let mut monitor = Tableau { aut, sets };
    let mut lean = Lean::new(graph, valuations, root);
    lean.mark_with(&mut monitor, 0);
    how.lean(lean, &mut monitor, graph)
}

/// The automaton as the product's monitor, its states the obligation sets numbered in `sets`.
struct Tableau<'a> {
    aut: Automaton<'a>,
    sets: Interned<Vec<Ob>>,
}

impl Monitor for Tableau<'_> {
    fn moves(&mut self, q: u32, (s, j): (u32, usize), valuation: u64) -> Vec<Move> {
        let obs = self.sets.list[q as usize].clone();
        if obs.is_empty() {
            return Vec::new();
        }
        let graph = self.aut.graph;
        let label = graph.successors(s).get(j).label;
        let after = self.aut.expand(&obs, Letter::Label(label, valuation));
        let renaming = graph.renaming(s, j);
        let to_move = |(next, pending): &Successor| Move {
            to: self.sets.number(self.aut.rename(next, renaming)),
            inside: true,
            pending: *pending,
        };
        after.iter().map(to_move).collect()
    }

    fn flags(&mut self, q: u32, valuation: u64) -> [bool; 3] {
        let obs = self.sets.list[q as usize].clone();
        let stutter = self.aut.accepts_stutter(&obs, valuation);
        [true, stutter, obs.is_empty()]
    }
}
