//! LTSs equivalent to a given one by construction, one kind per equivalence: the "third LTS"
//! on which a distinguishing formula must agree with the side it is equivalent to. Each
//! rewrite below is the textbook law its equivalence satisfies; `evidence.rs` also confirms
//! every result with the library's minimisers and merc's recorded quotient sizes.

use super::Rng;
use agentpi_lts::{Equivalence, Lts, LtsBuilder};

/// The transitions of an LTS being rewritten.
struct Edges {
    initial: u32,
    states: u32,
    list: Vec<(u32, String, u32)>,
}

/// An LTS equivalent to `lts` modulo `equivalence`, drawn from `seed`:
/// - every equivalence: states duplicated, each copy with every transition of the original
///   into a copy of its target (a strong bisimulation relates each copy to its original);
/// - branching, divergence-preserving branching and weak: inert `tau`-steps inserted (a new
///   state `s'` with `s' -tau-> s` and some of `s`'s transitions; some transitions into `s`
///   and perhaps the initial state moved to `s'`), which adds no divergence;
/// - branching and weak: `tau`-self-loops (divergence, which they ignore);
/// - weak: weak moves made strong (`s -a-> w` for `s =a=> w`), which only weak ignores.
pub fn equivalent_variant(lts: &Lts, equivalence: Equivalence, seed: u64) -> Lts {
    let mut rng = Rng(seed);
    let mut edges = duplicate(&Edges::of(lts), &mut rng);
    if equivalence != Equivalence::Strong {
        insert_inert_taus(&mut edges, &mut rng);
    }
    if matches!(equivalence, Equivalence::Branching | Equivalence::Weak) {
        add_tau_loops(&mut edges, &mut rng);
    }
    if equivalence == Equivalence::Weak {
        saturate(&mut edges, &mut rng);
    }
    shuffle(&edges, &mut rng)
}

impl Edges {
    fn of(lts: &Lts) -> Edges {
        let list = lts
            .transitions()
            .map(|(s, l, t)| (s, lts.label_name(l).to_string(), t))
            .collect();
        Edges {
            initial: lts.initial(),
            states: lts.num_states() as u32,
            list,
        }
    }

    fn from(&self, s: u32) -> Vec<(String, u32)> {
        let out = self.list.iter().filter(|e| e.0 == s);
        out.map(|(_, l, t)| (l.clone(), *t)).collect()
    }

    fn fresh(&mut self) -> u32 {
        self.states += 1;
        self.states - 1
    }
}

/// One or two copies of every state (copy 0 of `s` keeps the number `s`); a transition goes
/// to one copy of its target, or to all of them.
fn duplicate(edges: &Edges, rng: &mut Rng) -> Edges {
    let mut copies: Vec<Vec<u32>> = (0..edges.states).map(|s| vec![s]).collect();
    let mut next = edges.states;
    for c in &mut copies {
        if rng.below(2) == 0 {
            c.push(next);
            next += 1;
        }
    }
    let mut list = Vec::new();
    for (s, label, t) in &edges.list {
        for &from in &copies[*s as usize] {
            let targets = &copies[*t as usize];
            if rng.below(4) == 0 {
                list.extend(targets.iter().map(|&to| (from, label.clone(), to)));
            } else {
                let to = targets[rng.below(targets.len() as u64) as usize];
                list.push((from, label.clone(), to));
            }
        }
    }
    Edges {
        initial: edges.initial,
        states: next,
        list,
    }
}

/// Inserts inert `tau`-steps in front of a few states.
fn insert_inert_taus(edges: &mut Edges, rng: &mut Rng) {
    for _ in 0..1 + rng.below(u64::from(edges.states).min(4)) {
        let s = rng.below(u64::from(edges.states)) as u32;
        let front = edges.fresh();
        for (label, t) in edges.from(s) {
            if rng.below(2) == 0 {
                edges.list.push((front, label, t));
            }
        }
        for edge in &mut edges.list {
            if edge.2 == s && rng.below(2) == 0 {
                edge.2 = front;
            }
        }
        edges.list.push((front, "tau".to_string(), s));
        if edges.initial == s && rng.below(2) == 0 {
            edges.initial = front;
        }
    }
}

fn add_tau_loops(edges: &mut Edges, rng: &mut Rng) {
    for s in 0..edges.states {
        if rng.below(4) == 0 {
            edges.list.push((s, "tau".to_string(), s));
        }
    }
}

/// Adds, for a few states, a weak move as a transition: `s -a-> w` for `s =tau* a tau*=> w`,
/// or `s -tau-> w` for `s =tau*=> w`.
fn saturate(edges: &mut Edges, rng: &mut Rng) {
    for s in 0..edges.states {
        if rng.below(2) == 0 {
            continue;
        }
        let moves = weak_moves(edges, s);
        if !moves.is_empty() {
            let pick = moves[rng.below(moves.len() as u64) as usize].clone();
            edges.list.push((s, pick.0, pick.1));
        }
    }
}

/// Every weak move `(a, w)` of `s` (`a` is `tau` for `s =tau*=> w`).
fn weak_moves(edges: &Edges, s: u32) -> Vec<(String, u32)> {
    let before = tau_closure(edges, s);
    let mut moves: Vec<(String, u32)> = before.iter().map(|&w| ("tau".to_string(), w)).collect();
    for &u in &before {
        for (label, v) in edges.from(u).into_iter().filter(|(l, _)| l != "tau") {
            moves.extend(
                tau_closure(edges, v)
                    .into_iter()
                    .map(|w| (label.clone(), w)),
            );
        }
    }
    moves
}

fn tau_closure(edges: &Edges, s: u32) -> Vec<u32> {
    let mut seen = vec![s];
    let mut i = 0;
    while i < seen.len() {
        for (label, t) in edges.from(seen[i]) {
            if label == "tau" && !seen.contains(&t) {
                seen.push(t);
            }
        }
        i += 1;
    }
    seen
}

/// The LTS with its states renumbered at random.
fn shuffle(edges: &Edges, rng: &mut Rng) -> Lts {
    let mut order: Vec<u32> = (0..edges.states).collect();
    for i in (1..order.len()).rev() {
        order.swap(i, rng.below(i as u64 + 1) as usize);
    }
    let mut b = LtsBuilder::new();
    b.require_states(edges.states as usize);
    for (s, label, t) in &edges.list {
        b.add_transition(order[*s as usize], label, order[*t as usize]);
    }
    b.finish(order[edges.initial as usize])
}
