//! A path that realises a formula: the steps a reader can replay to see the formula hold.
//!
//! For `<a>f`, `<<a>>f`, `<{g}a>f` and `div{g}` the path takes the (shortest) steps the
//! modality promises and continues with the first positive conjunct of `f`. Negations are
//! properties of all paths, so the path stops there.

use crate::hml::{Checker, Formula};
use crate::lts::TAU;
use rustc_hash::FxHashMap;
use std::collections::VecDeque;

/// One step of a path: the label taken and the state reached.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Step {
    pub label: String,
    pub state: u32,
}

/// How a modality reads its label (see [`crate::hml`]).
#[derive(Clone, Copy, PartialEq, Eq)]
enum Reading {
    /// `<a>`: exactly one `a`-step.
    Strong,
    /// `<<a>>`: `tau* a tau*`, and `tau*` for `tau`.
    Weak,
    /// `<{g}a>`: `tau`-steps through `g`, then `a`; for `tau` that step is optional.
    Until,
}

/// The satisfaction sets of the subformulas met while building a path, each computed once and
/// kept as bits: re-evaluating the rest of a formula at every level of it would take time
/// quadratic in its depth (deep formulas come from long chains of refinement rounds).
struct Memo<'c, 'a> {
    checker: &'c Checker<'a>,
    sets: FxHashMap<*const Formula, Vec<u64>>,
}

impl Memo<'_, '_> {
    fn sat(&mut self, f: &Formula) -> Vec<bool> {
        let n = self.checker.lts().num_states();
        if let Some(bits) = self.sets.get(&(f as *const Formula)) {
            return (0..n).map(|i| bits[i / 64] >> (i % 64) & 1 == 1).collect();
        }
        let checker = self.checker;
        let set = checker.sat_from(f, &mut |g| self.sat(g));
        let mut bits = vec![0u64; n.div_ceil(64)];
        for i in (0..n).filter(|&i| set[i]) {
            bits[i / 64] |= 1 << (i % 64);
        }
        self.sets.insert(f, bits);
        set
    }
}

impl Checker<'_> {
    /// Steps from `state` that realise `formula`; empty when it needs none or does not hold.
    pub fn witness(&self, formula: &Formula, state: u32) -> Vec<Step> {
        let mut path = Vec::new();
        let mut memo = Memo {
            checker: self,
            sets: FxHashMap::default(),
        };
        self.extend_witness(&mut memo, formula, state, &mut path);
        path
    }

    fn extend_witness(&self, memo: &mut Memo, formula: &Formula, state: u32, path: &mut Vec<Step>) {
        let next = match formula {
            Formula::True | Formula::Not(_) => None,
            Formula::And(parts) => {
                let positive = parts.iter().find(|p| !matches!(***p, Formula::Not(_)));
                if let Some(p) = positive {
                    self.extend_witness(memo, p, state, path);
                }
                None
            }
            Formula::Diamond(a, f) => {
                let through = vec![false; self.lts().num_states()];
                self.search(state, &through, a, f, &memo.sat(f), Reading::Strong)
            }
            Formula::WeakDiamond(a, f) => {
                let through = vec![true; self.lts().num_states()];
                self.search(state, &through, a, f, &memo.sat(f), Reading::Weak)
            }
            Formula::Until(g, a, f) => {
                self.search(state, &memo.sat(g), a, f, &memo.sat(f), Reading::Until)
            }
            Formula::Diverge(g) => {
                path.extend(self.lasso(state, &memo.sat(g)));
                None
            }
        };
        if let Some((steps, f)) = next {
            let end = steps.last().map_or(state, |s| s.state);
            path.extend(steps);
            self.extend_witness(memo, f, end, path);
        }
    }

    /// Shortest path: `tau`-steps through `through`, then `a`, then (if weak) `tau`-steps,
    /// ending in a state of `goal` (those satisfying `f`). Returns the steps and `f` to
    /// continue with. For a weak or until `tau` the `a`-step may be left out.
    fn search<'f>(
        &self,
        from: u32,
        through: &[bool],
        a: &str,
        f: &'f Formula,
        goal: &[bool],
        reading: Reading,
    ) -> Option<(Vec<Step>, &'f Formula)> {
        let a = self.label(a)?;
        let weak = reading == Reading::Weak;
        let optional = a == TAU && reading != Reading::Strong;
        // Search nodes are state + n * phase: phase 0 before the `a`-step, 1 after it.
        let n = goal.len();
        let mut parent: Vec<Option<(usize, u32)>> = vec![None; 2 * n];
        let mut seen = vec![false; 2 * n];
        seen[from as usize] = true;
        let mut queue = VecDeque::from([from as usize]);
        while let Some(node) = queue.pop_front() {
            let (s, phase) = ((node % n) as u32, node / n);
            if (phase == 1 || optional) && goal[s as usize] {
                return Some((self.unwind(&parent, node, n), f));
            }
            for (l, t) in self.lts().successors(s) {
                let t = t as usize;
                let mut targets = [None, None];
                if phase == 0 && l == TAU && through[t] {
                    targets[0] = Some(t);
                }
                if (phase == 0 && l == a) || (phase == 1 && weak && l == TAU) {
                    targets[1] = Some(n + t);
                }
                for next in targets.into_iter().flatten() {
                    if !seen[next] {
                        seen[next] = true;
                        parent[next] = Some((node, l));
                        queue.push_back(next);
                    }
                }
            }
        }
        None
    }

    fn unwind(&self, parent: &[Option<(usize, u32)>], mut node: usize, n: usize) -> Vec<Step> {
        let mut steps = Vec::new();
        while let Some((prev, l)) = parent[node] {
            steps.push(Step {
                label: self.lts().label_name(l).to_string(),
                state: (node % n) as u32,
            });
            node = prev;
        }
        steps.reverse();
        steps
    }

    /// A `tau`-path inside `within` from `from` to a state on a `tau`-cycle inside
    /// `within`, followed by that cycle.
    fn lasso(&self, from: u32, within: &[bool]) -> Vec<Step> {
        let mut path = Vec::new();
        let mut visited = vec![false; within.len()];
        let mut s = from;
        let divergent = self.divergent_within(within);
        // Every divergent state has a divergent `tau`-successor: walk until a state repeats.
        while !std::mem::replace(&mut visited[s as usize], true) {
            let Some(t) = self
                .lts()
                .tau_successors(s)
                .find(|&t| divergent[t as usize])
            else {
                break;
            };
            path.push(Step {
                label: "tau".to_string(),
                state: t,
            });
            s = t;
        }
        path
    }
}
