//! Distinguishing formulas built from the refinement history (Cleaveland's construction).
//!
//! If `s` and `t` were first separated in round `k`, their signatures against the partition
//! after round `k - 1` differ: one has a move `(a, B)` the other lacks. The formula takes that
//! move and, for each move of the other state that could answer it, a formula separating the
//! targets, which were separated in an earlier round. Each formula built for a separation in
//! round `j` holds on a whole block of round `j`, which is what makes the recursion sound.

use crate::hml::Formula;
use crate::lts::{Lts, TAU};
use crate::partition::Partition;
use rustc_hash::{FxHashMap, FxHashSet};
use std::collections::VecDeque;
use std::rc::Rc;

/// Which modalities the evidence uses.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Logic {
    /// `<a>f`, for strong bisimulation.
    Strong,
    /// `<<a>>f`, for weak bisimulation (needs a `tau`-acyclic LTS).
    Weak,
    /// `<{g}a>f` (`<{g}(tau)>f`, the step optional, for `tau`) and `div{g}`, for
    /// (divergence-preserving) branching bisimulation on a `tau`-acyclic LTS whose
    /// `tau`-self-loops mark divergence.
    Branching,
}

/// A move in a signature: label and target; `DIV` as label marks an inert divergence.
const DIV: u32 = u32::MAX;

/// Builds distinguishing formulas for states of one refined LTS.
pub(crate) struct Explainer<'a> {
    lts: &'a Lts,
    part: &'a Partition,
    logic: Logic,
    memo: FxHashMap<(u32, u32), Rc<Formula>>,
}

/// A chosen difference: `s` has move (label, target) into a block that none of `answers`
/// (the other state's moves with that label) reaches; `exits` are the other state's ways
/// out of the shared block (branching only).
struct Difference {
    label: u32,
    target: u32,
    answers: Vec<u32>,
    exits: Vec<u32>,
}

impl<'a> Explainer<'a> {
    pub(crate) fn new(lts: &'a Lts, part: &'a Partition, logic: Logic) -> Self {
        Explainer {
            lts,
            part,
            logic,
            memo: FxHashMap::default(),
        }
    }

    /// A formula true at `s` and false at `t`; they must be in different blocks.
    pub(crate) fn distinguish(&mut self, s: u32, t: u32) -> Rc<Formula> {
        let key = (self.part.block(s), self.part.block(t));
        if let Some(f) = self.memo.get(&key) {
            return f.clone();
        }
        let round = self
            .part
            .separation_round(s, t)
            .expect("states in different blocks");
        let level = round - 1;
        let forward = self.difference(s, t, level);
        let backward = self.difference(t, s, level);
        let f = match (forward, backward) {
            (Some(d), Some(e)) if cost(&e) < cost(&d) => Formula::negate(self.formula(t, &e)),
            (Some(d), _) => self.formula(s, &d),
            (None, Some(e)) => Formula::negate(self.formula(t, &e)),
            (None, None) => unreachable!("separated states have different signatures"),
        };
        self.memo.insert(key, f.clone());
        f
    }

    /// The formula for difference `d`, true at `s`.
    fn formula(&mut self, s: u32, d: &Difference) -> Rc<Formula> {
        let label = if d.label == DIV {
            String::new()
        } else {
            self.lts.label_name(d.label).to_string()
        };
        let answers = self.distinct_blocks(&d.answers);
        let psi = Formula::and(
            answers
                .iter()
                .map(|&u| self.distinguish(d.target, u))
                .collect(),
        );
        let exits = self.distinct_blocks(&d.exits);
        let phi = Formula::and(exits.iter().map(|&u| self.distinguish(s, u)).collect());
        Rc::new(match self.logic {
            Logic::Strong => Formula::Diamond(label, psi),
            Logic::Weak => Formula::WeakDiamond(label, psi),
            Logic::Branching if d.label == DIV => Formula::Diverge(phi),
            Logic::Branching => Formula::Until(phi, label, psi),
        })
    }

    /// One representative state per final block, in a stable order.
    fn distinct_blocks(&self, states: &[u32]) -> Vec<u32> {
        let mut seen = FxHashSet::default();
        states
            .iter()
            .copied()
            .filter(|&u| seen.insert(self.part.block(u)))
            .collect()
    }

    /// The cheapest move of `s` (against the partition after round `level`) that `t` lacks.
    fn difference(&self, s: u32, t: u32, level: u32) -> Option<Difference> {
        let (s_moves, _) = self.moves(s, level);
        let (t_moves, exits) = self.moves(t, level);
        let inert = |m: &(u32, u32, u32)| {
            self.logic == Logic::Branching && m.0 == TAU && m.2 == self.part.block_at(t, level)
        };
        let (t_inert, t_moves): (Vec<_>, Vec<_>) = t_moves.into_iter().partition(|m| inert(m));
        let s_moves: Vec<_> = s_moves.into_iter().filter(|m| !inert(m)).collect();
        let t_sig: FxHashSet<(u32, u32)> = t_moves.iter().map(|&(l, _, b)| (l, b)).collect();
        s_moves
            .iter()
            .filter(|&&(l, _, b)| !t_sig.contains(&(l, b)))
            .map(|&(label, target, _)| {
                let mut answers: Vec<u32> = t_moves
                    .iter()
                    .filter(|m| m.0 == label)
                    .map(|m| m.1)
                    .collect();
                if label == TAU && self.logic == Logic::Branching {
                    // The `tau`-step of `<{g}(tau)>` is optional (and may stay inside a
                    // contracted `tau`-cycle): every state of the inert region (t included)
                    // must fail the target formula too.
                    answers.push(t);
                    answers.extend(t_inert.iter().map(|m| m.1));
                }
                Difference {
                    label,
                    target,
                    answers,
                    exits: exits.clone(),
                }
            })
            .min_by_key(|d| (cost(d), d.label, self.part.block(d.target)))
    }

    /// The moves (label, target, block of target after round `level`) of `x` and, for
    /// branching, the exits from its block. Branching moves include the inert `tau`-steps,
    /// which are not part of the signature but are answers to a `tau`-move.
    fn moves(&self, x: u32, level: u32) -> (Vec<(u32, u32, u32)>, Vec<u32>) {
        let block = |v: u32| self.part.block_at(v, level);
        match self.logic {
            Logic::Strong => (
                self.lts
                    .successors(x)
                    .map(|(l, v)| (l, v, block(v)))
                    .collect(),
                vec![],
            ),
            Logic::Weak => (
                self.weak_moves(x)
                    .into_iter()
                    .map(|(l, v)| (l, v, block(v)))
                    .collect(),
                vec![],
            ),
            Logic::Branching => self.branching_moves(x, level),
        }
    }

    /// All weak moves `x =a=> v` (and `x =tau*=> v` as label `tau`).
    fn weak_moves(&self, x: u32) -> Vec<(u32, u32)> {
        let closure = |from: u32| reach(self.lts, from, |_| true);
        let mut moves: Vec<(u32, u32)> = closure(x).into_iter().map(|v| (TAU, v)).collect();
        for u in closure(x) {
            for (l, v) in self.lts.successors(u).filter(|&(l, _)| l != TAU) {
                moves.extend(closure(v).into_iter().map(|w| (l, w)));
            }
        }
        moves.sort_unstable();
        moves.dedup();
        moves
    }

    /// Branching moves of `x`: non-inert steps from its inert `tau`-region, a divergence
    /// marker for a `tau`-self-loop there, and the `tau`-exits from the region.
    fn branching_moves(&self, x: u32, level: u32) -> (Vec<(u32, u32, u32)>, Vec<u32>) {
        let home = self.part.block_at(x, level);
        let region = reach(self.lts, x, |v| self.part.block_at(v, level) == home);
        let (mut moves, mut exits) = (Vec::new(), Vec::new());
        for &u in &region {
            for (l, v) in self.lts.successors(u) {
                let b = self.part.block_at(v, level);
                match (l == TAU, b == home, u == v) {
                    (true, true, true) => moves.push((DIV, u, DIV)),
                    (true, true, false) => moves.push((TAU, v, b)),
                    (true, false, _) => {
                        exits.push(v);
                        moves.push((TAU, v, b));
                    }
                    _ => moves.push((l, v, b)),
                }
            }
        }
        (moves, exits)
    }
}

/// How many subformulas a difference needs: fewer is more readable.
fn cost(d: &Difference) -> usize {
    d.answers.len() + d.exits.len()
}

/// The states reachable from `from` by `tau`-steps through states accepted by `keep`.
fn reach(lts: &Lts, from: u32, keep: impl Fn(u32) -> bool) -> Vec<u32> {
    let mut seen = FxHashSet::default();
    seen.insert(from);
    let mut order = vec![from];
    let mut queue = VecDeque::from([from]);
    while let Some(u) = queue.pop_front() {
        for v in lts.tau_successors(u) {
            if keep(v) && seen.insert(v) {
                order.push(v);
                queue.push_back(v);
            }
        }
    }
    order
}
