//! Greedy shrinking of a distinguishing formula, every step confirmed by the model checker
//! (never trusted).
//!
//! The formula read off the refinement history carries one conjunct per answer the other
//! state could give, at every level; most of them are not needed to tell the two initial
//! states apart. Shrinking tries, in pre-order (outermost first), to replace a subformula by
//! `true` or `false`, to leave out a modality or to drop a conjunct, and keeps a change only
//! when the (normalised) result is smaller and still holds in the left initial state and
//! fails in the right one.

use crate::hml::Formula;
use crate::simplify::{falsity, is_false, normalise, truth};
use std::rc::Rc;

/// How much model checking shrinking may spend, in formula nodes times LTS size (states
/// plus transitions of both inputs): a check of an `n`-node formula costs about `n` passes.
/// Counted, not timed, so the result does not depend on the machine.
pub(crate) const SHRINK_BUDGET: u64 = 200_000_000;

/// Larger formulas are left alone: each edit costs a rewrite of the whole formula.
const SHRINK_MAX_NODES: usize = 2_000;

/// The number of nodes of `f` read as a tree (a conjunction is one node).
fn nodes(f: &Formula) -> usize {
    1 + children(f).iter().map(|c| nodes(c)).sum::<usize>()
}

/// Whether `f`, read as a tree, has at most `limit` nodes; visits at most `limit + 1` of them
/// (a formula with shared subformulas can be exponentially larger as a tree).
fn within(f: &Formula, limit: usize) -> bool {
    fn count(f: &Formula, left: &mut usize) -> bool {
        if *left == 0 {
            return false;
        }
        *left -= 1;
        children(f).iter().all(|c| count(c, left))
    }
    count(f, &mut { limit })
}

/// The immediate subformulas of `f`.
pub(crate) fn children(f: &Formula) -> Vec<&Rc<Formula>> {
    match f {
        Formula::True => vec![],
        Formula::Not(g) | Formula::Diamond(_, g) | Formula::WeakDiamond(_, g) => vec![g],
        Formula::Diverge(g) => vec![g],
        Formula::And(parts) => parts.iter().collect(),
        Formula::Until(g, _, h) => vec![g, h],
    }
}

/// `f` with its children replaced (in the order of [`children`]).
fn rebuild(f: &Formula, mut kids: Vec<Rc<Formula>>) -> Formula {
    let mut next = || kids.remove(0);
    match f {
        Formula::True => Formula::True,
        Formula::Not(_) => Formula::Not(next()),
        Formula::Diamond(a, _) => Formula::Diamond(a.clone(), next()),
        Formula::WeakDiamond(a, _) => Formula::WeakDiamond(a.clone(), next()),
        Formula::Diverge(_) => Formula::Diverge(next()),
        Formula::And(_) => Formula::And(kids),
        Formula::Until(_, a, _) => {
            let g = next();
            Formula::Until(g, a.clone(), next())
        }
    }
}

/// The subformulas of a formula in pre-order (0 is the formula itself), each with its parent
/// position and its index among the parent's children, so that one can be replaced by
/// rebuilding only its ancestors.
struct Positions<'f> {
    node: Vec<&'f Rc<Formula>>,
    parent: Vec<Option<(usize, usize)>>,
}

impl<'f> Positions<'f> {
    fn new(f: &'f Rc<Formula>) -> Self {
        let (mut node, mut parent) = (Vec::new(), Vec::new());
        let mut stack = vec![(f, None)];
        while let Some((g, up)) = stack.pop() {
            let here = node.len();
            node.push(g);
            parent.push(up);
            let kids = children(g);
            // Pushed last to first, so they are visited first to last.
            stack.extend(
                kids.into_iter()
                    .enumerate()
                    .rev()
                    .map(|(k, c)| (c, Some((here, k)))),
            );
        }
        Positions { node, parent }
    }

    fn len(&self) -> usize {
        self.node.len()
    }

    /// The formula with the subformula at `index` replaced by `by`.
    fn replace(&self, index: usize, by: Rc<Formula>) -> Rc<Formula> {
        let (mut current, mut at) = (by, index);
        while let Some((up, k)) = self.parent[at] {
            let mut kids: Vec<Rc<Formula>> = children(self.node[up]).into_iter().cloned().collect();
            kids[k] = current;
            current = Rc::new(rebuild(self.node[up], kids));
            at = up;
        }
        current
    }
}

/// The smaller formulas tried in place of `f`, most drastic first: `true`, `false`, the
/// target of a modality, and for a conjunction each conjunction with one part left out.
/// At the root (`whole`), `true` and `false` are not tried: they never distinguish.
fn edits(f: &Rc<Formula>, whole: bool) -> Vec<Rc<Formula>> {
    let mut out = Vec::new();
    if **f != Formula::True && !whole {
        out.push(truth());
    }
    if !is_false(f) && !whole {
        out.push(falsity());
    }
    // Leave out a modality: `<a>g` becomes `g` (and `[a]g`, read as `!<a>!g`, becomes `g`).
    if let Formula::Diamond(_, g) | Formula::WeakDiamond(_, g) | Formula::Until(_, _, g) = &**f {
        out.push(g.clone());
    }
    if let Formula::And(parts) = &**f {
        for skip in 0..parts.len() {
            let rest = parts.iter().enumerate().filter(|&(i, _)| i != skip);
            out.push(Formula::and(rest.map(|(_, p)| p.clone()).collect()));
        }
    }
    out
}

/// Shrinks `f`, which must distinguish, greedily: each edit is kept when the normalised
/// result is smaller and `distinguishes` confirms it. `cost` is the price of one check per
/// formula node; checking stops when `budget` is spent. The result is 1-minimal for the
/// edits tried when the budget suffices: no single edit of it is smaller and still
/// distinguishing. Formulas of more than 2,000 nodes are returned as they are.
pub fn shrink(
    f: &Rc<Formula>,
    mut distinguishes: impl FnMut(&Formula) -> bool,
    cost: u64,
    budget: u64,
) -> Rc<Formula> {
    if !within(f, SHRINK_MAX_NODES) {
        // Rewriting recurses through the formula: leave very large (deep) ones as they are.
        return f.clone();
    }
    let normal = normalise(f);
    // The rewriting is sound, but evidence is checked, never trusted.
    if !distinguishes(&normal) {
        return f.clone();
    }
    let mut search = Shrinker {
        distinguishes,
        cost,
        left: budget,
    };
    let mut f = normal;
    while let Some(smaller) = search.pass(&f) {
        f = smaller;
    }
    f
}

/// The state of a greedy search: the check and what is left of the budget.
struct Shrinker<F> {
    distinguishes: F,
    cost: u64,
    left: u64,
}

impl<F: FnMut(&Formula) -> bool> Shrinker<F> {
    /// One pass over the positions of `f`; `None` when no edit was kept (or the budget ran out).
    fn pass(&mut self, f: &Rc<Formula>) -> Option<Rc<Formula>> {
        let mut f = f.clone();
        let mut changed = false;
        let mut index = 0;
        // The positions are recomputed only when the formula changes.
        'changed: loop {
            let positions = Positions::new(&f);
            while index < positions.len() {
                match self.edit_at(&positions, index) {
                    // Stay at this position: the new subformula there may shrink further.
                    Ok(Some(smaller)) => {
                        (f, changed) = (smaller, true);
                        continue 'changed;
                    }
                    Ok(None) => index += 1,
                    Err(Spent) => break 'changed,
                }
            }
            break;
        }
        changed.then_some(f)
    }

    /// The first edit at `index` that gives a smaller formula that still distinguishes.
    fn edit_at(&mut self, f: &Positions, index: usize) -> Result<Option<Rc<Formula>>, Spent> {
        let size = f.len();
        for edit in edits(f.node[index], index == 0) {
            let candidate = normalise(&f.replace(index, edit));
            let candidate_size = nodes(&candidate);
            if candidate_size >= size {
                continue;
            }
            let price = self.cost.saturating_mul(candidate_size as u64);
            self.left = self.left.checked_sub(price).ok_or(Spent)?;
            if (self.distinguishes)(&candidate) {
                return Ok(Some(candidate));
            }
        }
        Ok(None)
    }
}

/// The budget ran out.
struct Spent;
